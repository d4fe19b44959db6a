"""What the budget sorts kernel time by (an ncu group's bound class and limiter) and the ncu options for unprofiled kernels."""

from __future__ import annotations

import re

import pandas as pd

from ncu_roofline.analysis.budget.join import join_key

__all__ = ["NOT_PROFILED", "TOP_UNPROFILED", "class_labels", "ncu_options"]

#: The class of kernels no ncu group joined, in ``by_bound`` and ``by_limiter``.
NOT_PROFILED = "not profiled"
#: The unprofiled kernels listed, most time first.
TOP_UNPROFILED = 10


def class_labels(groups: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Each ncu group's bound class and limiter as budget labels (``unknown``, ``no limiter`` where missing)."""
    bound = [b if isinstance(b, str) else "unknown" for b in groups["bound"].astype(object)]
    lim = (
        groups["limiter"].astype(object) if "limiter" in groups else pd.Series([None] * len(groups))
    )
    return bound, [x if isinstance(x, str) else "no limiter" for x in lim]


def ncu_options(name: str, instances: int) -> str:
    """The ncu options that profile a few launches of kernel ``name`` past its warm-up.

    ``--kernel-name`` matches ncu's default function-name base (no return
    type, parameters or templates); the regex ``(^|::)NAME$`` takes the
    function's own name with or without its namespaces, and not a longer name
    ending in it (``kernel`` must not match ``elementwise_kernel``).  A
    generic name (``kernel``) may still match kernels of other namespaces:
    the launch counts apply to every match.  ``--launch-skip`` (which counts
    the matching launches) passes the first tenth of them, at most 50
    (warm-up, autotuning, cold caches), and ``--launch-count`` takes up to 5.
    """
    base = join_key(name).split("<", 1)[0] or name
    skip = min(instances // 10, 50)
    count = max(min(instances - skip, 5), 1)
    return f"--kernel-name 'regex:(^|::){re.escape(base)}$' --launch-skip {skip} --launch-count {count}"
