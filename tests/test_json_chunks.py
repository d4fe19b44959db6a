"""The JSON report written in pieces: the same bytes as one whole-document encoding.

A report's launches are a :class:`LaunchRecords` (dicts made a block at a
time) and ``report --format json`` encodes them a chunk at a time into the
output; these tests hold the pieces to the bytes the whole context encodes
to with the launches as a plain list of :func:`records`, on real exports
and at chunk sizes that split them everywhere, and check that a write cut
short leaves nothing behind.
"""

from __future__ import annotations

import io
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.cli import cli
from ncu_roofline.core.columns import LAUNCH_FIELDS
from ncu_roofline.render import json_report, stream_document
from ncu_roofline.render.json_report import iter_json_report, render_json, render_json_bytes
from ncu_roofline.render.output import write_output
from ncu_roofline.report.context import _fields, build_context
from ncu_roofline.report.records import CodedColumn, LaunchRecords, records
from tests.helpers import SAMPLE, SAMPLES

#: Real exports that load without optional modules (``.ncu-rep`` needs one).
REAL = sorted(
    p.name
    for p in (SAMPLES.iterdir() if SAMPLES.is_dir() else ())
    if p.suffix in (".csv", ".txt", ".out")
)

#: 1 and 7 split the launches everywhere (7 leaves a short last chunk); 10**9 is one chunk.
CHUNKS = (1, 7, 10**9)

_CACHE: dict[Path, tuple[Any, dict[str, Any]]] = {}


def _report(path: Path) -> tuple[Any, dict[str, Any]]:
    """The analysis and report context of one export, built once per test run."""
    if path not in _CACHE:
        analysis = ncu_roofline.analyze(ncu_roofline.load([str(path)]))
        _CACHE[path] = (analysis, dict(build_context(analysis)))
    return _CACHE[path]


def _whole(analysis: Any, context: dict[str, Any]) -> bytes:
    """The report as it was encoded before pieces: launches as one list, one orjson call."""
    launches = records(analysis.launches, _fields(analysis.launches, LAUNCH_FIELDS))
    option = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
    return orjson.dumps({**context, "launches": launches}, option=option)


def _sample_path(name: str) -> Path:
    if name == SAMPLE.name:
        return SAMPLE
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    return SAMPLES / name


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("name", [SAMPLE.name, *REAL])
def test_pieces_join_to_the_whole_document(name: str, chunk: int) -> None:
    analysis, context = _report(_sample_path(name))
    assert isinstance(context["launches"], LaunchRecords)
    pieces = list(iter_json_report(context, chunk))
    expected = _whole(analysis, context)
    assert b"".join(pieces) == expected
    assert render_json_bytes(context) == expected
    assert render_json(context).encode("utf-8") == expected
    n = len(analysis.launches)
    # A head, one piece per chunk of launches, and the tail.
    assert len(pieces) == 2 + -(-n // chunk)
    assert len(json.loads(expected)["launches"]) == n


def test_pieces_of_synthetic_contexts() -> None:
    # Launches first, last, empty, or a plain list: the splice never shifts a byte.
    # The writers escape U+2028 (raw in orjson's output), as they escape bidi controls.
    option = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_APPEND_NEWLINE
    rows = [{"id": i, "x": i / 3, "k": 'a\u2028"b'} for i in range(5)]
    for context in (
        {"launches": rows},
        {"launches": rows, "b": 1},
        {"a": {"launches": []}, "launches": rows},
        {"a": 1, "launches": [], "b": [2.5e-7]},
        {"a": 1},
    ):
        for chunk in (1, 2, 100):
            got = b"".join(iter_json_report(context, chunk))
            whole = orjson.dumps(context, option=option)
            assert got == whole.replace("\u2028".encode(), b"\\u2028")


@pytest.mark.parametrize("chunk", CHUNKS)
def test_report_command_writes_the_same_bytes(
    chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis, context = _report(SAMPLE)
    monkeypatch.setattr(json_report, "CHUNK_LAUNCHES", chunk)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(SAMPLE), "--format", "json", "-o", str(out)])
    assert result.exit_code == 0, result.output
    expected = _whole(analysis, context)
    # The generator (its version) and options are the same in this process.
    assert out.read_bytes() == expected
    to_stdout = CliRunner().invoke(cli, ["report", str(SAMPLE), "--format", "json", "-o", "-"])
    assert to_stdout.exit_code == 0
    assert to_stdout.stdout_bytes == expected


def test_stdout_with_a_descriptor_gets_every_piece(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    analysis, context = _report(SAMPLE)
    target = tmp_path / "stdout"
    with target.open("w", encoding="utf-8") as fh:
        monkeypatch.setattr(sys, "stdout", fh)
        assert write_output(iter_json_report(context, 7), "-") is False
    assert target.read_bytes() == _whole(analysis, context)


def test_pieces_splitting_a_character_reach_a_captured_stdout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    captured = io.StringIO()
    monkeypatch.setattr(sys, "stdout", captured)
    write_output(iter([b'{"k":"\xc3', b'\xbc"}', "\n"]), None)
    assert captured.getvalue() == '{"k":"\u00fc"}\n'


def test_other_documents_come_whole() -> None:
    _, context = _report(SAMPLE)
    pieces = list(stream_document("report", "md", context))
    assert len(pieces) == 1 and isinstance(pieces[0], str) and "|" in pieces[0]
    with pytest.raises(ValueError, match="no 'pdf' renderer"):
        stream_document("report", "pdf", context)


def test_indented_json_reads_the_launches_as_a_list() -> None:
    analysis, context = _report(SAMPLE)
    whole = json.loads(_whole(analysis, context))
    for indent in (2, 4):
        text = render_json(context, indent=indent)
        assert json.loads(text) == whole
        assert text.startswith("{\n" + " " * indent + '"schema_version"')


# --- the lazy records ---------------------------------------------------------------


@pytest.fixture(scope="module")
def lazy() -> tuple[LaunchRecords, list[dict[str, Any]]]:
    analysis, _ = _report(SAMPLE)
    fields = _fields(analysis.launches, LAUNCH_FIELDS)
    return LaunchRecords(analysis.launches, fields), records(analysis.launches, fields)


def test_lazy_records_index_like_the_list(lazy: tuple[LaunchRecords, list[Any]]) -> None:
    seq, plain = lazy
    assert len(seq) == len(plain) == 44
    assert seq[0] == plain[0] and seq[0]["id"] == plain[0]["id"]
    assert seq[-1] == plain[-1] and seq[-44] == plain[0]
    assert seq[43] == plain[43] != plain[42]
    for bad in (44, -45):
        with pytest.raises(IndexError):
            seq[bad]
    for part in (slice(3, 10), slice(None, None, -3), slice(50, None), slice(-5, None, 2)):
        assert seq[part] == plain[part]
        assert isinstance(seq[part], list)
    assert list(seq) == plain
    assert list(reversed(seq)) == plain[::-1]
    assert seq.index(plain[5]) == 5 and plain[5] in seq
    assert seq.fields == tuple(plain[0])


def test_lazy_records_compare_as_the_list(lazy: tuple[LaunchRecords, list[Any]]) -> None:
    seq, plain = lazy
    assert seq == plain and plain == seq
    assert (seq != plain) is False
    changed = [dict(r) for r in plain]
    changed[30]["duration_s"] = -1.0
    assert seq != changed and changed != seq
    assert seq != plain[:-1] and seq != [] and seq != "x"
    assert seq == LaunchRecords(seq._frame, seq.fields)
    # Reads make fresh dicts: changing one changes nothing held.
    seq[0]["kernel"] = "changed"
    assert seq[0]["kernel"] == plain[0]["kernel"] != "changed"


def test_lazy_records_blocks_and_columns(lazy: tuple[LaunchRecords, list[Any]]) -> None:
    seq, plain = lazy
    blocks = list(seq.blocks(7))
    assert [len(b) for b in blocks] == [7, 7, 7, 7, 7, 7, 2]
    assert [r for b in blocks for r in b] == plain
    with pytest.raises(ValueError, match=">= 1"):
        next(seq.blocks(0))
    for field in ("duration_s", "kernel", "id", "dram_bytes_basis"):
        assert seq.column(field) == [r[field] for r in plain]
    with pytest.raises(KeyError):
        seq.column("no such field")


# --- a write cut short ----------------------------------------------------------------


def _failing_after(pieces: Iterator[bytes], n: int) -> Iterator[bytes]:
    for i, piece in enumerate(pieces):
        if i == n:
            raise RuntimeError("encoder failed mid-stream")
        yield piece


def test_interrupted_write_leaves_no_file(tmp_path: Path) -> None:
    _, context = _report(SAMPLE)
    out = tmp_path / "r.json"
    with pytest.raises(RuntimeError, match="mid-stream"):
        write_output(_failing_after(iter_json_report(context, 7), 3), str(out))
    assert list(tmp_path.iterdir()) == []
    out.write_bytes(b"old report\n")
    with pytest.raises(RuntimeError, match="mid-stream"):
        write_output(_failing_after(iter_json_report(context, 7), 3), str(out), force=True)
    assert out.read_bytes() == b"old report\n"
    assert list(tmp_path.iterdir()) == [out]


def test_report_command_failing_mid_stream_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_blocks = LaunchRecords.column_blocks

    def one_then_fail(self: LaunchRecords, size: int = 1) -> Iterator[Any]:
        gen = real_blocks(self, size)
        yield next(gen)
        raise MemoryError("out of memory at the second chunk")

    monkeypatch.setattr(LaunchRecords, "column_blocks", one_then_fail)
    monkeypatch.setattr(json_report, "CHUNK_LAUNCHES", 7)
    out = tmp_path / "r.json"
    result = CliRunner().invoke(cli, ["report", str(SAMPLE), "--format", "json", "-o", str(out)])
    assert result.exit_code != 0
    assert isinstance(result.exception, MemoryError)
    assert list(tmp_path.iterdir()) == []


_TEXTS = st.text(
    alphabet=st.sampled_from([*'ab,"\\:{}', "\u2026", "\u202e", "\x7f", "\x85", "\n", "é"]),
    max_size=6,
)
_SIMPLE_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), _TEXTS)


@settings(max_examples=200, deadline=None)
@given(
    rows=st.integers(0, 6),
    data=st.data(),
)
def test_columns_encode_as_the_records_do(rows: int, data: st.DataObject) -> None:
    """A block encoded column by column is the bytes of its list of dicts, brackets off."""
    fields = data.draw(st.lists(_TEXTS, max_size=4, unique=True))
    columns: list[tuple[str, Any]] = []
    for name in fields:
        kind = data.draw(
            st.sampled_from(
                ["float", "few", "int", "bool", "simple", "mixed", "coded", "shared", "same"]
            )
        )
        if kind == "float":
            values = data.draw(st.lists(st.floats(allow_nan=True), min_size=rows, max_size=rows))
            columns.append((name, np.array(values, dtype=np.float64)))
        elif kind == "few":
            # Few distinct floats: columns all one value (folded into the records'
            # constant text), or all but one; 0.0 and -0.0 equal but written apart.
            pool = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1.5, 1e-5])
            values = data.draw(st.lists(pool, min_size=rows, max_size=rows))
            columns.append((name, np.array(values, dtype=np.float64)))
        elif kind == "same":
            # One value (or code) in every row, of each kind a column can be.
            value = data.draw(st.one_of(_SIMPLE_VALUES, st.integers(-1, 2)))
            form = data.draw(st.sampled_from(["list", "coded", "int"]))
            if form == "coded":
                code = data.draw(st.integers(-1, 1))
                coded = CodedColumn(["x", "\u202e"], np.full(rows, code, dtype=np.intp))
                columns.append((name, coded))
            elif form == "int" and type(value) is int and abs(value) < 2**62:
                columns.append((name, np.full(rows, value, dtype=np.int64)))
            else:
                columns.append((name, [value] * rows))
        elif kind == "int":
            ints = data.draw(st.lists(st.integers(-(2**62), 2**62), min_size=rows, max_size=rows))
            columns.append((name, np.array(ints, dtype=np.int64)))
        elif kind == "bool":
            flags = data.draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
            columns.append((name, np.array(flags, dtype=bool)))
        elif kind == "coded":
            distinct = data.draw(st.lists(_TEXTS, min_size=1, max_size=4, unique=True))
            codes = data.draw(
                st.lists(st.integers(-1, len(distinct) - 1), min_size=rows, max_size=rows)
            )
            columns.append((name, CodedColumn(distinct, np.array(codes, dtype=np.intp))))
        elif kind == "simple":
            columns.append(
                (name, data.draw(st.lists(_SIMPLE_VALUES, min_size=rows, max_size=rows)))
            )
        elif kind == "shared":
            # Lists and dicts held as one object by many rows (a launch's rule results).
            nested = st.one_of(
                st.lists(st.dictionaries(_TEXTS, _SIMPLE_VALUES, max_size=2), max_size=2),
                st.dictionaries(_TEXTS, st.floats(allow_nan=False), max_size=2),
            )
            objects = data.draw(st.lists(nested, min_size=1, max_size=3))
            picks = data.draw(
                st.lists(st.integers(-1, len(objects) - 1), min_size=rows, max_size=rows)
            )
            columns.append((name, [None if p < 0 else objects[p] for p in picks]))
        else:
            other = st.one_of(_SIMPLE_VALUES, st.floats(), st.lists(_TEXTS, max_size=2))
            columns.append((name, data.draw(st.lists(other, min_size=rows, max_size=rows))))
    as_dicts = [
        {name: _record_value(_at(values, i)) for name, values in columns} for i in range(rows)
    ]
    encoded = json_report._encode_columns(rows, columns)
    assert encoded == json_report._encode(as_dicts)[1:-1]
    assert json.loads(b"[" + encoded + b"]") == json.loads(json_report._encode(as_dicts))


@pytest.mark.parametrize(
    "values",
    [
        [0.0, -0.0, 0.0],
        [-0.0, -0.0, -0.0],
        [math.nan, math.inf, -math.inf],
        [math.nan, math.nan, 1.0],
        [1e-5, 1e-5, 1e-5],
        [2.5, 2.5, math.inf],
    ],
)
def test_float_columns_one_value_or_not(values: list[float]) -> None:
    """A column folded as one value only when every value is written the same."""
    columns = [("a", np.array(values)), ("b", np.array([1.0, 2.0, 3.0]))]
    expected = [{"a": _record_value(v), "b": float(i + 1)} for i, v in enumerate(values)]
    assert json_report._encode_columns(3, columns) == json_report._encode(expected)[1:-1]


def _at(values: Any, i: int) -> Any:
    """Row ``i`` of a column as :meth:`LaunchRecords.column_blocks` gives it."""
    if isinstance(values, CodedColumn):
        code = int(values.codes[i])
        return None if code < 0 else values.distinct[code]
    return values[i]


def _record_value(value: Any) -> Any:
    """A column value as the records hold it (numpy scalars plain, non-finite floats None)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def test_lazy_records_column_blocks(lazy: tuple[LaunchRecords, list[Any]]) -> None:
    seq, plain = lazy
    got: list[dict[str, Any]] = []
    for rows, columns in seq.column_blocks(3):
        assert [name for name, _ in columns] == list(seq.fields)
        for i in range(rows):
            got.append({name: _record_value(_at(values, i)) for name, values in columns})
    assert got == plain
    with pytest.raises(ValueError, match="block size"):
        next(seq.column_blocks(0))


def test_nullable_number_columns_encode_as_their_records() -> None:
    """pandas' nullable ints and booleans (launch ids, streams, devices): none missing,
    all missing, some missing, and unsigned values past int64, as the records say."""
    import pandas as pd

    frame = pd.DataFrame(
        {
            "id": pd.array([0, 1, 2, 3], dtype="Int64"),
            "device": pd.array([None] * 4, dtype="Int64"),
            "grid": pd.array([117, None, 468, 5], dtype="Int64"),
            "flag": pd.array([True, False, True, True], dtype="boolean"),
            "big": pd.array([2**64 - 1, 0, 2**63, 1], dtype="UInt64"),
            "same": pd.array([7, 7, 7, 7], dtype="Int32"),
        }
    )
    fields = tuple(frame.columns)
    lazy = LaunchRecords(frame, fields)
    expected = records(frame, fields)
    for size in (1, 3, 4):
        encoded = b",".join(
            json_report._encode_columns(rows, columns) for rows, columns in lazy.column_blocks(size)
        )
        assert encoded == json_report._encode(expected)[1:-1]
    assert json.loads(b"[" + encoded + b"]")[1] == {
        "id": 1,
        "device": None,
        "grid": None,
        "flag": False,
        "big": 0,
        "same": 7,
    }


_FRAME_KINDS = ["float64", "float32", "int64", "bool", "texts", "mixed", "arrow", "Int64"]


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(0, 9), size=st.integers(1, 4), data=st.data())
def test_frame_blocks_encode_as_the_frame_records(
    rows: int, size: int, data: st.DataObject
) -> None:
    """Blocks cut from a frame's columns, of every kind a launch column can be, encode as
    the frame's records do."""
    import pandas as pd

    shared = ["gemm", "attn", "\u202e"]  # a few text objects, held by many rows
    columns: dict[str, Any] = {}
    for i, kind in enumerate(data.draw(st.lists(st.sampled_from(_FRAME_KINDS), max_size=5))):
        if kind in ("float64", "float32"):
            pool = st.sampled_from([0.0, -0.0, math.nan, math.inf, 1.5, 3e-7])
            values = data.draw(st.lists(pool, min_size=rows, max_size=rows))
            columns[f"c{i}"] = np.array(values, dtype=kind)
        elif kind in ("int64", "bool"):
            ints = data.draw(st.lists(st.integers(0, 3), min_size=rows, max_size=rows))
            columns[f"c{i}"] = np.array(ints, dtype=kind)
        elif kind == "Int64":
            maybe = st.one_of(st.none(), st.integers(-5, 5))
            columns[f"c{i}"] = pd.array(
                data.draw(st.lists(maybe, min_size=rows, max_size=rows)), dtype="Int64"
            )
        else:
            pool = st.one_of(st.sampled_from([*shared, None, math.nan]), st.just(["x"]))
            pool = pool if kind == "mixed" else st.sampled_from([*shared, None])
            items = np.empty(rows, dtype=object)
            for r, value in enumerate(data.draw(st.lists(pool, min_size=rows, max_size=rows))):
                items[r] = value
            columns[f"c{i}"] = (
                pd.array(items, dtype="string[pyarrow]") if kind == "arrow" else items
            )
    frame = pd.DataFrame(columns, index=pd.RangeIndex(rows))
    fields = (*frame.columns, "absent")
    lazy = LaunchRecords(frame, fields)
    encoded = b",".join(
        json_report._encode_columns(n, cols) for n, cols in lazy.column_blocks(size)
    )
    assert encoded == json_report._encode(records(frame, fields))[1:-1]
