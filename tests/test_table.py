"""The analysis reads the launches as a pandas-free column table.

:meth:`Profile.table` is built straight from the launch model's columns
(no frame of every metric); it must hold what the frame holds, value for
value, for every real export, for several inputs joined, and for a
profile built from a frame by hand.  The stages that moved onto it
(failed profiles, device groups) are checked against the pandas
formulation they replaced.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis.failed_profile import MIN_METRICS, failed_profiles
from ncu_roofline.analysis.roofs.assign import _device_groups
from ncu_roofline.core.columns import PROFILE_COLUMNS
from ncu_roofline.core.model import Profile, SourceInfo
from ncu_roofline.core.table import Table, absent, as_objects, distinct, present
from ncu_roofline.readers import load
from tests.helpers import SAMPLE_EXPORTS

_EXPORTS = SAMPLE_EXPORTS


def _same_column(got: np.ndarray, want: np.ndarray, where: str) -> None:
    if got.dtype == object or want.dtype == object:
        assert got.dtype == want.dtype == object, where
        assert got.tolist() == want.tolist(), where
    else:
        assert np.array_equal(got.astype(np.float64), want.astype(np.float64), equal_nan=True), (
            where
        )


def _assert_table_is_frame(profile_columns: Profile, frame: pd.DataFrame) -> None:
    table = profile_columns.table()
    assert table.columns == [str(c) for c in frame.columns]
    assert len(table) == len(frame)
    for name in table.columns:
        want = frame[name]
        if want.dtype.kind in "iufb":
            expected = want.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            expected = want.to_numpy(dtype=object, na_value=None)
        _same_column(table[name], expected, name)


@pytest.mark.parametrize("path", _EXPORTS, ids=lambda p: p.name[:40])
def test_the_table_holds_what_the_frame_holds(path: Path) -> None:
    from_columns = load([str(path)])
    from_frame = load([str(path)])
    _assert_table_is_frame(from_columns, from_frame.launches)


@pytest.mark.parametrize("path", _EXPORTS, ids=lambda p: p.name[:40])
def test_the_identity_frame_is_the_frame_s_own(path: Path) -> None:
    from_columns = load([str(path)])
    frame = load([str(path)]).launches
    got = from_columns.identity_frame(PROFILE_COLUMNS)
    want = frame[[c for c in PROFILE_COLUMNS if c in frame]]
    pd.testing.assert_frame_equal(got, want)
    # Built from the columns: the launch frame itself was never made.
    assert from_columns._frame is None


def test_joined_inputs_are_joined_as_pandas_joins_their_frames() -> None:
    if len(_EXPORTS) < 3:
        pytest.skip("needs the shared samples")
    paths = [str(p) for p in _EXPORTS if p.suffix == ".csv"][:3]
    # Inputs with different metric lists: a metric one lacks is missing there.
    _assert_table_is_frame(load(paths), load(paths).launches)
    got = load(paths).identity_frame(PROFILE_COLUMNS)
    pd.testing.assert_frame_equal(got, load(paths).launches[list(PROFILE_COLUMNS)])


def test_a_frame_built_by_hand_reads_value_for_value() -> None:
    frame = pd.DataFrame(
        {
            "id": pd.array([1, None, 3], dtype="Int64"),
            "cc": pd.Series([8, 8.0, None], dtype=object),
            "kernel": pd.Series(["a", None, "b"], dtype="string"),
            "note": ["x", np.nan, None],
            "dram__bytes.sum": [1.0, np.nan, 3.0],
            "count": np.array([1, 2, 3], dtype=np.int64),
            "flag": [True, False, True],
        }
    )
    table = Profile(frame, [SourceInfo("x", "details")]).table()
    assert table["id"].dtype == np.float64
    assert np.isnan(table["id"][1]) and table["id"][2] == 3.0
    assert table.integer("id")[0].tolist() == [1, 0, 3]
    assert table.integer("id")[1].tolist() == [False, True, False]
    # An object column keeps its values as they are: 8 and 8.0 stay apart.
    assert [type(v) for v in table["cc"][:2]] == [int, float]
    assert table["cc"][2] is None
    assert table["kernel"].tolist() == ["a", None, "b"]
    assert table["note"].tolist() == ["x", None, None]
    assert table["count"].dtype == np.int64
    assert table.objects("count").tolist() == [1, 2, 3]
    assert table["flag"].dtype == bool


def test_columns_are_shared_read_only_and_replaced_in_place() -> None:
    base = np.array([1.0, 2.0])
    table = Table({"a": base, "b": np.array(["x", None], dtype=object)}, 2)
    with pytest.raises(ValueError):
        table["a"][0] = 5.0
    assert base.flags.writeable  # the caller's own array is not changed
    more = table.with_columns({"c": np.zeros(2), "a": np.ones(2)})
    assert more.columns == ["a", "b", "c"]
    assert more["a"].tolist() == [1.0, 1.0] and table["a"].tolist() == [1.0, 2.0]
    assert table.floats("missing").shape == (2,) and np.isnan(table.floats("missing")).all()
    assert table.objects("missing").tolist() == [None, None]
    assert table.objects("a").tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="shape"):
        Table({"a": np.zeros(3)}, 2)


_VALUES = st.sampled_from([None, float("nan"), "", "gemm", 0.0, 1.5, 7, "nan"])


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALUES, max_size=12))
def test_absent_is_pandas_isna_on_the_values_a_table_holds(values: list[Any]) -> None:
    objects = np.array(values, dtype=object) if values else np.zeros(0, dtype=object)
    assert absent(objects).tolist() == pd.isna(objects).tolist()
    assert present(objects).tolist() == pd.notna(objects).tolist()
    cleaned = as_objects(objects)
    assert [v is None for v in cleaned.tolist()] == pd.isna(objects).tolist()
    numbers = np.array([v for v in values if isinstance(v, float)], dtype=np.float64)
    assert absent(numbers).tolist() == np.isnan(numbers).tolist()


def _failed_by_matrix(frame: pd.DataFrame) -> list[Any]:
    """The rule as first written: a launch-by-metric matrix of presence per input."""
    metrics = [c for c in frame.columns if c not in ("source",)]
    out: list[Any] = [None] * len(frame)
    source = frame["source"].astype(object).fillna("").to_numpy()
    for src in pd.unique(source):
        rows = np.flatnonzero(source == src)
        if len(rows) < 2:
            continue
        has = frame.iloc[rows][metrics].notna().to_numpy(dtype=bool)
        counts = has.sum(axis=0)
        once, some = counts == 1, counts >= 1
        expected = int((counts >= 2).sum()) + int(once.sum()) - has[:, once].sum(axis=1)
        missing = int(some.sum()) - has[:, some].sum(axis=1)
        failed = (expected >= MIN_METRICS) & (2 * missing > expected)
        for at in np.flatnonzero(failed):
            out[rows[at]] = (
                f"profiling failed: {int(missing[at])} of {int(expected[at])} metrics missing"
            )
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 9).flatmap(
        lambda n: st.tuples(
            st.lists(st.sampled_from(["a.csv", "b.csv", None]), min_size=n, max_size=n),
            st.lists(
                st.lists(st.sampled_from([1.0, np.nan]), min_size=n, max_size=n),
                min_size=1,
                max_size=9,
            ),
            st.lists(st.sampled_from(["t", None]), min_size=n, max_size=n),
        )
    )
)
def test_failed_profiles_count_as_the_presence_matrix_did(
    drawn: tuple[list[Any], list[list[float]], list[Any]],
) -> None:
    sources, metrics, text = drawn
    frame = pd.DataFrame({"source": pd.Series(sources, dtype=object)})
    for i, values in enumerate(metrics):
        frame[f"m{i}__x.sum"] = values
    frame["text__metric"] = pd.Series(text, dtype=object)
    want = _failed_by_matrix(frame)
    # Several inputs and every launch of one alike, from a table and from the frame.
    assert failed_profiles(Table.from_frame(frame)).tolist() == want
    assert failed_profiles(frame).tolist() == want


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["a.csv", "", None]),
            st.sampled_from(["H100", "", None, "A100"]),
            st.sampled_from(["9.0", "", None]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_device_groups_are_pandas_groupby_over_the_filled_keys(
    rows: list[tuple[Any, Any, Any]],
) -> None:
    frame = pd.DataFrame(rows, columns=["source", "device_name", "cc"], dtype=object)
    keys = pd.DataFrame(
        {
            "source": frame["source"].fillna(""),
            "device_name": frame["device_name"].fillna("\0"),
            "cc": frame["cc"].fillna("\0"),
        }
    )
    want = [
        (
            str(src),
            None if name in ("\0", "") else str(name),
            None if cc in ("\0", "") else str(cc),
            sorted(idx.tolist()),
        )
        for (src, name, cc), idx in keys.groupby(
            ["source", "device_name", "cc"], sort=False
        ).indices.items()
    ]
    got = [
        (src, name, cc, np.flatnonzero(mask).tolist())
        for src, name, cc, mask in _device_groups(Table.from_frame(frame))
    ]
    assert got == want


@settings(max_examples=200, deadline=None)
@given(st.lists(_VALUES, max_size=14), st.booleans())
def test_distinct_is_pandas_unique_of_the_present_values(values: list[Any], shared: bool) -> None:
    objects = np.array(values, dtype=object) if values else np.zeros(0, dtype=object)
    if not shared:
        # Equal texts held in different objects are still one value.
        objects = np.array(
            [v + "" if isinstance(v, str) else v for v in values] or [], dtype=object
        )
    want = pd.unique(objects[pd.notna(objects)]).tolist() if len(objects) else []
    assert distinct(objects) == want
    numbers = np.array([v for v in values if isinstance(v, float)], dtype=np.float64)
    assert distinct(numbers) == pd.unique(numbers[~np.isnan(numbers)]).tolist()


def test_rows_are_taken_from_made_and_unmade_columns_alike() -> None:
    made: list[str] = []

    def texts() -> np.ndarray:
        made.append("b")
        return np.array(["a", "b", None, "d"], dtype=object)

    table = Table({"a": np.arange(4.0), "b": texts}, 4)
    mask = np.array([True, False, True, True])
    assert table.take(mask)["a"].tolist() == [0.0, 2.0, 3.0]
    assert made == []  # taking rows makes no column
    assert table.take(mask)["b"].tolist() == ["a", None, "d"]
    assert table.take(np.array([3, 0]))["b"].tolist() == ["d", "a"]
    assert len(table.take(slice(1, None))) == 3
    assert table.take(slice(1, 3))["a"].tolist() == [1.0, 2.0]
