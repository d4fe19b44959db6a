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
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import repeat
from typing import Any, cast, overload

import numpy as np
import pandas as pd

from ncu_roofline.core.frame import floats
from ncu_roofline.report.schema import LaunchRecord

__all__ = ["BLOCK_ROWS", "CodedColumn", "ColumnValues", "LaunchRecords", "records"]

#: One field of a block of records: its name and its values (:meth:`LaunchRecords.column_blocks`).
ColumnValues = tuple[str, "np.ndarray | CodedColumn | list[Any]"]

#: Rows turned into dicts per block when the records are iterated: about
#: 25 MB of dicts for a report's ~70 launch fields.
BLOCK_ROWS = 5_000


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
        for start in range(0, len(self._frame), size):
            part = self._frame.iloc[start : start + size]
            rows = len(part)
            yield (
                rows,
                [(f, _column_array(part[f]) if f in part else [None] * rows) for f in self._fields],
            )

    def __iter__(self) -> Iterator[LaunchRecord]:
        for block in self.blocks():
            yield from block

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


@dataclass(frozen=True)
class CodedColumn:
    """A text column as its distinct values and each row's index among them (-1: missing)."""

    distinct: list[str]
    codes: np.ndarray


def _column_array(s: pd.Series) -> np.ndarray | CodedColumn | list[Any]:
    """A numeric column as a numpy array (non-finite floats missing), a text column as
    :class:`CodedColumn`, else :func:`_column_values`."""
    if pd.api.types.is_float_dtype(s.dtype):
        return floats(s)
    if isinstance(s.dtype, np.dtype) and s.dtype.kind in "iub":
        return s.to_numpy()
    if isinstance(s.dtype, pd.StringDtype):
        # Only text: distinct values found in one vectorised step, no Python per row.
        codes, distinct = pd.factorize(s, use_na_sentinel=True)
        return CodedColumn([str(v) for v in distinct.tolist()], np.asarray(codes, dtype=np.intp))
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
