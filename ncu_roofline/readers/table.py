"""Parse the located CSV table with pyarrow's multithreaded reader.

Rows whose field count differs from the expected one are handed to an
invalid-row handler instead of failing the read: rule rows (which carry more
fields than the trailing-comma metric rows of the same export), stray log
lines inside the table, and a truncated last row.
"""

from __future__ import annotations

import contextlib
import io
import mmap
import os
import re
import sys
import threading
from collections import deque
from collections.abc import Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import numbers
from ncu_roofline.core.limits import address_space_limited
from ncu_roofline.core.units import MISSING_TOKENS
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.locate import (
    Buffer,
    ProgressCallback,
    line_too_long,
    long_line,
    non_blank_lines,
)
from ncu_roofline.readers.stream import CompactParts, compact_parts, compact_table

_BLOCK_SIZE = 16 << 20
#: Tables with dictionary columns larger than this are read batch by batch
#: (:mod:`~ncu_roofline.readers.stream`): memory stays a fraction of the
#: file's size, no slower (a 776 MB export: 0.37 instead of 0.50 GB, 2.7-2.8
#: instead of 2.8-3.6 s).  Below it a table is a few blocks and either way is
#: as fast.  ``NCU_ROOFLINE_STREAM_BYTES`` overrides it.
STREAM_BYTES = 64 << 20
#: Bytes per batch of such a read.
BATCH_BYTES = 4 << 20


def stream_threshold() -> int:
    """The table size above which a table is read batch by batch."""
    value = os.environ.get("NCU_ROOFLINE_STREAM_BYTES", "")
    return int(value) if value.strip().isdigit() else STREAM_BYTES


#: Most stretches a large table is parsed in at once, one thread each.
MAX_PARSE_THREADS = 4
#: Bytes per stretch of a table parsed on several threads: the memory each
#: thread's parse holds above the codes kept (about three times this).
STRETCH_BYTES = 16 << 20


def parse_threads() -> int:
    """Threads a large table's parse may use: the cores this process may run on, at most
    :data:`MAX_PARSE_THREADS` (``NCU_ROOFLINE_PARSE_THREADS`` overrides; 1 turns it off)."""
    value = os.environ.get("NCU_ROOFLINE_PARSE_THREADS", "").strip()
    if value.isdigit():
        return max(1, int(value))
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_PARSE_THREADS))


class _ProgressReader(io.RawIOBase):
    """A read-only view of a buffer slice that reports bytes consumed."""

    def __init__(self, view: memoryview, callback: ProgressCallback) -> None:
        self._view = view
        self._pos = 0
        self._callback = callback

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = min(len(b), len(self._view) - self._pos)
        b[:n] = self._view[self._pos : self._pos + n]
        self._pos += n
        self._callback(n)
        return n


class _RangeReader(io.RawIOBase):
    """Reads ``[start, end)`` of a file with ``pread``.

    Parsing through ordinary reads instead of the memory map keeps the input's
    pages out of the process's resident memory: peak memory stays below the
    file size instead of adding to it.
    """

    def __init__(self, path: str, start: int, end: int, callback: ProgressCallback | None) -> None:
        self._fd = os.open(path, os.O_RDONLY)
        self._pos = start
        self._end = end
        self._callback = callback

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        n = min(len(b), self._end - self._pos)
        if n <= 0:
            return 0
        data = os.pread(self._fd, n, self._pos)
        got = len(data)
        b[:got] = data
        self._pos += got
        if self._callback is not None:
            self._callback(got)
        return got

    def close(self) -> None:
        if not self.closed:
            os.close(self._fd)
        super().close()


class InvalidUtf8(Exception):
    """The table holds bytes that are not UTF-8: the caller repairs them and reads again."""


class MoreTables(Exception):
    """A header line inside the table: the input holds several tables, each to read apart."""


#: Skipped rows whose whole text :class:`SkipCounter` keeps.
TEXTS_KEPT = 16

_HEADER_PREFIXES = ('"ID",', '"Process ID",', '\ufeff"ID",', '\ufeff"Process ID",')


@dataclass
class SkipCounter:
    """Rows the handler skipped: rule rows kept as text; others counted, the first few kept."""

    rule_width: int | None
    other_rows: int = 0
    last_other: list[str] = field(default_factory=list)
    #: Header lines met inside the table (another export's, or this one's again).
    headers: int = 0
    #: The text of every rule row, in file order (few: a handful per launch).
    rules: list[str] = field(default_factory=list)
    #: Arrow's number of every skipped row, in file order: its place among
    #: the non-blank lines of the parsed range, header rows included, from 1
    #: (:mod:`~ncu_roofline.readers.lines`).  None when the parse ran on
    #: several threads, where Arrow numbers no row.
    numbers: list[int] | None = field(default_factory=list)
    #: The numbers of the skipped rows that are not rule rows (when known).
    other_numbers: list[int] = field(default_factory=list)
    #: The whole text of the first few skipped rows that are not rule rows
    #: (their lines are found by their text where Arrow numbers none).
    other_texts: list[str] = field(default_factory=list)
    #: Later stretches of a table read in stretches (:meth:`absorb`), their
    #: numbers not yet the table's: ``(first byte, numbers, other numbers)``.
    stretches: list[tuple[int, list[int], list[int]]] = field(default_factory=list)

    def __call__(self, row: Any) -> str:
        # Rule rows (as wide as the rule table) are expected and skipped
        # silently; anything else is counted for a warning.
        text = str(row.text)
        number = row.number
        if number is None or number < 0:
            self.numbers = None
        elif self.numbers is not None:
            self.numbers.append(int(number))
        if text.startswith(_HEADER_PREFIXES) and '"Kernel Name"' in text:
            self.headers += 1
        if self.rule_width is None or row.actual_columns != self.rule_width:
            self.other_rows += 1
            if len(self.last_other) < 3:
                self.last_other.append(text[:120])
            if len(self.other_texts) < TEXTS_KEPT:
                self.other_texts.append(text)
            if self.numbers is not None:
                self.other_numbers.append(int(number))
        else:
            self.rules.append(text)
        return "skip"

    def absorb(self, later: SkipCounter, at: int) -> None:
        """Take in the counts of the stretch from byte ``at`` on (read apart from this one's).

        Arrow numbered that stretch's rows from 1 again: its numbers are
        made the table's by :meth:`resolve`, only when a line is asked for.
        """
        self.other_rows += later.other_rows
        self.last_other.extend(later.last_other[: max(0, 3 - len(self.last_other))])
        self.headers += later.headers
        self.rules.extend(later.rules)
        room = max(0, TEXTS_KEPT - len(self.other_texts))
        self.other_texts.extend(later.other_texts[:room])
        if self.numbers is None or later.numbers is None:
            self.numbers = None
            self.stretches = []
            return
        self.stretches.append((at, later.numbers, later.other_numbers))

    def resolve(self, buf: Buffer, start: int) -> None:
        """The numbers of later stretches (:meth:`absorb`) made those of the range from ``start``."""
        if not self.stretches or self.numbers is None:
            return
        before, at = 0, start
        for begin, numbered, others in self.stretches:
            before += non_blank_lines(buf, at, begin)
            at = begin
            self.numbers.extend(n + before for n in numbered)
            self.other_numbers.extend(n + before for n in others)
        self.stretches = []


#: Arrow's block is an int32; a row must fit in one.
_MAX_BLOCK = (1 << 31) - 1
#: What Arrow says when a row (or the header rows it skips) is longer than a block.
_TOO_LONG = ("straddl", "larger than block size")


def read_table(
    buf: Buffer,
    path: str | None,
    start: int,
    end: int,
    column_names: list[str],
    include: list[str],
    dictionary: set[str],
    skip_rows: int,
    rule_width: int | None,
    progress: ProgressCallback | None,
    split: bool = False,
    floats: Collection[str] = (),
    numbered: bool = False,
    stream: bool = False,
) -> tuple[pa.Table, SkipCounter]:
    """Read ``buf[start:end]`` as CSV with the given column names.

    ``include`` lists the columns to convert (as strings; those in
    ``dictionary`` dictionary-encoded, which keeps repeated kernel names cheap;
    those in ``floats`` as float64, missing tokens null).  When a value of a
    ``floats`` column is not a number Arrow reads, the table is read again
    with every column as a string (:mod:`~ncu_roofline.readers.typed`).
    A table with dictionary columns larger than :func:`stream_threshold` is
    read in batches of :data:`BATCH_BYTES` into a compact table with the same
    rows and values (:mod:`~ncu_roofline.readers.stream`); every dictionary
    column comes back with one dictionary, in order of first appearance.
    A row longer than a block is read by retrying with larger blocks, once
    no line is longer than :data:`~ncu_roofline.readers.locate.MAX_LINE_BYTES`
    (a longer one is refused with its line number).

    Where rule rows are expected (``rule_width`` set), the parse runs on one
    thread: each skipped row calls back into Python, and with Arrow's worker
    threads contending for the interpreter lock a 524 MB export with 135,000
    rule rows took 4.9 s (3.4 s of it in the kernel) instead of 0.8 s; a
    large one is read in stretches side by side instead
    (:func:`_parse_stretches`, :func:`parse_threads`).  Raises
    :class:`InvalidUtf8` for bytes that are not UTF-8 and, with ``split``,
    :class:`MoreTables` when a header line lies inside the range.
    ``numbered`` parses on one thread, where Arrow numbers the rows it skips
    (:attr:`SkipCounter.numbers`).
    """
    batched = (bool(dictionary) or stream) and end - start > stream_threshold()
    block = BATCH_BYTES if batched else _BLOCK_SIZE
    while True:
        convert_opts = _convert_options(include, dictionary, floats)
        counter = SkipCounter(rule_width=rule_width)
        read_opts = pacsv.ReadOptions(
            column_names=column_names,
            skip_rows=skip_rows,
            block_size=block,
            use_threads=rule_width is None and not numbered,
        )
        parse_opts = pacsv.ParseOptions(invalid_row_handler=counter, newlines_in_values=False)
        options = (read_opts, parse_opts, convert_opts)
        try:
            stretches = not numbered and batched
            if stretches and path is not None and isinstance(buf, mmap.mmap):
                # Arrow's batch-by-batch reader parses on one thread whether
                # or not rule rows keep its worker threads away; stretches
                # of whole lines use the cores.  A row longer than a block
                # is read on one thread.
                table = (
                    _parse_stretches(buf, path, start, end, progress, options, counter)
                    if block == BATCH_BYTES
                    else _parse(buf, path, start, end, progress, options, batched)
                )
            else:
                table = _parse(buf, path, start, end, progress, options, batched)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            message = str(exc)
            if floats and _FLOAT_REFUSED.match(message):
                floats = ()
                continue
            if any(t in message for t in _TOO_LONG) and block < min(_MAX_BLOCK, end - start):
                # A row longer than a block: refused when longer than any
                # line may be, else read with blocks that hold it.
                long = long_line(buf, start, end)
                if long is not None:
                    raise line_too_long(None, buf, long) from None
                block = min(_MAX_BLOCK, block * 8)
                continue
            if "UTF8" in message or "UTF-8" in message:
                raise InvalidUtf8() from None
            raise InputFormatError(_in_our_words(message, block)) from None
        if split and (counter.headers or _header_as_row(table)):
            raise MoreTables()
        if not batched:
            # One dictionary per column, as a batched read gives it.
            table = table.unify_dictionaries()
        # Arrow's pool keeps freed parse buffers; hand them back before pivoting.
        pa.default_memory_pool().release_unused()
        return table, counter


#: How Arrow refuses a value of a float64 column (and nothing else: a parse
#: error quoting such a row starts "CSV parse error").
_FLOAT_REFUSED = re.compile(r"In CSV column #\d+: (?:Row #\d+: )?CSV conversion error to double")


def _convert_options(
    include: list[str], dictionary: set[str], floats: Collection[str]
) -> pacsv.ConvertOptions:
    """Every column of ``include`` as a string, a dictionary or (``floats``) a float64.

    Strings are never null; float64 values that are missing tokens exactly as
    written, quoted or not, are.
    """
    types: dict[str, pa.DataType] = {
        c: (
            pa.dictionary(pa.int32(), pa.string())
            if c in dictionary
            else pa.float64()
            if c in floats
            else pa.string()
        )
        for c in include
    }
    if not floats:
        return pacsv.ConvertOptions(
            include_columns=include,
            column_types=types,
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        )
    return pacsv.ConvertOptions(
        include_columns=include,
        column_types=types,
        null_values=sorted(MISSING_TOKENS),
        strings_can_be_null=False,
        quoted_strings_can_be_null=True,
    )


#: Held while a parse has its own ``sys.unraisablehook`` installed.
_HOOK_LOCK = threading.Lock()


def arrow_signal_thread(limited: bool | None = None) -> bool:
    """Whether pyarrow may start its signal-receiving thread; turned off under ``ulimit -v``.

    On the main thread, with Python handlers for SIGINT or SIGTERM (the
    command line installs them), pyarrow's first ``read_csv`` starts a
    thread that turns Ctrl-C into a cancelled parse.  Arrow starts it where
    a failure cannot be reported: under an address-space limit that leaves
    no room for its stack the process aborts ("terminate called after
    throwing an instance of 'std::system_error'", exit 134), not even with
    exit 1, and a probe thread started just before does not make it safe
    (the probe's stack may not be released yet).  So under such a limit the
    thread is never started: Ctrl-C then takes effect when the parse in
    progress ends (under a second for most exports) instead of at once.
    ``limited`` overrides the check (tests).
    """
    limited = address_space_limited() if limited is None else limited
    if limited:
        pa.enable_signal_handlers(False)
    return not limited


def _source(
    buf: Buffer, path: str | None, start: int, end: int, progress: ProgressCallback | None
) -> Any:
    """What Arrow reads ``buf[start:end]`` from."""
    if path is not None and isinstance(buf, mmap.mmap):
        if progress is None and end == os.path.getsize(path):
            # The table runs to the end of the file: Arrow's own file reader,
            # with no Python call per block (a quarter less parse time).
            source = pa.OSFile(path)
            source.seek(start)
            return source
        # Buffered: Arrow asks for small reads, each a Python call otherwise.
        return io.BufferedReader(_RangeReader(path, start, end, progress), buffer_size=_BLOCK_SIZE)
    if progress is not None:
        view = memoryview(buf)[start:end]
        return io.BufferedReader(_ProgressReader(view, progress), buffer_size=_BLOCK_SIZE)
    return pa.BufferReader(pa.py_buffer(memoryview(buf)[start:end]))


@contextlib.contextmanager
def _utf8_checked() -> Iterator[None]:
    """A parse whose undecodable skipped rows raise :class:`InvalidUtf8`."""
    # pyarrow decodes a skipped row's text before calling the handler; bytes
    # that are not UTF-8 raise there and only reach sys.unraisablehook (a
    # traceback on stderr), then the parse fails.  Catch that to repair.
    bad_text: list[BaseException] = []
    # The hook is process-wide: inputs read on several threads take turns
    # here, so that each parse's decode errors reach its own list and the
    # hook found before the first is the one put back after the last.
    _HOOK_LOCK.acquire()
    previous_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, UnicodeDecodeError):
            bad_text.append(unraisable.exc_value)
        else:
            previous_hook(unraisable)

    try:
        sys.unraisablehook = hook
        yield
    except pa.ArrowInvalid:
        if bad_text:
            raise InvalidUtf8() from None
        raise
    finally:
        sys.unraisablehook = previous_hook
        _HOOK_LOCK.release()


def _closed(source: Any) -> None:
    if isinstance(source, (io.IOBase, pa.NativeFile)):
        source.close()


def _parse(
    buf: Buffer,
    path: str | None,
    start: int,
    end: int,
    progress: ProgressCallback | None,
    options: tuple[pacsv.ReadOptions, pacsv.ParseOptions, pacsv.ConvertOptions],
    batched: bool,
) -> pa.Table:
    read_opts, parse_opts, convert_opts = options
    source = _source(buf, path, start, end, progress)
    try:
        with _utf8_checked():
            if batched:
                reader = pacsv.open_csv(
                    source,
                    read_options=read_opts,
                    parse_options=parse_opts,
                    convert_options=convert_opts,
                )
                return compact_table(reader, reader.schema)
            return pacsv.read_csv(
                source,
                read_options=read_opts,
                parse_options=parse_opts,
                convert_options=convert_opts,
            )
    finally:
        _closed(source)


def _stretch_ends(buf: Buffer, start: int, end: int, size: int) -> list[int]:
    """Where stretches of about ``size`` bytes end, each just after a newline (the last at ``end``)."""
    ends: list[int] = []
    at = start
    while end - at > size + size // 2:
        # Rows never span lines here (``newlines_in_values`` is off).
        newline = buf.find(b"\n", at + size, end)
        if newline < 0 or newline + 1 >= end:
            break
        at = newline + 1
        ends.append(at)
    return [*ends, end]


def _parse_stretches(
    buf: mmap.mmap,
    path: str,
    start: int,
    end: int,
    progress: ProgressCallback | None,
    options: tuple[pacsv.ReadOptions, pacsv.ParseOptions, pacsv.ConvertOptions],
    counter: SkipCounter,
) -> pa.Table:
    """A large table read in stretches of whole lines, :func:`parse_threads` at once.

    Arrow's reader with its own threads would call the rule-row handler from
    all of them at once (six times slower, see :func:`read_table`), and its
    batch-by-batch reader parses one batch at a time, holding the interpreter
    lock, with or without rule rows; so each
    stretch is parsed whole on one thread of Arrow's, with a handler of its
    own, several stretches side by side, and kept as codes
    (:class:`~ncu_roofline.readers.stream.CompactParts`) as soon as it is
    read.  The stretches' codes and skip counts are joined in order: the
    table, values and counts are those of one read, in memory a few
    stretches' worth above the codes.
    """
    threads = parse_threads()
    read_opts, _, convert_opts = options
    # The first stretch holds the rows skipped before the data (a raw page's
    # header and units row) whatever their length.
    data_start = after_lines(buf, start, end, read_opts.skip_rows)
    bounds = _stretch_ends(buf, data_start, end, STRETCH_BYTES) if threads > 1 else [end]
    if len(bounds) < 2:
        return _parse(buf, path, start, end, progress, options, batched=True)
    starts = [start, *bounds[:-1]]
    counters = [counter] + [SkipCounter(rule_width=counter.rule_width) for _ in bounds[1:]]
    # One thread each: the stretches are the parallelism (and a rule-row
    # handler must not be called from several of Arrow's threads at once).
    stretch_opts = [
        pacsv.ReadOptions(
            column_names=read_opts.column_names,
            # A later stretch starts at a row: no header rows to skip.
            skip_rows=read_opts.skip_rows if k == 0 else 0,
            block_size=read_opts.block_size,
            use_threads=False,
        )
        for k in range(len(bounds))
    ]

    def stretch(k: int) -> CompactParts:
        data = _read_range(path, starts[k], bounds[k], progress)
        table = pacsv.read_csv(
            pa.py_buffer(data),
            read_options=stretch_opts[k],
            parse_options=pacsv.ParseOptions(
                invalid_row_handler=counters[k], newlines_in_values=False
            ),
            convert_options=convert_opts,
        )
        del data
        return compact_parts(table.to_batches(), table.schema)

    with _utf8_checked(), ThreadPoolExecutor(max_workers=min(threads, len(bounds))) as pool:
        pending = deque(pool.submit(stretch, k) for k in range(len(bounds)))
        try:
            first = pending.popleft().result()
            # Each stretch joins the first as soon as it is read, in order,
            # while the threads read the next ones.
            while pending:
                first.absorb(pending.popleft().result())
        finally:
            # An error or an interrupt: the stretches not yet begun are
            # cancelled, not read before it is said.
            for future in pending:
                future.cancel()
    for k in range(1, len(bounds)):
        counter.absorb(counters[k], starts[k])
    return first.table()


def after_lines(buf: Buffer, start: int, end: int, count: int) -> int:
    """Where the line after the first ``count`` lines from ``start`` begins (``end`` if
    there are fewer): the rows Arrow's ``skip_rows`` skips, blank lines counted."""
    at = start
    for _ in range(count):
        if at >= end:
            break
        newline = buf.find(b"\n", at, end)
        at = end if newline < 0 else newline + 1
    return at


def header_lines(buf: Buffer, start: int, end: int, rows: int) -> int:
    """How many lines from ``start`` hold its first ``rows`` non-blank lines (the header
    rows), blank lines among them included: what ``skip_rows`` must be for Arrow,
    which counts a blank line as a row it skips.

    Blank as Arrow passes it over elsewhere: empty, or a lone carriage return.
    """
    at, lines = start, 0
    while rows > 0 and at < end:
        newline = buf.find(b"\n", at, end)
        stop = end if newline < 0 else newline + 1
        if buf[at:stop].rstrip(b"\n") not in (b"", b"\r"):
            rows -= 1
        lines += 1
        at = stop
    return lines


def _read_range(path: str, start: int, end: int, progress: ProgressCallback | None) -> bytes:
    """``[start, end)`` of the file, read (not mapped: its pages stay out of resident memory)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        data = os.pread(fd, end - start, start)
    finally:
        os.close(fd)
    if progress is not None:
        progress(len(data))
    return data


def _header_as_row(table: pa.Table) -> bool:
    """Whether a header line as wide as the rows was parsed as a row (its ID reads "ID")."""
    for name in ("ID", "Process ID"):
        if name not in table.column_names:
            continue
        seen: set[tuple[int, int]] = set()
        for chunk in table.column(name).chunks:
            values = chunk.dictionary if pa.types.is_dictionary(chunk.type) else chunk
            if pa.types.is_dictionary(chunk.type):
                # A compact table's chunks share one dictionary: looked at once.
                key = (values.buffers()[-1].address, len(values))
                if key in seen:
                    continue
                seen.add(key)
            # A pattern, not a scalar to compare with: pyarrow's scalars load
            # pandas, which a command that only counts never needs.
            if ac.any_true(ac.match_substring_regex(values, f"^{name}$")):
                return True
    return False


def _in_our_words(message: str, block: int) -> str:
    """What a parse failure Arrow reports means for the file, without Arrow's wording."""
    if "Could not skip" in message and "straddl" not in message and block >= _MAX_BLOCK:
        return f"the header rows of the ncu table are longer than {block >> 20:,} MiB"
    if "Could not skip" in message:
        return "the ncu table ends inside its header rows: the file is cut off after the header"
    if any(t in message for t in _TOO_LONG):
        return (
            f"a row of the ncu table is longer than {block >> 20:,} MiB: the file is damaged "
            "(a quote that never closes?) or not an ncu export"
        )
    found = re.search(r"Expected (\d+) columns, got (\d+)", message)
    if found:
        return (
            f"a row of the ncu table has {found.group(2)} field(s) where {found.group(1)} "
            "were expected: the file is damaged or not an ncu export"
        )
    return "the ncu table is not well-formed CSV: the file is damaged or not an ncu export"


def codes_of(column: pa.ChunkedArray) -> np.ndarray:
    """Indices (int32 numpy; -1 for a null) of a unified dictionary column.

    For callers that need no texts: a raw page's ID dictionary holds one
    text per launch, and turning it into Python strings costs more than
    reading the codes.
    """
    parts = [numbers(c.indices, missing=-1) for c in column.chunks]
    if not parts:
        return np.zeros(0, dtype=np.int32)
    out: np.ndarray = np.concatenate(parts) if len(parts) > 1 else parts[0]
    return out.astype(np.int32, copy=False)


def dictionary_size(column: pa.ChunkedArray) -> int:
    """How many values a unified dictionary column's dictionary holds."""
    return len(column.chunks[0].dictionary) if column.num_chunks else 0


def dict_codes(column: pa.ChunkedArray) -> tuple[Any, list[str]]:
    """Indices (int32 numpy) and dictionary values of a unified dictionary column."""
    chunks = column.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int32), []
    indices = codes_of(column)
    dictionary = chunks[0].dictionary
    values = dictionary.to_pylist()
    if pa.types.is_string(dictionary.type) and dictionary.null_count == 0:
        return indices, values
    return indices, [str(v) for v in values]


def distinct_codes(values: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_inverse=True)`` for values below ``bound``.

    When the bound is small against the rows, a table indexed by value
    replaces the sort (faster, and no int64 inverse per row).
    """
    if bound > 4 * values.size + 1024:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.reshape(-1)
    seen = np.zeros(bound, dtype=bool)
    seen[values] = True
    uniq = np.flatnonzero(seen)
    rank = np.zeros(bound, dtype=np.int32)
    rank[uniq] = np.arange(uniq.size, dtype=np.int32)
    return uniq, rank[values]


def give_back_memory() -> None:
    """Hand freed memory back to the system once an input is read.

    Arrow's pool and the C allocator keep what the parse and the pivot freed
    (a quarter of a large file's size) for reuse; the analysis and report
    that follow would otherwise run on top of it.
    """
    pa.default_memory_pool().release_unused()
    if sys.platform.startswith("linux"):
        import contextlib
        import ctypes

        # Not glibc (no malloc_trim): nothing to trim.
        with contextlib.suppress(OSError, AttributeError):
            # The process's own symbols, the C library's among them:
            # ctypes.util.find_library would run ldconfig to find its name.
            ctypes.CDLL(None).malloc_trim(0)
