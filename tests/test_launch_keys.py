"""The pivot to launches on integer codes groups rows as sorting the keys did.

``_launch_keys`` numbers launches from the key columns' dictionary codes,
through a table indexed by key when the keys are few and by hashing them
in Arrow otherwise (a summary of many processes).  Both must agree with the sort-based
grouping on random tables: which rows share a launch, launch order by first
row, invalid rows left out, runs kept apart.  A raw page's IDs that only go
up skip the hashing and must give the codes it would.
"""

from __future__ import annotations

import itertools

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.readers import csv_pages
from ncu_roofline.readers.identity import _counted_up, _whole_numbers, encode_identity
from ncu_roofline.readers.table import dict_codes


def _sorted_grouping(
    table: pa.Table, columns: list[str], valid: np.ndarray, run: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Launch per row and first rows, by sorting the rows' key tuples."""
    n = table.num_rows
    parts = [np.zeros(n, dtype=np.int64) if run is None else run.astype(np.int64)]
    parts += [dict_codes(table.column(c))[0].astype(np.int64) for c in columns]
    keys = np.stack(parts, axis=1)
    rows = np.flatnonzero(valid)
    launch = np.full(n, -1, dtype=np.int64)
    if rows.size == 0:
        return launch, np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(keys[rows], axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    launch[rows] = rank[inverse.reshape(-1)]
    return launch, rows[first[order]]


_TABLES = st.integers(min_value=0, max_value=60).flatmap(
    lambda n: st.tuples(
        st.lists(st.sampled_from(["1", "2", "7"]), min_size=n, max_size=n),
        st.lists(st.sampled_from([str(i) for i in range(12)]), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
        st.one_of(st.none(), st.lists(st.integers(0, 2), min_size=n, max_size=n)),
        st.integers(1, 3),
    )
)


@settings(max_examples=300, deadline=None)
@given(_TABLES)
def test_integer_code_pivot_groups_as_sorting(case: tuple) -> None:  # type: ignore[type-arg]
    pids, ids, valid_list, run_list, chunks = case
    n = len(ids)
    cut = [0, *sorted({n * k // chunks for k in range(1, chunks)}), n]

    def column(values: list[str]) -> pa.ChunkedArray:
        parts = [
            pa.array(values[a:b], pa.string()).dictionary_encode()
            for a, b in itertools.pairwise(cut)
        ]
        return pa.chunked_array(parts)

    table = pa.table({"Process ID": column(pids), "ID": column(ids)}).unify_dictionaries()
    valid = np.array(valid_list, dtype=bool)
    run = None if run_list is None else np.array(run_list, dtype=np.int64)
    want = _sorted_grouping(table, ["Process ID", "ID"], valid, run)
    got = csv_pages._launch_keys(table, ["Process ID", "ID"], valid, run)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_hashed_path_for_many_keys_groups_the_same() -> None:
    # Keys too many for a table indexed by key: the hashed path.
    rng = np.random.default_rng(7)
    n = 400
    ids = [str(v) for v in rng.integers(0, 300, n)]
    pids = [str(v) for v in rng.integers(0, 300, n)]
    table = pa.table(
        {"Process ID": pa.array(pids).dictionary_encode(), "ID": pa.array(ids).dictionary_encode()}
    )
    valid = rng.random(n) < 0.9
    want = _sorted_grouping(table, ["Process ID", "ID"], valid, None)
    got = csv_pages._launch_keys(table, ["Process ID", "ID"], valid, None)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    # 400 rows over ~90,000 possible (pid, id) pairs: most rows are launches of their own.
    assert got[1].size > 300


@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=0, max_size=30), st.booleans())
def test_raw_ids_that_count_up_encode_as_hashing_them_would(ids: list[int], ordered: bool) -> None:
    """IDs that only go up are their own dictionary; either way the codes are the hash's."""
    seq = sorted(set(ids)) if ordered else ids
    texts = pa.array([str(i) for i in seq], pa.string())
    table = encode_identity(pa.table({"ID": texts, "Kernel Name": texts}), ["ID", "Kernel Name"])
    expected = pc.dictionary_encode(texts)
    for name in ("ID", "Kernel Name"):
        got = table.column(name).combine_chunks()
        assert got.indices.to_pylist() == expected.indices.to_pylist()
        assert got.dictionary.to_pylist() == expected.dictionary.to_pylist()
    counted = _counted_up(texts)
    goes_up = len(seq) > 1 and all(a < b for a, b in itertools.pairwise(seq))
    assert (counted is not None) == goes_up


def test_ids_that_are_not_plain_integers_are_hashed() -> None:
    for ids in (["0", "1", "1.5"], ["0", " 1"], ["2", "1"], ["0", None], ["7"]):
        assert _counted_up(pa.array(ids, pa.string())) is None


def test_whole_numbers_keep_large_integers_exact() -> None:
    exact = _whole_numbers(pa.array(["9007199254740993", "-4"]))
    assert exact.dtype == np.int64 and exact.tolist() == [2**53 + 1, -4]
    floats = _whole_numbers(pa.array(["1.0", "2"]))
    assert floats.dtype == np.float64 and floats.tolist() == [1.0, 2.0]
    odd = _whole_numbers(pa.array(["3", "n/a"]))
    assert odd[0] == 3 and np.isnan(odd[1])


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_wide_keys_group_as_sorting(data: st.DataObject) -> None:
    # Up to four key columns with wide alphabets: the product of their sizes
    # exceeds the rows (the hashed path) in most draws, missing values included.
    n = data.draw(st.integers(0, 60))
    width = data.draw(st.sampled_from([2, 5, 200]))
    texts = st.one_of(st.none(), st.integers(0, width).map(str))
    names = [f"k{i}" for i in range(data.draw(st.integers(1, 4)))]
    table = pa.table(
        {
            name: pa.array(
                data.draw(st.lists(texts, min_size=n, max_size=n)), pa.string()
            ).dictionary_encode()
            for name in names
        }
    )
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)
    runs = data.draw(st.none() | st.lists(st.integers(0, 2), min_size=n, max_size=n))
    run = None if runs is None else np.array(runs, dtype=np.int64)
    want = _sorted_grouping(table, names, valid, run)
    got = csv_pages._launch_keys(table, names, valid, run)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


def test_null_keys_are_a_value_of_their_own() -> None:
    # A null key (code -1) must neither collide with a value of the column
    # before it nor index the key table from its end.
    table = pa.table(
        {
            "k0": pa.array([None, "a", None, "b"], pa.string()).dictionary_encode(),
            "k1": pa.array([None, None, "x", None], pa.string()).dictionary_encode(),
        }
    )
    valid = np.ones(4, dtype=bool)
    want = _sorted_grouping(table, ["k0", "k1"], valid, None)
    got = csv_pages._launch_keys(table, ["k0", "k1"], valid, None)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])
    assert got[0].tolist() == [0, 1, 2, 3]
    # Two columns of nulls alone (empty dictionaries): one launch, no key below zero.
    blank = pa.table(
        {k: pa.array([None, None], pa.string()).dictionary_encode() for k in ("k0", "k1")}
    )
    got = csv_pages._launch_keys(blank, ["k0", "k1"], np.ones(2, dtype=bool), None)
    assert got[0].tolist() == [0, 0]
    assert got[1].tolist() == [0]
