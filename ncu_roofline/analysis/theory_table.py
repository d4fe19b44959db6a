"""The ``theory`` command's analysis: ops placed on GPUs' roofs, no profile needed.

For every op (given with ``--op`` or expanded from a model) and every GPU:
the ceiling of the op's precision, the ridge point, the attainable rate, the
bound class and the time floor ``max(FLOPs / peak, bytes / bandwidth)`` --
the least time any implementation could take at datasheet peaks.  For a
model, per-op floors times their counts add up to a floor per forward pass
(per generated token in decode).  The floor's rule is
:mod:`ncu_roofline.analysis.floor`'s and the roof arithmetic
:mod:`ncu_roofline.analysis.roofs.arithmetic`'s, the same as the report's.  The
plain-data table is built by :func:`ncu_roofline.report.theory.build_theory_table`;
its text and chart forms are in :mod:`ncu_roofline.render.theory`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ncu_roofline.analysis.floor import cc_number, compute_ceiling, time_floor
from ncu_roofline.analysis.roofs.arithmetic import attainable, ratio, ridge_point, side
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
    A theory-only device (a TPU, an AMD GPU) gets its own ceiling only: the
    same-rate pairs are NVIDIA's, and would lend a TPU FP8 from its INT8.
    """
    if spec.theory_only:
        own = spec.compute.get(precision)
        return (own, precision) if own else (None, None)
    ceilings = {k: np.array([v], dtype=np.float64) for k, v in spec.compute.items()}
    peak, key = compute_ceiling(
        ceilings, np.array([precision], dtype=object), cc_number(np.array([spec.cc], dtype=object))
    )
    return (_num(float(peak[0])), str(key[0])) if key[0] is not None else (None, None)


def intensity(est: OpEstimate) -> float:
    """The op's FLOP/byte for placing it on a roof.

    :func:`~ncu_roofline.analysis.roofs.arithmetic.ratio`, except that an op moving no
    bytes but doing math sits at infinite intensity (compute-bound, with no
    finite attainable rate) rather than being unplaceable.
    """
    ai = float(ratio(est.flops, est.bytes))
    return math.inf if math.isnan(ai) and est.flops > 0 else ai


@dataclass(frozen=True)
class Placement:
    """One op on one GPU's roofs; ``None`` where the GPU gives no roof to judge by."""

    #: The compute ceiling's key (the op's precision or a same-rate one).
    precision: str | None
    peak_flops_per_s: float | None
    peak_dram_bytes_per_s: float | None
    ridge: float | None
    attainable_flops_per_s: float | None
    #: ``memory``, ``compute``, ``communication`` (collectives) or ``None``.
    bound: str | None
    time_floor_s: float | None


def place(est: OpEstimate, spec: GpuSpec, ai: float | None = None) -> Placement:
    """Place an op on a GPU's datasheet roofs (``ai``: its :func:`intensity`, if known)."""
    ai = intensity(est) if ai is None else ai
    peak, key = peak_for(spec, est.precision)
    bw = spec.memory.get("dram")
    if est.op == "allreduce":
        # Collectives move data between GPUs: no roof of one GPU bounds them.
        return Placement(key, peak, bw, None, None, "communication", None)
    floor = time_floor(
        [est.flops],
        [est.bytes],
        [math.nan if peak is None else peak],
        [math.nan if bw is None else bw],
    )
    ridge = reach = bound = None
    # A zero peak or bandwidth is no roof: the op is not placed against it.
    if peak and bw:
        ridge = _num(float(ridge_point(peak, bw)))
        if math.isfinite(ai):
            reach = float(attainable(ai, peak, bw))
        bound = side(ai, peak, bw).item()
    if bound is None and bw and est.flops == 0:
        # No FLOPs: memory-bound wherever there is a bandwidth, even without a
        # compute roof or bytes to give an intensity (side() leaves NaN unplaced).
        bound = "memory"
    return Placement(key, peak, bw, ridge, reach, bound, _num(float(floor[0])))


def _num(x: float) -> float | None:
    return x if math.isfinite(x) else None
