"""Values that cannot be trusted become missing with a warning; bad option values are usage errors.

Reader edge: digit grouping other than thousands, negative counts and units
of the wrong dimension read as missing (NaN), never as a plausible wrong
number, with one warning per metric and problem.  Terminal: every text bound
for the terminal, stderr included, is free of controls and bidi overrides.
Options and settings: NaN, infinity, out-of-range values, deep nesting and
over-long numbers are refused with a message and a documented exit code.

The inputs are real exports from ``../shared/ncu-samples/``, mutated in
``tmp_path`` copies where a test needs a bad value.
"""

from __future__ import annotations

import csv
import io
import math
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline import analyze, load
from ncu_roofline.cli.config import load_config
from ncu_roofline.core.dimensions import unit_fits
from ncu_roofline.core.files import NCU_REP_MAGIC, parse_toml, too_deep
from ncu_roofline.core.hardware import load_roofs_file, resolve_gpu
from ncu_roofline.core.names import short_name
from ncu_roofline.core.units import parse_numbers_checked, parse_unit
from ncu_roofline.errors import InputFormatError, UsageError
from ncu_roofline.readers import read_source
from ncu_roofline.readers.locate import RawInput
from ncu_roofline.readers.ncurep import read_ncu_rep
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.estimates import load_theory_file
from ncu_roofline.theory.expr import ExprError, compile_expr
from ncu_roofline.theory.models import load_model_config
from tests.helpers import parse_one, run

NBODY = "Lakoc__Nbody_CUDA__profile_1.out"
RAW = "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_b128_ctx2k_p64.ncu.csv"
SUMMARY = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"

#: Characters no terminal-bound text may carry: C0, DEL, C1, bidi controls, line/paragraph separators.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _mutate_details(
    src: Path, dst: Path, changes: dict[tuple[str, str], tuple[str | None, str]]
) -> None:
    """Copy a fully quoted details export, setting (ID, metric) -> (unit or None to keep, value)."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    header: list[str] | None = None
    for line in src.read_text(encoding="utf-8").splitlines(keepends=True):
        if header is None:
            if line.startswith('"ID",'):
                header = next(csv.reader([line]))
            out.write(line)
            continue
        row = next(csv.reader([line]))
        key = (row[header.index("ID")], row[header.index("Metric Name")])
        if key in changes:
            unit, value = changes[key]
            if unit is not None:
                row[header.index("Metric Unit")] = unit
            row[header.index("Metric Value")] = value
            writer.writerow(row)
        else:
            out.write(line)
    dst.write_text(out.getvalue(), encoding="utf-8")


def _value(frame: pd.DataFrame, launch_id: int, metric: str) -> float:
    return float(frame.loc[frame["id"] == launch_id, metric].iloc[0])


# --- 1. values read wrong ------------------------------------------------------------


def test_malformed_grouping_is_missing_not_misread(samples_dir: Path, tmp_path: Path) -> None:
    # The file says 67,584 / 1,916,928 / 1,294,848 bytes for launch 0; the bad
    # spellings used to read as 123, 10 and 1.0005.
    path = tmp_path / "grouping.csv"
    _mutate_details(
        samples_dir / NBODY,
        path,
        {
            ("0", "dram__bytes.sum"): (None, "1,2,3"),
            ("0", "l1tex__t_bytes.sum"): (None, "1,0"),
            ("0", "lts__t_bytes.sum"): (None, "1.000,5"),
        },
    )
    frame, info = read_source(str(path), progress=False)
    for metric in ("dram__bytes.sum", "l1tex__t_bytes.sum", "lts__t_bytes.sum"):
        assert math.isnan(_value(frame, 0, metric)), metric
    # Untouched values, as the file prints them: "39,552" and "1,094,803,101.67".
    assert _value(frame, 1, "dram__bytes.sum") == 39552.0
    assert _value(frame, 0, "sm__cycles_elapsed.avg.per_second") == 1094803101.67
    assert (
        "dram__bytes.sum: 1 malformed number(s) left out as missing "
        "(first '1,2,3' on line 17, launch ID 0 (calculate_velocity))" in info.warnings
    )
    assert any(
        w.startswith("l1tex__t_bytes.sum: 1 malformed") and "'1,0'" in w for w in info.warnings
    )
    assert any(
        w.startswith("lts__t_bytes.sum: 1 malformed") and "'1.000,5'" in w for w in info.warnings
    )


def test_infinite_values_are_missing_with_a_warning(samples_dir: Path, tmp_path: Path) -> None:
    # Launch 0 of the file: 67,584 DRAM bytes, 1,916,928 L1 and 1,294,848 L2 bytes.
    path = tmp_path / "infinite.csv"
    _mutate_details(
        samples_dir / NBODY,
        path,
        {
            ("0", "dram__bytes.sum"): (None, "1e400"),
            ("1", "dram__bytes.sum"): (None, "inf"),
            # Finite as printed, beyond a double once Gbyte scales it by 10^9.
            ("0", "l1tex__t_bytes.sum"): ("Gbyte", "1e300"),
            ("0", "lts__t_bytes.sum"): (None, "-inf"),
        },
    )
    frame, info = read_source(str(path), progress=False)
    for launch, metric in ((0, "dram__bytes.sum"), (1, "dram__bytes.sum"),
                           (0, "l1tex__t_bytes.sum"), (0, "lts__t_bytes.sum")):  # fmt: skip
        assert math.isnan(_value(frame, launch, metric)), (launch, metric)
    assert not np.isinf(frame.select_dtypes("number").to_numpy(dtype=float)).any()
    assert _value(frame, 2, "dram__bytes.sum") > 0
    assert (
        "dram__bytes.sum: 2 infinite value(s) left out as missing "
        "(first '1e400' on line 17, launch ID 0 (calculate_velocity))" in info.warnings
    )
    assert any(w.startswith("l1tex__t_bytes.sum: 1 infinite") for w in info.warnings)
    assert any(w.startswith("lts__t_bytes.sum: 1 negative") for w in info.warnings)


def test_one_warning_per_metric_and_problem_with_count_and_first_launch(
    samples_dir: Path, tmp_path: Path
) -> None:
    path = tmp_path / "many.csv"
    _mutate_details(
        samples_dir / NBODY,
        path,
        {(i, "dram__bytes.sum"): (None, f"{i},0") for i in ("1", "2")}
        | {("0", "dram__bytes.sum"): (None, "-67,584")},
    )
    frame, info = read_source(str(path), progress=False)
    assert frame["dram__bytes.sum"].isna().all()
    dram = sorted(w for w in info.warnings if w.startswith("dram__bytes.sum:"))
    assert dram == [
        "dram__bytes.sum: 1 negative value(s) left out as missing "
        "(first '-67,584' on line 17, launch ID 0 (calculate_velocity))",
        "dram__bytes.sum: 2 malformed number(s) left out as missing "
        "(first '1,0' on line 32, launch ID 1 (centerOfMass))",
    ]


def test_negative_counts_never_reach_the_analysis(samples_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "negative.csv"
    _mutate_details(
        samples_dir / NBODY,
        path,
        {
            ("0", "dram__bytes.sum"): (None, "-67,584"),
            ("0", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"): (None, "-5"),
            ("0", "sm__cycles_elapsed.avg"): (None, "-419,843.85"),
        },
    )
    profile = load(str(path))
    launches = profile.launches
    assert math.isnan(_value(launches, 0, "dram__bytes.sum"))
    assert math.isnan(_value(launches, 0, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"))
    # No cycles, no duration from cycles over clock: missing, not negative.
    assert math.isnan(_value(launches, 0, "duration_s"))
    assert _value(launches, 1, "dram__bytes.sum") == 39552.0
    warnings = profile.sources[0].warnings
    assert sum("negative value(s)" in w for w in warnings) == 3
    placed = analyze(profile, gpu="a100_40gb_sxm").launches
    dram = placed["dram_bytes"].to_numpy(dtype=np.float64, na_value=np.nan)
    assert not (dram < 0).any()
    assert math.isnan(dram[0])


def test_unit_of_the_wrong_dimension_is_missing(samples_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "units.csv"
    _mutate_details(
        samples_dir / NBODY,
        path,
        {
            ("0", "dram__bytes.sum"): ("msecond", "67,584"),
            ("1", "dram__bytes.sum"): ("us", "39,552"),
            ("0", "lts__t_bytes.sum"): ("Mbyte", "1.294848"),
        },
    )
    frame, info = read_source(str(path), progress=False)
    assert math.isnan(_value(frame, 0, "dram__bytes.sum"))
    assert math.isnan(_value(frame, 1, "dram__bytes.sum"))
    assert _value(frame, 2, "dram__bytes.sum") == 39552.0
    # A unit of the right dimension is converted, as before: 1.294848 Mbyte.
    assert _value(frame, 0, "lts__t_bytes.sum") == pytest.approx(1294848.0)
    assert (
        "dram__bytes.sum: unit 'msecond' is not a byte unit: 1 value(s) left out as missing "
        "(first '67,584' on line 17, launch ID 0 (calculate_velocity))" in info.warnings
    )
    assert any("unit 'us' is not a byte unit" in w for w in info.warnings)


def _mutate_raw(
    src: Path, dst: Path, column: str, unit: str | None, values: dict[int, str]
) -> None:
    """Copy a raw-page export, setting ``column``'s unit and the values of some launch rows."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    rows = list(csv.reader(lines[start:]))
    col = rows[0].index(column)
    if unit is not None:
        rows[1][col] = unit
    for launch, value in values.items():
        rows[2 + launch][col] = value
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    dst.write_text("".join(lines[:start]) + out.getvalue(), encoding="utf-8")


def test_raw_page_values_and_units_checked(samples_dir: Path, tmp_path: Path) -> None:
    # Launch 0 and 1 last 628,480 ns and 628,128 ns in the file.
    path = tmp_path / "raw.csv"
    _mutate_raw(
        samples_dir / RAW, path, "gpu__time_duration.sum", None, {0: "6,28,480", 1: "-628128"}
    )
    frame, info = read_source(str(path), progress=False)
    durations = frame["gpu__time_duration.sum"].to_numpy(dtype=np.float64)
    assert math.isnan(durations[0]) and math.isnan(durations[1])
    assert durations[2] == pytest.approx(float(_raw_cell(samples_dir / RAW, 2)) * 1e-9)
    assert any(
        w.startswith("gpu__time_duration.sum: 1 malformed number(s)")
        and "'6,28,480' on line 5, launch ID 0" in w
        for w in info.warnings
    )
    assert any(w.startswith("gpu__time_duration.sum: 1 negative value(s)") for w in info.warnings)

    wrong = tmp_path / "raw_unit.csv"
    _mutate_raw(samples_dir / RAW, wrong, "gpu__time_duration.sum", "byte", {})
    frame, info = read_source(str(wrong), progress=False)
    assert frame["gpu__time_duration.sum"].isna().all()
    assert any(
        w.startswith("gpu__time_duration.sum: unit 'byte' is not a time unit: 64 value(s)")
        for w in info.warnings
    )


def _raw_cell(path: Path, launch: int) -> str:
    lines = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    rows = list(csv.reader(lines[start:]))
    return rows[2 + launch][rows[0].index("gpu__time_duration.sum")]


# --- 1. property tests at the reader edge -------------------------------------------------


def _grouped(n: int, sep: str) -> str:
    return f"{n:,}".replace(",", sep)


@settings(deadline=None, max_examples=300)
@given(
    whole=st.integers(min_value=0, max_value=10**15),
    frac=st.one_of(st.none(), st.integers(min_value=0, max_value=99)),
    negative=st.booleans(),
    decimal=st.sampled_from([".", ","]),
)
def test_valid_grouping_parses_to_its_value(
    whole: int, frac: int | None, negative: bool, decimal: str
) -> None:
    group = "," if decimal == "." else "."
    text = ("-" if negative else "") + _grouped(whole, group)
    expected = float(whole)
    if frac is not None:
        text += f"{decimal}{frac:02d}"
        expected = float(f"{whole}.{frac:02d}")
    expected = -expected if negative else expected
    assert parse_one(text, decimal) == expected
    values, malformed = parse_numbers_checked(pa.array([text]), decimal)
    assert values.tolist() == [expected] and not malformed.any()


#: Digit groups after the first that are not exactly three digits long.
_bad_group = st.text(alphabet="0123456789", min_size=1, max_size=6).filter(lambda g: len(g) != 3)


@settings(deadline=None, max_examples=300)
@given(
    first=st.text(alphabet="0123456789", min_size=1, max_size=3),
    groups=st.lists(st.text(alphabet="0123456789", min_size=3, max_size=3), max_size=3),
    bad=_bad_group,
    at=st.integers(min_value=0, max_value=3),
    decimal=st.sampled_from([".", ","]),
)
def test_invalid_grouping_is_missing(
    first: str, groups: list[str], bad: str, at: int, decimal: str
) -> None:
    group = "," if decimal == "." else "."
    parts = [first, *groups]
    parts.insert(min(at, len(parts) - 1) + 1, bad)
    text = group.join(parts)
    assert parse_one(text, decimal) is None
    values, malformed = parse_numbers_checked(pa.array([text, "n/a", ""]), decimal)
    assert math.isnan(values[0]) and malformed.tolist() == [True, False, False]
    assert math.isnan(parse_numbers_checked(pa.array([text]), decimal)[0][0])


@settings(deadline=None, max_examples=200)
@given(
    whole=st.integers(min_value=1000, max_value=10**12),
    frac=st.integers(min_value=1, max_value=999),
)
def test_swapped_separators_are_missing(whole: int, frac: int) -> None:
    # "1.000,5" in a decimal-point file (and "1,000.5" in a decimal-comma one)
    # used to read as 1.0005 after the commas were deleted.
    assert parse_one(_grouped(whole, ".") + f",{frac}", ".") is None
    assert parse_one(_grouped(whole, ",") + f".{frac}", ",") is None


_BYTE_METRICS = st.sampled_from(
    ["dram__bytes.sum", "dram__bytes_read.sum", "lts__t_bytes.sum", "l1tex__t_bytes.sum"]
)


@given(
    metric=_BYTE_METRICS,
    prefix=st.sampled_from(["", "m", "u", "n", "K", "M", "G"]),
    time=st.sampled_from(["second", "s"]),
)
def test_time_units_never_fit_byte_counts_and_byte_units_always_do(
    metric: str, prefix: str, time: str
) -> None:
    unit = parse_unit(prefix + time)
    assert unit is not None and unit.si == "s"
    assert not unit_fits(metric, unit.si)
    byte = parse_unit(("" if prefix in "mun" else prefix) + "byte")
    assert byte is not None and unit_fits(metric, byte.si)
    assert not unit_fits("gpu__time_duration.sum", "byte")
    assert unit_fits("gpu__time_duration.sum", unit.si)


@given(st.text())
def test_sanitiser_output_has_no_controls_or_bidi(text: str) -> None:
    clean = terminal_safe(text)
    assert not UNSAFE.search(clean)
    # Shown as escapes, not dropped: nothing else changes, and showing again changes nothing.
    assert terminal_safe(clean) == clean
    if not UNSAFE.search(text):
        assert clean == text


#: Kernel names, including the ones made only of bracketed tags ("<tag ...>").
_names = st.one_of(
    st.text(min_size=1),
    st.builds(
        lambda pre, tag, args: f"{pre}<{tag}>{args}",
        st.sampled_from(["", "void "]),
        st.text(),
        st.sampled_from(["", "(int)", "()"]),
    ),
).filter(lambda t: t.strip() != "")


@given(_names)
def test_short_name_is_never_empty(name: str) -> None:
    assert short_name(name) != ""


@pytest.mark.parametrize(
    ("name", "short"),
    [("<tag ...>", "<tag ...>"), ("void <tag x>(int)", "<tag x>"), ("<unnamed>", "<unnamed>")],
)
def test_tag_shaped_names_keep_a_short_name(name: str, short: str) -> None:
    assert short_name(name) == short


# --- 2. terminal-bound text -----------------------------------------------------------


def test_kernel_name_escapes_never_reach_the_terminal(samples_dir: Path, tmp_path: Path) -> None:
    text = (samples_dir / NBODY).read_text(encoding="utf-8")
    evil = "calc\x1b]0;owned\x07\x1b[2J\b\u202eevil\u2028x"
    text = text.replace("calculate_velocity(t_particles", f"{evil}(t_particles")
    text = text.replace('"67,584"', '"1,2,3"', 1)
    path = tmp_path / "escapes.csv"
    path.write_text(text, encoding="utf-8")
    proc = run("summary", str(path), "--gpu", "a100_40gb_sxm")
    assert proc.returncode == 0, proc.stderr
    # The warning names the kernel: shown, with every control as its escape
    # and the line separator as a space.
    shown = "calc\\x1b]0;owned\\x07\\x1b[2J\\x08\\u202eevil x"
    assert f"launch ID 0 ({shown})" in proc.stderr
    for stream in (proc.stdout, proc.stderr):
        assert not UNSAFE.search(stream.replace("\n", ""))
    # The table cuts the name in its middle.
    assert shown[:18] in proc.stdout and shown[-15:] in proc.stdout


# --- 3. summary invocations -------------------------------------------------------------


@pytest.mark.parametrize(
    "count", ["99999999999999999999999", "-5", "0", "1" * 5000, "1e400", "inf", "1e3"]
)
def test_absurd_invocations_are_not_trusted(samples_dir: Path, tmp_path: Path, count: str) -> None:
    path = tmp_path / "summary.csv"
    text = (samples_dir / SUMMARY).read_text(encoding="utf-8")
    # Both kernels' rows say "100" invocations in the file.
    path.write_text(text.replace('"100","Command', f'"{count}","Command'), encoding="utf-8")
    frame, info = read_source(str(path), progress=False)
    assert len(frame) == 2
    # Not trusted: each row stands for one launch, not for the printed count.
    assert frame["invocations"].fillna(1).tolist() == [1, 1]
    assert info.launches == 2
    assert any(
        w.startswith("Invocations: 2 row(s) with a count that is not 1 to 1,000,000,000 launches")
        and "counted as one launch" in w
        for w in info.warnings
    )
    good, good_info = read_source(str(samples_dir / SUMMARY), progress=False)
    assert good["invocations"].tolist() == [100, 100] and good_info.launches == 200


# --- 4. option and setting values ------------------------------------------------------------


def test_nan_and_inf_options_are_usage_errors(samples_dir: Path) -> None:
    path = str(samples_dir / NBODY)
    for args, option in (
        (("compare", path, path, "--noise", "nan", "--format", "json"), "--noise"),
        (("compare", path, path, "--noise", "inf", "--format", "json"), "--noise"),
        (("report", path, "--excess-threshold", "nan", "--format", "json"), "--excess-threshold"),
    ):
        proc = run(*args)
        assert proc.returncode == 2, proc.stderr
        assert (
            f"Invalid value for '{option}'" in proc.stderr and "not a finite number" in proc.stderr
        )
        assert "internal error" not in proc.stderr


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("noise = -1", "noise: -1.0 is not in the range x>=0.0."),
        ("noise = nan", "noise: nan is not a finite number."),
        ("excess-threshold = 0.5", "excess-threshold: 0.5 is not in the range x>=1.0."),
        ("excess-threshold = inf", "excess-threshold: inf is not a finite number."),
        ("top = -5", "top: -5 is not in the range x>=1."),
        ("plotly-js = 'evil'", "plotly-js: 'evil' is not one of 'inline', 'cdn'."),
        ("clocks = 'fast'", "clocks: 'fast' is not one of 'measured', 'datasheet'."),
    ],
)
def test_settings_are_checked_like_options(tmp_path: Path, setting: str, message: str) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(f"[tool.ncu-roofline]\n{setting}\n", encoding="utf-8")
    with pytest.raises(InputFormatError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {message}"


def test_good_settings_pass_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "pyproject.toml"
    path.write_text(
        "[tool.ncu-roofline]\nnoise = 0.05\ntop = 3\nexcess-threshold = 2\nplotly-js = 'cdn'\n",
        encoding="utf-8",
    )
    assert load_config(path) == {
        "noise": 0.05,
        "top": 3,
        "excess_threshold": 2.0,
        "plotly_js": "cdn",
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"[tool.ncu-roofline]\ntop = -5\n", "top: -5 is not in the range x>=1."),
        (b"tool = 5\n", "[tool] must be a table"),
        (b"[tool.ncu-roofline]\ntop = 1 # \xff\n", "not a UTF-8 text file"),
        (b"x = " + b"[" * 2000 + b"]" * 2000 + b"\n", "nested too deeply"),
        (b"[tool.ncu-roofline]\ntop = " + b"1" * 5000 + b"\n", "a number too long to read"),
    ],
)
def test_bad_pyproject_is_an_input_error(
    samples_dir: Path, tmp_path: Path, content: bytes, message: str
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    proc = run("summary", str(samples_dir / NBODY), cwd=tmp_path)
    assert proc.returncode == 4, proc.stderr
    assert proc.stderr.startswith(f"ncu-roofline: error: {tmp_path / 'pyproject.toml'}: ")
    assert message in proc.stderr and "internal error" not in proc.stderr


def test_deep_or_long_roofs_and_model_configs_are_input_errors(tmp_path: Path) -> None:
    deep_toml = tmp_path / "roofs.toml"
    deep_toml.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    with pytest.raises(InputFormatError, match="nested too deeply"):
        load_roofs_file(deep_toml)
    with pytest.raises(InputFormatError, match="a number too long to read"):
        parse_toml("x = " + "7" * 5000, "long.toml")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 3000 + "]" * 3000, encoding="utf-8")
    with pytest.raises(InputFormatError, match="not valid JSON: nested too deeply"):
        load_model_config(deep_json)
    long_json = tmp_path / "long.json"
    long_json.write_text('{"hidden_size": ' + "1" * 5000 + "}", encoding="utf-8")
    with pytest.raises(InputFormatError, match="a number too long to read"):
        load_model_config(long_json)


# --- 5. smaller ones ------------------------------------------------------------------


def test_gpu_shorthand_without_a_model_number_is_refused() -> None:
    with pytest.raises(UsageError, match=r'^unknown GPU "t"; did you mean t4\?'):
        resolve_gpu("t")
    with pytest.raises(UsageError, match=r'^GPU "rtx" fits 7 GPUs; did you mean rtx_a6000, '):
        resolve_gpu("rtx")
    # With a model number a family shorthand still resolves, and says so.
    lookup = resolve_gpu("a100")
    assert lookup.spec.key == "a100_40gb_sxm" and lookup.also
    said = lookup.describe("a100")
    assert said is not None and said.startswith('--gpu "a100" is a100_40gb_sxm')


def test_empty_output_path_is_a_usage_error(samples_dir: Path, tmp_path: Path) -> None:
    proc = run("report", str(samples_dir / NBODY), "-o", "", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "empty output path" in proc.stderr and "already exists" not in proc.stderr


def _theory(tmp_path: Path, size: str) -> TheoryConfig:
    path = tmp_path / f"theory_{size}.toml"
    path.write_text(
        "[[kernel]]\nmatch = 'calculate_velocity'\nop = 'gemm'\n"
        f"M = {size}\nN = {size}\nK = {size}\ndtype = 'fp32'\n",
        encoding="utf-8",
    )
    return TheoryConfig(file=load_theory_file(path))


def test_absurd_theory_is_ignored_with_a_warning(samples_dir: Path, tmp_path: Path) -> None:
    profile = load(str(samples_dir / NBODY))
    result = analyze(profile, gpu="a100_40gb_sxm", theory=_theory(tmp_path, "1e20"))
    row = result.launches[result.launches["kernel_short"] == "calculate_velocity"].iloc[0]
    # 2 * 1e60 FLOPs on a 19.5 TFLOP/s roof against a 383 us launch: ~1e50x.
    assert pd.isna(row["theory_efficiency"]) and pd.isna(row["theory_flops"])
    assert row["confidence"] == "low"
    kernel = result.kernels[result.kernels["kernel_short"] == "calculate_velocity"].iloc[0]
    assert pd.isna(kernel["theory_efficiency"])
    assert any(
        w.startswith("theory for 1 launch(es) of calculate_velocity sets a time floor up to")
        and "that theory is ignored" in w
        for w in profile.sources[0].warnings
    )
    # A plausible rule keeps its numbers: 2 * 64^3 FLOPs.
    sane = analyze(
        load(str(samples_dir / NBODY)), gpu="a100_40gb_sxm", theory=_theory(tmp_path, "64")
    )
    row = sane.launches[sane.launches["kernel_short"] == "calculate_velocity"].iloc[0]
    assert row["theory_flops"] == 2 * 64**3 and row["confidence"] == "user"
    assert 0 < row["theory_efficiency"] < 1


def test_flat_sums_are_not_nested() -> None:
    expr = compile_expr("+".join(["T"] * 999))
    assert expr.evaluate({"T": 3}) == 2997.0
    assert compile_expr(" * ".join(["2"] * 60) + " - 1").evaluate({}) == 2.0**60 - 1
    with pytest.raises(ExprError, match="nested too deeply"):
        compile_expr("-" * 300 + "1")
    with pytest.raises(ExprError, match="nested too deeply"):
        compile_expr("min(" * 120 + "1" + ")" * 120)


@pytest.mark.parametrize(
    ("key", "value", "limit"),
    [
        ("fp32_tflops", "1e308", "1e+07"),
        ("fp32_tflops", "2e7", "1e+07"),
        ("dram_gbps", "2e6", "1e+06"),
        ("boost_mhz", "1e9", "100000"),
    ],
)
def test_roof_values_beyond_any_gpu_are_refused(
    tmp_path: Path, key: str, value: str, limit: str
) -> None:
    path = tmp_path / "roofs.toml"
    roofs = {"fp32_tflops": "19.5", "dram_gbps": "1555", key: value}
    path.write_text(
        "[gpu.g]\nname = 'g'\n" + "".join(f"{k} = {v}\n" for k, v in roofs.items()),
        encoding="utf-8",
    )
    with pytest.raises(InputFormatError) as info:
        load_roofs_file(path)
    assert f"[gpu.g] {key}: " in str(info.value)
    assert f"is beyond any GPU (at most {limit})" in str(info.value)


def test_roof_values_at_the_bound_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_text("[gpu.g]\nname = 'g'\nfp32_tflops = 1e7\ndram_gbps = 1e6\n", encoding="utf-8")
    (spec,) = load_roofs_file(path)
    assert spec.compute["fp32"] == 1e19 and spec.memory["dram"] == 1e15


# --- 4. .ncu-rep values ----------------------------------------------------------------


def test_ncu_rep_negative_counter_is_missing_with_a_warning(samples_dir: Path) -> None:
    pytest.importorskip("ncu_report")
    # ncu itself stored -174 for this L2 sector count of launch 1 (centerOfMass).
    frame, info = read_source(str(samples_dir / "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"))
    metric = "lts__t_sectors_srcunit_tex_op_red_lookup_hit.sum"
    assert math.isnan(_value(frame, 1, metric))
    assert _value(frame, 0, metric) == 0.0 and _value(frame, 2, metric) == 94.0
    assert (
        f"{metric}: 1 negative value(s) left out as missing "
        "(first '-174.0', launch ID 1 (centerOfMass))" in info.warnings
    )


def test_ncu_rep_wrong_unit_and_infinite_values_are_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests import test_columns as stand

    class _Range(stand._Range):
        def action_by_idx(self, a: int) -> stand._Action:
            act = super().action_by_idx(a)
            act.metrics["dram__bytes.sum"] = stand._Metric(5.0, "msecond")
            act.metrics["lts__t_bytes.sum"] = stand._Metric(float("inf"), "byte")
            act.metrics["l1tex__t_bytes.sum"] = stand._Metric(1e300, "Gbyte")
            return act

    class _Context(stand._Context):
        def range_by_idx(self, _r: int) -> _Range:
            return _Range()

    module = stand._stand_in()
    module.load_report = lambda _path: _Context()
    monkeypatch.setitem(sys.modules, "ncu_report", module)
    raw = RawInput(name="stand-in.ncu-rep", buf=NCU_REP_MAGIC + b"\0" * 16, path="unused")
    columns, info = read_ncu_rep(raw)
    frame = columns.to_frame()
    for metric in ("lts__t_bytes.sum", "l1tex__t_bytes.sum"):
        assert math.isnan(frame[metric].iat[0]), metric
    assert "dram__bytes.sum" not in frame or math.isnan(frame["dram__bytes.sum"].iat[0])
    assert frame["duration_s"].iat[0] == pytest.approx(1.5e-6)
    joined = "\n".join(info.warnings)
    assert "dram__bytes.sum: unit 'msecond' is not a byte unit: 1 value(s) left out" in joined
    assert "lts__t_bytes.sum: 1 infinite value(s)" in joined
    assert "l1tex__t_bytes.sum: 1 infinite value(s)" in joined


# --- hardening round 3: what is dropped is named, with its line --------------------------


def test_summary_invocations_and_bytes_that_overflow_are_named(
    samples_dir: Path, tmp_path: Path
) -> None:
    # kernel_B's rows (lines 2-12) say "100" invocations; its DRAM read
    # sectors (line 2) average "402,339.36".
    text = (samples_dir / SUMMARY).read_text(encoding="utf-8")
    text = text.replace('"100","Command', '"1e400","Command', 1)
    text = text.replace('"402,316.00","402,364.00","402,339.36"', '"0","inf","inf"')
    path = tmp_path / "summary.csv"
    path.write_text(text, encoding="utf-8")
    frame, info = read_source(str(path), progress=False)
    assert math.isnan(frame["dram__sectors_read.sum"].iloc[0])
    assert (
        "dram__sectors_read.sum: 1 infinite value(s) left out as missing "
        "(first 'inf' on line 2, kernel kernel_B)" in info.warnings
    )
    assert any(
        w.startswith("Invocations: 1 row(s) with a count that is not 1 to 1,000,000,000")
        and "(first '1e400' on line 2, kernel kernel_B)" in w
        for w in info.warnings
    ), info.warnings


@pytest.mark.parametrize("column", ["Stream", "Context"])
@pytest.mark.parametrize("value", ["inf", "1e400"])
def test_identity_numbers_that_overflow_are_missing_with_a_warning(
    samples_dir: Path, tmp_path: Path, column: str, value: str
) -> None:
    # Launch 1 (calculate_velocity's second launch is 0; centerOfMass, lines
    # 32-46) printed on Stream 14, Context 1.
    lines = (samples_dir / NBODY).read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(csv.reader([lines[15]]))
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    for line in lines[31:46]:
        row = next(csv.reader([line]))
        row[header.index(column)] = value
        writer.writerow(row)
    path = tmp_path / "ident.csv"
    path.write_text("".join(lines[:31]) + out.getvalue() + "".join(lines[46:]), encoding="utf-8")
    frame, info = read_source(str(path), progress=False)
    assert frame["id"].tolist() == [0, 1, 2]
    canon = column.lower()
    assert pd.isna(frame[canon].iloc[1]) and not pd.isna(frame[canon].iloc[2])
    assert (
        f"{column}: 1 launch(es) whose value is not a whole number, read as missing "
        f"(first {value!r} on line 32, launch ID 1 (centerOfMass))" in info.warnings
    )


def _stand_in_launches(monkeypatch: pytest.MonkeyPatch, actions: list[dict[str, Any]]) -> Any:
    """Read a stand-in report whose launches carry the given extra metrics."""
    from tests import test_columns as stand

    class _Range(stand._Range):
        def num_actions(self) -> int:
            return len(actions)

        def action_by_idx(self, a: int) -> stand._Action:
            act = super().action_by_idx(a)
            for name, (value, unit) in actions[a].items():
                act.metrics[name] = stand._Metric(value, unit)
            return act

    class _Context(stand._Context):
        def range_by_idx(self, _r: int) -> _Range:
            return _Range()

    module = stand._stand_in()
    module.load_report = lambda _path: _Context()
    monkeypatch.setitem(sys.modules, "ncu_report", module)
    raw = RawInput(name="stand-in.ncu-rep", buf=NCU_REP_MAGIC + b"\0" * 16, path="unused")
    columns, info = read_ncu_rep(raw)
    return columns.to_frame(), info


def test_ncu_rep_values_take_the_csv_checks_and_leave_no_partial_sum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fadd = "sm__sass_thread_inst_executed_op_fadd_pred_on.sum"
    ffma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
    counts = {ffma: (6.0, "inst"), "dram__bytes.sum": (64.0, "furlong")}
    frame, info = _stand_in_launches(
        monkeypatch,
        [{**counts, fadd: (-5.0, "inst")}, {**counts, fadd: (10.0, "inst")}],
    )
    # Launch 0's fadd is negative: left out, and its FMA count with it (one
    # FLOP quantity), never 2 x 6 FLOPs alone; launch 1 keeps both.
    assert math.isnan(frame[fadd].iat[0]) and math.isnan(frame[ffma].iat[0])
    assert frame[fadd].iat[1] == 10.0 and frame[ffma].iat[1] == 6.0
    assert (
        f"{fadd}: 1 negative value(s) left out as missing (first '-5.0', launch ID 0 (axpy))"
        in info.warnings
    )
    assert any("lack some of the FLOP counts" in w for w in info.warnings), info.warnings
    # An unknown unit: one warning for both launches, not one per launch.
    unknown = [w for w in info.warnings if "unknown unit" in w]
    assert unknown == ["unknown unit(s) 'furlong': left out dram__bytes.sum rather than misread"]
    assert "dram__bytes.sum" not in frame or frame["dram__bytes.sum"].isna().all()


def test_warnings_name_the_line_past_blank_lines_and_stray_rows(
    samples_dir: Path, tmp_path: Path
) -> None:
    # Lakoc has no rule rows (the parse runs on Arrow's threads, which number
    # no skipped row): a stray program line and two blank lines before launch
    # 2's dram row, which moves from line 47 to 50.
    lines = (samples_dir / NBODY).read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[46].endswith('"dram__bytes.sum","byte","39,552"\n')
    lines[46] = lines[46].replace('"39,552"', '"-39,552"')
    text = "".join(lines[:40]) + "\n" + "step 3: loss 0.5\n" + "\r\n" + "".join(lines[40:])
    path = tmp_path / "blank.csv"
    path.write_text(text, encoding="utf-8")
    _, info = read_source(str(path), progress=False)
    assert any("first '-39,552' on line 50, launch ID 2" in w for w in info.warnings), info.warnings
    assert any(w.startswith("skipped 1 line(s)") and "(line 42)" in w for w in info.warnings)


def test_warnings_name_the_line_among_rule_rows(samples_dir: Path, tmp_path: Path) -> None:
    # leleucas has rule rows after each launch's metric rows (the parse numbers
    # them): launch 17's DRAM bytes (line 1,055, "41,088") made negative are
    # named on their line, past 17 launches' rule rows.
    name = (
        "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
        "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
    )
    lines = (samples_dir / name).read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[1054].startswith('"17",')
    assert lines[1054].endswith('"dram__bytes.sum","byte","41,088",\n')
    lines[1054] = lines[1054].replace('"41,088"', '"-41,088"')
    path = tmp_path / "rules.csv"
    path.write_text("".join(lines), encoding="utf-8")
    _, info = read_source(str(path), progress=False)
    assert (
        "dram__bytes.sum: 1 negative value(s) left out as missing (first '-41,088' on line "
        "1,055, launch ID 17 (vectorized_elementwise_kernel<BUnaryFunctor>))" in info.warnings
    ), info.warnings


def test_nesting_is_bounded_whatever_the_recursion_limit(tmp_path: Path) -> None:
    """Another library may raise the interpreter's recursion limit; the depth bound holds."""
    deep_toml = tmp_path / "roofs.toml"
    deep_toml.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n", encoding="utf-8")
    deep_json = tmp_path / "deep.json"
    deep_json.write_text("[" * 3000 + "]" * 3000, encoding="utf-8")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        with pytest.raises(InputFormatError, match="nested too deeply"):
            load_roofs_file(deep_toml)
        with pytest.raises(InputFormatError, match="nested too deeply"):
            load_model_config(deep_json)
    finally:
        sys.setrecursionlimit(limit)


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        ("x = " + "[" * 100 + "]" * 100, False),
        ("x = " + "[" * 101 + "]" * 101, True),
        # Brackets inside strings and comments are not nesting.
        ('x = "' + "[" * 500 + '"\n# ' + "{" * 500 + "\ny = '" + "[" * 500 + "'", False),
        ('x = """\n' + "[" * 500 + '\n"""\n', False),
        ('{"a": "' + "[" * 500 + '\\" [[["}', False),
        ("[a]\n" * 500, False),
    ],
)
def test_the_nesting_depth_counts_brackets_outside_strings(text: str, deep: bool) -> None:
    assert too_deep(text) is deep
