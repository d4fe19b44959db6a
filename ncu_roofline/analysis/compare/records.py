"""The comparison's plain-data pieces, as types: totals, each side's facts, their differences, its story.

They are built here, in the analysis stage (:mod:`.match`, :mod:`.context`),
and travel unchanged into the comparison report, so their one home is here;
:mod:`ncu_roofline.report.schema` re-exports them beside the other report types.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "BottleneckMoveRecord",
    "ComparisonFacts",
    "ComparisonTotals",
    "DifferenceRecord",
    "EfficiencyChangeRecord",
    "HardwareRecord",
    "SideFacts",
    "StoryGroupRecord",
    "StoryRecord",
    "WhyRecord",
    "WorkChangeRecord",
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


class WorkChangeRecord(TypedDict):
    """One kind of work (FLOPs, DRAM bytes, launches) summed over the matched groups.

    Only groups that know the quantity on both sides are summed (``known`` of
    them); ``change`` is candidate minus base over base (``None`` when nothing
    is known or the base sums to 0).  ``fewer`` and ``more`` count the groups
    whose own change is beyond the noise, as their ``why`` says.
    """

    base: float | None
    candidate: float | None
    change: float | None
    known: int
    fewer: int
    more: int


class EfficiencyChangeRecord(TypedDict):
    """The matched groups' efficiency (fraction of the roof reached), each side time-weighted.

    ``higher`` and ``lower`` count the groups whose own efficiency moved beyond
    the noise (their ``higher-efficiency`` / ``lower-efficiency`` reason).
    """

    base: float | None
    candidate: float | None
    known: int
    higher: int
    lower: int


class StoryGroupRecord(TypedDict):
    """One of the groups carrying most of the change: its time change and its reasons."""

    kernel: str
    kernel_short: str
    status: str
    delta_s: float
    #: Its ``|delta_s|`` over the sum of every group's ``|delta_s|``.
    share: float
    base_bound: str | None
    candidate_bound: str | None
    why: list[WhyRecord]


class BottleneckMoveRecord(TypedDict):
    """A ``bottleneck-moved`` reason of a group carrying the change."""

    kernel_short: str
    #: ``limiter`` or ``bound``.
    on: str
    base: str
    candidate: str


class _StoryFields(TypedDict):
    comparable: bool
    not_comparable_reason: str | None
    noise: float
    delta_s: float | None
    delta_pct: float | None
    judged_on: str
    judged_pct: float | None
    #: Whether the judged change is beyond the noise; ``None`` when not judged or unknown.
    changed: bool | None
    flops: WorkChangeRecord
    dram_bytes: WorkChangeRecord
    launches: WorkChangeRecord
    efficiency: EfficiencyChangeRecord
    #: Bound class -> share of the base's timed kernel time, largest first; ``None`` untimed.
    base_bound_share: dict[str, float] | None
    carriers: list[StoryGroupRecord]
    #: The carriers' share of the sum of ``|delta_s|`` (``None`` when there are none).
    carried_share: float | None
    moves: list[BottleneckMoveRecord]


class StoryRecord(_StoryFields, total=False):
    """The whole profile's change as the four questions a speed-up must answer.

    Does it do less work (FLOPs, bytes) or fewer launches (``flops``,
    ``dram_bytes``, ``launches``, ``efficiency``); which groups carry it
    (``carriers``); what bounded the base (``base_bound_share``); did the
    bottleneck move (``moves``).  Built by :mod:`ncu_roofline.analysis.compare.story`;
    ``text`` is the sentence the JSON output adds (``render.compare_text.story_text``).
    """

    text: str
