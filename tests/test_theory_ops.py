"""The op library: reference values of the formula catalogue, validation, properties."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.hardware import COMPUTE_KEYS
from ncu_roofline.errors import UsageError
from ncu_roofline.theory.ops import (
    DTYPE_BYTES,
    OPS,
    OpEstimate,
    TheoryError,
    canonical_dtype,
    estimate,
    parse_op_spec,
)

N4K = 4096

# One valid parameter set per op: every op of the library must appear here.
SAMPLES: dict[str, dict[str, object]] = {
    "gemm": {"M": 128, "N": 256, "K": 512},
    "gemv": {"N": 256, "K": 512},
    "bmm": {"M": 64, "N": 64, "K": 128, "batch": 8},
    "moe": {"experts": 8, "topk": 2, "tokens": 16, "hidden": 1024, "intermediate": 2048},
    "gemm_wq": {"N": 1024, "K": 1024},
    "gemm_fp8": {"M": 64, "N": 1024, "K": 1024},
    "conv2d": {"N": 2, "C": 16, "H": 8, "W": 8, "K": 32, "R": 3, "S": 3, "pad": 1},
    "attention_prefill": {"seq_q": 256, "heads_q": 8, "head_dim": 64},
    "attention_decode": {"context": 256, "heads_q": 8, "head_dim": 64},
    "kv_append": {"tokens": 4, "heads_kv": 8, "head_dim": 64},
    "softmax": {"rows": 4, "cols": 100},
    "layernorm": {"tokens": 4, "hidden": 512},
    "rmsnorm": {"tokens": 4, "hidden": 512},
    "add_rmsnorm": {"tokens": 4, "hidden": 512},
    "elementwise": {"n": 1000},
    "act_and_mul": {"tokens": 4, "intermediate": 512},
    "reduce": {"n": 1000, "m": 10},
    "embedding": {"tokens": 4, "hidden": 512},
    "rope": {"tokens": 4, "heads_q": 8, "rot_dim": 64},
    "sampling": {"batch": 2, "vocab": 1000},
    "copy": {"n": 1000},
    "memset": {"bytes": 4096},
    "allreduce": {"n": 1000},
}


# ---------------------------------------------------------------------------
# GEMM family (theory.md §1.1, §1.4)
# ---------------------------------------------------------------------------


def test_square_gemm_fp16_seed_value() -> None:
    est = estimate("gemm", M=N4K, N=N4K, K=N4K, dtype="fp16")
    # 2·4096³ / (3·4096²·2) = 4096/3
    assert est.flops == 2 * N4K**3
    assert est.bytes == 3 * N4K**2 * 2
    assert est.ai == pytest.approx(1365.333, abs=1e-3)
    assert est.precision == "tensor_fp16"
    assert est.label == "gemm M=4096 N=4096 K=4096 fp16"


def test_batch1_gemv_fp16_seed_value() -> None:
    est = estimate("gemv", N=N4K, K=N4K, dtype="fp16")
    # 2·4096² / (2·4096² + 2·4096 (x) + 2·4096 (y)) = 4096/4098
    assert est.params["M"] == 1
    assert est.ai == pytest.approx(N4K / (N4K + 2), rel=1e-12)
    assert round(est.ai, 4) == 0.9995


def test_gemm_reads_and_writes_split() -> None:
    est = estimate("gemm", M=2, N=3, K=5, dtype="fp32")
    assert est.reads == (2 * 5 + 5 * 3) * 4
    assert est.writes == 2 * 3 * 4
    assert est.bytes == est.reads + est.writes
    assert est.precision == "fp32"


def test_gemm_bias_and_batched_weights() -> None:
    plain = estimate("gemm", M=64, N=128, K=256, batch=4)
    bias = estimate("gemm", M=64, N=128, K=256, batch=4, bias=True)
    # bias: +M·N FLOPs per product, the N-vector read once (bf16)
    assert bias.flops - plain.flops == 4 * 64 * 128
    assert bias.bytes - plain.bytes == 128 * 2
    bmm = estimate("bmm", M=64, N=128, K=256, batch=4)
    # bmm reads B once per batch item: 3 more copies of K·N bf16 than the Linear
    assert bmm.bytes - plain.bytes == 3 * 256 * 128 * 2
    assert estimate("gemm", M=64, N=128, K=256, batch=4, shared_weight=False).bytes == bmm.bytes


def test_gemm_per_tensor_dtypes() -> None:
    est = estimate("gemm", M=16, N=4096, K=4096, a="fp16", w="int4", c="fp16")
    # int4 weights are half a byte; math runs in fp16 on tensor cores
    assert est.reads == 16 * 4096 * 2 + 4096 * 4096 * 0.5
    assert est.precision == "tensor_fp16"


@pytest.mark.parametrize(
    ("params", "precision"),
    [
        ({"dtype": "fp32"}, "fp32"),
        ({"dtype": "tf32"}, "tensor_tf32"),
        ({"dtype": "fp32", "a": "tf32"}, "tensor_tf32"),
        ({"dtype": "bf16"}, "tensor_bf16"),
        ({"dtype": "half"}, "tensor_fp16"),
        ({"dtype": "e4m3", "c": "bf16"}, "tensor_fp8"),
        ({"dtype": "int8", "c": "int32"}, "tensor_int8"),
        ({"dtype": "fp4", "c": "bf16"}, "tensor_fp4"),
        ({"dtype": "fp64"}, "tensor_fp64"),
    ],
)
def test_gemm_precision_follows_dtype(params: dict[str, str], precision: str) -> None:
    assert estimate("gemm", M=8, N=8, K=8, **params).precision == precision


def test_w4a16_gemv_with_group_scales() -> None:
    est = estimate("gemm_wq", M=1, N=N4K, K=N4K, bits=4, group=128, scale="fp16")
    weights = N4K * N4K * 0.5  # 8 388 608
    scales = (N4K // 128) * N4K * 2  # 262 144: 4.125 bits per weight
    acts = N4K * 2 + N4K * 2  # x read, y written
    assert est.bytes == weights + scales + acts
    # 33 554 432 / 8 667 136 = 3.8715; theory.md's "3.88" is 2/(4.125/8) = 3.8788, weights only
    assert est.ai == pytest.approx(3.8715, abs=1e-4)
    assert est.ai == pytest.approx(3.88, abs=0.01)
    assert est.precision == "tensor_fp16"
    assert est.label == "gemm_wq M=1 N=4096 K=4096 bits=4 group=128 fp16"


def test_w4a16_gemv_without_group_scales_is_about_4() -> None:
    # group=0: one fp16 scale per output column, 4096·2 bytes; 33 554 432 / 8 413 184 = 3.988
    est = estimate("gemm_wq", N=N4K, K=N4K, group=0)
    assert est.bytes == N4K * N4K / 2 + N4K * 2 + 2 * N4K * 2
    assert round(est.ai, 2) == 3.99


def test_w4a16_zero_points() -> None:
    fp16_zero = estimate("gemm_wq", N=N4K, K=N4K, zero="fp16")
    # scales + zeros: 32 groups·4096·(2+2) bytes; 33 554 432 / 8 929 280 = 3.7578 (theory.md 3.76)
    assert fp16_zero.bytes == N4K * N4K / 2 + 32 * N4K * 4 + 4 * N4K
    assert round(fp16_zero.ai, 2) == 3.76
    packed = estimate("gemm_wq", N=N4K, K=N4K, zero="packed")
    # zeros packed at 4 bits: 32·4096·(2+0.5); 33 554 432 / 8 732 672 = 3.8424
    assert packed.ai == pytest.approx(3.8424, abs=1e-4)
    w8 = estimate("gemm_wq", N=N4K, K=N4K, bits=8, group=0)
    # W8 per-channel: 16 777 216 + 8192 + 16 384 bytes -> 1.9971
    assert w8.ai == pytest.approx(1.9971, abs=1e-4)


def test_fp8_gemm_with_bf16_output() -> None:
    est = estimate("gemm_fp8", M=N4K, N=N4K, K=N4K, c="bf16")
    # (1 + 1 + 2)·4096² bytes + two fp32 per-tensor scales -> n/2 = 2048
    assert est.bytes == 4 * N4K**2 + 8
    assert est.ai == pytest.approx(2048, rel=1e-6)
    assert est.precision == "tensor_fp8"
    block = estimate("w8a8", M=N4K, N=N4K, K=N4K, scales="block")
    # 1x128 activation scales: 4096·32·4; 128x128 weight scales: 32·32·4
    assert block.bytes - est.bytes == (N4K * 32 * 4 + 32 * 32 * 4) - 8
    assert estimate("gemm_fp8", M=8, N=8, K=8, dtype="int8").precision == "tensor_int8"
    with pytest.raises(TheoryError, match="gemm_fp8: parameter dtype: expected an 8-bit type"):
        estimate("gemm_fp8", M=8, N=8, K=8, dtype="bf16")


def test_moe_expected_active_experts_and_bytes() -> None:
    # One token, top-2 of 8: exactly 2 experts hit, 8·(1 − (6/8)^1) = 2
    est = estimate("moe", E=8, topk=2, T=1, H=4096, I=14336)
    assert est.params["active_experts"] == pytest.approx(2.0)
    assert est.flops == 4 * 1 * 2 * 4096 * 14336
    assert est.bytes == 2 * 2 * 4096 * 14336 * 2 + 4096 * 2 + 2 * 2 * 14336 * 2
    assert round(est.ai, 3) == 1.0
    many = estimate("moe", E=8, topk=2, T=64, H=4096, I=14336)
    # 8·(1 − 0.75^64) = 7.99999...: every expert is hit
    assert many.params["active_experts"] == pytest.approx(8 * (1 - 0.75**64))
    down = estimate(
        "moe", experts=8, topk=2, tokens=64, hidden=4096, intermediate=14336, which="down"
    )
    assert down.flops == 2 * 64 * 2 * 14336 * 4096
    both = estimate("moe", E=8, topk=2, T=64, H=4096, I=14336, which="both")
    assert both.flops == many.flops + down.flops
    assert both.bytes == pytest.approx(many.bytes + down.bytes)
    forced = estimate("grouped_gemm", E=8, topk=2, T=64, H=4096, I=14336, E_act=4)
    assert forced.bytes < many.bytes
    with pytest.raises(TheoryError, match="moe: parameter topk"):
        estimate("moe", E=2, topk=3, T=1, H=8, I=8)


def test_conv2d_reference_values() -> None:
    est = estimate("conv2d", N=32, C=256, H=56, W=56, K=256, R=3, S=3, pad=1, dtype="fp16")
    # F = 2·32·56·56·256·256·9 = 118 380 036 096
    # B = 2·(32·256·56·56·2) + 256·256·9·2 = 103 940 096 -> 1138.93
    assert (est.params["P"], est.params["Q"]) == (56, 56)
    assert est.flops == 118_380_036_096
    assert est.bytes == 103_940_096
    assert round(est.ai) == 1139
    assert est.precision == "tensor_fp16"
    dw = estimate(
        "conv2d", N=32, C=256, H=56, W=56, K=256, R=3, S=3, pad=1, groups=256, dtype="fp16"
    )
    # F = 2·32·3136·256·9; B ≈ twice the activations -> 18/4 = 4.5
    assert round(dw.ai, 2) == 4.5
    assert dw.precision == "fp16"
    stem = estimate("conv2d", N=1, C=3, H=224, W=224, K=64, R=7, S=7, stride=2, pad=3)
    # ResNet stem: ⌊(224 + 6 − 6 − 1)/2⌋ + 1 = 112
    assert stem.params["P"] == 112
    with pytest.raises(TheoryError, match="conv2d: parameter groups"):
        estimate("conv2d", N=1, C=6, H=8, W=8, K=8, R=1, S=1, groups=4)


# ---------------------------------------------------------------------------
# Attention (theory.md §1.2)
# ---------------------------------------------------------------------------


def test_flash_attention_prefill_mha() -> None:
    common = {
        "batch": 1,
        "seq_q": 2048,
        "heads_q": 32,
        "head_dim": 128,
        "dtype": "fp16",
        "lse": False,
    }
    full = estimate("attention_prefill", causal=False, **common)
    causal = estimate("attention_prefill", causal=True, **common)
    # F = 4·Hq·S²·d over B = 4·Hq·S·d·2: AI = S/2, halved by the causal mask
    assert full.flops == 4 * 32 * 2048**2 * 128
    assert full.ai == pytest.approx(1024)
    assert causal.flops == full.flops / 2
    assert causal.ai == pytest.approx(512)
    with_lse = estimate("attention_prefill", causal=True, **{**common, "lse": True})
    # + Hq·S·4 LSE bytes: 2·S·d/(8·d + 4) = 2·2048·128/1028 = 510.0
    assert with_lse.ai == pytest.approx(2 * 2048 * 128 / 1028)


def test_flash_attention_prefill_gqa_and_bottom_right_causal() -> None:
    gqa = estimate(
        "attention_prefill",
        seq_q=2048,
        heads_q=32,
        heads_kv=8,
        head_dim=128,
        lse=False,
        causal=False,
    )
    # Hq·S/(Hq + Hkv) = 32·2048/40
    assert gqa.ai == pytest.approx(1638.4)
    chunk = estimate("attention_prefill", seq_q=512, seq_k=2048, heads_q=8, head_dim=64)
    # Bottom-right mask: 2·b·Hq·Sq·(2Sk − Sq)·d
    assert chunk.flops == 2 * 8 * 512 * (2 * 2048 - 512) * 64
    with pytest.raises(TheoryError, match="attention_prefill: parameter seq_q"):
        estimate("attention_prefill", seq_q=4096, seq_k=2048, heads_q=8, head_dim=64)
    with pytest.raises(TheoryError, match="parameter heads_kv: 3 does not divide"):
        estimate("attention_prefill", seq_q=16, heads_q=8, heads_kv=3, head_dim=64)


def test_decode_attention_mha_and_gqa() -> None:
    mha = estimate("attention_decode", context=2048, heads_q=32, head_dim=128, dtype="fp16")
    # F = 32·2048·(4·128 + 5); B = 2·2048·32·128·2 + 32·128·(2+2) -> 1.0093
    assert mha.flops == 32 * 2048 * (4 * 128 + 5)
    assert mha.bytes == 2 * 2048 * 32 * 128 * 2 + 32 * 128 * 4
    assert mha.ai == pytest.approx(1.0, abs=0.01)
    gqa = estimate("decode_attention", L=2048, Hq=32, Hkv=8, d=128, dtype="bf16")
    # ≈ 2·g/kvb = 4: 33 882 112 / 8 404 992 = 4.031
    assert round(gqa.ai, 2) == 4.03
    fp8 = estimate("attention_decode", context=2048, heads_q=32, heads_kv=8, head_dim=128, kv="fp8")
    assert fp8.ai == pytest.approx(2 * gqa.ai, rel=0.01)
    bare = estimate("attention_decode", context=2048, heads_q=32, head_dim=128, softmax_flops=False)
    assert bare.ai == pytest.approx(2048 / 2049)
    paged = estimate(
        "attention_decode", batch=3, context=2048, heads_q=32, head_dim=128, page_size=16
    )
    plain = estimate("attention_decode", batch=3, context=2048, heads_q=32, head_dim=128)
    # 3 sequences · (128 block-table int32 + 1 length int32)
    assert paged.bytes - plain.bytes == 3 * (128 * 4 + 4)


def test_kv_append_bytes() -> None:
    est = estimate("kv_append", tokens=64, heads_kv=8, head_dim=128)
    # K and V: 64·2·8·128 elements read and written in bf16, plus int64 slots
    assert est.bytes == 64 * 2 * 8 * 128 * (2 + 2) + 64 * 8
    assert est.flops == 0
    fp8 = estimate("kv_append", tokens=64, heads_kv=8, head_dim=128, kv="fp8")
    assert fp8.bytes == 64 * 2 * 8 * 128 * (2 + 1) + 64 * 8
    assert fp8.flops > 0


# ---------------------------------------------------------------------------
# Memory-bound classes (theory.md §1.3)
# ---------------------------------------------------------------------------


def test_softmax_and_gated_activation() -> None:
    assert estimate("softmax", rows=4096, cols=4096, dtype="fp16").ai == pytest.approx(1.25)
    assert estimate("softmax", rows=8, cols=8, dtype="fp32").ai == pytest.approx(0.625)
    swiglu = estimate("swiglu", tokens=64, intermediate=14336)
    # 5·T·I over T·I·(2·2 + 2)
    assert swiglu.ai == pytest.approx(5 / 6)
    assert estimate("silu_and_mul", tokens=1, intermediate=8).op == "act_and_mul"
    gelu = estimate("act_and_mul", tokens=1, intermediate=8, act="gelu")
    # erf GELU plus the multiply: 8 nominal FLOPs per output element
    assert gelu.flops == 8 * 8


def test_norms() -> None:
    rms = estimate("rmsnorm", tokens=64, hidden=4096)
    assert rms.bytes == 64 * 4096 * (2 + 2) + 4096 * 2
    assert rms.flops == 4 * 64 * 4096
    fused = estimate("rms_norm", tokens=64, hidden=4096, residual=True)
    # reads x, residual; writes residual, output: 4·T·H·2 + γ
    assert fused.bytes == 4 * 64 * 4096 * 2 + 4096 * 2
    assert estimate("add_rmsnorm", tokens=64, hidden=4096).bytes == fused.bytes
    # 5·64/(8·64 + 2) = 0.6226
    assert round(fused.ai, 2) == 0.62
    ln = estimate("layernorm", tokens=64, hidden=4096, save_stats=True)
    assert ln.bytes == 64 * 4096 * 4 + 2 * 4096 * 2 + 64 * 8
    assert ln.flops == 8 * 64 * 4096


def test_elementwise_reduce_embedding_rope_sampling() -> None:
    add = estimate("elementwise", n=1000, inputs=2)
    assert add.ai == pytest.approx(1 / 6)
    cast = estimate("elementwise", n=1000, flops_per_element=0, dtype="fp32", out="bf16")
    assert (cast.flops, cast.bytes) == (0, 1000 * 6)
    red = estimate("reduce", n=1000, m=10, dtype="fp32", index=True)
    assert red.bytes == 1000 * 4 + 10 * 4 + 10 * 8
    emb = estimate("embedding", tokens=64, hidden=4096, unique=10)
    # ids, then only the 10 distinct rows, then the output
    assert emb.bytes == 64 * 8 + 10 * 4096 * 2 + 64 * 4096 * 2
    assert estimate("embedding", tokens=64, hidden=4096).params["unique"] == 64
    rope = estimate("rope", tokens=1, heads_q=32, heads_kv=32, rot_dim=128)
    # Llama-2-7B per token: 3·64·128 = 24 576 FLOPs over 2·64·128·2 + 128·2 + 8 = 33 032 bytes
    assert rope.flops == 24_576
    assert rope.bytes == 33_032
    assert round(rope.ai, 2) == 0.74
    sample = estimate("topk", batch=4, vocab=128_256)
    assert sample.bytes == 4 * 128_256 * 4 + 4 * 8
    assert sample.precision == "fp32"


def test_copy_memset_allreduce() -> None:
    assert estimate("memcpy", bytes=1_000_000).bytes == 2_000_000
    copy = estimate("copy", n=1000, dtype="fp32")
    assert (copy.reads, copy.writes, copy.flops) == (4000, 4000, 0)
    fill = estimate("memset", n=1000, dtype="fp32")
    assert (fill.reads, fill.writes) == (0, 4000)
    with pytest.raises(TheoryError, match="copy: give either bytes or n"):
        estimate("copy", n=10, bytes=20)
    with pytest.raises(TheoryError, match="memset: give either bytes or n"):
        estimate("memset")
    ar = estimate("allreduce", n=4096, ranks=4)
    assert ar.bytes == 4096 * 2
    assert ar.flops == pytest.approx(0.75 * 4096)
    assert any("communication" in note for note in ar.notes)


# ---------------------------------------------------------------------------
# Interface and validation
# ---------------------------------------------------------------------------


def test_every_op_has_a_sample_and_a_sound_estimate() -> None:
    assert set(SAMPLES) == set(OPS)
    for kind, params in SAMPLES.items():
        est = estimate(kind, **params)
        assert est.op == kind
        assert est.bytes == pytest.approx(est.reads + est.writes)
        assert est.bytes > 0 and est.flops >= 0
        assert est.precision in COMPUTE_KEYS
        assert est.label.startswith(kind)
        # Derived figures (conv2d output P, Q) may be added to the parameters.
        assert set(est.params) >= {p.name for p in OPS[kind].params}
        data = est.to_dict()
        assert data["op"] == kind and data["params"] == est.params
        assert isinstance(data["notes"], list)


def test_aliases_and_case() -> None:
    pairs = {
        "matmul": "gemm",
        "MatMul": "gemm",
        "rms_norm": "rmsnorm",
        "swiglu": "act_and_mul",
        "silu_and_mul": "act_and_mul",
        "memcpy": "copy",
        "grouped_gemm": "moe",
        "w8a8": "gemm_fp8",
        "flash-attention": "attention_prefill",
    }
    for alias, kind in pairs.items():
        assert estimate(alias, **SAMPLES[kind]).op == kind


def test_dtype_names() -> None:
    assert canonical_dtype("Half") == "fp16"
    assert canonical_dtype("torch.bfloat16") == "bf16"
    assert canonical_dtype("FLOAT") == "fp32"
    assert canonical_dtype("float8_e4m3fn") == "e4m3"
    assert DTYPE_BYTES["int4"] == 0.5 and DTYPE_BYTES["f16"] == 2 and DTYPE_BYTES["i8"] == 1
    a = estimate("gemm", M=8, N=8, K=8, dtype="FP16")
    b = estimate("gemm", M="8", N="8", K="8.0", dtype="half")
    assert (a.flops, a.bytes, a.label) == (b.flops, b.bytes, b.label)
    with pytest.raises(TheoryError, match="unknown data type 'fp7'"):
        canonical_dtype("fp7")


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("gem", {}, r"unknown op 'gem'; did you mean .*gemm.*known ops: gemm"),
        (
            "gemm",
            {"M": 1, "N": 1, "K": 1, "Q": 1},
            r"gemm: unknown parameter 'Q'; allowed: M, N, K, batch",
        ),
        ("gemm", {"M": 1, "N": 1, "k": 1}, r"did you mean K\?"),
        ("gemm", {"M": 1, "N": 1}, r"gemm: missing required parameter K \(required: M, N, K\)"),
        ("gemm", {"M": 1, "N": 1, "K": 0}, r"gemm: parameter K: must be positive"),
        ("gemm", {"M": -4, "N": 1, "K": 1}, r"gemm: parameter M: must be positive"),
        ("gemm", {"M": 1.5, "N": 1, "K": 1}, r"gemm: parameter M: expected an integer"),
        ("gemm", {"M": "x", "N": 1, "K": 1}, r"gemm: parameter M: expected an integer"),
        ("gemm", {"M": True, "N": 1, "K": 1}, r"gemm: parameter M: expected an integer"),
        (
            "gemm",
            {"M": 1, "N": 1, "K": 1, "bias": "maybe"},
            r"gemm: parameter bias: expected true or false",
        ),
        (
            "gemm",
            {"M": 1, "N": 1, "K": 1, "dtype": "fp7"},
            r"gemm: parameter dtype: unknown data type",
        ),
        (
            "gemm",
            {"M": 1, "N": 1, "K": 1, "w": "fp8", "b": "fp8"},
            r"gemm: parameter w given twice",
        ),
        (
            "moe",
            {**SAMPLES["moe"], "which": "up"},
            r"moe: parameter which: expected one of gate_up, down, both",
        ),
        ("gemm_wq", {"N": 8, "K": 8, "bits": 16}, r"gemm_wq: parameter bits"),
        ("embedding", {"tokens": 4, "hidden": 8, "unique": 5}, r"embedding: parameter unique"),
        (
            "rope",
            {"tokens": 1, "heads_q": 1, "rot_dim": 3},
            r"rope: parameter rot_dim: must be even",
        ),
    ],
)
def test_validation_messages(kind: str, params: dict[str, object], message: str) -> None:
    with pytest.raises(TheoryError, match=message) as info:
        estimate(kind, **params)
    # One line, usable both as a ValueError and as a command-line usage error.
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError) and isinstance(info.value, UsageError)


def test_zero_allowed_only_where_it_means_something() -> None:
    assert estimate("conv2d", **{**SAMPLES["conv2d"], "pad": 0}).params["P"] == 6
    assert (
        estimate("attention_decode", **SAMPLES["attention_decode"], page_size=0).params["page_size"]
        == 0
    )


def test_parse_op_spec() -> None:
    est = parse_op_spec("gemm:M=4096,N=4096,K=4096,dtype=fp16")
    assert est == estimate("gemm", M=4096, N=4096, K=4096, dtype="fp16")
    spaced = parse_op_spec(" attention_decode: context=2048 heads_q=32, heads_kv=8 head_dim=128 ")
    assert round(spaced.ai, 2) == 4.03
    for bad, message in [
        ("gemm M=1", "expected op:name=value"),
        ("gemm:M=1,N", "'N' is not name=value"),
        ("gemm:M=1,M=2", "parameter M given twice"),
        ("", "expected op:name=value"),
        ("gemm:M=1", "missing required parameter N, K"),
    ]:
        with pytest.raises(TheoryError, match=message):
            parse_op_spec(bad)


def test_ai_without_bytes_is_nan() -> None:
    est = OpEstimate("custom", "nothing", 10.0, 0.0, 0.0, 0.0, "fp32")
    assert math.isnan(est.ai)
    assert est.to_dict()["ai"] is None
    assert hash(est) == hash(OpEstimate("custom", "nothing", 10.0, 0.0, 0.0, 0.0, "fp32"))


# ---------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------

sizes = st.integers(min_value=1, max_value=1 << 14)
dtypes = st.sampled_from(["fp32", "bf16", "fp16", "fp8", "int8"])


@settings(max_examples=200, deadline=None)
@given(m=sizes, n=sizes, k=sizes, grow=st.integers(min_value=1, max_value=1 << 14), dtype=dtypes)
def test_gemm_ai_grows_with_k(m: int, n: int, k: int, grow: int, dtype: str) -> None:
    # AI = 2MN / (M·a + N·w + MN·c/K): the output is amortised over a longer K.
    small = estimate("gemm", M=m, N=n, K=k, dtype=dtype)
    large = estimate("gemm", M=m, N=n, K=k + grow, dtype=dtype)
    assert large.ai > small.ai


@settings(max_examples=200, deadline=None)
@given(
    m=sizes,
    n=sizes,
    k=sizes,
    batch=st.integers(1, 16),
    a=dtypes,
    w=dtypes,
    c=dtypes,
    shared=st.booleans(),
)
def test_gemm_bytes_cover_every_tensor_once(
    m: int, n: int, k: int, batch: int, a: str, w: str, c: str, shared: bool
) -> None:
    est = estimate("gemm", M=m, N=n, K=k, batch=batch, a=a, w=w, c=c, shared_weight=shared)
    size = DTYPE_BYTES
    assert est.flops == 2 * m * n * k * batch
    assert est.reads >= batch * m * k * size[a] + k * n * size[w]
    assert est.writes >= batch * m * n * size[c]
    assert est.bytes == est.reads + est.writes


@settings(max_examples=100, deadline=None)
@given(
    seq_q=st.integers(1, 8192),
    extra=st.integers(0, 8192),
    heads_kv=st.sampled_from([1, 2, 4, 8]),
    group=st.sampled_from([1, 2, 4, 8]),
    head_dim=st.sampled_from([64, 128, 256]),
)
def test_causal_attention_never_exceeds_full(
    seq_q: int, extra: int, heads_kv: int, group: int, head_dim: int
) -> None:
    shape = {
        "seq_q": seq_q,
        "seq_k": seq_q + extra,
        "heads_q": heads_kv * group,
        "heads_kv": heads_kv,
        "head_dim": head_dim,
    }
    full = estimate("attention_prefill", causal=False, **shape)
    causal = estimate("attention_prefill", causal=True, **shape)
    assert causal.bytes == full.bytes
    assert full.flops / 2 <= causal.flops <= full.flops


@settings(max_examples=100, deadline=None)
@given(m=sizes, n=sizes, k=sizes, dtype=dtypes)
def test_parse_op_spec_matches_estimate(m: int, n: int, k: int, dtype: str) -> None:
    text = f"gemm:M={m},N={n},K={k},dtype={dtype.upper()}"
    assert parse_op_spec(text) == estimate("gemm", M=m, N=n, K=k, dtype=dtype)


def test_theory_package_names_resolve_to_their_homes() -> None:
    import importlib

    import ncu_roofline.theory as theory

    assert sorted(theory.__all__) == sorted(theory._HOMES)
    for name, home in theory._HOMES.items():
        assert getattr(theory, name) is getattr(importlib.import_module(home), name)
    assert set(theory.__all__) <= set(dir(theory))
    with pytest.raises(AttributeError):
        _ = theory.no_such_name
