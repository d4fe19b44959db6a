"""``ncu-roofline inspect`` run as a user runs it: a subprocess.

Checks the human and JSON output, the documented exit codes for each class
of bad input (3 missing, 4 not a readable export, 2 bad usage), that no user
error ever shows a traceback, and that stdin (``-``) and ``.gz`` inputs work.
"""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import DATA, run

INSPECT_KEYS = {
    "path",
    "layout",
    "launches",
    "kernels",
    "devices",
    "present",
    "missing",
    "ncu_options",
}
REQUIREMENT_KEYS = {
    "duration",
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "peak_compute",
    "peak_dram",
    "sol_pct",
}


def data(name: str) -> str:
    return str(DATA / name)


def inspect_json(*paths: str, stdin: bytes | None = None) -> dict:
    proc = run("inspect", "--json", *paths, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return json.loads(proc.stdout)


# --- successful runs ---------------------------------------------------------


def test_inspect_human_output() -> None:
    proc = run("inspect", data("details_bgdc_rules.csv"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    lines = out.splitlines()
    assert lines[0] == data("details_bgdc_rules.csv")
    assert "layout    details" in out
    assert "launches  2 (1 distinct kernel)" in out
    assert "devices   device 0 CC 8.6" in out
    assert any(line.strip().startswith("present") and "duration" in line for line in lines)
    assert any(line.strip().startswith("missing") for line in lines)
    # Warnings go to stderr, prefixed with the program and the input.
    assert "ncu-roofline: warning:" in proc.stderr
    assert "auto-scaled" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_inspect_human_output_several_inputs() -> None:
    proc = run(
        "inspect",
        data("details_kt_noisy.csv"),
        data("raw_page.csv"),
        data("summary_per_kernel.csv"),
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for name in ("details_kt_noisy.csv", "raw_page.csv", "summary_per_kernel.csv"):
        assert data(name) in out
    assert "layout    raw" in out
    assert "layout    summary" in out
    assert "launches  1,400 (2 distinct kernels)" in out  # 100 + 100 + 1,200 invocations
    assert "NVIDIA A100-SXM4-40GB CC 8.0" in out
    assert "The application returned an error code (1)" in proc.stderr


def test_inspect_json_keys_and_values() -> None:
    names = [
        "details_speedup.csv",
        "raw_page.csv",
        "summary_per_kernel.csv",
        "details_body_label.csv",
    ]
    result = inspect_json(*(data(n) for n in names))
    assert set(result) == {"inputs"}
    items = result["inputs"]
    assert [i["path"] for i in items] == [data(n) for n in names]
    for item in items:
        assert set(item) >= INSPECT_KEYS, set(item)
        assert isinstance(item["launches"], int) and isinstance(item["kernels"], int)
        assert isinstance(item["devices"], list)
        assert set(item["present"]) | set(item["missing"]) == REQUIREMENT_KEYS
        assert not set(item["present"]) & set(item["missing"])
        assert isinstance(item["ncu_options"], list)
        assert all(isinstance(o, str) for o in item["ncu_options"])
        if item["missing"]:
            opts = item["ncu_options"]
            assert opts[0] == "--metrics"
            assert opts[opts.index("--print-units") + 1] == "base"
        else:
            assert item["ncu_options"] == []
    speedup, raw, summary, body = items
    assert (speedup["layout"], speedup["launches"], speedup["kernels"]) == ("details", 2, 2)
    assert speedup["devices"] == ["device 0 CC 9.0"]
    assert {"duration", "dram_bytes"} <= set(speedup["present"])
    assert (raw["layout"], raw["launches"], raw["kernels"]) == ("raw", 2, 2)
    assert raw["devices"] == ["NVIDIA A100-SXM4-40GB CC 8.0"]
    assert {"duration", "dram_bytes", "peak_compute"} <= set(raw["present"])
    # FFMA alone is not an FP32 FLOP count: FADD and FMUL are needed too.
    assert {"flops_fp32", "flops_fp64"} <= set(raw["missing"])
    assert (summary["layout"], summary["launches"], summary["kernels"]) == ("summary", 1400, 2)
    assert (body["layout"], body["launches"]) == ("details", 1)
    assert {"duration", "flops_fp32", "dram_bytes", "peak_compute", "peak_dram"} <= set(
        body["present"]
    )


def test_stdin_dash() -> None:
    content = (DATA / "details_nvtx.csv").read_bytes()
    proc = run("inspect", "-", stdin=content)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == "-"
    assert "launches  3 (2 distinct kernels)" in proc.stdout
    item = inspect_json("-", stdin=content)["inputs"][0]
    assert (item["path"], item["layout"], item["launches"], item["kernels"]) == (
        "-",
        "details",
        3,
        2,
    )


def test_stdin_dash_gzip() -> None:
    content = gzip.compress((DATA / "details_bom_crlf.csv").read_bytes())
    item = inspect_json("-", stdin=content)["inputs"][0]
    assert (item["path"], item["layout"], item["launches"]) == ("-", "details", 2)


def test_gzip_file(tmp_path: Path) -> None:
    path = tmp_path / "raw_page.csv.gz"
    path.write_bytes(gzip.compress((DATA / "raw_page.csv").read_bytes()))
    plain = inspect_json(data("raw_page.csv"))["inputs"][0]
    packed = inspect_json(str(path))["inputs"][0]
    assert packed["path"] == str(path)
    del plain["path"], packed["path"]
    assert packed == plain
    proc = run("inspect", str(path))
    assert proc.returncode == 0
    assert "layout    raw" in proc.stdout


def test_gzip_without_gz_suffix(tmp_path: Path) -> None:
    path = tmp_path / "export.csv"  # recognised by its magic bytes, not its name
    path.write_bytes(gzip.compress((DATA / "summary_per_kernel.csv").read_bytes()))
    item = inspect_json(str(path))["inputs"][0]
    assert (item["layout"], item["launches"]) == ("summary", 1400)


# --- user errors: exit codes, messages, never a traceback --------------------


def _assert_user_error(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert "Traceback" not in proc.stdout
    assert "internal error" not in proc.stderr
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)


def test_missing_file_exits_3(tmp_path: Path) -> None:
    missing = tmp_path / "nope.csv"
    proc = run("inspect", str(missing))
    _assert_user_error(proc, 7, "ncu-roofline: error:", str(missing), "no such file")
    assert proc.stdout == ""


def test_directory_exits_3(tmp_path: Path) -> None:
    proc = run("inspect", str(tmp_path))
    _assert_user_error(proc, 7, "ncu-roofline: error:", "directory")


def test_one_missing_among_good_inputs_exits_3(tmp_path: Path) -> None:
    proc = run("inspect", data("raw_page.csv"), str(tmp_path / "gone.csv"))
    _assert_user_error(proc, 7, "gone.csv")


@pytest.mark.parametrize(
    ("name", "needles"),
    [
        ("empty.csv", ["empty"]),
        ("only_log.csv", ["==ERROR== The application returned an error code (1)."]),
        ("no_kernels.csv", ["no ncu table"]),
        ("not_ncu.csv", ["not an ncu CSV export"]),
        ("not_ncu_quoted_id.csv", ["Kernel Name"]),
    ],
)
def test_format_errors_exit_4(name: str, needles: list[str]) -> None:
    proc = run("inspect", data(name))
    _assert_user_error(proc, 4, "ncu-roofline: error:", data(name), *needles)
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (bytes((i * 7919 + 13) % 256 for i in range(4096)), "binary"),
        (b"   \n\t\n", "no data"),
        (b"\xef\xbb\xbf", "no data"),
        (gzip.compress(b"")[:12], ""),
        (
            b'"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
            b'"Section Name","Metric Name","Metric Unit","Metric Value"\n',
            "no launches",
        ),
    ],
    ids=["binary", "whitespace", "bom-only", "broken-gzip", "header-only"],
)
def test_generated_bad_inputs_exit_4(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    proc = run("inspect", str(path))
    _assert_user_error(proc, 4, "ncu-roofline: error:", str(path), needle)


def test_empty_stdin_exits_4() -> None:
    proc = run("inspect", "-", stdin=b"")
    _assert_user_error(proc, 4, "ncu-roofline: error:", "-: ")


def test_only_log_lines_on_stdin_exit_4() -> None:
    proc = run("inspect", "--json", "-", stdin=(DATA / "only_log.csv").read_bytes())
    _assert_user_error(proc, 4, "==ERROR== The application returned an error code (1).")
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "args",
    [
        ["inspect"],
        ["inspect", "--bogus", "x.csv"],
        ["inspect", "--progress", "sometimes", "x.csv"],
        ["frobnicate"],
        ["--no-such-global-option", "inspect", "x.csv"],
    ],
    ids=["no-input", "unknown-option", "bad-choice", "unknown-command", "unknown-global-option"],
)
def test_bad_usage_exits_2(args: list[str]) -> None:
    proc = run(*args)
    _assert_user_error(proc, 2)
    assert "Usage:" in proc.stderr or "Error:" in proc.stderr


def test_help_and_version_exit_0() -> None:
    proc = run("--help")
    assert proc.returncode == 0
    assert "inspect" in proc.stdout
    proc = run("inspect", "--help")
    assert proc.returncode == 0
    assert "--json" in proc.stdout
    proc = run("--version")
    assert proc.returncode == 0
    assert "ncu-roofline" in proc.stdout


def test_raw_page_cut_in_units_row_exits_4(tmp_path: Path) -> None:
    raw = (DATA / "raw_page.csv").read_bytes()
    marker = b'"","","","","","","","","","","","inst","","","by'
    path = tmp_path / "raw_cut.csv"
    path.write_bytes(raw[: raw.index(marker) + len(marker)])
    proc = run("inspect", str(path))
    _assert_user_error(proc, 4, "ncu-roofline: error:")


def test_truncated_input_warns_and_succeeds() -> None:
    proc = run("inspect", data("truncated.csv"))
    assert proc.returncode == 0, proc.stderr
    assert "launches  3" in proc.stdout
    assert "truncated" in proc.stderr
    assert "Traceback" not in proc.stderr
