"""A damaged dataset file: named, exit 4 (7 when it cannot be opened), never "a bug".

The dataset is three runs of the shipped sample over two days.  Each test
damages a copy of it the way files get damaged (cut short, a block zeroed,
the footer overwritten) and checks that every reader (``history``,
``query``, ``compact``, ``export``'s look at compacted days, the pyarrow
read) names the file, while a query that is simply wrong stays a usage
error (exit 2, "query failed").
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.errors import InputFormatError, InputNotFoundError, UsageError
from ncu_roofline.fleet.compact import auto_compact, compact_dataset
from ncu_roofline.fleet.damage import file_problem, find_damaged, named_file
from ncu_roofline.fleet.dataset import export_analysis, plan_run, read_table
from ncu_roofline.fleet.engine import Dataset
from ncu_roofline.readers import load
from tests.helpers import SAMPLE, run

pytest.importorskip("duckdb")

T0 = datetime(2026, 11, 1, 6, 0, tzinfo=timezone.utc)
TODAY = date(2026, 12, 1)


@pytest.fixture(scope="module")
def analysis() -> Analysis:
    return analyze(load([str(SAMPLE)]))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, analysis: Analysis) -> Path:
    dataset = tmp_path_factory.mktemp("damage") / "ds"
    # Two runs on the first day, one on the second.
    for i, hours in enumerate((0, 6, 24)):
        planned = plan_run(
            str(dataset), [str(SAMPLE)], {"commit": f"c{i}"}, False, T0 + timedelta(hours=hours)
        )
        export_analysis(str(dataset), planned, analysis)
    return dataset


@pytest.fixture
def dataset(built: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "ds"
    shutil.copytree(built, copy)
    return copy


def _file(dataset: Path, table: str, day: str = "2026-11-02") -> Path:
    (found,) = sorted(dataset.glob(f"table={table}/**/date={day}/*.parquet"))
    return found


def _cut(path: Path, size: int = 100) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)


def _zero_block(path: Path) -> None:
    """Zero 2 KiB a quarter into the file: inside a data page, the footer intact."""
    data = bytearray(path.read_bytes())
    at = len(data) // 4
    data[at : at + 2048] = bytes(2048)
    path.write_bytes(bytes(data))


def _zero_footer(path: Path) -> None:
    """Zero the footer's metadata (the magic bytes at the end stay): DuckDB names no file."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - length + 10
    data[start : start + 180] = bytes(180)
    path.write_bytes(bytes(data))


def _damaged(stderr: str, rel: str) -> bool:
    return f"damaged dataset file {rel} (" in stderr and "internal error" not in stderr


# --- the command line ------------------------------------------------------------


def test_a_cut_runs_file_is_named_by_history_query_and_compact(dataset: Path) -> None:
    bad = _file(dataset, "runs")
    _cut(bad)
    rel = str(bad.relative_to(dataset))
    for args in (
        ("history", str(dataset)),
        ("query", str(dataset), "SELECT count(*) FROM runs"),
        ("query", str(dataset), "SELECT count(*) FROM groups"),
        ("compact", str(dataset), "--older-than", "0"),
    ):
        proc = run(*args)
        assert proc.returncode == 4, (args, proc.stderr)
        assert _damaged(proc.stderr, rel), (args, proc.stderr)
        assert "cut short or overwritten" in proc.stderr and "--replace" in proc.stderr


def test_a_zeroed_block_in_launches_is_named_and_a_bad_query_is_still_a_bad_query(
    dataset: Path,
) -> None:
    bad = _file(dataset, "launches")
    _zero_block(bad)
    rel = str(bad.relative_to(dataset))
    proc = run("query", str(dataset), "SELECT * FROM launches")
    assert proc.returncode == 4, proc.stderr
    assert _damaged(proc.stderr, rel)
    # A query that does not read the damaged pages is answered.
    fine = run("query", str(dataset), "SELECT count(*) AS n FROM runs", "--format", "csv")
    assert fine.returncode == 0, fine.stderr
    assert fine.stdout.splitlines() == ['"n"', "3"]
    # A user's mistake names no file: exit 2, as before.
    typo = run("query", str(dataset), "SELECT nope FROM launches")
    assert typo.returncode == 2 and "query failed" in typo.stderr
    assert "damaged" not in typo.stderr


def test_compact_leaves_the_damaged_day_and_compacts_the_others(dataset: Path) -> None:
    bad = _file(dataset, "launches")
    _zero_block(bad)
    before = {p: p.read_bytes() for p in dataset.glob("table=*/**/date=2026-11-02/*.parquet")}
    with pytest.raises(InputFormatError) as caught:
        compact_dataset(str(dataset), older_than=0, today=TODAY)
    message = str(caught.value)
    assert f"damaged dataset file {bad.relative_to(dataset)} (" in message
    assert "2026-11-02 is left as it was, 1 other days compacted" in message
    assert caught.value.exit_code == 4
    # The damaged day: the same files, byte for byte, and nothing hidden left.
    after = {p: p.read_bytes() for p in dataset.glob("table=*/**/date=2026-11-02/*.parquet")}
    assert after == before
    assert not list(dataset.rglob("*.tmp"))
    # The other day: one compacted file per table and GPU.
    first_day = sorted(p.name for p in dataset.glob("table=*/**/date=2026-11-01/*.parquet"))
    assert len(first_day) == 4 and all(n.startswith("compact-") for n in first_day)


def test_export_appends_beside_a_damaged_part_and_refuses_when_it_cannot_tell(
    dataset: Path, built: Path, tmp_path: Path
) -> None:
    # A new run does not read the other runs' files: it is written.
    _cut(_file(dataset, "groups"))
    proc = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=new", "--no-compact")
    assert proc.returncode == 0, proc.stderr
    assert len(list(dataset.glob("table=runs/date=*/part-*.parquet"))) == 4
    # A compacted day is read to tell whether the run is already there: when
    # its runs file is damaged, export cannot tell, and says which file.
    compacted_ds = tmp_path / "compacted"
    shutil.copytree(built, compacted_ds)
    compact_dataset(str(compacted_ds), older_than=0, today=TODAY)
    (compacted,) = compacted_ds.glob("table=runs/date=2026-11-02/compact-*.parquet")
    _cut(compacted)
    again = run("export", str(SAMPLE), "--to", str(compacted_ds), "--tag", "commit=other")
    assert again.returncode == 4, again.stderr
    assert _damaged(again.stderr, str(compacted.relative_to(compacted_ds)))


def test_auto_compaction_meeting_a_damaged_file_is_an_input_error(dataset: Path) -> None:
    # export catches this error and says "compaction skipped: ...", exit 0.
    _cut(_file(dataset, "runs"))
    with pytest.raises(InputFormatError, match="damaged dataset file"):
        auto_compact(str(dataset), parts=1, today=TODAY)


# --- the readers -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "damage"),
    [("runs", _cut), ("groups", _zero_footer), ("launches", _zero_block)],
    ids=["cut-runs", "zeroed-footer", "zeroed-page"],
)
def test_duckdb_and_pyarrow_name_the_same_file(
    dataset: Path, table: str, damage: Callable[[Path], None]
) -> None:
    bad = _file(dataset, table)
    damage(bad)
    rel = str(bad.relative_to(dataset))
    with Dataset(str(dataset)) as ds, pytest.raises(InputFormatError) as duck:
        ds.sql(f"SELECT * FROM {table}")
    with pytest.raises(InputFormatError) as plain:
        read_table(str(dataset), table)
    for caught in (duck, plain):
        assert f"damaged dataset file {rel} (" in str(caught.value)


def test_a_damaged_footer_is_found_though_duckdb_names_no_file(dataset: Path) -> None:
    import duckdb

    bad = _file(dataset, "groups")
    _zero_footer(bad)
    with pytest.raises(duckdb.Error) as raw:
        duckdb.sql(f"SELECT * FROM read_parquet('{bad}')").fetchall()
    assert str(bad) not in str(raw.value)  # why the dataset is scanned
    with Dataset(str(dataset)) as ds, pytest.raises(InputFormatError, match="damaged"):
        ds.sql("SELECT count(*) FROM groups")


def test_file_problem_tells_damaged_from_unreachable(dataset: Path) -> None:
    good = sorted(dataset.glob("table=runs/date=2026-11-01/*.parquet"))[0]
    assert file_problem(dataset, good) is None
    empty = dataset / "table=runs" / "date=2026-11-01" / "part-0000000000000000.parquet"
    empty.write_bytes(b"")
    assert file_problem(dataset, empty) == "the file is empty"
    block = _file(dataset, "launches")
    _zero_block(block)
    assert file_problem(dataset, block, deep=False) is None  # the footer is sound
    assert file_problem(dataset, block) is not None
    assert find_damaged(dataset, [good, block]) == (block, file_problem(dataset, block))
    # Not damaged, only out of reach: exit 7.
    folder = dataset / "table=runs" / "date=2026-11-01" / "part-1111111111111111.parquet"
    folder.mkdir()
    with pytest.raises(InputNotFoundError, match="cannot read dataset file") as unreadable:
        file_problem(dataset, folder)
    assert unreadable.value.exit_code == 7
    with pytest.raises(InputNotFoundError, match="is gone"):
        file_problem(dataset, dataset / "table=runs" / "missing.parquet")


def test_named_file_takes_only_a_file_inside_the_dataset(dataset: Path) -> None:
    inside = dataset / "table=runs" / "date=2026-11-01" / "part-x.parquet"
    assert named_file(dataset, f"No magic bytes found at end of file '{inside}'") == inside
    assert named_file(dataset, f'Failed to read file "{inside}": ZSTD') == inside
    glob = f"read_parquet('{dataset}/table=runs/**/*.parquet', hive_partitioning = true)"
    assert named_file(dataset, glob) is None
    outside = dataset.parent / "ds2" / "x.parquet"
    assert named_file(dataset, f"cannot open '{outside}'") is None
    escaping = f"'{dataset}/../elsewhere/x.parquet'"
    assert named_file(dataset, escaping) is None


def test_a_query_the_engine_refuses_names_no_file(dataset: Path) -> None:
    with Dataset(str(dataset)) as ds:
        for bad in ("SELECT nope FROM groups", "SELECT CAST(kernel AS INTEGER) FROM groups"):
            with pytest.raises(UsageError, match="query failed"):
                ds.sql(bad)
        # Still answering after a refused query.
        assert ds.sql("SELECT count(*) AS n FROM runs").column("n").to_pylist() == [3]
