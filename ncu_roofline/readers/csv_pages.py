"""Readers for ncu's CSV pages: details (long), raw (wide) and summary.

All three share the same steps: locate the table, parse the needed columns
with pyarrow, map each metric to its id, turn each value into an SI float
(vectorised over the whole column), and pivot to one row per launch.  Python
loops run only over *distinct* values (metric names, units, kernel names),
never over rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import indices, integer_array
from ncu_roofline.core.arrays import numbers as arrow_numbers
from ncu_roofline.core.dimensions import base_unit
from ncu_roofline.core.launches import Coded, coded, finalize_columns
from ncu_roofline.core.metrics import (
    KHZ_METRICS,
    STRING_METRICS,
    canonical_metric,
    is_relevant,
    looks_like_metric_id,
    metric_for_label,
    rate_unit_quirk,
    unit_for,
)
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.names import short_name
from ncu_roofline.core.units import Unit, parse_unit
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.header import auto_units, decimal_for, dedupe, infer_ncu_version
from ncu_roofline.readers.identity import (
    IDENTITY_HEADERS,
    IdentityColumns,
    MetricColumns,
    NotWhole,
    encode_identity,
    identity_columns,
)
from ncu_roofline.readers.integrity import (
    append_partial_raw,
    check_details,
    check_raw,
    check_summary,
)
from ncu_roofline.readers.lines import RowLines, lines_text
from ncu_roofline.readers.locate import (
    Located,
    ProgressCallback,
    RawInput,
    sample_rows,
)
from ncu_roofline.readers.nvtx import NVTX_PUSHPOP as _NVTX_PUSHPOP
from ncu_roofline.readers.nvtx import NVTX_STARTEND as _NVTX_STARTEND
from ncu_roofline.readers.row_checks import (
    fitting_rows,
    lost_metrics,
    valid_ids,
    warn_left_out,
    warn_repeated,
)
from ncu_roofline.readers.rule_rows import rule_table
from ncu_roofline.readers.runs import repeated_rows, split_runs
from ncu_roofline.readers.table import (
    SkipCounter,
    codes_of,
    dict_codes,
    dictionary_size,
    distinct_codes,
    header_lines,
    read_table,
)
from ncu_roofline.readers.typed import read_typed, typed_columns
from ncu_roofline.readers.values import (
    RowKeys,
    ValueProblems,
    convert_columns,
    convert_rows,
    invocation_counts,
    launch_label,
    unit_factors,
    warn_not_collected,
)

#: Whether raw pages parse plain-number columns as float64 (the text path
#: gives the same launches and warnings; tests compare the two).
TYPED_RAW = True


class _Builder:
    """Shared state while turning one parsed table into launches."""

    def __init__(self, raw: RawInput, loc: Located, layout: str) -> None:
        self.raw = raw
        self.loc = loc
        self.info = SourceInfo(path=raw.name, layout=layout)
        self.info.ncu_errors = list(loc.errors)
        self.metric_index: dict[str, int] = {}
        #: The file's line of each table row, for warnings (None: not a file's table).
        self.lines: RowLines | None = None

    def metric(self, mid: str) -> int:
        if mid not in self.metric_index:
            self.metric_index[mid] = len(self.metric_index)
        return self.metric_index[mid]

    def number_lines(self, names: list[str], skip_rows: int, counter: SkipCounter) -> None:
        """Let warnings name the lines of the rows of the table just parsed."""
        raw, loc = self.raw, self.loc
        self.lines = RowLines(raw.buf, raw.path, loc.start, loc.end, names, skip_rows, counter)

    @property
    def line_of(self) -> Callable[[int], int] | None:
        """The file's line of a table row, where the table is the file's."""
        return self.lines.one if self.lines is not None else None

    @property
    def lines_of(self) -> Callable[[np.ndarray], np.ndarray] | None:
        """The file's lines of table rows, where the table is the file's."""
        return self.lines.of if self.lines is not None else None

    def common_warnings(self, skipped: SkipCounter) -> None:
        if self.loc.truncated:
            self.info.warn(
                "the file ends mid-row (truncated?): the rows read before the cut are kept"
            )
        if skipped.other_rows:
            where = ""
            if self.lines is not None:
                where = f" ({lines_text(self.lines.other_lines(skipped))})"
            samples = skipped.last_other
            self.info.warn(
                f"skipped {skipped.other_rows} line(s) inside the table that are not table "
                f"rows{where}" + (f", e.g. {samples[0]!r}" if samples else "")
            )
        for err in self.loc.errors:
            self.info.warn(f"ncu reported: {err}")


def _column(table: pa.Table, name: str) -> pa.ChunkedArray | None:
    return table.column(name) if name in table.column_names else None


def _launch_keys(
    table: pa.Table, key_columns: list[str], valid: np.ndarray, run: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Launch index per row (-1 for invalid rows), and the first row of each launch.

    Launches are numbered in order of first appearance; ``run`` (a run per
    row) keeps launches of different runs apart.
    """
    n = table.num_rows
    combined = np.zeros(n, dtype=np.int64) if run is None else run.astype(np.int64)
    # The key is a mixed-radix number of the columns' dictionary codes;
    # ``bound`` is one more than its largest value.
    bound = 1 if run is None or run.size == 0 else int(run.max()) + 1
    for name in key_columns:
        col = _column(table, name)
        if col is None:
            continue
        radix = dictionary_size(col) + 1
        if radix <= 2 and col.null_count == 0:
            # One value on every row (a summary's device, CC, often its launch
            # shape): the same digit everywhere tells no launches apart.
            continue
        codes = codes_of(col)
        if bound * radix >= 1 << 62:
            # Re-densify so that products of many columns cannot overflow int64.
            _, combined = np.unique(combined, return_inverse=True)
            combined = combined.astype(np.int64).reshape(-1)
            bound = int(combined.max(initial=0)) + 1
        # A null (code -1) is digit 0, the dictionary's values 1 to radix - 1;
        # in place: each step would be a new array of a row's worth.
        combined *= radix
        combined += codes
        combined += 1
        bound *= radix
    rows = np.nonzero(valid)[0]
    # int32 while it fits: one of the few arrays with an entry per row.
    launch_of_row = np.full(n, -1, dtype=np.int32 if n < 1 << 31 else np.int64)
    if rows.size == 0:
        return launch_of_row, np.zeros(0, dtype=np.int64)
    keys = combined[rows]
    # A launch's rows come together (one per metric): number the runs of equal
    # keys, not the rows, ten to a hundred times fewer.  A key's first row is
    # the head of its first run.
    head = np.empty(keys.size, dtype=bool)
    head[0] = True
    np.not_equal(keys[1:], keys[:-1], out=head[1:])
    heads = np.flatnonzero(head)
    run_launch, first_runs = _first_appearance(keys[heads], bound)
    run_of_row = np.cumsum(head, dtype=np.int64) - 1
    launch_of_row[rows] = run_launch[run_of_row]
    return launch_of_row, rows[heads[first_runs]]


def _first_appearance(keys: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """Each key's number among the distinct keys (in order of first appearance, all below
    ``bound``), and the position of each distinct key's first appearance."""
    n = keys.size
    positions = np.arange(n, dtype=np.int64)
    if bound <= 4 * n + 1024:
        # Few enough keys for a table indexed by key: no sort of the keys.
        first_of_key = np.full(bound, n, dtype=np.int64)
        np.minimum.at(first_of_key, keys, positions)
        present = np.flatnonzero(first_of_key < n)
        firsts = first_of_key[present]
        order = np.argsort(firsts, kind="stable")
        rank_of_key = np.empty(bound, dtype=np.int64)
        rank_of_key[present[order]] = np.arange(order.size)
        return rank_of_key[keys], firsts[order]
    # Hashed in Arrow (no sort): codes in order of first appearance, so a
    # key is its first appearance where the running largest code grows.
    encoded = ac.dictionary_encode(integer_array(keys))
    codes = arrow_numbers(encoded, missing=-1).astype(np.int64)
    top = np.maximum.accumulate(codes)
    first = np.ones(codes.size, dtype=bool)
    first[1:] = top[1:] > top[:-1]
    return codes, positions[first]


def _texts_at(table: pa.Table, column: str, rows: np.ndarray) -> list[str]:
    """A dictionary column's texts at ``rows``, as printed."""
    codes, dictionary = dict_codes(table.column(column))
    return [dictionary[c] for c in codes[rows].tolist()] if dictionary else []


def read_long(
    raw: RawInput,
    loc: Located,
    layout: str,
    progress: ProgressCallback | None,
    line_numbers: bool = True,
) -> tuple[Any, SourceInfo]:
    """Read a details page or a per-kernel summary (both one row per metric).

    ``line_numbers``: warnings name the file's lines of the rows they are
    about (off for a table that is not the file's, as the text reader's).
    """
    header = loc.header
    summary = layout == "summary"
    value_col = "Average" if summary else "Metric Value"
    for needed in ("Section Name", "Metric Name", "Metric Unit", value_col):
        if needed not in header:
            raise InputFormatError(f"{raw.name}: the ncu table has no {needed!r} column")
    header_end = raw.buf.find(b"\n", loc.start) + 1 or loc.end
    samples = sample_rows(raw, header_end, loc.end)
    names, rule_width = _long_names(header, samples)
    nvtx_cols = [h for h in names if h.startswith((_NVTX_PUSHPOP, _NVTX_STARTEND))]
    wanted = [*IDENTITY_HEADERS, "Section Name", "Body Item Label", "Metric Name", "Metric Unit"]
    if summary:
        wanted.append("Invocations")
    include = [c for c in [*wanted, *nvtx_cols] if c in names] + [value_col]
    if value_col not in names:
        raise InputFormatError(
            f"{raw.name}: metric rows end before the {value_col!r} column; not a readable ncu table"
        )
    dictionary = set(include) - {value_col}
    table, skipped = read_table(
        raw.buf,
        raw.path,
        loc.start,
        loc.end,
        names,
        include,
        dictionary,
        1,
        rule_width,
        progress,
        split=not loc.part,
    )
    b = _Builder(raw, loc, layout)
    info = b.info
    if line_numbers:
        b.number_lines(names, 1, skipped)
    info.rules = rule_table(skipped.rules, header)
    # Read: the rule rows' texts (a fair share of a large export) can go.
    skipped.rules = []
    rows = _long_rows(table, summary, nvtx_cols, b)
    launch_of_row, first_rows, row_metric = rows.launch_of_row, rows.first_rows, rows.row_metric
    n_launch = first_rows.size
    values_col = table.column(value_col)
    warn_not_collected(table, values_col, rows.valid, info)

    sel = np.nonzero(rows.valid & (row_metric >= 0))[0]
    unit_codes, unit_dict = dict_codes(table.column("Metric Unit"))
    # Every row a value row (as a summary's rows are): no copy of the texts.
    texts = values_col if sel.size == table.num_rows else ac.take(values_col, indices(sel))
    # Only the selected texts are read from here on: free the column's.
    table = table.drop_columns([value_col])
    del values_col
    pa.default_memory_pool().release_unused()
    decimal = decimal_for(samples, header, [value_col])
    problems = ValueProblems(row_of=sel)
    # The selected rows' keys, gathered once (each is an array per value row).
    sel_units, sel_metric, sel_launch = unit_codes[sel], row_metric[sel], launch_of_row[sel]
    del unit_codes
    sel_units, unit_dict = _quirk_units(sel_units, unit_dict, sel_metric, b)
    numbers = _si_numbers(texts, decimal, sel_units, unit_dict, sel_metric, sel_launch, b, problems)
    metrics = _metric_columns(
        numbers, texts, sel_launch, sel_metric, rows.row_is_label[sel], n_launch, b
    )
    del numbers
    _record_units(sel_units, unit_dict, sel_metric, b)

    not_whole: list[NotWhole] = []
    ident = identity_columns(table, first_rows, header, not_whole)
    if summary:
        _summary_identity(table, first_rows, ident, b)
        names = (
            _texts_at(table, "Kernel Name", first_rows)
            if "Kernel Name" in table.column_names
            else []
        )
        # Each row by its kernel (by its number where the names are not there).
        # Once per distinct name: a summary of many processes repeats them.
        shorts = {k: short_name(k) for k in dict.fromkeys(names)}
        kernels = list(map(shorts.__getitem__, names)) if len(names) == n_launch else []
        kernels = kernels or [str(i) for i in range(n_launch)]
        rejected = problems.rejected_by_metric()
        check_summary(launch_of_row, row_metric, b.metric_index, metrics, kernels, info, rejected)
    else:
        ids = _texts_at(table, "ID", first_rows)
        rejected = problems.rejected_by_metric()
        for mid, launches in rows.lost.items():
            rejected[mid] = np.union1d(rejected.get(mid, launches), launches)
        checked = (first_rows, rows.run, loc, b.metric_index, row_metric, metrics, ids, info)
        check_details(table, launch_of_row, *checked, rejected, b.line_of)
    ident["source"] = Coded(np.zeros(n_launch, dtype=np.int64), [raw.name])
    frame = finalize_columns(ident, metrics, n_launch)
    label = launch_label(frame, summary)
    problems.warn(info, label, b.line_of)
    _warn_not_whole(info, not_whole, first_rows, label, b.line_of)

    units_seen = [unit_dict[u] for u in np.unique(sel_units).tolist()] if sel.size else []
    info.units = "auto" if auto_units(units_seen) else "base"
    if info.units == "auto":
        info.warn(
            "values are auto-scaled with two decimals (e.g. 'Mbyte 17.50'); export with "
            "`--print-units base` for full precision"
        )
    ccs = [r[header.index("CC")] for r in samples if "CC" in header and len(r) > header.index("CC")]
    info.ncu_version = infer_ncu_version(header, list(unit_dict), ccs)
    b.common_warnings(skipped)
    if n_launch == 0:
        raise InputFormatError(f"{raw.name}: the ncu table holds no launches")
    return frame, info


_NONE = np.zeros(0, dtype=np.int64)


@dataclass
class _LongRows:
    """What each row of a long table is: a launch row, of which launch and metric."""

    valid: np.ndarray
    run: np.ndarray | None
    launch_of_row: np.ndarray
    first_rows: np.ndarray
    row_metric: np.ndarray
    row_is_label: np.ndarray
    #: Per metric id, the launches that lost a row of it to a row left out.
    lost: dict[str, np.ndarray] = field(default_factory=dict)


def _long_rows(table: pa.Table, summary: bool, nvtx_cols: list[str], b: _Builder) -> _LongRows:
    """The launch rows of a long table and their launches and metrics.

    Rows that are no launch rows (no ID, identity fields that do not fit)
    and rows that repeat an earlier row are left out, each kind with one
    warning naming its lines (:mod:`~ncu_roofline.readers.row_checks`,
    :mod:`~ncu_roofline.readers.runs`).
    """
    column = "Invocations" if summary else "ID"
    has_id = valid_ids(table, column, numbers=summary)
    fits = fitting_rows(table)
    valid = has_id if fits is None else has_id & fits
    not_launch = np.flatnonzero(~has_id)
    unfit = _NONE if fits is None else np.flatnonzero(has_id & ~fits)
    warn_left_out(b.info, table, not_launch, unfit, column, b.lines_of)
    if summary:
        keys = ["Process ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC", *nvtx_cols]
        run, strays = None, _NONE
    else:
        keys = ["Process ID", "ID"]
        run, strays = split_runs(table, valid, one_row_per_launch=False)
        valid[strays] = False
    launch_of_row, first_rows = _launch_keys(table, keys, valid, run)
    row_metric, row_is_label, combo, n_combo = _row_metrics(table, b)
    repeats = repeated_rows(launch_of_row, combo, n_combo, first_rows.size)
    if repeats.size:
        launch_of_row[repeats] = -1
        valid[repeats] = False
    warn_repeated(b.info, table, np.union1d(strays, repeats), b.lines_of, False)
    rows = _LongRows(valid, run, launch_of_row, first_rows, row_metric, row_is_label)
    dropped = np.union1d(not_launch, unfit)
    if not summary and dropped.size and "ID" in table.column_names:
        ids = codes_of(table.column("ID"))
        metric_ids = list(b.metric_index)
        rows.lost = lost_metrics(dropped, valid, launch_of_row, ids, row_metric, metric_ids)
    return rows


def _warn_not_whole(
    info: SourceInfo,
    not_whole: list[NotWhole],
    first_rows: np.ndarray,
    label: Callable[[int], str],
    line_of: Callable[[int], int] | None,
) -> None:
    """One warning per identity column whose value is no whole number at some launches."""
    for bad in not_whole:
        on = ""
        if line_of is not None:
            on = f" on line {line_of(int(first_rows[bad.first_launch])):,}"
        info.warn(
            f"{bad.column}: {bad.count} launch(es) whose value is not a whole number, read as "
            f"missing (first {bad.text[:40]!r}{on}, {label(bad.first_launch)})"
        )


#: Metric rows whose commonest width is the table's (one damaged row among them is outvoted).
_WIDTH_ROWS = 8


def _long_names(header: list[str], samples: list[list[str]]) -> tuple[list[str], int | None]:
    """Column names for the rows as they are, and the rule width when rows are wider.

    Rule rows (and some ncu versions' metric rows) carry more cells than the
    header names: the commonest width of the first metric rows decides.  The
    first ones only: they are this header's, where later ones may be another
    export's, appended without its header and more numerous.
    """
    name_idx = header.index("Metric Name")
    metric_rows = [r for r in samples if len(r) > name_idx and r[name_idx]]
    widths = Counter(len(r) for r in metric_rows[:_WIDTH_ROWS])
    width = widths.most_common(1)[0][0] if widths else len(header)
    if width <= len(header):
        names = header[:width]
    else:
        names = header + [f"_extra{i}" for i in range(width - len(header))]
    return dedupe(names), len(header) if width != len(header) else None


def _row_metrics(table: pa.Table, b: _Builder) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Per row: its metric index (-1 when irrelevant), whether it came from a section
    label, and its (section, body label, metric name) as a number below the fourth
    result (-1 for a row without a metric name).

    Decided once per distinct (section, body label, metric name), not per row.
    """
    name_codes, name_dict = dict_codes(table.column("Metric Name"))
    sec_codes, sec_dict = dict_codes(table.column("Section Name"))
    if "Body Item Label" in table.column_names:
        body_codes, body_dict = dict_codes(table.column("Body Item Label"))
    else:
        body_codes, body_dict = np.zeros(table.num_rows, dtype=np.int32), [""]
    nb, nn = max(len(body_dict), 1), max(len(name_dict), 1)
    combo = (sec_codes.astype(np.int64) * nb + body_codes) * nn + name_codes
    uniq, inverse = distinct_codes(combo, len(sec_dict) * nb * nn)
    combo_metric = np.full(uniq.size, -1, dtype=np.int32)
    combo_is_label = np.zeros(uniq.size, dtype=bool)
    named = np.ones(uniq.size, dtype=bool)
    for k, c in enumerate(uniq.tolist()):
        label = name_dict[c % nn] if name_dict else ""
        if not label:
            named[k] = False
            continue
        rest = c // nn
        section, body = sec_dict[rest // nb], body_dict[rest % nb]
        if looks_like_metric_id(label):
            mid: str | None = canonical_metric(label)
        else:
            mid = metric_for_label(section, body, label)
            combo_is_label[k] = True
        if mid is None or not is_relevant(mid):
            continue
        combo_metric[k] = b.metric(mid)
    if not uniq.size:
        empty = np.zeros(0, dtype=np.int32)
        return empty, np.zeros(0, dtype=bool), empty, 0
    inverse = inverse.reshape(-1)
    combo_of_row = np.where(named, np.arange(uniq.size, dtype=np.int32), -1).astype(np.int32)[
        inverse
    ]
    return combo_metric[inverse], combo_is_label[inverse], combo_of_row, int(uniq.size)


def _quirk_units(
    sel_units: np.ndarray, unit_dict: list[str], sel_metric: np.ndarray, b: _Builder
) -> tuple[np.ndarray, list[str]]:
    """Unit codes with the rates ncu prints as amounts read by their name.

    A ``.per_second`` metric printed as ``byte`` gets ``byte/second``
    (:func:`~ncu_roofline.core.metrics.rate_unit_quirk`); decided once per
    distinct (metric, unit), only for the few metrics that are rates.
    """
    rates = [(mid, j) for mid, j in b.metric_index.items() if mid.endswith(".per_second")]
    if not rates or not unit_dict:
        return sel_units, unit_dict
    out, names = sel_units, list(unit_dict)
    for mid, j in rates:
        rows = sel_metric == j
        for code in np.unique(sel_units[rows]).tolist():
            meant = rate_unit_quirk(mid, unit_dict[code])
            if meant is None:
                continue
            if meant not in names:
                names.append(meant)
            if out is sel_units:
                out = sel_units.copy()
            out[rows & (sel_units == code)] = names.index(meant)
    return out, names


def _si_numbers(
    texts: pa.ChunkedArray,
    decimal: str,
    sel_units: np.ndarray,
    unit_dict: list[str],
    sel_metric: np.ndarray,
    sel_launch: np.ndarray,
    b: _Builder,
    problems: ValueProblems,
) -> np.ndarray:
    """The selected rows' values in SI units; NaN (and a warning) for unknown or wrong units,
    malformed numbers and negative values (:mod:`~ncu_roofline.readers.values`)."""
    factors, si_units = unit_factors(unit_dict)
    unknown = np.isnan(factors[sel_units]) if sel_units.size else np.zeros(0, dtype=bool)
    if unknown.any():
        bad = sorted({unit_dict[u] for u in np.unique(sel_units[unknown]).tolist()})
        metric_names = {v: k for k, v in b.metric_index.items()}
        bad_metrics = sorted({metric_names[m] for m in np.unique(sel_metric[unknown]).tolist()})
        b.info.warn(
            f"unknown unit(s) {', '.join(repr(u) for u in bad)}: left out "
            f"{', '.join(bad_metrics[:6])} rather than misread"
        )
    rows = RowKeys(list(b.metric_index), sel_metric, sel_launch, unit_dict, si_units, sel_units)
    numbers = convert_rows(texts, decimal, factors, rows, problems)
    for mid in KHZ_METRICS & b.metric_index.keys():
        rows_k = sel_metric == b.metric_index[mid]
        blank = np.array([unit_for(mid, u) == "Khz" for u in unit_dict], dtype=bool)
        numbers[rows_k & blank[sel_units]] *= 1e3
    return numbers


def _metric_columns(
    numbers: np.ndarray,
    texts: pa.ChunkedArray,
    li: np.ndarray,
    mi: np.ndarray,
    labels: np.ndarray,
    n_launch: int,
    b: _Builder,
) -> MetricColumns:
    """One column per metric over launches: numbers, or text for string metrics."""
    string_metric_idx = {b.metric_index[m] for m in STRING_METRICS if m in b.metric_index}
    matrix = np.full((n_launch, len(b.metric_index)), np.nan)
    ok = ~np.isnan(numbers)
    # Values from metric ids win over values from section labels; within one
    # kind the first occurrence wins (numpy keeps the last of duplicate
    # indices, hence the reversal).
    for kind in (labels, ~labels):
        rows = np.nonzero(kind & ok)[0][::-1]
        matrix[li[rows], mi[rows]] = numbers[rows]
    metrics: MetricColumns = {}
    for mid, j in b.metric_index.items():
        if j in string_metric_idx:
            rows = np.nonzero(mi == j)[0][::-1]
            col = np.full(n_launch, None, dtype=object)
            col[li[rows]] = np.asarray(texts.take(indices(rows)).to_pylist(), dtype=object)
            metrics[mid] = col
        else:
            metrics[mid] = matrix[:, j]
    return metrics


def _record_units(sel_units: np.ndarray, unit_dict: list[str], mi: np.ndarray, b: _Builder) -> None:
    """The SI unit of each metric, into the source info."""
    _, si_units = unit_factors(unit_dict)
    for mid, j in b.metric_index.items():
        units_here = np.unique(sel_units[(mi == j)]).tolist()
        si = next((si_units[u] for u in units_here if si_units[u] is not None), None)
        if mid in KHZ_METRICS:
            si = "Hz"
        if si is not None:
            b.info.metric_units[mid] = si


def _summary_identity(
    table: pa.Table, first_rows: np.ndarray, ident: IdentityColumns, b: _Builder
) -> None:
    """Invocation counts and ids of a per-kernel summary's rows, in place."""
    inv_codes, inv_dict = dict_codes(table.column("Invocations"))
    line_of = b.line_of
    at = None if line_of is None else (lambda i: line_of(int(first_rows[i])))
    ident["invocations"] = invocation_counts(inv_dict, inv_codes[first_rows], ident, b.info, at)
    ident["id"] = np.arange(first_rows.size)
    b.info.aggregated = True
    b.info.warn(
        "per-kernel summary: one row per kernel and launch shape; values are ncu's "
        "per-launch averages (totals = average x invocations)"
    )


def _raw_units(
    name: str, header: list[str], samples: list[list[str]]
) -> tuple[dict[str, str], list[list[str]], int, bool]:
    """A raw page's unit per column, its sampled launch rows, its header rows, and
    whether the units row is missing.

    ncu writes a units row (its first field empty) under the header.  When
    the first row holds a launch ID instead, the row was lost: every metric
    is read in ncu's base units (:func:`~ncu_roofline.core.dimensions.base_unit`).
    """
    if not samples:
        raise InputFormatError(f"{name}: the raw table has no units row and no launches")
    first = samples[0]
    if not first or not first[0].strip():
        return dict(zip(header, first, strict=False)), samples[1:], 2, False
    if first[0].strip().replace(",", "").isdigit():
        units = {c: base_unit(canonical_metric(c)) for c in header}
        return units, samples, 1, True
    raise InputFormatError(
        f"{name}: expected a units row under the raw-page header, found {first[0]!r}"
    )


def read_raw(
    raw: RawInput, loc: Located, progress: ProgressCallback | None
) -> tuple[Any, SourceInfo]:
    """Read a ``--page raw`` export: one row per launch, a units row under the header."""
    header = dedupe(loc.header)
    header_end = raw.buf.find(b"\n", loc.start) + 1 or loc.end
    samples = sample_rows(raw, header_end, loc.end, limit=50)
    units, launch_samples, header_rows, no_units = _raw_units(raw.name, header, samples)
    # Arrow skips lines, a blank one included: the header rows as lines, so
    # that a blank line between the header and the units row is not taken
    # for one of them (and the units row read as a launch).
    skip_rows = header_lines(raw.buf, loc.start, loc.end, header_rows)
    nvtx_cols = [h for h in header if h.startswith((_NVTX_PUSHPOP, _NVTX_STARTEND))]
    ident_cols = [c for c in IDENTITY_HEADERS if c in header]
    metric_cols = [
        c
        for c in header
        if c not in IDENTITY_HEADERS and c not in nvtx_cols and is_relevant(canonical_metric(c))
    ]
    include = ident_cols + nvtx_cols + metric_cols
    decimal = decimal_for(launch_samples, header, metric_cols[:50])
    # Plain-number columns parse as float64 (readers/typed.py); a cut-off
    # last row, appended as text, keeps every column text.
    typed_ok = TYPED_RAW and loc.partial is None
    floats = typed_columns(launch_samples, header, metric_cols, units, decimal) if typed_ok else {}
    read = partial(
        read_table, raw.buf, raw.path, loc.start, loc.end, header, include, set(), skip_rows
    )
    table, skipped, typed = read_typed(
        partial(read, None, progress, split=not loc.part, stream=True), floats
    )
    table, lacking = append_partial_raw(table, loc, header, include, ident_cols)
    table = encode_identity(table, ident_cols + nvtx_cols)
    b = _Builder(raw, loc, "raw")
    info = b.info
    b.number_lines(header, skip_rows, skipped)
    if no_units:
        info.warn(
            "the raw page has no units row under its header: its values are read in ncu's "
            "base units (times in nanoseconds, counts as counted), as `--print-units base` "
            "writes them"
        )
    valid = valid_ids(table, "ID")
    warn_left_out(info, table, np.flatnonzero(~valid), _NONE, "ID", b.lines_of)
    run, strays = split_runs(table, valid, one_row_per_launch=True)
    valid[strays] = False
    warn_repeated(info, table, strays, b.lines_of, True)
    launch_of_row, first_rows = _launch_keys(table, ["Process ID", "ID"], valid, run)
    n_launch = first_rows.size
    every_row = n_launch == table.num_rows and bool((first_rows == np.arange(n_launch)).all())
    problems = ValueProblems(row_of=None if every_row else first_rows)
    columns = _RawColumns(metric_cols, typed, floats, units, decimal)
    metrics = _raw_metrics(table, columns, first_rows, every_row, problems, info)
    rejected = problems.rejected_by_metric()
    check_raw(lacking, launch_of_row, run, table, first_rows, metrics, info, rejected, b.line_of)
    not_whole: list[NotWhole] = []
    ident = identity_columns(table, first_rows, loc.header, not_whole)
    ident["source"] = Coded(np.zeros(n_launch, dtype=np.int64), [raw.name])
    frame = finalize_columns(ident, metrics, n_launch)
    label = launch_label(frame, summary=False)
    problems.warn(info, label, b.line_of)
    _warn_not_whole(info, not_whole, first_rows, label, b.line_of)
    used_units = [units.get(c, "") for c in metric_cols]
    info.units = "auto" if auto_units(used_units) else "base"
    at_cc = header.index("CC") if "CC" in header else None
    ccs = [r[at_cc] for r in launch_samples if at_cc is not None and len(r) > at_cc]
    info.ncu_version = infer_ncu_version(loc.header, used_units, ccs)
    b.common_warnings(skipped)
    if n_launch == 0:
        raise InputFormatError(f"{raw.name}: the raw table holds no launches")
    return frame, info


@dataclass(frozen=True)
class _RawColumns:
    """A raw page's metric columns: those parsed as float64, their units, the decimal mark."""

    metric_cols: list[str]
    typed: dict[str, np.ndarray]
    floats: dict[str, Unit]
    units: dict[str, str]
    decimal: str


def _raw_metrics(
    table: pa.Table,
    cols: _RawColumns,
    first_rows: np.ndarray,
    every_row: bool,
    problems: ValueProblems,
    info: SourceInfo,
) -> MetricColumns:
    """A raw page's metric columns over its launches (the launches' rows, ``first_rows``)."""
    metrics: MetricColumns = {}
    unknown: list[str] = []
    typed, floats = cols.typed, cols.floats
    text_cols = [c for c in cols.metric_cols if c not in typed]
    launch_rows = table.select(text_cols)
    if not every_row:
        launch_rows = ac.take(launch_rows, indices(first_rows))
    # Decide every column first, then parse all numeric ones in one pass;
    # ``order`` replays the assignments as they come, so that a metric
    # spelled by two columns keeps the later one.
    numeric: list[tuple[pa.ChunkedArray, str, str, Unit]] = []
    order: list[tuple[str, Any]] = []
    for c in cols.metric_cols:
        mid = canonical_metric(c)
        if c in typed:
            order.append((mid, (typed[c] if every_row else typed[c][first_rows], floats[c].si)))
            continue
        col = launch_rows.column(c)
        if mid in STRING_METRICS:
            # Names repeat across launches: codes into the distinct ones.
            encoded = ac.dictionary_encode(col.combine_chunks())
            codes = arrow_numbers(encoded.indices, missing=-1).astype(np.int64)
            order.append((mid, coded(Coded(codes, encoded.dictionary.to_pylist()), len(codes))))
            continue
        unit = unit_for(mid, cols.units.get(c, ""))
        parsed = parse_unit(unit)
        if parsed is None:
            unknown.append(f"{c} ({unit!r})")
            continue
        order.append((mid, len(numeric)))
        numeric.append((col, mid, unit, parsed))
    converted = convert_columns(numeric, cols.decimal, problems)
    for mid, value in order:
        if isinstance(value, int):
            metrics[mid] = converted[value]
            info.metric_units[mid] = numeric[value][3].si
        elif isinstance(value, tuple):
            metrics[mid], info.metric_units[mid] = value
        else:
            metrics[mid] = value
    if unknown:
        info.warn("unknown unit(s): left out " + ", ".join(unknown[:6]) + " rather than misread")
    return metrics
