"""Rows of a parsed table that are no launch rows: left out, each kind named in one warning.

A launch row's ``ID`` is a whole number (a summary row's ``Invocations`` a
number), and the fields ncu always prints as whole numbers -- ``Process
ID``, ``Context``, ``Stream``, ``Device`` -- hold a number or nothing (the
``Process ID``, which keys the launch, a whole one).  A row that breaks
either is not a row of this table: a line of program output that
happened to parse, rows of another export appended without their header
(whose columns mean other things: a summary's ``Process Name`` under a
details page's ``Process ID``, a date under ``Context``), or a damaged line.
Read as launches they would be launches the input does not hold, so they
are left out, with one warning per kind naming the lines.

A left-out row that sits among the rows of a launch (between two of its
rows, or with the ID of the row before it) took a metric of that launch
with it: :func:`lost_metrics` names them, so that the launch's quantity
is missing rather than a partial sum.

Each column is judged once per distinct value (its dictionary), never per
row.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import flags
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.readers.lines import lines_text
from ncu_roofline.readers.table import codes_of, dict_codes, dictionary_size

#: Identity fields ncu prints as whole numbers (or leaves empty).
INTEGER_FIELDS = ("Process ID", "Context", "Stream", "Device")

_NONE = np.zeros(0, dtype=np.int64)

#: A number in any spelling a count could be corrupted into (``1e400``,
#: ``2.5``, ``inf``): such a summary row is a real row with a count not to
#: trust, not noise.
_NUMBER_TEXT = re.compile(
    r"[+-]?(?:[0-9][0-9,]*\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?inf(?:inity)?", re.I
)


def valid_ids(table: pa.Table, column: str, numbers: bool = False) -> np.ndarray:
    """Rows whose ``column`` holds an integer (noise rows do not); any number with ``numbers``."""
    if column not in table.column_names:
        return np.ones(table.num_rows, dtype=bool)
    col = table.column(column)
    if not dictionary_size(col):
        return np.zeros(table.num_rows, dtype=bool)
    codes = codes_of(col)
    dictionary = col.chunks[0].dictionary
    # A sign is kept: a negative count is a bad value of a real row, not noise.
    # The plain spellings are judged in Arrow (a raw page has one ID per row,
    # so as many distinct values as launches); Python judges the rest.
    plain = ac.match_substring_regex(dictionary, r"^[+,\-]*[0-9][0-9,]*$")
    ok = flags(plain)
    for i in np.flatnonzero(~ok).tolist():
        text = str(dictionary[i].as_py()).strip()
        ok[i] = text.replace(",", "").lstrip("+-").isdigit() or (
            numbers and _NUMBER_TEXT.fullmatch(text) is not None
        )
    valid: np.ndarray = ok[codes]
    return valid


#: A field of :data:`INTEGER_FIELDS` that fits: blank, or a number, even one
#: that is not whole (``inf``, ``1e400``: a damaged value of a real row,
#: read as missing with a warning); the ``Process ID`` keys the launch and
#: must be whole.  A field of another export's columns is text (a process
#: name, a date, a launch shape).
_FITS = {
    "Process ID": r"^[0-9]*$",
    "Other": r"(?i)^(?:[+-]?(?:[0-9][0-9,]*\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?"
    r"|[+-]?inf(?:inity)?|nan)?$",
}


def fitting_rows(table: pa.Table) -> np.ndarray | None:
    """Rows whose :data:`INTEGER_FIELDS` fit (:data:`_FITS`); None when all do."""
    fits: np.ndarray | None = None
    for name in INTEGER_FIELDS:
        if name not in table.column_names:
            continue
        col = table.column(name)
        if not pa.types.is_dictionary(col.type) or not dictionary_size(col):
            continue
        trimmed = ac.utf8_trim_whitespace(col.chunks[0].dictionary)
        pattern = _FITS.get(name, _FITS["Other"])
        ok = flags(ac.match_substring_regex(trimmed, pattern))
        if ok.all():
            continue
        row_ok = ok[codes_of(col)]
        fits = row_ok if fits is None else fits & row_ok
    return fits


def lost_metrics(
    left_out: np.ndarray,
    valid: np.ndarray,
    launch_of_row: np.ndarray,
    id_codes: np.ndarray,
    row_metric: np.ndarray,
    metric_ids: list[str],
) -> dict[str, np.ndarray]:
    """Per metric id, the launches that lost a row of it among ``left_out`` (table rows).

    A left-out row belongs to the launch of the launch rows around it when
    the rows before and after it are of one launch, or when it carries the
    ID of the row before (or after) it, the damage being elsewhere in the
    row; one before the table's first launch row belongs to that launch.
    """
    if left_out.size == 0 or not valid.any():
        return {}
    n = valid.size
    index = np.arange(n)
    before = np.maximum.accumulate(np.where(valid, index, -1))[left_out]
    after = np.minimum.accumulate(np.where(valid, index, n)[::-1])[::-1][left_out]
    has_before, has_after = before >= 0, after < n
    at_before, at_after = np.maximum(before, 0), np.minimum(after, n - 1)
    launch_before = np.where(has_before, launch_of_row[at_before], -1)
    launch_after = np.where(has_after, launch_of_row[at_after], -1)
    ids = id_codes[left_out]
    same_before = has_before & (ids == id_codes[at_before])
    same_after = has_after & (ids == id_codes[at_after])
    between = has_before & (launch_before == launch_after)
    launch = np.where(
        between | same_before,
        launch_before,
        np.where(same_after | ~has_before, launch_after, -1),
    )
    metric = row_metric[left_out]
    keep = (launch >= 0) & (metric >= 0)
    out: dict[str, np.ndarray] = {}
    for m in np.unique(metric[keep]).tolist():
        out[metric_ids[m]] = np.unique(launch[keep & (metric == m)])
    return out


def warn_left_out(
    info: SourceInfo,
    table: pa.Table,
    not_launch: np.ndarray,
    unfit: np.ndarray,
    column: str,
    lines_of: Callable[[np.ndarray], np.ndarray] | None,
) -> None:
    """One warning for the rows whose ``column`` (``ID``, ``Invocations``) is no number,
    one for those whose identity fields do not fit (both table row numbers)."""
    if not_launch.size:
        codes, dictionary = dict_codes(table.column(column))
        first = dictionary[int(codes[not_launch[0]])] if dictionary else ""
        what = "launch ID is not a whole number" if column == "ID" else f"{column} is not a number"
        where = f", {lines_text(lines_of(not_launch))}" if lines_of is not None else ""
        info.warn(
            f"{not_launch.size} row(s) whose {what} are left out "
            f"(first {first.strip()[:40]!r}{where})"
        )
    if unfit.size:
        where = f": {lines_text(lines_of(unfit))}" if lines_of is not None else ""
        info.warn(
            f"{unfit.size} row(s) whose Process ID is not a whole number, or whose Context, "
            "Stream or Device is not a number, do not fit the table's columns (another "
            f"export's rows without their header, or damaged lines) and are left out{where}"
        )


def warn_repeated(
    info: SourceInfo,
    table: pa.Table,
    rows: np.ndarray,
    lines_of: Callable[[np.ndarray], np.ndarray] | None,
    one_row_per_launch: bool,
) -> None:
    """One warning for the repeated rows left out (table row numbers), naming the first."""
    if rows.size == 0:
        return
    codes, dictionary = dict_codes(table.column("ID")) if "ID" in table.column_names else ([], [])
    first = int(rows[0])
    launch = f"launch ID {dictionary[int(codes[first])]}" if dictionary else "a launch"
    if not one_row_per_launch and "Metric Name" in table.column_names:
        names, name_dict = dict_codes(table.column("Metric Name"))
        launch += f", {name_dict[int(names[first])]}" if name_dict else ""
    what = "launch ID" if one_row_per_launch else "launch, section and metric"
    where = f": {lines_text(lines_of(rows))}" if lines_of is not None else ""
    info.warn(
        f"{rows.size} repeated row(s) left out: each repeats the {what} of an earlier row "
        f"(damage, not a second run; the earlier row is kept){where} (first: {launch})"
    )
