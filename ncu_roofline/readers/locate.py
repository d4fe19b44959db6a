"""Open an input and find the ncu CSV table inside the surrounding noise.

Real exports carry ncu's own ``==PROF==``/``==WARNING==``/``==ERROR==`` lines,
the profiled program's output (before *and* after the table), unquoted kernel
lists, a UTF-8 byte-order mark or CRLF line ends.  The table itself is the
run of lines that start with a double quote, beginning at a header whose
first field is ``ID`` (details and raw pages) or ``Process ID`` (summaries).
A file may hold several tables (exports concatenated, a run appended to a
log): :func:`locate_tables` finds each.  gzip, UTF-16/32 and bytes that are
not UTF-8 are handled in :mod:`~ncu_roofline.readers.decode`.

No line of the table may be longer than :data:`MAX_LINE_BYTES`: a longer
one (a quote that never closes, a binary blob without a newline) is refused
with its line number before it is copied or parsed, so that a 200 MB line
costs a scan, not gigabytes of memory.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import mmap
import os
import re
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ncu_roofline.core.files import NCU_REP_MAGIC
from ncu_roofline.errors import InputFormatError, InputNotFoundError
from ncu_roofline.readers.decode import (
    GZIP_MAGIC,
    gunzip,
    long_csv_fields,
    needs_recoding,
    recode_wide,
    replace_invalid_utf8,
)

_BOM = b"\xef\xbb\xbf"
_HEADER_RE = re.compile(rb'(?m)^(?:\xef\xbb\xbf)?"(?:ID|Process ID)",')
_LOG_RE = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?==(?:PROF|WARNING|ERROR)==[^\r\n]*")
_NVPROF_RE = re.compile(rb"(?m)^==\d+== ")
_TEXT_MODE_RE = re.compile(rb"(?m)^\s+Section: ")

Buffer = bytes | mmap.mmap

#: The longest line an ncu table may hold.  The longest real ones are
#: kernel names of a few thousand characters; a row of 64 MiB is already
#: damage, and Arrow would need a block of 128 MiB or more to parse it.
#: Read when a check runs, so tests may lower it.
MAX_LINE_BYTES = 64 << 20
#: Bytes scanned at a time when looking for a line that is too long.
_SCAN_BYTES = 16 << 20


class TextOutput(InputFormatError):
    """The input is ncu's human-readable text output, not a CSV table."""


@dataclass
class RawInput:
    """The bytes of one input, memory-mapped when it is a plain file."""

    name: str
    buf: Buffer
    path: str | None
    gz_truncated: bool = False
    #: Warnings from opening it (gzip trailing garbage, recoded text).
    notes: list[str] = field(default_factory=list)
    _mm: mmap.mmap | None = None

    def close(self) -> None:
        """Release the memory map, if any."""
        if self._mm is not None:
            self._mm.close()
            self._mm = None


@dataclass
class Located:
    """Where the table lies inside an input."""

    header: list[str]
    start: int
    end: int
    #: ncu's ``==ERROR==`` lines before and after the table.
    errors: list[str] = field(default_factory=list)
    truncated: bool = False
    #: The last row, cut mid-way and left out of ``[start, end)``.
    partial: bytes | None = None
    #: One of several tables in the input (header lines inside it are noise).
    part: bool = False


def open_input(path: str) -> RawInput:
    """Open ``path`` (``-`` for stdin; ``.gz`` recognised by its magic bytes).

    A plain UTF-8 file is memory-mapped; a pipe, FIFO or process
    substitution (``<(...)``, which has no size) is read to its end.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        if os.path.isdir(path):
            raise InputNotFoundError(f"{path}: is a directory, not an ncu export")
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed below or owned by the mmap
        except FileNotFoundError:
            raise InputNotFoundError(f"{path}: no such file") from None
        except OSError as exc:
            raise InputNotFoundError(f"{path}: cannot open ({exc.strerror})") from None
        with fh:
            st = os.fstat(fh.fileno())
            if stat.S_ISREG(st.st_mode):
                if st.st_size == 0:
                    raise InputFormatError(f"{path}: the file is empty")
                head = fh.read(64)
                if head[:2] != GZIP_MAGIC and not needs_recoding(head):
                    try:
                        mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                    except OSError as exc:
                        # A map larger than the address-space limit (ulimit -v).
                        if exc.errno == errno.ENOMEM:
                            raise MemoryError(str(exc)) from exc
                        raise
                    return RawInput(path, mm, path, _mm=mm)
                fh.seek(0)
            data = fh.read()
    if not data:
        raise InputFormatError(f"{path}: the input is empty")
    return _decoded(path, data)


def _decoded(name: str, data: bytes) -> RawInput:
    """An input read into memory: gunzipped and recoded to UTF-8 where needed."""
    truncated = False
    notes: list[str] = []
    if data[:2] == GZIP_MAGIC:
        data, truncated, note = gunzip(data)
        if not data:
            raise InputFormatError(f"{name}: a gzip file that does not decompress")
        notes += [note] if note else []
    data, note = recode_wide(data)
    notes += [note] if note else []
    return RawInput(name, data, None, gz_truncated=truncated, notes=notes)


def repaired_utf8(raw: RawInput) -> RawInput:
    """The input with the bytes that are not UTF-8 replaced, and a warning naming their lines."""
    data, note = replace_invalid_utf8(bytes(raw.buf))
    # Arrow may still hold a view of the map; it is released with it.
    with contextlib.suppress(BufferError):
        raw.close()
    return RawInput(raw.name, data, None, gz_truncated=raw.gz_truncated, notes=[*raw.notes, note])


def is_ncu_rep(raw: RawInput) -> bool:
    """Whether the bytes are a binary Nsight Compute report."""
    return raw.buf[:4] == NCU_REP_MAGIC


def _line_end(buf: Buffer, pos: int) -> int:
    nl = buf.find(b"\n", pos)
    return len(buf) if nl < 0 else nl + 1


def line_too_long(name: str | None, buf: Buffer, pos: int) -> InputFormatError:
    """The error for the line starting at byte ``pos``: longer than :data:`MAX_LINE_BYTES`.

    ``name`` (the input's) starts the message; without it the caller adds it.
    """
    prefix = f"{name}: " if name else ""
    return InputFormatError(
        f"{prefix}line {line_number(buf, pos):,} is longer than {MAX_LINE_BYTES >> 20:,} MiB: "
        "the file is damaged (a quote that never closes, binary data without a newline?) "
        "or not an ncu export"
    )


def _bounded_line_end(name: str, buf: Buffer, pos: int) -> int:
    """The end of the line at ``pos``, found without looking further than the bound."""
    limit = MAX_LINE_BYTES
    nl = buf.find(b"\n", pos, pos + limit + 1)
    if nl >= 0:
        return nl + 1
    if len(buf) - pos > limit:
        raise line_too_long(name, buf, pos)
    return len(buf)


def long_line(buf: Buffer, start: int, end: int) -> int | None:
    """Where the first line of ``buf[start:end]`` longer than :data:`MAX_LINE_BYTES` starts.

    None when there is none.  Scanned in slices with numpy (one comparison
    per byte, one offset per line), never one line at a time in Python.
    """
    limit = MAX_LINE_BYTES
    if end - start <= limit:
        return None
    line_start = start
    for at in range(start, end, _SCAN_BYTES):
        stop = min(at + _SCAN_BYTES, end)
        view = np.frombuffer(buf, dtype=np.uint8, count=stop - at, offset=at)
        ends = np.flatnonzero(view == 10) + at
        del view  # a memory map cannot close while a view of it is held
        if ends.size:
            starts = np.concatenate([[line_start], ends[:-1] + 1])
            over = np.flatnonzero(ends - starts > limit)
            if over.size:
                return int(starts[over[0]])
            line_start = int(ends[-1]) + 1
        if stop - line_start > limit:
            return line_start
    return None


def line_number(buf: Buffer, pos: int) -> int:
    """The 1-based line number of byte ``pos`` (a memory map has no ``count``)."""
    step = 64 << 20
    return 1 + sum(bytes(buf[i : min(i + step, pos)]).count(b"\n") for i in range(0, pos, step))


def _decode(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").rstrip("\r\n")


def _last_error(raw: RawInput) -> str | None:
    errors = [m.group(0) for m in _LOG_RE.finditer(raw.buf) if m.group(0).find(b"==ERROR==") >= 0]
    return _decode(errors[-1]).lstrip("\ufeff") if errors else None


def locate_table(raw: RawInput) -> Located:
    """Find the (first) CSV table; raise :class:`InputFormatError` when there is none.

    A NUL in the first 8 KiB before any table header means binary data; one
    after a header is a character of the table's text, kept as it is
    wherever it lies (the writers show it as ``\\x00``).
    """
    nul = raw.buf.find(b"\x00", 0, 8192)
    if nul >= 0 and not _HEADER_RE.search(raw.buf, 0, nul):
        raise InputFormatError(
            f"{raw.name}: binary data, not an ncu CSV export (expected `ncu --csv` output or a .ncu-rep report)"
        )
    return _locate_at(raw, _header_start(raw), len(raw.buf), 0, last=True)


def locate_tables(raw: RawInput) -> list[Located]:
    """Every ncu table in the input, each up to the next header line.

    Two exports concatenated into one file (or a run appended to a log)
    repeat the header, or bring a different one: each table is read with its
    own.  This scans the whole input, so it runs only once the parse of the
    first table met a header line inside it.
    """
    starts = [
        m.start()
        for m in _HEADER_RE.finditer(raw.buf)
        if raw.buf.find(
            b'"Kernel Name"', m.start(), _bounded_line_end(raw.name, raw.buf, m.start())
        )
        >= 0
    ]
    if not starts:
        return [locate_table(raw)]
    tables: list[Located] = []
    prelude_from = 0
    for i, start in enumerate(starts):
        last = i == len(starts) - 1
        limit = len(raw.buf) if last else starts[i + 1]
        loc = _locate_at(raw, start, limit, prelude_from, last=last)
        loc.part = True
        tables.append(loc)
        prelude_from = loc.end
    return tables


def _locate_at(raw: RawInput, start: int, limit: int, prelude_from: int, last: bool) -> Located:
    """The table whose header starts at ``start``, ending before ``limit``.

    ncu's ``==ERROR==`` lines between ``prelude_from`` and the header, and
    (for the last table) after it, are kept for warnings.
    """
    buf = raw.buf
    name = raw.name
    if buf[start : start + 3] == _BOM:
        start += 3
    header_end = _bounded_line_end(name, buf, start)
    header_text = _decode(buf[start:header_end])
    with long_csv_fields():
        header = csv_fields(header_text)
    if "Kernel Name" not in header:
        raise InputFormatError(
            f'{name}: a CSV table without a "Kernel Name" column is not an ncu export'
        )
    end = _table_end(buf, header_end, limit)

    # Searched in place: a slice would copy the program output around the table.
    log_lines = [
        _decode(m.group(0)).lstrip("\ufeff") for m in _LOG_RE.finditer(buf, prelude_from, start)
    ]
    if last:
        log_lines += [_decode(m.group(0)) for m in _LOG_RE.finditer(buf, end)]
    errors = [line for line in log_lines if line.startswith("==ERROR==")]
    partial: bytes | None = None
    truncated = False
    if last:
        end, truncated, partial = _cut_partial_row(raw, header_end, end)
    return Located(
        header=header, start=start, end=end, errors=errors, truncated=truncated, partial=partial
    )


def _header_start(raw: RawInput) -> int:
    """Where ncu's header row starts; the error says what the input is when it has none.

    The profiled program may print its own quoted "ID" table; ncu's has a
    "Kernel Name" column.
    """
    buf = raw.buf
    first_match = None
    for candidate in _HEADER_RE.finditer(buf):
        first_match = first_match or candidate
        line_end = _bounded_line_end(raw.name, buf, candidate.start())
        if buf.find(b'"Kernel Name"', candidate.start(), line_end) >= 0:
            return candidate.start()
    name = raw.name
    if first_match is not None:
        raise InputFormatError(
            f'{name}: a CSV table without a "Kernel Name" column is not an ncu export'
        )
    if _TEXT_MODE_RE.search(buf[: 1 << 22]):
        # Read by the text reader (readers/text.py) instead; it keeps ncu's errors.
        raise TextOutput(f"{name}: ncu text output, not a CSV table")
    last = _last_error(raw)
    if last:
        raise InputFormatError(
            f"{name}: no ncu table found, only log output; ncu's last error: {last}"
        )
    if _NVPROF_RE.search(buf[: 1 << 20]):
        raise InputFormatError(
            f"{name}: this looks like an nvprof export; ncu-roofline reads Nsight Compute (ncu) exports"
        )
    logs = [_decode(m.group(0)).lstrip("\ufeff") for m in _LOG_RE.finditer(buf)]
    no_kernels = [line for line in logs if "No kernels were profiled" in line]
    if no_kernels:
        raise InputFormatError(f"{name}: no ncu table: ncu profiled no kernels ({no_kernels[-1]})")
    if logs:
        raise InputFormatError(
            f"{name}: no ncu table found, only ncu log lines; the last one: {logs[-1]}"
        )
    if re.search(rb"[^\s\xef\xbb\xbf]", buf) is None:
        raise InputFormatError(f"{name}: the input holds no data")
    raise InputFormatError(
        f'{name}: not an ncu CSV export (no header row starting with "ID" or "Process ID")'
    )


def _table_end(buf: Buffer, header_end: int, limit: int) -> int:
    """The end of the table: the end of the last line before ``limit`` that starts with a quote.

    What follows is program output, ncu's closing log lines, or the next
    export's prelude.
    """
    pos = limit
    while pos > header_end:
        line_start = buf.rfind(b"\n", header_end, pos - 1) + 1
        if line_start <= 0:
            line_start = header_end
        if buf[line_start : line_start + 1] == b'"':
            return pos
        pos = line_start
    return header_end


def _cut_partial_row(raw: RawInput, header_end: int, end: int) -> tuple[int, bool, bytes | None]:
    """The table's end without a row cut mid-way, whether it was cut, and the cut row.

    A finished export ends with a newline; a row cut mid-way lacks it and
    usually has an odd number of quotes or fewer fields than the row before.
    A last line that ends with its newline is complete, even in a gzip
    stream that was cut off later.
    """
    buf = raw.buf
    last_line_start = max(buf.rfind(b"\n", header_end, max(end - 1, header_end)) + 1, header_end)
    if end < len(buf) or end <= header_end or buf[end - 1 : end] == b"\n":
        return end, False, None
    if end - last_line_start > MAX_LINE_BYTES:
        raise line_too_long(raw.name, buf, last_line_start)
    last_line = bytes(buf[last_line_start:end])
    truncated = raw.gz_truncated
    if last_line.count(b'"') % 2 == 1:
        truncated = True
    else:
        with long_csv_fields():
            fields = csv_fields(_decode(last_line))
            prev_start = buf.rfind(b"\n", header_end, max(last_line_start - 1, header_end)) + 1
            prev_start = max(prev_start, header_end)
            if last_line_start - prev_start > MAX_LINE_BYTES:
                raise line_too_long(raw.name, buf, prev_start)
            prev = buf[prev_start:last_line_start]
            prev_fields = csv_fields(_decode(prev)) if prev.strip() else fields
        if len(fields) < len(prev_fields):
            truncated = True
    if not truncated or last_line_start <= header_end:
        return end, truncated, None
    # Leave the partial row out of the parse: a number cut mid-way ("5,6" of
    # "5,664") would otherwise read as a wrong value.  The readers decide
    # what of it can be kept.
    return last_line_start, True, last_line


def parse_partial(line: bytes) -> tuple[list[str], bool]:
    """The fields of a row cut mid-way, and whether its last field is complete.

    A cut inside a quoted field (an odd number of quotes) leaves that field
    partial; a cut just after a closing quote or a separator does not.
    """
    text = _decode(line)
    with long_csv_fields():
        fields = csv_fields(text)
    stripped = text.rstrip()
    complete = line.count(b'"') % 2 == 0 and (stripped.endswith('"') or stripped.endswith(","))
    if stripped.endswith(","):
        fields = fields[:-1]
    return fields, complete


def sample_rows(raw: RawInput, start: int, end: int, limit: int = 400) -> list[list[str]]:
    """Parse up to ``limit`` quoted lines from ``start`` with the csv module.

    A line longer than :data:`MAX_LINE_BYTES` is refused before it is copied.
    """
    buf = raw.buf
    lines: list[str] = []
    pos = start
    while pos < end and len(lines) < limit:
        nxt = _line_end(buf, pos)
        if min(nxt, end) - pos > MAX_LINE_BYTES:
            raise line_too_long(raw.name, buf, pos)
        line = buf[pos : min(nxt, end)]
        if line.startswith(b'"'):
            lines.append(_decode(line))
        pos = nxt
    with long_csv_fields():
        return [f for f in (csv_fields(line) for line in lines) if f]


def csv_fields(line: str) -> list[str]:
    """The fields of one CSV line; none for a line the csv module cannot parse.

    A stray carriage return or NUL inside an unquoted field (a damaged
    file) makes the csv module raise; such a line is no row.
    """
    try:
        return next(csv.reader([line]), [])
    except csv.Error:
        return []


ProgressCallback = Callable[[int], None]


def blank_lines(buf: Buffer, start: int, end: int) -> np.ndarray:
    """The 1-based line numbers, within ``buf[start:end]``, of its blank lines.

    Empty lines and lines holding a lone carriage return, as Arrow passes
    them over.  Scanned in slices with numpy: a tenth of a second for 300 MB.
    """
    found: list[np.ndarray] = []
    lines_before = 0
    line_start = start
    for at in range(start, end, _SCAN_BYTES):
        stop = min(at + _SCAN_BYTES, end)
        # One byte before the slice too: the one before a newline at its start.
        first = max(at - 1, start)
        view = np.frombuffer(buf, dtype=np.uint8, count=stop - first, offset=first)
        ends = np.flatnonzero(view[at - first :] == 10) + at
        if ends.size == 0:
            del view
            continue
        before = view[np.maximum(ends - 1 - first, 0)]
        del view  # a memory map cannot close while a view of it is held
        starts = np.concatenate([[line_start], ends[:-1] + 1])
        length = ends - starts
        blank = (length == 0) | ((length == 1) & (before == 13))
        found.append(np.flatnonzero(blank) + lines_before + 1)
        lines_before += ends.size
        line_start = int(ends[-1]) + 1
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def non_blank_lines(buf: Buffer, start: int, end: int) -> int:
    """How many lines of ``buf[start:end]`` (which ends just after a newline) Arrow reads as rows.

    Every line but the blank ones (:func:`blank_lines`).
    """
    newlines = 0
    for at in range(start, end, _SCAN_BYTES):
        stop = min(at + _SCAN_BYTES, end)
        view = np.frombuffer(buf, dtype=np.uint8, count=stop - at, offset=at)
        newlines += int(np.count_nonzero(view == 10))
        del view  # a memory map cannot close while a view of it is held
    return newlines - len(blank_lines(buf, start, end))
