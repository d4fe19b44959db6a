"""``query`` reads the dataset and nothing else, unless --allow-external-access.

A dataset is often shared and queries get pasted from chat.  Each way out
of the dataset DuckDB offers is tried: writing a file (``COPY``, inside the
dataset too), reading one (``read_text``, ``glob``, a URL), attaching a
database, installing or loading an extension, turning the settings back.
Each must be refused with a message that says how to lift the rule, and
leave no file behind; the queries a dataset is for must still run.  The
refusals are checked twice: by the statement check and by DuckDB's own
locked settings underneath it (``Dataset.con`` used directly).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from ncu_roofline.analysis import analyze
from ncu_roofline.errors import UsageError
from ncu_roofline.fleet.dataset import export_analysis, plan_run
from ncu_roofline.fleet.engine import Dataset
from ncu_roofline.readers import load
from tests.helpers import SAMPLE, run

duckdb = pytest.importorskip("duckdb")

T0 = datetime(2026, 11, 1, 6, 0, tzinfo=timezone.utc)
LIFT = "--allow-external-access"


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("confined") / "ds"
    analysis = analyze(load([str(SAMPLE)]))
    for i in range(2):
        planned = plan_run(str(root), [str(SAMPLE)], {"commit": f"c{i}"}, False, T0)
        export_analysis(str(root), planned, analysis)
    return root


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("not for the query\n")
    return path


def _escapes(dataset: Path, secret: Path, beside: Path, out: Path) -> dict[str, str]:
    """Each way out of the dataset, as a query."""
    return {
        "copy-out": f"COPY (SELECT 1 AS a) TO '{out}'",
        "copy-into-dataset": f"COPY (SELECT 1 AS a) TO '{dataset / 'table=runs' / 'evil.parquet'}'",
        "copy-after-select": f"SELECT 1; COPY (SELECT 1 AS a) TO '{out}'",
        "explain-analyze-copy": f"EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{out}'",
        "explain-options-copy": f"EXPLAIN (ANALYZE, FORMAT json) COPY (SELECT 1) TO '{out}'",
        "read-text": f"SELECT content FROM read_text('{secret}')",
        "read-escaping-dataset": f"SELECT content FROM read_text('{dataset}/../{beside.name}')",
        "glob": f"SELECT * FROM glob('{secret.parent}/*')",
        "url": "SELECT * FROM read_csv('https://example.com/x.csv')",
        "attach": f"ATTACH '{out.with_suffix('.db')}' AS other",
        "install": "INSTALL httpfs",
        "load": "LOAD httpfs",
        "set-access": "SET enable_external_access = true",
        "reset-access": "RESET enable_external_access",
        "unlock": "SET lock_configuration = false",
        "create": "CREATE TABLE t AS SELECT 1",
        "pragma": "PRAGMA enable_profiling",
        "pivot-with-a-type": "PIVOT groups ON gpu USING count(*)",
    }


def test_every_way_out_is_refused(dataset: Path, secret: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    beside = dataset.parent / "beside.txt"
    beside.write_text("not for the query\n")
    with Dataset(str(dataset)) as ds:
        for name, sql in _escapes(dataset, secret, beside, out).items():
            with pytest.raises(UsageError) as caught:
                ds.sql(sql)
            message = str(caught.value)
            assert message.startswith("query refused: "), (name, message)
            assert LIFT in message and "only reads the dataset" in message, name
            assert "not for the query" not in message, name
    assert not out.exists() and not out.with_suffix(".db").exists()
    assert not (dataset / "table=runs" / "evil.parquet").exists()


def test_duckdb_itself_refuses_under_the_statement_check(
    dataset: Path, secret: Path, tmp_path: Path
) -> None:
    # What the settings alone hold, without Dataset.sql's statement check.
    with Dataset(str(dataset)) as ds:
        ds.sql("SELECT count(*) FROM runs")  # the views exist
        for sql in (
            f"SELECT content FROM read_text('{secret}')",
            f"COPY (SELECT 1) TO '{tmp_path / 'out.csv'}'",
            f"ATTACH '{tmp_path / 'x.db'}'",
            "INSTALL httpfs",
        ):
            with pytest.raises(duckdb.PermissionException):
                ds.con.sql(sql)
        for sql in (
            "SET enable_external_access = true",
            "SET allowed_directories = ['/']",
            "SET autoload_known_extensions = true",
            "SET lock_configuration = false",
        ):
            with pytest.raises(duckdb.InvalidInputException, match="locked"):
                ds.con.sql(sql)
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "x.db").exists()


def test_the_queries_a_dataset_is_for_still_run(dataset: Path) -> None:
    answers = {
        "SELECT count(*) AS n FROM runs": 2,
        "SELECT count(DISTINCT run_id) AS n FROM launches": 2,
        "SELECT count(DISTINCT run_id) AS n FROM groups": 2,
        "SELECT count(DISTINCT run_id) AS n FROM findings": 2,
        "SELECT count(DISTINCT run_id) AS n FROM groups_files": 2,
        "SELECT count(*) AS n FROM located": 2,
        "WITH r AS (SELECT * FROM runs) SELECT count(*) AS n FROM r": 2,
        "FROM runs SELECT count(*) AS n": 2,
        "SELECT count(*) AS n FROM (DESCRIBE runs) WHERE column_name = 'run_id'": 1,
        "SELECT count(*) AS n FROM "
        "(PIVOT (SELECT run_id, gpu FROM groups) ON gpu IN ('sm90') USING count(*))": 2,
        # The dataset's own files may be read directly.
        "SELECT count(*) AS n FROM read_parquet('{root}/table=runs/**/*.parquet')": 2,
    }
    with Dataset(str(dataset)) as ds:
        for sql, n in answers.items():
            table = ds.sql(sql.format(root=dataset))
            assert table.column("n").to_pylist() == [n], sql
        assert ds.sql("SUMMARIZE groups").num_rows > 10
        assert ds.sql("EXPLAIN SELECT count(*) FROM launches").num_rows == 1
        assert ds.sql("EXPLAIN ANALYZE SELECT count(*) FROM launches").num_rows == 1
        assert ds.sql("EXPLAIN (FORMAT json) SELECT count(*) FROM runs").num_rows == 1


def test_unconfined_copy_writes(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    with Dataset(str(dataset), confined=False) as ds:
        ds.sql(f"COPY (SELECT tags['commit'] AS c FROM runs ORDER BY 1) TO '{out}'")
    assert out.read_text().splitlines() == ["c", "c0", "c1"]


def test_the_command_line_refuses_and_lifts(dataset: Path, secret: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.csv"
    copy = f"COPY (SELECT count(*) AS n FROM runs) TO '{out}'"
    refused = run("query", str(dataset), copy)
    assert refused.returncode == 2, refused.stderr
    assert (
        "error: query refused: COPY is not a read-only query; by default a query only "
        f"reads the dataset; give {LIFT} to lift this, for a query you trust"
    ) in refused.stderr
    assert not out.exists()
    reading = run("query", str(dataset), f"SELECT * FROM read_text('{secret}')")
    assert reading.returncode == 2, reading.stderr
    assert "query refused: it reaches outside the dataset (Permission Error" in reading.stderr
    assert "not for the query" not in reading.stdout + reading.stderr
    lifted = run("query", str(dataset), copy, LIFT)
    assert lifted.returncode == 0, lifted.stderr
    assert out.read_text().splitlines() == ["n", "2"]
    shown = run("query", "--help")
    assert LIFT in shown.stdout and "only read the dataset" in " ".join(shown.stdout.split())
