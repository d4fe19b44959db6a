"""Model presets, config.json reading and the per-layer expansion of a forward pass."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.errors import InputFormatError, InputNotFoundError, UsageError
from ncu_roofline.theory.models import (
    ROLES,
    ModelConfig,
    ModelOp,
    builtin_models,
    expand_model,
    find_model,
    load_model_config,
)

LLAMA3_8B_JSON: dict[str, Any] = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_act": "silu",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "model_type": "llama",
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "rope_theta": 500000.0,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}


def _by_role(ops: list[ModelOp]) -> dict[str, ModelOp]:
    out: dict[str, ModelOp] = {}
    for op in ops:
        out.setdefault(op.role, op)
    return out


# ---------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------

# key: (H, heads, kv heads, head_dim, I, layers, vocab, experts, top-k, HF repo)
PRESETS = {
    "llama-2-7b": (4096, 32, 32, 128, 11008, 32, 32000, None, None, "meta-llama/Llama-2-7b-hf"),
    "llama-3-8b": (4096, 32, 8, 128, 14336, 32, 128256, None, None, "meta-llama/Meta-Llama-3-8B"),
    "llama-3-70b": (8192, 64, 8, 128, 28672, 80, 128256, None, None, "meta-llama/Meta-Llama-3-70B"),
    "mistral-7b": (4096, 32, 8, 128, 14336, 32, 32000, None, None, "mistralai/Mistral-7B-v0.1"),
    "mixtral-8x7b": (4096, 32, 8, 128, 14336, 32, 32000, 8, 2, "mistralai/Mixtral-8x7B-v0.1"),
    "qwen2.5-7b": (3584, 28, 4, 128, 18944, 28, 152064, None, None, "Qwen/Qwen2.5-7B"),
}


@pytest.mark.parametrize("key", sorted(PRESETS))
def test_builtin_presets(key: str) -> None:
    h, heads, kv, d, inter, layers, vocab, experts, topk, repo = PRESETS[key]
    cfg = builtin_models()[key]
    assert (cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads, cfg.head_dim) == (
        h,
        heads,
        kv,
        d,
    )
    assert (cfg.intermediate_size, cfg.num_hidden_layers, cfg.vocab_size) == (inter, layers, vocab)
    assert (cfg.num_local_experts, cfg.num_experts_per_tok) == (experts, topk)
    assert cfg.source == f"config.json of {repo}"
    assert cfg.hidden_act == "silu" and cfg.tie_word_embeddings is False
    assert find_model(repo) is cfg


def test_mixtral_experts_use_the_dense_intermediate_size() -> None:
    cfg = find_model("mixtral-8x7b")
    assert cfg.is_moe and cfg.moe_intermediate_size is None
    assert cfg.expert_intermediate_size == 14336
    assert not find_model("mistral-7b").is_moe


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Llama-3-8B", "llama-3-8b"),
        ("llama_3_8b", "llama-3-8b"),
        ("LLAMA 3 8B", "llama-3-8b"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"),
        ("meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"),
        ("Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b"),
        ("qwen25-7b", "qwen2.5-7b"),
        ("Mixtral 8x7B", "mixtral-8x7b"),
        ("mistralai/Mistral-7B-Instruct-v0.2", "mistral-7b"),
    ],
)
def test_find_model_accepts_spellings(name: str, key: str) -> None:
    assert find_model(name).key == key


def test_find_model_unknown_suggests() -> None:
    with pytest.raises(
        UsageError, match=r"unknown model 'lama-3-8b'; did you mean llama-3-8b"
    ) as info:
        find_model("lama-3-8b")
    assert "known models: llama-2-7b" in str(info.value)
    # v0.3 changed the vocabulary, so it must not silently become v0.1
    with pytest.raises(UsageError, match="unknown model"):
        find_model("mistralai/Mistral-7B-Instruct-v0.3")
    with pytest.raises(UsageError, match="empty model name"):
        find_model(" - ")


# ---------------------------------------------------------------------------
# config.json
# ---------------------------------------------------------------------------


def _write(folder: Path, data: Any, name: str = "config.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_load_config_json_matches_preset(tmp_path: Path) -> None:
    path = _write(tmp_path / "Meta-Llama-3-8B", LLAMA3_8B_JSON)
    cfg = load_model_config(path)
    preset = find_model("llama-3-8b")
    assert cfg.key == "Meta-Llama-3-8B"
    assert str(path) in cfg.source
    # head_dim is absent: 4096 / 32 = 128
    shape_fields = [
        f for f in ModelConfig.__dataclass_fields__ if f not in ("key", "name", "source")
    ]
    assert {f: getattr(cfg, f) for f in shape_fields} == {
        f: getattr(preset, f) for f in shape_fields
    }
    # A folder holding config.json reads the same
    assert load_model_config(tmp_path / "Meta-Llama-3-8B") == cfg


def test_load_config_defaults_and_moe(tmp_path: Path) -> None:
    data = {
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "intermediate_size": 5632,
        "num_hidden_layers": 24,
        "vocab_size": 32000,
        "num_experts": 60,
        "num_experts_per_tok": 4,
        "moe_intermediate_size": 1408,
        "tie_word_embeddings": True,
        "hidden_act": "gelu_pytorch_tanh",
    }
    cfg = load_model_config(_write(tmp_path, data, "small.json"))
    assert cfg.key == "small"
    assert (cfg.num_key_value_heads, cfg.head_dim) == (16, 128)
    assert (cfg.num_local_experts, cfg.num_experts_per_tok, cfg.expert_intermediate_size) == (
        60,
        4,
        1408,
    )
    assert cfg.tie_word_embeddings is True
    dense = load_model_config(_write(tmp_path / "dense", {**data, "num_experts": 0}))
    assert not dense.is_moe
    nested = load_model_config(
        _write(tmp_path / "vlm", {"model_type": "llava", "text_config": data})
    )
    assert nested.hidden_size == 2048


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"hidden_size": None}, r"missing key 'hidden_size'"),
        ({"vocab_size": "32000"}, r"vocab_size: expected a positive integer, got '32000'"),
        ({"num_hidden_layers": 0}, r"num_hidden_layers: expected a positive integer"),
        (
            {"num_key_value_heads": 5},
            r"num_key_value_heads: 5 does not divide num_attention_heads=32",
        ),
        ({"num_local_experts": 8}, r"missing key 'num_experts_per_tok'"),
        ({"tie_word_embeddings": "no"}, r"tie_word_embeddings: expected true or false"),
    ],
)
def test_load_config_errors_name_file_and_key(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    data = {k: v for k, v in {**LLAMA3_8B_JSON, **change}.items() if v is not None}
    path = _write(tmp_path, data)
    with pytest.raises(InputFormatError, match=message) as info:
        load_model_config(path)
    assert str(info.value).startswith(str(path))


def test_load_config_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match="no such model config file"):
        load_model_config(tmp_path / "missing.json")
    with pytest.raises(InputNotFoundError, match="is a directory"):
        load_model_config(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(InputFormatError, match=r"bad\.json: not valid JSON"):
        load_model_config(bad)
    listed = _write(tmp_path / "list", [1, 2])
    with pytest.raises(InputFormatError, match="expected a JSON object"):
        load_model_config(listed)


# ---------------------------------------------------------------------------
# Expansion: theory.md §1.5 (bf16, context 2048)
# ---------------------------------------------------------------------------

TABLE_ROLES = (
    "add_rmsnorm",
    "qkv_proj",
    "rope",
    "attention",
    "o_proj",
    "gate_up_proj",
    "act_and_mul",
    "down_proj",
    "lm_head",
)
# Columns: (model, phase, batch); values as printed in theory.md §1.5, except
# the prefill fused add+RMSNorm: 5·2048/(8·2048 + 2) = 0.62492, which the
# table prints as 0.63 (its T → ∞ limit 5/8 = 0.625 rounded up).
TABLE: dict[tuple[str, str, int], tuple[str, ...]] = {
    ("llama-2-7b", "decode", 1): (
        "0.50",
        "1.00",
        "0.74",
        "1.01",
        "1.00",
        "1.00",
        "0.83",
        "1.00",
        "1.00",
    ),
    ("llama-2-7b", "decode", 64): (
        "0.62",
        "62.7",
        "0.74",
        "1.01",
        "62.1",
        "62.8",
        "0.83",
        "62.7",
        "62.9",
    ),
    ("llama-2-7b", "prefill", 1): (
        "0.625",
        "1230",
        "0.74",
        "510",
        "1020",
        "1290",
        "0.83",
        "1210",
        "1.00",
    ),
    ("llama-3-8b", "decode", 1): (
        "0.50",
        "1.00",
        "0.74",
        "4.03",
        "1.00",
        "1.00",
        "0.83",
        "1.00",
        "1.00",
    ),
    ("llama-3-8b", "decode", 64): (
        "0.62",
        "62.4",
        "0.74",
        "4.03",
        "62.1",
        "62.9",
        "0.83",
        "62.7",
        "63.0",
    ),
    ("llama-3-8b", "prefill", 1): (
        "0.625",
        "1120",
        "0.74",
        "814",
        "1020",
        "1300",
        "0.83",
        "1250",
        "1.00",
    ),
}


def _as_printed(value: float, printed: str) -> bool:
    """Whether ``value`` prints as ``printed``: small values to the printed
    decimals, large ones to three significant figures (1228.8 -> 1230)."""
    if float(printed) < 10:
        decimals = len(printed.partition(".")[2])
        return f"{value:.{decimals}f}" == printed
    return float(f"{value:.3g}") == float(printed)


@pytest.mark.parametrize("column", sorted(TABLE))
def test_worked_per_layer_table(column: tuple[str, str, int]) -> None:
    key, phase, batch = column
    ops = _by_role(expand_model(find_model(key), phase, batch=batch, seq=2048, dtype="bf16"))
    got = {role: ops[role].estimate.ai for role in TABLE_ROLES}
    wrong = {
        role: f"{got[role]:.5g} (printed {printed})"
        for role, printed in zip(TABLE_ROLES, TABLE[column], strict=True)
        if not _as_printed(got[role], printed)
    }
    assert not wrong


def test_table_cells_by_hand() -> None:
    ops = _by_role(expand_model(find_model("llama-3-8b"), "prefill", batch=1, seq=2048))
    qkv = ops["qkv_proj"].estimate
    # M=2048, N=(32+2·8)·128=6144, K=4096: 2048·6144·4096/(6144·4096 + 2048·(4096+6144)) = 1117.1
    assert (qkv.params["M"], qkv.params["N"], qkv.params["K"]) == (2048, 6144, 4096)
    assert qkv.ai == pytest.approx(2048 * 6144 * 4096 / (6144 * 4096 + 2048 * 10240))
    attn = ops["attention"].estimate
    # causal FA: 2·32·2048²·128 FLOPs over 2048·(4·32·128 + 4·8·128 + 32·4) bytes = 814.1
    assert attn.op == "attention_prefill" and attn.params["causal"] is True
    assert attn.params["seq_q"] == attn.params["seq_k"] == 2048
    assert attn.flops == 2 * 32 * 2048**2 * 128
    assert attn.bytes == 2048 * (4 * 32 * 128 + 4 * 8 * 128 + 32 * 4)
    head = ops["lm_head"].estimate
    # logits for the last token of each sequence only
    assert (head.params["M"], head.params["N"]) == (1, 128256)


# ---------------------------------------------------------------------------
# Expansion: structure
# ---------------------------------------------------------------------------

DENSE_LAYER = (
    "add_rmsnorm",
    "qkv_proj",
    "rope",
    "kv_append",
    "attention",
    "o_proj",
    "add_rmsnorm",
    "gate_up_proj",
    "act_and_mul",
    "down_proj",
)


def test_op_order_and_counts_dense() -> None:
    ops = expand_model(find_model("llama-2-7b"), "decode", batch=8, seq=1024)
    roles = [op.role for op in ops]
    assert roles == ["embedding", "rmsnorm", *DENSE_LAYER, "final_norm", "lm_head", "sampling"]
    counts = [op.count for op in ops]
    # Layer 0's input norm has no residual to add: a plain RMSNorm once, the fused one 31 times.
    assert counts == [1, 1, 31, *[32] * 9, 1, 1, 1]
    assert set(roles) <= set(ROLES)
    norms = sum(op.count for op in ops if op.role in ("rmsnorm", "add_rmsnorm", "final_norm"))
    assert norms == 2 * 32 + 1


def test_op_order_moe_and_tensor_parallel() -> None:
    ops = expand_model(find_model("mixtral-8x7b"), "decode", batch=1, seq=2048, tp=2)
    roles = [op.role for op in ops]
    assert roles == [
        "embedding",
        "allreduce",
        "rmsnorm",
        "add_rmsnorm",
        "qkv_proj",
        "rope",
        "kv_append",
        "attention",
        "o_proj",
        "allreduce",
        "add_rmsnorm",
        "moe_router",
        "moe_gate_up",
        "act_and_mul",
        "moe_down",
        "allreduce",
        "final_norm",
        "lm_head",
        "sampling",
    ]
    by_role = _by_role(ops)
    router = by_role["moe_router"].estimate
    assert (router.params["N"], router.params["K"]) == (8, 4096)
    gate_up = by_role["moe_gate_up"].estimate
    # One token, top-2: 2 experts read; per rank I = 14336/2 = 7168
    assert gate_up.params["active_experts"] == pytest.approx(2.0)
    assert gate_up.params["intermediate"] == 7168
    assert gate_up.bytes == 2 * 2 * 4096 * 7168 * 2 + 4096 * 2 + 2 * 2 * 7168 * 2
    assert by_role["act_and_mul"].estimate.params["tokens"] == 2
    assert by_role["allreduce"].estimate.bytes == 1 * 4096 * 2


def test_tensor_parallel_shapes() -> None:
    cfg = find_model("llama-3-8b")
    ops = _by_role(expand_model(cfg, "decode", batch=4, seq=2048, tp=2))
    assert ops["qkv_proj"].estimate.params["N"] == (16 + 2 * 4) * 128
    assert ops["o_proj"].estimate.params["K"] == 16 * 128
    assert ops["gate_up_proj"].estimate.params["N"] == 14336
    assert ops["down_proj"].estimate.params["K"] == 7168
    assert ops["lm_head"].estimate.params["N"] == 128256 // 2
    assert ops["attention"].estimate.params["heads_kv"] == 4
    # 16 ranks, 8 KV heads: each rank keeps one replicated KV head and 2 query heads
    wide = _by_role(expand_model(cfg, "decode", batch=4, seq=2048, tp=16))
    assert wide["qkv_proj"].estimate.params["N"] == (2 + 2 * 1) * 128
    with pytest.raises(UsageError, match="tp=3 does not divide num_attention_heads=32"):
        expand_model(cfg, "decode", batch=1, seq=16, tp=3)


def test_kv_dtype_and_phase_inputs() -> None:
    cfg = find_model("llama-3-8b")
    ops = _by_role(expand_model(cfg, "Decode", batch=1, seq=2048, kv_dtype="fp8"))
    attn = ops["attention"].estimate
    # 32·2048·517 FLOPs over 2·2048·8·128·1 + 32·128·4 bytes = 8.05: fp8 KV doubles GQA's 4
    assert attn.op == "attention_decode" and attn.params["context"] == 2048
    assert attn.ai == pytest.approx(32 * 2048 * 517 / (2 * 2048 * 8 * 128 + 32 * 128 * 4))
    assert ops["kv_append"].estimate.params["kv"] == "fp8"
    with pytest.raises(UsageError, match="unknown phase 'train'"):
        expand_model(cfg, "train", batch=1, seq=16)
    with pytest.raises(UsageError, match="batch must be a positive integer"):
        expand_model(cfg, "decode", batch=0, seq=16)
    with pytest.raises(UsageError, match="unknown data type"):
        expand_model(cfg, "decode", batch=1, seq=16, dtype="fp7")


def test_decode_gemm_flops_are_twice_the_weights() -> None:
    cfg = find_model("llama-2-7b")
    ops = expand_model(cfg, "decode", batch=1, seq=512)
    gemm_flops = sum(op.estimate.flops * op.count for op in ops if op.estimate.op == "gemm")
    # One token multiplies every weight once: per layer 4·H² (q, k, v, o) + 3·H·I, plus lm_head V·H
    weights = 32 * (4 * 4096**2 + 3 * 4096 * 11008) + 32000 * 4096
    assert gemm_flops == 2 * weights


@settings(max_examples=40, deadline=None)
@given(
    key=st.sampled_from(sorted(PRESETS)),
    batch=st.integers(min_value=1, max_value=256),
    seq=st.integers(min_value=1, max_value=32768),
)
def test_decode_projection_ai_tracks_batch(key: str, batch: int, seq: int) -> None:
    # bf16 decode GEMM: AI = b·N·K/(N·K + b·(N+K)) lies just under b while b ≪ N, K
    ops = expand_model(find_model(key), "decode", batch=batch, seq=seq)
    for op in ops:
        if op.role in ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"):
            assert batch / 1.2 < op.estimate.ai < batch
        assert op.estimate.bytes > 0
        assert op.count >= 1
