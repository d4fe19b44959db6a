"""Memory running out, however a library words it: exit 8 and one line, not exit 1.

Under an address-space limit (``ulimit -v``) memory runs out in many places
besides a MemoryError: an extension module's import ("failed to map segment
from shared object"), a thread's stack (Python: "can't start new thread";
Arrow: "Failed to launch worker thread"), DuckDB ("Out of Memory Error").
The limit at which each happens depends on the machine, so the mapping is
tested with those exact errors, the command line end to end with each
injected where it really happens, and a real limit only where the outcome
does not depend on the machine: one too small for any command to start.
"""

from __future__ import annotations

import errno
import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pytest

import ncu_roofline.core.limits as limits
from ncu_roofline.core.limits import address_space_limited, memory_exhausted
from ncu_roofline.readers.table import arrow_signal_thread
from tests.helpers import REPO, SAMPLE

#: The errors seen under ``prlimit --as`` sweeps of inspect, report, summary and query.
MEMORY_ERRORS: dict[str, BaseException] = {
    "memory-error": MemoryError(),
    "python-thread": RuntimeError("can't start new thread"),
    "arrow-worker": pa.ArrowException(
        "Unknown error: Failed to launch worker thread: Resource temporarily unavailable"
    ),
    "import": ImportError(
        "/venv/lib/python3.11/site-packages/pyarrow/libarrow.so.2600: "
        "failed to map segment from shared object"
    ),
    "enomem": OSError(errno.ENOMEM, "Cannot allocate memory"),
    "arrow-io": OSError("IOError: Cannot allocate memory"),
    "bad-alloc": RuntimeError("std::bad_alloc"),
    "duckdb": RuntimeError(
        "Out of Memory Error: failed to allocate data of size 2.0 MiB (68.0 KiB/1.9 MiB used)"
    ),
}


def _chained(outer: BaseException, cause: BaseException) -> BaseException:
    outer.__cause__ = cause
    return outer


@pytest.mark.parametrize("name", list(MEMORY_ERRORS))
def test_each_wording_of_running_out_is_memory(name: str) -> None:
    error = MEMORY_ERRORS[name]
    assert memory_exhausted(error)
    # Also when a library re-raised it as something else.
    assert memory_exhausted(_chained(ValueError("reading failed"), error))


@pytest.mark.parametrize(
    "error",
    [
        RuntimeError("dictionary changed size during iteration"),
        ImportError("No module named 'duckdb'"),
        OSError(errno.ENOENT, "No such file or directory"),
        ValueError("could not convert string to float: 'n/a'"),
        SystemError("error return without exception set"),
    ],
    ids=["runtime", "import", "oserror", "value", "system-unlimited"],
)
def test_other_errors_are_not_memory(error: BaseException, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "address_space_limited", lambda: False)
    assert not memory_exhausted(error)


def test_a_silent_failure_under_a_limit_is_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    # A C call that failed to allocate and set no exception, during an import.
    error = SystemError("<function _find_and_load> returned NULL without setting an exception")
    monkeypatch.setattr(limits, "address_space_limited", lambda: True)
    assert memory_exhausted(error)
    monkeypatch.setattr(limits, "address_space_limited", lambda: False)
    assert not memory_exhausted(error)


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _python(script: str, limit: int | None = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
        preexec_fn=None if limit is None else (lambda: _limited(limit)),
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_address_space_limited_sees_ulimit_v() -> None:
    if address_space_limited():
        pytest.skip("this test run is itself under an address-space limit")
    script = "from ncu_roofline.core.limits import address_space_limited as f; print(f())"
    assert _python(script) == "False"
    assert _python(script, limit=16 << 30) == "True"


def test_under_a_limit_arrow_starts_no_signal_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bool] = []
    monkeypatch.setattr(pa, "enable_signal_handlers", calls.append)
    assert arrow_signal_thread(limited=False) is True
    assert calls == []  # left as pyarrow has it
    assert arrow_signal_thread(limited=True) is False
    assert calls == [False]


def test_numpy_is_loaded_with_one_blas_thread_and_the_environment_kept() -> None:
    script = textwrap.dedent(
        """
        import os, sys
        from ncu_roofline.cli import _blas_under_limit
        _blas_under_limit()
        print("numpy" in sys.modules, "OPENBLAS_NUM_THREADS" in os.environ)
        """
    )
    # Under a limit numpy is loaded (the variable set for it, then removed:
    # `profile` must not hand it to the profiled program).
    kept = str("OPENBLAS_NUM_THREADS" in os.environ)
    assert _python(script, limit=16 << 30).split() == ["True", kept]


def test_duckdb_that_cannot_load_is_memory_not_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    from ncu_roofline.fleet import engine

    real = builtins.__import__

    def no_room(name: str, *args: object, **kwargs: object) -> object:
        if name == "duckdb":
            raise ImportError("duckdb.so: failed to map segment from shared object")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_room)
    with pytest.raises(MemoryError):
        engine._duckdb()


def test_duckdb_running_out_is_exit_8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("duckdb")
    from ncu_roofline.analysis import analyze
    from ncu_roofline.errors import OutOfMemoryError
    from ncu_roofline.fleet.dataset import export_analysis, plan_run
    from ncu_roofline.fleet.engine import Dataset
    from ncu_roofline.readers import load

    dataset = str(tmp_path / "ds")
    export_analysis(dataset, plan_run(dataset, [str(SAMPLE)], {}, False), analyze(load(SAMPLE)))
    with Dataset(dataset, confined=False) as ds:
        ds.con.execute("SET memory_limit = '2MB'")
        with pytest.raises(OutOfMemoryError, match="out of memory while querying") as caught:
            ds.sql("SELECT count(*) FROM (SELECT DISTINCT range::VARCHAR FROM range(3000000))")
    assert caught.value.exit_code == 8
    # Already when a confined query's statements are parsed (seen under ulimit -v).
    import duckdb

    def exhausted(query: str) -> None:
        raise duckdb.OutOfMemoryException("Out of Memory Error: Allocation failure")

    monkeypatch.setattr(duckdb, "extract_statements", exhausted)
    with Dataset(dataset) as ds, pytest.raises(OutOfMemoryError, match="Allocation failure"):
        ds.sql("SELECT 1")


# --- the command line ------------------------------------------------------------

_INJECT = """
import sys
import ncu_roofline.cli as cli
import ncu_roofline.report.inspect as inspect_report

def exhausted(profile):
    {raise_it}

# The command imports it when it runs: patched where it is defined.
inspect_report.inspect_profile = exhausted
cli.main(["inspect", sys.argv[1]])
"""

_RAISES = {
    "arrow-worker": (
        "import pyarrow as pa; raise pa.ArrowException("
        "'Unknown error: Failed to launch worker thread: Resource temporarily unavailable')"
    ),
    "import": ("raise ImportError('libparquet.so.2600: failed to map segment from shared object')"),
    "python-thread": 'raise RuntimeError("can\'t start new thread")',
}


def _ends_out_of_memory(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 8, proc.stderr
    assert "error: out of memory" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("name", list(_RAISES))
def test_an_injected_failure_is_exit_8(name: str) -> None:
    script = _INJECT.replace("{raise_it}", _RAISES[name])
    proc = subprocess.run(
        [sys.executable, "-c", script, str(SAMPLE)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    _ends_out_of_memory(proc)


def test_a_reader_thread_that_cannot_start_is_exit_8(tmp_path: Path) -> None:
    # Two inputs read at once: the reader threads cannot start, as under a
    # limit with no room for their stacks (CPython's own error).
    second = tmp_path / "second.csv"
    second.write_bytes(SAMPLE.read_bytes())
    script = textwrap.dedent(
        """
        import sys, threading
        from ncu_roofline.cli import main

        def refuse(*args, **kwargs):
            raise RuntimeError("can't start new thread")

        for name in ("_start_new_thread", "_start_joinable_thread"):
            if hasattr(threading, name):
                setattr(threading, name, refuse)
        main(["inspect", *sys.argv[1:]])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(SAMPLE), str(second)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
        env={**os.environ, "NCU_ROOFLINE_JOBS": "2"},
    )
    _ends_out_of_memory(proc)


@pytest.mark.parametrize("command", ["inspect", "summary", "report"])
def test_a_limit_too_small_to_start_is_exit_8(command: str, tmp_path: Path) -> None:
    # 128 MiB: Python starts, numpy (with pandas and pyarrow after it) cannot
    # load.  Without the room check, numpy's OpenBLAS ended such runs with
    # exit 1 ("Memory allocation still failed") or 130 (its own SIGINT).
    extra = ["-o", str(tmp_path / "r.json")] if command == "report" else []
    proc = subprocess.run(
        [sys.executable, "-m", "ncu_roofline", command, str(SAMPLE), *extra],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
        preexec_fn=lambda: _limited(128 << 20),
    )
    _ends_out_of_memory(proc)


# --- the dataset under a limit ------------------------------------------------------


def test_under_a_limit_the_dataset_is_read_without_the_scanner_and_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Arrow's dataset scanner waits forever when its threads cannot start
    # (compact hung at several limits), so under a limit each file is read
    # in turn: the same rows, compacted days, filters and older files included.
    from datetime import date, datetime, timedelta, timezone

    import pyarrow.parquet as pq

    from ncu_roofline.analysis import analyze
    from ncu_roofline.fleet import located
    from ncu_roofline.fleet.compact import compact_dataset
    from ncu_roofline.fleet.dataset import export_analysis, plan_run, read_table, table_files
    from ncu_roofline.fleet.schema import TABLES
    from ncu_roofline.readers import load

    dataset = str(tmp_path / "ds")
    analysis = analyze(load(SAMPLE))
    t0 = datetime(2026, 11, 1, 6, 0, tzinfo=timezone.utc)
    for i, hours in enumerate((0, 6, 24)):
        planned = plan_run(
            dataset, [str(SAMPLE)], {"commit": f"c{i}"}, False, t0 + timedelta(hours=hours)
        )
        export_analysis(dataset, planned, analysis)
    compact_dataset(dataset, older_than=0, today=date(2026, 11, 2))  # the first day only
    # c0 again, after compaction: its compacted rows no longer count.
    again = plan_run(dataset, [str(SAMPLE)], {"commit": "c0"}, True, t0 + timedelta(hours=1))
    export_analysis(dataset, again, analysis, replace=True)
    older = next(f for f in table_files(tmp_path / "ds", "groups") if f.name.startswith("part-"))
    pq.write_table(pq.read_table(older).drop_columns(["family", "confidence"]), older)

    def rows(table: pa.Table) -> list[str]:
        return sorted(repr(r) for r in table.to_pylist())

    expected = {t: read_table(dataset, t) for t in TABLES}

    def no_scanner(*args: object, **kwargs: object) -> None:
        raise AssertionError("Arrow's dataset scanner used under a limit")

    monkeypatch.setattr(located, "address_space_limited", lambda: True)
    monkeypatch.setattr(located, "raw_dataset", no_scanner)
    for table in TABLES:
        got = read_table(dataset, table)
        assert got.schema == expected[table].schema, table
        assert got.num_rows == expected[table].num_rows > 0, table
        assert rows(got) == rows(expected[table]), table
