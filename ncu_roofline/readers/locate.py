"""Open an input and find the ncu CSV table inside the surrounding noise.

Real exports carry ncu's own ``==PROF==``/``==WARNING==``/``==ERROR==`` lines,
the profiled program's output (before *and* after the table), unquoted kernel
lists, a UTF-8 byte-order mark or CRLF line ends.  The table itself is the
run of lines that start with a double quote, beginning at a header whose
first field is ``ID`` (details and raw pages) or ``Process ID`` (summaries).
"""

from __future__ import annotations

import csv
import gzip
import io
import mmap
import os
import re
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

from ncu_roofline.errors import InputFormatError, InputNotFoundError

NCU_REP_MAGIC = b"NVR\x00"
_GZIP_MAGIC = b"\x1f\x8b"
_BOM = b"\xef\xbb\xbf"
_HEADER_RE = re.compile(rb'(?m)^(?:\xef\xbb\xbf)?"(?:ID|Process ID)",')
_LOG_RE = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?==(?:PROF|WARNING|ERROR)==[^\r\n]*")
_NVPROF_RE = re.compile(rb"(?m)^==\d+== ")
_TEXT_MODE_RE = re.compile(rb"(?m)^\s+Section: ")

Buffer = bytes | mmap.mmap


@dataclass
class RawInput:
    """The bytes of one input, memory-mapped when it is a plain file."""

    name: str
    buf: Buffer
    path: str | None
    gz_truncated: bool = False
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


def _gunzip(data: bytes) -> tuple[bytes, bool]:
    """Decompress gzip data, keeping what was read from a truncated stream."""
    try:
        return gzip.decompress(data), False
    except (EOFError, gzip.BadGzipFile, zlib.error):
        pass
    out = io.BytesIO()
    dec = zlib.decompressobj(wbits=31)
    try:
        for i in range(0, len(data), 1 << 20):
            out.write(dec.decompress(data[i : i + (1 << 20)]))
    except zlib.error:
        pass
    return out.getvalue(), True


def open_input(path: str) -> RawInput:
    """Open ``path`` (``-`` for stdin; ``.gz`` recognised by its magic bytes)."""
    if path == "-":
        data = sys.stdin.buffer.read()
        name = "-"
        real_path = None
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
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                raise InputFormatError(f"{path}: the file is empty")
            head = fh.read(2)
            if head != _GZIP_MAGIC:
                mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
                return RawInput(path, mm, path, _mm=mm)
            fh.seek(0)
            data = fh.read()
        name = path
        real_path = path
    if not data:
        raise InputFormatError(f"{name}: the input is empty")
    truncated = False
    if data[:2] == _GZIP_MAGIC:
        data, truncated = _gunzip(data)
        if not data:
            raise InputFormatError(f"{name}: a gzip file that does not decompress")
        real_path = None
    return RawInput(name, data, real_path, gz_truncated=truncated)


def is_ncu_rep(raw: RawInput) -> bool:
    """Whether the bytes are a binary Nsight Compute report."""
    return raw.buf[:4] == NCU_REP_MAGIC


def _line_end(buf: Buffer, pos: int) -> int:
    nl = buf.find(b"\n", pos)
    return len(buf) if nl < 0 else nl + 1


def _decode(line: bytes) -> str:
    return line.decode("utf-8", errors="replace").rstrip("\r\n")


def _last_error(raw: RawInput) -> str | None:
    errors = [m.group(0) for m in _LOG_RE.finditer(raw.buf) if m.group(0).find(b"==ERROR==") >= 0]
    return _decode(errors[-1]).lstrip("\ufeff") if errors else None


def locate_table(raw: RawInput) -> Located:
    """Find the CSV table; raise :class:`InputFormatError` when there is none."""
    buf = raw.buf
    name = raw.name
    if b"\x00" in buf[:8192]:
        raise InputFormatError(
            f"{name}: binary data, not an ncu CSV export (expected `ncu --csv` output or a .ncu-rep report)"
        )
    start = _header_start(raw)
    if buf[start : start + 3] == _BOM:
        start += 3
    header_end = _line_end(buf, start)
    header_text = _decode(buf[start:header_end])
    header = next(csv.reader([header_text]))
    if "Kernel Name" not in header:
        raise InputFormatError(
            f'{name}: a CSV table without a "Kernel Name" column is not an ncu export'
        )
    end = _table_end(buf, header_end)

    prelude = buf[:start]
    log_lines = [_decode(m.group(0)).lstrip("\ufeff") for m in _LOG_RE.finditer(prelude)]
    trailer_bytes = buf[end:]
    log_lines += [_decode(m.group(0)) for m in _LOG_RE.finditer(trailer_bytes)]
    errors = [line for line in log_lines if line.startswith("==ERROR==")]
    end, truncated = _cut_partial_row(buf, header_end, end, raw.gz_truncated)
    return Located(
        header=header,
        start=start,
        end=end,
        errors=errors,
        truncated=truncated,
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
        line = buf[candidate.start() : _line_end(buf, candidate.start())]
        if b'"Kernel Name"' in line:
            return candidate.start()
    name = raw.name
    if first_match is not None:
        raise InputFormatError(
            f'{name}: a CSV table without a "Kernel Name" column is not an ncu export'
        )
    last = _last_error(raw)
    if last:
        raise InputFormatError(
            f"{name}: no ncu table found, only log output; ncu's last error: {last}"
        )
    if _NVPROF_RE.search(buf[: 1 << 20]):
        raise InputFormatError(
            f"{name}: this looks like an nvprof export; ncu-roofline reads Nsight Compute (ncu) exports"
        )
    if _TEXT_MODE_RE.search(buf[: 1 << 22]):
        raise InputFormatError(
            f"{name}: ncu text output, not CSV; re-export with `ncu --csv --print-units base ...`"
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


def _table_end(buf: Buffer, header_end: int) -> int:
    """The end of the table: the end of the last line that starts with a quote.

    What follows is program output or ncu's closing log lines.
    """
    pos = len(buf)
    while pos > header_end:
        line_start = buf.rfind(b"\n", header_end, pos - 1) + 1
        if line_start <= 0:
            line_start = header_end
        if buf[line_start:pos].startswith(b'"'):
            return pos
        pos = line_start
    return header_end


def _cut_partial_row(buf: Buffer, header_end: int, end: int, truncated: bool) -> tuple[int, bool]:
    """The table's end without a row cut mid-way, and whether the input was truncated."""
    last_line_start = buf.rfind(b"\n", header_end, max(end - 1, header_end)) + 1
    last_line = buf[max(last_line_start, header_end) : end]
    if end == len(buf) and end > header_end and not last_line.endswith(b"\n"):
        # A finished export ends with a newline; a row cut mid-way usually
        # has an odd number of quotes or fewer fields than its neighbours.
        if last_line.count(b'"') % 2 == 1:
            truncated = True
        else:
            fields = next(csv.reader([_decode(last_line)]), [])
            prev_start = buf.rfind(b"\n", header_end, max(last_line_start - 1, header_end)) + 1
            prev = buf[max(prev_start, header_end) : last_line_start]
            prev_fields = next(csv.reader([_decode(prev)]), []) if prev.strip() else fields
            if len(fields) < len(prev_fields):
                truncated = True
    if truncated and end == len(buf) and last_line_start > header_end:
        # Drop the partial row: a number cut mid-way ("5,6" of "5,664") would
        # otherwise parse as a wrong value when the field count still matches.
        end = last_line_start
    return end, truncated


def sample_rows(buf: Buffer, start: int, end: int, limit: int = 400) -> list[list[str]]:
    """Parse up to ``limit`` quoted lines from ``start`` with the csv module."""
    lines: list[str] = []
    pos = start
    while pos < end and len(lines) < limit:
        nxt = _line_end(buf, pos)
        line = buf[pos : min(nxt, end)]
        if line.startswith(b'"'):
            lines.append(_decode(line))
        pos = nxt
    return list(csv.reader(lines))


ProgressCallback = Callable[[int], None]
