"""The estimates file (``--theory FILE``): user rules giving theory per kernel.

A TOML file of ``[[kernel]]`` rules, tried in order; the first whose
``match`` regex is found in the kernel name (and whose optional ``nvtx``
regex, ``grid`` / ``block`` and ``when`` predicate hold) gives the launch its
theoretical FLOPs and minimal bytes, either through an op of the library::

    [params]                 # named values shared by every rule
    B = 8
    H = 4096

    [[kernel]]
    match = "upsample"
    op = "elementwise"
    n = 1024
    dtype = "fp32"

    [[kernel]]
    id = "qkv"
    match = "nvjet|xmma_gemm"
    nvtx = "qkv_proj"
    op = "gemm"
    M = "B"                  # a string is an expression over params and launch fields
    N = "(32 + 2*8) * 128"
    K = "H"
    dtype = "bf16"

or through raw ``flops`` / ``bytes`` expressions::

    [[kernel]]
    match = "^my_fused_op"
    params = { T = "grid.x * 128" }
    flops = "2*T*H*8"
    bytes = "T*H*2*2 + H*2"

Expressions see the ``[params]`` table, the rule's own ``params`` (in order)
and the launch fields ``grid.x``, ``grid.y``, ``grid.z``, ``block.x``,
``block.y``, ``block.z``, ``grid_blocks`` and ``block_threads``; never the
measured metrics.  Every error names the file and line.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ncu_roofline.core.files import parse_toml, read_user_text
from ncu_roofline.core.hardware import COMPUTE_KEYS
from ncu_roofline.errors import InputFormatError
from ncu_roofline.theory.expr import Expr, ExprError, compile_expr
from ncu_roofline.theory.ops import OPS, OpEstimate, TheoryError, estimate

#: Launch fields an expression may use.
LAUNCH_FIELDS: tuple[str, ...] = (
    "grid.x",
    "grid.y",
    "grid.z",
    "block.x",
    "block.y",
    "block.z",
    "grid_blocks",
    "block_threads",
)

_RULE_KEYS = (
    "id",
    "match",
    "nvtx",
    "grid",
    "block",
    "when",
    "op",
    "flops",
    "bytes",
    "precision",
    "params",
)
_TOP_KEYS = ("params", "kernel", "version")


def _resolve_op(name: str) -> str | None:
    """Canonical op kind for a name or alias, case-insensitively."""
    wanted = name.strip().lower().replace("-", "_")
    for kind, spec in OPS.items():
        if wanted == kind or wanted in (a.lower() for a in spec.aliases):
            return kind
    return None


def _dims(text: str | None) -> tuple[float, float, float] | None:
    """``"(128, 2, 1)"`` -> (128.0, 2.0, 1.0); None when not a dimension triple."""
    if not isinstance(text, str):
        return None
    parts = re.findall(r"\d+", text)
    if not parts or len(parts) > 3:
        return None
    nums = [float(p) for p in parts] + [1.0] * (3 - len(parts))
    return nums[0], nums[1], nums[2]


def launch_env(grid: str | None, block: str | None) -> dict[str, float]:
    """The launch fields of one launch configuration (missing ones left out)."""
    env: dict[str, float] = {}
    g, b = _dims(grid), _dims(block)
    if g is not None:
        env.update(
            {"grid.x": g[0], "grid.y": g[1], "grid.z": g[2], "grid_blocks": g[0] * g[1] * g[2]}
        )
    if b is not None:
        env.update(
            {"block.x": b[0], "block.y": b[1], "block.z": b[2], "block_threads": b[0] * b[1] * b[2]}
        )
    return env


@dataclass(frozen=True)
class Rule:
    """One ``[[kernel]]`` rule, checked and compiled."""

    index: int
    label: str
    origin: str
    match: re.Pattern[str]
    nvtx: re.Pattern[str] | None
    grid: tuple[float, float, float] | None
    block: tuple[float, float, float] | None
    when: Expr | None
    op: str | None
    args: dict[str, Any] = field(default_factory=dict)
    flops: Expr | None = None
    bytes: Expr | None = None
    precision: str | None = None
    local: tuple[tuple[str, Expr], ...] = ()

    def applies(
        self,
        kernel: str,
        nvtx: str | None,
        grid: str | None,
        block: str | None,
        env: Mapping[str, float],
    ) -> bool:
        """Whether this rule matches a launch configuration."""
        if not self.match.search(kernel):
            return False
        if self.nvtx is not None and not (nvtx and self.nvtx.search(nvtx)):
            return False
        if self.grid is not None and _dims(grid) != self.grid:
            return False
        if self.block is not None and _dims(block) != self.block:
            return False
        if self.when is not None:
            if any(n in LAUNCH_FIELDS and n not in env for n in self.when.names):
                # The export lacks the launch field the predicate needs
                # (no grid or block columns): the rule cannot apply.
                return False
            full = self._env(env)
            try:
                return bool(self.when.evaluate(full))
            except ExprError as exc:
                raise InputFormatError(f"{self.origin}: rule {self.label!r}: when: {exc}") from None
        return True

    def _env(self, env: Mapping[str, float]) -> dict[str, float]:
        full = dict(env)
        for name, expr in self.local:
            try:
                full[name] = expr.evaluate(full)
            except ExprError as exc:
                raise InputFormatError(
                    f"{self.origin}: rule {self.label!r}: params.{name}: {exc}"
                ) from None
        return full

    def evaluate(self, env: Mapping[str, float]) -> OpEstimate:
        """Theory for a launch whose fields and params are in ``env``."""
        full = self._env(env)
        if self.op is not None:
            values: dict[str, Any] = {}
            for key, value in self.args.items():
                if isinstance(value, Expr):
                    try:
                        values[key] = value.evaluate(full)
                    except ExprError as exc:
                        raise InputFormatError(
                            f"{self.origin}: rule {self.label!r}: {key}: {exc}"
                        ) from None
                else:
                    values[key] = value
            try:
                est = estimate(self.op, **values)
            except TheoryError as exc:
                raise InputFormatError(f"{self.origin}: rule {self.label!r}: {exc}") from None
            if self.precision is not None:
                # The rule knows which roof the kernel runs against (e.g. an
                # FP32 GEMM on TF32 tensor cores).
                est = dataclasses.replace(est, precision=self.precision)
            return est
        assert self.flops is not None and self.bytes is not None
        try:
            flops = self.flops.evaluate(full)
            nbytes = self.bytes.evaluate(full)
        except ExprError as exc:
            raise InputFormatError(f"{self.origin}: rule {self.label!r}: {exc}") from None
        if flops < 0 or nbytes < 0:
            raise InputFormatError(
                f"{self.origin}: rule {self.label!r}: flops and bytes must not be negative"
            )
        return OpEstimate(
            op="custom",
            label=self.label,
            flops=flops,
            bytes=nbytes,
            reads=math.nan,
            writes=math.nan,
            precision=self.precision or "fp32",
            params={},
            notes=(f"raw expressions from {self.origin}",),
        )


@dataclass(frozen=True)
class TheoryFile:
    """A checked estimates file."""

    path: str
    params: dict[str, float]
    rules: tuple[Rule, ...]

    def find(
        self, kernel: str, nvtx: str | None, grid: str | None, block: str | None
    ) -> tuple[Rule, OpEstimate] | None:
        """The first rule matching a launch configuration and its estimate."""
        env = {**self.params, **launch_env(grid, block)}
        for rule in self.rules:
            if rule.applies(kernel, nvtx, grid, block, env):
                return rule, rule.evaluate(env)
        return None


class _Lines:
    """Line numbers of rules and keys in the raw text (tomllib gives none)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.starts = [
            i for i, line in enumerate(self.lines) if re.match(r"\s*\[\[\s*kernel\s*\]\]", line)
        ]

    def rule(self, index: int) -> int:
        return self.starts[index] + 1 if index < len(self.starts) else 1

    def key(self, index: int, key: str) -> int:
        if index >= len(self.starts):
            return self.rule(index)
        start = self.starts[index]
        end = self.starts[index + 1] if index + 1 < len(self.starts) else len(self.lines)
        pattern = re.compile(rf"\s*(?:{re.escape(key)}|\"{re.escape(key)}\")\s*=")
        for i in range(start, end):
            if pattern.match(self.lines[i]):
                return i + 1
        return start + 1

    def top(self, key: str) -> int:
        """Line of a top-level table (``[key]`` or ``[[key]]``) or key."""
        k = re.escape(key)
        pattern = re.compile(rf"\s*(?:\[\[?\s*{k}\s*\]\]?|{k}\s*=|\"{k}\"\s*=)")
        for i, line in enumerate(self.lines):
            if pattern.match(line):
                return i + 1
        return 1

    def param(self, key: str) -> int:
        """Line of an entry of the ``[params]`` table."""
        start = next(
            (i for i, line in enumerate(self.lines) if re.match(r"\s*\[\s*params\s*\]", line)),
            None,
        )
        if start is None:
            return self.top(key)
        k = re.escape(key)
        pattern = re.compile(rf"\s*(?:{k}|\"{k}\"|'{k}')\s*=")
        for i in range(start + 1, len(self.lines)):
            if re.match(r"\s*\[", self.lines[i]):
                break
            if pattern.match(self.lines[i]):
                return i + 1
        return start + 1


def _compile(value: Any, where: str) -> Expr:
    if isinstance(value, bool):
        raise InputFormatError(
            f"{where}: expected a number or an expression, got {str(value).lower()}"
        )
    if isinstance(value, (int, float)):
        return compile_expr(repr(float(value)))
    try:
        return compile_expr(str(value))
    except ExprError as exc:
        raise InputFormatError(f"{where}: {exc}") from None


def load_theory_file(path: str | os.PathLike[str]) -> TheoryFile:
    """Read and check an estimates file; errors name the file and line."""
    label = str(path)
    text = read_user_text(path, "estimates file")
    data = parse_toml(text, label)
    lines = _Lines(text)
    for key in data:
        if key not in _TOP_KEYS:
            raise InputFormatError(
                f"{label}:{lines.top(key)}: unknown table {key!r}; expected [params] and [[kernel]] rules"
            )
    params: dict[str, float] = {}
    raw_params = data.get("params", {})
    if not isinstance(raw_params, dict):
        raise InputFormatError(f"{label}:{lines.top('params')}: params must be a table")
    for name, value in raw_params.items():
        where = f"{label}:{lines.param(name)}: params.{name}"
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
            raise InputFormatError(f"{where}: parameter names are letters, digits and _")
        try:
            params[name] = _compile(value, where).evaluate(params)
        except ExprError as exc:
            raise InputFormatError(f"{where}: {exc}") from None
    kernels = data.get("kernel", [])
    if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels):
        raise InputFormatError(f"{label}:{lines.top('kernel')}: rules must be [[kernel]] tables")
    if not kernels:
        raise InputFormatError(f"{label}: no [[kernel]] rules")
    rules = tuple(_rule(i, k, label, lines, params) for i, k in enumerate(kernels))
    return TheoryFile(path=label, params=params, rules=rules)


@dataclass(frozen=True)
class _RuleText:
    """One ``[[kernel]]`` table as read, with the file positions for errors."""

    index: int
    raw: dict[str, Any]
    label: str
    lines: _Lines

    @property
    def name(self) -> str:
        return str(self.raw.get("id", f"rule {self.index + 1}"))

    @property
    def origin(self) -> str:
        return f"{self.label}:{self.lines.rule(self.index)}"

    def where(self, key: str) -> str:
        """``file:line: [[kernel]] 'name': key``, the prefix of an error about ``key``."""
        return f"{self.label}:{self.lines.key(self.index, key)}: [[kernel]] {self.name!r}: {key}"

    def fail(self, message: str) -> InputFormatError:
        """An error about the rule as a whole, at its first line."""
        return InputFormatError(f"{self.origin}: [[kernel]] {self.name!r}: {message}")

    def regex(self, key: str) -> re.Pattern[str] | None:
        """The compiled regular expression under ``key``, None when absent."""
        if key not in self.raw:
            return None
        value = self.raw[key]
        if not isinstance(value, str) or not value:
            raise InputFormatError(f"{self.where(key)}: expected a regular expression string")
        try:
            return re.compile(value)
        except re.error as exc:
            raise InputFormatError(
                f"{self.where(key)}: not a valid regular expression ({exc})"
            ) from None

    def dims(self, key: str) -> tuple[float, float, float] | None:
        """The launch dimensions under ``key``, None when absent."""
        if key not in self.raw:
            return None
        dims = _dims(str(self.raw[key]))
        if dims is None:
            raise InputFormatError(f'{self.where(key)}: expected dimensions such as "(128, 1, 1)"')
        return dims

    def expr(self, key: str, known: set[str]) -> Expr:
        """The expression under ``key``, checked to use only ``known`` names."""
        expr = _compile(self.raw[key], self.where(key))
        _check_names(expr, known, self.where(key))
        return expr


class _RuleCommon(TypedDict):
    """What every :class:`Rule` has, whether it names an op or gives FLOPs and bytes."""

    index: int
    label: str
    origin: str
    match: re.Pattern[str]
    nvtx: re.Pattern[str] | None
    grid: tuple[float, float, float] | None
    block: tuple[float, float, float] | None
    when: Expr | None
    precision: str | None
    local: tuple[tuple[str, Expr], ...]


def _rule(
    index: int, raw: dict[str, Any], label: str, lines: _Lines, params: dict[str, float]
) -> Rule:
    text = _RuleText(index, raw, label, lines)
    match = text.regex("match")
    if match is None:
        raise text.fail("missing 'match' (a regex on the kernel name)")
    nvtx, grid, block = text.regex("nvtx"), text.dims("grid"), text.dims("block")
    local, known = _rule_locals(text, set(params) | set(LAUNCH_FIELDS))
    when = text.expr("when", known) if "when" in raw else None
    op_name = raw.get("op")
    has_raw = "flops" in raw or "bytes" in raw
    if op_name is None and not has_raw:
        raise text.fail("give an 'op' or both 'flops' and 'bytes'")
    if op_name is not None and has_raw:
        raise text.fail("give either 'op' or 'flops'/'bytes', not both")
    precision = raw.get("precision")
    if precision is not None and precision not in COMPUTE_KEYS:
        raise InputFormatError(
            f"{text.where('precision')}: expected one of {', '.join(COMPUTE_KEYS)}"
        )
    common: _RuleCommon = dict(
        index=index,
        label=text.name,
        origin=text.origin,
        match=match,
        nvtx=nvtx,
        grid=grid,
        block=block,
        when=when,
        precision=precision,
        local=local,
    )
    if op_name is not None:
        kind = _rule_op(text, str(op_name))
        args = _op_args(text, kind, known)
        rule = Rule(op=kind, args=args, **common)
        if not any(isinstance(v, Expr) and v.names for v in args.values()) and not local:
            # Constant rules are checked now, so a typo fails before profiling data is read.
            rule.evaluate(dict(params))
        return rule
    for key in ("flops", "bytes"):
        if key not in raw:
            raise text.fail("'flops' and 'bytes' go together")
    unknown = [k for k in raw if k not in _RULE_KEYS]
    if unknown:
        raise InputFormatError(
            f"{text.where(unknown[0])}: unknown key; a rule without 'op' takes {', '.join(_RULE_KEYS)}"
        )
    # Both compiled before either is checked: a syntax error is reported first.
    flops = _compile(raw["flops"], text.where("flops"))
    nbytes = _compile(raw["bytes"], text.where("bytes"))
    _check_names(flops, known, text.where("flops"))
    _check_names(nbytes, known, text.where("bytes"))
    return Rule(op=None, flops=flops, bytes=nbytes, **common)


def _rule_locals(text: _RuleText, known: set[str]) -> tuple[tuple[tuple[str, Expr], ...], set[str]]:
    """The rule's own ``params`` in order, and every name its expressions may use."""
    raw_local = text.raw.get("params", {})
    where = text.where("params")
    if not isinstance(raw_local, dict):
        raise InputFormatError(f'{where}: expected a table such as {{ T = "grid.x * 128" }}')
    known = set(known)
    local: list[tuple[str, Expr]] = []
    for pname, value in raw_local.items():
        expr = _compile(value, f"{where}.{pname}")
        _check_names(expr, known, f"{where}.{pname}")
        local.append((str(pname), expr))
        known.add(str(pname))
    return tuple(local), known


def _rule_op(text: _RuleText, op_name: str) -> str:
    """The op kind a rule's ``op`` names."""
    kind = _resolve_op(op_name)
    if kind is None:
        raise InputFormatError(
            f"{text.where('op')}: unknown op {op_name!r}; known ops: {', '.join(sorted(OPS))}"
        )
    return kind


def _op_args(text: _RuleText, kind: str, known: set[str]) -> dict[str, Any]:
    """The op parameters a rule gives: sizes may be expressions, the rest plain values."""
    spec = OPS[kind]
    args: dict[str, Any] = {}
    for key, value in text.raw.items():
        if key in _RULE_KEYS:
            continue
        param = spec.param(key)
        if param is None:
            names = ", ".join(p.name for p in spec.params)
            raise InputFormatError(
                f"{text.where(key)}: not a parameter of op {kind!r}; its parameters are {names}"
            )
        if param.kind in ("int", "float") and isinstance(value, str):
            args[key] = text.expr(key, known)
        else:
            args[key] = value
    return args


def _check_names(expr: Expr, known: set[str], where: str) -> None:
    unknown = sorted(expr.names - known)
    if unknown:
        raise InputFormatError(
            f"{where}: unknown name{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
            f"(known: [params] entries, the rule's params and {', '.join(LAUNCH_FIELDS)})"
        )
