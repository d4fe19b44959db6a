"""Data movement and the rest: embedding lookup, RoPE, sampling, copy, memset, all-reduce."""

from __future__ import annotations

from ncu_roofline.theory.ops.dtypes import vector_precision
from ncu_roofline.theory.ops.params import (
    AUTO,
    Values,
    dtype_param,
    float_param,
    int_param,
    same_as,
)
from ncu_roofline.theory.ops.registry import OpSpec, Result, register

_SIZE_OR_BYTES = (
    int_param("n", AUTO, "elements (with dtype); or give bytes"),
    dtype_param("dtype", "bf16", "element data type"),
    float_param("bytes", AUTO, "size in bytes; or give n"),
)


def _copy_bytes(p: Values) -> float:
    if p.is_set("bytes") == p.is_set("n"):
        raise p.fail("give either bytes or n (with dtype), not both or neither")
    if p.is_set("bytes"):
        return p.num("bytes")
    return p.whole("n") * p.size("dtype")


@register(
    OpSpec(
        "embedding",
        "embedding lookup of token ids",
        (
            int_param("tokens", None, "token ids looked up", aliases=("T",)),
            int_param("hidden", None, "row width", aliases=("H",)),
            int_param("unique", AUTO, "distinct ids (rows read); default tokens"),
            dtype_param("dtype", "bf16", "table and output data type"),
            int_param("index_bytes", 8, "bytes per token id (4 or 8)"),
        ),
        ("embed", "embedding_lookup"),
    ),
)
def _embedding(p: Values) -> Result:
    tokens, hidden = p.whole("tokens"), p.whole("hidden")
    unique = p.whole("unique") if p.is_set("unique") else tokens
    if unique > tokens:
        raise p.fail(f"parameter unique: {unique} distinct ids among {tokens} tokens")
    p.set("unique", unique)
    index = p.whole("index_bytes")
    if index not in (4, 8):
        raise p.fail(f"parameter index_bytes: expected 4 or 8, got {index}")
    w = p.size("dtype")
    reads = tokens * index + unique * hidden * w
    return Result(
        0.0,
        reads,
        tokens * hidden * w,
        vector_precision(p.text("dtype")),
        ["only the rows of distinct token ids are read, not the whole table"],
    )


@register(
    OpSpec(
        "rope",
        "rotary position embedding applied in place to q and k",
        (
            int_param("tokens", None, "tokens", aliases=("T",)),
            int_param("heads_q", None, "query heads", aliases=("Hq",)),
            int_param("heads_kv", same_as("heads_q"), "key heads", aliases=("Hkv",)),
            int_param("rot_dim", None, "rotated dimensions per head", aliases=("r",)),
            dtype_param("dtype", "bf16", "q/k data type"),
            dtype_param("cache", same_as("dtype"), "cos/sin cache data type"),
            int_param("pos_bytes", 8, "bytes per position id", zero=True),
        ),
        ("rotary", "rotary_embedding", "rotary_emb"),
    ),
)
def _rope(p: Values) -> Result:
    tokens, rot = p.whole("tokens"), p.whole("rot_dim")
    hq, hkv = p.whole("heads_q"), p.whole("heads_kv")
    if rot % 2:
        raise p.fail(f"parameter rot_dim: must be even, got {rot}")
    rotated = tokens * (hq + hkv) * rot
    a = p.size("dtype")
    # cos and sin of rot/2 frequencies per token make rot cache values.
    reads = rotated * a + tokens * rot * p.size("cache") + tokens * p.whole("pos_bytes")
    return Result(
        3.0 * rotated,
        reads,
        rotated * a,
        vector_precision(p.text("dtype")),
        ["q and k rotated in place; cos/sin cache row and position read per token"],
    )


@register(
    OpSpec(
        "sampling",
        "top-k / top-p sampling over the logits",
        (
            int_param("batch", None, "sequences", aliases=("b",)),
            int_param("vocab", None, "vocabulary size", aliases=("V",)),
            dtype_param("dtype", "fp32", "logits data type"),
        ),
        ("topk", "top_k", "top_p", "topk_sample", "sample", "sampler"),
    ),
)
def _sampling(p: Values) -> Result:
    bv = p.whole("batch") * p.whole("vocab")
    return Result(
        5.0 * bv,
        bv * p.size("dtype"),
        p.whole("batch") * 8.0,
        vector_precision(p.text("dtype")),
        [
            "one pass over the logits; sort or radix-select kernels make several (5–20x is expected)",
            "softmax counted as 5 FLOPs per logit",
        ],
    )


@register(
    OpSpec("copy", "device-to-device copy", _SIZE_OR_BYTES, ("memcpy", "d2d", "clone")),
)
def _copy(p: Values) -> Result:
    size = _copy_bytes(p)
    return Result(
        0.0,
        size,
        size,
        vector_precision(p.text("dtype")),
        ["device-to-device; host transfers are bound by the link, not DRAM"],
    )


@register(
    OpSpec("memset", "fill memory", _SIZE_OR_BYTES, ("fill", "zero")),
)
def _memset(p: Values) -> Result:
    return Result(0.0, 0.0, _copy_bytes(p), vector_precision(p.text("dtype")))


@register(
    OpSpec(
        "allreduce",
        "all-reduce across tensor-parallel ranks (communication)",
        (
            int_param("n", None, "elements per rank"),
            dtype_param("dtype", "bf16", "element data type"),
            int_param("ranks", 2, "ranks taking part"),
        ),
        ("all_reduce", "nccl_allreduce", "custom_allreduce"),
    ),
)
def _allreduce(p: Values) -> Result:
    n, ranks = p.whole("n"), p.whole("ranks")
    return Result(
        (ranks - 1) / ranks * n,
        n * p.size("dtype"),
        0.0,
        vector_precision(p.text("dtype")),
        [
            "communication: bytes are the buffer per rank; judge against link bandwidth, "
            "bus bandwidth = bytes/time·2(p−1)/p",
        ],
    )
