"""The report cache's launch table, built from numpy buffers, is the table pyarrow's
conversions built.

:meth:`LaunchRecords.arrow_table` makes every array with the builders of
:mod:`ncu_roofline.core.arrays` (pyarrow's ``pa.array`` and its kin load
pandas).  Each builder is compared here with the ``pa.array`` call it
stands for, and the whole table with the one the ``pa.array`` version
(:func:`_reference_table`, the code as it was) makes: on random frames, on
every real export and the shipped one, as frames and as tables.  A table of
numpy columns makes its cache table without loading pandas.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from ncu_roofline.core.arrays import (
    bool_array,
    dictionary_array,
    float_array,
    integer_array,
    string_array,
    strings,
)
from ncu_roofline.core.grouping import distinct_codes, distinct_objects, text_codes
from ncu_roofline.core.table import Table
from ncu_roofline.report import records as rec
from ncu_roofline.report.records import LaunchRecords
from ncu_roofline.report.table_records import JSON_FIELD, TableRecords, same_value
from tests.helpers import REPO
from tests.test_records_table import _CASES, _analysis, _as_tables
from tests.test_table_records import LONG, frames

# -- the builders against pa.array ----------------------------------------------------


def _same(got: pa.Array, want: pa.Array) -> None:
    assert got.type == want.type
    assert got.null_count == want.null_count
    assert got.equals(want)
    got.validate(full=True)


_INTS = st.sampled_from([np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])


@settings(max_examples=150, deadline=None)
@given(st.data(), _INTS, st.integers(0, 40), st.booleans())
def test_integer_array_is_pa_array(data: st.DataObject, dtype: Any, n: int, masked: bool) -> None:
    values = data.draw(hnp.arrays(dtype, n))
    mask = data.draw(hnp.arrays(np.bool_, n)) if masked else None
    _same(integer_array(values, mask), pa.array(values, mask=mask))


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(0, 40), st.booleans())
def test_float_array_is_pa_array(data: st.DataObject, n: int, masked: bool) -> None:
    # NaN and infinities among the values: NaN stays a NaN unless masked.
    values = data.draw(hnp.arrays(np.float64, n, elements=st.floats(allow_nan=True)))
    mask = data.draw(hnp.arrays(np.bool_, n)) if masked else None
    want = pa.array(values, type=pa.float64(), mask=mask)
    got = float_array(values, mask)
    assert got.type == want.type and got.null_count == want.null_count
    # equals() tells NaN from NaN apart: compare the buffers' values where valid.
    valid = np.ones(n, dtype=bool) if mask is None else ~mask
    np.testing.assert_array_equal(
        np.asarray(got.buffers()[1]).view(np.float64)[:n][valid], values[valid]
    )
    assert got.is_null().equals(want.is_null())


def test_float_array_reads_float32_and_strided_values() -> None:
    values = np.arange(12, dtype=np.float32)[::3]
    _same(float_array(values), pa.array(values, type=pa.float64()))


@settings(max_examples=100, deadline=None)
@given(st.data(), st.integers(0, 40), st.booleans())
def test_bool_array_is_pa_array(data: st.DataObject, n: int, masked: bool) -> None:
    values = data.draw(hnp.arrays(np.bool_, n))
    mask = data.draw(hnp.arrays(np.bool_, n)) if masked else None
    _same(bool_array(values, mask), pa.array(values, mask=mask))


_TEXT = st.one_of(st.text(max_size=8), st.sampled_from(["", "ü<", LONG]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_TEXT, st.none()), max_size=30))
def test_string_array_is_pa_array(values: list[str | None]) -> None:
    _same(string_array(values), pa.array(values, type=pa.string()))
    present = [v for v in values if v is not None]
    _same(strings(present), pa.array(present, type=pa.string()))


def test_string_array_takes_text_subclasses_and_refuses_lone_surrogates() -> None:
    values = [np.str_("a"), "b", None]
    _same(string_array(values), pa.array(values, type=pa.string()))
    with pytest.raises(UnicodeEncodeError):
        string_array(["a\udcff"])


@settings(max_examples=150, deadline=None)
@given(st.data(), st.lists(_TEXT, max_size=6, unique=True), st.integers(0, 30))
def test_dictionary_array_is_from_arrays(data: st.DataObject, distinct: list[str], n: int) -> None:
    codes = np.asarray(
        data.draw(st.lists(st.integers(-1, len(distinct) - 1), min_size=n, max_size=n)),
        dtype=data.draw(st.sampled_from([np.intp, np.int64, np.int32])),
    )
    want = pa.DictionaryArray.from_arrays(
        pa.array(codes.astype(np.int32), mask=codes < 0), pa.array(distinct, type=pa.string())
    )
    _same(dictionary_array(codes, distinct), want)


def test_dictionary_array_refuses_codes_past_the_dictionary() -> None:
    with pytest.raises(pa.ArrowException):
        dictionary_array(np.array([0, 2]), ["a", "b"])


def test_masks_of_another_length_are_refused() -> None:
    with pytest.raises(ValueError, match="mask"):
        integer_array(np.arange(3), np.zeros(2, dtype=bool))


# -- the table against the pa.array version of it ---------------------------------


def _reference_table(records: LaunchRecords) -> pa.Table | None:
    """:meth:`LaunchRecords.arrow_table` as it was made with ``pa.array`` (which loads pandas)."""
    frame, n = records._frame, len(records)
    arrays, fields = [], []
    for f in records.fields:
        made = _ref_column(rec._read(frame, f)) if f in frame else (pa.nulls(n), False)
        if made is None:
            return None
        array, as_json = made
        arrays.append(array)
        fields.append(pa.field(f, array.type, metadata=JSON_FIELD if as_json else None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _ref_column(column: Any) -> tuple[pa.Array, bool] | None:
    values = column.values
    if column.kind == "float":
        return pa.array(values, type=pa.float64(), mask=~np.isfinite(values)), False
    if column.kind == "int":
        return pa.array(values), False
    if column.kind == "nullable":
        if values.dtype.kind != "b":
            values = values.astype(np.int64)
        missing = column.missing
        return pa.array(values, mask=missing if missing.any() else None), False
    if column.kind == "texts":
        coded = rec._extension_codes(column)
        if coded is None:
            return _ref_one(_ref_object_column(rec._column_values(column)))
        return _ref_dictionary(coded.codes, coded.distinct), False
    if not rec._long_texts(values):
        coded_texts = text_codes(values)
        if coded_texts is not None:
            codes, distinct = coded_texts
            return (_ref_dictionary(codes, distinct) if distinct else pa.nulls(len(values))), False
    items = column.objects()
    kinds = set(map(type, items))
    if kinds & rec._NESTED:
        if not kinds <= rec._NESTED | rec._MISSING:
            return None
        json = _ref_json_texts(items)
        return None if json is None else (json, True)
    if (
        kinds <= rec._MISSING | {str}
        and rec._long_texts(values)
        and (rec._MISSING | {str}).issuperset(map(type, items))
    ):
        codes, distinct = distinct_codes(items)
        if all(type(v) is str for v in distinct):
            return _ref_dictionary(codes, distinct), False
    try:
        array = pa.array(items, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return _ref_one(_ref_object_column(rec._column_values(column)))
    if pa.types.is_string(array.type):
        return array.dictionary_encode(), False
    if pa.types.is_int64(array.type) or pa.types.is_boolean(array.type):
        return array, False
    if pa.types.is_null(array.type):
        return array, False
    return _ref_one(_ref_object_column(rec._column_values(column)))


def _ref_one(array: pa.Array | None) -> tuple[pa.Array, bool] | None:
    return None if array is None else (array, False)


def _ref_dictionary(codes: np.ndarray, distinct: list[str]) -> pa.Array:
    indices = pa.array(codes.astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(distinct, type=pa.string()))


def _ref_json_texts(items: np.ndarray) -> pa.Array | None:
    objects, firsts = distinct_objects(items)
    text_code: dict[bytes, int] = {}
    object_code = np.empty(len(firsts), dtype=np.int32)
    for j, row in enumerate(firsts.tolist()):
        value = items[row]
        if type(value) not in rec._NESTED:
            if value is not None and value == value:
                return None
            object_code[j] = -1
            continue
        try:
            text = orjson.dumps(value)
        except TypeError:
            return None
        if not same_value(orjson.loads(text), value):
            return None
        object_code[j] = text_code.setdefault(text, len(text_code))
    codes = object_code[objects]
    indices = pa.array(codes, mask=codes < 0)
    distinct = pa.array([t.decode("utf-8") for t in text_code], type=pa.string())
    return pa.DictionaryArray.from_arrays(indices, distinct)


_ARROW_TYPES = {str: pa.string(), int: pa.int64(), bool: pa.bool_(), float: pa.float64()}


def _ref_object_column(values: list[Any]) -> pa.Array | None:
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if not kinds:
        return pa.nulls(len(values))
    if len(kinds) > 1:
        return None
    kind = kinds.pop()
    if kind not in _ARROW_TYPES:
        return None
    try:
        return pa.array(values, type=_ARROW_TYPES[kind])
    except (pa.ArrowException, OverflowError):
        return None


def _same_table(got: pa.Table | None, want: pa.Table | None) -> None:
    assert (got is None) == (want is None)
    if got is None or want is None:
        return
    assert got.schema.equals(want.schema, check_metadata=True)
    for name in want.column_names:
        a, b = got.column(name), want.column(name)
        assert a.type == b.type, name
        assert a.null_count == b.null_count, name
        assert a.equals(b), name


class _Text(str):
    """A text subclass (what Arrow converts as a text)."""

    __slots__ = ()


#: Odd values an object column may hold: numpy's scalars, text subclasses, big
#: ints, infinities, bytes, tuples; each a column on its own and mixed in.
_ODD = st.sampled_from(
    [
        np.int64(3),
        np.int32(-2),
        np.uint64(2**64 - 1),
        np.float64(1.5),
        np.float32(2.5),
        np.bool_(True),
        np.str_("np"),
        _Text("sub"),
        _Text(LONG),
        2**63,
        -(2**63),
        2**63 - 1,
        math.inf,
        -math.inf,
        1.0,
        7,
        True,
        False,
        "a",
        LONG,
        b"x",
        (1, 2),
        None,
        math.nan,
    ]
)


@st.composite
def _odd_frames(draw: st.DrawFn) -> tuple[pd.DataFrame, tuple[str, ...]]:
    n = draw(st.integers(1, 80))
    data = {}
    for i in range(draw(st.integers(1, 4))):
        # A few of the odd values, repeated over the rows (so that some
        # columns are long enough to be told apart by object).
        pool = draw(st.lists(_ODD, min_size=1, max_size=3))
        rows = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n))
        data[f"c{i}"] = pd.Series([pool[r] for r in rows], dtype=object)
    frame = pd.DataFrame(data)
    return frame, (*frame.columns, "absent")


def _both(frame: pd.DataFrame, fields: tuple[str, ...]) -> None:
    for launches in (frame, Table.from_frame(frame)):
        records = LaunchRecords(launches, fields)
        got, want = records.arrow_table(), _reference_table(records)
        if got is None and want is not None:
            # Where Arrow's conversion made ints of numpy's bools among ints
            # (True read back as 1), its table was not the records': none now.
            assert not same_value(list(TableRecords(want)), list(records))
            continue
        _same_table(got, want)


@settings(max_examples=150, deadline=None)
@given(frames())
def test_tables_of_random_frames_are_the_reference(
    made: tuple[pd.DataFrame, tuple[str, ...]],
) -> None:
    _both(*made)


@settings(max_examples=200, deadline=None)
@given(_odd_frames())
def test_tables_of_odd_objects_are_the_reference(
    made: tuple[pd.DataFrame, tuple[str, ...]],
) -> None:
    _both(*made)


def test_int_and_bool_columns_with_missing_values() -> None:
    frame = pd.DataFrame(
        {
            "ints": pd.Series([1, None, 2**62] * 30, dtype=object),
            "flags": pd.Series([True, None, False] * 30, dtype=object),
            "floats": pd.Series([1.5, None, math.inf] * 30, dtype=object),
            "np": pd.Series([np.str_("x"), None, "y"] * 30, dtype=object),
        }
    )
    _both(frame, tuple(frame.columns))
    got = LaunchRecords(frame, tuple(frame.columns)).arrow_table()
    assert got is not None
    assert [got.schema.field(c).type for c in frame.columns] == [
        pa.int64(),
        pa.bool_(),
        pa.float64(),
        pa.dictionary(pa.int32(), pa.string()),
    ]


@pytest.mark.parametrize(("name", "gpu"), _CASES)
def test_cache_tables_of_samples_are_the_reference(name: str, gpu: str | None) -> None:
    analysis = _analysis(name, gpu)
    tables = _as_tables(analysis)
    for launches in (analysis.launches, Table.from_frame(analysis.launches), tables.launches):
        fields = (*launches.columns, "absent")
        records = LaunchRecords(launches, tuple(fields))
        got = records.arrow_table()
        assert got is not None
        _same_table(got, _reference_table(records))


# -- no pandas ----------------------------------------------------------------------

_NO_PANDAS = """
import sys
import numpy as np
from ncu_roofline.core.columns import LAUNCH_FIELDS
from ncu_roofline.core.table import Table
from ncu_roofline.report.records import LaunchRecords

n = 600
long = "void kernel<128>(" + "x" * 300 + ")"
names = np.array([long, long + "2", None] * (n // 3), dtype=object)
texts = np.empty(n, dtype=object)
texts[:] = [f"launch {i % 7}" if i % 5 else None for i in range(n)]
rules = np.empty(n, dtype=object)
rules[:] = [[{"rule": "r", "pct": 1.5}] if i % 2 else None for i in range(n)]
ints = np.empty(n, dtype=object)
ints[:] = [i if i % 4 else None for i in range(n)]
mixed = np.empty(n, dtype=object)
mixed[:] = [np.str_("a") if i % 3 else "b" for i in range(n)]
floats = np.linspace(0.0, 1.0, n)
floats[::7] = np.nan
floats[1::11] = np.inf
device = np.arange(n, dtype=np.float64)
device[::3] = np.nan
table = Table({
    "kernel_name": names, "explanation": texts, "rule_results": rules, "counts": ints,
    "odd": mixed, "duration_ns": floats, "device": device,
    "id": np.arange(n, dtype=np.int64), "flag": np.arange(n) % 2 == 0,
    "lone": np.full(n, np.nan),
}, n)
fields = (*table.columns, "absent", *(f for f in LAUNCH_FIELDS if f not in table))
arrow = LaunchRecords(table, fields).arrow_table()
assert arrow is not None and arrow.num_rows == n, arrow
assert "pandas" not in sys.modules, "pandas loaded"
assert "pyarrow.compute" not in sys.modules, "pyarrow.compute loaded"
print(arrow.schema.field("rule_results").metadata, arrow.column("counts").type)
"""


def test_a_cache_table_of_numpy_columns_loads_no_pandas() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", _NO_PANDAS],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "json" in done.stdout and "int64" in done.stdout
