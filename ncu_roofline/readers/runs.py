"""Launch IDs that come round again: a run appended to the file, or a row repeated.

* **Runs.** ncu numbers a run's launches from 0 upwards.  A second run
  appended to the same log (in a container it often has the same process
  ID) starts again at 0: IDs that go back, or a launch whose first metric
  row comes round again, start a new run, so two launches that share an ID
  are never merged.
* **Repeated rows.** One row repeated (a line doubled in place, or copied
  among the rows of another launch) is damage, not a second run: it would
  otherwise start a run of its own and make a launch the input does not
  hold.  What tells the two apart is what follows the break.  A run starts
  the whole sequence again: after a launch's first row comes round again,
  the next row is the one that followed it the first time; after the IDs
  go back, they stay back.  A repeated row is passed over: the rows after
  it go on from the row before it as if it were not there.  Such a row
  (:func:`split_runs`' second result), and any later row of a launch with
  the section and metric of an earlier one (:func:`repeated_rows`), is
  left out with a warning naming its line; the first stays.

  Only what a break cannot tell is left as it was: an export of one row
  per launch (one metric, or a raw page) whose only launch row is doubled
  reads as two runs of one launch each, as ``--launch-count 1`` runs
  appended to a log do.

Everything here is vectorised over rows; the loops run over a few passes,
never over rows or launches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ncu_roofline.core.model import SourceInfo
from ncu_roofline.readers.table import codes_of, dict_codes

#: Passes of :func:`split_runs` that look for repeated rows (a row tripled
#: in place takes two).
_PASSES = 4

_NONE = np.zeros(0, dtype=np.int64)


def _codes(table: pa.Table, name: str) -> np.ndarray:
    return codes_of(table.column(name))


def combos(table: pa.Table, rows: Any) -> np.ndarray:
    """One integer per distinct (section, body item label, metric name) of each of ``rows``."""
    name_codes, name_dict = dict_codes(table.column("Metric Name"))
    sec_codes = _codes(table, "Section Name")
    combo: np.ndarray = sec_codes[rows].astype(np.int64) * max(len(name_dict), 1)
    combo = combo + name_codes[rows]
    if "Body Item Label" in table.column_names:
        body_codes = _codes(table, "Body Item Label")
        combo = combo * (int(body_codes.max(initial=0)) + 1) + body_codes[rows]
    return combo


def split_runs(
    table: pa.Table, valid: np.ndarray, one_row_per_launch: bool
) -> tuple[np.ndarray | None, np.ndarray]:
    """The run of each row (0, 1, ...; None when no launch ID comes round again), and the
    rows that repeat another row rather than start a run (table row numbers, to leave out).

    Works on the ID column's dictionary codes, which number IDs in order of
    first appearance: within a run they never go back.  On a details page a
    launch's rows share its ID, so an ID block in which the block's first
    (section, metric) row comes round again holds two launches with that ID
    (two appended runs of one launch each).
    """
    if "ID" not in table.column_names:
        return None, _NONE
    # Every row is a launch row in the common case: no gather then.
    rows: Any = slice(None) if valid.all() else np.flatnonzero(valid)
    ids = _codes(table, "ID")
    codes = ids[rows]
    if codes.size < 2:
        return None, _NONE
    breaks, combo = _breaks(table, rows, codes, one_row_per_launch)
    if not breaks.any():
        return None, _NONE
    if isinstance(rows, slice):
        rows = np.arange(table.num_rows)
    left_out: list[np.ndarray] = []
    for _ in range(_PASSES):
        lone = _lone_rows(codes, breaks, combo, one_row_per_launch)
        if lone.size == 0:
            break
        left_out.append(rows[lone])
        rows = np.delete(rows, lone)
        codes = ids[rows]
        if codes.size < 2:
            breaks = np.zeros(max(codes.size - 1, 0), dtype=bool)
            break
        breaks, combo = _breaks(table, rows, codes, one_row_per_launch)
        if not breaks.any():
            break
    strays = np.sort(np.concatenate(left_out)) if left_out else _NONE
    if not breaks.any():
        return None, strays
    run = np.zeros(table.num_rows, dtype=np.int64)
    run[rows] = np.concatenate([[0], np.cumsum(breaks)])
    # Rows that are not launch rows carry no run; give them their neighbours'.
    return np.maximum.accumulate(run), strays


def _breaks(
    table: pa.Table, rows: Any, codes: np.ndarray, one_row_per_launch: bool
) -> tuple[np.ndarray, np.ndarray | None]:
    """Whether each row after the first starts a run; the rows' (section, metric) when needed."""
    if one_row_per_launch:
        return codes[1:] <= codes[:-1], None
    breaks = codes[1:] < codes[:-1]
    change = codes[1:] != codes[:-1]
    if not (breaks.any() or _first_row_repeats(table, rows, change)):
        return breaks, None
    combo = combos(table, rows)
    block_start = np.concatenate([[0], np.nonzero(change)[0] + 1])
    block = np.concatenate([[0], np.cumsum(change)])
    breaks |= ~change & (combo[1:] == combo[block_start][block][1:])
    return breaks, combo


def _first_row_repeats(table: pa.Table, rows: Any, change: np.ndarray) -> bool:
    """Whether the first launch's first (section, metric) occurs more often than there are ID blocks.

    A cheap test on the name codes first; only when it holds are sections,
    then whole rows, compared.
    """
    blocks = np.count_nonzero(change) + 1
    names = _codes(table, "Metric Name")[rows]
    same_name = names == names[0]
    if np.count_nonzero(same_name) <= blocks:
        return False
    sections = _codes(table, "Section Name")[rows]
    return bool(np.count_nonzero(same_name & (sections == sections[0])) > blocks)


def _lone_rows(
    codes: np.ndarray, breaks: np.ndarray, combo: np.ndarray | None, one_row_per_launch: bool
) -> np.ndarray:
    """Positions (among the rows) of rows that break the sequence without starting a run."""
    starts: np.ndarray = np.flatnonzero(breaks) + 1
    if one_row_per_launch:
        lone_rows: np.ndarray = starts[_lone_launch_rows(codes, starts)]
        return lone_rows
    assert combo is not None  # a details page's breaks always compare rows
    same = codes[1:] == codes[:-1]
    if np.any(same & (combo[1:] != combo[:-1])):
        # Launches of several rows: a row equal to the one before is a copy.
        copies = np.flatnonzero(same & (combo[1:] == combo[:-1])) + 1
        if copies.size:
            return copies
    back = codes[starts] < codes[starts - 1]
    lone = np.zeros(starts.size, dtype=bool)
    lone[back] = _lone_back(codes, combo, starts[back])
    lone[~back] = _lone_repeat(codes, combo, breaks, starts[~back])
    return starts[lone]


def _lone_launch_rows(codes: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """One row per launch: a row whose ID went back (or stayed) is lone when the next goes on
    from the row before it; the last row, when it repeats the row before it in place."""
    m = codes.size
    lone = np.zeros(starts.size, dtype=bool)
    inner = starts + 1 < m
    at = starts[inner]
    lone[inner] = codes[at + 1] > codes[at - 1]
    end = starts[~inner]
    lone[~inner] = (end >= 2) & (codes[end] == codes[end - 1]) & (codes[end - 1] > codes[end - 2])
    return lone


def _lone_back(codes: np.ndarray, combo: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Rows whose ID went back: lone when the next row carries on from the row before it
    without a break, or when the last row of all follows a launch of several rows."""
    m = codes.size
    lone = np.zeros(at.size, dtype=bool)
    inner = at + 1 < m
    b = at[inner]
    before, after = codes[b - 1], codes[b + 1]
    # The first row of the block the row before belongs to.
    block_starts = np.concatenate([[0], np.flatnonzero(codes[1:] != codes[:-1]) + 1])
    first = block_starts[np.searchsorted(block_starts, b - 1, side="right") - 1]
    restarts = (after == before) & (combo[b + 1] == combo[first])
    lone[inner] = (after > before) | ((after == before) & ~restarts)
    end = at[~inner]
    lone[~inner] = (end >= 2) & (codes[end - 1] == codes[end - 2])
    return lone


def _lone_repeat(
    codes: np.ndarray, combo: np.ndarray, breaks: np.ndarray, at: np.ndarray
) -> np.ndarray:
    """Rows where a launch's first (section, metric) came round again: lone unless the
    rows after it repeat the rows after the launch's first, or every launch is one row."""
    m = codes.size
    change = codes[1:] != codes[:-1]
    block_starts = np.concatenate([[0], np.flatnonzero(change) + 1])
    first = block_starts[np.searchsorted(block_starts, at, side="right") - 1]
    bounds = np.concatenate([[0], np.flatnonzero(breaks | change) + 1, [m]])
    after = bounds[np.searchsorted(bounds, at, side="right")] - at
    before = at - bounds[np.searchsorted(bounds, at, side="left") - 1]
    follows = np.zeros(at.size, dtype=bool)
    longer = after >= 2
    follows[longer] = combo[at[longer] + 1] == combo[first[longer] + 1]
    genuine: np.ndarray = follows | ((after == 1) & (before == 1))
    return ~genuine


def repeated_rows(
    launch_of_row: np.ndarray, combo: np.ndarray, n_combo: int, n_launch: int
) -> np.ndarray:
    """Rows with the launch and (section, metric) of an earlier row (table row numbers).

    ``combo`` numbers each row's (section, body item label, metric name)
    below ``n_combo`` (-1: a row without a metric name, never a repeat).  One
    ``bincount`` over (launch, combo) answers the common case (none); the
    few repeated keys are then found in numpy.  Rows outside every launch
    (-1) are not looked at.
    """
    if n_launch == 0 or n_combo == 0:
        return _NONE
    checked = (launch_of_row >= 0) & (combo >= 0)
    # Every row is checked in the common case: no gather, no row numbers.
    rows: np.ndarray | None = None if checked.all() else np.flatnonzero(checked)
    launches, row_combo = (
        (launch_of_row, combo) if rows is None else (launch_of_row[rows], combo[rows])
    )
    if launches.size < 2:
        return _NONE
    bound = n_launch * n_combo
    # The narrowest key that holds every (launch, combo): one per row.
    key = launches.astype(np.int32 if bound < 1 << 31 else np.int64) * n_combo + row_combo
    if bound <= 4 * key.size + 1024:
        counts = np.bincount(key, minlength=bound)
        if counts.max(initial=0) < 2:
            return _NONE
        many = counts[key] > 1
    else:
        uniq, counts = np.unique(key, return_counts=True)
        if counts.max(initial=0) < 2:
            return _NONE
        many = np.isin(key, uniq[counts > 1])
    candidates = np.flatnonzero(many)
    _, first = np.unique(key[candidates], return_index=True)
    later = np.ones(candidates.size, dtype=bool)
    later[first] = False
    found: np.ndarray = candidates[later] if rows is None else rows[candidates[later]]
    return found


def warn_runs(
    run: np.ndarray | None,
    table: pa.Table,
    first_rows: np.ndarray,
    info: SourceInfo,
    line_of: Any = None,
) -> None:
    """Say that the IDs restart, how many runs there are, how many IDs repeat, and on
    which line (``line_of`` maps a table row to it) the first restart is."""
    if run is None or first_rows.size == 0:
        return
    ids = _codes(table, "ID")[first_rows]
    runs = int(run[first_rows].max()) + 1
    repeated = int(ids.size - np.unique(ids).size)
    where = ""
    if line_of is not None and runs > 1:
        second = int(first_rows[np.argmax(run[first_rows] > 0)])
        where = f" (the first restart on line {line_of(second):,})"
    info.warn(
        f"launch IDs start again {runs - 1} time(s){where} (runs appended to the same file?): "
        f"read as {runs} runs, kept apart; {repeated} launch ID(s) appear in more than one run"
    )
