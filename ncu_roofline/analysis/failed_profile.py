"""Launches whose profiling failed: most of their metrics are missing.

ncu writes a launch it could not profile (a replay that failed, a kernel
that crashed under the profiler, a counter collection that timed out)
with its name and launch shape but ``n/a`` for most metrics, the duration
often among them.  Such a launch is not a kernel without FLOP counters, and
it took an unknown, not zero, share of the time: it is named for what it is.

The rule, per input (launches of one input were profiled with one metric
list): a launch whose profiling failed lacks more than half of the metric
columns that the *other* launches of its input have a value for, and at
least :data:`MIN_METRICS` such columns are expected of it.  A metric that
no other launch has is not held against it (a metric ncu collects only for
some kernels, a truncated last launch's own gap), so an input whose
launches all lack the same half of the list is not flagged, and a lone
launch never is: there is nothing to compare it with.  Launches that lost a
few counters (a line lost mid-file, a truncated last launch) stay what they
were: the readers' own warnings name them.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS

#: At least this many metrics must be expected of a launch (had by others of
#: its input) before their absence says its profiling failed: with two or
#: three metrics a missing one is a lost line, not a failed profile.
MIN_METRICS = 4

_IDENTITY = frozenset(c.name for c in LAUNCH_MODEL_COLUMNS)


def _metric_columns(launches: pd.DataFrame) -> list[str]:
    return [str(c) for c in launches.columns if str(c) not in _IDENTITY]


def failed_profiles(launches: pd.DataFrame) -> npt.NDArray[np.object_]:
    """Per launch, ``"profiling failed: M of N metrics missing"`` or ``None``.

    ``launches`` is the launch model (identity and metric columns).  ``N``
    counts the metric columns some other launch of the same input has a
    value for; ``M`` those of them the launch lacks.
    """
    n = len(launches)
    out = np.full(n, None, dtype=object)
    metrics = _metric_columns(launches)
    if n < 2 or not metrics:
        return out
    source = launches["source"].astype(object).fillna("").to_numpy()
    sources = pd.unique(source)
    for src in sources:
        rows = np.flatnonzero(source == src) if len(sources) > 1 else np.arange(n)
        if len(rows) < 2:
            continue
        frame = launches[metrics] if len(sources) == 1 else launches.iloc[rows][metrics]
        has = frame.notna().to_numpy(dtype=bool)
        # A column counts for a launch when another launch of its input has it:
        # every column two launches have, and a column one launch has for the
        # others.  Row sums only, so no launch-by-metric integer matrix is made.
        counts = has.sum(axis=0)
        once, some = counts == 1, counts >= 1
        expected = int((counts >= 2).sum()) + int(once.sum()) - has[:, once].sum(axis=1)
        missing = int(some.sum()) - has[:, some].sum(axis=1)
        failed = (expected >= MIN_METRICS) & (2 * missing > expected)
        for at in np.flatnonzero(failed):
            out[rows[at]] = (
                f"profiling failed: {int(missing[at])} of {int(expected[at])} metrics missing"
            )
    return out
