"""PyTorch kernels: TorchInductor, plain Triton JIT names, and ATen.

Inductor names (``triton_poi_fused_add_mul_0``) list the fused aten ops;
ATen kernels carry their op in a functor or lambda template argument
(``vectorized_elementwise_kernel<4, MulFunctor<float>, ...>``).
"""

from __future__ import annotations

import re

from ncu_roofline.core.names import template_args_at
from ncu_roofline.theory.families.anatomy import Name, bool_arg, int_arg
from ncu_roofline.theory.families.dtypes import cxx_dtype, cxx_dtypes, word_dtype
from ncu_roofline.theory.families.kinds import Details, KernelFamily

# --- TorchInductor and Triton ----------------------------------------------

_INDUCTOR = re.compile(r"^triton_(poi|red|per|tem|for|spl|sca|mix|unk)_(\w*)$")
TRITON_SIG = re.compile(r"_\d+[dc]\d+[dce][\dcde]*$")
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


def inductor(n: Name) -> KernelFamily | None:
    """TorchInductor ``triton_poi_fused_...`` names: kernel kind and fused aten ops."""
    if not n.jit_like:
        return None
    m = _INDUCTOR.match(n.s)
    if not m:
        return None
    kind, ops = m.group(1), m.group(2)
    ops = TRITON_SIG.sub("", ops)
    ops = _TRAILING_INDEX.sub("", ops)
    if ops.startswith("fused_"):
        ops = ops[len("fused_") :]
    family, act = _inductor_family(kind, ops)
    details: Details = {"kind": _INDUCTOR_KIND[kind], "op": ops}
    if act:
        details["act"] = act
    return KernelFamily(family, "inductor", details=details)


def triton_ish(n: Name) -> bool:
    """A JIT name that looks like Triton's (not just any extern-C kernel)."""
    if not n.jit_like:
        return False
    s = n.s
    return (
        s.startswith(("_", "triton")) or s.endswith("_kernel") or TRITON_SIG.search(s) is not None
    )


def triton(n: Name) -> KernelFamily | None:
    """Any other Triton-looking JIT name (the last resort after the keyword table)."""
    if not triton_ish(n):
        return None
    details: Details = {"op": TRITON_SIG.sub("", n.s)}
    return KernelFamily("triton", "triton", word_dtype(n.s), details=details)


# --- PyTorch ATen --------------------------------------------------------------------------------

ATEN_LEAVES = re.compile(
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


def op_name(raw: str) -> str:
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
        best = (m.start(), m.group(1), cxx_dtype(text[m.end() - 1 : m.end() + 60]))
    for f in _FUNCTOR.finditer(text):
        if best is not None and f.start() > best[0]:
            break
        stem = f.group(1)
        if stem in _WRAPPER_FUNCTORS or stem.startswith("CUDA"):
            continue
        best = (f.start(), stem, cxx_dtype(text[f.end() - 1 : f.end() + 60]))
        break
    it = _ITER_FN.search(text)
    if it and (best is None or it.start() < best[0]):
        best = (it.start(), it.group(1), None)
    if best is None:
        return None, None
    return op_name(best[1]), best[2]


def _lambda_dtype(text: str) -> str | None:
    for m in _LAMBDA_TYPE.finditer(text):
        dt = cxx_dtype(m.group(1))
        if dt:
            return dt
    return None


def _aten_elementwise(n: Name, library: str | None) -> KernelFamily:
    targs = n.targs or ""
    op, functor_dtype = _functor_op(targs)
    dtype = functor_dtype or _lambda_dtype(targs) or cxx_dtype(targs)
    details: Details = {"kernel": n.leaf}
    if op:
        details["op"] = op
    arr = _ARRAY_N.search(targs)
    if arr:
        details["n_inputs"] = int(arr.group(1)) - 1
    first = int_arg(n.args[0]) if n.args else None
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


def aten(n: Name) -> KernelFamily | None:
    """ATen kernels: elementwise, reduce, softmax, index and random-distribution kernels."""
    in_aten = n.ns.startswith(("at::", "at_cuda_detail", "c10::")) or n.ns == "at"
    if not (in_aten or ATEN_LEAVES.match(n.leaf)):
        return None
    library = "pytorch"
    leaf = n.leaf
    targs = n.targs or ""
    if leaf.startswith("distribution_"):
        details: Details = {"op": "random", "kernel": leaf}
        d = _DISTRIBUTION.search(targs)
        if d:
            details["distribution"] = d.group(1)
        dt = cxx_dtype(targs)
        return KernelFamily("elementwise", library, dt, dt, details=details)
    if leaf == "index_elementwise_kernel":
        put = "index_put" in targs
        details = {"op": "index_put" if put else "index", "kernel": leaf}
        opaque = re.search(r"OpaqueType<\s*(\d+)\s*>", targs)
        if opaque:
            details["element_bytes"] = int(opaque.group(1))
        dt = cxx_dtype(targs)
        return KernelFamily("copy" if put else "embedding", library, dt, dt, details=details)
    if "elementwise_kernel" in leaf or leaf.startswith("elementwise"):
        return _aten_elementwise(n, library)
    if leaf == "reduce_kernel":
        details = {"kernel": leaf}
        ro = _REDUCE_OP.search(targs)
        if ro:
            details["op"] = op_name(ro.group(1))
        dtype = cxx_dtype(targs)
        out = dtype
        idx = targs.find("ReduceOp<")
        if idx >= 0:
            rargs = template_args_at(targs, idx + len("ReduceOp"))
            if len(rargs) >= 4:
                out = cxx_dtype(rargs[3]) or ("int64" if rargs[3].strip() == "long" else out)
        return KernelFamily("reduce", library, dtype, out, details=details)
    if leaf.startswith("softmax_warp_"):
        details = {"op": "softmax", "direction": "bwd" if "backward" in leaf else "fwd"}
        args = n.args
        # softmax_warp_forward<input_t, output_t, acc_t, log2_elements, is_log_softmax, is_masked>
        if len(args) >= 5:
            l2 = int_arg(args[3])
            if l2 is not None:
                details["log2_elements"] = l2
                details["max_row_elements"] = 2**l2 if 0 <= l2 < 31 else None
            lg = bool_arg(args[4])
            if lg is not None:
                details["log_softmax"] = lg
        dts = cxx_dtypes(targs)
        return KernelFamily(
            "softmax",
            library,
            dts[0] if dts else None,
            dts[1] if len(dts) > 1 else None,
            details=details,
        )
    return None  # other ATen kernels: the keyword table, with library pytorch
