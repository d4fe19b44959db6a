"""Compaction of a run dataset: the same rows before and after, at every point of it.

The dataset is six runs of the shipped sample (tags ``commit=c0 .. c5``)
over three days, two runs a day.  Compaction must leave each day one file
per table and GPU partition, and every reader (DuckDB's views, the plain
pyarrow read, the SQL ``history --sql`` prints) must see each run's rows
exactly once: after it, after a SIGKILL at any step of it, and after a run
is exported again with ``--replace``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.fleet.compact import LOCK, auto_compact, compact_dataset
from ncu_roofline.fleet.dataset import export_analysis, plan_run, read_table
from ncu_roofline.fleet.engine import Dataset
from ncu_roofline.fleet.history import HistoryQuery, build_history, history_sql
from ncu_roofline.readers import load
from tests.helpers import REPO, SAMPLE, run

pytest.importorskip("duckdb")

T0 = datetime(2026, 11, 1, 6, 0, tzinfo=timezone.utc)
RUNS = 6
TODAY = date(2026, 12, 1)
_COLS = ["run_id", "kernel", "grid", "block", "launches", "total_duration_s", "gpu", "date"]


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return analyze(load([str(SAMPLE)]))


def _export(dataset: Path, analysis: Analysis, i: int, replace: bool = False, days: int = 0) -> str:
    at = T0 + timedelta(hours=12 * i, days=days)
    planned = plan_run(str(dataset), [str(SAMPLE)], {"commit": f"c{i}"}, replace, at)
    export_analysis(str(dataset), planned, analysis, replace=replace)
    return planned.run_id


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, analysis: Analysis) -> Path:
    dataset = tmp_path_factory.mktemp("compact") / "ds"
    for i in range(RUNS):
        _export(dataset, analysis, i)
    return dataset


@pytest.fixture
def dataset(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    return copy


def _rows(dataset: Path, table: str = "groups") -> tuple[Counter[Any], Counter[Any]]:
    """The table's rows (as counted multisets) by DuckDB and by pyarrow."""
    cols = {
        "launches": ["run_id", "id", "kernel", "duration_s", "gpu", "date"],
        "findings": ["run_id", "kernel", "message", "gpu", "date"],
    }.get(table, _COLS)
    with Dataset(str(dataset)) as ds:
        duck = ds.sql(f"SELECT {', '.join(cols)}, CAST(date AS VARCHAR) AS day FROM {table}")
    plain = read_table(str(dataset), table, cols)
    duck_rows = Counter(
        tuple(r[c] if c != "date" else r["day"] for c in cols) for r in duck.to_pylist()
    )
    plain_rows = Counter(tuple(r[c] for c in cols) for r in plain.to_pylist())
    return duck_rows, plain_rows


def _all_rows(dataset: Path) -> dict[str, Counter[Any]]:
    out = {}
    for table in ("launches", "groups", "findings"):
        duck, plain = _rows(dataset, table)
        assert duck == plain, table
        out[table] = duck
    runs = read_table(str(dataset), "runs", ["run_id", "tags"]).to_pylist()
    out["runs"] = Counter((r["run_id"], tuple(r["tags"])) for r in runs)
    with Dataset(str(dataset)) as ds:
        assert ds.sql("SELECT count(*) AS n FROM runs").column("n")[0].as_py() == len(runs)
    return out


def _data_files(dataset: Path) -> dict[Path, list[str]]:
    return {
        d: sorted(f.name for f in d.glob("*.parquet"))
        for d in dataset.glob("table=*/**/date=*")
        if d.is_dir()
    }


def test_compaction_keeps_every_row_once_in_one_file_per_partition(dataset: Path) -> None:
    before = _all_rows(dataset)
    assert sum(before["runs"].values()) == RUNS and before["groups"]
    assert all(len(names) == 2 for names in _data_files(dataset).values())
    done = compact_dataset(str(dataset), older_than=0, today=TODAY)
    assert [d.day for d in done] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert [d.runs for d in done] == [2, 2, 2]
    assert _all_rows(dataset) == before
    files = _data_files(dataset)
    assert all(len(n) == 1 and n[0].startswith("compact-") for n in files.values()), files
    # A kernel's rows together, by run time: what makes statistics and history cheap.
    f = next(p for d, n in files.items() if "table=groups" in str(d) for p in d.glob(n[0]))
    kernels = pq.read_table(f, columns=["kernel"]).column("kernel").to_pylist()
    assert kernels == sorted(kernels)
    assert compact_dataset(str(dataset), older_than=0, today=TODAY) == []


def test_history_and_its_printed_sql_are_unchanged(dataset: Path) -> None:
    q = HistoryQuery(kernel="gemm|flash")

    def history() -> tuple[Any, Any]:
        with Dataset(str(dataset)) as ds:
            context = build_history(ds, q)
            raw = ds.sql(history_sql(q)).to_pylist()
        return context["groups"], raw

    groups, raw = history()
    assert groups and len(raw) > RUNS
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    assert history() == (groups, raw)


def test_older_days_only_by_default(dataset: Path) -> None:
    before = _all_rows(dataset)
    done = compact_dataset(str(dataset), older_than=30, today=date(2026, 12, 2))
    assert [d.day for d in done] == ["2026-11-01", "2026-11-02"]
    proc = run("compact", str(dataset))
    assert proc.returncode == 0, proc.stderr
    assert "1 days, 2 runs" in proc.stderr
    assert _all_rows(dataset) == before


def test_replace_and_export_after_compaction(dataset: Path, analysis: Analysis) -> None:
    before = _all_rows(dataset)
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    again = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=c1")
    assert again.returncode == 5 and "--replace" in again.stderr
    rid = _export(dataset, analysis, 1, replace=True)
    assert _all_rows(dataset) == before
    # Replaced at another day: its rows move there, counted once.
    _export(dataset, analysis, 1, replace=True, days=5)
    moved = _all_rows(dataset)
    assert moved["runs"] == before["runs"]
    days = {r[-1] for r in moved["groups"] if r[0] == rid}
    assert days == {"2026-11-06"}
    assert sum(moved["groups"].values()) == sum(before["groups"].values())
    new = _export(dataset, analysis, 9)
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    after = _all_rows(dataset)
    assert sum(after["runs"].values()) == RUNS + 1 and new in {r[0] for r in after["runs"]}
    assert (
        after["groups"] - Counter({r: n for r, n in after["groups"].items() if r[0] == new})
        == (moved["groups"])
    )
    assert all(len(n) == 1 for n in _data_files(dataset).values())


def test_a_day_whose_runs_all_moved_is_emptied(dataset: Path, analysis: Analysis) -> None:
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    for i in (0, 1):  # the two runs of 2026-11-01, exported again ten days on
        _export(dataset, analysis, i, replace=True, days=10)
    before = _all_rows(dataset)
    done = compact_dataset(str(dataset), older_than=0, today=TODAY)
    first = next(d for d in done if d.day == "2026-11-01")
    assert first.runs == 0 and first.removed == 4  # runs, launches, groups, findings
    assert not list(dataset.glob("table=*/**/date=2026-11-01/*.parquet"))
    assert _all_rows(dataset) == before


def test_older_schema_files_compact(dataset: Path) -> None:
    runs = sorted(dataset.glob("table=runs/date=2026-11-01/*.parquet"))[0]
    pq.write_table(pq.read_table(runs).drop_columns(["data_file", "listed_at"]), runs)
    groups = sorted(dataset.glob("table=groups/*/date=2026-11-01/*.parquet"))[0]
    pq.write_table(pq.read_table(groups).drop_columns(["family", "confidence"]), groups)
    before = _all_rows(dataset)
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    assert _all_rows(dataset) == before
    with Dataset(str(dataset)) as ds:
        fam = ds.sql("SELECT count(*) AS n FROM groups WHERE family IS NULL").column("n")
    assert fam[0].as_py() >= before["groups"].total() // RUNS


def test_export_compacts_full_days_one_compaction_at_a_time(dataset: Path) -> None:
    before = _all_rows(dataset)
    lock = dataset / LOCK
    lock.write_text(f"{socket.gethostname()} {os.getpid()}\n")  # held by a live process
    refused = run("compact", str(dataset), "--older-than", "0")
    assert refused.returncode == 5 and LOCK in refused.stderr
    assert auto_compact(str(dataset), parts=2, today=TODAY) == []
    assert all(len(n) == 2 for n in _data_files(dataset).values())
    # Held by a process that is gone (a killed compaction): taken over.
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    lock.write_text(f"{socket.gethostname()} {gone}\n")
    # Days before today with enough parts; today (2026-11-03) is left to its exports.
    done = auto_compact(str(dataset), parts=2, today=date(2026, 11, 3))
    assert [d.day for d in done] == ["2026-11-01", "2026-11-02"]
    assert not lock.exists()
    assert _all_rows(dataset) == before
    # Another host's lock counts until it is an hour old.
    lock.write_text("elsewhere 1\n")
    assert auto_compact(str(dataset), parts=2, today=TODAY) == []
    old = time.time() - 7200
    os.utime(lock, (old, old))
    assert auto_compact(str(dataset), parts=3, today=TODAY) == []
    assert [d.day for d in auto_compact(str(dataset), parts=2, today=TODAY)] == ["2026-11-03"]
    assert _all_rows(dataset) == before
    # A live compaction on this host keeps its lock however long it runs.
    lock.write_text(f"{socket.gethostname()} {os.getpid()} token\n")
    os.utime(lock, (old, old))
    assert run("compact", str(dataset), "--older-than", "0").returncode == 5
    assert lock.exists()


_KILL = """
import os, signal, sys
from datetime import date
import pyarrow.parquet as pq
from ncu_roofline.fleet import compact
events = []
def hooked(real):
    def call(*args, **kw):
        out = real(*args, **kw)
        events.append(1)
        if len(events) == int(sys.argv[2]):
            os.kill(os.getpid(), signal.SIGKILL)
        return out
    return call
pq.write_table = hooked(pq.write_table)
os.replace = hooked(os.replace)
os.unlink = hooked(os.unlink)
compact.compact_dataset(sys.argv[1], 0, date(2026, 12, 1))
"""


@pytest.mark.parametrize("event", [1, 4, 6, 8, 10, 13, 20])
def test_a_killed_compaction_leaves_every_run_readable_once(dataset: Path, event: int) -> None:
    # Per day: 4 hidden writes, 3 data renames, the runs rename (the switch), 8 removals.
    before = _all_rows(dataset)
    proc = subprocess.run(
        [sys.executable, "-c", _KILL, str(dataset), str(event)],
        cwd=REPO,
        capture_output=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == -9, proc.stderr
    if event in (6, 8):
        # The compacted files and the parts they replace are both there: the
        # runs table says which counts.
        mixed = [n for n in _data_files(dataset).values() if len(n) == 3]
        assert mixed and all(n[0].startswith("compact-") for n in mixed)
    assert _all_rows(dataset) == before
    compact_dataset(str(dataset), older_than=0, today=TODAY)
    assert _all_rows(dataset) == before
    assert all(len(n) == 1 for n in _data_files(dataset).values())
    assert not list(dataset.rglob(".compact-*"))


def test_compacted_listings_stay_older_than_a_replacement_listed_meanwhile() -> None:
    from datetime import datetime, timedelta, timezone

    import pyarrow as pa

    from ncu_roofline.fleet.compact import _restamped

    t0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)
    kind = pa.timestamp("us", tz="UTC")
    runs = pa.table({"listed_at": pa.array([t0, None], type=kind)})
    before = datetime.now(timezone.utc)
    stamped = _restamped(runs).to_pylist()
    # One microsecond after the listing it replaces, so an `export --replace`
    # of that run listed during the compaction (later than t0 + 1 us) still wins.
    assert stamped[0] == t0 + timedelta(microseconds=1)
    # A schema-1 row without a listing time gets the time of the compaction.
    assert stamped[1] >= before
