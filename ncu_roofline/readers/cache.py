"""The parse cache: one input's parsed columns kept on disk, read back instead of parsed.

Parsing a large export takes seconds; reading back its columns takes a small
fraction of that.  What is kept is what :func:`~ncu_roofline.readers._read_columns`
returns: the :class:`~ncu_roofline.core.launches.LaunchColumns` (before any
command-specific work, so every command benefits) and the input's
:class:`~ncu_roofline.core.model.SourceInfo`.

Layout of one cache file (``<hash>.ncucache``)::

    MAGIC (8 bytes) | header length (8 bytes, little-endian) | header (JSON)
    | one Arrow IPC file per leaf of the columns, then one of ncu's rule
      results, each 8-byte aligned

The header holds the key, the source info but its rules, the shape of the
columns (a single leaf, or the parts of :meth:`LaunchColumns.concat`, which
differ in length and so cannot share one Arrow table) and where each Arrow
file lies.  Text columns are Arrow dictionary arrays (their codes and
distinct values as they are); integer columns keep their values and their
missing mask apart, so the columns read back are the ones parsed, value for
value.  They are read back as writable numpy views of the file's bytes, read
once into memory: no copy, and no memory map left open.

Key: the input's name as given, its resolved path, size, modification time
(ns), inode and change time, the tool's version and :data:`FORMAT`.  The
file name is a hash of the name and path only (a changed input overwrites
its own entry); the whole key is stored inside and checked on read, and a
file whose key differs is never used.  Inputs smaller than :data:`MIN_BYTES`,
stdin, pipes, and files modified less than :data:`RACY_NS` before the read
are not cached.

Writes go to a unique temporary file in the cache folder, then
:func:`os.replace`: a reader sees a whole file or none.  A file that cannot
be read (corrupt, truncated, from another format) is ignored with a note on
stderr, deleted where possible, and the input parsed again.  The cache never
fails a command: a folder that cannot be made or written turns it off.
After each write the folder is trimmed to :func:`limit_bytes`, least
recently used first (a hit touches its file's modification time).

Only numpy and pyarrow are imported here: no pandas (its import alone costs
more than a cached read).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, TypedDict, cast

import numpy as np

from ncu_roofline.core.launches import Coded, LaunchColumns
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import RuleTable
from ncu_roofline.core.user_cache import (
    DEFAULT_LIMIT_MB,
    DIR_VARIABLE,
    LIMIT_VARIABLE,
    MIN_BYTES,
    MIN_VARIABLE,
    OFF_VARIABLE,
    RACY_NS,
    SUFFIX,
    UNREADABLE,
    CorruptCache,
    FileStamp,
    SummedSink,
    aligned,
    cache_dir,
    cache_off,
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
)
from ncu_roofline.version import __version__

__all__ = [
    "DEFAULT_LIMIT_MB",
    "DIR_VARIABLE",
    "FORMAT",
    "LIMIT_VARIABLE",
    "MIN_BYTES",
    "MIN_VARIABLE",
    "OFF_VARIABLE",
    "RACY_NS",
    "SUFFIX",
    "Entry",
    "cache_dir",
    "enabled",
    "limit_bytes",
    "lookup",
    "trim",
]

#: The cache file format; bump it whenever what is stored changes.
FORMAT = 1

MAGIC = b"NCURPC\x00\x01"


class Uncacheable(Exception):
    """Columns or info holding something the cache does not store (they are not cached)."""


def enabled(cache: bool = True) -> bool:
    """Whether to use the cache: asked for (``cache``) and not turned off by :data:`OFF_VARIABLE`."""
    return cache and not cache_off()


class CacheKey(FileStamp):
    """What a cache file must carry to stand for an input: the tool, the name and the file."""

    format: int
    version: str


class _Tree(TypedDict, total=False):
    """The shape of stored columns: a leaf (its Arrow file) or the parts of a concat."""

    n: int
    leaf: int
    renamed: bool
    parts: list[_Tree]


class _Header(TypedDict):
    """A cache file's JSON header."""

    key: CacheKey
    #: :class:`SourceInfo`'s fields but its rules (:func:`_info_data`).
    info: dict[str, Any]
    tree: _Tree
    #: The index in ``leaves`` of the rule table's Arrow file.
    rules: int
    #: ``[offset, size]`` of each Arrow file, from the header's aligned end.
    leaves: list[list[int]]
    length: int


def _key(name: str, resolved: str, st: os.stat_result) -> CacheKey:
    return {"format": FORMAT, "version": __version__, **file_stamp(name, resolved, st)}


@dataclass
class Entry:
    """The cache file of one input, and the key its contents must carry."""

    file: Path
    key: CacheKey
    source: str

    def load(self) -> tuple[LaunchColumns, SourceInfo] | None:
        """The cached columns and info; None on a miss (absent, stale or unreadable)."""
        try:
            with open(self.file, "rb") as fh:
                kept = stored_key(fh, MAGIC)
                if kept is not UNREADABLE and kept != self.key:
                    return None  # another version of the input, or of the tool: a miss
                fh.seek(0)
                # A bytearray: the columns are writable views of it, not copies.
                data = bytearray(os.fstat(fh.fileno()).st_size)
                got = fh.readinto(data)
            del data[got:]
        except FileNotFoundError:
            return None
        except MemoryError:
            return None
        except OSError as exc:
            note(f"cannot read the parse cache file {self.file} ({exc.strerror}); parsing again")
            return None
        try:
            header, start = _header(data)
            if header.get("key") != self.key:
                return None  # another version of the input, or of the tool: a miss
            read = _decode(header, start, data)
        except MemoryError:
            return None  # not the file's fault: parse instead, keep it
        except (CorruptCache, Uncacheable, ValueError, TypeError, KeyError, IndexError) as exc:
            _corrupt(self.file, str(exc))
            return None
        except Exception as exc:  # pyarrow's errors: ArrowInvalid, ArrowIOError ...
            _corrupt(self.file, f"{type(exc).__name__}: {exc}")
            return None
        # Least recently used goes first: a hit counts as a use.
        with contextlib.suppress(OSError):
            os.utime(self.file)
        return read

    def store(self, columns: LaunchColumns, info: SourceInfo) -> bool:
        """Write the cache file (atomically); False when not written (never raises)."""
        try:
            st = os.stat(self.source)
        except OSError:
            return False
        if _key(self.key["name"], self.key["path"], st) != self.key:
            return False  # changed while it was read: what was parsed may be neither
        if now_ns() - st.st_mtime_ns < RACY_NS:
            return False  # it may change again within the same time stamp
        try:
            data = _encode(self.key, columns, info)
        except Exception:  # Uncacheable, pyarrow's errors, MemoryError: not cached, never fatal
            return False

        def write(fh: BinaryIO) -> None:
            for chunk in data:
                if isinstance(chunk, _Leaf):
                    chunk.write_to(fh)
                else:
                    fh.write(chunk)

        if not write_atomic(self.file, write):
            return False
        trim(self.file.parent, limit_bytes())
        return True


def lookup(path: str, cache: bool = True) -> Entry | None:
    """The cache entry for input ``path``; None where it is not cached (off, stdin, small, odd)."""
    if not enabled(cache) or path == "-":
        return None
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or st.st_size < min_bytes():
            return None
        resolved = os.path.realpath(path)
    except (OSError, ValueError):
        return None
    folder = writable_dir()
    if folder is None:
        return None
    digest = hashlib.sha256(json.dumps([path, resolved]).encode("utf-8", "surrogatepass"))
    name = digest.hexdigest()[:40] + SUFFIX
    return Entry(folder / name, _key(path, resolved, st), path)


def _corrupt(file: Path, why: str) -> None:
    note(f"ignoring the unreadable parse cache file {file} ({why}); parsing the input again")
    with contextlib.suppress(OSError):
        file.unlink()


# -- encoding --------------------------------------------------------------------


def _header(data: bytearray) -> tuple[_Header, int]:
    """The header and where the Arrow files start; :class:`CorruptCache` when it is not a
    cache file (its fields are checked as they are read: a wrong one raises a ``KeyError``,
    ``TypeError`` or ``ValueError``, which :meth:`Entry.load` takes as a damaged file)."""
    header, start = split_header(data, MAGIC, "parse cache")
    length = header.get("length")
    if not isinstance(length, int) or start + length != len(data):
        raise CorruptCache("truncated" if isinstance(length, int) else "bad length")
    return cast("_Header", header), start


def _encode(key: CacheKey, columns: LaunchColumns, info: SourceInfo) -> list[Any]:
    """The cache file's bytes, in pieces; :class:`Uncacheable` when something cannot be kept."""
    leaves: list[Any] = []
    tree = _tree(columns, leaves)
    info_data = _info_data(info)
    # ncu's rule results may number hundreds of thousands: a table of their own, not JSON.
    leaves.append(_rules_bytes(info.rules))
    # The Arrow files lie after the header, at offsets from its (aligned) end.
    offsets, at = [], 0
    for blob in leaves:
        offsets.append([at, len(blob)])
        at = aligned(at + len(blob))
    header: _Header = {
        "key": key,
        "info": info_data,
        "tree": tree,
        "rules": len(leaves) - 1,
        "leaves": offsets,
        "length": at,
    }
    out: list[Any] = header_bytes(MAGIC, json.dumps(header, allow_nan=True).encode("utf-8"))
    pos = 0
    for (at, _), blob in zip(offsets, leaves, strict=True):
        out.append(b"\0" * (at - pos))
        out.append(blob)
        pos = at + len(blob)
    out.append(b"\0" * (header["length"] - pos))
    return out


class _Leaf:
    """One record batch to be written as an Arrow IPC file: its size known before it is
    written (a dry run that keeps no bytes), then written straight into the cache file, so
    that the file's bytes are never held in memory beside the columns they copy."""

    def __init__(self, batch: Any) -> None:
        import pyarrow as pa

        self.batch = batch
        counter = pa.MockOutputStream()
        self._write(counter)
        self.size = int(counter.size())

    def __len__(self) -> int:
        return self.size

    def _write(self, sink: Any) -> None:
        import pyarrow as pa

        with pa.ipc.new_file(sink, self.batch.schema) as writer:
            writer.write_batch(self.batch)

    def write_to(self, fh: Any) -> None:
        """Write the IPC file at ``fh``'s position (exactly :attr:`size` bytes)."""
        import pyarrow as pa

        start = fh.tell()
        sink = pa.PythonFile(SummedSink(fh), mode="w")
        self._write(sink)
        sink.flush()
        if fh.tell() - start != self.size:
            raise OSError("the Arrow file written differs in size from its dry run")


def _tree(columns: LaunchColumns, leaves: list[Any]) -> _Tree:
    """The shape of ``columns``: a leaf (its index in ``leaves``) or the parts of a concat."""
    if columns._parts is not None:
        return {
            "n": columns.n,
            "renamed": columns._renamed,
            "parts": [_tree(p, leaves) for p in columns._parts],
        }
    if columns._frame is not None:
        raise Uncacheable("the frame was built")
    leaves.append(_leaf_bytes(columns))
    return {"n": columns.n, "leaf": len(leaves) - 1}


def _leaf_bytes(columns: LaunchColumns) -> Any:
    """One leaf's columns as an Arrow IPC file (one record batch), in an Arrow buffer."""
    import pyarrow as pa

    names: list[str] = []
    arrays: list[Any] = []
    fields: list[Any] = []

    def add(name: str, array: Any, meta: dict[str, str] | None = None) -> None:
        if len(array) != columns.n:
            raise Uncacheable(f"column {name} has {len(array)} rows, not {columns.n}")
        names.append(name)
        arrays.append(array)
        fields.append(pa.field(name, array.type, metadata=meta))

    for name, text in columns._texts.items():
        add(f"t:{name}", _dictionary(text))
    for name, (values, missing) in columns._ints.items():
        add(f"i:{name}", _numbers(values))
        add(f"k:{name}", _numbers(missing))
    for name, values in columns._floats.items():
        add(f"f:{name}", _numbers(values))
    for name, values in columns.metrics.items():
        if values.dtype == object:
            add(f"m:{name}", _strings(values), {"kind": "object"})
        else:
            add(f"m:{name}", _numbers(values), {"kind": values.dtype.str})
    schema = pa.schema(fields)
    return _Leaf(pa.record_batch(arrays, schema=schema))


def _numbers(values: np.ndarray, valid: np.ndarray | None = None) -> Any:
    """A numeric array as an Arrow array over its own bytes (``valid``: False where null).

    Built from buffers: ``pyarrow.array`` on numpy input imports pandas.
    """
    import pyarrow as pa

    if values.ndim != 1 or values.dtype.kind not in "biuf":
        raise Uncacheable(f"an array of {values.dtype}")
    try:
        kind = pa.from_numpy_dtype(values.dtype)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, TypeError) as exc:
        raise Uncacheable(str(exc)) from None
    if values.dtype.kind == "b":
        data = pa.py_buffer(np.packbits(values, bitorder="little"))
    else:
        # No copy where the values are already little-endian and contiguous.
        data = pa.py_buffer(np.ascontiguousarray(values, dtype=values.dtype.newbyteorder("<")))
    bitmap, nulls = None, 0
    if valid is not None and not valid.all():
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
        nulls = int(valid.size - np.count_nonzero(valid))
    return pa.Array.from_buffers(kind, values.size, [bitmap, data], null_count=nulls)


def _strings(values: np.ndarray) -> Any:
    """An object array of texts and None (anything else is not cached)."""

    return _texts(values.tolist())


def _texts(items: list[Any]) -> Any:
    """Texts and None as an Arrow string array, built from its buffers (no pandas)."""
    import pyarrow as pa

    if not all(v is None or isinstance(v, str) for v in items):
        raise Uncacheable("a column of objects that are not all texts")
    try:
        encoded = [b"" if v is None else v.encode("utf-8") for v in items]
    except UnicodeEncodeError as exc:
        raise Uncacheable(str(exc)) from None
    offsets = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum([len(b) for b in encoded], out=offsets[1:])
    if offsets[-1] >= 2**31:
        raise Uncacheable("texts over 2 GB")
    valid = np.array([v is not None for v in items], dtype=np.bool_)
    bitmap, nulls = None, int(valid.size - np.count_nonzero(valid))
    if nulls:
        bitmap = pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = [bitmap, pa.py_buffer(offsets.astype("<i4")), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(items), buffers, null_count=nulls)


def _dictionary(text: Coded) -> Any:
    """A text column as an Arrow dictionary array: its codes (-1 null) into its values."""
    import pyarrow as pa

    if not all(v is None or isinstance(v, str) for v in text.values):
        raise Uncacheable("a text column with values that are not texts")
    codes = np.asarray(text.codes)
    if codes.dtype.kind not in "iu" or len(text.values) >= 2**31 - 1:
        raise Uncacheable("odd codes")
    if codes.size and (int(codes.max()) >= len(text.values) or int(codes.min()) < -1):
        raise Uncacheable("codes out of range")
    indices = _numbers(np.where(codes < 0, 0, codes).astype(np.int32), codes >= 0)
    return pa.DictionaryArray.from_arrays(indices, _texts(list(text.values)))


def _info_data(info: SourceInfo) -> dict[str, Any]:
    """The source info but its rules as JSON data (every field: a new one is kept as it is)."""
    data = _info_plain(info)
    try:
        text = json.dumps(data, allow_nan=True)
        back = _info(json.loads(text), RuleTable())
    except (TypeError, ValueError, CorruptCache) as exc:
        raise Uncacheable(f"source info: {exc}") from None
    # What JSON cannot hold (tuples, sets, non-text keys, objects) must not be changed silently.
    if json.dumps(_info_plain(back), allow_nan=True) != text or _shape(back) != _shape(info):
        raise Uncacheable("source info does not survive JSON")
    return data


def _info_plain(info: SourceInfo) -> dict[str, Any]:
    return {f.name: getattr(info, f.name) for f in dataclasses.fields(info) if f.name != "rules"}


def _shape(value: Any) -> Any:
    """The container types and the types of the leaves of ``value`` (what JSON may change)."""
    if isinstance(value, SourceInfo):
        return [_shape(v) for v in _info_plain(value).values()]
    if isinstance(value, dict):
        return ("dict", [(type(k).__name__, _shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple, set, frozenset)):
        return (type(value).__name__, [_shape(v) for v in value])
    return type(value).__name__


def _info(data: dict[str, Any], rules: RuleTable) -> SourceInfo:
    fields = {f.name for f in dataclasses.fields(SourceInfo)} - {"rules"}
    if set(data) != fields:
        raise CorruptCache("source info fields differ")
    return SourceInfo(**data, rules=rules)


#: The rule table's columns: integers, texts (or None) and the estimated speedups.
_RULE_INTS = ("process_id", "launch_id")
_RULE_TEXTS = ("name", "type", "section", "message", "speedup_type")


def _rules_bytes(rules: RuleTable) -> Any:
    """The rule table as an Arrow IPC file; texts dictionary-encoded (rules repeat per launch)."""
    import pyarrow as pa

    known = {f.name for f in dataclasses.fields(rules)}
    if known != {*_RULE_INTS, *_RULE_TEXTS, "speedup_pct"}:
        raise Uncacheable("rule table fields differ")
    arrays: dict[str, Any] = {}
    try:
        for name in _RULE_INTS:
            values = getattr(rules, name)
            if not all(type(v) is int for v in values):
                raise Uncacheable(f"rule {name} not all integers")
            arrays[name] = _numbers(np.array(values, dtype=np.int64))
        for name in _RULE_TEXTS:
            texts = getattr(rules, name)
            index: dict[Any, int] = {}
            codes = np.array([index.setdefault(v, len(index)) for v in texts], dtype=np.int64)
            distinct = list(index)
            if None in index:
                codes[codes == index[None]] = -1
            arrays[name] = _dictionary(Coded(codes, distinct))
        pct = rules.speedup_pct
        if not all(type(v) is float for v in pct):
            raise Uncacheable("rule speedups not all floats")
        arrays["speedup_pct"] = _numbers(np.array(pct, dtype=np.float64))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as exc:
        raise Uncacheable(f"rule table: {exc}") from None
    lengths = {len(a) for a in arrays.values()}
    if len(lengths) > 1:
        raise Uncacheable("rule table columns differ in length")
    return _Leaf(pa.record_batch(list(arrays.values()), names=list(arrays)))


def _rules(buf: Any, src: _Bytes) -> RuleTable:
    import pyarrow as pa

    reader = pa.ipc.open_file(buf)
    if reader.num_record_batches != 1:
        raise CorruptCache("rules: not one record batch")
    batch = reader.get_batch(0)
    out: dict[str, list[Any]] = {}
    for name in _RULE_INTS:
        out[name] = _owned(batch.column(name), np.int64, src).tolist()
    for name in _RULE_TEXTS:
        column = batch.column(name)
        table = np.empty(len(column.dictionary) + 1, dtype=object)
        table[:-1] = column.dictionary.to_pylist()
        table[-1] = None
        out[name] = table[_codes(column.indices, src)].tolist()
    out["speedup_pct"] = _owned(batch.column("speedup_pct"), np.float64, src).tolist()
    return RuleTable(**out)


def _decode(header: _Header, start: int, body: bytearray) -> tuple[LaunchColumns, SourceInfo]:
    import pyarrow as pa

    whole = pa.py_buffer(body)
    src = _Bytes(body, whole.address)
    # The Arrow files' offsets count from the end of the header.
    buf = whole.slice(start)
    leaves = header["leaves"]

    def build(node: _Tree) -> LaunchColumns:
        if "parts" in node:
            out = LaunchColumns.concat([build(p) for p in node["parts"]], renamed=node["renamed"])
            if out.n != node["n"]:
                raise CorruptCache("part sizes differ")
            return out
        at, size = leaves[node["leaf"]]
        if at < 0 or at + size > buf.size:
            raise CorruptCache("truncated")
        return _leaf(buf.slice(at, size), int(node["n"]), src)

    columns = build(header["tree"])
    at, size = leaves[header["rules"]]
    if at < 0 or at + size > buf.size:
        raise CorruptCache("truncated")
    return columns, _info(header["info"], _rules(buf.slice(at, size), src))


def _leaf(buf: Any, n: int, src: _Bytes) -> LaunchColumns:
    import pyarrow as pa

    reader = pa.ipc.open_file(buf)
    if reader.num_record_batches != 1:
        raise CorruptCache("not one record batch")
    batch = reader.get_batch(0)
    if batch.num_rows != n and batch.num_columns:
        raise CorruptCache("row count differs")
    texts: dict[str, Coded] = {}
    ints: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    floats: dict[str, np.ndarray] = {}
    metrics: dict[str, np.ndarray] = {}
    schema = batch.schema
    masks: dict[str, np.ndarray] = {}
    for i, field in enumerate(schema):
        kind, _, name = field.name.partition(":")
        column = batch.column(i)
        if kind == "t":
            texts[name] = Coded(_codes(column.indices, src), column.dictionary.to_pylist())
        elif kind == "i":
            ints[name] = (_owned(column, np.int64, src), np.zeros(0, dtype=bool))
        elif kind == "k":
            masks[name] = _owned(column, np.bool_, src)
        elif kind == "f":
            floats[name] = _owned(column, np.float64, src)
        elif kind == "m":
            meta = field.metadata or {}
            dtype = meta.get(b"kind", b"").decode()
            if dtype == "object":
                values = np.empty(len(column), dtype=object)
                values[:] = column.to_pylist()
                metrics[name] = values
            else:
                metrics[name] = _owned(column, np.dtype(dtype), src)
        else:
            raise CorruptCache(f"unknown column {field.name!r}")
    if set(masks) != set(ints):
        raise CorruptCache("integer columns without their masks")
    ints = {name: (values, masks[name]) for name, (values, _) in ints.items()}
    return LaunchColumns(n, texts, ints, floats, metrics)


def _codes(indices: Any, src: _Bytes) -> np.ndarray:
    """A dictionary array's indices as int64 codes, -1 where null."""
    return _owned(indices, np.int32, src, nulls=True)


@dataclass(frozen=True)
class _Bytes:
    """A cache file's bytes, and the address Arrow sees them at."""

    data: bytearray
    base: int

    def view(self, buffer: Any, dtype: np.dtype[Any], count: int, skip: int) -> np.ndarray:
        """``count`` values of ``dtype`` in Arrow ``buffer`` after ``skip``: a writable view."""
        start = buffer.address - self.base + skip * dtype.itemsize
        if start >= 0 and start + count * dtype.itemsize <= len(self.data):
            return np.frombuffer(self.data, dtype=dtype, count=count, offset=start)
        # Arrow copied the buffer (to align it): a copy of that, to be writable.
        out: np.ndarray = np.frombuffer(
            buffer, dtype=dtype, count=count, offset=skip * dtype.itemsize
        ).copy()
        return out


def _owned(column: Any, dtype: Any, src: _Bytes, nulls: bool = False) -> np.ndarray:
    """A column as a writable numpy array of ``dtype``: a view of the file's bytes where it can.

    Read from the buffers, not by ``to_numpy`` (which imports pandas).  With
    ``nulls`` (dictionary indices) a null reads -1; else a null is damage.
    """
    import pyarrow as pa

    dtype = np.dtype(dtype)
    if column.type != pa.from_numpy_dtype(dtype):
        raise CorruptCache(f"a column of {column.type}, not {dtype}")
    n, offset = len(column), column.offset
    bitmap, data = column.buffers()[:2]
    if dtype.kind == "b":
        bits = np.frombuffer(data, dtype=np.uint8)
        out: np.ndarray = np.unpackbits(bits, count=offset + n, bitorder="little")[offset:]
        out = out.astype(np.bool_)
    else:
        if data is None or data.size < (offset + n) * dtype.itemsize:
            raise CorruptCache("a column shorter than its length")
        out = src.view(data, dtype.newbyteorder("<"), n, offset)
        if out.dtype != dtype:  # a big-endian machine
            out = out.astype(dtype)
    if column.null_count:
        if not nulls or bitmap is None:
            raise CorruptCache("nulls in a numeric column")
        bits = np.frombuffer(bitmap, dtype=np.uint8)
        valid = np.unpackbits(bits, count=offset + n, bitorder="little")[offset:].astype(np.bool_)
        out = np.where(valid, out, -1)
    if nulls:
        out = out.astype(np.int64)
    return out
