"""The dataset directory: its layout, atomic appends of runs, and plain reads.

Layout (Hive partitioning, readable by DuckDB, Spark, Trino and pyarrow)::

    DATASET/_ncu_roofline_dataset.json           marker: format and schema version
    DATASET/table=launches/gpu=GPU/date=DAY/part-RUN.parquet
    DATASET/table=groups/gpu=GPU/date=DAY/part-RUN.parquet
    DATASET/table=findings/gpu=GPU/date=DAY/part-RUN.parquet
    DATASET/table=runs/date=DAY/part-RUN.parquet
    DATASET/table=.../compact-TOKEN.parquet      a compacted day (fleet.compact)

A run's files are first written under hidden temporary names
(``.part-RUN.parquet.PID.tmp``: every engine skips names starting with ``.``
and the ``*.parquet`` globs miss them), then renamed into place, the
``runs`` file last.  A crash while writing leaves only hidden files, which
the next export removes; the runs already there are untouched.  Readers
count a run's rows only from the file its newest ``runs`` row names
(:mod:`~ncu_roofline.fleet.located`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ncu_roofline.analysis import Analysis
from ncu_roofline.core.limits import check_room
from ncu_roofline.errors import InputFormatError, InputNotFoundError, OutputError, UsageError
from ncu_roofline.fleet.damage import reading
from ncu_roofline.fleet.located import (
    current_rows,
    located,
    newest_runs,
    read_rows,
    runs_by_file,
)
from ncu_roofline.fleet.schema import PARTITIONS, SCHEMA_VERSION, TABLES
from ncu_roofline.fleet.tables import Run, run_tables

#: Address space the Parquet writer needs beyond the table: out of room under
#: ulimit -v it crashes (SIGSEGV) instead of raising, so it is checked first.
WRITE_ROOM = 16 << 20
#: The marker file that makes a directory a dataset (``_``: engines skip it).
MARKER = "_ncu_roofline_dataset.json"
_FORMAT = "ncu-roofline dataset"
#: Temporary files older than this are left over from a crashed export.
_STALE_S = 3600.0
_TMP = re.compile(r"^\.part-[0-9a-f]+\.parquet\.\d+\.tmp$")


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes (hex)."""
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        return digest.hexdigest()
    except FileNotFoundError as e:
        raise InputNotFoundError(f"{path}: no such file") from e
    except OSError as e:
        raise InputNotFoundError(f"{path}: cannot read ({e.strerror})") from e


def run_id(input_sha256: Sequence[str], tags: dict[str, str]) -> str:
    """The id of a run: its inputs' content (in any order) and its tags.

    The same inputs exported with the same tags give the same id, which is
    how a second export of one run is recognised.
    """
    key = orjson.dumps({"inputs": sorted(input_sha256), "tags": sorted(tags.items())})
    return hashlib.sha256(key).hexdigest()[:16]


def _partition_dir(root: Path, table: str, gpu: str, date: str) -> Path:
    parts = {"gpu": gpu, "date": date}
    out = root / f"table={table}"
    for key in PARTITIONS[table]:
        out = out / f"{key}={parts[key]}"
    return out


def _schema_number(text: Any) -> int | None:
    try:
        return int(str(text))
    except ValueError:
        return None


def check_dataset(path: str) -> Path:
    """``path`` as a readable dataset; refused when missing, not one, or too new."""
    root = Path(path)
    if not root.exists():
        raise InputNotFoundError(f"{path}: no such dataset (create one with `ncu-roofline export`)")
    if not root.is_dir():
        raise InputFormatError(f"{path}: not a dataset directory")
    marker = root / MARKER
    if marker.is_file():
        try:
            info = orjson.loads(marker.read_bytes())
        except (orjson.JSONDecodeError, OSError) as e:
            raise InputFormatError(f"{path}: unreadable dataset marker {MARKER} ({e})") from e
        ours = _schema_number(SCHEMA_VERSION) or 0
        theirs = _schema_number(info.get("schema_version")) if isinstance(info, dict) else None
        if theirs is None:
            raise InputFormatError(f"{path}: {MARKER} gives no schema version")
        if theirs > ours:
            raise InputFormatError(
                f"{path}: written with dataset schema {theirs}, newer than this "
                f"ncu-roofline reads ({ours}); upgrade ncu-roofline"
            )
    elif not (root / "table=runs").is_dir():
        raise InputFormatError(f"{path}: not an ncu-roofline dataset (no {MARKER})")
    return root


def open_for_write(path: str) -> Path:
    """``path`` as a dataset to write to, created (with its marker) when missing."""
    root = Path(path)
    if root.exists() and not root.is_dir():
        raise OutputError(f"{path}: exists and is not a directory")
    if root.is_dir() and not (root / MARKER).exists() and any(root.iterdir()):
        raise OutputError(
            f"{path}: a directory that is not an ncu-roofline dataset; "
            "give an empty or new directory"
        )
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not (root / MARKER).exists():
            info = {"format": _FORMAT, "schema_version": SCHEMA_VERSION}
            _atomic_bytes(root / MARKER, orjson.dumps(info, option=orjson.OPT_INDENT_2))
    except OSError as e:
        raise OutputError(f"{path}: cannot create the dataset ({e.strerror})") from e
    return check_dataset(path)


def mark_schema(root: Path) -> None:
    """Record this version's schema in the marker (so older readers refuse what they misread)."""
    info: Any = {}
    with contextlib.suppress(OSError, orjson.JSONDecodeError):
        info = orjson.loads((root / MARKER).read_bytes())
    if not isinstance(info, dict):
        info = {}
    if (_schema_number(info.get("schema_version")) or 0) >= (_schema_number(SCHEMA_VERSION) or 0):
        return
    info = {**info, "format": _FORMAT, "schema_version": SCHEMA_VERSION}
    try:
        _atomic_bytes(root / MARKER, orjson.dumps(info, option=orjson.OPT_INDENT_2))
    except OSError as e:
        raise OutputError(f"{root}: cannot update {MARKER} ({e.strerror})") from e


def _atomic_bytes(target: Path, data: bytes) -> None:
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, target)


def _partitions(table: str) -> str:
    """The glob of one table's partition directories (one ``*`` per partition key)."""
    return "/".join([f"table={table}", *(f"{key}=*" for key in PARTITIONS[table])])


def run_files(root: Path, rid: str) -> list[Path]:
    """Every data file of run ``rid``, in any table and partition.

    The globs name each partition level and the file exactly, so they look
    at partition directories only, never list the files of a large dataset.
    """
    return sorted(f for t in TABLES for f in root.glob(f"{_partitions(t)}/part-{rid}.parquet"))


def has_run(root: Path, rid: str) -> bool:
    """Whether run ``rid`` is listed: its ``runs`` file is in place, or a compacted day lists it."""
    if any(root.glob(f"{_partitions('runs')}/part-{rid}.parquet")):
        return True
    compacted = sorted(root.glob(f"{_partitions('runs')}/compact-*.parquet"))
    if not compacted:
        return False
    with reading(root, lambda: compacted):
        ids = read_rows(root, "runs", compacted, ["run_id"])
    return bool(pc.any(pc.equal(ids.column("run_id"), rid)).as_py())


def _remove_leftovers(root: Path, run: Run) -> None:
    """Temporary files of this run, and of exports that crashed long ago on its day."""
    now = time.time()
    patterns = [f"{_partitions(t)}/.part-{run.run_id}.parquet.*.tmp" for t in TABLES]
    patterns += [
        f"table={t}/"
        + "/".join(f"{k}=*" if k != "date" else f"date={run.date}" for k in PARTITIONS[t])
        + "/.part-*.tmp"
        for t in TABLES
    ]
    for pattern in patterns:
        for tmp in root.glob(pattern):
            if not _TMP.match(tmp.name):
                continue
            with contextlib.suppress(OSError):
                if (
                    tmp.name.startswith(f".part-{run.run_id}.")
                    or now - tmp.stat().st_mtime > _STALE_S
                ):
                    tmp.unlink()


def write_run(
    path: str,
    run: Run,
    tables: dict[str, dict[str, pa.Table]],
    replace: bool = False,
) -> list[Path]:
    """Append one run's tables to the dataset at ``path``; the files written.

    Refused (:class:`OutputError`) when the run is already there, unless
    ``replace``: then the new files take the old ones' place and any old file
    in another partition (an earlier day) is removed after.
    """
    root = open_for_write(path)
    if has_run(root, run.run_id) and not replace:
        raise OutputError(
            f"{path}: run {run.run_id} (the same inputs and tags) is already in the "
            "dataset; give --replace to export it again"
        )
    _remove_leftovers(root, run)
    old = set(run_files(root, run.run_id))
    staged: list[tuple[Path, Path]] = []
    try:
        for table in TABLES:
            for gpu, data in tables.get(table, {}).items():
                target = _partition_dir(root, table, gpu, run.date) / f"part-{run.run_id}.parquet"
                target.parent.mkdir(parents=True, exist_ok=True)
                tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
                # The writer crashes when out of room (see WRITE_ROOM).
                check_room(WRITE_ROOM + data.nbytes, "the Parquet writer")
                pq.write_table(data, tmp, compression="zstd")
                staged.append((tmp, target))
        for tmp, target in staged:
            os.replace(tmp, target)
    except OSError as e:
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise OutputError(f"{path}: cannot write the run ({e.strerror or e})") from e
    written = [target for _, target in staged]
    for stale in old - set(written):
        with contextlib.suppress(OSError):
            stale.unlink()
    return written


def has_files(root: Path, table: str) -> bool:
    """Whether a table has any data file (stops at the first)."""
    return next(iter(root.glob(f"{_partitions(table)}/*.parquet")), None) is not None


def table_files(root: Path, table: str) -> list[Path]:
    """The data files of one table (temporary files excluded)."""
    return sorted((root / f"table={table}").glob("**/*.parquet"))


def read_table(path: str, table: str, columns: Iterable[str] | None = None) -> pa.Table:
    """The rows of one table that count, read with pyarrow alone, partition columns included.

    The same rows as DuckDB's views: a run's ``runs`` row is its newest, and
    its data rows come only from the file that row names.  A damaged file is
    an :class:`InputFormatError` naming it.
    """
    if table not in TABLES:
        raise UsageError(f"no table {table!r} (tables: {', '.join(TABLES)})")
    root = check_dataset(path)
    base = root / f"table={table}"
    if not base.is_dir():
        return pa.table({})
    wanted = list(columns) if columns is not None else None
    if table == "runs":
        with reading(root, lambda: table_files(root, "runs")):
            runs = newest_runs(read_rows(root, "runs"))
        return runs.select(wanted) if wanted is not None else runs
    with reading(root, lambda: table_files(root, "runs")):
        holders = runs_by_file(located(root))
    files = table_files(root, table)
    with reading(root, lambda: files):
        return current_rows(root, table, files, holders, wanted)


def plan_run(
    path: str,
    inputs: Sequence[str],
    tags: dict[str, str],
    replace: bool,
    at: datetime | None = None,
) -> Run:
    """The run ``inputs`` with ``tags`` make, checked against the dataset before any reading.

    Refused when the run is already there (unless ``replace``), or when an
    input is standard input (its bytes cannot be hashed for the run id).
    """
    if any(p == "-" for p in inputs):
        raise UsageError("export reads files, not standard input: the run id hashes each input")
    hashes = tuple(file_sha256(p) for p in inputs)
    rid = run_id(hashes, tags)
    root = Path(path)
    if not replace and root.is_dir() and has_run(root, rid):
        raise OutputError(
            f"{path}: run {rid} (the same inputs and tags) is already in the "
            "dataset; give --replace to export it again"
        )
    when = at or datetime.now(timezone.utc)
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return Run(rid, when, dict(tags), hashes)


def export_analysis(path: str, run: Run, analysis: Analysis, replace: bool = False) -> list[Path]:
    """Append ``analysis`` as ``run`` to the dataset at ``path``; the files written."""
    return write_run(path, run, run_tables(analysis, run), replace=replace)
