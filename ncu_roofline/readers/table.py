"""Parse the located CSV table with pyarrow's multithreaded reader.

Rows whose field count differs from the expected one are handed to an
invalid-row handler instead of failing the read: rule rows (which carry more
fields than the trailing-comma metric rows of the same export), stray log
lines inside the table, and a truncated last row.
"""

from __future__ import annotations

import io
import mmap
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.locate import Buffer, ProgressCallback

_BLOCK_SIZE = 16 << 20


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


@dataclass
class SkipCounter:
    """Rows the handler skipped that are not rule rows: how many, and the first few."""

    rule_width: int | None
    other_rows: int = 0
    last_other: list[str] = field(default_factory=list)

    def __call__(self, row: Any) -> str:
        # Rule rows (as wide as the rule table) are expected and skipped
        # silently; anything else is counted for a warning.
        if self.rule_width is None or row.actual_columns != self.rule_width:
            self.other_rows += 1
            if len(self.last_other) < 3:
                self.last_other.append(str(row.text)[:120])
        return "skip"


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
) -> tuple[pa.Table, SkipCounter]:
    """Read ``buf[start:end]`` as CSV with the given column names.

    ``include`` lists the columns to convert (all as strings; those in
    ``dictionary`` dictionary-encoded, which keeps repeated kernel names cheap).
    """
    source: Any
    if path is not None and isinstance(buf, mmap.mmap):
        source = _RangeReader(path, start, end, progress)
    elif progress is not None:
        view = memoryview(buf)[start:end]
        source = io.BufferedReader(_ProgressReader(view, progress), buffer_size=_BLOCK_SIZE)
    else:
        source = pa.BufferReader(pa.py_buffer(memoryview(buf)[start:end]))
    counter = SkipCounter(rule_width=rule_width)
    types: dict[str, pa.DataType] = {
        c: (pa.dictionary(pa.int32(), pa.string()) if c in dictionary else pa.string())
        for c in include
    }
    read_opts = pacsv.ReadOptions(
        column_names=column_names,
        skip_rows=skip_rows,
        block_size=_BLOCK_SIZE,
        use_threads=True,
    )
    parse_opts = pacsv.ParseOptions(invalid_row_handler=counter, newlines_in_values=False)
    convert_opts = pacsv.ConvertOptions(
        include_columns=include,
        column_types=types,
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        table = pacsv.read_csv(
            source, read_options=read_opts, parse_options=parse_opts, convert_options=convert_opts
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputFormatError(f"the ncu table cannot be parsed: {exc}") from None
    finally:
        if isinstance(source, io.RawIOBase):
            source.close()
    # Arrow's pool keeps freed parse buffers; hand them back before pivoting.
    pa.default_memory_pool().release_unused()
    return table, counter


def dict_codes(column: pa.ChunkedArray) -> tuple[Any, list[str]]:
    """Indices (int32 numpy) and dictionary values of a unified dictionary column."""
    chunks = column.chunks
    if not chunks:
        return np.zeros(0, dtype=np.int32), []
    indices = np.concatenate(
        [c.indices.to_numpy(zero_copy_only=False).astype(np.int32, copy=False) for c in chunks]
    )
    dictionary = chunks[0].dictionary.to_pylist()
    return indices, [str(v) for v in dictionary]
