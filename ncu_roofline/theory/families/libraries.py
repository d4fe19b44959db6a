"""Library namespaces: which library a name points to, and cuDNN / CUB kernels.

:func:`library_of` reads the namespace (or a tell-tale leaf) of a name that
no specific recogniser claimed, for the keyword table and the fallback.
"""

from __future__ import annotations

import re

from ncu_roofline.theory.families.anatomy import Name
from ncu_roofline.theory.families.dtypes import cxx_dtype
from ncu_roofline.theory.families.kinds import Details, KernelFamily
from ncu_roofline.theory.families.pytorch import ATEN_LEAVES, triton_ish


def library_of(n: Name) -> str | None:
    """The library a name's namespace (or shape) points to."""
    ns = n.ns
    low_ns = ns.lower()
    leaf = n.leaf
    if low_ns.startswith("vllm") or "::vllm" in low_ns:
        return "vllm"
    if "flashinfer" in low_ns:
        return "flashinfer"
    if "tensorrt_llm" in low_ns or "trtllm" in low_ns:
        return "trtllm"
    if (
        ns.startswith(("at::", "c10::", "at_cuda_detail"))
        or ns in ("at", "c10")
        or leaf.startswith("cunn_")
    ):
        return "pytorch"
    if ATEN_LEAVES.match(leaf):
        return "pytorch"
    if "cudnn" in low_ns:
        return "cudnn"
    if low_ns.startswith(("cub", "thrust")) or "::cub" in low_ns:
        return "cub"
    if "cublaslt" in low_ns:
        return "cublasLt"
    if "cublas" in (n.params or "").lower() or "cublas" in low_ns:
        return "cublas"
    if low_ns.startswith(("flash", "pytorch_flash")):
        return "flash-attn"
    if "cutlass" in low_ns:
        return "cutlass"
    if "nccl" in leaf.lower():
        return "nccl"
    if triton_ish(n):
        return "triton"
    return None


# --- cuDNN and CUB namespaces ---------------------------------------------------------------------

_CUDNN_COPY = re.compile(r"(?i:nchwto|nhwcto|tonhwc|tonchw|transpose|copy)")


def cudnn(n: Name) -> KernelFamily | None:
    """cuDNN kernels outside xmma: layout transforms, softmax, norms, pooling, convolutions."""
    lows = (n.ns + "::" + n.leaf).lower()
    if "cudnn" not in lows:
        return None
    leaf = n.leaf
    low = leaf.lower()
    dtype = cxx_dtype(n.targs)
    if _CUDNN_COPY.search(leaf):
        return KernelFamily("copy", "cudnn", dtype, dtype, details={"op": "layout_transform"})
    if "softmax" in low:
        return KernelFamily("softmax", "cudnn", dtype, dtype)
    if low.startswith("bn_") or "batch_norm" in low or "batchnorm" in low:
        return KernelFamily("elementwise", "cudnn", dtype, dtype, details={"op": "batch_norm"})
    if "pool" in low:
        return KernelFamily("reduce", "cudnn", dtype, dtype, details={"op": "pooling"})
    if "op_generic_tensor" in low or "activation" in low:
        return KernelFamily("elementwise", "cudnn", dtype, dtype)
    details: Details = {}
    for alg in ("winograd", "fft", "implicit", "precomputed", "gemm"):
        if alg in low:
            details["algorithm"] = alg
            break
    return KernelFamily("conv", "cudnn", dtype, dtype, details=details)


def cub(n: Name) -> KernelFamily | None:
    """CUB and Thrust device algorithms (sort, scan, reduce, select, transform)."""
    ns = n.ns
    if not (
        ns.startswith(("cub", "thrust"))
        or "::cub" in ns
        or "cub::" in ns
        or ns.startswith("at_cuda_detail::cub")
    ):
        return None
    leaf = n.leaf
    dtype = cxx_dtype(n.targs)
    if "Sort" in leaf:
        return KernelFamily("topk_sample", "cub", dtype, dtype, details={"op": "sort"})
    if "Init" in leaf or "Fill" in leaf:
        return KernelFamily("memset", "cub", dtype, dtype, details={"op": "init"})
    if "Scan" in leaf:
        return KernelFamily("reduce", "cub", dtype, dtype, details={"op": "scan"})
    if "Reduce" in leaf or "Histogram" in leaf:
        return KernelFamily("reduce", "cub", dtype, dtype, details={"op": leaf})
    if "Select" in leaf or "Partition" in leaf:
        return KernelFamily("copy", "cub", dtype, dtype, details={"op": "select"})
    if "Transform" in leaf or "ForEach" in leaf or "kernel_agent" in leaf:
        return KernelFamily("elementwise", "cub", dtype, dtype, details={"op": leaf})
    return None
