"""``nsys stats --format csv`` output: one report per file, or several in one stream.

``nsys stats --output`` writes one report per file; to stdout it prints each
report after a ``Processing [x.sqlite] with [.../cuda_gpu_trace.py]...`` line
and (in newer versions) a `` ** CUDA GPU Trace (cuda_gpu_trace):`` heading,
with blank lines between, and ``SKIPPED: x.sqlite does not contain ...``
where a report has no data.  :func:`blocks` finds each table (a header
line and the rows up to the next blank line) and the report name those lines
give; :func:`parse_block` parses one with pyarrow's CSV reader.

Parsing is vectorised: pyarrow reads each column straight into its type
(:data:`~.columns.KEY_TYPES`), only the columns a report uses.  Python runs
per row only to explain a failure: the first field that is no number, or a
row with the wrong number of fields, is named by file, line and column.  A
row cut short at the end of the input (a file copied while being written) is
left out with a warning on the source, never silently.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from ncu_roofline.core.timeline import TimelineSource
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.nsys.columns import KEY_TYPES, key_of
from ncu_roofline.readers.nsys.series import series_of, text_series

__all__ = ["Block", "Parsed", "blocks", "header_cells", "parse_block"]

# Blank lines end a table: a newline followed by one or more empty lines.
_BLANK = re.compile(rb"\n(?:[ \t\r]*\n)+")
# Lines that are nsys talking, not a table (a header always has commas; these start so).
_CHATTER = (b"Processing [", b"** ", b"SKIPPED:", b"NOTICE:", b"WARNING:", b"ERROR:", b"[")
# The report a line names: "with [/opt/.../cuda_gpu_trace.py]", "(cuda_gpu_trace):",
# "Executing 'cuda_gpu_trace' stats report".
_NAMED = re.compile(
    rb"(?:/|\\|\[)([A-Za-z0-9_]+)\.py\]|\(([a-z0-9_]+)\):\s*$|Executing '([A-Za-z0-9_]+)'"
)

_ARROW_TYPES = {
    "int": pa.int64(),
    "float": pa.float64(),
    # Names repeat (a million launches of fifty kernels): one string each.
    "text": pa.dictionary(pa.int32(), pa.string()),
}


@dataclass
class Block:
    """One table of the input: byte offsets of its header and end, and the report named before it."""

    start: int
    end: int
    line: int
    hint: str | None


@dataclass
class Parsed:
    """One table parsed: its header cells, their keys, and the used columns as pandas series."""

    header: list[str]
    keys: dict[str, str]
    values: dict[str, pd.Series]
    rows: int


def _chatter(line: bytes) -> bool:
    text = line.strip()
    return not text or b"," not in text or text.startswith(_CHATTER)


def _named(line: bytes) -> str | None:
    m = _NAMED.search(line.strip())
    if m is None:
        return None
    return next(g for g in m.groups() if g).decode("ascii")


def blocks(buf: bytes) -> Iterator[Block]:
    """Every table in ``buf``: the first non-chatter line of each paragraph is its header."""
    hint: str | None = None
    pos = 0
    line = 1
    counted = 0  # bytes up to which newlines are counted into `line`
    size = len(buf)
    while pos < size:
        m = _BLANK.search(buf, pos)
        end = m.start() + 1 if m else size
        nxt = m.end() if m else size
        # Walk the paragraph's leading chatter (a few lines at most).
        cur = pos
        while cur < end:
            eol = buf.find(b"\n", cur, end)
            eol = end if eol < 0 else eol + 1
            text = buf[cur:eol]
            if not _chatter(text):
                break
            # A SKIPPED line ends the report it was named for.
            hint = None if text.lstrip().startswith(b"SKIPPED:") else _named(text) or hint
            cur = eol
        if cur < end:
            line += buf.count(b"\n", counted, cur)
            counted = cur
            yield Block(cur, end, line, hint)
            hint = None
        pos = nxt


def header_cells(buf: bytes, block: Block) -> list[str]:
    """The header line's cells (quotes undone)."""
    eol = buf.find(b"\n", block.start, block.end)
    text = buf[block.start : block.end if eol < 0 else eol].decode("utf-8", errors="replace")
    # A byte-order mark (a file saved on Windows) is no part of the first column's name.
    return _cells(text.rstrip("\r").lstrip("\ufeff"))


def _cells(text: str) -> list[str]:
    """One CSV line's cells; a line the csv module refuses (a stray CR) split at commas."""
    try:
        return next(csv.reader([text]), [])
    except csv.Error:
        return text.split(",")


def _cut_last_row(buf: bytes, block: Block, header: list[str], source: TimelineSource) -> int:
    """Where the table really ends: before a last row the input's end cut short."""
    end = block.end
    if end < len(buf) or buf.endswith(b"\n"):
        return end
    begin = buf.rfind(b"\n", block.start, end) + 1
    if begin <= block.start:
        return end  # the header itself is the last line: nothing to cut
    last = buf[begin:end]
    line = block.line + buf.count(b"\n", block.start, begin)
    fields = _cells(last.decode("utf-8", errors="replace"))
    if last.count(b'"') % 2 or len(fields) < len(header):
        source.warn(
            f"line {line} is cut short ({len(fields)} of {len(header)} fields; "
            "the input ends inside it): that row is left out"
        )
        return begin
    source.warn(
        f"the input does not end with a line end: its last row (line {line}) may be cut short"
    )
    return end


def parse_block(
    buf: bytes,
    arrow_buf: pa.Buffer,
    block: Block,
    keys_used: set[str],
    path: str,
    source: TimelineSource,
) -> Parsed:
    """Parse one table's columns whose keys are in ``keys_used``."""
    header = header_cells(buf, block)
    keys: dict[str, str] = {}
    for cell in header:
        key = key_of(cell)
        if key is not None and key in keys_used and key not in keys.values():
            keys[cell] = key
    end = _cut_last_row(buf, block, header, source)
    types = {cell: _ARROW_TYPES[KEY_TYPES[key]] for cell, key in keys.items()}
    view = arrow_buf.slice(block.start, end - block.start)
    try:
        table = _read(view, types)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # An integer column written with decimals ("3744.0") parses as floats;
        # anything else is explained row by row.
        floats = {c: (pa.float64() if t == pa.int64() else t) for c, t in types.items()}
        try:
            table = _read(view, floats)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise _explain(buf, block, end, header, keys, path, exc) from None
    values = {keys[c]: _series(table.column(c), KEY_TYPES[keys[c]]) for c in keys}
    return Parsed(header, keys, values, table.num_rows)


def _read(view: pa.Buffer, types: dict[str, pa.DataType]) -> pa.Table:
    return pacsv.read_csv(
        pa.BufferReader(view),
        read_options=pacsv.ReadOptions(block_size=1 << 24),
        convert_options=pacsv.ConvertOptions(
            column_types=types,
            include_columns=list(types),
            strings_can_be_null=True,
            null_values=[""],
        ),
    )


def _series(column: pa.ChunkedArray, kind: str) -> pd.Series:
    """An arrow column as the series the builders read."""
    if kind == "text":
        cat = column.to_pandas()
        if isinstance(cat.dtype, pd.CategoricalDtype):
            # Each distinct name is one Python string; rows refer to it.
            names = np.empty(len(cat.cat.categories) + 1, dtype=object)
            names[:-1] = np.asarray(cat.cat.categories, dtype=object)
            names[-1] = None
            return series_of(names[cat.cat.codes.to_numpy()], dtype=object)
        return text_series(cat)
    if kind == "int":
        if pa.types.is_floating(column.type):
            floats = column.to_numpy()
            ints = pd.array(np.rint(np.nan_to_num(floats)).astype(np.int64), dtype="Int64")
            ints[np.isnan(floats)] = pd.NA
            return series_of(ints)
        return series_of(column.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype()}.get))
    return series_of(column.to_numpy(), dtype="float64")


def _explain(
    buf: bytes,
    block: Block,
    end: int,
    header: list[str],
    keys: dict[str, str],
    path: str,
    exc: Exception,
) -> InputFormatError:
    """The first bad row of a table that failed to parse, by line and column."""
    text = buf[block.start : end].decode("utf-8", errors="replace")
    numeric = {i: c for i, c in enumerate(header) if c in keys and KEY_TYPES[keys[c]] != "text"}
    for offset, raw_line in enumerate(text.split("\n")):
        if offset == 0 or not raw_line.strip():
            continue
        row = _cells(raw_line.rstrip("\r"))
        line = block.line + offset
        if len(row) != len(header):
            return InputFormatError(
                f"{path}: line {line} has {len(row)} fields where the header "
                f"(line {block.line}) has {len(header)}"
            )
        for i, column in numeric.items():
            cell = row[i].strip()
            if not cell:
                continue
            try:
                float(cell)
            except ValueError:
                return InputFormatError(
                    f"{path}: line {line}, column '{column}': {cell!r} is not a number"
                )
    return InputFormatError(
        f"{path}: the table with its header on line {block.line} cannot be read ({exc})"
    )
