"""Communication and copy pseudo-kernels: memcpy/memset rows, NCCL, custom all-reduce.

NCCL kernel names list the collective, reduction, algorithm, protocol and
buffer type as underscore tokens; a kernel may still run other collectives
than its name says (the note travels with the result).  Custom all-reduce
kernels (vLLM, TensorRT-LLM, Lamport) only say which collective they run.
"""

from __future__ import annotations

import re

from ncu_roofline.theory.families.anatomy import Name
from ncu_roofline.theory.families.dtypes import cxx_dtype
from ncu_roofline.theory.families.kinds import Details, KernelFamily
from ncu_roofline.theory.families.libraries import library_of

# --- memcpy / memset pseudo-kernels ---------------------------------------

_MEMOP = re.compile(r"^\[?\s*(?:CUDA\s+)?mem(cpy|set)\b", re.IGNORECASE)
_MEMCPY_DIR = re.compile(
    r"(HtoD|DtoH|DtoD|HtoH|PtoP|DtoA|AtoD|Host-to-Device|Device-to-Host|Device-to-Device|"
    r"Host-to-Host|Peer-to-Peer)",
    re.IGNORECASE,
)


def memops(n: Name) -> KernelFamily | None:
    """The ``[CUDA memcpy HtoD]`` / ``[CUDA memset]`` rows ncu lists beside kernels."""
    m = _MEMOP.match(n.s)
    if not m:
        return None
    if m.group(1).lower() == "set":
        return KernelFamily("memset", details={"op": "memset", "pseudo_kernel": True})
    details: Details = {"op": "memcpy", "pseudo_kernel": True}
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


def nccl(n: Name) -> KernelFamily | None:
    """``ncclDevKernel_AllReduce_Sum_bf16_RING_LL``: collective, op, algorithm, protocol, type."""
    m = _NCCL.match(n.leaf)
    if not m:
        return None
    rest = m.group(1)
    tokens = [t for t in rest.split("_") if t]
    details: Details = {}
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


def custom_comm(n: Name) -> KernelFamily | None:
    """Non-NCCL collectives (custom all-reduce, Lamport, multimem)."""
    m = _COMM_WORDS.search(n.leaf)
    if not m:
        return None
    details: Details = {"collective": m.group(0).lower().replace("_", "")}
    return KernelFamily(
        "communication", library_of(n), cxx_dtype(n.targs) or cxx_dtype(n.params), details=details
    )
