"""Frame helpers: columns of a pandas frame or a :class:`~ncu_roofline.core.table.Table`
as numpy arrays, with missing kept missing.

Every stage reads float columns the same way: nullable and object columns
become float64 with NaN for ``pd.NA``/``None``, never 0, and a column a frame
lacks reads as all-NaN rather than raising.  Text columns read as objects
with None where missing.  A stage that reads its columns through these
helpers (and ``name in frame``, ``len(frame)``) takes a table or a frame
alike (:data:`Columns`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
import numpy.typing as npt

from ncu_roofline.core.table import (
    FloatArray,
    ObjArray,
    Table,
    absent,
    as_floats,
    as_objects,
)

if TYPE_CHECKING:
    import pandas as pd

#: Launch-long columns by name: the analysis' table, or a pandas frame.
Columns: TypeAlias = "Table | pd.DataFrame"

__all__ = [
    "Columns",
    "FloatArray",
    "column",
    "floats",
    "missing_values",
    "object_column",
    "objects",
    "objects_at",
    "optional_column",
]


def floats(values: Any) -> FloatArray:
    """A Series, Index or array as float64, missing values as NaN."""
    if isinstance(values, np.ndarray):
        return as_floats(values)
    out: FloatArray = values.to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def objects(values: Any) -> ObjArray:
    """A Series or array as objects, missing values (NaN, pandas' NA) as None."""
    if isinstance(values, np.ndarray):
        return as_objects(values)
    out: ObjArray = values.to_numpy(dtype=object, na_value=None)
    return out


def missing_values(values: Any) -> npt.NDArray[np.bool_]:
    """True where a Series or array holds no value (NaN, None, pandas' NA)."""
    if isinstance(values, np.ndarray):
        return absent(values)
    out: npt.NDArray[np.bool_] = values.isna().to_numpy(dtype=bool)
    return out


def objects_at(values: Any, rows: npt.NDArray[np.intp]) -> npt.NDArray[np.object_]:
    """A column's values at row positions ``rows``, as objects (None where missing).

    ``values`` is a table's array or a frame's Series: only the rows asked
    for are converted (a group's first launch of 100,000), not the column.
    """
    if isinstance(values, np.ndarray):
        return objects(values[rows])
    # A Series: positional rows, whatever its index.
    return objects(values.take(rows))


def object_column(frame: Columns, name: str) -> ObjArray:
    """Column ``name`` as objects (None where missing); all None when the frame lacks it."""
    if name not in frame:
        return np.full(len(frame), None, dtype=object)
    return objects(frame[name])


def column(frame: Columns, name: str) -> FloatArray:
    """Column ``name`` of ``frame`` as float64; all NaN when the frame lacks it."""
    if name not in frame:
        return np.full(len(frame), np.nan)
    return floats(frame[name])


def optional_column(frame: Columns, name: str) -> FloatArray | None:
    """Column ``name`` as float64, or ``None`` when the frame lacks it.

    For code that offers alternative metrics and must tell a metric the
    export lacks from one it has with every value missing.
    """
    if name not in frame:
        return None
    return floats(frame[name])
