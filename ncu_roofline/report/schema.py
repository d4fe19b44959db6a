"""The JSON schema of the reports, as types.

Every document the tool writes (``report --format json``, ``compare
--format json``) and every renderer reads is one of these plain-data
shapes, so mypy checks the keys a renderer reads against the keys the
report stage builds.  The per-launch and per-group records are
``Record``: their fields come from the column registry
(:mod:`ncu_roofline.core.columns`), which also orders them, plus the tensor
datatypes and theory fields a profile has, so they are not fixed keys.

Units are SI; a value the export cannot give is ``None``, never 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

__all__ = [
    "BoundTotals",
    "CeilingRecord",
    "CollectRecord",
    "ComparisonContext",
    "ComparisonDocument",
    "ComparisonSide",
    "DeviceRoofsRecord",
    "FindingRecord",
    "GatesRecord",
    "Generator",
    "GpusDocument",
    "HistoryChange",
    "HistoryContext",
    "HistoryGroup",
    "HistoryPoint",
    "InputRecord",
    "InspectDocument",
    "InspectInput",
    "NcuRuleRecord",
    "Record",
    "ReportContext",
    "Summary",
    "TheoryChartContext",
    "TheoryChartGpu",
    "TheoryChartPoint",
    "TheoryGpuRecord",
    "TheoryOpRecord",
    "TheoryPlacement",
    "TheorySummary",
    "TheoryTable",
    "TheoryTotals",
]

#: One launch, kernel group or comparison row: field name -> plain value.
Record = dict[str, Any]


class Generator(TypedDict):
    """The tool that wrote the document."""

    name: str
    version: str


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
    #: ``{"path", "rows", "metrics"}`` each; empty for a single input.
    passes: list[dict[str, Any]]


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


class CeilingRecord(TypedDict):
    """One roof: a compute ceiling or a memory bandwidth."""

    uncertain: bool
    key: str
    kind: str
    unit: str
    value: float
    min: float | None
    max: float | None
    source: str
    clock_hz: float | None
    launches: int


class DeviceRoofsRecord(TypedDict):
    """The roofs used for one device of one input."""

    source: str
    device_name: str | None
    cc: str | None
    gpu: dict[str, Any] | None
    measured_sm_clock_hz: float | None
    ceilings: list[CeilingRecord]
    notes: list[str]


class FindingRecord(TypedDict):
    """One finding; its kind is an entry of the findings catalogue."""

    kind: str
    kernel: str | None
    severity: str
    message: str
    source: str | None
    recoverable_s: float | None
    #: ``kind`` or ``kind/variant``: the key of its text in the report's ``advice``.
    advice: str


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


class TheorySummary(TypedDict, total=False):
    """How theory was given (file, model) and what it matched."""

    file: str | None
    excess_threshold: float
    min_time_share: float
    model: dict[str, Any]
    kernels_with_theory: int
    unmatched: list[str]


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
    tripped: list[dict[str, Any]]


class _ReportFields(TypedDict):
    """The fields every report context has."""

    schema_version: str
    generator: Generator
    options: dict[str, Any]
    inputs: list[InputRecord]
    summary: Summary
    roofs: list[DeviceRoofsRecord]
    theory: TheorySummary | None
    #: A :class:`~ncu_roofline.report.records.LaunchRecords` in a built context.
    launches: Sequence[Record]
    kernels: list[Record]
    findings: list[FindingRecord]
    #: The text of every advice id the findings name, once each.
    advice: dict[str, AdviceRecord]


class ReportContext(_ReportFields, total=False):
    """The report of one analysis: ``report --format json``; ``gates`` when gates were asked."""

    gates: GatesRecord
    #: Per input, the roofline inputs it lacks and how to collect them.
    collect: list[CollectRecord]


class ComparisonSide(TypedDict):
    """One side of a comparison: its inputs, options and totals."""

    inputs: list[InputRecord]
    options: dict[str, Any]
    summary: Summary


class _ComparisonFields(TypedDict):
    """The fields every comparison context has."""

    schema_version: str
    kind: str
    generator: Generator
    options: dict[str, Any]
    #: Each side's GPU, clocks, ncu version, metric set and work, and their differences.
    context: dict[str, Any]
    base: ComparisonSide
    candidate: ComparisonSide
    totals: dict[str, Any]
    kernels: list[Record]
    regressions: list[Record]
    improvements: list[Record]
    added: list[Record]
    removed: list[Record]


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
    params: dict[str, Any]
    notes: list[str]
    #: Part of the model's forward pass (``--op`` rows are tabulated, not summed).
    in_model: bool
    gpus: dict[str, TheoryPlacement]


class TheoryGpuRecord(TypedDict):
    """One GPU of the ``theory`` table: its datasheet ceilings."""

    key: str
    name: str
    origin: str
    compute: dict[str, float]
    memory: dict[str, float]
    boost_hz: float | None


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


class TheoryTable(TypedDict):
    """The ``theory`` command's document: ``theory --format json``.

    ``model`` is the model's description when one was given (the report's
    ``theory.model``); ``totals`` (per GPU key) only then, the first GPU of
    ``gpus`` the reference of their ``speedup_vs_first``.
    """

    model: dict[str, Any] | None
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
    passes: list[dict[str, Any]]


class InspectDocument(TypedDict):
    """The ``inspect`` command's document: ``inspect --json``."""

    inputs: list[InspectInput]


class GpusDocument(TypedDict):
    """The ``gpus`` command's document: one ``GpuSpec.to_dict()`` per GPU."""

    gpus: list[dict[str, Any]]


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


class HistoryContext(TypedDict):
    """The ``history`` command's document: ``history --format json``."""

    schema_version: str
    kind: str
    generator: Generator
    dataset: str
    #: The filters and options asked for.
    query: dict[str, Any]
    #: The change-point rule (window, sustain, noise, min_step, min_baseline).
    rule: dict[str, Any]
    runs: int
    #: Kernel groups matched; ``groups`` holds the first ``query.top`` of them.
    series: int
    #: Every change point of every matched group, with its group's number.
    changes: list[dict[str, Any]]
    groups: list[HistoryGroup]
    omitted: int
    #: The query run on the ``groups`` table (DuckDB dialect).
    sql: str
