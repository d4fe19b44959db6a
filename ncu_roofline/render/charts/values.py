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


def coded_field(
    records: Sequence[Mapping[str, Any]], name: str
) -> tuple[npt.NDArray[np.intp], list[Any]]:
    """One field of every record as codes: each record's index among the field's distinct
    values (-1 where ``None``) and those values, equal ones counted as one, in order of
    first appearance (as a ``Counter`` of :func:`field_values` would list them).

    Launch records that can code a text field themselves (``coded``: their
    texts hashed in C, or an Arrow dictionary) are read without a Python
    value per record; other fields are coded from :func:`field_values`.
    """
    reader = getattr(records, "coded", None)
    found = reader(name) if callable(reader) and name in getattr(records, "fields", ()) else None
    if found is None:
        values = field_values(records, name)
        # Equal values are one (a dict's keys, as a Counter's), found and looked up in C.
        distinct = [v for v in dict.fromkeys(values) if v is not None]
        index: dict[Any, int] = {v: i for i, v in enumerate(distinct)}
        index[None] = -1
        codes = np.fromiter(map(index.__getitem__, values), dtype=np.intp, count=len(values))
        return codes, distinct
    codes, distinct = np.asarray(found.codes, dtype=np.intp), list(found.distinct)
    # A dictionary can hold values no record has, in another order: renumbered
    # by first appearance, the unused dropped.
    used, first = np.unique(codes, return_index=True)
    present = used >= 0
    order = used[present][np.argsort(first[present], kind="stable")]
    renumber = np.full(len(distinct) + 1, -1, dtype=np.intp)  # the last entry: code -1
    renumber[order] = np.arange(order.size, dtype=np.intp)
    return renumber[codes], [distinct[i] for i in order.tolist()]


def field_counts(records: Sequence[Mapping[str, Any]], name: str) -> list[tuple[Any, int]]:
    """Each distinct value of one field with the number of records holding it, as a
    ``Counter`` of :func:`field_values` would list them, ``None`` (if any) first;
    counted over codes (:func:`coded_field`)."""
    codes, distinct = coded_field(records, name)
    per_code = np.bincount(codes + 1, minlength=len(distinct) + 1).tolist()
    counted = list(zip(distinct, per_code[1:], strict=True))
    return [(None, per_code[0]), *counted] if per_code[0] else counted


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
