"""Per-group reductions without pandas agree with pandas' group-by.

:mod:`ncu_roofline.core.reduce` replaces the analysis' pandas group-bys:
least, greatest, any, count, the ordering of ranked rows and a group's
rows' values are checked against pandas value for value (NaN where pandas
gives NaN).  Sums are exact (:func:`math.fsum` per group), so they are
checked against ``math.fsum`` exactly, for not depending on the rows'
order, and against pandas' compensated sum to its rounding where no terms
cancel (where they do, pandas' sum can be wholly wrong: 1e300 + 1 - 1e300).  Hypothesis draws
groups, values with NaN, infinities, signed zeros and ties.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.frame import objects_at
from ncu_roofline.core.reduce import (
    descending_order,
    group_any,
    group_fsum,
    group_max,
    group_mean,
    group_min,
    group_present,
    unique_keys,
)

_VALUES = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, 0.1, 0.2, 0.3, 0.6, 2.5, math.nan, math.inf, -math.inf]),
    st.floats(min_value=-1e300, max_value=1e300, allow_nan=False),
)


@st.composite
def _grouped(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, int]:
    """Values, each row's group (every group has a row) and the number of groups."""
    n = draw(st.integers(min_value=1, max_value=5))
    rows = draw(st.lists(st.tuples(st.integers(0, n - 1), _VALUES), min_size=0, max_size=40))
    # Every group holds at least one row, as kernel groups do.
    rows = [(g, draw(_VALUES)) for g in range(n)] + rows
    rows = draw(st.permutations(rows))
    groups = np.array([g for g, _ in rows], dtype=np.intp)
    values = np.array([v for _, v in rows], dtype=np.float64)
    return values, groups, n


def _by_pandas(values: np.ndarray, groups: np.ndarray) -> pd.core.groupby.SeriesGroupBy:
    return pd.Series(values).groupby(groups)


@settings(max_examples=400, deadline=None)
@given(drawn=_grouped())
def test_least_and_greatest_are_pandas(drawn: tuple[np.ndarray, np.ndarray, int]) -> None:
    values, groups, n = drawn
    by = _by_pandas(values, groups)
    np.testing.assert_array_equal(group_min(values, groups, n), by.min().to_numpy(), strict=True)
    np.testing.assert_array_equal(group_max(values, groups, n), by.max().to_numpy(), strict=True)


@settings(max_examples=300, deadline=None)
@given(drawn=_grouped())
def test_present_counts_and_any_are_pandas(drawn: tuple[np.ndarray, np.ndarray, int]) -> None:
    values, groups, n = drawn
    by = _by_pandas(values, groups)
    assert group_present(values, groups, n).tolist() == by.count().tolist()
    flags = values > 0.5
    want = pd.Series(flags).groupby(groups).any().to_numpy()
    assert group_any(flags, groups, n).tolist() == want.tolist()


def _finite(values: np.ndarray) -> np.ndarray:
    return np.where(np.isinf(values), 1.0, values) / 1e10  # no overflow from summing


@settings(max_examples=400, deadline=None)
@given(drawn=_grouped(), data=st.data())
def test_sums_are_exact_and_do_not_depend_on_order(
    drawn: tuple[np.ndarray, np.ndarray, int], data: st.DataObject
) -> None:
    values, groups, n = drawn
    values = _finite(values)
    got = group_fsum(values, groups, n)
    want = [
        math.fsum(v for v, g in zip(values, groups, strict=True) if g == k and v == v)
        for k in range(n)
    ]
    assert got.tolist() == want
    # Any order of the rows gives the same sums, bit for bit.
    order = np.array(data.draw(st.permutations(range(len(values)))), dtype=np.intp)
    assert group_fsum(values[order], groups[order], n).tolist() == got.tolist()
    # pandas' compensated sum agrees to its rounding, where no sum cancels.
    positive = np.abs(values)
    np.testing.assert_allclose(
        group_fsum(positive, groups, n),
        _by_pandas(positive, groups).sum().to_numpy(),
        rtol=1e-12,
        atol=1e-300,
    )


@settings(max_examples=300, deadline=None)
@given(drawn=_grouped())
def test_means_are_the_exact_sum_over_the_count(
    drawn: tuple[np.ndarray, np.ndarray, int],
) -> None:
    values, groups, n = drawn
    values = _finite(values)
    got = group_mean(values, groups, n)
    want = _by_pandas(values, groups).mean().to_numpy()
    assert np.isnan(got).tolist() == np.isnan(want).tolist()
    # pandas' compensated sum to its rounding, where no sum cancels.
    positive = np.abs(values)
    np.testing.assert_allclose(
        group_mean(positive, groups, n),
        _by_pandas(positive, groups).mean().to_numpy(),
        rtol=1e-12,
        atol=1e-300,
    )
    count = group_present(values, groups, n)
    exact = group_fsum(values, groups, n)
    assert got[count > 0].tolist() == (exact[count > 0] / count[count > 0]).tolist()


def test_sums_past_the_largest_float_are_infinite() -> None:
    values = np.array([1e308, 1e308, math.inf, -math.inf, 1.0])
    groups = np.array([0, 0, 1, 1, 2], dtype=np.intp)
    got = group_fsum(values, groups, 3)
    assert got[0] == math.inf
    assert math.isnan(got[1])
    assert got[2] == 1.0


@settings(max_examples=400, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from([0.0, -0.0, 1.0, 2.0, math.nan, math.inf, -math.inf]),
            st.sampled_from([0.0, 3.0, 5.0, math.nan, -math.inf]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_descending_order_is_pandas_stable_sort(rows: list[tuple[float, float]]) -> None:
    first = np.array([a for a, _ in rows])
    second = np.array([b for _, b in rows])
    frame = pd.DataFrame({"a": first, "b": second})
    want = frame.sort_values(
        ["a", "b"], ascending=[False, False], na_position="last", kind="stable"
    ).index.to_numpy()
    assert descending_order([first, second]).tolist() == want.tolist()
    want_one = frame.sort_values("a", ascending=False, na_position="last", kind="stable")
    assert descending_order([first]).tolist() == want_one.index.tolist()


def test_descending_order_needs_a_key() -> None:
    with pytest.raises(ValueError, match="at least one key"):
        descending_order([])


@settings(max_examples=300, deadline=None)
@given(
    keys=st.lists(st.integers(min_value=0, max_value=40), max_size=40),
    wide=st.booleans(),
)
def test_unique_keys_are_numpys(keys: list[int], wide: bool) -> None:
    array = np.array(keys, dtype=np.int64)
    # A wide span takes numpy's own sort; a narrow one the table over the range.
    span = 10**9 if wide else 41
    found, firsts, inverse = unique_keys(array, span)
    want, want_firsts, want_inverse = np.unique(array, return_index=True, return_inverse=True)
    assert found.tolist() == want.tolist()
    assert firsts.tolist() == want_firsts.tolist()
    assert inverse.tolist() == want_inverse.reshape(-1).tolist()


def test_objects_at_reads_rows_of_a_frame_or_an_array() -> None:
    frame = pd.DataFrame(
        {
            "n": pd.array([1, None, 3], dtype="Int64"),
            "t": pd.array(["a", None, "c"], dtype="str"),
            "f": [0.5, np.nan, 1.5],
        },
        index=[10, 20, 30],
    )
    rows = np.array([2, 1], dtype=np.intp)
    assert objects_at(frame["n"], rows).tolist() == [3, None]
    assert objects_at(frame["t"], rows).tolist() == ["c", None]
    assert objects_at(frame["f"], rows).tolist() == [1.5, None]
    texts = np.array(["a", None, "c"], dtype=object)
    assert objects_at(texts, rows).tolist() == ["c", None]
    assert objects_at(np.array([0.5, np.nan, 1.5]), rows).tolist() == [1.5, None]
