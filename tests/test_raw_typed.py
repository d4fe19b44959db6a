"""Raw pages read plain-number columns as float64: the same launches and warnings as text.

The typed read (``ncu_roofline/readers/typed.py``) is only a faster way to
the numbers the text path gives.  Each test reads an export both ways (the
text path by switching ``TYPED_RAW`` off) and compares the launch frames
exactly, the warnings, the metric units and the unit mode.  The inputs are
the real raw-page export from ``../shared/ncu-samples/`` and copies of it in
``tmp_path`` with values the first sampled rows do not show (the reader
samples the first 50 lines after the header; the export has 64 launches).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ncu_roofline.readers.csv_pages as csv_pages
from ncu_roofline.core.units import Unit, parse_numbers_checked
from ncu_roofline.readers import read_source
from ncu_roofline.readers import typed as typed_module
from ncu_roofline.readers.table import read_table
from ncu_roofline.readers.typed import typed_columns, typed_numbers
from tests import synthetic_exports as synthetic
from tests.helpers import SAMPLES

RAW = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
DURATION = "gpu__time_duration.sum"
#: A launch past the sampled rows.
LATE = 60


def _rows(path: Path) -> tuple[str, list[list[str]]]:
    """The lines before the table, and the table's rows (header, units row, launches)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID",'))
    return "".join(lines[:start]), list(csv.reader(lines[start:]))


def _write(dst: Path, prefix: str, rows: list[list[str]]) -> Path:
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    dst.write_text(prefix + out.getvalue(), encoding="utf-8")
    return dst


def _mutated(dst: Path, values: dict[tuple[int, str], str], unit: str | None = None) -> Path:
    """The real export with (launch, column) cells set, and ``DURATION``'s unit when given."""
    prefix, rows = _rows(SAMPLES / RAW)
    for (launch, column), value in values.items():
        rows[2 + launch][rows[0].index(column)] = value
    if unit is not None:
        rows[1][rows[0].index(DURATION)] = unit
    return _write(dst, prefix, rows)


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, set[str]]:
    """The input read typed and as text; also the columns the typed read kept typed."""
    typed_counts: list[set[str]] = []
    real = csv_pages.read_typed

    def spy(read: Any, floats: Any) -> Any:
        result = real(read, floats)
        typed_counts.append(set(result[2]))
        return result

    with monkeypatch.context() as m:
        m.setattr(csv_pages, "read_typed", spy)
        typed = read_source(str(path), progress=False)
        m.setattr(csv_pages, "TYPED_RAW", False)
        text = read_source(str(path), progress=False)
    return typed, text, typed_counts[0]


def _assert_same(typed: Any, text: Any) -> None:
    (f1, i1), (f2, i2) = typed, text
    pd.testing.assert_frame_equal(f1, f2, check_exact=True)
    assert i1.warnings == i2.warnings
    assert list(i1.metric_units.items()) == list(i2.metric_units.items())
    assert i1.units == i2.units


def test_real_raw_export_reads_the_same_typed(samples_dir: Path, monkeypatch: Any) -> None:
    typed, text, n_typed = _both(samples_dir / RAW, monkeypatch)
    _assert_same(typed, text)
    frame = typed[0]
    # Most of the export's metric columns are plain numbers: the typed read is taken.
    assert len(n_typed) >= 40
    # line 5, ID 0: gpu__time_duration.sum "628480" ns
    assert frame[DURATION].iat[0] == pytest.approx(628_480e-9)
    # line 5, ID 0: device__attribute_clock_rate "1965000" (units row "": kHz)
    assert frame["device__attribute_clock_rate"].iat[0] == pytest.approx(1.965e9)


@pytest.mark.parametrize("value", ["1,234", "n/a", "-3", "abc", "1.5e3"])
def test_a_synthetic_raw_page_reads_the_same_typed(
    tmp_path: Path, monkeypatch: Any, value: str
) -> None:
    """The same on a raw page the tests write (tests/synthetic_exports.py), 64 launches
    long, with a value past the sampled rows: it runs without the real exports."""
    src = tmp_path / "synthetic_raw.csv"
    src.write_bytes(synthetic.raw(synthetic.many_launches(64)))
    prefix, rows = _rows(src)
    assert len(rows) == 2 + 64
    rows[2 + LATE][rows[0].index(DURATION)] = value
    path = _write(tmp_path / "raw.csv", prefix, rows)
    typed, text, n_typed = _both(path, monkeypatch)
    _assert_same(typed, text)
    assert (DURATION in n_typed) == (value in ("n/a", "1.5e3"))
    got = typed[0][DURATION].iat[LATE]
    expected = LATE_VALUES[value]
    if expected is None:
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12)
    # LATE is a vector_add launch (60 % 3 == 0); the others keep the page's values.
    assert typed[0][DURATION].iat[LATE - 1] == pytest.approx(synthetic.LAUNCHES[2].duration_s)
    assert typed[0][DURATION].iat[0] == pytest.approx(synthetic.LAUNCHES[0].duration_s)


#: Late values and what the text path reads them as (ns -> s), None for missing.
LATE_VALUES = {
    "1,234": 1234e-9,
    "n/a": None,
    " 5": 5e-9,
    "-3": None,
    "1e400": None,
    "inf": None,
    "": None,
    "NAN": None,
    "3;4": 3e-9,
    " n/a ": None,
    "1.5e3": 1.5e-6,
    "abc": None,
}


@pytest.mark.parametrize("value", list(LATE_VALUES))
def test_a_late_value_gives_the_text_paths_launches_and_warnings(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any, value: str
) -> None:
    path = _mutated(tmp_path / "raw.csv", {(LATE, DURATION): value})
    typed, text, n_typed = _both(path, monkeypatch)
    _assert_same(typed, text)
    # A number Arrow reads (spaces around it trimmed, as the text path
    # does) or a missing token as ncu writes it keeps the column typed.
    assert (DURATION in n_typed) == (value in ("n/a", "", " 5", "1.5e3"))
    got = typed[0][DURATION].iat[LATE]
    expected = LATE_VALUES[value]
    if expected is None:
        assert math.isnan(got)
    else:
        assert got == pytest.approx(expected, rel=1e-12)
    # The launches around it keep the export's value (line 5: "628480" ns for ID 0).
    assert typed[0][DURATION].iat[0] == pytest.approx(628_480e-9)


def test_late_bad_values_warn_quoting_their_text(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    path = _mutated(
        tmp_path / "raw.csv",
        {(LATE, DURATION): "-174", (LATE + 1, DURATION): "1e400", (LATE + 2, DURATION): "7,7"},
    )
    typed, text, _ = _both(path, monkeypatch)
    _assert_same(typed, text)
    warnings = typed[1].warnings
    # Two ==PROF== lines, the header and the units row: launch 60 is line 65.
    assert any(
        w.startswith(f"{DURATION}: 1 negative value(s)")
        and "first '-174' on line 65, launch ID 60" in w
        for w in warnings
    )
    assert any(
        w.startswith(f"{DURATION}: 1 infinite value(s)") and "'1e400' on line 66" in w
        for w in warnings
    )
    assert any(
        w.startswith(f"{DURATION}: 1 malformed number(s)") and "'7,7'" in w for w in warnings
    )


def test_overflow_once_scaled_goes_back_to_text(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    # 1e306 is finite as printed; in kHz (times 1e3) it is not.
    path = _mutated(tmp_path / "raw.csv", {(LATE, "device__attribute_clock_rate"): "1e306"})
    typed, text, _ = _both(path, monkeypatch)
    _assert_same(typed, text)
    assert math.isnan(typed[0]["device__attribute_clock_rate"].iat[LATE])
    assert any("device__attribute_clock_rate: 1 infinite value(s)" in w for w in typed[1].warnings)


def test_a_unit_of_the_wrong_dimension_keeps_its_warning(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    path = _mutated(tmp_path / "raw.csv", {}, unit="byte")
    typed, text, _ = _both(path, monkeypatch)
    _assert_same(typed, text)
    assert typed[0][DURATION].isna().all()
    assert any(
        w.startswith(f"{DURATION}: unit 'byte' is not a time unit: 64 value(s)")
        for w in typed[1].warnings
    )


def test_rows_that_are_not_launches_are_left_out_alike(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    # A row whose ID is no integer is no launch: the launches are then not
    # rows 0..n-1, so the typed values are gathered at the launches' rows.
    prefix, rows = _rows(SAMPLES / RAW)
    noise = list(rows[2])
    noise[0] = "x"
    noise[rows[0].index(DURATION)] = "999"
    rows.insert(2 + 30, noise)
    typed, text, n_typed = _both(_write(tmp_path / "raw.csv", prefix, rows), monkeypatch)
    _assert_same(typed, text)
    assert len(n_typed) >= 40
    assert len(typed[0]) == 64
    assert not (typed[0][DURATION] == 999e-9).any()


def test_invalid_utf8_and_a_second_table_keep_their_handling(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    bad = tmp_path / "bad.csv"
    _mutated(bad, {(LATE, DURATION): "98765.4321"})
    assert bad.read_bytes().count(b'"98765.4321"') == 1
    bad.write_bytes(bad.read_bytes().replace(b'"98765.4321"', b'"98\xff765.4321"'))
    typed, text, _ = _both(bad, monkeypatch)
    _assert_same(typed, text)
    assert math.isnan(typed[0][DURATION].iat[LATE])

    prefix, rows = _rows(SAMPLES / RAW)
    twice = tmp_path / "twice.csv"
    _write(twice, prefix, rows + rows)
    typed, text, _ = _both(twice, monkeypatch)
    _assert_same(typed, text)
    assert len(typed[0]) == 128
    assert any("2 ncu tables" in w for w in typed[1].warnings)


def test_cut_off_last_row_reads_the_same(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    src = _mutated(tmp_path / "full.csv", {})
    data = src.read_bytes()
    cut = tmp_path / "cut.csv"
    # The last row cut inside its metric fields, after the identity fields.
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    cut.write_bytes(data[: last + (len(data) - last) // 2])
    typed, text, _ = _both(cut, monkeypatch)
    _assert_same(typed, text)
    assert any("the last row" in w for w in typed[1].warnings)


_TEXT = st.text(alphabet="0123456789.,+-eEinfaNA/ ;x", max_size=8)


@settings(
    deadline=None, max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=_TEXT)
def test_any_late_text_reads_the_same(
    samples_dir: Path, tmp_path: Path, monkeypatch: Any, value: str
) -> None:
    path = _mutated(
        tmp_path / "raw.csv", {(LATE, DURATION): value, (LATE, "launch__grid_size"): value}
    )
    typed, text, _ = _both(path, monkeypatch)
    _assert_same(typed, text)


_SPELLING = st.one_of(
    _TEXT,
    st.floats(allow_nan=False).map(repr),
    st.floats(min_value=0, allow_nan=False, allow_infinity=False).map(lambda x: f"{x:.17g}"),
    st.integers(min_value=0, max_value=10**30).map(str),
)


@settings(deadline=None, max_examples=400)
@given(value=_SPELLING)
def test_every_value_arrow_types_is_the_text_paths(value: str) -> None:
    # What Arrow's float parser accepts as a finite, non-negative number
    # (after a NaN or sign check nothing else is kept typed) must be the
    # value the text path reads, with no warning.
    data = f'"ID","v"\n"",""\n"0","{value}"\n'.encode()
    table, _ = read_table(
        data, None, 0, len(data), ["ID", "v"], ["ID", "v"], set(), 2, None, None, floats=["v"]
    )
    numbers, again = typed_numbers(table, {"v": Unit(1.0, "")})
    parsed, malformed = parse_numbers_checked(pa.array([value]))
    if "v" in numbers:
        assert not malformed[0]
        got, want = numbers["v"][0], parsed[0]
        assert (math.isnan(got) and math.isnan(want)) or got == want
    elif not again:
        # Refused by Arrow: the table came back as text.
        assert pa.types.is_string(table.column("v").type)


def test_only_plain_columns_in_the_right_unit_are_typed() -> None:
    header = [
        "ID",
        DURATION,
        "dram__bytes.sum",
        "launch__grid_size",
        "device__attribute_display_name",
    ]
    units = {DURATION: "ns", "dram__bytes.sum": "msecond", "launch__grid_size": ""}
    samples = [["0", "12.5", "3", "n/a", "B200"], ["1", "-", "4", "7", "B200"]]
    cols = header[1:]
    got = typed_columns(samples, header, cols, units, ".")
    # A byte count in msecond keeps the text path (and its warning); the display name is text.
    assert set(got) == {DURATION, "launch__grid_size"}
    assert got[DURATION].factor == pytest.approx(1e-9)
    assert typed_columns(samples, header, cols, units, ",") == {}
    for seen in (" 12", "1,234", "-3", "n/a ", "3;4", "١٢"):
        mixed = [*samples, ["2", seen, "4", "7", "B200"]]
        assert DURATION not in typed_columns(mixed, header, cols, units, ".")


def test_typed_numbers_sends_back_what_needs_its_text() -> None:
    table = pa.table(
        {
            "ok": pa.array([1.0, None, 2.5]),
            "neg": pa.array([1.0, -2.0, None]),
            "nan": pa.array([float("nan"), 1.0, None]),
            "big": pa.array([1e300, 1.0, 2.0]),
            "text": pa.array(["1", "2", "3"]),
        }
    )
    unit = {"ok": Unit(1e-9, "s"), "neg": Unit(1.0, ""), "nan": Unit(1.0, "")}
    unit |= {"big": Unit(1e9, "Hz"), "text": Unit(1.0, "")}
    numbers, again = typed_numbers(table, unit)
    assert again == {"neg", "nan", "big"}
    assert set(numbers) == {"ok"}
    np.testing.assert_array_equal(numbers["ok"], [1e-9, np.nan, 2.5e-9])


_VALUE = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e308, 5e-324]),
    st.none(),
)


@given(st.lists(_VALUE, max_size=40), st.sampled_from([1.0, 1e-9, 1e3, 1e9, 1e300]))
def test_typed_numbers_decide_as_one_check_per_case(
    values: list[float | None], factor: float
) -> None:
    """The two-reduction check sends back exactly the columns the per-case checks would."""
    table = pa.table({"c": pa.array(values, pa.float64())})
    numbers, again = typed_numbers(table, {"c": Unit(factor, "")})
    present = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    nulls = sum(v is None for v in values)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = present * factor
        expected_again = (
            int(np.count_nonzero(np.isnan(present))) > nulls
            or bool((present < 0).any())
            or bool(np.isinf(scaled).any())
        )
    assert again == ({"c"} if expected_again else set())
    if not expected_again:
        np.testing.assert_array_equal(numbers["c"], scaled)


def test_typed_columns_are_let_go_of_as_they_are_taken() -> None:
    """The typed columns leave the table one by one and their numbers come from Arrow's
    pool, so the pool holds each column once, not twice (the table's copy and the
    numbers) at the end of the take: 40 columns of 20,000 launches (6.4 MB) in four
    chunks each, as a parse in batches gives them."""
    n, width = 20_000, 40
    names = [f"m{i}" for i in range(width)]
    grid = np.arange(n * width, dtype=np.float64).reshape(width, n) % 997 + 0.5
    pool = pa.default_memory_pool()
    table = pa.table(
        {
            "ID": pa.array(np.arange(n), type=pa.int64()),
            **{
                name: pa.chunked_array(
                    [pa.array(part.tolist(), type=pa.float64()) for part in np.array_split(row, 4)]
                )
                for name, row in zip(names, grid, strict=True)
            },
        }
    )
    floats = {name: Unit(1e-3, "") for name in names}
    held = pool.bytes_allocated()
    columns = n * width * 8
    assert held >= columns  # the table's own float64 columns

    def read(floats: Any) -> tuple[pa.Table, None]:
        nonlocal table
        out, table = table, None  # the reader keeps no reference, as read_table's caller
        return out, None

    # What the pool holds after each column's numbers are made.
    after_each: list[int] = []
    real = typed_module.arrow_numbers

    def counted(*args: Any, **kwargs: Any) -> Any:
        out = real(*args, **kwargs)
        after_each.append(pool.bytes_allocated())
        return out

    with pytest.MonkeyPatch.context() as m:
        m.setattr(typed_module, "arrow_numbers", counted)
        rest, _, numbers = typed_module.read_typed(read, floats)
    assert rest.column_names == ["ID"] and sorted(numbers) == sorted(names)
    np.testing.assert_array_equal(numbers["m3"], grid[3] * 1e-3)
    # Taken column by column: the pool never holds much more than one copy of the
    # columns (the table's, or the numbers), not the numbers beside the table's.
    assert len(after_each) == width
    assert max(after_each) < held + columns // 4
    assert all(isinstance(v.base, pa.Buffer) for v in numbers.values())
