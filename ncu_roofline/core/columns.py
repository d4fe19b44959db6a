"""The registry of columns: each column once, with where it comes from, its
type and meaning in the launch model, how kernel groups aggregate it and
which outputs carry it.

Every tuple of column names the readers, the analysis and the report need
(the launch model's identity columns and their types, the columns carried
from the profile, the grouping keys, the columns summed per group, the
fields of launch, kernel-group and theory records, the per-side fields of a
comparison) is derived from :data:`COLUMNS`, so adding a column is one
:class:`Column` entry here plus the code that computes it.

The order of :data:`COLUMNS` is the order of the fields in the JSON records;
each derived tuple keeps it.

Origin
    ``profile``: a launch-model column the analysis copies into its launch
    frame; ``model``: a launch-model column the analysis does not carry;
    ``analysis``: computed per launch by the analysis; ``group``: exists
    only for kernel groups; ``compare``: exists only on a side of a
    comparison.
Launch-model columns (``profile`` and ``model``)
    They are the identity columns of :mod:`ncu_roofline.core.model`, in
    registry order, each with its storage type (``int``: nullable
    ``Int64``; ``str``: object, None when missing; ``float``: float64, NaN
    when missing) and a one-line meaning.  Readers fill them by name and
    ``finalize_launches`` refuses a name that is not here.
Aggregation (launch to kernel group)
    ``key``: identifies the group; ``first``: the group's first launch's
    value; ``summed``: the sum over launches, each weighted by its
    invocations; ``recomputed``: computed afresh for the group (rates,
    intensities, placement); ``none``: not carried to groups.
Outputs
    ``launch`` / ``kernel``: a field of every launch / kernel-group record;
    ``theory``: a field of both when theory was given; ``compare``: a
    per-side field of a comparison (prefixed ``base_`` / ``candidate_``);
    ``timeline``: a kernel-group field when an nsys timeline was joined;
    ``projection``: a field of both with ``report --project-to``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Origin = Literal["profile", "model", "analysis", "group", "compare"]
#: The origins of columns the launch model lacks (they have no dtype).
Computed = Literal["analysis", "group", "compare"]
Dtype = Literal["int", "str", "float"]
Aggregation = Literal["key", "first", "summed", "recomputed", "none"]
Output = Literal["launch", "kernel", "theory", "compare", "timeline", "projection"]

_OUTPUT_LETTERS: dict[str, Output] = {
    "L": "launch",
    "K": "kernel",
    "T": "theory",
    "C": "compare",
    "N": "timeline",
    "P": "projection",
}


@dataclass(frozen=True)
class Column:
    """One column of the launch model, the analysis or a comparison."""

    name: str
    origin: Origin
    aggregation: Aggregation
    outputs: frozenset[Output]
    #: Storage type in the launch model; None for columns the model lacks.
    dtype: Dtype | None = None
    #: One-line meaning (launch-model columns).
    doc: str = ""


def _letters(outputs: str) -> frozenset[Output]:
    return frozenset(_OUTPUT_LETTERS[c] for c in outputs)


def _col(name: str, origin: Computed, aggregation: Aggregation, outputs: str = "") -> Column:
    """A computed column; ``outputs`` in letters: L launch, K kernel, T theory, C compare side,
    N timeline (kernel-group fields present when an nsys timeline was joined), P projection
    (launch and kernel-group fields present with ``report --project-to``)."""
    return Column(name, origin, aggregation, _letters(outputs))


def _profile(name: str, dtype: Dtype, aggregation: Aggregation, outputs: str, doc: str) -> Column:
    """A launch-model column the analysis carries into its launch frame."""
    return Column(name, "profile", aggregation, _letters(outputs), dtype, doc)


def _model_only(name: str, dtype: Dtype, doc: str) -> Column:
    """A launch-model column the analysis leaves behind (so no group or output role)."""
    return Column(name, "model", "none", frozenset(), dtype, doc)


#: Every column, in the order of the launch model's identity columns and of the record fields.
COLUMNS: tuple[Column, ...] = (
    _col("rank", "group", "recomputed", "K"),
    _profile(
        "source",
        "str",
        "key",
        "LKC",
        "input the launch was read from (path as given, '-' for stdin)",
    ),
    _profile(
        "id", "int", "none", "L", "ncu's result ID within its source (group ordinal for summaries)"
    ),
    _profile("kernel", "str", "key", "LK", "kernel name exactly as ncu printed it"),
    _profile("kernel_short", "str", "first", "LKC", "short readable kernel name"),
    _profile("process_id", "int", "none", "", "OS process id of the profiled application"),
    _model_only("process_name", "str", "process name"),
    _model_only("host", "str", "host name"),
    _profile("device", "int", "first", "L", "CUDA device index"),
    _profile("device_name", "str", "key", "LKC", "GPU name, when the export carries it"),
    _profile("cc", "str", "first", "LKC", "compute capability, e.g. '8.0'"),
    _model_only("context", "int", "CUDA context id"),
    _profile("stream", "int", "none", "L", "CUDA stream id"),
    _profile("grid", "str", "key", "LKC", "grid size as printed, '(x, y, z)'"),
    _profile("block", "str", "key", "LKC", "block size as printed, '(x, y, z)'"),
    _profile(
        "grid_blocks", "int", "first", "LK", "blocks in the grid (product of the grid dimensions)"
    ),
    _model_only("block_threads", "int", "threads per block (product of the block dimensions)"),
    _profile(
        "nvtx", "str", "none", "L", "enclosing NVTX range(s), outermost first, joined by ' > '"
    ),
    _model_only(
        "kernel_time", "str", "wall-clock timestamp of the launch (old exports; not a duration)"
    ),
    _profile(
        "invocations", "int", "none", "L", "launches this row stands for (1 except for summaries)"
    ),
    _col("groups", "compare", "none", "C"),
    _col("launches", "group", "recomputed", "KC"),
    _col("total_duration_s", "analysis", "recomputed", "KC"),
    _profile("duration_s", "float", "recomputed", "LKC", "launch duration in seconds"),
    _col("min_duration_s", "group", "recomputed", "K"),
    _col("max_duration_s", "group", "recomputed", "K"),
    _profile(
        "duration_basis",
        "str",
        "none",
        "L",
        "how duration_s was obtained: 'gpu__time_duration' or 'cycles/clock'",
    ),
    _col("time_share", "group", "recomputed", "KC"),
    _col("flops", "analysis", "summed", "LKC"),
    _col("flops_fp64", "analysis", "summed", "LK"),
    _col("flops_fp32", "analysis", "summed", "LK"),
    _col("flops_fp16", "analysis", "summed", "LK"),
    _col("flops_tensor", "analysis", "summed", "LK"),
    _col("flops_tensor_basis", "analysis", "none", "L"),
    _col("flops_missing", "analysis", "none", "L"),
    # Tensor-core work present (tensor pipe busy, a tensor-core kernel name)
    # that no tensor counter of the export counts; such launches are not placed.
    _col("tensor_uncounted", "analysis", "first", "LK"),
    _col("tensor_uncounted_basis", "analysis", "first", "L"),
    _col("dram_bytes", "analysis", "summed", "LKC"),
    _col("l2_bytes", "analysis", "summed", "LK"),
    _col("l1_bytes", "analysis", "summed", "LK"),
    _col("dram_bytes_basis", "analysis", "none", "L"),
    _col("l2_bytes_basis", "analysis", "none", "L"),
    _col("l1_bytes_basis", "analysis", "none", "L"),
    _col("ai_dram", "analysis", "recomputed", "LKC"),
    _col("ai_l2", "analysis", "recomputed", "LK"),
    _col("ai_l1", "analysis", "recomputed", "LK"),
    _col("achieved_flops_per_s", "analysis", "recomputed", "LKC"),
    _col("dram_bytes_per_s", "analysis", "recomputed", "LK"),
    _col("l2_bytes_per_s", "analysis", "recomputed", "L"),
    _col("l1_bytes_per_s", "analysis", "recomputed", "L"),
    _col("precision", "analysis", "recomputed", "LK"),
    _col("peak_flops_per_s", "analysis", "recomputed", "LK"),
    _col("peak_dram_bytes_per_s", "analysis", "recomputed", "LK"),
    _col("peak_l2_bytes_per_s", "analysis", "recomputed", "L"),
    _col("peak_l1_bytes_per_s", "analysis", "recomputed", "L"),
    _col("ridge_dram", "analysis", "recomputed", "L"),
    _col("attainable_flops_per_s", "analysis", "recomputed", "LK"),
    _col("attainable_l2_flops_per_s", "analysis", "recomputed", "L"),
    _col("attainable_l1_flops_per_s", "analysis", "recomputed", "L"),
    _col("compute_utilization", "analysis", "recomputed", "LK"),
    _col("dram_utilization", "analysis", "recomputed", "LK"),
    _col("dram_utilization_basis", "analysis", "recomputed", "L"),
    _col("l2_utilization", "analysis", "recomputed", "L"),
    _col("l1_utilization", "analysis", "recomputed", "L"),
    _col("binding_level", "analysis", "recomputed", "LK"),
    _col("efficiency", "analysis", "recomputed", "LKC"),
    _col("side", "analysis", "recomputed", "LK"),
    _col("bound", "analysis", "recomputed", "LKC"),
    _col("bound_reason", "analysis", "recomputed", "LK"),
    # Which evidence the point on the chart rests on: "measured", "bandwidth"
    # (no FP work: DRAM utilisation), "theory" (theoretical work over the
    # measured time), None (no point); see analysis/placement.py.
    _col("placement", "analysis", "recomputed", "LK"),
    # "profiling failed: M of N metrics missing" (analysis/failed_profile.py).
    _col("profiling_failed", "analysis", "none", "L"),
    _col("failed_launches", "group", "recomputed", "K"),
    _col("recoverable_s", "analysis", "recomputed", "LK"),
    _col("recoverable_basis", "analysis", "recomputed", "LK"),
    _col("latency_s", "analysis", "recomputed", "LK"),
    # ncu's own rule results and speedup estimates (analysis/ncu_rules.py).
    _col("ncu_rules", "analysis", "recomputed", "LK"),
    _col("ncu_speedup_pct", "analysis", "none", "L"),
    _col("ncu_recoverable_s", "analysis", "recomputed", "LK"),
    _col("ncu_recoverable_basis", "analysis", "none", "L"),
    # Our own bound (roof and units) before ncu's estimate bounds it into
    # recoverable_s (analysis/ncu_rules.py).
    _col("roof_recoverable_s", "analysis", "recomputed", "LK"),
    _col("recoverable_bound_by", "analysis", "recomputed", "LK"),
    _col("ncu_disagrees", "group", "recomputed", "K"),
    # ncu's own bound on a partial last wave's share of the runtime (percent).
    _col("ncu_tail_pct", "analysis", "recomputed", "LK"),
    _col("limiter", "analysis", "recomputed", "LK"),
    _col("limiter_utilization", "analysis", "recomputed", "LK"),
    _col("limiter_basis", "analysis", "recomputed", "LK"),
    _col("limiter_needs", "analysis", "recomputed", "LK"),
    _col("max_utilization", "analysis", "recomputed", "LK"),
    _col("mix_share", "analysis", "recomputed", "LK"),
    _col("under_filled", "analysis", "recomputed", "LK"),
    _col("waves", "analysis", "recomputed", "LK"),
    _col("tail_loss", "analysis", "recomputed", "LK"),
    _col("achieved_occupancy", "analysis", "recomputed", "LK"),
    _col("sm_count", "analysis", "recomputed", "LK"),
    _col("above_roof", "analysis", "none", "L"),
    _col("above_roof_launches", "group", "recomputed", "K"),
    _col("roof_source_compute", "analysis", "first", "LK"),
    _col("roof_source_dram", "analysis", "first", "LK"),
    _col("sm_clock_hz", "analysis", "none", "L"),
    # An nsys timeline joined to the groups (analysis/budget/attach.py): real
    # instances and time; time_share and recoverable_s then follow real time.
    _col("nsys_instances", "analysis", "recomputed", "N"),
    _col("nsys_total_s", "analysis", "recomputed", "N"),
    _col("nsys_join", "analysis", "recomputed", "N"),
    _col("time_basis", "analysis", "recomputed", "N"),
    _col("sample_total_duration_s", "analysis", "recomputed", "N"),
    _col("sample_time_share", "analysis", "recomputed", "N"),
    _col("sample_recoverable_s", "analysis", "recomputed", "N"),
    # A projection onto other GPUs (analysis/projection.py, report --project-to):
    # the first target's seconds and basis, and every target's seconds by key.
    _col("projected_s", "analysis", "none", "P"),
    _col("projection_basis", "analysis", "none", "P"),
    _col("projected", "analysis", "none", "P"),
    _col("theory_flops", "analysis", "summed", "T"),
    _col("theory_bytes", "analysis", "summed", "T"),
    _col("theory_ai", "analysis", "recomputed", "T"),
    _col("byte_excess", "analysis", "recomputed", "T"),
    _col("flop_excess", "analysis", "recomputed", "T"),
    _col("excess_bytes", "analysis", "recomputed", "T"),
    _col("theory_floor_s", "analysis", "summed", "T"),
    _col("theory_efficiency", "analysis", "recomputed", "T"),
    _col("theory_op", "analysis", "first", "T"),
    _col("theory_label", "analysis", "first", "T"),
    _col("theory_precision", "analysis", "first", "T"),
    _col("theory_source", "analysis", "first", "T"),
    _col("confidence", "analysis", "first", "T"),
    _col("family", "analysis", "first", "T"),
    # The rate of the theoretical work: theory FLOPs over the measured time.
    _col("theory_flops_per_s", "analysis", "recomputed", "T"),
    # The advice id (catalogue) that fits the group's bound class and limiter.
    _col("advice", "group", "recomputed", "K"),
)


def _names(keep: list[Column]) -> tuple[str, ...]:
    return tuple(c.name for c in keep)


#: The launch model's identity columns, in order (every reader's frame starts with them).
LAUNCH_MODEL_COLUMNS: tuple[Column, ...] = tuple(
    c for c in COLUMNS if c.origin in ("profile", "model")
)
#: Identity columns carried from the profile into the analysed launch frame.
PROFILE_COLUMNS: tuple[str, ...] = _names([c for c in COLUMNS if c.origin == "profile"])
#: Columns that identify a kernel group.
GROUP_KEYS: tuple[str, ...] = _names([c for c in COLUMNS if c.aggregation == "key"])
#: Columns a kernel group takes from its first launch.
FIRST_LAUNCH_COLUMNS: tuple[str, ...] = _names([c for c in COLUMNS if c.aggregation == "first"])
#: Counts summed over a group's launches (each weighted by its invocations).
SUMMED_COLUMNS: tuple[str, ...] = _names([c for c in COLUMNS if c.aggregation == "summed"])
#: Fields of every launch record, in order.
LAUNCH_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "launch" in c.outputs])
#: Fields of every kernel-group record, in order.
KERNEL_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "kernel" in c.outputs])
#: Timeline fields, added to kernel records when an nsys timeline was joined.
TIMELINE_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "timeline" in c.outputs])
#: Projection fields, added to launch and kernel records with ``--project-to``.
PROJECTION_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "projection" in c.outputs])
#: Theory fields, added to launch and kernel records when theory was given.
THEORY_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "theory" in c.outputs])
#: Per-side fields of a comparison's aggregated groups.
COMPARE_SIDE_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "compare" in c.outputs])
