"""Kernels launched by CUDA graphs.

A graph launch is one API call (``cudaGraphLaunch``, ``cuGraphLaunch``, or
their ``_ptsz``/versioned variants) whose correlation id every kernel of the
graph carries: the launch overhead is paid once for all of them.  Without an
API trace, several kernels sharing one correlation id can only be a graph
(an ordinary launch starts one kernel), so that is the fallback evidence.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.budget.records import GraphRecord
from ncu_roofline.core.timeline import Timeline

__all__ = ["GRAPH_LAUNCH_APIS", "graph_launches"]

#: API names (prefixes) that launch a CUDA graph.
GRAPH_LAUNCH_APIS: tuple[str, ...] = ("cudaGraphLaunch", "cuGraphLaunch")


def _is_graph_api(names: pd.Series) -> npt.NDArray[np.bool_]:
    text = names.astype(object).fillna("").astype(str)
    hit: npt.NDArray[np.bool_] = text.str.startswith(GRAPH_LAUNCH_APIS).to_numpy(dtype=bool)
    return hit


def graph_launches(
    timeline: Timeline, corr_id: pd.Series, duration_ns: npt.NDArray[np.int64]
) -> GraphRecord:
    """Which kernels (their ``corr_id`` and durations, one row each) a CUDA graph launched."""
    n = len(corr_id)
    has_corr = corr_id.notna().to_numpy(dtype=bool)
    corr = corr_id.to_numpy(dtype=np.int64, na_value=-1)
    api = timeline.api
    graph = np.zeros(n, dtype=bool)
    basis: str | None = None
    launches = 0
    if len(api):
        rows = _is_graph_api(api["name"]) & api["corr_id"].notna().to_numpy(dtype=bool)
        ids = api["corr_id"].to_numpy(dtype=np.int64, na_value=-1)[rows]
        launches = int(rows.sum())
        graph = has_corr & np.isin(corr, ids)
        basis = "api" if launches else None
    elif n and has_corr.any():
        values, counts = np.unique(corr[has_corr], return_counts=True)
        shared = values[counts > 1]
        if len(shared):
            graph = has_corr & np.isin(corr, shared)
            launches = len(shared)
            basis = "shared corr id"
    elif len(timeline.api_sums):
        rows = _is_graph_api(timeline.api_sums["name"])
        calls = timeline.api_sums["calls"].to_numpy(dtype=np.float64, na_value=0.0)[rows]
        if rows.any():
            return {
                "basis": "api summary",
                "graph_launches": int(calls.sum()),
                "graph_kernels": None,
                "graph_kernel_s": None,
                "kernel_share": None,
            }
    k = int(graph.sum())
    return {
        "basis": basis if k or launches else None,
        "graph_launches": launches,
        "graph_kernels": k,
        "graph_kernel_s": float(duration_ns[graph].sum()) / 1e9,
        "kernel_share": k / n if n else None,
    }
