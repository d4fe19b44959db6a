"""Damaged and unusual inputs, each made in ``tmp_path`` from a real export.

Every input here is a real sample from ``../shared/ncu-samples/`` cut,
concatenated, appended, recoded or wrapped the way it happens to users: a
job killed mid-write, ``cat a.csv b.csv``, a second run appended to a
container's log, ``X`` and ``./X``, a cut-off ``.ncu-rep``, gzip with
trailing bytes, cp1252 and UTF-16 text, fields longer than a block, a FIFO
and a run out of memory; a row doubled or copied among another launch's
rows, a line longer than any may be, another export's rows without their
header, a raw page without its units row, IDs that are no numbers.  Expected values come from the sample's text
(line numbers are the file's, 1-based), worked out by hand.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import resource
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pandas as pd
import pytest

import ncu_roofline
from ncu_roofline.errors import EXIT_CODES, InputFormatError, NcuRooflineError
from ncu_roofline.readers import read_source
from tests.helpers import REPO, SAMPLES, run

LAKOC = "Lakoc__Nbody_CUDA__profile_1.out"
WANGZY = "wangzy0327__cuda-roofline__src_output.csv"
MEINIE_RAW = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
    "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
    "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
NVTX_REP = "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep"
FADD = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
DADD = "sm__sass_thread_inst_executed_op_dadd_pred_on.sum"
HMUL = "sm__sass_thread_inst_executed_op_hmul_pred_on.sum"
#: Lakoc launch 2's duration: sm__cycles_elapsed.avg line 50 / .per_second line 51.
LAKOC_2_DURATION = 19_570.61 / 1_092_109_995.04


def _lines(samples_dir: Path, name: str) -> list[bytes]:
    return (samples_dir / name).read_bytes().splitlines(keepends=True)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def _value(df: pd.DataFrame, metric: str, i: int) -> float:
    return float(df[metric].to_numpy(dtype=float, na_value=math.nan)[i])


def _analysed(path: Path) -> pd.DataFrame:
    return ncu_roofline.analyze(ncu_roofline.load([str(path)]), gpu="a100_40gb_sxm").launches


# --- 1. truncation ------------------------------------------------------------


def test_details_cut_on_a_line_boundary_leaves_the_cut_launchs_flops_missing(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Lakoc's launch 2 is lines 47-61; 55 lines keep 47-55 (dram, L1, L2,
    # cycles, clock, tensor, dadd, dfma, dmul): its FP32 counters (56-58) are
    # cut, its FP64 zeros survive.  Nothing on the last line shows the cut.
    path = _write(tmp_path, "cut.csv", b"".join(_lines(samples_dir, LAKOC)[:55]))
    df, info = read_source(str(path))
    assert df["id"].tolist() == [0, 1, 2]
    assert any("launch ID 2" in w and "9 metric rows" in w and "15" in w for w in info.warnings), (
        info.warnings
    )
    # The FLOP counters are one quantity: none of launch 2's is kept ...
    assert math.isnan(_value(df, FADD, 2)) and math.isnan(_value(df, DADD, 2))
    # ... while its complete quantities are (dram line 47), and launch 1's FP32 stays.
    assert _value(df, "dram__bytes.sum", 2) == 39_552
    assert _value(df, FADD, 1) == 10_256  # line 41
    launches = _analysed(path)
    assert math.isnan(launches["flops"].iloc[2]), "a partial FLOP sum is no FLOP count"
    assert launches["dram_bytes"].iloc[2] == 39_552
    assert launches["duration_s"].iloc[2] == pytest.approx(LAKOC_2_DURATION, rel=1e-12)
    # Launch 1 is whole: 10,256 + 0 + 2 x 6,512 FP32 FLOPs (lines 41, 43, 42).
    assert launches["flops"].iloc[1] == pytest.approx(23_280, rel=1e-12)


def test_details_cut_mid_row_leaves_the_cut_launchs_flops_missing(
    samples_dir: Path, tmp_path: Path
) -> None:
    lines = _lines(samples_dir, LAKOC)
    fadd = lines[55]  # line 56: launch 2's fadd row, "10,256"
    assert fadd.rstrip().endswith(b'"10,256"')
    path = _write(tmp_path, "cut.csv", b"".join(lines[:55]) + fadd[: fadd.index(b'"10,2') + 5])
    df, info = read_source(str(path))
    assert any("launch ID 2" in w and "6 missing" in w for w in info.warnings), info.warnings
    assert math.isnan(_value(df, FADD, 2)) and math.isnan(_value(df, DADD, 2))
    assert math.isnan(_analysed(path)["flops"].iloc[2])


def test_raw_page_cut_in_its_last_row_keeps_the_fields_before_the_cut(
    samples_dir: Path, tmp_path: Path
) -> None:
    lines = _lines(samples_dir, MEINIE_RAW)
    last = next(csv.reader([lines[-1].decode()]))
    header = next(csv.reader([lines[2].decode()]))
    # Cut after the separator that follows field 300 (0-based 299).
    prefix = io.StringIO()
    csv.writer(prefix, quoting=csv.QUOTE_ALL, lineterminator="").writerow(last[:300])
    cut = prefix.getvalue().encode() + b","
    assert lines[-1].startswith(cut)
    path = _write(tmp_path, "raw_cut.csv", b"".join(lines[:-1]) + cut)
    df, info = read_source(str(path))
    assert len(df) == 64 and df["id"].iloc[-1] == 63
    assert any("launch ID 63" in w and "cut off" in w for w in info.warnings), info.warnings
    duration = header.index("gpu__time_duration.sum")  # field 179: "631552" ns
    assert duration < 300 and last[duration] == "631552"
    assert _value(df, "gpu__time_duration.sum", 63) == pytest.approx(631_552e-9, rel=1e-12)
    warps = header.index("sm__maximum_warps_per_active_cycle_pct")  # field 409, after the cut
    assert warps >= 300
    assert math.isnan(_value(df, "sm__maximum_warps_per_active_cycle_pct", 63))
    assert _value(df, "sm__maximum_warps_per_active_cycle_pct", 62) == float(
        next(csv.reader([lines[-2].decode()]))[warps]
    )


def test_raw_page_cut_before_its_device_name_keeps_every_launch(
    samples_dir: Path, tmp_path: Path
) -> None:
    """The B200 raw page's device name is text (read as codes into its distinct
    names): a row cut before it leaves that launch's name missing, and every
    launch before it intact (it was an internal error)."""
    lines = _lines(samples_dir, MEINIE_RAW)
    header = next(csv.reader([lines[2].decode()]))
    name = header.index("device__attribute_display_name")
    last = next(csv.reader([lines[-1].decode()]))
    assert last[name] == "NVIDIA B200"
    prefix = io.StringIO()
    csv.writer(prefix, quoting=csv.QUOTE_ALL, lineterminator="").writerow(last[:name])
    cut = prefix.getvalue().encode() + b","
    assert lines[-1].startswith(cut)
    path = _write(tmp_path, "raw_cut_name.csv", b"".join(lines[:-1]) + cut)
    df, info = read_source(str(path))
    assert len(df) == 64
    assert any("launch ID 63" in w and "cut off" in w for w in info.warnings), info.warnings
    names = df["device_name"].astype(object)
    assert pd.isna(names.iloc[-1])
    assert set(names.iloc[:-1]) == {"NVIDIA B200"}


def test_raw_page_cut_inside_any_row_is_read(samples_dir: Path, tmp_path: Path) -> None:
    """Cuts inside every eighth data row of the B200 raw page, at a quarter, half,
    three quarters and just before the end of the row: each reads, keeps the
    launches before the cut and every one of their durations."""
    data = (samples_dir / MEINIE_RAW).read_bytes()
    lines = data.splitlines(keepends=True)
    intact, _ = read_source(str(samples_dir / MEINIE_RAW))
    full = intact["gpu__time_duration.sum"].to_numpy(dtype=float)
    start = sum(len(line) for line in lines[:4])  # two ==PROF== lines, header, units
    for row in range(0, 64, 8):
        row_start = start + sum(len(line) for line in lines[4 : 4 + row])
        length = len(lines[4 + row])
        for at in (length // 4, length // 2, 3 * length // 4, length - 3):
            path = _write(tmp_path, "cut.csv", data[: row_start + at])
            df, _ = read_source(str(path))
            assert row <= len(df) <= row + 1, (row, at)
            got = df["gpu__time_duration.sum"].to_numpy(dtype=float)[:row]
            assert list(got) == list(full[:row]), (row, at)


# --- 2. exports concatenated ----------------------------------------------------


def test_two_details_exports_in_one_file_are_read_each_with_its_header(
    samples_dir: Path, tmp_path: Path
) -> None:
    data = (samples_dir / LAKOC).read_bytes() + (samples_dir / WANGZY).read_bytes()
    df, info = read_source(str(_write(tmp_path, "both.csv", data)))
    assert len(df) == 3 + 11
    assert df["kernel_short"].tolist()[:3] == ["calculate_velocity", "centerOfMass", "centerOfMass"]
    assert _value(df, "dram__bytes.sum", 0) == 67_584  # Lakoc line 17
    assert _value(df, "dram__bytes.sum", 3) == 837_859_712  # wangzy line 12
    assert df["process_id"].tolist() == [89294] * 3 + [24103] * 11
    assert any("2 ncu tables" in w and "16, 72" in w for w in info.warnings), info.warnings


def test_details_followed_by_raw_export_reads_both(samples_dir: Path, tmp_path: Path) -> None:
    data = (samples_dir / LAKOC).read_bytes() + (samples_dir / MEINIE_RAW).read_bytes()
    df, info = read_source(str(_write(tmp_path, "mixed.csv", data)))
    assert info.layout == "details+raw"
    assert len(df) == 3 + 64
    assert _value(df, "dram__bytes.sum", 0) == 67_584
    raw_last = next(csv.reader([_lines(samples_dir, MEINIE_RAW)[-1].decode()]))
    assert _value(df, "gpu__time_duration.sum", 66) == pytest.approx(
        float(raw_last[179]) * 1e-9, rel=1e-12
    )
    assert df["device_name"].iloc[-1] == "NVIDIA B200"


# --- 3. a second run appended ---------------------------------------------------


def test_a_run_appended_with_its_header_keeps_both_runs(samples_dir: Path, tmp_path: Path) -> None:
    data = (samples_dir / LAKOC).read_bytes()
    df, info = read_source(str(_write(tmp_path, "log.csv", data + data)))
    assert df["id"].tolist() == [0, 1, 2, 0, 1, 2]
    assert df["process_id"].tolist() == [89294] * 6
    assert _value(df, FADD, 3) == 37_761_024  # line 26, once per run, not summed
    assert any("3 launch ID(s) appear in more than one table" in w for w in info.warnings)


def test_a_run_appended_without_header_starts_a_new_run(samples_dir: Path, tmp_path: Path) -> None:
    lines = _lines(samples_dir, LAKOC)
    data = b"".join(lines) + b"".join(lines[16:])  # the table rows again (lines 17-61)
    df, info = read_source(str(_write(tmp_path, "log.csv", data)))
    assert df["id"].tolist() == [0, 1, 2, 0, 1, 2]
    assert _value(df, "dram__bytes.sum", 3) == 67_584
    assert any("start again 1 time" in w and "2 runs" in w for w in info.warnings), info.warnings


def test_one_launch_runs_appended_do_not_merge(samples_dir: Path, tmp_path: Path) -> None:
    # `--launch-count 1` per run: every run is launch ID 0 (lines 17-31).
    lines = _lines(samples_dir, LAKOC)
    data = b"".join(lines[:31]) + b"".join(lines[16:31]) + b"".join(lines[16:31])
    df, info = read_source(str(_write(tmp_path, "log.csv", data)))
    assert df["id"].tolist() == [0, 0, 0]
    assert [_value(df, FADD, i) for i in range(3)] == [37_761_024] * 3
    assert any("3 runs" in w for w in info.warnings), info.warnings


# --- 4. one file under two names ------------------------------------------------


def test_the_same_file_under_two_names_is_read_once(samples_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "X.csv").write_bytes((samples_dir / LAKOC).read_bytes())
    (tmp_path / "link.csv").symlink_to(tmp_path / "X.csv")
    (tmp_path / "other.csv").write_bytes((samples_dir / LAKOC).read_bytes())
    from ncu_roofline.core.files import unique_inputs

    names = ["X.csv", "./X.csv", str(tmp_path / "X.csv"), "link.csv", "other.csv", "X.csv"]
    cwd = Path.cwd()
    try:
        os.chdir(tmp_path)
        kept, repeats = unique_inputs(names)
    finally:
        os.chdir(cwd)
    assert kept == ["X.csv", "other.csv"]
    assert [r for r, _ in repeats] == [*names[1:4], "X.csv"]
    proc = run("summary", "X.csv", "./X.csv", "--gpu", "a100_40gb_sxm", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "3 launches" in proc.stdout, proc.stdout
    assert "./X.csv is the same file as X.csv" in proc.stderr


# --- 5. a cut-off .ncu-rep ------------------------------------------------------


def test_a_cut_off_ncu_rep_warns_and_drops_the_broken_launch(
    samples_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("ncu_report")
    data = (samples_dir / NVTX_REP).read_bytes()
    df, info = read_source(str(_write(tmp_path, "cut.ncu-rep", data[: int(len(data) * 0.8)])))
    assert df["kernel_short"].tolist() == ["init_data_kernel", "daxpy_kernel"]
    assert (df["kernel"] != "").all()
    assert any("cut off" in w for w in info.warnings), info.warnings
    assert any("no kernel name and no metrics" in w for w in info.warnings), info.warnings
    whole, whole_info = read_source(str(samples_dir / NVTX_REP))
    assert len(whole) == 3 and whole_info.warnings == []


# --- 6. gzip with trailing garbage -----------------------------------------------


def test_gzip_with_trailing_garbage_keeps_every_row(samples_dir: Path, tmp_path: Path) -> None:
    packed = gzip.compress((samples_dir / LAKOC).read_bytes())
    path = _write(tmp_path, "log.csv.gz", packed + b"\x00\x01 not gzip at all")
    df, info = read_source(str(path))
    # The last row, line 61: launch 2's hmul "0".
    assert _value(df, HMUL, 2) == 0.0
    assert not any("truncat" in w for w in info.warnings), info.warnings
    assert any("trailing garbage" in w for w in info.warnings), info.warnings


def test_gzip_members_and_zero_padding_read_whole(samples_dir: Path, tmp_path: Path) -> None:
    lines = _lines(samples_dir, LAKOC)
    packed = gzip.compress(b"".join(lines[:40])) + gzip.compress(b"".join(lines[40:]))
    df, info = read_source(str(_write(tmp_path, "two.csv.gz", packed + bytes(512))))
    assert _value(df, HMUL, 2) == 0.0 and _value(df, FADD, 1) == 10_256
    assert info.warnings == []


# --- 7. encodings ----------------------------------------------------------------


def test_a_stray_non_utf8_line_inside_the_table_is_replaced_and_named(
    samples_dir: Path, tmp_path: Path
) -> None:
    lines = _lines(samples_dir, LAKOC)
    data = b"".join(lines[:30]) + b"warning: caf\xe9 stray output\n" + b"".join(lines[30:])
    path = _write(tmp_path, "stray.csv", data)
    df, info = read_source(str(path))
    assert df["id"].tolist() == [0, 1, 2]
    assert _value(df, HMUL, 0) == 0.0  # line 31 (32 in this file)
    assert any("not UTF-8" in w and "line 31" in w for w in info.warnings), info.warnings
    proc = run("inspect", str(path))
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_a_cp1252_kernel_name_is_read_with_a_replacement(samples_dir: Path, tmp_path: Path) -> None:
    text = (samples_dir / LAKOC).read_text(encoding="utf-8")
    data = text.replace("centerOfMass(", "centerOfMass_caf\u00e9(").encode("cp1252")
    df, info = read_source(str(_write(tmp_path, "cp1252.csv", data)))
    assert df["kernel"].iloc[1].startswith("centerOfMass_caf\ufffd(")
    assert _value(df, FADD, 2) == 10_256  # line 56
    assert any("not UTF-8" in w and "line 32" in w for w in info.warnings), info.warnings


@pytest.mark.parametrize(
    ("codec", "bom"),
    [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-32-le", b"\xff\xfe\x00\x00")],
)
def test_utf16_and_utf32_exports_are_decoded(
    samples_dir: Path, tmp_path: Path, codec: str, bom: bytes
) -> None:
    text = (samples_dir / LAKOC).read_text(encoding="utf-8").replace("\n", "\r\n")
    df, info = read_source(str(_write(tmp_path, "ps.csv", bom + text.encode(codec))))
    assert df["id"].tolist() == [0, 1, 2]
    assert _value(df, FADD, 0) == 37_761_024 and _value(df, HMUL, 2) == 0.0
    assert any("UTF-" in w and "decoded" in w for w in info.warnings), info.warnings


def test_utf16_without_a_byte_order_mark_is_decoded(samples_dir: Path, tmp_path: Path) -> None:
    text = (samples_dir / LAKOC).read_text(encoding="utf-8")
    df, _ = read_source(str(_write(tmp_path, "nobom.csv", text.encode("utf-16-le"))))
    assert _value(df, "dram__bytes.sum", 1) == 39_552


# --- 8, 9. long fields, streams, Arrow's wording ----------------------------------


def test_a_kernel_name_longer_than_the_csv_field_limit(samples_dir: Path, tmp_path: Path) -> None:
    long_name = "centerOfMass_" + "x" * 200_000
    text = (samples_dir / LAKOC).read_text(encoding="utf-8")
    path = _write(tmp_path, "long.csv", text.replace("centerOfMass(", long_name + "(").encode())
    df, _ = read_source(str(path))
    assert df["kernel"].iloc[1].startswith(long_name + "(")
    assert _value(df, FADD, 1) == 10_256


def test_a_row_longer_than_an_arrow_block(samples_dir: Path, tmp_path: Path) -> None:
    # A 40 MiB process name on line 1,000 (past the rows sampled with csv):
    # the row straddles three of Arrow's 16 MiB blocks.
    lines = _lines(samples_dir, LELEUCAS)
    row = next(csv.reader([lines[999].decode()]))
    assert row[0].isdigit()
    lines[999] = lines[999].replace(f'"{row[2]}"'.encode(), b'"' + b"p" * (40 << 20) + b'"', 1)
    path = _write(tmp_path, "long_row.csv", b"".join(lines))
    df, _ = read_source(str(path))
    whole, _ = read_source(str(samples_dir / LELEUCAS))
    assert len(df) == len(whole) == 26
    proc = run("inspect", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "straddl" not in proc.stderr and "block size" not in proc.stderr


def test_a_header_longer_than_an_arrow_block(samples_dir: Path, tmp_path: Path) -> None:
    lines = _lines(samples_dir, LAKOC)
    lines[15] = lines[15].rstrip(b"\n") + b',"' + b"h" * (17 << 20) + b'"\n'  # line 16
    df, _ = read_source(str(_write(tmp_path, "long_header.csv", b"".join(lines))))
    assert _value(df, FADD, 0) == 37_761_024


def test_arrow_failures_are_told_in_our_words() -> None:
    from ncu_roofline.readers.table import _in_our_words

    for message in (
        "straddling object straddles two block boundaries (try to increase block size?)",
        "Could not skip initial 1 rows from CSV file, either file is too short or header is "
        "larger than block size",
        "CSV parse error: Expected 12 columns, got 1: stray",
        "something else entirely",
    ):
        said = _in_our_words(message, 1 << 30)
        assert "straddl" not in said and "block size" not in said and "CSV parse" not in said
        assert "ncu table" in said


def test_a_fifo_is_read_to_its_end(samples_dir: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = (samples_dir / LAKOC).read_bytes()

    def feed() -> None:
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    df, _ = read_source(str(fifo))
    writer.join(timeout=10)
    assert df["id"].tolist() == [0, 1, 2] and _value(df, HMUL, 2) == 0.0


def test_process_substitution_is_read(samples_dir: Path) -> None:
    proc = subprocess.run(
        [
            "bash",
            "-c",
            f'"{sys.executable}" -m ncu_roofline inspect <(cat "$0")',
            samples_dir / LAKOC,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "3 (2 distinct kernels)" in proc.stdout


# --- 10. out of memory -------------------------------------------------------------


def _limited(limit: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_out_of_memory_is_a_message_and_exit_8(samples_dir: Path, tmp_path: Path) -> None:
    # A sparse 8 GiB export (a real header and rows, then holes) cannot be
    # mapped under a 2 GiB address-space limit.
    path = tmp_path / "huge.csv"
    with open(path, "wb") as fh:
        fh.write((samples_dir / LAKOC).read_bytes())
        fh.truncate(8 << 30)
    proc = subprocess.run(
        [sys.executable, "-m", "ncu_roofline", "inspect", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
        preexec_fn=lambda: _limited(2 << 30),
    )
    assert proc.returncode == EXIT_CODES["out-of-memory"] == 8, proc.stderr
    assert "out of memory" in proc.stderr and "Traceback" not in proc.stderr


def test_memory_running_out_after_arrow_ran_ends_at_once(samples_dir: Path) -> None:
    # Arrow's thread pool has parsed a table when the MemoryError comes: the
    # process must still end, with the message and exit code 8.
    script = textwrap.dedent(
        f"""
        import ncu_roofline.cli as cli
        import ncu_roofline.report.inspect as inspect_report

        def exhausted(profile):
            raise MemoryError()

        # The command imports it when it runs: patched where it is defined.
        inspect_report.inspect_profile = exhausted
        cli.main(["inspect", {str(samples_dir / LELEUCAS)!r}])
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 8, proc.stderr
    assert "error: out of memory" in proc.stderr and "internal error" not in proc.stderr


# --- found by the fuzz suite ----------------------------------------------------


def test_a_line_lost_mid_table_leaves_that_launchs_flops_missing(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Lakoc's launch 1 (calculate_velocity) is lines 32-46; its fadd row, line
    # 41, deleted leaves it 14 metric rows where launch 0 of the same kernel
    # keeps 15.  Its FLOPs would be 0 + 2 x 6,512 = 13,024 without the adds:
    # missing instead; launch 0's and launch 2's stay whole.
    lines = _lines(samples_dir, LAKOC)
    assert FADD.encode() in lines[40] and lines[40].startswith(b'"1"')
    path = _write(tmp_path, "gap.csv", b"".join(lines[:40] + lines[41:]))
    _, info = read_source(str(path))
    assert any("launch ID 1" in w and "14 metric rows" in w for w in info.warnings), info.warnings
    launches = _analysed(path)
    assert math.isnan(launches["flops"].iloc[1])
    assert launches["flops"].iloc[2] == pytest.approx(23_280, rel=1e-12)


def test_a_cut_stream_with_one_launch_keeps_no_partial_sum(
    samples_dir: Path, tmp_path: Path
) -> None:
    # The Gardenia export gzip-compressed and cut after 675 bytes holds part
    # of launch 0 only (its FP64 zeros, not its FP32 counts): with nothing
    # complete to compare with, its quantities are missing, not 0 FLOPs.
    data = (
        samples_dir / "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
    ).read_bytes()
    path = _write(tmp_path, "cut.csv.gz", gzip.compress(data, mtime=0)[:675])
    df, info = read_source(str(path))
    assert df["id"].tolist() == [0]
    assert any("launch ID 0" in w and "cut off" in w for w in info.warnings), info.warnings
    assert math.isnan(_analysed(path)["flops"].iloc[0])


def test_a_summary_followed_by_a_log_with_a_details_page(samples_dir: Path, tmp_path: Path) -> None:
    # A per-kernel summary (2 kernels x 100 invocations) and then a program
    # log holding a details page (14 launches): the summary's header does not
    # fit the details rows, and each table is read with its own header.
    summary = (samples_dir / "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv").read_bytes()
    log = (
        samples_dir
        / "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_ncu_metrics_show_torch.txt"
    ).read_bytes()
    path = _write(tmp_path, "both.csv", summary + b"\n" + log)
    launches = ncu_roofline.load([str(path)]).launches
    # The summary's two rows stand for 100 invocations each.
    assert len(launches) == 2 + 14
    assert launches["invocations"].astype(float).tolist()[:2] == [100.0, 100.0]


def test_a_malformed_counter_leaves_the_flop_sum_missing(samples_dir: Path, tmp_path: Path) -> None:
    # Launch 1's fadd count (line 41, "10,256") malformed as "1,0,256": the
    # value is missing, and so is the launch's FLOP sum, which without it
    # would read 2 x 6,512 = 13,024 instead of 23,280 -- a partial sum.
    lines = _lines(samples_dir, LAKOC)
    assert lines[40].rstrip().endswith(b'"10,256"')
    lines[40] = lines[40].replace(b'"10,256"', b'"1,0,256"')
    path = _write(tmp_path, "bad.csv", b"".join(lines))
    _, info = read_source(str(path))
    assert any("launch ID 1" in w and "never a partial sum" in w for w in info.warnings)
    launches = _analysed(path)
    assert math.isnan(launches["flops"].iloc[1])
    assert launches["flops"].iloc[2] == pytest.approx(23_280, rel=1e-12)


# --- hardening round 3: repeated rows, long lines, rows of another export ----------

CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
GARDENIA = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
GIOTYP = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"
TEXT_SAMPLES = [
    p.name for p in sorted(SAMPLES.glob("*")) if p.is_file() and p.suffix not in (".md", ".ncu-rep")
]


def _doubled(lines: list[bytes], i: int) -> bytes:
    """The lines with line ``i + 1`` repeated in place."""
    line = lines[i] if lines[i].endswith(b"\n") else lines[i] + b"\n"
    return b"".join(lines[: i + 1]) + line + b"".join(lines[i + 1 :])


def _frames_equal(a: pd.DataFrame, b: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(
        a.drop(columns=["source"]), b.drop(columns=["source"]), check_exact=True
    )


@pytest.mark.parametrize("line", [2, 3, 30, 45])
def test_a_doubled_row_of_a_one_launch_export_is_one_launch(
    samples_dir: Path, tmp_path: Path, line: int
) -> None:
    # CodeGandee holds one launch, its metric rows on lines 2-45.  Line 2 (its
    # first row) doubled used to start a second run: two launches from one.
    lines = _lines(samples_dir, CODEGANDEE)
    assert lines[line - 1].startswith(b'"0","1742833"')
    df, info = read_source(str(_write(tmp_path, "dup.csv", _doubled(lines, line - 1))))
    intact, intact_info = read_source(str(samples_dir / CODEGANDEE))
    assert len(df) == 1
    _frames_equal(df, intact)
    repeated = [w for w in info.warnings if "repeated row" in w]
    assert len(repeated) == 1 and f"line {line + 1} " in repeated[0], info.warnings
    assert "start again" not in " ".join(info.warnings)
    assert sorted(set(info.warnings) - {repeated[0]}) == sorted(intact_info.warnings)


def test_a_row_copied_among_another_launchs_rows_is_left_out(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Launch 0's dram row (line 17, "67,584") copied after line 50, among
    # launch 2's rows: the IDs go back for one row and on again, which is no
    # second run.  Launch 2 keeps its own dram bytes (line 47, "39,552").
    lines = _lines(samples_dir, LAKOC)
    assert lines[16].endswith(b'"dram__bytes.sum","byte","67,584"\n')
    data = b"".join(lines[:50]) + lines[16] + b"".join(lines[50:])
    df, info = read_source(str(_write(tmp_path, "copied.csv", data)))
    assert df["id"].tolist() == [0, 1, 2]
    assert _value(df, "dram__bytes.sum", 0) == 67_584
    assert _value(df, "dram__bytes.sum", 2) == 39_552
    assert any("1 repeated row(s)" in w and "line 51 " in w for w in info.warnings), info.warnings
    assert not any("start again" in w for w in info.warnings)
    assert not math.isnan(_analysed(_write(tmp_path, "c.csv", data))["flops"].iloc[2])


def test_a_doubled_raw_page_row_is_one_launch(samples_dir: Path, tmp_path: Path) -> None:
    # The raw page's launch 10 is line 15 (two ==PROF== lines, header, units).
    lines = _lines(samples_dir, MEINIE_RAW)
    assert lines[14].startswith(b'"10",')
    for i in (14, len(lines) - 1):
        df, info = read_source(str(_write(tmp_path, "raw_dup.csv", _doubled(lines, i))))
        assert df["id"].tolist() == list(range(64)), i
        assert any("1 repeated row(s)" in w and f"line {i + 2} " in w for w in info.warnings)
        assert not any("start again" in w for w in info.warnings)


@pytest.mark.parametrize("name", TEXT_SAMPLES, ids=lambda n: n[:24])
def test_no_doubled_line_adds_a_launch(samples_dir: Path, tmp_path: Path, name: str) -> None:
    """Twelve lines of every text export, spread over the file, each doubled in place:
    never a launch more, and every doubled table row is named in a warning."""
    lines = _lines(samples_dir, name)
    try:
        intact, _ = read_source(str(samples_dir / name))
    except NcuRooflineError:
        pytest.skip("not a readable export")
    for i in range(0, len(lines), max(1, len(lines) // 12)):
        path = _write(tmp_path, "dup.csv", _doubled(lines, i))
        df, info = read_source(str(path))
        assert len(df) == len(intact), (name, i + 1)
        assert not any("start again" in w for w in info.warnings), (name, i + 1)


def test_runs_and_exports_appended_are_still_read_as_such(
    samples_dir: Path, tmp_path: Path
) -> None:
    # The whole table again (IDs restarting), a one-launch export's rows
    # again, and a raw page's launch rows again: each a second run.
    lakoc = _lines(samples_dir, LAKOC)
    df, info = read_source(str(_write(tmp_path, "a.csv", b"".join(lakoc + lakoc[16:]))))
    assert df["id"].tolist() == [0, 1, 2, 0, 1, 2]
    assert any("start again 1 time(s) (the first restart on line 62)" in w for w in info.warnings)
    one = _lines(samples_dir, CODEGANDEE)
    df, _ = read_source(str(_write(tmp_path, "b.csv", b"".join(one + one[1:]))))
    assert df["id"].tolist() == [0, 0]
    raw = _lines(samples_dir, MEINIE_RAW)
    df, _ = read_source(str(_write(tmp_path, "c.csv", b"".join(raw + raw[4:]))))
    assert df["id"].tolist() == list(range(64)) * 2


# --- long lines ----------------------------------------------------------------------


@pytest.fixture
def small_bound(monkeypatch: pytest.MonkeyPatch) -> int:
    """A line bound of 1 MiB, and Arrow blocks of 256 KiB below it (as 16 MiB are below 64)."""
    from ncu_roofline.readers import locate, table

    monkeypatch.setattr(locate, "MAX_LINE_BYTES", 1 << 20)
    monkeypatch.setattr(table, "_BLOCK_SIZE", 256 << 10)
    return 1 << 20


@pytest.mark.parametrize(
    ("where", "line"),
    [("header", 16), ("mid-table", 40), ("last-unclosed", 62), ("last-closed", 62)],
)
def test_a_line_longer_than_the_bound_is_refused_naming_it(
    samples_dir: Path, tmp_path: Path, small_bound: int, where: str, line: int
) -> None:
    lines = _lines(samples_dir, LAKOC)
    blob = b"x" * (2 * small_bound)
    if where == "header":
        lines[15] = lines[15].rstrip(b"\n") + b',"' + blob  # no newline, no closing quote
        lines = lines[:16]
    elif where == "mid-table":
        lines[39] = lines[39].replace(b'"nbody"', b'"' + blob + b'"')
    else:
        lines.append(b'"2","89294","' + blob + (b'"' if where == "last-closed" else b""))
    path = _write(tmp_path, "long.csv", b"".join(lines))
    with pytest.raises(InputFormatError, match=rf"line {line} is longer than 1 MiB"):
        read_source(str(path))


def test_a_line_just_under_the_bound_is_read(
    samples_dir: Path, tmp_path: Path, small_bound: int
) -> None:
    # A row of 1 MiB less a little: four of Arrow's (patched) blocks, read.
    lines = _lines(samples_dir, LAKOC)
    lines[39] = lines[39].replace(b'"nbody"', b'"' + b"n" * (small_bound - 400) + b'"')
    df, _ = read_source(str(_write(tmp_path, "under.csv", b"".join(lines))))
    assert _value(df, FADD, 1) == 10_256


def test_a_line_beyond_64_mib_without_a_newline_is_exit_4(tmp_path: Path) -> None:
    # The real bound: a header that never ends, 65 MiB long, is refused from
    # its first 64 MiB and its line number, not read whole into memory.
    path = tmp_path / "endless.csv"
    with open(path, "wb") as fh:
        fh.write(b"==PROF== Connected to process 1\n" + b'"ID","Kernel Name","')
        fh.write(b"k" * (65 << 20))
    proc = run("inspect", str(path))
    assert proc.returncode == 4, proc.stderr
    assert "line 2 is longer than 64 MiB" in proc.stderr and "Traceback" not in proc.stderr


# --- rows without their header ---------------------------------------------------------


def _body(samples_dir: Path, name: str) -> bytes:
    """An export's table rows without its header (and without what comes before it)."""
    lines = _lines(samples_dir, name)
    start = next(i for i, ln in enumerate(lines) if ln.startswith((b'"ID",', b'"Process ID",')))
    return b"".join(lines[start + 1 :])


def test_rows_of_an_export_of_other_columns_are_left_out_naming_their_lines(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Lakoc (12 columns, 3 launches) followed by WANGZY's 165 rows (15
    # columns) without their header: they used to outnumber Lakoc's rows,
    # set the width and become 165 launches.
    data = (samples_dir / LAKOC).read_bytes() + _body(samples_dir, WANGZY)
    df, info = read_source(str(_write(tmp_path, "tail.csv", data)))
    assert df["id"].tolist() == [0, 1, 2]
    assert _value(df, FADD, 1) == 10_256
    assert any(
        w.startswith("skipped 165 line(s) inside the table that are not table rows (lines 62-226)")
        for w in info.warnings
    ), info.warnings


def test_rows_of_an_export_of_as_many_columns_meaning_others_are_left_out(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Gardenia's details page (15 columns) followed by a per-kernel summary's
    # 22 rows (15 columns too): under the details header the summary's
    # process name is a Process ID, which fits no row of this table.
    data = (samples_dir / GARDENIA).read_bytes() + _body(samples_dir, GIOTYP)
    df, info = read_source(str(_write(tmp_path, "tail.csv", data)))
    intact, _ = read_source(str(samples_dir / GARDENIA))
    _frames_equal(df, intact)
    assert any(
        w.startswith("22 row(s) whose Process ID is not a whole number")
        and w.endswith("lines 54-75")
        for w in info.warnings
    ), info.warnings


def test_rows_of_an_export_of_the_same_columns_are_an_appended_run(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Gardenia and WANGZY share their header: WANGZY's rows without it are
    # a run appended, all 11 of its launches kept after Gardenia's 3.
    data = (samples_dir / GARDENIA).read_bytes() + _body(samples_dir, WANGZY)
    df, info = read_source(str(_write(tmp_path, "tail.csv", data)))
    assert len(df) == 3 + 11
    assert _value(df, "dram__bytes.sum", 3) == 837_859_712  # wangzy line 12
    assert any("start again 1 time(s) (the first restart on line 54)" in w for w in info.warnings)


# --- raw page without its units row, IDs that are no numbers ---------------------------


def test_a_raw_page_without_its_units_row_is_read_in_base_units(
    samples_dir: Path, tmp_path: Path
) -> None:
    lines = _lines(samples_dir, MEINIE_RAW)
    assert lines[3].startswith(b'"","",')  # the units row
    df, info = read_source(str(_write(tmp_path, "nounits.csv", b"".join(lines[:3] + lines[4:]))))
    intact, _ = read_source(str(samples_dir / MEINIE_RAW))
    assert df["id"].tolist() == list(range(64))
    # gpu__time_duration.sum is in ns in the units row: base units say the same.
    assert df["gpu__time_duration.sum"].tolist() == intact["gpu__time_duration.sum"].tolist()
    assert df["device__attribute_clock_rate"].tolist() == (
        intact["device__attribute_clock_rate"].tolist()
    )
    assert any("no units row" in w and "base units" in w for w in info.warnings), info.warnings


@pytest.mark.parametrize("bad", ["x7", "1e400", ""])
def test_rows_whose_id_is_no_number_are_left_out_with_a_warning(
    samples_dir: Path, tmp_path: Path, bad: str
) -> None:
    # Launch 1's ID (lines 32-46) damaged: its rows are no launch rows.
    lines = _lines(samples_dir, LAKOC)
    for i in range(31, 46):
        assert lines[i].startswith(b'"1",')
        lines[i] = b'"' + bad.encode() + b'"' + lines[i][3:]
    df, info = read_source(str(_write(tmp_path, "ids.csv", b"".join(lines))))
    assert df["id"].tolist() == [0, 2]
    assert any(
        w.startswith("15 row(s) whose launch ID is not a whole number are left out")
        and f"(first {bad!r}, lines 32-46)" in w
        for w in info.warnings
    ), info.warnings
    raw = _lines(samples_dir, MEINIE_RAW)
    raw[20] = b'"' + bad.encode() + raw[20][raw[20].index(b'",') :]
    df, info = read_source(str(_write(tmp_path, "raw_ids.csv", b"".join(raw))))
    assert len(df) == 63
    assert any("1 row(s) whose launch ID" in w and "line 21)" in w for w in info.warnings)


@pytest.mark.parametrize("field", ["ID", "Process ID"])
def test_a_damaged_row_inside_a_launch_leaves_its_quantity_missing(
    samples_dir: Path, tmp_path: Path, field: str
) -> None:
    # Launch 1's fadd row (line 41) with its ID or Process ID damaged is left
    # out; launch 1's FLOPs without it would be 2 x 6,512 = 13,024 of
    # 23,280: missing instead, as for a line lost.
    lines = _lines(samples_dir, LAKOC)
    assert FADD.encode() in lines[40] and lines[40].startswith(b'"1","89294",')
    at = 1 if field == "ID" else 5
    lines[40] = lines[40][:at] + b"x" + lines[40][at + 1 :]
    path = _write(tmp_path, "damaged.csv", b"".join(lines))
    df, info = read_source(str(path))
    assert df["id"].tolist() == [0, 1, 2]
    assert any("1 row(s) whose" in w and "line 41" in w for w in info.warnings), info.warnings
    assert any("lack some of the FLOP counts" in w for w in info.warnings), info.warnings
    launches = _analysed(path)
    assert math.isnan(launches["flops"].iloc[1])
    assert launches["flops"].iloc[2] == pytest.approx(23_280, rel=1e-12)


def test_runs_of_a_one_metric_export_stay_runs(samples_dir: Path, tmp_path: Path) -> None:
    # One metric per launch (Lakoc's dram rows, lines 17, 32 and 47): a launch
    # is one row, so a run appended repeats rows one for one.  Two runs of
    # three launches are six launches; two runs of one launch (`--launch-count
    # 1`) are two, as a doubled row of such an export cannot be told from them.
    lines = _lines(samples_dir, LAKOC)
    dram = [lines[16], lines[31], lines[46]]
    assert all(b'"dram__bytes.sum"' in ln for ln in dram)
    head = b"".join(lines[:16])
    df, info = read_source(str(_write(tmp_path, "a.csv", head + b"".join(dram * 2))))
    assert df["id"].tolist() == [0, 1, 2, 0, 1, 2]
    assert [_value(df, "dram__bytes.sum", i) for i in (0, 3)] == [67_584, 67_584]
    df, info = read_source(str(_write(tmp_path, "b.csv", head + dram[0] * 3)))
    assert df["id"].tolist() == [0, 0, 0]
    assert any("3 runs" in w for w in info.warnings), info.warnings
    # A row copied among them is still one row too many, not a run.
    data = head + dram[0] + dram[1] + dram[0] + dram[2]
    df, info = read_source(str(_write(tmp_path, "c.csv", data)))
    assert df["id"].tolist() == [0, 1, 2]
    assert any("1 repeated row(s)" in w and "line 19 " in w for w in info.warnings)
