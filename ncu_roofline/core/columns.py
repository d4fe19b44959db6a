"""The registry of analysed columns: each column once, with where it comes
from, how kernel groups aggregate it and which outputs carry it.

Every tuple of column names the analysis and the report need (the identity
columns carried from the profile, the grouping keys, the columns summed per
group, the fields of launch, kernel-group and theory records, the per-side
fields of a comparison) is derived from :data:`COLUMNS`, so adding a column
is one :class:`Column` entry here plus the code that computes it.

The order of :data:`COLUMNS` is the order of the fields in the JSON records;
each derived tuple keeps it.

Origin
    ``profile``: copied from the launch model; ``analysis``: computed per
    launch by the analysis; ``group``: exists only for kernel groups;
    ``compare``: exists only on a side of a comparison.
Aggregation (launch to kernel group)
    ``key``: identifies the group; ``first``: the group's first launch's
    value; ``summed``: the sum over launches, each weighted by its
    invocations; ``recomputed``: computed afresh for the group (rates,
    intensities, placement); ``none``: not carried to groups.
Outputs
    ``launch`` / ``kernel``: a field of every launch / kernel-group record;
    ``theory``: a field of both when theory was given; ``compare``: a
    per-side field of a comparison (prefixed ``base_`` / ``candidate_``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Origin = Literal["profile", "analysis", "group", "compare"]
Aggregation = Literal["key", "first", "summed", "recomputed", "none"]
Output = Literal["launch", "kernel", "theory", "compare"]

_OUTPUT_LETTERS: dict[str, Output] = {"L": "launch", "K": "kernel", "T": "theory", "C": "compare"}


@dataclass(frozen=True)
class Column:
    """One analysed column."""

    name: str
    origin: Origin
    aggregation: Aggregation
    outputs: frozenset[Output]


def _col(name: str, origin: Origin, aggregation: Aggregation, outputs: str = "") -> Column:
    """A column; ``outputs`` in letters: L launch, K kernel, T theory, C compare side."""
    return Column(name, origin, aggregation, frozenset(_OUTPUT_LETTERS[c] for c in outputs))


#: Every analysed column, in the order of the record fields.
COLUMNS: tuple[Column, ...] = (
    _col("rank", "group", "recomputed", "K"),
    _col("source", "profile", "key", "LKC"),
    _col("id", "profile", "none", "L"),
    _col("kernel", "profile", "key", "LK"),
    _col("kernel_short", "profile", "first", "LKC"),
    _col("process_id", "profile", "none"),
    _col("device", "profile", "first", "L"),
    _col("device_name", "profile", "key", "LKC"),
    _col("cc", "profile", "first", "LKC"),
    _col("stream", "profile", "none", "L"),
    _col("grid", "profile", "key", "LKC"),
    _col("block", "profile", "key", "LKC"),
    _col("nvtx", "profile", "none", "L"),
    _col("invocations", "profile", "none", "L"),
    _col("groups", "compare", "none", "C"),
    _col("launches", "group", "recomputed", "KC"),
    _col("total_duration_s", "analysis", "recomputed", "KC"),
    _col("duration_s", "profile", "recomputed", "LKC"),
    _col("min_duration_s", "group", "recomputed", "K"),
    _col("max_duration_s", "group", "recomputed", "K"),
    _col("duration_basis", "profile", "none", "L"),
    _col("time_share", "group", "recomputed", "KC"),
    _col("flops", "analysis", "summed", "LKC"),
    _col("flops_fp64", "analysis", "summed", "LK"),
    _col("flops_fp32", "analysis", "summed", "LK"),
    _col("flops_fp16", "analysis", "summed", "LK"),
    _col("flops_tensor", "analysis", "summed", "LK"),
    _col("flops_tensor_basis", "analysis", "none", "L"),
    _col("flops_missing", "analysis", "none", "L"),
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
    _col("recoverable_s", "analysis", "recomputed", "LK"),
    _col("above_roof", "analysis", "none", "L"),
    _col("above_roof_launches", "group", "recomputed", "K"),
    _col("roof_source_compute", "analysis", "first", "LK"),
    _col("roof_source_dram", "analysis", "first", "LK"),
    _col("sm_clock_hz", "analysis", "none", "L"),
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
)


def _names(keep: list[Column]) -> tuple[str, ...]:
    return tuple(c.name for c in keep)


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
#: Theory fields, added to launch and kernel records when theory was given.
THEORY_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "theory" in c.outputs])
#: Per-side fields of a comparison's aggregated groups.
COMPARE_SIDE_FIELDS: tuple[str, ...] = _names([c for c in COLUMNS if "compare" in c.outputs])
