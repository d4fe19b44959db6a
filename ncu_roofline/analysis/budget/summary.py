"""The budget of a summary-only timeline: kernel totals, no span or gaps.

nsys's kernel summaries (``cuda_gpu_kern_sum``, ``nvtx_kern_sum``) give each
kernel's instances and total time, not when they ran: no span, gap or
overlap can be measured, so those fields are ``None``.  Kernel time,
instances, the join (by name: summaries carry no grid or block),
``not_profiled_s`` and the time per bound class come from the totals; a
kernel counts as small when its *average* duration is under the threshold.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from ncu_roofline.analysis.budget.graphs import graph_launches
from ncu_roofline.analysis.budget.join import NOT_JOINED, join_groups
from ncu_roofline.analysis.budget.kernels import join_counts, kernel_records
from ncu_roofline.analysis.budget.labels import NOT_PROFILED, class_labels
from ncu_roofline.analysis.budget.records import (
    BudgetRecord,
    ExcludedRecord,
    RangeBudgetRecord,
    WindowBudgetRecord,
)
from ncu_roofline.core.timeline import Timeline

__all__ = ["summary_budget"]


def _totals(rows: pd.DataFrame) -> pd.DataFrame:
    """Per kernel name: instances, total ns, and the instances and ns of small-average rows."""
    frame = pd.DataFrame(
        {
            "name": rows["name"].astype(object).fillna("(no name)").astype(str),
            "instances": rows["instances"].to_numpy(dtype=np.float64, na_value=0.0),
            "total_ns": rows["total_ns"].to_numpy(dtype=np.float64, na_value=0.0),
            "avg_ns": rows["avg_ns"].to_numpy(dtype=np.float64, na_value=np.nan),
        }
    )
    avg = frame["avg_ns"].where(
        frame["avg_ns"].notna(),
        frame["total_ns"] / frame["instances"].where(frame["instances"] > 0),
    )
    frame["avg_ns"] = avg
    out: pd.DataFrame = (
        frame.groupby("name", sort=False)
        .agg(instances=("instances", "sum"), total_ns=("total_ns", "sum"))
        .reset_index()
    )
    return out


def _window(
    totals: pd.DataFrame, small: pd.DataFrame, classes: dict[str, tuple[str, str]] | None
) -> WindowBudgetRecord:
    by_bound: dict[str, float] | None = None
    by_limiter: dict[str, float] | None = None
    if classes is not None:
        by_bound, by_limiter = {}, {}
        for name, ns in zip(totals["name"], totals["total_ns"], strict=True):
            bound, limiter = classes.get(str(name), (NOT_PROFILED, NOT_PROFILED))
            by_bound[bound] = by_bound.get(bound, 0.0) + float(ns) / 1e9
            by_limiter[limiter] = by_limiter.get(limiter, 0.0) + float(ns) / 1e9
    return {
        "start_ns": None,
        "end_ns": None,
        "span_s": None,
        "kernel_s": float(totals["total_ns"].sum()) / 1e9,
        "memcpy_s": None,
        "memcpy_only_s": None,
        "memset_s": None,
        "gaps_s": None,
        "gap_count": None,
        "gaps": None,
        "kernels": int(totals["instances"].sum()),
        "not_profiled_s": (by_bound or {}).get(NOT_PROFILED, 0.0) if by_bound is not None else None,
        "by_bound": by_bound,
        "by_limiter": by_limiter,
        "small_kernels": int(small["instances"].sum()),
        "small_kernel_s": float(small["total_ns"].sum()) / 1e9,
        "launch_bound_share": None,
    }


def _summary_ranges(
    timeline: Timeline,
    classes: dict[str, tuple[str, str]] | None,
    small_rows: Callable[[pd.DataFrame], pd.DataFrame],
) -> list[RangeBudgetRecord]:
    """Each NVTX range's kernel totals (``nvtx_kern_sum``), instances from ``nvtx_gpu_proj_sum``."""
    sums = timeline.kernel_sums
    ranges: list[RangeBudgetRecord] = []
    ranged = sums[sums["range"].notna().to_numpy(dtype=bool)]
    counts = timeline.range_sums.drop_duplicates("name").set_index("name")["instances"]
    for name, rows in ranged.groupby(ranged["range"].astype(str), sort=False):
        w = _window(_totals(rows), small_rows(rows), classes)
        n = counts.get(name) if name in counts.index else None
        ranges.append(
            {
                "name": str(name),
                "instances": int(n) if n is not None and pd.notna(n) else None,
                "empty_instances": 0,
                "span_s": None,
                "mean_span_s": None,
                "median_span_s": None,
                "kernel_s": w["kernel_s"],
                "memcpy_s": None,
                "memcpy_only_s": None,
                "memset_s": None,
                "gaps_s": None,
                "gap_count": None,
                "gaps": None,
                "kernels": w["kernels"],
                "not_profiled_s": w["not_profiled_s"],
                "by_bound": w["by_bound"],
                "by_limiter": w["by_limiter"],
                "small_kernels": w["small_kernels"],
                "small_kernel_s": w["small_kernel_s"],
                "launch_bound_share": None,
                "basis": "summary",
            }
        )
    return ranges


def summary_budget(
    timeline: Timeline, groups: pd.DataFrame | None, small_kernel_s: float
) -> BudgetRecord:
    """The budget from ``timeline.kernel_sums`` alone (see the module)."""
    warnings: list[str] = ["kernel summaries only: no span, idle gaps or copies can be measured"]
    sums = timeline.kernel_sums
    unranged = sums["range"].isna().to_numpy(dtype=bool)
    whole = sums[unranged]
    # nvtx_kern_sum's kernels outside every range have no range either: where a
    # whole-capture summary (cuda_gpu_kern_sum) was read too, they are already in it.
    per_range = set(sums.loc[~unranged, "source"])
    plain = whole[~whole["source"].isin(per_range).to_numpy(dtype=bool)]
    if not plain.empty:
        whole = plain
    if whole.empty and not sums.empty:
        whole = sums
        warnings.append(
            "no whole-capture kernel summary: the capture is the sum of the per-range summaries "
            "(nested ranges count twice)"
        )
    small_ns = small_kernel_s * 1e9

    def small_rows(rows: pd.DataFrame) -> pd.DataFrame:
        avg = rows["avg_ns"].to_numpy(dtype=np.float64, na_value=np.nan)
        inst = rows["instances"].to_numpy(dtype=np.float64, na_value=0.0)
        tot = rows["total_ns"].to_numpy(dtype=np.float64, na_value=0.0)
        avg = np.where(np.isnan(avg) & (inst > 0), tot / np.where(inst > 0, inst, 1), avg)
        picked: pd.DataFrame = rows[avg < small_ns]
        return _totals(picked)

    totals = _totals(whole)
    names = [str(n) for n in totals["name"]]
    instances = totals["instances"].to_numpy(dtype=np.int64)
    total_ns = totals["total_ns"].to_numpy(dtype=np.float64)
    # Summaries carry no launch configuration: the join is by name.
    none: list[str | None] = [None] * len(names)
    classes: dict[str, tuple[str, str]] | None = None
    if groups is not None:
        pos, kinds = join_groups(names, none, none, groups)
        bound_of, limiter_of = class_labels(groups)
        classes = {
            n: (bound_of[p], limiter_of[p]) if p >= 0 else (NOT_PROFILED, NOT_PROFILED)
            for n, p in zip(names, pos, strict=True)
        }
    else:
        pos, kinds = [-1] * len(names), [NOT_JOINED] * len(names)
    kernels = kernel_records(names, none, none, instances, total_ns, pos, kinds, groups)
    joins, unprofiled = join_counts(kernels, groups, pos, warnings, "summary")

    ranges = _summary_ranges(timeline, classes, small_rows)
    excluded: ExcludedRecord = {
        "missing_times": 0,
        "end_before_start": 0,
        "absurd_duration": 0,
        "detached": 0,
        "unknown_kind": 0,
        "other_devices": 0,
    }
    return {
        **_window(totals, small_rows(whole), classes),
        "basis": "summary",
        "range_basis": "summary" if ranges else None,
        "device": None,
        "devices": [],
        "steps": [],
        "ranges": ranges,
        "small_kernel_threshold_s": small_kernel_s,
        "joins": joins,
        "trace_kernels": kernels,
        "unprofiled": unprofiled,
        "graphs": graph_launches(
            timeline, pd.Series([], dtype="Int64"), np.zeros(0, dtype=np.int64)
        ),
        "excluded": excluded,
        "warnings": warnings,
    }
