"""Launch-long columns by name, without pandas: the table the analysis reads.

A :class:`Table` is what the analysis needs of a frame (a column by name,
whether it has one, the row count, the names in order) and nothing more:
numpy arrays of one length.  It is built straight from the launch model's
columns (:meth:`~ncu_roofline.core.launches.LaunchColumns.table`: no copy of
a metric, no pandas), or from any launch frame (:meth:`Table.from_frame`:
the Python API's profiles built by hand).

Each column holds one of three kinds of values, whatever it was built from:

* numbers: float64 with NaN where missing (the launch model's nullable
  integers too, which a frame holds as ``Int64``; :meth:`Table.integer`
  gives them back as integers), or a frame's own numpy integers;
* texts and other objects: an object array with None where missing (never
  NaN or pandas' NA, so that ``== None`` and :func:`present` agree);
* flags: bool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

#: The column kinds of a table, named once for the core's modules.
FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

__all__ = [
    "Table",
    "absent",
    "as_floats",
    "as_objects",
    "distinct",
    "is_missing",
    "object_ids",
    "present",
]


def object_ids(items: np.ndarray) -> npt.NDArray[np.intp]:
    """Each element's identity (its ``id``), read from the array's own pointers.

    An object array's buffer is its elements' addresses, which CPython's
    ``id`` returns: read as integers, with no Python object made per element
    (``id`` called on each made 100,000 integers for 100,000 launches).
    The array holds every element, so no address is reused meanwhile.
    """
    contiguous = np.ascontiguousarray(items, dtype=object)
    if contiguous.size == 0:
        return np.zeros(0, dtype=np.intp)
    # The view keeps its memoryview, and so ``contiguous``, alive.
    ids: npt.NDArray[np.intp] = np.frombuffer(contiguous.data.cast("B"), dtype=np.intp)
    # Read-only: ``contiguous`` may be ``items`` itself, and a write here would
    # change its references under it.
    ids.flags.writeable = False
    return ids


def is_missing(value: Any) -> bool:
    """Whether one value is missing: None, NaN, or pandas' NA (read from a pandas column)."""
    if value is None or (isinstance(value, float) and value != value):
        return True
    return type(value).__name__ == "NAType"


def absent(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """True where ``values`` are missing: NaN in numbers; None or NaN in objects.

    :func:`pandas.isna` for the values a :class:`Table` holds, compared in C
    (NaN is the one value unequal to itself).
    """
    if values.dtype.kind == "f":
        out: npt.NDArray[np.bool_] = np.isnan(values)
        return out
    if values.dtype == object:
        # None by its address (no comparison per element); NaN by comparison.
        found: npt.NDArray[np.bool_] = np.asarray(
            np.not_equal(values, values), dtype=np.bool_
        ).reshape(values.shape)
        found |= object_ids(values).reshape(values.shape) == id(None)
        return found
    return np.zeros(values.shape, dtype=bool)


def distinct(values: npt.NDArray[Any]) -> list[Any]:
    """The values ``values`` holds (missing ones left out), in order of first appearance.

    :func:`pandas.unique` of the present values: equal values are one
    (8 and 8.0 too), the first one's object kept.  An object column is read
    by address first, so a text held once for many rows is compared once.
    """
    if values.dtype == object:
        ids = object_ids(values)
        _, firsts = np.unique(ids, return_index=True)
        seen: dict[Any, None] = {}
        for value in values[np.sort(firsts)].tolist():
            if value is not None and value == value:
                seen.setdefault(value, None)
        return list(seen)
    kept = values[~absent(values)]
    _, firsts = np.unique(kept, return_index=True)
    found: list[Any] = kept[np.sort(firsts)].tolist()
    return found


def present(values: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
    """True where ``values`` hold a value (the complement of :func:`absent`)."""
    return ~absent(values)


class Table:
    """Named columns of equal length: numpy arrays, in order.

    ``len(table)`` is the number of rows (as a frame's); ``name in table``,
    ``table[name]`` and :attr:`columns` are a frame's too, with arrays for
    Series.  A table is not changed once built: :meth:`with_columns` gives a
    new one that shares the arrays it keeps.
    """

    __slots__ = ("_columns", "_n")

    def __init__(
        self, columns: Mapping[str, npt.NDArray[Any] | Callable[[], npt.NDArray[Any]]], n: int
    ) -> None:
        self._columns: dict[str, npt.NDArray[Any] | Callable[[], npt.NDArray[Any]]] = {}
        self._n = n
        for name, values in columns.items():
            # A column may be given as the function that makes it: made when
            # first read (a text column no stage reads is never made).
            self._columns[name] = values if callable(values) else self._checked(name, values)

    def _checked(self, name: str, values: npt.NDArray[Any]) -> npt.NDArray[Any]:
        if values.shape != (self._n,):
            raise ValueError(f"column {name!r} has shape {values.shape}, not ({self._n},)")
        return values

    def _array(self, name: str) -> npt.NDArray[Any]:
        values = self._columns[name]
        if callable(values):
            values = self._columns[name] = self._checked(name, values())
        return values

    def __len__(self) -> int:
        return self._n

    def __contains__(self, name: object) -> bool:
        return name in self._columns

    def __getitem__(self, name: str) -> npt.NDArray[Any]:
        # Read-only: the arrays are shared (with the launch model's columns,
        # with tables made by with_columns), so a write would change them all.
        view: npt.NDArray[Any] = self._array(name).view()
        view.flags.writeable = False
        return view

    def __iter__(self) -> Iterator[str]:
        return iter(self._columns)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._n} rows, {len(self._columns)} columns)"

    @property
    def columns(self) -> list[str]:
        """The column names, in order."""
        return list(self._columns)

    def floats(self, name: str) -> FloatArray:
        """Column ``name`` as float64 (NaN where missing); all NaN when the table lacks it."""
        if name not in self._columns:
            return np.full(self._n, np.nan)
        return as_floats(self[name])

    def objects(self, name: str) -> ObjArray:
        """Column ``name`` as objects (None where missing); all None when the table lacks it.

        A column of objects is given as it is: a table holds None, never NaN,
        for a missing object (what it is built from says so, and
        :meth:`from_frame` makes it so).
        """
        if name not in self._columns:
            return np.full(self._n, None, dtype=object)
        values = self[name]
        return values if values.dtype == object else as_objects(values)

    def integer(self, name: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """A whole-number column as (int64 values, True where missing); 0 where missing."""
        values = self.floats(name)
        missing = np.isnan(values)
        return np.where(missing, 0.0, values).astype(np.int64), missing

    def with_columns(
        self, columns: Mapping[str, npt.NDArray[Any] | Callable[[], npt.NDArray[Any]]]
    ) -> Table:
        """A table with ``columns`` too: one it has is replaced where it stands, new ones
        are added after the others, in order."""
        return Table({**self._columns, **columns}, self._n)

    def take(self, rows: npt.NDArray[np.bool_] | npt.NDArray[np.integer[Any]] | slice) -> Table:
        """The rows ``rows`` (a mask, positions or a slice) of every column, as a table.

        Columns not yet made stay unmade until read.
        """
        if isinstance(rows, slice):
            n = len(range(*rows.indices(self._n)))
        else:
            index = np.asarray(rows)
            n = int(index.sum()) if index.dtype == bool else len(index)
            rows = index
        out: dict[str, npt.NDArray[Any] | Callable[[], npt.NDArray[Any]]] = {}
        for name, values in self._columns.items():
            if callable(values):
                out[name] = partial(_taken, values, rows)
            else:
                out[name] = values[rows]
        return Table(out, n)

    def select(self, names: list[str]) -> Table:
        """The columns ``names`` (those the table has), in that order."""
        return Table({c: self._columns[c] for c in names if c in self._columns}, self._n)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> Table:
        """A frame's columns as a table: numbers as float64, texts as objects with None.

        Positional: the frame's index is not kept.  A column name that is not
        text (a frame built by hand) is kept as its ``str``.
        """
        out: dict[str, npt.NDArray[Any]] = {}
        for name in frame.columns:
            series = frame[name]
            if isinstance(series, type(frame)):  # a repeated name: its first column
                series = series.iloc[:, 0]
            out[str(name)] = _array_of(series)
        return cls(out, len(frame))


def _taken(
    make: Callable[[], npt.NDArray[Any]],
    rows: npt.NDArray[np.bool_] | npt.NDArray[np.integer[Any]] | slice,
) -> npt.NDArray[Any]:
    out: npt.NDArray[Any] = make()[rows]
    return out


def as_floats(values: npt.NDArray[Any]) -> FloatArray:
    """An array of numbers (None or NaN where missing) as float64."""
    if values.dtype == np.float64:
        return values
    if values.dtype == object:
        missing = np.equal(values, None)  # type: ignore[call-overload]
        if missing.any():
            values = np.where(missing, np.nan, values)
    out: FloatArray = values.astype(np.float64)
    return out


def as_objects(values: npt.NDArray[Any]) -> ObjArray:
    """An array as objects, None where missing (NaN among numbers or objects)."""
    if values.dtype == object:
        missing = absent(values)
        if not missing.any():
            return values
        out: ObjArray = values.copy()
    else:
        out = values.astype(object)
        missing = absent(values)
    out[missing] = None
    return out


def _array_of(series: pd.Series) -> npt.NDArray[Any]:
    """One frame column as a table holds it."""
    dtype = series.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":
        # numpy's own numbers and flags are kept as they are (8 stays 8, not 8.0).
        return series.to_numpy()
    if dtype.kind in "iufb":
        # pandas' nullable numbers and flags read as numbers, NaN where missing.
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    # NaN, None and pandas' NA alike become None.
    objects: ObjArray = series.to_numpy(dtype=object, na_value=None)  # type: ignore[call-overload]
    return objects
