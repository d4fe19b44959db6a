"""Which file holds each run: the rule every reader follows, in SQL and in pyarrow.

A run's rows live in one file per table and GPU partition of its day: its
own ``part-RUN.parquet`` when exported, or the day's compacted
``compact-TOKEN.parquet`` once :mod:`~ncu_roofline.fleet.compact` has
merged the day.  A file may also hold rows that no longer count (a run
exported again with ``--replace``, or the parts a compaction has replaced
but not yet removed), so readers never take every file's rows: of a run's
``runs`` rows, the newest (``listed_at``) names its day (the partition) and
its file (``data_file``; null in version 1 rows, meaning
``part-RUN.parquet``), and a data row counts only when it sits in that file
of that day.  A run with no ``runs`` row yet (an export still writing) has
no rows at all.

The SQL here is plain enough for DuckDB, Spark and Trino alike: it reads
tables named ``runs_files`` and ``TABLE_files``, the raw files with a
``file`` column holding each row's file name (see ``docs/fleet.md`` for
each engine's way to get it).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.dataset as pads
import pyarrow.parquet as pq

from ncu_roofline.core.limits import address_space_limited
from ncu_roofline.fleet.schema import PARTITIONS, table_schema

#: The newest ``runs`` row of each run, and the (day, file) that holds its rows.
LOCATED_SQL = """located AS (
  SELECT run_id, date, coalesce(data_file, concat('part-', run_id, '.parquet')) AS file
  FROM (
    SELECT run_id, date, data_file, row_number() OVER (
      PARTITION BY run_id ORDER BY listed_at DESC NULLS LAST, date DESC) AS listing
    FROM runs_files
  ) newest
  WHERE listing = 1
)"""

#: The ``runs`` rows that count: each run's newest.
RUNS_SQL = """SELECT * EXCLUDE (listing) FROM (
  SELECT *, row_number() OVER (
    PARTITION BY run_id ORDER BY listed_at DESC NULLS LAST, date DESC) AS listing
  FROM runs_files
) newest WHERE listing = 1"""


def current_sql(table: str) -> str:
    """The rows of ``table`` that count, as a query over ``TABLE_files`` and ``located``."""
    return (
        f"SELECT d.* FROM {table}_files d JOIN located l\n"
        "    ON d.run_id = l.run_id AND d.date = l.date AND d.file = l.file"
    )


def part_name(run_id: str) -> str:
    """The file name of a run's own part files."""
    return f"part-{run_id}.parquet"


def partition_values(path: Path, base: Path) -> dict[str, str]:
    """The Hive partition values of a data file below a table's directory."""
    rel = path.relative_to(base)
    return dict(p.split("=", 1) for p in rel.parts[:-1] if "=" in p)


def raw_dataset(root: Path, table: str, files: list[Path] | None = None) -> pads.Dataset:
    """Every file of a table as one pyarrow dataset, in the current schema.

    Columns an older file lacks read as null; partition columns are text.
    """
    base = root / f"table={table}"
    keys = pa.schema([(k, pa.string()) for k in PARTITIONS[table]])
    schema = raw_dataset_schema(table)
    source: str | list[str] = str(base) if files is None else [str(f) for f in files]
    return pads.dataset(
        source,
        schema=schema,
        format="parquet",
        partitioning=pads.partitioning(keys, flavor="hive"),
        partition_base_dir=str(base),
    )


def read_rows(
    root: Path,
    table: str,
    files: list[Path] | None = None,
    columns: list[str] | None = None,
    run_ids: list[str] | None = None,
) -> pa.Table:
    """The rows of ``files`` (every file of the table: None), in the current schema.

    ``columns`` selects columns, ``run_ids`` keeps only those runs' rows.
    Read by Arrow's dataset scanner, except under an address-space limit
    (``ulimit -v``): when the scanner's reader threads cannot start there it
    waits forever, deaf even to SIGTERM (seen in ``compact`` at several
    limits), so there each file is read in turn on this thread, where
    running out is an error (exit 8) instead.
    """
    only = None if run_ids is None else pc.field("run_id").isin(pa.array(run_ids, pa.string()))
    if not address_space_limited():
        return raw_dataset(root, table, files).to_table(columns=columns, filter=only)
    base = root / f"table={table}"
    schema = raw_dataset_schema(table)
    wanted = schema if columns is None else pa.schema([schema.field(c) for c in columns])
    listed = files if files is not None else sorted(base.glob("**/*.parquet"))
    pieces = [_read_one(f, base, wanted, run_ids) for f in listed]
    return pa.concat_tables(pieces) if pieces else wanted.empty_table()


def _read_one(path: Path, base: Path, wanted: pa.Schema, run_ids: list[str] | None) -> pa.Table:
    """One file read on this thread (no Arrow thread), as :func:`raw_dataset` would read it."""
    parquet = pq.ParquetFile(path, pre_buffer=False)
    present = set(parquet.schema_arrow.names)
    keys = partition_values(path, base)
    stored = [f.name for f in wanted if f.name in present and f.name not in keys]
    if run_ids is not None and "run_id" not in stored and "run_id" in present:
        stored.append("run_id")
    data = parquet.read(columns=stored, use_threads=False)
    if run_ids is not None:
        data = data.filter(pc.is_in(data.column("run_id"), pa.array(run_ids, pa.string())))
    columns = []
    for field in wanted:
        if field.name in keys:
            columns.append(pa.array([keys[field.name]] * data.num_rows, field.type))
        elif field.name in present:
            columns.append(data.column(field.name).cast(field.type))
        else:  # a column an older file lacks
            columns.append(pa.nulls(data.num_rows, field.type))
    return pa.table(columns, schema=wanted)


def raw_dataset_schema(table: str) -> pa.Schema:
    """The schema :func:`raw_dataset` reads a table in: its columns, then its partition keys."""
    keys = pa.schema([(k, pa.string()) for k in PARTITIONS[table]])
    return pa.unify_schemas([table_schema(table), keys])


def newest_runs(runs: pa.Table) -> pa.Table:
    """Of each run's ``runs`` rows, the newest (by ``listed_at``, then day)."""
    if runs.num_rows == 0:
        return runs
    listed = runs.column("listed_at")
    # A version 1 row (no listed_at) is older than any that has one.
    keys = pa.table(
        {
            "run_id": runs.column("run_id"),
            "listed_at": pc.fill_null(listed, pa.scalar(0, type=listed.type)),
            "date": runs.column("date"),
        }
    )
    order = pc.sort_indices(
        keys,
        sort_keys=[("run_id", "ascending"), ("listed_at", "descending"), ("date", "descending")],
    )
    runs = runs.take(order)
    ids = np.asarray(runs.column("run_id").to_numpy(zero_copy_only=False), dtype=object)
    first = np.r_[True, ids[1:] != ids[:-1]]
    return runs.filter(pa.array(first))


def located(root: Path) -> pa.Table:
    """Each listed run's day and file: columns ``run_id``, ``date`` and ``file``."""
    empty = pa.table({"run_id": [], "date": [], "file": []}, schema=_LOCATED)
    if not (root / "table=runs").is_dir():
        return empty
    runs = read_rows(root, "runs", columns=["run_id", "date", "data_file", "listed_at"])
    runs = newest_runs(runs)
    parts = pc.binary_join_element_wise("part-", runs.column("run_id"), ".parquet", "")
    file = pc.coalesce(runs.column("data_file"), parts)
    return pa.table([runs.column("run_id"), runs.column("date"), file], schema=_LOCATED)


_LOCATED = pa.schema([("run_id", pa.string()), ("date", pa.string()), ("file", pa.string())])


def runs_by_file(where: pa.Table) -> dict[tuple[str, str], list[str]]:
    """``located`` as (day, file) -> the runs whose rows that file holds."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    cols = where.to_pydict()
    for rid, day, name in zip(cols["run_id"], cols["date"], cols["file"], strict=True):
        out[(day, name)].append(rid)
    return out


def current_rows(
    root: Path,
    table: str,
    files: list[Path],
    holders: dict[tuple[str, str], list[str]],
    columns: list[str] | None = None,
) -> pa.Table:
    """The rows of ``files`` (of one table) that count, per :data:`holders`.

    A run's own part file counts whole or not at all; a compacted file
    counts for the runs it is named for, read with a filter on them.
    """
    base = root / f"table={table}"
    whole: list[Path] = []
    pieces: list[pa.Table] = []
    for f in files:
        day = partition_values(f, base).get("date", "")
        ids = holders.get((day, f.name))
        if not ids:
            continue
        if f.name == part_name(ids[0]) and len(ids) == 1:
            whole.append(f)
        else:
            pieces.append(read_rows(root, table, [f], columns, ids))
    if whole or not pieces:
        pieces.insert(0, read_rows(root, table, whole, columns))
    return pa.concat_tables(pieces)
