"""The run dataset: export, history's change points, query, atomic writes, schema.

The history dataset is built from a real export (the A100 CUTLASS GEMM
profile of wangzy0327/cuda-roofline) over 30 synthetic runs tagged
``commit=c00 .. c29``: every launch's cycle count gets its own +-1% noise
per run, and from run ``c18`` on ``Kernel<Gemm>`` takes 20% more cycles.
History must find that step, at ``c18``, and nothing else.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.parquet as pq
import pytest

from ncu_roofline.analysis import analyze
from ncu_roofline.core.columns import COLUMNS, KERNEL_FIELDS, LAUNCH_FIELDS, THEORY_FIELDS
from ncu_roofline.fleet.dataset import (
    MARKER,
    export_analysis,
    plan_run,
    read_table,
    run_files,
    table_files,
)
from ncu_roofline.fleet.engine import Dataset
from ncu_roofline.fleet.history import HistoryQuery, build_history, history_sql
from ncu_roofline.fleet.schema import JSON_FIELDS, RECORD_FIELDS, field_type, table_schema
from ncu_roofline.readers import load
from ncu_roofline.report.context import build_context
from ncu_roofline.report.schema import (
    ChangeRuleRecord,
    GroupChange,
    HistoryContext,
    HistoryQueryRecord,
)
from tests.helpers import REPO, SAMPLE, SAMPLES, run

pytest.importorskip("duckdb")

GEMM_SAMPLE = "wangzy0327__cuda-roofline__src_output_A100.csv"
RUNS = 30
STEP_RUN = 18
STEP = 1.20
NOISE = 0.01
T0 = datetime(2026, 11, 1, 12, 0, tzinfo=timezone.utc)


def _scaled_export(
    src: Path, dst: Path, factors: dict[str, float], rng: np.random.Generator
) -> None:
    """``src`` with each launch's ``sm__cycles_elapsed.avg`` times noise (and its kernel's factor)."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    head = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    rows = list(csv.reader(lines[head:]))
    header = rows[0]
    name, metric, value = (header.index(c) for c in ("Kernel Name", "Metric Name", "Metric Value"))
    for row in rows[1:]:
        if row[metric] == "sm__cycles_elapsed.avg":
            factor = next((f for k, f in factors.items() if k in row[name]), 1.0)
            cycles = float(row[value].replace(",", "")) * factor * (1 + rng.uniform(-NOISE, NOISE))
            row[value] = f"{cycles:,.2f}"
    with dst.open("w", encoding="utf-8", newline="") as f:
        f.writelines(lines[:head])
        csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)


@pytest.fixture(scope="module")
def history_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    samples_dir = SAMPLES
    work = tmp_path_factory.mktemp("fleet")
    dataset = work / "dataset"
    rng = np.random.default_rng(17)
    for i in range(RUNS):
        export = work / f"run{i:02d}.csv"
        factors = {"cutlass::Kernel<": STEP} if i >= STEP_RUN else {}
        _scaled_export(samples_dir / GEMM_SAMPLE, export, factors, rng)
        tags = {"commit": f"c{i:02d}", "branch": "main", "seq": str(i)}
        planned = plan_run(str(dataset), [str(export)], tags, False, T0 + timedelta(hours=6 * i))
        export_analysis(str(dataset), planned, analyze(load([str(export)])))
    return dataset


# -- schema -------------------------------------------------------------------------


def test_every_record_field_has_its_registry_type() -> None:
    expected = {"int": pa.int64(), "str": pa.string(), "float": pa.float64()}
    for c in COLUMNS:
        if c.dtype is not None and ("launch" in c.outputs or "kernel" in c.outputs):
            assert field_type(c.name) == expected[c.dtype], c.name
    for name in (*LAUNCH_FIELDS, *KERNEL_FIELDS, *THEORY_FIELDS):
        assert name in RECORD_FIELDS["launches"] or name in RECORD_FIELDS["groups"]


def test_tables_hold_the_json_report_values(samples_dir: Path, tmp_path: Path) -> None:
    """Each launch and group row equals its JSON record, field by field (None as null)."""
    for sample in (samples_dir / GEMM_SAMPLE, SAMPLE):
        analysis = analyze(load([str(sample)]))
        context = build_context(analysis)
        dataset = tmp_path / sample.stem
        planned = plan_run(str(dataset), [str(sample)], {"commit": "x"}, False)
        export_analysis(str(dataset), planned, analysis)
        for table, records in (("launches", context["launches"]), ("groups", context["kernels"])):
            rows = read_table(str(dataset), table).to_pylist()
            assert len(rows) == len(records) > 0
            key = "id" if table == "launches" else "rank"
            by_key = {r[key]: r for r in rows}
            for record in records:
                row = by_key[record[key]]
                for field, value in record.items():
                    got = row[field]
                    if field in JSON_FIELDS and got is not None:
                        # Lists of records (ncu's rule results) are stored as JSON text.
                        got = json.loads(got)
                    if isinstance(value, float):
                        assert got == pytest.approx(value, rel=1e-12), (table, field)
                    else:
                        assert got == value, (table, field)
                assert row["run_id"] == planned.run_id and dict(row["tags"]) == {"commit": "x"}


def test_files_have_the_fixed_schema_and_hive_layout(history_dataset: Path) -> None:
    for table in ("launches", "groups", "findings", "runs"):
        files = table_files(history_dataset, table)
        assert files, table
        for f in files[:3]:
            assert pq.read_schema(f).remove_metadata() == table_schema(table).remove_metadata()
            parts = f.relative_to(history_dataset).parts
            assert parts[0] == f"table={table}"
            assert parts[-2].startswith("date=2026-1")
            if table != "runs":
                assert parts[1] == "gpu=a100_40gb_pcie", parts
    assert json.loads((history_dataset / MARKER).read_text())["schema_version"] == "2"


# -- history ------------------------------------------------------------------------


def test_history_finds_the_step_at_its_run_and_nowhere_else(history_dataset: Path) -> None:
    with Dataset(str(history_dataset)) as ds:
        h = build_history(ds, HistoryQuery(top=0))
    assert h["runs"] == RUNS
    assert h["series"] == 4
    assert len(h["changes"]) == 1, h["changes"]
    change = h["changes"][0]
    assert list(change) == list(GroupChange.__annotations__)  # the typed record's keys
    assert list(h["query"]) == list(HistoryQueryRecord.__annotations__)
    assert list(h["rule"]) == list(ChangeRuleRecord.__annotations__)
    assert list(h) == list(HistoryContext.__annotations__)
    assert change["kernel_short"] == "Kernel<Gemm>"
    assert change["label"] == f"c{STEP_RUN:02d}" and change["run"] == STEP_RUN + 1
    assert change["direction"] == "up" and change["regression"] is True
    assert change["step"] == pytest.approx(STEP - 1, abs=0.02)
    # The group with the regression ranks first; every group has all runs.
    assert h["groups"][0]["kernel_short"] == "Kernel<Gemm>"
    assert [g["runs"] for g in h["groups"]] == [RUNS] * 4


def test_history_values_are_the_runs_own_by_hand(history_dataset: Path) -> None:
    """Time per launch of a run = the group's summed time over its launches, from the file."""
    with Dataset(str(history_dataset)) as ds:
        h = build_history(ds, HistoryQuery(kernel="Kernel<Gemm>"))
    (g,) = h["groups"]
    groups = read_table(str(history_dataset), "groups").to_pylist()
    for point in g["points"][::7]:
        rows = [
            r
            for r in groups
            if r["run_id"] == point["run_id"] and r["kernel_short"] == "Kernel<Gemm>"
        ]
        total = sum(r["total_duration_s"] for r in rows)
        assert point["duration_s"] == pytest.approx(total / sum(r["launches"] for r in rows))
        assert point["label"] == dict(rows[0]["tags"])["commit"]


def test_history_filters_by_tag_time_and_orders_by_tag(history_dataset: Path) -> None:
    with Dataset(str(history_dataset)) as ds:
        one = build_history(ds, HistoryQuery(tags=(("commit", "c03"),)))
        since = build_history(ds, HistoryQuery(since=T0 + timedelta(hours=6 * 20)))
        by_seq = build_history(ds, HistoryQuery(kernel="Gemm", order_by="seq"))
    assert one["runs"] == 1 and all(g["runs"] == 1 for g in one["groups"])
    assert since["runs"] == RUNS - 20 and not since["changes"]
    # Numeric tag order (2 before 10), not text order.
    assert [p["order"] for p in by_seq["groups"][0]["points"]][:12] == [str(i) for i in range(12)]


def test_duckdb_and_pyarrow_read_the_same_rows(history_dataset: Path) -> None:
    cols = ["run_id", "kernel", "grid", "block", "launches", "total_duration_s", "efficiency"]
    plain = pads.dataset(
        str(history_dataset / "table=groups"), format="parquet", partitioning="hive"
    ).to_table(columns=cols)
    with Dataset(str(history_dataset)) as ds:
        duck = ds.sql(f"SELECT {', '.join(cols)} FROM groups")
    key = [(c, "ascending") for c in cols[:4]]
    assert duck.sort_by(key).to_pylist() == plain.sort_by(key).to_pylist()
    assert duck.num_rows == RUNS * 4


def test_printed_sql_is_the_query_history_runs(history_dataset: Path) -> None:
    q = HistoryQuery(kernel="Gemm", tags=(("branch", "main"),))
    proc = run("history", str(history_dataset), "--kernel", "Gemm", "--tag", "branch=main", "--sql")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().rstrip(";") == history_sql(q)
    spark = run("history", str(history_dataset), "--kernel", "a'b", "--sql", "--dialect", "spark")
    trino = run(
        "history", str(history_dataset), "--tag", "commit=c1", "--sql", "--dialect", "trino"
    )
    assert "kernel RLIKE 'a\\'b'" in spark.stdout
    assert "element_at(tags, 'commit') = 'c1'" in trino.stdout


def test_history_cli_writes_markdown_json_and_html(history_dataset: Path, tmp_path: Path) -> None:
    md = run("history", str(history_dataset))
    assert md.returncode == 0, md.stderr
    assert "1 change point " in md.stdout and "**regression**" in md.stdout
    assert "| 1 | `Kernel<Gemm>` | c18 |" in md.stdout
    out = tmp_path / "h.json"
    js = run("history", str(history_dataset), "-o", str(out))
    assert js.returncode == 0, js.stderr
    doc = json.loads(out.read_text())
    assert doc["kind"] == "history" and doc["changes"][0]["label"] == "c18"
    again = run("history", str(history_dataset), "-o", str(out))
    assert again.returncode == 5
    page = tmp_path / "h.html"
    html = run("history", str(history_dataset), "-o", str(page), "--plotly-js", "cdn")
    assert html.returncode == 0, html.stderr
    text = page.read_text()
    assert 'id="history-duration"' in text and "Kernel&lt;Gemm&gt;" in text


# -- export -------------------------------------------------------------------------


def test_the_same_run_twice_is_refused_unless_replaced(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    first = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=a")
    assert first.returncode == 0, first.stderr
    files = sorted(p for p in dataset.rglob("*.parquet"))
    again = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=a")
    assert again.returncode == 5 and "--replace" in again.stderr
    replaced = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=a", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert sorted(p for p in dataset.rglob("*.parquet")) == files
    other = run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=b")
    assert other.returncode == 0
    assert read_table(str(dataset), "runs").num_rows == 2


def test_replace_at_another_time_leaves_one_copy(tmp_path: Path) -> None:
    dataset = str(tmp_path / "ds")
    analysis = analyze(load([str(SAMPLE)]))
    for day in (T0, T0 + timedelta(days=3)):
        planned = plan_run(dataset, [str(SAMPLE)], {"commit": "a"}, True, day)
        export_analysis(dataset, planned, analysis, replace=True)
    files = run_files(Path(dataset), planned.run_id)
    assert len(files) == 4 and all("date=2026-11-04" in str(f) for f in files)


_KILL = """
import os, signal, sys
import pyarrow.parquet as pq
from ncu_roofline.cli import main
real = pq.write_table
calls = []
def write_table(table, where, **kw):
    calls.append(where)
    real(table, where, **kw)
    if len(calls) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
pq.write_table = write_table
main(sys.argv[1:])
"""


def test_a_killed_export_leaves_the_earlier_runs_readable(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    assert run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=a").returncode == 0
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _KILL,
            "export",
            str(SAMPLE),
            "--to",
            str(dataset),
            "--tag",
            "commit=b",
        ],
        cwd=REPO,
        capture_output=True,
        timeout=180,
        check=False,
    )
    assert proc.returncode == -9
    hidden = [p for p in dataset.rglob(".part-*.tmp")]
    assert len(hidden) == 2  # what it had written, under names no reader takes
    with Dataset(str(dataset)) as ds:
        assert ds.sql("SELECT tags['commit'] AS c FROM runs").column("c").to_pylist() == ["a"]
        groups = ds.sql("SELECT DISTINCT tags['commit'] AS c FROM groups")
        assert groups.column("c").to_pylist() == ["a"]
    # Exported again, the run lands whole and its leftovers are gone.
    assert run("export", str(SAMPLE), "--to", str(dataset), "--tag", "commit=b").returncode == 0
    assert not list(dataset.rglob(".part-*.tmp"))
    assert read_table(str(dataset), "runs").num_rows == 2


@pytest.mark.parametrize(("option", "value"), [("--noise", "nan"), ("--min-step", "inf")])
def test_history_refuses_a_rule_that_is_not_a_finite_number(
    history_dataset: Path, option: str, value: str
) -> None:
    proc = run("history", str(history_dataset), option, value)
    assert proc.returncode == 2, proc.stderr
    assert "not a finite number" in proc.stderr and "internal error" not in proc.stderr


def test_export_refuses_stdin_and_a_foreign_directory(tmp_path: Path) -> None:
    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "a.txt").write_text("x")
    proc = run("export", str(SAMPLE), "--to", str(foreign))
    assert proc.returncode == 5 and "not an ncu-roofline dataset" in proc.stderr
    stdin = run("export", "-", "--to", str(tmp_path / "d"), stdin=SAMPLE.read_bytes())
    assert stdin.returncode == 2 and "standard input" in stdin.stderr
    bad = run("export", str(SAMPLE), "--to", str(tmp_path / "d"), "--tag", "novalue")
    assert bad.returncode == 2 and "key=value" in bad.stderr


# -- schema versions ----------------------------------------------------------------


def _older_file(dataset: Path) -> None:
    """Rewrite one groups file as an older version would have: without two columns."""
    f = table_files(dataset, "groups")[0]
    table = pq.read_table(f).drop_columns(["family", "confidence"])
    pq.write_table(table, f)


def test_older_files_still_read(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    analysis = analyze(load([str(SAMPLE)]))
    for commit in ("a", "b"):
        planned = plan_run(str(dataset), [str(SAMPLE)], {"commit": commit}, False)
        export_analysis(str(dataset), planned, analysis)
    _older_file(dataset)
    with Dataset(str(dataset)) as ds:
        rows = ds.sql("SELECT count(*) AS n, count(family) AS f FROM groups").to_pylist()
        h = build_history(ds, HistoryQuery())
    assert rows == [{"n": 2 * len(analysis.kernels), "f": 0}]
    assert h["runs"] == 2


def test_a_newer_dataset_is_refused(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    assert run("export", str(SAMPLE), "--to", str(dataset)).returncode == 0
    (dataset / MARKER).write_text('{"format": "ncu-roofline dataset", "schema_version": "99"}')
    proc = run("query", str(dataset), "SELECT 1")
    assert proc.returncode == 4 and "upgrade" in proc.stderr


# -- query --------------------------------------------------------------------------


def test_query_formats_and_errors(history_dataset: Path) -> None:
    sql = "SELECT tags['commit'] AS commit, launches FROM runs ORDER BY run_time LIMIT 3"
    table = run("query", str(history_dataset), sql)
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[2].split() == ["c00", "11"]
    assert "(3 rows)" in table.stdout
    as_csv = run("query", str(history_dataset), sql, "--format", "csv")
    assert as_csv.stdout.splitlines() == ['"commit","launches"', '"c00",11', '"c01",11', '"c02",11']
    as_json: list[dict[str, Any]] = json.loads(
        run(
            "query", str(history_dataset), "SELECT tags FROM runs LIMIT 1", "--format", "json"
        ).stdout
    )
    assert as_json[0]["tags"]["branch"] == "main"
    bad = run("query", str(history_dataset), "SELECT nope FROM groups")
    assert bad.returncode == 2 and "query failed" in bad.stderr
    missing = run("query", str(history_dataset / "nowhere"), "SELECT 1")
    assert missing.returncode == 7


def test_without_duckdb_the_message_says_how_to_install(tmp_path: Path) -> None:
    dataset = tmp_path / "ds"
    assert run("export", str(SAMPLE), "--to", str(dataset)).returncode == 0
    code = "import sys; sys.modules['duckdb'] = None; from ncu_roofline.cli import main; main(sys.argv[1:])"
    proc = subprocess.run(
        [sys.executable, "-c", code, "query", str(dataset), "SELECT 1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ},
        check=False,
    )
    assert proc.returncode == 6 and "ncu-roofline[fleet]" in proc.stderr
