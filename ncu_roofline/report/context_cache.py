"""The report cache: one report context kept on disk, read back instead of analysed.

Re-running ``report`` or ``summary`` on an unchanged export with the same
options (another output format, another ``--fail-on`` gate, the same report
again in CI) needs the same report context.  Even with the parse cache
(:mod:`ncu_roofline.readers.cache`) that context costs the analysis and the
import of pandas: about a second on 100,000 launches.  This cache keeps the
context itself: a hit reads it back with numpy and pyarrow only.

Layout of one cache file (``<hash>.ncucache``, beside the parse cache's, under
the same bound on the folder's size)::

    MAGIC (8 bytes) | header length (8 bytes, little-endian) | header (JSON)
    | the launch records as one Arrow IPC file, 8-byte aligned, its buffers
      LZ4-compressed where pyarrow has the codec
    | CRC-32 of all the above (4 bytes, little-endian) | TRAILER (4 bytes)

The header holds the key, the lines the analysis said on stderr (replayed on
a hit, so a cached run says what the first one said), the context but its
launches, and where the launches went among the context's keys.  The
launches are the table of :meth:`~ncu_roofline.report.records.LaunchRecords.arrow_table`,
read back as :class:`~ncu_roofline.report.table_records.TableRecords`.

Key: every file the context rests on (the inputs, ``--roofs``, ``--theory``,
``--model-config``, ``--nsys``), each by its name as given, resolved path,
size, modification and change times (ns) and inode; the options that change
the analysis; the tool's version, a stamp of its installed files (so an
edited checkout never reads a context made by other code), and the versions
of Python, numpy, pyarrow and pandas.  The file name is a hash of the names
and options only, so a changed input overwrites its own entry; the whole key
is stored inside and checked on read.

Nothing is kept that would not read back as it was: a context holding a value
JSON would change (a NaN, a tuple, a numpy number) or a launch field mixing
kinds of value is not cached.  Inputs smaller in all than the parse cache's
threshold, standard input, and files modified less than
:data:`~ncu_roofline.core.user_cache.RACY_NS` ago are not cached; an input
changed while it was analysed is not stored.  A damaged file is ignored with
a note on stderr, deleted, and the analysis made again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import stat
import sys
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypedDict, cast

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.ipc

from ncu_roofline.core.user_cache import (
    RACY_NS,
    SUFFIX,
    UNREADABLE,
    CorruptCache,
    FileStamp,
    SummedSink,
    cache_off,
    code_stamp,
    file_stamp,
    header_bytes,
    limit_bytes,
    min_bytes,
    note,
    now_ns,
    split_header,
    stored_key,
    trim,
    writable_dir,
    write_atomic,
    write_behind,
)
from ncu_roofline.report.table_records import TableRecords, same_value
from ncu_roofline.version import __version__

if TYPE_CHECKING:
    from ncu_roofline.report.schema import ReportContext

__all__ = ["FORMAT", "ReportEntry", "Said", "lookup"]

#: The cache file format; bump it whenever what is stored changes.
FORMAT = 1

MAGIC = b"NCURRC\x00\x01"
#: The file's last 8 bytes: the CRC-32 of all before them (4 bytes, little-endian), then this.
TRAILER = b"NCRC"

#: What the analysis said on stderr: ``[kind, line]`` pairs, kind ``warning`` or ``note``.
Said = list[list[str]]


class ReportKey(TypedDict):
    """What a cache file must carry to stand for a report: the tool, the files, the options."""

    format: int
    version: str
    code: str
    libraries: list[str]
    options: dict[str, Any]
    files: list[FileStamp]


class _Header(TypedDict):
    key: ReportKey
    said: Said
    context: dict[str, Any]
    #: The index of ``launches`` among the context's keys.
    launches_at: int
    #: The launch records' count and fields (checked against the Arrow file's).
    rows: int
    fields: list[str]


def _stamp(name: str, st: os.stat_result) -> FileStamp:
    return file_stamp(name, os.path.realpath(name), st)


def _stamps(names: Sequence[str]) -> list[FileStamp] | None:
    """Each file's stamp; None when one is not a regular file that can be looked at."""
    out = []
    for name in names:
        try:
            st = os.stat(name)
            if not stat.S_ISREG(st.st_mode):
                return None
            out.append(_stamp(name, st))
        except (OSError, ValueError):
            return None
    return out


@cache
def _libraries() -> list[str]:
    """The versions the analysis' numbers depend on, besides the tool's own."""
    return [sys.version, np.__version__, pa.__version__, _installed("pandas")]


def _installed(package: str) -> str:
    """Which version of ``package`` is installed, without importing it.

    The names of its ``.dist-info`` folders beside it (what
    :mod:`importlib.metadata` reads, at a tenth of its import time), else its
    ``__init__.py``'s path, size and time; ``-`` when it is not found.
    """
    try:
        spec = importlib.util.find_spec(package)
        origin = spec.origin if spec is not None else None
        if origin is None:
            return "-"
        site = os.path.dirname(os.path.dirname(origin))
        with os.scandir(site) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.startswith(f"{package}-") and e.name.endswith(".dist-info")
            )
        if names:
            return " ".join(names)
        st = os.stat(origin)
        return f"{origin} {st.st_size} {st.st_mtime_ns}"
    except (ImportError, OSError, ValueError):
        return "-"


@dataclass
class ReportEntry:
    """The cache file of one report, and the key its contents must carry."""

    file: Path
    key: ReportKey

    def load(self) -> tuple[ReportContext, Said] | None:
        """The cached context and what its analysis said; None on a miss or a damaged file."""
        try:
            with open(self.file, "rb") as fh:
                kept = stored_key(fh, MAGIC, orjson.loads)
                if kept is not UNREADABLE and kept != self.key:
                    return None  # another version of an input, an option or the tool: a miss
                fh.seek(0)
                data = fh.read()
        except FileNotFoundError:
            return None
        except (OSError, MemoryError):
            return None
        try:
            whole = _checked(data)
            header, start = _header(whole)
            if header.get("key") != self.key:
                return None  # another version of an input, an option or the tool: a miss
            got = _decode(header, start, whole)
        except MemoryError:
            return None
        except Exception as exc:  # CorruptCache, a wrong header field, pyarrow's errors
            note(
                f"ignoring the unreadable report cache file {self.file} "
                f"({type(exc).__name__}: {exc}); analysing again"
            )
            with contextlib.suppress(OSError):
                self.file.unlink()
            return None
        with contextlib.suppress(OSError):
            os.utime(self.file)  # least recently used goes first: a hit counts as a use
        return got

    def store(self, context: ReportContext, said: Said) -> bool:
        """Write the cache file (atomically); False when not written (never raises)."""
        write = self._writer(context, said)
        if write is None or not write_atomic(self.file, write):
            return False
        self._trim()
        return True

    def store_behind(self, context: ReportContext, said: Said) -> Callable[[], bool]:
        """:meth:`store`, the file written on a thread of its own while the caller goes on.

        What is written is made here, before this returns, so the context
        may change afterwards.  The function returned waits for the write
        and says whether the file was kept; it must be called before the
        process ends (the thread is no daemon: an exit waits for it anyway).
        """
        write = self._writer(context, said)
        if write is None:
            return lambda: False
        return write_behind(self.file, write, self._trim)

    def _trim(self) -> None:
        """The cache folder trimmed to its bound, once a file is written."""
        trim(self.file.parent, limit_bytes())

    def _writer(self, context: ReportContext, said: Said) -> Callable[[BinaryIO], None] | None:
        """What writes the cache file of ``context``; None when it is not to be kept."""
        now = _stamps([f["name"] for f in self.key["files"]])
        if now != self.key["files"]:
            return None  # a file changed while it was read: what was made may be neither
        if any(now_ns() - f["mtime_ns"] < RACY_NS for f in self.key["files"]):
            return None  # it may change again within the same time stamp
        try:
            made = _encode(self.key, context, said)
        except Exception:  # not storable as it is; pyarrow's errors, MemoryError
            return None
        if made is None:
            return None
        head, table = made

        def write(fh: BinaryIO) -> None:
            sink = SummedSink(fh)
            for piece in head:
                sink.write(piece)
            # Straight into the file: no second copy of the table in memory.
            with pyarrow.ipc.new_file(
                pa.PythonFile(sink, mode="w"), table.schema, options=_write_options()
            ) as writer:
                writer.write_table(table)
            fh.write(sink.crc.to_bytes(4, "little") + TRAILER)

        return write


def lookup(
    inputs: Sequence[str],
    files: Sequence[str],
    options: Mapping[str, Any],
    cache: bool = True,
) -> ReportEntry | None:
    """The cache entry of the report of ``inputs`` made with ``options``; None where not cached.

    ``files`` are the other files the report reads (roofs, theory, model
    config, timelines); ``options`` every option that changes the context,
    as JSON values.  None when the cache is off, an input is standard input
    or not a regular file, or the inputs are small.
    """
    if not cache or cache_off() or "-" in inputs:
        return None
    stamps = _stamps([*inputs, *files])
    if stamps is None or sum(s["size"] for s in stamps[: len(inputs)]) < min_bytes():
        return None
    folder = writable_dir()
    if folder is None:
        return None
    key: ReportKey = {
        "format": FORMAT,
        "version": __version__,
        "code": code_stamp(),
        "libraries": _libraries(),
        "options": {},
        "files": stamps,
    }
    try:
        # As JSON gives them back, so that the key read from a file compares equal.
        key["options"] = orjson.loads(orjson.dumps(dict(options)))
        name = orjson.dumps(["report", [[s["name"], s["path"]] for s in stamps], key["options"]])
    except TypeError:
        return None  # an option JSON cannot hold: not cached
    return ReportEntry(folder / (hashlib.sha256(name).hexdigest()[:40] + SUFFIX), key)


# -- encoding --------------------------------------------------------------------


def _encode(
    key: ReportKey, context: ReportContext, said: Said
) -> tuple[list[bytes], pa.Table] | None:
    """The cache file's head (magic, header, padding) and the launch table that follows it;
    None when the context would not read back as it is."""
    keys = list(context)
    launches = context["launches"]
    to_table = getattr(launches, "arrow_table", None)
    table = to_table() if callable(to_table) else None
    if table is None or len(set(table.column_names)) != table.num_columns:
        return None
    rest = {k: v for k, v in context.items() if k != "launches"}
    header: _Header = {
        "key": key,
        "said": said,
        "context": rest,
        "launches_at": keys.index("launches"),
        "rows": table.num_rows,
        "fields": table.column_names,
    }
    text = orjson.dumps(header)
    if not same_value(orjson.loads(text)["context"], rest):
        return None
    return header_bytes(MAGIC, text), table


@cache
def _write_options() -> pyarrow.ipc.IpcWriteOptions:
    """LZ4 where pyarrow has it: a launch table compresses several times over (columns of
    nulls, repeated codes), which costs less than the CRC and the write of the bytes it
    saves, and reading it back decompresses faster than checking the CRC of them.

    On the calling thread, as the reading (:data:`_READ_OPTIONS`): with threads,
    Arrow (de)compresses on its pool, whose threads start on first use, and
    under an address-space limit a thread that cannot start aborts the
    process instead of failing.  An IPC file names its codec: the reader
    needs no other option.
    """
    codec = "lz4" if pa.Codec.is_available("lz4_frame") else None
    return pyarrow.ipc.IpcWriteOptions(compression=codec, use_threads=False)


#: How a cache file's launch table is read: on the calling thread (see :func:`_write_options`).
_READ_OPTIONS = pyarrow.ipc.IpcReadOptions(use_threads=False)


def _checked(data: bytes) -> memoryview:
    """The file's bytes but its trailer, once their CRC-32 matches it: a flipped bit
    anywhere (header, launch table) is a damaged file, never a different report."""
    if len(data) < 24 or data[-4:] != TRAILER:
        raise CorruptCache("truncated")
    body = memoryview(data)[:-8]
    if zlib.crc32(body) != int.from_bytes(data[-8:-4], "little"):
        raise CorruptCache("checksum mismatch")
    return body


def _header(data: memoryview) -> tuple[_Header, int]:
    header, start = split_header(data, MAGIC, "report cache", orjson.loads)
    if start >= len(data):
        raise CorruptCache("truncated")
    return cast("_Header", header), start


def _decode(header: _Header, start: int, data: memoryview) -> tuple[ReportContext, Said]:
    # A damaged or truncated Arrow file fails here (its footer is checked).
    table = pyarrow.ipc.open_file(pa.py_buffer(data)[start:], options=_READ_OPTIONS).read_all()
    if table.num_rows != header["rows"] or table.column_names != header["fields"]:
        raise CorruptCache("the launch table does not match the header")
    rest = header["context"]
    if not isinstance(rest, dict):
        raise CorruptCache("bad context")
    items = list(rest.items())
    items.insert(int(header["launches_at"]), ("launches", TableRecords(table)))
    said = header["said"]
    if not all(
        isinstance(s, list) and len(s) == 2 and all(isinstance(t, str) for t in s) for s in said
    ):
        raise CorruptCache("bad lines")
    return cast("ReportContext", dict(items)), said
