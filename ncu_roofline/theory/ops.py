"""Theoretical FLOPs and minimal DRAM bytes of common GPU operations.

Each op of :data:`OPS` turns a few shape parameters into an
:class:`OpEstimate`: the FLOPs the algorithm must do and the bytes it must
move between DRAM and the chip.  The conventions, used by every op:

* one multiply-add is 2 FLOPs (a GEMM is ``2·M·N·K``); integer math counts
  the same way, as OPs against the INT8 ceiling;
* a transcendental (exp, tanh, rsqrt, erf) is 1 FLOP.  That figure is
  nominal: such functions run on the SFU and Nsight Compute's FP counters do
  not see them, so memory-bound ops should be judged by their bytes;
* minimal bytes read every input tensor once and write every output tensor
  once: perfect on-chip reuse inside one kernel, a cold cache between kernels.
  No re-reads, spills, split-K partials or workspace.

The minimal bytes are therefore a lower bound on what a kernel moves and the
resulting arithmetic intensity an upper bound on the DRAM intensity it can
reach (unless its inputs are still in L2 from an earlier kernel).

Use :func:`estimate` (keyword parameters) or :func:`parse_op_spec` (the
``gemm:M=4096,N=4096,K=4096,dtype=fp16`` form of the command line).
"""

from __future__ import annotations

import difflib
import math
import numbers
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ncu_roofline.errors import UsageError

__all__ = [
    "AUTO",
    "DTYPE_BYTES",
    "OPS",
    "Derived",
    "OpEstimate",
    "OpSpec",
    "ParamSpec",
    "TheoryError",
    "canonical_dtype",
    "dtype_bytes",
    "estimate",
    "parse_op_spec",
]


class TheoryError(UsageError, ValueError):
    """A theoretical estimate was asked for with wrong parameters.

    The message is one line naming the op and the parameter.  It is a
    ValueError for library callers and a UsageError (exit code 2) for the
    command line.
    """


# --------------------------------------------------------------------------
# Data types
# --------------------------------------------------------------------------

#: Bytes per element of every known data type name, aliases included.
DTYPE_BYTES: dict[str, float] = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "e4m3": 1,
    "e5m2": 1,
    "int8": 1,
    "uint8": 1,
    "int4": 0.5,
    "fp4": 0.5,
    "int32": 4,
    "int64": 8,
}

# Alias -> canonical name.  Aliases are also keys of DTYPE_BYTES so that a
# caller that only needs a size can index the table directly.
_DTYPE_ALIASES: dict[str, str] = {
    "double": "fp64",
    "float64": "fp64",
    "f64": "fp64",
    "float": "fp32",
    "float32": "fp32",
    "f32": "fp32",
    "single": "fp32",
    "half": "fp16",
    "float16": "fp16",
    "f16": "fp16",
    "bfloat16": "bf16",
    "float8": "fp8",
    "f8": "fp8",
    "fp8_e4m3": "e4m3",
    "fp8e4m3": "e4m3",
    "e4m3fn": "e4m3",
    "float8_e4m3fn": "e4m3",
    "float8_e4m3": "e4m3",
    "fp8_e5m2": "e5m2",
    "fp8e5m2": "e5m2",
    "float8_e5m2": "e5m2",
    "i8": "int8",
    "s8": "int8",
    "u8": "uint8",
    "i4": "int4",
    "s4": "int4",
    "u4": "int4",
    "uint4": "int4",
    "nvfp4": "fp4",
    "mxfp4": "fp4",
    "e2m1": "fp4",
    "float4_e2m1fn": "fp4",
    "i32": "int32",
    "int": "int32",
    "i64": "int64",
    "long": "int64",
}
DTYPE_BYTES.update({alias: DTYPE_BYTES[name] for alias, name in _DTYPE_ALIASES.items()})

# Ceiling for matrix math (tensor cores) and for vector math, per canonical
# dtype, in the vocabulary of ncu_roofline.core.hardware.COMPUTE_KEYS.
_TENSOR_KEY: dict[str, str] = {
    "fp64": "tensor_fp64",
    "fp32": "fp32",
    "tf32": "tensor_tf32",
    "fp16": "tensor_fp16",
    "bf16": "tensor_bf16",
    "fp8": "tensor_fp8",
    "e4m3": "tensor_fp8",
    "e5m2": "tensor_fp8",
    "int8": "tensor_int8",
    "uint8": "tensor_int8",
    "int4": "tensor_int8",
    "fp4": "tensor_fp4",
    "int32": "fp32",
    "int64": "fp32",
}
_VECTOR_KEY: dict[str, str] = {"fp64": "fp64", "fp16": "fp16", "bf16": "fp16"}


def canonical_dtype(name: str) -> str:
    """The canonical name of a data type (``"Half"`` -> ``"fp16"``).

    Case-insensitive; a ``torch.`` prefix and dashes are accepted.  Raises
    TheoryError for an unknown name.
    """
    text = str(name).strip().lower().replace("-", "_")
    text = text.removeprefix("torch.")
    if text in _DTYPE_ALIASES:
        return _DTYPE_ALIASES[text]
    if text in DTYPE_BYTES:
        return text
    known = ", ".join(k for k in DTYPE_BYTES if k not in _DTYPE_ALIASES)
    raise TheoryError(f"unknown data type {name!r}; known: {known}")


def dtype_bytes(name: str) -> float:
    """Bytes per element of a data type given by any accepted name."""
    return DTYPE_BYTES[canonical_dtype(name)]


def _matmul_precision(a: str, w: str) -> str:
    """Ceiling of a matrix product of dtypes ``a`` and ``w``.

    The math runs in the wider of the two (W4A16 dequantises to fp16), so the
    wider dtype picks the ceiling; on a tie the activation's wins.  fp32 uses
    tensor cores only when tf32 is asked for explicitly.
    """
    if "tf32" in (a, w) and {a, w} <= {"tf32", "fp32"}:
        return "tensor_tf32"
    wider = w if DTYPE_BYTES[w] > DTYPE_BYTES[a] else a
    return _TENSOR_KEY[wider]


def _vector_precision(dtype: str) -> str:
    """Ceiling of element-wise math on ``dtype`` (CUDA cores)."""
    return _VECTOR_KEY.get(dtype, "fp32")


# --------------------------------------------------------------------------
# Public data classes
# --------------------------------------------------------------------------


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


@dataclass(frozen=True)
class OpEstimate:
    """Theoretical FLOPs and minimal DRAM bytes of one operation.

    ``bytes == reads + writes``.  ``precision`` names the compute ceiling
    (a key of ``ncu_roofline.core.hardware.COMPUTE_KEYS``) to judge the op against.
    ``params`` holds every parameter after defaults were applied.
    """

    op: str
    label: str
    flops: float
    bytes: float
    reads: float
    writes: float
    precision: str
    # A dict cannot be hashed; leaving it out of the hash keeps estimates usable as keys.
    params: dict[str, Any] = field(default_factory=dict, hash=False)
    notes: tuple[str, ...] = ()

    @property
    def ai(self) -> float:
        """Arithmetic intensity, FLOP per byte; NaN when no bytes move."""
        if not self.bytes > 0:
            return math.nan
        return self.flops / self.bytes

    def to_dict(self) -> dict[str, Any]:
        """Plain data for JSON: non-finite numbers (an AI without bytes) become None."""
        return {
            "op": self.op,
            "label": self.label,
            "flops": _finite_or_none(self.flops),
            "bytes": _finite_or_none(self.bytes),
            "reads": _finite_or_none(self.reads),
            "writes": _finite_or_none(self.writes),
            "ai": _finite_or_none(self.ai),
            "precision": self.precision,
            "params": dict(self.params),
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Derived:
    """Default of a parameter that follows from the others.

    ``source`` names the parameter whose value is copied (``a`` defaults to
    ``dtype``); None means the op computes it (see the parameter's help).
    """

    source: str | None = None

    def __repr__(self) -> str:
        return f"={self.source}" if self.source else "auto"


#: Default computed by the op itself.
AUTO = Derived()


def _same(source: str) -> Derived:
    return Derived(source)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of an op.

    ``kind`` is ``int``, ``float``, ``dtype``, ``bool`` or ``str``.  A default
    of None means required; a :class:`Derived` default follows from other
    parameters.  Sizes must be positive unless ``allow_zero``.  ``choices``
    restricts a ``str``; ``aliases`` are other accepted names (``E`` for
    ``experts``).
    """

    name: str
    kind: str
    default: Any
    help: str
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    allow_zero: bool = False

    @property
    def required(self) -> bool:
        """Whether the parameter has no default."""
        return self.default is None


@dataclass(frozen=True)
class OpSpec:
    """An op of the library: its kind, a one-line summary and its parameters."""

    kind: str
    summary: str
    params: tuple[ParamSpec, ...]
    aliases: tuple[str, ...] = ()
    #: Parameters always shown in labels, even at their default.
    shown: tuple[str, ...] = ()

    def param(self, name: str) -> ParamSpec | None:
        """The parameter called ``name`` or one of its aliases."""
        for spec in self.params:
            if name == spec.name or name in spec.aliases:
                return spec
        return None


# --------------------------------------------------------------------------
# Parameter values
# --------------------------------------------------------------------------


class _Values:
    """Resolved parameters of one estimate, with typed access for the formulas."""

    def __init__(self, kind: str, values: dict[str, Any]) -> None:
        self.kind = kind
        self.values = values

    def whole(self, name: str) -> int:
        value = self.values[name]
        assert isinstance(value, int)
        return value

    def num(self, name: str) -> float:
        value = self.values[name]
        assert isinstance(value, (int, float))
        return float(value)

    def flag(self, name: str) -> bool:
        return bool(self.values[name])

    def text(self, name: str) -> str:
        return str(self.values[name])

    def size(self, name: str) -> float:
        """Bytes per element of the dtype parameter ``name``."""
        return DTYPE_BYTES[self.text(name)]

    def is_set(self, name: str) -> bool:
        return self.values.get(name) is not None

    def set(self, name: str, value: Any) -> None:
        self.values[name] = value

    def fail(self, message: str) -> TheoryError:
        return TheoryError(f"{self.kind}: {message}")


@dataclass
class _Result:
    flops: float
    reads: float
    writes: float
    precision: str
    notes: list[str] = field(default_factory=list)


_TRUE = frozenset({"true", "yes", "on", "1", "y", "t"})
_FALSE = frozenset({"false", "no", "off", "0", "n", "f"})


def _is_bool(raw: Any) -> bool:
    # numpy's bool_ is neither a bool nor a numbers.Real, but should read as a flag.
    return isinstance(raw, bool) or type(raw).__name__ == "bool_"


def _to_number(raw: Any) -> float | None:
    if _is_bool(raw):
        return None
    if isinstance(raw, numbers.Real):
        return float(raw)
    if isinstance(raw, str):
        try:
            return float(raw.strip().replace("_", ""))
        except ValueError:
            return None
    return None


def _convert(kind: str, spec: ParamSpec, raw: Any) -> Any:
    """Check one given value and bring it to the parameter's kind."""
    where = f"{kind}: parameter {spec.name}"
    if spec.kind in ("int", "float"):
        number = _to_number(raw)
        noun = "an integer" if spec.kind == "int" else "a number"
        if number is None or not math.isfinite(number):
            raise TheoryError(f"{where}: expected {noun}, got {raw!r}")
        if spec.kind == "int" and not number.is_integer():
            raise TheoryError(f"{where}: expected an integer, got {raw!r}")
        if number < 0 or (number == 0 and not spec.allow_zero):
            bound = "zero or more" if spec.allow_zero else "positive"
            raise TheoryError(f"{where}: must be {bound}, got {raw!r}")
        return int(number) if spec.kind == "int" else number
    if spec.kind == "bool":
        if _is_bool(raw):
            return bool(raw)
        if isinstance(raw, numbers.Real) and raw in (0, 1):
            return bool(raw)
        if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
            return raw.strip().lower() in _TRUE
        raise TheoryError(f"{where}: expected true or false, got {raw!r}")
    if spec.kind == "dtype":
        try:
            return canonical_dtype(str(raw))
        except TheoryError as exc:
            raise TheoryError(f"{where}: {exc}") from None
    text = str(raw).strip().lower()
    if spec.choices and text not in spec.choices:
        raise TheoryError(f"{where}: expected one of {', '.join(spec.choices)}, got {raw!r}")
    return text


def _bind(spec: OpSpec, params: Mapping[str, Any]) -> dict[str, Any]:
    """Given values under their canonical names, checked and converted."""
    given: dict[str, Any] = {}
    for name, raw in params.items():
        param = spec.param(name)
        if param is None:
            allowed = [p.name for p in spec.params]
            # Single-letter sizes (k for K) are too short for difflib to relate.
            close = [a for a in allowed if a.lower() == name.lower()]
            close += difflib.get_close_matches(name, allowed, n=3, cutoff=0.5)
            close = list(dict.fromkeys(close))[:3]
            hint = f"did you mean {', '.join(close)}? " if close else ""
            raise TheoryError(
                f"{spec.kind}: unknown parameter {name!r}; {hint}allowed: {', '.join(allowed)}"
            )
        if param.name in given:
            raise TheoryError(f"{spec.kind}: parameter {param.name} given twice (as {name!r})")
        given[param.name] = _convert(spec.kind, param, raw)
    return given


def _resolve(spec: OpSpec, given: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter's value: given, default, or copied from its source.

    AUTO parameters that were not given stay None for the op to fill in.
    """
    missing = [p.name for p in spec.params if p.required and p.name not in given]
    if missing:
        required = ", ".join(p.name for p in spec.params if p.required)
        raise TheoryError(
            f"{spec.kind}: missing required parameter {', '.join(missing)} (required: {required})"
        )
    values: dict[str, Any] = {}
    for param in spec.params:
        if param.name in given:
            values[param.name] = given[param.name]
        elif isinstance(param.default, Derived):
            values[param.name] = values[param.default.source] if param.default.source else None
        else:
            values[param.name] = param.default
    return values


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.6g}"
    return str(value)


def _label(spec: OpSpec, values: Mapping[str, Any], given: Mapping[str, Any]) -> str:
    """``gemm M=4096 N=4096 K=4096 fp16``: required sizes, what differs from
    its default, then the main dtype."""
    # The op's main dtype goes last, bare; ops without ``dtype`` use the activation's.
    main = "dtype" if "dtype" in values else "a" if "a" in values else None
    parts = [spec.kind]
    for param in spec.params:
        name, value = param.name, values[param.name]
        if name == main:
            continue
        if not param.required and name not in spec.shown:
            if name not in given:
                continue
            default = param.default
            if isinstance(default, Derived):
                default = values[default.source] if default.source else None
            if value == default:
                continue
        parts.append(f"{name}={_show(value)}")
    if main is not None:
        parts.append(str(values[main]))
    return " ".join(parts)


# --------------------------------------------------------------------------
# Parameter helpers for the op table
# --------------------------------------------------------------------------


def _int(
    name: str,
    default: Any = None,
    help: str = "",
    *,
    aliases: tuple[str, ...] = (),
    zero: bool = False,
) -> ParamSpec:
    return ParamSpec(name, "int", default, help, aliases=aliases, allow_zero=zero)


def _float(
    name: str,
    default: Any = None,
    help: str = "",
    *,
    aliases: tuple[str, ...] = (),
    zero: bool = False,
) -> ParamSpec:
    return ParamSpec(name, "float", default, help, aliases=aliases, allow_zero=zero)


def _dtype(name: str, default: Any, help: str, *, aliases: tuple[str, ...] = ()) -> ParamSpec:
    return ParamSpec(name, "dtype", default, help, aliases=aliases)


def _bool(name: str, default: bool, help: str) -> ParamSpec:
    return ParamSpec(name, "bool", default, help)


def _choice(name: str, default: str, help: str, choices: tuple[str, ...]) -> ParamSpec:
    return ParamSpec(name, "str", default, help, choices=choices)


def _dtypes(default: str = "bf16", *, out: bool = True) -> tuple[ParamSpec, ...]:
    """``dtype`` plus the per-tensor ``a``/``w``/``c`` it sets by default."""
    specs = [
        _dtype("dtype", default, "data type of every tensor unless a, w or c says otherwise"),
        _dtype("a", _same("dtype"), "activation (input) data type", aliases=("a_dtype",)),
        _dtype("w", _same("dtype"), "weight (second operand) data type", aliases=("b", "w_dtype")),
    ]
    if out:
        specs.append(_dtype("c", _same("dtype"), "output data type", aliases=("c_dtype", "out")))
    return tuple(specs)


def _io_dtypes(default: str = "bf16") -> tuple[ParamSpec, ...]:
    """``dtype`` (input) and ``out`` (output, default the same)."""
    return (
        _dtype("dtype", default, "input data type"),
        _dtype("out", _same("dtype"), "output data type", aliases=("c", "out_dtype")),
    )


# --------------------------------------------------------------------------
# Formulas
# --------------------------------------------------------------------------


def _gemm(p: _Values) -> _Result:
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
    return _Result(flops, reads, writes, _matmul_precision(p.text("a"), p.text("w")), notes)


def _moe(p: _Values) -> _Result:
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
    return _Result(flops, reads, writes, _matmul_precision(p.text("a"), p.text("w")), notes)


def _gemm_wq(p: _Values) -> _Result:
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
    return _Result(
        2.0 * m * n * k, reads, m * n * c, _matmul_precision(p.text("a"), p.text("a")), notes
    )


def _gemm_fp8(p: _Values) -> _Result:
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
    return _Result(2.0 * m * n * k, reads, writes, _matmul_precision(dtype, dtype), notes)


def _conv2d(p: _Values) -> _Result:
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
        precision = _vector_precision(p.text("a"))
        notes.append("depthwise: judged against the vector (non-tensor) ceiling")
    else:
        precision = _matmul_precision(p.text("a"), p.text("w"))
    return _Result(flops, reads, writes, precision, notes)


def _heads(p: _Values) -> tuple[int, int]:
    hq, hkv = p.whole("heads_q"), p.whole("heads_kv")
    if hq % hkv:
        raise p.fail(f"parameter heads_kv: {hkv} does not divide heads_q={hq}")
    return hq, hkv


def _attention_prefill(p: _Values) -> _Result:
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
    return _Result(flops, reads, writes, _matmul_precision(p.text("dtype"), p.text("kv")), notes)


def _attention_decode(p: _Values) -> _Result:
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
    return _Result(flops, reads, writes, _matmul_precision(p.text("dtype"), p.text("kv")), notes)


def _kv_append(p: _Values) -> _Result:
    tokens, hkv, d = p.whole("tokens"), p.whole("heads_kv"), p.whole("head_dim")
    elements = tokens * 2 * hkv * d
    reads = elements * p.size("dtype") + tokens * p.whole("slot_bytes")
    writes = elements * p.size("kv")
    notes = ["K and V of each new token copied into the cache; slot mapping read"]
    flops = 0.0
    if p.text("kv") != p.text("dtype"):
        flops = 2.0 * elements
        notes.append("conversion to the cache dtype: 2 FLOPs per element (nominal)")
    return _Result(flops, reads, writes, _vector_precision(p.text("dtype")), notes)


def _softmax(p: _Values) -> _Result:
    n = p.whole("rows") * p.whole("cols")
    return _Result(
        5.0 * n,
        n * p.size("dtype"),
        n * p.size("out"),
        _vector_precision(p.text("dtype")),
        ["5 FLOPs per element (max, subtract, exp, sum, divide); one pass over each row"],
    )


def _layernorm(p: _Values) -> _Result:
    tokens, hidden = p.whole("tokens"), p.whole("hidden")
    params_read = 2 if p.flag("bias") else 1
    reads = tokens * hidden * p.size("dtype") + params_read * hidden * p.size("w")
    writes = tokens * hidden * p.size("out")
    notes = ["8 FLOPs per element (nominal)"]
    if p.flag("save_stats"):
        writes += tokens * 8
        notes.append("fp32 mean and rstd per row written")
    return _Result(8.0 * tokens * hidden, reads, writes, _vector_precision(p.text("dtype")), notes)


def _rmsnorm(p: _Values) -> _Result:
    th = p.whole("tokens") * p.whole("hidden")
    a, out = p.size("dtype"), p.size("out")
    weight = p.whole("hidden") * p.size("w")
    if p.flag("residual"):
        # x + residual, then the sum both written back as the new residual and normalised.
        reads = 2 * th * a + weight
        writes = th * a + th * out
        notes = ["fused residual add: reads x and residual, writes residual and output"]
        flops = 5.0 * th
    else:
        reads = th * a + weight
        writes = th * out
        notes = []
        flops = 4.0 * th
    notes.append(
        "4 FLOPs per element for the norm (square, sum, scale, weight), rsqrt per row nominal"
    )
    return _Result(flops, reads, writes, _vector_precision(p.text("dtype")), notes)


def _elementwise(p: _Values) -> _Result:
    n = p.whole("n")
    inputs, outputs = p.whole("inputs"), p.whole("outputs")
    return _Result(
        p.num("flops_per_element") * n,
        n * inputs * p.size("dtype"),
        n * outputs * p.size("out"),
        _vector_precision(p.text("dtype")),
        [f"{inputs} full-size input(s), {outputs} output(s)"],
    )


# Nominal FLOPs per output element: the activation plus the multiply by "up".
_ACT_FLOPS = {"silu": 5.0, "gelu": 8.0, "gelu_tanh": 10.0}


def _act_and_mul(p: _Values) -> _Result:
    ti = p.whole("tokens") * p.whole("intermediate")
    act = p.text("act")
    return _Result(
        _ACT_FLOPS[act] * ti,
        2 * ti * p.size("dtype"),
        ti * p.size("out"),
        _vector_precision(p.text("dtype")),
        [f"{act}(gate)·up: {_ACT_FLOPS[act]:g} FLOPs per output element (nominal)"],
    )


def _reduce(p: _Values) -> _Result:
    n, m = p.whole("n"), p.whole("m")
    if m > n:
        raise p.fail(f"parameter m: {m} outputs from {n} inputs is not a reduction")
    writes = m * p.size("out")
    notes = []
    if p.flag("index"):
        writes += m * 8
        notes.append("int64 index per output written (argmax/argmin)")
    return _Result(float(n), n * p.size("dtype"), writes, _vector_precision(p.text("dtype")), notes)


def _embedding(p: _Values) -> _Result:
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
    return _Result(
        0.0,
        reads,
        tokens * hidden * w,
        _vector_precision(p.text("dtype")),
        ["only the rows of distinct token ids are read, not the whole table"],
    )


def _rope(p: _Values) -> _Result:
    tokens, rot = p.whole("tokens"), p.whole("rot_dim")
    hq, hkv = p.whole("heads_q"), p.whole("heads_kv")
    if rot % 2:
        raise p.fail(f"parameter rot_dim: must be even, got {rot}")
    rotated = tokens * (hq + hkv) * rot
    a = p.size("dtype")
    # cos and sin of rot/2 frequencies per token make rot cache values.
    reads = rotated * a + tokens * rot * p.size("cache") + tokens * p.whole("pos_bytes")
    return _Result(
        3.0 * rotated,
        reads,
        rotated * a,
        _vector_precision(p.text("dtype")),
        ["q and k rotated in place; cos/sin cache row and position read per token"],
    )


def _sampling(p: _Values) -> _Result:
    bv = p.whole("batch") * p.whole("vocab")
    return _Result(
        5.0 * bv,
        bv * p.size("dtype"),
        p.whole("batch") * 8.0,
        _vector_precision(p.text("dtype")),
        [
            "one pass over the logits; sort or radix-select kernels make several (5–20x is expected)",
            "softmax counted as 5 FLOPs per logit",
        ],
    )


def _copy_bytes(p: _Values) -> float:
    if p.is_set("bytes") == p.is_set("n"):
        raise p.fail("give either bytes or n (with dtype), not both or neither")
    if p.is_set("bytes"):
        return p.num("bytes")
    return p.whole("n") * p.size("dtype")


def _copy(p: _Values) -> _Result:
    size = _copy_bytes(p)
    return _Result(
        0.0,
        size,
        size,
        _vector_precision(p.text("dtype")),
        ["device-to-device; host transfers are bound by the link, not DRAM"],
    )


def _memset(p: _Values) -> _Result:
    return _Result(0.0, 0.0, _copy_bytes(p), _vector_precision(p.text("dtype")))


def _allreduce(p: _Values) -> _Result:
    n, ranks = p.whole("n"), p.whole("ranks")
    return _Result(
        (ranks - 1) / ranks * n,
        n * p.size("dtype"),
        0.0,
        _vector_precision(p.text("dtype")),
        [
            "communication: bytes are the buffer per rank; judge against link bandwidth, "
            "bus bandwidth = bytes/time·2(p−1)/p",
        ],
    )


# --------------------------------------------------------------------------
# The op table
# --------------------------------------------------------------------------

_GEMM_SIZES = (
    _int("M", None, "rows of A and C (tokens)"),
    _int("N", None, "columns of B and C (output features)"),
    _int("K", None, "reduction length (input features)"),
    _int("batch", 1, "independent products"),
)
_GEMM_TAIL = (
    _bool("bias", False, "bias added in the epilogue"),
    _bool(
        "shared_weight",
        True,
        "B is one weight for the whole batch (Linear); false: one per item (bmm)",
    ),
)
_ATTN_HEADS = (
    _int("heads_q", None, "query heads", aliases=("Hq", "num_heads")),
    _int(
        "heads_kv", _same("heads_q"), "key/value heads (GQA/MQA)", aliases=("Hkv", "num_kv_heads")
    ),
    _int("head_dim", None, "head dimension", aliases=("d",)),
)
_ATTN_DTYPES = (
    _dtype("dtype", "bf16", "query and output data type"),
    _dtype("kv", _same("dtype"), "KV data type", aliases=("kv_dtype",)),
)
_NORM = (
    _int("tokens", None, "rows", aliases=("T",)),
    _int("hidden", None, "row length", aliases=("H",)),
)
_SIZE_OR_BYTES = (
    _int("n", AUTO, "elements (with dtype); or give bytes"),
    _dtype("dtype", "bf16", "element data type"),
    _float("bytes", AUTO, "size in bytes; or give n"),
)
_MOE = (
    _int("experts", None, "routed experts", aliases=("E",)),
    _int("topk", None, "experts per token", aliases=("k",)),
    _int("tokens", None, "tokens routed", aliases=("T",)),
    _int("hidden", None, "hidden size", aliases=("H",)),
    _int("intermediate", None, "expert intermediate size", aliases=("I",)),
    _choice("which", "gate_up", "which expert GEMM kernel", ("gate_up", "down", "both")),
    _float(
        "active_experts",
        AUTO,
        "experts receiving tokens; default E·(1−(1−k/E)^T), the uniform-routing expectation",
        aliases=("E_act",),
    ),
    *_dtypes(),
)

_SPECS: tuple[tuple[OpSpec, Callable[[_Values], _Result]], ...] = (
    (
        OpSpec(
            "gemm",
            "C[M,N] = A[M,K]·B[K,N] (+bias), batch of products",
            (*_GEMM_SIZES, *_dtypes(), *_GEMM_TAIL),
            ("matmul", "linear", "addmm", "mm"),
        ),
        _gemm,
    ),
    (
        OpSpec(
            "gemv",
            "skinny GEMM for decode: M (default 1) rows against a weight",
            (_int("M", 1, "rows (batch of tokens)"), *_GEMM_SIZES[1:], *_dtypes(), *_GEMM_TAIL),
            ("skinny_gemm",),
        ),
        _gemm,
    ),
    (
        OpSpec(
            "bmm",
            "batched GEMM, B read per batch item (e.g. attention scores)",
            (
                *_GEMM_SIZES,
                *_dtypes(),
                _GEMM_TAIL[0],
                _bool("shared_weight", False, "B is one matrix for the whole batch"),
            ),
            ("batched_gemm", "baddbmm"),
        ),
        _gemm,
    ),
    (
        OpSpec(
            "moe",
            "MoE expert GEMM (grouped GEMM): fused gate_up W1[H,2I] and/or down W2[I,H]",
            _MOE,
            ("grouped_gemm", "fused_moe", "moe_gemm", "expert_gemm"),
        ),
        _moe,
    ),
    (
        OpSpec(
            "gemm_wq",
            "weight-only quantised GEMM/GEMV (W4A16, W8A16) with group-wise scales",
            (
                _int("M", 1, "rows (tokens)"),
                _int("N", None, "output features"),
                _int("K", None, "input features"),
                _int("bits", 4, "bits per weight"),
                _int(
                    "group",
                    128,
                    "input channels per scale; 0 = one scale per output channel",
                    zero=True,
                ),
                _dtype("scale", "fp16", "scale data type"),
                _choice(
                    "zero",
                    "none",
                    "zero points: none, packed (bits wide) or a dtype",
                    ("none", "packed", "fp16", "bf16", "fp32"),
                ),
                _dtype("a", "fp16", "activation data type", aliases=("dtype",)),
                _dtype("c", _same("a"), "output data type", aliases=("out",)),
                _bool("g_idx", False, "act-order (GPTQ desc_act) int32 group index read"),
            ),
            ("wq_gemm", "weight_only_gemm", "gemv_wq", "w4a16", "w8a16"),
            shown=("M", "bits", "group"),
        ),
        _gemm_wq,
    ),
    (
        OpSpec(
            "gemm_fp8",
            "W8A8 GEMM, FP8 or INT8 inputs with scales",
            (
                _int("M", None, "rows (tokens)"),
                _int("N", None, "output features"),
                _int("K", None, "input features"),
                _dtype("dtype", "fp8", "input data type (8-bit)"),
                _dtype("c", "bf16", "output data type", aliases=("out",)),
                _choice(
                    "scales",
                    "per_tensor",
                    "scale granularity",
                    ("per_tensor", "per_token", "per_channel", "per_token_channel", "block"),
                ),
                _int("block", 128, "block size of block-wise scales"),
            ),
            ("w8a8", "fp8_gemm", "int8_gemm", "scaled_mm"),
        ),
        _gemm_fp8,
    ),
    (
        OpSpec(
            "conv2d",
            "2-D convolution (implicit GEMM, forward)",
            (
                _int("N", None, "batch"),
                _int("C", None, "input channels"),
                _int("H", None, "input height"),
                _int("W", None, "input width"),
                _int("K", None, "output channels (filters)"),
                _int("R", None, "filter height"),
                _int("S", None, "filter width"),
                _int("stride", 1, "stride"),
                _int("pad", 0, "zero padding on each side", zero=True),
                _int("dilation", 1, "dilation"),
                _int("groups", 1, "groups (C for depthwise)"),
                *_dtypes(),
                _bool("bias", False, "bias added in the epilogue"),
            ),
            ("conv", "convolution"),
        ),
        _conv2d,
    ),
    (
        OpSpec(
            "attention_prefill",
            "fused (FlashAttention-style) attention, scores kept on chip",
            (
                _int("batch", 1, "sequences", aliases=("b",)),
                _int("seq_q", None, "query tokens per sequence", aliases=("Sq", "seq")),
                _int("seq_k", _same("seq_q"), "key tokens per sequence", aliases=("Sk",)),
                *_ATTN_HEADS,
                _bool("causal", True, "causal mask (bottom-right aligned)"),
                *_ATTN_DTYPES,
                _bool("lse", True, "fp32 log-sum-exp per query row written"),
                _bool("softmax_flops", False, "count 5 FLOPs per score for the softmax"),
            ),
            ("attention", "flash_attention", "fmha", "sdpa", "attn_prefill", "mha"),
        ),
        _attention_prefill,
    ),
    (
        OpSpec(
            "attention_decode",
            "attention of new tokens over a KV cache (paged or contiguous)",
            (
                _int("batch", 1, "sequences", aliases=("b",)),
                _int("context", None, "cached tokens attended per sequence", aliases=("L", "ctx")),
                *_ATTN_HEADS,
                _int(
                    "q_tokens",
                    1,
                    "query tokens per sequence (>1 for speculative decoding)",
                    aliases=("s_q",),
                ),
                *_ATTN_DTYPES,
                _int("page_size", 0, "tokens per KV page; 0 = contiguous cache", zero=True),
                _bool("softmax_flops", True, "count 5 FLOPs per score for the softmax"),
            ),
            ("decode_attention", "paged_attention", "attn_decode", "flash_decoding"),
        ),
        _attention_decode,
    ),
    (
        OpSpec(
            "kv_append",
            "write new K and V into the cache (reshape_and_cache)",
            (
                _int("tokens", None, "new tokens", aliases=("T",)),
                _int("heads_kv", None, "KV heads", aliases=("Hkv",)),
                _int("head_dim", None, "head dimension", aliases=("d",)),
                *_ATTN_DTYPES,
                _int("slot_bytes", 8, "bytes per slot-mapping entry", zero=True),
            ),
            ("reshape_and_cache", "cache_write", "kv_cache_write"),
        ),
        _kv_append,
    ),
    (
        OpSpec(
            "softmax",
            "row softmax",
            (_int("rows", None, "rows"), _int("cols", None, "row length"), *_io_dtypes()),
        ),
        _softmax,
    ),
    (
        OpSpec(
            "layernorm",
            "LayerNorm over rows",
            (
                *_NORM,
                *_io_dtypes(),
                _dtype("w", _same("dtype"), "weight (gamma, beta) data type", aliases=("weight",)),
                _bool("bias", True, "beta is read"),
                _bool("save_stats", False, "mean and rstd written (training)"),
            ),
            ("layer_norm",),
        ),
        _layernorm,
    ),
    (
        OpSpec(
            "rmsnorm",
            "RMSNorm over rows, optionally fused with the residual add",
            (
                *_NORM,
                _bool("residual", False, "fused residual add (residual updated in place)"),
                *_io_dtypes(),
                _dtype("w", _same("dtype"), "weight data type", aliases=("weight",)),
            ),
            ("rms_norm",),
        ),
        _rmsnorm,
    ),
    (
        OpSpec(
            "add_rmsnorm",
            "residual add fused with RMSNorm (rmsnorm with residual=true)",
            (
                *_NORM,
                _bool("residual", True, "fused residual add (residual updated in place)"),
                *_io_dtypes(),
                _dtype("w", _same("dtype"), "weight data type", aliases=("weight",)),
            ),
            ("fused_add_rmsnorm", "fused_add_rms_norm", "add_rms_norm"),
        ),
        _rmsnorm,
    ),
    (
        OpSpec(
            "elementwise",
            "element-wise op over n elements",
            (
                _int("n", None, "elements per tensor"),
                _int("inputs", 1, "full-size input tensors", zero=True),
                _int("outputs", 1, "output tensors"),
                _float("flops_per_element", 1, "FLOPs per element (0 for casts)", zero=True),
                *_io_dtypes(),
            ),
            ("pointwise", "eltwise", "unary", "binary"),
        ),
        _elementwise,
    ),
    (
        OpSpec(
            "act_and_mul",
            "gated activation act(gate)·up from [T, 2I] to [T, I]",
            (
                _int("tokens", None, "rows", aliases=("T",)),
                _int("intermediate", None, "output width I (input is 2I)", aliases=("I",)),
                _choice("act", "silu", "activation", tuple(_ACT_FLOPS)),
                *_io_dtypes(),
            ),
            ("swiglu", "silu_and_mul", "act_mul"),
        ),
        _act_and_mul,
    ),
    (
        OpSpec(
            "reduce",
            "reduction of n elements to m",
            (
                _int("n", None, "input elements"),
                _int("m", 1, "output elements"),
                *_io_dtypes(),
                _bool("index", False, "int64 index written per output (argmax)"),
            ),
            ("reduction", "sum"),
        ),
        _reduce,
    ),
    (
        OpSpec(
            "embedding",
            "embedding lookup of token ids",
            (
                _int("tokens", None, "token ids looked up", aliases=("T",)),
                _int("hidden", None, "row width", aliases=("H",)),
                _int("unique", AUTO, "distinct ids (rows read); default tokens"),
                _dtype("dtype", "bf16", "table and output data type"),
                _int("index_bytes", 8, "bytes per token id (4 or 8)"),
            ),
            ("embed", "embedding_lookup"),
        ),
        _embedding,
    ),
    (
        OpSpec(
            "rope",
            "rotary position embedding applied in place to q and k",
            (
                _int("tokens", None, "tokens", aliases=("T",)),
                _int("heads_q", None, "query heads", aliases=("Hq",)),
                _int("heads_kv", _same("heads_q"), "key heads", aliases=("Hkv",)),
                _int("rot_dim", None, "rotated dimensions per head", aliases=("r",)),
                _dtype("dtype", "bf16", "q/k data type"),
                _dtype("cache", _same("dtype"), "cos/sin cache data type"),
                _int("pos_bytes", 8, "bytes per position id", zero=True),
            ),
            ("rotary", "rotary_embedding", "rotary_emb"),
        ),
        _rope,
    ),
    (
        OpSpec(
            "sampling",
            "top-k / top-p sampling over the logits",
            (
                _int("batch", None, "sequences", aliases=("b",)),
                _int("vocab", None, "vocabulary size", aliases=("V",)),
                _dtype("dtype", "fp32", "logits data type"),
            ),
            ("topk", "top_k", "top_p", "topk_sample", "sample", "sampler"),
        ),
        _sampling,
    ),
    (
        OpSpec("copy", "device-to-device copy", _SIZE_OR_BYTES, ("memcpy", "d2d", "clone")),
        _copy,
    ),
    (OpSpec("memset", "fill memory", _SIZE_OR_BYTES, ("fill", "zero")), _memset),
    (
        OpSpec(
            "allreduce",
            "all-reduce across tensor-parallel ranks (communication)",
            (
                _int("n", None, "elements per rank"),
                _dtype("dtype", "bf16", "element data type"),
                _int("ranks", 2, "ranks taking part"),
            ),
            ("all_reduce", "nccl_allreduce", "custom_allreduce"),
        ),
        _allreduce,
    ),
)

#: Every op of the library by kind.
OPS: dict[str, OpSpec] = {spec.kind: spec for spec, _ in _SPECS}
_IMPLS: dict[str, Callable[[_Values], _Result]] = {spec.kind: impl for spec, impl in _SPECS}


def _norm_op(name: str) -> str:
    return name.strip().lower().replace("-", "_")


_BY_NAME: dict[str, str] = {}
for _spec in OPS.values():
    for _alias in (_spec.kind, *_spec.aliases):
        # An alias claimed twice would make lookups depend on table order.
        assert _norm_op(_alias) not in _BY_NAME, _alias
        _BY_NAME[_norm_op(_alias)] = _spec.kind


def _find_op(kind: str) -> OpSpec:
    wanted = _norm_op(str(kind))
    if wanted in _BY_NAME:
        return OPS[_BY_NAME[wanted]]
    close = difflib.get_close_matches(wanted, list(_BY_NAME), n=3, cutoff=0.6)
    hint = f"did you mean {', '.join(dict.fromkeys(_BY_NAME[c] for c in close))}? " if close else ""
    raise TheoryError(f"unknown op {kind!r}; {hint}known ops: {', '.join(OPS)}")


def estimate(kind: str, **params: Any) -> OpEstimate:
    """Theoretical FLOPs and minimal DRAM bytes of one op.

    ``kind`` is an op of :data:`OPS` or an alias (``matmul``, ``swiglu``, ...),
    case-insensitively.  Parameters are keywords; numbers may be given as
    strings (``"4096"``) and data types by any name of :data:`DTYPE_BYTES`.
    Raises TheoryError naming the op and parameter for an unknown op or
    parameter, a missing or mistyped value, or a size that is not positive.
    """
    spec = _find_op(kind)
    given = _bind(spec, params)
    values = _resolve(spec, given)
    result = _IMPLS[spec.kind](_Values(spec.kind, values))
    reads, writes = float(result.reads), float(result.writes)
    return OpEstimate(
        op=spec.kind,
        label=_label(spec, values, given),
        flops=float(result.flops),
        bytes=reads + writes,
        reads=reads,
        writes=writes,
        precision=result.precision,
        params=values,
        notes=tuple(result.notes),
    )


_SPEC_HEAD = re.compile(r"^\s*([A-Za-z][\w\-]*)\s*(?::\s*(.*))?$", re.DOTALL)


def parse_op_spec(text: str) -> OpEstimate:
    """Estimate an op written as on the command line.

    ``gemm:M=4096,N=4096,K=4096,dtype=fp16``: the op, a colon, then
    ``name=value`` pairs separated by commas or spaces.  Raises TheoryError
    for malformed text and whatever :func:`estimate` raises.
    """
    match = _SPEC_HEAD.match(text)
    if match is None:
        raise TheoryError(
            f"op spec {text!r}: expected op:name=value,... (e.g. gemm:M=1,N=4096,K=4096)"
        )
    kind, rest = match.group(1), match.group(2) or ""
    params: dict[str, str] = {}
    for item in re.split(r"[,\s]+", rest.strip()):
        if not item:
            continue
        name, sep, value = item.partition("=")
        if not sep or not name or not value:
            raise TheoryError(f"op spec {text!r}: {item!r} is not name=value")
        if name in params:
            raise TheoryError(f"op spec {text!r}: parameter {name} given twice")
        params[name] = value
    return estimate(kind, **params)
