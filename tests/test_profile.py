"""``ncu-roofline profile -- CMD`` with a stand-in ``ncu`` written by the tests.

The stand-in records the arguments it gets and, as ncu does, writes the
profile to the ``--log-file`` it is given: a real export from
``../shared/ncu-samples/``.  An environment variable makes it fail as ncu
does: the counter-permission error, no kernel profiled, or a program that
exits non-zero after some kernels were profiled.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from ncu_roofline.core.architecture import architecture
from ncu_roofline.core.collect import PROFILE_SECTIONS, profile_metrics
from ncu_roofline.core.metrics import REQUIREMENTS, collect_metrics, ncu_options_for
from tests.helpers import run

EXPORT = "wangzy0327__cuda-roofline__src_output_A100.csv"

_STAND_IN = """
import json, os, shutil, sys
args = sys.argv[1:]
with open(os.environ["FAKE_NCU_ARGS"], "a", encoding="utf-8") as f:
    f.write(json.dumps(args) + "\\n")
mode = os.environ.get("FAKE_NCU_MODE", "ok")
if mode == "perm":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access "
          "NVIDIA GPU Performance Counters on the target device 0.")
    sys.exit(1)
if "--export" in args:
    open(args[args.index("--export") + 1], "wb").write(b"NVR\\0")
    sys.exit(0)
log = args[args.index("--log-file") + 1]
if mode == "none":
    open(log, "w").write("==PROF== Disconnected from process 1\\n==WARNING== No kernels were profiled.\\n")
    sys.exit(0)
shutil.copyfile(os.environ["FAKE_NCU_EXPORT"], log)
sys.exit(3 if mode == "fail" else 0)
"""


@pytest.fixture()
def fake_ncu(tmp_path: Path, samples_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    exe = tmp_path / "ncu"
    exe.write_text(f"#!{sys.executable}\n{_STAND_IN}", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("FAKE_NCU_ARGS", str(tmp_path / "args.jsonl"))
    monkeypatch.setenv("FAKE_NCU_EXPORT", str(samples_dir / EXPORT))
    monkeypatch.setenv("FAKE_NCU_MODE", "ok")  # restored after the test
    return exe


def calls(tmp_path: Path) -> list[list[str]]:
    lines = (tmp_path / "args.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def profile(fake: Path, tmp_path: Path, *args: str, mode: str = "ok") -> Any:
    os.environ["FAKE_NCU_MODE"] = mode  # the fixture's monkeypatch restores it
    return run("profile", "--ncu", str(fake), "--arch", "8.0", *args, cwd=tmp_path)


def test_the_metric_list_is_inspects(fake_ncu: Path) -> None:
    # inspect recommends, for an export lacking everything, exactly the common list.
    options = ncu_options_for(list(REQUIREMENTS))
    assert options[1].split(",") == collect_metrics()
    a100 = profile_metrics("8.0")
    assert a100[: len(collect_metrics())] == collect_metrics()
    assert "sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum" in a100
    assert "sm__ops_path_tensor_src_bf16_dst_fp32_sparsity_off.sum.peak_sustained" in a100
    # Hopper: the datatype aggregates only, never the per-instruction op_* counters.
    h100 = profile_metrics("9.0")
    assert "sm__ops_path_tensor_src_fp8_sparsity_off.sum" in h100
    assert not any("op_hmma" in m or "op_hgmma" in m for m in h100)
    assert profile_metrics("7.0") == collect_metrics()  # Volta has no ops_path counters
    gb20b, gb20x = architecture("12.1"), architecture("12.0")
    assert gb20b is not None and gb20x is not None
    assert set(gb20b.tensor_ops) == set(gb20x.tensor_ops)


def test_roofline_depth_runs_ncu_and_writes_the_report(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "-o", "gemm.html", "--", "./gemm", "4096", "--fast")
    assert proc.returncode == 0, proc.stderr
    (args,) = calls(tmp_path)
    assert args[-3:] == ["./gemm", "4096", "--fast"]
    assert args[args.index("--metrics") + 1].split(",") == profile_metrics("8.0")
    sections = [args[i + 1] for i, a in enumerate(args) if a == "--section"]
    assert sections == list(PROFILE_SECTIONS) and "--set" not in args
    i = args.index("--csv")
    assert args[i : i + 7] == [
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
        "--log-file",
        "gemm.ncu.csv",
    ]
    assert (tmp_path / "gemm.ncu.csv").read_bytes() == Path(
        os.environ["FAKE_NCU_EXPORT"]
    ).read_bytes()
    html = (tmp_path / "gemm.html").read_text(encoding="utf-8")
    assert "InitializeMatrix_kernel" in html
    assert "wrote gemm.html (html) from gemm.ncu.csv: 11 launches" in proc.stderr


def test_full_depth_and_pass_through(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(
        fake_ncu,
        tmp_path,
        "--depth", "full", "--kernel-name", "sgemm", "--kernel-id", "1:7:k:2",
        "--launch-skip", "2", "--launch-count", "5", "--nvtx-include", "step/", "--nvtx-include",
        "fwd/", "--replay-mode", "application", "--clock-control", "none", "-o", "r.html",
        "--", "./app",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (args,) = calls(tmp_path)
    assert args[:3] == ["--set", "full", "--metrics"] and "--section" not in args
    joined = shlex.join(args)
    for piece in (
        "--kernel-name sgemm", "--kernel-id 1:7:k:2", "--launch-skip 2", "--launch-count 5",
        "--nvtx --nvtx-include step/ --nvtx-include fwd/", "--replay-mode application",
        "--clock-control none",
    ):  # fmt: skip
        assert piece in joined, piece


def test_dry_run_prints_the_command_and_runs_nothing(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "--dry-run", "--keep-rep", "-o", "a b.html", "--", "./app")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.splitlines()
    words = shlex.split(first)
    assert words[0] == str(fake_ncu) and words[-1] == "./app"
    assert words[words.index("--export") + 1] == "a b.ncu-rep"
    assert shlex.split(second) == [
        str(fake_ncu), "--import", "a b.ncu-rep", "--csv", "--page", "raw",
        "--print-units", "base", "--log-file", "a b.ncu.csv",
    ]  # fmt: skip
    assert not (tmp_path / "args.jsonl").exists() and not (tmp_path / "a b.html").exists()


def test_keep_rep_exports_then_imports(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "--keep-rep", "-o", "r.html", "--", "./app")
    assert proc.returncode == 0, proc.stderr
    export, imported = calls(tmp_path)
    assert "--export" in export and export[-1] == "./app"
    assert imported[:2] == ["--import", "r.ncu-rep"]
    assert (tmp_path / "r.ncu-rep").is_file() and (tmp_path / "r.html").is_file()


def test_permission_error_says_how_to_fix_it(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "-o", "r.html", "--", "./app", mode="perm")
    assert proc.returncode == 9, proc.stderr
    assert "ERR_NVGPUCTRPERM" in proc.stderr
    assert "NVreg_RestrictProfilingToAdminUsers=0" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_no_kernels_says_which_filters_to_check(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "-o", "r.html", "--", "./app", mode="none")
    assert proc.returncode == 9, proc.stderr
    assert "profiled no kernel" in proc.stderr and "--launch-skip" in proc.stderr


def test_program_failure_still_reports_what_was_collected(fake_ncu: Path, tmp_path: Path) -> None:
    proc = profile(fake_ncu, tmp_path, "-o", "r.html", "--", "./app", mode="fail")
    assert proc.returncode == 0, proc.stderr
    assert "exited with status 3; reporting what r.ncu.csv holds" in proc.stderr
    assert (tmp_path / "r.html").is_file()


def test_missing_ncu_and_existing_outputs(tmp_path: Path, fake_ncu: Path) -> None:
    proc = run("profile", "--ncu", str(tmp_path / "nope"), "--", "./app", cwd=tmp_path)
    assert proc.returncode == 6, proc.stderr
    (tmp_path / "r.html").write_text("mine", encoding="utf-8")
    proc = profile(fake_ncu, tmp_path, "-o", "r.html", "--", "./app")
    assert proc.returncode == 5
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == "mine"
