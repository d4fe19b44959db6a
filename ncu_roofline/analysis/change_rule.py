"""How large and how lasting a step must be to count as a change (no numpy).

Kept apart from :mod:`ncu_roofline.analysis.changes` so that the command
line can show the defaults in ``--help`` without loading numpy.
"""

from __future__ import annotations

from dataclasses import dataclass


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
