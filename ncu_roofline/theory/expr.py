"""A small, safe arithmetic expression language for theory rules.

Expressions such as ``2*T*H + ceil(N / 128) * 4`` or ``grid.x >= 64 and
block.x == 256`` are parsed with :mod:`ast` and interpreted node by node
from a whitelist: numbers, names (``T``, dotted ``grid.x``), ``+ - * / // %
**``, comparisons, ``and``/``or``/``not``, a conditional
``a if cond else b`` and a few functions.  Nothing is ever passed to
``eval``; attribute access, subscripts, lambdas and every other node are
refused when the expression is compiled.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Longest expression accepted, in characters.
MAX_LENGTH = 2000
#: Deepest nesting accepted (parentheses, calls, conditionals, operators of
#: different precedence).  A run of operators of one precedence
#: (``a + b + c + ...``) counts as one level however many terms it has.
MAX_DEPTH = 100
#: Largest magnitude a result or intermediate may reach; far beyond any real
#: FLOP or byte count, small enough to stop ``10**10**10``.
MAX_MAGNITUDE = 1e30

FUNCTIONS: dict[str, Callable[..., float]] = {
    "ceil": lambda x: float(math.ceil(x)),
    "floor": lambda x: float(math.floor(x)),
    "min": lambda *xs: float(min(xs)),
    "max": lambda *xs: float(max(xs)),
    "abs": lambda x: float(abs(x)),
    "round": lambda x: float(round(x)),
    "log2": math.log2,
    "sqrt": math.sqrt,
}

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[float, float], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


class ExprError(ValueError):
    """An expression that cannot be compiled or evaluated."""


def _dotted(node: ast.expr) -> str | None:
    """``grid.x`` -> ``"grid.x"``; None for anything but names and attributes of names."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _chain(node: ast.BinOp) -> tuple[ast.expr, list[ast.BinOp]]:
    """A left-leaning run of binary operations (``a + b - c``): its leftmost
    operand, and the operations from the innermost out.

    Walked iteratively, so a flat sum of a thousand terms is one level deep,
    not a thousand.
    """
    ops: list[ast.BinOp] = []
    current: ast.expr = node
    while isinstance(current, ast.BinOp):
        ops.append(current)
        current = current.left
    ops.reverse()
    return current, ops


def _check(node: ast.AST, names: set[str], depth: int = 0) -> None:
    """Refuse every node outside the whitelist and nesting beyond :data:`MAX_DEPTH`; collect free names."""
    if depth > MAX_DEPTH:
        raise ExprError(f"expression nested too deeply (more than {MAX_DEPTH} levels)")
    sub = depth + 1
    if isinstance(node, ast.Expression):
        _check(node.body, names, depth)
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ExprError(f"only numbers are allowed as constants, not {node.value!r}")
    elif isinstance(node, (ast.Name, ast.Attribute)):
        dotted = _dotted(node)
        if dotted is None:
            raise ExprError("attribute access is only allowed on names, as in grid.x")
        if any(part.startswith("_") for part in dotted.split(".")):
            raise ExprError(f"names may not start with an underscore: {dotted}")
        if dotted in FUNCTIONS:
            raise ExprError(f"{dotted} is a function; call it as {dotted}(...)")
        names.add(dotted)
    elif isinstance(node, ast.BinOp):
        leftmost, ops = _chain(node)
        _check(leftmost, names, sub)
        for op in ops:
            if type(op.op) not in _BINARY:
                raise ExprError(f"operator {type(op.op).__name__} is not allowed")
            _check(op.right, names, sub)
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.UAdd, ast.USub, ast.Not)):
            raise ExprError(f"operator {type(node.op).__name__} is not allowed")
        _check(node.operand, names, sub)
    elif isinstance(node, ast.Compare):
        if any(type(op) not in _COMPARE for op in node.ops):
            raise ExprError("only ==, !=, <, <=, >, >= comparisons are allowed")
        _check(node.left, names, sub)
        for c in node.comparators:
            _check(c, names, sub)
    elif isinstance(node, ast.BoolOp):
        for v in node.values:
            _check(v, names, sub)
    elif isinstance(node, ast.IfExp):
        _check(node.test, names, sub)
        _check(node.body, names, sub)
        _check(node.orelse, names, sub)
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            allowed = ", ".join(sorted(FUNCTIONS))
            raise ExprError(f"only these functions can be called: {allowed}")
        if node.keywords:
            raise ExprError(f"{node.func.id}() takes no keyword arguments")
        for a in node.args:
            _check(a, names, sub)
    else:
        raise ExprError(f"{type(node).__name__} is not allowed in an expression")


def _finite(value: float) -> float:
    if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
        raise ExprError(f"result out of range ({value!r})")
    return value


@dataclass(frozen=True)
class Expr:
    """A compiled expression: its text, tree and the names it uses."""

    text: str
    tree: ast.Expression = field(repr=False, compare=False)
    names: frozenset[str]

    def evaluate(self, env: Mapping[str, Any]) -> float:
        """Evaluate with ``env`` mapping names (``T``, ``grid.x``) to numbers."""
        missing = sorted(n for n in self.names if n not in env)
        if missing:
            raise ExprError(f"unknown name{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        try:
            return float(self._eval(self.tree.body, env))
        except ExprError:
            raise
        except RecursionError:
            raise ExprError("expression nested too deeply") from None
        except ZeroDivisionError:
            raise ExprError("division by zero") from None
        except (OverflowError, ValueError, TypeError) as exc:
            raise ExprError(str(exc)) from None

    def _eval(self, node: ast.expr, env: Mapping[str, Any]) -> float:
        if isinstance(node, ast.Constant):
            assert isinstance(node.value, (int, float))  # checked at compile time
            return _finite(float(node.value))
        if isinstance(node, (ast.Name, ast.Attribute)):
            value = env[_dotted(node) or ""]
            if isinstance(value, bool):
                return float(value)
            if not isinstance(value, (int, float)):
                raise ExprError(f"{_dotted(node)} is not a number ({value!r})")
            return _finite(float(value))
        if isinstance(node, ast.BinOp):
            leftmost, ops = _chain(node)
            left = self._eval(leftmost, env)
            for step in ops:
                right = self._eval(step.right, env)
                if isinstance(step.op, ast.Pow) and abs(right) > 64:
                    raise ExprError("exponent too large")
                left = _finite(_BINARY[type(step.op)](left, right))
            return left
        if isinstance(node, ast.UnaryOp):
            value = self._eval(node.operand, env)
            if isinstance(node.op, ast.Not):
                return float(not value)
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, env)
            for op, comp in zip(node.ops, node.comparators, strict=True):
                right = self._eval(comp, env)
                if not _COMPARE[type(op)](left, right):
                    return 0.0
                left = right
            return 1.0
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                result = 1.0
                for v in node.values:
                    result = self._eval(v, env)
                    if not result:
                        return result
                return result
            result = 0.0
            for v in node.values:
                result = self._eval(v, env)
                if result:
                    return result
            return result
        if isinstance(node, ast.IfExp):
            branch = node.body if self._eval(node.test, env) else node.orelse
            return self._eval(branch, env)
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            args = [self._eval(a, env) for a in node.args]
            return _finite(float(FUNCTIONS[node.func.id](*args)))
        raise ExprError(f"{type(node).__name__} is not allowed")  # unreachable after _check


def compile_expr(text: str) -> Expr:
    """Parse and check an expression; :class:`ExprError` explains a refusal."""
    if not isinstance(text, str):
        raise ExprError(f"expected an expression string, got {text!r}")
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(text.strip(), mode="eval")
        names: set[str] = set()
        _check(tree, names)
    except SyntaxError as exc:
        raise ExprError(f"syntax error in {text!r}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ExprError("expression nested too deeply") from None
    return Expr(text=text, tree=tree, names=frozenset(names))
