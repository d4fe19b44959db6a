"""The time budget of a timeline: where the capture's and each step's time went.

See :func:`budget`.  The attribution rule is :mod:`.sweep`'s; the join with
ncu groups :mod:`.join`'s; the range windows :mod:`.windows`'.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.budget.graphs import graph_launches
from ncu_roofline.analysis.budget.join import NOT_JOINED, join_groups
from ncu_roofline.analysis.budget.kernels import join_counts, kernel_records
from ncu_roofline.analysis.budget.labels import (
    NOT_PROFILED,
    class_labels,
)
from ncu_roofline.analysis.budget.records import (
    BudgetRecord,
    DeviceBudgetRecord,
    ExcludedRecord,
    KernelJoinRecord,
    RangeBudgetRecord,
    StepRecord,
    WindowBudgetRecord,
)
from ncu_roofline.analysis.budget.summary import summary_budget
from ncu_roofline.analysis.budget.sweep import GAP_BINS, Sweep, Windows
from ncu_roofline.analysis.budget.windows import (
    DeviceActivities,
    budget_windows,
    empty_window,
    range_windows,
)
from ncu_roofline.core.timeline import Timeline

if TYPE_CHECKING:
    from ncu_roofline.analysis.engine import Analysis

__all__ = ["ABSURD_GAP_S", "budget"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]

#: An idle stretch (or one activity) longer than this is not a program's
#: behaviour but a clock-domain mix-up or another capture: the activities
#: beyond it are set apart, counted and warned about.
ABSURD_GAP_S = 60.0


def _codes(values: npt.NDArray[np.object_]) -> tuple[Ints, npt.NDArray[np.object_]]:
    """Codes 0.. of an object array's distinct values, missing ones (code -1 from pandas) as ``""`` at the end.

    A plain object array, not a Series: pandas would first convert the text
    to its string dtype, which costs more than the hashing.
    """
    codes, uniques = pd.factorize(values, sort=False)
    values = np.asarray(uniques, dtype=object)
    out = codes.astype(np.int64)
    if (out < 0).any():
        out[out < 0] = len(values)
        values = np.append(values, "")
    return out, values


def _detach(start: Ints, end: Ints, weight: npt.NDArray[np.float64], absurd_ns: int) -> Bools:
    """Activities cut off from the bulk by an idle stretch over ``absurd_ns`` (the bulk: most kernel time)."""
    if len(start) == 0:
        return np.zeros(0, dtype=bool)
    order = np.argsort(start, kind="stable")
    s, e = start[order], end[order]
    reach = np.maximum.accumulate(e)
    gap = s[1:] - reach[:-1]
    cluster = np.concatenate([[0], np.cumsum(gap > absurd_ns)])
    if cluster[-1] == 0:
        return np.zeros(len(start), dtype=bool)
    keep = int(np.argmax(np.bincount(cluster, weights=weight[order])))
    out = np.zeros(len(start), dtype=bool)
    out[order] = cluster != keep
    return out


def budget(
    timeline: Timeline,
    analysis: Analysis | None = None,
    *,
    small_kernel_s: float = 5e-6,
    absurd_gap_s: float = ABSURD_GAP_S,
) -> BudgetRecord:
    """Where the timeline's GPU time went: the capture, each NVTX step and range name.

    With a trace (GPU activities with times) each instant of the span, from
    the first activity start to the last activity end, is kernel time when
    any kernel runs, else copy time when a memcpy or memset runs, else idle
    (:mod:`~ncu_roofline.analysis.budget.sweep`); the three add up to the span
    exactly, and overlapping kernels share an instant equally, so the kernel
    seconds per bound class and per limiter of their joined ncu groups
    (``analysis``; unjoined ones under ``"not profiled"``) add up to the
    kernel time.  Kernels shorter than ``small_kernel_s`` are counted with
    the time they hold, and the idle gaps in a fixed log-spaced histogram.

    Several devices: each is budgeted (``devices``); the one with the most
    kernel time is the headline (``capture``) and the only one whose steps
    are budgeted.  Steps are the NVTX range instances, by their GPU
    projection when the timeline has one, else by their CPU times
    (``range_basis`` says which; see
    :func:`~ncu_roofline.analysis.budget.windows.range_windows`).

    A summary-only timeline (kernel summaries, no trace) has no span or gaps:
    those fields are ``None`` and ``basis`` is ``"summary"``; kernel time,
    instances, the join, ``not_profiled_s`` and ``by_bound`` come from the
    summaries' totals.

    Nothing is dropped silently: activities without times, ending before
    they start, longer than ``absurd_gap_s``, of an unknown kind, or cut off
    from the rest by an idle stretch longer than ``absurd_gap_s`` are counted
    in ``excluded`` and warned about.
    """
    groups = analysis.kernels.reset_index(drop=True) if analysis is not None else None
    if timeline.has_trace:
        return _trace_budget(timeline, groups, small_kernel_s, absurd_gap_s)
    if len(timeline.kernel_sums):
        return summary_budget(timeline, groups, small_kernel_s)
    record = summary_budget(timeline, groups, small_kernel_s)
    record["basis"] = "empty"
    record["warnings"].append("the timeline holds neither GPU activities nor kernel summaries")
    return record


def _excluded_counts(
    acts: pd.DataFrame, is_known: Bools, absurd_ns: int
) -> tuple[Bools, ExcludedRecord, Ints, Ints]:
    missing = (acts["start_ns"].isna() | acts["end_ns"].isna()).to_numpy(dtype=bool)
    start = acts["start_ns"].to_numpy(dtype=np.int64, na_value=0)
    end = acts["end_ns"].to_numpy(dtype=np.int64, na_value=0)
    unknown = ~missing & ~is_known
    backwards = ~missing & is_known & (end < start)
    absurd = ~missing & is_known & ~backwards & (end - start > absurd_ns)
    valid = ~(missing | unknown | backwards | absurd)
    excluded: ExcludedRecord = {
        "missing_times": int(missing.sum()),
        "end_before_start": int(backwards.sum()),
        "absurd_duration": int(absurd.sum()),
        "detached": 0,
        "unknown_kind": int(unknown.sum()),
        "other_devices": 0,
    }
    return valid, excluded, start, end


@dataclass(frozen=True)
class _Kept:
    """The activities the budget keeps, as arrays over every activity row."""

    start: Ints
    end: Ints
    valid: Bools
    is_kernel: Bools
    is_memcpy: Bools
    dev_code: Ints
    dev_values: npt.NDArray[np.object_]
    #: Rows of the kept kernels.
    kernels: npt.NDArray[np.intp]


@dataclass(frozen=True)
class _Joined:
    """Each kept kernel's join: the distinct kernels' records, and class codes per kernel."""

    records: list[KernelJoinRecord]
    pos: list[int]
    bound_row: Ints | None
    bound_labels: list[str]
    limiter_row: Ints | None
    limiter_labels: list[str]


def _keep(acts: pd.DataFrame, absurd_ns: int) -> tuple[_Kept, ExcludedRecord]:
    """Which activities the budget keeps, and how many each check left out."""
    # One pass over the kind column (a hash of 1M strings is the costly part).
    kind_code, kind_values = _codes(acts["kind"].to_numpy(dtype=object))
    kind_of = np.array([str(k) for k in kind_values], dtype=object)
    is_kernel = (kind_of == "kernel")[kind_code]
    is_known = np.isin(kind_of, ["kernel", "memcpy", "memset"])[kind_code]
    valid, excluded, start, end = _excluded_counts(acts, is_known, absurd_ns)
    dev_code, dev_values = _codes(acts["device"].to_numpy(dtype=object))
    duration = end - start
    # Activities far from the rest (another clock domain), per device.
    for d in range(len(dev_values)):
        rows = np.flatnonzero(valid & (dev_code == d))
        weight = np.where(is_kernel[rows], duration[rows], 0).astype(np.float64)
        far = _detach(start[rows], end[rows], weight, absurd_ns)
        valid[rows[far]] = False
        excluded["detached"] += int(far.sum())
    kept = _Kept(
        start=start,
        end=end,
        valid=valid,
        is_kernel=is_kernel,
        is_memcpy=(kind_of == "memcpy")[kind_code],
        dev_code=dev_code,
        dev_values=dev_values,
        kernels=np.flatnonzero(valid & is_kernel),
    )
    return kept, excluded


def _join_kernels(acts: pd.DataFrame, kept: _Kept, groups: pd.DataFrame | None) -> _Joined:
    """Join the kept kernels to the ncu groups, once per distinct (name, grid, block)."""
    rows = kept.kernels
    n_code, n_vals = _codes(acts["name"].to_numpy(dtype=object)[rows])
    g_code, g_vals = _codes(acts["grid"].to_numpy(dtype=object)[rows])
    b_code, b_vals = _codes(acts["block"].to_numpy(dtype=object)[rows])
    ng, nb = max(len(g_vals), 1), max(len(b_vals), 1)
    inverse_codes, uniq_index = pd.factorize((n_code * ng + g_code) * nb + b_code, sort=False)
    inverse = inverse_codes.astype(np.int64)
    uniq = np.asarray(uniq_index, dtype=np.int64)
    names = [str(n_vals[i]) or "(no name)" for i in uniq // (ng * nb)]
    grids = [str(g_vals[i]) or None for i in (uniq // nb) % ng]
    blocks = [str(b_vals[i]) or None for i in uniq % nb]
    k_dur = (kept.end - kept.start)[rows].astype(np.float64)
    instances = np.bincount(inverse, minlength=len(uniq)).astype(np.int64)
    totals = np.bincount(inverse, weights=k_dur, minlength=len(uniq)).astype(np.float64)
    if groups is None:
        pos, kinds = [-1] * len(uniq), [NOT_JOINED] * len(uniq)
        records = kernel_records(names, grids, blocks, instances, totals, pos, kinds, None)
        return _Joined(records, pos, None, [], None, [])
    pos, kinds = join_groups(names, grids, blocks, groups)
    bound_of, limiter_of = class_labels(groups)
    bound_u = [bound_of[p] if p >= 0 else NOT_PROFILED for p in pos]
    limiter_u = [limiter_of[p] if p >= 0 else NOT_PROFILED for p in pos]
    bound_labels, limiter_labels = sorted(set(bound_u)), sorted(set(limiter_u))
    bound_codes = np.array([bound_labels.index(b) for b in bound_u], dtype=np.int64)
    limiter_codes = np.array([limiter_labels.index(x) for x in limiter_u], dtype=np.int64)
    return _Joined(
        records=kernel_records(names, grids, blocks, instances, totals, pos, kinds, groups),
        pos=pos,
        bound_row=bound_codes[inverse],
        bound_labels=bound_labels,
        limiter_row=limiter_codes[inverse],
        limiter_labels=limiter_labels,
    )


def _trace_budget(
    timeline: Timeline, groups: pd.DataFrame | None, small_kernel_s: float, absurd_gap_s: float
) -> BudgetRecord:
    acts = timeline.activities
    warnings: list[str] = []
    kept, excluded = _keep(acts, int(absurd_gap_s * 1e9))
    joined = _join_kernels(acts, kept, groups)
    joins, unprofiled = join_counts(joined.records, groups, joined.pos, warnings, "trace")
    devices, steps, range_basis = _budget_devices(timeline, kept, joined, small_kernel_s, warnings)
    excluded["other_devices"] = sum(d["activities"] for d in devices if not d["headline"])
    if len(devices) > 1:
        head = next(dev["device"] for dev in devices if dev["headline"])
        warnings.append(
            f"{len(devices)} devices: the capture budget is device {head}'s "
            "(the most kernel time); the others are budgeted under devices"
        )
    _exclusion_warnings(excluded, absurd_gap_s, warnings)
    empty_steps = sum(1 for s in steps if s["empty"])
    if empty_steps:
        warnings.append(
            f"{empty_steps} NVTX range instance(s) saw no GPU activity (listed with no span)"
        )
    headline = next((dev for dev in devices if dev["headline"]), None)
    k_dur = (kept.end - kept.start)[kept.kernels]
    capture = headline["budget"] if headline is not None else empty_window()
    return {
        **capture,
        "basis": "trace",
        "range_basis": range_basis,
        "device": headline["device"] if headline is not None else None,
        "devices": devices,
        "steps": steps,
        "ranges": _range_totals(steps),
        "small_kernel_threshold_s": small_kernel_s,
        "joins": joins,
        "trace_kernels": joined.records,
        "unprofiled": unprofiled,
        "graphs": graph_launches(timeline, acts["corr_id"].iloc[kept.kernels], k_dur),
        "excluded": excluded,
        "warnings": warnings,
    }


def _budget_devices(
    timeline: Timeline, kept: _Kept, joined: _Joined, small_kernel_s: float, warnings: list[str]
) -> tuple[list[DeviceBudgetRecord], list[StepRecord], str | None]:
    """Each device's whole-capture budget, and the headline device's steps."""
    launch = _launch_times(timeline, timeline.activities, kept.start)
    duration = kept.end - kept.start
    n_dev = len(kept.dev_values)
    kernel_time = np.bincount(
        kept.dev_code[kept.kernels],
        weights=duration[kept.kernels].astype(np.float64),
        minlength=n_dev,
    )
    # The headline: the most kernel time; without any kernel, the most activities.
    kept_per_device = np.bincount(kept.dev_code[kept.valid], minlength=n_dev)
    score = kernel_time if kernel_time.any() else kept_per_device.astype(np.float64)
    headline = int(np.argmax(score)) if n_dev else 0
    devices: list[DeviceBudgetRecord] = []
    steps: list[StepRecord] = []
    range_basis: str | None = None
    pos_in_kept = np.full(len(kept.start), -1, dtype=np.int64)
    pos_in_kept[kept.kernels] = np.arange(len(kept.kernels))
    for d in range(n_dev):
        on = kept.valid & (kept.dev_code == d)
        k_rows = np.flatnonzero(on & kept.is_kernel)
        c_rows = np.flatnonzero(on & ~kept.is_kernel)
        if not k_rows.size and not c_rows.size:
            continue
        kk = pos_in_kept[k_rows]
        dev_acts = DeviceActivities(
            kernel_start=kept.start[k_rows],
            kernel_end=kept.end[k_rows],
            bound_code=joined.bound_row[kk] if joined.bound_row is not None else None,
            bound_labels=joined.bound_labels,
            limiter_code=joined.limiter_row[kk] if joined.limiter_row is not None else None,
            limiter_labels=joined.limiter_labels,
            small=duration[k_rows] < small_kernel_s * 1e9,
            copy_start=kept.start[c_rows],
            copy_end=kept.end[c_rows],
            is_memcpy=kept.is_memcpy[c_rows],
            kernel_launch=launch.values[k_rows],
            copy_launch=launch.values[c_rows],
            launch_known=launch.known,
        )
        sweep = Sweep(
            dev_acts.kernel_start, dev_acts.kernel_end, dev_acts.copy_start, dev_acts.copy_end
        )
        windows = [
            sweep.tighten(
                np.array([np.iinfo(np.int64).min // 2]), np.array([np.iinfo(np.int64).max // 2])
            )
        ]
        ranged = range_windows(timeline.ranges, sweep, dev_acts) if d == headline else None
        if ranged is not None:
            windows.append(ranged.windows)
        records = budget_windows(
            sweep,
            dev_acts,
            Windows(
                np.concatenate([w.start for w in windows]),
                np.concatenate([w.end for w in windows]),
                np.concatenate([w.empty for w in windows]),
            ),
        )
        devices.append(
            {
                "device": str(kept.dev_values[d]) or None,
                "activities": int(on.sum()),
                "budget": records[0],
                "headline": d == headline,
            }
        )
        if ranged is not None:
            range_basis = ranged.basis
            steps = _steps(ranged.frame, records[1:])
            if ranged.skipped:
                warnings.append(
                    f"{ranged.skipped} NVTX range(s) without start or end times were not budgeted"
                )
    return devices, steps, range_basis


class _Launch:
    """When each activity's launching API call started (its own start where unknown)."""

    def __init__(self, values: Ints, known: bool):
        self.values = values
        self.known = known


def _launch_times(timeline: Timeline, acts: pd.DataFrame, start: Ints) -> _Launch:
    api = timeline.api
    api = api[api["corr_id"].notna() & api["start_ns"].notna()]
    if api.empty:
        return _Launch(start, False)
    api = api.drop_duplicates("corr_id")
    index = pd.Index(api["corr_id"].to_numpy(dtype=np.int64))
    corr = acts["corr_id"].to_numpy(dtype=np.int64, na_value=-1)
    where = index.get_indexer(corr)
    api_start = api["start_ns"].to_numpy(dtype=np.int64)
    values = np.where(where >= 0, api_start[np.maximum(where, 0)], start)
    return _Launch(values.astype(np.int64), bool((where >= 0).any()))


def _steps(frame: pd.DataFrame, records: list[WindowBudgetRecord]) -> list[StepRecord]:
    names = frame["name"].astype(object).fillna("(unnamed)").astype(str)
    index = names.groupby(names).cumcount().to_numpy()
    level = frame["level"].astype(object).to_numpy()
    rs = frame["start_ns"].to_numpy(dtype=np.int64)
    re_ = frame["end_ns"].to_numpy(dtype=np.int64)
    out: list[StepRecord] = []
    for i, (name, rec) in enumerate(zip(names, records, strict=True)):
        step: StepRecord = {
            **rec,
            "name": name,
            "index": int(index[i]),
            "level": int(level[i]) if pd.notna(level[i]) else None,
            "range_start_ns": int(rs[i]),
            "range_end_ns": int(re_[i]),
            "empty": rec["span_s"] is None,
        }
        out.append(step)
    return out


def _add(into: dict[str, float], part: dict[str, float] | None) -> None:
    for k, v in (part or {}).items():
        into[k] = into.get(k, 0.0) + v


def _range_totals(steps: list[StepRecord]) -> list[RangeBudgetRecord]:
    """Each range name's steps summed (empty ones counted apart)."""
    by_name: dict[str, list[StepRecord]] = {}
    for s in steps:
        by_name.setdefault(s["name"], []).append(s)
    out: list[RangeBudgetRecord] = []
    for name, all_steps in by_name.items():
        full = [s for s in all_steps if not s["empty"]]
        spans = [s["span_s"] or 0.0 for s in full]
        span = sum(spans) if full else None
        gaps = sum(s["gaps_s"] or 0.0 for s in full) if full else None
        small_s = sum(s["small_kernel_s"] for s in full)
        bound: dict[str, float] | None = (
            {} if any(s["by_bound"] is not None for s in full) else None
        )
        limiter: dict[str, float] | None = {} if bound is not None else None
        bins: list[list[float]] = [[0, 0.0] for _ in GAP_BINS]
        for s in full:
            if bound is not None:
                _add(bound, s["by_bound"])
            if limiter is not None:
                _add(limiter, s["by_limiter"])
            for b, g in enumerate(s["gaps"] or []):
                bins[b][0] += g["count"]
                bins[b][1] += g["seconds"]
        template = next((s["gaps"] for s in full if s["gaps"]), None)
        out.append(
            {
                "name": name,
                "instances": len(all_steps),
                "empty_instances": len(all_steps) - len(full),
                "span_s": span,
                "mean_span_s": span / len(full) if full and span is not None else None,
                "median_span_s": float(np.median(spans)) if full else None,
                "kernel_s": sum(s["kernel_s"] for s in full),
                "memcpy_s": sum(s["memcpy_s"] or 0.0 for s in full) if full else None,
                "memcpy_only_s": sum(s["memcpy_only_s"] or 0.0 for s in full) if full else None,
                "memset_s": sum(s["memset_s"] or 0.0 for s in full) if full else None,
                "gaps_s": gaps,
                "gap_count": sum(s["gap_count"] or 0 for s in full) if full else None,
                "gaps": [
                    {**g, "count": int(bins[b][0]), "seconds": float(bins[b][1])}
                    for b, g in enumerate(template)
                ]
                if template
                else None,
                "kernels": sum(s["kernels"] for s in full),
                "not_profiled_s": (bound or {}).get(NOT_PROFILED, 0.0)
                if bound is not None
                else None,
                "by_bound": bound,
                "by_limiter": limiter,
                "small_kernels": sum(s["small_kernels"] for s in full),
                "small_kernel_s": small_s,
                "launch_bound_share": ((gaps or 0.0) + small_s) / span if span else None,
                "basis": "trace",
            }
        )
    return out


def _exclusion_warnings(excluded: ExcludedRecord, absurd_gap_s: float, warnings: list[str]) -> None:
    reasons = {
        "missing_times": "without a start or end time",
        "end_before_start": "ending before they start (clock-domain mix-up?)",
        "absurd_duration": f"lasting longer than {absurd_gap_s:g} s on their own",
        "detached": f"cut off from the rest of the trace by an idle stretch of over {absurd_gap_s:g} s "
        "(another clock domain or capture?)",
        "unknown_kind": "of a kind other than kernel, memcpy, memset",
    }
    counts: Mapping[str, object] = excluded
    for key, why in reasons.items():
        n = counts[key]
        if isinstance(n, int) and n:
            warnings.append(f"{n} activit{'y' if n == 1 else 'ies'} {why} left out of the budget")
