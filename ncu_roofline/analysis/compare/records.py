"""The comparison's plain-data pieces, as types: totals, each side's facts, their differences.

They are built here, in the analysis stage (:mod:`.match`, :mod:`.context`),
and travel unchanged into the comparison report, so their one home is here;
:mod:`ncu_roofline.report.schema` re-exports them beside the other report types.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "ComparisonFacts",
    "ComparisonTotals",
    "DifferenceRecord",
    "HardwareRecord",
    "SideFacts",
    "WhyRecord",
]


class ComparisonTotals(TypedDict):
    """The whole profile's change: kernel time, launches, groups per status, how it was judged."""

    base_total_duration_s: float | None
    candidate_total_duration_s: float | None
    delta_s: float | None
    delta_pct: float | None
    base_launches: int
    candidate_launches: int
    delta_launches: int
    base_groups: int
    candidate_groups: int
    matched: int
    matched_name_only: int
    #: Matched as one template's two instantiations (``match == "implementation"``).
    matched_implementation: int
    added: int
    removed: int
    regressions: int
    improvements: int
    unchanged: int
    not_comparable: int
    matched_delta_s: float | None
    added_s: float | None
    removed_s: float | None
    noise: float
    judged_on: str
    judged_pct: float | None
    #: How many trials (runs of one program) each side holds: 1 for a single run.
    base_trials: int
    candidate_trials: int
    #: With trials: the interval's confidence, the total change's interval, and
    #: the run-to-run noise of one trial's total (a fraction); ``None`` without.
    confidence: float | None
    change_low: float | None
    change_high: float | None
    trial_noise: float | None
    base_cycles: float | None
    candidate_cycles: float | None
    delta_cycles_pct: float | None
    basis: str
    basis_requested: str
    basis_reason: str | None
    comparable: bool


class HardwareRecord(TypedDict):
    """What one side's export (or the user) says about its hardware.

    ``identified`` is true when any fact that names the hardware, not just
    its clocks, is known: a device name, a compute capability, an SM count,
    a DRAM peak, or a GPU the user chose (``gpu_how == "chosen"``).
    """

    names: list[str]
    gpu: str | None
    gpu_how: str
    ccs: list[str]
    sm_count: int | None
    sm_clock_hz: float | None
    memory_clock_hz: float | None
    dram_peak_bytes_s: float | None
    dram_peak_how: str | None
    identified: bool


class SideFacts(TypedDict):
    """One side of a comparison: its GPU, clocks, ncu version, metric set and work."""

    gpus: list[str]
    gpu_named_by_export: bool
    ccs: list[str]
    sm_clock_hz: float | None
    memory_clock_hz: float | None
    ncu_versions: list[str]
    metric_count: int
    launches: int
    total_duration_s: float | None
    cycles: float | None
    flops: float | None
    dram_bytes: float | None
    hardware: HardwareRecord


class _DifferenceFields(TypedDict):
    kind: str
    message: str


class DifferenceRecord(_DifferenceFields, total=False):
    """A difference between the sides besides the code (GPU, clock, ncu version, metrics, work)."""

    #: ``clock``: which clock differs, and candidate over base.
    clock: str
    ratio: float | None
    #: ``work``: ``profile`` or ``groups``.
    scope: str


class ComparisonFacts(TypedDict):
    """Each side's facts and whether the sides may be judged against each other."""

    base: SideFacts
    candidate: SideFacts
    sm_clock_ratio: float | None
    clocks_differ: bool
    #: ``None`` when the evidence cannot tell (``hardware_verdict == "undecided"``).
    different_gpus: bool | None
    #: ``same``, ``different``, ``undecided`` (neither side identifies its hardware
    #: and the clocks differ) or ``unknown`` (nothing identifies it, clocks agree).
    hardware_verdict: str
    same_gpu: bool
    allow_cross_gpu: bool
    comparable: bool
    comparable_reason: str
    not_comparable_reason: str | None
    differences: list[DifferenceRecord]


class _WhyFields(TypedDict):
    reason: str


class WhyRecord(_WhyFields, total=False):
    """One reason a matched group changed (``reason`` one of ``analysis.compare.WHY_REASONS``).

    ``base`` and ``candidate`` are the quantity on each side (numbers, or the
    limiter, bound class or GPU names as text) and ``change`` candidate minus
    base over base (``None`` for text).  See :mod:`ncu_roofline.analysis.compare.why`.
    """

    #: ``fewer-bytes`` / ``more-bytes``: the memory level (``dram``, ``l2``, ``l1``).
    level: str
    #: ``bottleneck-moved``: ``limiter`` or ``bound``, what moved.
    on: str
    #: ``clock``: ``sm_clock_hz`` or ``memory_clock_hz``.
    clock: str
    base: float | str | None
    candidate: float | str | None
    change: float | None
