"""Per-distinct and row-group helpers agree with pandas' own, row for row.

``row_groups`` replaces ``fillna(blank).groupby(sort=False).ngroup()`` on
the launch table's group keys and ``per_distinct`` a map over filled
names; both hash each column once instead of converting every row to a
Python object.  Hypothesis draws columns mixing texts, blanks, missing
values and numbers, with few distinct values as real kernel names have.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.grouping import (
    concat_texts,
    distinct_codes,
    distinct_objects,
    distinct_rows,
    per_distinct,
    row_groups,
    shared_texts,
    text_codes,
    text_mask,
)

_TEXTS = st.sampled_from(["", "gemm", "gemm ", "ΔΣ", "(1, 1, 1)", None])
_NUMBERS = st.sampled_from([0, 1, 7, None])


def _series(values: list[Any], kind: str) -> pd.Series:
    dtype = {"arrow": "string[pyarrow]", "category": "category"}.get(kind, object)
    series: pd.Series = pd.Series(values, dtype=dtype)
    return series


@st.composite
def _frames(draw: st.DrawFn) -> tuple[list[pd.Series], pd.DataFrame]:
    n = draw(st.integers(0, 40))
    columns: list[pd.Series] = []
    for _ in range(draw(st.integers(1, 4))):
        if draw(st.booleans()):
            texts = draw(st.lists(_TEXTS, min_size=n, max_size=n))
            columns.append(_series(texts, draw(st.sampled_from(["arrow", "object", "category"]))))
        else:
            numbers = draw(st.lists(_NUMBERS, min_size=n, max_size=n))
            columns.append(pd.Series(numbers, dtype="Int64"))
    frame = pd.DataFrame({f"c{i}": c for i, c in enumerate(columns)})
    return columns, frame


@settings(max_examples=300, deadline=None)
@given(_frames())
def test_row_groups_number_rows_as_groupby_does(
    drawn: tuple[list[pd.Series], pd.DataFrame],
) -> None:
    columns, frame = drawn
    filled = frame.astype(object).fillna("")
    expected = filled.groupby(list(filled.columns), sort=False).ngroup().to_numpy()
    got = row_groups(columns, "")
    assert got.tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(_frames(), st.lists(st.sampled_from([0.5, 12.5, -0.0, float("nan"), None]), max_size=40))
def test_distinct_rows_are_the_rows_as_plain_values_shared_when_equal(
    drawn: tuple[list[pd.Series], pd.DataFrame], speedups: list[Any]
) -> None:
    columns, _ = drawn
    n = len(columns[0])
    floats = pd.Series((speedups * (n + 1))[:n] if speedups else [None] * n, dtype=np.float64)
    columns = [*columns, floats]
    groups, rows = distinct_rows(columns)

    def plain(value: Any) -> Any:
        if value is None or value is pd.NA or (isinstance(value, float) and value != value):
            return None
        return value.item() if isinstance(value, np.generic) else value

    # Each row as a tuple of plain values (missing ones None), as records made row by row.
    expected = [tuple(plain(c.iloc[i]) for c in columns) for i in range(n)]
    got = [tuple(rows[g]) for g in groups.tolist()]
    assert got == expected
    assert [type(v) for row in got for v in row] == [type(v) for row in expected for v in row]
    # Numbered in order of first appearance; equal rows one group, different rows apart.
    first_seen = list(dict.fromkeys(expected))
    assert [first_seen.index(e) for e in expected] == groups.tolist()
    assert len(rows) == len(first_seen)


def test_row_groups_on_a_hand_made_table() -> None:
    kernel = pd.Series(["a", "b", None, "a", "", "b"], dtype="string[pyarrow]")
    grid = pd.Series([1, 1, 1, 1, 1, 2], dtype="Int64")
    # "a"/1 first, "b"/1, then the missing and the empty name together, "b"/2 last.
    assert row_groups([kernel, grid], "").tolist() == [0, 1, 2, 0, 2, 3]


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXTS, max_size=40), st.sampled_from(["arrow", "object", "category"]))
def test_per_distinct_is_the_map_over_filled_values(values: list[Any], kind: str) -> None:
    calls: list[Any] = []

    def size(value: object) -> int:
        calls.append(value)
        return len(str(value))

    series = _series(values, kind)
    got = per_distinct(series, size, size(""), np.int64)
    expected = [len(v) if v is not None else 0 for v in values]
    assert got.tolist() == expected
    # Once per distinct value present (plus the one call for the missing value).
    assert len(calls) == len({v for v in values if v is not None}) + 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([0.0, -0.0, 1.5, -1.5, math.nan, math.inf]), max_size=30))
def test_float_codes_are_pandas_factorize_with_the_first_value_kept(values: list[float]) -> None:
    """-0.0 and 0.0 are one value (Arrow hashes bits, pandas compares values); the
    distinct value kept is the first seen, sign included."""
    array = np.array(values, dtype=np.float64)
    codes, uniques = distinct_codes(array)
    expected, _ = pd.factorize(pd.Series(array), use_na_sentinel=True)
    assert codes.tolist() == expected.tolist()
    firsts = [values[codes.tolist().index(c)] for c in range(len(uniques))]
    assert [math.copysign(1.0, u) for u in uniques] == [math.copysign(1.0, f) for f in firsts]
    assert uniques == firsts


def test_per_distinct_keeps_sequences_whole() -> None:
    series = pd.Series(["x", "yy", "x"], dtype=object)
    got = per_distinct(series, lambda v: (v, len(v)), None)
    assert got.tolist() == [("x", 1), ("yy", 2), ("x", 1)]


def test_equal_texts_in_different_objects_share_a_code() -> None:
    name = "void gemm<128>(float*)" * 40
    copy = "".join([name[:10], name[10:]])
    assert copy is not name and copy == name
    codes, uniques = distinct_codes(pd.Series([name, copy, None, name, ""], dtype=object))
    assert codes.tolist() == [0, 0, -1, 0, 1]
    assert uniques == [name, ""]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_TEXTS, st.just(float("nan")), st.just(pd.NA)), max_size=300))
def test_shared_texts_hold_equal_texts_in_one_object(values: list[Any]) -> None:
    # Each text made anew, as a per-launch join makes them: one object per row.
    made = np.array([(v + "#")[:-1] if isinstance(v, str) else v for v in values], dtype=object)
    shared = shared_texts(made)
    assert shared.dtype == object and len(shared) == len(values)
    # The same values; a missing one keeps its own object.
    for got, was in zip(shared.tolist(), made.tolist(), strict=True):
        assert got == was if isinstance(was, str) else got is was
    texts = [v for v in shared.tolist() if isinstance(v, str)]
    if len(values) <= 64 or shared is not made:
        assert len({id(v) for v in texts}) == len(set(texts))


def test_shared_texts_leave_other_columns_as_they_are() -> None:
    copies = [("ab" + str(i))[:2] for i in range(3)]  # equal texts, one object each
    assert len({id(v) for v in copies}) == 3
    for other in ([*copies, 1], [*copies, True], [*copies, 2.5], [*copies, ["x"]]):
        values = np.array(other, dtype=object)
        assert shared_texts(values) is values
    once = np.array(["a", "b", None], dtype=object)
    assert shared_texts(once) is once


@settings(max_examples=200, deadline=None)
@given(
    picks=st.lists(st.integers(0, 5), max_size=40),
    step=st.integers(1, 3),
)
def test_distinct_objects_by_identity(picks: list[int], step: int) -> None:
    """Objects numbered in order of first appearance by identity (equal texts in two
    objects apart), with each one's first row; strided arrays too."""
    pool: list[Any] = ["k", "".join(["k"]), None, 1.5, ("t",), "k" * 3]
    whole = np.empty(len(picks), dtype=object)
    whole[:] = [pool[p] for p in picks]  # a tuple stays one element
    items = whole[::step]
    codes, firsts = distinct_objects(items)
    seen: dict[int, int] = {}
    expected = [seen.setdefault(id(v), len(seen)) for v in items]
    assert codes.tolist() == expected
    assert firsts.tolist() == [expected.index(k) for k in range(len(seen))]


def test_object_ids_are_read_only() -> None:
    """The identities may be the array's own pointer buffer: never written through."""
    from ncu_roofline.core.table import object_ids as _object_ids

    items = np.empty(3, dtype=object)
    items[:] = ["a", None, "b"]
    ids = _object_ids(items)
    assert ids.tolist() == [id(v) for v in items]
    assert not ids.flags.writeable


class _Text(str):
    """A text subclass: equal to a plain text, yet not one."""


def _by_value(values: np.ndarray) -> tuple[list[int], list[str]] | None:
    """text_codes' definition: hashed by value, every distinct value a plain text."""
    try:
        codes, uniques = pd.factorize(values, use_na_sentinel=True)
    except TypeError:
        return None
    if not all(type(u) is str for u in uniques):
        return None
    return [int(c) for c in codes], list(uniques)


# A column of texts as the launch model holds them (a few objects, each many
# times), with equal texts in other objects, missing values of every kind,
# and a few values that are no plain text.
_SHARED = ["gemm", "attn", ""]
_VALUES = st.one_of(
    st.sampled_from(_SHARED),
    st.sampled_from(["gemm", "attn"]).map(lambda t: "".join(list(t))),  # equal, another object
    st.sampled_from([None, np.nan, pd.NA]),
    st.sampled_from([_Text("gemm"), 1, ["x"]]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=40), st.integers(1, 8))
def test_text_codes_by_object_are_those_by_value(values: list[Any], times: int) -> None:
    # Long enough to be told apart by object: at least 64 rows.
    times = max(times, -(-64 // len(values)))
    column = np.empty(len(values) * times, dtype=object)
    for i, value in enumerate(values * times):
        column[i] = value
    got = text_codes(column)
    want = _by_value(column)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert got[0].tolist() == want[0]
        assert got[1] == want[1]
        assert all(type(t) is str for t in got[1])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["profile", "table", "derived", "scaled"]), min_size=1, max_size=30),
    st.integers(1, 5),
)
def test_commonest_label_is_value_counts_first(labels: list[str], times: int) -> None:
    """The source a ceiling names: the most common, ties to the first seen, as pandas orders."""
    from ncu_roofline.analysis.roofs.assign import commonest

    column = np.empty(len(labels) * times, dtype=object)
    for i, label in enumerate(labels * times):
        column[i] = label
    assert commonest(column) == pd.Series(column).value_counts().index[0]


_TESTS = {
    "startswith": (lambda t: t.startswith("ge"), lambda s: s.str.startswith("ge", na=False)),
    "contains": (lambda t: "tt" in t, lambda s: s.str.contains("tt", na=False, regex=False)),
    "endswith": (lambda t: t.endswith("m"), lambda s: s.str.endswith("m", na=False)),
}


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_VALUES, min_size=0, max_size=40),
    st.integers(1, 8),
    st.sampled_from(sorted(_TESTS)),
    st.booleans(),
)
def test_text_mask_is_pandas_str_with_na_false(
    values: list[Any], times: int, test: str, as_series: bool
) -> None:
    """Each row's test, called once per distinct text, is what pandas' ``.str`` method
    with ``na=False`` gives: False for missing values and for values that are no text."""
    column = np.empty(len(values) * times, dtype=object)
    for i, value in enumerate(values * times):
        column[i] = value
    ours, theirs = _TESTS[test]
    try:
        want = theirs(pd.Series(column, dtype=object)).to_numpy(dtype=bool)
    except AttributeError:  # pandas refuses ``.str`` on a column holding no text at all
        assert not any(isinstance(v, str) for v in values)
        want = np.zeros(len(column), dtype=bool)
    got = text_mask(pd.Series(column, dtype=object) if as_series else column, ours)
    assert got.dtype == bool
    assert got.tolist() == want.tolist()


def test_text_mask_tests_each_distinct_text_once() -> None:
    # A basis written per launch: one object per row, two distinct texts.
    column = np.array(["".join(["appro", "ximate"]) for _ in range(100)] + [None, "exact"] * 50)
    seen: list[str] = []

    def test(text: str) -> bool:
        seen.append(text)
        return "approximate" in text

    got = text_mask(column.astype(object), test)
    assert got.tolist() == [True] * 100 + [False] * 100
    assert sorted(seen) == ["approximate", "exact"]


_PIECES = st.sampled_from(["DRAM at 81%", "SM at 9.5%", "", "ΔΣ", "gemm"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_PIECES, st.integers(0, 2)), min_size=1, max_size=5),
    st.lists(st.lists(_PIECES, min_size=3, max_size=3), min_size=0, max_size=30),
)
def test_concat_texts_is_the_rows_sum(layout: list[Any], rows: list[list[str]]) -> None:
    """Each row is its parts added up as texts; rows with the same parts share one object
    (equal texts in other objects may make another: they are told apart by object)."""
    if not any(isinstance(p, int) for p in layout):
        layout = [*layout, 0]
    columns = []
    for k in range(3):
        column = np.empty(len(rows), dtype=object)
        for i, row in enumerate(rows):
            column[i] = row[k]
        columns.append(column)
    parts = [p if isinstance(p, str) else columns[p] for p in layout]
    got = concat_texts(*parts)
    want = ["".join(p if isinstance(p, str) else p[i] for p in parts) for i in range(len(rows))]
    assert got.dtype == object
    assert got.tolist() == want
    # Rows holding the same objects in every array hold one text object.
    keys = [
        tuple(id(columns[p][i]) for p in layout if isinstance(p, int)) for i in range(len(rows))
    ]
    for i, j in itertools.combinations(range(len(rows)), 2):
        if keys[i] == keys[j]:
            assert got[i] is got[j]


def test_concat_texts_makes_each_distinct_text_once() -> None:
    units = np.array(["DRAM at 81%", "SM at 9.5%"], dtype=object)[np.arange(10_000) % 2]
    got = concat_texts("busiest unit: ", units, ".")
    assert got.tolist() == [f"busiest unit: {u}." for u in units]
    assert len({id(t) for t in got}) == 2
    assert concat_texts("a", np.empty(0, dtype=object)).tolist() == []
    with pytest.raises(ValueError, match="at least one array"):
        concat_texts("a", "b")
    with pytest.raises(ValueError, match="length"):
        concat_texts(units, units[:3])
