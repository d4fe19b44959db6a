"""How each launch and kernel group is placed on the roofline chart, if at all.

The bound class says what limits a kernel; the placement says which
evidence its point on the chart rests on, so that every kernel with a
defensible point gets one and the chart can say what it rests on:

``measured``
    The export's FLOPs and DRAM bytes (or ncu's rates): intensity
    ``ai_dram``, achieved ``achieved_flops_per_s``.
``bandwidth``
    The export counts no floating-point work at all (FLOPs exactly 0: a
    copy, fill or cast) but measures DRAM traffic: no intensity exists, so
    the point is drawn on a bandwidth strip at the chart's left edge, its
    height below the DRAM roof there being its DRAM utilisation
    (``dram_utilization``, from the bytes or from ncu's DRAM %, so even a
    kernel the roofline calls "not placeable" for want of byte counts).  The strip's position is the chart's; the
    fraction is the analysis's.
``theory``
    The export lacks FLOP or byte counters but the theory (``--theory``,
    ``--model``) gives the kernel's work and a duration was measured: the
    point sits at the theoretical intensity ``theory_ai`` and the rate of
    the theoretical work, ``theory_flops_per_s`` = theory FLOPs / measured
    time.  It says how fast the kernel did the work its math needs, not
    what the counters would have shown.
``None``
    No point: communication kernels, kernels without roofs, a failed
    profile, or nothing to place the point with.

Measured evidence wins over theory, and zero counted FLOPs (evidence that
there is no FP work) win over a theory that claims some.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ncu_roofline.core.frame import Columns, column, object_column

#: Every placement, in order of the evidence it rests on.
PLACEMENTS: tuple[str, ...] = ("measured", "bandwidth", "theory")

#: Bound classes whose point on a FLOP/s-versus-DRAM-intensity chart means
#: something (communication kernels move data between devices; "not
#: placeable" lacks an input, though theory may still place it).
_ON_CHART = ("memory", "compute", "latency")


def _positive(values: npt.NDArray[np.float64]) -> npt.NDArray[np.bool_]:
    with np.errstate(invalid="ignore"):
        return np.isfinite(values) & (values > 0)


def placement(frame: Columns, duration: str = "duration_s") -> npt.NDArray[np.object_]:
    """The placement of each row (launch or kernel group): see the module docstring.

    ``frame`` holds the analysed columns (``ai_dram``,
    ``achieved_flops_per_s``, ``flops``, ``dram_bytes``,
    ``dram_utilization``, ``peak_dram_bytes_per_s``, ``bound``; with theory
    ``theory_flops``, ``theory_bytes``); ``duration`` names the time column
    the theoretical rate is taken over.
    """
    n = len(frame)
    bound = object_column(frame, "bound")
    on_chart = np.isin(bound, _ON_CHART)
    flops = column(frame, "flops")
    measured = on_chart & _positive(column(frame, "ai_dram"))
    measured &= _positive(column(frame, "achieved_flops_per_s"))
    # A bandwidth figure places a kernel without FP work even when the
    # roofline could not (DRAM utilisation from ncu's DRAM % without bytes).
    bandwidth = ~measured & (flops == 0) & (bound != "communication")
    bandwidth &= _positive(column(frame, "dram_utilization"))
    bandwidth &= _positive(column(frame, "peak_dram_bytes_per_s"))
    no_counters = np.isnan(flops) | np.isnan(column(frame, "dram_bytes"))
    theory = ~measured & ~bandwidth & no_counters & (bound != "communication")
    theory &= _positive(column(frame, "theory_flops")) & _positive(column(frame, "theory_bytes"))
    theory &= _positive(column(frame, duration))
    theory &= _positive(column(frame, "peak_dram_bytes_per_s"))
    out = np.full(n, None, dtype=object)
    out[measured] = "measured"
    out[bandwidth] = "bandwidth"
    out[theory] = "theory"
    return out
