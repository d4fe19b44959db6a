"""GEMM and GEMV kernels: cuBLAS, cuBLASLt and cuDNN xmma, nvjet, CUTLASS, Marlin.

Vendor names pack the data types, MMA instruction, CTA tile, stages and
layout into underscore tokens (cuBLAS legacy, xmma, nvjet, CUTLASS
procedural names); CUTLASS template names carry them as template
arguments (``GemmShape<128, 128, 32>``, CuTe tuples).
"""

from __future__ import annotations

import re

from ncu_roofline.core.names import template_args_at
from ncu_roofline.theory.families.anatomy import Name, cute_tile, int_arg, parse_dims
from ncu_roofline.theory.families.dtypes import (
    PACKED,
    PACKED_FULL,
    SHORT_NORM,
    cxx_dtype,
    cxx_dtypes,
    fp8_format,
)
from ncu_roofline.theory.families.kinds import Details, KernelFamily

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


# --- cuBLAS legacy names --------------------------------------------------------

_LEGACY = re.compile(r"^(maxwell|pascal|volta|turing|ampere|ada|hopper|blackwell)_(\w+)$")
_LEGACY_OP = re.compile(r"^([shdiczb]?)(\d{3,5})?(gemm|cudnn|conv)$")
_LEGACY_FLAGS = frozenset({"nhwc", "nchw", "nhwc2nchw", "nchw2nhwc"})


def cublas_legacy(n: Name) -> KernelFamily | None:
    """``ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn`` (and cuDNN ``..._cudnn``)."""
    m = _LEGACY.match(n.leaf)
    if not m:
        return None
    arch_word, rest = m.group(1), m.group(2)
    toks = rest.split("_")
    i = 0
    out_dt: str | None = None
    if i < len(toks) and toks[i] in SHORT_NORM:
        out_dt = SHORT_NORM[toks[i]]
        i += 1
    if i >= len(toks):
        return None
    op = _LEGACY_OP.match(toks[i])
    if not op:
        return None
    acc, mma, kind = op.group(1), op.group(2), op.group(3)
    i += 1
    in_dt: str | None = None
    if i < len(toks) and toks[i] in SHORT_NORM:
        in_dt = SHORT_NORM[toks[i]]
        i += 1
    details: Details = {"arch": _ARCH_WORDS[arch_word], "arch_name": arch_word}
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


def xmma(n: Name) -> KernelFamily | None:
    """``sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize...``: cuBLASLt GEMMs, cuDNN convolutions."""
    m = _XMMA.match(n.leaf)
    if not m:
        return None
    sm, op, rest = m.groups()
    details: Details = {"arch": f"sm{sm}", "op": op}
    packed: list[list[str]] = []
    layout_seen = False
    for t in rest.split("_"):
        if len(packed) < 3 and PACKED_FULL.fullmatch(t):
            packed.append([SHORT_NORM[p] for p in PACKED.findall(t)])
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
    fp8 = fp8_format(rest)
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
        details["warpgroups" if w.group(1) == "warpgroupsize" else "warps"] = parse_dims(w.group(2))
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


def nvjet(n: Name) -> KernelFamily | None:
    """cuBLAS ``nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT`` (type letters inferred)."""
    if not n.leaf.startswith("nvjet_"):
        return None
    toks = n.leaf[len("nvjet_") :].split("_")
    details: Details = {"type_code_inferred": True}
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


def cutlass_procedural(n: Name) -> KernelFamily | None:
    """CUTLASS 2.x ``cutlass_80_tensorop_...`` and 3.x ``cutlass3x_sm90_...`` names."""
    if "cutlass" not in n.s:
        return None
    m3 = _CUTLASS3.search(n.s)
    if m3:
        return _cutlass3(m3)
    m = _CUTLASS2.search(n.s)
    if not m:
        return None
    sm, opclass, ext, tm, tn, tk, stages, layout, align = m.groups()
    details: Details = {"opclass": opclass, "layout": layout, "align": int(align)}
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
            if extra in SHORT_NORM:
                a_type = SHORT_NORM[extra]
            if op.group(5):
                flags.append(op.group(5))
        elif t in SHORT_NORM:
            if seen_op:
                a_type = a_type or SHORT_NORM[t]
            else:
                c_type = SHORT_NORM[t]
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
    details: Details = {
        "arch": f"sm{sm}",
        "opclass": opclass,
        "cluster": parse_dims(cluster),
        "stages": int(stages) or "auto",
        "layout": layout,
        "align": int(align),
    }
    toks = [t for t in ext.split("_") if t]
    types = [SHORT_NORM[t] for t in toks if t in SHORT_NORM]
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


def cutlass_template(n: Name) -> KernelFamily | None:
    """CUTLASS template names (``GemmShape<...>``, CuTe tuples, ``MainloopSm90...``)."""
    s = n.s
    if not _CUTLASS_T_MARK.search(s):
        return None
    details: Details = {}
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
        tile = cute_tile(s)
        ml = _MAINLOOP_STAGES.search(s)
        if ml:
            details["arch"] = f"sm{ml.group(1)}"
            details["stages"] = int(ml.group(2))
    sch = _SCHEDULE.search(s)
    if sch:
        details["schedule"] = sch.group(0)
    dtype = cxx_dtype(n.targs) or cxx_dtype(s)
    out: str | None = None
    lc = _LIN_COMB.search(s)
    if lc:
        out = cxx_dtype(lc.group(1))
    fp8 = fp8_format(s)
    if dtype == "fp8" and fp8:
        details["fp8_format"] = fp8
    return KernelFamily(family, "cutlass", dtype, out, tile, details)


# --- cuBLAS GEMV / small kernels -----------------------------------------------------------

_CUBLAS_SMALL = re.compile(
    r"^(?:(gemv2([NT])_kernel(?:_val)?)|(gemvNSP_kernel)|(gemmSN_([NT]{2})_kernel)|(gemmk1_kernel)|"
    r"(dot_kernel)|(splitKreduce_kernel)|(reduce_1Block_kernel))$"
)
_GEMV_TENSOR = re.compile(r"cublasGemvTensor\w*<\s*(?:const )?([\w:]+)")


def cublas_small(n: Name) -> KernelFamily | None:
    """cuBLAS GEMV, skinny-GEMM, dot and split-K reduce kernels."""
    leaf, ns = n.leaf, n.ns
    is_gemvx = leaf == "kernel" and ns.endswith("gemvx")
    m = _CUBLAS_SMALL.match(leaf)
    if not (m or is_gemvx):
        return None
    targs = n.targs or ""
    library = "cublasLt" if "cublasLt" in ns else "cublas"
    dtypes = cxx_dtypes(targs)
    dtype = dtypes[0] if dtypes else None
    details: Details = {}
    if is_gemvx or (m and (m.group(1) or m.group(3))):
        details["op"] = "gemv"
        if m and m.group(2):
            details["transpose"] = m.group(2)
        tens = _GEMV_TENSOR.findall(targs)
        out = cxx_dtype(tens[2]) if len(tens) >= 3 else None
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


def weight_bits(text: str) -> int | None:
    """The weight bit width a name says (``4bit``, ``w4a16``, ``int8``), else ``None``."""
    m = _WEIGHT_BITS.search(text)
    if not m:
        return None
    return int(next(g for g in m.groups() if g))


def marlin(n: Name) -> KernelFamily | None:
    """Marlin weight-only quantised GEMMs (IST-DASLab and vLLM templates, MoE variants)."""
    m = _MARLIN.search(n.s)
    if not m:
        return None
    args = template_args_at(n.s, m.end() - 1)
    details: Details = {}
    dtype = cxx_dtype(args[0]) if args else None
    ints = [int_arg(a) for a in args]
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
