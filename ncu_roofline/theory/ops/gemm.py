"""GEMM-like ops: dense, batched and skinny GEMMs, MoE expert GEMMs, quantised GEMMs, conv2d.

All count ``2·M·N·K`` FLOPs against the tensor-core ceiling of the wider
operand and read each operand once (weights once per expert that receives
tokens, quantisation scales and zero points at their granularity).
"""

from __future__ import annotations

import math

from ncu_roofline.theory.ops.dtypes import DTYPE_BYTES, matmul_precision, vector_precision
from ncu_roofline.theory.ops.params import (
    AUTO,
    Values,
    bool_param,
    choice_param,
    dtype_param,
    dtype_params,
    float_param,
    int_param,
    same_as,
)
from ncu_roofline.theory.ops.registry import OpSpec, Result, register

_GEMM_SIZES = (
    int_param("M", None, "rows of A and C (tokens)"),
    int_param("N", None, "columns of B and C (output features)"),
    int_param("K", None, "reduction length (input features)"),
    int_param("batch", 1, "independent products"),
)


_GEMM_TAIL = (
    bool_param("bias", False, "bias added in the epilogue"),
    bool_param(
        "shared_weight",
        True,
        "B is one weight for the whole batch (Linear); false: one per item (bmm)",
    ),
)


_MOE = (
    int_param("experts", None, "routed experts", aliases=("E",)),
    int_param("topk", None, "experts per token", aliases=("k",)),
    int_param("tokens", None, "tokens routed", aliases=("T",)),
    int_param("hidden", None, "hidden size", aliases=("H",)),
    int_param("intermediate", None, "expert intermediate size", aliases=("I",)),
    choice_param("which", "gate_up", "which expert GEMM kernel", ("gate_up", "down", "both")),
    float_param(
        "active_experts",
        AUTO,
        "experts receiving tokens; default E·(1−(1−k/E)^T), the uniform-routing expectation",
        aliases=("E_act",),
    ),
    *dtype_params(),
)


@register(
    OpSpec(
        "gemm",
        "C[M,N] = A[M,K]·B[K,N] (+bias), batch of products",
        (*_GEMM_SIZES, *dtype_params(), *_GEMM_TAIL),
        ("matmul", "linear", "addmm", "mm"),
    ),
    OpSpec(
        "gemv",
        "skinny GEMM for decode: M (default 1) rows against a weight",
        (
            int_param("M", 1, "rows (batch of tokens)"),
            *_GEMM_SIZES[1:],
            *dtype_params(),
            *_GEMM_TAIL,
        ),
        ("skinny_gemm",),
    ),
    OpSpec(
        "bmm",
        "batched GEMM, B read per batch item (e.g. attention scores)",
        (
            *_GEMM_SIZES,
            *dtype_params(),
            _GEMM_TAIL[0],
            bool_param("shared_weight", False, "B is one matrix for the whole batch"),
        ),
        ("batched_gemm", "baddbmm"),
    ),
)
def _gemm(p: Values) -> Result:
    m, n, k, batch = p.whole("M"), p.whole("N"), p.whole("K"), p.whole("batch")
    a, w, c = p.size("a"), p.size("w"), p.size("c")
    weight_copies = 1 if p.flag("shared_weight") else batch
    flops = 2.0 * batch * m * n * k
    reads = batch * m * k * a + weight_copies * k * n * w
    writes = batch * m * n * c
    notes = []
    if batch > 1:
        notes.append(
            "B read once for the whole batch (shared weight)"
            if p.flag("shared_weight")
            else "B read once per batch item (bmm)"
        )
    if p.flag("bias"):
        flops += batch * m * n
        reads += n * c
        notes.append("bias epilogue: +M·N FLOPs, bias vector read once")
    return Result(flops, reads, writes, matmul_precision(p.text("a"), p.text("w")), notes)


@register(
    OpSpec(
        "moe",
        "MoE expert GEMM (grouped GEMM): fused gate_up W1[H,2I] and/or down W2[I,H]",
        _MOE,
        ("grouped_gemm", "fused_moe", "moe_gemm", "expert_gemm"),
    ),
)
def _moe(p: Values) -> Result:
    experts, topk, tokens = p.whole("experts"), p.whole("topk"), p.whole("tokens")
    hidden, inter = p.whole("hidden"), p.whole("intermediate")
    if topk > experts:
        raise p.fail(f"parameter topk: {topk} is more than the {experts} experts")
    notes = []
    if p.is_set("active_experts"):
        active = p.num("active_experts")
        if active > experts:
            raise p.fail(f"parameter active_experts: {active:g} is more than the {experts} experts")
    else:
        # Expected number of distinct experts hit when every token picks topk of
        # them uniformly at random: each expert is missed with (1 - k/E)^T.
        active = min(float(experts), experts * (1.0 - (1.0 - topk / experts) ** tokens))
        p.set("active_experts", active)
        notes.append(f"active experts {active:.4g} of {experts}: expectation under uniform routing")
    a, w, c = p.size("a"), p.size("w"), p.size("c")
    which = p.text("which")
    flops = reads = writes = 0.0
    if which in ("gate_up", "both"):
        # Fused W1[H, 2I]; activations de-duplicated: read once per token, not per assignment.
        flops += 4.0 * tokens * topk * hidden * inter
        reads += active * 2 * hidden * inter * w + tokens * hidden * a
        writes += tokens * topk * 2 * inter * c
    if which in ("down", "both"):
        flops += 2.0 * tokens * topk * inter * hidden
        reads += active * inter * hidden * w + tokens * topk * inter * a
        writes += tokens * topk * hidden * c
    if which == "both":
        notes.append("both: the gate_up and down kernels summed (act_and_mul not included)")
    notes.append("only the weights of experts that receive tokens are read")
    return Result(flops, reads, writes, matmul_precision(p.text("a"), p.text("w")), notes)


@register(
    OpSpec(
        "gemm_wq",
        "weight-only quantised GEMM/GEMV (W4A16, W8A16) with group-wise scales",
        (
            int_param("M", 1, "rows (tokens)"),
            int_param("N", None, "output features"),
            int_param("K", None, "input features"),
            int_param("bits", 4, "bits per weight"),
            int_param(
                "group",
                128,
                "input channels per scale; 0 = one scale per output channel",
                zero=True,
            ),
            dtype_param("scale", "fp16", "scale data type"),
            choice_param(
                "zero",
                "none",
                "zero points: none, packed (bits wide) or a dtype",
                ("none", "packed", "fp16", "bf16", "fp32"),
            ),
            dtype_param("a", "fp16", "activation data type", aliases=("dtype",)),
            dtype_param("c", same_as("a"), "output data type", aliases=("out",)),
            bool_param("g_idx", False, "act-order (GPTQ desc_act) int32 group index read"),
        ),
        ("wq_gemm", "weight_only_gemm", "gemv_wq", "w4a16", "w8a16"),
        shown=("M", "bits", "group"),
    ),
)
def _gemm_wq(p: Values) -> Result:
    m, n, k = p.whole("M"), p.whole("N"), p.whole("K")
    bits, group = p.whole("bits"), p.whole("group")
    if bits > 8:
        raise p.fail(f"parameter bits: weight-only quantisation takes 1 to 8 bits, got {bits}")
    groups = 1 if group == 0 else math.ceil(k / group)
    zero = p.text("zero")
    scale_bytes = p.size("scale")
    zero_bytes = {"none": 0.0, "packed": bits / 8}.get(zero)
    if zero_bytes is None:
        zero_bytes = DTYPE_BYTES[zero]
    a, c = p.size("a"), p.size("c")
    weights = n * k * bits / 8
    scales = groups * n * (scale_bytes + zero_bytes)
    reads = weights + scales + m * k * a
    notes = [
        f"{bits + 8 * (scale_bytes + zero_bytes) * groups / k:.4g} bits per weight with scales",
        "dequantisation math not counted",
    ]
    if p.flag("g_idx"):
        reads += k * 4
        notes.append("act-order g_idx (int32 per input channel) read")
    return Result(
        2.0 * m * n * k, reads, m * n * c, matmul_precision(p.text("a"), p.text("a")), notes
    )


@register(
    OpSpec(
        "gemm_fp8",
        "W8A8 GEMM, FP8 or INT8 inputs with scales",
        (
            int_param("M", None, "rows (tokens)"),
            int_param("N", None, "output features"),
            int_param("K", None, "input features"),
            dtype_param("dtype", "fp8", "input data type (8-bit)"),
            dtype_param("c", "bf16", "output data type", aliases=("out",)),
            choice_param(
                "scales",
                "per_tensor",
                "scale granularity",
                ("per_tensor", "per_token", "per_channel", "per_token_channel", "block"),
            ),
            int_param("block", 128, "block size of block-wise scales"),
        ),
        ("w8a8", "fp8_gemm", "int8_gemm", "scaled_mm"),
    ),
)
def _gemm_fp8(p: Values) -> Result:
    m, n, k = p.whole("M"), p.whole("N"), p.whole("K")
    dtype = p.text("dtype")
    if DTYPE_BYTES[dtype] != 1:
        raise p.fail(
            f"parameter dtype: expected an 8-bit type (fp8, e4m3, e5m2, int8), got {dtype}"
        )
    block = p.whole("block")
    scales = p.text("scales")
    # Scales are fp32; per_tensor is one scalar per operand.
    scale_bytes = {
        "per_tensor": 2 * 4.0,
        "per_token": m * 4.0 + 4.0,
        "per_channel": n * 4.0 + 4.0,
        "per_token_channel": (m + n) * 4.0,
        "block": (m * math.ceil(k / block) + math.ceil(n / block) * math.ceil(k / block)) * 4.0,
    }[scales]
    reads = m * k + n * k + scale_bytes
    writes = m * n * p.size("c")
    notes = [f"{scales} fp32 scales: {scale_bytes:g} bytes"]
    if scales == "block":
        notes.append(f"block scales: 1x{block} on activations, {block}x{block} on weights")
    return Result(2.0 * m * n * k, reads, writes, matmul_precision(dtype, dtype), notes)


@register(
    OpSpec(
        "conv2d",
        "2-D convolution (implicit GEMM, forward)",
        (
            int_param("N", None, "batch"),
            int_param("C", None, "input channels"),
            int_param("H", None, "input height"),
            int_param("W", None, "input width"),
            int_param("K", None, "output channels (filters)"),
            int_param("R", None, "filter height"),
            int_param("S", None, "filter width"),
            int_param("stride", 1, "stride"),
            int_param("pad", 0, "zero padding on each side", zero=True),
            int_param("dilation", 1, "dilation"),
            int_param("groups", 1, "groups (C for depthwise)"),
            *dtype_params(),
            bool_param("bias", False, "bias added in the epilogue"),
        ),
        ("conv", "convolution"),
    ),
)
def _conv2d(p: Values) -> Result:
    n, c, h, w = p.whole("N"), p.whole("C"), p.whole("H"), p.whole("W")
    k, r, s = p.whole("K"), p.whole("R"), p.whole("S")
    stride, pad, dil, groups = (
        p.whole("stride"),
        p.whole("pad"),
        p.whole("dilation"),
        p.whole("groups"),
    )
    if c % groups or k % groups:
        raise p.fail(f"parameter groups: {groups} does not divide C={c} and K={k}")
    out_h = (h + 2 * pad - dil * (r - 1) - 1) // stride + 1
    out_w = (w + 2 * pad - dil * (s - 1) - 1) // stride + 1
    if out_h <= 0 or out_w <= 0:
        raise p.fail(f"output is {out_h}x{out_w}: the filter does not fit the padded input")
    p.set("P", out_h)
    p.set("Q", out_w)
    cg = c // groups
    a, wb, cb = p.size("a"), p.size("w"), p.size("c")
    flops = 2.0 * n * out_h * out_w * k * cg * r * s
    # Input read once, not as the im2col-expanded matrix: halo re-reads hit L1/L2.
    reads = n * c * h * w * a + k * cg * r * s * wb
    writes = n * k * out_h * out_w * cb
    notes = [
        f"implicit GEMM M=N·P·Q={n * out_h * out_w}, N=K={k}, K=(C/G)·R·S={cg * r * s}",
        "input read once (no im2col expansion)",
    ]
    if p.flag("bias"):
        flops += n * out_h * out_w * k
        reads += k * cb
    if cg == 1:
        # One input channel per group leaves no reduction for tensor cores.
        precision = vector_precision(p.text("a"))
        notes.append("depthwise: judged against the vector (non-tensor) ceiling")
    else:
        precision = matmul_precision(p.text("a"), p.text("w"))
    return Result(flops, reads, writes, precision, notes)
