"""The column registry is the one home of the launch model's columns.

The launch model's identity columns, their order, storage type and meaning
come from :data:`ncu_roofline.core.columns.COLUMNS`; these tests hold every
reader to it: each frame starts with exactly those columns, stored as the
registry says, and every column a reader fills (the CSV readers' header
map, the ``.ncu-rep`` reader's identity, driven here through a stand-in for
NVIDIA's ``ncu_report`` module) is a registry entry.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import DATA, SAMPLE

from ncu_roofline.core.columns import COLUMNS, LAUNCH_MODEL_COLUMNS, PROFILE_COLUMNS, Column
from ncu_roofline.core.files import NCU_REP_MAGIC
from ncu_roofline.core.model import IDENTITY_COLUMNS, empty_launches, finalize_launches
from ncu_roofline.readers import read_source
from ncu_roofline.readers.identity import IDENTITY_HEADERS
from ncu_roofline.readers.locate import RawInput
from ncu_roofline.readers.ncurep import read_ncu_rep

REGISTRY: dict[str, Column] = {c.name: c for c in LAUNCH_MODEL_COLUMNS}


def _stored_as(series: pd.Series, dtype: str | None) -> bool:
    """Whether a launch-frame column is stored as the registry's dtype says."""
    if dtype == "int":
        return str(series.dtype) == "Int64"
    if dtype == "float":
        return series.dtype == np.float64
    if dtype == "str":
        return all(v is None or isinstance(v, str) for v in series.astype(object).tolist())
    return False


def _check_frame(frame: pd.DataFrame) -> None:
    """The frame starts with the registry's identity columns, each stored as declared."""
    assert list(frame.columns[: len(REGISTRY)]) == list(REGISTRY)
    for name, col in REGISTRY.items():
        assert _stored_as(frame[name], col.dtype), (name, col.dtype, frame[name].dtype)


def test_identity_columns_are_the_registry_entries() -> None:
    assert list(IDENTITY_COLUMNS) == [c.name for c in COLUMNS if c.dtype is not None]
    for name, doc in IDENTITY_COLUMNS.items():
        assert REGISTRY[name].dtype in ("int", "str", "float")
        assert doc == REGISTRY[name].doc and doc
    # Columns the analysis computes have no launch-model type.
    assert all(c.dtype is None for c in COLUMNS if c.name not in REGISTRY)
    assert set(PROFILE_COLUMNS) <= set(REGISTRY)


def test_csv_header_map_names_registry_columns() -> None:
    assert set(IDENTITY_HEADERS.values()) <= set(REGISTRY)


@pytest.mark.parametrize(
    "path",
    [SAMPLE, DATA / "raw_page.csv", DATA / "summary_per_kernel.csv", DATA / "details_nvtx.csv"],
    ids=lambda p: p.name,
)
def test_csv_readers_fill_registry_columns_with_their_types(path: Any) -> None:
    frame, _ = read_source(str(path))
    _check_frame(frame)


def test_empty_frame_has_the_registry_columns() -> None:
    _check_frame(empty_launches())


def test_finalize_refuses_a_column_the_registry_lacks() -> None:
    with pytest.raises(ValueError, match="not_registered"):
        finalize_launches({"kernel": ["k"], "not_registered": [1]}, {}, 1)


# --- a stand-in for NVIDIA's ncu_report module ----------------------------------------


@dataclass
class _Metric:
    value: float | str
    unit_text: str = ""

    def has_value(self) -> bool:
        return True

    def kind(self) -> int:
        return 2 if isinstance(self.value, str) else 1

    def as_double(self) -> float:
        assert isinstance(self.value, float)
        return self.value

    def as_string(self) -> str:
        return str(self.value)

    def unit(self) -> str:
        return self.unit_text


@dataclass
class _Domain:
    ranges: list[str]

    def push_pop_ranges(self) -> list[str]:
        return self.ranges

    def start_end_ranges(self) -> list[str]:
        return []


@dataclass
class _NvtxState:
    def domains(self) -> list[int]:
        return [0]

    def domain_by_id(self, _dom: int) -> _Domain:
        return _Domain(["step"])


@dataclass
class _Action:
    metrics: dict[str, _Metric] = field(default_factory=dict)

    def metric_names(self) -> list[str]:
        return list(self.metrics)

    def metric_by_name(self, name: str) -> _Metric | None:
        return self.metrics.get(name)

    def name(self, _base: int) -> str:
        return "void axpy<float>(float*, float const*, int)"

    def nvtx_state(self) -> _NvtxState:
        return _NvtxState()


class _Range:
    def num_actions(self) -> int:
        return 1

    def action_by_idx(self, _a: int) -> _Action:
        # A (4, 1, 1) grid of (256, 1, 1) blocks.
        shape = {"grid_dim_x": 4.0, "block_dim_x": 256.0}
        dims = {
            f"launch__{k}_dim_{d}": _Metric(shape.get(f"{k}_dim_{d}", 1.0))
            for k in ("grid", "block")
            for d in "xyz"
        }
        return _Action(
            {
                **dims,
                "launch__grid_size": _Metric(4.0),
                "launch__block_size": _Metric(256.0),
                "launch__device_id": _Metric(0.0),
                "launch__context_id": _Metric(1.0),
                "launch__stream_id": _Metric(7.0),
                "device__attribute_compute_capability_major": _Metric(9.0),
                "device__attribute_compute_capability_minor": _Metric(0.0),
                "device__attribute_display_name": _Metric("NVIDIA H100 80GB HBM3"),
                "gpu__time_duration.sum": _Metric(1500.0, "nsecond"),
            }
        )


class _Context:
    def num_ranges(self) -> int:
        return 1

    def range_by_idx(self, _r: int) -> _Range:
        return _Range()


def _stand_in() -> types.SimpleNamespace:
    """What the reader uses of ``ncu_report``: ``import`` takes any object in sys.modules."""
    return types.SimpleNamespace(
        load_report=lambda _path: _Context(),
        IAction=types.SimpleNamespace(NameBase_DEMANGLED=1),
        IMetric=types.SimpleNamespace(ValueKind_STRING=2),
    )


def test_ncu_rep_reader_fills_registry_columns_with_their_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ncu_report", _stand_in())
    raw = RawInput(name="stand-in.ncu-rep", buf=NCU_REP_MAGIC + b"\0" * 16, path="unused")
    columns, _ = read_ncu_rep(raw)
    frame = columns.to_frame()
    _check_frame(frame)
    filled = [c for c in REGISTRY if frame[c].notna().all()]
    # What the report carries, plus what finalize_launches derives for every reader.
    assert filled == [
        "source",
        "id",
        "kernel",
        "kernel_short",
        "device",
        "device_name",
        "cc",
        "context",
        "stream",
        "grid",
        "block",
        "grid_blocks",
        "block_threads",
        "nvtx",
        "invocations",
        "duration_s",
        "duration_basis",
    ]
    row = frame.iloc[0]
    assert (row["grid"], row["block"], row["cc"], row["nvtx"]) == (
        "(4, 1, 1)",
        "(256, 1, 1)",
        "9.0",
        "step",
    )
    assert row["duration_s"] == pytest.approx(1.5e-6)
