"""Raw-page metric columns that Arrow's CSV reader parses straight to float64.

A raw page is one row per launch and one column per metric, each column in
one unit.  Converting such a column from text (trim, missing tokens,
grouping, cast; :func:`~ncu_roofline.core.units.parse_numbers_checked`)
costs about as much as parsing the file; reading it as ``float64`` costs
next to nothing.  The typed read is only a faster way to the same numbers:

* a column is typed only where the sampled rows show plain decimals and
  missing tokens exactly as written, in a decimal-point file, with a known
  unit of the metric's dimension (:func:`typed_columns`);
* a later value Arrow refuses makes the read fall back to text for every
  column (:func:`~ncu_roofline.readers.table.read_table`);
* a value that needs its text for a warning (negative, infinite, NaN that is
  not a missing token) sends its column back to the text path
  (:func:`typed_numbers`), which warns as it always has.

What Arrow's float parser (pyarrow 26) does with each spelling, against the
text path (:func:`~ncu_roofline.core.units.parse_numbers_checked`):

* the same value, no warning either way: plain decimals with or without a
  sign, ``".5"``, ``"1."``, ``"+.5"``, exponents (``"1e5"``, ``"1E+5"``),
  leading zeros, ``"1e-400"`` (0.0), ``"-0"`` (-0.0), and spaces around a
  number (``" 1"``: both trim);
* null (``null_values``), which the text path reads as missing without a
  warning: the :data:`~ncu_roofline.core.units.MISSING_TOKENS` exactly as
  written, quoted or not (``quoted_strings_can_be_null``; string columns
  stay non-null through ``strings_can_be_null=False``);
* accepted but needing the text path's warning: ``"inf"``, ``"-inf"``,
  ``"infinity"`` in any case, ``"1e400"`` (inf), negative numbers, and
  ``"NAN"`` (NaN, a malformed number to the text path): the column goes back
  to text;
* refused (a conversion error: every column back to text): digit grouping
  ``"1,234"``, instance lists ``"3;4"``, a missing token with spaces
  around it, ``"."``, ``"1e"``, ``"0x10"``, ``"1_0"``, ``"1.2.3"``,
  ``"+-1"``, non-ASCII digits, and any other text.

No accepted value is read differently: both paths parse with Arrow's
correctly rounded string-to-double conversion.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

import numpy as np
import pyarrow as pa

from ncu_roofline.core.arrays import numbers as arrow_numbers
from ncu_roofline.core.dimensions import unit_fits
from ncu_roofline.core.metrics import STRING_METRICS, canonical_metric, unit_for
from ncu_roofline.core.units import MISSING_TOKENS, PLAIN_NUMBER, Unit, parse_unit

#: The plain decimal spelling without a minus sign (a negative value needs
#: the text path's warning), ASCII digits only (Arrow reads no others).
_PLAIN = re.compile(PLAIN_NUMBER, re.ASCII)

T = TypeVar("T")


def typed_columns(
    samples: Sequence[Sequence[str]],
    header: Sequence[str],
    metric_cols: Sequence[str],
    units: dict[str, str],
    decimal: str,
) -> dict[str, Unit]:
    """The metric columns to parse as float64, each with its unit.

    ``samples`` are the table's first data rows (the units row excluded).  A
    column qualifies when the file's decimal mark is ``"."``, its metric is
    numeric, its unit is known and fits the metric (a unit of the wrong
    dimension keeps the text path, which warns about it), and every sampled
    value is a missing token or a plain non-negative decimal.
    """
    if decimal != ".":
        return {}
    position = {name: i for i, name in enumerate(header)}
    out: dict[str, Unit] = {}
    for c in metric_cols:
        mid = canonical_metric(c)
        if mid in STRING_METRICS:
            continue
        unit = parse_unit(unit_for(mid, units.get(c, "")))
        if unit is None or not unit_fits(mid, unit.si):
            continue
        i = position[c]
        values = {r[i] for r in samples if len(r) > i}
        if all(
            v in MISSING_TOKENS or (_PLAIN.match(v) is not None and not v.startswith("-"))
            for v in values
        ):
            out[c] = unit
    return out


def typed_numbers(
    table: pa.Table, floats: dict[str, Unit]
) -> tuple[dict[str, np.ndarray], set[str]]:
    """SI values of the columns of ``floats`` that came back as float64, and those to re-read.

    A column is to be read again as text when any of its values is negative,
    infinite (as printed or once scaled to SI) or NaN without being a
    missing token: the text path warns about those, quoting the text.
    Nulls (missing tokens) are NaN, as on the text path.
    """
    out, again = _take_numbers([table], floats)
    return out, again


#: Columns taken between two hand-backs of the pool's freed memory.
_RELEASE_EVERY = 8


def _take_numbers(
    owner: list[pa.Table], floats: dict[str, Unit]
) -> tuple[dict[str, np.ndarray], set[str]]:
    """:func:`typed_numbers`, each converted column dropped from the table as it goes.

    ``owner`` holds the table (its only reference, when the caller keeps no
    other); it holds the table without those columns afterwards.  A column's
    numbers are a new array: with every column held until the last is
    converted, a raw page's float columns would be in memory twice (178 MB
    more on a 524 MB page of 129 such columns).  Each is dropped once
    converted, and the new arrays are Arrow's, from the pool the table's
    freed buffers return to, so those are used again.
    """
    table = owner.pop()
    out: dict[str, np.ndarray] = {}
    again: set[str] = set()
    pool = pa.default_memory_pool()
    for name, unit in floats.items():
        col = table.column(name)
        if not pa.types.is_floating(col.type):
            continue  # the read fell back to text
        # From the buffers: pyarrow's to_numpy would import pandas.
        values = arrow_numbers(col, pool=pool)
        if _needs_text(values, col.null_count, unit.factor):
            again.add(name)
            continue
        del col
        table = table.drop_columns([name])
        if unit.factor != 1.0:
            # In place: each new array of a launch's worth costs its page faults.
            values *= unit.factor
        out[name] = values
        if len(out) % _RELEASE_EVERY == 0:
            # The freed blocks are small (a batch's worth of a column) and the
            # new arrays large: the allocator reuses such blocks only once
            # handed back (RSS then stays at one copy, 526 to 383 MB there).
            pool.release_unused()
    if out:
        pool.release_unused()
    owner.append(table)
    return out, again


def _needs_text(values: np.ndarray, nulls: int, factor: float) -> bool:
    """Whether a column read as float64 holds a value the text path warns about.

    ``values`` has NaN for its ``nulls`` nulls.  Two reductions decide it
    (the column's smallest and largest value) rather than a pass per case:
    a negative value makes the smallest negative, an infinity (as printed or
    once scaled by the positive ``factor``) makes the largest one scale to
    infinity, and a NaN as printed makes both NaN, which no comparison passes.
    """
    if values.size == nulls:
        return False  # nothing but missing values
    with np.errstate(over="ignore", invalid="ignore"):
        if nulls:
            # Nulls read as NaN: more NaNs than nulls means a NaN as printed.
            if int(np.count_nonzero(np.isnan(values))) > nulls:
                return True
            low, high = np.fmin.reduce(values), np.fmax.reduce(values)
        else:
            low, high = values.min(), values.max()
        return not (low >= 0 and high * factor < np.inf)


def read_typed(
    read: Callable[..., tuple[pa.Table, T]], floats: dict[str, Unit]
) -> tuple[pa.Table, T, dict[str, np.ndarray]]:
    """``read(floats=...)`` until no typed column needs its texts: the table, the
    read's other result, and the SI values of the typed columns (left out of the table).
    """
    while True:
        got, other = read(floats=floats)
        # The list is the table's only holder while its columns are taken.
        owner = [got]
        del got
        numbers, again = _take_numbers(owner, floats)
        if not again:
            return owner[0], other, numbers
        del owner, numbers
        # Values the text path warns about, quoting them: those columns as text.
        floats = {c: u for c, u in floats.items() if c not in again}
