"""ncu's human-readable text output (``ncu ./app > profile.txt``), read into launches.

The real files in ``tests/data/ncu-text/`` are byte-for-byte copies of text
outputs found in public repositories (source, path and commit in its
INDEX.md).  Every expected number below was read off those files by hand and
converted to SI: ``Duration  us  45.86`` is 45.86e-6 s, ``Gbyte 89.98`` is
89.98e9 bytes, ``Threads  thread  1,048,576`` is 1048576 threads.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.readers import read_source
from ncu_roofline.readers.identity import IDENTITY_HEADERS
from ncu_roofline.readers.text import parse_rows
from tests.helpers import DATA, run

TEXT = DATA / "ncu-text"
HEAT = TEXT / "heat_eq_ncu_output.txt"
PFAC = TEXT / "pfac_ncu_report.txt"
FAILED = TEXT / "dd2360_ncu_report.txt"
REL = 1e-12  # parsed from text: only float rounding separates value and expectation


def _columns(text: str) -> dict[str, list[str]]:
    """:func:`parse_rows`' long-format rows (one per launch and metric) as named columns,
    the CSV page :func:`~ncu_roofline.readers.text.read_text` writes them into."""
    rows = parse_rows(text)
    identity = [h for h in IDENTITY_HEADERS if h != "Kernel Time"]
    cols = {h: [rows.launches[i][k] for i in rows.row_launch] for k, h in enumerate(identity)}
    cols.update({"Metric Name": rows.names, "Metric Unit": rows.units, "Metric Value": rows.values})
    return cols


def col(frame: pd.DataFrame, metric: str) -> list[float]:
    assert metric in frame.columns, f"{metric} missing; columns: {list(frame.columns)}"
    return [float(v) for v in frame[metric].to_numpy(dtype=float, na_value=math.nan)]


# --- real text outputs ------------------------------------------------------------


def test_heat_equation_launches_in_order_with_shape_and_values() -> None:
    frame, info = read_source(str(HEAT))
    assert info.layout == "text"
    # 241 kernel headers in the file, IDs in order.
    assert len(frame) == 241
    assert frame["id"].tolist()[:3] == [0, 1, 2]
    assert frame["id"].tolist()[-1] == 240
    first = frame.iloc[0]
    assert first["kernel_short"] == "heat_kernel_2d"
    assert first["kernel"] == (
        "heat_kernel_2d(float *, float *, int, int, float, float, float, float, BoundaryCondition)"
    )
    assert (first["grid"], first["block"]) == ("(64, 64, 1)", "(16, 16, 1)")
    assert (first["grid_blocks"], first["block_threads"]) == (64 * 64, 16 * 16)
    assert (str(first["cc"]), str(first["context"]), str(first["stream"])) == ("8.9", "1", "7")
    assert str(first["process_id"]) == "100474"
    assert first["process_name"] == "cuda_heat_equation"
    assert frame.iloc[1]["kernel"] == "heat_to_color_kernel_2d(float *, uchar4 *, int, int)"
    # Duration 45.86 us, 31.14 us, 42.72 us (lines 255, 332, 408).
    assert col(frame, "gpu__time_duration.sum")[:3] == pytest.approx(
        [45.86e-6, 31.14e-6, 42.72e-6], rel=REL
    )
    assert col(frame, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")[0] == 77.83
    # Thousands separators: "Elapsed Cycles  cycle  104,667", "Threads  thread  1,048,576".
    assert col(frame, "gpc__cycles_elapsed.max")[0] == 104667.0
    assert col(frame, "launch__thread_count")[0] == 1048576.0
    assert col(frame, "launch__registers_per_thread")[0] == 23.0
    # "Driver Shared Memory Per Block  Kbyte/block  1.02".
    assert col(frame, "launch__shared_mem_per_block_driver")[0] == pytest.approx(1020.0, rel=REL)


def test_metric_ids_as_names_and_program_output_between_blocks() -> None:
    frame, info = read_source(str(PFAC))
    assert info.layout == "text"
    # 18 kernel headers; the program's own report and ==PROF== lines come before them.
    assert len(frame) == 18
    assert frame["kernel_short"].tolist()[:2] == ["kernel_phase1_global", "kernel_phase2_global"]
    assert frame.iloc[2]["grid"] == "(2097152, 1, 1)"
    assert frame.iloc[2]["grid_blocks"] == 2097152
    # "Mbyte 1.08", "Kbyte 363.36", "Gbyte 89.98".
    assert col(frame, "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum")[:3] == pytest.approx(
        [1.08e6, 363.36e3, 89.98e9], rel=REL
    )
    assert col(frame, "sm__warps_active.avg.pct_of_peak_sustained_active")[:2] == [14.38, 13.23]
    assert frame.iloc[0]["process_name"] == "pfac_gpu.exe"


def test_a_failed_run_keeps_its_launch_with_missing_values_and_ncu_errors() -> None:
    frame, info = read_source(str(FAILED))
    assert len(frame) == 1
    assert frame.iloc[0]["grid"] == "(0, 0, 0)"
    # "(!) nan" and "(!) n/a" are missing, never 0.
    assert math.isnan(col(frame, "gpu__time_duration.sum")[0])
    assert math.isnan(col(frame, "launch__block_size")[0])
    assert any("==ERROR== LaunchFailed" in w for w in info.warnings)
    assert any("n/a" in w for w in info.warnings)


# --- agreement with a CSV details page of the same metrics -----------------------

_CSV_HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
    '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
    '"Metric Value"\n'
)


def _same_launches(text_path: Path, csv_path: Path) -> None:
    a, ia = read_source(str(text_path))
    b, ib = read_source(str(csv_path))
    assert ia.layout == "text" and ib.layout == "details"
    pd.testing.assert_frame_equal(
        a.drop(columns=["source"]), b.drop(columns=["source"]), check_dtype=False
    )


def test_synthetic_text_agrees_with_its_csv_written_by_hand(tmp_path: Path) -> None:
    csv_path = tmp_path / "text_mode.csv"
    ident = (
        '"0","7012","vectorAdd","127.0.0.1","vectorAdd(const float *, const float *, float *, int)",'
        '"1","7","(256, 1, 1)","(196, 1, 1)","0","8.0","GPU Speed Of Light Throughput",'
    )
    csv_path.write_text(
        _CSV_HEADER + ident + '"DRAM Frequency","Ghz","1.21"\n' + ident + '"Duration","us","4.03"\n'
    )
    _same_launches(DATA / "text_mode.txt", csv_path)


def test_real_text_agrees_with_its_csv_written_by_hand(tmp_path: Path) -> None:
    # The first two blocks of the PFAC output, and the same rows as ncu's CSV writes them.
    text = PFAC.read_text(encoding="utf-8")
    cut = text.index("  kernel_phase1_global(", text.index("  kernel_phase2_global("))
    text_path = tmp_path / "two.txt"
    text_path.write_text(text[:cut], encoding="utf-8")
    rows = [
        (
            "0",
            "kernel_phase1_global(const unsigned char *, int, unsigned char *, const int *, const int *)",
            [("Mbyte", "1.08"), ("%", "64.02"), ("%", "14.38"), ("%", "99.77")],
        ),
        (
            "1",
            "kernel_phase2_global(const unsigned char *, int, const unsigned char *, int *, Match *, int, const int *, const int *)",
            [("Kbyte", "363.36"), ("%", "47.88"), ("%", "13.23"), ("%", "100")],
        ),
    ]
    names = [
        "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum",
        "sm__cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "smsp__sass_average_branch_targets_threads_uniform.pct",
    ]
    lines = [_CSV_HEADER]
    for launch_id, kernel, cells in rows:
        for name, (unit, value) in zip(names, cells, strict=True):
            lines.append(
                f'"{launch_id}","13072","pfac_gpu.exe","127.0.0.1","{kernel}","1","7",'
                f'"(256, 1, 1)","(32, 1, 1)","0","8.9","Command line profiler metrics",'
                f'"{name}","{unit}","{value}"\n'
            )
    csv_path = tmp_path / "two.csv"
    csv_path.write_text("".join(lines), encoding="utf-8")
    _same_launches(text_path, csv_path)


# --- the command line -------------------------------------------------------------


def test_inspect_names_the_text_layout() -> None:
    proc = run("inspect", str(HEAT))
    assert proc.returncode == 0, proc.stderr
    assert "text" in proc.stdout.split("layout", 1)[1].splitlines()[0]
    assert "241" in proc.stdout


def test_report_runs_on_text_output(tmp_path: Path) -> None:
    out = tmp_path / "x.html"
    proc = run("report", str(PFAC), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "kernel_phase1_global" in html


# --- the block parser, on generated blocks ---------------------------------------

_NAME_CHARS = "abcXYZ_09<>(),:*& "
names = st.text(_NAME_CHARS, min_size=1, max_size=40).map(str.strip).filter(bool)
names = st.one_of(names, st.just("<unnamed>"), st.just("void f<int, (char)1>(T1 *, int)"))
dims = st.tuples(*(st.integers(0, 2_000_000),) * 3)
numbers = st.one_of(
    st.integers(0, 10**12).map(lambda n: f"{n:,}"),
    st.floats(0, 1e6, allow_nan=False).map(lambda x: f"{x:,.2f}"),
    st.just("n/a"),
)
noise = st.text("abc =:%0123456789.", max_size=30).filter(lambda s: not s[:1].isspace())


def _shape(d: tuple[int, int, int]) -> str:
    return f"({d[0]}, {d[1]}, {d[2]})"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(names, dims, dims, st.lists(numbers, min_size=1, max_size=4), noise),
        min_size=1,
        max_size=5,
    )
)
def test_generated_blocks_parse_back(blocks: list) -> None:
    lines = ["==PROF== Connected to process 1 (/bin/app)", "[1] app@host"]
    for name, grid, block, values, prog in blocks:
        lines.append(
            f"  {name} {_shape(grid)}x{_shape(block)}, Context 1, Stream 7, Device 0, CC 9.0"
        )
        lines.append("    Section: Test Section")
        lines.append("    ----------- ----------- ------------")
        lines.append("    Metric Name Metric Unit Metric Value")
        lines.append("    ----------- ----------- ------------")
        for i, value in enumerate(values):
            lines.append(f"    M{i:<10} {'byte':>11} {value:>12}")
        lines.append("    ----------- ----------- ------------")
        lines.append("")
        lines.append("    OPT   Advice, wrapped over")
        lines.append("          two lines (with a Metric Name in it).")
        lines.append(prog)
    cols = _columns("\n".join(lines) + "\n")
    expected = [(n, _shape(g), _shape(b), v) for n, g, b, vs, _ in blocks for v in vs]
    got = list(
        zip(
            cols["Kernel Name"],
            cols["Grid Size"],
            cols["Block Size"],
            cols["Metric Value"],
            strict=True,
        )
    )
    assert got == [(n, g, b, v) for n, g, b, v in expected]
    ids = [int(i) for i in cols["ID"]]
    per_block = [len(vs) for *_, vs, _ in blocks]
    assert ids == [k for k, count in enumerate(per_block) for _ in range(count)]
    assert set(cols["Metric Unit"]) == {"byte"}


def test_older_ncu_blocks_without_header_row_or_launch_shape() -> None:
    # ncu before 2022 prints a time stamp instead of the shape, and no header row.
    text = (
        "[30354] python3@127.0.0.1\n"
        "  ampere_fp16_s16816gemm_fp16_128x64_nn, 2022-Mar-24 14:33:02, Context 1, Stream 7\n"
        "    Section: GPU Speed Of Light Throughput\n"
        "    ------------------ --------------- ------------\n"
        "    DRAM Frequency       cycle/nsecond         1.21\n"
        "    Duration                   usecond        10.50\n"
        "    ------------------ --------------- ------------\n"
        "\n"
        "    WRN   advice\n"
    )
    cols = _columns(text)
    assert cols["Metric Name"] == ["DRAM Frequency", "Duration"]
    assert cols["Metric Unit"] == ["cycle/nsecond", "usecond"]
    assert cols["Metric Value"] == ["1.21", "10.50"]
    assert set(cols["Kernel Name"]) == {"ampere_fp16_s16816gemm_fp16_128x64_nn"}
    assert set(cols["Grid Size"]) == {""}


def test_processes_and_a_shape_inside_the_name_read_from_the_right() -> None:
    rule = "    ----------- ----------- ------------\n"
    table = rule + "    Metric Name Metric Unit Metric Value\n" + rule
    text = (
        "[11] a@h1\n"
        "  f<(1, 1, 1)x(2, 2, 2), Context 9, Stream 9>(int) (3, 1, 1)x(4, 1, 1), Context 1, Stream 2, Device 0, CC 9.0\n"
        "    Section: S\n"
        + table
        + "    Duration             us         2.00\n"
        + rule
        + "program says hi\n"
        "[12] b@h2\n"
        "  <unnamed> (5, 1, 1)x(6, 1, 1), Context 2, Stream 3, Device 1, CC 8.0\n"
        "    Section: S\n" + table + "    Duration             us         3.00\n" + rule
    )
    cols = _columns(text)
    assert cols["Kernel Name"] == ["f<(1, 1, 1)x(2, 2, 2), Context 9, Stream 9>(int)", "<unnamed>"]
    assert cols["Grid Size"] == ["(3, 1, 1)", "(5, 1, 1)"]
    assert cols["Process ID"] == ["11", "12"]
    assert cols["Host Name"] == ["h1", "h2"]
    assert cols["Device"] == ["0", "1"]
    assert cols["ID"] == ["0", "1"]


def test_a_per_kernel_summary_in_text_form_says_how_to_export_it() -> None:
    proc = run("inspect", str(TEXT / "heat_eq_ncu_summary_3D.txt"))
    assert proc.returncode == 4
    assert "per-kernel summary in text form" in proc.stderr
    assert "--print-summary per-kernel" in proc.stderr
