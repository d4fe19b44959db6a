"""Launch-long columns as plain-data records: all at once, or a block at a time on demand.

A report of a large export holds hundreds of thousands of launches; as
dicts of Python values they take several times the memory of the columns
they come from.  :class:`LaunchRecords` keeps the columns (a pandas frame or
a :class:`~ncu_roofline.core.table.Table`) and the field list and makes the
dicts of a block of rows only when they are read, so the JSON writer can
encode the launches block by block and every other renderer can still
index and iterate them as a list.

A frame and the table of it (:meth:`~ncu_roofline.core.table.Table.from_frame`)
give the same records: each column is first read as one of a few kinds of
numpy values (:class:`_Column`), and the records are made from those.  A
table holds the launch model's nullable integers as float64 with NaN (a
frame as ``Int64``); the column registry says which they are, so they are
integers in the records either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from itertools import repeat
from typing import TYPE_CHECKING, Any, Literal, cast, overload

import numpy as np
import numpy.typing as npt
import orjson
import pyarrow as pa

from ncu_roofline.core.arrays import (
    bool_array,
    dictionary_array,
    float_array,
    integer_array,
    string_array,
)
from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.grouping import distinct_codes, distinct_objects, text_codes
from ncu_roofline.core.table import Table, as_floats, as_objects, object_ids
from ncu_roofline.report.schema import LaunchRecord
from ncu_roofline.report.table_records import (
    BLOCK_ROWS,
    JSON_FIELD,
    CodedColumn,
    ColumnValues,
    same_value,
)

if TYPE_CHECKING:
    from pandas.api.extensions import ExtensionArray

    from ncu_roofline.core.frame import Columns

__all__ = ["BLOCK_ROWS", "CodedColumn", "ColumnValues", "LaunchRecords", "records"]

#: The launch model's integer columns: a table holds them as float64 with NaN
#: where missing, a frame as nullable ``Int64``; the records hold Python ints.
_INT_COLUMNS = frozenset(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "int")

#: How a column's values are held once read (:class:`_Column`).
_Kind = Literal["float", "int", "nullable", "objects", "texts"]


class _Column:
    """One column of a frame or a table (or some of its rows) as numpy values.

    ``kind`` says how ``values`` hold them:

    * ``"float"``: float64, NaN (and infinities) missing;
    * ``"int"``: numpy ints, uints or bools, none missing;
    * ``"nullable"``: numpy ints or bools, with ``missing`` True where a
      value is missing (pandas' nullable numbers, a table's launch-model
      integers); ``values`` hold 0 or False there;
    * ``"objects"``: an object array as the column holds it, missing values
      None, NaN or (a frame's) pandas' NA;
    * ``"texts"``: no ``values``: a frame's extension array of texts (pandas'
      strings) in ``source``, which codes its texts itself.

    ``source`` is the frame's own array, read again for the objects with
    None where missing (pandas' notion of missing, which numpy lacks).
    """

    __slots__ = ("kind", "missing", "source", "values")

    def __init__(
        self,
        kind: _Kind,
        values: npt.NDArray[Any] | None,
        missing: npt.NDArray[np.bool_] | None = None,
        source: ExtensionArray | None = None,
    ) -> None:
        self.kind = kind
        self.values = values
        self.missing = missing
        self.source = source

    def take(self, rows: slice) -> _Column:
        """The rows ``rows`` of the column."""
        return _Column(
            self.kind,
            None if self.values is None else self.values[rows],
            None if self.missing is None else self.missing[rows],
            None if self.source is None else self.source[rows],
        )

    def objects(self) -> npt.NDArray[np.object_]:
        """The values as objects, None where missing."""
        if self.source is not None:
            # None stands for any missing value (pandas' stubs allow only scalars).
            out: npt.NDArray[np.object_] = self.source.to_numpy(
                dtype=object,
                na_value=None,  # type: ignore[arg-type]
            )
            return out
        assert self.values is not None
        return as_objects(self.values)


def _read(frame: Columns, name: str, rows: slice | None = None) -> _Column:
    """Column ``name`` of ``frame`` (the rows ``rows``, default all) as a :class:`_Column`.

    Only ``rows`` are read, so a record or a block costs its own rows, not
    the column's.
    """
    if isinstance(frame, Table):
        return _table_column(name, frame[name] if rows is None else frame[name][rows])
    series = frame[name]
    dtype = series.dtype
    array = series.array if rows is None else series.array[rows]
    if isinstance(dtype, np.dtype):
        if dtype.kind == "f":
            return _Column("float", array.to_numpy(dtype=np.float64))
        if dtype.kind in "iub":
            return _Column("int", array.to_numpy())
        if dtype.kind == "O":
            return _Column("objects", array.to_numpy(), source=array)
        # Dates and the like: their objects (pandas' Timestamps), NaT as None.
        return _Column("objects", array.to_numpy(dtype=object, na_value=None), source=array)
    if dtype.kind == "f":
        return _Column("float", array.to_numpy(dtype=np.float64, na_value=np.nan))
    plain = getattr(dtype, "numpy_dtype", None)
    if dtype.kind in "iub" and plain is not None and np.dtype(plain).kind in "iub":
        # pandas' nullable numbers: their values and their mask, no objects.
        missing = np.asarray(array.isna(), dtype=bool)
        fill = False if np.dtype(plain).kind == "b" else 0
        return _Column("nullable", array.to_numpy(dtype=plain, na_value=fill), missing)
    if getattr(dtype, "type", None) is str:
        # pandas' texts (Arrow's among them): coded by their array, no text made per row.
        return _Column("texts", None, source=array)
    return _Column("objects", array.to_numpy(dtype=object, na_value=None), source=array)


def _table_column(name: str, values: npt.NDArray[Any]) -> _Column:
    """A table's column (read-only, shared) as a :class:`_Column`."""
    kind = values.dtype.kind
    if kind == "f":
        if name in _INT_COLUMNS:
            # The launch model's integers, held as floats only for their NaN.
            missing = ~np.isfinite(values)
            return _Column("nullable", np.where(missing, 0.0, values).astype(np.int64), missing)
        return _Column("float", as_floats(values))
    if kind in "iub":
        return _Column("int", values)
    return _Column("objects", values if kind == "O" else as_objects(values))


def _rows(frame: Columns, rows: slice | None) -> int:
    n = len(frame)
    return n if rows is None else len(range(*rows.indices(n)))


def records(frame: Columns, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rows as dicts of plain Python values, NaN/NA/infinities as None.

    ``frame`` is a pandas frame or a :class:`~ncu_roofline.core.table.Table`:
    the same columns give the same records.  Built column by column: each
    column becomes one list of plain values in a vectorised step (missing
    values masked to ``None``), and the rows are zipped from those lists, so
    no value is looked at on its own unless its column holds objects other
    than strings, numbers and ``None``.
    """
    return _records(frame, fields, None)


def _records(frame: Columns, fields: tuple[str, ...], rows: slice | None) -> list[dict[str, Any]]:
    """:func:`records` of the rows ``rows`` (all when None)."""
    n = _rows(frame, rows)
    cols = [_column_values(_read(frame, f, rows)) if f in frame else [None] * n for f in fields]
    # Every list has n values and every row len(fields); map keeps the loop in C.
    return list(map(dict, map(zip, repeat(fields), zip(*cols, strict=False))))


class LaunchRecords(Sequence[LaunchRecord]):
    """The rows of ``frame`` as :func:`records` would give them, made a block at a time.

    ``frame`` is a pandas frame or a :class:`~ncu_roofline.core.table.Table`.
    A read-only sequence: its length, items (negative indexes too), slices
    (lists of dicts), iteration and equality are those of
    ``records(frame, fields)``; it never holds more than one block of dicts.
    Each read makes fresh dicts, so changing one changes nothing here.
    """

    __slots__ = ("_fields", "_frame")

    def __init__(self, frame: Columns, fields: tuple[str, ...]) -> None:
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
            return _launches(_records(self._frame, self._fields, index))
        n = len(self._frame)
        at = index.__index__()
        if at < 0:
            at += n
        if not 0 <= at < n:
            raise IndexError("launch record index out of range")
        return _launches(_records(self._frame, self._fields, slice(at, at + 1)))[0]

    def column(self, field: str) -> list[Any]:
        """The values of one field in every record, in order, made in one vectorised step."""
        if field not in self._fields:
            raise KeyError(field)
        if field not in self._frame:
            return [None] * len(self._frame)
        return _column_values(_read(self._frame, field))

    def coded(self, field: str) -> CodedColumn | None:
        """A text field of every record as codes and its distinct texts (hashed in C, no
        value made per record); None where the field holds anything but texts and missing
        values."""
        if field not in self._fields:
            raise KeyError(field)
        if field not in self._frame:
            return CodedColumn([], np.full(len(self._frame), -1, dtype=np.intp))
        found = _column_array(_read(self._frame, field))
        return found if isinstance(found, CodedColumn) else None

    def blocks(self, size: int = BLOCK_ROWS) -> Iterator[list[LaunchRecord]]:
        """The records as lists of at most ``size`` dicts, in order (none when empty)."""
        if size < 1:
            raise ValueError(f"block size must be >= 1, not {size}")
        for start in range(0, len(self._frame), size):
            yield _launches(_records(self._frame, self._fields, slice(start, start + size)))

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
        # Each column read once and sliced per block: no column looked up or
        # converted per block and field.
        makers = [
            (f, _block_maker(_read(self._frame, f)) if f in self._frame else None)
            for f in self._fields
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

        Every array is built from numpy buffers (:mod:`ncu_roofline.core.arrays`),
        never by pyarrow's conversions, which load pandas: a table's records
        make their cache table without it.
        """
        n = len(self._frame)
        arrays: list[pa.Array] = []
        fields: list[pa.Field] = []
        for f in self._fields:
            made = (
                _arrow_column(_read(self._frame, f)) if f in self._frame else (pa.nulls(n), False)
            )
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


def _arrow_column(column: _Column) -> tuple[pa.Array, bool] | None:
    """One column's plain values (as :func:`_column_values` gives them) as an Arrow array,
    and whether it holds JSON texts; None when they mix Python types."""
    values = column.values
    if column.kind == "float":
        assert values is not None
        return float_array(values, ~np.isfinite(values)), False
    if column.kind == "int":
        assert values is not None
        return _numbers_array(values, None), False
    if column.kind == "nullable":
        # Nullable ints and booleans: their values and their missing mask, no objects.
        assert values is not None and column.missing is not None
        if values.dtype.kind != "b":
            values = values.astype(np.int64)
        return _numbers_array(values, column.missing), False
    if column.kind == "texts":
        coded = _extension_codes(column)
        if coded is None:
            return _one(_object_column(_column_values(column)))
        return dictionary_array(coded.codes, coded.distinct), False
    assert values is not None
    if not _long_texts(values):
        texts = _hashed_texts(values)
        if texts is not None:
            return texts, False
    items = column.objects()
    kinds = set(map(type, items))
    if kinds & _NESTED:
        if not kinds <= _NESTED | _MISSING:
            return None
        json = _json_texts(items)
        return None if json is None else (json, True)
    if kinds <= _MISSING | {str} and _long_texts(values):
        texts = _coded_texts(items)
        if texts is not None:
            return texts, False
    return _one(_objects_column(items))


def _numbers_array(values: np.ndarray, missing: np.ndarray | None) -> pa.Array:
    """numpy ints or bools as the Arrow array of their type, null where ``missing``."""
    if values.dtype.kind == "b":
        return bool_array(values, missing)
    return integer_array(values, missing)


def _one(array: pa.Array | None) -> tuple[pa.Array, bool] | None:
    return None if array is None else (array, False)


#: What a row of an object column may hold for a missing value, once pandas'
#: NA is None (:meth:`_Column.objects`).
_MISSING = frozenset({type(None), float})
#: Nested values, kept as their JSON texts.
_NESTED = frozenset({list, dict})


def _json_texts(items: np.ndarray) -> pa.Array | None:
    """Lists and dicts (None where missing) as a dictionary array of their JSON texts,
    each distinct object encoded once; None when one would not read back from JSON as
    it is."""
    objects, firsts = distinct_objects(items)
    text_code: dict[bytes, int] = {}
    object_code = np.empty(len(firsts), dtype=np.int32)
    for j, row in enumerate(firsts.tolist()):
        value = items[row]
        if type(value) not in _NESTED:
            if value is not None and value == value:
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
    return dictionary_array(object_code[objects], [t.decode("utf-8") for t in text_code])


#: Texts longer than this on average (kernel names: up to a kilobyte) are
#: told apart by object rather than copied into Arrow row by row.
_LONG_TEXT = 64


def _long_texts(items: np.ndarray) -> bool:
    """Whether a sample of an object column holds long texts, equal ones held in one object.

    Such a column (kernel names, sources) is a few objects repeated on every
    row: coded by object, nothing is copied.  A column made row by row
    (explanations formatted per launch) holds an object per row: Arrow
    copies and encodes it faster than Python could tell its objects apart.
    """
    sample = [v for v in items[:: max(1, len(items) // 32)].tolist() if type(v) is str]
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
    return dictionary_array(codes, distinct)


def _coded_texts(items: np.ndarray) -> pa.Array | None:
    """An object column of texts (None or NaN where missing) as a dictionary array, each
    distinct text once, never copied or hashed per row; None when it holds anything else."""
    if not (_MISSING | {str}).issuperset(map(type, items)):
        return None
    codes, distinct = distinct_codes(items)
    if not all(type(v) is str for v in distinct):
        return None  # a float that is a number, not a missing value
    return dictionary_array(codes, distinct)


def _objects_column(items: np.ndarray) -> pa.Array | None:
    """Any other object column (``items``: its objects, None where missing): texts (a
    text subclass, numpy's texts) dictionary-encoded, else its plain values as
    :func:`_object_column` makes them.

    The types are read from the values, not inferred by pyarrow's conversion
    (which loads pandas, and made ints of numpy's bools among ints: True
    read back as 1; such a mix is refused now, as any mix).  A column that
    reaches here holds numbers or odd objects, not the launch model's texts,
    which are coded by object or by value before.
    """
    kinds = set(map(type, items))
    kinds.discard(type(None))
    if kinds and all(issubclass(k, str) for k in kinds):
        codes, distinct = distinct_codes(items)
        return dictionary_array(codes, distinct)
    return _object_column(_plain_values(items))


#: The numpy type an object column of each plain Python type is converted to,
#: and the value its missing rows hold meanwhile.
_NUMPY_TYPES: dict[type, tuple[type[np.generic], Any]] = {
    int: (np.int64, 0),
    bool: (np.bool_, False),
    float: (np.float64, 0.0),
}


def _object_column(values: list[Any]) -> pa.Array | None:
    """Plain values of one Python type (and ``None``) as an Arrow array; None when mixed
    (or an int beyond 64 bits)."""
    kinds = set(map(type, values))
    kinds.discard(type(None))
    if not kinds:
        return pa.nulls(len(values))
    if len(kinds) > 1:
        return None
    kind = kinds.pop()
    if kind is str:
        return string_array(values)
    if kind not in _NUMPY_TYPES:
        return None
    dtype, fill = _NUMPY_TYPES[kind]
    holder = np.empty(len(values), dtype=object)
    holder[:] = values
    # None is one object: its rows are found by address, in C.
    missing = object_ids(holder) == id(None)
    holder[missing] = fill
    try:
        data = holder.astype(dtype)
    except OverflowError:
        return None  # an int beyond 64 bits
    if dtype is np.float64:
        return float_array(data, missing)
    return _numbers_array(data, missing)


def _block_maker(column: _Column) -> Callable[[int, int], np.ndarray | CodedColumn | list[Any]]:
    """What :func:`_column_array` gives for the rows ``start:stop`` of ``column``, made per
    block.

    Numbers with nothing missing are sliced from one array (views, float
    columns holding NaN for a missing value); object columns are sliced and
    their texts coded per block; other kinds are made from the block's rows.
    """
    values = column.values
    if column.kind in ("float", "int"):
        assert values is not None
        return lambda start, stop: values[start:stop]
    if column.kind == "objects":
        assert values is not None

        def coded(start: int, stop: int) -> CodedColumn | list[Any]:
            found = text_codes(values[start:stop])
            if found is None:
                return _column_values(column.take(slice(start, stop)))
            codes, texts = found
            return CodedColumn(texts, codes)

        return coded
    return lambda start, stop: _column_array(column.take(slice(start, stop)))


def _extension_codes(column: _Column) -> CodedColumn | None:
    """A frame's extension array of texts coded by the array itself (pandas' strings: in
    C, no Python text made per row); None when it holds anything but texts."""
    assert column.source is not None
    try:
        codes, distinct = column.source.factorize(use_na_sentinel=True)
    except (TypeError, ValueError, NotImplementedError, pa.ArrowException):
        return None  # values that cannot be hashed (Arrow lists): no texts
    texts = distinct.tolist()
    if not all(type(v) is str for v in texts):
        return None
    return CodedColumn(texts, np.asarray(codes, dtype=np.intp))


def _column_array(column: _Column) -> np.ndarray | CodedColumn | list[Any]:
    """A numeric column as a numpy array (non-finite floats missing), a column of texts
    and missing values as :class:`CodedColumn`, else :func:`_column_values`."""
    values = column.values
    if column.kind in ("float", "int"):
        assert values is not None
        return values
    if column.kind == "nullable":
        # Nullable ints and booleans (launch ids, streams): an array when none is
        # missing, a column of nulls when all are; the records' values either way.
        assert values is not None and column.missing is not None
        if not column.missing.any():
            return values
        if column.missing.all():
            return CodedColumn([], np.full(len(values), -1, dtype=np.intp))
        return _column_values(column)
    if column.kind == "texts":
        found = _extension_codes(column)
        return _column_values(column) if found is None else found
    # Texts and missing values (most object columns: a kernel's name, a basis):
    # hashed in C, each distinct text then encoded once, not once per row.
    assert values is not None
    coded = text_codes(values)
    if coded is not None:
        codes, texts = coded
        return CodedColumn(texts, codes)
    return _column_values(column)


def _column_values(column: _Column) -> list[Any]:
    """One column as a list of plain Python values, missing as ``None``."""
    values = column.values
    if column.kind == "float":
        assert values is not None
        bad = ~np.isfinite(values)
        if not bad.any():
            return cast("list[Any]", values.tolist())
        out = values.astype(object)
        out[bad] = None
        return cast("list[Any]", out.tolist())
    if column.kind == "int":
        # numpy ints and bools hold no missing values; nullable ones go below.
        assert values is not None
        return cast("list[Any]", values.tolist())
    if column.kind == "nullable":
        assert values is not None and column.missing is not None
        if not column.missing.any():
            return cast("list[Any]", values.tolist())
        out = values.astype(object)
        out[column.missing] = None
        return cast("list[Any]", out.tolist())
    return _plain_values(column.objects())


def _plain_values(items: npt.NDArray[np.object_]) -> list[Any]:
    """An object array (None where missing) as plain Python values: numpy's as Python's,
    a non-finite float as None."""
    if _PLAIN_TYPES.issuperset(map(type, items)):
        return cast("list[Any]", items.tolist())
    return [_plain(v) for v in items.tolist()]


def _plain(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return _plain(value.item())
    return value
