"""Attention kernels: FlashAttention 2/3/4, FlashInfer, TensorRT-LLM, vLLM, SGLang, Triton.

Each library spells prefill, decode and the merge of split-KV partials its
own way; the head dimension, tile and causal flag come from template
arguments (FlashAttention, FlashInfer, vLLM) or name tokens (fmha_v2, XQA).
"""

from __future__ import annotations

import re

from ncu_roofline.theory.families.anatomy import Name, bool_arg, cute_tile, int_arg, int_args
from ncu_roofline.theory.families.dtypes import SHORT_NORM, WORD_DTYPE, cxx_dtype
from ncu_roofline.theory.families.kinds import Details, KernelFamily
from ncu_roofline.theory.families.pytorch import TRITON_SIG

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


def flash(n: Name) -> KernelFamily | None:
    """FlashAttention 4 (CuTe DSL names), 3 (``FlashAttnFwdSm90``) and 2 (``flash_fwd_*``)."""
    m4 = _FA4.search(n.leaf)
    if m4:
        direction, sm, dt, hd, bm, bn, rest = m4.groups()
        fam = "attention_prefill"
        details: Details = {
            "head_dim": int(hd),
            "arch": f"sm{sm}",
            "causal": "causal" in rest.lower(),
            "direction": direction,
            "version": 4,
        }
        return KernelFamily(
            fam, "flash-attn", SHORT_NORM[dt.lower()], None, (int(bm), int(bn)), details
        )
    m3 = _FA3.search(n.s) if "FlashAttn" in n.s else None
    if m3:
        return _flash3(n, m3.group(1))
    m = _FA2_LEAF.match(n.leaf)
    if not m or not (n.ns in ("", "flash", "pytorch_flash") or "flash" in n.ns):
        return None
    return _flash2(n, m.group(1))


def _flash2(n: Name, direction: str) -> KernelFamily:
    leaf = n.leaf
    details: Details = {"direction": direction, "version": 2}
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
        dtype = cxx_dtype(args[0])
    rest = args[1:]
    bools = [b for b in (bool_arg(a) for a in rest) if b is not None]
    if family == "attention_combine":
        tile = None  # the traits' tile is the split kernel's; combine tiles by block_m
        ints = int_args(rest)
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


def _flash3(n: Name, which: str) -> KernelFamily:
    details: Details = {"version": 3}
    if which == "FwdCombine":
        return KernelFamily("attention_combine", "flash-attn", cxx_dtype(n.s), details=details)
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
        dtype = cxx_dtype(elem)
    else:
        cute = cute_tile(n.s)
        if cute is not None:
            tile = cute[:2]
        dtype = cxx_dtype(n.s)
    details["note"] = "FA3 kernels serve prefill and decode (flash_attn_with_kvcache)"
    return KernelFamily("attention_prefill", "flash-attn", dtype, dtype, tile, details)


# --- FlashInfer ----------------------------------------------------------------

_FI_MERGE = re.compile(
    r"^(?:PersistentVariableLength|VariableLength)?MergeStates?\w*$|^AttentionSum\w*$"
)
_FI_MASK = re.compile(r"\((?:flashinfer::)?MaskMode\)(\d)")


def flashinfer(n: Name) -> KernelFamily | None:
    """FlashInfer prefill, decode, MLA, POD and merge-states kernels."""
    leaf = n.leaf
    in_fi = "flashinfer" in n.ns
    if _FI_MERGE.match(leaf) and (in_fi or "MergeState" in leaf):
        return KernelFamily(
            "attention_combine", "flashinfer", cxx_dtype(n.targs), details={"op": "merge_states"}
        )
    batch_or_single = leaf.startswith(("Batch", "Single")) and "Kernel" in leaf
    decode = batch_or_single and ("Decode" in leaf or leaf.startswith("BatchMLA"))
    prefill = batch_or_single and not decode and ("Prefill" in leaf or leaf.startswith("BatchPOD"))
    if not (decode or prefill):
        return None
    if not (in_fi or "KVCache" in leaf or "MLA" in leaf or "POD" in leaf):
        return None
    details: Details = {}
    dtype = cxx_dtype(n.targs)
    if decode:
        family = "attention_decode"
        args = n.args
        ints = [int_arg(a) for a in args[:7]]
        # <POS_ENCODING_MODE, num_stages_smem, tile_size_per_bdx, vec_size, bdx, bdy, bdz,
        #  AttentionVariant, Params>; head_dim = vec_size * bdx, bdy = GQA group size.
        if (
            leaf == "BatchDecodeWithPagedKVCacheKernel"
            and len(args) >= 8
            and all(v is not None for v in ints)
            and int_arg(args[7]) is None
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


def trtllm_attention(n: Name) -> KernelFamily | None:
    """TensorRT-LLM fmha_v2, masked multi-head attention, XQA and trtllm-gen FMHA."""
    leaf = n.leaf
    m = _FMHA_V2.match(leaf)
    if m:
        rest = m.group(1)
        details: Details = {}
        dt = WORD_DTYPE.search(rest)
        dtype = SHORT_NORM.get(dt.group(1).lower()) if dt else None
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
        ints = [v for v in int_args(n.args) if v >= 16]
        if ints:
            details["head_dim"] = ints[0]
        dtype = cxx_dtype(n.targs)
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
        dtype = SHORT_NORM.get(str(details.get("dtype_code", "")))
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


def vllm_attention(n: Name) -> KernelFamily | None:
    """vLLM paged attention (v1, v2, reduce), merge kernels and Triton attention JIT names."""
    leaf = n.leaf
    if n.jit_like:
        key = TRITON_SIG.sub("", leaf)
        if key in _TRITON_ATTN:
            family, note = _TRITON_ATTN[key]
            return KernelFamily(family, "triton", details={"op": key, "note": note})
        return None
    if leaf == "merge_attn_states_kernel":
        return KernelFamily("attention_combine", "vllm", cxx_dtype(n.targs), details={})
    m = _VLLM_PA.match(leaf)
    if not m:
        return None
    details: Details = {"paged_kv": True}
    args = n.args
    dtype = cxx_dtype(args[0]) if args else None
    if m.group(2) or "reduce" in leaf:
        # paged_attention_v2_reduce_kernel<T, HEAD_SIZE, NUM_THREADS, PARTITION_SIZE>
        ints = int_args(args[1:])
        if ints:
            details["head_dim"] = ints[0]
        if len(ints) >= 3:
            details["partition_size"] = ints[2]
        return KernelFamily("attention_combine", "vllm", dtype, dtype, details=details)
    # <T, CACHE_T, HEAD_SIZE, BLOCK_SIZE, NUM_THREADS, KV_DTYPE, IS_BLOCK_SPARSE[, PARTITION_SIZE]>
    if m.group(1):
        details["version"] = m.group(1)
    if len(args) >= 5:
        hd, bs, nt = int_arg(args[2]), int_arg(args[3]), int_arg(args[4])
        if hd is not None:
            details["head_dim"] = hd
        if bs is not None:
            details["block_size"] = bs
        if nt is not None:
            details["num_threads"] = nt
        if len(args) >= 6:
            kv = int_arg(args[5])
            if kv is not None:
                details["kv_cache_dtype"] = _KV_DTYPE_ENUM.get(kv, str(kv))
        if len(args) >= 8:
            part = int_arg(args[7])
            if part is not None:
                details["partition_size"] = part
        kv_t = cxx_dtype(args[1])
        if details.get("kv_cache_dtype", "auto") != "auto":
            kv_t = "fp8"
        if kv_t:
            details["kv_dtype"] = kv_t
    return KernelFamily("attention_decode", "vllm", dtype, dtype, details=details)


# --- other fused attention (PyTorch mem-efficient, cuDNN SDPA) ----------------

_MEMEFF = re.compile(r"^fmha_cutlass([FB])_(\w+)$")


def other_attention(n: Name) -> KernelFamily | None:
    """PyTorch memory-efficient attention (CUTLASS fmha) and cuDNN SDPA."""
    m = _MEMEFF.match(n.leaf)
    if m:
        direction = "fwd" if m.group(1) == "F" else "bwd"
        rest = m.group(2)
        dt = re.match(r"(bf16|f16|f32)", rest)
        tile = re.search(r"(?<!\d)(\d+)x(\d+)", rest)
        sm = re.search(r"sm(\d+)", rest)
        details: Details = {"direction": direction, "op": "mem_efficient_attention"}
        if sm:
            details["arch"] = f"sm{sm.group(1)}"
        dtype = SHORT_NORM[dt.group(1)] if dt else None
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
        dtype = next((SHORT_NORM[t] for t in low.split("_") if t in SHORT_NORM), None)
        return KernelFamily("attention_prefill", "cudnn", dtype, details=details)
    return None
