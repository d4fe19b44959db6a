"""Frame helpers: pandas columns to numpy arrays with missing kept missing.

Every stage reads float columns the same way: nullable and object columns
become float64 with NaN for ``pd.NA``/``None``, never 0, and a column a frame
lacks reads as all-NaN rather than raising.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

FloatArray = npt.NDArray[np.float64]

__all__ = ["FloatArray", "column", "floats", "optional_column"]


def floats(values: Any) -> FloatArray:
    """A Series, Index or array as float64, missing values as NaN."""
    out: FloatArray = values.to_numpy(dtype=np.float64, na_value=np.nan)
    return out


def column(frame: pd.DataFrame, name: str) -> FloatArray:
    """Column ``name`` of ``frame`` as float64; all NaN when the frame lacks it."""
    if name not in frame:
        return np.full(len(frame), np.nan)
    return floats(frame[name])


def optional_column(frame: pd.DataFrame, name: str) -> FloatArray | None:
    """Column ``name`` as float64, or ``None`` when the frame lacks it.

    For code that offers alternative metrics and must tell a metric the
    export lacks from one it has with every value missing.
    """
    if name not in frame.columns:
        return None
    return floats(frame[name])
