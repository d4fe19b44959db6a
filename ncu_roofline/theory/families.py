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
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

__all__ = [
    "DTYPES",
    "FAMILIES",
    "LIBRARIES",
    "KernelFamily",
    "classify",
    "classify_names",
]

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
    details: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain, JSON-ready data (tuples become lists, details are copied)."""
        return {
            "family": self.family,
            "library": self.library,
            "dtype": self.dtype,
            "out_dtype": self.out_dtype,
            "tile": list(self.tile) if self.tile is not None else None,
            "details": {k: _plain(v) for k, v in self.details.items()},
        }


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, for JSON."""
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


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


# ---------------------------------------------------------------------------
# Data types
# ---------------------------------------------------------------------------

# C++ type spellings in template arguments and parameter lists.
_CXX_DTYPE = re.compile(
    r"(?<![\w:])(?:c10::|cutlass::|at::|std::)?"
    r"(__nv_bfloat16|__nv_half|__half|half_t|bfloat16_t|BFloat16|Half|bfloat16|float16|"
    r"float_e4m3_t|float_e5m2_t|Float8_e4m3fnuz|Float8_e4m3fn|Float8_e5m2fnuz|Float8_e5m2|"
    r"__nv_fp8_e4m3|__nv_fp8_e5m2|tfloat32_t|int4b_t|uint4b_t|int8_t|uint8_t|signed char|"
    r"half|float|double)(?!\w)"
)
_CXX_NORM: dict[str, str] = {
    "__nv_bfloat16": "bf16",
    "bfloat16_t": "bf16",
    "BFloat16": "bf16",
    "bfloat16": "bf16",
    "__nv_half": "fp16",
    "__half": "fp16",
    "half_t": "fp16",
    "Half": "fp16",
    "half": "fp16",
    "float16": "fp16",
    "float_e4m3_t": "fp8",
    "float_e5m2_t": "fp8",
    "Float8_e4m3fnuz": "fp8",
    "Float8_e4m3fn": "fp8",
    "Float8_e5m2fnuz": "fp8",
    "Float8_e5m2": "fp8",
    "__nv_fp8_e4m3": "fp8",
    "__nv_fp8_e5m2": "fp8",
    "tfloat32_t": "tf32",
    "int4b_t": "int4",
    "uint4b_t": "int4",
    "int8_t": "int8",
    "signed char": "int8",
    "uint8_t": "uint8",
    "float": "fp32",
    "double": "fp64",
}

# Short spellings inside underscore-separated names (xmma, CUTLASS, fmha_v2, ...).
_SHORT_NORM: dict[str, str] = {
    "fp16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "bf16": "bf16",
    "fp32": "fp32",
    "f32": "fp32",
    "tf32": "tf32",
    "fp64": "fp64",
    "f64": "fp64",
    "fp8": "fp8",
    "f8": "fp8",
    "e4m3": "fp8",
    "e5m2": "fp8",
    "e4m3fn": "fp8",
    "int8": "int8",
    "i8": "int8",
    "s8": "int8",
    "u8": "uint8",
    "uint8": "uint8",
    "int4": "int4",
    "i4": "int4",
    "s4": "int4",
    "u4": "int4",
    "u4b8": "int4",
    "uint4b8": "int4",
    "int32": "int32",
    "i32": "int32",
    "s32": "int32",
    "fp4": "fp4",
    "nvfp4": "fp4",
    "e2m1": "fp4",
}

# Short dtype words standing alone in a name (``..._fp8_quant``, ``fp16_...``).
_WORD_DTYPE = re.compile(
    r"(?<![A-Za-z0-9])(bf16|fp16|fp32|tf32|fp64|fp8|e4m3|e5m2|int8|int4|nvfp4|fp4|w4a16|w8a8|w4a8)"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_WORD_NORM = {"w4a16": "int4", "w8a8": "int8", "w4a8": "int4"}

# Packed dtype pairs of xmma names: ``bf16f32``, ``e4m3e4m3``, ``i8i32``.
_PACKED = re.compile(r"bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8|s4|u4")
_PACKED_FULL = re.compile(r"(?:bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8|s4|u4)+")


def _cxx_dtypes(text: str | None) -> list[str]:
    """Normalised C++ data types in ``text``, in order."""
    if not text:
        return []
    return [_CXX_NORM[m.group(1)] for m in _CXX_DTYPE.finditer(text)]


def _cxx_dtype(text: str | None) -> str | None:
    """The first C++ data type in ``text``."""
    if not text:
        return None
    m = _CXX_DTYPE.search(text)
    return _CXX_NORM[m.group(1)] if m else None


def _word_dtype(text: str) -> str | None:
    """A dtype word standing alone in an underscore name (``scaled_fp8_quant``)."""
    m = _WORD_DTYPE.search(text)
    if not m:
        return None
    word = m.group(1).lower()
    return _WORD_NORM.get(word) or _SHORT_NORM.get(word)


def _fp8_format(text: str) -> str | None:
    """``e4m3`` / ``e5m2`` when the name says which fp8."""
    low = text.lower()
    if "e4m3" in low:
        return "e4m3"
    if "e5m2" in low:
        return "e5m2"
    return None


# ---------------------------------------------------------------------------
# Name anatomy
# ---------------------------------------------------------------------------

_PRIM_CAST = re.compile(
    r"\((?:unsigned |signed )?(?:long long|long|int|bool|short|char|unsigned|size_t|"
    r"u?int(?:8|16|32|64)_t)\)\s*(?=[-\d])"
)
_ANON = re.compile(r"\(anonymous namespace\)::|<unnamed>::|\{anonymous\}::|`anonymous namespace'::")
_SPACES = re.compile(r"\s+")
_LEADING_VOID = re.compile(r"^(?:void|__global__ void)\s+")
_INT_ARG = re.compile(r"^(?:\([^()]*\))?\s*(-?\d+)[uUlL]*$")


@dataclass
class _Name:
    """A normalised kernel name cut into its parts."""

    s: str  # normalised full name
    base: str  # qualified function name (``at::native::reduce_kernel``)
    leaf: str  # last scope of ``base`` (``reduce_kernel``)
    ns: str  # scopes before the leaf (``at::native``)
    targs: str | None  # text inside the outer template brackets
    params: str | None  # text inside the parameter list
    _args: list[str] | None = None

    @property
    def args(self) -> list[str]:
        """Top-level template arguments."""
        if self._args is None:
            self._args = _split_top(self.targs) if self.targs else []
        return self._args

    @property
    def jit_like(self) -> bool:
        """No parameter list, template or scope: an extern-C / Triton JIT name."""
        return (
            self.targs is None and self.params is None and "::" not in self.s and " " not in self.s
        )


def _normalise(name: str) -> str:
    s = _SPACES.sub(" ", name).strip()
    s = _LEADING_VOID.sub("", s)
    s = _ANON.sub("", s)
    s = _PRIM_CAST.sub("", s)
    return s


def _balanced(s: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index of the bracket closing the one at ``start`` (or ``len(s)``)."""
    depth = 0
    for i in range(start, len(s)):
        ch = s[i]
        if ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return len(s)


def _split_top(text: str) -> list[str]:
    """Split at commas outside any bracket."""
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def _template_args_at(s: str, open_idx: int) -> list[str]:
    """Top-level arguments of the template whose ``<`` is at ``open_idx``."""
    end = _balanced(s, open_idx, "<", ">")
    return _split_top(s[open_idx + 1 : end])


def _parse(s: str) -> _Name:
    i = 0
    n = len(s)
    while i < n and s[i] not in "<(":
        i += 1
    base = s[:i].strip()
    targs: str | None = None
    params: str | None = None
    if i < n and s[i] == "<":
        end = _balanced(s, i, "<", ">")
        targs = s[i + 1 : end]
        i = end + 1
    if i < n and s[i] == "(":
        end = _balanced(s, i, "(", ")")
        params = s[i + 1 : end]
    leaf = base.rsplit("::", 1)[-1].strip()
    ns = base[: len(base) - len(leaf)].rstrip(":").strip()
    return _Name(s=s, base=base, leaf=leaf, ns=ns, targs=targs, params=params)


def _int(arg: str) -> int | None:
    m = _INT_ARG.match(arg.strip())
    return int(m.group(1)) if m else None


def _bool(arg: str) -> bool | None:
    a = arg.strip()
    if a in ("true", "1"):
        return True
    if a in ("false", "0"):
        return False
    return None


def _ints(args: list[str]) -> list[int]:
    return [v for v in (_int(a) for a in args) if v is not None]


def _dims(text: str) -> tuple[int, ...]:
    """``"2x1x1"`` -> ``(2, 1, 1)``."""
    return tuple(int(p) for p in text.split("x") if p.isdigit())


_MMA_NAMES = {
    "884": "m8n8k4",
    "1688": "m16n8k8",
    "16816": "m16n8k16",
    "16832": "m16n8k32",
    "8816": "m8n8k16",
    "8832": "m8n8k32",
    "16864": "m16n8k64",
    "1684": "m16n8k4",
}
_ACC_LETTER = {"s": "fp32", "h": "fp16", "d": "fp64", "i": "int32", "c": "fp32", "z": "fp64"}
_IN_LETTER = {"s": "fp32", "h": "fp16", "d": "fp64", "i": "int8", "c": "fp32", "z": "fp64"}
_ARCH_WORDS = {
    "maxwell": "sm50",
    "pascal": "sm60",
    "volta": "sm70",
    "turing": "sm75",
    "ampere": "sm80",
    "ada": "sm89",
    "hopper": "sm90",
    "blackwell": "sm100",
}


def _mma(code: str) -> str:
    return _MMA_NAMES.get(code, code)


def _out_of_storage(dtype: str | None) -> str | None:
    """tf32 is a compute type; what lands in memory is fp32."""
    return "fp32" if dtype == "tf32" else dtype


# ---------------------------------------------------------------------------
# The recognisers, most specific first
# ---------------------------------------------------------------------------

_Recogniser = Callable[[_Name], "KernelFamily | None"]


def _classify(name: str) -> KernelFamily:
    s = _normalise(name)
    if not s:
        return KernelFamily("unknown")
    n = _parse(s)
    for recognise in _RECOGNISERS:
        found = recognise(n)
        if found is not None:
            return found
    return KernelFamily(
        "unknown",
        library=_library(n),
        dtype=_cxx_dtype(n.targs) or _cxx_dtype(n.params),
    )


# --- memcpy / memset pseudo-kernels ---------------------------------------

_MEMOP = re.compile(r"^\[?\s*(?:CUDA\s+)?mem(cpy|set)\b", re.IGNORECASE)
_MEMCPY_DIR = re.compile(
    r"(HtoD|DtoH|DtoD|HtoH|PtoP|DtoA|AtoD|Host-to-Device|Device-to-Host|Device-to-Device|"
    r"Host-to-Host|Peer-to-Peer)",
    re.IGNORECASE,
)


def _memops(n: _Name) -> KernelFamily | None:
    m = _MEMOP.match(n.s)
    if not m:
        return None
    if m.group(1).lower() == "set":
        return KernelFamily("memset", details={"op": "memset", "pseudo_kernel": True})
    details: dict[str, Any] = {"op": "memcpy", "pseudo_kernel": True}
    d = _MEMCPY_DIR.search(n.s)
    if d:
        details["direction"] = d.group(1)
    return KernelFamily("copy", details=details)


# --- NCCL and custom all-reduce -------------------------------------------

_NCCL = re.compile(r"^nccl(?:Dev)?Kernel_(\w*)")
_NCCL_COLL = (
    "AllReduce",
    "AllGather",
    "ReduceScatter",
    "Broadcast",
    "Reduce",
    "SendRecv",
    "AllToAll",
    "Send",
    "Recv",
    "Generic",
)
_NCCL_OPS = ("Sum", "Prod", "Max", "Min", "Avg", "PreMulSum", "SumPostDiv")
_NCCL_ALGOS = ("RING", "TREE", "NVLS", "COLLNET", "PAT", "CollNet")
_NCCL_PROTOS = ("LL128", "LL", "SIMPLE")
_NCCL_DTYPE = re.compile(
    r"(?<![A-Za-z0-9])(__nv_bfloat16|__nv_fp8_e4m3|__nv_fp8_e5m2|u?int(?:8|32|64)_t|f8e4m3|f8e5m2|"
    r"bf16|f16|f32|f64|i8|u8|i32|u32|i64|u64|half|float|double)(?![A-Za-z0-9])"
)
_NCCL_DTYPE_NORM = {
    "__nv_bfloat16": "bf16",
    "bf16": "bf16",
    "f16": "fp16",
    "half": "fp16",
    "f32": "fp32",
    "float": "fp32",
    "f64": "fp64",
    "double": "fp64",
    "i8": "int8",
    "int8_t": "int8",
    "u8": "uint8",
    "uint8_t": "uint8",
    "i32": "int32",
    "int32_t": "int32",
    "i64": "int64",
    "int64_t": "int64",
    "f8e4m3": "fp8",
    "f8e5m2": "fp8",
    "__nv_fp8_e4m3": "fp8",
    "__nv_fp8_e5m2": "fp8",
}
_COMM_WORDS = re.compile(
    r"(?i:all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|cross_device_reduce|lamport|"
    r"multimem_|send_?recv|custom_?all_?reduce)"
)


def _nccl(n: _Name) -> KernelFamily | None:
    m = _NCCL.match(n.leaf)
    if not m:
        return None
    rest = m.group(1)
    tokens = [t for t in rest.split("_") if t]
    details: dict[str, Any] = {}
    for t in tokens:
        if "collective" not in details and t in _NCCL_COLL:
            details["collective"] = t
        elif "reduce_op" not in details and t in _NCCL_OPS:
            details["reduce_op"] = t
        elif "algo" not in details and t in _NCCL_ALGOS:
            details["algo"] = t.upper()
        elif "proto" not in details and t in _NCCL_PROTOS:
            details["proto"] = t
    d = _NCCL_DTYPE.search(rest)
    dtype = None
    if d:
        details["nccl_dtype"] = d.group(1)
        dtype = _NCCL_DTYPE_NORM.get(d.group(1))
    details["note"] = "a kernel may run other collectives or protocols than its name says"
    return KernelFamily("communication", "nccl", dtype, dtype, details=details)


def _custom_comm(n: _Name) -> KernelFamily | None:
    m = _COMM_WORDS.search(n.leaf)
    if not m:
        return None
    details: dict[str, Any] = {"collective": m.group(0).lower().replace("_", "")}
    return KernelFamily(
        "communication", _library(n), _cxx_dtype(n.targs) or _cxx_dtype(n.params), details=details
    )


# --- TorchInductor and Triton ----------------------------------------------

_INDUCTOR = re.compile(r"^triton_(poi|red|per|tem|for|spl|sca|mix|unk)_(\w*)$")
_TRITON_SIG = re.compile(r"_\d+[dc]\d+[dce][\dcde]*$")
_TRAILING_INDEX = re.compile(r"_\d+$")
_INDUCTOR_KIND = {
    "poi": "pointwise",
    "red": "reduction",
    "per": "persistent_reduction",
    "tem": "template",
    "for": "foreach",
    "spl": "split_scan",
    "sca": "scan",
    "mix": "mixed",
    "unk": "unknown",
}
_COPY_OPS = frozenset(
    {
        "clone",
        "to",
        "copy",
        "cat",
        "permute",
        "view",
        "transpose",
        "slice",
        "expand",
        "unsqueeze",
        "squeeze",
        "select",
        "stack",
        "contiguous",
        "reshape",
        "t",
        "as",
        "strided",
        "split",
        "with",
        "sizes",
        "constant",
        "pad",
        "nd",
    }
)
_FILL_OPS = frozenset({"fill", "zeros", "zero", "full", "ones", "empty", "new", "like"})


def _inductor_family(kind: str, ops: str) -> tuple[str, str | None]:
    """Family (and activation) of an Inductor kernel from its fused aten op names."""
    low = ops.lower()
    toks = {t for t in low.split("_") if t and not t.isdigit()}
    if kind == "tem":
        if "flex_decoding" in low:
            return "attention_decode", None
        if "flex_attention" in low or "sdpa" in low:
            return "attention_prefill", None
        if "convolution" in low or "conv" in toks:
            return "conv", None
        return "gemm", None
    if "rms_norm" in low or "rmsnorm" in low:
        return "rmsnorm", None
    if "layer_norm" in low or "group_norm" in low:
        return "layernorm", None
    if "softmax" in low:
        return "softmax", None
    if {"mean", "rsqrt", "pow"} <= toks:
        return "rmsnorm", None
    if "var_mean" in low and "rsqrt" in toks:
        return "layernorm", None
    if "embedding" in low:
        return "embedding", None
    if {"topk"} & toks or {"sort"} & toks:
        return "topk_sample", None
    if kind in ("poi", "mix"):
        if "mul" in toks:
            for act in ("silu", "gelu"):
                if act in toks:
                    return "act_and_mul", act
        if toks and toks <= _COPY_OPS:
            return "copy", None
        if toks and toks <= _FILL_OPS:
            return "memset", None
        return "elementwise", None
    if kind == "for":
        return "elementwise", None
    return "reduce", None


def _inductor(n: _Name) -> KernelFamily | None:
    if not n.jit_like:
        return None
    m = _INDUCTOR.match(n.s)
    if not m:
        return None
    kind, ops = m.group(1), m.group(2)
    ops = _TRITON_SIG.sub("", ops)
    ops = _TRAILING_INDEX.sub("", ops)
    if ops.startswith("fused_"):
        ops = ops[len("fused_") :]
    family, act = _inductor_family(kind, ops)
    details: dict[str, Any] = {"kind": _INDUCTOR_KIND[kind], "op": ops}
    if act:
        details["act"] = act
    return KernelFamily(family, "inductor", details=details)


def _triton_ish(n: _Name) -> bool:
    """A JIT name that looks like Triton's (not just any extern-C kernel)."""
    if not n.jit_like:
        return False
    s = n.s
    return (
        s.startswith(("_", "triton")) or s.endswith("_kernel") or _TRITON_SIG.search(s) is not None
    )


def _triton(n: _Name) -> KernelFamily | None:
    if not _triton_ish(n):
        return None
    details: dict[str, Any] = {"op": _TRITON_SIG.sub("", n.s)}
    return KernelFamily("triton", "triton", _word_dtype(n.s), details=details)


# --- FlashAttention 2 / 3 / 4 ------------------------------------------------

_FA2_LEAF = re.compile(r"^flash_(fwd|bwd)_\w+$")
_FA2_TRAITS = re.compile(r"Flash_(fwd|bwd)_kernel_traits<\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)")
_FA3 = re.compile(r"(?<![A-Za-z0-9])FlashAttn(FwdSm\d+|BwdSm\d+|FwdCombine|Fwd|Bwd)")
_FA3_MAINLOOP = re.compile(
    r"CollectiveMainloopFwdSm(\d+)<\s*(\d+),\s*(?:cute::)?tuple<\s*(?:cute::)?C<(\d+)>,\s*"
    r"(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>\s*>,\s*(?:cute::)?tuple<\s*(?:cute::)?C<(\d+)>,\s*"
    r"(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>\s*>,\s*(\d+),\s*([\w:]+),\s*([\w:]+),\s*"
    r"(?:cutlass::)?arch::Sm\d+,\s*(true|false|1|0)"
)
_FA4 = re.compile(
    r"flash_(fwd|bwd)_sm(\d+)_(bf16|fp16|e4m3)_head_dim(\d+)_tile(\d+)x(\d+)(\w*)", re.IGNORECASE
)
_CUTE_TRIPLE = re.compile(
    r"tuple<\s*(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>\s*>"
)


def _cute_tile(s: str) -> tuple[int, ...] | None:
    """The first cute tile triple whose dims are all >= 16 (the first is often the cluster)."""
    for m in _CUTE_TRIPLE.finditer(s):
        dims = tuple(int(g) for g in m.groups())
        if min(dims) >= 16:
            return dims
    return None


def _flash(n: _Name) -> KernelFamily | None:
    m4 = _FA4.search(n.leaf)
    if m4:
        direction, sm, dt, hd, bm, bn, rest = m4.groups()
        fam = "attention_prefill"
        details: dict[str, Any] = {
            "head_dim": int(hd),
            "arch": f"sm{sm}",
            "causal": "causal" in rest.lower(),
            "direction": direction,
            "version": 4,
        }
        return KernelFamily(
            fam, "flash-attn", _SHORT_NORM[dt.lower()], None, (int(bm), int(bn)), details
        )
    m3 = _FA3.search(n.s) if "FlashAttn" in n.s else None
    if m3:
        return _flash3(n, m3.group(1))
    m = _FA2_LEAF.match(n.leaf)
    if not m or not (n.ns in ("", "flash", "pytorch_flash") or "flash" in n.ns):
        return None
    return _flash2(n, m.group(1))


def _flash2(n: _Name, direction: str) -> KernelFamily:
    leaf = n.leaf
    details: dict[str, Any] = {"direction": direction, "version": 2}
    if n.ns.startswith("pytorch_flash"):
        details["vendored_by"] = "pytorch"
    if "combine" in leaf:
        family = "attention_combine"
    elif "splitkv" in leaf:
        family = "attention_decode"
        details["split_kv"] = True
        details["note"] = (
            "flash_fwd_splitkv_kernel serves decode (mha_fwd_kvcache) and split prefill; "
            "classified as decode"
        )
    else:
        family = "attention_prefill"
    tile: tuple[int, ...] | None = None
    dtype: str | None = None
    args = n.args
    if args:
        t = _FA2_TRAITS.search(args[0])
        if t:
            details["head_dim"] = int(t.group(2))
            tile = (int(t.group(3)), int(t.group(4)))
            details["warps"] = int(t.group(5))
        dtype = _cxx_dtype(args[0])
    rest = args[1:]
    bools = [b for b in (_bool(a) for a in rest) if b is not None]
    if family == "attention_combine":
        tile = None  # the traits' tile is the split kernel's; combine tiles by block_m
        ints = _ints(rest)
        if len(ints) >= 2:
            details["block_m"] = ints[0]
            details["log_max_splits"] = ints[1]
            details["max_splits"] = 2 ** ints[1]
    elif family == "attention_decode":
        # <Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, [Is_softcap,] Split, Append_KV>
        if len(bools) == len(rest) and bools:
            details["causal"] = bools[0]
            if len(bools) >= 7:
                details["split"] = bools[-2]
                details["append_kv"] = bools[-1]
    elif (direction == "fwd" or "dq_dk_dv" in leaf) and len(bools) == len(rest) >= 2:
        # <Is_dropout, Is_causal, Is_local, Has_alibi, Is_even_MN, Is_even_K, ...>
        details["dropout"] = bools[0]
        details["causal"] = bools[1]
    return KernelFamily(family, "flash-attn", dtype, dtype, tile, details)


def _flash3(n: _Name, which: str) -> KernelFamily:
    details: dict[str, Any] = {"version": 3}
    if which == "FwdCombine":
        return KernelFamily("attention_combine", "flash-attn", _cxx_dtype(n.s), details=details)
    details["direction"] = "bwd" if which.startswith("Bwd") else "fwd"
    arch = re.search(r"Sm(\d+)", which)
    if arch:
        details["arch"] = f"sm{arch.group(1)}"
    tile: tuple[int, ...] | None = None
    dtype: str | None = None
    m = _FA3_MAINLOOP.search(n.s)
    if m:
        sm, stages, c0, c1, c2, bm, bn, hd, hdv, elem, _acc, causal = m.groups()
        details["arch"] = f"sm{sm}"
        details["stages"] = int(stages)
        details["cluster"] = (int(c0), int(c1), int(c2))
        details["head_dim"] = int(hd)
        details["head_dim_v"] = int(hdv)
        details["causal"] = causal in ("true", "1")
        tile = (int(bm), int(bn))
        dtype = _cxx_dtype(elem)
    else:
        cute = _cute_tile(n.s)
        if cute is not None:
            tile = cute[:2]
        dtype = _cxx_dtype(n.s)
    details["note"] = "FA3 kernels serve prefill and decode (flash_attn_with_kvcache)"
    return KernelFamily("attention_prefill", "flash-attn", dtype, dtype, tile, details)


# --- FlashInfer ----------------------------------------------------------------

_FI_MERGE = re.compile(
    r"^(?:PersistentVariableLength|VariableLength)?MergeStates?\w*$|^AttentionSum\w*$"
)
_FI_MASK = re.compile(r"\((?:flashinfer::)?MaskMode\)(\d)")


def _flashinfer(n: _Name) -> KernelFamily | None:
    leaf = n.leaf
    in_fi = "flashinfer" in n.ns
    if _FI_MERGE.match(leaf) and (in_fi or "MergeState" in leaf):
        return KernelFamily(
            "attention_combine", "flashinfer", _cxx_dtype(n.targs), details={"op": "merge_states"}
        )
    batch_or_single = leaf.startswith(("Batch", "Single")) and "Kernel" in leaf
    decode = batch_or_single and ("Decode" in leaf or leaf.startswith("BatchMLA"))
    prefill = batch_or_single and not decode and ("Prefill" in leaf or leaf.startswith("BatchPOD"))
    if not (decode or prefill):
        return None
    if not (in_fi or "KVCache" in leaf or "MLA" in leaf or "POD" in leaf):
        return None
    details: dict[str, Any] = {}
    dtype = _cxx_dtype(n.targs)
    if decode:
        family = "attention_decode"
        args = n.args
        ints = [_int(a) for a in args[:7]]
        # <POS_ENCODING_MODE, num_stages_smem, tile_size_per_bdx, vec_size, bdx, bdy, bdz,
        #  AttentionVariant, Params>; head_dim = vec_size * bdx, bdy = GQA group size.
        if (
            leaf == "BatchDecodeWithPagedKVCacheKernel"
            and len(args) >= 8
            and all(v is not None for v in ints)
            and _int(args[7]) is None
        ):
            vals = [v for v in ints if v is not None]
            details["pos_encoding_mode"] = vals[0]
            details["stages"] = vals[1]
            details["vec_size"] = vals[3]
            details["head_dim"] = vals[3] * vals[4]
            details["gqa_group_size"] = vals[5]
        details["paged_kv"] = "Paged" in leaf
    else:
        family = "attention_prefill"
        mask = _FI_MASK.search(n.s)
        if mask:
            details["causal"] = mask.group(1) == "1"
        details["paged_kv"] = "Paged" in leaf
        if "POD" in leaf:
            details["note"] = "POD kernels run prefill and decode together"
    if "MLA" in leaf:
        details["mla"] = True
    return KernelFamily(family, "flashinfer", dtype, dtype, details=details)


# --- TensorRT-LLM attention --------------------------------------------------

_FMHA_V2 = re.compile(r"fmha_v2_(\w+)")
_FMHA_V2_TILE = re.compile(r"(?<![A-Za-z0-9])(\d+)_(\d+)_S_(?:([a-z_]*?)_)?(\d+)(?![0-9])")
_FMHA_V2_SM = re.compile(r"_sm(\d+)")
_XQA = re.compile(r"^(?:kernel_mha|xqa\w*)$")


def _trtllm_attention(n: _Name) -> KernelFamily | None:
    leaf = n.leaf
    m = _FMHA_V2.match(leaf)
    if m:
        rest = m.group(1)
        details: dict[str, Any] = {}
        dt = _WORD_DTYPE.search(rest)
        dtype = _SHORT_NORM.get(dt.group(1).lower()) if dt else None
        tile: tuple[int, ...] | None = None
        t = _FMHA_V2_TILE.search(rest)
        if t:
            tile = (int(t.group(1)), int(t.group(2)))
            if t.group(3):
                details["layout"] = t.group(3)
            details["head_dim"] = int(t.group(4))
        sm = _FMHA_V2_SM.search(rest)
        if sm:
            details["arch"] = f"sm{sm.group(1)}"
        details["causal"] = "causal" in rest
        if "tma_ws" in rest:
            details["warp_specialized"] = True
        if "paged" in rest:
            details["paged_kv"] = True
        return KernelFamily("attention_prefill", "trtllm", dtype, dtype, tile, details)
    if leaf == "masked_multihead_attention_kernel":
        details = {"op": "mmha"}
        ints = [v for v in _ints(n.args) if v >= 16]
        if ints:
            details["head_dim"] = ints[0]
        dtype = _cxx_dtype(n.targs)
        return KernelFamily("attention_decode", "trtllm", dtype, dtype, details=details)
    if _XQA.match(leaf) and (not n.ns or "tensorrt_llm" in n.ns or "xqa" in n.ns):
        details = {"op": "xqa"}
        low = leaf.lower()
        for key, pat in (
            ("dtype_code", r"_dt_([a-z0-9]+)"),
            ("head_dim", r"_d_(\d+)"),
            ("kv_dtype_code", r"_kvt_([a-z0-9]+)"),
            ("page_size", r"pagedkv_(\d+)"),
            ("q_heads_per_kv", r"nqpkv_(\d+)"),
        ):
            mm = re.search(pat, low)
            if mm:
                val = mm.group(1)
                details[key] = int(val) if val.isdigit() else val
        dtype = _SHORT_NORM.get(str(details.get("dtype_code", "")))
        return KernelFamily("attention_decode", "trtllm", dtype, dtype, details=details)
    if leaf.startswith("fmha") and "Kernel_" in leaf:
        details = {"op": "trtllm_gen_fmha", "causal": "Causal" in leaf}
        q = re.search(r"Q(?:kv)?(E4m3|Bfloat16|Fp16)", leaf)
        dtype = {"E4m3": "fp8", "Bfloat16": "bf16", "Fp16": "fp16"}.get(q.group(1)) if q else None
        hd = re.search(r"(?<=[a-z0-9])H(?:Qk)?(\d+)", leaf)
        if hd:
            details["head_dim"] = int(hd.group(1))
        family = "attention_decode" if "ForGen" in leaf else "attention_prefill"
        return KernelFamily(family, "trtllm", dtype, details=details)
    return None


# --- vLLM / SGLang / Triton attention ----------------------------------------

_VLLM_PA = re.compile(r"^paged_attention_(v[12]|ll4mi\w*?)_(reduce_)?kernel$|^paged_attention_\w+$")
_KV_DTYPE_ENUM = {0: "auto", 1: "fp8_e4m3", 2: "fp8_e5m2"}
_TRITON_ATTN: dict[str, tuple[str, str]] = {
    "_fwd_kernel_stage1": ("attention_decode", "decode stage 1 (split KV)"),
    "_fwd_grouped_kernel_stage1": ("attention_decode", "grouped decode stage 1 (split KV)"),
    "_decode_att_m_fwd": ("attention_decode", "decode"),
    "_fwd_kernel_stage2": ("attention_combine", "decode stage 2 (merge splits)"),
    "_attn_fwd": ("attention_prefill", "Triton flash attention"),
    "attn_fwd": ("attention_prefill", "Triton flash attention"),
    "_fwd_kernel": ("attention_prefill", "context / prefix-prefill attention"),
    "kernel_unified_attention_2d": ("attention_prefill", "vLLM unified attention (mixed batches)"),
    "kernel_unified_attention_3d": ("attention_decode", "vLLM unified attention, KV segments"),
    "reduce_segments": ("attention_combine", "vLLM unified attention, merge KV segments"),
}


def _vllm_attention(n: _Name) -> KernelFamily | None:
    leaf = n.leaf
    if n.jit_like:
        key = _TRITON_SIG.sub("", leaf)
        if key in _TRITON_ATTN:
            family, note = _TRITON_ATTN[key]
            return KernelFamily(family, "triton", details={"op": key, "note": note})
        return None
    if leaf == "merge_attn_states_kernel":
        return KernelFamily("attention_combine", "vllm", _cxx_dtype(n.targs), details={})
    m = _VLLM_PA.match(leaf)
    if not m:
        return None
    details: dict[str, Any] = {"paged_kv": True}
    args = n.args
    dtype = _cxx_dtype(args[0]) if args else None
    if m.group(2) or "reduce" in leaf:
        # paged_attention_v2_reduce_kernel<T, HEAD_SIZE, NUM_THREADS, PARTITION_SIZE>
        ints = _ints(args[1:])
        if ints:
            details["head_dim"] = ints[0]
        if len(ints) >= 3:
            details["partition_size"] = ints[2]
        return KernelFamily("attention_combine", "vllm", dtype, dtype, details=details)
    # <T, CACHE_T, HEAD_SIZE, BLOCK_SIZE, NUM_THREADS, KV_DTYPE, IS_BLOCK_SPARSE[, PARTITION_SIZE]>
    if m.group(1):
        details["version"] = m.group(1)
    if len(args) >= 5:
        hd, bs, nt = _int(args[2]), _int(args[3]), _int(args[4])
        if hd is not None:
            details["head_dim"] = hd
        if bs is not None:
            details["block_size"] = bs
        if nt is not None:
            details["num_threads"] = nt
        if len(args) >= 6:
            kv = _int(args[5])
            if kv is not None:
                details["kv_cache_dtype"] = _KV_DTYPE_ENUM.get(kv, str(kv))
        if len(args) >= 8:
            part = _int(args[7])
            if part is not None:
                details["partition_size"] = part
        kv_t = _cxx_dtype(args[1])
        if details.get("kv_cache_dtype", "auto") != "auto":
            kv_t = "fp8"
        if kv_t:
            details["kv_dtype"] = kv_t
    return KernelFamily("attention_decode", "vllm", dtype, dtype, details=details)


# --- other fused attention (PyTorch mem-efficient, cuDNN SDPA) ----------------

_MEMEFF = re.compile(r"^fmha_cutlass([FB])_(\w+)$")


def _other_attention(n: _Name) -> KernelFamily | None:
    m = _MEMEFF.match(n.leaf)
    if m:
        direction = "fwd" if m.group(1) == "F" else "bwd"
        rest = m.group(2)
        dt = re.match(r"(bf16|f16|f32)", rest)
        tile = re.search(r"(?<!\d)(\d+)x(\d+)", rest)
        sm = re.search(r"sm(\d+)", rest)
        details: dict[str, Any] = {"direction": direction, "op": "mem_efficient_attention"}
        if sm:
            details["arch"] = f"sm{sm.group(1)}"
        dtype = _SHORT_NORM[dt.group(1)] if dt else None
        library = "pytorch" if "PyTorchMemEffAttention" in n.s else "cutlass"
        return KernelFamily(
            "attention_prefill",
            library,
            dtype,
            dtype,
            (int(tile.group(1)), int(tile.group(2))) if tile else None,
            details,
        )
    low = n.leaf.lower()
    if "cudnn" in low and ("sdpa" in low or "flash_fprop" in low or "flash_bprop" in low):
        details = {"direction": "bwd" if "bprop" in low else "fwd", "op": "sdpa"}
        sm = re.search(r"(?<![a-z])sm(\d+)", low)
        if sm:
            details["arch"] = f"sm{sm.group(1)}"
        dtype = next((_SHORT_NORM[t] for t in low.split("_") if t in _SHORT_NORM), None)
        return KernelFamily("attention_prefill", "cudnn", dtype, details=details)
    return None


# --- cuBLAS legacy names --------------------------------------------------------

_LEGACY = re.compile(r"^(maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell)_(\w+)$")
_LEGACY_OP = re.compile(r"^([shdiczb]?)(\d{3,5})?(gemm|cudnn|conv)$")
_LEGACY_FLAGS = frozenset({"nhwc", "nchw", "nhwc2nchw", "nchw2nhwc"})


def _cublas_legacy(n: _Name) -> KernelFamily | None:
    m = _LEGACY.match(n.leaf)
    if not m:
        return None
    arch_word, rest = m.group(1), m.group(2)
    toks = rest.split("_")
    i = 0
    out_dt: str | None = None
    if i < len(toks) and toks[i] in _SHORT_NORM:
        out_dt = _SHORT_NORM[toks[i]]
        i += 1
    if i >= len(toks):
        return None
    op = _LEGACY_OP.match(toks[i])
    if not op:
        return None
    acc, mma, kind = op.group(1), op.group(2), op.group(3)
    i += 1
    in_dt: str | None = None
    if i < len(toks) and toks[i] in _SHORT_NORM:
        in_dt = _SHORT_NORM[toks[i]]
        i += 1
    details: dict[str, Any] = {"arch": _ARCH_WORDS[arch_word], "arch_name": arch_word}
    if acc:
        details["acc_dtype"] = _ACC_LETTER.get(acc)
        if acc in "cz":
            details["complex"] = True
    if mma:
        details["mma"] = _mma(mma)
    tile_mn: tuple[int, int] | None = None
    tile_k: int | None = None
    flags: list[str] = []
    prev = ""
    for t in toks[i:]:
        dims = re.fullmatch(r"(\d+)x(\d+)", t)
        if dims:
            a, b = int(dims.group(1)), int(dims.group(2))
            if prev == "stages":
                tile_k = a
                details["stages"] = b
            elif tile_mn is None:
                tile_mn = (a, b)
            else:
                flags.append(t)
        elif t.startswith("sliced") and re.fullmatch(r"sliced\d+x\d+", t):
            details["sliced"] = t[len("sliced") :]
        elif re.fullmatch(r"ldg\d+", t):
            details.setdefault("ldg", int(t[3:]))
        elif re.fullmatch(r"[nt]{2}", t):
            details["layout"] = t
        elif re.fullmatch(r"v\d+", t):
            details["variant"] = t
        elif t in _LEGACY_FLAGS:
            details["tensor_layout"] = t
        elif t and t != "stages":
            flags.append(t)
        prev = t
    if flags:
        details["flags"] = tuple(flags)
    if in_dt is None and not mma and acc:
        in_dt = _IN_LETTER.get(acc)
    elif in_dt is None and acc == "h":
        in_dt = "fp16"
    elif in_dt is None and acc == "i":
        in_dt = "int8"
    out = out_dt or (_ACC_LETTER.get(acc) if acc and acc != "i" else None)
    if out is None and acc == "i":
        out = "int32"
    tile: tuple[int, ...] | None = None
    if tile_mn is not None:
        tile = (*tile_mn, tile_k) if tile_k is not None else tile_mn
    if kind == "gemm":
        return KernelFamily("gemm", "cublas", in_dt, _out_of_storage(out), tile, details)
    return KernelFamily("conv", "cudnn", in_dt, _out_of_storage(out), tile, details)


# --- cuBLASLt / cuDNN xmma --------------------------------------------------------

_XMMA = re.compile(r"^sm(\d{2,3})a?_xmma_(gemm|fprop|dgrad|wgrad)_(\w*)$")
_XMMA_TILE = re.compile(r"tilesize(\d+)x(\d+)x(\d+)")
_XMMA_STAGE = re.compile(r"(?<![a-z])stages?(\d+)")
_XMMA_WARPS = re.compile(r"(warpgroupsize|warpsize)(\d+x\d+x\d+)")
_XMMA_TENSOR = re.compile(r"tensor(\d+)x(\d+)x(\d+)")
_XMMA_SEGK = re.compile(r"segment_k_(on|off)")


def _xmma(n: _Name) -> KernelFamily | None:
    m = _XMMA.match(n.leaf)
    if not m:
        return None
    sm, op, rest = m.groups()
    details: dict[str, Any] = {"arch": f"sm{sm}", "op": op}
    packed: list[list[str]] = []
    layout_seen = False
    for t in rest.split("_"):
        if len(packed) < 3 and _PACKED_FULL.fullmatch(t):
            packed.append([_SHORT_NORM[p] for p in _PACKED.findall(t)])
        elif (
            packed
            and not layout_seen
            and (re.fullmatch(r"[nt]{2}", t) or (op != "gemm" and re.fullmatch(r"[a-z]{4,}", t)))
        ):
            details["layout"] = t
            layout_seen = True
    dtype = packed[0][0] if packed else None
    out = packed[1][0] if len(packed) > 1 else None
    if len(packed) > 1 and len(packed[1]) > 1:
        details["acc_dtype"] = packed[1][1]
    fp8 = _fp8_format(rest)
    if fp8:
        details["fp8_format"] = fp8
    tile: tuple[int, ...] | None = None
    t3 = _XMMA_TILE.search(rest)
    if t3:
        tile = (int(t3.group(1)), int(t3.group(2)), int(t3.group(3)))
    st = _XMMA_STAGE.search(rest)
    if st:
        details["stages"] = int(st.group(1))
    w = _XMMA_WARPS.search(rest)
    if w:
        details["warpgroups" if w.group(1) == "warpgroupsize" else "warps"] = _dims(w.group(2))
    tc = _XMMA_TENSOR.search(rest)
    if tc:
        details["mma"] = f"m{tc.group(1)}n{tc.group(2)}k{tc.group(3)}"
    sk = _XMMA_SEGK.search(rest)
    if sk:
        details["segment_k"] = sk.group(1) == "on"
    if op == "gemm" and "implicit" not in rest:
        library = "cudnn" if "cudnn" in rest else "cublasLt"
        return KernelFamily("gemm", library, dtype, _out_of_storage(out), tile, details)
    details["direction"] = op
    return KernelFamily("conv", "cudnn", dtype, _out_of_storage(out), tile, details)


# --- cuBLAS nvjet -------------------------------------------------------------------

_NVJET_LETTER = {
    "h": "fp16",
    "t": "bf16",
    "s": "fp32",
    "q": "fp8",
    "o": "fp8",
    "d": "fp64",
    "i": "int8",
}


def _nvjet(n: _Name) -> KernelFamily | None:
    if not n.leaf.startswith("nvjet_"):
        return None
    toks = n.leaf[len("nvjet_") :].split("_")
    details: dict[str, Any] = {"type_code_inferred": True}
    code = ""
    dims: list[tuple[int, int]] = []
    flags: list[str] = []
    for t in toks:
        d = re.fullmatch(r"(\d+)x(\d+)", t)
        if d:
            dims.append((int(d.group(1)), int(d.group(2))))
        elif re.fullmatch(r"sm\d+a?", t):
            details["arch"] = t.rstrip("a")
        elif not dims and not code and re.fullmatch(r"[a-z]{2,6}", t):
            code = t
        elif re.fullmatch(r"[NT]{3}", t):
            details["layout"] = t
        elif t in ("v", "h"):
            details["raster"] = t
        elif t.startswith("coop"):
            details["coop"] = t[len("coop") :]
        elif t:
            flags.append(t)
    if flags:
        details["flags"] = tuple(flags)
        if "splitK" in flags:
            details["split_k"] = True
    tile: tuple[int, ...] | None = None
    if dims:
        tile = dims[0]
        if len(dims) > 1:
            tile = (*dims[0], dims[1][0])
            details["stages"] = dims[1][1]
        if len(dims) > 2:
            details["cluster"] = dims[2]
    dtype = out = None
    if code:
        details["type_code"] = code
        letters = [_NVJET_LETTER.get(c) for c in code]
        dtype = letters[0]
        out = letters[-1]
        if len(code) in (3, 5):
            details["acc_dtype"] = letters[-2]
    return KernelFamily("gemm", "nvjet", dtype, out, tile, details)


# --- CUTLASS procedural names ----------------------------------------------------------

_CUTLASS2 = re.compile(
    r"cutlass_(?:(\d{2,3})_)?(tensorop|simt|wmma_tensorop|wmma)_([a-z0-9_]{1,80}?)_(\d+)x(\d+)"
    r"(?:_(\d+)x(\d+))?_([nt]{2})_align(\d+)"
)
_CUTLASS3 = re.compile(
    r"cutlass3x_sm(\d{2,3})a?_(tensorop|simt|[a-z]+)_([a-z0-9_]{1,120}?)_(\d+)x(\d+)x(\d+)_(\d+x\d+x\d+)_"
    r"(\d+)_([nt]{3})_align(\d+)(\w{0,200})"
)
_CUTLASS_OP = re.compile(
    r"^([a-z]?)(\d{3,5}|\d+x\d+x\d+)?([a-z0-9]*?)(gemm|fprop|dgrad|wgrad|conv\w*)(\w*)$"
)


def _cutlass_procedural(n: _Name) -> KernelFamily | None:
    if "cutlass" not in n.s:
        return None
    m3 = _CUTLASS3.search(n.s)
    if m3:
        return _cutlass3(m3)
    m = _CUTLASS2.search(n.s)
    if not m:
        return None
    sm, opclass, ext, tm, tn, tk, stages, layout, align = m.groups()
    details: dict[str, Any] = {"opclass": opclass, "layout": layout, "align": int(align)}
    if sm:
        details["arch"] = f"sm{sm}"
    toks = ext.split("_")
    c_type: str | None = None
    a_type: str | None = None
    acc = ""
    kind = "gemm"
    seen_op = False
    flags: list[str] = []
    for t in toks:
        op = None if seen_op else _CUTLASS_OP.match(t)
        if op:
            seen_op = True
            acc, mma, extra, kind = op.group(1), op.group(2), op.group(3), op.group(4)
            if mma:
                details["mma"] = _mma(mma)
            if extra in _SHORT_NORM:
                a_type = _SHORT_NORM[extra]
            if op.group(5):
                flags.append(op.group(5))
        elif t in _SHORT_NORM:
            if seen_op:
                a_type = a_type or _SHORT_NORM[t]
            else:
                c_type = _SHORT_NORM[t]
        elif t:
            flags.append(t)
    if flags:
        details["flags"] = tuple(flags)
    if acc:
        details["acc_dtype"] = _ACC_LETTER.get(acc)
    dtype = a_type or (_IN_LETTER.get(acc) if opclass == "simt" and acc else None)
    out = c_type or (_ACC_LETTER.get(acc) if acc else None)
    tile: tuple[int, ...] = (int(tm), int(tn))
    if tk:
        tile = (int(tm), int(tn), int(tk))
        details["stages"] = int(stages)
    if kind in ("fprop", "dgrad", "wgrad") or kind.startswith("conv"):
        details["direction"] = kind
        return KernelFamily("conv", "cutlass", dtype, _out_of_storage(out), tile, details)
    family = "grouped_gemm" if any("group" in f for f in flags) else "gemm"
    return KernelFamily(family, "cutlass", dtype, _out_of_storage(out), tile, details)


def _cutlass3(m: re.Match[str]) -> KernelFamily:
    sm, opclass, ext, tm, tn, tk, cluster, stages, layout, align, sched = m.groups()
    details: dict[str, Any] = {
        "arch": f"sm{sm}",
        "opclass": opclass,
        "cluster": _dims(cluster),
        "stages": int(stages) or "auto",
        "layout": layout,
        "align": int(align),
    }
    toks = [t for t in ext.split("_") if t]
    types = [_SHORT_NORM[t] for t in toks if t in _SHORT_NORM]
    op = _CUTLASS_OP.match(toks[0]) if toks else None
    kind = "gemm"
    if op:
        kind = op.group(4)
        if op.group(1):
            details["acc_dtype"] = _ACC_LETTER.get(op.group(1))
        if op.group(2):
            details["mma"] = op.group(2)
    sched_flags = tuple(t for t in sched.split("_") if t)
    if sched_flags:
        details["schedule"] = sched_flags
    # {A}_{B}_{acc}_{C}_{D}
    dtype = types[0] if types else None
    out = types[4] if len(types) >= 5 else (types[-1] if types else None)
    tile = (int(tm), int(tn), int(tk))
    if kind in ("fprop", "dgrad", "wgrad") or kind.startswith("conv"):
        return KernelFamily("conv", "cutlass", dtype, _out_of_storage(out), tile, details)
    family = "grouped_gemm" if "group" in ext or "ptr_array" in sched else "gemm"
    return KernelFamily(family, "cutlass", dtype, _out_of_storage(out), tile, details)


# --- CUTLASS template names -------------------------------------------------------------

_CUTLASS_T_MARK = re.compile(
    r"GemmShape<|CollectiveMma<|GemmUniversal|ImplicitGemmConvolution|GemmGrouped|"
    r"cutlass::gemm::kernel|cutlass::conv::kernel|MainloopSm\d+"
)
_GEMM_SHAPE = re.compile(r"GemmShape<\s*(\d+),\s*(\d+),\s*(\d+)\s*>")
_INST_SHAPE = re.compile(
    r"(?<![\w])Mma<\s*(?:cutlass::gemm::)?GemmShape<\s*(\d+),\s*(\d+),\s*(\d+)\s*>"
)
_LIN_COMB = re.compile(r"LinearCombination\w*<\s*([\w:]+(?: [\w:]+)?)")
_MULTISTAGE = re.compile(r",\s*(\d+),\s*\((?:[\w:]*::)?SharedMemoryClearOption\)")
_MAINLOOP_STAGES = re.compile(r"MainloopSm(\d+)\w*<\s*(\d+)")
_TILE_ITER_LAYOUT = re.compile(r"PredicatedTileAccessIterator\w*<|PredicatedTileIterator<")
_LAYOUT_WORD = re.compile(r"(?<![\w])(RowMajor|ColumnMajor)(?![\w])")
_SCHEDULE = re.compile(
    r"KernelTmaWarpSpecialized(Cooperative|Pingpong)?|KernelCpAsyncWarpSpecialized\w*"
)


def _cutlass_template(n: _Name) -> KernelFamily | None:
    s = n.s
    if not _CUTLASS_T_MARK.search(s):
        return None
    details: dict[str, Any] = {}
    low_s = s
    if "ImplicitGemmConvolution" in low_s or "cutlass::conv::" in low_s:
        family = "conv"
    elif "Grouped" in low_s or "GroupProblemShape" in low_s or "PtrArray" in low_s:
        family = "grouped_gemm"
    else:
        family = "gemm"
    tile: tuple[int, ...] | None = None
    g = _GEMM_SHAPE.search(s)
    if g:
        tile = (int(g.group(1)), int(g.group(2)), int(g.group(3)))
        shapes = [
            (int(x.group(1)), int(x.group(2)), int(x.group(3))) for x in _GEMM_SHAPE.finditer(s)
        ]
        if len(shapes) > 1 and shapes[1] != tile:
            details["warp_tile"] = shapes[1]
        inst = _INST_SHAPE.search(s)
        if inst:
            details["mma"] = f"m{inst.group(1)}n{inst.group(2)}k{inst.group(3)}"
        if "MmaPipelined" in s:
            details["stages"] = 2
            details["mainloop"] = "MmaPipelined"
        elif "MmaMultistage" in s:
            details["mainloop"] = "MmaMultistage"
            ms = _MULTISTAGE.search(s)
            if ms:
                details["stages"] = int(ms.group(1))
        if "Volta" in s:
            details["arch"] = "sm70"
        layouts: list[str] = []
        for it in _TILE_ITER_LAYOUT.finditer(s):
            if len(layouts) == 2:
                break
            lw = _LAYOUT_WORD.search(s, it.end(), it.end() + 400)
            if lw:
                layouts.append("t" if lw.group(1) == "RowMajor" else "n")
        if len(layouts) == 2:
            details["layout"] = "".join(layouts)
    else:
        tile = _cute_tile(s)
        ml = _MAINLOOP_STAGES.search(s)
        if ml:
            details["arch"] = f"sm{ml.group(1)}"
            details["stages"] = int(ml.group(2))
    sch = _SCHEDULE.search(s)
    if sch:
        details["schedule"] = sch.group(0)
    dtype = _cxx_dtype(n.targs) or _cxx_dtype(s)
    out: str | None = None
    lc = _LIN_COMB.search(s)
    if lc:
        out = _cxx_dtype(lc.group(1))
    fp8 = _fp8_format(s)
    if dtype == "fp8" and fp8:
        details["fp8_format"] = fp8
    return KernelFamily(family, "cutlass", dtype, out, tile, details)


# --- cuBLAS GEMV / small kernels -----------------------------------------------------------

_CUBLAS_SMALL = re.compile(
    r"^(?:(gemv2([NT])_kernel(?:_val)?)|(gemvNSP_kernel)|(gemmSN_([NT]{2})_kernel)|(gemmk1_kernel)|"
    r"(dot_kernel)|(splitKreduce_kernel)|(reduce_1Block_kernel))$"
)
_GEMV_TENSOR = re.compile(r"cublasGemvTensor\w*<\s*(?:const )?([\w:]+)")


def _cublas_small(n: _Name) -> KernelFamily | None:
    leaf, ns = n.leaf, n.ns
    is_gemvx = leaf == "kernel" and ns.endswith("gemvx")
    m = _CUBLAS_SMALL.match(leaf)
    if not (m or is_gemvx):
        return None
    targs = n.targs or ""
    library = "cublasLt" if "cublasLt" in ns else "cublas"
    dtypes = _cxx_dtypes(targs)
    dtype = dtypes[0] if dtypes else None
    details: dict[str, Any] = {}
    if is_gemvx or (m and (m.group(1) or m.group(3))):
        details["op"] = "gemv"
        if m and m.group(2):
            details["transpose"] = m.group(2)
        tens = _GEMV_TENSOR.findall(targs)
        out = _cxx_dtype(tens[2]) if len(tens) >= 3 else None
        return KernelFamily("gemv", library, dtype, out, details=details)
    assert m is not None
    if m.group(4) or m.group(6):
        details["op"] = "gemm_small_n" if m.group(4) else "gemm_k1"
        details["skinny"] = True
        if m.group(5):
            details["layout"] = m.group(5).lower()
        return KernelFamily("gemm", library, dtype, dtype, details=details)
    if m.group(7):
        return KernelFamily("gemv", library, dtype, dtype, details={"op": "dot"})
    # splitKreduce_kernel / reduce_1Block_kernel
    details = {"op": "split_k_reduce", "split_k_reduce": True} if m.group(8) else {"op": "reduce"}
    out = dtypes[-1] if dtypes else None
    return KernelFamily("reduce", library, dtype, out, details=details)


# --- Marlin and other weight-only quantised GEMMs ---------------------------------------------

_MARLIN = re.compile(r"(?<![\w])Marlin(MoE\w*)?<")
_WEIGHT_BITS = re.compile(
    r"(?<![A-Za-z0-9])(?:([2348])_?bits?|w([2348])a\d+|int([48]))(?![A-Za-z0-9])", re.I
)


def _weight_bits(text: str) -> int | None:
    m = _WEIGHT_BITS.search(text)
    if not m:
        return None
    return int(next(g for g in m.groups() if g))


def _marlin(n: _Name) -> KernelFamily | None:
    m = _MARLIN.search(n.s)
    if not m:
        return None
    args = _template_args_at(n.s, m.end() - 1)
    details: dict[str, Any] = {}
    dtype = _cxx_dtype(args[0]) if args else None
    ints = [_int(a) for a in args]
    bits: int | None = None
    tile: tuple[int, ...] | None = None
    if dtype is None and len(args) >= 6 and all(v is not None for v in ints[:6]):
        # IST-DASLab Marlin<threads, thread_m_blocks, thread_n_blocks, thread_k_blocks,
        #                   stages, group_blocks>: fp16 activations, int4 weights.
        vals = [v for v in ints[:6] if v is not None]
        dtype = "fp16"
        details["threads"] = vals[0]
        tile = (16 * vals[1], 16 * vals[2], 16 * vals[3])
        details["stages"] = vals[4]
        details["group_size"] = 16 * vals[5] if vals[5] > 0 else "per_channel"
    elif dtype is not None and len(ints) > 1 and ints[1] in (2, 3, 4, 8):
        bits = ints[1]
    details["weight_bits"] = bits or 4
    if bits is None:
        details["weight_bits_assumed"] = True
    family = "grouped_gemm" if m.group(1) or "moe" in n.ns.lower() else "gemm"
    return KernelFamily(family, "marlin", dtype, dtype, tile, details)


# --- PyTorch ATen --------------------------------------------------------------------------------

_ATEN_LEAVES = re.compile(
    r"^(?:softmax_warp_(?:forward|backward)\w*|cunn_\w+|indexSelect\w+|CatArrayBatchedCopy\w*|"
    r"gatherTopK|radixSortKVInPlace|bitonicSortKVInPlace|distribution_\w+|"
    r"vectorized_elementwise_kernel|unrolled_elementwise_kernel|elementwise_kernel\w*|"
    r"reduce_kernel|vectorized_layer_norm_kernel|layer_norm_\w+|index_elementwise_kernel)$"
)
_FUNCTOR_CUDA = re.compile(r"CUDAFunctor(?:OnSelf|OnOther)?_(\w+?)<")
_FUNCTOR = re.compile(r"(?<![\w])([A-Za-z]\w*?)Functor\s*<")
_ITER_FN = re.compile(r"(?<![\w])([A-Za-z_]\w*)\((?:const )?at::Tensor")
_LAMBDA_TYPE = re.compile(r"lambda\(([\w: ]+?)\)")
_ARRAY_N = re.compile(r"Array<\s*char\s*\*,\s*(\d+)\s*>")
_WRAPPER_FUNCTORS = frozenset(
    {"Binary", "BUnary", "AUnary", "Unary", "Opaque", "Load", "Store", "Compare", "Reduce"}
)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_OP_SUFFIXES = (
    "_kernel_cuda",
    "_kernel_impl",
    "_cuda_kernel",
    "CUDAKernelImpl",
    "KernelImpl",
    "_kernel",
    "_cuda",
    "_impl",
    "Kernel",
    "Impl",
)
_RANDOM_OPS = frozenset(
    {
        "uniform",
        "normal",
        "bernoulli",
        "random",
        "random_from_to",
        "random_full64_bits_range",
        "exponential",
        "geometric",
        "cauchy",
        "log_normal",
        "dropout",
        "fused_dropout",
        "masked_scale",
    }
)


_OP_ALIASES = {
    "direct_copy": "copy",
    "copy_": "copy",
    "copy_device_to_device": "copy",
    "arg_max": "argmax",
    "arg_min": "argmin",
    "cat_array": "cat",
    "catarray": "cat",
    "vector_add": "add",
    "vec_add": "add",
    "vectoradd": "add",
}


def _op_name(raw: str) -> str:
    """``direct_copy_kernel_cuda`` -> ``copy``; ``MulFunctor`` stem ``Mul`` -> ``mul``."""
    op = raw
    changed = True
    while changed:
        changed = False
        for suffix in _OP_SUFFIXES:
            if op.endswith(suffix) and len(op) > len(suffix):
                op = op[: -len(suffix)]
                changed = True
    if op.startswith("launch_"):
        op = op[len("launch_") :]
    op = _CAMEL.sub("_", op).lower()
    return _OP_ALIASES.get(op, op)


def _functor_op(text: str) -> tuple[str | None, str | None]:
    """(op, functor's own dtype) of the first op-naming functor or lambda in ``text``."""
    best: tuple[int, str, str | None] | None = None
    m = _FUNCTOR_CUDA.search(text)
    if m:
        best = (m.start(), m.group(1), _cxx_dtype(text[m.end() - 1 : m.end() + 60]))
    for f in _FUNCTOR.finditer(text):
        if best is not None and f.start() > best[0]:
            break
        stem = f.group(1)
        if stem in _WRAPPER_FUNCTORS or stem.startswith("CUDA"):
            continue
        best = (f.start(), stem, _cxx_dtype(text[f.end() - 1 : f.end() + 60]))
        break
    it = _ITER_FN.search(text)
    if it and (best is None or it.start() < best[0]):
        best = (it.start(), it.group(1), None)
    if best is None:
        return None, None
    return _op_name(best[1]), best[2]


def _lambda_dtype(text: str) -> str | None:
    for m in _LAMBDA_TYPE.finditer(text):
        dt = _cxx_dtype(m.group(1))
        if dt:
            return dt
    return None


def _aten_elementwise(n: _Name, library: str | None) -> KernelFamily:
    targs = n.targs or ""
    op, functor_dtype = _functor_op(targs)
    dtype = functor_dtype or _lambda_dtype(targs) or _cxx_dtype(targs)
    details: dict[str, Any] = {"kernel": n.leaf}
    if op:
        details["op"] = op
    arr = _ARRAY_N.search(targs)
    if arr:
        details["n_inputs"] = int(arr.group(1)) - 1
    first = _int(n.args[0]) if n.args else None
    if n.leaf.startswith("vectorized") and first is not None:
        details["vec"] = first
    family = "elementwise"
    if op:
        if "copy" in op:
            family = "copy"
        elif op == "fill" or op.startswith("fill_"):
            family = "memset"
        elif op in _RANDOM_OPS:
            details["op"] = "dropout" if "dropout" in op else "random"
            details["distribution"] = op
    return KernelFamily(family, library, dtype, dtype, details=details)


_REDUCE_OP = re.compile(r"(?<![\w])(\w+?)(?:Ops<|_functor<|_kernel_cuda)")
_DISTRIBUTION = re.compile(
    r"(?<![A-Za-z])(uniform|normal|bernoulli|exponential|geometric|cauchy|log_normal|random)_"
)


def _aten(n: _Name) -> KernelFamily | None:
    in_aten = n.ns.startswith(("at::", "at_cuda_detail", "c10::")) or n.ns == "at"
    if not (in_aten or _ATEN_LEAVES.match(n.leaf)):
        return None
    library = "pytorch"
    leaf = n.leaf
    targs = n.targs or ""
    if leaf.startswith("distribution_"):
        details: dict[str, Any] = {"op": "random", "kernel": leaf}
        d = _DISTRIBUTION.search(targs)
        if d:
            details["distribution"] = d.group(1)
        dt = _cxx_dtype(targs)
        return KernelFamily("elementwise", library, dt, dt, details=details)
    if leaf == "index_elementwise_kernel":
        put = "index_put" in targs
        details = {"op": "index_put" if put else "index", "kernel": leaf}
        opaque = re.search(r"OpaqueType<\s*(\d+)\s*>", targs)
        if opaque:
            details["element_bytes"] = int(opaque.group(1))
        dt = _cxx_dtype(targs)
        return KernelFamily("copy" if put else "embedding", library, dt, dt, details=details)
    if "elementwise_kernel" in leaf or leaf.startswith("elementwise"):
        return _aten_elementwise(n, library)
    if leaf == "reduce_kernel":
        details = {"kernel": leaf}
        ro = _REDUCE_OP.search(targs)
        if ro:
            details["op"] = _op_name(ro.group(1))
        dtype = _cxx_dtype(targs)
        out = dtype
        idx = targs.find("ReduceOp<")
        if idx >= 0:
            rargs = _template_args_at(targs, idx + len("ReduceOp"))
            if len(rargs) >= 4:
                out = _cxx_dtype(rargs[3]) or ("int64" if rargs[3].strip() == "long" else out)
        return KernelFamily("reduce", library, dtype, out, details=details)
    if leaf.startswith("softmax_warp_"):
        details = {"op": "softmax", "direction": "bwd" if "backward" in leaf else "fwd"}
        args = n.args
        # softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax, is_masked>
        if len(args) >= 5:
            l2 = _int(args[3])
            if l2 is not None:
                details["log2_elements"] = l2
                details["max_row_elements"] = 2**l2 if 0 <= l2 < 31 else None
            lg = _bool(args[4])
            if lg is not None:
                details["log_softmax"] = lg
        dts = _cxx_dtypes(targs)
        return KernelFamily(
            "softmax",
            library,
            dts[0] if dts else None,
            dts[1] if len(dts) > 1 else None,
            details=details,
        )
    return None  # other ATen kernels: the keyword table, with library pytorch


# --- cuDNN and CUB namespaces ---------------------------------------------------------------------

_CUDNN_COPY = re.compile(r"(?i:nchwto|nhwcto|tonhwc|tonchw|transpose|copy)")


def _cudnn(n: _Name) -> KernelFamily | None:
    lows = (n.ns + "::" + n.leaf).lower()
    if "cudnn" not in lows:
        return None
    leaf = n.leaf
    low = leaf.lower()
    dtype = _cxx_dtype(n.targs)
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
    details: dict[str, Any] = {}
    for alg in ("winograd", "fft", "implicit", "precomputed", "gemm"):
        if alg in low:
            details["algorithm"] = alg
            break
    return KernelFamily("conv", "cudnn", dtype, dtype, details=details)


def _cub(n: _Name) -> KernelFamily | None:
    ns = n.ns
    if not (
        ns.startswith(("cub", "thrust"))
        or "::cub" in ns
        or "cub::" in ns
        or ns.startswith("at_cuda_detail::cub")
    ):
        return None
    leaf = n.leaf
    dtype = _cxx_dtype(n.targs)
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


# --- the keyword table ---------------------------------------------------------------------------

# (pattern searched in the leaf, family, op or None for "the matched word")
_KEYWORDS: tuple[tuple[re.Pattern[str], str, str | None], ...] = tuple(
    (re.compile(p), fam, op)
    for p, fam, op in (
        (
            r"(?i:fused_add_rms_?norm|add_rms_?norm|rms_?norm_?add|residual_?rms_?norm|"
            r"skip_?rms_?norm|add_?rmsnorm)",
            "add_rmsnorm",
            "add_rmsnorm",
        ),
        (r"(?i:rms_?norm)", "rmsnorm", "rmsnorm"),
        (
            r"(?i:layer_?norm|ln_fwd|ln_bwd|rowwisemoments|group_?norm|instance_?norm)",
            "layernorm",
            None,
        ),
        (
            r"(?i:batch_?norm_?collect|batch_?norm_?reduce|batch_?norm_?stat)",
            "reduce",
            "batch_norm_stats",
        ),
        (r"(?i:batch_?norm|bn_fw|bn_bw)", "elementwise", "batch_norm"),
        (
            r"(?i:act_and_mul|silu_and_mul|gelu_and_mul|gelu_tanh_and_mul|gelu_new_and_mul|"
            r"swiglu|geglu|silu_?mul|act_?mul|and_mul_kernel|siluandmul|geluandmul)",
            "act_and_mul",
            None,
        ),
        (
            r"(?i:reshape_and_cache|concat_and_cache|append_?paged_?kv|paged_?kv_?append|"
            r"update_?kv_?cache|kv_?cache_?(?:append|write|update|store)|store_?kv_?cache|"
            r"write_?to_?kv_?cache|set_?kv_?buffer|copy_?to_?kv_?cache)",
            "kv_append",
            None,
        ),
        (r"(?i:rotary)|(?<![a-z])(?i:rope)(?![a-z])|Rope|RoPE|ROPE|(?i:pos_?enc)", "rope", "rope"),
        (r"(?i:moe_align|align_block_size|moe_sum|count_and_sort)", "reduce", None),
        (
            r"(?i:topk_?gating|gating_?softmax|grouped_?topk|moe_?topk|topk_?softmax|routing)",
            "topk_sample",
            "moe_gating",
        ),
        (
            r"(?i:moe_?permute|moe_?unpermute|expand_and_permute|finalize_moe|moe_?scatter|"
            r"moe_?gather|shuffle_rows)",
            "copy",
            None,
        ),
        (
            r"(?i:fused_moe|moe_?gemm|moe_?fc|grouped_?gemm|gemm_?grouped|group_?gemm|"
            r"fused_experts|moe_mlp|ptr_?array|experts_?gemm|moe_wna16|marlin_moe|moe_kernel)",
            "grouped_gemm",
            None,
        ),
        (r"(?i:attention|attn|mha|sdpa|fmha|flash_?decod)", "attention", None),
        (r"(?i:im2col|col2im|vol2col|col2vol)", "copy", None),
        (
            r"(?i:convol|conv_?[123]d|conv_?depthwise|depthwise_?conv|winograd|fft\dd_[rc]2[rc]|"
            r"implicit_?conv)|(?<![a-z])(?i:conv)(?![a-z])|Conv(?![a-z])",
            "conv",
            None,
        ),
        (r"(?i:gemv)", "gemv", "gemv"),
        (
            r"(?i:gemm|matmul|mat_?mul|matrix_?mul|wgmma|addmm|baddbmm)|"
            r"(?<![a-z])(?i:b?mm)(?![a-z])|MatMul|MatrixMul",
            "gemm",
            None,
        ),
        (r"(?<![a-z])(?i:dot)(?![a-z])|Dot(?![a-z])", "gemv", "dot"),
        (
            r"(?i:quant|fp8_?cast|cvt_?fp8|to_?fp8|scale_?and_?cast|nvfp4|mxfp|cast_?to_?fp8|"
            r"cast_?to_?int8)",
            "quantize",
            None,
        ),
        (r"(?i:softmax)", "softmax", "softmax"),
        (
            r"(?i:topk|top_k|top_?p|sort|multinomial|gumbel|sampling|radix_?select|find_?kth|kth_?value)|"
            r"(?<![a-z])(?i:sampl)",
            "topk_sample",
            None,
        ),
        (r"(?i:embedding|embed|index_?select|gather|take_along|lookup)", "embedding", None),
        (
            r"(?i:copy|catarray|concat|transpose|permute|nchwto|nhwcto|to_?nhwc|to_?nchw|memcpy|"
            r"contiguous|clone|repack|interleave|layout_?transform)|(?<![a-z])(?i:cat|pad)(?![a-z])",
            "copy",
            None,
        ),
        (
            r"(?<![a-z])(?i:rand)|Rand|(?i:random|philox|curand|dropout|bernoulli)",
            "elementwise",
            "random",
        ),
        (r"(?i:memset|fill|init|clear)|(?<![a-z])(?i:zero|reset)", "memset", None),
        (
            r"(?i:reduc|argmax|argmin|cumsum|cumprod|prefix_?sum|histogram|statistics|moments|"
            r"nonzero|l2_?norm)|(?<![a-z])(?i:sum|mean|amax|max|min|scan|norm|var|count)(?![a-z])|"
            r"Sum(?![a-z])|Max(?![a-z])|Min(?![a-z])|Mean(?![a-z])",
            "reduce",
            None,
        ),
        (
            r"(?i:elementwise|element_?wise|pointwise|axpy|vec_?add|vector_?add)|"
            r"(?<![a-z])(?i:add|sub|mul|div|relu|gelu|silu|sigmoid|tanh|exp|log|sqrt|rsqrt|abs|neg|"
            r"pow|clamp|where|cast|bias|scale|scal|activation|act|swish|mish|hardswish|elu|softplus|"
            r"sin|cos|fma|saxpy|daxpy)(?![a-z])|"
            r"Add(?![a-z])|Mul(?![a-z])|Sub(?![a-z])|Div(?![a-z])|Relu|Gelu|Silu|Sigmoid|Tanh",
            "elementwise",
            None,
        ),
    )
)

_ATTN_COMBINE = re.compile(r"(?i:merge|combine|reduce|stage2)")
_ATTN_DECODE = re.compile(
    r"(?i:decode|decoding|forgen|generation|single_?query|paged|splitkv|split_kv|stage1|mmha)"
)
_ATTN_NAIVE = re.compile(r"(?i:naive|simple|basic|unfused|baseline|reference|math)")
_ATTN_PREFILL = re.compile(
    r"(?i:prefill|context|extend|fwd|forward|flash|varlen|bwd|backward|fmha|sdpa)"
)
_ACT_WORD = re.compile(r"(?i:gelu_tanh|gelu_new|gelu|silu|swiglu|geglu|relu|swish)")
_VLLM_ACT = re.compile(r"&\s*(?:vllm::)?(\w+?)_kernel\s*<")
_BLAS_PREFIX = {"s": "fp32", "d": "fp64", "h": "fp16", "c": "fp32", "z": "fp64"}


def _attention_family(leaf: str) -> tuple[str, str | None]:
    if _ATTN_COMBINE.search(leaf):
        return "attention_combine", None
    if _ATTN_DECODE.search(leaf):
        return "attention_decode", None
    if _ATTN_NAIVE.search(leaf):
        return "attention_naive", None
    if _ATTN_PREFILL.search(leaf):
        return "attention_prefill", None
    return "attention_naive", "generic attention kernel; algorithm unknown from the name"


def _library(n: _Name) -> str | None:
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
    if _ATEN_LEAVES.match(leaf):
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
    if _triton_ish(n):
        return "triton"
    return None


def _keywords(n: _Name) -> KernelFamily | None:
    leaf = n.leaf
    for pattern, family, op in _KEYWORDS:
        m = pattern.search(leaf)
        if not m:
            continue
        library = _library(n)
        details: dict[str, Any] = {}
        word = m.group(0)
        note: str | None = None
        if family == "attention":
            family, note = _attention_family(leaf)
            if note:
                details["note"] = note
        else:
            details["op"] = op or _op_name(word.strip("_"))
        dtype = _cxx_dtype(n.targs) or _word_dtype(leaf) or _cxx_dtype(n.params)
        out = dtype
        if family == "act_and_mul":
            act = _VLLM_ACT.search(n.targs or "")
            a = act.group(1) if act else None
            if a is None:
                aw = _ACT_WORD.search(leaf)
                a = aw.group(0).lower() if aw else None
            if a:
                details["act"] = a
        elif family == "quantize":
            out = _word_dtype(leaf)
            in_dt = _cxx_dtype(n.targs) or _cxx_dtype(n.params)
            if out is not None and in_dt == out:
                cxx = _cxx_dtypes(n.targs)
                in_dt = next((d for d in cxx if d != out), in_dt)
            dtype = in_dt
            fp8 = _fp8_format(leaf) or _fp8_format(n.targs or "")
            if fp8:
                details["fp8_format"] = fp8
            if "dequant" in leaf.lower():
                details["op"] = "dequantize"
        elif family in ("rmsnorm", "add_rmsnorm") and "quant" in leaf.lower():
            details["fused_quant"] = True
        elif family in ("gemm", "gemv", "grouped_gemm"):
            bits = _weight_bits(leaf)
            if bits is not None:
                details["weight_bits"] = bits
            if leaf == "fused_moe_kernel":
                library = "vllm"
                details["backend"] = "triton"
        elif family == "elementwise" and details.get("op") in ("axpy", "saxpy", "daxpy"):
            pre = re.match(r"([sdhcz])axpy", leaf)
            if pre and dtype is None:
                dtype = out = _BLAS_PREFIX[pre.group(1)]
            details["op"] = "axpy"
        if "backward" in leaf.lower() or "_bwd" in leaf.lower():
            details["direction"] = "bwd"
        return KernelFamily(family, library, dtype, out, details=details)
    return None


_RECOGNISERS: tuple[_Recogniser, ...] = (
    _memops,
    _nccl,
    _inductor,
    _flash,
    _flashinfer,
    _trtllm_attention,
    _vllm_attention,
    _other_attention,
    _custom_comm,
    _cublas_legacy,
    _xmma,
    _nvjet,
    _cutlass_procedural,
    _cutlass_template,
    _cublas_small,
    _marlin,
    _aten,
    _cudnn,
    _cub,
    _keywords,
    _triton,
)
