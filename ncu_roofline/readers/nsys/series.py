"""Column helpers shared by the CSV and SQLite readers: values into the timeline's forms.

Every helper works on a whole column; a Python function runs once per
*distinct* value (a kernel name, a launch dimension), never once per row,
so a trace of a million kernels costs a handful of array passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ncu_roofline.core.grouping import distinct_codes, per_distinct
from ncu_roofline.core.timeline import grid_text

__all__ = [
    "dims_text",
    "distinct_map",
    "distinct_pair",
    "frame_of",
    "int_series",
    "missing",
    "object_ints",
    "range_name",
    "series_of",
    "split_domain",
    "text_series",
]

# A domain prefix is text up to a lone colon: ``dom:step`` has domain ``dom``;
# ``at::native`` (a C++ scope) has none.
_DOMAIN = re.compile(r"^([^:]*):(?!:)(.*)$", re.DOTALL)


def frame_of(columns: dict[str, Any]) -> pd.DataFrame:
    """A frame of ``columns`` (typed here once: pandas' constructors return ``Any`` to mypy)."""
    out: pd.DataFrame = pd.DataFrame(columns)
    return out


def series_of(values: Any, dtype: Any = None) -> pd.Series:
    """A series of ``values`` (typed here once, like :func:`frame_of`)."""
    out: pd.Series = pd.Series(values, dtype=dtype)
    return out


def missing(n: int, kind: str) -> pd.Series:
    """``n`` missing values of ``kind`` (``"int"``, ``"float"``, ``"text"``)."""
    if kind == "int":
        return series_of(pd.array([pd.NA] * n, dtype="Int64"))
    if kind == "float":
        return series_of(np.full(n, np.nan))
    return text_series(np.full(n, None, dtype=object))


def text_series(values: Any) -> pd.Series:
    """Text as an ``object`` series, ``None`` missing.

    Said explicitly: pandas 3 infers its ``str`` dtype from an object array
    of strings, whose missing value is NaN, not the model's ``None``.
    """
    array = np.asarray(values, dtype=object)
    if isinstance(values, pd.Series):
        array = array.copy()
        array[values.isna().to_numpy()] = None
    return series_of(array, dtype=object)


def int_series(values: Any) -> pd.Series:
    """Any integer-like column as ``Int64`` (missing stays missing, never 0)."""
    series = values if isinstance(values, pd.Series) else pd.Series(values)
    if str(series.dtype) == "Int64":
        return series.reset_index(drop=True)
    out: pd.Series = pd.to_numeric(series, errors="raise").astype("Int64")
    return out.reset_index(drop=True)


def object_ints(values: pd.Series) -> pd.Series:
    """An integer column as Python ints in an ``object`` column (``None`` missing).

    The timeline keeps context, stream and thread as ``object`` so an id and a
    text label can share the column; ints keep a CSV and a SQLite input equal.
    """
    ints = int_series(values)
    mask = ints.isna().to_numpy()
    out = ints.fillna(0).astype("int64").to_numpy().astype(object)
    out[mask] = None
    return series_of(out, dtype=object)


def distinct_map(values: pd.Series, fn: Callable[[Any], Any]) -> pd.Series:
    """``fn`` of each value, computed once per distinct value; missing stays ``None``."""
    return series_of(per_distinct(values, fn, None), dtype=object)


def distinct_pair(
    values: pd.Series, fn: Callable[[Any], tuple[Any, Any]]
) -> tuple[pd.Series, pd.Series]:
    """The two parts of ``fn`` of each value, computed once per distinct value (missing: ``None``)."""
    codes, uniques = distinct_codes(values)
    first = np.empty(len(uniques) + 1, dtype=object)
    second = np.empty(len(uniques) + 1, dtype=object)
    for i, u in enumerate(uniques):
        first[i], second[i] = fn(u)
    first[-1] = second[-1] = None
    return series_of(first[codes], dtype=object), pd.Series(second[codes], dtype=object)


def dims_text(x: pd.Series, y: pd.Series, z: pd.Series) -> pd.Series:
    """Launch dimensions as ncu's ``"(x, y, z)"`` text (``None`` when a part is missing)."""
    n = len(x)
    if n == 0:
        return series_of(np.empty(0, dtype=object), dtype=object)
    parts = [int_series(v) for v in (x, y, z)]
    present = ~(parts[0].isna() | parts[1].isna() | parts[2].isna()).to_numpy()
    out = np.full(n, None, dtype=object)
    if present.any():
        cols = [p.fillna(0).astype("int64").to_numpy()[present] for p in parts]
        # Hash each part, then the triple of codes: O(n), where sorting rows is not.
        codes = [pd.factorize(c) for c in cols]
        key = codes[0][0].astype(np.int64)
        for c, u in codes[1:]:
            # Re-coded at each step, so the key stays below n * n (no overflow).
            key = pd.factorize(key * len(u) + c)[0].astype(np.int64)
        combo, first = np.unique(key, return_index=True)
        inverse = np.searchsorted(combo, key)
        texts = np.array(
            [grid_text(cols[0][i], cols[1][i], cols[2][i]) for i in first], dtype=object
        )
        out[present] = texts[inverse]
    return series_of(out, dtype=object)


def range_name(text: Any) -> str | None:
    """An NVTX range name as the timeline keeps it: nsys's leading ``:`` (default domain) gone.

    Empty text (a kernel outside every range in ``nvtx_kern_sum``) is ``None``.
    """
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return None
    name = str(text)
    if name.startswith(":"):
        name = name[1:]
    return name or None


def split_domain(text: Any) -> tuple[str | None, str | None]:
    """``(domain, name)`` of an NVTX label: ``":step"`` -> ``(None, "step")``, ``"d:step"`` -> ``("d", "step")``."""
    if text is None or (isinstance(text, float) and np.isnan(text)):
        return None, None
    m = _DOMAIN.match(str(text))
    if m is None:
        return None, str(text) or None
    return (m.group(1) or None), (m.group(2) or None)
