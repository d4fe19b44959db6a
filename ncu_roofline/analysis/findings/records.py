"""A finding as plain data (:meth:`~ncu_roofline.analysis.findings.finding.Finding.to_dict`).

Built here, in the analysis stage, and carried unchanged into the report's
``findings``: its one home is here; :mod:`ncu_roofline.report.schema`
re-exports it beside the other report types.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["FindingRecord"]


class FindingRecord(TypedDict):
    """One finding; its kind is an entry of the findings catalogue."""

    kind: str
    kernel: str | None
    severity: str
    message: str
    source: str | None
    recoverable_s: float | None
    #: ``kind`` or ``kind/variant``: the key of its text in the report's ``advice``.
    advice: str
