"""Tensor work never silently missed, precision stated truly, points from rates.

Three rules, each checked on the real exports of ``../shared/ncu-samples/``
(1-based line numbers of the files as stored in the comments) and on
synthetic launches:

1. A launch with tensor-core work that no tensor counter of the export
   counts (a tensor-core kernel name, or a tensor pipe at least 1% busy, and
   no ``sm__ops_path_tensor_*`` / ``sm__inst_executed_pipe_tensor`` count) is
   ``tensor_uncounted``, not placed, and named in a ``tensor-uncounted``
   finding with the metrics to collect.  A tensor-pipe measurement under 1%
   overrides the name.
2. HFMA instructions issued as HFMA2.MMA (register moves on the tensor pipe:
   tensor-pipe warp instructions x 32 up to the HFMA count) are no FP16 work.
3. An export of ncu's roofline-chart section (rates, clocks and peaks, no
   duration) is placed from the rates; the recoverable time stays unknown.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.analysis.catalogue import CATALOGUE, GATEABLE_KINDS
from ncu_roofline.analysis.tensor_names import is_tensor_kernel_name
from ncu_roofline.core.metrics import requirement_status, tensor_metrics_to_collect
from ncu_roofline.core.model import Profile
from tests.helpers import analyse_rows, col, counts, fp32, num

GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"

LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
LAKOC = "Lakoc__Nbody_CUDA__profile_1.out"
LAKOC_REP = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
    "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
MEINIE = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
    "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
)

PIPE = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"


def _launches(path: Path, gpu: str | None = None) -> pd.DataFrame:
    return ncu_roofline.analyze(ncu_roofline.load(str(path)), gpu=gpu).launches


def _metric(path: Path, name: str) -> list[float]:
    """One metric of every launch, as the reader kept it."""
    return [float(v) for v in ncu_roofline.load(str(path)).launches[name]]


def _sections(source: Path, target: Path, keep: tuple[str, ...], labels: tuple[str, ...]) -> None:
    """``source`` with only the rows of the ``keep`` sections (and rows labelled ``labels``)."""
    with source.open(newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    sec, label = header.index("Section Name"), header.index("Metric Name")
    kept = [r for r in rows[1:] if r[sec] in keep or r[label] in labels]
    with target.open("w", newline="") as f:
        csv.writer(f, quoting=csv.QUOTE_ALL).writerows([header, *kept])


# --- 1. tensor-core work the export does not count ----------------------------


def test_tensor_kernel_names_in_every_shared_export(samples_dir: Path) -> None:
    # Read by hand from every export's Kernel Name column: the CUTLASS and
    # cuBLAS tensor-core GEMMs match (tensorop / TensorOp / s16816gemm), the
    # SIMT ampere_sgemm_*, the FlashInfer decode kernel, PyTorch elementwise
    # kernels (TensorIterator...) and the hand-written GEMM gemm_v0 do not.
    matched: set[str] = set()
    unmatched: set[str] = set()
    for path in sorted(samples_dir.iterdir()):
        if path.suffix == ".md" or path.is_dir():
            continue
        frame = ncu_roofline.load(str(path)).launches
        for kernel, short in (
            frame[["kernel", "kernel_short"]].drop_duplicates().itertuples(index=False)
        ):
            (matched if is_tensor_kernel_name(str(kernel)) else unmatched).add(
                f"{path.name[:12]}:{str(short)[:34]}"
            )
    assert matched == {
        "CodeGandee__:Kernel2<cutlass_80_tensorop_bf16_s",
        "lukas-ruettg:Kernel<Gemm>",
        "wangzy0327__:Kernel<Gemm>",
        "wangzy0327__:Kernel<cutlass_70_tensorop_s884gem",
        "wangzy0327__:ampere_s16816gemm_fp16_256x128_ldg",
    }
    assert "leleucas__Ac:ampere_sgemm_32x32_sliced1x4_tn" in unmatched
    assert "meinie0826__:BatchDecodeWithPagedKVCacheKernel" in unmatched
    assert "Gardenia-Tia:gemm_v0" in unmatched


@pytest.mark.parametrize(
    ("name", "tensor"),
    [
        ("sm80_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64_stage3_kernel", True),
        ("turing_h1688gemm_128x128_ldg8_nn", True),
        ("volta_h884gemm_256x128_ldg8_nn", True),
        ("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NTN", True),
        ("cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x128x64", True),
        ("void cutlass::Kernel<Gemm<... arch::Mma<GemmShape<16, 8, 16>, 32, half_t, ...>>", True),
        ("void gemm_wgmma_kernel<128, 256>(...)", True),
        ("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 64, 4, cutlass::half_t>>", False),
        ("volta_sgemm_128x64_nn", False),
        (
            "void cutlass::Kernel<...arch::Mma<GemmShape<1, 1, 1>, 1, float, ...OpMultiplyAdd>>",
            False,
        ),
        ("void at::native::fill_kernel(c10::TensorOptions const&)", False),
        ("gemma_rmsnorm_kernel", False),
    ],
)
def test_tensor_kernel_name_pattern(name: str, tensor: bool) -> None:
    assert is_tensor_kernel_name(name) is tensor


def test_a_measured_idle_tensor_pipe_overrides_the_name(samples_dir: Path) -> None:
    # The CUTLASS GEMM of the RTX 5060 Ti export is named ...VoltaTensorOp...,
    # but line 35 measures "SM: Pipe Tensor Cycles Active" "0" %: the
    # m8n8k4 MMAs ran on the FMA pipes (line 73: 407.15 FFMA per cycle).  Not
    # marked, placed as before: DRAM 98.06 / 441.28 GB/s = 22.2% (line 86;
    # lines 76, 77: 32 B/cycle x 13.79 GHz).
    launches = _launches(samples_dir / LUKAS)
    # The SOL breakdown rows are percentages of elapsed cycles.
    breakdown = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
    assert _metric(samples_dir / LUKAS, breakdown) == [0.0, 0.0, 0.0, 0.0]
    assert not launches["tensor_uncounted"].any()
    assert launches["bound"].tolist() == ["memory"] * 4
    assert launches["efficiency"].iloc[0] == pytest.approx(98.06 / (32 * 13.79), rel=1e-4)


def test_hfma2_mma_traffic_on_the_pipe_is_below_the_threshold(samples_dir: Path) -> None:
    # The n-body report measures sm__pipe_tensor_cycles_active at 0.0063% and
    # 0.0084% (HFMA2.MMA moves), far under 1%: nothing is marked.
    launches = _launches(samples_dir / LAKOC_REP)
    util = _metric(
        samples_dir / LAKOC_REP, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"
    )
    assert all(0 < u < 0.01 for u in util)
    assert not launches["tensor_uncounted"].any()


def test_idle_tensor_pipe_of_a_decode_attention_kernel(samples_dir: Path) -> None:
    # FlashInfer's decode kernel on a B200: every tensor-pipe column is "0".
    launches = _launches(samples_dir / MEINIE)
    assert set(_metric(samples_dir / MEINIE, PIPE)) == {0.0}
    assert not launches["tensor_uncounted"].any()


def test_roofline_chart_export_of_a_tensor_core_gemm_is_not_placed(
    samples_dir: Path, tmp_path: Path
) -> None:
    # What `--section SpeedOfLight_RooflineChart` alone exports: the rows of
    # that section only (lines 70-91 for ID 0), so no tensor-pipe measurement
    # and no duration.  The name says tensor cores and nothing counts tensor
    # work: not placed, with the CC 12.0 tensor counters named.
    path = tmp_path / "roofline_chart.csv"
    _sections(samples_dir / LUKAS, path, ("GPU Speed Of Light Roofline Chart",), ())
    a = ncu_roofline.analyze(ncu_roofline.load(str(path)))
    launches = a.launches
    assert launches["tensor_uncounted"].tolist() == [True] * 4
    assert set(launches["tensor_uncounted_basis"]) == {"the kernel name says tensor cores"}
    assert set(launches["bound"]) == {"not placeable"}
    assert "tensor-core work not counted" in str(launches["bound_reason"].iloc[0])
    assert a.kernels["bound"].tolist() == ["not placeable"]
    [finding] = [f for f in a.findings if f.kind == "tensor-uncounted"]
    assert finding.severity == "warning"
    assert "Kernel<Gemm>" in finding.message and "CC 12.0" in finding.message
    assert "sm__ops_path_tensor_src_fp16_dst_fp32.sum" in finding.message
    assert "--section SpeedOfLight_HierarchicalTensorRooflineChart" in finding.message


def _imma_gemm(**extra: float) -> dict[str, float]:
    # An int8 IMMA GEMM exported with the SASS counters only: its 1e6 FP32
    # FLOPs are the dequantising epilogue, 1e5 bytes, 1 ms.
    return {**fp32(1e6), "dram__bytes.sum": 1e5, "gpu__time_duration.sum": 1e-3, **extra}


def test_an_imma_gemm_without_tensor_counters_is_not_placed() -> None:
    # Without the check: 1e6 FLOP / 1e-3 s = 1 GFLOP/s against the 1 TFLOP/s
    # roof, 10 FLOP/byte at the ridge: a confident "compute" at 0.1%.
    name = "sm80_xmma_gemm_i8i8_i8i32_f32_tn_n_tilesize128x128x64_stage3_kernel"
    a = analyse_rows([_imma_gemm(), _imma_gemm()], kernel=[name, "plain_fp32_kernel"])
    assert col(a, "tensor_uncounted") == [True, False]
    assert col(a, "bound")[0] == "not placeable"
    assert "tensor-core work not counted" in col(a, "bound_reason")[0]
    assert col(a, "bound")[1] == "compute"
    assert num(a, "efficiency", 1) == pytest.approx(1e-3)
    [finding] = [f for f in a.findings if f.kind == "tensor-uncounted"]
    assert finding.kernel == name
    # The synthetic GPU is CC 8.0 (GA100): the dense per-datatype counters.
    assert "sm__ops_path_tensor_src_int8_sparsity_off.sum" in finding.message


def test_tensor_pipe_activity_marks_a_launch_whatever_its_name() -> None:
    # 37.5% and 1.0% busy (the threshold) mark the launch; 0.99% does not.
    rows = [
        _imma_gemm(**{"sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active": p})
        for p in (37.5, 1.0, 0.99)
    ]
    a = analyse_rows(rows, kernel="my_gemm")
    assert col(a, "tensor_uncounted") == [True, True, False]
    assert col(a, "tensor_uncounted_basis")[0] == (
        "tensor pipe 37.5% busy "
        "(sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active)"
    )
    assert col(a, "bound")[:2] == ["not placeable", "not placeable"]


def test_counted_tensor_work_is_not_marked() -> None:
    # The same busy GEMM with an ops_path count (2e9 int8 ops) is placed.
    row = _imma_gemm(
        **{PIPE: 60.0, "sm__ops_path_tensor_src_int8_sparsity_off.sum": 2e9},
    )
    a = analyse_rows([row], kernel="sm80_xmma_gemm_i8i8")
    assert col(a, "tensor_uncounted") == [False]
    assert num(a, "flops_tensor") == 2e9


UTILISATION = st.sampled_from(
    [
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__pipe_tensor_subpipe_imma_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active",
        "smsp__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active",
    ]
)
NAMES = st.sampled_from(["k", "elementwise_kernel", "ampere_sgemm_128x128_nn", "flash_fwd"])
#: Names of a matrix family (GEMM, attention), for which a trace of tensor work counts.
MATRIX_NAMES = st.sampled_from(["ampere_sgemm_128x128_nn", "flash_fwd_kernel<Flash_fwd_traits>"])


@settings(max_examples=60, deadline=None)
@given(
    metric=UTILISATION,
    pct=st.floats(min_value=5.0, max_value=100.0, allow_nan=False),
    name=NAMES,
    cc=st.sampled_from(["7.5", "8.0", "8.6", "9.0", "12.0"]),
    fp32_flops=st.floats(min_value=0.0, max_value=1e15, allow_nan=False),
)
def test_tensor_pipe_activity_without_counters_always_marks(
    metric: str, pct: float, name: str, cc: str, fp32_flops: float
) -> None:
    a = analyse_rows(
        [{**fp32(fp32_flops), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-4, metric: pct}],
        kernel=name,
        cc=cc,
    )
    assert col(a, "tensor_uncounted") == [True]
    assert col(a, "bound") == ["not placeable"]
    assert any(f.kind == "tensor-uncounted" for f in a.findings)


@settings(max_examples=30, deadline=None)
@given(
    metric=UTILISATION,
    pct=st.floats(min_value=1.0, max_value=4.99, allow_nan=False),
    name=MATRIX_NAMES,
    cc=st.sampled_from(["7.5", "8.0", "9.0"]),
)
def test_a_trace_of_tensor_work_marks_matrix_kernels(
    metric: str, pct: float, name: str, cc: str
) -> None:
    """Between 1% and 5% busy, the tensor pipe matters only in a matrix-family kernel."""
    a = analyse_rows(
        [{**fp32(1e9), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-4, metric: pct}],
        kernel=name,
        cc=cc,
    )
    assert col(a, "tensor_uncounted") == [True]


#: A real PyTorch random-number kernel name (the BERT export's launch 0).
RNG_KERNEL = (
    "void at::native::<unnamed>::distribution_elementwise_grid_stride_kernel<float, (int)4, "
    "void at::native::templates::cuda::uniform_and_transform<float, float, (unsigned long)4, "
    "at::CUDAGeneratorImpl *>(at::TensorIteratorBase &, T4)>(int, at::PhiloxCudaState, T3, T4)"
)


def test_no_tensor_alarm_for_a_random_number_kernel_at_1_2_pct() -> None:
    """The tensor pipe 1.2% busy in an RNG kernel is no evidence of uncounted tensor work;
    the same 1.2% in a GEMM is (its product may be the whole kernel, memory-bound)."""
    metric = "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"
    row = {**fp32(1e9), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-4, metric: 1.2}
    rng = analyse_rows([row], kernel=RNG_KERNEL, cc="8.0")
    assert col(rng, "tensor_uncounted") == [False]
    assert not any(f.kind == "tensor-uncounted" for f in rng.findings)
    gemm = analyse_rows([row], kernel="ampere_sgemm_128x64_tn", cc="8.0")
    assert col(gemm, "tensor_uncounted") == [True]
    assert any(f.kind == "tensor-uncounted" for f in gemm.findings)
    assert "tensor pipe 1.2% busy" in col(gemm, "tensor_uncounted_basis")[0]


def test_tensor_uncounted_is_a_gateable_warning() -> None:
    entry = CATALOGUE["tensor-uncounted"]
    assert entry.severity == "warning" and entry.gateable
    assert "tensor-uncounted" in GATEABLE_KINDS


def test_metrics_to_collect_per_architecture() -> None:
    # docs/ncu-format.md section 5.1: Volta has no ops_path counters; GA100
    # spells its dense counters with _sparsity_off; GB20x has plain aggregates.
    assert tensor_metrics_to_collect("7.0") == ("sm__inst_executed_pipe_tensor.sum",)
    assert "sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum" in tensor_metrics_to_collect(
        "8.0"
    )
    assert "sm__ops_path_tensor_src_bf16_dst_fp32.sum" in tensor_metrics_to_collect("12.0")
    assert "sm__ops_path_tensor_src_fp16.sum" in tensor_metrics_to_collect("9.0")
    assert tensor_metrics_to_collect(None) == ()


@pytest.mark.parametrize(
    "metric",
    [
        "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active",
        "sm__inst_executed_pipe_tensor_op_imma.sum.pct_of_peak_sustained_active",
        "sm__ops_path_tensor_src_fp16.sum.pct_of_peak_sustained_elapsed",
        "sm__ops_path_tensor_src_fp16.sum.peak_sustained",
    ],
)
def test_inspect_utilisation_never_satisfies_a_count(metric: str) -> None:
    present, missing = requirement_status({metric})
    assert "flops_tensor" not in present
    assert "flops_tensor" in [m.key for m in missing]
    present, _ = requirement_status({metric, "sm__ops_path_tensor_src_fp16.sum"})
    assert "flops_tensor" in present


def test_inspect_reads_the_utilisation_but_lists_no_tensor_counts() -> None:
    # Through the launch model: the percentage is kept (evidence for rule 1)
    # and inspect still says tensor-core work is missing.
    from tests.helpers import profile

    metric = "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active"
    p = profile([{**fp32(1.0), metric: 12.5}])
    assert metric in p.present_metrics()
    present, _ = requirement_status(p.present_metrics())
    assert "flops_tensor" not in present


# --- 2. HFMA2.MMA register moves are no FP16 work ------------------------------


def test_hfma2_mma_moves_of_a_float_copy_and_a_float_add(samples_dir: Path) -> None:
    launches = _launches(samples_dir / LELEUCAS, gpu="a100_40gb_sxm")
    copy = launches[launches["id"] == 5].iloc[0]
    add = launches[launches["id"] == 8].iloc[0]
    assert "direct_copy_kernel_cuda" in copy["kernel"]
    assert "CUDAFunctor_add<float>" in add["kernel"]
    # Copy, ID 5: hfma line 350 "20,480", tensor-pipe line 342 "640" ->
    # 640 x 32 = 20,480 HFMA2.MMA moves; every other FP counter "0".
    # FP16 = 4 x (20,480 - 20,480) = 0 (was 81,920): no FLOPs, no precision.
    assert copy["flops_fp16"] == 0.0
    assert copy["flops"] == 0.0
    assert pd.isna(copy["precision"])
    assert "less HFMA2.MMA register moves" in copy["flops_fp16_basis"]
    # Add, ID 8: ffma line 533 "10,240" (fadd 532, fmul 534 "0") -> FP32 20,480;
    # hfma line 536 "10,240", tensor line 528 "320" x 32 = 10,240 moves -> FP16 0;
    # DRAM line 497 "41,984" B: intensity 20,480 / 41,984 = 0.4878 (was
    # 61,440 / 41,984 = 1.4634 with the moves as FP16).
    assert add["flops_fp32"] == 20_480.0
    assert add["flops_fp16"] == 0.0
    assert add["ai_dram"] == pytest.approx(20_480 / 41_984, rel=1e-12)
    assert round(add["ai_dram"], 2) == 0.49
    assert add["precision"] == "fp32"


def test_no_shared_fp32_kernel_keeps_fp16_work(samples_dir: Path) -> None:
    # Every HFMA of the BERT (fp32) and n-body exports was an HFMA2.MMA move:
    # no launch is left with FP16 FLOPs or an fp16 precision.
    for path in (samples_dir / LELEUCAS, samples_dir / LAKOC):
        launches = _launches(path, gpu="a100_40gb_sxm")
        assert (launches["flops_fp16"] == 0).all()
        assert "fp16" not in set(launches["precision"].dropna())


# --- 3. points from rates alone --------------------------------------------------


def test_roofline_chart_rates_place_the_point(samples_dir: Path, tmp_path: Path) -> None:
    # The roofline-chart rows of the RTX 5060 Ti export plus its measured
    # tensor-pipe utilisation (line 35, "0": no tensor work), no duration.
    # ID 0, by hand: FLOP/s = (FADD 101.79 line 84 + FMUL 12.72 line 85
    # + 2 x FFMA 407.15 line 73) x 2.40 GHz line 83 = 928.81 x 2.4e9
    # = 2.229144e12; DRAM 98.06 GB/s line 86; intensity 2.229144e12 / 98.06e9
    # = 22.7324 FLOP/B, under the ridge 2 x 4608 x 2.40e9 / (32 x 13.79e9)
    # = 22.118e12 / 441.28e9 = 50.12 (lines 71, 75, 76, 77): memory-bound at
    # 98.06 / 441.28 = 22.22% of the DRAM roof.  No duration: no recoverable time.
    path = tmp_path / "roofline_chart.csv"
    _sections(
        samples_dir / LUKAS,
        path,
        ("GPU Speed Of Light Roofline Chart",),
        ("SM: Pipe Tensor Cycles Active",),
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(path)))
    row = a.launches[a.launches["id"] == 0].iloc[0]
    assert math.isnan(row["duration_s"]) and math.isnan(row["flops"])
    assert not row["tensor_uncounted"]
    assert row["achieved_flops_per_s"] == pytest.approx(928.81 * 2.4e9, rel=1e-12)
    assert row["dram_bytes_per_s"] == pytest.approx(98.06e9, rel=1e-12)
    assert row["ai_dram"] == pytest.approx(928.81 * 2.4e9 / 98.06e9, rel=1e-12)
    assert row["peak_flops_per_s"] == pytest.approx(2 * 4608 * 2.4e9, rel=1e-12)
    assert row["ridge_dram"] == pytest.approx(2 * 4608 * 2.4e9 / (32 * 13.79e9), rel=1e-12)
    assert row["precision"] == "fp32"
    assert row["bound"] == "memory"
    assert row["efficiency"] == pytest.approx(98.06 / (32 * 13.79), rel=1e-12)
    assert math.isnan(row["recoverable_s"])
    # The kernel group (4 launches, no durations to weigh by): each launch
    # counts once; DRAM rates lines 86, 177, 268, 359 average to 98.79 GB/s.
    [group] = a.kernels.to_dict("records")
    assert group["bound"] == "memory"
    assert group["dram_bytes_per_s"] == pytest.approx((98.06 + 98.54 + 100.47 + 99.09) / 4 * 1e9)
    assert group["efficiency"] == pytest.approx(
        (98.06 + 98.54 + 100.47 + 99.09) / 4 / (32 * 13.79), rel=1e-9
    )
    assert math.isnan(group["recoverable_s"])
    assert not [f for f in a.findings if f.kind == "not-placeable"]


def test_rates_place_a_report_without_its_duration(samples_dir: Path) -> None:
    # The n-body report (SpeedOfLight_RooflineChart among its sections) with
    # gpu__time_duration.sum dropped: the rates alone place both kernels as
    # the full report does.  calculate_velocity: (FADD 1927.2555 + FMUL
    # 1498.9701 + 2 x FFMA 642.4921 per cycle) x 1.0950643e9 Hz = 5.1591e12
    # FLOP/s against 2 x 6912 x 1.0950643e9 = 1.5138e13: compute-bound at
    # 34.08%, intensity 5.1591e12 / 118.75e6 B/s = 43,445.
    profile = ncu_roofline.load(str(samples_dir / LAKOC_REP))
    full = ncu_roofline.analyze(profile).launches
    frame = profile.launches.drop(columns=["gpu__time_duration.sum"])
    frame["duration_s"] = np.nan
    frame["duration_basis"] = None
    launches = ncu_roofline.analyze(Profile(frame, profile.sources)).launches
    assert launches["duration_s"].isna().all()
    assert launches["bound"].tolist() == full["bound"].tolist() == ["compute", "latency", "latency"]
    for column in ("achieved_flops_per_s", "ai_dram", "efficiency"):
        assert launches[column].tolist() == pytest.approx(full[column].tolist(), rel=1e-12)
    first = launches.iloc[0]
    rate = (1927.255517 + 1498.970059 + 2 * 642.492084) * 1_095_064_260.14092
    assert first["achieved_flops_per_s"] == pytest.approx(rate, rel=1e-9)
    assert first["efficiency"] == pytest.approx(rate / (2 * 6912 * 1_095_064_260.14092), rel=1e-9)
    assert launches["recoverable_s"].isna().all()


def test_missing_duration_without_rates_is_still_not_placed() -> None:
    # Counts but no duration and no rates (ncu's summary page of the Giotyp
    # export has the same shape): nothing to place a point with.
    row: dict[str, Any] = {**counts("fp32", 1e6, 0.0, 0.0), "dram__bytes.sum": 1e5}
    a = analyse_rows([row])
    assert col(a, "bound") == ["not placeable"]
    assert col(a, "bound_reason") == ["no duration in the export"]


def test_hfma_moves_without_fp16_counts_are_no_error(samples_dir: Path, tmp_path: Path) -> None:
    """Launch 2 of the Gardenia export has 104,857,600 tensor-pipe instructions
    (HFMA2.MMA moves); its HMUL count is on the file's last line.  Cut that
    line and the launch has moves but no complete FP16 count: FP16 FLOPs
    stay missing (nothing to correct), where this was an internal error."""
    lines = (samples_dir / GARDENIA).read_text(encoding="utf-8").splitlines(keepends=True)
    assert "hmul_pred_on" in lines[-1] and lines[-1].startswith('"2"')
    cut = tmp_path / "cut.csv"
    cut.write_text("".join(lines[:-1]), encoding="utf-8")
    a = ncu_roofline.analyze(ncu_roofline.load([str(cut)]))
    row = a.launches[a.launches["id"] == 2].iloc[0]
    assert math.isnan(float(row["flops_fp16"]))
