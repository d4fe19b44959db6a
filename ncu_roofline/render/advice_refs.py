"""Which kernel groups carry each advice id, the one grouping every renderer names them by.

Every kernel group has an advice id (``advice``, chosen by the analysis);
the page's advice cards, the Markdown's advice section and the terminal's
``try:`` block each say an advice once and list the groups told to try it.
"""

from __future__ import annotations

from collections.abc import Iterable

from ncu_roofline.report.schema import KernelRecord


def groups_by_advice(kernels: Iterable[KernelRecord]) -> dict[str, list[KernelRecord]]:
    """Per advice id, in order of first appearance, the groups that carry it (in their order)."""
    out: dict[str, list[KernelRecord]] = {}
    for k in kernels:
        advice_id = k.get("advice")
        if isinstance(advice_id, str) and advice_id:
            out.setdefault(advice_id, []).append(k)
    return out


__all__ = ["groups_by_advice"]
