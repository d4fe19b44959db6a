"""CI gates (--fail-on), settings files and the gate exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ncu_roofline.cli.config import load_config
from ncu_roofline.errors import GATE_TRIPPED, InputFormatError, UsageError
from ncu_roofline.report.gates import evaluate_report, parse_gate, parse_gates
from tests.helpers import SAMPLE, run


@pytest.mark.parametrize(
    ("text", "kind", "threshold"),
    [
        ("regression>5%", "regression", 0.05),
        ("regression>0.05", "regression", 0.05),
        ("efficiency<0.3", "efficiency", 0.3),
        ("efficiency<30%", "efficiency", 0.3),
        ("new-kernel", "new-kernel", None),
        ("excess-traffic", "finding", None),
        ("Above-Roof", "finding", None),
    ],
)
def test_parse_gate(text: str, kind: str, threshold: float | None) -> None:
    gate = parse_gate(text)
    assert gate.kind == kind
    assert gate.threshold == (pytest.approx(threshold) if threshold is not None else None)


@pytest.mark.parametrize(
    "text",
    ["regression<5%", "efficiency>0.3", "slow", "regression>x", "regression>5", "regression>1.2.3"],
)
def test_bad_gates_are_usage_errors(text: str) -> None:
    with pytest.raises(UsageError):
        parse_gate(text)


def test_comparison_gates_need_compare() -> None:
    with pytest.raises(UsageError, match="compare"):
        parse_gates(["new-kernel"], comparison=False)
    assert len(parse_gates(["new-kernel"], comparison=True)) == 1


def test_efficiency_gate_skips_tiny_kernels() -> None:
    context = {
        "kernels": [
            {"kernel": "a", "kernel_short": "a", "efficiency": 0.1, "time_share": 0.5},
            {"kernel": "b", "kernel_short": "b", "efficiency": 0.1, "time_share": 0.005},
            {"kernel": "c", "kernel_short": "c", "efficiency": 0.9, "time_share": 0.4},
            {"kernel": "d", "kernel_short": "d", "efficiency": None, "time_share": 0.1},
        ],
        "findings": [],
    }
    tripped = evaluate_report(parse_gates(["efficiency<0.3"], comparison=False), context)
    assert [t["kernel"] for t in tripped] == ["a"]
    assert "10.0% of its roof" in tripped[0]["message"]


def test_tripped_gate_writes_the_output_and_exits_3(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = run(
        "report",
        str(SAMPLE),
        "--model",
        "llama-3-8b",
        "--fail-on",
        "excess-traffic",
        "-o",
        str(out),
    )
    assert proc.returncode == GATE_TRIPPED == 3, proc.stderr
    data = json.loads(out.read_text())
    assert data["gates"]["rules"] == ["excess-traffic"]
    assert [t["rule"] for t in data["gates"]["tripped"]] == ["excess-traffic"]
    assert "gate excess-traffic tripped" in proc.stderr
    # The same report without the gate succeeds.
    proc = run("report", str(SAMPLE), "--model", "llama-3-8b", "-o", str(out), "--force")
    assert proc.returncode == 0, proc.stderr


def test_gates_from_pyproject_and_command_line_override(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ncu-roofline]\nfail-on = ["efficiency<0.3"]\nclocks = "datasheet"\n'
    )
    out = tmp_path / "r.json"
    proc = run("report", str(SAMPLE), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert json.loads(out.read_text())["options"]["clocks"] == "datasheet"
    # --fail-on on the command line replaces the configured list.
    proc = run(
        "report", str(SAMPLE), "-o", str(out), "--force", "--fail-on", "gpu-mismatch", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    # --clocks on the command line beats the file.
    proc = run(
        "report", str(SAMPLE), "-o", str(out), "--force", "--clocks", "measured", cwd=tmp_path
    )
    assert json.loads(out.read_text())["options"]["clocks"] == "measured"


def test_config_file_errors(tmp_path: Path) -> None:
    bad = tmp_path / "c.toml"
    bad.write_text('fail-on = "excess-traffic"\n')
    with pytest.raises(InputFormatError, match="fail-on"):
        load_config(bad)
    bad.write_text("speed = 1\n")
    with pytest.raises(InputFormatError, match="unknown setting 'speed'"):
        load_config(bad)
    good = tmp_path / "g.toml"
    good.write_text("[tool.ncu-roofline]\nexcess-threshold = 3\n")
    assert load_config(good) == {"excess_threshold": 3}
    proc = run("report", str(SAMPLE), "--config", str(tmp_path / "missing.toml"))
    assert proc.returncode == 7


def test_configured_compare_gates_are_skipped_by_report(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.ncu-roofline]\nfail-on = ["regression>5%", "new-kernel"]\n'
    )
    out = tmp_path / "r.json"
    proc = run("report", str(SAMPLE), "-o", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "apply to `compare` only" in proc.stderr


def test_theory_gate_without_theory_warns(tmp_path: Path) -> None:
    proc = run("report", str(SAMPLE), "-o", str(tmp_path / "r.json"), "--fail-on", "excess-traffic")
    assert proc.returncode == 0
    assert "can never trip without --theory or --model" in proc.stderr


def test_efficiency_gate_fails_only_its_launch_configuration(tmp_path: Path) -> None:
    # gemvx runs with four grids; at 86% only the (1536, 1, 1) group (85.2%)
    # is under the bar, so exactly one JUnit testcase fails.
    from lxml import etree

    out = tmp_path / "r.xml"
    proc = run(
        "report", str(SAMPLE), "--format", "junit", "-o", str(out), "--fail-on", "efficiency<0.86"
    )
    assert proc.returncode == 3, proc.stderr
    failed = [
        case.get("name")
        for case in etree.parse(str(out)).getroot().iter("testcase")
        if case.find("failure") is not None and "gemvx" in (case.get("name") or "")
    ]
    assert failed == ["gemvx::kernel<cublasGemvParamsEx> grid (1536, 1, 1) block (128, 1, 1)"]


def test_comparison_gates_on_records() -> None:
    from ncu_roofline.report.gates import evaluate_comparison

    cmp = {
        "totals": {"delta_pct": 0.01},
        "kernels": [
            {"status": "unchanged", "kernel": "a", "kernel_short": "a", "delta_pct": 0.03},
            {"status": "added", "kernel": "b", "kernel_short": "b", "delta_pct": None},
            {"status": "removed", "kernel": "b", "kernel_short": "b", "delta_pct": -1.0},
            {"status": "added", "kernel": "c", "kernel_short": "c", "delta_pct": None},
        ],
        "added": [
            {"kernel": "b", "kernel_short": "b"},
            {"kernel": "c", "kernel_short": "c"},
        ],
    }
    candidate = {"kernels": [], "findings": []}
    gates = parse_gates(["regression>2%", "new-kernel"], comparison=True)
    tripped = evaluate_comparison(gates, cmp, candidate)
    # "a" is within --noise ("unchanged") but over the 2% gate; "b" only
    # changed its launch configuration, "c" is new.
    assert [(t["rule"], t["kernel"]) for t in tripped] == [
        ("regression>2%", "a"),
        ("new-kernel", "c"),
    ]
