"""Compaction: a day's part files merged into one file per table and GPU partition.

Every export adds a file per table, so a dataset of 10,000 runs is 40,000
small files, and opening them is most of what a query costs.  Compacting a
day writes, in each partition directory of that day, one
``compact-TOKEN.parquet`` holding the rows that count there (sorted by
kernel, so that row-group statistics and compression work), then one
``runs`` file for the day whose rows name that file (``data_file``) with a
newer ``listed_at``, then removes the files it replaced.

Readers count a run's rows only from the file its newest ``runs`` row names
(:mod:`~ncu_roofline.fleet.located`), so at every point of this sequence
each run counts exactly once: before the day's ``runs`` file is renamed into
place the new files are named by no run, after it the old ones are not.  A
killed compaction leaves hidden temporary files (removed by the next one)
or files no run names (merged away, then removed, by the next one).  A run
exported again with ``--replace`` after compaction gets a newer ``runs``
row naming its new part files; the next compaction drops its old rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ncu_roofline.core.limits import check_room
from ncu_roofline.errors import InputFormatError, InputNotFoundError, OutputError
from ncu_roofline.fleet.damage import reading
from ncu_roofline.fleet.dataset import WRITE_ROOM, check_dataset, mark_schema, table_files
from ncu_roofline.fleet.located import (
    current_rows,
    located,
    newest_runs,
    part_name,
    read_rows,
    runs_by_file,
)
from ncu_roofline.fleet.schema import PARTITIONS, TABLES, table_schema

#: Row order of a compacted file: a kernel's rows together, by run time.
#: Launches stay in run order: sorting ten times the rows of ``groups``
#: would be most of a compaction's time, and no shipped query needs it.
SORT_KEYS: dict[str, tuple[str, ...]] = {
    "launches": (),
    "groups": ("kernel", "grid", "block", "run_time"),
    "findings": ("kernel", "run_time"),
    "runs": ("run_time", "run_id"),
}
#: Rows per row group: enough for fast scans, few enough to skip by statistics.
ROW_GROUP = 131_072
#: The lock file of a running compaction (``_``: engines skip it).
LOCK = "_ncu_roofline_compact.lock"
#: A lock older than this is left over from a killed compaction.
_STALE_LOCK_S = 3600.0
#: ``export`` compacts a day before today once its ``runs`` has this many parts.
AUTO_PARTS = 100
_TMP = re.compile(r"^\.compact-[0-9a-f]+\.parquet\.\d+\.tmp$")


@dataclass(frozen=True)
class Compacted:
    """What compacting one day did."""

    day: str
    runs: int
    #: Files removed (the parts and older compacted files replaced).
    removed: int
    #: Files written (one per table and GPU partition of the day).
    written: int


def days_to_compact(root: Path, older_than: int, today: date | None = None) -> list[str]:
    """The days (``YYYY-MM-DD``) listed in ``runs`` at least ``older_than`` days before today."""
    today = today or datetime.now(timezone.utc).date()
    last = (today - timedelta(days=older_than)).isoformat()
    days = sorted(d.name[len("date=") :] for d in (root / "table=runs").glob("date=*"))
    return [d for d in days if d <= last]


def _day_dirs(root: Path, day: str) -> dict[str, list[Path]]:
    """Each table's partition directories of ``day``."""
    out: dict[str, list[Path]] = {}
    for table in TABLES:
        levels = [f"{k}=*" if k != "date" else f"date={day}" for k in PARTITIONS[table]]
        out[table] = sorted(p for p in root.glob("/".join([f"table={table}", *levels])))
    return out


def _sorted(table: pa.Table, name: str) -> pa.Table:
    keys = [(k, "ascending") for k in SORT_KEYS[name] if k in table.column_names]
    if not (table.num_rows and keys):
        return table
    # One chunk first: taking rows from hundreds of small chunks is slower.
    return table.combine_chunks().sort_by(keys)


def _write_hidden(table: pa.Table, target: Path) -> Path:
    # Out of room, Arrow's Parquet writer crashes (see dataset.WRITE_ROOM).
    check_room(WRITE_ROOM + table.nbytes, "the Parquet writer")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    pq.write_table(table, tmp, compression="zstd", row_group_size=ROW_GROUP)
    return tmp


def _remove_leftovers(dirs: list[Path]) -> None:
    """Hidden files of a compaction of this day that was killed (one runs at a time)."""
    for d in dirs:
        for tmp in d.glob(".compact-*.tmp"):
            with contextlib.suppress(OSError):
                if _TMP.match(tmp.name):
                    tmp.unlink()


def _stamp(runs: pa.Table) -> datetime:
    """Now, or just after the newest listing here (a clock behind the last writer's)."""
    now = datetime.now(timezone.utc)
    newest: datetime | None = pc.max(runs.column("listed_at")).as_py() if runs.num_rows else None
    if newest is not None and newest >= now:
        return newest + timedelta(microseconds=1)
    return now


def _restamped(runs: pa.Table) -> pa.ChunkedArray:
    """Each run's listing time for its compacted row: a microsecond after the row it replaces.

    Not "now": an ``export --replace`` listed while the day was being
    compacted is newer than the row compaction started from, and must keep
    winning over the compacted copy.  Rows listed before listing times
    existed (schema 1) get :func:`_stamp`.
    """
    kind = runs.schema.field("listed_at").type
    listed = runs.column("listed_at")
    later = pc.add(listed, pa.scalar(timedelta(microseconds=1), pa.duration(kind.unit)))
    now = pa.scalar(_stamp(runs), kind)
    return pc.if_else(pc.is_null(listed), now, later)


def compact_day(root: Path, day: str, where: pa.Table) -> Compacted | None:
    """Merge ``day``'s files (see the module docstring); None when nothing to do.

    ``where`` is :func:`~ncu_roofline.fleet.located.located` of the dataset.
    """
    dirs = _day_dirs(root, day)
    snapshot = {d: sorted(d.glob("*.parquet")) for ds in dirs.values() for d in ds}
    here = where.filter(pc.equal(where.column("date"), day))
    listed_ids = set(where.column("run_id").to_pylist())
    if here.num_rows == 0:
        # Every run of the day has moved (--replace at another time): what is
        # left counts for no one.
        removed = _remove_replaced(snapshot, "", listed_ids)
        return Compacted(day, 0, removed, 0) if removed else None
    if all(
        len(files) <= 1 and all(f.name.startswith("compact-") for f in files)
        for files in snapshot.values()
    ):
        return None
    _remove_leftovers(list(snapshot))
    ids = pa.array(here.column("run_id").to_pylist(), type=pa.string())
    token = hashlib.sha256(f"{day} {time.time_ns()} {os.getpid()}".encode()).hexdigest()[:16]
    name = f"compact-{token}.parquet"
    holders = runs_by_file(here)
    staged: list[tuple[Path, Path]] = []
    try:
        for table in TABLES[:-1]:
            for d in dirs[table]:
                with reading(root, lambda d=d: snapshot[d]):  # type: ignore[misc]
                    rows = current_rows(root, table, snapshot[d], holders)
                rows = rows.select(table_schema(table).names).cast(table_schema(table))
                staged.append((_write_hidden(_sorted(rows, table), d / name), d / name))
        # Each rename shows a file that no run names yet: nothing counts twice.
        for tmp, target in staged:
            os.replace(tmp, target)
        (runs_dir,) = dirs["runs"]
        with reading(root, lambda: snapshot[runs_dir]):
            listed = read_rows(root, "runs", snapshot[runs_dir])
        listed = newest_runs(listed.filter(pc.is_in(listed.column("run_id"), value_set=ids)))
        runs = listed.select(table_schema("runs").names).cast(table_schema("runs"))
        n = runs.num_rows
        runs = runs.set_column(
            runs.schema.get_field_index("data_file"), "data_file", pa.array([name] * n)
        )
        runs = runs.set_column(
            runs.schema.get_field_index("listed_at"), "listed_at", _restamped(runs)
        )
        tmp = _write_hidden(_sorted(runs, "runs"), runs_dir / name)
        # The switch: from this rename on, the day's runs are read from `name`.
        os.replace(tmp, runs_dir / name)
    except BaseException as e:
        # Whatever stopped it (a damaged file read, a full disk, an
        # interrupt): no hidden file of this attempt stays behind.
        for tmp, _ in staged:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if isinstance(e, OSError):
            raise OutputError(f"{root}: cannot compact {day} ({e.strerror or e})") from e
        raise
    return Compacted(day, n, _remove_replaced(snapshot, name, listed_ids), len(staged) + 1)


def _remove_replaced(snapshot: dict[Path, list[Path]], keep: str, listed: set[str]) -> int:
    """Remove the files a compaction replaced (all but ``keep``); how many."""
    removed = 0
    for files in snapshot.values():
        for f in files:
            # A part of a run not listed yet (an export still writing) stays.
            unlisted = f.name.startswith("part-") and f.name[5:21] not in listed
            if f.name == keep or (unlisted and f.name == part_name(f.name[5:21])):
                continue
            with contextlib.suppress(OSError):
                f.unlink()
                removed += 1
    return removed


def _stale(lock: Path) -> bool:
    """Whether a lock is left by a killed compaction.

    On this host, its process is gone (a compaction running for hours keeps
    its lock); a lock from another host, whose process cannot be asked, is
    stale once it is :data:`_STALE_LOCK_S` old.
    """
    host, _, rest = lock.read_text(encoding="utf-8", errors="replace").strip().partition(" ")
    pid = rest.split(" ", 1)[0]
    if host != socket.gethostname() or not pid.isdigit():
        return time.time() - lock.stat().st_mtime > _STALE_LOCK_S
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


@contextlib.contextmanager
def _locked(root: Path) -> Iterator[bool]:
    """Hold the dataset's compaction lock; yields False when another compaction holds it."""
    lock = root / LOCK
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            with contextlib.suppress(OSError):
                if _stale(lock):
                    lock.unlink()
                    continue
            break
        except OSError as e:
            raise OutputError(f"{root}: cannot create {LOCK} ({e.strerror})") from e
        mine = f"{socket.gethostname()} {os.getpid()} {os.urandom(8).hex()}\n"
        try:
            os.write(fd, mine.encode())
            os.close(fd)
            yield True
        finally:
            # Only our own lock: another compaction may have taken over one it
            # judged stale.
            with contextlib.suppress(OSError):
                if lock.read_text(encoding="utf-8", errors="replace") == mine:
                    lock.unlink()
        return
    yield False


def _compact_days(root: Path, days: list[str]) -> list[Compacted]:
    """Compact ``days``; a day with a damaged file is left as it was, and the others done.

    Then the first such day's error is raised (naming the file), so that one
    damaged file does not hold back every later day until it is dealt with.
    """
    mark_schema(root)
    with reading(root, lambda: table_files(root, "runs")):
        where = located(root)
    done: list[Compacted] = []
    failed: tuple[str, InputFormatError | InputNotFoundError] | None = None
    for day in days:
        try:
            compacted = compact_day(root, day, where)
        except (InputFormatError, InputNotFoundError) as e:
            failed = failed or (day, e)
            continue
        if compacted is not None:
            done.append(compacted)
    if failed is not None:
        day, error = failed
        raise type(error)(
            f"{error}; {day} is left as it was, {len(done)} other days compacted"
        ) from error
    return done


def compact_dataset(path: str, older_than: int = 1, today: date | None = None) -> list[Compacted]:
    """Compact every day of the dataset at ``path`` at least ``older_than`` days old.

    Refused (:class:`OutputError`) while another compaction holds the lock.
    """
    root = check_dataset(path)
    days = days_to_compact(root, older_than, today)
    if not days:
        return []
    with _locked(root) as held:
        if not held:
            raise OutputError(
                f"{path}: another compaction is running ({LOCK}); "
                "if none is, remove that file and try again"
            )
        return _compact_days(root, days)


def auto_compact(path: str, parts: int = AUTO_PARTS, today: date | None = None) -> list[Compacted]:
    """After an export: compact the days before today whose ``runs`` has ``parts`` part files.

    Skipped while another compaction runs.  Today is left to the exports
    still writing it.
    """
    root = check_dataset(path)
    counts: dict[str, int] = {}
    for f in root.glob("table=runs/date=*/part-*.parquet"):
        day = f.parent.name[len("date=") :]
        counts[day] = counts.get(day, 0) + 1
    days = [d for d in days_to_compact(root, 1, today) if counts.get(d, 0) >= parts]
    if not days:
        return []
    with _locked(root) as held:
        return _compact_days(root, days) if held else []
