"""`ncu-roofline compare` and `ncu-roofline summary` from the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import SAMPLE, run, sample_launches, slower_candidate, time_weighted_efficiency


def test_compare_json_and_gates(tmp_path: Path) -> None:
    cand = tmp_path / "cand.csv"
    slower_candidate(cand)
    out = tmp_path / "d.json"
    proc = run("compare", str(SAMPLE), str(cand), "-o", str(out), "--fail-on", "regression>5%")
    assert proc.returncode == 3, proc.stderr
    data = json.loads(out.read_text())
    assert data["kind"] == "comparison"
    (reg,) = data["regressions"]
    assert reg["kernel_short"] == "flash_fwd_splitkv_kernel"
    assert reg["delta_pct"] == pytest.approx(0.5)
    # The total moves by the flash kernel's 50%: half its 73,475 ns in the CSV.
    flash = [x for x in sample_launches() if "flash_fwd_splitkv_kernel<" in x.kernel]
    assert reg["delta_s"] == pytest.approx(0.5 * sum(x.duration_s for x in flash), rel=1e-9)
    assert data["totals"]["delta_s"] == pytest.approx(reg["delta_s"])
    assert [t["rule"] for t in data["gates"]["tripped"]] == ["regression>5%"]
    # A 60% threshold does not trip; new-kernel has nothing to trip on.
    proc = run(
        "compare", str(SAMPLE), str(cand), "-o", str(out), "--force",
        "--fail-on", "regression>60%", "--fail-on", "new-kernel",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_compare_html_default_name_and_usage(tmp_path: Path) -> None:
    cand = tmp_path / "cand.csv"
    slower_candidate(cand)
    proc = run("compare", str(SAMPLE), str(cand), "--plotly-js", "cdn", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    html = (tmp_path / "cand.diff.html").read_text(encoding="utf-8")
    assert "Roofline comparison" in html and "flash_fwd_splitkv_kernel" in html
    assert run("compare", str(SAMPLE)).returncode == 2
    assert run("compare", str(SAMPLE), str(cand), "--base", str(SAMPLE)).returncode == 2


def test_summary_fits_the_terminal() -> None:
    proc = run("summary", str(SAMPLE), "--width", "80")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert any("sm90_xmma_ge" in line and "_cublas" in line for line in lines)


def test_compare_markdown_shows_every_change(tmp_path: Path) -> None:
    cand = tmp_path / "cand.csv"
    slower_candidate(cand)
    proc = run(
        "compare", str(SAMPLE), str(cand), "--format", "md",
        "--html-url", "https://ci.example/run 1/diff.html",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    md = proc.stdout
    # From the CSV, the flash kernel's 4 launches: 4 x (4,194,304 fadd + 4,194,304 fmul
    # + 2 x 16,777,216 ffma) = 167,772,160 FLOPs over 135,471,616 DRAM bytes = 1.24
    # FLOP/B, in 73,475 ns: 2.28 TFLOP/s.  Intensity is unchanged (same FLOPs and
    # bytes), the achieved rate falls by the 1.5x longer time to 1.52 TFLOP/s, and
    # the time-weighted efficiency (each launch at AI x its DRAM roof) 55% -> 37%.
    flash = [x for x in sample_launches() if "flash_fwd_splitkv_kernel<" in x.kernel]
    flops, dram = sum(x.flops for x in flash), sum(x.dram_bytes for x in flash)
    seconds = sum(x.duration_s for x in flash)
    assert (flops, dram) == (167_772_160.0, 135_471_616.0)
    assert flops / dram == pytest.approx(1.24, abs=0.005)
    assert flops / seconds == pytest.approx(2.28e12, abs=0.005e12)
    assert flops / (1.5 * seconds) == pytest.approx(1.52e12, abs=0.005e12)
    efficiency = time_weighted_efficiency(flash)
    assert (round(100 * efficiency), round(100 * efficiency / 1.5)) == (55, 37)
    row = next(line for line in md.splitlines() if line.startswith("| `flash_fwd_splitkv_kernel`"))
    assert "+50.0%" in row and "1.24 → 1.24" in row and "2.28 TFLOP/s → 1.52 TFLOP/s" in row
    assert "55% → 37%" in row
    # Groups sharing a name are told apart by their grid.
    assert "`gemvx::kernel<cublasGemvParamsEx>` grid (1024, 1, 1)" in md
    assert "<details><summary>Every matched kernel group</summary>" in md
    assert "[Full HTML comparison](https://ci.example/run%201/diff.html)" in md


def test_cross_gpu_compare_with_a_gpu_per_side(samples_dir: Path, tmp_path: Path) -> None:
    # The same CUTLASS app profiled on a V100 and an A100: each side gets its
    # own roofs; both InitializeMatrix launches got about 22% faster.
    out = tmp_path / "d.json"
    proc = run(
        "compare",
        str(samples_dir / "wangzy0327__cuda-roofline__src_output.csv"),
        str(samples_dir / "wangzy0327__cuda-roofline__src_output_A100.csv"),
        "--base-gpu", "v100_pcie_32gb", "--candidate-gpu", "a100_40gb_pcie", "-o", str(out),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["delta_pct"] < -0.5
    # Different GPUs: nothing is judged without --allow-cross-gpu.
    assert data["improvements"] == [] and data["regressions"] == []
    assert data["totals"]["comparable"] is False
    assert "different GPUs" in proc.stderr
    proc = run(
        "compare",
        str(samples_dir / "wangzy0327__cuda-roofline__src_output.csv"),
        str(samples_dir / "wangzy0327__cuda-roofline__src_output_A100.csv"),
        "--base-gpu", "v100_pcie_32gb", "--candidate-gpu", "a100_40gb_pcie", "-o", str(out),
        "--force", "--allow-cross-gpu", "--basis", "time",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    improved = [
        r for r in data["improvements"] if r["kernel_short"].startswith("InitializeMatrix_kernel")
    ]
    # The two instances keep their template argument.
    assert sorted(r["kernel_short"] for r in improved) == [
        "InitializeMatrix_kernel<__half>",
        "InitializeMatrix_kernel<float>",
    ]
    assert all(r["delta_pct"] == pytest.approx(-0.22, abs=0.01) for r in improved)


def test_cross_gpu_judging_and_basis_from_a_config_file(samples_dir: Path, tmp_path: Path) -> None:
    pair = (
        str(samples_dir / "wangzy0327__cuda-roofline__src_output.csv"),
        str(samples_dir / "wangzy0327__cuda-roofline__src_output_A100.csv"),
        "--base-gpu", "v100_pcie_32gb", "--candidate-gpu", "a100_40gb_pcie",
    )  # fmt: skip
    config = tmp_path / "roofline.toml"
    config.write_text('[tool.ncu-roofline]\nallow-cross-gpu = true\nbasis = "time"\n')
    out = tmp_path / "d.json"
    proc = run("compare", *pair, "-o", str(out), "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["basis"] == "time"
    improved = {r["kernel_short"] for r in data["improvements"]}
    assert "InitializeMatrix_kernel<float>" in improved
    # The command line still wins over the file.
    proc = run(
        "compare", *pair, "-o", str(out), "--force", "--config", str(config),
        "--basis", "per-launch",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["totals"]["basis"] == "per-launch"
    for bad, key in (
        ('basis = "sideways"', "basis"),
        ('allow-cross-gpu = "yes"', "allow-cross-gpu"),
        ("allow-cross-gpu = 1", "allow-cross-gpu"),
        ("top = true", "top"),
    ):
        config.write_text(f"[tool.ncu-roofline]\n{bad}\n")
        proc = run("compare", *pair, "-o", str(out), "--force", "--config", str(config))
        assert proc.returncode == 4, (bad, proc.stderr)
        assert key in proc.stderr and "Traceback" not in proc.stderr


def test_summary_formats_and_gates() -> None:
    proc = run("summary", str(SAMPLE), "--model", "llama-3-8b", "--fail-on", "excess-traffic")
    assert proc.returncode == 3, proc.stderr
    assert "excess" in proc.stdout  # the flash kernel's findings column
    proc = run("summary", str(SAMPLE), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["kernels"] == 13
    proc = run("summary", str(SAMPLE), "--format", "md")
    assert proc.stdout.startswith("## ncu-roofline report")


def test_summary_writes_the_document_and_warnings_report_writes() -> None:
    gated = ("--model", "llama-3-8b", "--fail-on", "excess-traffic", "--format", "json")
    summary = run("summary", str(SAMPLE), str(SAMPLE), *gated)
    report = run("report", str(SAMPLE), str(SAMPLE), *gated)
    assert summary.returncode == report.returncode == 3, summary.stderr
    doc, expected = json.loads(summary.stdout), json.loads(report.stdout)
    assert doc["gates"]["rules"] == ["excess-traffic"]
    assert doc["gates"] == expected["gates"]
    assert {k: v for k, v in doc.items() if k != "generator"} == {
        k: v for k, v in expected.items() if k != "generator"
    }
    assert "an input was given more than once" in summary.stderr
    assert summary.stderr == report.stderr
    # A theory gate without theory can never trip: said, as by report.
    proc = run("summary", str(SAMPLE), "--fail-on", "excess-traffic", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert "can never trip without --theory or --model" in proc.stderr
    assert json.loads(proc.stdout)["gates"] == {"rules": ["excess-traffic"], "tripped": []}


def test_per_launch_basis_for_different_launch_counts(tmp_path: Path) -> None:
    # The candidate side is the sample twice (two files) joined into one
    # profile (--no-trials): every group ran twice as many launches at the
    # same time per launch.
    copy = tmp_path / "again.csv"
    copy.write_text(SAMPLE.read_text(encoding="utf-8"), encoding="utf-8")
    out = tmp_path / "d.json"
    args = ["compare", "--no-trials", "--base", str(SAMPLE), "--candidate", str(SAMPLE)]
    args += ["--candidate", str(copy)]
    proc = run(*args, "-o", str(out), "--fail-on", "regression>5%")
    # Every group doubled its time and its FLOPs: a work change judged on time
    # per FLOP (unchanged), and the whole profile's work changed: no trip.
    assert proc.returncode == 0, proc.stderr
    assert "--basis per-launch" in proc.stderr
    assert "whole profile's work changed" in proc.stderr
    assert "launch counts differ: base 44, candidate 88" in proc.stderr
    data = json.loads(out.read_text())
    assert data["regressions"] == []
    placed = [r for r in data["kernels"] if r["base_flops"]]
    assert placed and all(r["work_changed"] for r in placed)
    assert all(r["delta_work_pct"] == pytest.approx(1.0) for r in placed)
    assert all(r["judged_on"] == "time per FLOP" for r in placed)
    assert data["totals"]["judged_on"] == "time per FLOP"
    assert data["totals"]["judged_pct"] == pytest.approx(0.0, abs=1e-12)
    kinds = [d["kind"] for d in data["context"]["differences"]]
    assert kinds == ["work", "launch-count"]
    proc = run(
        *args, "-o", str(out), "--force", "--basis", "per-launch", "--fail-on", "regression>5%"
    )
    data = json.loads(out.read_text())
    # No group got slower per launch either.
    assert data["regressions"] == []
    assert proc.returncode == 0, proc.stderr
    assert data["totals"]["basis"] == "per-launch"
