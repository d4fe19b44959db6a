"""Numbers converted inside Arrow read as the pandas path always read them.

The reader casts the value texts with ``pyarrow.compute`` (the whole column
when it casts, else its plain decimals) and sends only the rest through
pandas' ``to_numeric``.  These
properties compare that against the pandas-only conversion on random value
texts: thousands separators, exponents, missing tokens, signs, inf and nan
spellings, decimal commas, whitespace and junk.  The same values are missing,
malformed, negative or infinite; a finite number is the same up to pandas'
last-bit error: Arrow's cast rounds correctly (it equals Python's
``float()``), pandas' ``to_numeric`` is at times one unit in the last place
off (``"10e24"`` reads 9.999999999999999e24).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core import units
from ncu_roofline.core.units import (
    cleaned_to_float,
    cleaned_to_float_pandas,
    parse_numbers_checked,
)

_DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=22)
_SIGN = st.sampled_from(["", "", "+", "-"])
_EXP = st.one_of(
    st.just(""),
    st.builds(lambda e, s, d: e + s + d, st.sampled_from(["e", "E"]), _SIGN, _DIGITS),
)


def _grouped(sep: str) -> st.SearchStrategy[str]:
    """Digits grouped in thousands by ``sep`` (``"12,345,678"``), sometimes badly."""
    group = st.text(alphabet="0123456789", min_size=3, max_size=3)
    bad = st.text(alphabet="0123456789", min_size=1, max_size=4)
    return st.builds(
        lambda head, rest: head + "".join(sep + g for g in rest),
        st.text(alphabet="0123456789", min_size=1, max_size=3),
        st.lists(st.one_of(group, group, bad), min_size=1, max_size=4),
    )


def _number(point: str, sep: str) -> st.SearchStrategy[str]:
    whole = st.one_of(_DIGITS, _grouped(sep), st.just(""))
    frac = st.one_of(st.just(""), st.builds(lambda d: point + d, _DIGITS), st.just(point))
    return st.builds(lambda s, w, f, e: s + w + f + e, _SIGN, whole, frac, _EXP)


_ODD = (
        "inf", "Inf", "INF", "-inf", "+inf", "infinity", "Infinity", "-Infinity",
        "nan", "NaN", "NAN", "-nan", "n/a", "N/A", "no data", "-", "--", "", " ",
        "1e", "e5", ".", "+", "1.2.3", "0x1A", "1_000", "12abc", "1 000", "1d5",
        "１２", "٣", "1e5.5", "--5", "+-5", "5;note", " 42 ", "\t7\t", "1,5", "1.000,5",
        "nan(1)", "INFINITY", "+nan", "1.", ".5", "-0", "-0.0", "1e400", "1e-400",
)  # fmt: skip
_SPELLINGS = st.sampled_from(_ODD)


def _values(point: str, sep: str) -> st.SearchStrategy[list[str | None]]:
    one = st.one_of(_number(point, sep), _number(point, sep), _SPELLINGS, st.none())
    return st.lists(one, min_size=0, max_size=40)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Same NaNs and infinities; finite values within pandas' last-bit error."""
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    np.testing.assert_array_max_ulp(got[finite], want[finite], maxulp=2)


def _pandas_only(values: pa.Array, decimal: str) -> tuple[np.ndarray, np.ndarray]:
    """The conversion as it ran before Arrow's cast: every value through pandas."""
    mp = pytest.MonkeyPatch()
    mp.setattr(units, "cleaned_to_float", lambda arr, missing=None: cleaned_to_float_pandas(arr))
    try:
        return parse_numbers_checked(values, decimal)
    finally:
        mp.undo()


@settings(max_examples=300, deadline=None)
@given(_values(".", ","))
def test_decimal_point_file_reads_as_before(values: list[str | None]) -> None:
    arr = pa.array(values, type=pa.string())
    got, got_bad = parse_numbers_checked(arr, ".")
    want, want_bad = _pandas_only(arr, ".")
    _same(got, want)
    np.testing.assert_array_equal(got_bad, want_bad)


@settings(max_examples=300, deadline=None)
@given(_values(",", "."))
def test_decimal_comma_file_reads_as_before(values: list[str | None]) -> None:
    arr = pa.array(values, type=pa.string())
    got, got_bad = parse_numbers_checked(arr, ",")
    want, want_bad = _pandas_only(arr, ",")
    _same(got, want)
    np.testing.assert_array_equal(got_bad, want_bad)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_number(".", ","), _SPELLINGS, st.none()), max_size=60))
def test_cleaned_texts_cast_as_pandas_reads_them(values: list[str | None]) -> None:
    # In chunks, as the parsed table hands them over.
    half = len(values) // 2
    arr = pa.chunked_array([values[:half], values[half:]], type=pa.string())
    _same(cleaned_to_float(arr), cleaned_to_float_pandas(arr))


@settings(max_examples=200, deadline=None)
@given(st.lists(_number(".", "").filter(lambda t: any(c.isdigit() for c in t)), max_size=40))
def test_plain_numbers_are_rounded_correctly(texts: list[str]) -> None:
    # Python's float() rounds correctly; the cast must give exactly its value.
    plain = [t for t in texts if t.lstrip("+-")[:1] not in ("e", "E")]
    want = []
    for t in plain:
        try:
            want.append(float(t))
        except ValueError:
            want.append(np.nan)
    np.testing.assert_array_equal(cleaned_to_float(pa.array(plain, pa.string())), want)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False), min_size=1, max_size=30))
def test_repr_of_a_float_reads_back_exactly(floats: list[float]) -> None:
    # Every float's shortest repr is a plain decimal (or inf): the cast path.
    texts = [repr(f) for f in floats]
    got = cleaned_to_float(pa.array(texts))
    np.testing.assert_array_equal(got, np.array(floats))
    assert np.array_equal(np.signbit(got), np.signbit(np.array(floats)))


@pytest.mark.parametrize("decimal", [".", ","])
def test_every_odd_spelling_reads_as_before(decimal: str) -> None:
    # Each alone (the whole-column cast either takes it or refuses it) and
    # all together (the cast refuses, the per-value split decides).
    texts = list(_ODD)
    for group in [[t] for t in texts] + [texts]:
        arr = pa.array(group, pa.string())
        got, got_bad = parse_numbers_checked(arr, decimal)
        want, want_bad = _pandas_only(arr, decimal)
        _same(got, want)
        np.testing.assert_array_equal(got_bad, want_bad)


def test_worked_values() -> None:
    texts = ["1,234.5", "n/a", "2.5e3", "-0.5", "inf", "1,2,3", "", "7", "junk", "1,000,000"]
    got, bad = parse_numbers_checked(pa.array(texts), ".")
    want = [1234.5, np.nan, 2500.0, -0.5, np.inf, np.nan, np.nan, 7.0, np.nan, 1e6]
    np.testing.assert_array_equal(got, np.array(want))
    assert bad.tolist() == [False, False, False, False, False, True, False, False, True, False]


@pytest.mark.parametrize("per_pass", [1, 7, 1 << 20])
def test_raw_columns_in_groups_read_as_one_by_one(per_pass: int) -> None:
    # One pass over a group of wide-table columns gives each column's values
    # and warnings exactly as converting the columns one at a time.
    from ncu_roofline.core.units import parse_unit
    from ncu_roofline.readers import values as v

    cols = [
        (["1,024", "2048", "-5", "n/a", "1,2,3"], "dram__bytes.sum", "byte"),
        (["1.5", "", "inf", "x", "3"], "gpu__time_duration.sum", "nsecond"),
        (["7", "8", "9", "10", "11"], "dram__bytes.sum.per_second", "msecond"),
        (["-1", "-2", "0", "4e3", "5E-1"], "sm__cycles_elapsed.avg", "cycle"),
    ]
    columns = []
    for texts, mid, unit_text in cols:
        unit = parse_unit(unit_text)
        assert unit is not None
        half = len(texts) // 2
        columns.append((pa.chunked_array([texts[:half], texts[half:]]), mid, unit_text, unit))
    one_by_one = v.ValueProblems()
    want = [v.convert_column(c, ".", m, t, u, one_by_one) for c, m, t, u in columns]
    grouped = v.ValueProblems()
    mp = pytest.MonkeyPatch()
    mp.setattr(v, "_PASS_VALUES", per_pass * 5)
    try:
        got = v.convert_columns(columns, ".", grouped)
    finally:
        mp.undo()
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
    assert list(grouped.found.items()) == list(one_by_one.found.items())
    # The worked values: thousands grouped, malformed and negative left out,
    # a time unit on a rate drops the whole column.
    np.testing.assert_array_equal(got[0], [1024.0, 2048.0, np.nan, np.nan, np.nan])
    assert np.isnan(got[2]).all()
    assert ("dram__bytes.sum", "malformed") in grouped.found


@settings(max_examples=200, deadline=None)
@given(_values(".", ","), st.integers(1, 4), st.integers(1, 5), st.sampled_from([0, 1 << 30]))
def test_slices_side_by_side_read_as_one_pass(
    values: list[str | None], threads: int, chunks: int, one_chunk: int
) -> None:
    # A large column is parsed in slices on several threads; small slices and
    # several threads here make every draw take that path, chunk ends and
    # slice ends falling anywhere.
    from ncu_roofline.readers import values as v

    step = max(1, len(values) // chunks)
    parts = [values[i : i + step] for i in range(0, len(values), step)] or [[]]
    arr = pa.chunked_array(parts, type=pa.string())
    want, want_bad = parse_numbers_checked(arr, ".")
    mp = pytest.MonkeyPatch()
    mp.setattr(v, "_SLICE_VALUES", 1)
    # Slices made one array, or (past the size one array may hold) left in chunks.
    mp.setattr(v, "_ONE_CHUNK", one_chunk)
    mp.setenv("NCU_ROOFLINE_PARSE_THREADS", str(threads))
    try:
        got, got_bad = v.parsed_numbers(arr, ".")
    finally:
        mp.undo()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_bad, want_bad)
