"""Budgets of many windows of one device's sweep at once, and the NVTX range windows.

A window's figures are differences of cumulative sums at its two ends
(:class:`~ncu_roofline.analysis.budget.sweep.Sweep`), so the capture and
every step are answered by the same few array passes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.budget.records import GapBinRecord, WindowBudgetRecord
from ncu_roofline.analysis.budget.sweep import GAP_BINS, GAP_EDGES_NS, Sweep, Windows

__all__ = ["DeviceActivities", "RangeWindows", "budget_windows", "empty_window", "range_windows"]

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class DeviceActivities:
    """One device's kept activities, split into kernels and copies, with what the budget sorts them by."""

    kernel_start: Ints
    kernel_end: Ints
    #: Codes into ``bound_labels`` / ``limiter_labels`` (``None`` without an analysis).
    bound_code: Ints | None
    bound_labels: list[str]
    limiter_code: Ints | None
    limiter_labels: list[str]
    small: Bools
    copy_start: Ints
    copy_end: Ints
    #: True for a memcpy, false for a memset.
    is_memcpy: Bools
    #: When the API call that launched each kernel and copy started (its own start without one).
    kernel_launch: Ints
    copy_launch: Ints
    launch_known: bool


def _s(ns: float) -> float:
    return float(ns) / 1e9


def empty_window() -> WindowBudgetRecord:
    """The budget of a window that saw no activity: nothing to measure, so no span."""
    return {
        "start_ns": None,
        "end_ns": None,
        "span_s": None,
        "kernel_s": 0.0,
        "memcpy_s": 0.0,
        "memcpy_only_s": 0.0,
        "memset_s": 0.0,
        "gaps_s": None,
        "gap_count": None,
        "gaps": None,
        "kernels": 0,
        "not_profiled_s": None,
        "by_bound": None,
        "by_limiter": None,
        "small_kernels": 0,
        "small_kernel_s": 0.0,
        "launch_bound_share": None,
    }


def _by_class(
    sweep: Sweep, w: Windows, code: Ints | None, labels: list[str], kernel_ns: Ints
) -> list[dict[str, float]] | None:
    """Kernel seconds per class label in each window (equal split of overlaps).

    The class with the most kernels is the window's kernel time less the
    others: one sweep fewer, and the classes sum to the kernel time exactly.
    """
    if code is None:
        return None
    n = len(w.start)
    present = np.bincount(code, minlength=len(labels)) if len(code) else np.zeros(len(labels), int)
    out: list[dict[str, float]] = [{} for _ in range(n)]
    if not present.any():
        return out
    largest = int(np.argmax(present))
    rest = kernel_ns.astype(np.float64)
    for k, label in enumerate(labels):
        if k == largest or not present[k]:
            continue
        seconds = sweep.between(sweep.kernel_rate(code == k), w.start, w.end)
        rest = rest - seconds
        for i in np.flatnonzero(seconds > 0):
            out[i][label] = float(seconds[i]) / 1e9
    rest = np.maximum(rest, 0.0)
    for i in np.flatnonzero(rest > 0):
        out[i][labels[largest]] = float(rest[i]) / 1e9
    return out


def budget_windows(sweep: Sweep, acts: DeviceActivities, w: Windows) -> list[WindowBudgetRecord]:
    """The budget of each window ``w`` (tightened) of one device's sweep."""
    kern = sweep.between_exact(sweep.kernel_seg, w.start, w.end)
    copy = sweep.between_exact(sweep.copy_seg, w.start, w.end)
    idle = sweep.between_exact(sweep.idle_seg, w.start, w.end)
    memcpy_only = sweep.between(sweep.copy_rate(acts.is_memcpy), w.start, w.end) / 1e9
    small_s = sweep.between(sweep.kernel_rate(acts.small), w.start, w.end) / 1e9
    kernels = sweep.kernels_starting(sweep.kernel_starts_sorted, w)
    small_n = sweep.kernels_starting(np.sort(acts.kernel_start[acts.small]), w)
    by_bound = _by_class(sweep, w, acts.bound_code, acts.bound_labels, kern)
    by_limiter = _by_class(sweep, w, acts.limiter_code, acts.limiter_labels, kern)
    counts, gap_ns = sweep.gap_histogram(w)
    lows = [e / 1e9 for e in GAP_EDGES_NS]
    highs: list[float | None] = [e / 1e9 for e in GAP_EDGES_NS[1:]]
    highs.append(None)

    out: list[WindowBudgetRecord] = []
    for i in range(len(w.start)):
        if w.empty[i]:
            out.append(empty_window())
            continue
        span = int(w.end[i] - w.start[i])
        copy_s = _s(copy[i])
        bins: list[GapBinRecord] = [
            {
                "label": GAP_BINS[b],
                "low_s": lows[b],
                "high_s": highs[b],
                "count": int(counts[i, b]),
                "seconds": _s(gap_ns[i, b]),
            }
            for b in range(len(GAP_BINS))
        ]
        bound = by_bound[i] if by_bound is not None else None
        out.append(
            {
                "start_ns": int(w.start[i]),
                "end_ns": int(w.end[i]),
                "span_s": _s(span),
                "kernel_s": _s(kern[i]),
                "memcpy_s": copy_s,
                "memcpy_only_s": min(float(memcpy_only[i]), copy_s),
                "memset_s": max(copy_s - float(memcpy_only[i]), 0.0),
                "gaps_s": _s(idle[i]),
                "gap_count": int(counts[i].sum()),
                "gaps": bins,
                "kernels": int(kernels[i]),
                "not_profiled_s": bound.get("not profiled", 0.0) if bound is not None else None,
                "by_bound": bound,
                "by_limiter": by_limiter[i] if by_limiter is not None else None,
                "small_kernels": int(small_n[i]),
                "small_kernel_s": float(small_s[i]),
                "launch_bound_share": (float(idle[i]) / 1e9 + float(small_s[i])) / _s(span)
                if span > 0
                else None,
            }
        )
    return out


@dataclass(frozen=True)
class RangeWindows:
    """The NVTX range instances to budget, with their windows."""

    frame: pd.DataFrame
    windows: Windows
    basis: str
    skipped: int


def range_windows(
    ranges: pd.DataFrame, sweep: Sweep, acts: DeviceActivities
) -> RangeWindows | None:
    """Each NVTX range instance's window on one device's sweep.

    GPU-projected ranges (``projected``) are GPU times already: their window
    is their own, tightened to activity.  CPU ranges hold the launches, not
    the GPU work: a CPU range's activities are those whose launching API call
    (by correlation id) started inside it, or without an API trace those
    that started inside it (a rough stand-in: the GPU runs behind the CPU);
    its window runs from their first start to their last end.  Projected
    ranges are used when the timeline has any.
    """
    if ranges.empty:
        return None
    timed = ranges["start_ns"].notna() & ranges["end_ns"].notna()
    skipped = int((~timed).sum())
    frame = ranges[timed.to_numpy(dtype=bool)]
    projected = frame["projected"].fillna(False).to_numpy(dtype=bool)
    if projected.any():
        frame = frame[projected]
    frame = frame.sort_values("start_ns", kind="stable").reset_index(drop=True)
    if frame.empty:
        return RangeWindows(
            frame, Windows(*(np.zeros(0, np.int64),) * 2, np.zeros(0, bool)), "none", skipped
        )
    rs = frame["start_ns"].to_numpy(dtype=np.int64)
    re_ = frame["end_ns"].to_numpy(dtype=np.int64)
    if projected.any():
        return RangeWindows(frame, sweep.tighten(rs, re_), "gpu projection", skipped)
    launch = np.concatenate([acts.kernel_launch, acts.copy_launch])
    start = np.concatenate([acts.kernel_start, acts.copy_start])
    end = np.concatenate([acts.kernel_end, acts.copy_end])
    order = np.argsort(launch, kind="stable")
    launch, start, end = launch[order], start[order], end[order]
    lo = np.searchsorted(launch, rs, "left")
    hi = np.searchsorted(launch, re_, "right")
    empty = hi <= lo
    # reduceat over interleaved (lo, hi) pairs gives each slice's min/max; a
    # sentinel keeps every index inside the array.
    idx = np.column_stack([lo, hi]).ravel()
    big = np.iinfo(np.int64).max
    first = np.minimum.reduceat(np.append(start, big), idx)[::2]
    last = np.maximum.reduceat(np.append(end, -big), idx)[::2]
    first = np.where(empty, 0, first)
    last = np.where(empty, 0, last)
    w = sweep.tighten(first, last)
    basis = "cpu (by launch)" if acts.launch_known else "cpu (by start)"
    return RangeWindows(frame, Windows(w.start, w.end, w.empty | empty), basis, skipped)
