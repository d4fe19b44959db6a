"""Frame rows as plain-data records: all at once, or a block at a time on demand.

A report of a large export holds hundreds of thousands of launches; as
dicts of Python values they take several times the memory of the frame
they come from.  :class:`LaunchRecords` keeps the frame and the field list
and makes the dicts of a block of rows only when they are read, so the
JSON writer can encode the launches block by block and every other
renderer can still index and iterate them as a list.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from typing import Any, cast, overload

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from ncu_roofline.core.frame import floats
from ncu_roofline.core.grouping import distinct_codes, distinct_objects, text_codes
from ncu_roofline.report.schema import LaunchRecord
from ncu_roofline.report.table_records import (
    BLOCK_ROWS,
    JSON_FIELD,
    CodedColumn,
    ColumnValues,
    same_value,
)

__all__ = ["BLOCK_ROWS", "CodedColumn", "ColumnValues", "LaunchRecords", "records"]


def records(frame: pd.DataFrame, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows as dicts of plain Python values, NaN/NA/infinities as None.

    Built column by column: each column becomes one list of plain values in
    a vectorised step (missing values masked to ``None``), and the rows are
    zipped from those lists, so no value is looked at on its own unless its
    column holds objects other than strings, numbers and ``None``.
    """
    n = len(frame)
    cols = [_column_values(frame[f]) if f in frame else [None] * n for f in fields]
    # Every list has n values and every row len(fields); map keeps the loop in C.
    return list(map(dict, map(zip, repeat(fields), zip(*cols, strict=False))))


class LaunchRecords(Sequence[LaunchRecord]):
    """The rows of ``frame`` as :func:`records` would give them, made a block at a time.

    A read-only sequence: its length, items (negative indexes too), slices
    (lists of dicts), iteration and equality are those of
    ``records(frame, fields)``; it never holds more than one block of dicts.
    Each read makes fresh dicts, so changing one changes nothing here.
    """

    __slots__ = ("_fields", "_frame")

    def __init__(self, frame: pd.DataFrame, fields: tuple[str, ...]) -> None:
        self._frame = frame
        self._fields = tuple(fields)

    @property
    def fields(self) -> tuple[str, ...]:
        """The keys of every record, in order."""
        return self._fields

    def __len__(self) -> int:
        return len(self._frame)

    @overload
    def __getitem__(self, index: int) -> LaunchRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[LaunchRecord]: ...

    def __getitem__(self, index: int | slice) -> LaunchRecord | list[LaunchRecord]:
        if isinstance(index, slice):
            return _launches(records(self._frame.iloc[index], self._fields))
        n = len(self._frame)
        at = index.__index__()
        if at < 0:
            at += n
        if not 0 <= at < n:
            raise IndexError("launch record index out of range")
        return _launches(records(self._frame.iloc[at : at + 1], self._fields))[0]

    def column(self, field: str) -> list[Any]:
        """The values of one field in every record, in order, made in one vectorised step."""
        if field not in self._fields:
            raise KeyError(field)
        if field not in self._frame:
            return [None] * len(self._frame)
        return _column_values(self._frame[field])

    def coded(self, field: str) -> CodedColumn | None:
        """A text field of every record as codes and its distinct texts (hashed in C, no
        value made per record); None where the field holds anything but texts and missing
        values."""
        if field not in self._fields:
            raise KeyError(field)
        if field not in self._frame:
            return CodedColumn([], np.full(len(self._frame), -1, dtype=np.intp))
        found = _column_array(self._frame[field])
        return found if isinstance(found, CodedColumn) else None

    def blocks(self, size: int = BLOCK_ROWS) -> Iterator[list[LaunchRecord]]:
        """The records as lists of at most ``size`` dicts, in order (none when empty)."""
        if size < 1:
            raise ValueError(f"block size must be >= 1, not {size}")
        for start in range(0, len(self._frame), size):
            yield _launches(records(self._frame.iloc[start : start + size], self._fields))

    def column_blocks(self, size: int = BLOCK_ROWS) -> Iterator[tuple[int, list[ColumnValues]]]:
        """The records a block at a time as columns: ``(rows, [(field, values), ...])``.

        ``values`` is a numpy array for a numeric column (a non-finite float
        is a missing value, as in the records), a :class:`CodedColumn` for a
        text column, and a list of the records' own plain values otherwise: what a writer needs to encode the block
        column by column, with no dict made per record.
        """
        if size < 1:
            raise ValueError(f"block size must be >= 1, not {size}")
        n = len(self._frame)
        if n == 0:
            return
        # Each column's array taken once and sliced per block: no frame sliced
        # per block and no pandas column looked up per block and field.
        makers = [
            (f, _block_maker(self._frame[f]) if f in self._frame else None) for f in self._fields
        ]
        for start in range(0, n, size):
            stop = min(start + size, n)
            rows = stop - start
            yield (
                rows,
                [(f, make(start, stop) if make else [None] * rows) for f, make in makers],
            )

    def __iter__(self) -> Iterator[LaunchRecord]:
        for block in self.blocks():
            yield from block

    def arrow_table(self) -> pa.Table | None:
        """The records as an Arrow table that
        :class:`~ncu_roofline.report.table_records.TableRecords` reads back as they are.

        One column per field, holding the plain values the records give:
        numbers with missing and non-finite ones null, texts dictionary-encoded,
        lists and dicts (ncu's rule results, projections per GPU) as their JSON
        texts, dictionary-encoded and marked :data:`JSON_FIELD`, a field the
        frame lacks as nulls.  None when a field mixes kinds of value (texts
        and numbers, ints and floats) that one Arrow column could not give back
        as they were, or holds a nested value JSON would change.
        """
        n = len(self._frame)
        arrays: list[pa.Array] = []
        fields: list[pa.Field] = []
        for f in self._fields:
            made = _arrow_column(self._frame[f]) if f in self._frame else (pa.nulls(n), False)
            if made is None:
                return None
            array, as_json = made
            arrays.append(array)
            fields.append(pa.field(f, array.type, metadata=JSON_FIELD if as_json else None))
        return pa.Table.from_arrays(arrays, schema=pa.schema(fields))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LaunchRecords):
            if other._frame is self._frame and other._fields == self._fields:
                return True
        elif not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"<LaunchRecords: {len(self)} records of {len(self._fields)} fields>"


def _launches(rows: list[dict[str, Any]]) -> list[LaunchRecord]:
    """Rows made with the launch fields (``LAUNCH_FIELDS`` and the profile's extras) are launch records."""
    return cast("list[LaunchRecord]", rows)


#: Types an object column may hold that need no conversion (numpy scalars and
#: floats, possibly infinite, go through :func:`_plain`).
_PLAIN_TYPES = frozenset({str, int, bool, type(None)})


#: The Arrow type of an object column whose plain values are all of one Python type.
_ARROW_TYPES = {str: pa.string(), int: pa.int64(), bool: pa.bool_(), float: pa.float64()}


def _arrow_column(s: pd.Series) -> tuple[pa.Array, bool] | None:
    """One column's plain values (as :func:`_column_values` gives them) as an Arrow array,
    and whether it holds JSON texts; None when they mix Python types."""
    if pd.api.types.is_float_dtype(s.dtype):
        arr = floats(s)
        return pa.array(arr, type=pa.float64(), mask=~np.isfinite(arr)), False
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iub":
        return pa.array(s.to_numpy()), False
    if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and (
        pd.api.types.is_integer_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)
    ):
        # Nullable ints and booleans: their values and their missing mask, no objects.
        missing = s.isna().to_numpy(dtype=bool)
        if pd.api.types.is_integer_dtype(s.dtype):
            values = s.to_numpy(dtype=np.int64, na_value=0)
        else:
            values = s.to_numpy(dtype=np.bool_, na_value=False)
        return pa.array(values, mask=missing if missing.any() else None), False
    if isinstance(s.dtype, pd.StringDtype):
        return _one(_coded_texts(s))
    if s.dtype != object:
        return _one(_object_column(_column_values(s)))
    if not _long_texts(s):
        texts = _hashed_texts(s.to_numpy())
        if texts is not None:
            return texts, False
    kinds = set(map(type, s.to_numpy()))
    if kinds & _NESTED:
        if not kinds <= _NESTED | _MISSING:
            return None
        json = _json_texts(s.to_numpy())
        return None if json is None else (json, True)
    if kinds <= _MISSING | {str} and _long_texts(s):
        texts = _coded_texts(s)
        if texts is not None:
            return texts, False
    return _one(_objects_column(s))


def _one(array: pa.Array | None) -> tuple[pa.Array, bool] | None:
    return None if array is None else (array, False)


#: What a row of an object column may hold for a missing value.
_MISSING = frozenset({type(None), float, type(pd.NA)})
#: Nested values, kept as their JSON texts.
_NESTED = frozenset({list, dict})


def _json_texts(items: np.ndarray) -> pa.Array | None:
    """Lists and dicts as a dictionary array of their JSON texts, each distinct object
    encoded once; None when one would not read back from JSON as it is."""
    objects, firsts = distinct_objects(items)
    text_code: dict[bytes, int] = {}
    object_code = np.empty(len(firsts), dtype=np.int32)
    for j, row in enumerate(firsts.tolist()):
        value = items[row]
        if type(value) not in _NESTED:
            if not pd.isna(value):
                return None  # a number among the lists: not one kind of value
            object_code[j] = -1
            continue
        try:
            text = orjson.dumps(value)
        except TypeError:
            return None  # a key that is no text, a value JSON cannot hold
        if not same_value(orjson.loads(text), value):
            return None
        object_code[j] = text_code.setdefault(text, len(text_code))
    codes = object_code[objects]
    indices = pa.array(codes, mask=codes < 0)
    distinct = pa.array([t.decode("utf-8") for t in text_code], type=pa.string())
    return pa.DictionaryArray.from_arrays(indices, distinct)


#: Texts longer than this on average (kernel names: up to a kilobyte) are
#: told apart by object rather than copied into Arrow row by row.
_LONG_TEXT = 64


def _long_texts(s: pd.Series) -> bool:
    """Whether a sample of the column holds long texts, equal ones held in one object.

    Such a column (kernel names, sources) is a few objects repeated on every
    row: coded by object, nothing is copied.  A column made row by row
    (explanations formatted per launch) holds an object per row: Arrow
    copies and encodes it faster than Python could tell its objects apart.
    """
    sample = [v for v in s.iloc[:: max(1, len(s) // 32)].to_numpy() if type(v) is str]
    if not sample or sum(map(len, sample)) <= _LONG_TEXT * len(sample):
        return False
    return len(set(map(id, sample))) <= len(set(sample))


def _hashed_texts(items: np.ndarray) -> pa.Array | None:
    """An object column of short texts (missing values aside) as a dictionary array,
    its distinct texts found by hashing in C (:func:`~ncu_roofline.core.grouping.text_codes`);
    None when it holds anything else.  A column with nothing but missing values is nulls.
    """
    coded = text_codes(items)
    if coded is None:
        return None
    codes, distinct = coded
    if not distinct:
        return pa.nulls(len(items))
    indices = pa.array(codes.astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(distinct, type=pa.string()))


def _coded_texts(s: pd.Series) -> pa.Array | None:
    """A column of texts (missing values aside) as a dictionary array, each distinct
    text once, never copied or hashed per row; None when it holds anything else."""
    if s.dtype == object and not (_MISSING | {str}).issuperset(map(type, s.to_numpy())):
        return None
    codes, distinct = distinct_codes(s)
    if not all(type(v) is str for v in distinct):
        return None  # a float that is a number, not a missing value
    indices = pa.array(codes.astype(np.int32), mask=codes < 0)
    return pa.DictionaryArray.from_arrays(indices, pa.array(distinct, type=pa.string()))


def _objects_column(s: pd.Series) -> pa.Array | None:
    """An object column as Arrow converts it (in C), where that keeps every value as it is."""
    try:
        array = pa.array(s.to_numpy(), from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return _object_column(_column_values(s))
    kind = array.type
    if pa.types.is_string(kind):
        return array.dictionary_encode()
    if pa.types.is_int64(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind):
        return array  # only ints, only bools, only missing: Arrow takes no other mix
    # Floats (maybe mixed with ints, which Arrow would turn into floats), and the rest.
    return _object_column(_column_values(s))


def _object_column(values: list[Any]) -> pa.Array | None:
    """Plain values of one Python type (and ``None``) as an Arrow array; None when mixed."""
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
        return None  # an int beyond 64 bits


def _block_maker(s: pd.Series) -> Callable[[int, int], np.ndarray | CodedColumn | list[Any]]:
    """What :func:`_column_array` gives for the rows ``start:stop`` of ``s``, made per block.

    numpy numbers are sliced from one array (views, as ``floats`` gives a
    float column: NaN its only missing value); object columns are sliced
    and their texts coded per block; other kinds are made from the
    Series' rows.
    """
    dtype = s.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiub":
        values = s.to_numpy(dtype=np.float64) if dtype.kind == "f" else s.to_numpy()
        return lambda start, stop: values[start:stop]
    if isinstance(dtype, np.dtype) and dtype.kind == "O":
        items = s.to_numpy()

        def coded(start: int, stop: int) -> CodedColumn | list[Any]:
            found = text_codes(items[start:stop])
            if found is None:
                return _column_values(s.iloc[start:stop])
            codes, texts = found
            return CodedColumn(texts, codes)

        return coded
    return lambda start, stop: _column_array(s.iloc[start:stop])


def _column_array(s: pd.Series) -> np.ndarray | CodedColumn | list[Any]:
    """A numeric column as a numpy array (non-finite floats missing), a column of texts
    and missing values as :class:`CodedColumn`, else :func:`_column_values`."""
    if pd.api.types.is_float_dtype(s.dtype):
        return floats(s)
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iub":
        return s.to_numpy()
    plain = getattr(s.dtype, "numpy_dtype", None)  # of pandas' nullable numbers
    if isinstance(s.dtype, pd.api.extensions.ExtensionDtype) and plain is not None:
        # Nullable ints and booleans (launch ids, streams): an array when none is
        # missing, a column of nulls when all are; the records' values either way.
        missing = s.isna().to_numpy(dtype=bool)
        if not missing.any() and np.dtype(plain).kind in "iub":
            return s.to_numpy(dtype=plain)
        if missing.all():
            return CodedColumn([], np.full(len(s), -1, dtype=np.intp))
    if isinstance(s.dtype, pd.StringDtype):
        # Only text: distinct values found in one vectorised step, no Python per row.
        codes, distinct = pd.factorize(s, use_na_sentinel=True)
        return CodedColumn([str(v) for v in distinct.tolist()], np.asarray(codes, dtype=np.intp))
    if s.dtype == object:
        # Texts and missing values (most object columns: a kernel's name, a basis):
        # hashed in C, each distinct text then encoded once, not once per row.
        coded = text_codes(s.to_numpy())
        if coded is not None:
            codes, texts = coded
            return CodedColumn(texts, codes)
    return _column_values(s)


def _column_values(s: pd.Series) -> list[Any]:
    """One column as a list of plain Python values, missing as ``None``."""
    if pd.api.types.is_float_dtype(s.dtype):
        arr = floats(s)
        bad = ~np.isfinite(arr)
        if not bad.any():
            return cast("list[Any]", arr.tolist())
        out = arr.astype(object)
        out[bad] = None
        return cast("list[Any]", out.tolist())
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iub":
        # numpy ints and bools hold no missing values; nullable ones go below.
        return cast("list[Any]", s.to_numpy().tolist())
    values = s.to_numpy(dtype=object)
    missing = pd.isna(values)
    if missing.any():
        values = values.copy()  # to_numpy may hand out the frame's own array
        values[missing] = None
    if _PLAIN_TYPES.issuperset(map(type, values)):
        return cast("list[Any]", values.tolist())
    return [_plain(v) for v in values.tolist()]


def _plain(value: Any) -> Any:
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return _plain(value.item())
    return value
