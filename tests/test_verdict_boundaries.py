"""The verdict cuts pinned at their boundaries, on real exports, and the
evidence every recoverable time rests on.

Each expected value is worked out by hand from the export's own metric
values (file lines or ncu_report values quoted in the comments); each test
fails if the cut it pins moves:

* ``Thresholds.low_sol_pct`` (20%): a launch at 12.14% SM throughput is
  latency; at a 10% cut it would not be.
* ``Thresholds.far_below`` (0.10): a launch without speed-of-light metrics
  whose FMA pipe is 17.8% busy (and whose L1 counter is left out, as an
  export of the FLOP and DRAM metrics alone would be) gets a bounded
  recoverable time; at a 0.20 cut it would be unknown.
* ``lts__throughput`` as a limiter unit: an A100 launch whose L2 SOL is its
  busiest unit names L2 at that utilisation.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import analyse_rows, col, fp32, num

import ncu_roofline
from ncu_roofline.analysis.waves import tail_loss, under_filled
from ncu_roofline.render.format import TABLE, TEXT
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.page import build_page
from ncu_roofline.report.context import build_context

YKTIAN = (
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_"
    "ncu_metrics_show_torch.txt"
)
GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
NBODY_REP = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
NBODY_OUT = "Lakoc__Nbody_CUDA__profile_1.out"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
WANGZY_V100 = "wangzy0327__cuda-roofline__src_output.csv"


def _analyse(samples_dir: Path, name: str, gpu: str | None = None) -> Any:
    return ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]), gpu=gpu)


def test_low_sol_cut_is_20_pct(samples_dir: Path) -> None:
    """GCN on PyTorch, launch 0 (index_elementwise_kernel), file lines 10-19:
    SM throughput 12.14%, memory 6.52%, DRAM 1.40%, 5,824 ns (over the 5 us
    short-launch cut), 117 blocks.  Every unit is under 20%: latency, its
    5.824 us is latency time, nothing recoverable.  At a 10% cut the SM
    (12.14%) would limit it and 5.824 us x 0.8786 would be "recoverable".

    Launch 1 (CatArrayBatchedCopy, lines 20-29): SM 38.95%, 6,944 ns: above
    the cut, limited by the SM at 38.95%, 6.944 us x (1 - 0.3895) recoverable.
    """
    a = _analyse(samples_dir, YKTIAN)
    idle = a.launches.iloc[0]
    assert idle["max_utilization"] == pytest.approx(0.1214)
    assert idle["limiter"] == "latency"
    assert idle["recoverable_s"] == 0.0
    assert idle["latency_s"] == pytest.approx(5.824e-6)
    assert idle["recoverable_basis"].startswith("none: latency, not a roof, limits it")
    busy = a.launches.iloc[1]
    assert busy["limiter"] == "sm"
    assert busy["limiter_utilization"] == pytest.approx(0.3895)
    assert busy["recoverable_s"] == pytest.approx(6.944e-6 * (1 - 0.3895))
    assert busy["recoverable_basis"] == "busiest unit: SM (ncu's SM throughput) at 39%"


def test_far_below_cut_is_10_pct(samples_dir: Path, tmp_path: Path) -> None:
    """gemm_v0 (file lines 39-53), no speed-of-light metrics: 34,359,738,368,000
    FFMA = 6.8719e13 FLOPs (no FADD/FMUL: the mix reaches the whole roof) in
    27,957,495,411.17 cycles / 764,444,046.88 Hz = 36.5723 s: 1.8790e12
    FLOP/s over the A100 PCIe's 19.5 TFLOP/s x 764.444 / 1410 MHz =
    10.5721e12, 17.77% busy.  Its busiest unit is over the 10% cut, so it
    bounds the recoverable time: 36.5723 s x (1 - 0.1777).  At a 20% cut
    no unit would be evidence and the time unknown.

    The export's ``l1tex__t_bytes.sum`` rows (lines 10, 25, 40) are left
    out: with them the L1 roof makes L1/TEX the busiest unit (44.5%), far
    from the cut under test.
    """
    lines = (samples_dir / GARDENIA).read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if '"l1tex__t_bytes.sum"' not in line]
    assert len(lines) - len(kept) == 3
    without_l1 = tmp_path / "gemm_without_l1.csv"
    without_l1.write_text("".join(kept), encoding="utf-8")
    a = ncu_roofline.analyze(ncu_roofline.load([str(without_l1)]), gpu="a100_40gb_pcie")
    row = a.launches[a.launches["kernel_short"] == "gemm_v0"].iloc[0]
    t = 27_957_495_411.17 / 764_444_046.88
    util = 34_359_738_368_000 * 2 / t / (19.5e12 * 764.44404688 / 1410)
    assert util == pytest.approx(0.1777, abs=1e-4)
    assert row["limiter"] == "fma-pipe"
    assert row["limiter_utilization"] == pytest.approx(util, rel=1e-6)
    assert row["recoverable_s"] == pytest.approx(t * (1 - util), rel=1e-6)
    assert row["recoverable_basis"] == "busiest unit: FMA pipe at 18%"
    assert pd.isna(row["limiter_needs"])


def test_l2_speed_of_light_is_a_limiter_unit(samples_dir: Path) -> None:
    """A100 N-body, centerOfMass launch 1 (ncu_report values): lts__throughput
    1.138644%; L1/TEX 2.128797% of active cycles x 48,129.25 / 94,922 active
    = 1.0794%, ncu's memory throughput 1.079422%, SM 0.808864%, DRAM
    0.656391%.  L2's SOL is the busiest unit: 1.1386%.  (L2 bytes over the
    L2 roof would say 0.48%, and the busiest unit would be L1/TEX.)  108
    blocks on 108 SMs, every unit under 20%: latency.
    """
    pytest.importorskip("ncu_report")
    a = _analyse(samples_dir, NBODY_REP)
    row = a.launches.iloc[1]
    assert row["kernel_short"] == "centerOfMass"
    assert row["max_utilization"] == pytest.approx(0.01138644, rel=1e-5)
    assert row["limiter_utilization"] == pytest.approx(0.01138644, rel=1e-5)
    assert row["limiter"] == "latency"
    assert row["recoverable_basis"].endswith("busiest unit: L2 at 1.1%")


def test_no_unbounded_promise_for_the_nbody_launch(samples_dir: Path) -> None:
    """calculate_velocity, A100 SXM4 40GB, no speed-of-light metrics (file
    lines 17-31): 37,761,024 FADD + 29,366,272 FMUL + 2 x 12,625,920 FFMA =
    92,379,136 FLOPs in 419,843.85 cycles / 1,094,803,101.67 Hz = 383.49 us:
    2.4089e11 FLOP/s over 19.5 TFLOP/s x 1094.803 / 1410 = 15.1409e12 is
    1.591%; the mix reaches 92,379,136 / (2 x 79,753,216) = 57.92% of the
    roof, so the FMA pipe is 1.591% / 0.5792 = 2.747% busy.  No unit it
    counts is 10% busy and nothing measures the rest (its SFU rsqrt and
    integer work): the limiter is named, the recoverable time is unknown
    (it was 97% of the launch).
    """
    a = _analyse(samples_dir, NBODY_OUT, gpu="a100_40gb_sxm")
    row = a.launches.iloc[0]
    t = 419_843.85 / 1_094_803_101.67
    mix = 92_379_136 / (2 * (37_761_024 + 29_366_272 + 12_625_920))
    util = 92_379_136 / t / (19.5e12 * 1094.80310167 / 1410) / mix
    assert util == pytest.approx(0.02747, abs=1e-5)
    assert row["limiter"] == "fma-pipe"
    assert row["limiter_utilization"] == pytest.approx(util, rel=1e-6)
    assert math.isnan(row["recoverable_s"])
    assert row["recoverable_basis"].startswith("unknown: no unit the export counts is 10% busy")
    assert "FMA pipe at 2.7%" in row["recoverable_basis"]
    assert "--section SpeedOfLight" in row["limiter_needs"]
    k = a.kernels[a.kernels["kernel_short"] == "calculate_velocity"].iloc[0]
    assert math.isnan(k["recoverable_s"])
    # Unknowns rank last; the page and the tables say "?".
    assert k["rank"] == len(a.kernels) or all(math.isnan(x) for x in a.kernels["recoverable_s"])
    assert TABLE.recoverable(None) == "?" and TEXT.recoverable(float("nan")) == "?"


def test_tensor_estimate_from_the_name_names_the_tensor_pipe(samples_dir: Path) -> None:
    """ampere_s16816gemm on an A100 PCIe (file lines 72-77): 4,194,304,000
    tensor instructions x 4,096 FLOPs (16816 in the name) = 1.7180e13 in
    81,835,957.76 cycles / 764,999,572.23 Hz = 106.975 ms: 1.6060e14 FLOP/s
    over the FP16 tensor roof 312 TFLOP/s x 764.99957 / 1410 = 1.69277e14,
    94.87% busy.  L2 (bytes over its roof) is 59.9%: the tensor pipe limits
    it, and bounds the recoverable time at 5.1% of the launch.
    """
    a = _analyse(samples_dir, WANGZY_A100)
    row = a.launches[a.launches["kernel_short"].str.contains("s16816gemm")].iloc[0]
    t = 81_835_957.76 / 764_999_572.23
    util = 4_194_304_000 * 4096 / t / (312e12 * 764.99957223 / 1410)
    assert util == pytest.approx(0.9487, abs=1e-4)
    assert row["limiter"] == "tensor-pipe"
    assert row["limiter_utilization"] == pytest.approx(util, rel=1e-6)
    assert "kernel name" in row["limiter_basis"]
    assert row["recoverable_s"] == pytest.approx(t * (1 - util), rel=1e-6)
    assert row["recoverable_basis"] == "busiest unit: tensor pipe at 95%"


# --- waves: under-filled and the tail effect ---------------------------------------------


def _waves_row(blocks: int, waves: float, sms: float) -> dict[str, float]:
    """A 1 ms launch, SM 40% busy, with its grid, SMs and waves per SM."""
    return {
        **fp32(4e8),
        "dram__bytes.sum": 1e6,
        "gpu__time_duration.sum": 1e-3,
        "sm__throughput.avg.pct_of_peak_sustained_elapsed": 40.0,
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed": 10.0,
        "device__attribute_multiprocessor_count": sms,
        "launch__waves_per_multiprocessor": waves,
    }


def test_under_one_wave_with_a_block_per_sm_is_not_under_filled() -> None:
    """1,024 blocks on 148 SMs at 0.8 waves (a B200 decode kernel's shape):
    every SM holds about 7 blocks, so none is idle: no under-filled, no tail."""
    a = analyse_rows([_waves_row(1024, 0.8, 148.0)], grid="(1024, 1, 1)")
    assert col(a, "under_filled") == [False]
    # The FMA pipe (4e8 FLOPs / 1 ms / 1 TFLOP/s) and the SM are both 40% busy.
    assert col(a, "limiter") == ["fma-pipe"]
    assert num(a, "tail_loss") == 0.0
    kinds = {f.kind for f in a.findings}
    assert "under-filled" not in kinds and "tail-effect" not in kinds


def test_a_partial_second_wave_is_a_tail_effect() -> None:
    """1.10 waves: the second wave holds 10% of a wave's blocks and, blocks
    taking equal time, half the runtime: (1 - 0.10) / 2 = 45% of the 1 ms is
    lost to the tail (ncu's rule would say the partial wave "may account for
    up to 50.0%" of the runtime)."""
    a = analyse_rows([_waves_row(1628, 1.10, 148.0)], grid="(1628, 1, 1)")
    assert col(a, "under_filled") == [False]
    assert num(a, "tail_loss") == pytest.approx(0.45)
    tail = [f for f in a.findings if f.kind == "tail-effect"]
    assert len(tail) == 1
    assert tail[0].recoverable_s == pytest.approx(0.45e-3)
    assert "1.10 waves per SM" in tail[0].message
    assert "450 µs (45%)" in tail[0].message


def test_sixteen_blocks_on_108_sms_is_under_filled() -> None:
    """16 blocks on 108 SMs: 92 SMs get no block."""
    a = analyse_rows([_waves_row(16, 0.07, 108.0)], grid="(16, 1, 1)")
    assert col(a, "under_filled") == [True]
    assert col(a, "limiter") == ["under-filled"]
    assert num(a, "recoverable_s") == 0.0
    assert col(a, "recoverable_basis")[0].startswith("none: the grid leaves SMs idle")
    assert any(f.kind == "under-filled" for f in a.findings)


def test_tail_loss_by_hand() -> None:
    """(1 - frac) / ceil(w): 1.42 waves (the BERT export's launch 2) -> 0.58 / 2;
    2.25 -> 0.75 / 3; whole waves and one wave or less lose nothing."""
    got = tail_loss(np.array([1.42, 2.25, 2.0, 0.8, 1.0, np.nan]))
    assert got[:5] == pytest.approx([0.29, 0.25, 0.0, 0.0, 0.0])
    assert math.isnan(got[5])


def test_waves_without_the_grid_size_judge_idle_sms() -> None:
    """No grid size: 0.05 waves x 8 blocks per SM = 0.4 blocks per SM leaves SMs idle;
    0.5 waves x 8 = 4 blocks per SM does not."""
    thin = _waves_row(0, 0.05, 108.0) | {"launch__occupancy_limit_warps": 8.0}
    full = _waves_row(0, 0.5, 108.0) | {"launch__occupancy_limit_warps": 8.0}
    a = analyse_rows([thin, full], grid=None)
    assert col(a, "grid_blocks")[0] is pd.NA
    assert col(a, "under_filled") == [True, False]


# --- groups and totals ---------------------------------------------------------------------


def test_group_sums_known_launches_and_says_how_many_it_left_out() -> None:
    """Two launches of one kernel: one bounded by DRAM at 50% (0.5 ms of 1 ms),
    one with no utilisation of any unit (no bytes, no FLOPs, no SOL)."""
    rows = [
        {"dram__bytes.sum": 5e7, "gpu__time_duration.sum": 1e-3},
        {"gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows)
    assert num(a, "recoverable_s", 0) == pytest.approx(0.5e-3)
    assert math.isnan(num(a, "recoverable_s", 1))
    assert col(a, "limiter")[1] == "unknown"
    assert "--section SpeedOfLight" in col(a, "limiter_needs")[1]
    k = a.kernels.iloc[0]
    assert k["recoverable_s"] == pytest.approx(0.5e-3)
    assert k["recoverable_basis"] == (
        "busiest unit: DRAM at 50%; excludes 1 launch(es) with unknown recoverable time"
    )
    assert TEXT.recoverable_total(0.5e-3, 1) == "≥ 500 µs (1 launch unknown)"
    assert TEXT.recoverable_total(None, 3) == "?"


MEINIE = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)


def test_b200_decode_at_077_waves_is_not_under_filled(samples_dir: Path) -> None:
    """FlashInfer decode on a B200 (raw page): launch__grid_size 1024,
    launch__sm_count 148, launch__waves_per_multiprocessor 0.77 in every
    launch (block limit 9 per SM: 1,024 / (148 x 9) = 0.77).  Every SM holds
    about 7 blocks: not under-filled, and no partial second wave."""
    a = _analyse(samples_dir, MEINIE)
    launches = a.launches
    assert set(launches["grid_blocks"]) == {1024}
    assert set(launches["waves"].round(2)) == {0.77}
    assert launches["waves"].iloc[0] == pytest.approx(1024 / (148 * 9), abs=0.005)
    assert not launches["under_filled"].any()
    assert (launches["tail_loss"] == 0.0).all()
    kinds = {f.kind for f in a.findings}
    assert "under-filled" not in kinds and "tail-effect" not in kinds


def test_waves_judge_idle_sms_when_the_sm_count_is_missing() -> None:
    """BERT's 1-block launches (ncu: "only 1 blocks, which is less than the GPU's 108
    multiprocessors"): with the grid known but no SM count, ncu's waves (0.0093 for 1
    block at one block per SM on 108 SMs) still say some SM has no block."""
    blocks = np.array([1.0, 256.0, np.nan])
    waves = np.array([1 / 108, 256 / 108 / 4, np.nan])
    per_sm = np.array([1.0, 4.0, 4.0])
    sms = np.full(3, np.nan)
    assert list(under_filled(blocks, waves, sms, per_sm)) == [True, False, False]


def test_no_instruction_mix_bound_without_an_instruction_mix(samples_dir: Path) -> None:
    """The V100 CUTLASS GEMM export has FLOP counters but the mix of its dominant
    precision is unknown (NaN): a bound from the DRAM roof is a roof gap, never an
    "instruction mix" with a NaN share."""
    a = _analyse(samples_dir, WANGZY_V100)
    basis = a.launches["recoverable_basis"].astype(str)
    assert not basis.str.contains("nan").any(), list(basis)
    mix = a.launches["mix_share"].to_numpy(dtype=float)
    said_mix = basis.str.startswith("instruction mix").to_numpy()
    assert not (said_mix & np.isnan(mix)).any()


def test_an_unknown_limiter_says_what_to_collect(samples_dir: Path) -> None:
    """Lakoc's N-body .out without --gpu: no device, no peaks, no speed of light,
    so no unit's utilisation is known; the page's kernel rows say so and name the
    section that would settle it."""
    a = _analyse(samples_dir, NBODY_OUT)
    assert set(a.kernels["limiter"]) == {"unknown"}
    needs = str(a.kernels["limiter_needs"].iloc[0])
    assert needs.startswith("--section SpeedOfLight (sm__throughput")
    html = render_html(build_page(build_context(a)))
    text = "limiter: unknown (no utilisation in the export); collect --section SpeedOfLight"
    assert html.count(text) == len(a.kernels)
