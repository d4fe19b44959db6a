"""Several inputs read at once: the same profile as one after the other, in input order."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from ncu_roofline.errors import InputNotFoundError, UsageError
from ncu_roofline.readers import load, parallel
from ncu_roofline.readers.parallel import auto_jobs, parallel_safe, read_all
from tests.helpers import run

#: Real exports of different layouts (details, raw, ragged, thousands separators).
CSV_SAMPLES = (
    "wangzy0327__cuda-roofline__src_output.csv",
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_b128_ctx2k_p64.ncu.csv",
    "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv",
    "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv",
    "wangzy0327__cuda-roofline__src_output_A100.csv",
    "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv",
)


def _paths(samples_dir: Path) -> list[str]:
    return [str(samples_dir / name) for name in CSV_SAMPLES]


def test_parallel_load_equals_serial_load(samples_dir: Path) -> None:
    paths = _paths(samples_dir)
    serial = load(paths, progress=False, jobs=1)
    together = load(paths, progress=False, jobs=4)
    pd.testing.assert_frame_equal(serial.launches, together.launches)
    assert [i.path for i in together.sources] == paths
    assert [i.warnings for i in together.sources] == [i.warnings for i in serial.sources]
    assert [i.launches for i in together.sources] == [i.launches for i in serial.sources]
    # Each input's launches are its own, in input order.
    firsts = together.launches.groupby("source", sort=False).size()
    assert list(firsts.index) == list(dict.fromkeys(together.launches["source"]))
    assert len(firsts) == len(paths)


def test_the_first_failure_in_input_order_is_raised(samples_dir: Path, tmp_path: Path) -> None:
    paths = _paths(samples_dir)
    missing = [str(tmp_path / "gone-a.csv"), str(tmp_path / "gone-b.csv")]
    with pytest.raises(InputNotFoundError, match=r"gone-a\.csv"):
        load([paths[0], missing[0], paths[1], missing[1]], progress=False, jobs=3)


def test_read_all_keeps_order_while_later_inputs_finish_first(tmp_path: Path) -> None:
    files = []
    for i in range(5):
        f = tmp_path / f"in{i}.csv"
        f.write_text("x")
        files.append(str(f))
    finished: list[int] = []

    def read(path: str) -> int:
        i = int(Path(path).stem[2:])
        # The first inputs take longest, so later ones finish first.
        time.sleep(0.05 * (4 - i))
        finished.append(i)
        return i * 10

    assert read_all(files, read, jobs=5) == [0, 10, 20, 30, 40]
    assert finished != sorted(finished)


def test_a_failure_does_not_wait_for_a_read_that_never_ends(tmp_path: Path) -> None:
    release = threading.Event()
    slow, bad = tmp_path / "slow.csv", tmp_path / "bad.csv"
    slow.write_text("x")
    bad.write_text("x")

    def read(path: str) -> str:
        if path == str(slow):
            release.wait(30)
            return "late"
        raise ValueError(f"cannot read {Path(path).name}")

    start = time.monotonic()
    with pytest.raises(ValueError, match=r"bad\.csv"):
        read_all([str(bad), str(slow)], read, jobs=2)
    waited = time.monotonic() - start
    release.set()
    assert waited < 20  # the slow read runs on in a daemon thread
    workers = [t for t in threading.enumerate() if t.name == "ncu-roofline-read"]
    assert all(t.daemon for t in workers)


def test_stdin_and_ncu_rep_are_read_by_the_caller(tmp_path: Path, samples_dir: Path) -> None:
    rep = next(samples_dir.glob("*.ncu-rep"))
    csv = tmp_path / "a.csv"
    csv.write_text("x")
    assert not parallel_safe("-")
    assert not parallel_safe(str(rep))
    assert not parallel_safe(str(tmp_path))
    assert parallel_safe(str(csv))
    callers: dict[str, str] = {}

    def read(path: str) -> str:
        callers[path] = threading.current_thread().name
        return path

    order = [str(csv), "-", str(rep), str(csv)]
    assert read_all(order, read, jobs=2) == order
    assert callers["-"] == threading.main_thread().name
    assert callers[str(rep)] == threading.main_thread().name


def test_auto_jobs_counts_cores_inputs_and_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = []
    for i in range(6):
        f = tmp_path / f"in{i}.csv"
        f.write_bytes(b"x" * 1000)
        files.append(str(f))
    monkeypatch.delenv(parallel.JOBS_VARIABLE, raising=False)
    monkeypatch.setattr(parallel, "_cpus", lambda: 8)
    monkeypatch.setattr(parallel, "_available_memory", lambda: 10**9)
    assert auto_jobs(files) == parallel.MAX_JOBS
    assert auto_jobs(files[:3]) == 3
    assert auto_jobs(files[:1]) == 1
    assert auto_jobs(["-", files[0]]) == 1
    monkeypatch.setattr(parallel, "_cpus", lambda: 2)
    assert auto_jobs(files) == 2
    # Two inputs together would take more than half of what is available.
    monkeypatch.setattr(parallel, "_available_memory", lambda: 3000)
    assert auto_jobs(files) == 1
    monkeypatch.setattr(parallel, "_available_memory", lambda: None)
    assert auto_jobs(files) == 2


def test_the_environment_variable_decides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = []
    for i in range(3):
        f = tmp_path / f"in{i}.csv"
        f.write_text("x")
        files.append(str(f))
    monkeypatch.setattr(parallel, "_cpus", lambda: 1)
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "2")
    assert auto_jobs(files) == 2
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "9")
    assert auto_jobs(files) == 3
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(parallel.JOBS_VARIABLE, bad)
        with pytest.raises(UsageError, match=parallel.JOBS_VARIABLE):
            auto_jobs(files)


def test_cli_reads_in_parallel_and_refuses_a_bad_variable(
    samples_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _paths(samples_dir)[:3]
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "1")
    serial = run("inspect", *paths, "--json")
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "3")
    together = run("inspect", *paths, "--json")
    assert serial.returncode == together.returncode == 0, together.stderr
    assert together.stdout == serial.stdout
    assert together.stderr == serial.stderr
    monkeypatch.setenv(parallel.JOBS_VARIABLE, "lots")
    bad = run("inspect", *paths)
    assert bad.returncode == 2
    assert "NCU_ROOFLINE_JOBS='lots'" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_parallel_reads_keep_the_interpreter_hook_and_repair_each_input(
    samples_dir: Path, tmp_path: Path
) -> None:
    # A stray non-UTF-8 line inside each table: pyarrow reports it through
    # sys.unraisablehook, which each parse replaces for its duration.
    lines = (samples_dir / "Lakoc__Nbody_CUDA__profile_1.out").read_bytes().splitlines(True)
    paths = []
    for i in range(4):
        data = b"".join(lines[:30]) + f"warning: caf\xe9 {i}\n".encode("latin-1")
        path = tmp_path / f"stray{i}.csv"
        path.write_bytes(data + b"".join(lines[30:]))
        paths.append(str(path))
    paths.insert(2, str(samples_dir / CSV_SAMPLES[0]))
    hook = sys.unraisablehook
    for _ in range(3):
        together = load(paths, progress=False, jobs=4)
        assert sys.unraisablehook is hook
    serial = load(paths, progress=False, jobs=1)
    pd.testing.assert_frame_equal(serial.launches, together.launches)
    for info in (together.sources[i] for i in (0, 1, 3, 4)):
        assert any("not UTF-8" in w for w in info.warnings), info.warnings
    assert [i.warnings for i in together.sources] == [i.warnings for i in serial.sources]
