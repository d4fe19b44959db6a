"""What ``ncu`` is asked to collect for a roofline profile (``ncu-roofline profile``).

The metric list is the one ``inspect`` recommends for what an export lacks
(:func:`~ncu_roofline.core.metrics.collect_metrics` over every roofline
input, for the GPU's compute capability), plus the per-datatype tensor op
counters of its architecture and their peaks (``sm__ops_path_tensor_*``,
counts of tensor work that ncu's own tensor roofline uses; the list is the
architecture description's, :mod:`ncu_roofline.core.architecture`) and the
sections whose utilisations the verdicts read.

Only the datatype aggregates (``src_*``) are asked for, dense where the
counter has a sparsity variant: on Hopper and Blackwell ncu also has per
instruction counters (``op_hmma_*``, ...) that the aggregates already sum,
and adding both would count the work twice.
"""

from __future__ import annotations

from ncu_roofline.core.architecture import architecture
from ncu_roofline.core.metrics import collect_metrics

__all__ = ["PROFILE_SECTIONS", "profile_metrics", "tensor_metrics"]

#: Sections for the verdicts: speed-of-light, pipe utilisations, launch shape, occupancy.
PROFILE_SECTIONS: tuple[str, ...] = (
    "SpeedOfLight",
    "ComputeWorkloadAnalysis",
    "MemoryWorkloadAnalysis",
    "LaunchStats",
    "Occupancy",
)


def tensor_metrics(cc: str | None) -> list[str]:
    """The tensor op counters and their peaks for compute capability ``cc`` (``"9.0"``).

    The counters are the architecture description's
    (:func:`~ncu_roofline.core.architecture.architecture`).  Empty for an
    unknown ``cc`` or one without counters (Volta): the instruction count
    ``sm__inst_executed_pipe_tensor.sum`` of the common list still shows
    tensor work there.
    """
    arch = architecture(cc)
    out: list[str] = []
    for metric in arch.tensor_metrics() if arch is not None else ():
        out += [metric, f"{metric}.peak_sustained"]
    return out


def profile_metrics(cc: str | None) -> list[str]:
    """Every metric a roofline profile asks ncu for on a GPU of compute capability ``cc``."""
    wanted = collect_metrics(cc=cc)
    return wanted + [m for m in tensor_metrics(cc) if m not in wanted]
