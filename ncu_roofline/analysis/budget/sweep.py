"""Time attribution: a sweep over the union of a device's activity intervals.

The sorted, distinct start and end times of every activity cut the timeline
into elementary segments; inside one segment the same activities run.  Each
segment is one of three things, in this order of precedence:

* **kernel** time when at least one kernel runs;
* **copy** time when no kernel but a memcpy or memset runs;
* **idle** (a gap) when nothing runs.

So kernel, copy and idle time add up to the span exactly (integer
nanoseconds).  Overlapping activities (several streams) *share* a segment
equally: with three kernels running, each is given a third of it.  That rule
needs no knowledge of what each kernel did with the GPU in that instant
(which no trace records), treats the streams alike, and makes any partition
of the kernels (by bound class, by limiter, joined or not) sum to the
kernel time.  Copies running under a kernel get no time (the instant is the
kernel's); copies alone share their segment the same way.

Everything here is numpy over arrays of activities: one sort, a few
``searchsorted``, ``bincount`` and ``cumsum`` passes, no per-activity Python.
A quantity over a window ``[w0, w1]`` is the difference of its cumulative
sum at the two ends, interpolated inside a segment (the rate is constant
there), so any number of windows (steps) is answered at once.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["GAP_BINS", "GAP_EDGES_NS", "Sweep", "Windows"]

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

#: Idle-gap histogram edges in ns: fixed and log-spaced (1-2-5), so two
#: captures' histograms compare bin by bin.
GAP_EDGES_NS: tuple[int, ...] = (0, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1_000_000)
#: Each bin's label, the last one open.
GAP_BINS: tuple[str, ...] = (
    "<1us",
    "1-2us",
    "2-5us",
    "5-10us",
    "10-20us",
    "20-50us",
    "50-100us",
    "100us-1ms",
    ">=1ms",
)


def _distinct(values: Ints) -> Ints:
    """The sorted distinct values (a sort: numpy's hashing ``unique`` is slower on large int arrays)."""
    ordered = np.sort(values.astype(np.int64, copy=False))
    if len(ordered) == 0:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    out: Ints = ordered[keep]
    return out


@dataclass(frozen=True)
class Windows:
    """Windows of a sweep, tightened to activity: ``start``/``end`` in ns, ``empty`` where none ran."""

    start: Ints
    end: Ints
    empty: Bools


class Sweep:
    """One device's activities cut into elementary segments (see the module's rule)."""

    def __init__(self, kernel_start: Ints, kernel_end: Ints, copy_start: Ints, copy_end: Ints):
        starts = np.concatenate([kernel_start, copy_start])
        ends = np.concatenate([kernel_end, copy_end])
        self.bounds: Ints = _distinct(np.concatenate([starts, ends]))
        m = max(len(self.bounds) - 1, 0)
        self.m = m
        self.length: Ints = np.diff(self.bounds)
        # Boundary index of each start and end: a kernel covers segments [first, last).
        self.k_first = np.searchsorted(self.bounds, kernel_start)
        self.k_last = np.searchsorted(self.bounds, kernel_end)
        self.c_first = np.searchsorted(self.bounds, copy_start)
        self.c_last = np.searchsorted(self.bounds, copy_end)
        self.nk: Ints = self._running(self.k_first, self.k_last)
        self.nc: Ints = self._running(self.c_first, self.c_last)
        self.kernel_seg: Bools = self.nk > 0
        self.copy_seg: Bools = (~self.kernel_seg) & (self.nc > 0)
        self.idle_seg: Bools = (~self.kernel_seg) & (self.nc == 0)
        self.kernel_starts_sorted: Ints = np.sort(kernel_start)

    def _running(self, first: npt.NDArray[np.intp], last: npt.NDArray[np.intp]) -> Ints:
        """How many of the intervals ``[first, last)`` cover each segment."""
        if self.m == 0:
            return np.zeros(0, dtype=np.int64)
        delta = np.bincount(first, minlength=self.m + 1) - np.bincount(last, minlength=self.m + 1)
        running: Ints = np.cumsum(delta[: self.m]).astype(np.int64)
        return running

    # --- rates per segment (share of each instant) ---------------------------
    def kernel_rate(self, mask: Bools) -> Floats:
        """The share of each segment that the kernels selected by ``mask`` get (equal split)."""
        n = self._running(self.k_first[mask], self.k_last[mask])
        rate: Floats = np.divide(
            n, self.nk, out=np.zeros(self.m, dtype=np.float64), where=self.kernel_seg
        )
        return rate

    def copy_rate(self, mask: Bools) -> Floats:
        """The share of each copy segment (no kernel running) the copies of ``mask`` get."""
        n = self._running(self.c_first[mask], self.c_last[mask])
        rate: Floats = np.divide(
            n, self.nc, out=np.zeros(self.m, dtype=np.float64), where=self.copy_seg
        )
        return rate

    # --- windows --------------------------------------------------------------
    def _segment_of(self, t: Ints) -> npt.NDArray[np.intp]:
        """The segment holding each time (clipped to the first and last)."""
        seg: npt.NDArray[np.intp] = np.clip(
            np.searchsorted(self.bounds, t, "right") - 1, 0, max(self.m - 1, 0)
        )
        return seg

    def between(self, rate: Floats, start: Ints, end: Ints) -> Floats:
        """The integral of ``rate`` over each window ``[start, end]`` (ns x rate)."""
        if self.m == 0:
            return np.zeros(len(start), dtype=np.float64)
        cum = np.concatenate([[0.0], np.cumsum(rate * self.length, dtype=np.float64)])

        def at(t: Ints) -> Floats:
            tc = np.clip(t, self.bounds[0], self.bounds[-1])
            seg = self._segment_of(tc)
            value: Floats = cum[seg] + (tc - self.bounds[seg]) * rate[seg]
            return value

        out: Floats = at(end) - at(start)
        return out

    def between_exact(self, flag: Bools, start: Ints, end: Ints) -> Ints:
        """:meth:`between` for a 0/1 rate, in integer ns (exact: kernel + copy + idle == span)."""
        if self.m == 0:
            return np.zeros(len(start), dtype=np.int64)
        cum = np.concatenate([[0], np.cumsum(np.where(flag, self.length, 0), dtype=np.int64)])

        def at(t: Ints) -> Ints:
            tc = np.clip(t, self.bounds[0], self.bounds[-1])
            seg = self._segment_of(tc)
            value: Ints = cum[seg] + (tc - self.bounds[seg]) * flag[seg].astype(np.int64)
            return value

        out: Ints = at(end) - at(start)
        return out

    def tighten(self, start: Ints, end: Ints) -> Windows:
        """Windows ``[start, end]`` shrunk to their first and last instant of activity.

        A window edge inside a gap moves to the gap's far side (the next
        activity's start, the previous one's end), so a window's span runs
        from its first activity start to its last activity end and every gap
        in it is whole.
        """
        if self.m == 0:
            n = len(start)
            return Windows(np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n, dtype=bool))
        lo = np.maximum(start, self.bounds[0])
        hi = np.minimum(end, self.bounds[-1])
        seg_lo = self._segment_of(lo)
        # The segment ending at or holding ``hi`` (searchsorted left: bounds[i] < hi <= bounds[i+1]).
        seg_hi = np.clip(np.searchsorted(self.bounds, hi, "left") - 1, 0, self.m - 1)
        lo = np.where(self.idle_seg[seg_lo] & (lo < self.bounds[-1]), self.bounds[seg_lo + 1], lo)
        hi = np.where(self.idle_seg[seg_hi] & (hi > self.bounds[0]), self.bounds[seg_hi], hi)
        empty: Bools = hi <= lo
        return Windows(lo.astype(np.int64), hi.astype(np.int64), empty)

    def gap_histogram(self, w: Windows) -> tuple[Ints, Ints]:
        """Idle-gap counts and ns per histogram bin, per window: two ``(windows, bins)`` arrays."""
        n = len(w.start)
        bins = len(GAP_BINS)
        if self.m == 0:
            return np.zeros((n, bins), np.int64), np.zeros((n, bins), np.int64)
        # Only idle segments matter.  Group their positions by bin (a stable
        # sort keeps each bin's positions in time order); per bin, a window's
        # gaps are a slice found by searchsorted and their ns a cumulative sum
        # over that bin's gaps alone, so the work is one pass over the gaps.
        idle = np.flatnonzero(self.idle_seg)
        size = self.length[idle]
        which = np.searchsorted(np.asarray(GAP_EDGES_NS[1:]), size, "right")
        order = np.argsort(which, kind="stable")
        edges = np.searchsorted(which[order], np.arange(bins + 1), "left")
        # Tightened windows hold whole gaps only, so a gap counts where its segment lies inside.
        s0 = self._segment_of(w.start)
        s1 = np.maximum(np.searchsorted(self.bounds, w.end, "left"), s0)
        counts = np.zeros((n, bins), np.int64)
        seconds = np.zeros((n, bins), np.int64)
        for b in range(bins):
            members = order[edges[b] : edges[b + 1]]
            if not len(members):
                continue
            segs = idle[members]
            lo = np.searchsorted(segs, s0, "left")
            hi = np.searchsorted(segs, s1, "left")
            csum = np.concatenate([[0], np.cumsum(size[members], dtype=np.int64)])
            counts[:, b] = hi - lo
            seconds[:, b] = csum[hi] - csum[lo]
        counts[w.empty] = 0
        seconds[w.empty] = 0
        return counts, seconds

    def kernels_starting(self, starts_sorted: Ints, w: Windows) -> Ints:
        """How many of the sorted kernel starts lie in each window ``[start, end)`` (the capture's end included)."""
        end = np.where(w.end >= self.bounds[-1], w.end + 1, w.end) if self.m else w.end
        count: Ints = (
            np.searchsorted(starts_sorted, end, "left")
            - np.searchsorted(starts_sorted, w.start, "left")
        ).astype(np.int64)
        count[w.empty] = 0
        return count
