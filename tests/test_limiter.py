"""The limiter and the honest recoverable time, on real exports and by property.

Every expected value is worked out by hand from the export's own metric
values (quoted in the comments).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers import analyse_rows, col, fp32, num
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.analysis.limiter.judge import utilisations
from ncu_roofline.core.metrics import breakdown_metric

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


def test_cutlass_gemm_is_lsu_limited_not_dram(samples_dir: Path) -> None:
    """RTX 5060 Ti CUTLASS GEMM: left of the ridge, but the LSU pipe and L1/TEX are busiest.

    Launch 0: the SOL section's "Compute Throughput Breakdown" row
    ``SM: Inst Executed Pipe Lsu`` is 54.76% of elapsed cycles (ncu's SM
    throughput, 54.76%, is the largest of these rows).  L1/TEX is
    l1tex__throughput 58.04% of active cycles; the SM was active
    1,244,128.36 of 1,318,955 elapsed cycles (gpc__cycles_elapsed.max), so
    L1/TEX is 58.04% x 0.94327 = 54.75% busy over the launch (the memory
    breakdown's ``L1: Lsuin Requests`` is 54.76% of elapsed): the LSU pipe
    feeding L1 is the busiest named unit, by rounding.  DRAM is 22.23%.  At
    most 549.98 us x (1 - 0.5476) of the launch can be recovered.
    """
    a = _analyse(samples_dir, LUKAS)
    row = a.launches.iloc[0]
    assert row["bound"] == "memory"
    assert row["limiter"] == "lsu-pipe"
    assert row["limiter_basis"] == "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
    assert row["limiter_utilization"] == pytest.approx(0.5476, rel=1e-6)
    assert row["max_utilization"] == pytest.approx(0.5476, rel=1e-3)
    assert row["recoverable_s"] == pytest.approx(549.98e-6 * (1 - 0.5476), rel=1e-3)
    k = a.kernels.iloc[0]
    # Four launches, 2.19379 ms: at most ~45% recoverable, not the DRAM roof's 78%.
    assert k["recoverable_s"] / k["total_duration_s"] == pytest.approx(0.4507, abs=0.002)
    kinds = {f.kind for f in a.findings}
    assert "limiter-disagrees" in kinds
    msg = next(f.message for f in a.findings if f.kind == "limiter-disagrees")
    assert "DRAM is 22% busy while LSU pipe is 55%" in msg


def test_breakdown_rows_are_read(samples_dir: Path) -> None:
    """The SOL breakdown rows reach the launch model by label, as elapsed-cycle percentages.

    lukas-ruettgers launch 0, rows under "Compute Throughput Breakdown":
    ``SM: Pipe Fmaheavy Cycles Active`` 35.62, ``SM: Pipe Fma Cycles Active``
    19.84, ``SM: Pipe Aluheavy Cycles Active`` 20.75, ``SM: Issue Active``
    44.60; under "Memory Throughput Breakdown": ``L1: Data Pipe Lsu
    Wavefronts`` 30.23.  The FMA pipe is its busiest half (fmaheavy 35.62%).
    """
    profile = ncu_roofline.load([str(samples_dir / LUKAS)])
    df = profile.launches
    first = df.iloc[0]
    assert first["sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"] == 35.62
    assert first["sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_elapsed"] == 19.84
    assert first["sm__pipe_aluheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"] == 20.75
    assert first["sm__issue_active.avg.pct_of_peak_sustained_elapsed"] == 44.60
    assert first["l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"] == 30.23
    # Every one of launch 0's 54 breakdown rows is kept, under its label's metric
    # id, with the value printed ("SYSLTS: T Sectors" 0.01 as syslts__t_sectors).
    rows = [
        r
        for r in csv.reader((samples_dir / LUKAS).open(encoding="utf-8"))
        if len(r) > 15 and r[0] == "0" and r[12].endswith("Throughput Breakdown")
    ]
    assert len(rows) == 54
    for r in rows:
        assert first[breakdown_metric(r[13])] == float(r[15]), r[13]
    assert first["syslts__t_sectors.avg.pct_of_peak_sustained_elapsed"] == 0.01

    a = _analyse(samples_dir, LUKAS)
    util = utilisations(df, a.launches)
    assert util.values["fma-pipe"][0] == pytest.approx(0.3562)
    assert util.basis["fma-pipe"][0] == (
        "sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed"
    )
    assert util.values["issue"][0] == pytest.approx(0.4460)
    assert util.values["l1"][0] == pytest.approx(0.5804 * 1244128.36 / 1318955, rel=1e-6)


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


def test_curand_init_promises_only_what_its_l1_traffic_allows(samples_dir: Path) -> None:
    """randomInit (curand state set-up): no FLOPs, DRAM at 0.05%, no speed-of-light.

    Its work is integer arithmetic no FLOP counter sees, but its L1 traffic
    (curand's state in local memory) reads against the table's L1 roof:
    launch 0 moves l1tex__t_bytes.sum 16,852,881,244,160 B in
    smsp__cycles_elapsed.avg 5,146,386,157.87 cycles = 3274.7 B/cycle, of
    108 SMs x 128 B = 13824 B/cycle at any clock: 23.69%.  No more than
    76% of its time can be recovered (it was "6.72 s of 6.73 s recoverable"
    before any bound, then no limiter while the A100 had no L1 roof).
    """
    a = _analyse(samples_dir, CURAND, gpu="a100_40gb_pcie")
    init = a.kernels[a.kernels["kernel_short"] == "randomInit"]
    assert len(init) == 2
    assert list(init["limiter"]) == ["l1", "l1"]
    first = a.launches[a.launches["id"] == 0].iloc[0]
    util = 16_852_881_244_160 / 5_146_386_157.87 / (108 * 128)
    assert float(first["l1_utilization"]) == pytest.approx(util, rel=1e-9)
    assert float(first["recoverable_s"]) <= float(first["total_duration_s"]) * (1 - util) + 1e-9
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


MEINIE = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)


def test_b200_decode_is_issue_limited(samples_dir: Path) -> None:
    """B200 FlashInfer decode (raw page, no FLOP or byte counters): the issue slots limit it.

    Launch 0's columns: sm__inst_issued.avg.pct_of_peak_sustained_elapsed
    72.24, sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_elapsed
    55.62, sm__inst_executed_pipe_lsu...elapsed 33.38,
    sm__pipe_fma_cycles_active...elapsed 31.10, sm__pipe_tc_cycles_active 0.
    These are already of elapsed cycles, so no active-share scaling applies
    (the file has no sm__cycles_active either): issue 72.24% is the busiest,
    ALU 55.62% next.  Every one of the 64 launches is named, none unknown.
    """
    a = _analyse(samples_dir, MEINIE)
    launches = a.launches
    assert (launches["limiter"] == "issue").all()
    row = launches.iloc[0]
    assert row["limiter_utilization"] == pytest.approx(0.7224, rel=1e-9)
    assert row["limiter_basis"] == "sm__inst_issued.avg.pct_of_peak_sustained_elapsed"
    assert row["max_utilization"] == pytest.approx(0.7224, rel=1e-9)

    util = utilisations(ncu_roofline.load([str(samples_dir / MEINIE)]).launches, launches)
    assert util.values["alu-pipe"][0] == pytest.approx(0.5562, rel=1e-9)
    assert util.values["tensor-pipe"][0] == 0.0
    assert util.values["xu-pipe"][0] == pytest.approx(0.1045, rel=1e-9)
