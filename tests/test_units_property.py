"""Property tests: every number and unit format ncu prints round-trips to SI.

Numbers: integers bare (``"508757"``), two-decimal floats (``"21.68"``), en
thousands separators with and without ``.00`` (``"1,759,000.00"``,
``"53,261,312"``), and the decimal-comma locale with ``.`` grouping
(``"27.595.520"``, ``"9,00"``), through the reader's parser
(:func:`parse_numbers_checked`), one value at a time and whole columns.

Units: a value printed in a scaled unit, times the unit's factor, is the
value in the base unit.  The factors are powers of 1000 for every unit,
bytes included (ncu CLI guide, "Metrics and Units"), never 1024.
"""

from __future__ import annotations

import math
import os
import tempfile
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.units import detect_decimal, parse_numbers_checked, parse_unit
from ncu_roofline.readers import read_source
from tests.helpers import parse_one

MAX_EXACT = 2**53  # integers above this are not all representable as float64

# --- printing numbers the ways ncu does -----------------------------------


def _split_cents(cents: int) -> tuple[str, int, int]:
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return sign, whole, frac


def en_plain(cents: int) -> str:
    sign, whole, frac = _split_cents(cents)
    return f"{sign}{whole}.{frac:02d}"


def en_grouped(cents: int) -> str:
    sign, whole, frac = _split_cents(cents)
    return f"{sign}{whole:,}.{frac:02d}"


def de_grouped(cents: int) -> str:
    sign, whole, frac = _split_cents(cents)
    return f"{sign}{whole:,}".replace(",", ".") + f",{frac:02d}"


def de_plain(cents: int) -> str:
    sign, whole, frac = _split_cents(cents)
    return f"{sign}{whole},{frac:02d}"


integers = st.integers(min_value=-(10**15), max_value=10**15)
counts = st.integers(min_value=0, max_value=10**15)
cents_values = st.integers(min_value=-(10**15), max_value=10**15)


def vector(texts: list[str], decimal: str = ".") -> list[float]:
    return parse_numbers_checked(pa.array(texts, type=pa.string()), decimal)[0].tolist()


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@settings(deadline=None)
@given(integers)
def test_bare_integers(n: int) -> None:
    text = str(n)
    assert parse_one(text) == float(n)
    assert vector([text]) == [float(n)]


@settings(deadline=None)
@given(cents_values)
def test_two_decimal_floats(cents: int) -> None:
    text = en_plain(cents)
    expected = cents / 100  # correctly rounded, like float() of the decimal text
    assert parse_one(text) == expected
    assert vector([text]) == [expected]


@settings(deadline=None)
@given(counts)
def test_thousands_separators_without_decimals(n: int) -> None:
    text = f"{n:,}"  # "53,261,312"
    assert parse_one(text) == float(n)
    assert vector([text]) == [float(n)]


@settings(deadline=None)
@given(counts)
def test_thousands_separators_with_zero_decimals(n: int) -> None:
    text = f"{n:,}.00"  # "1,759,000.00"
    assert parse_one(text) == float(n)
    assert vector([text]) == [float(n)]


@settings(deadline=None)
@given(cents_values)
def test_thousands_separators_with_decimals(cents: int) -> None:
    text = en_grouped(cents)  # "461,377,758.31"
    assert parse_one(text) == cents / 100
    assert vector([text]) == [cents / 100]


@settings(deadline=None)
@given(cents_values)
def test_decimal_comma_locale(cents: int) -> None:
    for text in (de_grouped(cents), de_plain(cents)):  # "1.695.012.345,50", "9,00"
        assert parse_one(text, decimal=",") == cents / 100, text
        assert vector([text], decimal=",") == [cents / 100], text


@settings(deadline=None)
@given(counts)
def test_decimal_comma_locale_integers(n: int) -> None:
    text = f"{n:,}".replace(",", ".")  # "27.595.520", "117.344"
    assert parse_one(text, decimal=",") == float(n)
    assert vector([text], decimal=",") == [float(n)]


@settings(deadline=None)
@given(st.lists(cents_values, min_size=1, max_size=30), st.sampled_from([".", ","]))
def test_vectorised_agrees_with_scalar(cents: list[int], decimal: str) -> None:
    fmt = en_grouped if decimal == "." else de_grouped
    texts = [fmt(c) for c in cents] + ["n/a", "", "  ", "N/A"]
    got = vector(texts, decimal)
    want = [parse_one(t, decimal) for t in texts]
    want_f = [math.nan if w is None else w for w in want]
    assert all(same(g, w) for g, w in zip(got, want_f, strict=True)), (texts, got, want_f)
    assert got[: len(cents)] == [c / 100 for c in cents]
    assert all(math.isnan(g) for g in got[len(cents) :])


@settings(deadline=None)
@given(cents_values, st.lists(cents_values, max_size=4))
def test_instance_values_take_the_aggregate(first: int, rest: list[int]) -> None:
    text = "; ".join(en_grouped(c) for c in [first, *rest])  # "32.00; 32.00; 4.00"
    assert parse_one(text) == first / 100
    assert vector([text]) == [first / 100]


@pytest.mark.parametrize("token", ["n/a", "N/A", "", "   ", " n/a "])
def test_missing_is_none_never_zero(token: str) -> None:
    assert parse_one(token) is None
    assert parse_one(token, decimal=",") is None
    out = parse_numbers_checked(pa.array([token, "0"], type=pa.string()))[0]
    assert math.isnan(out[0])
    assert out[1] == 0.0


def test_parse_number_na_is_none() -> None:
    assert parse_one("n/a") is None
    assert parse_one("n/a") != 0
    assert parse_one(None) is None


@settings(deadline=None)
@given(st.lists(cents_values.filter(lambda c: abs(c) >= 100_000), min_size=1, max_size=10))
def test_detect_decimal_en_locale(cents: list[int]) -> None:
    # Values with a group separator and decimals are unambiguous: "1,234.56".
    assert detect_decimal([en_grouped(c) for c in cents]) == "."


@settings(deadline=None)
@given(st.lists(cents_values, min_size=1, max_size=10))
def test_detect_decimal_comma_locale(cents: list[int]) -> None:
    # Two decimals after a comma are unambiguous: "9,00", "27.595,52".
    assert detect_decimal([de_grouped(c) for c in cents]) == ","


# --- units ------------------------------------------------------------------

# (unit as ncu prints it, exact factor to the SI base, SI unit)
BYTES = [("byte", 1, "byte"), ("Kbyte", 10**3, "byte"), ("Mbyte", 10**6, "byte"),
         ("Gbyte", 10**9, "byte"), ("Tbyte", 10**12, "byte")]  # fmt: skip
TIME = [
    ("nsecond", Fraction(1, 10**9), "s"),
    ("usecond", Fraction(1, 10**6), "s"),
    ("msecond", Fraction(1, 10**3), "s"),
    ("second", 1, "s"),
    ("ns", Fraction(1, 10**9), "s"),
    ("us", Fraction(1, 10**6), "s"),
    ("ms", Fraction(1, 10**3), "s"),
    ("s", 1, "s"),
]
FREQ = [
    ("cycle/nsecond", 10**9, "Hz"),
    ("cycle/usecond", 10**6, "Hz"),
    ("cycle/second", 1, "Hz"),
    ("hz", 1, "Hz"),
    ("Khz", 10**3, "Hz"),
    ("Mhz", 10**6, "Hz"),
    ("Ghz", 10**9, "Hz"),
]
BANDWIDTH = [
    ("byte/second", 1, "byte/s"),
    ("Gbyte/second", 10**9, "byte/s"),
    ("Gbyte/s", 10**9, "byte/s"),
]
OTHER = [
    ("inst", 1, "inst"),
    ("Kinst", 10**3, "inst"),
    ("sector", 1, "sector"),
    ("%", 1, "%"),
    ("", 1, ""),
]
ALL_UNITS = BYTES + TIME + FREQ + BANDWIDTH + OTHER

# Old and new spellings of the same unit.
SYNONYMS = [
    ("nsecond", "ns"),
    ("usecond", "us"),
    ("msecond", "ms"),
    ("second", "s"),
    ("cycle/second", "hz"),
    ("cycle/usecond", "Mhz"),
    ("cycle/nsecond", "Ghz"),
    ("Gbyte/second", "Gbyte/s"),
]


@pytest.mark.parametrize(
    ("unit", "factor", "si"), ALL_UNITS, ids=[u or "empty" for u, _, _ in ALL_UNITS]
)
def test_every_printed_unit_is_known(unit: str, factor: Fraction | int, si: str) -> None:
    parsed = parse_unit(unit)
    assert parsed is not None, unit
    assert parsed.si == si
    assert parsed.factor == pytest.approx(float(factor), rel=1e-15)


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(ALL_UNITS), cents_values)
def test_scaled_value_times_factor_is_the_base_value(
    unit_info: tuple[str, Fraction | int, str], cents: int
) -> None:
    unit, factor, _ = unit_info
    printed = en_grouped(cents)
    parsed = parse_unit(unit)
    value = parse_one(printed)
    assert parsed is not None and value is not None
    exact = Fraction(cents, 100) * factor
    assert value * parsed.factor == pytest.approx(float(exact), rel=1e-14, abs=0.0)


@settings(deadline=None, max_examples=300)
@given(st.sampled_from(BYTES[1:]), st.integers(min_value=1, max_value=10**15))
def test_bytes_scale_by_1000_never_1024(unit_info: tuple[str, int, str], nbytes: int) -> None:
    unit, factor, _ = unit_info
    # ncu prints the base value in the scaled unit with two decimals ...
    scaled = Decimal(nbytes) / Decimal(factor)
    printed = f"{scaled:,.2f}"
    # ... so reading it back is within half a hundredth of the unit.
    parsed = parse_unit(unit)
    value = parse_one(printed)
    assert parsed is not None and value is not None
    assert parsed.factor == factor
    assert abs(value * parsed.factor - nbytes) <= 0.005 * factor * (1 + 1e-12) + nbytes * 1e-15


@pytest.mark.parametrize(
    ("printed", "unit", "expected"),
    [
        ("16.38", "Kbyte", 16380.0),  # a 16,384-byte config
        ("32.77", "Kbyte", 32770.0),
        ("65.54", "Kbyte", 65540.0),
        ("102.40", "Kbyte", 102400.0),
        ("17.50", "Mbyte", 17.5e6),
        ("1.02", "Tbyte", 1.02e12),
    ],
)
def test_kbyte_is_1000_bytes(printed: str, unit: str, expected: float) -> None:
    parsed = parse_unit(unit)
    value = parse_one(printed)
    assert parsed is not None and value is not None
    assert value * parsed.factor == pytest.approx(expected, rel=1e-15)


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(SYNONYMS), cents_values)
def test_old_and_new_spellings_agree(pair: tuple[str, str], cents: int) -> None:
    old, new = (parse_unit(u) for u in pair)
    assert old is not None and new is not None
    assert old.si == new.si
    value = cents / 100
    assert value * old.factor == pytest.approx(value * new.factor, rel=1e-15)


def test_cycle_per_nsecond_is_exactly_one_ghz() -> None:
    old, new = parse_unit("cycle/nsecond"), parse_unit("Ghz")
    assert old is not None and new is not None
    assert old.factor == new.factor == 1e9
    assert 1.41 * old.factor == 1.41e9


@pytest.mark.parametrize("unit", ["Kibyte", "fsecond", "furlong", "msector", "byte/second/s"])
def test_unknown_units_are_refused(unit: str) -> None:
    assert parse_unit(unit) is None


# --- through the reader ------------------------------------------------------

_HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
    '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
    '"Metric Value"\n'
)
_METRIC_FOR_SI = {
    "byte": "dram__bytes.sum",
    "s": "gpu__time_duration.sum",
    "Hz": "sm__cycles_elapsed.avg.per_second",
    "byte/s": "dram__bytes.sum.per_second",
    "inst": "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sector": "lts__t_sectors.sum",
    "%": "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "": "launch__waves_per_multiprocessor",
}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(ALL_UNITS), st.integers(min_value=0, max_value=10**14)),
        min_size=1,
        max_size=6,
    ),
    st.booleans(),
)
def test_reader_converts_every_unit_to_si(
    launches: list[tuple[tuple[str, Fraction | int, str], int]], grouped: bool
) -> None:
    """One launch per (unit, value): the reader's SI value is value x factor."""
    lines = [_HEADER]
    for i, ((unit, _, si), cents) in enumerate(launches):
        printed = en_grouped(cents) if grouped else en_plain(cents)
        metric = _METRIC_FOR_SI[si]
        lines.append(
            f'"{i}","42","app","127.0.0.1","k(int, float *)","1","7","(128, 1, 1)",'
            f'"(64, 1, 1)","0","9.0","Command line profiler metrics","{metric}","{unit}",'
            f'"{printed}"\n'
        )
    fd, path = tempfile.mkstemp(suffix=".csv")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(lines)
        df, info = read_source(path)
    finally:
        os.unlink(path)
    assert info.launches == len(launches)
    for i, ((unit, factor, si), cents) in enumerate(launches):
        metric = _METRIC_FOR_SI[si]
        got = df.loc[df["id"] == i, metric].to_numpy(dtype=np.float64)
        assert got.shape == (1,)
        want = float(Fraction(cents, 100) * factor)
        assert got[0] == pytest.approx(want, rel=1e-14, abs=0.0), (unit, cents)
