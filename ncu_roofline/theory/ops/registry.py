"""The op registry: specs, estimates, and looking ops up by name."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ncu_roofline.theory.ops.errors import TheoryError
from ncu_roofline.theory.ops.params import (
    Derived,
    ParamSpec,
    ParamValues,
    Values,
    bind,
    find_param,
    resolve,
)


def _finite_or_none(value: float) -> float | None:
    return value if math.isfinite(value) else None


class OpEstimateDict(TypedDict):
    """:meth:`OpEstimate.to_dict`: an estimate as plain data (``None`` for a non-finite number)."""

    op: str
    label: str
    flops: float | None
    bytes: float | None
    reads: float | None
    writes: float | None
    ai: float | None
    precision: str
    params: ParamValues
    notes: list[str]


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
    params: ParamValues = field(default_factory=dict, hash=False)
    notes: tuple[str, ...] = ()

    @property
    def ai(self) -> float:
        """Arithmetic intensity, FLOP per byte; NaN when no bytes move."""
        if not self.bytes > 0:
            return math.nan
        return self.flops / self.bytes

    def to_dict(self) -> OpEstimateDict:
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
        return find_param(self.params, name)


@dataclass
class Result:
    """What a formula computes; :func:`estimate` turns it into an :class:`OpEstimate`."""

    flops: float
    reads: float
    writes: float
    precision: str
    notes: list[str] = field(default_factory=list)


#: A formula: resolved parameters in, FLOPs and bytes out.
Formula = Callable[[Values], Result]


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


#: Every op of the library by kind, in the order the op modules register them.
OPS: dict[str, OpSpec] = {}
_FORMULAS: dict[str, Formula] = {}
# Kind and every alias, normalised, -> kind.
_BY_NAME: dict[str, str] = {}


def _norm_op(name: str) -> str:
    return name.strip().lower().replace("-", "_")


def register(*specs: OpSpec) -> Callable[[Formula], Formula]:
    """Add ops to :data:`OPS`, all computed by the decorated formula.

    Written right above the formula, so that each op's parameters sit beside
    the arithmetic that reads them.
    """

    def add(formula: Formula) -> Formula:
        for spec in specs:
            assert spec.kind not in OPS, spec.kind
            for alias in (spec.kind, *spec.aliases):
                # An alias claimed twice would make lookups depend on table order.
                assert _norm_op(alias) not in _BY_NAME, alias
                _BY_NAME[_norm_op(alias)] = spec.kind
            OPS[spec.kind] = spec
            _FORMULAS[spec.kind] = formula
        return formula

    return add


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
    given = bind(spec.kind, spec.params, params)
    values = resolve(spec.kind, spec.params, given)
    result = _FORMULAS[spec.kind](Values(spec.kind, values))
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
