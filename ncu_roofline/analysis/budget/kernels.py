"""The trace's (or summary's) distinct kernels with the ncu groups they joined, and the join's counts."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.budget.join import NOT_JOINED
from ncu_roofline.analysis.budget.labels import TOP_UNPROFILED, class_labels, ncu_options
from ncu_roofline.analysis.budget.records import (
    JoinRecord,
    KernelJoinRecord,
    UnprofiledKernelRecord,
)

__all__ = ["join_counts", "kernel_records"]


def kernel_records(
    names: list[str],
    grids: list[str | None],
    blocks: list[str | None],
    instances: npt.NDArray[np.int64],
    totals: npt.NDArray[np.float64],
    pos: list[int],
    kinds: list[str],
    groups: pd.DataFrame | None,
) -> list[KernelJoinRecord]:
    """One record per distinct kernel, most time first, with the ncu group it joined (``pos``, -1: none)."""
    bound_of, limiter_of = class_labels(groups) if groups is not None else ([], [])
    out: list[KernelJoinRecord] = []
    for i in np.argsort(-totals, kind="stable"):
        p = pos[i]
        g = groups.iloc[p] if groups is not None and p >= 0 else None
        out.append(
            {
                "name": names[i],
                "grid": grids[i],
                "block": blocks[i],
                "instances": int(instances[i]),
                "total_s": float(totals[i]) / 1e9,
                "join": kinds[i],
                "ncu_kernel": str(g["kernel"]) if g is not None else None,
                "ncu_grid": str(g["grid"]) if g is not None and pd.notna(g["grid"]) else None,
                "ncu_block": str(g["block"]) if g is not None and pd.notna(g["block"]) else None,
                "bound": bound_of[p] if g is not None else None,
                "limiter": limiter_of[p] if g is not None else None,
            }
        )
    return out


def join_counts(
    kernels: list[KernelJoinRecord],
    groups: pd.DataFrame | None,
    pos: list[int],
    warnings: list[str],
    what: str,
) -> tuple[JoinRecord | None, list[UnprofiledKernelRecord]]:
    """The join counts (in instances) and the unprofiled kernels, most time first.

    ``what`` names the input in the warning when nothing joined (``trace``, ``summary``).
    """
    if groups is None:
        return None, []
    count = {k: 0 for k in ("exact", "by name", "normalised", NOT_JOINED)}
    joined_s = total_s = 0.0
    unjoined: dict[str, tuple[int, float]] = {}
    for k in kernels:
        count[k["join"]] += k["instances"]
        total_s += k["total_s"]
        if k["join"] == NOT_JOINED:
            n, s = unjoined.get(k["name"], (0, 0.0))
            unjoined[k["name"]] = (n + k["instances"], s + k["total_s"])
        else:
            joined_s += k["total_s"]
    joined = count["exact"] + count["by name"] + count["normalised"]
    if kernels and not joined:
        warnings.append(
            f"no {what} kernel joined an ncu kernel group: the {what} is probably of another program "
            "(or its kernel names differ beyond what the join forgives); every kernel counts as not profiled"
        )
    unprofiled: list[UnprofiledKernelRecord] = [
        {
            "name": name,
            "instances": n,
            "total_s": s,
            "share": s / total_s if total_s > 0 else None,
            "ncu_options": ncu_options(name, n),
        }
        for name, (n, s) in sorted(unjoined.items(), key=lambda kv: -kv[1][1])[:TOP_UNPROFILED]
    ]
    seen = {p for p in pos if p >= 0}
    return (
        {
            "joined_exact": count["exact"],
            "joined_by_name": count["by name"],
            "joined_normalised": count["normalised"],
            "not_joined": count[NOT_JOINED],
            "joined_share": joined_s / total_s if total_s > 0 else None,
            "ncu_groups_unseen": len(groups) - len(seen),
        },
        unprofiled,
    )
