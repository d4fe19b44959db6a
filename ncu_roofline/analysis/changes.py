"""Change points of a series over runs: a sustained step beyond the noise.

A run *i* starts a change when the values of runs *i* .. *i + sustain - 1*
all lie on one side of the rolling median of the runs before it (at most
``window`` of them, none before the previous change), each farther from it
than the threshold::

    threshold = max(noise x 1.4826 x MAD(baseline), min_step x |median(baseline)|)

The MAD (median absolute deviation, scaled to a standard deviation for
normal noise) measures the run-to-run noise of the baseline itself, so a
noisy kernel needs a larger step; ``min_step`` keeps a flat baseline (MAD 0)
from turning every wobble into a change.  A single outlier is not a change
(it is not sustained), and after a change the baseline starts again at it,
so one step is reported once.  The median is robust: an outlier in the
baseline does not move it.

Candidates are found for every run at once with sliding windows; only the
few candidates near an accepted change are looked at again, one by one.

numpy is imported by the functions that judge a series: the command line
reads :class:`ChangeRule`'s defaults for ``history --help``, which loads no
numpy (``tests/test_startup.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

#: Scales a MAD to the standard deviation of normal noise.
MAD_SCALE = 1.4826


@dataclass(frozen=True)
class ChangeRule:
    """How large and how lasting a step must be to count as a change."""

    #: Runs in the rolling baseline (at most).
    window: int = 8
    #: Consecutive runs that must all be beyond the threshold.
    sustain: int = 3
    #: Threshold in noise standard deviations (scaled MAD of the baseline).
    noise: float = 4.0
    #: Smallest step, relative to the baseline median.
    min_step: float = 0.05
    #: Fewest baseline runs a change is judged against.
    min_baseline: int = 4

    def __post_init__(self) -> None:
        if self.window < 2 or self.sustain < 1 or self.min_baseline < 2:
            raise ValueError("window >= 2, sustain >= 1 and min_baseline >= 2 are needed")
        if self.min_baseline > self.window:
            raise ValueError("min_baseline cannot exceed window")
        if not (self.noise >= 0 and self.min_step >= 0):
            raise ValueError("noise and min_step must be >= 0")


@dataclass(frozen=True)
class Change:
    """A change point: where it starts and the levels either side."""

    #: Position in the series given (NaN values included in the counting).
    index: int
    #: Median of the baseline runs before it.
    before: float
    #: Median of the sustained runs from it on.
    after: float
    #: The threshold the step had to pass (in the series' unit).
    threshold: float
    #: Runs the baseline had.
    baseline_runs: int

    @property
    def step(self) -> float:
        """``after / before - 1`` (NaN when the baseline median is 0)."""
        return self.after / self.before - 1.0 if self.before else float("nan")

    @property
    def direction(self) -> str:
        """``up`` or ``down``."""
        return "up" if self.after > self.before else "down"


def _judge(
    base: npt.NDArray[np.float64], after: npt.NDArray[np.float64], rule: ChangeRule
) -> tuple[float, float] | None:
    """(median, threshold) when ``after`` is a step away from ``base``, else None."""
    import numpy as np

    med = float(np.median(base))
    mad = float(np.median(np.abs(base - med)))
    threshold = max(rule.noise * MAD_SCALE * mad, rule.min_step * abs(med))
    if threshold <= 0:
        return None
    if np.all(after - med > threshold) or np.all(med - after > threshold):
        return med, threshold
    return None


def _candidates(x: npt.NDArray[np.float64], rule: ChangeRule) -> npt.NDArray[np.intp]:
    """Runs that are a step from their full-window baseline, all at once."""
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view

    n, w, m = len(x), rule.window, rule.sustain
    if n < w + m:
        return np.empty(0, dtype=np.intp)
    base = sliding_window_view(x[: n - m], w)  # row j: runs j .. j+w-1, judged at i = j + w
    med = np.median(base, axis=1)
    mad = np.median(np.abs(base - med[:, None]), axis=1)
    threshold = np.maximum(rule.noise * MAD_SCALE * mad, rule.min_step * np.abs(med))
    after = sliding_window_view(x[w:], m)[: len(med)]
    up = (after.min(axis=1) - med) > threshold
    down = (med - after.max(axis=1)) > threshold
    hit = (up | down) & (threshold > 0)
    return np.flatnonzero(hit) + w


def change_points(values: npt.ArrayLike, rule: ChangeRule | None = None) -> list[Change]:
    """The change points of ``values`` (in run order), earliest first.

    NaN values (runs where the measure is missing) are skipped: they neither
    start nor break a change, and indices refer to ``values`` as given.
    """
    import numpy as np

    rule = rule or ChangeRule()
    raw = np.asarray(values, dtype=np.float64)
    keep = np.flatnonzero(np.isfinite(raw))
    x = raw[keep]
    n, m = len(x), rule.sustain
    # Runs judged against a short baseline (the first ones, and those just
    # after a change) are looked at one by one; the rest come from the
    # vectorised candidates.
    cands = _candidates(x, rule)
    full = set(cands.tolist())
    changes: list[Change] = []
    last = 0
    i = rule.min_baseline
    while i <= n - m:
        start = max(last, i - rule.window)
        if i - start == rule.window and i not in full:
            at = int(np.searchsorted(cands, i, side="right"))
            i = int(cands[at]) if at < len(cands) else n
            continue
        if i - start >= rule.min_baseline:
            judged = _judge(x[start:i], x[i : i + m], rule)
            if judged is not None:
                med, threshold = judged
                after = float(np.median(x[i : i + m]))
                changes.append(Change(int(keep[i]), med, after, threshold, i - start))
                last = i
                i += rule.min_baseline
                continue
        i += 1
    return changes
