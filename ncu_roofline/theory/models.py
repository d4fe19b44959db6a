"""Transformer model configs and their expansion into theoretical ops.

A :class:`ModelConfig` holds the few shape figures of a decoder-only
transformer (Llama, Mistral, Qwen2, Mixtral) that fix the FLOPs and bytes of
inference.  Configs come from the built-in presets (``data/models.toml``,
looked up with :func:`find_model`) or from a Hugging Face ``config.json``
(:func:`load_model_config`).

:func:`expand_model` turns a config plus a phase (prefill or decode), batch,
sequence length, dtype and tensor-parallel degree into the ops one forward
pass launches, in launch order, each an :class:`~ncu_roofline.theory.ops.OpEstimate`
with a role (``qkv_proj``, ``attention``, ...) and a count per forward pass.
The op sequence is that of a vLLM-style engine: fused QKV and gate/up
projections, fused residual-add + RMSNorm, a fused attention kernel over a
KV cache, logits for the last token of each sequence only.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from ncu_roofline.core.files import MAX_NESTING, load_builtin_toml, read_user_text, too_deep
from ncu_roofline.errors import InputFormatError, UsageError
from ncu_roofline.theory.ops import OpEstimate, canonical_dtype, estimate
from ncu_roofline.theory.phases import PHASES, tokens_per_pass

__all__ = [
    "PHASES",
    "ROLES",
    "ModelConfig",
    "ModelOp",
    "activation_of",
    "builtin_models",
    "expand_model",
    "find_model",
    "load_model_config",
    "tokens_per_pass",
]

#: Every role an op of :func:`expand_model` can have.
ROLES: tuple[str, ...] = (
    "embedding",
    "add_rmsnorm",
    "rmsnorm",
    "qkv_proj",
    "rope",
    "kv_append",
    "attention",
    "o_proj",
    "gate_up_proj",
    "act_and_mul",
    "down_proj",
    "moe_router",
    "moe_gate_up",
    "moe_down",
    "final_norm",
    "lm_head",
    "sampling",
    "allreduce",
)


@dataclass(frozen=True)
class ModelConfig:
    """Shapes of a decoder-only transformer, named as in Hugging Face configs.

    ``num_local_experts`` is None for a dense model.  MoE experts use
    ``moe_intermediate_size``, or ``intermediate_size`` where that is None
    (Mixtral).  ``source`` says where the figures come from.
    """

    key: str
    name: str
    hidden_size: int
    num_attention_heads: int
    num_key_value_heads: int
    head_dim: int
    intermediate_size: int
    num_hidden_layers: int
    vocab_size: int
    num_local_experts: int | None = None
    num_experts_per_tok: int | None = None
    moe_intermediate_size: int | None = None
    tie_word_embeddings: bool = False
    hidden_act: str = "silu"
    source: str = ""
    #: Attention window (Mistral v0.1): decode reads at most this many tokens.
    sliding_window: int | None = None

    @property
    def is_moe(self) -> bool:
        """Whether the MLP is a mixture of experts."""
        return self.num_local_experts is not None

    @property
    def expert_intermediate_size(self) -> int:
        """Intermediate size of one expert (MoE) or of the MLP (dense)."""
        return self.moe_intermediate_size or self.intermediate_size


@dataclass(frozen=True)
class ModelOp:
    """One op of a forward pass: its role, theory, and launches per pass.

    ``count`` is ``num_hidden_layers`` for an op that runs once per layer and
    1 for one that runs once per pass (embedding, lm_head, ...).
    """

    role: str
    estimate: OpEstimate
    count: int


# --------------------------------------------------------------------------
# Reading configs
# --------------------------------------------------------------------------

_MOE_KEYS = ("num_local_experts", "n_routed_experts", "num_experts")


def _positive_int(data: Mapping[str, Any], key: str, label: str, *, required: bool) -> int | None:
    value = data.get(key)
    if value is None:
        if required:
            raise InputFormatError(f"{label}: missing key {key!r} (a positive integer)")
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputFormatError(f"{label}: {key}: expected a positive integer, got {value!r}")
    if not float(value).is_integer() or value <= 0:
        raise InputFormatError(f"{label}: {key}: expected a positive integer, got {value!r}")
    return int(value)


def _required_int(data: Mapping[str, Any], key: str, label: str) -> int:
    value = _positive_int(data, key, label, required=True)
    assert value is not None
    return value


def _config_from_mapping(
    data: Mapping[str, Any], *, key: str, name: str, source: str, label: str
) -> ModelConfig:
    """Build and check a config from Hugging Face ``config.json`` keys."""
    unsupported = [
        f"{k} ({what})" for k, what in _UNMODELLED.items() if data.get(k) not in (None, 0, False)
    ]
    if unsupported:
        raise InputFormatError(
            f"{label}: architecture features that are not modelled: {', '.join(unsupported)}; "
            "describe its kernels with a --theory file instead"
        )
    hidden = _required_int(data, "hidden_size", label)
    heads = _required_int(data, "num_attention_heads", label)
    kv_heads = _positive_int(data, "num_key_value_heads", label, required=False) or heads
    if heads % kv_heads:
        raise InputFormatError(
            f"{label}: num_key_value_heads: {kv_heads} does not divide num_attention_heads={heads}"
        )
    head_dim = _positive_int(data, "head_dim", label, required=False)
    if head_dim is None:
        if hidden % heads:
            raise InputFormatError(
                f"{label}: head_dim: missing, and hidden_size={hidden} is not a multiple of "
                f"num_attention_heads={heads}"
            )
        head_dim = hidden // heads

    experts = None
    for moe_key in _MOE_KEYS:
        # Dense configs of some families carry the key with 0 or null.
        if data.get(moe_key):
            experts = _positive_int(data, moe_key, label, required=True)
            break
    per_token = moe_inter = None
    if experts is not None:
        per_token = _required_int(data, "num_experts_per_tok", label)
        if per_token > experts:
            raise InputFormatError(
                f"{label}: num_experts_per_tok: {per_token} is more than the {experts} experts"
            )
        moe_inter = _positive_int(data, "moe_intermediate_size", label, required=False)

    window = None
    if data.get("sliding_window") and data.get("use_sliding_window", True) is not False:
        window = _positive_int(data, "sliding_window", label, required=True)
    tie = data.get("tie_word_embeddings", False)
    if not isinstance(tie, bool):
        raise InputFormatError(f"{label}: tie_word_embeddings: expected true or false, got {tie!r}")
    act = data.get("hidden_act", data.get("hidden_activation")) or "silu"
    if not isinstance(act, str):
        raise InputFormatError(f"{label}: hidden_act: expected a string, got {act!r}")
    return ModelConfig(
        key=key,
        name=name,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_key_value_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=_required_int(data, "intermediate_size", label),
        num_hidden_layers=_required_int(data, "num_hidden_layers", label),
        vocab_size=_required_int(data, "vocab_size", label),
        num_local_experts=experts,
        num_experts_per_tok=per_token,
        moe_intermediate_size=moe_inter,
        tie_word_embeddings=tie,
        hidden_act=act,
        source=source,
        sliding_window=window,
    )


#: Config keys of architectures whose ops differ from the dense/MoE
#: transformer modelled here; a config carrying them is refused, not guessed.
_UNMODELLED: dict[str, str] = {
    "kv_lora_rank": "multi-head latent attention",
    "q_lora_rank": "multi-head latent attention",
    "n_shared_experts": "shared experts",
    "shared_expert_intermediate_size": "shared experts",
    "first_k_dense_replace": "dense first layers in an MoE",
}


@lru_cache(maxsize=1)
def _builtin_table() -> tuple[tuple[ModelConfig, tuple[str, ...]], ...]:
    data, label = load_builtin_toml("ncu_roofline.theory", "models.toml")
    entries = []
    for key, body in data.get("model", {}).items():
        where = f"{label}: [model.{key}]"
        if not isinstance(body, dict):
            raise InputFormatError(f"{where}: expected a table")
        aliases = body.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InputFormatError(f"{where}: aliases: expected a list of strings")
        config = _config_from_mapping(
            body,
            key=key,
            name=str(body.get("name", key)),
            source=str(body.get("source", "")),
            label=where,
        )
        entries.append((config, tuple(aliases)))
    return tuple(entries)


def builtin_models() -> dict[str, ModelConfig]:
    """The built-in model presets by key, in file order (parsed once, then cached)."""
    return {config.key: config for config, _ in _builtin_table()}


def _words(text: str) -> list[str]:
    # A Hugging Face id's organisation ("meta-llama/") says nothing about shapes.
    return re.findall(r"[a-z0-9]+", text.strip().lower().rsplit("/", 1)[-1])


# Words that name a fine-tune or packaging of the same shapes.
_VARIANT_WORDS = frozenset({"hf", "instruct", "chat", "it", "base"})


def _exact(text: str) -> str:
    return "".join(_words(text))


def _loose(text: str) -> str:
    return "".join(w for w in _words(text) if w not in _VARIANT_WORDS)


def find_model(name: str) -> ModelConfig:
    """Look up a built-in model as a user names it (e.g. on ``--model``).

    Case, punctuation and a Hugging Face organisation prefix are ignored, so
    ``llama-3-8b``, ``Llama3_8B`` and ``meta-llama/Meta-Llama-3-8B`` are one
    model; a name that differs only by ``-Instruct``, ``-chat`` or ``-hf``
    finds its base model.  Raises UsageError with close matches otherwise.
    """
    table = _builtin_table()
    for normalise in (_exact, _loose):
        wanted = normalise(name)
        if not wanted:
            break
        for config, aliases in table:
            if any(normalise(n) == wanted for n in (config.key, config.name, *aliases)):
                return config
    if not _exact(name):
        raise UsageError("empty model name; give a preset such as llama-3-8b or a config.json")
    names: dict[str, str] = {}
    for config, aliases in table:
        for candidate in (config.key, config.name, *aliases):
            names.setdefault(_exact(candidate), config.key)
    close = difflib.get_close_matches(_exact(name), list(names), n=6, cutoff=0.6)
    suggestions = list(dict.fromkeys(names[c] for c in close))[:3]
    hint = f"did you mean {', '.join(suggestions)}? " if suggestions else ""
    raise UsageError(
        f"unknown model {name!r}; {hint}known models: {', '.join(c.key for c, _ in table)} "
        "(or give the path of a Hugging Face config.json)"
    )


def load_model_config(path: str | os.PathLike[str]) -> ModelConfig:
    """Read a Hugging Face ``config.json`` (or a folder holding one).

    Reads the fields of :class:`ModelConfig` under their Hugging Face names
    (``n_routed_experts`` or ``num_experts`` also give the experts); a
    multimodal config's ``text_config`` is used when the top level has no
    ``hidden_size``.  The key is the folder name for a file called
    ``config.json``, else the file name without extension.  Raises
    InputNotFoundError when the file cannot be read and InputFormatError,
    naming file and key, when a value is missing or wrong.
    """
    file = Path(path)
    if file.is_dir() and (file / "config.json").is_file():
        file = file / "config.json"
    label = os.fspath(file)
    text = read_user_text(
        file, "model config file", directory="is a directory without a config.json"
    )
    if too_deep(text):
        raise InputFormatError(
            f"{label}: not valid JSON: nested too deeply (more than {MAX_NESTING} levels)"
        )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputFormatError(f"{label}: not valid JSON: {exc.msg} at line {exc.lineno}") from exc
    except RecursionError:
        raise InputFormatError(f"{label}: not valid JSON: nested too deeply") from None
    except ValueError:
        # Python refuses to read integers of more than 4300 digits.
        raise InputFormatError(f"{label}: not valid JSON: a number too long to read") from None
    if not isinstance(data, dict):
        raise InputFormatError(f"{label}: expected a JSON object of model settings")
    if "hidden_size" not in data and isinstance(data.get("text_config"), dict):
        data = {**data, **data["text_config"]}
    key = file.parent.name if file.name == "config.json" and file.parent.name else file.stem
    return _config_from_mapping(data, key=key, name=key, source=f"config.json {label}", label=label)


# --------------------------------------------------------------------------
# Expansion into ops
# --------------------------------------------------------------------------

# hidden_act values of Hugging Face configs -> act of the act_and_mul op.
_ACTS = {
    "silu": "silu",
    "swish": "silu",
    "gelu": "gelu",
    "gelu_pytorch_tanh": "gelu_tanh",
    "gelu_new": "gelu_tanh",
    "gelu_fast": "gelu_tanh",
}


def activation_of(hidden_act: str) -> str:
    """The ``act`` of the ``act_and_mul`` op for a config's ``hidden_act`` (silu when unknown)."""
    return _ACTS.get(hidden_act.lower(), "silu")


def _check_int(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise UsageError(f"model expansion: {name} must be a positive integer, got {value!r}")
    return value


def _shard(cfg: ModelConfig, what: str, value: int, tp: int) -> int:
    if value % tp:
        raise UsageError(f"{cfg.key}: tp={tp} does not divide {what}={value}")
    return value // tp


def expand_model(
    cfg: ModelConfig,
    phase: str,
    batch: int,
    seq: int,
    dtype: str = "bf16",
    kv_dtype: str | None = None,
    tp: int = 1,
) -> list[ModelOp]:
    """The ops of one forward pass of ``cfg`` on one GPU, in launch order.

    * decode: ``batch`` sequences add one token each, attending over a
      context of ``seq`` cached tokens (T = batch);
    * prefill: ``batch`` sequences of ``seq`` tokens, causal attention with
      Sq = Sk = seq (T = batch·seq);
    * lm_head and sampling see only the last token of each sequence.

    The first layer's input norm is a plain RMSNorm (role ``rmsnorm``: there
    is no residual yet); every later norm fuses the residual add
    (``add_rmsnorm``, ``final_norm``).  Ops between the ``rmsnorm`` and the
    ``final_norm`` repeat once per layer in list order.

    With ``tp`` > 1 the estimates are per rank: column-parallel projections
    (qkv, gate_up, the experts) split their output features, row-parallel
    ones (o, down) their input features, heads split across ranks (a KV head
    is replicated when there are fewer than ranks), and an ``allreduce`` of
    T·H elements follows the embedding, o_proj and down_proj.  The vocabulary
    of embedding and lm_head is split too; gathering the logits is not
    modelled.

    Raises UsageError for an unknown phase, non-positive sizes or a ``tp``
    that does not divide the heads or intermediate size.
    """
    shape = _pass_shape(cfg, phase, batch, seq, dtype, kv_dtype, tp)
    ops = _prologue(shape)
    add_norm = estimate("add_rmsnorm", tokens=shape.tokens, hidden=cfg.hidden_size, dtype=shape.dt)
    layer = _layer(shape, add_norm)
    layers, vocab = cfg.num_hidden_layers, cfg.vocab_size
    if layers > 1:
        # Layer 0's input norm is the plain rmsnorm of the prologue.
        ops.append(ModelOp("add_rmsnorm", add_norm, layers - 1))
    ops += [ModelOp(role, est, layers) for role, est in layer]
    ops += [
        ModelOp("final_norm", add_norm, 1),
        ModelOp("lm_head", shape.gemm(batch, math.ceil(vocab / tp), cfg.hidden_size), 1),
        ModelOp("sampling", estimate("sampling", batch=batch, vocab=vocab), 1),
    ]
    return ops


@dataclass(frozen=True)
class _PassShape:
    """The shapes of one forward pass on one rank, checked and sharded."""

    cfg: ModelConfig
    mode: str
    batch: int
    seq: int
    tp: int
    dt: str
    kv: str
    #: Query and KV heads on this rank.
    hq: int
    hkv: int
    tokens: int
    act: str

    def gemm(self, m: int, n: int, k: int) -> OpEstimate:
        """A projection of the pass's data type."""
        return estimate("gemm", M=m, N=n, K=k, dtype=self.dt)

    def allreduce(self) -> OpEstimate:
        """The tensor-parallel all-reduce of the T·H activations."""
        return estimate(
            "allreduce", n=self.tokens * self.cfg.hidden_size, dtype=self.dt, ranks=self.tp
        )

    def act_and_mul(self, rows: int, width: int) -> OpEstimate:
        """The gated activation, noting when the config's activation is unknown."""
        est = estimate("act_and_mul", tokens=rows, intermediate=width, act=self.act, dtype=self.dt)
        hidden_act = self.cfg.hidden_act
        if self.act == "silu" and hidden_act.lower() not in _ACTS:
            est = replace(est, notes=(*est.notes, f"hidden_act {hidden_act} counted as silu"))
        return est

    def attention(self) -> OpEstimate:
        """Decode over the (sliding-window) context, or causal prefill."""
        cfg = self.cfg
        heads = {"heads_q": self.hq, "heads_kv": self.hkv, "head_dim": cfg.head_dim}
        if self.mode == "decode":
            window = cfg.sliding_window
            return estimate(
                "attention_decode",
                batch=self.batch,
                context=min(self.seq, window) if window else self.seq,
                **heads,
                dtype=self.dt,
                kv=self.kv,
            )
        return estimate(
            "attention_prefill",
            batch=self.batch,
            seq_q=self.seq,
            **heads,
            causal=True,
            dtype=self.dt,
            kv=self.kv,
        )


def _pass_shape(
    cfg: ModelConfig,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
) -> _PassShape:
    """Check the expansion's arguments and shard the heads over ``tp`` ranks."""
    mode = str(phase).strip().lower()
    if mode not in PHASES:
        raise UsageError(f"unknown phase {phase!r}; expected one of {', '.join(PHASES)}")
    batch, seq, tp = _check_int("batch", batch), _check_int("seq", seq), _check_int("tp", tp)
    dt = canonical_dtype(dtype)
    kv = canonical_dtype(kv_dtype) if kv_dtype else dt
    hq = _shard(cfg, "num_attention_heads", cfg.num_attention_heads, tp)
    if cfg.num_key_value_heads >= tp:
        hkv = _shard(cfg, "num_key_value_heads", cfg.num_key_value_heads, tp)
    elif tp % cfg.num_key_value_heads:
        raise UsageError(
            f"{cfg.key}: num_key_value_heads={cfg.num_key_value_heads} cannot be replicated "
            f"evenly over tp={tp}"
        )
    else:
        hkv = 1
    return _PassShape(
        cfg=cfg,
        mode=mode,
        batch=batch,
        seq=seq,
        tp=tp,
        dt=dt,
        kv=kv,
        hq=hq,
        hkv=hkv,
        tokens=tokens_per_pass(mode, batch, seq),
        act=activation_of(cfg.hidden_act),
    )


def _prologue(shape: _PassShape) -> list[ModelOp]:
    """Embedding (with its all-reduce under tensor parallelism) and the first norm."""
    tokens, hidden, dt = shape.tokens, shape.cfg.hidden_size, shape.dt
    # Each rank reads the rows of the ids that fall in its vocabulary shard.
    unique = math.ceil(min(tokens, shape.cfg.vocab_size) / shape.tp)
    ops = [
        ModelOp(
            "embedding",
            estimate("embedding", tokens=tokens, hidden=hidden, unique=unique, dtype=dt),
            1,
        )
    ]
    if shape.tp > 1:
        ops.append(ModelOp("allreduce", shape.allreduce(), 1))
    ops.append(ModelOp("rmsnorm", estimate("rmsnorm", tokens=tokens, hidden=hidden, dtype=dt), 1))
    return ops


def _layer(shape: _PassShape, add_norm: OpEstimate) -> list[tuple[str, OpEstimate]]:
    """The ops of one decoder layer after its input norm, as (role, estimate)."""
    cfg, tokens, hq, hkv, dt = shape.cfg, shape.tokens, shape.hq, shape.hkv, shape.dt
    d, hidden = cfg.head_dim, cfg.hidden_size
    attention = shape.attention()
    layer: list[tuple[str, OpEstimate]] = [
        ("qkv_proj", shape.gemm(tokens, (hq + 2 * hkv) * d, hidden)),
        ("rope", estimate("rope", tokens=tokens, heads_q=hq, heads_kv=hkv, rot_dim=d, dtype=dt)),
        (
            "kv_append",
            estimate("kv_append", tokens=tokens, heads_kv=hkv, head_dim=d, dtype=dt, kv=shape.kv),
        ),
        ("attention", attention),
        ("o_proj", shape.gemm(tokens, hidden, hq * d)),
    ]
    if shape.tp > 1:
        layer.append(("allreduce", shape.allreduce()))
    layer.append(("add_rmsnorm", add_norm))
    layer += _moe_mlp(shape) if cfg.is_moe else _dense_mlp(shape)
    if shape.tp > 1:
        layer.append(("allreduce", shape.allreduce()))
    return layer


def _dense_mlp(shape: _PassShape) -> list[tuple[str, OpEstimate]]:
    """gate_up, the gated activation and down of a dense MLP."""
    cfg, tokens = shape.cfg, shape.tokens
    inter = _shard(cfg, "intermediate_size", cfg.intermediate_size, shape.tp)
    return [
        ("gate_up_proj", shape.gemm(tokens, 2 * inter, cfg.hidden_size)),
        ("act_and_mul", shape.act_and_mul(tokens, inter)),
        ("down_proj", shape.gemm(tokens, cfg.hidden_size, inter)),
    ]


def _moe_mlp(shape: _PassShape) -> list[tuple[str, OpEstimate]]:
    """Router, expert gate_up, the gated activation and expert down of an MoE MLP."""
    cfg, tokens = shape.cfg, shape.tokens
    assert cfg.num_local_experts is not None and cfg.num_experts_per_tok is not None
    experts, topk = cfg.num_local_experts, cfg.num_experts_per_tok
    inter = _shard(cfg, "expert intermediate size", cfg.expert_intermediate_size, shape.tp)

    def moe(which: str) -> OpEstimate:
        return estimate(
            "moe",
            experts=experts,
            topk=topk,
            tokens=tokens,
            hidden=cfg.hidden_size,
            intermediate=inter,
            which=which,
            dtype=shape.dt,
        )

    return [
        ("moe_router", shape.gemm(tokens, experts, cfg.hidden_size)),
        ("moe_gate_up", moe("gate_up")),
        ("act_and_mul", shape.act_and_mul(tokens * topk, inter)),
        ("moe_down", moe("down")),
    ]
