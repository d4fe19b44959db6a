"""The limiter and the honest recoverable time, on real exports and by property.

Every expected value is worked out by hand from the export's own metric
values (quoted in the comments).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import analyse_rows, col, fp32, num
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline

LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
NBODY = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
CURAND = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
BERT = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
DAXPY = "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep"


def _analyse(samples_dir: Path, name: str, gpu: str | None = None) -> Any:
    return ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]), gpu=gpu)


def test_cutlass_gemm_is_l1_limited_not_dram(samples_dir: Path) -> None:
    """RTX 5060 Ti CUTLASS GEMM: left of the ridge, but L1/TEX is the busiest unit.

    Launch 0: l1tex__throughput 58.04% of active cycles; the SM was active
    1,244,128.36 of 1,318,955 elapsed cycles (gpc__cycles_elapsed.max), so
    L1/TEX is 58.04% x 0.94327 = 54.75% busy over the launch, as ncu's own
    memory throughput (54.76%) says.  DRAM is 22.23%.  At most
    549.98 us x (1 - 0.5476) of the launch can be recovered (ncu's SM
    throughput 54.76% is the highest utilisation).
    """
    a = _analyse(samples_dir, LUKAS)
    row = a.launches.iloc[0]
    assert row["bound"] == "memory"
    assert row["limiter"] == "l1"
    assert row["limiter_utilization"] == pytest.approx(0.5804 * 1244128.36 / 1318955, rel=1e-4)
    assert row["max_utilization"] == pytest.approx(0.5476, rel=1e-3)
    assert row["recoverable_s"] == pytest.approx(549.98e-6 * (1 - 0.5476), rel=1e-3)
    k = a.kernels.iloc[0]
    # Four launches, 2.19379 ms: at most ~45% recoverable, not the DRAM roof's 78%.
    assert k["recoverable_s"] / k["total_duration_s"] == pytest.approx(0.4507, abs=0.002)
    kinds = {f.kind for f in a.findings}
    assert "limiter-disagrees" in kinds
    msg = next(f.message for f in a.findings if f.kind == "limiter-disagrees")
    assert "DRAM is 22% busy while L1/TEX is 55%" in msg


def test_nbody_instruction_mix_caps_the_fp32_roof(samples_dir: Path) -> None:
    """A100 N-body: 84% of the FP32 instructions are FADD/FMUL.

    Per cycle: fadd 1927.256, fmul 1498.970, ffma 642.492 (ncu's doubled
    1284.984 / 2): FFMA share 642.492 / 4068.718 = 15.8%; the mix reaches
    (1 + 0.158) / 2 = 57.9% of the FP32 roof.
    """
    pytest.importorskip("ncu_report")
    a = _analyse(samples_dir, NBODY)
    velocity = a.kernels[a.kernels["kernel_short"] == "calculate_velocity"].iloc[0]
    assert velocity["mix_share"] == pytest.approx(0.57895, rel=1e-4)
    mix = [f for f in a.findings if f.kind == "instruction-mix"]
    assert len(mix) == 1
    assert "84% of calculate_velocity's FP32 instructions" in mix[0].message
    assert "at most 58% of the FP32 roof" in mix[0].message
    # 13.04 ms x (1 - 0.682963), ncu's SM throughput: 4.13 ms, under half the
    # FFMA roof's 8.6 ms.
    assert velocity["recoverable_s"] == pytest.approx(13.03936e-3 * 0.317037, rel=1e-4)
    assert velocity["recoverable_s"] < 0.5 * 8.6e-3


def test_curand_init_promises_no_roof_time(samples_dir: Path) -> None:
    """randomInit (curand state set-up): no FLOPs, DRAM at 0.05%, no speed-of-light.

    Its work is integer arithmetic no FLOP counter sees: the busiest unit
    it has (L2 by its bytes, far under 10%) is named, but no time is
    promised (it was "6.72 s of 6.73 s recoverable") and the speed-of-light
    section that would settle it is asked for.
    """
    a = _analyse(samples_dir, CURAND, gpu="a100_40gb_pcie")
    init = a.kernels[a.kernels["kernel_short"] == "randomInit"]
    assert len(init) == 2
    assert list(init["limiter"]) == ["l2", "l2"]
    assert all(x < 0.10 for x in init["limiter_utilization"])
    assert all(math.isnan(x) for x in init["recoverable_s"])
    assert all(str(b).startswith("unknown: no unit") for b in init["recoverable_basis"])
    assert all("--section SpeedOfLight" in str(x) for x in init["limiter_needs"])
    assert all(x < 0.001 for x in init["dram_utilization"])


def test_bert_latency_time_is_apart(samples_dir: Path) -> None:
    """BERT on an A100: 3-16 us kernels on a few blocks; their time is latency, not recoverable.

    Before, 96.9% of the 178 us was "recoverable".
    """
    a = _analyse(samples_dir, BERT, gpu="a100_40gb_sxm")
    k = a.kernels
    total = float(k["total_duration_s"].sum())
    latency = float(k["latency_s"].sum())
    recoverable = float(np.nansum(k["recoverable_s"]))
    assert total == pytest.approx(178.43e-6, rel=1e-3)
    assert latency / total > 0.9
    # Only the random-number kernel has time to recover: 256 and 768
    # blocks on 108 SMs give every SM a block (0.47 and 1.42 waves), and
    # ncu's SM throughput (at most 38.9%) bounds it: under 10% of the total.
    rng = k[k["kernel_short"] == "distribution_elementwise_grid_stride_kernel"].iloc[0]
    assert recoverable == pytest.approx(float(rng["recoverable_s"]))
    assert rng["recoverable_s"] <= rng["total_duration_s"] * (1 - 0.389) * 1.001
    assert recoverable / total < 0.10
    assert set(k["limiter"]) <= {"latency", "under-filled", "sm"}
    # One finding for the many under-filled latency kernels, not one each.
    thin = [f for f in a.findings if f.kind == "under-filled" and f.kernel is None]
    assert len(thin) == 1
    assert "kernel groups do not fill the GPU" in thin[0].message


def test_daxpy_gets_a_bandwidth_verdict_without_flop_counters(samples_dir: Path) -> None:
    """daxpy on an RTX 3070: no FLOP counters, ncu's DRAM throughput 90.72%.

    DRAM-bound at 90.7% of peak by ncu's own measure, even without roofs for
    the GPU; recoverable 249 us x (1 - 0.9072).
    """
    pytest.importorskip("ncu_report")
    a = _analyse(samples_dir, DAXPY)
    row = a.launches[a.launches["kernel_short"] == "daxpy_kernel"].iloc[0]
    assert row["bound"] == "memory"
    assert row["limiter"] == "dram"
    assert row["efficiency"] == pytest.approx(0.9072, abs=5e-4)
    assert "judged by bandwidth alone" in row["bound_reason"]
    assert row["recoverable_s"] == pytest.approx(
        row["total_duration_s"] * (1 - row["efficiency"]), rel=1e-9
    )


def test_fifty_blocks_on_68_sms_is_under_filled() -> None:
    # An sgemm with 50 blocks on a 68-SM GPU: ai 4e9 / 1e8 = 40 -> compute
    # side, 2.2e11 / 1e12 = 22% of the roof, ncu's SM throughput 22%.  The
    # grid leaves 18 SMs idle and no unit is 60% busy: under-filled, latency
    # time 1 ms, nothing recoverable at a roof (it was "78% recoverable").
    row = {
        **fp32(2.2e8),
        "dram__bytes.sum": 5.5e6,
        "gpu__time_duration.sum": 1e-3,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": 22.0,
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 15.0,
        "device__attribute_multiprocessor_count": 68.0,
    }
    a = analyse_rows([row], kernel="sgemm_128x64_nn", grid="(50, 1, 1)")
    assert num(a, "efficiency") == pytest.approx(0.22)
    assert col(a, "limiter") == ["under-filled"]
    assert col(a, "bound") == ["latency"]
    assert num(a, "recoverable_s") == 0.0
    assert num(a, "latency_s") == pytest.approx(1e-3)
    thin = [f for f in a.findings if f.kind == "under-filled"]
    assert len(thin) == 1 and thin[0].severity == "warning"
    assert "50 block(s) on 68 SMs" in thin[0].message


@settings(max_examples=60, deadline=None)
@given(
    sm=st.floats(min_value=0.0, max_value=100.0),
    mem=st.floats(min_value=0.0, max_value=100.0),
    dram_pct=st.floats(min_value=0.0, max_value=100.0),
    flops=st.floats(min_value=1e3, max_value=1e12),
    nbytes=st.floats(min_value=1e3, max_value=1e10),
    duration=st.floats(min_value=1e-6, max_value=1.0),
    blocks=st.integers(min_value=1, max_value=10_000),
)
def test_recoverable_never_exceeds_the_busiest_unit_bound(
    sm: float,
    mem: float,
    dram_pct: float,
    flops: float,
    nbytes: float,
    duration: float,
    blocks: int,
) -> None:
    row = {
        **fp32(flops),
        "dram__bytes.sum": nbytes,
        "gpu__time_duration.sum": duration,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": sm,
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": mem,
        "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": dram_pct,
        "device__attribute_multiprocessor_count": 108.0,
    }
    a = analyse_rows([row], grid=f"({blocks}, 1, 1)")
    rec = num(a, "recoverable_s")
    limiter = col(a, "limiter")[0]
    known = [sm / 100, mem / 100, dram_pct / 100, num(a, "compute_utilization")]
    bound = duration * max(0.0, 1.0 - max(u for u in known if not math.isnan(u)))
    if math.isnan(rec):
        assert col(a, "bound")[0] == "not placeable" or limiter == "unknown"
    else:
        assert 0.0 <= rec <= bound + 1e-15
    if limiter in ("latency", "under-filled"):
        assert rec == 0.0 and num(a, "latency_s") == pytest.approx(duration)
    else:
        assert num(a, "latency_s") == 0.0
