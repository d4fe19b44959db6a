"""What ``ncu`` is asked to collect for a roofline profile (``ncu-roofline profile``).

The metric list is the one ``inspect`` recommends for what an export lacks
(:func:`~ncu_roofline.core.metrics.collect_metrics` over every roofline
input), plus the per-datatype tensor op counters of the GPU's architecture
(``sm__ops_path_tensor_*``, counts of tensor work that ncu's own tensor
roofline uses) and the sections whose utilisations the verdicts read.

Only the datatype aggregates (``src_*``) are asked for, dense where the
counter has a sparsity variant: on Hopper and Blackwell ncu also has per
instruction counters (``op_hmma_*``, ...) that the aggregates already sum,
and adding both would count the work twice.
"""

from __future__ import annotations

from ncu_roofline.core.metrics import collect_metrics

__all__ = ["PROFILE_SECTIONS", "TENSOR_VARIANTS", "profile_metrics", "tensor_metrics"]

#: Sections for the verdicts: speed-of-light, pipe utilisations, launch shape, occupancy.
PROFILE_SECTIONS: tuple[str, ...] = (
    "SpeedOfLight",
    "ComputeWorkloadAnalysis",
    "MemoryWorkloadAnalysis",
    "LaunchStats",
    "Occupancy",
)

_AMPERE = (
    "src_bf16_dst_fp32_sparsity_off",
    "src_fp16_dst_fp16_sparsity_off",
    "src_fp16_dst_fp32_sparsity_off",
    "src_tf32_dst_fp32_sparsity_off",
    "src_int8_sparsity_off",
    "src_fp64",
)
_BLACKWELL = (
    "src_bf16_dst_fp32",
    "src_fp16_dst_fp16",
    "src_fp16_dst_fp32",
    "src_tf32_dst_fp32",
    "src_fp4_dst_fp32",
    "src_fp4_fp6_fp8_dst_fp16",
    "src_fp4_fp6_fp8_dst_fp32",
    "src_int8",
    "src_fp64",
)

#: ``sm__ops_path_tensor_<variant>`` datatype aggregates per compute capability
#: (ncu 2025.3's tensor roofline section files).  Volta (7.0) has none.
TENSOR_VARIANTS: dict[str, tuple[str, ...]] = {
    "7.5": ("src_fp16_bf16_tf32_dst_fp32", "src_fp16_dst_fp16", "src_int8"),
    "8.0": _AMPERE,
    "8.6": _AMPERE,
    "8.7": _AMPERE,
    "8.9": (*_AMPERE, "src_fp8_sparsity_off"),
    "9.0": (
        "src_bf16_dst_fp32",
        "src_fp16",
        "src_tf32_dst_fp32",
        "src_fp8_sparsity_off",
        "src_int8",
        "src_fp64",
    ),
    "10.0": _BLACKWELL,
    "11.0": _BLACKWELL,
    "10.3": (
        "src_bf16_dst_fp32",
        "src_fp16_dst_fp16",
        "src_fp16_dst_fp32",
        "src_tf32_dst_fp32",
        "src_fp4_dst_fp32",
        "src_fp4_fp6_dst_fp16",
        "src_fp4_fp6_dst_fp32",
        "src_fp64",
    ),
    "12.0": (
        "src_bf16_dst_fp32",
        "src_fp16_dst_fp16",
        "src_fp16_dst_fp32",
        "src_tf32_dst_fp32",
        "src_fp4_dst_fp32_sparsity_off",
        "src_fp4_fp6_dst_fp16_sparsity_off",
        "src_fp4_fp6_dst_fp32_sparsity_off",
        "src_fp8_dst_fp16_sparsity_off",
        "src_fp8_dst_fp32_sparsity_off",
        "src_int8",
        "src_fp64",
    ),
}
TENSOR_VARIANTS["12.1"] = TENSOR_VARIANTS["12.0"]


def tensor_metrics(cc: str | None) -> list[str]:
    """The tensor op counters and their peaks for compute capability ``cc`` (``"9.0"``).

    Empty for an unknown ``cc`` or one without counters (Volta): the
    instruction count ``sm__inst_executed_pipe_tensor.sum`` of the common list
    still shows tensor work.
    """
    out: list[str] = []
    for v in TENSOR_VARIANTS.get(cc or "", ()):
        out += [f"sm__ops_path_tensor_{v}.sum", f"sm__ops_path_tensor_{v}.sum.peak_sustained"]
    return out


def profile_metrics(cc: str | None) -> list[str]:
    """Every metric a roofline profile asks ncu for on a GPU of compute capability ``cc``."""
    return collect_metrics() + tensor_metrics(cc)
