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

from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.frame import Columns, missing_values, object_column
from ncu_roofline.core.grouping import row_groups

#: At least this many metrics must be expected of a launch (had by others of
#: its input) before their absence says its profiling failed: with two or
#: three metrics a missing one is a lost line, not a failed profile.
MIN_METRICS = 4

_IDENTITY = frozenset(c.name for c in LAUNCH_MODEL_COLUMNS)


def _metric_columns(launches: Columns) -> list[str]:
    return [str(c) for c in launches.columns if str(c) not in _IDENTITY]


def failed_profiles(launches: Columns) -> npt.NDArray[np.object_]:
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
    inputs = row_groups([object_column(launches, "source")], "")
    count = int(inputs.max()) + 1
    for group in range(count):
        rows = np.flatnonzero(inputs == group) if count > 1 else np.arange(n)
        if len(rows) < 2:
            continue
        # A column counts for a launch when another launch of its input has it:
        # every column two launches have, and a column one launch has for the
        # others.  Counted column by column: no launch-by-metric matrix is made.
        held = np.zeros(len(rows), dtype=np.int64)
        held_once = np.zeros(len(rows), dtype=np.int64)
        some = 0
        for name in metrics:
            has = ~missing_values(launches[name])
            if count > 1:
                has = has[rows]
            launches_with = int(has.sum())
            if launches_with:
                some += 1
                held += has
            if launches_with == 1:
                held_once += has
        expected = some - held_once
        missing = some - held
        failed = (expected >= MIN_METRICS) & (2 * missing > expected)
        for at in np.flatnonzero(failed):
            out[rows[at]] = (
                f"profiling failed: {int(missing[at])} of {int(expected[at])} metrics missing"
            )
    return out
