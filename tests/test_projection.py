"""A measured profile projected onto another GPU (``report --project-to``).

Expected values are worked by hand from the export's own metrics and the
built-in table's peaks; the model is :mod:`ncu_roofline.analysis.projection`'s:
``projected = measured x floor(target) / floor(source)``, the floor being the
longest of work / peak over the roofs a launch uses.
"""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ncu_roofline
from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.analysis.projection import MODEL, add_projections, project, project_analysis
from ncu_roofline.core.hardware import GpuSpec, resolve_gpu
from tests.helpers import run

V100_EXPORT = "wangzy0327__cuda-roofline__src_output.csv"


@pytest.fixture
def v100(samples_dir: Path) -> Analysis:
    """The V100 export, analysed under the built-in V100's roofs (``--gpu v100``)."""
    return analyze(ncu_roofline.load([str(samples_dir / V100_EXPORT)]), gpu="v100")


def _row(analysis: Analysis, short: str) -> pd.Series:
    rows = analysis.launches[analysis.launches["kernel_short"].astype(str).str.startswith(short)]
    return rows.iloc[0]


# -- the model ------------------------------------------------------------------


def test_identity_on_the_gpu_the_profile_ran_on(v100: Analysis) -> None:
    project_analysis(v100, [resolve_gpu("v100")])
    launches = v100.launches
    assert (launches["projection_basis"] == "roof").all()
    np.testing.assert_allclose(launches["projected_s"], launches["duration_s"], rtol=1e-9)
    np.testing.assert_allclose(
        v100.kernels["projected_s"], v100.kernels["total_duration_s"], rtol=1e-9
    )
    summary = v100.projections[0]
    assert summary["speedup"] == pytest.approx(1.0, rel=1e-9)
    assert summary["measured_s"] == pytest.approx(summary["projected_s"], rel=1e-9)
    assert summary["target"] == "v100_sxm2_16gb"


def test_memory_bound_launch_scales_with_the_dram_bandwidth(v100: Analysis) -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    v100_spec = resolve_gpu("v100").spec
    row = _row(v100, "InitializeMatrix_kernel<float>")
    assert row["bound"] == "memory" and row["flops"] == 0
    # The profiled GPU ran this fraction of its boost clock; the target is
    # assumed to run the same fraction of its own (clock-following roofs only).
    frac = row["sm_clock_hz"] / v100_spec.boost_hz
    src = {
        lvl: row[f"{lvl}_bytes"] / row[f"peak_{lvl}_bytes_per_s"] for lvl in ("dram", "l2", "l1")
    }
    tgt = {
        "dram": row["dram_bytes"] / a100.memory["dram"],
        "l2": row["l2_bytes"] / (a100.memory["l2"] * frac),
        "l1": row["l1_bytes"] / (a100.memory["l1"] * frac),
    }
    # DRAM binds on both GPUs: the time scales by 900 / 1555 GB/s.
    assert max(src, key=src.__getitem__) == "dram" and max(tgt, key=tgt.__getitem__) == "dram"
    expected = row["duration_s"] * tgt["dram"] / src["dram"]
    assert expected == pytest.approx(row["duration_s"] * 900e9 / 1555e9, rel=1e-9)
    projected, basis, _ = project(v100.launches, a100, roofs=v100.roofs)
    i = int(row.name)
    assert projected[i] == pytest.approx(expected, rel=1e-9)
    assert basis[i] == "roof"


def test_compute_bound_launch_scales_with_its_precisions_peak(v100: Analysis) -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    v100_spec = resolve_gpu("v100").spec
    row = _row(v100, "Kernel<cutlass_70_tensorop")
    assert row["bound"] == "compute" and row["precision"] == "tensor_fp16"
    frac = row["sm_clock_hz"] / v100_spec.boost_hz
    work = row["flops_tensor"]
    src_floor = work / row["peak_tensor_fp16_flops_per_s"]
    a100_tensor = a100.compute["tensor_fp16"] * frac * a100.boost_hz / a100.clock_for("tensor_fp16")
    tgt_floor = work / a100_tensor
    # The tensor roof binds on both (DRAM, L2, L1 and FP32 take less time).
    assert src_floor > row["dram_bytes"] / row["peak_dram_bytes_per_s"]
    assert src_floor > row["l2_bytes"] / row["peak_l2_bytes_per_s"]
    assert tgt_floor > row["dram_bytes"] / a100.memory["dram"]
    assert tgt_floor > row["l2_bytes"] / (a100.memory["l2"] * frac)
    expected = row["duration_s"] * tgt_floor / src_floor
    projected, _, _ = project(v100.launches, a100, roofs=v100.roofs)
    assert projected[int(row.name)] == pytest.approx(expected, rel=1e-9)
    # Both at the same fraction of their boost clocks: the datasheet ratio, 125 / 312 TFLOP/s.
    ratio = 125e12 / 312e12
    assert projected[int(row.name)] == pytest.approx(row["duration_s"] * ratio, rel=1e-9)


def _frame(**columns: object) -> pd.DataFrame:
    """A launch frame as the analysis makes it, one launch per value (datasheet clocks)."""
    base: dict[str, object] = {
        "source": "x.csv",
        "device_name": None,
        "kernel": "k",
        "grid": "(1, 1, 1)",
        "block": "(32, 1, 1)",
        "invocations": 1,
        "bound": "memory",
        "under_filled": False,
    }
    base.update(columns)
    return pd.DataFrame({k: v if isinstance(v, list) else [v] for k, v in base.items()})


def test_latency_bound_underfilled_and_unplaceable_keep_their_time() -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    n = 4
    frame = _frame(
        duration_s=[10e-6] * n,
        dram_bytes=[1e5] * n,
        peak_dram_bytes_per_s=[900e9] * n,
        bound=["latency", "memory", "not placeable", "communication"],
        under_filled=[False, True, False, False],
        source=["x.csv"] * n,
        device_name=[None] * n,
        kernel=["k"] * n,
        grid=["(1, 1, 1)"] * n,
        block=["(32, 1, 1)"] * n,
        invocations=[1] * n,
    )
    projected, basis, _ = project(frame, a100, clocks="datasheet")
    np.testing.assert_array_equal(projected, [10e-6] * n)
    assert list(basis) == [
        "kept: latency (measured time)",
        "kept: under-filled grid (measured time)",
        "kept: not placeable (measured time)",
        "kept: communication (measured time)",
    ]


def test_kept_launch_is_raised_to_the_target_floor() -> None:
    """Never faster than the target's roofline: 1 GB at 300 GB/s takes 3.3 ms."""
    slow = GpuSpec(
        key="slow", name="Slow", arch=None, cc=None, sms=None, boost_hz=None, base_hz=None,
        tensor_hz=None, compute={}, memory={"dram": 300e9}, match=(), source="", notes="",
        unsure=(), derived=(), disputed=(), origin="test",
    )  # fmt: skip
    frame = _frame(duration_s=1e-3, dram_bytes=1e9, peak_dram_bytes_per_s=2e12, bound="latency")
    projected, basis, _ = project(frame, slow, clocks="datasheet")
    assert projected[0] == pytest.approx(1e9 / 300e9)
    assert basis[0] == "kept: latency (raised to the target's roofline floor)"


def test_above_roof_launch_is_held_at_the_target_floor() -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    # 1 GB in 0.5 ms is 2 TB/s against a 900 GB/s roof: above the source roof.
    frame = _frame(duration_s=0.5e-3, dram_bytes=1e9, peak_dram_bytes_per_s=900e9)
    projected, basis, _ = project(frame, a100, clocks="datasheet")
    assert projected[0] == pytest.approx(1e9 / a100.memory["dram"])
    assert basis[0].startswith("roof: measured above the source roofs")


def test_fp8_tensor_work_on_an_a100_runs_at_its_fp16_tensor_rate() -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    h100 = resolve_gpu("h100_sxm5").spec
    assert "tensor_fp8" not in a100.compute
    frame = _frame(
        duration_s=2e-3,
        bound="compute",
        flops_tensor_fp8=1e12,
        peak_tensor_fp8_flops_per_s=h100.compute["tensor_fp8"],
        dram_bytes=1e6,
        peak_dram_bytes_per_s=h100.memory["dram"],
    )
    projected, basis, stand_ins = project(frame, a100, clocks="datasheet")
    src = 1e12 / h100.compute["tensor_fp8"]
    tgt = 1e12 / a100.compute["tensor_fp16"]
    assert projected[0] == pytest.approx(2e-3 * tgt / src)
    assert basis[0] == "roof; tensor_fp8 at tensor_fp16 rate"
    assert stand_ins == ["tensor_fp8 at tensor_fp16 rate"]


def test_missing_metrics_give_none_never_zero() -> None:
    a100 = resolve_gpu("a100_40gb_pcie").spec
    frame = _frame(
        duration_s=[np.nan, 1e-3],
        dram_bytes=[1e6, np.nan],
        peak_dram_bytes_per_s=[900e9, 900e9],
        bound=["memory", "memory"],
        under_filled=[False, False],
        source=["x.csv"] * 2,
        device_name=[None] * 2,
        kernel=["a", "b"],
        grid=["(1, 1, 1)"] * 2,
        block=["(32, 1, 1)"] * 2,
        invocations=[1, 1],
    )
    projected, basis, _ = project(frame, a100, clocks="datasheet")
    assert np.isnan(projected).all()
    assert list(basis) == ["unknown: no duration", "unknown: no roof known on both GPUs"]
    kernels = frame[["source", "kernel", "grid", "block"]].copy()
    for col in ("device_name", "process_id", "nvtx"):
        if col not in kernels:
            kernels[col] = None
    summary = add_projections(frame, kernels.reindex(columns=frame.columns), [a100])[0]
    assert summary["measured_s"] is None and summary["projected_s"] is None
    assert summary["unknown"] == 1 and summary["headline"] is None
    assert frame["projected"].tolist() == [{a100.key: None}, {a100.key: None}]


def test_a_theory_only_gpu_is_a_target_like_any_other(v100: Analysis) -> None:
    # A device ncu cannot profile (a TPU, an MI300X) is still a projection target.
    paper = replace(resolve_gpu("a100_40gb_pcie").spec, theory_only=True)
    project_analysis(v100, [paper])
    assert v100.projections[0]["theory_only"] is True
    assert v100.projections[0]["speedup"] is not None


def test_several_targets_and_100k_launches_stay_vectorised(v100: Analysis) -> None:
    big = pd.concat([v100.launches] * 10_000, ignore_index=True)
    kernels = v100.kernels.copy()
    # Speed is measured by bench/, not here: this checks 110,000 launches are handled whole.
    out = add_projections(
        big, kernels, [resolve_gpu("a100_40gb_pcie"), resolve_gpu("h200_sxm")], roofs=v100.roofs
    )
    assert len(big) == 110_000
    assert [o["target"] for o in out] == ["a100_40gb_pcie", "h200_sxm"]
    assert set(big["projected"].iloc[0]) == {"a100_40gb_pcie", "h200_sxm"}
    # projected_s is the first target's; group totals sum 10,000 copies.
    assert big["projected_s"].iloc[0] == big["projected"].iloc[0]["a100_40gb_pcie"]
    single = add_projections(
        v100.launches, v100.kernels.copy(), [resolve_gpu("a100_40gb_pcie")], roofs=v100.roofs
    )
    assert out[0]["projected_s"] == pytest.approx(single[0]["projected_s"] * 10_000, rel=1e-9)


# -- the command line -------------------------------------------------------------


def _cli(samples_dir: Path, tmp_path: Path, fmt: str, *extra: str) -> str:
    out = tmp_path / f"report.{fmt}"
    proc = run(
        "report", str(samples_dir / V100_EXPORT), "--gpu", "v100", "--format", fmt,
        "-o", str(out), *extra,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return out.read_text(encoding="utf-8")


def test_cli_json_carries_projection_fields(samples_dir: Path, tmp_path: Path) -> None:
    doc = json.loads(
        _cli(
            samples_dir, tmp_path, "json", "--project-to", "a100_40gb_pcie", "--project-to", "v100"
        )
    )
    a100, same = doc["projection"]
    assert a100["target"] == "a100_40gb_pcie" and a100["model"] == MODEL
    assert a100["speedup"] > 1 and a100["headline"].startswith("On A100 PCIe 40GB")
    assert same["speedup"] == pytest.approx(1.0, rel=1e-9)
    for k in doc["kernels"]:
        assert k["projected_s"] == k["projected"]["a100_40gb_pcie"]
        assert k["projected"]["v100_sxm2_16gb"] == pytest.approx(k["total_duration_s"], rel=1e-9)
    for launch in doc["launches"]:
        assert launch["projection_basis"] == "roof"
        assert launch["projected"]["v100_sxm2_16gb"] == pytest.approx(
            launch["duration_s"], rel=1e-9
        )
    total = sum(k["projected_s"] for k in doc["kernels"])
    assert total == pytest.approx(a100["projected_s"], rel=1e-9)


def test_cli_without_project_to_adds_nothing(samples_dir: Path, tmp_path: Path) -> None:
    doc = json.loads(_cli(samples_dir, tmp_path, "json"))
    assert "projection" not in doc
    assert "projected_s" not in doc["kernels"][0] and "projected" not in doc["launches"][0]


def test_cli_html_has_the_headline_and_a_column(samples_dir: Path, tmp_path: Path) -> None:
    page = _cli(samples_dir, tmp_path, "html", "--project-to", "a100_40gb_pcie")
    assert "On A100 PCIe 40GB this profile would take" in page
    assert 'data-key="projected_0"' in page and ">on a100_40gb_pcie</th>" in page
    assert "Projection model: projected time = measured time x" in page


def test_cli_markdown_has_the_headline_and_a_column(samples_dir: Path, tmp_path: Path) -> None:
    md = _cli(samples_dir, tmp_path, "md", "--project-to", "a100_40gb_pcie")
    assert "\nOn A100 PCIe 40GB this profile would take " in md
    assert "| On a100\\_40gb\\_pcie |" in md


def test_cli_unknown_target_is_a_usage_error(samples_dir: Path) -> None:
    proc = run("report", str(samples_dir / V100_EXPORT), "--project-to", "a1OO", "-o", "-")
    assert proc.returncode == 2
    assert "--project-to: unknown GPU" in proc.stderr and "did you mean" in proc.stderr


def test_a_roof_the_target_lacks_is_left_out_and_said() -> None:
    no_l2 = resolve_gpu("a100_40gb_pcie").spec
    no_l2 = GpuSpec(
        **{f.name: getattr(no_l2, f.name) for f in fields(GpuSpec)} | {"memory": {"dram": 1555e9}}
    )
    frame = _frame(
        duration_s=1e-3, dram_bytes=1e8, peak_dram_bytes_per_s=900e9, l2_bytes=1e8,
        peak_l2_bytes_per_s=3e12,
    )  # fmt: skip
    projected, basis, _ = project(frame, no_l2, clocks="datasheet")
    assert projected[0] == pytest.approx(1e-3 * 900e9 / 1555e9)
    assert basis[0] == "roof; without the l2 roof (no figure on both GPUs)"


def test_with_a_timeline_the_headline_says_what_it_projects() -> None:
    import ncu_roofline
    from tests.helpers import REPO, SAMPLE

    trace = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.nsys_cuda_gpu_trace.csv"
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]), nsys=[trace])
    project_analysis(analysis, [resolve_gpu("h200_sxm")])
    headline = analysis.projections[0]["headline"]
    assert headline is not None
    assert headline.endswith("(the launches ncu profiled, not the timeline's real time).")
