"""The vocabulary of kernel-name families: families, libraries, data types, the result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias, TypedDict

#: One value a kernel name gave: a word, a number, a flag, a shape, a list of
#: words, or ``None`` where the name had the slot but no readable value.
DetailValue: TypeAlias = str | int | bool | tuple[int, ...] | tuple[str, ...] | None

#: What else a kernel name gave, keyed by what it is (``head_dim``, ``op``, ...).
#: The keys are open-ended (some come straight from ``key=value`` pairs in the
#: name); the values are not.
Details: TypeAlias = dict[str, DetailValue]

#: A :data:`DetailValue` for JSON (tuples become lists).
PlainDetail: TypeAlias = str | int | bool | list[int | str] | None


class KernelFamilyDict(TypedDict):
    """:meth:`KernelFamily.to_dict`: plain, JSON-ready data."""

    family: str
    library: str | None
    dtype: str | None
    out_dtype: str | None
    tile: list[int] | None
    details: dict[str, PlainDetail]


#: Every family :func:`classify` can return.
FAMILIES: tuple[str, ...] = (
    "gemm",
    "gemv",
    "grouped_gemm",
    "attention_prefill",
    "attention_decode",
    "attention_combine",
    "attention_naive",
    "rmsnorm",
    "add_rmsnorm",
    "layernorm",
    "act_and_mul",
    "rope",
    "kv_append",
    "softmax",
    "elementwise",
    "reduce",
    "embedding",
    "topk_sample",
    "copy",
    "memset",
    "quantize",
    "conv",
    "communication",
    "triton",
    "unknown",
)

#: Every library :func:`classify` can name (``None`` when the name does not say).
LIBRARIES: tuple[str, ...] = (
    "cublas",
    "cublasLt",
    "nvjet",
    "cutlass",
    "cudnn",
    "flash-attn",
    "flashinfer",
    "vllm",
    "trtllm",
    "pytorch",
    "inductor",
    "triton",
    "nccl",
    "marlin",
    "cub",
)

#: Normalised data-type names.  ``dtype`` (the input) is one of the first
#: eight; the integer and packed names only appear where a name says so
#: (an int32 GEMM output, an NCCL ``u8`` buffer, an fp4 quantiser).
DTYPES: tuple[str, ...] = (
    "fp16",
    "bf16",
    "fp32",
    "tf32",
    "fp8",
    "int8",
    "int4",
    "fp64",
    "int32",
    "int64",
    "uint8",
    "fp4",
)


@dataclass(frozen=True)
class KernelFamily:
    """What a kernel name says about the kernel.

    ``details`` holds whatever else the name gave (``head_dim``, ``causal``,
    ``split_kv``, ``mma``, ``layout``, ``stages``, ``arch``, ``op``,
    ``collective``, ...).  Results are shared between calls (memoised):
    treat ``details`` as read-only.
    """

    family: str
    library: str | None = None
    dtype: str | None = None
    out_dtype: str | None = None
    tile: tuple[int, ...] | None = None
    details: Details = field(default_factory=dict, hash=False)

    def to_dict(self) -> KernelFamilyDict:
        """Plain, JSON-ready data (tuples become lists, details are copied)."""
        return {
            "family": self.family,
            "library": self.library,
            "dtype": self.dtype,
            "out_dtype": self.out_dtype,
            "tile": list(self.tile) if self.tile is not None else None,
            "details": {k: _plain(v) for k, v in self.details.items()},
        }


def _plain(value: DetailValue) -> PlainDetail:
    """Tuples to lists, for JSON."""
    if isinstance(value, tuple):
        return list(value)
    return value
