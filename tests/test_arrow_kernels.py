"""``core.compute`` calls Arrow's kernels the way ``pyarrow.compute`` does.

Each wrapper is compared with the ``pyarrow.compute`` function of the same
name, on arrays with nulls, on chunked arrays and on the edge cases the
readers rely on (a safe cast that fails, an index out of range, nulls in a
filter mask and in an ``is_in`` set).
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ncu_roofline.core import compute as ac

TEXTS = pa.array([" 12.5 ", "abc", None, "x_y_x", "", "1,024"])
FLAGS = pa.array([True, None, False, True, None, False])
OTHER = pa.array([None, None, True, False, False, True])
CHUNKED = pa.chunked_array([["a", None, "b"], ["b", "a"]])


def test_text_kernels_match_pyarrow_compute() -> None:
    assert ac.match_substring(TEXTS, "x").equals(pc.match_substring(TEXTS, "x"))
    assert ac.match_substring_regex(TEXTS, r"^\s*\d").equals(
        pc.match_substring_regex(TEXTS, r"^\s*\d")
    )
    assert ac.replace_substring(TEXTS, "x", "Z").equals(pc.replace_substring(TEXTS, "x", "Z"))
    assert ac.replace_substring_regex(TEXTS, r"[,_]", "").equals(
        pc.replace_substring_regex(TEXTS, r"[,_]", "")
    )
    assert ac.utf8_trim_whitespace(TEXTS).equals(pc.utf8_trim_whitespace(TEXTS))
    # Worked by hand: only "x_y_x" holds an x; the null stays null.
    assert ac.match_substring(TEXTS, "x").to_pylist() == [False, False, None, True, False, False]


def test_logic_kernels_match_pyarrow_compute() -> None:
    assert ac.invert(FLAGS).equals(pc.invert(FLAGS))
    assert ac.and_(FLAGS, OTHER).equals(pc.and_(FLAGS, OTHER))
    assert ac.and_kleene(FLAGS, OTHER).equals(pc.and_kleene(FLAGS, OTHER))
    assert ac.or_kleene(FLAGS, OTHER).equals(pc.or_kleene(FLAGS, OTHER))
    assert ac.is_null(FLAGS).equals(pc.is_null(FLAGS))
    assert ac.is_valid(FLAGS).equals(pc.is_valid(FLAGS))
    chosen = ac.if_else(FLAGS, pa.array(range(6)), pa.array(range(10, 16)))
    assert chosen.equals(pc.if_else(FLAGS, pa.array(range(6)), pa.array(range(10, 16))))
    assert chosen.to_pylist() == [0, None, 12, 3, None, 15]
    # Kleene: false and null is false, true or null is true.
    assert ac.and_kleene(pa.array([False]), pa.array([None], pa.bool_())).to_pylist() == [False]
    assert ac.or_kleene(pa.array([True]), pa.array([None], pa.bool_())).to_pylist() == [True]


def test_any_true_skips_nulls_and_is_false_when_empty() -> None:
    assert ac.any_true(FLAGS) is True
    assert ac.any_true(pa.array([False, None])) is False
    assert ac.any_true(pa.array([], pa.bool_())) is False
    assert ac.any_true(pa.chunked_array([[False], [None, True]])) is True


def test_cast_is_safe() -> None:
    numbers = pa.array(["1", "2.5", None])
    assert ac.cast(numbers, pa.float64()).equals(pc.cast(numbers, pa.float64()))
    with pytest.raises(pa.ArrowInvalid):
        ac.cast(pa.array(["1", "x"]), pa.float64())
    with pytest.raises(pa.ArrowInvalid):
        ac.cast(pa.array([1.5]), pa.int64())  # would truncate
    assert ac.cast(pa.array([3.0]), pa.int64()).to_pylist() == [3]


def test_is_in_matches_nulls_against_a_null_in_the_set() -> None:
    values = pa.array(["a", None, "c"])
    with_null = pa.array(["a", None])
    assert ac.is_in(values, with_null).to_pylist() == [True, True, False]
    assert ac.is_in(values, pa.array(["a"])).to_pylist() == [True, False, False]
    assert ac.is_in(CHUNKED, pa.array(["b"])).equals(pc.is_in(CHUNKED, pa.array(["b"])))


def test_dictionary_encode_keeps_nulls_out_of_the_dictionary() -> None:
    encoded = ac.dictionary_encode(CHUNKED)
    assert encoded.equals(pc.dictionary_encode(CHUNKED))
    assert encoded.chunk(0).dictionary.to_pylist() == ["a", "b"]
    assert encoded.chunk(0).indices.to_pylist() == [0, None, 1]


def test_filter_drops_where_the_mask_is_null() -> None:
    values = pa.array(range(6))
    assert ac.filter_(values, FLAGS).to_pylist() == [0, 3]
    assert ac.filter_(values, FLAGS).equals(pc.filter(values, FLAGS))
    table = pa.table({"v": values})
    assert ac.filter_(table, FLAGS).equals(table.filter(FLAGS))


def test_take_checks_bounds_on_arrays_chunked_arrays_and_tables() -> None:
    indices = pa.array([4, 0, None, 2])
    assert ac.take(CHUNKED, indices).equals(pc.take(CHUNKED, indices))
    table = pa.table({"v": pa.array(range(5)), "s": pa.array(list("abcde"))})
    assert ac.take(table, indices).equals(table.take(indices))
    assert ac.take(table, indices).column("s").to_pylist() == ["e", "a", None, "c"]
    with pytest.raises(IndexError):
        ac.take(pa.array([1, 2]), pa.array([2]))


@given(
    st.lists(st.one_of(st.none(), st.text(alphabet="ab_ ,1", max_size=6)), max_size=30),
    st.text(alphabet="ab_", min_size=1, max_size=2),
)
def test_wrappers_agree_with_pyarrow_compute_on_any_text(
    values: list[str | None], pat: str
) -> None:
    texts = pa.array(values, pa.string())
    assert ac.match_substring(texts, pat).equals(pc.match_substring(texts, pat))
    assert ac.replace_substring(texts, pat, "-").equals(pc.replace_substring(texts, pat, "-"))
    assert ac.utf8_trim_whitespace(texts).equals(pc.utf8_trim_whitespace(texts))
    assert ac.dictionary_encode(texts).equals(pc.dictionary_encode(texts))
    mask = ac.match_substring(texts, pat)
    assert ac.filter_(texts, mask).equals(pc.filter(texts, mask))
