"""Numbers read from context records for plotting.

Report contexts hold plain Python numbers or ``None``; a chart needs to know
which of them can be a point on log-log axes (finite and positive) and
wants whole fields as float arrays for the per-launch view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def finite(value: Any) -> float | None:
    """``value`` as a float when it is a finite number (not a bool); else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def number(value: float | None) -> float:
    """A record's number as a float, NaN where it is ``None`` (for values already checked finite)."""
    return math.nan if value is None else float(value)


def finite_positive(value: Any) -> bool:
    """Whether ``value`` is a finite positive number (not a bool): a point on a log axis."""
    v = finite(value)
    return v is not None and v > 0


def field_values(records: Sequence[Mapping[str, Any]], name: str) -> list[Any]:
    """One field of every record, in order; ``None`` where a record lacks it.

    A report's lazy launch records (``report.records.LaunchRecords``, known
    by their ``column`` method so that this stage need not import pandas)
    give the field column-wise, without making a dict per launch.
    """
    reader = getattr(records, "column", None)
    if callable(reader):
        if name in getattr(records, "fields", ()):
            return list(reader(name))
        return [None] * len(records)
    return [r.get(name) for r in records]


def column(records: Sequence[Mapping[str, Any]], name: str) -> FloatArray:
    """A numeric field of every record as float64; ``None`` and non-numbers become NaN."""
    values = field_values(records, name)
    try:
        out: FloatArray = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = np.array(
            [float(v) if isinstance(v, (int, float)) else math.nan for v in values],
            dtype=np.float64,
        )
    return out
