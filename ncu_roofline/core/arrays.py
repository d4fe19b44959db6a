"""Arrow arrays read as numpy without pyarrow's bridge to pandas.

pyarrow's own conversions (``Array.to_numpy``, ``pa.array``, ``pa.scalar``,
a Python value handed to a compute function) import pandas the first time
one runs, where pandas is installed: the shim behind them loads it to learn
its version.  That import takes about as long as parsing a 300 MB export.
The readers' hot paths read the arrays' buffers here instead, so that a
command that only counts launches (``inspect``) never loads pandas; and the
arrays made from numpy values (the report cache's launch table among them)
are built here from the values' buffers, each what ``pa.array`` would give.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac

__all__ = [
    "bool_array",
    "dictionary_array",
    "false_where_null",
    "flags",
    "float_array",
    "indices",
    "integer_array",
    "null_text",
    "numbers",
    "string_array",
    "strings",
]

_DTYPES: dict[pa.DataType, type[np.generic]] = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint16(): np.uint16,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}


def _chunks(arr: pa.Array | pa.ChunkedArray) -> list[pa.Array]:
    return list(arr.chunks) if isinstance(arr, pa.ChunkedArray) else [arr]


def _bits(buf: pa.Buffer | None, offset: int, length: int) -> np.ndarray | None:
    """A bit-packed buffer (validity, booleans) as bools; None for an absent buffer."""
    if buf is None:
        return None
    raw = np.frombuffer(buf, dtype=np.uint8)
    out: np.ndarray = np.unpackbits(raw, bitorder="little")[offset : offset + length].astype(bool)
    return out


def numbers(
    arr: pa.Array | pa.ChunkedArray, missing: float = np.nan, pool: pa.MemoryPool | None = None
) -> np.ndarray:
    """An integer or float array's values; a null reads as ``missing`` (float64 out if NaN).

    A dictionary array gives its indices.  Other types are refused
    (``TypeError``): this is for the readers' own numeric columns.  The
    result is a new array of its own, which callers may change in place;
    with ``pool`` its memory is Arrow's, from that pool, where the buffers a
    table has let go of are used again (numpy's own allocator cannot reuse
    them: a table converted column by column would be held twice).
    """
    parts: list[np.ndarray] = []
    for chunk in _chunks(arr):
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.indices
        dtype = _DTYPES.get(chunk.type)
        if dtype is None:
            raise TypeError(f"not a numeric array: {chunk.type}")
        n, offset = len(chunk), chunk.offset
        validity, data = chunk.buffers()[:2]
        if data is None:
            values = np.zeros(n, dtype=dtype)
        else:
            values = np.frombuffer(data, dtype=dtype, count=offset + n)[offset:]
        valid = _bits(validity, offset, n) if chunk.null_count else None
        if valid is not None:
            values = np.where(valid, values, missing)
        elif np.isnan(missing) and values.dtype.kind != "f":
            values = values.astype(np.float64)
        parts.append(values)
    if not parts:
        return np.zeros(0, dtype=np.float64 if np.isnan(missing) else np.int64)
    if pool is not None:
        out_type = np.result_type(*parts)
        total = sum(len(part) for part in parts)
        buf = pa.allocate_buffer(total * out_type.itemsize, memory_pool=pool)
        pooled: np.ndarray = np.frombuffer(buf, dtype=out_type, count=total)
        np.concatenate(parts, out=pooled)
        return pooled
    out: np.ndarray = np.concatenate(parts) if len(parts) > 1 else parts[0].copy()
    return out


def flags(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """A boolean array as numpy bools; a null reads as False."""
    parts: list[np.ndarray] = []
    for chunk in _chunks(arr):
        if not pa.types.is_boolean(chunk.type):
            raise TypeError(f"not a boolean array: {chunk.type}")
        n, offset = len(chunk), chunk.offset
        validity, data = chunk.buffers()[:2]
        values = _bits(data, offset, n)
        out = np.zeros(n, dtype=bool) if values is None else values
        valid = _bits(validity, offset, n) if chunk.null_count else None
        parts.append(out & valid if valid is not None else out)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def indices(values: np.ndarray) -> pa.Array:
    """Row numbers as an Arrow int64 array (for ``take``), built from their buffer."""
    return integer_array(np.asarray(values, dtype=np.int64))


def _validity(missing: np.ndarray | None, n: int) -> tuple[pa.Buffer | None, int]:
    """The validity bitmap of ``n`` values null where ``missing`` (None when none is),
    and their null count."""
    if missing is None:
        return None, 0
    absent = np.asarray(missing, dtype=bool)
    if absent.shape != (n,):
        raise ValueError(f"a mask of {absent.shape} for {n} values")
    nulls = int(np.count_nonzero(absent))
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(~absent, bitorder="little")), nulls


def integer_array(values: np.ndarray, missing: np.ndarray | None = None) -> pa.Array:
    """A numpy integer array as the Arrow array of the same type, built from its buffer;
    null where ``missing`` is true (what ``pa.array(values, mask=missing)`` gives)."""
    data = np.ascontiguousarray(values)
    data = data.astype(data.dtype.newbyteorder("="), copy=False)
    kind = next((t for t, d in _DTYPES.items() if d == data.dtype.type), None)
    if kind is None or data.dtype.kind not in "iu" or data.ndim != 1:
        raise TypeError(f"not an integer array: {data.dtype}")
    validity, nulls = _validity(missing, data.size)
    return pa.Array.from_buffers(kind, data.size, [validity, pa.py_buffer(data)], null_count=nulls)


def float_array(values: np.ndarray, missing: np.ndarray | None = None) -> pa.Array:
    """Numbers as an Arrow float64 array, built from their buffer: null where ``missing``
    is true, a NaN elsewhere a NaN (``pa.array(values, type=pa.float64(), mask=missing)``).
    """
    data = np.ascontiguousarray(values, dtype=np.float64)
    if data.ndim != 1:
        raise TypeError(f"not a one-dimensional array: {data.shape}")
    validity, nulls = _validity(missing, data.size)
    kind = pa.float64()
    return pa.Array.from_buffers(kind, data.size, [validity, pa.py_buffer(data)], null_count=nulls)


def bool_array(values: np.ndarray, missing: np.ndarray | None = None) -> pa.Array:
    """Flags as an Arrow boolean array, packed from numpy bools: null where ``missing``
    is true (``pa.array(values, mask=missing)``)."""
    data = np.asarray(values)
    if data.dtype.kind != "b" or data.ndim != 1:
        raise TypeError(f"not a one-dimensional boolean array: {data.dtype}")
    validity, nulls = _validity(missing, data.size)
    bits = pa.py_buffer(np.packbits(data, bitorder="little"))
    return pa.Array.from_buffers(pa.bool_(), data.size, [validity, bits], null_count=nulls)


def strings(values: list[str]) -> pa.Array:
    """Texts as an Arrow string array, built from its buffers."""
    return _string_buffers([v.encode("utf-8") for v in values], None, 0)


def string_array(values: Sequence[str | None]) -> pa.Array:
    """Texts (a text subclass too), None where missing, as an Arrow string array built
    from its buffers: what ``pa.array(values, type=pa.string())`` gives.

    One Python step per value: for a column's distinct texts, or a column
    that holds an object per row anyway.  A text that is not UTF-8 (a lone
    surrogate) raises ``UnicodeEncodeError``, as ``pa.array`` does.
    """
    absent = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
    encoded = [b"" if v is None else v.encode("utf-8") for v in values]
    validity, nulls = _validity(absent, len(encoded))
    return _string_buffers(encoded, validity, nulls)


def _string_buffers(encoded: list[bytes], validity: pa.Buffer | None, nulls: int) -> pa.Array:
    """Encoded texts as an Arrow string array (large_string past 2 GiB of text)."""
    sizes = [len(e) for e in encoded]
    # 32-bit offsets hold up to 2 GiB of text; beyond that, large_string.
    large = sum(sizes) >= 2**31 - 1
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64 if large else np.int32)
    np.cumsum(sizes, out=offsets[1:])
    buffers = [validity, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    kind = pa.large_string() if large else pa.string()
    return pa.Array.from_buffers(kind, len(encoded), buffers, null_count=nulls)


def dictionary_array(codes: np.ndarray, distinct: Sequence[str]) -> pa.DictionaryArray:
    """Texts as a dictionary array: each row's code among ``distinct`` (-1: null) as int32
    indices, ``distinct`` its string dictionary.

    What ``pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32),
    mask=codes < 0), pa.array(distinct, type=pa.string()))`` gives; a code
    past the dictionary raises, as there.
    """
    at = np.asarray(codes)
    if at.dtype.kind not in "iu":
        raise TypeError(f"not integer codes: {at.dtype}")
    indices = integer_array(at.astype(np.int32, copy=False), at < 0)
    return pa.DictionaryArray.from_arrays(indices, string_array(distinct))


def null_text() -> pa.Scalar:
    """A null string scalar (for ``if_else``), made without ``pa.scalar``."""
    return pa.nulls(1, pa.string())[0]


def false_where_null(mask: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """``fill_null(mask, False)`` without a Python scalar: null and false are false."""
    return ac.and_kleene(mask, ac.is_valid(mask))
