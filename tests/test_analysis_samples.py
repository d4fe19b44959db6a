"""The analysis engine against real ncu exports, with values worked out by hand.

The exports live outside the repository, in ``../shared/ncu-samples/`` (see
INDEX.md there); the ``samples_dir`` fixture skips these tests when they are
absent.  Every expected number below was read by hand from the raw text of
the file named in the test (1-based line numbers of the file as stored are
given in the comments), converted to SI by hand (``"us"`` x 1e-6,
``"Ghz"`` x 1e9, ``"Gbyte/s"`` x 1e9, ``"Mbyte"`` x 1e6, ``"cycle/second"`` x 1,
thousands separators dropped, ``"5,443,677,824.00"`` is 5443677824) and
combined with the formulas of docs/ncu-format.md sections 4 and 5:

* FP64/FP32 FLOPs = add + mul + 2 x fma (thread instruction counts);
* FP16 FLOPs = 2 x hadd + 2 x hmul + 4 x hfma (ncu's packed half2 counting,
  not NERSC's 1/1/2);
* per-cycle rates only: FLOP/s = (add + mul + 2 x fma per cycle) x
  ``smsp__cycles_elapsed.avg.per_second``;
* tensor FLOPs = ``sm__ops_path_tensor_*`` as is, or 512 x the tensor-pipe
  instruction count on CC 7.0 (Volta HMMA.884) only;
* duration = ``gpu__time_duration.sum``, else elapsed cycles / cycles per second.

Nothing here is read from the files at run time, and nothing is computed
with the ``ncu_roofline`` package except the values under test.  The numbers
were cross-checked with a throw-away script that parsed the CSVs with the
``csv`` module only.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import ncu_roofline

# The saved names, as listed in ncu-samples/INDEX.md.
LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
LAKOC = "Lakoc__Nbody_CUDA__profile_1.out"
WANGZY_V100 = "wangzy0327__cuda-roofline__src_output.csv"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
    "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"

# Values parsed from base-unit text: only float rounding separates them.
EXACT = 1e-9
# Auto-unit exports print two decimals: "2.40" Ghz may be anything in
# [2.395, 2.405) GHz (0.2 %), "12.72" inst/cycle is +-0.04 %, and ncu rounds
# its own "Predicated-On FFMA Operations Per Cycle" separately from the FFMA
# rate it is twice of.  1 % covers all of that and still catches a wrong
# formula (a missing FADD term alone is 4.6 %, a missing factor 2 on FFMA 44 %).
ROUNDED = 0.01


@cache
def _analysed(path: str, gpu: str | None) -> pd.DataFrame:
    """``analyze(load([path]), gpu=gpu).launches``, once per session (read only)."""
    analysis = ncu_roofline.analyze(ncu_roofline.load([path]), gpu=gpu)
    return analysis.launches


def _frame(samples_dir: Path, name: str, gpu: str | None = None) -> pd.DataFrame:
    return _analysed(str(samples_dir / name), gpu)


def _launch(frame: pd.DataFrame, launch_id: int) -> pd.Series:
    """The one row whose ``id`` is ``launch_id``."""
    rows = frame[frame["id"] == launch_id]
    assert len(rows) == 1, f"expected one launch with id {launch_id}, got {len(rows)}"
    return rows.iloc[0]


def _approx(value: float, rel: float = EXACT) -> Any:
    return pytest.approx(value, rel=rel, abs=0.0)


def _is_nan(value: Any) -> bool:
    return bool(pd.isna(value))


def _finite(value: Any) -> bool:
    return not pd.isna(value) and math.isfinite(float(value))


# --- shape ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "launches"),
    [
        (LUKAS, 4),  # IDs 0-3
        (LAKOC, 3),  # IDs 0-2
        (WANGZY_V100, 11),  # IDs 0-10
        (WANGZY_A100, 11),  # IDs 0-10
        (LELEUCAS, 26),  # IDs 0-25
        (GARDENIA, 3),  # IDs 0-2
        (CODEGANDEE, 1),  # ID 0
    ],
)
def test_one_row_per_launch_in_file_order(samples_dir: Path, name: str, launches: int) -> None:
    frame = _frame(samples_dir, name)
    # every file lists its IDs in ascending order 0, 1, 2, ...
    assert [int(i) for i in frame["id"]] == list(range(launches))
    assert (frame["source"] == str(samples_dir / name)).all()
    assert frame["kernel"].notna().all()


# --- 1. lukas-ruettgers: per-cycle rates from the roofline chart section ------
#
# Details page with "Body Item Label", ncu 2025.x, CC 12.0, auto units.  Per
# launch the "GPU Speed Of Light Roofline Chart" rows give FADD and FMUL
# thread instructions per cycle in the "Single Precision Achieved Value" body,
# FFMA per cycle in the header (empty body label), ncu's own "Predicated-On
# FFMA Operations Per Cycle" (= 2 x FFMA per cycle), and the SM Frequency of
# that body (smsp__cycles_elapsed.avg.per_second).  Duration is "us".

LUKAS_FP32 = [
    pytest.param(
        0,
        549.98e-6,  # line 7: Duration "549.98" us
        # FADD/cycle line 84 + FMUL/cycle line 85 + 2 x FFMA/cycle line 73, x SM Frequency line 83
        (101.79 + 12.72 + 2 * 407.15) * 2.40e9,  # = 2.229144e12 FLOP/s
        # ncu's figure: FFMA Operations Per Cycle line 82 + FADD + FMUL, x SM Frequency
        (814.30 + 101.79 + 12.72) * 2.40e9,  # = 2.229144e12 FLOP/s
        id="launch0",
    ),
    pytest.param(
        1,
        549.89e-6,  # line 98
        (101.83 + 12.73 + 2 * 407.34) * 2.40e9,  # lines 175, 176, 164, 174: = 2.230176e12
        (814.67 + 101.83 + 12.73) * 2.40e9,  # line 173: = 2.230152e12
        id="launch1",
    ),
    pytest.param(
        2,
        546.08e-6,  # line 189
        (102.55 + 12.82 + 2 * 410.22) * 2.40e9,  # lines 266, 267, 255, 265: = 2.245944e12
        (820.44 + 102.55 + 12.82) * 2.40e9,  # line 264: = 2.245944e12
        id="launch2",
    ),
    pytest.param(
        3,
        547.84e-6,  # line 280
        (102.22 + 12.78 + 2 * 408.89) * 2.40e9,  # lines 357, 358, 346, 356: = 2.238672e12
        (817.79 + 102.22 + 12.78) * 2.40e9,  # line 355: = 2.238696e12
        id="launch3",
    ),
]


@pytest.mark.parametrize(("launch_id", "duration_s", "hand_rate", "ncu_rate"), LUKAS_FP32)
def test_lukas_fp32_rate_from_per_cycle_values(
    samples_dir: Path, launch_id: int, duration_s: float, hand_rate: float, ncu_rate: float
) -> None:
    # The hand formula agrees with ncu's own doubled-FFMA figure (both rounded
    # to two decimals in the file, hence the 1 % tolerance).
    assert hand_rate == _approx(ncu_rate, ROUNDED)

    row = _launch(_frame(samples_dir, LUKAS), launch_id)
    assert row["duration_s"] == _approx(duration_s)
    assert row["flops_fp32"] / row["duration_s"] == _approx(hand_rate, ROUNDED)
    assert row["flops_fp32"] == _approx(hand_rate * duration_s, ROUNDED)
    # FP32 is the only precision with non-zero work: all DADD/DMUL/DFMA rates
    # are "0" (e.g. lines 72, 87-90), so the total rate is the FP32 one.
    assert row["achieved_flops_per_s"] == _approx(hand_rate, ROUNDED)
    assert row["flops_fp64"] == 0.0
    # no half-precision rows at all in this export: unknown, not zero
    assert _is_nan(row["flops_fp16"])


LUKAS_ROOFS = [
    # DRAM Bandwidth of the "Single Precision Achieved Value" body, Gbyte/s
    pytest.param(0, 549.98e-6, 98.06e9, id="launch0"),  # lines 7, 86
    pytest.param(1, 549.89e-6, 98.54e9, id="launch1"),  # lines 98, 177
    pytest.param(2, 546.08e-6, 100.47e9, id="launch2"),  # lines 189, 268
    pytest.param(3, 547.84e-6, 99.09e9, id="launch3"),  # lines 280, 359
]


@pytest.mark.parametrize(("launch_id", "duration_s", "dram_bw"), LUKAS_ROOFS)
def test_lukas_profile_roofs(
    samples_dir: Path, launch_id: int, duration_s: float, dram_bw: float
) -> None:
    row = _launch(_frame(samples_dir, LUKAS), launch_id)
    # Identical on every launch (e.g. lines 71, 74-78 for launch 0):
    # "Theoretical Predicated-On FFMA Operations" 9216 (= ncu's 2 x the 4608
    # FFMA/cycle peak) x SM Frequency "2.40" Ghz of the "Single Precision Roofline" body
    assert row["peak_fp32_flops_per_s"] == _approx(9216 * 2.40e9, ROUNDED)  # 22.1184e12
    # "Theoretical Predicated-On DFMA Operations" 144 x 2.40 GHz
    assert row["peak_fp64_flops_per_s"] == _approx(144 * 2.40e9, ROUNDED)  # 345.6e9
    # "Theoretical DRAM Bytes Accessible" 32 byte/cycle x DRAM Frequency "13.79" Ghz
    assert row["peak_dram_bytes_per_s"] == _approx(32 * 13.79e9, ROUNDED)  # 441.28e9
    assert str(row["roof_source"]).startswith("profile")
    # Achieved DRAM bandwidth is ncu's measured "DRAM Bandwidth"; the bytes are
    # that rate times the duration (no byte counts in this export).
    assert row["dram_bytes_per_s"] == _approx(dram_bw, ROUNDED)
    assert row["dram_bytes"] == _approx(dram_bw * duration_s, ROUNDED)  # e.g. 53.93e6 B


# --- 2. Lakoc: the NERSC metric set on an A100, KT-header (no CC column) ------
#
# 15-line prelude, then 15 metric rows per launch, base units.  Duration is
# sm__cycles_elapsed.avg / sm__cycles_elapsed.avg.per_second.  The CC is not in
# the file.  Every HFMA of these FP32 kernels was issued as HFMA2.MMA (a
# register move on the tensor pipe): sm__inst_executed_pipe_tensor.sum x 32 is
# the HFMA count, so FP16 FLOPs are 4 x (hfma - 32 x tensor) = 0 and `flops` is
# FP32 + FP64 only.

LAKOC_LAUNCHES = [
    pytest.param(
        0,
        {
            # fadd line 26 + fmul line 28 + 2 x ffma line 27 = 92,379,136
            "flops_fp32": 37_761_024 + 29_366_272 + 2 * 12_625_920,
            # dadd line 23, dmul line 25, dfma line 24: all "0"
            "flops_fp64": 0 + 0 + 2 * 0,
            # 2 x hadd line 29 + 2 x hmul line 31 + 4 x (hfma line 30 "40,960"
            # - 32 x tensor line 22 "1,280" = 40,960 HFMA2.MMA moves) = 0
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (40_960 - 32 * 1_280),
            "dram_bytes": 67_584,  # line 17
            "l2_bytes": 1_294_848,  # line 19
            "l1_bytes": 1_916_928,  # line 18
            # sm__cycles_elapsed.avg line 20 / .per_second line 21 = 383.488e-6 s
            "duration_s": 419_843.85 / 1_094_803_101.67,
        },
        id="calculate_velocity-0",
    ),
    pytest.param(
        1,
        {
            "flops_fp32": 10_256 + 0 + 2 * 6_512,  # lines 41, 43, 42: = 23,280
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 38, 40, 39
            # lines 44, 46, 45 less 32 x tensor line 37 "64" = 2,048 moves: = 0
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (2_048 - 32 * 64),
            "dram_bytes": 39_552,  # line 32
            "l2_bytes": 236_352,  # line 34
            "l1_bytes": 49_728,  # line 33
            "duration_s": 19_081.54 / 1_092_120_938.48,  # lines 35 / 36 = 17.472e-6 s
        },
        id="centerOfMass-1",
    ),
    pytest.param(
        2,
        {
            "flops_fp32": 10_256 + 0 + 2 * 6_512,  # lines 56, 58, 57: = 23,280
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 53, 55, 54
            # lines 59, 61, 60 less 32 x tensor line 52 "64": = 0
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (2_048 - 32 * 64),
            "dram_bytes": 39_552,  # line 47
            "l2_bytes": 238_592,  # line 49
            "l1_bytes": 49_472,  # line 48
            "duration_s": 19_570.61 / 1_092_109_995.04,  # lines 50 / 51 = 17.920e-6 s
        },
        id="centerOfMass-2",
    ),
]

# flops = fp32 + fp64 + fp16 (tensor 0, fp16 0 after the HFMA2.MMA moves);
# ai_dram = flops / dram bytes; achieved = flops / duration.  Worked out by
# hand from the table above:
LAKOC_TOTALS = {
    # 92,379,136 + 0 + 0; / 67,584 B (= 1366.88); / 383.488e-6 s
    0: (92_379_136, 92_379_136 / 67_584, 92_379_136 / (419_843.85 / 1_094_803_101.67)),
    # 23,280 + 0 + 0; / 39,552 B (= 0.5886, was 0.7957 with the moves as FP16);
    # / 17.472e-6 s (= 1.332e9 FLOP/s)
    1: (23_280, 23_280 / 39_552, 23_280 / (19_081.54 / 1_092_120_938.48)),
    # same counts as launch 1, a little longer
    2: (23_280, 23_280 / 39_552, 23_280 / (19_570.61 / 1_092_109_995.04)),
}


@pytest.mark.parametrize(("launch_id", "expected"), LAKOC_LAUNCHES)
def test_lakoc_nersc_counts(samples_dir: Path, launch_id: int, expected: dict[str, float]) -> None:
    row = _launch(_frame(samples_dir, LAKOC), launch_id)
    for column, value in expected.items():
        assert row[column] == _approx(value), column
    assert row["l2_bytes_basis"] == "lts__t_bytes"
    assert row["l1_bytes_basis"] == "l1tex__t_bytes"
    # sm__inst_executed_pipe_tensor.sum is "1,280" / "64" / "64" (lines 22, 37, 52),
    # exactly the HFMA thread count / 32 (40,960 / 32, 2,048 / 32): HFMA2.MMA
    # register moves, neither tensor-core nor FP16 math, even though no CC is
    # known.
    assert row["flops_tensor"] == 0.0
    assert "HFMA2.MMA" in str(row["flops_tensor_basis"])

    flops, ai_dram, achieved = LAKOC_TOTALS[launch_id]
    assert flops == expected["flops_fp32"] + expected["flops_fp64"] + expected["flops_fp16"]
    assert row["flops"] == _approx(flops)
    assert row["ai_dram"] == _approx(ai_dram)
    assert row["achieved_flops_per_s"] == _approx(achieved)
    assert row["dram_bytes_per_s"] == _approx(expected["dram_bytes"] / expected["duration_s"])


# --- 3. wangzy0327 on a V100 (CC 7.0): tensor FLOPs = 512 x HMMA.884 count ----
#
# 10-line prelude (program stdout), base units, 15 metric rows per launch.
# IDs 4-9 are the CUTLASS MmaPipelined GEMM, ID 10 cuBLAS's
# cutlass_70_tensorop_s884gemm_f16_128x128_nn_align8.  The GEMM is
# 20480 x 20480 x 20480 (grid 160 x 160 of 128 x 128 tiles):
# 2 x 20480^3 = 17,179,869,184,000 = 512 x 33,554,432,000 exactly, which
# confirms the x512 for Volta.

V100_LAUNCHES = [
    pytest.param(
        0,
        {
            "flops_tensor": 512 * 0,  # line 17: sm__inst_executed_pipe_tensor.sum "0"
            "flops_fp32": 0 + 0 + 2 * 0,  # lines 21, 23, 22
            "flops": 0.0,  # no FP work of any kind (lines 17-26 all "0")
            "dram_bytes": 837_859_712,  # line 12
            "ai_dram": 0 / 837_859_712,  # = 0.0
            "duration_s": 3_530_235.80 / 1_235_108_248.43,  # lines 15 / 16 = 2.85824e-3 s
        },
        id="InitializeMatrix_half-0",
    ),
    pytest.param(
        2,
        {
            "flops_tensor": 512 * 0,  # line 47
            "flops_fp32": 0 + 0 + 2 * 0,  # lines 51, 53, 52
            "flops": 0.0,
            "dram_bytes": 1_676_716_704,  # line 42
            "ai_dram": 0 / 1_676_716_704,
            "duration_s": 3_529_701.30 / 1_234_935_071.21,  # lines 45 / 46 = 2.858208e-3 s
        },
        id="InitializeMatrix_float-2",
    ),
    pytest.param(
        4,
        {
            # line 77: "33,554,432,000" tensor-pipe instructions x 512 = 17,179,869,184,000
            "flops_tensor": 512 * 33_554_432_000,
            # fadd line 81 "2,126,643,200" + fmul line 83 "419,430,400" + 2 x ffma line 82 "0"
            "flops_fp32": 2_126_643_200 + 419_430_400 + 2 * 0,  # = 2,546,073,600
            # tensor + fp32; fp64 and fp16 counts (lines 78-80, 84-86) are all "0"
            "flops": 512 * 33_554_432_000 + 2_546_073_600,  # = 17,182,415,257,600
            "dram_bytes": 205_394_417_472,  # line 72
            "ai_dram": (512 * 33_554_432_000 + 2_546_073_600) / 205_394_417_472,  # = 83.656
            "duration_s": 582_304_151.08 / 1_233_398_550.71,  # lines 75 / 76 = 0.472114 s
        },
        id="cutlass_MmaPipelined-4",
    ),
    pytest.param(
        10,
        {
            "flops_tensor": 512 * 33_554_432_000,  # line 167
            "flops_fp32": 0 + 419_430_400 + 2 * 0,  # fadd line 171, fmul line 173, ffma line 172
            "flops": 512 * 33_554_432_000 + 419_430_400,  # = 17,180,288,614,400
            "dram_bytes": 25_174_959_968,  # line 162
            "ai_dram": (512 * 33_554_432_000 + 419_430_400) / 25_174_959_968,  # = 682.44
            "duration_s": 224_198_002.15 / 1_236_080_147.79,  # lines 165 / 166 = 0.181378 s
        },
        id="cutlass_70_tensorop_s884gemm-10",
    ),
]


@pytest.mark.parametrize(("launch_id", "expected"), V100_LAUNCHES)
def test_wangzy_v100_volta_tensor(
    samples_dir: Path, launch_id: int, expected: dict[str, float]
) -> None:
    row = _launch(_frame(samples_dir, WANGZY_V100), launch_id)
    for column, value in expected.items():
        assert row[column] == _approx(value), column
    assert str(row["cc"]) == "7.0"  # CC column of every row
    assert row["achieved_flops_per_s"] == _approx(expected["flops"] / expected["duration_s"])
    assert row["l2_bytes_basis"] == "lts__t_bytes"
    assert row["l1_bytes_basis"] == "l1tex__t_bytes"


# --- 4. leleucas: PyTorch BERT on an unknown GPU (KT-header, no CC) ------------
#
# 26 launches, base units, metric rows mixed with LaunchStats/Occupancy/rule
# rows.  Chosen: ID 0 (distribution kernel, hfma and tensor instructions),
# ID 6 (ampere_sgemm_32x32_sliced1x4_tn, pure FP32, no tensor work),
# ID 19 (softmax_warp_forward, FP32 + hfma).  The tensor-pipe instructions of
# IDs 0 and 19 are HFMA2.MMA register moves (see below): flops_tensor is 0, and
# their HFMAs are no FP16 work either, so `flops` = fp32 + fp64.

LELEUCAS_LAUNCHES = [
    pytest.param(
        0,
        {
            "flops_fp32": 0
            + 0
            + 2 * 327_680,  # fadd line 37, fmul line 39, ffma line 38: = 655,360
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 34, 36, 35
            # hadd 40, hmul 42, hfma 41 "65,536" less 32 x tensor line 33 "2,048": = 0
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (65_536 - 32 * 2_048),
            "dram_bytes": 128,  # line 2
            "l2_bytes": 666_976,  # line 29
            "l1_bytes": 262_144,  # line 27
            "ai_l2": (655_360 + 0 + 0) / 666_976,  # = 0.98258 (1.3756 with the moves)
            "duration_s": 5_387.52 / 967_585_940.83,  # lines 31 / 32 = 5.568e-6 s
        },
        id="distribution_elementwise-0",
    ),
    pytest.param(
        6,
        {
            # fadd line 408 "196,608" + fmul line 410 "262,144" + 2 x ffma line 409 "4,194,304"
            "flops_fp32": 196_608 + 262_144 + 2 * 4_194_304,  # = 8,847,360
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 405, 407, 406
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * 0,  # lines 411, 413, 412
            "flops_tensor": 0.0,  # line 404: tensor-pipe count "0", whatever the CC
            "dram_bytes": 303_360,  # line 373
            "l2_bytes": 1_983_520,  # line 400
            "l1_bytes": 1_015_808,  # line 398
            "ai_l2": 8_847_360 / 1_983_520,  # = 4.4604
            "duration_s": 9_583.22 / 998_252_314.81,  # lines 402 / 403 = 9.600e-6 s
        },
        id="ampere_sgemm-6",
    ),
    pytest.param(
        19,
        {
            # fadd line 1214 "81,920" + fmul line 1216 "10,240" + 2 x ffma line 1215 "85,760"
            "flops_fp32": 81_920 + 10_240 + 2 * 85_760,  # = 263,680
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 1211, 1213, 1212
            # lines 1217, 1219, 1218 "3,200", less min(32 x tensor line 1210 "160",
            # 3,200) = 3,200 moves (lanes predicated off): = 0
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (3_200 - min(32 * 160, 3_200)),
            "dram_bytes": 25_728,  # line 1179
            "l2_bytes": 266_400,  # line 1206
            "l1_bytes": 61_440,  # line 1204
            "ai_l2": (263_680 + 0 + 0) / 266_400,  # = 0.98979 (1.0378 with the moves)
            "duration_s": 4_395.57 / 842_709_753.47,  # lines 1208 / 1209 = 5.216e-6 s
        },
        id="softmax_warp_forward-19",
    ),
]


@pytest.mark.parametrize(("launch_id", "expected"), LELEUCAS_LAUNCHES)
def test_leleucas_counts_and_l2_intensity(
    samples_dir: Path, launch_id: int, expected: dict[str, float]
) -> None:
    row = _launch(_frame(samples_dir, LELEUCAS), launch_id)
    for column, value in expected.items():
        assert row[column] == _approx(value), column
    assert row["l2_bytes_basis"] == "lts__t_bytes"
    assert row["l1_bytes_basis"] == "l1tex__t_bytes"


@pytest.mark.parametrize(
    "launch_id",
    [
        0,  # line 33: sm__inst_executed_pipe_tensor.sum "2,048"
        19,  # line 1210: "160"
    ],
)
def test_leleucas_tensor_pipe_is_hfma2_mma(samples_dir: Path, launch_id: int) -> None:
    # These tensor-pipe instructions are HFMA2.MMA register moves, neither
    # tensor nor FP16 work: launch 0 has 2,048 = 65,536 / 32 of them (line 33 vs the
    # hfma count), launch 19 has 160 against 3,200 / 32 = 100 (lanes
    # predicated off), so no tensor-core math is counted, with or without a
    # GPU (the file has no CC; only Volta lacks HFMA2.MMA).
    for gpu in (None, "a100_40gb_sxm"):
        row = _launch(_frame(samples_dir, LELEUCAS, gpu=gpu), launch_id)
        assert row["flops_tensor"] == 0.0
        assert "HFMA2.MMA" in str(row["flops_tensor_basis"])


# --- 5. wangzy0327 on an A100: bytes and cycles, no FLOP counters ------------
#
# Only six metrics per launch: dram/L1/L2 bytes, sm cycles, clock, tensor-pipe
# instructions.  No sass FP counters at all, so every FP precision is unknown.

A100_DRAM = [
    # (ID, dram__bytes.sum, sm__cycles_elapsed.avg, sm__cycles_elapsed.avg.per_second)
    (0, 823_404_288, 1_708_634.20, 765_001_631.38),  # lines 12, 15, 16
    (1, 823_402_880, 1_708_616.37, 764_982_686.81),  # lines 18, 21, 22
    (2, 1_661_805_312, 1_709_310.11, 764_975_453.22),  # lines 24, 27, 28
    (3, 1_661_860_480, 1_709_704.35, 764_998_510.84),  # lines 30, 33, 34
    (4, 147_469_918_080, 100_747_804.11, 764_999_418.90),  # lines 36, 39, 40
    (5, 147_554_817_792, 100_768_951, 764_999_575.78),  # lines 42, 45, 46
    (6, 147_444_876_032, 100_702_108.50, 764_999_669.55),  # lines 48, 51, 52
    (7, 147_492_180_096, 100_789_047.07, 764_999_560.64),  # lines 54, 57, 58
    (8, 147_478_517_888, 100_779_241.44, 764_999_642.96),  # lines 60, 63, 64
    (9, 147_596_084_736, 100_805_549.96, 764_999_772.05),  # lines 66, 69, 70
    (10, 25_702_818_048, 81_835_957.76, 764_999_572.23),  # lines 72, 75, 76
]


@pytest.mark.parametrize(("launch_id", "dram_bytes", "cycles", "clock"), A100_DRAM)
def test_wangzy_a100_bytes_without_flop_counters(
    samples_dir: Path, launch_id: int, dram_bytes: float, cycles: float, clock: float
) -> None:
    row = _launch(_frame(samples_dir, WANGZY_A100), launch_id)
    assert _is_nan(row["flops_fp32"])
    assert _is_nan(row["flops_fp64"])
    assert _is_nan(row["flops_fp16"])
    assert row["dram_bytes"] == _approx(dram_bytes)
    assert row["duration_s"] == _approx(cycles / clock)  # e.g. ID 0: 2.2335e-3 s
    assert _finite(row["dram_bytes_per_s"])
    # e.g. ID 0: 823,404,288 B / 2.2335e-3 s = 368.66e9 B/s
    assert row["dram_bytes_per_s"] == _approx(dram_bytes / (cycles / clock))


@pytest.mark.parametrize(
    "launch_id",
    [0, 1, 2, 3],  # InitializeMatrix_kernel: tensor count "0" on lines 17, 23, 29, 35
)
def test_wangzy_a100_without_flops_is_not_placeable(samples_dir: Path, launch_id: int) -> None:
    row = _launch(_frame(samples_dir, WANGZY_A100), launch_id)
    assert row["flops_tensor"] == 0.0
    assert row["bound"] == "not placeable"
    assert "FLOP" in str(row["bound_reason"])
    assert _finite(row["dram_bytes_per_s"])


@pytest.mark.parametrize("launch_id", [4, 5, 6, 7, 8, 9])
def test_wangzy_a100_cutlass_tensor_flops_from_the_cast_spelled_shape(
    samples_dir: Path, launch_id: int
) -> None:
    # The CUTLASS kernel's name spells its instruction shape the ncu <= 2023
    # way, arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)8>, (int)32, ...:
    # HMMA.1688, 2*16*8*8 = 2048 FLOPs per instruction.  Lines 41-71 give
    # sm__inst_executed_pipe_tensor.sum = 8,388,608,000, so
    # 8,388,608,000 x 2048 = 1.7179869184e13 = 2 x 20480^3, the program's
    # 20480-cubed GEMM (the CC 8.0 default of 4096 would double it).
    row = _launch(_frame(samples_dir, WANGZY_A100), launch_id)
    assert row["flops_tensor"] == _approx(8_388_608_000 * 2048)
    assert row["flops_tensor"] == _approx(2 * 20480**3)


def test_wangzy_a100_cublas_tensor_flops_from_the_procedural_name(samples_dir: Path) -> None:
    # ID 10, ampere_..._s16816gemm_...: 2*16*8*16 = 4096 per instruction;
    # line 77: 4,194,304,000 x 4096 = 1.7179869184e13, the same 20480^3 GEMM.
    row = _launch(_frame(samples_dir, WANGZY_A100), 10)
    assert row["flops_tensor"] == _approx(4_194_304_000 * 4096)


# --- 6. Gardenia-Tian: smsp__ prefix, every value with ".00" ------------------
#
# 7-line prelude of ==PROF==/==ERROR==/==WARNING== lines, base units.  Duration
# from smsp__cycles_elapsed.avg / .per_second.  ID 2 has a non-zero
# tensor-pipe count on CC 8.0 (approximate factor), so its total FLOPs and
# intensities are not asserted; IDs 0 and 1 have none.

GARDENIA_LAUNCHES = [
    pytest.param(
        0,
        {
            # fadd line 18 "0.00" + fmul line 20 "0.00" + 2 x ffma line 19 "838,860,800.00"
            "flops_fp32": 0 + 0 + 2 * 838_860_800,  # = 1,677,721,600
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 15, 17, 16
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * 0,  # lines 21, 23, 22
            "flops_tensor": 0.0,  # line 14: smsp__inst_executed_pipe_tensor.sum "0.00"
            "dram_bytes": 5_443_677_824,  # line 9
            "l2_bytes": 692_298_376_608,  # line 11
            "l1_bytes": 16_852_881_244_160,  # line 10 (16.9 TB for an init kernel: real data)
            "duration_s": 5_146_386_157.87 / 764_869_588.39,  # lines 12 / 13 = 6.7284 s
        },
        id="randomInit-0",
    ),
    pytest.param(
        1,
        {
            "flops_fp32": 0 + 0 + 2 * 838_860_800,  # lines 33, 35, 34
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 30, 32, 31
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * 0,  # lines 36, 38, 37
            "flops_tensor": 0.0,  # line 29
            "dram_bytes": 5_552_444_672,  # line 24
            "l2_bytes": 692_187_947_072,  # line 26
            "l1_bytes": 16_739_635_036_160,  # line 25
            "duration_s": 5_131_522_369.91 / 764_865_687.00,  # lines 27 / 28 = 6.7091 s
        },
        id="randomInit-1",
    ),
    pytest.param(
        2,
        {
            # 2 x ffma line 49 "34,359,738,368,000.00" (fadd line 48, fmul line 50: "0.00")
            "flops_fp32": 0 + 0 + 2 * 34_359_738_368_000,  # = 68,719,476,736,000
            "flops_fp64": 0 + 0 + 2 * 0,  # lines 45, 47, 46
            # 4 x hfma line 52 "3,355,443,200.00" (hadd line 51, hmul line 53: "0.00"),
            # all of them HFMA2.MMA moves: tensor line 44 "104,857,600.00" x 32 is
            # exactly 3,355,443,200, so FP16 = 0 (13,421,772,800 counted them)
            "flops_fp16": 2 * 0 + 2 * 0 + 4 * (3_355_443_200 - 32 * 104_857_600),
            "dram_bytes": 4_419_786_379_648,  # line 39
            "l2_bytes": 13_114_550_930_688,  # line 41
            "l1_bytes": 171_805_402_726_400,  # line 40
            "duration_s": 27_957_495_411.17 / 764_444_046.88,  # lines 42 / 43 = 36.572 s
        },
        id="gemm_v0-2",
    ),
]

# Totals for the two launches without tensor work: flops = fp32 = 1,677,721,600.
GARDENIA_TOTALS = {
    0: (1_677_721_600 / 5_443_677_824, 1_677_721_600 / (5_146_386_157.87 / 764_869_588.39)),
    1: (1_677_721_600 / 5_552_444_672, 1_677_721_600 / (5_131_522_369.91 / 764_865_687.00)),
}


@pytest.mark.parametrize(("launch_id", "expected"), GARDENIA_LAUNCHES)
def test_gardenia_smsp_counts(
    samples_dir: Path, launch_id: int, expected: dict[str, float]
) -> None:
    row = _launch(_frame(samples_dir, GARDENIA), launch_id)
    for column, value in expected.items():
        assert row[column] == _approx(value), column
    assert row["l2_bytes_basis"] == "lts__t_bytes"
    assert row["l1_bytes_basis"] == "l1tex__t_bytes"
    if launch_id in GARDENIA_TOTALS:
        ai_dram, achieved = GARDENIA_TOTALS[launch_id]  # 0.3082 / 0.3022; 249e6 / 250e6 FLOP/s
        assert row["flops"] == _approx(1_677_721_600)
        assert row["ai_dram"] == _approx(ai_dram)
        assert row["achieved_flops_per_s"] == _approx(achieved)


# --- 7. CodeGandee: ops_path tensor counter, auto units, mixed Mbyte/byte -----
#
# One launch (ID 0), CC 12.0.  sm__ops_path_tensor_src_bf16_dst_fp32.sum is
# "12,532,580,352" with an empty unit (line 9); dram__bytes_read.sum is
# "17.50" Mbyte (line 2) but dram__bytes_write.sum is "0" byte (line 3);
# gpu__time_duration.sum "111.81" us (line 7).  flop_count_sp/hp are "n/a"
# (lines 5, 6) and there are no sass FP counters: FP precisions are unknown.

CODEGANDEE_TENSOR = 12_532_580_352  # line 9, ops = FLOPs (2 per MAC)
CODEGANDEE_DRAM = 17.50e6 + 0  # line 2 "17.50" Mbyte + line 3 "0" byte = 17,500,000 B
CODEGANDEE_DURATION = 111.81e-6  # line 7 "111.81" us


def test_codegandee_ops_path_tensor(samples_dir: Path) -> None:
    row = _launch(_frame(samples_dir, CODEGANDEE), 0)
    assert row["flops_tensor"] == _approx(CODEGANDEE_TENSOR)
    assert _is_nan(row["flops_fp32"])
    assert _is_nan(row["flops_fp16"])
    assert row["flops"] == _approx(CODEGANDEE_TENSOR)
    assert row["dram_bytes"] == _approx(CODEGANDEE_DRAM)
    assert row["duration_s"] == _approx(CODEGANDEE_DURATION)
    # 12,532,580,352 / 111.81e-6 s = 112.09e12 FLOP/s
    assert row["achieved_flops_per_s"] == _approx(CODEGANDEE_TENSOR / CODEGANDEE_DURATION)
    # 12,532,580,352 / 17,500,000 B = 716.15 FLOP/byte.  The engine takes
    # intensity as rate over rate (ncu's definition) where ncu measured the
    # DRAM rate: 112.09e12 / 156.55e9 = 715.99, 0.02 % lower.
    assert row["ai_dram"] == _approx(CODEGANDEE_TENSOR / CODEGANDEE_DRAM, 1e-3)
    # 17.5e6 B / 111.81e-6 s = 156.52e9 B/s; the file's own "Memory Throughput"
    # (line 23) says "156.55" Gbyte/s.  Either source is acceptable: the two
    # differ by 0.02 %, well under the two-decimal rounding of "17.50" Mbyte.
    assert row["dram_bytes_per_s"] == _approx(156.52e9, 1e-3)


@pytest.mark.parametrize("name", [LELEUCAS, LUKAS, WANGZY_A100])
def test_launch_texts_are_shared_not_copied_per_launch(samples_dir: Path, name: str) -> None:
    # A text column holds one object per distinct text: a basis or reason
    # joined per launch, or a value pandas copies per row, would hold a copy
    # per launch (tens of MB on a 170,000-launch export).
    frame = _frame(samples_dir, name)
    for col in frame.columns:
        if frame[col].dtype != object:
            continue
        values = [v for v in frame[col].tolist() if isinstance(v, str)]
        assert len({id(v) for v in values}) == len(set(values)), col
