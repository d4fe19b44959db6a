"""Damaged and unusual CSV inputs: appended runs, cut-off launches, several tables.

* **Runs.** IDs that start again are appended runs, kept apart
  (:mod:`~ncu_roofline.readers.runs`).
* **Cut-off launches.** A details export cut short (a full disk, a killed
  job, ``head``) ends with a launch that has fewer metric rows than its
  siblings (same kernel, same sections, rows in the same order).  Its
  quantities that lost a part are left missing: a FLOP total from the FP64
  counters alone would be a confident 0 where the FP32 counters were cut.
  A raw-page row cut mid-way keeps the fields before the cut.
* **Several tables.** Exports concatenated into one file are read table by
  table, each with its own header, and the launches kept together.

Everything here is vectorised over rows; the loops run over runs, cut
launches or tables, never over launches.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from ncu_roofline.core.launches import Coded, LaunchColumns
from ncu_roofline.core.metrics import (
    canonical_metric,
    looks_like_metric_id,
    metric_for_label,
    quantity_family,
)
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.readers.locate import Located, parse_partial
from ncu_roofline.readers.runs import combos, warn_runs
from ncu_roofline.readers.table import codes_of, dict_codes


def _codes(table: pa.Table, name: str) -> np.ndarray:
    return codes_of(table.column(name))


def _ids(table: pa.Table, rows: np.ndarray) -> list[str]:
    codes, dictionary = dict_codes(table.column("ID"))
    return [dictionary[c] for c in codes[rows].tolist()]


def cut_launches(
    table: pa.Table,
    launch_of_row: np.ndarray,
    first_rows: np.ndarray,
    run: np.ndarray | None,
    loc: Located,
    metric_ids: dict[int, str],
    row_metric: np.ndarray,
) -> list[tuple[int, int, int, set[str]]]:
    """Details-page launches cut off at the end of their run or table.

    Returns ``(launch, rows it has, rows its sibling has, metric ids it
    lacks)`` for each.  Only the last launch of each run can be cut; it is
    when a launch with more metric rows (of the same kernel first) starts
    with exactly its rows.  A row cut mid-way names what it lacks too.
    """
    n_launch = first_rows.size
    if n_launch == 0:
        return []
    name_codes, name_dict = dict_codes(table.column("Metric Name"))
    has_name = np.array([bool(d) for d in name_dict], dtype=bool)[name_codes]
    metric_rows = (launch_of_row >= 0) & has_name
    if not metric_rows.any():
        return []
    counts = np.bincount(launch_of_row[metric_rows], minlength=n_launch)
    if run is None:
        last_rows = [metric_rows.size - 1 - int(np.argmax(metric_rows[::-1]))]
    else:
        rows_in_order = np.nonzero(metric_rows)[0]
        run_of = run[rows_in_order]
        last_rows = rows_in_order[np.nonzero(np.diff(np.append(run_of, -1)) != 0)[0]].tolist()
    very_last = last_rows[-1]
    found: list[tuple[int, int, int, set[str]]] = []
    for last_row in last_rows:
        launch = int(launch_of_row[last_row])
        if counts[launch] >= counts.max() and not (loc.truncated and last_row == very_last):
            continue  # the common case: nothing longer to compare with
        mine = np.nonzero(metric_rows & (launch_of_row == launch))[0]
        sibling = _sibling(table, launch, counts, first_rows, metric_rows, launch_of_row, mine)
        if sibling is not None:
            theirs = np.nonzero(metric_rows & (launch_of_row == sibling))[0]
            lacking = set(row_metric[theirs].tolist()) - set(row_metric[mine].tolist())
            missing = {metric_ids[m] for m in lacking if m >= 0}
            found.append((launch, mine.size, theirs.size, missing))
        elif loc.truncated and last_row == very_last:
            launch_id = _ids(table, first_rows[launch : launch + 1])[0]
            # The cut row belonged to a launch left out whole: this one is complete.
            other_cut = loc.partial is not None and _partial_metric(loc, launch_id) is None
            if not other_cut:
                # Nothing complete to compare with: the rows after the cut
                # are unknown, so every quantity of the launch is suspect.
                found.append((launch, mine.size, 0, set(metric_ids.values())))
    cut = {f[0] for f in found}
    found.extend(
        g
        for g in _gapped(
            table, launch_of_row, first_rows, metric_rows, counts, row_metric, metric_ids
        )
        if g[0] not in cut
    )
    return found


#: Launches with rows missing mid-table are each compared with a sibling up to this many.
MAX_GAPPED = 1000


def _gapped(
    table: pa.Table,
    launch_of_row: np.ndarray,
    first_rows: np.ndarray,
    metric_rows: np.ndarray,
    counts: np.ndarray,
    row_metric: np.ndarray,
    metric_ids: dict[int, str],
) -> list[tuple[int, int, int, set[str]]]:
    """Launches anywhere in the table lacking metrics that the longest launch of
    their kernel has (a line lost in the middle of an export).

    Found with one pass over the launches' row counts per kernel; only the
    launches that fall short (normally none) are compared metric by metric.
    """
    kernels = _codes(table, "Kernel Name")[first_rows]
    longest = np.zeros(int(kernels.max(initial=0)) + 1, dtype=np.int64)
    np.maximum.at(longest, kernels, counts)
    short = np.nonzero(counts < longest[kernels])[0][:MAX_GAPPED]
    if short.size == 0:
        return []
    # The longest launch of each kernel, as the one to compare with.
    order = np.lexsort((-counts, kernels))
    first_of_kernel = order[np.concatenate([[True], kernels[order][1:] != kernels[order][:-1]])]
    best = dict(zip(kernels[first_of_kernel].tolist(), first_of_kernel.tolist(), strict=True))
    rows = np.nonzero(metric_rows)[0]
    import pandas as pd

    by_launch = pd.Series(row_metric[rows]).groupby(launch_of_row[rows])
    wanted = set(short.tolist()) | {best[int(kernels[i])] for i in short}
    metric_sets = {int(k): set(v.tolist()) for k, v in by_launch if int(k) in wanted}
    found: list[tuple[int, int, int, set[str]]] = []
    for launch in short.tolist():
        sibling = best[int(kernels[launch])]
        lacking = metric_sets.get(sibling, set()) - metric_sets.get(launch, set())
        missing = {metric_ids[m] for m in lacking if m >= 0}
        if missing:
            found.append((launch, int(counts[launch]), int(counts[sibling]), missing))
    return found


def _sibling(
    table: pa.Table,
    launch: int,
    counts: np.ndarray,
    first_rows: np.ndarray,
    metric_rows: np.ndarray,
    launch_of_row: np.ndarray,
    mine: np.ndarray,
) -> int | None:
    """A launch with more metric rows whose first rows are exactly ``launch``'s.

    Launches of the same kernel are tried first, then the others: one
    candidate per distinct row count, which keeps this to a few checks.
    """
    longer = np.nonzero(counts > counts[launch])[0]
    if longer.size == 0:
        return None
    kernels = _codes(table, "Kernel Name")[first_rows]
    same = kernels[longer] == kernels[launch]
    mine_combos = combos(table, mine)
    for group in (longer[same], longer[~same]):
        _, first = np.unique(counts[group], return_index=True)
        for cand in group[first][:4].tolist():
            theirs = np.nonzero(metric_rows & (launch_of_row == cand))[0][: mine.size]
            if np.array_equal(combos(table, theirs), mine_combos):
                return int(cand)
    return None


def _partial_metric(loc: Located, launch_id: str) -> set[str] | None:
    """The metric of the details row cut mid-way, when its name survived the cut.

    None when the cut row belongs to another launch (one left out whole).
    """
    if loc.partial is None:
        return None
    fields, complete = parse_partial(loc.partial)
    header = loc.header
    id_at = header.index("ID")
    if len(fields) <= id_at + (0 if complete else 1) or fields[id_at] != launch_id:
        return None
    name_at = header.index("Metric Name")
    if len(fields) <= name_at + (0 if complete else 1):
        return set()
    label = fields[name_at]
    if looks_like_metric_id(label):
        return {canonical_metric(label)}
    section = fields[header.index("Section Name")]
    body = fields[header.index("Body Item Label")] if "Body Item Label" in header else ""
    mid = metric_for_label(section, body, label)
    return {mid} if mid else set()


def blank(values: Any, launch: int) -> None:
    """Leave one launch's value of a metric column missing, in place.

    A text metric read as codes into its distinct values (``Coded``, the
    raw page's device name) is missing at code -1; an object column at
    None; a number column at NaN.
    """
    if isinstance(values, Coded):
        values.codes[launch] = -1
    elif values.dtype == object:
        values[launch] = None
    else:
        values[launch] = np.nan


def blank_cut(
    metrics: dict[str, Any],
    launch: int,
    missing: set[str],
) -> list[str]:
    """Leave missing, in place, every quantity of ``launch`` that lost a part.

    Returns the names of the quantities blanked.
    """
    families = {f for f in (quantity_family(m) for m in missing) if f is not None}
    for mid, values in metrics.items():
        if quantity_family(mid) in families:
            blank(values, launch)
    return sorted(families)


def _summed_part(metric_id: str) -> bool:
    """Whether the metric is a count summed into a quantity (not a rate or a percentage)."""
    return metric_id.endswith(".sum") and quantity_family(metric_id) is not None


def absent_rows(
    launch_of_row: np.ndarray, row_metric: np.ndarray, metric_index: dict[str, int], n_launch: int
) -> dict[str, np.ndarray]:
    """Per summed-quantity metric, the launches without a row of it that other launches have.

    One boolean mask of (metric, launch) presence, set in one scatter: no
    sort of the pairs (a real export holds tens of metric rows per launch,
    and ``np.unique`` over them cost a quarter of a parse).  A metric every
    launch has, or none, lacks nowhere.
    """
    wanted = {j: mid for mid, j in metric_index.items() if _summed_part(mid)}
    if not wanted or n_launch < 2:
        return {}
    # Ascending metric index: the order the warnings name them in.
    ids = np.array(sorted(wanted), dtype=np.int64)
    # Metric index -> its row in the mask (-1: not a summed quantity).
    compact = np.full(max(int(ids.max()), int(row_metric.max(initial=0))) + 1, -1, np.int64)
    compact[ids] = np.arange(ids.size)
    rows = (launch_of_row >= 0) & (row_metric >= 0)
    slot = compact[row_metric[rows]]
    keep = slot >= 0
    present = np.zeros((ids.size, n_launch), dtype=bool)
    present[slot[keep], launch_of_row[rows][keep]] = True
    counts = present.sum(axis=1)
    out: dict[str, np.ndarray] = {}
    for k in np.flatnonzero((counts > 0) & (counts < n_launch)).tolist():
        out[wanted[int(ids[k])]] = np.flatnonzero(~present[k])
    return out


def blank_inconsistent(
    metrics: dict[str, Any],
    lacking: dict[str, np.ndarray],
    ids: list[Any],
    info: SourceInfo,
    named: str = "launch ID",
) -> None:
    """Leave missing every summed quantity of a launch that lacks one of its parts.

    ``lacking`` names, per metric, the launches without its value: a row
    the other launches have (a line lost mid-file), or a value left out as
    malformed, negative or in a unit of the wrong kind.  Summed without it,
    the launch would get a confident partial sum (FP64 FLOPs alone where
    the FP32 counts are gone): its whole quantity family is missing instead,
    with one warning per family.  The warning names the first such launch as
    ``named`` and its entry of ``ids`` (a summary's rows by ``kernel``).
    """
    rows, others = ("kernel(s)", "kernels") if named == "kernel" else ("launch(es)", "launches")
    by_family: dict[str, list[np.ndarray]] = {}
    for mid, launches in lacking.items():
        family = quantity_family(mid)
        if family is not None and _summed_part(mid) and launches.size:
            by_family.setdefault(family, []).append(launches)
    for family, parts in by_family.items():
        columns = [
            v
            for m, v in metrics.items()
            if quantity_family(m) == family and _summed_part(m) and v.dtype != object
        ]
        where = np.unique(np.concatenate(parts))
        if not columns or where.size == 0:
            continue
        for values in columns:
            values[where] = np.nan
        info.warn(
            f"{where.size} {rows} lack some of the {family} counters the other {others} "
            f"have, or a value of them was left out (first: {named} {ids[int(where[0])]}): "
            f"their {family} left missing, never a partial sum"
        )


def warn_cut(
    cuts: list[tuple[int, int, int, set[str]]],
    metrics: dict[str, Any],
    ids: list[Any],
    info: SourceInfo,
) -> None:
    """Blank the cut launches' incomplete quantities and say so, naming each launch."""
    for launch, have, want, missing in cuts:
        blanked = blank_cut(metrics, launch, missing)
        lost = f"its {', '.join(blanked)} left missing" if blanked else "no roofline input lost"
        if want:
            info.warn(
                f"launch ID {ids[launch]} has {have} metric rows where its sibling launches have "
                f"{want} ({want - have} missing): the export was cut off there; {lost}"
            )
        else:
            info.warn(
                f"launch ID {ids[launch]} is the last of an export cut off, with no complete "
                f"launch of its kernel to compare with; {lost}"
            )


def append_partial_raw(
    table: pa.Table, loc: Located, names: list[str], include: list[str], ident: list[str]
) -> tuple[pa.Table, set[str] | None]:
    """A raw-page table with its cut-off last row added, and the columns that row lacks.

    The fields before the cut are kept (the one the cut went through is
    not); the row is left out when an identity field was cut.  None when
    there was no such row.
    """
    if loc.partial is None:
        return table, None
    fields, complete = parse_partial(loc.partial)
    kept = len(fields) if complete else len(fields) - 1
    position = {n: i for i, n in enumerate(names)}
    if any(position.get(c, 0) >= kept for c in ident):
        return table, set()
    columns = []
    for col in table.schema:
        i = position[col.name]
        value = fields[i] if i < kept else ""
        array = pa.array([value], type=pa.string())
        columns.append(array.dictionary_encode() if pa.types.is_dictionary(col.type) else array)
    extra = pa.Table.from_arrays(columns, schema=table.schema)
    lacking = {c for c in include if position[c] >= kept}
    return pa.concat_tables([table, extra]), lacking


def merge_tables(
    parts: list[tuple[LaunchColumns, SourceInfo]], lines: list[int], name: str
) -> tuple[LaunchColumns, SourceInfo]:
    """The launches of several tables of one input, and their provenance in one record."""
    infos = [i for _, i in parts]
    layouts = list(dict.fromkeys(i.layout for i in infos))
    info = SourceInfo(path=name, layout="+".join(layouts))
    info.warn(
        f"the file holds {len(parts)} ncu tables (exports concatenated, or a run appended?), "
        f"with headers on lines {', '.join(str(n) for n in lines)}: each is read with its own header"
    )
    for part in infos:
        info.absorb(part)
    info.units = "auto" if any(i.units == "auto" for i in infos) else infos[0].units
    info.aggregated = any(i.aggregated for i in infos)
    info.ncu_version = next((i.ncu_version for i in infos if i.ncu_version), None)
    # A summary's IDs are only row numbers: they say nothing about runs.
    repeated = _repeated_ids([c for c, i in parts if not i.aggregated])
    if repeated:
        info.warn(
            f"{repeated} launch ID(s) appear in more than one table (runs appended?): "
            "all are kept as separate launches"
        )
    return LaunchColumns.concat([c for c, _ in parts]), info


def _repeated_ids(parts: list[LaunchColumns]) -> int:
    """Rows of ``parts`` whose (process ID, launch ID) an earlier row has; missing is -1."""
    if not parts:
        return 0
    joined = LaunchColumns.concat(parts)
    keys = []
    for name in ("process_id", "id"):
        values, missing = joined.integer(name)
        keys.append(np.where(missing, -1, values))
    rows = np.stack(keys, axis=1)
    return len(rows) - len(np.unique(rows, axis=0)) if len(rows) else 0


def check_details(
    table: pa.Table,
    launch_of_row: np.ndarray,
    first_rows: np.ndarray,
    run: np.ndarray | None,
    loc: Located,
    metric_index: dict[str, int],
    row_metric: np.ndarray,
    metrics: dict[str, Any],
    ids: list[Any],
    info: SourceInfo,
    rejected: dict[str, np.ndarray] | None = None,
    line_of: Any = None,
) -> None:
    """A details page's restarted IDs, cut-off launches, lost rows and left-out values
    (``rejected``, per metric the launches): warnings, and blanks in ``metrics``.
    ``line_of`` gives a table row's line in the file, for the warnings."""
    warn_runs(run, table, first_rows, info, line_of)
    names = {j: mid for mid, j in metric_index.items()}
    cuts = cut_launches(table, launch_of_row, first_rows, run, loc, names, row_metric)
    warn_cut(cuts, metrics, ids, info)
    lacking = absent_rows(launch_of_row, row_metric, metric_index, first_rows.size)
    for mid, launches in (rejected or {}).items():
        lacking[mid] = np.union1d(lacking.get(mid, np.zeros(0, dtype=np.int64)), launches)
    blank_inconsistent(metrics, lacking, ids, info)


def check_summary(
    launch_of_row: np.ndarray,
    row_metric: np.ndarray,
    metric_index: dict[str, int],
    metrics: dict[str, Any],
    kernels: list[str],
    info: SourceInfo,
    rejected: dict[str, np.ndarray] | None = None,
) -> None:
    """A per-kernel summary's lost rows and left-out values: warnings, and blanks in
    ``metrics``.

    A summary has no launch IDs to compare siblings by, but its kernels were
    profiled with one metric list: a kernel without a counter row the others
    have (the file cut in its rows, a line lost) gets no partial sum.
    """
    lacking = absent_rows(launch_of_row, row_metric, metric_index, len(kernels))
    for mid, launches in (rejected or {}).items():
        lacking[mid] = np.union1d(lacking.get(mid, np.zeros(0, dtype=np.int64)), launches)
    blank_inconsistent(metrics, lacking, kernels, info, named="kernel")


def check_raw(
    lacking: set[str] | None,
    launch_of_row: np.ndarray,
    run: np.ndarray | None,
    table: pa.Table,
    first_rows: np.ndarray,
    metrics: dict[str, Any],
    info: SourceInfo,
    rejected: dict[str, np.ndarray] | None = None,
    line_of: Any = None,
) -> None:
    """A raw page's restarted IDs, left-out values and cut-off last row: warnings, and
    blanks in ``metrics``.  ``line_of`` gives a table row's line in the file."""
    warn_runs(run, table, first_rows, info, line_of)
    if rejected:
        blank_inconsistent(metrics, rejected, _ids(table, first_rows), info)
    if lacking is None:
        return
    if not lacking or launch_of_row.size == 0 or launch_of_row[-1] < 0:
        info.warn("the last row was cut off before its identity fields ended: it is left out")
        return
    launch = int(launch_of_row[-1])
    missing = {canonical_metric(c) for c in lacking}
    blanked = blank_cut(metrics, launch, missing)
    for mid in missing & metrics.keys():
        blank(metrics[mid], launch)
    id_codes, id_dict = dict_codes(table.column("ID"))
    lost = f"its {', '.join(blanked)} left missing" if blanked else "no roofline input lost"
    info.warn(
        f"the last row (launch ID {id_dict[id_codes[-1]]}) was cut off: {len(lacking)} of its "
        f"fields are left missing; {lost}"
    )
