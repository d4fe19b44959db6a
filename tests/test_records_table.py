"""The report's records read from a pandas-free table are the records of the frame.

The analysis is moving its launch and kernel-group frames to
:class:`~ncu_roofline.core.table.Table`.  A table holds the launch model's
nullable integers as float64 with NaN and its texts as objects with None;
the records, every way :class:`LaunchRecords` is read, the summary and the
JSON report made from it must still be exactly those of the frame: the same
values of the same Python types, the same bytes.  Every real export beside
the checkout and the shipped sample are checked, with and without a GPU,
and the sample with theory, a timeline and a projection; a synthetic
profile has launches whose integer identity values are missing.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.budget import attach_timeline
from ncu_roofline.analysis.projection import project_analysis
from ncu_roofline.core.columns import KERNEL_FIELDS, LAUNCH_FIELDS, LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.hardware import resolve_gpu
from ncu_roofline.core.table import Table
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.nsys import load_timeline
from ncu_roofline.render.json_report import iter_json_report, render_json_bytes
from ncu_roofline.report.context import build_context, launch_count, summary_context
from ncu_roofline.report.records import LaunchRecords, records
from ncu_roofline.report.table_records import CodedColumn, TableRecords
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import find_model
from tests.helpers import SAMPLE, SAMPLES, analyse_rows, fp32

#: The real exports beside the checkout (an nvprof export among them, which is refused).
_REAL = (
    sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix != ".md")
    if SAMPLES.is_dir()
    else []
)
_GPUS = (None, "h100_sxm5")
_SHIPPED = SAMPLE.parent
_NSYS = [
    _SHIPPED / "simulated_llama3_8b_decode_h100.nsys_cuda_gpu_trace.csv",
    _SHIPPED / "simulated_llama3_8b_decode_h100.nsys_nvtx_gpu_proj_trace.csv",
]


@functools.cache
def _analysis(name: str, gpu: str | None) -> Analysis:
    """The analysis of an export (a path, or a case named below), as the report makes it."""
    if name == "synthetic":
        # Integer identity values missing on some launches (and an id that is
        # none on one), which a table holds as NaN and a frame as pandas' NA.
        rows = [fp32(1e9 * (i + 1)) | {"gpu__time_duration.sum": 1e-3 * (i + 1)} for i in range(4)]
        return analyse_rows(
            rows,
            id=[0, None, 2, 3],
            device=[0, None, 1, None],
            stream=[None, 7, None, 7],
            process_id=[11, 11, None, 12],
            grid_blocks=[None, 4, 8, 8],
            invocations=[1, None, 3, 1],
        )
    if name == "sample+theory+timeline+projection":
        theory = TheoryConfig(model=find_model("llama-3-8b"))
        analysis = analyze(load([str(SAMPLE)]), gpu=gpu, theory=theory)
        analysis = attach_timeline(analysis, load_timeline([str(p) for p in _NSYS]))
        return project_analysis(analysis, [resolve_gpu("a100_40gb_pcie")])
    try:
        return analyze(load([name]), gpu=gpu)
    except InputFormatError as e:
        pytest.skip(f"not an ncu export: {e}")


def _as_tables(analysis: Analysis) -> Analysis:
    """The analysis with its launches and groups as tables of its frames (the frames
    themselves forgotten), as the report reads an analysis that never built them."""
    return dataclasses.replace(
        analysis,
        launch_table=_table(analysis.launches),
        kernel_table=_table(analysis.kernels),
        frames={},
    )


#: The launch model's integer columns: a table holds them as float64 with NaN.
_MODEL_INTS = frozenset(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "int")


def _table(frame: pd.DataFrame) -> Table:
    """:meth:`Table.from_frame`, but for nullable integers the launch model lacks.

    The timeline's groups hold some (``rank``, ``nsys_instances``, missing
    where nsys did not see a group) as ``Int64``, which ``from_frame`` makes
    float64: nothing then says they were integers.  A table of the analysis
    holds them as int64, or as objects (ints and None) where one is missing.
    """
    table = Table.from_frame(frame)
    kept: dict[str, npt.NDArray[Any]] = {}
    for name in frame.columns:
        dtype = frame[name].dtype
        if name in _MODEL_INTS or isinstance(dtype, np.dtype):
            continue
        if pd.api.types.is_integer_dtype(dtype):
            series = frame[name]
            kept[name] = (
                series.to_numpy(dtype=object, na_value=None)
                if series.isna().any()
                else series.to_numpy(dtype=np.int64)
            )
    return table.with_columns(kept)


_CASES = (
    [pytest.param(str(p), gpu, id=f"{p.name}-{gpu or 'export'}") for p in _REAL for gpu in _GPUS]
    + [pytest.param(str(SAMPLE), gpu, id=f"shipped-{gpu or 'export'}") for gpu in _GPUS]
    + [
        pytest.param(
            "sample+theory+timeline+projection", None, id="shipped+theory+nsys+projection"
        ),
        pytest.param("synthetic", None, id="synthetic-missing-ints"),
    ]
)


def _same(a: Any, b: Any) -> None:
    """``a`` and ``b`` are the same plain data: same types (1, 1.0 and True differ), values."""
    assert type(a) is type(b), (a, b)
    if isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            try:
                _same(a[key], b[key])
            except AssertionError as e:
                raise AssertionError(f"{key}: {e}") from None
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), (a, b)
    elif isinstance(a, CodedColumn):
        _same(a.distinct, b.distinct)
        _same(a.codes, b.codes)
    else:
        assert a == b or (a != a and b != b), (a, b)


def _launch_fields(analysis: Analysis) -> tuple[str, ...]:
    context = build_context(analysis)
    fields: tuple[str, ...] = context["launches"].fields  # type: ignore[attr-defined]
    return fields


@pytest.mark.parametrize(("name", "gpu"), _CASES)
def test_records_of_a_table_are_those_of_its_frame(name: str, gpu: str | None) -> None:
    analysis = _analysis(name, gpu)
    tables = _as_tables(analysis)
    for frame, table, fields in (
        (analysis.kernels, tables.kernels, KERNEL_FIELDS),
        (analysis.launches, tables.launches, LAUNCH_FIELDS),
        (analysis.launches, tables.launches, _launch_fields(analysis)),
    ):
        made = records(frame, fields)
        _same(made, records(table, fields))
        # An absent field reads as None either way.
        _same(records(frame, ("no such field",)), records(table, ("no such field",)))
    assert launch_count(analysis.launches) == launch_count(tables.launches)


@pytest.mark.parametrize(("name", "gpu"), _CASES)
def test_every_read_of_launch_records_agrees(name: str, gpu: str | None) -> None:
    analysis = _analysis(name, gpu)
    fields = _launch_fields(analysis)
    of_frame = LaunchRecords(analysis.launches, fields)
    of_table = LaunchRecords(_as_tables(analysis).launches, fields)
    n = len(of_frame)
    assert len(of_table) == n
    everything = records(analysis.launches, fields)
    _same(list(of_frame), everything)
    _same(list(of_table), everything)
    for at in {0, 1, n // 2, n - 1, -1, -n}:
        if -n <= at < n:
            _same(of_table[at], of_frame[at])
    for index in (-1, n, -n - 1):
        if not -n <= index < n:
            with pytest.raises(IndexError):
                of_table[index]
    for part in (slice(None), slice(1, 3), slice(-3, None), slice(None, None, 2), slice(3, 1)):
        _same(of_table[part], of_frame[part])
    for size in (1, 3, 5000):
        _same(list(of_table.blocks(size)), list(of_frame.blocks(size)))
        _same(list(of_table.column_blocks(size)), list(of_frame.column_blocks(size)))
    for field in fields:
        _same(of_table.column(field), of_frame.column(field))
        _same(of_table.coded(field), of_frame.coded(field))
    assert of_table == of_frame
    # The record cache's table reads back as the same records from either.
    table_arrow, frame_arrow = of_table.arrow_table(), of_frame.arrow_table()
    assert (table_arrow is None) == (frame_arrow is None)
    if table_arrow is not None and frame_arrow is not None:
        _same(list(TableRecords(table_arrow)), everything)
        _same(list(TableRecords(frame_arrow)), everything)


@pytest.mark.parametrize(("name", "gpu"), _CASES)
def test_the_report_of_tables_is_the_report_of_frames(name: str, gpu: str | None) -> None:
    analysis = _analysis(name, gpu)
    tables = _as_tables(analysis)
    _same(summary_context(tables), summary_context(analysis))
    of_frames, of_tables = build_context(analysis), build_context(tables)
    assert of_tables.keys() == of_frames.keys()
    for key in of_frames:
        if key != "launches":
            _same(of_tables[key], of_frames[key])  # type: ignore[literal-required]
    written = b"".join(iter_json_report(of_frames))
    assert b"".join(iter_json_report(of_tables)) == written
    assert render_json_bytes(of_tables) == written


def test_missing_integer_identity_values_are_none_not_floats() -> None:
    """A table's NaN in a launch-model integer column is None; its numbers are ints."""
    analysis = _analysis("synthetic", None)
    fields = ("id", "device", "stream", "grid_blocks", "invocations")
    got = records(_as_tables(analysis).launches, fields)
    assert [r["device"] for r in got] == [0, None, 1, None]
    assert [r["stream"] for r in got] == [None, 7, None, 7]
    assert [r["id"] for r in got] == [0, None, 2, 3]
    assert all(type(r[f]) is int for r in got for f in fields if r[f] is not None)
    # A launch whose invocations are missing counts once.
    assert launch_count(_as_tables(analysis).launches) == 6


def test_real_samples_are_there_when_required() -> None:
    """The real exports are read when present; their absence skips, never passes silently."""
    if not _REAL:
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    assert any(Path(p).suffix == ".csv" for p in _REAL)
