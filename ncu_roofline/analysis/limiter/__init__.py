"""What limits each launch, from every utilisation the export has, and the
time that can honestly be recovered.

The roofline places a launch against two roofs (compute and DRAM); the
export usually says more.  Nsight Compute's speed-of-light section gives
the busiest fraction of the SM (``sm__throughput``) and of the memory
system (``gpu__compute_memory_throughput``), and the throughputs of DRAM,
L2 and L1/TEX; pipe and issue utilisations name the unit inside the SM;
the SASS instruction mix says which share of the FP32 roof the kernel can
reach at all; the launch statistics say whether the grid fills the GPU.

Every utilisation is a fraction of its unit's peak over the launch's
elapsed time.  ncu reports some over *active* cycles (L1/TEX, the pipes,
issue); those are scaled by the SM's active share of the elapsed cycles,
so that all units compare on one time base (on a real RTX 5060 Ti GEMM,
L1/TEX 58.04% of active cycles x 0.943 active = 54.8%, ncu's own memory
throughput for the kernel).

The limiter, in this order:

``latency`` (short)
    Shorter than :attr:`Thresholds.short_launch_s` with no unit
    :data:`BUSY` busy: launch overhead dominates.
``under-filled``
    The grid leaves SMs without a block (fewer blocks than SMs, see
    :mod:`ncu_roofline.analysis.waves`) and no unit is :data:`BUSY` busy:
    the GPU is not given enough work to be limited by any unit.  Under
    one wave with a block on every SM is not under-filled (occupancy is
    the question there).
``latency`` (idle)
    Every unit is under :attr:`Thresholds.low_sol_pct` busy by ncu's
    speed-of-light metrics.
``unknown``
    The export has no utilisation of any unit above 0% (neither ncu's nor
    the roofline's own: bytes over a bandwidth roof, FLOPs over the roof
    the instruction mix reaches, tensor FLOPs, even estimated from the
    kernel name, over the tensor roof).  ``limiter_needs`` then names the
    speed-of-light section and metrics that would settle it.
otherwise
    the busiest unit, preferring a named unit (``dram``, ``l2``, ``l1``,
    the pipes, ``issue``) to ncu's composite figures (``sm``, ``memory``)
    unless the composite is more than :data:`COMPOSITE_MARGIN` busier
    (then the busy unit was not collected).

Recoverable time is bounded by evidence, and ``recoverable_basis`` says
which bound was used.  No unit can do its work faster than at 100%, so
``duration x (1 - highest utilisation)`` bounds it ("busiest unit: DRAM at
81%"); the roof itself is the one the instruction mix can reach
(:func:`mix_share`), so ``duration x (1 - achieved / attainable at the mix
roof)`` bounds it too ("instruction mix").  The smaller is taken.  The
roof gap alone bounds nothing: a launch with no utilisation, or whose
counted units are all under :attr:`Thresholds.far_below` with no
speed-of-light metrics to cover the rest (an N-body kernel's SFU and
integer work), gets NaN ("unknown: ..."), shown as ``?``.
Latency-class and under-filled launches have nothing to recover from a
roof: their time is ``latency_s``.  After this judgement, ncu's own
estimated speedups bound the figure once more
(:mod:`ncu_roofline.analysis.ncu_rules`), which keeps this one as
``roof_recoverable_s``.

The package: :mod:`.units` names the units and the ncu metrics that
measure each (plain data: the pages and messages that only name a unit need
neither pandas nor the engine); :mod:`.judge` judges every launch;
:mod:`.findings` holds the findings the limiter evidence gives.  The group
figures are reduced with the other group figures
(:func:`~ncu_roofline.analysis.classify.group_limiter`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.limiter.judge import (
        BUSY,
        COMPOSITE_MARGIN,
        LATENCY_CLASS,
        judge,
        mix_share,
        utilisations,
    )

_JUDGE = "ncu_roofline.analysis.limiter.judge"

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "BUSY": _JUDGE,
    "COMPOSITE_MARGIN": _JUDGE,
    "LATENCY_CLASS": _JUDGE,
    "judge": _JUDGE,
    "mix_share": _JUDGE,
    "utilisations": _JUDGE,
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = ["BUSY", "COMPOSITE_MARGIN", "LATENCY_CLASS", "judge", "mix_share", "utilisations"]
