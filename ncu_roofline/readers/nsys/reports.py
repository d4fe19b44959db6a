"""The ``nsys stats`` reports the readers know: how each is recognised and what it fills.

A report is recognised by its header's columns (their keys, see
:mod:`.columns`), never by a file name: each :class:`Report` lists one or
more *signatures*, sets of keys that only its header holds.  The report
whose largest matching signature is largest wins, so a trace (which has
``GrdX``...) is never taken for an API trace that shares its first columns.

Two reports share a header in some versions: ``cuda_gpu_kern_sum`` and a
``cuda_api_sum`` that counts calls in ``Instances`` rather than ``Num Calls``.
Then the report named around the table (a ``Processing [...] with
[.../cuda_api_sum.py]`` line or a `` ** CUDA API Summary (cuda_api_sum):``
heading of the stdout stream, else the ``..._cuda_api_sum.csv`` name that
``nsys stats --output`` gives) decides; without one, names that all look
like CUDA API entry points (``cu...``, no ``::`` or spaces) make it the API
summary.  :func:`choose` holds that rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ncu_roofline.readers.nsys.columns import KEY_TYPES
from ncu_roofline.readers.nsys.series import (
    dims_text,
    distinct_map,
    distinct_pair,
    frame_of,
    int_series,
    missing,
    object_ints,
    range_name,
    split_domain,
    text_series,
)

__all__ = ["REPORTS", "Columns", "Report", "candidates", "choose"]


class Columns:
    """One report's parsed columns by key; a key the header lacked reads as all missing."""

    def __init__(self, values: dict[str, pd.Series], rows: int) -> None:
        self.values = values
        self.rows = rows

    def __contains__(self, key: str) -> bool:
        return key in self.values

    def get(self, key: str) -> pd.Series:
        """The column ``key`` (all missing when the header lacked it)."""
        if key in self.values:
            return self.values[key]
        return missing(self.rows, KEY_TYPES.get(key, "text"))

    def first(self, *keys: str) -> pd.Series:
        """The first of ``keys`` the header held (all missing if none)."""
        for key in keys:
            if key in self.values:
                return self.values[key]
        return self.get(keys[0])


Builder = Callable[[Columns], pd.DataFrame]


@dataclass(frozen=True)
class Report:
    """One ``nsys stats`` report: its name, the timeline table it fills, how to know it."""

    name: str
    table: str
    signatures: tuple[frozenset[str], ...]
    #: Keys the builder reads (only these columns are parsed).
    keys: frozenset[str]
    build: Builder

    def score(self, keys: set[str]) -> int:
        """The size of the largest signature ``keys`` hold; 0 when none."""
        return max((len(sig) for sig in self.signatures if sig <= keys), default=0)


def _end(cols: Columns, start: pd.Series) -> pd.Series:
    """The end column, else start + duration (missing where either is)."""
    if "end" in cols:
        return int_series(cols.get("end"))
    return start + int_series(cols.get("duration"))


def _gpu_trace(cols: Columns) -> pd.DataFrame:
    name = cols.get("name")
    grid = dims_text(cols.get("grid_x"), cols.get("grid_y"), cols.get("grid_z"))
    block = dims_text(cols.get("block_x"), cols.get("block_y"), cols.get("block_z"))
    # Kernels have a grid; memcpy and memset rows leave it empty and are told
    # apart by nsys's label, "[CUDA memset]" vs "[CUDA memcpy ...]".
    is_kernel = grid.notna().to_numpy()
    is_memset = distinct_map(name, lambda v: "memset" in str(v).lower()).fillna(False)
    kind = np.where(is_kernel, "kernel", np.where(is_memset.to_numpy(bool), "memset", "memcpy"))
    if "bytes_mb" in cols:
        nbytes = cols.get("bytes_mb").astype("float64") * 1e6
    else:
        nbytes = cols.get("bytes").astype("float64")
    start = int_series(cols.get("start"))
    return frame_of(
        {
            "kind": text_series(kind),
            "start_ns": start,
            "end_ns": _end(cols, start),
            "name": name,
            "grid": grid,
            "block": block,
            "corr_id": int_series(cols.get("corr_id")),
            "device": cols.get("device"),
            "context": object_ints(cols.get("context")),
            "stream": object_ints(cols.get("stream")),
            "bytes": nbytes,
        }
    )


def _api_trace(cols: Columns) -> pd.DataFrame:
    start = int_series(cols.get("start"))
    return frame_of(
        {
            "name": cols.get("name"),
            "start_ns": start,
            "end_ns": _end(cols, start),
            "corr_id": int_series(cols.get("corr_id")),
            "thread": object_ints(cols.get("tid")),
        }
    )


def _tree_leaf(text: object) -> str | None:
    """The range's own label from a ``NameTree`` cell: nesting is ``--`` per level."""
    if text is None:
        return None
    return str(text).lstrip("-").strip() or None


def _ranges(
    cols: Columns, label: pd.Series, start: pd.Series, end: pd.Series, projected: bool
) -> pd.DataFrame:
    domain, name = distinct_pair(label, split_domain)
    return frame_of(
        {
            "name": text_series(name),
            "domain": text_series(domain),
            "start_ns": start,
            "end_ns": end,
            "level": int_series(cols.get("level")),
            "thread": object_ints(cols.get("tid")),
            "projected": pd.Series(np.full(cols.rows, projected), dtype="boolean"),
        }
    )


def _pushpop_trace(cols: Columns) -> pd.DataFrame:
    label = cols.get("name") if "name" in cols else distinct_map(cols.get("name_tree"), _tree_leaf)
    start = int_series(cols.get("start"))
    return _ranges(cols, label, start, _end(cols, start), projected=False)


def _gpu_proj_trace(cols: Columns) -> pd.DataFrame:
    start = int_series(cols.get("proj_start"))
    end = start + int_series(cols.get("proj_duration"))
    return _ranges(cols, cols.get("name"), start, end, projected=True)


def _stats(cols: Columns) -> dict[str, pd.Series]:
    return {
        "total_ns": cols.get("total"),
        "avg_ns": cols.get("avg"),
        "med_ns": cols.get("med"),
        "min_ns": cols.get("min"),
        "max_ns": cols.get("max"),
    }


def _kern_sum(cols: Columns) -> pd.DataFrame:
    return frame_of(
        {
            "name": cols.get("name"),
            "range": missing(cols.rows, "text"),
            "instances": int_series(cols.get("instances")),
            **_stats(cols),
            "stddev_ns": cols.get("stddev"),
        }
    )


def _nvtx_kern_sum(cols: Columns) -> pd.DataFrame:
    return frame_of(
        {
            "name": cols.get("kernel_name"),
            # Kernels outside every range have an empty range: None, as the whole capture's.
            "range": distinct_map(cols.get("range"), range_name),
            "instances": int_series(cols.get("kern_inst")),
            **_stats(cols),
            "stddev_ns": cols.get("stddev"),
        }
    )


def _api_sum(cols: Columns) -> pd.DataFrame:
    return frame_of(
        {
            "name": cols.get("name"),
            "calls": int_series(cols.first("calls", "instances")),
            **_stats(cols),
        }
    )


def _gpu_proj_sum(cols: Columns) -> pd.DataFrame:
    return frame_of(
        {
            "name": distinct_map(cols.get("range"), range_name),
            "instances": int_series(cols.get("range_instances")),
            "total_proj_ns": cols.get("total_proj"),
            "total_range_ns": cols.get("total_range"),
            "gpu_ops": int_series(cols.get("gpu_ops_total")),
        }
    )


def _nvtx_sum(cols: Columns) -> pd.DataFrame:
    # The CPU-side range summary: no projection onto the GPU, no GPU op count.
    return frame_of(
        {
            "name": distinct_map(cols.get("range"), range_name),
            "instances": int_series(cols.get("instances")),
            "total_range_ns": cols.get("total"),
        }
    )


def _report(
    name: str, table: str, signatures: list[set[str]], keys: set[str], build: Builder
) -> Report:
    sigs = tuple(frozenset(s) for s in signatures)
    return Report(name, table, sigs, frozenset(keys).union(*sigs), build)


_STATS = {"total", "avg", "med", "min", "max", "stddev"}

#: Every report the readers know, by name.
REPORTS: dict[str, Report] = {
    r.name: r
    for r in (
        _report(
            "cuda_gpu_trace",
            "activities",
            [{"start", "duration", "corr_id", "grid_x", "block_x", "name"}],
            {
                "grid_y",
                "grid_z",
                "block_y",
                "block_z",
                "bytes_mb",
                "bytes",
                "device",
                "context",
                "stream",
                "end",
            },
            _gpu_trace,
        ),
        _report(
            "cuda_api_trace",
            "api",
            [{"start", "duration", "name", "result", "corr_id"}],
            {"tid", "end"},
            _api_trace,
        ),
        _report(
            "cuda_gpu_kern_sum",
            "kernel_sums",
            [{"time_pct", "total", "instances", "name"}],
            _STATS,
            _kern_sum,
        ),
        _report(
            "cuda_api_sum",
            "api_sums",
            [{"time_pct", "total", "calls", "name"}, {"time_pct", "total", "instances", "name"}],
            _STATS,
            _api_sum,
        ),
        _report(
            "nvtx_kern_sum",
            "kernel_sums",
            [{"range", "kern_inst", "total", "kernel_name"}],
            _STATS,
            _nvtx_kern_sum,
        ),
        _report(
            "nvtx_pushpop_trace",
            "ranges",
            [{"start", "end", "name", "level"}, {"start", "end", "name_tree", "level"}],
            {"duration", "tid", "name", "name_tree"},
            _pushpop_trace,
        ),
        _report(
            "nvtx_gpu_proj_trace",
            "ranges",
            [{"name", "proj_start", "proj_duration"}],
            {"level", "tid"},
            _gpu_proj_trace,
        ),
        _report(
            "nvtx_gpu_proj_sum",
            "range_sums",
            [{"range", "total_proj", "total_range", "range_instances"}],
            {"gpu_ops_total"},
            _gpu_proj_sum,
        ),
        _report(
            "nvtx_sum",
            "range_sums",
            [{"time_pct", "total", "instances", "style", "range"}],
            set(),
            _nvtx_sum,
        ),
    )
}


def candidates(keys: set[str]) -> list[Report]:
    """The reports whose header ``keys`` fit best (several only when they tie)."""
    scores = {name: r.score(keys) for name, r in REPORTS.items()}
    best = max(scores.values(), default=0)
    if best == 0:
        return []
    return [REPORTS[name] for name, s in scores.items() if s == best]


# A CUDA runtime or driver entry point: cudaMalloc, cuLaunchKernel, cuMemcpyHtoDAsync_v2.
_API_NAME = re.compile(r"^cu[A-Za-z0-9_]*$")


def choose(found: list[Report], hints: list[str | None], names: pd.Series | None) -> Report:
    """One report of tied ``found``: the first hint naming one, else by the ``names`` column."""
    if len(found) == 1:
        return found[0]
    for hint in hints:
        for report in found:
            if hint is not None and report.name in hint:
                return report
    by_name = {r.name: r for r in found}
    if names is not None and {"cuda_api_sum", "cuda_gpu_kern_sum"} <= set(by_name):
        distinct = pd.unique(names.dropna())
        api = len(distinct) > 0 and all(_API_NAME.match(str(v)) for v in distinct)
        return by_name["cuda_api_sum" if api else "cuda_gpu_kern_sum"]
    return found[0]
