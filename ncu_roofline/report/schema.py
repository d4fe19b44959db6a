"""The JSON schema of the reports, as types.

Every document the tool writes (``report --format json``, ``compare
--format json``) and every renderer reads is one of these plain-data
shapes, so mypy checks the keys a renderer reads against the keys the
report stage builds.  The per-launch and per-group records are
:class:`LaunchRecord` and :class:`KernelRecord`: their fields are the column
registry's (:mod:`ncu_roofline.core.columns`), which also orders them (a
test holds the two equal), plus the theory fields when theory was given and
a ``flops_tensor_<dtype>`` per tensor datatype the profile counts (not fixed
keys: :func:`tensor_flops` reads them).  A comparison's rows are
:class:`ComparisonRecord` (the fields of ``analysis.compare.COMPARISON_FIELDS``).
Tripped gates travel in one place, a context's ``gates`` record
(:func:`tripped_gates`).  An op's parameters are open-ended in their names
(each op kind has its own), not in their values:
:data:`~ncu_roofline.theory.ops.params.ParamValues`.  The comparison's
totals, facts and story are built in the analysis stage and live there
(:mod:`ncu_roofline.analysis.compare.records`); they are re-exported here.

Units are SI; a value the export cannot give is ``None``, never 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from ncu_roofline.analysis.budget.records import (
    BudgetRecord,
    DeviceBudgetRecord,
    ExcludedRecord,
    GapBinRecord,
    GraphRecord,
    JoinRecord,
    KernelJoinRecord,
    RangeBudgetRecord,
    StepRecord,
    UnprofiledKernelRecord,
    WindowBudgetRecord,
)
from ncu_roofline.analysis.compare.records import (
    BottleneckMoveRecord,
    ComparisonFacts,
    ComparisonTotals,
    DifferenceRecord,
    EfficiencyChangeRecord,
    SideFacts,
    StoryGroupRecord,
    StoryRecord,
    WhyRecord,
    WorkChangeRecord,
)
from ncu_roofline.analysis.findings.records import FindingRecord
from ncu_roofline.analysis.options import ModelRecord, ReportOptions, RidgeCrossing, TheorySummary
from ncu_roofline.analysis.projection_records import ByBoundProjection, ProjectionRecord
from ncu_roofline.analysis.roofs.records import CeilingRecord, DeviceRoofsRecord, RoofGpuRecord
from ncu_roofline.core.gpu_spec import GpuRecord

if TYPE_CHECKING:
    from ncu_roofline.theory.ops.params import ParamValues

__all__ = [
    "BottleneckMoveRecord",
    "BoundTotals",
    "BudgetRecord",
    "ByBoundProjection",
    "CeilingRecord",
    "ChangeRuleRecord",
    "ChartContext",
    "CollectRecord",
    "ComparisonContext",
    "ComparisonDocument",
    "ComparisonFacts",
    "ComparisonOptions",
    "ComparisonRecord",
    "ComparisonSide",
    "ComparisonTotals",
    "DeviceBudgetRecord",
    "DeviceRoofsRecord",
    "DifferenceRecord",
    "EfficiencyChangeRecord",
    "ExcludedRecord",
    "FindingRecord",
    "GapBinRecord",
    "GateRecord",
    "GatesRecord",
    "Generator",
    "GpuRecord",
    "GpusDocument",
    "GraphRecord",
    "GroupChange",
    "HistoryChange",
    "HistoryContext",
    "HistoryGroup",
    "HistoryPoint",
    "HistoryQueryRecord",
    "InputRecord",
    "InspectDocument",
    "InspectInput",
    "InspectPass",
    "JoinRecord",
    "KernelJoinRecord",
    "KernelRecord",
    "LaunchRecord",
    "ModelRecord",
    "NcuRuleRecord",
    "PassRecord",
    "ProjectionFields",
    "ProjectionRecord",
    "RangeBudgetRecord",
    "ReportContext",
    "ReportOptions",
    "RoofGpuRecord",
    "SideFacts",
    "StepRecord",
    "StoryGroupRecord",
    "StoryRecord",
    "Summary",
    "TheoryChartContext",
    "TheoryChartGpu",
    "TheoryChartPoint",
    "TheoryFields",
    "TheoryGpuRecord",
    "TheoryModelConfig",
    "TheoryOpRecord",
    "TheoryPeakUsed",
    "TheoryPlacement",
    "TheoryRidgeCrossing",
    "TheorySummary",
    "TheoryTable",
    "TheoryTotals",
    "TimelineFields",
    "UnprofiledKernelRecord",
    "WhyRecord",
    "WindowBudgetRecord",
    "WorkChangeRecord",
    "tensor_flops",
    "tripped_gates",
]


class TheoryFields(TypedDict, total=False):
    """The theory fields of launch and kernel-group records: present when theory was given.

    Their names and order are the column registry's ``THEORY_FIELDS``.
    """

    theory_flops: float | None
    theory_bytes: float | None
    theory_ai: float | None
    byte_excess: float | None
    flop_excess: float | None
    excess_bytes: float | None
    theory_floor_s: float | None
    theory_efficiency: float | None
    theory_op: str | None
    theory_label: str | None
    theory_precision: str | None
    theory_source: str | None
    confidence: str | None
    family: str | None
    theory_flops_per_s: float | None


class ProjectionFields(TypedDict, total=False):
    """The fields ``report --project-to`` adds to launch and kernel-group records.

    Their names and order are the column registry's ``PROJECTION_FIELDS``.
    ``projected_s`` is the first target's: for a launch the seconds of one
    invocation (like ``duration_s``), for a group its total (like
    ``total_duration_s``); ``projection_basis`` (launches) says how it was
    projected; ``projected`` maps every target's key to its seconds.
    """

    projected_s: float | None
    projection_basis: str | None
    projected: dict[str, float | None] | None


class _LaunchFields(TypedDict):
    """The fields of every launch record: the registry's ``LAUNCH_FIELDS``, in order."""

    source: str
    id: int | None
    kernel: str
    kernel_short: str
    device: int | None
    device_name: str | None
    cc: str | None
    stream: int | None
    grid: str | None
    block: str | None
    grid_blocks: int | None
    nvtx: str | None
    invocations: int | None
    duration_s: float | None
    duration_basis: str | None
    flops: float | None
    flops_fp64: float | None
    flops_fp32: float | None
    flops_fp16: float | None
    flops_tensor: float | None
    flops_tensor_basis: str | None
    flops_missing: str | None
    tensor_uncounted: bool | None
    tensor_uncounted_basis: str | None
    dram_bytes: float | None
    l2_bytes: float | None
    l1_bytes: float | None
    dram_bytes_basis: str | None
    l2_bytes_basis: str | None
    l1_bytes_basis: str | None
    ai_dram: float | None
    ai_l2: float | None
    ai_l1: float | None
    achieved_flops_per_s: float | None
    dram_bytes_per_s: float | None
    l2_bytes_per_s: float | None
    l1_bytes_per_s: float | None
    precision: str | None
    peak_flops_per_s: float | None
    peak_dram_bytes_per_s: float | None
    peak_l2_bytes_per_s: float | None
    peak_l1_bytes_per_s: float | None
    ridge_dram: float | None
    attainable_flops_per_s: float | None
    attainable_l2_flops_per_s: float | None
    attainable_l1_flops_per_s: float | None
    compute_utilization: float | None
    dram_utilization: float | None
    dram_utilization_basis: str | None
    l2_utilization: float | None
    l1_utilization: float | None
    binding_level: str | None
    efficiency: float | None
    side: str | None
    bound: str | None
    bound_reason: str | None
    placement: str | None
    profiling_failed: str | None
    recoverable_s: float | None
    recoverable_basis: str | None
    latency_s: float | None
    ncu_rules: list[NcuRuleRecord] | None
    ncu_speedup_pct: float | None
    ncu_recoverable_s: float | None
    ncu_recoverable_basis: str | None
    roof_recoverable_s: float | None
    recoverable_bound_by: str | None
    ncu_tail_pct: float | None
    limiter: str | None
    limiter_utilization: float | None
    limiter_basis: str | None
    limiter_needs: str | None
    max_utilization: float | None
    mix_share: float | None
    under_filled: bool | None
    waves: float | None
    tail_loss: float | None
    achieved_occupancy: float | None
    sm_count: float | None
    above_roof: str | None
    roof_source_compute: str | None
    roof_source_dram: str | None
    sm_clock_hz: float | None


class LaunchRecord(_LaunchFields, TheoryFields, ProjectionFields):
    """One launch (a row of ncu's export) as plain data.

    Besides these fields a record holds ``flops_tensor_<dtype>`` (after
    ``flops_tensor``) for each tensor datatype the profile counts: read
    them with :func:`tensor_flops`.
    """


class _KernelFields(TypedDict):
    """The fields of every kernel-group record: the registry's ``KERNEL_FIELDS``, in order."""

    rank: int
    source: str
    kernel: str
    kernel_short: str
    device_name: str | None
    cc: str | None
    grid: str | None
    block: str | None
    grid_blocks: int | None
    launches: int
    total_duration_s: float | None
    duration_s: float | None
    min_duration_s: float | None
    max_duration_s: float | None
    time_share: float | None
    flops: float | None
    flops_fp64: float | None
    flops_fp32: float | None
    flops_fp16: float | None
    flops_tensor: float | None
    tensor_uncounted: bool | None
    dram_bytes: float | None
    l2_bytes: float | None
    l1_bytes: float | None
    ai_dram: float | None
    ai_l2: float | None
    ai_l1: float | None
    achieved_flops_per_s: float | None
    dram_bytes_per_s: float | None
    precision: str | None
    peak_flops_per_s: float | None
    peak_dram_bytes_per_s: float | None
    attainable_flops_per_s: float | None
    compute_utilization: float | None
    dram_utilization: float | None
    binding_level: str | None
    efficiency: float | None
    side: str | None
    bound: str | None
    bound_reason: str | None
    placement: str | None
    failed_launches: int
    recoverable_s: float | None
    recoverable_basis: str | None
    latency_s: float | None
    ncu_rules: list[NcuRuleRecord] | None
    ncu_recoverable_s: float | None
    roof_recoverable_s: float | None
    recoverable_bound_by: str | None
    ncu_disagrees: bool | None
    ncu_tail_pct: float | None
    limiter: str | None
    limiter_utilization: float | None
    limiter_basis: str | None
    limiter_needs: str | None
    max_utilization: float | None
    mix_share: float | None
    under_filled: bool | None
    waves: float | None
    tail_loss: float | None
    achieved_occupancy: float | None
    sm_count: float | None
    above_roof_launches: int
    roof_source_compute: str | None
    roof_source_dram: str | None
    advice: str | None


class TimelineFields(TypedDict, total=False):
    """The kernel-group fields an nsys timeline adds (``report --nsys``).

    Their names and order are the column registry's ``TIMELINE_FIELDS``.
    With them, ``total_duration_s``, ``time_share``, ``recoverable_s`` and
    ``latency_s`` follow the timeline's real time (``time_basis``
    ``"nsys"``), the sampled ones kept beside.
    """

    nsys_instances: int | None
    nsys_total_s: float | None
    nsys_join: str | None
    time_basis: str | None
    sample_total_duration_s: float | None
    sample_time_share: float | None
    sample_recoverable_s: float | None


class KernelRecord(_KernelFields, TheoryFields, TimelineFields, ProjectionFields):
    """One kernel group (kernel, launch configuration, GPU) as plain data.

    Like :class:`LaunchRecord`, it also holds a ``flops_tensor_<dtype>`` per
    tensor datatype the profile counts.
    """


def tensor_flops(record: KernelRecord | LaunchRecord, dtype: str) -> float | None:
    """The tensor FLOPs of one datatype in a record (``None`` where the profile has none)."""
    value: float | None = cast("Mapping[str, Any]", record).get(f"flops_tensor_{dtype}")
    return value


def tripped_gates(context: Mapping[str, Any]) -> list[GateRecord] | None:
    """The tripped gates of a report or comparison; ``None`` when no gate was asked for.

    The context's ``gates`` record is the one place renderers read gates from.
    """
    gates: GatesRecord | None = context.get("gates")
    return None if gates is None else gates["tripped"]


class _GateFields(TypedDict):
    """The fields of every tripped gate."""

    rule: str
    kernel: str | None
    message: str


class GateRecord(_GateFields, total=False):
    """One tripped gate: its rule, the kernel it names (``None``: the whole profile), why.

    A gate about a kernel group names its launch configuration too.
    """

    grid: str | None
    block: str | None


class Generator(TypedDict):
    """The tool that wrote the document."""

    name: str
    version: str


class PassRecord(TypedDict):
    """One input joined into another with ``--merge`` (a pass of one run)."""

    path: str
    rows: int
    #: The metrics the pass held, sorted.
    metrics: list[str]


class InspectPass(TypedDict):
    """One pass of an ``inspect``-ed input: its path, rows and the roofline inputs it held."""

    path: str
    rows: int
    present: list[str]


class InputRecord(TypedDict):
    """One input file and what was read from it."""

    path: str
    layout: str
    launches: int
    rows: int
    kernels: int
    devices: list[str]
    ncu_version: str | None
    units: str | None
    aggregated: bool
    warnings: list[str]
    ncu_errors: list[str]
    #: The inputs joined into this one with ``--merge`` (passes of one run):
    #: Empty for a single input.
    passes: list[PassRecord]


class BoundTotals(TypedDict):
    """Kernel groups, launches and time of one bound class."""

    kernels: int
    launches: int
    duration_s: float | None


class FailedTotals(TypedDict):
    """Launches whose profiling failed (most metrics missing), and the kernel groups they are in.

    Their time is unknown, so they are counted apart from every time total.
    """

    launches: int
    kernels: int


class Summary(TypedDict):
    """Whole-profile totals."""

    launches: int
    rows: int
    kernels: int
    total_duration_s: float | None
    recoverable_s: float | None
    #: Timed launch rows whose recoverable time is unknown (excluded from ``recoverable_s``).
    recoverable_unknown: int
    #: Time in latency-class and under-filled launches: not recoverable at a roof.
    latency_s: float | None
    #: Every bound class, in the order of ``analysis.BOUND_CLASSES``.
    by_bound: dict[str, BoundTotals]
    #: Launches whose profiling failed, counted apart (their time is unknown).
    profiling_failed: FailedTotals
    #: Findings per severity (``error``, ``warning``, ``info``).
    findings: dict[str, int]


class NcuRuleRecord(TypedDict, total=False):
    """One of ncu's rule results: an entry of a launch's or group's ``ncu_rules``.

    ``speedup_pct`` is ncu's estimated speedup in percent (None where ncu
    estimates none, and in exports older than ncu 2023.x); ``speedup_type``
    is ``"global"`` (of the kernel's time) or ``"local"`` (of the rule's own
    unit).  A kernel group's entries are one per distinct rule, with the
    largest estimate and ``launches``, how many of its launches it fired in;
    only a group's entries carry the rule's ``message`` (once per rule, not
    once per launch).
    """

    name: str
    type: str | None
    section: str | None
    message: str | None
    speedup_type: str | None
    speedup_pct: float | None
    launches: int


class AdviceRecord(TypedDict):
    """One piece of advice: why the findings that share it matter, and what to try."""

    why: str
    what_to_try: str


class CollectRecord(TypedDict):
    """What one input lacks for the roofline, and the ``ncu`` options that collect it."""

    path: str
    #: Titles of the missing roofline inputs (``inspect``'s requirement groups).
    missing: list[str]
    #: The ``ncu`` options that would collect them (empty when nothing is missing).
    ncu_options: list[str]


class GatesRecord(TypedDict):
    """The gates asked for and the ones that tripped (added by the command)."""

    rules: list[str]
    tripped: list[GateRecord]


class ComparisonOptions(TypedDict):
    """The options a comparison was made with."""

    #: The relative change a group must pass to be a regression or improvement.
    noise: float


class _ReportFields(TypedDict):
    """The fields every report context has."""

    schema_version: str
    generator: Generator
    options: ReportOptions
    inputs: list[InputRecord]
    summary: Summary
    roofs: list[DeviceRoofsRecord]
    theory: TheorySummary | None
    #: A :class:`~ncu_roofline.report.records.LaunchRecords` in a built context.
    launches: Sequence[LaunchRecord]
    kernels: list[KernelRecord]
    findings: list[FindingRecord]
    #: The text of every advice id the findings name, once each.
    advice: dict[str, AdviceRecord]


class ChartContext(TypedDict):
    """What a roofline chart reads of a report: its roofs, groups, launches and findings.

    A :class:`ReportContext` is one; the comparison chart makes one of stand-in points.
    """

    roofs: list[DeviceRoofsRecord]
    kernels: list[KernelRecord]
    launches: Sequence[LaunchRecord]
    findings: list[FindingRecord]


class ReportContext(_ReportFields, total=False):
    """The report of one analysis: ``report --format json``; ``gates`` when gates were asked.

    ``budget`` is there when an nsys timeline was joined (``report --nsys``),
    ``projection`` with ``report --project-to``.
    """

    gates: GatesRecord
    budget: BudgetRecord
    #: One summary per ``--project-to`` target, in the order given.
    projection: list[ProjectionRecord]
    #: Per input, the roofline inputs it lacks and how to collect them.
    collect: list[CollectRecord]


class ComparisonSide(TypedDict):
    """One side of a comparison: its inputs, options and totals."""

    inputs: list[InputRecord]
    options: ReportOptions
    summary: Summary


class ComparisonRecord(TypedDict):
    """One row of a comparison: a kernel group matched across the two sides, or on one side only.

    Its fields are ``analysis.compare.COMPARISON_FIELDS``, in order; a side's
    values are prefixed ``base_`` / ``candidate_`` (``None`` on the side
    an added or removed group lacks).
    """

    rank: int
    status: str
    match: str | None
    kernel: str
    kernel_short: str | None
    #: Each side's kernel name: equal when matched exactly or by name, the two
    #: instantiations when ``match == "implementation"``, ``None`` on the side a
    #: removed or added group lacks.
    base_kernel: str | None
    candidate_kernel: str | None
    base_grid: str | None
    base_block: str | None
    candidate_grid: str | None
    candidate_block: str | None
    base_groups: int | None
    candidate_groups: int | None
    base_source: str | None
    base_device_name: str | None
    base_cc: str | None
    candidate_source: str | None
    candidate_device_name: str | None
    candidate_cc: str | None
    base_launches: int | None
    candidate_launches: int | None
    delta_launches: int | None
    base_total_duration_s: float | None
    candidate_total_duration_s: float | None
    delta_s: float | None
    delta_pct: float | None
    base_duration_s: float | None
    candidate_duration_s: float | None
    delta_duration_s: float | None
    delta_duration_pct: float | None
    base_cycles: float | None
    candidate_cycles: float | None
    delta_cycles_pct: float | None
    judged_on: str | None
    judged_pct: float | None
    #: With trials (several runs a side): the interval of ``judged_pct`` at the
    #: totals' ``confidence``, and the group's estimated run-to-run noise (the
    #: standard deviation of one trial, a fraction); ``None`` otherwise.
    change_low: float | None
    change_high: float | None
    trial_noise: float | None
    base_time_share: float | None
    candidate_time_share: float | None
    base_flops: float | None
    candidate_flops: float | None
    base_dram_bytes: float | None
    candidate_dram_bytes: float | None
    work_unit: str | None
    delta_work_pct: float | None
    work_changed: bool | None
    base_time_per_work: float | None
    candidate_time_per_work: float | None
    base_ai_dram: float | None
    candidate_ai_dram: float | None
    base_achieved_flops_per_s: float | None
    candidate_achieved_flops_per_s: float | None
    base_efficiency: float | None
    candidate_efficiency: float | None
    delta_efficiency: float | None
    base_bound: str | None
    candidate_bound: str | None
    bound_changed: bool | None
    #: Why a matched group changed (empty when nothing beyond noise did, and for
    #: added and removed groups); see ``analysis.compare.why``.
    why: list[WhyRecord]


class _ComparisonFields(TypedDict):
    """The fields every comparison context has."""

    schema_version: str
    kind: str
    generator: Generator
    options: ComparisonOptions
    #: Each side's GPU, clocks, ncu version, metric set and work, and their differences.
    context: ComparisonFacts
    base: ComparisonSide
    candidate: ComparisonSide
    totals: ComparisonTotals
    #: The whole profile's change as the four questions a speed-up must answer
    #: (``analysis.compare.story``); the JSON output adds its ``text``.
    story: StoryRecord
    kernels: list[ComparisonRecord]
    regressions: list[ComparisonRecord]
    improvements: list[ComparisonRecord]
    added: list[ComparisonRecord]
    removed: list[ComparisonRecord]


class ComparisonContext(_ComparisonFields, total=False):
    """The comparison of two analyses: ``compare --format json``; ``gates`` when asked."""

    gates: GatesRecord


class ComparisonDocument(TypedDict):
    """What the comparison renderers read: the comparison and each side's report."""

    comparison: ComparisonContext
    base_report: ReportContext
    candidate_report: ReportContext


class TheoryPlacement(TypedDict):
    """One op on one GPU's datasheet roofs; ``None`` where the GPU gives no roof."""

    precision: str | None
    peak_flops_per_s: float | None
    #: The clock (Hz) the peak assumes: the GPU's tensor clock for most tensor
    #: figures where the vendor quotes a lower one, else its boost clock.
    peak_clock_hz: float | None
    peak_dram_bytes_per_s: float | None
    ridge: float | None
    attainable_flops_per_s: float | None
    bound: str | None
    time_floor_s: float | None
    #: The floor times the op's count: its least time per forward pass (or per table).
    pass_time_s: float | None
    #: ``pass_time_s`` over the summed ``pass_time_s`` of the rows the total
    #: counts (a model's ops; every row when no model is given); ``None`` for
    #: ``--op`` rows beside a model, and where the floor is unknown.
    share: float | None


class TheoryOpRecord(TypedDict):
    """One op of the ``theory`` table and its placement per GPU key."""

    #: The op's number (1, 2, ...) in table order: its row's ``#`` and its chart label.
    number: int
    name: str
    op: str
    label: str
    count: int
    flops: float
    bytes: float
    ai: float | None
    precision: str
    params: ParamValues
    notes: list[str]
    #: Part of the model's forward pass (``--op`` rows are tabulated, not summed).
    in_model: bool
    gpus: dict[str, TheoryPlacement]


class TheoryPeakUsed(TypedDict):
    """A compute peak the table's ops are judged against on one GPU, and its clock."""

    key: str
    flops_per_s: float
    clock_hz: float | None
    #: ``tensor`` (the lower clock the vendor's tensor figures assume) or ``boost``.
    clock: str | None


class TheoryGpuRecord(TypedDict):
    """One GPU of the ``theory`` table: its datasheet ceilings and the peaks used."""

    key: str
    name: str
    origin: str
    compute: dict[str, float]
    memory: dict[str, float]
    boost_hz: float | None
    base_hz: float | None
    tensor_hz: float | None
    #: ``dense``: every figure of the GPU table leaves 2:4 structured sparsity out.
    sparsity: str
    #: The compute peaks the ops use, in first-use order, with their clocks.
    peaks_used: list[TheoryPeakUsed]


#: The least batch (decode) or seq (prefill) at which a pass reaches a GPU's ridge.
TheoryRidgeCrossing = RidgeCrossing


class TheoryModelConfig(TypedDict):
    """A model's shapes (:class:`~ncu_roofline.theory.models.ModelConfig` as data)."""

    key: str
    name: str
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    num_hidden_layers: int
    vocab_size: int
    num_local_experts: int | None
    num_experts_per_tok: int | None
    moe_intermediate_size: int | None
    tie_word_embeddings: bool
    hidden_act: str
    source: str
    sliding_window: int | None


class TheoryTotals(TypedDict):
    """A model's per-forward-pass sums on one GPU."""

    time_floor_s: float
    flops: float
    bytes: float
    #: Every op had a floor (none lacked a roof, none was a collective).
    complete: bool
    collectives_not_included: int
    #: Tokens one pass handles: ``batch`` generated in decode, ``batch x seq`` in
    #: prefill (``None`` when the model's description has no phase and shape).
    tokens: int | None
    #: ``tokens / time_floor_s``: the most tokens per second the GPU's
    #: datasheet peaks allow (an upper bound; looser when not ``complete``).
    tokens_per_s: float | None
    #: The first GPU's floor over this GPU's: how many times faster this GPU's pass can be.
    speedup_vs_first: float | None
    #: ``flops / bytes``: the pass's arithmetic intensity (FLOP/B).
    ai: float | None
    #: Where the phase turns compute-bound on this GPU (``None`` without the model's shapes).
    ridge_crossing: TheoryRidgeCrossing | None


class TheoryTable(TypedDict):
    """The ``theory`` command's document: ``theory --format json``.

    ``model`` is the model's description when one was given (the report's
    ``theory.model``); ``totals`` (per GPU key) only then, the first GPU of
    ``gpus`` the reference of their ``speedup_vs_first``.
    """

    model: ModelRecord | None
    #: The model's shapes, where the table was built from a model config.
    model_config: TheoryModelConfig | None
    gpus: list[TheoryGpuRecord]
    ops: list[TheoryOpRecord]
    totals: dict[str, TheoryTotals] | None


class TheoryChartPoint(TypedDict):
    """One op on one GPU's roofline, at its time floor."""

    number: int
    name: str
    label: str
    count: int
    bound: str | None
    #: The roof the op is judged against (its precision's ceiling key).
    precision: str | None
    #: FLOP/byte of the minimal bytes (``None``: no bytes or no FLOPs).
    ai: float | None
    #: The rate at the floor: FLOPs over the floor (``None`` without FLOPs or a floor).
    flops_per_s: float | None
    time_floor_s: float | None
    pass_time_s: float | None
    share: float | None


class TheoryChartGpu(TypedDict):
    """One GPU on the ``theory`` chart: its datasheet ceilings and its op points."""

    key: str
    name: str
    roofs: DeviceRoofsRecord
    points: list[TheoryChartPoint]


class TheoryChartContext(TypedDict):
    """The ``theory`` table as one chart's input: every GPU's roofs and ops."""

    gpus: list[TheoryChartGpu]


class InspectInput(TypedDict):
    """What ``inspect`` found in one input."""

    path: str
    layout: str
    launches: int
    rows: int
    kernels: int
    devices: list[str]
    #: Roofline inputs the export has, and the keys of those it lacks.
    present: list[str]
    missing: list[str]
    missing_detail: dict[str, str]
    #: The ``ncu`` options that would collect the missing inputs.
    ncu_options: list[str]
    ncu_version: str | None
    units: str | None
    aggregated: bool
    metrics: list[str]
    warnings: list[str]
    #: The passes joined into this input with ``--merge``: path, rows and
    #: the roofline inputs each held (empty for a single input).
    passes: list[InspectPass]


class InspectDocument(TypedDict):
    """The ``inspect`` command's document: ``inspect --json``."""

    inputs: list[InspectInput]


class GpusDocument(TypedDict):
    """The ``gpus`` command's document: one ``GpuSpec.to_dict()`` per GPU."""

    gpus: list[GpuRecord]


class HistoryPoint(TypedDict):
    """One kernel group in one run of a dataset (its rows of the run summed)."""

    run_id: str
    #: ISO 8601, UTC.
    run_time: str
    #: The run's ``label`` tag (e.g. its commit), else its time.
    label: str
    #: The value of the tag the runs are ordered by (``None`` when by time).
    order: str | None
    launches: int
    total_duration_s: float | None
    #: Time per launch.
    duration_s: float | None
    #: Time-weighted efficiency of the group's rows in the run.
    efficiency: float | None
    recoverable_s: float | None


class HistoryChange(TypedDict):
    """A change point of one group's history: a sustained step beyond the noise."""

    run_id: str
    run_time: str
    label: str
    #: The run's position in the group's history (1 = first run).
    run: int
    metric: str
    #: ``up`` or ``down``.
    direction: str
    #: Worse: time or recoverable time up, efficiency down.
    regression: bool
    #: Rolling median before, median of the sustained runs after.
    before: float
    after: float
    #: ``after / before - 1``.
    step: float | None
    #: The step it had to pass (noise x scaled MAD, or the smallest step).
    threshold: float
    baseline_runs: int
    #: The group's time in the run where the change starts.
    total_duration_s: float | None


class GroupChange(HistoryChange):
    """A change point in the list of every change: with its group's number and short name."""

    group: int
    kernel_short: str


class HistoryGroup(TypedDict):
    """One kernel group (GPU, kernel, grid, block) over the runs of a dataset."""

    #: Rank: groups with a regression first (by the time it moved), then by time.
    number: int
    gpu: str
    kernel: str
    kernel_short: str
    grid: str | None
    block: str | None
    runs: int
    changes: list[HistoryChange]
    points: list[HistoryPoint]


class HistoryQueryRecord(TypedDict):
    """The filters and options a history was asked with."""

    #: Regular expression searched in the kernel name (full or short).
    kernel: str | None
    tags: dict[str, str]
    #: ISO 8601, UTC.
    since: str | None
    #: ``time`` or the tag the runs are ordered by.
    order_by: str
    #: The tag that names a run.
    label: str
    metric: str
    top: int


class ChangeRuleRecord(TypedDict):
    """The change-point rule of a history (``analysis.change_rule.ChangeRule``)."""

    window: int
    sustain: int
    noise: float
    min_step: float
    min_baseline: int


class HistoryContext(TypedDict):
    """The ``history`` command's document: ``history --format json``."""

    schema_version: str
    kind: str
    generator: Generator
    dataset: str
    #: The filters and options asked for.
    query: HistoryQueryRecord
    #: The change-point rule (window, sustain, noise, min_step, min_baseline).
    rule: ChangeRuleRecord
    runs: int
    #: Kernel groups matched; ``groups`` holds the first ``query.top`` of them.
    series: int
    #: Every change point of every matched group, with its group's number.
    changes: list[GroupChange]
    groups: list[HistoryGroup]
    omitted: int
    #: The query run on the ``groups`` table (DuckDB dialect).
    sql: str
