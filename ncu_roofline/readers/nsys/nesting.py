"""NVTX nesting levels from the ranges' times alone, vectorised.

The SQLite export stores each range's start and end but not its depth.  A
range's level is how many ranges of its own stack are open when it starts:
a sweep over start (+1) and end (-1) events sorted by time, whose running
sum just before a start is that start's level.  One ``lexsort`` and one
``cumsum``: O(n log n), no per-range Python.
"""

from __future__ import annotations

import numpy as np

__all__ = ["levels"]

#: An unclosed range (no end recorded) stays open to the end of the capture.
OPEN = np.iinfo(np.int64).max


def levels(group: np.ndarray, start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Each range's nesting depth within its ``group`` (0 outermost).

    ``group`` holds one integer per range naming its stack (a thread and
    domain: each NVTX domain keeps its own push/pop stack); ``end`` uses
    :data:`OPEN` for a range never closed.  At one instant, ends come
    before starts (a range that ends as the next begins does not hold it),
    and of ranges starting together the longer is outer.  A range of zero
    length ends after the starts of its instant, so it nests in the ranges
    that begin with it.
    """
    n = len(start)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    start = start.astype(np.int64)
    end = end.astype(np.int64)
    time = np.concatenate([start, end])
    grp = np.concatenate([group, group]).astype(np.int64)
    # Order at one instant: ends of positive-length ranges (0), starts (1), zero-length ends (2).
    phase = np.concatenate([np.ones(n, np.int64), np.where(end > start, 0, 2)])
    # Among starts at one instant, the later end (outer range) first.
    tie = np.concatenate([-end, np.zeros(n, np.int64)])
    delta = np.concatenate([np.ones(n, np.int64), -np.ones(n, np.int64)])
    order = np.lexsort((tie, phase, time, grp))
    # Every range has both events, so each group sums to zero and one global
    # running sum serves all groups.
    running = np.cumsum(delta[order]) - delta[order]
    position = np.empty(2 * n, dtype=np.int64)
    position[order] = np.arange(2 * n)
    out: np.ndarray = np.maximum(running[position[:n]], 0)
    return out
