"""The JSON report: the report context, serialised; and the one JSON encoder of every writer.

Encoding goes through orjson: on a 30,000-launch report (67 MB of JSON)
it takes 0.19 s where the standard library's encoder takes 1.9 s.  Its
floats are the shortest strings that read back to the same double, as
Python's ``repr`` (exponents are written ``1e-5`` rather than ``1e-05``);
NaN and infinity would be written as ``null``, but contexts hold ``None``
for every unknown value already.

A report's launches can be hundreds of thousands of records: a
:class:`~ncu_roofline.report.records.LaunchRecords` that makes their dicts
a block at a time.  :func:`iter_json_report` writes such a report in
pieces, the launches encoded :data:`CHUNK_LAUNCHES` at a time, so neither
all their dicts nor the whole document are ever held at once; the pieces
join to exactly the bytes of :func:`render_json_bytes`, which (like every
whole-document encoder here) reads any such sequence as a list.

Every writer here escapes the characters that act on a terminal or reorder
text (:mod:`~ncu_roofline.render.safe_text`): orjson escapes the C0
controls, and DEL, C1 and the bidirectional controls are written as
``\\uXXXX`` too, so the document carries the true text, losslessly, and
nothing in it can drive a terminal that shows it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from itertools import repeat
from typing import Any

import orjson

from ncu_roofline.render.safe_text import (
    json_escape_unsafe,
    json_escape_unsafe_bytes,
    json_has_unsafe_lead,
)

__all__ = ["CHUNK_LAUNCHES", "dumps", "iter_json_report", "render_json", "render_json_bytes"]

#: Launches encoded per piece by :func:`iter_json_report`: about 25 MB of dicts
#: and 11 MB of JSON.  On 100,000 launches 5,000 encoded faster than 20,000
#: or all at once (bench/bench_json_memory.py), the encoder's data staying small.
CHUNK_LAUNCHES = 5_000

_OPTION = orjson.OPT_SERIALIZE_NUMPY
_INFINITY = float("inf")


def _as_list(value: Any) -> list[Any]:
    """Encoders' fallback: a lazy sequence of records (a report's launches) as a list."""
    if isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray)):
        return list(value)
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def dumps(value: Any, *, sort_keys: bool = False, **_: Any) -> str:
    """Compact JSON text of plain data (numpy scalars and arrays allowed).

    Also the template environment's ``tojson`` encoder, which passes
    ``sort_keys``; other keyword arguments of :func:`json.dumps` are ignored.
    """
    option = _OPTION | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    return json_escape_unsafe(orjson.dumps(value, default=_as_list, option=option).decode("utf-8"))


def render_json_bytes(context: Mapping[str, Any]) -> bytes:
    """A report context as compact UTF-8 JSON ending in a newline, encoded once.

    The document is written as these bytes: no ``str`` copy is made of a
    report that can be a gigabyte.
    """
    return _encode(context, _OPTION | orjson.OPT_APPEND_NEWLINE)


def _encode(value: Any, option: int = _OPTION) -> bytes:
    """``value`` as UTF-8 JSON, the unsafe characters orjson leaves raw escaped."""
    return json_escape_unsafe_bytes(orjson.dumps(value, default=_as_list, option=option))


def iter_json_report(context: Mapping[str, Any], chunk: int | None = None) -> Iterator[bytes]:
    """A report context as :func:`render_json_bytes` writes it, in pieces.

    Everything but the ``launches`` is encoded as one object split around
    them; the launches follow ``chunk`` (default :data:`CHUNK_LAUNCHES`) at
    a time, each block encoded alone and its brackets dropped.  A context
    without a ``launches`` list comes whole.
    """
    launches = context.get("launches")
    if not isinstance(launches, Sequence) or isinstance(launches, (str, bytes, bytearray)):
        yield render_json_bytes(context)
        return
    size = CHUNK_LAUNCHES if chunk is None else chunk
    if size < 1:
        raise ValueError(f"chunk must be >= 1, not {size}")
    keys = list(context)
    at = keys.index("launches")
    head = _encode({k: context[k] for k in keys[:at]})
    tail = _encode({k: context[k] for k in keys[at + 1 :]})
    # head is b"{...}": keep it open; b"{}" (nothing before) needs no comma.
    yield head[:-1] + (b"," if len(head) > 2 else b"") + b'"launches":['
    sep = b""
    columns = getattr(launches, "column_blocks", None)
    if callable(columns):
        # A LaunchRecords (recognised by that method: importing its module
        # here would load pandas for every command that can write JSON).
        for rows, values in columns(size):
            if rows:
                yield sep + _encode_columns(rows, values)
                sep = b","
    else:
        for block in _blocks(launches, size):
            yield sep + _encode(block)[1:-1]
            sep = b","
    yield b"]" + (b"," + tail[1:] if len(tail) > 2 else b"}") + b"\n"


def _blocks(launches: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    """The launches in non-empty blocks of at most ``size``, in order."""
    # A LaunchRecords makes its blocks column-wise; it is recognised by that
    # method, since importing its module here would load pandas for every
    # command that merely can write JSON (--help included).
    blocks = getattr(launches, "blocks", None)
    if callable(blocks):
        yield from blocks(size)
        return
    for start in range(0, len(launches), size):
        yield launches[start : start + size]


def _encode_columns(rows: int, columns: Sequence[tuple[str, Any]]) -> bytes:
    """``rows`` records given column by column, encoded as :func:`_encode` encodes their
    list, without its brackets.

    Each column is encoded at once (a numeric one by orjson as one array, a
    text one once per distinct value, its unsafe characters escaped then),
    and every record is joined from its fields' pieces in one C-level step:
    no dict and no encoder call per record.  A field whose value is the same
    in every record of the block (a column of nothing but nulls, a basis
    shared by all) is folded into the constant text around it, so each
    record is joined from fewer pieces.
    """
    if not columns:
        return b",".join([b"{}"] * rows)
    pieces: list[Any] = []
    run = b"{"  # the text every record has here: keys, and values the same in all
    for i, (name, values) in enumerate(columns):
        run += (b"," if i else b"") + _encode(name) + b":"
        same = _same_value(values) if rows else None
        if same is not None:
            run += same
            continue
        encoded = _encoded_values(values)
        if encoded and _all_same(encoded):
            run += encoded[0]
            continue
        pieces.append(repeat(run))
        pieces.append(encoded)
        run = b""
    run += b"}"
    if len(pieces) == 0:
        return b",".join([run] * rows)
    pieces.append(repeat(run))
    # The repeats are endless: the value lists, all ``rows`` long, end the zip.
    return b",".join(map(b"".join, zip(*pieces, strict=False)))


def _same_value(values: Any) -> bytes | None:
    """The JSON of every value of a numeric or coded text column when all encode the same
    (found in one vectorised step, no value encoded per row); None otherwise, or for a list."""
    if hasattr(values, "dtype"):
        # Array methods only: numpy is not imported here (see _encoded_values).
        if values.dtype.kind == "f":
            finite = abs(values) < _INFINITY  # False for NaN and the infinities
            if not finite.any():
                return b"null"  # orjson writes every non-finite float as null
            # The same bits are the same double: 0.0 and -0.0 are equal, not the same.
            bits = values.view(f"i{values.dtype.itemsize}")
            if not (finite.all() and (bits == bits[0]).all()):
                return None
        elif not (values == values[0]).all():
            return None
        return _encoded_values(values[:1])[0]
    codes = getattr(values, "codes", None)
    if codes is None or not (codes == codes[0]).all():
        return None
    code = int(codes[0])
    if code < 0:
        return b"null"
    encoded = orjson.dumps(values.distinct[code])
    # As _encoded_values escapes it: escaping leaves a text without unsafe characters as it is.
    return json_escape_unsafe_bytes(encoded) if json_has_unsafe_lead(encoded) else encoded


def _all_same(encoded: list[bytes]) -> bool:
    """Whether every piece is the first one (two probes first: most columns differ)."""
    first = encoded[0]
    return (
        encoded[-1] == first
        and encoded[len(encoded) // 2] == first
        and encoded.count(first) == len(encoded)
    )


def _encoded_values(values: Any) -> list[bytes]:
    """Each value's JSON, as :func:`_encode` writes it inside a record."""
    if hasattr(values, "dtype"):
        # A numpy array (recognised, not imported: writers that never see
        # one, such as `gpus --format json`, load no numpy).  orjson writes
        # its NaN and infinities as null, and its numbers as Python's.
        if not len(values):
            return []
        data = values if values.flags.c_contiguous else values.copy()
        return orjson.dumps(data, option=_OPTION)[1:-1].split(b",")
    codes = getattr(values, "codes", None)
    if codes is not None:
        # A coded text column: its distinct values encoded once, then indexed.
        encoded = [orjson.dumps(v) for v in values.distinct]
        if json_has_unsafe_lead(b"".join(encoded)):
            encoded = [json_escape_unsafe_bytes(e) for e in encoded]
        # Index -1 (missing) reads the null at the end.
        table = [*encoded, b"null"]
        return list(map(table.__getitem__, codes.tolist()))
    kinds = set(map(type, values))
    if kinds <= _TEXT:
        return _encoded_texts(values, values)
    if kinds <= _SIMPLE:
        # Keyed by type too: 1 and True are equal keys but different JSON.
        return _encoded_texts(values, list(zip(map(type, values), values, strict=True)))
    # Lists and dicts (a launch's rule results, its projections) are one object
    # shared by the launches that have the same: each object encoded once.
    # ``values`` holds every object while this runs, so no id is reused.
    memo: dict[int, bytes] = {}
    return [
        memo[key] if (key := id(v)) in memo else memo.setdefault(key, _encode(v)) for v in values
    ]


def _encoded_texts(values: list[Any], keys: list[Any]) -> list[bytes]:
    """Hashable values encoded once per distinct key; escaped only where a lead byte says so."""
    distinct = dict(zip(keys, values, strict=True))  # equal keys: equal values
    encoded = [orjson.dumps(v) for v in distinct.values()]
    if json_has_unsafe_lead(b"".join(encoded)):
        encoded = [json_escape_unsafe_bytes(e) for e in encoded]
    known = dict(zip(distinct, encoded, strict=True))
    return list(map(known.__getitem__, keys))


#: Value types encoded once per distinct value (hashable, and equal only when
#: their JSON is: floats are left out, 0.0 and -0.0 being equal).
_SIMPLE = frozenset({str, int, bool, type(None)})
_TEXT = frozenset({str, type(None)})


def render_json(context: Mapping[str, Any], indent: int | None = None) -> str:
    """Serialise a report context: compact by default, indented by ``indent`` spaces."""
    if indent is None:
        return dumps(context) + "\n"
    if indent == 2:
        option = _OPTION | orjson.OPT_INDENT_2
        return _encode(context, option).decode("utf-8") + "\n"
    text = json.dumps(context, indent=indent, allow_nan=False, ensure_ascii=False, default=_as_list)
    return json_escape_unsafe(text) + "\n"
