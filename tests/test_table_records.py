"""Launch records kept as an Arrow table read back as the records they were made from.

:meth:`LaunchRecords.arrow_table` and :class:`TableRecords` carry a report's
launches through the report cache.  Whatever a launch frame holds, the
records read back must be the records (same values, same Python types), the
columns the renderers read must be the same lists, and the JSON written
from them the same bytes; a column that cannot be kept as it is makes no
table at all.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.ipc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.render.charts.values import coded_field, field_counts
from ncu_roofline.render.json_report import iter_json_report
from ncu_roofline.report.records import LaunchRecords
from ncu_roofline.report.table_records import TableRecords, same_value

#: A long text (kernel names run to a kilobyte), held in one object by every row using it.
LONG = "void at::native::elementwise_kernel<128, 4>(" + "x" * 200 + ")"

_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1.0, 1e300]),
)
_texts = st.one_of(st.sampled_from(["a", "b", "", "ü<", LONG]), st.text(max_size=5))


def _column(kind: str, values: list[Any]) -> pd.Series:
    if kind == "float":
        return pd.Series(values, dtype=np.float64)
    if kind == "int":
        return pd.Series(values, dtype=np.int64)
    if kind == "bool":
        return pd.Series(values, dtype=bool)
    if kind == "Int64":
        return pd.Series(values, dtype="Int64")
    if kind == "boolean":
        return pd.Series(values, dtype="boolean")
    if kind == "string":
        return pd.Series(values, dtype="string")
    return pd.Series(values, dtype=object)


_MISSING = st.sampled_from([None, math.nan, pd.NA])


def _kind_values(kind: str, n: int) -> st.SearchStrategy[list[Any]]:
    """``n`` values of one column kind."""
    element: st.SearchStrategy[Any]
    if kind == "float":
        element = _floats
    elif kind == "int":
        element = st.integers(-(2**62), 2**62)
    elif kind == "bool":
        element = st.booleans()
    elif kind == "Int64":
        element = st.one_of(st.integers(-(2**40), 2**40), st.none())
    elif kind == "boolean":
        element = st.one_of(st.booleans(), st.none())
    elif kind == "string":
        element = st.one_of(_texts, st.none())
    elif kind == "texts":
        element = st.one_of(_texts, _MISSING)
    elif kind == "ints":
        element = st.one_of(st.integers(-(2**40), 2**40), st.none())
    elif kind == "objfloats":
        element = st.one_of(_floats, st.none())
    elif kind == "nested":
        rule = st.fixed_dictionaries(
            {
                "name": _texts,
                "pct": st.one_of(st.none(), st.floats(0, 100)),
                "n": st.integers(-(2**63), 2**63 - 1),
            }
        )
        element = st.one_of(st.lists(rule, max_size=2), st.dictionaries(_texts, st.floats(0, 1)))
        element = st.one_of(element, st.none())
    else:  # "mixed": texts and numbers in one column (64-bit ints: larger ones are refused)
        element = st.one_of(_texts, st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=False))
    return st.lists(element, min_size=n, max_size=n)


KINDS = [
    "float",
    "int",
    "bool",
    "Int64",
    "boolean",
    "string",
    "texts",
    "ints",
    "objfloats",
    "nested",
    "mixed",
]


@st.composite
def frames(draw: st.DrawFn) -> tuple[pd.DataFrame, tuple[str, ...]]:
    n = draw(st.integers(0, 12))
    kinds = draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=5))
    data = {}
    for i, kind in enumerate(kinds):
        values = draw(_kind_values(kind, n))
        if kind == "texts" and values and draw(st.booleans()):
            # Rows sharing text objects, as the launch model's columns do.
            values = [v if not isinstance(v, str) else (LONG if len(v) % 2 else v) for v in values]
        data[f"c{i}_{kind}"] = _column(kind, values)
    frame = pd.DataFrame(data, index=pd.RangeIndex(n))
    # A field the frame lacks reads as None in every record.
    return frame, (*frame.columns, "absent")


def _through_ipc(table: pa.Table) -> pa.Table:
    sink = pa.BufferOutputStream()
    with pyarrow.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return pyarrow.ipc.open_file(sink.getvalue()).read_all()


def _json(launches: Any, chunk: int) -> bytes:
    return b"".join(iter_json_report({"a": 1, "launches": launches, "z": None}, chunk))


@settings(max_examples=150, deadline=None)
@given(frames(), st.integers(1, 5))
def test_table_records_read_back_the_records(
    made: tuple[pd.DataFrame, tuple[str, ...]], chunk: int
) -> None:
    frame, fields = made
    records = LaunchRecords(frame, fields)
    table = records.arrow_table()
    mixed = any(c.endswith("mixed") for c in frame.columns) and any(
        len({type(v) for v in frame[c] if v is not None}) > 1
        for c in frame.columns
        if c.endswith("mixed")
    )
    if table is None:
        # Only a column mixing kinds of value is refused.
        assert mixed
        return
    read = TableRecords(_through_ipc(table))
    assert len(read) == len(records)
    assert read.fields == records.fields
    assert same_value(list(read), list(records))
    for f in fields:
        assert same_value(read.column(f), records.column(f)), f
    assert _json(read, chunk) == _json(records, chunk)
    if len(records):
        assert same_value(read[-1], records[-1])
        assert same_value(read[1:3], records[1:3])
    for f in fields:
        _assert_counted_as_counter(records, read, f)


def _assert_counted_as_counter(records: LaunchRecords, read: TableRecords, field: str) -> None:
    """``field_counts`` over codes lists a field's values as a Counter of its column does,
    ``None`` first: from the frame's records, the table's, and plain dicts alike."""
    column = records.column(field)
    try:
        counted = Counter(column)
    except TypeError:  # lists and dicts: neither way counts them
        return
    want = [(v, n) for v, n in counted.items() if v is None]
    want += [(v, n) for v, n in counted.items() if v is not None]
    for launches in (records, read, [{field: v} for v in column]):
        got = field_counts(launches, field)
        assert [n for _, n in got] == [n for _, n in want], field
        assert same_value([v for v, _ in got], [v for v, _ in want]), field


def test_mixed_columns_make_no_table() -> None:
    frame = pd.DataFrame({"x": pd.Series(["a", 1], dtype=object)})
    assert LaunchRecords(frame, ("x",)).arrow_table() is None
    ints_and_floats = pd.DataFrame({"x": pd.Series([1, 2.5], dtype=object)})
    assert LaunchRecords(ints_and_floats, ("x",)).arrow_table() is None
    nested_nan = pd.DataFrame({"x": pd.Series([[{"v": math.nan}], None], dtype=object)})
    assert LaunchRecords(nested_nan, ("x",)).arrow_table() is None
    tuples = pd.DataFrame({"x": pd.Series([(1, 2), None], dtype=object)})
    assert LaunchRecords(tuples, ("x",)).arrow_table() is None
    huge = pd.DataFrame({"x": pd.Series([[{"n": 2**64}], None], dtype=object)})
    assert LaunchRecords(huge, ("x",)).arrow_table() is None
    big_int = pd.DataFrame({"x": pd.Series([0, 2**63], dtype=object)})
    assert LaunchRecords(big_int, ("x",)).arrow_table() is None
    numbers_among_lists = pd.DataFrame({"x": pd.Series([[1], 2.5], dtype=object)})
    assert LaunchRecords(numbers_among_lists, ("x",)).arrow_table() is None


def test_shared_long_texts_are_coded_once() -> None:
    names = [LONG, "short", None] * 1000
    frame = pd.DataFrame({"kernel": pd.Series(names, dtype=object)})
    table = LaunchRecords(frame, ("kernel",)).arrow_table()
    assert table is not None
    column = table.column("kernel").chunk(0)
    assert pa.types.is_dictionary(column.type)
    assert sorted(column.dictionary.to_pylist()) == sorted([LONG, "short"])
    assert TableRecords(table).column("kernel") == names


@pytest.mark.parametrize("index", [0, -1, 2])
def test_items_and_iteration(index: int) -> None:
    frame = pd.DataFrame({"a": [1.0, math.inf, 3.0], "b": ["x", None, "y"]})
    records = LaunchRecords(frame, ("a", "b"))
    table = records.arrow_table()
    assert table is not None
    read = TableRecords(table)
    assert read[index] == records[index]
    assert list(read) == [{"a": 1.0, "b": "x"}, {"a": None, "b": None}, {"a": 3.0, "b": "y"}]
    assert read == records
    with pytest.raises(IndexError):
        read[3]
    with pytest.raises(KeyError):
        read.column("c")


def test_short_text_columns_hashed_once_read_back_as_records() -> None:
    # Short texts are told apart by value (numpy's text type included, whose
    # records are plain texts); a column of nothing but missing values is nulls.
    texts = ["memory", np.str_("memory"), None, math.nan, pd.NA, "compute"] * 50
    blank = [None, math.nan, pd.NA] * 100
    frame = pd.DataFrame(
        {"bound": pd.Series(texts, dtype=object), "basis": pd.Series(blank, dtype=object)}
    )
    records = LaunchRecords(frame, ("bound", "basis"))
    table = records.arrow_table()
    assert table is not None
    bound = table.column("bound").chunk(0)
    assert bound.dictionary.to_pylist() == ["memory", "compute"]
    assert pa.types.is_null(table.column("basis").type)
    read = TableRecords(_through_ipc(table))
    assert read.column("bound") == ["memory", "memory", None, None, None, "compute"] * 50
    assert all(type(v) is str for v in read.column("bound") if v is not None)
    assert read.column("basis") == [None] * 300
    assert same_value(list(read), list(records))


def test_field_codes_renumber_a_dictionary_in_order_of_first_appearance() -> None:
    # An Arrow dictionary may hold values no row has, in any order: the codes
    # name only the values the rows hold, in the order the rows first hold them.
    indices = pa.array([2, 1, None, 2, 1], type=pa.int32())
    kernels = pa.DictionaryArray.from_arrays(indices, pa.array(["unused", "b", "a"]))
    read = TableRecords(pa.table({"kernel": kernels}))
    codes, distinct = coded_field(read, "kernel")
    assert distinct == ["a", "b"]
    assert codes.tolist() == [0, 1, -1, 0, 1]
    assert field_counts(read, "kernel") == [(None, 1), ("a", 2), ("b", 2)]
