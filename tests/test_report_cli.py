"""``ncu-roofline report`` and ``ncu-roofline gpus`` run as a user runs them.

Checks the JSON report's layout (schema version, roofs, launch and kernel
records with every documented field, findings), that missing values are
``null`` and never 0, the refusal to overwrite without ``--force``, and the
exit codes of bad usage and bad roofs files.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import SAMPLE, details_metrics, run, sass

#: Fields every launch record must carry (the documented minimum).
LAUNCH_REQUIRED = {
    "source",
    "id",
    "kernel",
    "duration_s",
    "flops",
    "flops_fp64",
    "flops_fp32",
    "flops_fp16",
    "flops_tensor",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "ai_dram",
    "achieved_flops_per_s",
    "attainable_flops_per_s",
    "efficiency",
    "bound",
    "recoverable_s",
}
FINDING_REQUIRED = {"kind", "kernel", "severity", "message"}


@pytest.fixture(scope="module")
def sample_report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("report") / "r.json"
    proc = run("report", str(SAMPLE), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stderr
    return json.loads(out.read_text())


def test_report_layout(sample_report: dict) -> None:
    assert sample_report["schema_version"] == "1.0"
    assert set(sample_report) >= {"schema_version", "roofs", "launches", "kernels", "findings"}
    assert len(sample_report["launches"]) == 44
    for rec in sample_report["launches"]:
        assert set(rec) >= LAUNCH_REQUIRED
        assert rec["bound"] in {"memory", "compute", "latency", "communication", "not placeable"}
    for f in sample_report["findings"]:
        assert set(f) >= FINDING_REQUIRED
        assert f["severity"] in {"error", "warning", "info"}
    ranks = [k["rank"] for k in sample_report["kernels"]]
    assert ranks == list(range(1, len(ranks) + 1))
    rec = [k["recoverable_s"] for k in sample_report["kernels"] if k["recoverable_s"] is not None]
    assert rec == sorted(rec, reverse=True)


def test_report_roofs_name_their_source(sample_report: dict) -> None:
    (device,) = sample_report["roofs"]
    # A details page names no device, only its compute capability.
    assert device["device_name"] is None
    assert device["cc"] == "9.0"
    keys = {c["key"]: c for c in device["ceilings"]}
    # The simulated export carries ncu's peak metrics, so they win over the table.
    assert keys["dram"]["source"].startswith("profile")
    assert keys["fp32"]["source"].startswith("profile")
    assert keys["fp32"]["clock_hz"] > 0


def test_report_first_launch_values(sample_report: dict) -> None:
    # Launch 0 of the simulated sample (an rms_norm_kernel), read from the CSV
    # itself; expected values follow docs/ncu-format.md sections 4 and 5.
    m = details_metrics(SAMPLE, 0)
    v = {name: value for name, (_, value) in m.items()}
    assert m["gpu__time_duration.sum"][0] == "ns"
    # 2539 ns
    duration = v["gpu__time_duration.sum"] * 1e-9
    # FP32 = fadd + fmul + 2 x ffma = 8192 + 8192 + 2 x 4096 = 24,576
    fp32 = v[sass("fadd")] + v[sass("fmul")] + 2 * v[sass("ffma")]
    # FP64 = dadd + dmul + 2 x dfma = 0; FP16 = 2 x hadd + 2 x hmul + 4 x hfma = 0
    fp64 = v[sass("dadd")] + v[sass("dmul")] + 2 * v[sass("dfma")]
    fp16 = 2 * v[sass("hadd")] + 2 * v[sass("hmul")] + 4 * v[sass("hfma")]
    tensor = v["sm__ops_path_tensor_src_bf16_dst_fp32.sum"]  # 0
    # DRAM = read + write = 24,960 + 8,192 = 33,152 bytes
    dram = v["dram__bytes_read.sum"] + v["dram__bytes_write.sum"]
    assert (fp32, fp64, fp16, tensor, dram) == (24_576.0, 0.0, 0.0, 0.0, 33_152.0)
    # The roofs of this launch from its own peak metrics and clocks:
    # FP32 16,896 FFMA/cycle x 2 FLOP x 1.5916 GHz = 53.8 TFLOP/s;
    # DRAM 1,280 bytes/cycle x 2.6600 GHz = 3.40 TB/s.
    peak_fp32 = v[sass("ffma") + ".peak_sustained"] * 2 * v["sm__cycles_elapsed.avg.per_second"]
    peak_dram = v["dram__bytes.sum.peak_sustained"] * v["dram__cycles_elapsed.avg.per_second"]
    # AI = 24,576 / 33,152 = 0.741 FLOP/byte, far left of the ridge (53.8e12 / 3.40e12 = 15.8),
    # so the attainable rate is AI x DRAM bandwidth.
    ai = fp32 / dram
    attainable = min(peak_fp32, ai * peak_dram)
    efficiency = (fp32 / duration) / attainable

    rec = sample_report["launches"][0]
    assert rec["id"] == 0 and rec["kernel_short"] == "rms_norm_kernel"
    assert rec["duration_s"] == pytest.approx(duration, rel=1e-12)
    assert rec["flops_fp32"] == pytest.approx(fp32, rel=1e-12)
    assert rec["flops_fp64"] == fp64 and rec["flops_fp16"] == fp16
    assert rec["flops_tensor"] == tensor
    assert rec["flops"] == pytest.approx(fp32 + fp64 + fp16 + tensor, rel=1e-12)
    assert rec["dram_bytes"] == pytest.approx(dram, rel=1e-12)
    assert rec["l2_bytes"] == v["lts__t_bytes.sum"]  # 39,776
    assert rec["l1_bytes"] == v["l1tex__t_bytes.sum"]  # 49,728
    assert rec["ai_dram"] == pytest.approx(ai, rel=1e-12)
    assert rec["achieved_flops_per_s"] == pytest.approx(fp32 / duration, rel=1e-12)
    assert rec["peak_flops_per_s"] == pytest.approx(peak_fp32, rel=1e-12)
    assert rec["peak_dram_bytes_per_s"] == pytest.approx(peak_dram, rel=1e-12)
    assert rec["attainable_flops_per_s"] == pytest.approx(attainable, rel=1e-12)
    assert rec["efficiency"] == pytest.approx(efficiency, rel=1e-12)
    assert rec["side"] == "memory"
    # 2.5 us is under the 5 us launch-overhead threshold and no unit is 60%
    # busy: latency-class, so nothing is promised at a roof and its whole
    # time is latency.
    assert rec["bound"] == "latency" and rec["limiter"] == "latency"
    assert rec["recoverable_s"] == 0.0
    assert rec["latency_s"] == pytest.approx(duration, rel=1e-12)


def test_missing_values_are_null_not_zero(tmp_path: Path, samples_dir: Path) -> None:
    # The B200 decode export has durations but no FLOP or byte counters.
    src = samples_dir / (
        "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
        "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
    )
    out = tmp_path / "b200.json"
    proc = run("report", str(src), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    for rec in data["launches"]:
        assert rec["duration_s"] > 0
        for key in ("flops", "flops_fp32", "dram_bytes", "ai_dram", "efficiency"):
            assert rec[key] is None, key
        assert rec["bound"] == "not placeable"
        assert "FLOP" in rec["bound_reason"]
        # No roof places it, but its pipe and issue utilisations bound the
        # time a change could win: never the unbounded gap, never 0.
        assert rec["limiter"] not in (None, "unknown")
        assert rec["recoverable_s"] == pytest.approx(
            rec["duration_s"] * (1 - rec["max_utilization"]), rel=1e-9
        )


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_text("keep me")
    proc = run("report", str(SAMPLE), "-o", str(out))
    assert proc.returncode == 5
    assert "--force" in proc.stderr
    assert out.read_text() == "keep me"
    proc = run("report", str(SAMPLE), "-o", str(out), "--force")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["schema_version"] == "1.0"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]  # no temporary left


def test_stdout_when_no_output(tmp_path: Path) -> None:
    proc = run("report", str(SAMPLE), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["launches"] == 44


def test_gpu_option_replaces_profile_roofs(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    proc = run("report", str(SAMPLE), "-o", str(out), "--gpu", "h200_sxm", "--clocks", "datasheet")
    assert proc.returncode == 0, proc.stderr
    device = json.loads(out.read_text())["roofs"][0]
    ceilings = {c["key"]: c for c in device["ceilings"]}
    assert ceilings["dram"]["value"] == pytest.approx(4.8e12)  # H200 datasheet, 4.8 TB/s
    assert ceilings["fp32"]["value"] == pytest.approx(66.9e12)
    assert "H200" in ceilings["dram"]["source"]


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["--gpu", "h1000"], 2, "unknown GPU"),
        (["-o", "x.txt"], 2, "cannot tell the format"),
        (["-o", "x.bin"], 2, "--format"),
        (["--gpu", "h100", "--roofs", "r.toml"], 2, "not both"),
        (["--roofs", "missing.toml"], 7, "missing.toml"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], code: int, needle: str) -> None:
    proc = run("report", str(SAMPLE), *args, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr


def test_bad_roofs_file_is_a_format_error(tmp_path: Path) -> None:
    roofs = tmp_path / "r.toml"
    roofs.write_text('[gpu.mine]\nname = "Mine"\nfp32_tflops = "fast"\n')
    proc = run("report", str(SAMPLE), "--roofs", str(roofs))
    assert proc.returncode == 4
    assert "fp32_tflops" in proc.stderr and "r.toml" in proc.stderr


def test_roofs_file_is_used(tmp_path: Path) -> None:
    roofs = tmp_path / "r.toml"
    roofs.write_text(
        '[gpu.mine]\nname = "My H100"\nfp32_tflops = 50\nbf16_tc_tflops = 800\ndram_gbps = 3000\n'
    )
    out = tmp_path / "r.json"
    proc = run(
        "report", str(SAMPLE), "--roofs", str(roofs), "--clocks", "datasheet", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    ceilings = {c["key"]: c for c in data["roofs"][0]["ceilings"]}
    assert ceilings["dram"]["value"] == pytest.approx(3.0e12)
    assert ceilings["tensor_bf16"]["value"] == pytest.approx(800e12)
    assert "My H100" in ceilings["dram"]["source"]


def test_gpus_lists_the_table() -> None:
    proc = run("gpus")
    assert proc.returncode == 0, proc.stderr
    for key in (
        "v100_sxm2_16gb",
        "t4",
        "a100_40gb_sxm",
        "h100_sxm5",
        "h200_sxm",
        "b200",
        "rtx_5090",
    ):
        assert key in proc.stdout
    proc = run("gpus", "--json")
    specs = {s["key"]: s for s in json.loads(proc.stdout)}
    assert specs["h100_sxm5"]["compute"]["tensor_bf16"] == pytest.approx(989.4e12)
    assert specs["h100_sxm5"]["memory"]["dram"] == pytest.approx(3.35e12)
