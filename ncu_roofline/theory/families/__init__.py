"""Kernel-name families: what a demangled kernel name says about its work.

ncu prints demangled kernel names.  They never carry the problem shape
(M, N, K, tokens, context length), but they usually say *what kind* of
kernel ran (GEMM, GEMV, paged-attention decode, RMSNorm, ...) and often the
data type, the CTA tile, the MMA instruction, the head dimension or the
causal flag.  :func:`classify` turns one name into a :class:`KernelFamily`;
:func:`classify_names` does it once per distinct name of a profile.

Families (:data:`FAMILIES`) are the classes the theory module has formulas
for.  Recognised naming schemes, most specific first:

* cuBLAS legacy (``ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn``),
  cuBLASLt / cuDNN xmma (``sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_...``),
  cuBLAS ``nvjet`` (``nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT``; the type code is
  undocumented, the letters are inferred: ``h`` fp16, ``t`` bf16, ``s`` fp32,
  ``q`` fp8), cuBLAS GEMV and small kernels (``gemv2T_kernel_val``, ``gemvx::kernel``,
  ``gemmSN_TN_kernel``, ``splitKreduce_kernel``);
* CUTLASS 2.x/3.x procedural names (``cutlass_80_tensorop_f16_s16816gemm_f16_256x128_32x3_tn_align8``,
  ``cutlass3x_sm90_...``) and template names (``GemmShape<128, 128, 32>``,
  ``cute::tuple<cute::C<128>, cute::C<128>, cute::C<64>>``);
* FlashAttention 2/3/4, FlashInfer, TensorRT-LLM (fmha_v2, MMHA, XQA), vLLM,
  Marlin, cuDNN, CUB, PyTorch ATen, Triton / TorchInductor and NCCL;
* a keyword table for everything else (user kernels such as ``gemm_v0``).

The demangled names of template-heavy kernels run to thousands of
characters, so every pattern here is linear in the name's length: no
nested quantifiers, and identifier-leading patterns anchored with a
look-behind so that a search does not restart inside an identifier.

Naming conventions of cuBLAS, cuDNN and nvjet are undocumented and change
between releases: parsing is heuristic and fails soft (family known,
tile unknown).

Layout: :mod:`.kinds` (the vocabulary and :class:`KernelFamily`),
:mod:`.anatomy` and :mod:`.dtypes` (name parsing shared by all
recognisers), then one module per library family -- :mod:`.comm`,
:mod:`.pytorch`, :mod:`.attention`, :mod:`.gemm`, :mod:`.libraries` (cuDNN,
CUB, namespace to library) and :mod:`.keywords`.  This module holds the
order in which the recognisers are tried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import lru_cache

from ncu_roofline.theory.families.anatomy import Name, normalise, parse
from ncu_roofline.theory.families.attention import (
    flash,
    flashinfer,
    other_attention,
    trtllm_attention,
    vllm_attention,
)
from ncu_roofline.theory.families.comm import custom_comm, memops, nccl
from ncu_roofline.theory.families.dtypes import cxx_dtype
from ncu_roofline.theory.families.gemm import (
    cublas_legacy,
    cublas_small,
    cutlass_procedural,
    cutlass_template,
    marlin,
    nvjet,
    xmma,
)
from ncu_roofline.theory.families.keywords import keywords
from ncu_roofline.theory.families.kinds import DTYPES, FAMILIES, LIBRARIES, KernelFamily
from ncu_roofline.theory.families.libraries import cub, cudnn, library_of
from ncu_roofline.theory.families.pytorch import aten, inductor, triton

__all__ = [
    "DTYPES",
    "FAMILIES",
    "LIBRARIES",
    "KernelFamily",
    "classify",
    "classify_names",
]


def classify(name: str) -> KernelFamily:
    """The family of one kernel name; never raises (``unknown`` when unsure)."""
    if not isinstance(name, str):
        return KernelFamily("unknown")
    return _classify_cached(name)


def classify_names(names: Iterable[str]) -> dict[str, KernelFamily]:
    """Classify each distinct name once: ``{name: KernelFamily}``.

    Profiles hold up to hundreds of thousands of launches of a few dozen
    names; each distinct name is parsed once (and cached across calls).
    Keys are ``str(name)``, in first-seen order.
    """
    out: dict[str, KernelFamily] = {}
    for name in names:
        key = name if isinstance(name, str) else str(name)
        if key not in out:
            out[key] = classify(name)
    return out


@lru_cache(maxsize=32768)
def _classify_cached(name: str) -> KernelFamily:
    try:
        return _classify(name)
    except Exception as exc:  # a parser bug must not break a report
        return KernelFamily("unknown", details={"parse_error": type(exc).__name__})


_Recogniser = Callable[[Name], KernelFamily | None]


def _classify(name: str) -> KernelFamily:
    s = normalise(name)
    if not s:
        return KernelFamily("unknown")
    n = parse(s)
    for recognise in _RECOGNISERS:
        found = recognise(n)
        if found is not None:
            return found
    return KernelFamily(
        "unknown",
        library=library_of(n),
        dtype=cxx_dtype(n.targs) or cxx_dtype(n.params),
    )


# Most specific first: the first recogniser that claims a name wins, so the
# keyword table and the catch-all for Triton JIT names come last.
_RECOGNISERS: tuple[_Recogniser, ...] = (
    memops,
    nccl,
    inductor,
    flash,
    flashinfer,
    trtllm_attention,
    vllm_attention,
    other_attention,
    custom_comm,
    cublas_legacy,
    xmma,
    nvjet,
    cutlass_procedural,
    cutlass_template,
    cublas_small,
    marlin,
    aten,
    cudnn,
    cub,
    keywords,
    triton,
)
