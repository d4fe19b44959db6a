"""The CSV readers against hand-written fixtures, one noise case per test.

The fixtures in ``tests/data/`` were written for these tests, modelled on the
real exports described in ``docs/ncu-format.md`` sections 1-3 (they are not
copies of real files).  Every expected number below was converted to SI by
hand from the text in the fixture: ``"17.50"`` Mbyte is 17.5e6 bytes,
``"111.81"`` usecond is 111.81e-6 s, ``"1.41"`` cycle/nsecond is 1.41e9 Hz,
``"5,443,677,824.00"`` byte is 5443677824 bytes.  Variants that must not be
committed as files (gzip, stdin, binary garbage, cut-off copies) are made
from the fixtures inside the tests.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import sys
from pathlib import Path

import pandas as pd
import pytest

from ncu_roofline.core.units import detect_decimal
from ncu_roofline.errors import InputFormatError, InputNotFoundError
from ncu_roofline.readers import load, read_source
from tests.helpers import DATA

REL = 1e-12  # parsed from text: only float rounding separates value and expectation


def read(name: str) -> tuple[pd.DataFrame, object]:
    return read_source(str(DATA / name))


def values(df: pd.DataFrame, metric: str) -> list[float]:
    assert metric in df.columns, f"{metric} missing; columns: {list(df.columns)}"
    return [float(v) for v in df[metric].to_numpy(dtype=float, na_value=math.nan)]


def check(df: pd.DataFrame, metric: str, expected: list[float | None]) -> None:
    """Per-launch SI values; ``None`` means missing (NaN, never 0)."""
    got = values(df, metric)
    assert len(got) == len(expected), (metric, got, expected)
    for i, (g, e) in enumerate(zip(got, expected, strict=True)):
        if e is None:
            assert math.isnan(g), f"{metric}[{i}]: expected missing (NaN), got {g!r}"
        else:
            assert not math.isnan(g), f"{metric}[{i}]: expected {e!r}, got NaN"
            assert g == pytest.approx(e, rel=REL, abs=0.0), f"{metric}[{i}]: {g!r} != {e!r}"


def missing_or_nan(df: pd.DataFrame, metric: str) -> bool:
    """A metric that must not have been read: no column, or all NaN."""
    if metric not in df.columns:
        return True
    return bool(df[metric].isna().all())


def csv_rows(name: str) -> list[list[str]]:
    """The quoted lines of a fixture, parsed with Python's csv module."""
    text = (DATA / name).read_text(encoding="utf-8-sig")
    return list(csv.reader(line for line in text.splitlines() if line.startswith('"')))


def table_lines(name: str) -> bytes:
    """Only the quoted table lines of a fixture (log lines and program output dropped)."""
    raw = (DATA / name).read_bytes()
    return b"".join(
        line
        for line in raw.splitlines(keepends=True)
        if line.lstrip(b"\xef\xbb\xbf").startswith(b'"')
    )


# --- ncu log lines and program output around the table ---------------------


def test_prelude_and_trailer_of_log_lines_and_program_output() -> None:
    name = "details_kt_noisy.csv"
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    last_row = max(i for i, line in enumerate(lines) if line.startswith('"'))
    # The fixture really is noisy: hundreds of lines on both sides of the table.
    assert header >= 200
    assert len(lines) - last_row - 1 >= 100
    assert any(line.startswith("==WARNING==") for line in lines[:header])
    assert lines[-1].startswith("==ERROR==")

    df, info = read(name)
    assert info.layout == "details"
    assert info.launches == 2
    assert info.kernels == 2
    assert list(df["id"]) == [0, 1]
    assert list(df["kernel"]) == [
        "cuda_compute_step_factor(int, float*, float*, float*)",
        "cuda_compute_flux(int, int*, float*, float*, float*)",
    ]
    assert list(df["process_name"]) == ["euler3d", "euler3d"]
    assert list(df["process_id"]) == [28439, 28439]
    # Old 'Kernel Time' header: a timestamp, never a duration.
    assert list(df["kernel_time"]) == ["2020-May-29 12:02:46", "2020-May-29 12:02:47"]
    check(df, "gpu__time_duration.sum", [8992e-9, 24128e-9])
    check(df, "dram__cycles_elapsed.avg.per_second", [768683274.02, 768683274.02])
    check(df, "gpc__cycles_elapsed.avg.per_second", [1379512445.10, 1381004120.77])
    check(df, "gpc__cycles_elapsed.max", [12413, 33270])
    check(df, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", [42.17, 63.90])
    check(df, "dram__bytes.sum.per_second", [185620347125.33, 281310002514.80])
    check(df, "launch__grid_size", [506, 506])
    check(df, "launch__block_size", [192, 192])
    # No Grid/Block Size columns in the KT header: the launch metrics fill in.
    assert list(df["grid_blocks"]) == [506, 506]
    assert list(df["block_threads"]) == [192, 192]
    assert list(df["duration_s"]) == pytest.approx([8992e-9, 24128e-9], rel=REL)
    # ncu's own error in the trailer is kept and reported, not parsed.
    assert info.ncu_errors == ["==ERROR== The application returned an error code (1)."]
    assert any("The application returned an error code (1)" in w for w in info.warnings)
    assert not any("skipped" in w for w in info.warnings), info.warnings


def test_available_kernels_list_with_commas_before_the_table(tmp_path: Path) -> None:
    # ==WARNING== No kernels were profiled. + an unquoted, comma-laden list.
    noise = (DATA / "no_kernels.csv").read_bytes()
    assert b"Available Kernels:" in noise
    path = tmp_path / "rerun.csv"
    path.write_bytes(noise + (DATA / "details_bgdc_rules.csv").read_bytes())
    df, info = read_source(str(path))
    assert info.launches == 2
    assert set(df["kernel"]) == {
        "void reduce_sum<float, 256>(const float *, float *, unsigned long)"
    }
    check(df, "gpu__time_duration.sum", [13.70e-6, 13.95e-6])
    assert not any("gn_stats_kernel_h" in str(k) for k in df["kernel"])
    # The same list in the noisy fixture's prelude did not leak either.
    noisy, _ = read("details_kt_noisy.csv")
    assert not noisy["kernel"].str.startswith(("1.", "2.", "3.", "4.")).any()


def test_program_output_with_its_own_quoted_id_header(tmp_path: Path) -> None:
    app_output = b'"ID","run","gflops"\n"1","warmup","12.5"\n"2","timed","12.7"\n'
    path = tmp_path / "app_csv_first.csv"
    path.write_bytes(app_output + (DATA / "details_bgdc_rules.csv").read_bytes())
    df, info = read_source(str(path))
    assert info.launches == 2
    check(df, "gpu__time_duration.sum", [13.70e-6, 13.95e-6])


def test_quoted_program_output_after_the_table(tmp_path: Path) -> None:
    trailer = b"".join(b"epoch %d, loss=0.%02d, acc=0.91\n" % (i, i) for i in range(60))
    path = tmp_path / "quoted_trailer.csv"
    path.write_bytes((DATA / "details_bgdc_rules.csv").read_bytes() + trailer + b'"done"\n')
    df, info = read_source(str(path))
    assert info.launches == 2
    check(df, "gpu__time_duration.sum", [13.70e-6, 13.95e-6])
    check(df, "gpc__cycles_elapsed.max", [21751, 21751])


def test_only_the_available_kernels_list_is_an_error() -> None:
    with pytest.raises(InputFormatError) as exc:
        read("no_kernels.csv")
    msg = str(exc.value)
    assert "no_kernels.csv" in msg
    assert "no ncu table" in msg
    # The reason, not merely the last log line.
    assert "No kernels were profiled" in msg


def test_only_ncu_log_lines_quotes_the_last_error() -> None:
    with pytest.raises(InputFormatError) as exc:
        read("only_log.csv")
    msg = str(exc.value)
    assert "only_log.csv" in msg
    assert "==ERROR== The application returned an error code (1)." in msg
    # The last ==ERROR== line, not an earlier one.
    assert "An error occurred while trying to profile" not in msg
    assert "risk_battle_kernel" not in msg


# --- BOM and CRLF -----------------------------------------------------------


def test_utf8_bom_and_crlf_line_ends() -> None:
    raw = (DATA / "details_bom_crlf.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf==PROF==")
    assert raw.count(b"\r\n") == raw.count(b"\n")  # every line ends in CRLF

    df, info = read("details_bom_crlf.csv")
    assert info.layout == "details"
    assert info.launches == 2
    assert info.units == "base"
    assert list(df["kernel"]) == [
        "void gemm_tiled<32>(const float *, const float *, float *, int, int, int)",
        "void gemm_naive(const float *, const float *, float *, int, int, int)",
    ]
    assert list(df["process_name"]) == ["gemm_tiled.exe", "gemm_tiled.exe"]
    assert list(df["cc"]) == ["8.9", "8.9"]
    assert list(df["grid"]) == ["(64, 64, 1)", "(128, 128, 1)"]
    assert list(df["grid_blocks"]) == [4096, 16384]
    assert list(df["block_threads"]) == [1024, 256]
    check(df, "dram__bytes.sum", [53261312, 1074003968])
    check(df, "gpu__time_duration.sum", [1412096e-9, 9871360e-9])
    check(df, "sm__throughput.avg.pct_of_peak_sustained_elapsed", [87.34, 23.10])
    for column in ("kernel", "process_name", "cc", "grid", "block"):
        assert not df[column].astype(str).str.contains("\r|\ufeff").any(), column
    assert not any("skipped" in w for w in info.warnings), info.warnings


def test_bom_directly_before_the_header(tmp_path: Path) -> None:
    path = tmp_path / "bom_header.csv"
    path.write_bytes(b"\xef\xbb\xbf" + table_lines("details_bom_crlf.csv"))
    df, info = read_source(str(path))
    assert info.launches == 2
    assert df["id"].tolist() == [0, 1]
    check(df, "dram__bytes.sum", [53261312, 1074003968])


# --- numbers: thousands separators, n/a, empty, strings, decimal comma -----


def test_thousands_separators() -> None:
    speed, _ = read("details_speedup.csv")
    check(speed, "dram__bytes.sum", [5443677824.0, None])  # "5,443,677,824.00"
    check(speed, "launch__grid_size", [288, 2160])  # "2,160"
    check(speed, "sm__ops_path_tensor_src_fp16_dst_fp32.sum", [12532580352, None])
    nvtx, _ = read("details_nvtx.csv")
    check(nvtx, "dram__bytes_read.sum", [1234567, 25690112, 1234560])  # "1,234,567"
    noisy, _ = read("details_kt_noisy.csv")
    check(noisy, "gpc__cycles_elapsed.max", [12413, 33270])  # "12,413"
    check(noisy, "dram__bytes.sum.per_second", [185620347125.33, 281310002514.80])
    raw, _ = read("raw_page.csv")
    check(raw, "dram__bytes.sum.per_second", [1432546794736.84, None])
    check(raw, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", [268435456, 0])


def test_na_and_empty_values_are_nan_never_zero() -> None:
    df, info = read("details_speedup.csv")
    # launch 1: dram__bytes.sum is "" and the tensor count is "n/a".
    check(df, "dram__bytes.sum", [5443677824.0, None])
    check(df, "sm__ops_path_tensor_src_fp16_dst_fp32.sum", [12532580352, None])
    na = [w for w in info.warnings if "n/a" in w]
    assert len(na) == 1, info.warnings
    assert "sm__ops_path_tensor_src_fp16_dst_fp32.sum" in na[0]
    assert "flop_count_sp.sum" in na[0]

    raw, _ = read("raw_page.csv")
    # launch 1: "" for the derived metric and the bandwidth, "n/a" for the bytes.
    check(raw, "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2", [536870912, None])
    check(raw, "dram__bytes.sum", [5443677824, None])
    check(raw, "dram__bytes.sum.per_second", [1432546794736.84, None])
    # A printed 0 stays a real zero.
    check(raw, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", [268435456, 0.0])

    auto, _ = read("metrics_auto_new.csv")
    check(auto, "dram__bytes_write.sum", [0.0, 65540, 512])


def test_string_valued_metrics_do_not_break_anything() -> None:
    rows = csv_rows("details_speedup.csv")
    assert any("CachePreferNone" in r for r in rows)
    df, info = read("details_speedup.csv")
    assert info.launches == 2
    check(df, "launch__block_size", [384, 128])
    check(df, "launch__registers_per_thread", [168, 32])
    check(df, "launch__grid_size", [288, 2160])
    check(df, "gpu__time_duration.sum", [406240e-9, 9248e-9])
    for text in ("CachePreferNone", "PolicySpread", "all"):
        assert not df.isin([text]).any().any(), text
    numeric = [c for c in df.columns if "__" in c and c != "device__attribute_display_name"]
    for c in numeric:
        assert pd.api.types.is_float_dtype(df[c]), (c, df[c].dtype)

    kt, _ = read("details_kt_rules.csv")  # "cudaFuncCachePreferNone" in the older spelling
    check(kt, "launch__registers_per_thread", [122, 122])

    raw, _ = read("raw_page.csv")
    assert list(raw["device_name"]) == ["NVIDIA A100-SXM4-40GB"] * 2


def test_decimal_comma_locale() -> None:
    rows = csv_rows("details_decimal_comma.csv")
    value_idx = rows[0].index("Metric Value")
    assert detect_decimal([r[value_idx] for r in rows[1:]]) == ","
    df, info = read("details_decimal_comma.csv")
    assert info.launches == 2
    check(df, "dram__bytes.sum", [27595520, 1048576])  # "27.595.520", "1.048.576"
    check(df, "gpu__time_duration.sum", [117344e-9, 64e-9])  # "117.344" ns
    # "1.695.012.345,50" and "1.710.000.000"
    check(df, "sm__cycles_elapsed.avg.per_second", [1695012345.5, 1.71e9])
    check(df, "sm__throughput.avg.pct_of_peak_sustained_elapsed", [9.0, 61.25])  # "9,00"
    # CC printed "8,6" is the same compute capability as "8.6".
    assert set(df["cc"]) == {"8.6"}
    assert all("CC 8.6" in d for d in info.devices)


# --- units ------------------------------------------------------------------


def test_auto_units_old_spellings() -> None:
    df, info = read("metrics_auto_old.csv")
    assert info.layout == "details"
    assert info.launches == 4
    assert info.kernels == 1
    assert info.units == "auto"
    assert any("auto-scaled" in w for w in info.warnings)
    # Kbyte, Mbyte, Gbyte, Tbyte: powers of 1000, never 1024.
    check(df, "dram__bytes_read.sum", [16.38e3, 17.50e6, 2.15e9, 1.02e12])
    # usecond, msecond, nsecond, second
    check(df, "gpu__time_duration.sum", [111.81e-6, 2.47e-3, 960e-9, 1.20])
    # cycle/nsecond, cycle/usecond, cycle/nsecond, cycle/nsecond
    check(df, "sm__cycles_elapsed.avg.per_second", [1.41e9, 765.00e6, 1.39e9, 1.01e9])
    # Gbyte/second, Tbyte/second, Mbyte/second, Kbyte/second
    check(df, "dram__bytes.sum.per_second", [156.55e9, 1.56e12, 461.38e6, 812.30e3])
    # Kinst, Minst, inst, Ginst
    check(df, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum", [8190, 2.10e6, 512, 1.07e9])
    assert info.metric_units["dram__bytes_read.sum"] == "byte"
    assert info.metric_units["gpu__time_duration.sum"] == "s"
    assert info.metric_units["sm__cycles_elapsed.avg.per_second"] == "Hz"
    assert info.metric_units["dram__bytes.sum.per_second"] == "byte/s"
    assert info.metric_units["sm__sass_thread_inst_executed_op_dfma_pred_on.sum"] == "inst"


def test_auto_units_new_spellings() -> None:
    df, info = read("metrics_auto_new.csv")
    assert info.launches == 3
    assert info.units == "auto"
    check(df, "gpu__time_duration.sum", [111.81e-6, 1.25e-3, 640e-9])  # us, ms, ns
    # Ghz, Mhz, hz
    check(df, "dram__cycles_elapsed.avg.per_second", [3.99e9, 877.50e6, 3995313115.40])
    # Gbyte/s, Tbyte/s, Mbyte/s
    check(df, "dram__bytes.sum.per_second", [156.55e9, 7.21e12, 950.40e6])
    # The scale is chosen per value: Mbyte next to byte in one launch.
    check(df, "dram__bytes_read.sum", [17.50e6, 1.04e9, 65.54e3])
    check(df, "dram__bytes_write.sum", [0.0, 65.54e3, 512])
    check(df, "sm__cycles_elapsed.avg.per_second", [1.96e9, 915.00e6, 1.97e9])  # Ghz, Mhz, Ghz
    assert list(df["duration_s"]) == pytest.approx([111.81e-6, 1.25e-3, 640e-9], rel=REL)


def test_base_units_are_not_reported_as_auto() -> None:
    for name in (
        "details_bom_crlf.csv",
        "details_kt_noisy.csv",
        "raw_page.csv",
        "details_speedup.csv",
    ):
        _, info = read(name)
        assert info.units == "base", name
        assert not any("auto-scaled" in w for w in info.warnings), (name, info.warnings)


def test_unknown_unit_is_left_out_never_misread() -> None:
    df, info = read("unknown_unit.csv")
    assert info.launches == 1
    unknown = [w for w in info.warnings if "unknown unit" in w]
    assert len(unknown) == 1, info.warnings
    for word in ("Kibyte", "fsecond", "dram__bytes.sum", "gpu__time_duration.sum"):
        assert word in unknown[0]
    assert missing_or_nan(df, "dram__bytes.sum")  # "512.00" Kibyte: not 512e3, not 524288
    assert missing_or_nan(df, "gpu__time_duration.sum")  # "5,120" fsecond
    assert math.isnan(df["duration_s"].iloc[0])
    check(df, "lts__t_bytes.sum", [1048576])
    check(df, "sm__throughput.avg.pct_of_peak_sustained_elapsed", [64.20])


def test_unknown_unit_in_a_raw_page(tmp_path: Path) -> None:
    text = (DATA / "raw_page.csv").read_text(encoding="utf-8")
    units_row = '"inst","","","byte","byte/second"'
    assert units_row in text
    path = tmp_path / "raw_unknown_unit.csv"
    path.write_text(
        text.replace(units_row, '"inst","","","Kibyte","byte/second"'), encoding="utf-8"
    )
    df, info = read_source(str(path))
    assert info.launches == 2
    assert any("Kibyte" in w and "dram__bytes.sum" in w for w in info.warnings), info.warnings
    assert missing_or_nan(df, "dram__bytes.sum")
    check(df, "dram__bytes.sum.per_second", [1432546794736.84, None])


# --- header generations, NVTX, rule columns, body item labels ---------------


def test_old_kernel_time_header() -> None:
    df, info = read("details_kt_rules.csv")
    assert info.layout == "details"
    assert list(df["kernel_time"]) == ["2021-Nov-13 18:14:36", "2021-Nov-13 18:14:37"]
    assert df["grid"].isna().all() and df["block"].isna().all()
    assert df["cc"].isna().all()
    assert list(df["context"]) == [1, 1]
    assert list(df["stream"]) == [7, 7]


def test_new_block_grid_device_cc_header() -> None:
    rows = csv_rows("details_bgdc_rules.csv")
    header = rows[0]
    assert header[7:11] == ["Block Size", "Grid Size", "Device", "CC"]
    assert len(header) == 18
    metric_widths = {len(r) for r in rows[1:] if r[12]}
    rule_widths = {len(r) for r in rows[1:] if not r[12]}
    assert metric_widths == {16} and rule_widths == {18}  # ragged: metric rows stop early

    df, info = read("details_bgdc_rules.csv")
    assert info.launches == 2
    assert info.kernels == 1
    assert info.devices == ["device 0 CC 8.6"]
    assert list(df["host"]) == ["gpu-node-07", "gpu-node-07"]
    assert list(df["block"]) == ["(256, 1, 1)", "(256, 1, 1)"]
    assert list(df["grid"]) == ["(1024, 1, 1)", "(512, 2, 1)"]
    assert list(df["grid_blocks"]) == [1024, 1024]
    assert list(df["block_threads"]) == [256, 256]
    assert list(df["device"]) == [0, 0]
    assert list(df["cc"]) == ["8.6", "8.6"]
    assert df["kernel_time"].isna().all()
    check(df, "dram__cycles_elapsed.avg.per_second", [7.00e9, 7.00e9])  # cycle/nsecond
    check(df, "gpc__cycles_elapsed.avg.per_second", [1.59e9, 1.59e9])
    check(df, "gpc__cycles_elapsed.max", [21751, 21751])
    check(df, "gpu__time_duration.sum", [13.70e-6, 13.95e-6])  # usecond
    check(df, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", [77.42, 76.01])
    check(df, "sm__throughput.avg.pct_of_peak_sustained_elapsed", [18.64, 18.64])
    check(df, "launch__thread_count", [262144, 262144])
    check(df, "launch__waves_per_multiprocessor", [3.56, 3.56])
    assert not any("skipped" in w for w in info.warnings), info.warnings


def test_nvtx_columns() -> None:
    header = csv_rows("details_nvtx.csv")[0]
    assert header[4].startswith("thread Domain:") and header[5].startswith("Id:Domain:")
    assert header[6] == "Kernel Name"
    df, info = read("details_nvtx.csv")
    assert info.launches == 3
    assert info.kernels == 2
    assert list(df["kernel"]) == [
        "void linear_fwd_kernel<float, 128, 4>(const float *, float *, int)",
        "void conv2d_fwd_kernel<float, 3, 3>(const float *, const float *, float *, int, int)",
        "void linear_fwd_kernel<float, 128, 4>(const float *, float *, int)",
    ]
    assert list(df["kernel_time"]) == [
        "2021-Jul-13 19:18:31",
        "2021-Jul-13 19:18:32",
        "2021-Jul-13 19:18:32",
    ]
    nvtx = df["nvtx"].tolist()
    assert nvtx[:2] == ["linear_fwd", "conv_fwd"]
    assert nvtx[2] is None or pd.isna(nvtx[2])
    assert list(df["stream"]) == [13, 13, 13]
    check(df, "gpu__time_duration.sum", [5664e-9, 88416e-9, 5632e-9])
    check(
        df, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", [2.45, 37.80, 2.51]
    )


def test_rule_columns_make_metric_rows_ragged_kt_header() -> None:
    rows = csv_rows("details_kt_rules.csv")
    assert len(rows[0]) == 15
    metric_rows = [r for r in rows[1:] if r[9]]
    rule_rows = [r for r in rows[1:] if not r[9]]
    assert {len(r) for r in metric_rows} == {13}  # 12 values and a trailing comma
    assert {len(r) for r in rule_rows} == {15}
    assert any("," in r[14] for r in rule_rows)

    df, info = read("details_kt_rules.csv")
    assert info.launches == 2
    assert list(df["kernel"]) == [
        "ampere_sgemm_128x64_nn",
        "splitKreduce_kernel(cublasSplitKParams<float>, const float *, float *)",
    ]
    check(df, "gpu__time_duration.sum", [152192e-9, 4064e-9])
    check(df, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", [71.30, 12.05])
    check(df, "dram__cycles_elapsed.avg.per_second", [1.21e9, 1.21e9])  # cycle/nsecond
    check(df, "gpc__cycles_elapsed.avg.per_second", [1.395e9, 1.395e9])  # "1,395.00" cycle/usecond
    check(df, "launch__grid_size", [2048, 64])
    check(df, "launch__block_size", [256, 256])
    check(df, "launch__registers_per_thread", [122, 122])
    check(df, "sm__maximum_warps_per_active_cycle_pct", [33.33, 33.33])
    check(df, "sm__warps_active.avg.pct_of_peak_sustained_active", [31.87, 31.87])
    assert list(df["grid_blocks"]) == [2048, 64]
    assert not any("skipped" in w for w in info.warnings), info.warnings


def test_rule_columns_with_estimated_speedup() -> None:
    rows = csv_rows("details_speedup.csv")
    assert rows[0][-2:] == ["Estimated Speedup Type", "Estimated Speedup"]
    assert len(rows[0]) == 20
    assert {len(r) for r in rows[1:] if r[12]} == {16}
    assert {len(r) for r in rows[1:] if not r[12]} == {20}
    assert {r[19] for r in rows[1:] if not r[12]} == {"", "50", "81.25"}

    df, info = read("details_speedup.csv")
    assert info.launches == 2
    assert info.kernels == 2
    assert info.devices == ["device 0 CC 9.0"]
    check(df, "gpu__time_duration.sum", [406240e-9, 9248e-9])
    check(df, "dram__cycles_elapsed.avg.per_second", [2619367402.22, 2619151872.95])
    check(df, "gpc__cycles_elapsed.max", [508757, 11574])
    check(df, "gpc__cycles_elapsed.avg.per_second", [1998763512.08, 1979843221.67])
    assert list(df["grid_blocks"]) == [288, 2160]
    assert list(df["block_threads"]) == [384, 128]
    # Rule rows are neither launches nor metrics, and not reported as noise.
    assert not any("skipped" in w for w in info.warnings), info.warnings


def test_body_item_label_with_repeated_labels() -> None:
    rows = csv_rows("details_body_label.csv")
    labels = [r[13] for r in rows[1:] if r[13]]
    assert labels.count("SM Frequency") == 5
    assert labels.count("DRAM Bandwidth") == 2
    df, info = read("details_body_label.csv")
    assert info.launches == 1
    assert info.devices == ["device 0 CC 12.0"]
    # "SM Frequency" four times, three meanings, kept apart by section and body label.
    check(df, "gpc__cycles_elapsed.avg.per_second", [2.00e9])  # SOL header, Ghz
    check(df, "sm__cycles_elapsed.avg.per_second", [2.01e9])  # "... Roofline" bodies
    check(df, "smsp__cycles_elapsed.avg.per_second", [1996.40e6])  # "... Achieved Value", Mhz
    check(df, "dram__cycles_elapsed.avg.per_second", [13.78e9])
    check(df, "dram__bytes.sum.per_second", [156.55e9])  # Gbyte/s
    check(df, "dram__bytes.sum.peak_sustained", [128])
    check(df, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", [21760])
    check(df, "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", [340])
    check(df, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed", [36.38])
    check(df, "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed", [0.0])
    check(df, "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed", [0.0])
    check(df, "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed", [0.0])
    check(df, "gpu__time_duration.sum", [111.81e-6])  # us
    check(df, "gpc__cycles_elapsed.max", [223552])
    check(df, "sm__throughput.avg.pct_of_peak_sustained_elapsed", [68.12])


# --- raw page and per-kernel summary ------------------------------------------


def test_raw_page() -> None:
    rows = csv_rows("raw_page.csv")
    assert rows[1][:11] == [""] * 11  # the units row
    assert rows[0][11:] == sorted(rows[0][11:])
    df, info = read("raw_page.csv")
    assert info.layout == "raw"
    assert info.launches == 2
    assert info.kernels == 2
    assert info.units == "base"
    assert info.devices == ["NVIDIA A100-SXM4-40GB CC 8.0"]
    assert list(df["device_name"]) == ["NVIDIA A100-SXM4-40GB"] * 2
    assert list(df["block"]) == ["(16, 4, 2)", "(128, 1, 1)"]
    assert list(df["block_threads"]) == [128, 128]
    assert list(df["grid_blocks"]) == [1024, 192]
    check(df, "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2", [536870912, None])
    check(df, "device__attribute_multiprocessor_count", [108, 108])
    check(df, "dram__bytes.sum", [5443677824, None])
    check(df, "dram__bytes.sum.per_second", [1432546794736.84, None])
    check(df, "gpu__time_duration.sum", [3800064e-9, 12320e-9])  # ns
    check(df, "launch__grid_size", [1024, 192])
    check(df, "launch__registers_per_thread", [40, 122])
    check(df, "sm__cycles_elapsed.avg.per_second", [1409870123.50, 1.395e9])  # hz
    check(df, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", [268435456, 0])
    assert info.metric_units["dram__bytes.sum.per_second"] == "byte/s"
    assert info.metric_units["gpu__time_duration.sum"] == "s"
    assert "l1tex__data_bank_conflicts_pipe_lsu.sum" not in df.columns  # not a roofline input


def test_raw_page_old_ncu_with_instance_values() -> None:
    df, info = read("raw_old_kt.csv")
    assert info.layout == "raw"
    assert info.launches == 2
    assert list(df["kernel_time"]) == ["2023-Oct-01 02:39:05", "2023-Oct-01 02:39:06"]
    assert list(df["device_name"]) == ["NVIDIA GeForce GTX 1080"] * 2
    check(df, "dram__bytes_read.sum", [1759000, 1760256])  # "1,759,000.00"
    check(df, "gpu__time_duration.sum", [12832e-9, 12736e-9])  # old id "gpu__time_duration"
    check(df, "l1tex__t_sectors.sum", [100, 192])  # "100.00; 32.00; ...": the aggregate
    check(df, "device__attribute_multiprocessor_count", [20, 20])
    check(df, "sm__warps_active.avg.pct_of_peak_sustained_active", [61.73, 60.02])
    assert list(df["grid_blocks"]) == [391, 391]
    assert list(df["block_threads"]) == [256, 256]


def test_per_kernel_summary() -> None:
    df, info = read("summary_per_kernel.csv")
    assert info.layout == "summary"
    assert info.aggregated is True
    assert len(df) == 3  # one row per kernel and launch shape
    assert info.launches == 100 + 100 + 1200  # "Invocations", "1,200" included
    assert info.kernels == 2
    assert list(df["kernel"]) == [
        "kernel_A(float *, const float *, int)",
        "kernel_B(float *, const float *, int)",
        "kernel_A(float *, const float *, int)",
    ]
    assert list(df["invocations"]) == [100, 100, 1200]
    assert list(df["grid"]) == ["(216, 1, 1)", "(216, 1, 1)", "(108, 1, 1)"]
    assert df["context"].isna().all() and df["stream"].isna().all()
    # The Average column, not Minimum or Maximum.
    check(df, "dram__sectors_read.sum", [402339.36, 98322.50, 1226.75])
    check(df, "gpu__time_duration.sum", [10487.68e-9, 3180.16e-9, 2201.60e-9])
    check(df, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", [2211840, 0, 27648])
    assert any("per-kernel summary" in w for w in info.warnings)


# --- truncated, empty, binary, foreign files ---------------------------------


def test_truncated_file_keeps_rows_before_the_cut() -> None:
    raw = (DATA / "truncated.csv").read_bytes()
    assert not raw.endswith(b"\n")
    assert raw.rstrip().endswith(b'"dram__bytes.su')
    df, info = read("truncated.csv")
    assert info.launches == 3
    check(df, "gpu__time_duration.sum", [8160e-9, 8192e-9, 8224e-9])
    check(df, "dram__bytes.sum", [12599296, 12599808, None])
    assert any("truncat" in w for w in info.warnings), info.warnings


def test_truncated_raw_page_in_the_last_row(tmp_path: Path) -> None:
    raw = (DATA / "raw_page.csv").read_bytes()
    cut = raw.index(b'"12,320"') + 4  # inside launch 1's duration
    path = tmp_path / "raw_cut.csv"
    path.write_bytes(raw[:cut])
    df, info = read_source(str(path))
    assert any("truncat" in w for w in info.warnings), info.warnings
    assert df["id"].tolist()[0] == 0
    first = df[df["id"] == 0]
    check(first, "gpu__time_duration.sum", [3800064e-9])
    check(first, "dram__bytes.sum", [5443677824])
    if len(df) > 1:
        check(df[df["id"] == 1], "gpu__time_duration.sum", [None])


def _cut_after(name: str, marker: bytes, tmp_path: Path) -> Path:
    raw = (DATA / name).read_bytes()
    pos = raw.rindex(marker) + len(marker)
    path = tmp_path / f"cut_{name}"
    path.write_bytes(raw[:pos])
    return path


def test_truncated_mid_number_is_not_misread_details(tmp_path: Path) -> None:
    # Launch 2's last row is "gpu__time_duration.sum","nsecond","5,632"; cut to "5,6.
    path = _cut_after("details_nvtx.csv", b'"nsecond","5,6', tmp_path)
    df, info = read_source(str(path))
    assert any("truncat" in w for w in info.warnings)
    check(df, "gpu__time_duration.sum", [5664e-9, 88416e-9, None])


def test_truncated_mid_number_is_not_misread_summary(tmp_path: Path) -> None:
    path = _cut_after("summary_per_kernel.csv", b'"27,648.00","27,648.00","27,6', tmp_path)
    df, info = read_source(str(path))
    assert any("truncat" in w for w in info.warnings)
    check(df, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", [2211840, 0, None])


def test_raw_page_cut_inside_the_units_row(tmp_path: Path) -> None:
    path = _cut_after(
        "raw_page.csv", b'"","","","","","","","","","","","inst","","","by', tmp_path
    )
    with pytest.raises(InputFormatError):
        read_source(str(path))


def test_empty_file() -> None:
    assert (DATA / "empty.csv").stat().st_size == 0
    with pytest.raises(InputFormatError, match="empty"):
        read("empty.csv")


@pytest.mark.parametrize("content", [b"   \n\n\t\n", b"\xef\xbb\xbf", b"\r\n\r\n"])
def test_blank_files(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "blank.csv"
    path.write_bytes(content)
    with pytest.raises(InputFormatError) as exc:
        read_source(str(path))
    assert str(path) in str(exc.value)


@pytest.mark.parametrize(
    "content",
    [
        bytes((i * 7919 + 13) % 256 for i in range(4096)),  # has NUL bytes
        bytes(range(1, 256)) * 16,  # no NUL byte at all
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200),
    ],
    ids=["pseudo-random", "no-nul", "png"],
)
def test_binary_garbage(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "garbage.csv"
    path.write_bytes(content)
    with pytest.raises(InputFormatError) as exc:
        read_source(str(path))
    assert "not an ncu" in str(exc.value) or "binary" in str(exc.value)


def test_a_csv_that_is_not_an_ncu_export() -> None:
    with pytest.raises(InputFormatError, match="not an ncu CSV export"):
        read("not_ncu.csv")
    with pytest.raises(InputFormatError, match="Kernel Name"):
        read("not_ncu_quoted_id.csv")
    # ncu's text output is read by its own reader (tests/test_text_reader.py).
    frame, info = read("text_mode.txt")
    assert info.layout == "text"
    assert values(frame, "gpu__time_duration.sum") == pytest.approx([4.03e-6], rel=REL)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="no such file"):
        read_source(str(tmp_path / "nope.csv"))
    with pytest.raises(InputNotFoundError, match="directory"):
        read_source(str(tmp_path))


# --- gzip and stdin -----------------------------------------------------------


def _comparable(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["source"]).reset_index(drop=True)


@pytest.mark.parametrize(
    "name",
    ["details_kt_noisy.csv", "details_bom_crlf.csv", "raw_page.csv", "summary_per_kernel.csv"],
)
def test_gzip_input(tmp_path: Path, name: str) -> None:
    path = tmp_path / (name + ".gz")
    path.write_bytes(gzip.compress((DATA / name).read_bytes()))
    plain, plain_info = read(name)
    df, info = read_source(str(path))
    assert info.layout == plain_info.layout
    assert info.launches == plain_info.launches
    assert list(df["source"]) == [str(path)] * len(df)
    pd.testing.assert_frame_equal(_comparable(df), _comparable(plain))


def test_truncated_gzip_keeps_what_decompresses(tmp_path: Path) -> None:
    packed = gzip.compress((DATA / "details_bom_crlf.csv").read_bytes())
    path = tmp_path / "cut.csv.gz"
    path.write_bytes(packed[:-40])  # lose the end of the stream and the trailer
    df, info = read_source(str(path))
    assert any("truncat" in w for w in info.warnings), info.warnings
    assert df["id"].tolist()[0] == 0
    check(df.iloc[:1], "dram__bytes.sum", [53261312])


def test_stdin_input(monkeypatch: pytest.MonkeyPatch) -> None:
    data = (DATA / "details_bgdc_rules.csv").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    df, info = read_source("-")
    assert info.path == "-"
    assert list(df["source"]) == ["-", "-"]
    plain, _ = read("details_bgdc_rules.csv")
    pd.testing.assert_frame_equal(_comparable(df), _comparable(plain))


def test_gzipped_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    data = gzip.compress((DATA / "raw_page.csv").read_bytes())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    df, info = read_source("-")
    assert info.layout == "raw"
    check(df, "dram__bytes.sum", [5443677824, None])


# --- several inputs in one load ----------------------------------------------


def test_several_inputs_are_kept_apart_by_source() -> None:
    names = ["details_kt_noisy.csv", "details_speedup.csv", "raw_page.csv"]
    paths = [str(DATA / n) for n in names]
    profile = load(paths)
    df = profile.launches
    assert [s.path for s in profile.sources] == paths
    assert [s.layout for s in profile.sources] == ["details", "details", "raw"]
    assert len(df) == 6
    assert df.groupby("source").size().to_dict() == dict.fromkeys(paths, 2)
    # Every input has an ID 0 and 1: same ids, different launches.
    for p in paths:
        assert sorted(df.loc[df["source"] == p, "id"]) == [0, 1]
    by = df.set_index(["source", "id"])
    dur = by["gpu__time_duration.sum"]
    assert dur[(paths[0], 1)] == pytest.approx(24128e-9, rel=REL)
    assert dur[(paths[1], 1)] == pytest.approx(9248e-9, rel=REL)
    assert dur[(paths[2], 1)] == pytest.approx(12320e-9, rel=REL)
    assert by.loc[(paths[2], 0), "device_name"] == "NVIDIA A100-SXM4-40GB"
    # A metric only one input has stays missing for the others, never 0.
    assert df.loc[df["source"] == paths[0], "dram__bytes.sum"].isna().all()
    assert "dram__bytes.sum" not in profile.present_metrics(paths[0])
    assert "dram__bytes.sum" in profile.present_metrics(paths[1])
    assert "device__attribute_multiprocessor_count" in profile.present_metrics(paths[2])


def test_the_same_file_twice(tmp_path: Path) -> None:
    copy = tmp_path / "copy.csv"
    copy.write_bytes((DATA / "details_bom_crlf.csv").read_bytes())
    profile = load([str(DATA / "details_bom_crlf.csv"), os.fspath(copy)])
    assert len(profile.launches) == 4
    assert profile.launches["source"].nunique() == 2
