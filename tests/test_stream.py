"""A large table read batch by batch gives what the whole-table read gives.

Tables above :data:`~ncu_roofline.readers.table.STREAM_BYTES` are read in
batches (:mod:`~ncu_roofline.readers.stream`).  Here the threshold is set to
zero and the batches to a few hundred bytes, so that launches, rule rows and
noise lines straddle batch boundaries at many points of real exports; the
launch frame, its warnings and the rest of the source record must match the
whole-table read exactly.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.readers import read_source
from ncu_roofline.readers import stream as stream_mod
from ncu_roofline.readers import table as table_mod
from tests.helpers import SAMPLES

pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the real ncu exports are not there: {SAMPLES}"
)

#: The CSV exports with a one-row-per-metric table (details pages and summaries).
LONG_SAMPLES = (
    "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv",
    "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv",
    "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv",
    "Lakoc__Nbody_CUDA__profile_1.out",
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention_actual"
    "_parameter_analysis_data_5-9_bert_torch_nsight.csv",
    "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv",
    "wangzy0327__cuda-roofline__src_output.csv",
    "wangzy0327__cuda-roofline__src_output_A100.csv",
)
TEMPLATE = LONG_SAMPLES[0]


def _read(path: Path, batch: int | None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, int]:
    """The source read whole (``batch`` None) or in batches of ``batch`` bytes; and the
    number of batches read."""
    batches = [0]
    real = stream_mod.compact_table

    def counting(reader: Any, schema: Any) -> Any:
        table = real(reader, schema)
        batches[0] = table.column(0).num_chunks
        return table

    with monkeypatch.context() as m:
        m.setattr(table_mod, "compact_table", counting)
        if batch is None:
            m.setattr(table_mod, "STREAM_BYTES", 1 << 62)
        else:
            m.setattr(table_mod, "STREAM_BYTES", 0)
            m.setattr(table_mod, "BATCH_BYTES", batch)
        m.delenv("NCU_ROOFLINE_STREAM_BYTES", raising=False)
        frame, info = read_source(str(path), progress=False)
    return frame, info, batches[0]


def _assert_same(whole: tuple[Any, Any, int], batched: tuple[Any, Any, int]) -> None:
    frame_a, info_a, _ = whole
    frame_b, info_b, _ = batched
    pd.testing.assert_frame_equal(frame_a, frame_b, check_exact=True)
    assert info_b.warnings == info_a.warnings
    assert info_b.metric_units == info_a.metric_units
    for attr in ("layout", "units", "ncu_version", "launches", "kernels", "devices", "aggregated"):
        assert getattr(info_b, attr) == getattr(info_a, attr), attr
    # ncu's rule results: the same rows, in the same order (NaN estimates as None).
    assert _rules(info_b) == _rules(info_a)


def _rules(info: Any) -> list[tuple[Any, ...]]:
    r = info.rules
    pct = [None if p != p else p for p in r.speedup_pct]
    return list(zip(r.process_id, r.launch_id, r.name, r.type, r.message, pct, strict=True))


@pytest.mark.parametrize("name", LONG_SAMPLES)
def test_batches_match_whole_read_on_real_exports(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = SAMPLES / name
    whole = _read(path, None, monkeypatch)
    assert whole[2] == 0  # the whole-table reader ran
    batched = _read(path, 1024, monkeypatch)
    # Many batches: a kilobyte is three or four rows of these exports (a
    # longer row makes the reader retry with eight times the block).
    assert batched[2] >= max(2, path.stat().st_size // (8 * 2048))
    _assert_same(whole, batched)


@settings(max_examples=20, deadline=None)
@given(batch=st.integers(min_value=600, max_value=200_000))
def test_any_batch_size_gives_the_same_launches(batch: int) -> None:
    path = SAMPLES / LONG_SAMPLES[4]
    with pytest.MonkeyPatch.context() as monkeypatch:
        whole = _read(path, None, monkeypatch)
        batched = _read(path, batch, monkeypatch)
    assert batched[2] >= 1
    assert len(batched[0]) == 26
    _assert_same(whole, batched)


def _ragged_export(tmp_path: Path, launches: int, blank_after: Collection[int] = ()) -> Path:
    """The template's launch (ragged metric rows, 20-field rule rows) ``launches`` times,
    IDs renumbered, with a stray program line in the middle of the table (and two blank
    lines, one LF and one CRLF, after each launch of ``blank_after``)."""
    lines = (SAMPLES / TEMPLATE).read_bytes().splitlines(keepends=True)
    header, body = lines[0], lines[1:]
    assert sum(1 for ln in body if ln.count(b'","') == 19) == 4  # the rule rows
    out = [b"==PROF== Connected to process 1742833\n", header]
    for i in range(launches):
        out += [b'"%d"' % i + ln[len(b'"0"') :] for ln in body]
        if i == launches // 2:
            out.append(b"step 17: loss 0.25\n")
        if i in blank_after:
            out.append(b"\n\r\n")
    path = tmp_path / "ragged.csv"
    path.write_bytes(b"".join(out))
    return path


@pytest.mark.parametrize("batch", [700, 1500, 4096])
def test_rule_rows_across_batch_boundaries(
    tmp_path: Path, batch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _ragged_export(tmp_path, 40)
    whole = _read(path, None, monkeypatch)
    batched = _read(path, batch, monkeypatch)
    assert batched[2] >= max(2, path.stat().st_size // (16 * batch))
    _assert_same(whole, batched)
    frame, info, _ = batched
    assert frame["id"].tolist() == list(range(40))
    # The stray line is the one row skipped that is not a rule row: after the
    # ==PROF== line, the header and launches 0-20 (48 lines each), line 1,011.
    skipped = [w for w in info.warnings if w.startswith("skipped")]
    assert skipped == [
        "skipped 1 line(s) inside the table that are not table rows (line 1,011), "
        "e.g. 'step 17: loss 0.25'"
    ]
    # The template's four rule rows, in every launch, none lost at a batch boundary.
    assert len(info.rules) == 160
    assert sorted(set(info.rules.launch_id)) == list(range(40))
    assert info.rules.name[:4] == [
        "SOLBottleneck",
        "SOLFPRoofline",
        "IssueSlotUtilization",
        "TheoreticalOccupancy",
    ]
    # 17.50 Mbyte on line 2 of the template, in every launch.
    assert frame["dram__bytes_read.sum"].tolist() == [17.5e6] * 40


def test_threshold_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NCU_ROOFLINE_STREAM_BYTES", raising=False)
    assert table_mod.stream_threshold() == table_mod.STREAM_BYTES
    monkeypatch.setenv("NCU_ROOFLINE_STREAM_BYTES", "12345")
    assert table_mod.stream_threshold() == 12345
    monkeypatch.setenv("NCU_ROOFLINE_STREAM_BYTES", "not a number")
    assert table_mod.stream_threshold() == table_mod.STREAM_BYTES


@settings(max_examples=150, deadline=None)
@given(
    stretches=st.lists(
        st.lists(
            st.lists(st.sampled_from(["a", "b", "c", "d", "é", ""]), min_size=1, max_size=8),
            min_size=1,
            max_size=3,
        ),
        min_size=1,
        max_size=4,
    ),
    # Past this many values a column keeps each piece's own dictionary (unified
    # at the end): from the first batch on, after a few values, or never.
    limit=st.sampled_from([0, 2, 3, stream_mod.ARROW_VALUES]),
)
def test_stretches_joined_as_one_dictionary(stretches: list[list[list[str]]], limit: int) -> None:
    """Stretches of batches, each value order a stretch may see (the same order as the
    first, so that nothing is re-coded, or a new one), join to the values of one read,
    with one dictionary in order of first appearance."""

    kept, stream_mod.ARROW_VALUES = stream_mod.ARROW_VALUES, limit
    try:
        _join_stretches(stretches)
    finally:
        stream_mod.ARROW_VALUES = kept


def _join_stretches(stretches: list[list[list[str]]]) -> None:
    import pyarrow as pa

    kind = pa.dictionary(pa.int32(), pa.string())
    schema = pa.schema([("v", kind), ("n", pa.int64())])

    def batch(values: list[str]) -> pa.RecordBatch:
        column = pa.array(values, type=pa.string()).dictionary_encode()
        return pa.record_batch([column.cast(kind), pa.array(range(len(values)))], schema=schema)

    parts = [stream_mod.compact_parts(map(batch, stretch), schema) for stretch in stretches]
    first = parts[0]
    for later in parts[1:]:
        first.absorb(later)
    table = first.table()
    every = [v for stretch in stretches for values in stretch for v in values]
    assert table.column("v").to_pylist() == every
    assert table.column("v").chunk(0).dictionary.to_pylist() == list(dict.fromkeys(every))
    assert table.column("n").to_pylist() == [
        n for stretch in stretches for values in stretch for n in range(len(values))
    ]
