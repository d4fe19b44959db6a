"""The GPU inferred from an export's evidence when it names none (or one the table lacks).

Every shared export is checked: which get roofs without --gpu, from which
evidence, and which stay without (listing the table GPUs that fit).  The
numbers in the expected notes are worked out from the exports by hand in
the comments.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ncu_roofline
from ncu_roofline.analysis.roofs.infer import (
    Evidence,
    implied_dram_peak,
    infer_gpu,
)
from ncu_roofline.core.hardware import builtin_gpus

CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
GIOTYP = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"
LAKOC_OUT = "Lakoc__Nbody_CUDA__profile_1.out"
LAKOC_REP = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
NSIGHT_REP = "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep"
YKTIAN = (
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_"
    "ncu_metrics_show_torch.txt"
)
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention_actual_"
    "parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
MEINIE = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
WANGZY_V100 = "wangzy0327__cuda-roofline__src_output.csv"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"


def _analyse(samples_dir: Path, name: str) -> ncu_roofline.Analysis:
    if name.endswith(".ncu-rep"):
        pytest.importorskip("ncu_report")
    return ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]))


def _inference_note(a: ncu_roofline.Analysis) -> str:
    (dev,) = a.roofs
    notes = [n for n in dev.notes if "inferred because" in n]
    assert len(notes) == 1, dev.notes
    return notes[0]


# --- exports that now get roofs --------------------------------------------------------


def test_codegandee_is_an_rtx_5090_from_its_implied_dram_peak(samples_dir: Path) -> None:
    # CC 12.0 (the CC column).  "Memory Throughput" 156.55 Gbyte/s over ncu's
    # DRAM Throughput 8.87% = 156.55 / 0.0887 = 1764.9 GB/s: 1.5% below the
    # RTX 5090's 1792 GB/s (within 4%: evidence for it).  SM Frequency 2.00
    # GHz is 0.8% under its 2017 MHz base clock (within 1.5%: evidence too).
    a = _analyse(samples_dir, CODEGANDEE)
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "rtx_5090"
    note = _inference_note(a)
    assert note.startswith(
        "GeForce RTX 5090 (rtx_5090) inferred because the export does not name its GPU: CC 12.0, "
        "DRAM peak 1.76 TB/s implied by ncu's DRAM %, SM clock 2000 MHz on every launch, its "
        "2017 MHz base clock"
    )
    assert note.endswith("name the GPU with --gpu if it is another")
    dram = next(c for c in dev.ceilings if c.key == "dram")
    assert dram.value == pytest.approx(1792e9)
    assert dram.source == "table: GeForce RTX 5090 (built-in table, inferred from the export)"
    assert not [f for f in a.findings if f.kind == "no-roofs"]


def test_gardenia_is_an_a100_pcie_40gb_from_its_base_clock(samples_dir: Path) -> None:
    # CC 8.0; smsp__cycles_elapsed.avg.per_second 764.87 / 764.87 / 764.44
    # MHz (steady: max/min = 1.0006), median 764.87 -> "765 MHz", the A100
    # PCIe 40GB's 765 MHz base clock (0.02% off).  The other CC 8.0 GPUs'
    # base clocks are 930 (A30), 1095 (A100 SXM4 40GB), 1065 (A100 PCIe 80GB)
    # or unknown (A100 SXM4 80GB): no evidence for them.  The SXM4 40GB has
    # identical roofs.
    a = _analyse(samples_dir, GARDENIA)
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "a100_40gb_pcie"
    assert _inference_note(a) == (
        "A100 PCIe 40GB (a100_40gb_pcie) inferred because the export does not name its GPU: "
        "CC 8.0, SM clock 765 MHz on every launch, its 765 MHz base clock (ncu locks clocks to "
        "base by default); a100_40gb_sxm would give the same roofs; a30, a100_80gb_sxm, "
        "a100_80gb_pcie also have CC 8.0 but fit less well; name the GPU with --gpu if it is another"
    )
    # The gemm (launch 2) is now placed: FP32 roof 19.5 TFLOP/s x 764.44 / 1410 MHz.
    assert a.launches["peak_fp32_flops_per_s"].iloc[2] == pytest.approx(
        19.5e12 * 764.444046e6 / 1410e6, rel=1e-6
    )
    assert a.launches["bound"].iloc[2] == "compute"


def test_wangzy_a100_rules_out_the_a30_by_the_dram_rate_it_reached(samples_dir: Path) -> None:
    # Launch 5 (the CUTLASS GEMM): 147,554,817,792 bytes in
    # 100,768,951 cycles / 764,999,575.78 Hz = 0.131725 s -> 1120.2 GB/s,
    # above 1.1 x the A30's 933 GB/s = 1026 GB/s: the A30 is ruled out.  The
    # clock, 765.0 MHz on all 11 launches, is the A100 PCIe 40GB base clock.
    a = _analyse(samples_dir, WANGZY_A100)
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "a100_40gb_pcie"
    note = _inference_note(a)
    assert "SM clock 765 MHz on every launch, its 765 MHz base clock" in note
    assert "ruled out: a30 (DRAM 933 GB/s, below the 1.12 TB/s measured)" in note
    # The INDEX records this run's program output: "A100-PCIE-40GB".
    assert a.launches["peak_dram_bytes_per_s"].iloc[5] == pytest.approx(1555e9)


def test_wangzy_v100_is_a_v100_pcie_whose_two_sizes_share_roofs(samples_dir: Path) -> None:
    # CC 7.0; sm__cycles_elapsed.avg.per_second over the 11 launches spans
    # 1231.58 .. 1236.08 MHz (steady: 1.0037), median 1233.45 -> "1233 MHz",
    # 0.93% below the V100 PCIe's 1245 MHz base clock.  The 16GB and 32GB
    # PCIe cards have identical roofs (the program output says
    # V100-PCIE-32GB); the SXM2 cards list no base clock.
    a = _analyse(samples_dir, WANGZY_V100)
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "v100_pcie_16gb"
    note = _inference_note(a)
    assert "CC 7.0, SM clock 1233 MHz on every launch, its 1245 MHz base clock" in note
    assert "v100_pcie_32gb would give the same roofs" in note
    assert "v100_sxm2_16gb, v100_sxm2_32gb also have CC 7.0 but fit less well" in note
    # InitializeMatrix launch 0: 837,859,712 bytes... now against the 900 GB/s roof.
    assert a.launches["peak_dram_bytes_per_s"].iloc[0] == pytest.approx(900e9)


def test_lakoc_rep_without_its_name_is_inferred_from_sms_and_dram(samples_dir: Path) -> None:
    # The same A100-SXM4-40GB report with its device name removed: 108 SMs
    # (device__attribute_multiprocessor_count) and ncu's DRAM peak
    # 1280 B/cycle x 1.21511 GHz = 1555.3 GB/s point to the 40GB A100s (the
    # 80GB ones have 2039 / 1935 GB/s, 24-31% off: ruled out; the A30 has 56
    # SMs).  The SM clock varies 1.0794 .. 1.1029 GHz (2.2%, not steady), so
    # the base clock says nothing; SXM4 and PCIe 40GB share their roofs.
    pytest.importorskip("ncu_report")
    profile = ncu_roofline.load([str(samples_dir / LAKOC_REP)])
    profile.launches["device_name"] = None
    a = ncu_roofline.analyze(profile)
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "a100_40gb_sxm"
    note = _inference_note(a)
    assert note.startswith(
        "A100 SXM4 40GB (a100_40gb_sxm) inferred because the export does not name its GPU: "
        "CC 8.0, 108 SMs, DRAM peak 1.56 TB/s from ncu's peak metrics"
    )
    assert "a100_40gb_pcie would give the same roofs" in note
    assert "ruled out: a30 (56 SMs), a100_80gb_sxm (DRAM 2.04 TB/s), a100_80gb_pcie" in note


# --- exports that stay without roofs, and why ------------------------------------------


def test_giotyp_fits_five_gpus_by_cc_alone_and_none_is_used(samples_dir: Path) -> None:
    # A summary export: CC 8.0, DRAM sectors, no duration, clock or SM count.
    a = _analyse(samples_dir, GIOTYP)
    (dev,) = a.roofs
    assert dev.gpu is None
    expected = ("a30", "a100_40gb_sxm", "a100_80gb_sxm", "a100_40gb_pcie", "a100_80gb_pcie")
    assert dev.candidates == expected
    assert any(
        "by its compute capability alone (CC 8.0) it could be " + ", ".join(expected) in n
        for n in dev.notes
    )
    (finding,) = [f for f in a.findings if f.kind == "no-roofs"]
    assert "the export fits " + ", ".join(expected) in finding.message
    assert "--gpu NAME" in finding.message


@pytest.mark.parametrize("name", [LAKOC_OUT, YKTIAN, LELEUCAS])
def test_exports_without_a_compute_capability_infer_nothing(samples_dir: Path, name: str) -> None:
    # Kernel-Time-header exports: no Device/CC columns, no device attributes.
    a = _analyse(samples_dir, name)
    (dev,) = a.roofs
    assert dev.gpu is None and dev.candidates == ()
    assert (
        "the export does not name its GPU and gives no compute capability, so no GPU of the "
        "table is inferred"
    ) in dev.notes
    assert [f.kind for f in a.findings].count("no-roofs") == 1


@pytest.mark.parametrize(
    ("name", "gpu"),
    [
        # Named devices the table matches: no inference.
        (LAKOC_REP, "a100_40gb_sxm"),
        (MEINIE, "b200"),
        # RTX 5060 Ti (CC 12.0, ncu's DRAM peak 32 B/cycle x 13.79 GHz = 441 GB/s,
        # 75% below the RTX 5090): nothing fits, its own peaks are its roofs.
        (LUKAS, None),
        # The RTX 3070 is in the table now, matched by the name the report stores.
        (NSIGHT_REP, "rtx_3070"),
    ],
)
def test_exports_that_need_no_inference_are_unchanged(
    samples_dir: Path, name: str, gpu: str | None
) -> None:
    a = _analyse(samples_dir, name)
    (dev,) = a.roofs
    assert (dev.gpu.key if dev.gpu else None) == gpu
    assert not [n for n in dev.notes if "inferred" in n]
    assert not [c for c in dev.ceilings if "inferred" in c.source]


def test_an_explicit_gpu_is_never_second_guessed(samples_dir: Path) -> None:
    a = ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / GARDENIA)]), gpu="a100_80gb_sxm")
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "a100_80gb_sxm"
    assert not [n for n in dev.notes if "inferred" in n]


# --- the rules, on hand-made evidence --------------------------------------------------


def test_cc_alone_never_decides_even_with_one_table_gpu() -> None:
    result = infer_gpu(Evidence(cc="12.0"), None)
    assert result.spec is None
    assert result.candidates == ("rtx_5090", "rtx_5070")
    assert "which does not identify a GPU" in (result.note or "")


def test_sm_count_and_implied_dram_pick_the_80gb_sxm() -> None:
    # The brief's example: CC 8.0, 108 SMs, 2.04 TB/s.  The A100 SXM4 80GB
    # (2039 GB/s, 0.05% off) scores 2; the PCIe 80GB (1935, 5.1% off) keeps
    # only the SM count; the 40GB cards (1555, 24% off) are ruled out.
    result = infer_gpu(
        Evidence(cc="8.0", sms=108, dram_peak=2.04e12, dram_how="implied by ncu's DRAM %"), None
    )
    assert result.spec is not None and result.spec.key == "a100_80gb_sxm"
    assert "a100_80gb_pcie also have CC 8.0 but fit less well" in (result.note or "")


def test_a_dram_peak_between_two_gpus_is_a_tie() -> None:
    # 1985 GB/s: 2.6% from 2039 and 2.6% from 1935: both fit equally.
    result = infer_gpu(Evidence(cc="8.0", sms=108, dram_peak=1.985e12, dram_how="x"), None)
    assert result.spec is None
    assert result.candidates == ("a100_80gb_sxm", "a100_80gb_pcie")
    assert "equally well" in (result.note or "")


def test_an_unmatched_device_name_is_said() -> None:
    result = infer_gpu(Evidence(cc="8.0", sms=108, dram_peak=2.039e12, dram_how="x"), "NVIDIA A800")
    assert result.spec is not None and result.spec.key == "a100_80gb_sxm"
    assert "because device 'NVIDIA A800' is not in the built-in GPU table" in (result.note or "")


def test_implied_dram_peak_ignores_unreliable_percentages() -> None:
    # 156.55 GB/s at 8.87% -> 1764.9 GB/s; 10 GB/s at 0.65% is under 5%: NaN.
    out = implied_dram_peak(np.array([156.55e9, 10e9, np.nan]), np.array([8.87, 0.65, 50.0]))
    assert out[0] == pytest.approx(156.55e9 / 0.0887)
    assert np.isnan(out[1]) and np.isnan(out[2])


def test_every_table_gpu_is_inferred_from_its_own_datasheet_facts() -> None:
    # Each GPU with a CC, an SM count and a DRAM bandwidth is found from those,
    # unless another entry with identical facts exists (then they tie).
    for spec in builtin_gpus():
        if not (spec.cc and spec.sms and "dram" in spec.memory):
            continue
        ev = Evidence(cc=spec.cc, sms=spec.sms, dram_peak=spec.memory["dram"], dram_how="x")
        result = infer_gpu(ev, None)
        if result.spec is not None:
            assert result.spec.sms == spec.sms
            assert result.spec.memory["dram"] == pytest.approx(spec.memory["dram"], rel=0.04)
        else:
            assert spec.key in result.candidates
