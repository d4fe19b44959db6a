"""The readers against real ncu exports, with values read off the files by hand.

The exports live outside the repository, in ``../shared/ncu-samples/`` (see
INDEX.md there for where each one comes from); they are never copied in.
Every expected number below was read by hand from the file named in the
test, at the line given in the comment next to it (1-based line numbers of
the file as stored), and converted to SI by hand: ``"17.50"`` Mbyte is
17.5e6 bytes, ``"111.81"`` us is 111.81e-6 s, ``"13.78"`` Ghz is 13.78e9 Hz,
``"837,859,712"`` byte is 837859712 bytes.  The .ncu-rep values were read
with NVIDIA's ``ncu_report`` module directly, and are read again with it in
the tests, independently of the package's reader.
"""

from __future__ import annotations

import importlib.util
import math
from functools import cache
from typing import Any

import pandas as pd
import pytest

from ncu_roofline import load
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers import read_source
from tests.helpers import SAMPLES

pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(),
    reason=f"the real ncu exports are not there: {SAMPLES} "
    "(they live outside the repository, in ../shared/ncu-samples/)",
)

HAS_NCU_REPORT = importlib.util.find_spec("ncu_report") is not None
NCU_REPORT_REASON = (
    "NVIDIA's optional ncu_report module is not installed "
    "(pip install 'ncu-roofline[ncu-rep]'); .ncu-rep files cannot be read"
)
needs_ncu_report = pytest.mark.skipif(not HAS_NCU_REPORT, reason=NCU_REPORT_REASON)

REL = 1e-12  # values parsed from text: only float rounding separates them

# The saved names, as listed in INDEX.md.
WANGZY_V100 = "wangzy0327__cuda-roofline__src_output.csv"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
MEINIE_RAW = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
    "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
NVIDIA_REP = "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep"
CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
LAKOC_OUT = "Lakoc__Nbody_CUDA__profile_1.out"
LAKOC_REP = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
YKTIAN = (
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res"
    "_TorchRes_ncu_metrics_show_torch.txt"
)
LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
    "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
GIOTYP = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"
NVPROF = "nvprof/rai-project__go-cupti__output.csv"

NCU_FILES = (
    WANGZY_V100,
    WANGZY_A100,
    GARDENIA,
    MEINIE_RAW,
    NVIDIA_REP,
    CODEGANDEE,
    LAKOC_OUT,
    LAKOC_REP,
    YKTIAN,
    LUKAS,
    LELEUCAS,
    GIOTYP,
)


@cache
def _read(name: str) -> tuple[pd.DataFrame, SourceInfo]:
    """read_source on a sample, once per session (tests must not mutate it)."""
    if name.endswith(".ncu-rep") and not HAS_NCU_REPORT:
        pytest.skip(NCU_REPORT_REASON)
    return read_source(str(SAMPLES / name))


def _launch(frame: pd.DataFrame, launch_id: int) -> pd.Series:
    """The one row whose ``id`` is ``launch_id``."""
    rows = frame[frame["id"] == launch_id]
    assert len(rows) == 1, f"expected one launch with id {launch_id}, got {len(rows)}"
    return rows.iloc[0]


def _approx(value: float) -> Any:
    return pytest.approx(value, rel=REL, abs=0.0)


# --- the catalogue ----------------------------------------------------------


def test_every_sample_is_covered() -> None:
    """A file added to ncu-samples/ must get its own expectations here."""
    present = {
        p.relative_to(SAMPLES).as_posix()
        for p in SAMPLES.rglob("*")
        if p.is_file() and p.name != "INDEX.md"
    }
    assert present == {*NCU_FILES, NVPROF}


# Expected per file: layout, launches (rows of the model), distinct kernel
# names, device labels, unit mode, aggregated flag.  Counted by hand from the
# files (distinct ID values; distinct Kernel Name values).
OVERVIEW = [
    # 11 IDs (0-10); kernels: InitializeMatrix_kernel<__half>, <float>, the
    # CUTLASS MmaPipelined Gemm (IDs 4-9) and cutlass_70_tensorop_s884gemm (ID 10);
    # Device "0", CC "7.0" on every row.
    (WANGZY_V100, "details", 11, 4, ["device 0 CC 7.0"], "base", False),
    # Same application on an A100: 11 IDs, 4 names (ID 10 ampere_s16816gemm...), CC "8.0".
    (WANGZY_A100, "details", 11, 4, ["device 0 CC 8.0"], "base", False),
    # IDs 0-2: randomInit<float> twice, gemm_v0<float> once; Device "0", CC "8.0".
    (GARDENIA, "details", 3, 2, ["device 0 CC 8.0"], "base", False),
    # 64 data rows (IDs 0-63) under the units row, all BatchDecodeWithPagedKVCacheKernel;
    # device__attribute_display_name "NVIDIA B200", CC "10.0".
    (MEINIE_RAW, "raw", 64, 1, ["NVIDIA B200 CC 10.0"], "base", False),
    # ncu_report: 1 range, 3 actions (init_data_kernel, daxpy_kernel,
    # check_results_kernel), display name "NVIDIA GeForce RTX 3070", CC 8.6.
    pytest.param(
        NVIDIA_REP,
        "ncu-rep",
        3,
        3,
        ["NVIDIA GeForce RTX 3070 CC 8.6"],
        "base",
        False,
        marks=needs_ncu_report,
    ),
    # One ID (0), one kernel (Kernel2<cutlass_80_tensorop_bf16...>), CC "12.0";
    # units Mbyte/us/Ghz/Gbyte/s: auto-scaled.
    (CODEGANDEE, "details", 1, 1, ["device 0 CC 12.0"], "auto", False),
    # KT-header: no Device/CC columns at all, so no device is known.
    # IDs 0-2: calculate_velocity, centerOfMass twice.
    (LAKOC_OUT, "details", 3, 2, ["unknown device"], "base", False),
    # ncu_report: 3 actions (calculate_velocity, centerOfMass x2),
    # "NVIDIA A100-SXM4-40GB", CC 8.0.
    pytest.param(
        LAKOC_REP,
        "ncu-rep",
        3,
        2,
        ["NVIDIA A100-SXM4-40GB CC 8.0"],
        "base",
        False,
        marks=needs_ncu_report,
    ),
    # KT-header + NVTX columns, no device columns; IDs 0-13, 12 distinct names
    # (vectorized_elementwise_kernel<batch_norm_calc_invstd> and
    # batch_norm_transform_input_channels_last_kernel each appear twice).
    (YKTIAN, "details", 14, 12, ["unknown device"], "base", False),
    # IDs 0-3, the same CUTLASS Kernel<Gemm<...>> 4 times; CC "12.0"; us/Ghz/Gbyte/s.
    (LUKAS, "details", 4, 1, ["device 0 CC 12.0"], "auto", False),
    # KT-header + rule columns, no device columns; IDs 0-25, 12 distinct names.
    (LELEUCAS, "details", 26, 12, ["unknown device"], "base", False),
    # Summary: one row per kernel name (kernel_B, kernel_A), each "100"
    # invocations: 200 launches in 2 rows.
    (GIOTYP, "summary", 200, 2, ["device 0 CC 8.0"], "base", True),
]


@pytest.mark.parametrize(
    ("name", "layout", "launches", "kernels", "devices", "units", "aggregated"), OVERVIEW
)
def test_overview(
    name: str,
    layout: str,
    launches: int,
    kernels: int,
    devices: list[str],
    units: str,
    aggregated: bool,
) -> None:
    frame, info = _read(name)
    assert info.layout == layout
    assert info.launches == launches
    assert int(frame["invocations"].sum()) == launches
    assert info.rows == len(frame)
    assert info.kernels == kernels
    assert frame["kernel"].nunique() == kernels
    assert info.devices == devices
    assert info.units == units
    assert info.aggregated is aggregated
    assert (frame["source"] == str(SAMPLES / name)).all()
    if not aggregated:
        assert (frame["invocations"] == 1).all()


def test_nvprof_export_is_rejected() -> None:
    # Two nvprof tables ("==7838== Event result:" / "Metric result:"), no ncu header.
    with pytest.raises(InputFormatError, match="nvprof"):
        read_source(str(SAMPLES / NVPROF))


# --- details pages, base units ---------------------------------------------


def test_wangzy_v100_values() -> None:
    frame, _ = _read(WANGZY_V100)
    first = _launch(frame, 0)
    # line 12, ID 0 InitializeMatrix_kernel<__half>, dram__bytes.sum byte "837,859,712"
    assert first["dram__bytes.sum"] == _approx(837_859_712.0)
    # line 13, ID 0, l1tex__t_bytes.sum byte "838,860,800"
    assert first["l1tex__t_bytes.sum"] == _approx(838_860_800.0)
    gemm = _launch(frame, 4)
    # line 77, ID 4 (CUTLASS MmaPipelined Gemm), sm__inst_executed_pipe_tensor.sum "33,554,432,000"
    assert gemm["sm__inst_executed_pipe_tensor.sum"] == _approx(33_554_432_000.0)
    # line 81, ID 4, sm__sass_thread_inst_executed_op_fadd_pred_on.sum "2,126,643,200"
    assert gemm["sm__sass_thread_inst_executed_op_fadd_pred_on.sum"] == _approx(2_126_643_200.0)
    # line 83, ID 4, ..._fmul_pred_on.sum "419,430,400"; line 82, ..._ffma_pred_on.sum "0"
    assert gemm["sm__sass_thread_inst_executed_op_fmul_pred_on.sum"] == _approx(419_430_400.0)
    assert gemm["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] == 0.0
    # Grid "(160, 160, 1)", Block "(128, 1, 1)" on the ID 4 rows.
    assert gemm["grid_blocks"] == 25_600
    assert gemm["block_threads"] == 128
    # The CUTLASS template name is 4,831 characters long (INDEX.md) and kept whole.
    assert len(gemm["kernel"]) == 4_831
    last = _launch(frame, 10)
    # line 162, ID 10, dram__bytes.sum "25,174,959,968"
    assert last["dram__bytes.sum"] == _approx(25_174_959_968.0)
    assert last["kernel"] == (
        "void cutlass::Kernel<cutlass_70_tensorop_s884gemm_f16_128x128_nn_align8>(T1::Params)"
    )


def test_wangzy_v100_duration_from_cycles() -> None:
    frame, _ = _read(WANGZY_V100)
    assert "gpu__time_duration.sum" not in frame.columns
    first = _launch(frame, 0)
    # line 15 sm__cycles_elapsed.avg "3,530,235.80"; line 16 .per_second "1,235,108,248.43"
    assert first["duration_s"] == _approx(3_530_235.80 / 1_235_108_248.43)
    assert first["duration_basis"] == "cycles/clock"
    last = _launch(frame, 10)
    # line 165 sm__cycles_elapsed.avg "224,198,002.15"; line 166 "1,236,080,147.79"
    assert last["duration_s"] == _approx(224_198_002.15 / 1_236_080_147.79)


def test_wangzy_a100_values_and_no_flop_counters() -> None:
    frame, _ = _read(WANGZY_A100)
    # line 12, ID 0 InitializeMatrix_kernel<__half>, dram__bytes.sum "823,404,288"
    assert _launch(frame, 0)["dram__bytes.sum"] == _approx(823_404_288.0)
    # line 38, ID 4 (CUTLASS MmaMultistage Gemm), lts__t_bytes.sum "425,291,700,800"
    assert _launch(frame, 4)["lts__t_bytes.sum"] == _approx(425_291_700_800.0)
    last = _launch(frame, 10)
    assert last["kernel"] == "ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn"
    # line 77, ID 10, sm__inst_executed_pipe_tensor.sum "4,194,304,000"
    assert last["sm__inst_executed_pipe_tensor.sum"] == _approx(4_194_304_000.0)
    # ID 10 rows: Grid "(80, 160, 2)" = 25,600 blocks, Block "(256, 1, 1)"
    assert last["grid_blocks"] == 25_600
    assert last["block_threads"] == 256
    # line 75 sm__cycles_elapsed.avg "81,835,957.76"; line 76 .per_second "764,999,572.23"
    assert last["duration_s"] == _approx(81_835_957.76 / 764_999_572.23)
    # Only 6 metrics per kernel: no sass FLOP counters at all (bytes but no FLOPs).
    assert not [c for c in frame.columns if "sass_thread_inst_executed" in c]


def test_gardenia_thousands_separators_with_decimals() -> None:
    frame, info = _read(GARDENIA)
    first = _launch(frame, 0)
    # line 9, ID 0 randomInit<float>, dram__bytes.sum byte "5,443,677,824.00"
    assert first["dram__bytes.sum"] == _approx(5_443_677_824.0)
    # line 10, ID 0, l1tex__t_bytes.sum "16,852,881,244,160.00" (implausible, but real)
    assert first["l1tex__t_bytes.sum"] == _approx(16_852_881_244_160.0)
    # line 12, ID 0, smsp__cycles_elapsed.avg cycle "5,146,386,157.87"
    assert first["smsp__cycles_elapsed.avg"] == _approx(5_146_386_157.87)
    gemm = _launch(frame, 2)
    assert gemm["kernel"] == "void gemm_v0<float>(T1 *, T1 *, T1 *, int, int, int)"
    # line 49, ID 2, smsp__sass_thread_inst_executed_op_ffma_pred_on.sum "34,359,738,368,000.00"
    assert gemm["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == _approx(
        34_359_738_368_000.0
    )
    # line 44, ID 2, smsp__inst_executed_pipe_tensor.sum "104,857,600.00"
    assert gemm["smsp__inst_executed_pipe_tensor.sum"] == _approx(104_857_600.0)
    # line 52, ID 2, smsp__sass_thread_inst_executed_op_hfma_pred_on.sum "3,355,443,200.00"
    assert gemm["smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"] == _approx(3_355_443_200.0)
    # The ==ERROR== lines of the prelude (lines 4 and 6) are reported, not parsed.
    assert any('Failed to profile "gemm_shared_tile"' in w for w in info.warnings)


def test_gardenia_duration_from_smsp_cycles() -> None:
    frame, _ = _read(GARDENIA)
    assert "gpu__time_duration.sum" not in frame.columns
    # line 12 smsp__cycles_elapsed.avg "5,146,386,157.87"; line 13 .per_second "764,869,588.39"
    first = _launch(frame, 0)
    assert first["duration_s"] == _approx(5_146_386_157.87 / 764_869_588.39)
    assert first["duration_basis"] == "cycles/clock"
    # line 42 "27,957,495,411.17"; line 43 "764,444,046.88" (ID 2, gemm_v0)
    assert _launch(frame, 2)["duration_s"] == _approx(27_957_495_411.17 / 764_444_046.88)


def test_lakoc_kt_header_values() -> None:
    frame, _ = _read(LAKOC_OUT)
    first = _launch(frame, 0)
    assert first["kernel"] == "calculate_velocity(t_particles, t_particles, int, float)"
    # line 17, ID 0, dram__bytes.sum "67,584"
    assert first["dram__bytes.sum"] == _approx(67_584.0)
    # line 27, ID 0, sm__sass_thread_inst_executed_op_ffma_pred_on.sum "12,625,920"
    assert first["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] == _approx(12_625_920.0)
    # line 30, ID 0, sm__sass_thread_inst_executed_op_hfma_pred_on.sum "40,960"
    assert first["sm__sass_thread_inst_executed_op_hfma_pred_on.sum"] == _approx(40_960.0)
    # line 41, ID 1 centerOfMass, sm__sass_thread_inst_executed_op_fadd_pred_on.sum "10,256"
    assert _launch(frame, 1)["sm__sass_thread_inst_executed_op_fadd_pred_on.sum"] == _approx(
        10_256.0
    )
    # Stream column: "13" (ID 0), "14" (ID 1), "7" (ID 2).
    assert list(frame.sort_values("id")["stream"]) == [13, 14, 7]


def test_lakoc_kernel_time_is_a_timestamp_not_a_duration() -> None:
    frame, _ = _read(LAKOC_OUT)
    # Kernel Time column: "2022-Nov-10 15:48:11" on every row.
    assert list(frame["kernel_time"]) == ["2022-Nov-10 15:48:11"] * 3
    assert all(isinstance(t, str) for t in frame["kernel_time"])
    # No gpu__time_duration: the duration comes from the cycles, never the timestamp.
    assert "gpu__time_duration.sum" not in frame.columns
    first = _launch(frame, 0)
    # line 20 sm__cycles_elapsed.avg "419,843.85"; line 21 .per_second "1,094,803,101.67"
    assert first["duration_s"] == _approx(419_843.85 / 1_094_803_101.67)
    assert first["duration_basis"] == "cycles/clock"
    # line 35 "19,081.54"; line 36 "1,092,120,938.48" (ID 1)
    assert _launch(frame, 1)["duration_s"] == _approx(19_081.54 / 1_092_120_938.48)


def test_yktian_nvtx_and_kernel_time() -> None:
    frame, _ = _read(YKTIAN)
    # Column "Id:Domain:Start/Stop_Range:PL_Type:PL_Value" holds
    # ' "0:<default domain>:convLayer:none:none" ' on every row; the push/pop
    # column is empty.
    assert list(frame["nvtx"]) == ["convLayer"] * 14
    first = _launch(frame, 0)
    # line 10, ID 0: Kernel Time "2024-Jul-13 20:44:08"
    assert first["kernel_time"] == "2024-Jul-13 20:44:08"
    # ID 13 rows: Kernel Time "2024-Jul-13 20:44:11"
    assert _launch(frame, 13)["kernel_time"] == "2024-Jul-13 20:44:11"


def test_yktian_values() -> None:
    frame, _ = _read(YKTIAN)
    first = _launch(frame, 0)
    # line 12, ID 0 index_elementwise_kernel, gpu__time_duration.sum nsecond "5,824"
    assert first["gpu__time_duration.sum"] == _approx(5_824e-9)
    assert first["duration_s"] == _approx(5_824e-9)
    assert first["duration_basis"] == "gpu__time_duration"
    sgemm = _launch(frame, 3)
    assert sgemm["kernel"] == "ampere_sgemm_32x32_sliced1x4_tn"
    # line 42, ID 3, gpu__time_duration.sum nsecond "16,704"
    assert sgemm["gpu__time_duration.sum"] == _approx(16_704e-9)
    # line 47, ID 3, launch__shared_mem_per_block_static byte/block "32,768"
    assert sgemm["launch__shared_mem_per_block_static"] == _approx(32_768.0)
    # line 48, ID 3, sm__throughput.avg.pct_of_peak_sustained_elapsed % "40.54"
    assert sgemm["sm__throughput.avg.pct_of_peak_sustained_elapsed"] == _approx(40.54)
    # line 44, ID 3, launch__grid_size "120" (no Grid Size column in this header)
    assert sgemm["grid_blocks"] == 120


def test_leleucas_values() -> None:
    frame, _ = _read(LELEUCAS)
    # line 2, ID 0: Kernel Time "2023-May-09 15:12:33"
    assert _launch(frame, 0)["kernel_time"] == "2023-May-09 15:12:33"
    sgemm = _launch(frame, 18)
    assert sgemm["kernel"] == "ampere_sgemm_128x128_tn"
    # line 1117, ID 18, dram__bytes.sum byte "82,176"
    assert sgemm["dram__bytes.sum"] == _approx(82_176.0)
    # line 1153, ID 18, sm__sass_thread_inst_executed_op_ffma_pred_on.sum "8,388,608"
    assert sgemm["sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] == _approx(8_388_608.0)
    # line 1166, ID 18, Launch Statistics "Static Shared Memory Per Block" byte/block "16,896"
    assert sgemm["launch__shared_mem_per_block_static"] == _approx(16_896.0)
    # line 1167, ID 18, Launch Statistics "Threads" thread "4,096"
    assert sgemm["launch__thread_count"] == _approx(4_096.0)
    # line 1176, ID 18, Occupancy "Achieved Occupancy" % "12.48"
    assert sgemm["sm__warps_active.avg.pct_of_peak_sustained_active"] == _approx(12.48)
    # line 1146 sm__cycles_elapsed.avg "17,202.41"; line 1147 .per_second "1,058,218,959.61"
    assert sgemm["duration_s"] == _approx(17_202.41 / 1_058_218_959.61)
    assert sgemm["duration_basis"] == "cycles/clock"
    # line 1551, ID 25, dram__bytes.sum "3,328"
    assert _launch(frame, 25)["dram__bytes.sum"] == _approx(3_328.0)


# --- details pages, auto units ---------------------------------------------


def test_codegandee_auto_units() -> None:
    frame, _ = _read(CODEGANDEE)
    k = _launch(frame, 0)
    # line 2, dram__bytes_read.sum Mbyte "17.50"
    assert k["dram__bytes_read.sum"] == _approx(17.5e6)
    # line 3, dram__bytes_write.sum byte "0": a real zero
    assert k["dram__bytes_write.sum"] == 0.0
    # line 7, gpu__time_duration.sum us "111.81"
    assert k["gpu__time_duration.sum"] == _approx(111.81e-6)
    assert k["duration_s"] == _approx(111.81e-6)
    # line 9, sm__ops_path_tensor_src_bf16_dst_fp32.sum (no unit) "12,532,580,352"
    assert k["sm__ops_path_tensor_src_bf16_dst_fp32.sum"] == _approx(12_532_580_352.0)
    # line 11, GPU Speed Of Light Throughput "DRAM Frequency" Ghz "13.78"
    assert k["dram__cycles_elapsed.avg.per_second"] == _approx(13.78e9)
    # line 12, GPU Speed Of Light Throughput "SM Frequency" Ghz "2.00" (the gpc__ clock)
    assert k["gpc__cycles_elapsed.avg.per_second"] == _approx(2.00e9)
    # line 13, "Elapsed Cycles" cycle "224,652"
    assert k["gpc__cycles_elapsed.max"] == _approx(224_652.0)
    # line 19, "SM Active Cycles" cycle "161,177.21"
    assert k["sm__cycles_active.avg"] == _approx(161_177.21)
    # line 23, Memory Workload Analysis "Memory Throughput" Gbyte/s "156.55"; not the
    # SOL "Memory Throughput" % "27.74" of line 14, which is another metric
    assert k["dram__bytes.sum.per_second"] == _approx(156.55e9)
    assert k["gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"] == _approx(27.74)


def test_codegandee_na_is_nan_not_zero() -> None:
    frame, info = _read(CODEGANDEE)
    k = _launch(frame, 0)
    # line 8, sm__ops_path_tensor_src_bf16_dst_bf16.sum, empty unit, "n/a"
    assert "sm__ops_path_tensor_src_bf16_dst_bf16.sum" in frame.columns
    assert math.isnan(k["sm__ops_path_tensor_src_bf16_dst_bf16.sum"])
    # lines 5 and 6, flop_count_hp.sum / flop_count_sp.sum "n/a": missing wherever kept
    for col in ("flop_count_hp.sum", "flop_count_sp.sum"):
        if col in frame.columns:
            assert math.isnan(k[col])
    assert any(
        "n/a" in w and "sm__ops_path_tensor_src_bf16_dst_bf16.sum" in w for w in info.warnings
    )


def test_lukas_body_item_label_duplicates() -> None:
    frame, _ = _read(LUKAS)
    k = _launch(frame, 0)
    # line 3, ID 0, GPU Speed Of Light Throughput, (no body label), "SM Frequency" Ghz "2.40"
    assert k["gpc__cycles_elapsed.avg.per_second"] == _approx(2.40e9)
    # line 75, ID 0, GPU Speed Of Light Roofline Chart, "Single Precision Roofline",
    # "SM Frequency" Ghz "2.40"
    assert k["sm__cycles_elapsed.avg.per_second"] == _approx(2.40e9)
    # line 83, ID 0, Roofline Chart, "Single Precision Achieved Value", "SM Frequency" "2.40"
    assert k["smsp__cycles_elapsed.avg.per_second"] == _approx(2.40e9)
    # line 86, ID 0, "Single Precision Achieved Value", "DRAM Bandwidth" Gbyte/s "98.06"
    assert k["dram__bytes.sum.per_second"] == _approx(98.06e9)
    # line 2 (SOL) and line 77 (Single Precision Roofline): "DRAM Frequency" Ghz "13.79"
    assert k["dram__cycles_elapsed.avg.per_second"] == _approx(13.79e9)
    # line 76, "Single Precision Roofline", "Theoretical DRAM Bytes Accessible" byte/cycle "32"
    assert k["dram__bytes.sum.peak_sustained"] == _approx(32.0)


def test_lukas_values() -> None:
    frame, _ = _read(LUKAS)
    k = _launch(frame, 0)
    # line 7, ID 0, "Duration" us "549.98"
    assert k["gpu__time_duration.sum"] == _approx(549.98e-6)
    assert k["duration_s"] == _approx(549.98e-6)
    # line 4, ID 0, "Elapsed Cycles" cycle "1318955" (no thousands separators here)
    assert k["gpc__cycles_elapsed.max"] == _approx(1_318_955.0)
    # line 11, ID 0, "SM Active Cycles" cycle "1244128.36"
    assert k["sm__cycles_active.avg"] == _approx(1_244_128.36)
    # line 71, ID 0, "Theoretical Predicated-On FFMA Thread Instructions Executed" "4608"
    assert k["sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"] == _approx(4_608.0)
    # line 73, ID 0, "Predicated-On FFMA Thread Instructions Executed Per Cycle" "407.15"
    assert k["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed"] == _approx(
        407.15
    )
    k2 = _launch(frame, 2)
    # line 189, ID 2, "Duration" us "546.08"
    assert k2["gpu__time_duration.sum"] == _approx(546.08e-6)
    # line 268, ID 2, "Single Precision Achieved Value" "DRAM Bandwidth" Gbyte/s "100.47"
    assert k2["dram__bytes.sum.per_second"] == _approx(100.47e9)


# --- raw page ---------------------------------------------------------------


def test_meinie_raw_page() -> None:
    frame, _ = _read(MEINIE_RAW)
    # line 4 is the units row: "ns" under gpu__time_duration.sum, "" under the
    # identity columns and device__attribute_display_name.
    first = _launch(frame, 0)
    # line 5, ID 0: device__attribute_display_name "NVIDIA B200"
    assert first["device_name"] == "NVIDIA B200"
    assert (frame["device_name"] == "NVIDIA B200").all()
    # line 5, ID 0: gpu__time_duration.sum "628480" ns
    assert first["gpu__time_duration.sum"] == _approx(628_480e-9)
    assert first["duration_s"] == _approx(628_480e-9)
    # line 58, ID 53: gpu__time_duration.sum "633792" ns (the longest launch)
    assert _launch(frame, 53)["gpu__time_duration.sum"] == _approx(633_792e-9)
    # line 68, ID 63: gpu__time_duration.sum "631552" ns
    assert _launch(frame, 63)["gpu__time_duration.sum"] == _approx(631_552e-9)
    # line 5: launch__shared_mem_per_block_dynamic byte/block "9216"
    assert first["launch__shared_mem_per_block_dynamic"] == _approx(9_216.0)
    # line 5: launch__registers_per_thread register/thread "56"
    assert first["launch__registers_per_thread"] == _approx(56.0)
    # line 5: sm__maximum_warps_per_active_cycle_pct % "56.25"
    assert first["sm__maximum_warps_per_active_cycle_pct"] == _approx(56.25)
    # line 5: Grid Size "(128, 8, 1)", Block Size "(16, 4, 2)"
    assert first["grid_blocks"] == 1_024
    assert first["block_threads"] == 128


def test_meinie_raw_device_clocks_in_hz() -> None:
    frame, _ = _read(MEINIE_RAW)
    first = _launch(frame, 0)
    # line 5, ID 0: device__attribute_clock_rate "1965000" (units row: ""), which is
    # cudaDevAttrClockRate in kHz: 1.965 GHz, the B200's boost clock
    assert first["device__attribute_clock_rate"] == _approx(1.965e9)
    # line 5, ID 0: device__attribute_memory_clock_rate "3996000" kHz: 3.996 GHz
    assert first["device__attribute_memory_clock_rate"] == _approx(3.996e9)


# --- summary ----------------------------------------------------------------


def test_giotyp_summary() -> None:
    frame, info = _read(GIOTYP)
    assert info.aggregated is True
    # Invocations "100" on every row.
    assert list(frame["invocations"]) == [100, 100]
    by_name = frame.set_index("kernel")
    # line 2, kernel_B, dram__sectors_read.sum sector, Average "402,339.36"
    assert by_name.loc["kernel_B", "dram__sectors_read.sum"] == _approx(402_339.36)
    # line 10, kernel_B, lts__t_sectors_op_red.sum, Average "2,706,852.00"
    assert by_name.loc["kernel_B", "lts__t_sectors_op_red.sum"] == _approx(2_706_852.0)
    # line 14, kernel_A, dram__sectors_write.sum, Average "15,106.60"
    # (Minimum "12,412.00", Maximum "241,456.00" must not be taken)
    assert by_name.loc["kernel_A", "dram__sectors_write.sum"] == _approx(15_106.60)
    # line 22, kernel_A, lts__t_sectors_op_write.sum, Average "561,636.89"
    assert by_name.loc["kernel_A", "lts__t_sectors_op_write.sum"] == _approx(561_636.89)
    # No time metric in this export: the duration is missing, not zero.
    assert frame["duration_s"].isna().all()


# --- .ncu-rep via NVIDIA's module ------------------------------------------


def _ncu_report_read(name: str) -> list[dict[str, Any]]:
    """Kernel name, device name, duration (ns) of every result, read with ncu_report."""
    ncu_report = pytest.importorskip("ncu_report", reason=NCU_REPORT_REASON)
    ctx = ncu_report.load_report(str(SAMPLES / name))
    out: list[dict[str, Any]] = []
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            act = rng.action_by_idx(a)
            duration = act.metric_by_name("gpu__time_duration.sum")
            out.append(
                {
                    "kernel": act.name(ncu_report.IAction.NameBase_DEMANGLED),
                    "device": act.metric_by_name("device__attribute_display_name").as_string(),
                    "duration_ns": duration.as_double(),
                    "duration_unit": duration.unit(),
                }
            )
    return out


@needs_ncu_report
def test_nvidia_ncu_rep() -> None:
    frame, info = _read(NVIDIA_REP)
    # Read by hand with ncu_report (1 range, 3 actions; gpu__time_duration.sum in "ns"):
    expected = [
        ("init_data_kernel(int, double *)", 84_480.0),
        ("daxpy_kernel(int, double, double *, double *)", 249_216.0),
        ("check_results_kernel(int, double, double *)", 88_512.0),
    ]
    direct = _ncu_report_read(NVIDIA_REP)
    assert [(d["kernel"], d["duration_ns"]) for d in direct] == expected
    assert {d["duration_unit"] for d in direct} == {"ns"}
    assert {d["device"] for d in direct} == {"NVIDIA GeForce RTX 3070"}
    frame = frame.sort_values("id")
    assert list(frame["kernel"]) == [k for k, _ in expected]
    for (_, ns), got in zip(expected, frame["gpu__time_duration.sum"], strict=True):
        assert got == _approx(ns * 1e-9)
    assert list(frame["duration_s"]) == list(frame["gpu__time_duration.sum"])
    assert (frame["device_name"] == "NVIDIA GeForce RTX 3070").all()
    # device__attribute_compute_capability_major 8, _minor 6
    assert (frame["cc"] == "8.6").all()
    # NVTX push/pop ranges of the default domain, read with ncu_report:
    # ["run_test", "init_data"], ["run_test", "daxpy"], ["run_test", "check_results"]
    assert list(frame["nvtx"]) == [
        "run_test > init_data",
        "run_test > daxpy",
        "run_test > check_results",
    ]
    assert info.ncu_version == "2022.3.0"  # INDEX.md: from the strings in the file


@needs_ncu_report
def test_lakoc_ncu_rep() -> None:
    frame, info = _read(LAKOC_REP)
    # Read by hand with ncu_report (gpu__time_duration.sum in "ns"):
    expected = [
        ("calculate_velocity(t_particles, t_particles, int, float)", 13_039_360.0),
        ("centerOfMass(t_particles, float *, float *, float *, float *, int *, int)", 87_936.0),
        ("centerOfMass(t_particles, float *, float *, float *, float *, int *, int)", 86_848.0),
    ]
    direct = _ncu_report_read(LAKOC_REP)
    assert [(d["kernel"], d["duration_ns"]) for d in direct] == expected
    assert {d["device"] for d in direct} == {"NVIDIA A100-SXM4-40GB"}
    frame = frame.sort_values("id")
    assert list(frame["kernel"]) == [k for k, _ in expected]
    for (_, ns), got in zip(expected, frame["gpu__time_duration.sum"], strict=True):
        assert got == _approx(ns * 1e-9)
    assert (frame["device_name"] == "NVIDIA A100-SXM4-40GB").all()
    first = _launch(frame, 0)
    # ncu_report, action 0: dram__bytes_read.sum 1548416 byte, launch__grid_size 108,
    # launch__block_size 512, launch__registers_per_thread 38
    assert first["dram__bytes_read.sum"] == _approx(1_548_416.0)
    assert first["grid_blocks"] == 108
    assert first["block_threads"] == 512
    assert first["launch__registers_per_thread"] == _approx(38.0)
    assert info.ncu_version == "2022.2.0"  # INDEX.md: command line stored in the file


# --- several sources at once -------------------------------------------------


def test_load_keeps_sources_apart() -> None:
    names = [WANGZY_V100, WANGZY_A100, LAKOC_OUT, GIOTYP, MEINIE_RAW]
    paths = [SAMPLES / n for n in names]
    profile = load(paths)
    df = profile.launches
    assert [s.path for s in profile.sources] == [str(p) for p in paths]
    counts = df.groupby("source", sort=False).size()
    assert list(counts.index) == [str(p) for p in paths]
    assert list(counts) == [11, 11, 3, 2, 64]
    v100 = df[df["source"] == str(paths[0])].set_index("id")
    a100 = df[df["source"] == str(paths[1])].set_index("id")
    # Both wangzy files use IDs 0-10; the source tells them apart.
    # V100 line 12: "837,859,712"; A100 line 12: "823,404,288" (ID 0, dram__bytes.sum)
    assert v100.loc[0, "dram__bytes.sum"] == _approx(837_859_712.0)
    assert a100.loc[0, "dram__bytes.sum"] == _approx(823_404_288.0)
    # The A100 export has no sass counters: NaN there, not zero, nor the V100's values.
    # (V100 line 81: ID 4 fadd "2,126,643,200")
    fadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
    assert v100.loc[4, fadd] == _approx(2_126_643_200.0)
    assert a100[fadd].isna().all()
    # Only the summary rows stand for 100 launches each.
    summary = df[df["source"] == str(paths[3])]
    assert list(summary["invocations"]) == [100, 100]
    assert (df[df["source"] != str(paths[3])]["invocations"] == 1).all()
    # Only the raw B200 rows carry a device name.
    raw = df[df["source"] == str(paths[4])]
    assert (raw["device_name"] == "NVIDIA B200").all()
    assert df[df["source"] != str(paths[4])]["device_name"].isna().all()
