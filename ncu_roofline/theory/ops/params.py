"""Op parameters: their declaration, and binding given values to them."""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from ncu_roofline.theory.ops.dtypes import DTYPE_BYTES, canonical_dtype
from ncu_roofline.theory.ops.errors import TheoryError

#: A parameter's value once bound: a size or count, a number, a flag, a
#: dtype or other word; ``None`` for an AUTO parameter nobody gave.
ParamValue: TypeAlias = int | float | bool | str | None

#: An estimate's parameters by canonical name.
ParamValues: TypeAlias = dict[str, ParamValue]


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


def same_as(source: str) -> Derived:
    """A default copied from the parameter ``source``."""
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


class Values:
    """Resolved parameters of one estimate, with typed access for the formulas."""

    def __init__(self, kind: str, values: ParamValues) -> None:
        self.kind = kind
        self.values = values

    def whole(self, name: str) -> int:
        """An ``int`` parameter."""
        value = self.values[name]
        assert isinstance(value, int)
        return value

    def num(self, name: str) -> float:
        """An ``int`` or ``float`` parameter, as a float."""
        value = self.values[name]
        assert isinstance(value, (int, float))
        return float(value)

    def flag(self, name: str) -> bool:
        """A ``bool`` parameter."""
        return bool(self.values[name])

    def text(self, name: str) -> str:
        """A ``str`` or ``dtype`` parameter."""
        return str(self.values[name])

    def size(self, name: str) -> float:
        """Bytes per element of the dtype parameter ``name``."""
        return DTYPE_BYTES[self.text(name)]

    def is_set(self, name: str) -> bool:
        """Whether an AUTO parameter was given."""
        return self.values.get(name) is not None

    def set(self, name: str, value: ParamValue) -> None:
        """Record a value the formula derived (it appears in the estimate's params)."""
        self.values[name] = value

    def fail(self, message: str) -> TheoryError:
        """The error to raise for a bad combination of parameters."""
        return TheoryError(f"{self.kind}: {message}")


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


def _convert(kind: str, spec: ParamSpec, raw: Any) -> ParamValue:
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


def find_param(specs: tuple[ParamSpec, ...], name: str) -> ParamSpec | None:
    """The parameter of ``specs`` called ``name`` or one of its aliases."""
    for spec in specs:
        if name == spec.name or name in spec.aliases:
            return spec
    return None


def bind(kind: str, specs: tuple[ParamSpec, ...], params: Mapping[str, Any]) -> ParamValues:
    """Given values under their canonical names, checked and converted."""
    given: ParamValues = {}
    for name, raw in params.items():
        param = find_param(specs, name)
        if param is None:
            allowed = [p.name for p in specs]
            # Single-letter sizes (k for K) are too short for difflib to relate.
            close = [a for a in allowed if a.lower() == name.lower()]
            close += difflib.get_close_matches(name, allowed, n=3, cutoff=0.5)
            close = list(dict.fromkeys(close))[:3]
            hint = f"did you mean {', '.join(close)}? " if close else ""
            raise TheoryError(
                f"{kind}: unknown parameter {name!r}; {hint}allowed: {', '.join(allowed)}"
            )
        if param.name in given:
            raise TheoryError(f"{kind}: parameter {param.name} given twice (as {name!r})")
        given[param.name] = _convert(kind, param, raw)
    return given


def resolve(
    kind: str, specs: tuple[ParamSpec, ...], given: Mapping[str, ParamValue]
) -> ParamValues:
    """Every parameter's value: given, default, or copied from its source.

    AUTO parameters that were not given stay None for the op to fill in.
    """
    missing = [p.name for p in specs if p.required and p.name not in given]
    if missing:
        required = ", ".join(p.name for p in specs if p.required)
        raise TheoryError(
            f"{kind}: missing required parameter {', '.join(missing)} (required: {required})"
        )
    values: ParamValues = {}
    for param in specs:
        if param.name in given:
            values[param.name] = given[param.name]
        elif isinstance(param.default, Derived):
            values[param.name] = values[param.default.source] if param.default.source else None
        else:
            values[param.name] = param.default
    return values


def int_param(
    name: str,
    default: Any = None,
    help: str = "",
    *,
    aliases: tuple[str, ...] = (),
    zero: bool = False,
) -> ParamSpec:
    """An integer parameter (a size unless ``zero``: then zero is allowed)."""
    return ParamSpec(name, "int", default, help, aliases=aliases, allow_zero=zero)


def float_param(
    name: str,
    default: Any = None,
    help: str = "",
    *,
    aliases: tuple[str, ...] = (),
    zero: bool = False,
) -> ParamSpec:
    """A real-valued parameter (positive unless ``zero``)."""
    return ParamSpec(name, "float", default, help, aliases=aliases, allow_zero=zero)


def dtype_param(name: str, default: Any, help: str, *, aliases: tuple[str, ...] = ()) -> ParamSpec:
    """A data-type parameter (any name :func:`canonical_dtype` accepts)."""
    return ParamSpec(name, "dtype", default, help, aliases=aliases)


def bool_param(name: str, default: bool, help: str) -> ParamSpec:
    """A true/false parameter."""
    return ParamSpec(name, "bool", default, help)


def choice_param(name: str, default: str, help: str, choices: tuple[str, ...]) -> ParamSpec:
    """A parameter that takes one of ``choices``."""
    return ParamSpec(name, "str", default, help, choices=choices)


def dtype_params(default: str = "bf16") -> tuple[ParamSpec, ...]:
    """``dtype`` plus the per-tensor ``a``/``w``/``c`` it sets by default."""
    return (
        dtype_param("dtype", default, "data type of every tensor unless a, w or c says otherwise"),
        dtype_param("a", same_as("dtype"), "activation (input) data type", aliases=("a_dtype",)),
        dtype_param(
            "w", same_as("dtype"), "weight (second operand) data type", aliases=("b", "w_dtype")
        ),
        dtype_param("c", same_as("dtype"), "output data type", aliases=("c_dtype", "out")),
    )


def io_dtype_params(default: str = "bf16") -> tuple[ParamSpec, ...]:
    """``dtype`` (input) and ``out`` (output, default the same)."""
    return (
        dtype_param("dtype", default, "input data type"),
        dtype_param("out", same_as("dtype"), "output data type", aliases=("c", "out_dtype")),
    )
