"""The time budget's plain-data pieces, as types.

Built in the analysis stage (:func:`~ncu_roofline.analysis.budget.build`)
and carried unchanged into reports.  Times are seconds (``float``); a figure
the input cannot give (a gap in a summary-only timeline, the bound classes
without an ncu analysis) is ``None``, never 0.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = [
    "BudgetRecord",
    "DeviceBudgetRecord",
    "ExcludedRecord",
    "GapBinRecord",
    "GraphRecord",
    "JoinRecord",
    "KernelJoinRecord",
    "RangeBudgetRecord",
    "StepRecord",
    "UnprofiledKernelRecord",
    "WindowBudgetRecord",
]


class GapBinRecord(TypedDict):
    """One bin of the idle-gap histogram: gaps of ``low_s`` <= size < ``high_s``."""

    label: str
    low_s: float
    #: ``None`` for the open last bin.
    high_s: float | None
    count: int
    seconds: float


class WindowBudgetRecord(TypedDict):
    """Where the time of one stretch of the timeline (the capture, a step) went.

    ``kernel_s + memcpy_s + gaps_s == span_s``: each instant of the span is
    kernel time when any kernel runs, else copy time when a memcpy or memset
    runs, else idle.  Overlapping kernels share an instant equally, so
    ``by_bound`` and ``by_limiter`` each sum to ``kernel_s``.
    """

    #: First activity start and last activity end in the window (capture clock, ns).
    start_ns: int | None
    end_ns: int | None
    span_s: float | None
    kernel_s: float
    #: memcpy and memset together; split in the two fields after it.
    memcpy_s: float | None
    memcpy_only_s: float | None
    memset_s: float | None
    gaps_s: float | None
    gap_count: int | None
    gaps: list[GapBinRecord] | None
    #: Kernel instances (those starting in the window).
    kernels: int
    #: Kernel time of kernels no ncu group joined; ``None`` without an analysis.
    not_profiled_s: float | None
    by_bound: dict[str, float] | None
    by_limiter: dict[str, float] | None
    small_kernels: int
    small_kernel_s: float
    #: (gaps + small kernels) / span: the share launch overhead may hold.
    launch_bound_share: float | None


class StepRecord(WindowBudgetRecord):
    """One NVTX range instance (a step) and its budget; ``span_s`` is ``None`` when it saw no activity."""

    name: str
    #: The occurrence of that name, 0 first.
    index: int
    level: int | None
    #: The range's own times (for a CPU range, CPU time; the window is its GPU work).
    range_start_ns: int | None
    range_end_ns: int | None
    empty: bool


class RangeBudgetRecord(TypedDict):
    """Every instance of one NVTX range name, summed (``decode``, ``prefill``)."""

    name: str
    #: ``None`` for a summary that does not count them.
    instances: int | None
    #: Instances that saw no GPU activity (not in the sums).
    empty_instances: int
    span_s: float | None
    mean_span_s: float | None
    median_span_s: float | None
    kernel_s: float
    memcpy_s: float | None
    memcpy_only_s: float | None
    memset_s: float | None
    gaps_s: float | None
    gap_count: int | None
    gaps: list[GapBinRecord] | None
    kernels: int
    not_profiled_s: float | None
    by_bound: dict[str, float] | None
    by_limiter: dict[str, float] | None
    small_kernels: int
    small_kernel_s: float
    launch_bound_share: float | None
    #: ``"trace"`` (summed steps) or ``"summary"`` (nsys's per-range kernel summaries).
    basis: str


class DeviceBudgetRecord(TypedDict):
    """One device's whole-capture budget."""

    device: str | None
    activities: int
    budget: WindowBudgetRecord
    #: True for the device with the most kernel time, whose budget is the headline.
    headline: bool


class KernelJoinRecord(TypedDict):
    """One distinct trace kernel (name, grid, block) and the ncu group it joined."""

    name: str
    grid: str | None
    block: str | None
    instances: int
    #: Its own summed durations (not shared with overlapping kernels).
    total_s: float
    #: ``exact``, ``by name``, ``normalised`` or ``not joined``.
    join: str
    #: The joined ncu group's kernel name, grid and block; ``None`` when not joined.
    ncu_kernel: str | None
    ncu_grid: str | None
    ncu_block: str | None
    bound: str | None
    limiter: str | None


class JoinRecord(TypedDict):
    """How the trace's kernels joined the ncu groups, counted in kernel instances."""

    joined_exact: int
    joined_by_name: int
    joined_normalised: int
    not_joined: int
    #: Joined kernel time over all kernel time (0 when nothing joined).
    joined_share: float | None
    #: ncu groups no trace kernel joined.
    ncu_groups_unseen: int


class UnprofiledKernelRecord(TypedDict):
    """A kernel ncu did not profile, with the options that would profile it."""

    name: str
    instances: int
    total_s: float
    #: Of all kernel time.
    share: float | None
    ncu_options: str


class GraphRecord(TypedDict):
    """Kernels launched by CUDA graphs."""

    #: ``api`` (corr ids of cudaGraphLaunch/cuGraphLaunch calls), ``shared corr id``
    #: (several kernels on one corr id, no API trace), or ``None`` (none found).
    basis: str | None
    graph_launches: int
    #: ``None`` where only summaries were read (they do not say).
    graph_kernels: int | None
    #: Their own summed durations.
    graph_kernel_s: float | None
    #: Of all kernel instances.
    kernel_share: float | None


class ExcludedRecord(TypedDict):
    """Activities left out of the budget, each reason counted."""

    missing_times: int
    end_before_start: int
    #: Longer than the absurd-gap limit on their own.
    absurd_duration: int
    #: Cut off from the bulk of the trace by an idle stretch past the absurd-gap limit
    #: (another clock domain, a capture of another run).
    detached: int
    #: A kind other than kernel, memcpy, memset.
    unknown_kind: int
    #: On devices other than the headline one (budgeted under ``devices``, not in ``capture``).
    other_devices: int


class BudgetRecord(WindowBudgetRecord):
    """A timeline's time budget: the capture, each step and range, the join with ncu.

    Its window fields (``span_s``, ``kernel_s``, ``memcpy_s``, ``gaps_s``,
    ``not_profiled_s``, ``by_bound``...) are the whole capture's, on the
    headline device.
    """

    #: ``trace`` (GPU activities with times), ``summary`` (kernel summaries only), ``empty``.
    basis: str
    #: Which NVTX times budget the steps: ``gpu projection``, ``cpu (by launch)``,
    #: ``cpu (by start)``; ``None`` without ranges.
    range_basis: str | None
    #: The headline device (most kernel time).
    device: str | None
    devices: list[DeviceBudgetRecord]
    steps: list[StepRecord]
    ranges: list[RangeBudgetRecord]
    small_kernel_threshold_s: float
    #: ``None`` without an ncu analysis.
    joins: JoinRecord | None
    #: Every distinct trace kernel (name, grid, block) and the ncu group it joined.
    trace_kernels: list[KernelJoinRecord]
    unprofiled: list[UnprofiledKernelRecord]
    graphs: GraphRecord
    excluded: ExcludedRecord
    warnings: list[str]
