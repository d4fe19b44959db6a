"""The roofline weighted by real time: each ncu group's share of the timeline.

ncu profiles a sample of launches (often one per kernel), so an analysis's
``total_duration_s`` and ``time_share`` weigh a kernel by how often *ncu*
ran it.  A timeline counts every launch: joined to the groups
(:mod:`~ncu_roofline.analysis.budget.join`), it gives each group its real
instances and time, and the ranking by recoverable time follows the real
time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ncu_roofline.analysis.budget.build import budget
from ncu_roofline.analysis.budget.records import BudgetRecord
from ncu_roofline.core.timeline import Timeline

if TYPE_CHECKING:
    from ncu_roofline.analysis.engine import Analysis

__all__ = ["WEIGHT_COLUMNS", "weight_by_timeline"]

#: The columns :func:`weight_by_timeline` adds to an analysis's kernel groups.
WEIGHT_COLUMNS: tuple[str, ...] = (
    "nsys_instances",
    "nsys_total_s",
    "nsys_time_share",
    "nsys_join",
    "time_basis",
    "weighted_total_s",
    "weighted_recoverable_s",
    "weighted_rank",
)


def weight_by_timeline(
    analysis: Analysis, timeline: Timeline, *, budget_record: BudgetRecord | None = None
) -> pd.DataFrame:
    """The analysis's kernel groups with their real time from ``timeline``, ranked by it.

    A copy of ``analysis.kernels`` with :data:`WEIGHT_COLUMNS`:
    ``nsys_instances`` and ``nsys_total_s`` (the joined trace kernels' count
    and summed durations, or the kernel summaries' totals), ``nsys_time_share``
    (of all the timeline's kernel time, unprofiled kernels included),
    ``nsys_join`` (how they joined: ``exact``, ``by name``, ``normalised``,
    comma-separated when several), ``time_basis`` (``"nsys"``, or ``"ncu"``
    for a group the timeline never ran: its time stays ncu's),
    ``weighted_total_s``, ``weighted_recoverable_s`` (ncu's recoverable time
    is a fraction of the group's time, so it scales by real over ncu time)
    and ``weighted_rank`` (1 = most weighted recoverable time); rows sorted
    by that rank.  Missing figures are NaN/``<NA>``/``None``, never 0.
    ``budget_record`` reuses a budget already made of the same inputs.
    """
    record = budget_record if budget_record is not None else budget(timeline, analysis)
    kernels = analysis.kernels.reset_index(drop=True).copy()
    first: dict[tuple[str, str | None, str | None], int] = {}
    for i, key in enumerate(
        zip(
            kernels["kernel"].astype(str),
            [None if pd.isna(x) else str(x) for x in kernels["grid"].astype(object)],
            [None if pd.isna(x) else str(x) for x in kernels["block"].astype(object)],
            strict=True,
        )
    ):
        first.setdefault(key, i)
    n = len(kernels)
    instances = np.zeros(n, dtype=np.int64)
    total = np.zeros(n, dtype=np.float64)
    seen = np.zeros(n, dtype=bool)
    joins: list[list[str]] = [[] for _ in range(n)]
    all_s = 0.0
    for k in record["trace_kernels"]:
        all_s += k["total_s"]
        if k["ncu_kernel"] is None:
            continue
        pos = first.get((k["ncu_kernel"], k["ncu_grid"], k["ncu_block"]))
        if pos is None:
            continue
        instances[pos] += k["instances"]
        total[pos] += k["total_s"]
        seen[pos] = True
        if k["join"] not in joins[pos]:
            joins[pos].append(k["join"])
    ncu_total = kernels["total_duration_s"].to_numpy(dtype=np.float64, na_value=np.nan)
    recoverable = (
        kernels["recoverable_s"].to_numpy(dtype=np.float64, na_value=np.nan)
        if "recoverable_s" in kernels
        else np.full(n, np.nan)
    )
    nsys_total = np.where(seen, total, np.nan)
    kernels["nsys_instances"] = pd.array(np.where(seen, instances, 0), dtype="Int64")
    kernels.loc[~seen, "nsys_instances"] = pd.NA
    kernels["nsys_total_s"] = nsys_total
    kernels["nsys_time_share"] = nsys_total / all_s if all_s > 0 else np.full(n, np.nan)
    kernels["nsys_join"] = [", ".join(j) if j else None for j in joins]
    kernels["time_basis"] = np.where(seen, "nsys", "ncu").astype(object)
    weighted_total = np.where(seen, nsys_total, ncu_total)
    kernels["weighted_total_s"] = weighted_total
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(seen, nsys_total / ncu_total, 1.0)
    kernels["weighted_recoverable_s"] = np.where(np.isfinite(scale), recoverable * scale, np.nan)
    order = kernels["weighted_recoverable_s"].rank(
        ascending=False, method="first", na_option="bottom"
    )
    kernels["weighted_rank"] = order.astype("Int64")
    out: pd.DataFrame = kernels.sort_values("weighted_rank", kind="stable").reset_index(drop=True)
    return out
