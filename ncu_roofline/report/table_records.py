"""Launch records read from an Arrow table: a report's launches without pandas.

:class:`~ncu_roofline.report.records.LaunchRecords` makes the launch records
of a report from the analysis' launch frame.  The report cache
(:mod:`ncu_roofline.report.context_cache`) keeps those records as an Arrow
table (:meth:`LaunchRecords.arrow_table`), one column per field, and
:class:`TableRecords` reads them back: the same sequence of records, the same
``column`` and ``column_blocks`` the renderers call, with no pandas loaded.

The table holds each field's plain values as the records give them: a
missing or non-finite number is null, a text column is dictionary-encoded
(its distinct texts once), a field the frame lacks is a column of nulls.
Only numpy and pyarrow are imported here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np
import orjson
import pyarrow as pa

if TYPE_CHECKING:
    from ncu_roofline.report.schema import LaunchRecord

__all__ = ["BLOCK_ROWS", "JSON_FIELD", "CodedColumn", "ColumnValues", "TableRecords", "same_value"]

#: The metadata of a field whose (dictionary-encoded) texts are the JSON of
#: nested values: lists and dicts, such as ncu's rule results of a launch.
JSON_FIELD = {b"ncu_roofline": b"json"}

#: Rows turned into dicts per block when the records are iterated: about
#: 25 MB of dicts for a report's ~70 launch fields.
BLOCK_ROWS = 5_000


@dataclass(frozen=True)
class CodedColumn:
    """A text column as its distinct values and each row's index among them (-1: missing)."""

    distinct: list[str]
    codes: np.ndarray


#: One field of a block of records: its name and its values (``column_blocks``).
ColumnValues = tuple[str, "np.ndarray | CodedColumn | list[Any]"]


class TableRecords(Sequence["LaunchRecord"]):
    """The records an Arrow table holds, one column per field, made a block at a time.

    A read-only sequence with the interface of
    :class:`~ncu_roofline.report.records.LaunchRecords`: its length, items
    (negative indexes too), slices (lists of dicts), iteration, equality,
    ``column`` and ``column_blocks`` give what the launch records it was
    written from gave.
    """

    __slots__ = ("_fields", "_json", "_table")

    def __init__(self, table: pa.Table) -> None:
        self._table = table
        self._fields = tuple(table.column_names)
        self._json = frozenset(
            f.name for f in table.schema if (f.metadata or {}).get(b"ncu_roofline") == b"json"
        )

    @property
    def fields(self) -> tuple[str, ...]:
        """The keys of every record, in order."""
        return self._fields

    def __len__(self) -> int:
        return int(self._table.num_rows)

    @overload
    def __getitem__(self, index: int) -> LaunchRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[LaunchRecord]: ...

    def __getitem__(self, index: int | slice) -> LaunchRecord | list[LaunchRecord]:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self._rows(self._table.slice(start, max(0, stop - start)))
        at = index.__index__()
        if at < 0:
            at += n
        if not 0 <= at < n:
            raise IndexError("launch record index out of range")
        return self._rows(self._table.slice(at, 1))[0]

    def column(self, field: str) -> list[Any]:
        """The values of one field in every record, in order, made in one vectorised step."""
        if field not in self._fields:
            raise KeyError(field)
        return _plain_values(self._table.column(field), field in self._json)

    def coded(self, field: str) -> CodedColumn | None:
        """A text field of every record as codes and its distinct texts (read off the
        table's dictionary); None where the field is not held as one."""
        if field not in self._fields:
            raise KeyError(field)
        array = _chunks(self._table.column(field))
        if pa.types.is_null(array.type):
            return CodedColumn([], np.full(len(array), -1, dtype=np.intp))
        if field in self._json or not pa.types.is_dictionary(array.type):
            return None
        return _coded(array)

    def blocks(self, size: int = BLOCK_ROWS) -> Iterator[list[LaunchRecord]]:
        """The records as lists of at most ``size`` dicts, in order (none when empty)."""
        if size < 1:
            raise ValueError(f"block size must be >= 1, not {size}")
        for start in range(0, len(self), size):
            yield self._rows(self._table.slice(start, size))

    def column_blocks(self, size: int = BLOCK_ROWS) -> Iterator[tuple[int, list[ColumnValues]]]:
        """The records a block at a time as columns: ``(rows, [(field, values), ...])``.

        ``values`` is a numpy array for a numeric column without missing
        values, or a float one (missing as NaN), a :class:`CodedColumn` for a
        text column and a list of plain values otherwise, as
        :meth:`~ncu_roofline.report.records.LaunchRecords.column_blocks` gives.
        """
        if size < 1:
            raise ValueError(f"block size must be >= 1, not {size}")
        for start in range(0, len(self), size):
            part = self._table.slice(start, size)
            yield (
                part.num_rows,
                [(f, _block_values(part.column(f), f in self._json)) for f in self._fields],
            )

    def __iter__(self) -> Iterator[LaunchRecord]:
        for block in self.blocks():
            yield from block

    def _rows(self, table: pa.Table) -> list[LaunchRecord]:
        fields = table.column_names
        if not fields:
            return cast("list[LaunchRecord]", [{} for _ in range(table.num_rows)])
        cols = [_plain_values(table.column(f), f in self._json) for f in fields]
        rows = [dict(zip(fields, values, strict=True)) for values in zip(*cols, strict=True)]
        return cast("list[LaunchRecord]", rows)

    def __eq__(self, other: object) -> bool:
        if other is self:
            return True
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(other) == len(self) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which are unhashable

    def __repr__(self) -> str:
        return f"<TableRecords: {len(self)} records of {len(self._fields)} fields>"


def _chunks(column: pa.ChunkedArray) -> pa.Array:
    """The column as one array (a table read back from one batch has one chunk)."""
    return column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)


def _valid(array: pa.Array) -> np.ndarray | None:
    """Which rows hold a value (None: all do), read from the validity bitmap."""
    if not array.null_count:
        return None
    bitmap = array.buffers()[0]
    if bitmap is None:
        # Arrays whose type has no bitmap: every value is null.
        return np.zeros(len(array), dtype=bool)
    bits = np.unpackbits(np.frombuffer(bitmap, dtype=np.uint8), bitorder="little")
    return bits[array.offset : array.offset + len(array)].astype(bool)


#: The numpy type of each fixed-width Arrow type the table may hold.
_NUMPY = {
    pa.float64(): np.float64,
    pa.float32(): np.float32,
    pa.int64(): np.int64,
    pa.int32(): np.int32,
    pa.int16(): np.int16,
    pa.int8(): np.int8,
    pa.uint64(): np.uint64,
    pa.uint32(): np.uint32,
    pa.uint16(): np.uint16,
    pa.uint8(): np.uint8,
}


def _numbers(array: pa.Array) -> np.ndarray:
    """A numeric or boolean array's values as numpy, read from its buffers (null rows
    hold whatever the buffer holds there).

    Read directly because pyarrow's own ``to_numpy`` loads pandas on the way,
    which is what a report served from the cache avoids.
    """
    data = array.buffers()[1]
    n = len(array)
    if pa.types.is_boolean(array.type):
        bits = np.unpackbits(np.frombuffer(data, dtype=np.uint8), bitorder="little")
        return bits[array.offset : array.offset + n].astype(bool)
    values: np.ndarray = np.frombuffer(data, dtype=_NUMPY[array.type])
    return values[array.offset : array.offset + n]


def _coded(array: pa.Array) -> CodedColumn:
    """A dictionary-encoded text array as its distinct texts and each row's code (-1: null)."""
    distinct = cast("list[str]", array.dictionary.to_pylist())
    codes = _numbers(array.indices).astype(np.intp)
    valid = _valid(array)
    if valid is not None:
        codes[~valid] = -1
    return CodedColumn(distinct, codes)


def _floats(array: pa.Array) -> np.ndarray:
    """A float array as float64, null as NaN."""
    values = _numbers(array).astype(np.float64)
    valid = _valid(array)
    if valid is not None:
        values[~valid] = np.nan
    return values


def _plain_values(column: pa.ChunkedArray, as_json: bool = False) -> list[Any]:
    """One column's values as plain Python values, null as ``None``; with ``as_json``
    its texts are JSON, each distinct one decoded once (rows holding it share it)."""
    array = _chunks(column)
    if pa.types.is_dictionary(array.type):
        coded = _coded(array)
        distinct: list[Any] = coded.distinct
        if as_json:
            distinct = [orjson.loads(t) for t in distinct]
        table = [*distinct, None]  # code -1 reads the None at the end
        return list(map(table.__getitem__, coded.codes.tolist()))
    if pa.types.is_null(array.type):
        return [None] * len(array)
    if array.type in _NUMPY or pa.types.is_boolean(array.type):
        values = _numbers(array)
        if pa.types.is_floating(array.type):
            values = values.astype(np.float64)
        valid = _valid(array)
        if valid is None:
            return cast("list[Any]", values.tolist())
        out = values.astype(object)
        out[~valid] = None
        return cast("list[Any]", out.tolist())
    return cast("list[Any]", array.to_pylist())


def _block_values(
    column: pa.ChunkedArray, as_json: bool = False
) -> np.ndarray | CodedColumn | list[Any]:
    array = _chunks(column)
    if as_json:
        return _plain_values(column, as_json)
    if pa.types.is_dictionary(array.type):
        return _coded(array)
    if pa.types.is_floating(array.type):
        return _floats(array)  # nulls are NaN: missing, as in the records
    if (array.type in _NUMPY or pa.types.is_boolean(array.type)) and not array.null_count:
        return _numbers(array)
    return _plain_values(column)


def same_value(read: Any, made: Any) -> bool:
    """Whether a value read back from JSON is the value written: same types, same values.

    Tuples, numpy values, NaN and non-string keys do not come back from JSON
    as they went: what holds one is not kept as JSON.
    """
    if type(read) is not type(made):
        return False
    if isinstance(made, dict):
        return list(read) == list(made) and all(same_value(read[k], made[k]) for k in made)
    if isinstance(made, list):
        return len(read) == len(made) and all(map(same_value, read, made))
    return bool(read == made)
