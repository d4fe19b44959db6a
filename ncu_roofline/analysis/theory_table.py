"""The ``theory`` command's analysis: ops placed on GPUs' roofs, no profile needed.

For every op (given with ``--op`` or expanded from a model) and every GPU:
the ceiling of the op's precision, the ridge point, the attainable rate, the
bound class and the time floor ``max(FLOPs / peak, bytes / bandwidth)`` --
the least time any implementation could take at datasheet peaks.  For a
model, per-op floors times their counts add up to a floor per forward pass
(per generated token in decode).  The floor's rule is
:mod:`ncu_roofline.analysis.floor`'s and the roof arithmetic
:mod:`ncu_roofline.analysis.roofline`'s, the same as the report's; the table's
text and chart forms are in :mod:`ncu_roofline.render.theory`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ncu_roofline.analysis.floor import cc_number, compute_ceiling, time_floor
from ncu_roofline.analysis.roofline import attainable, ratio, ridge_point, side
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.theory.models import ModelOp
from ncu_roofline.theory.ops import OpEstimate


@dataclass(frozen=True)
class TheoryRow:
    """One op to tabulate, with how often it runs per forward pass."""

    name: str
    estimate: OpEstimate
    count: int = 1
    #: Part of the model's forward pass (counted in its per-pass total).
    in_model: bool = False


def rows_from_model(ops: list[ModelOp]) -> list[TheoryRow]:
    """Table rows for a model's expanded ops."""
    return [
        TheoryRow(name=op.role, estimate=op.estimate, count=op.count, in_model=True) for op in ops
    ]


def peak_for(spec: GpuSpec, precision: str) -> tuple[float | None, str | None]:
    """The compute ceiling (FLOP/s) a GPU offers for a precision, and its key.

    The rule of :func:`~ncu_roofline.analysis.floor.compute_ceiling`: the
    precision's own ceiling, else a same-rate one the GPU's datatypes allow.
    """
    ceilings = {k: np.array([v], dtype=np.float64) for k, v in spec.compute.items()}
    peak, key = compute_ceiling(
        ceilings, np.array([precision], dtype=object), cc_number(np.array([spec.cc], dtype=object))
    )
    return (_num(float(peak[0])), str(key[0])) if key[0] is not None else (None, None)


def intensity(est: OpEstimate) -> float:
    """The op's FLOP/byte for placing it on a roof.

    :func:`~ncu_roofline.analysis.roofline.ratio`, except that an op moving no
    bytes but doing math sits at infinite intensity (compute-bound, with no
    finite attainable rate) rather than being unplaceable.
    """
    ai = float(ratio(est.flops, est.bytes))
    return math.inf if math.isnan(ai) and est.flops > 0 else ai


def _place(est: OpEstimate, ai: float, spec: GpuSpec) -> dict[str, Any]:
    peak, key = peak_for(spec, est.precision)
    bw = spec.memory.get("dram")
    floor = time_floor(
        [est.flops],
        [est.bytes],
        [math.nan if peak is None else peak],
        [math.nan if bw is None else bw],
    )
    out: dict[str, Any] = {
        "precision": key,
        "peak_flops_per_s": peak,
        "peak_dram_bytes_per_s": bw,
        "ridge": None,
        "attainable_flops_per_s": None,
        "bound": None,
        "time_floor_s": None,
    }
    if est.op == "allreduce":
        out["bound"] = "communication"
        return out
    out["time_floor_s"] = _num(float(floor[0]))
    # A zero peak or bandwidth is no roof: the op is not placed against it.
    if peak and bw:
        out["ridge"] = _num(float(ridge_point(peak, bw)))
        if math.isfinite(ai):
            out["attainable_flops_per_s"] = float(attainable(ai, peak, bw))
        out["bound"] = side(ai, peak, bw).item()
    if out["bound"] is None and bw and est.flops == 0:
        # No FLOPs: memory-bound wherever there is a bandwidth, even without a
        # compute roof or bytes to give an intensity (side() leaves NaN unplaced).
        out["bound"] = "memory"
    return out


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None


def build_theory_table(
    rows: list[TheoryRow], gpus: list[GpuSpec], model: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Plain data for the ``theory`` command (JSON as is, text via a template)."""
    ops = []
    totals: dict[str, dict[str, Any]] = {
        g.key: {
            "time_floor_s": 0.0,
            "flops": 0.0,
            "bytes": 0.0,
            "complete": True,
            "collectives_not_included": 0,
        }
        for g in gpus
    }
    for row in rows:
        est = row.estimate
        ai = intensity(est)
        placed = {g.key: _place(est, ai, g) for g in gpus}
        ops.append(
            {
                "name": row.name,
                "op": est.op,
                "label": est.label,
                "count": row.count,
                "flops": est.flops,
                "bytes": est.bytes,
                "ai": _num(ai),
                "precision": est.precision,
                "params": {k: v for k, v in est.params.items()},
                "notes": list(est.notes),
                "gpus": placed,
            }
        )
        if not row.in_model:
            continue  # --op rows are tabulated, not added to the model's pass
        for g in gpus:
            t = totals[g.key]
            t["flops"] += est.flops * row.count
            t["bytes"] += est.bytes * row.count
            floor = placed[g.key]["time_floor_s"]
            if floor is None:
                t["complete"] = False
                if placed[g.key]["bound"] == "communication":
                    t["collectives_not_included"] += row.count
            else:
                t["time_floor_s"] += floor * row.count
    return {
        "model": model,
        "gpus": [
            {
                "key": g.key,
                "name": g.name,
                "origin": g.origin,
                "compute": dict(g.compute),
                "memory": dict(g.memory),
                "boost_hz": g.boost_hz,
            }
            for g in gpus
        ],
        "ops": ops,
        "totals": totals if model is not None else None,
    }
