"""Attention ops: fused prefill, decode over a KV cache, and the KV-cache append.

Scores stay on chip (FlashAttention-style); K and V are read once per
sequence and KV head.
"""

from __future__ import annotations

import math

from ncu_roofline.theory.ops.dtypes import matmul_precision, vector_precision
from ncu_roofline.theory.ops.params import Values, bool_param, dtype_param, int_param, same_as
from ncu_roofline.theory.ops.registry import OpSpec, Result, register

_ATTN_HEADS = (
    int_param("heads_q", None, "query heads", aliases=("Hq", "num_heads")),
    int_param(
        "heads_kv", same_as("heads_q"), "key/value heads (GQA/MQA)", aliases=("Hkv", "num_kv_heads")
    ),
    int_param("head_dim", None, "head dimension", aliases=("d",)),
)


_ATTN_DTYPES = (
    dtype_param("dtype", "bf16", "query and output data type"),
    dtype_param("kv", same_as("dtype"), "KV data type", aliases=("kv_dtype",)),
)


def _heads(p: Values) -> tuple[int, int]:
    hq, hkv = p.whole("heads_q"), p.whole("heads_kv")
    if hq % hkv:
        raise p.fail(f"parameter heads_kv: {hkv} does not divide heads_q={hq}")
    return hq, hkv


@register(
    OpSpec(
        "attention_prefill",
        "fused (FlashAttention-style) attention, scores kept on chip",
        (
            int_param("batch", 1, "sequences", aliases=("b",)),
            int_param("seq_q", None, "query tokens per sequence", aliases=("Sq", "seq")),
            int_param("seq_k", same_as("seq_q"), "key tokens per sequence", aliases=("Sk",)),
            *_ATTN_HEADS,
            bool_param("causal", True, "causal mask (bottom-right aligned)"),
            *_ATTN_DTYPES,
            bool_param("lse", True, "fp32 log-sum-exp per query row written"),
            bool_param("softmax_flops", False, "count 5 FLOPs per score for the softmax"),
        ),
        ("attention", "flash_attention", "fmha", "sdpa", "attn_prefill", "mha"),
    ),
)
def _attention_prefill(p: Values) -> Result:
    b, sq, sk, d = p.whole("batch"), p.whole("seq_q"), p.whole("seq_k"), p.whole("head_dim")
    hq, hkv = _heads(p)
    a, kv = p.size("dtype"), p.size("kv")
    notes = []
    if p.flag("causal"):
        if sq > sk:
            raise p.fail(f"parameter seq_q: causal attention needs seq_q <= seq_k, got {sq} > {sk}")
        # Bottom-right aligned mask: query i sees sk - sq + i + 1 keys, on average (2·sk - sq)/2.
        keys = (2 * sk - sq) / 2
        notes.append(
            "causal: bottom-right mask, F = 2·b·Hq·Sq·(2Sk−Sq)·d (half the score matrix when Sq = Sk)"
        )
    else:
        keys = float(sk)
    flops = 4.0 * b * hq * sq * keys * d
    if p.flag("softmax_flops"):
        flops += 5.0 * b * hq * sq * keys
        notes.append("softmax counted as 5 FLOPs per score")
    else:
        notes.append("softmax FLOPs not counted (QKᵀ and PV only)")
    reads = b * (sq * hq * d * a + 2 * sk * hkv * d * kv)
    writes = b * sq * hq * d * a
    if p.flag("lse"):
        writes += b * hq * sq * 4
        notes.append("fp32 log-sum-exp per query row written")
    notes.append("K/V of each sequence and KV head read once; scores stay on chip")
    return Result(flops, reads, writes, matmul_precision(p.text("dtype"), p.text("kv")), notes)


@register(
    OpSpec(
        "attention_decode",
        "attention of new tokens over a KV cache (paged or contiguous)",
        (
            int_param("batch", 1, "sequences", aliases=("b",)),
            int_param("context", None, "cached tokens attended per sequence", aliases=("L", "ctx")),
            *_ATTN_HEADS,
            int_param(
                "q_tokens",
                1,
                "query tokens per sequence (>1 for speculative decoding)",
                aliases=("s_q",),
            ),
            *_ATTN_DTYPES,
            int_param("page_size", 0, "tokens per KV page; 0 = contiguous cache", zero=True),
            bool_param("softmax_flops", True, "count 5 FLOPs per score for the softmax"),
        ),
        ("decode_attention", "paged_attention", "attn_decode", "flash_decoding"),
    ),
)
def _attention_decode(p: Values) -> Result:
    b, ctx, d, sq = p.whole("batch"), p.whole("context"), p.whole("head_dim"), p.whole("q_tokens")
    hq, hkv = _heads(p)
    a, kv = p.size("dtype"), p.size("kv")
    flops = 4.0 * b * hq * sq * ctx * d
    notes = ["each query token attends to all cached tokens; KV read once per KV head"]
    if p.flag("softmax_flops"):
        flops += 5.0 * b * hq * sq * ctx
        notes.append("softmax counted as 5 FLOPs per score")
    reads = 2.0 * b * ctx * hkv * d * kv + b * sq * hq * d * a
    page = p.whole("page_size")
    if page:
        # int32 block table entries plus one int32 sequence length per sequence.
        reads += b * math.ceil(ctx / page) * 4 + b * 4
        notes.append(f"paged KV: block table of {math.ceil(ctx / page)} int32 per sequence read")
    writes = b * sq * hq * d * a
    return Result(flops, reads, writes, matmul_precision(p.text("dtype"), p.text("kv")), notes)


@register(
    OpSpec(
        "kv_append",
        "write new K and V into the cache (reshape_and_cache)",
        (
            int_param("tokens", None, "new tokens", aliases=("T",)),
            int_param("heads_kv", None, "KV heads", aliases=("Hkv",)),
            int_param("head_dim", None, "head dimension", aliases=("d",)),
            *_ATTN_DTYPES,
            int_param("slot_bytes", 8, "bytes per slot-mapping entry", zero=True),
        ),
        ("reshape_and_cache", "cache_write", "kv_cache_write"),
    ),
)
def _kv_append(p: Values) -> Result:
    tokens, hkv, d = p.whole("tokens"), p.whole("heads_kv"), p.whole("head_dim")
    elements = tokens * 2 * hkv * d
    reads = elements * p.size("dtype") + tokens * p.whole("slot_bytes")
    writes = elements * p.size("kv")
    notes = ["K and V of each new token copied into the cache; slot mapping read"]
    flops = 0.0
    if p.text("kv") != p.text("dtype"):
        flops = 2.0 * elements
        notes.append("conversion to the cache dtype: 2 FLOPs per element (nominal)")
    return Result(flops, reads, writes, vector_precision(p.text("dtype")), notes)
