"""The dataset's tables: their columns, Arrow types and partitioning.

Every table has a fixed schema per :data:`SCHEMA_VERSION`, so that Spark,
Trino and DuckDB see one column set whatever a profile holds: a field a run
cannot give is null, never 0 (every tensor datatype's FLOPs and every theory
field are always there).  The launch and kernel-group columns are the JSON
report's record fields, in the same order (:mod:`ncu_roofline.core.columns`);
their types are declared here, and a test checks that every registry field
has one.

Each row also carries its run: ``run_id``, ``run_time`` (UTC) and ``tags``
(a string-to-string map: commit, branch, model, ...), so that a query of one
table needs no join.  The partition columns ``gpu`` and ``date`` live in the
directory names (Hive style), not in the files.
"""

from __future__ import annotations

import pyarrow as pa

from ncu_roofline.analysis.measures import TENSOR_DTYPES
from ncu_roofline.core.columns import KERNEL_FIELDS, LAUNCH_FIELDS, THEORY_FIELDS

#: Version of the dataset layout and table schemas; stored in every run and
#: in the dataset's marker file.  Bumped when a column changes meaning or
#: disappears, or when readers must follow a new rule; added columns do not
#: bump it (older files read them as null).  Version 2: a run's rows count
#: only from the file its newest ``runs`` row names (``data_file``), so that
#: compaction can write a day's runs into one file; version 1 files read as
#: version 2 ones whose runs sit in their own ``part-RUN.parquet`` files.
SCHEMA_VERSION = "2"

#: The tables of a dataset, in the order an export writes them (``runs`` last:
#: a run is listed only once its data files are in place).
TABLES: tuple[str, ...] = ("launches", "groups", "findings", "runs")

#: Hive partition keys per table, outermost first (directory names, not columns).
PARTITIONS: dict[str, tuple[str, ...]] = {
    "launches": ("gpu", "date"),
    "groups": ("gpu", "date"),
    "findings": ("gpu", "date"),
    "runs": ("date",),
}

TAGS_TYPE = pa.map_(pa.string(), pa.string())

#: The columns every table starts with: the run a row belongs to.
RUN_FIELDS: tuple[pa.Field, ...] = (
    pa.field("run_id", pa.string(), nullable=False),
    pa.field("run_time", pa.timestamp("us", tz="UTC"), nullable=False),
    pa.field("tags", TAGS_TYPE),
)

#: Record fields stored as 64-bit integers.
_INTS = frozenset(
    {
        "id",
        "device",
        "stream",
        "grid_blocks",
        "invocations",
        "rank",
        "launches",
        "above_roof_launches",
        "failed_launches",
    }
)
#: Record fields stored as booleans.
_BOOLS = frozenset({"tensor_uncounted", "under_filled", "above_roof", "ncu_disagrees"})
#: Record fields that hold lists of records (ncu's rule results), stored as JSON text.
JSON_FIELDS = frozenset({"ncu_rules"})
#: Record fields stored as strings.
_STRINGS = frozenset(
    {
        "source",
        "kernel",
        "kernel_short",
        "device_name",
        "cc",
        "grid",
        "block",
        "nvtx",
        "duration_basis",
        "flops_tensor_basis",
        "flops_missing",
        "tensor_uncounted_basis",
        "dram_bytes_basis",
        "l2_bytes_basis",
        "l1_bytes_basis",
        "precision",
        "dram_utilization_basis",
        "binding_level",
        "side",
        "bound",
        "bound_reason",
        "limiter",
        "limiter_basis",
        "ncu_recoverable_basis",
        "recoverable_bound_by",
        "limiter_needs",
        "recoverable_basis",
        "roof_source_compute",
        "roof_source_dram",
        "theory_op",
        "theory_label",
        "theory_precision",
        "theory_source",
        "confidence",
        "family",
        "placement",
        "profiling_failed",
        "advice",
    }
)


def field_type(name: str) -> pa.DataType:
    """The Arrow type of a launch or kernel-group record field (float64 unless declared)."""
    if name in _INTS:
        return pa.int64()
    if name in _BOOLS:
        return pa.bool_()
    if name in _STRINGS or name in JSON_FIELDS:
        return pa.string()
    return pa.float64()


def _with_tensor_dtypes(fields: tuple[str, ...]) -> tuple[str, ...]:
    at = fields.index("flops_tensor") + 1
    tensor = tuple(f"flops_tensor_{d}" for d in TENSOR_DTYPES)
    return (*fields[:at], *tensor, *fields[at:])


#: The record fields of the launch and kernel-group tables, in order.
RECORD_FIELDS: dict[str, tuple[str, ...]] = {
    "launches": (*_with_tensor_dtypes(LAUNCH_FIELDS), *THEORY_FIELDS),
    "groups": (*_with_tensor_dtypes(KERNEL_FIELDS), *THEORY_FIELDS),
}

_FINDING_FIELDS: tuple[pa.Field, ...] = (
    pa.field("kind", pa.string()),
    pa.field("kernel", pa.string()),
    pa.field("severity", pa.string()),
    pa.field("message", pa.string()),
    pa.field("source", pa.string()),
    pa.field("recoverable_s", pa.float64()),
    pa.field("advice", pa.string()),
)

_RUN_TABLE_FIELDS: tuple[pa.Field, ...] = (
    pa.field("schema_version", pa.string()),
    pa.field("report_schema_version", pa.string()),
    pa.field("tool_version", pa.string()),
    pa.field("ncu_versions", pa.list_(pa.string())),
    pa.field("gpus", pa.list_(pa.string())),
    pa.field("device_names", pa.list_(pa.string())),
    pa.field("inputs", pa.list_(pa.string())),
    pa.field("input_sha256", pa.list_(pa.string())),
    pa.field("layouts", pa.list_(pa.string())),
    #: The analysis options (GPU, roofs file, clocks, theory) as JSON text.
    pa.field("options", pa.string()),
    pa.field("launches", pa.int64()),
    pa.field("rows", pa.int64()),
    pa.field("kernels", pa.int64()),
    pa.field("findings", pa.int64()),
    pa.field("total_duration_s", pa.float64()),
    pa.field("recoverable_s", pa.float64()),
    pa.field("latency_s", pa.float64()),
    #: The name of the file (in each table's partition of the run's day) that
    #: holds the run's rows: ``part-RUN.parquet``, or the compacted file of
    #: that day.  Null in version 1 rows, which means ``part-RUN.parquet``.
    pa.field("data_file", pa.string()),
    #: When this row was written; of a run's rows, the newest names its file.
    pa.field("listed_at", pa.timestamp("us", tz="UTC")),
)


def table_schema(table: str) -> pa.Schema:
    """The Arrow schema of one table's files (without the partition columns)."""
    if table in RECORD_FIELDS:
        own = tuple(pa.field(f, field_type(f)) for f in RECORD_FIELDS[table])
    elif table == "findings":
        own = _FINDING_FIELDS
    elif table == "runs":
        own = _RUN_TABLE_FIELDS
    else:
        raise KeyError(table)
    return pa.schema([*RUN_FIELDS, *own], metadata={"ncu_roofline_schema": SCHEMA_VERSION})
