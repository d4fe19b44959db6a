"""Values at the reader edge: what an untrustworthy value becomes, and how it is reported.

Four checks run over whole columns (Arrow, pandas and numpy; Python loops
only over distinct metrics and units, never over rows):

malformed number
    Text that is neither a number nor a missing token: digit grouping other
    than thousands (``"1,2,3"``, ``"1,0"``, ``"1.000,5"`` in a decimal-point
    file) or stray text (:func:`~ncu_roofline.core.units.parse_numbers_checked`).
negative value
    Every metric the launch model keeps is a count, a time, a rate or a
    share; none is below zero.  A negative one is corrupt, not small.
infinite value
    ``inf``, or a number too large for a double (``1e400``), also after its
    unit's scaling: no counter reaches it, so the text is corrupt.
unit of the wrong dimension
    A time unit on a byte count, a byte unit on a duration
    (:func:`~ncu_roofline.core.dimensions.unit_fits`): its factor would
    convert to a number of the wrong kind.

A value that fails becomes missing (NaN), never a guess.  Each problem is
reported once per metric, with how many values it hit, the first text, the
line of the file it is on and the launch it belongs to, so a multi-GB export
with a million bad cells gives one line, not a million.  A ``.ncu-rep``
report's values go through the same checks (:func:`checked_values`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import flags, strings
from ncu_roofline.core.dimensions import metric_dimension, unit_fits
from ncu_roofline.core.launches import Coded
from ncu_roofline.core.metrics import STRING_METRICS
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.names import short_name
from ncu_roofline.core.units import Unit, parse_numbers_checked, parse_unit
from ncu_roofline.readers.identity import IdentityColumns
from ncu_roofline.readers.table import dict_codes, parse_threads

_WHAT = {
    "malformed": "malformed number(s)",
    "negative": "negative value(s)",
    "infinite": "infinite value(s)",
}


@dataclass
class _Seen:
    count: int
    first_launch: int
    text: str
    #: The table row of the first value, where it came from a table.
    row: int | None = None


#: How a warning names the line of a table row (None: no line to name).
LineOf = Callable[[int], int]


@dataclass
class ValueProblems:
    """Problems found while converting one input's values, per (metric, problem)."""

    found: dict[tuple[str, str], _Seen] = field(default_factory=dict)
    #: The (launch indices, metric ids) of every value left out.
    rejected: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    #: The table row of each value :meth:`note` is given, by its index
    #: there; None when the index is the table row.
    row_of: np.ndarray | None = None

    def note(
        self,
        problem: str,
        metric_ids: Sequence[str],
        metric_of_row: np.ndarray,
        mask: np.ndarray,
        launch_of_row: np.ndarray,
        texts: pa.Array | pa.ChunkedArray | np.ndarray,
    ) -> None:
        """Record the rows in ``mask``: per metric, how many and the first one.

        ``texts`` are the values as printed (an Arrow array), or as numbers
        (a numpy array: the first is quoted as Python prints it).
        """
        rows = np.flatnonzero(mask)
        if rows.size == 0:
            return
        ids = np.asarray(metric_ids, dtype=object)
        self.rejected.append((launch_of_row[rows], ids[metric_of_row[rows]]))
        metrics, first, counts = np.unique(
            metric_of_row[rows], return_index=True, return_counts=True
        )
        for m, f, c in zip(metrics.tolist(), first.tolist(), counts.tolist(), strict=True):
            row = int(rows[f])
            key = (metric_ids[m], problem)
            seen = self.found.get(key)
            if seen is None:
                if isinstance(texts, np.ndarray):
                    text = repr(float(texts[row]))
                else:
                    text = str(texts.take(pa.array([row])).to_pylist()[0]).strip()
                table_row = row if self.row_of is None else int(self.row_of[row])
                self.found[key] = _Seen(int(c), int(launch_of_row[row]), text, table_row)
            else:
                seen.count += int(c)

    def add(self, metric: str, problem: str, launches: np.ndarray, text: str) -> None:
        """Record values of ``metric`` left out for ``problem``, at ``launches`` (first: ``text``).

        For readers that judge values outside an Arrow column (a ``.ncu-rep``).
        """
        if launches.size == 0:
            return
        self.rejected.append((launches, np.full(launches.size, metric, dtype=object)))
        seen = self.found.get((metric, problem))
        if seen is None:
            self.found[(metric, problem)] = _Seen(int(launches.size), int(launches[0]), text)
        else:
            seen.count += int(launches.size)

    def rejected_by_metric(self) -> dict[str, np.ndarray]:
        """The launches whose value of each metric was left out."""
        if not self.rejected:
            return {}
        launches = np.concatenate([r[0] for r in self.rejected])
        metrics = np.concatenate([r[1] for r in self.rejected])
        names, which = np.unique(metrics.astype(str), return_inverse=True)
        which = which.reshape(-1)
        return {str(m): np.unique(launches[which == i]) for i, m in enumerate(names.tolist())}

    def warn(
        self, info: SourceInfo, where: Callable[[int], str], line_of: LineOf | None = None
    ) -> None:
        """One warning per metric and problem; ``where`` names a launch by its index,
        ``line_of`` the line of a table row."""
        for (metric, problem), seen in self.found.items():
            what = _WHAT.get(problem)
            if what is None:
                # "unit msecond": the unit is the problem, every value in it is dropped.
                unit = problem.split(" ", 1)[1]
                metric = f"{metric}: unit {unit!r} is not a {_dim(metric)} unit"
                what = "value(s)"
            on = ""
            if line_of is not None and seen.row is not None:
                on = f" on line {line_of(seen.row):,}"
            info.warn(
                f"{metric}: {seen.count} {what} left out as missing "
                f"(first {seen.text[:40]!r}{on}, {where(seen.first_launch)})"
            )


def _dim(metric: str) -> str:
    kind = metric_dimension(metric)
    return {"time": "time", "rate": "rate", "percent": "percentage"}.get(kind, kind)


def unit_factors(unit_dict: Sequence[str]) -> tuple[np.ndarray, list[str | None]]:
    """Per distinct unit text: its factor to SI (NaN when unknown) and SI dimension (None)."""
    factors = np.full(len(unit_dict), np.nan)
    si: list[str | None] = []
    for i, u in enumerate(unit_dict):
        parsed = parse_unit(u)
        if parsed is None:
            si.append(None)
        else:
            factors[i] = parsed.factor
            si.append(parsed.si)
    return factors, si


def wrong_units(
    metric_ids: Sequence[str],
    unit_texts: Sequence[str],
    unit_si: Sequence[str | None],
    metric_of_row: np.ndarray,
    unit_of_row: np.ndarray,
    launch_of_row: np.ndarray,
    texts: pa.Array | pa.ChunkedArray,
    problems: ValueProblems,
) -> np.ndarray:
    """Rows whose (known) unit does not fit their metric's dimension, recorded in ``problems``.

    Judged once per (metric, unit) pair, then looked up per row: no sort or
    Python loop over the rows.
    """
    width = max(len(unit_texts), 1)
    fits = np.ones(len(metric_ids) * width, dtype=bool)
    for m, metric in enumerate(metric_ids):
        for u, si in enumerate(unit_si):
            fits[m * width + u] = si is None or unit_fits(metric, si)
    if fits.all() or metric_of_row.size == 0:
        return np.zeros(metric_of_row.size, dtype=bool)
    pair = metric_of_row * width + unit_of_row
    bad: np.ndarray = ~fits[pair]
    # Only the unfit pairs the rows hold: one pass over the rows each.
    for p in np.unique(pair[bad]).tolist():
        rows = bad & (pair == p)
        unit = f"unit {unit_texts[p % width]}"
        problems.note(unit, metric_ids, metric_of_row, rows, launch_of_row, texts)
    return bad


def checked_numbers(
    texts: pa.Array | pa.ChunkedArray,
    decimal: str,
    factors: np.ndarray,
    metric_ids: Sequence[str],
    metric_of_row: np.ndarray,
    launch_of_row: np.ndarray,
    problems: ValueProblems,
) -> np.ndarray:
    """The rows' values times their unit ``factors``; NaN where malformed, negative or infinite.

    ``factors`` is NaN for rows whose unit was refused (unknown or of the
    wrong dimension): those are reported where the unit was judged.
    """
    parsed, malformed = parsed_numbers(texts, decimal)
    return _checked(
        parsed, malformed, texts, factors, metric_ids, metric_of_row, launch_of_row, problems
    )


def parsed_numbers(
    texts: pa.Array | pa.ChunkedArray, decimal: str
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~ncu_roofline.core.units.parse_numbers_checked` of ``texts``, a large
    column in slices side by side on :func:`~ncu_roofline.readers.table.parse_threads`
    threads.

    Each value is read on its own (the result at a row depends on that row's
    text only), so slices give the values one pass would; Arrow's kernels
    run outside the interpreter lock, so the slices' passes overlap.
    """
    n = len(texts)
    threads = min(parse_threads(), n // _SLICE_VALUES)
    if threads < 2:
        return parse_numbers_checked(_one_chunk(texts), decimal)
    bounds = np.linspace(0, n, threads + 1).astype(np.int64).tolist()

    def part(k: int) -> tuple[np.ndarray, np.ndarray]:
        piece = _one_chunk(texts.slice(bounds[k], bounds[k + 1] - bounds[k]))
        return parse_numbers_checked(piece, decimal)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(pool.map(part, range(threads)))
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _one_chunk(texts: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``texts`` as one array where it is in many chunks (a parse in batches gives a
    chunk per batch): each of the dozen kernels and conversions of the parse then runs
    once, not once per chunk (a 2.6-million-value column of 150 chunks: 0.21 to
    0.12 s), for a copy of the texts."""
    # One string array holds at most 2 GiB of text (32-bit offsets): a slice
    # of more (an export of tens of gigabytes) stays in its chunks.
    if isinstance(texts, pa.ChunkedArray) and texts.num_chunks > 1 and texts.nbytes < _ONE_CHUNK:
        return texts.combine_chunks()
    return texts


#: Bytes below which a slice of value texts is made one array.
_ONE_CHUNK = 1 << 30


#: Values below which a column is parsed in one pass (a thread's start costs more).
_SLICE_VALUES = 1 << 18


def checked_values(
    values: np.ndarray,
    factor: float,
    metric_id: str,
    launches: np.ndarray,
    problems: ValueProblems,
) -> np.ndarray:
    """Values that came as numbers (a ``.ncu-rep`` report's doubles) times their unit's
    ``factor``, with the checks :func:`checked_numbers` applies to printed ones:
    NaN where negative or infinite (as stored or once scaled), recorded in
    ``problems``.  ``launches`` is the launch of each value; NaN stays missing.
    """
    zeros = np.zeros(values.size, dtype=np.int64)
    malformed = np.zeros(values.size, dtype=bool)
    factors = np.full(values.size, factor)
    return _checked(values, malformed, values, factors, [metric_id], zeros, launches, problems)


def _checked(
    parsed: np.ndarray,
    malformed: np.ndarray,
    texts: pa.Array | pa.ChunkedArray | np.ndarray,
    factors: np.ndarray,
    metric_ids: Sequence[str],
    metric_of_row: np.ndarray,
    launch_of_row: np.ndarray,
    problems: ValueProblems,
) -> np.ndarray:
    """:func:`checked_numbers` once the texts are parsed (``parsed``, ``malformed``)."""
    # A string metric's text (the device name) is its value, not a malformed number.
    text_metrics = [i for i, m in enumerate(metric_ids) if m in STRING_METRICS]
    if text_metrics:
        malformed = malformed & ~np.isin(metric_of_row, text_metrics)
    problems.note("malformed", metric_ids, metric_of_row, malformed, launch_of_row, texts)
    with np.errstate(invalid="ignore"):
        negative = parsed < 0
    if negative.any():
        problems.note("negative", metric_ids, metric_of_row, negative, launch_of_row, texts)
        parsed = np.where(negative, np.nan, parsed)
    with np.errstate(over="ignore"):
        numbers: np.ndarray = parsed * factors
    infinite = np.isinf(numbers)
    if infinite.any():
        problems.note("infinite", metric_ids, metric_of_row, infinite, launch_of_row, texts)
        numbers[infinite] = np.nan
    return numbers


@dataclass(frozen=True)
class RowKeys:
    """What each value row of a long (one row per metric) table is: metric, launch, unit.

    ``metric_of_row`` and ``unit_of_row`` index ``metric_ids`` and
    ``unit_texts`` (whose SI dimensions are ``unit_si``, None when unknown).
    """

    metric_ids: Sequence[str]
    metric_of_row: np.ndarray
    launch_of_row: np.ndarray
    unit_texts: Sequence[str]
    unit_si: Sequence[str | None]
    unit_of_row: np.ndarray


def convert_rows(
    texts: pa.Array | pa.ChunkedArray,
    decimal: str,
    factors: np.ndarray,
    keys: RowKeys,
    problems: ValueProblems,
) -> np.ndarray:
    """A long table's values in SI units (``factors`` per unit), every check applied."""
    row_factors = factors[keys.unit_of_row]
    args = (keys.metric_of_row, keys.unit_of_row, keys.launch_of_row, texts, problems)
    row_factors[wrong_units(keys.metric_ids, keys.unit_texts, keys.unit_si, *args)] = np.nan
    return checked_numbers(
        texts,
        decimal,
        row_factors,
        keys.metric_ids,
        keys.metric_of_row,
        keys.launch_of_row,
        problems,
    )


def convert_column(
    column: pa.Array | pa.ChunkedArray,
    decimal: str,
    metric_id: str,
    unit_text: str,
    unit: Unit,
    problems: ValueProblems,
) -> np.ndarray:
    """One wide-table column (one metric, one unit, row i = launch i) in SI units, checked."""
    n = len(column)
    zeros = np.zeros(n, dtype=np.int64)
    launches = np.arange(n)
    factor = np.full(n, unit.factor)
    args = (zeros, zeros, launches, column, problems)
    if wrong_units([metric_id], [unit_text], [unit.si], *args).any():
        factor[:] = np.nan
    return checked_numbers(column, decimal, factor, [metric_id], zeros, launches, problems)


def convert_columns(
    columns: Sequence[tuple[pa.ChunkedArray, str, str, Unit]],
    decimal: str,
    problems: ValueProblems,
) -> list[np.ndarray]:
    """:func:`convert_column` of many wide-table columns, their texts parsed in one pass.

    Each entry is (column, metric id, unit text, unit); all columns have the
    same length.  The texts of many columns are parsed together (one set of
    Arrow kernels over a group of columns, not one per column); the checks
    and their warnings then run column by column, in the same order as one
    :func:`convert_column` call per column.
    """
    if not columns:
        return []
    n = len(columns[0][0])
    types = {chunk.type for col, *_ in columns for chunk in col.chunks}
    if n == 0 or len(types) != 1:
        return [
            convert_column(col, decimal, mid, text, unit, problems)
            for col, mid, text, unit in columns
        ]
    # Columns go in groups of about _PASS_VALUES values: a few kernel calls
    # per group instead of per column, while the temporaries (a copy of the
    # texts per step) stay bounded however many launches there are.
    per_pass = max(1, _PASS_VALUES // n)
    zeros = np.zeros(n, dtype=np.int64)
    launches = np.arange(n)
    out: list[np.ndarray] = []
    for g in range(0, len(columns), per_pass):
        group = columns[g : g + per_pass]
        chunks = [chunk for col, *_ in group for chunk in col.chunks]
        parsed, malformed = parsed_numbers(pa.chunked_array(chunks), decimal)
        out += _check_columns(group, parsed, malformed, zeros, launches, problems)
    return out


#: Values parsed together in one pass of :func:`convert_columns`.
_PASS_VALUES = 1 << 20


def _check_columns(
    group: Sequence[tuple[pa.ChunkedArray, str, str, Unit]],
    parsed: np.ndarray,
    malformed: np.ndarray,
    zeros: np.ndarray,
    launches: np.ndarray,
    problems: ValueProblems,
) -> list[np.ndarray]:
    """The checks of :func:`convert_column` on each column of a parsed group, in order."""
    n = zeros.size
    out: list[np.ndarray] = []
    for j, (col, mid, text, unit) in enumerate(group):
        part = slice(j * n, (j + 1) * n)
        factor = np.full(n, unit.factor)
        args = (zeros, zeros, launches, col, problems)
        if wrong_units([mid], [text], [unit.si], *args).any():
            factor[:] = np.nan
        out.append(
            _checked(parsed[part], malformed[part], col, factor, [mid], zeros, launches, problems)
        )
    return out


def launch_label(frame: Any, summary: bool) -> Callable[[int], str]:
    """How a value warning names the launch it points at: its ID and kernel (a summary's kernel)."""

    def label(i: int) -> str:
        kernel = frame.value("kernel_short", i)
        return f"kernel {kernel}" if summary else f"launch ID {frame.value('id', i)} ({kernel})"

    return label


#: Most launches one summary row is believed to stand for.  ncu replays every
#: launch it profiles, so a billion profiled launches of one kernel is beyond
#: any real run; a larger count is corrupt, and summing it would swamp the totals.
MAX_INVOCATIONS = 10**9

_COUNT = re.compile(r"[+-]?\d{1,3}(?:,\d{3})*|[+-]?\d+")


def _invocations(text: str) -> int | None:
    s = text.strip()
    if not _COUNT.fullmatch(s):
        return None
    digits = s.replace(",", "")
    # Parse only what can be plausible: int() of thousands of digits raises.
    if len(digits.lstrip("+-")) > len(str(MAX_INVOCATIONS)):
        return None
    n = int(digits)
    return n if 1 <= n <= MAX_INVOCATIONS else None


def invocation_counts(
    texts: Sequence[str],
    codes: np.ndarray,
    ident: IdentityColumns,
    info: SourceInfo,
    line_of: Callable[[int], int | None] | None = None,
) -> Any:
    """A summary's ``Invocations`` per row (``codes`` index the distinct ``texts``).

    A count that is not a whole number from 1 to :data:`MAX_INVOCATIONS`
    (negative, zero, absurdly large, ``inf``, malformed) is missing, and the
    row then counts as one launch; a warning says how many rows and the
    first one (``line_of`` gives the line of a row by its index).
    """
    counts = [_invocations(t) for t in texts]
    table = np.array([np.nan if c is None else float(c) for c in counts], dtype=np.float64)
    values = table[codes]
    bad = np.flatnonzero(np.isnan(values))
    if bad.size:
        first = str(texts[int(codes[bad[0]])]).strip()
        kernels = ident.get("kernel")
        kernel = "?"
        if isinstance(kernels, Coded):
            code = int(kernels.codes[bad[0]])
            kernel = short_name(str(kernels.values[code] if code >= 0 else None))
        elif kernels is not None:
            kernel = short_name(str(kernels[bad[0]]))
        line = line_of(int(bad[0])) if line_of is not None else None
        on = f" on line {line:,}" if line is not None else ""
        info.warn(
            f"Invocations: {bad.size} row(s) with a count that is not 1 to {MAX_INVOCATIONS:,} "
            f"launches (first {first[:40]!r}{on}, kernel {kernel}): "
            "counts not trusted, each row counted as one launch"
        )
    return values


def warn_not_collected(
    table: pa.Table, values_col: pa.ChunkedArray, valid: np.ndarray, info: SourceInfo
) -> None:
    """Metrics ncu could not collect print as n/a: say which, once."""
    # Chunk by chunk: a trimmed copy of the whole column would be as large as its texts.
    na = strings(["n/a"])
    na_parts = [
        flags(ac.is_in(ac.utf8_trim_whitespace(c), value_set=na)) for c in values_col.chunks
    ]
    na_mask = np.concatenate(na_parts) if na_parts else np.zeros(0, dtype=bool)
    if not na_mask.any():
        return
    name_codes, name_dict = dict_codes(table.column("Metric Name"))
    na_names = sorted({name_dict[i] for i in np.unique(name_codes[na_mask & valid]).tolist()})
    if na_names:
        info.warn(
            "ncu printed n/a (not supported on this GPU or misspelled) for: "
            + ", ".join(na_names[:12])
            + (" ..." if len(na_names) > 12 else "")
        )
