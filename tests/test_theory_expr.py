"""The safe expression language of theory rules (:mod:`ncu_roofline.theory.expr`).

Values are worked out by hand in the comments.  Every refusal must be an
:class:`ExprError` whose message says what was wrong, never a Python error
from deep inside the evaluator.  The property tests build each expression's
text and its value together, so nothing here calls ``eval``.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.theory.expr import MAX_LENGTH, MAX_MAGNITUDE, Expr, ExprError, compile_expr


def ev(text: str, env: dict[str, Any] | None = None) -> float:
    return compile_expr(text).evaluate(env or {})


def refused(text: str, match: str, env: dict[str, Any] | None = None) -> None:
    """``text`` is refused (at compile or evaluation time) with a message matching ``match``."""
    with pytest.raises(ExprError, match=match):
        compile_expr(text).evaluate(env or {})


# --- arithmetic and precedence ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1 + 2 * 3", 7.0),  # * before +
        ("(1 + 2) * 3", 9.0),
        ("10 - 4 - 3", 3.0),  # left-associative: (10 - 4) - 3
        ("2 ** 3 ** 2", 512.0),  # right-associative: 2 ** 9
        ("-2 ** 2", -4.0),  # ** binds tighter than unary minus
        ("(-2) ** 2", 4.0),
        ("7 / 2", 3.5),
        ("7 // 2", 3.0),
        ("-7 // 2", -4.0),  # floor, not truncation
        ("7 % 3", 1.0),
        ("-7 % 3", 2.0),  # Python's sign convention
        ("+5", 5.0),
        ("- -5", 5.0),
        ("2 * 3 + 4 * 5 - 6 / 3", 24.0),  # 6 + 20 - 2
        ("1.5e3 + 0.5", 1500.5),
        ("1_000 * 2", 2000.0),
        ("  3 * 4  ", 12.0),  # surrounding blanks are ignored
    ],
)
def test_arithmetic_and_precedence(text: str, value: float) -> None:
    assert ev(text) == value


def test_the_documented_example() -> None:
    # 2*T*H + ceil(N / 128) * 4 with T=3, H=5, N=300: 30 + ceil(2.34375) * 4 = 30 + 12 = 42.
    e = compile_expr("2*T*H + ceil(N / 128) * 4")
    assert e.names == frozenset({"T", "H", "N"})
    assert e.evaluate({"T": 3, "H": 5, "N": 300}) == 42.0
    # The result is always a float, whatever the inputs.
    assert isinstance(e.evaluate({"T": 1, "H": 1, "N": 1}), float)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("ceil(2.1)", 3.0),
        ("ceil(-2.1)", -2.0),
        ("floor(2.9)", 2.0),
        ("floor(-2.1)", -3.0),
        ("min(3, 1, 2)", 1.0),
        ("max(3, 1, 2)", 3.0),
        ("min(7)", 7.0),
        ("abs(-4.5)", 4.5),
        ("round(2.4)", 2.0),
        ("round(2.6)", 3.0),
        ("log2(1024)", 10.0),
        ("sqrt(81)", 9.0),
        ("max(ceil(4096 / 128), 16) * 2", 64.0),  # max(32, 16) * 2
    ],
)
def test_functions(text: str, value: float) -> None:
    assert ev(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("3 > 2", 1.0),
        ("3 < 2", 0.0),
        ("2 >= 2", 1.0),
        ("2 <= 1", 0.0),
        ("2 == 2.0", 1.0),
        ("2 != 2", 0.0),
        ("1 < 2 < 3", 1.0),  # chained: 1 < 2 and 2 < 3
        ("1 < 3 < 2", 0.0),
        ("3 > 2 > 1 == 1", 1.0),
        ("not 0", 1.0),
        ("not 3", 0.0),
        ("not 1 > 2", 1.0),  # not (1 > 2)
        ("2 and 3", 3.0),  # Python's and: the last value when all are true
        ("0 and 3", 0.0),
        ("0 or 5", 5.0),  # Python's or: the first true value
        ("4 or 5", 4.0),
        ("0 or 0", 0.0),
        ("1 > 2 or 3 > 2", 1.0),
        ("1 < 2 and 3 < 2", 0.0),
        ("10 if 1 > 0 else 20", 10.0),
        ("10 if 1 < 0 else 20", 20.0),
        ("1 if 0 else 2 if 0 else 3", 3.0),  # nested conditional
        ("(5 if 1 else 6) * 2", 10.0),
    ],
)
def test_comparisons_logic_and_conditional(text: str, value: float) -> None:
    assert ev(text) == value


def test_and_or_if_short_circuit() -> None:
    # The branch not taken is never evaluated: no division by zero.
    assert ev("0 and 1 / 0") == 0.0
    assert ev("1 or 1 / 0") == 1.0
    assert ev("1 if 1 else 1 / 0") == 1.0
    assert ev("1 / 0 if 0 else 7") == 7.0
    # ... but the one taken is.
    refused("1 and 1 / 0", "division by zero")


def test_dotted_launch_names() -> None:
    e = compile_expr("grid.x >= 64 and block.x == 256")
    assert e.names == frozenset({"grid.x", "block.x"})
    assert e.evaluate({"grid.x": 128, "block.x": 256}) == 1.0
    assert e.evaluate({"grid.x": 32, "block.x": 256}) == 0.0
    # grid.x * block.x * 4: 48 * 128 * 4 = 24576.
    assert ev("grid.x * block.x * 4", {"grid.x": 48, "block.x": 128}) == 24576.0
    assert ev("T * 2 if grid.y > 1 else T", {"T": 5, "grid.y": 2}) == 10.0
    # Deeper dotted names are names too.
    assert compile_expr("a.b.c + 1").names == frozenset({"a.b.c"})
    assert compile_expr("a.b.c + 1").evaluate({"a.b.c": 2}) == 3.0


def test_environment_values() -> None:
    # Booleans count as 0 / 1; ints and floats as themselves.
    assert ev("flag * 10", {"flag": True}) == 10.0
    assert ev("flag + 1", {"flag": False}) == 1.0
    assert ev("x / 4", {"x": 10}) == 2.5
    refused("x + 1", r"x is not a number \('a'\)", {"x": "a"})
    refused("x + 1", "x is not a number", {"x": None})
    refused("x * 1", "out of range", {"x": 1e40})
    refused("x", "out of range", {"x": math.inf})
    refused("x", "out of range", {"x": math.nan})


def test_compiled_expression_is_reusable_and_reports_its_text() -> None:
    e = compile_expr("a * b")
    assert isinstance(e, Expr)
    assert e.text == "a * b"
    assert [e.evaluate({"a": a, "b": 3}) for a in (1, 2, 3)] == [3.0, 6.0, 9.0]
    # Equal texts compile to equal expressions (the tree is not compared).
    assert compile_expr("a * b") == e


# --- refusals ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "match"),
    [
        # Attribute access only on names.
        ("(1).real", "attribute access is only allowed on names, as in grid.x"),
        ("max(1, 2).real", "attribute access is only allowed on names"),
        ("(grid).x.__class__", "names may not start with an underscore"),
        # Dunder and private names.
        ("__import__", "names may not start with an underscore: __import__"),
        ("__builtins__ + 1", "names may not start with an underscore: __builtins__"),
        ("grid.__class__", r"names may not start with an underscore: grid\.__class__"),
        ("_x * 2", "names may not start with an underscore: _x"),
        # Subscripts, lambdas, containers, comprehensions, walrus, f-strings, starred.
        ("x[0]", "Subscript is not allowed in an expression"),
        ("lambda: 1", "Lambda is not allowed in an expression"),
        ("[1, 2]", "List is not allowed"),
        ("(1, 2)", "Tuple is not allowed"),
        ("{1: 2}", "Dict is not allowed"),
        ("[x for x in y]", "ListComp is not allowed"),
        ("(y := 1)", "NamedExpr is not allowed"),
        ("f'{1}'", "JoinedStr is not allowed"),
        ("max(*x)", "Starred is not allowed"),
        # Calls to anything but the whitelist.
        (
            "__import__('os')",
            "only these functions can be called: abs, ceil, floor, log2, max, min, round, sqrt",
        ),
        ("__import__('os').system('true')", "only these functions can be called"),
        ("eval('1')", "only these functions can be called"),
        ("open('x')", "only these functions can be called"),
        ("pow(2, 3)", "only these functions can be called"),
        ("grid.x(1)", "only these functions can be called"),
        ("(lambda: 1)()", "only these functions can be called"),
        # A function named without a call.
        ("ceil + 1", r"ceil is a function; call it as ceil\(\.\.\.\)"),
        # Keyword arguments.
        ("max(1, key=2)", r"max\(\) takes no keyword arguments"),
        ("round(2.5, ndigits=1)", r"round\(\) takes no keyword arguments"),
        # Constants other than numbers.
        ("'abc'", "only numbers are allowed as constants, not 'abc'"),
        ("x + 'a'", "only numbers are allowed as constants, not 'a'"),
        ("b'x'", "only numbers are allowed as constants"),
        ("True", "only numbers are allowed as constants, not True"),
        ("None", "only numbers are allowed as constants, not None"),
        ("1j", "only numbers are allowed as constants"),
        ("...", "only numbers are allowed as constants"),
        # Operators outside the whitelist.
        ("2 @ 3", "operator MatMult is not allowed"),
        ("1 | 2", "operator BitOr is not allowed"),
        ("1 << 40", "operator LShift is not allowed"),
        ("~1", "operator Invert is not allowed"),
        ("1 in x", "only ==, !=, <, <=, >, >= comparisons are allowed"),
        ("x is None", "only ==, !=, <, <=, >, >= comparisons are allowed"),
        # Not an expression at all.
        ("1 +", r"syntax error in '1 \+'"),
        ("x = 1", "syntax error"),
        ("import os", "syntax error"),
        ("", "syntax error"),
        ("1; 2", "syntax error"),
    ],
)
def test_refused_at_compile_time(text: str, match: str) -> None:
    with pytest.raises(ExprError, match=match):
        compile_expr(text)


def test_not_a_string() -> None:
    with pytest.raises(ExprError, match="expected an expression string, got 5"):
        compile_expr(5)  # type: ignore[arg-type]
    with pytest.raises(ExprError, match="expected an expression string, got None"):
        compile_expr(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "match"),
    [
        # Exponents beyond 64 are refused before they are computed.
        ("2 ** 65", "exponent too large"),
        ("2 ** -65", "exponent too large"),
        ("10 ** 10 ** 10", "exponent too large"),  # 10 ** 1e10
        ("9 ** 9 ** 9", "exponent too large"),
        # Results beyond 1e30 (or not finite) are out of range, intermediates included.
        ("10 ** 31", r"result out of range \(1e\+31\)"),
        ("1e20 * 1e20", r"result out of range \(1e\+40\)"),
        ("1e300 * 1e300", r"result out of range"),
        ("1e30 * 10 / 10", "result out of range"),  # 1e31 on the way
        ("max(1e20 * 1e20, 1)", "result out of range"),
        ("2 ** 64 * 2 ** 64", "result out of range"),  # 3.4e38
        # Division by zero in every form.
        ("1 / 0", "division by zero"),
        ("1 // 0", "division by zero"),
        ("1 % 0", "division by zero"),
        ("1 / (2 - 2)", "division by zero"),
        ("0 ** -1", "division by zero"),
        # Domain errors and bad calls become ExprError too.
        ("sqrt(-1)", "math domain error"),
        ("log2(0)", "math domain error"),
        ("min()", "empty"),
        ("ceil(1, 2)", "argument"),
        ("(-8) ** 0.5", "complex"),  # a complex number is no result
    ],
)
def test_refused_at_evaluation(text: str, match: str) -> None:
    e = compile_expr(text)  # compiles: the problem is only in the numbers
    with pytest.raises(ExprError, match=match):
        e.evaluate({})


def test_exponent_limit_is_inclusive() -> None:
    # 2 ** 64 = 18446744073709551616, well under 1e30.
    assert ev("2 ** 64") == 2.0**64
    assert ev("2 ** -64") == 2.0**-64


def test_magnitude_limit() -> None:
    assert MAX_MAGNITUDE == 1e30
    assert ev("1e15 * 1e15") == 1e30  # at the limit: allowed
    assert ev("-1e15 * 1e15") == -1e30


@pytest.mark.parametrize("text", ["1e31", "1e400", "-1e400", "1e31 + 0 * 0"])
def test_constants_beyond_the_limit_are_out_of_range(text: str) -> None:
    # MAX_MAGNITUDE bounds "a result or intermediate"; a literal 1e400 is
    # infinity and must not come back as a FLOP count.
    with pytest.raises(ExprError, match="out of range"):
        compile_expr(text).evaluate({})


def test_unknown_names() -> None:
    refused("x + 1", r"^unknown name x$")
    # Several missing names are listed, sorted, once each.
    refused("y * x + x + grid.x", r"^unknown names grid\.x, x, y$", {})
    # Names given are not reported.
    refused("a + b", r"^unknown name b$", {"a": 1})


def test_over_long_text() -> None:
    assert MAX_LENGTH == 2000
    ok = "1" + " " * (MAX_LENGTH - 1)  # exactly 2000 characters
    assert ev(ok) == 1.0
    with pytest.raises(ExprError, match="expression longer than 2000 characters"):
        compile_expr("1" + " " * MAX_LENGTH)
    with pytest.raises(ExprError, match="longer than 2000"):
        compile_expr("+".join(["1"] * 1500))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("+".join(["1"] * 1000), 1000.0),  # 1999 characters: a long sum
        ("-" * 1998 + "1", 1.0),  # 1999 characters: an even number of minus signs
        ("*".join(["1"] * 1000), 1.0),
    ],
)
def test_deep_but_short_expressions_never_crash(text: str, value: float) -> None:
    # Within MAX_LENGTH the evaluator either computes the value or refuses
    # with ExprError; a RecursionError escaping would be an internal error.
    assert len(text) <= MAX_LENGTH
    try:
        result = compile_expr(text).evaluate({})
    except ExprError:
        return
    assert result == value


# --- property: integer arithmetic agrees with Python -----------------------------

SMALL = st.integers(min_value=-9, max_value=9)


def _leaf(n: int) -> tuple[str, int]:
    return (f"({n})" if n < 0 else str(n)), n


def _combine(children: st.SearchStrategy[tuple[str, int]]) -> st.SearchStrategy[tuple[str, int]]:
    def join(op: str, a: tuple[str, int], b: tuple[str, int]) -> tuple[str, int]:
        value = {"+": a[1] + b[1], "-": a[1] - b[1], "*": a[1] * b[1]}[op]
        return f"({a[0]} {op} {b[0]})", value

    return st.builds(join, st.sampled_from("+-*"), children, children)


#: Fully parenthesised trees: (text, value) built together.  At most 12
#: leaves of |n| <= 9 keep every value under 9**12 ~ 2.8e11, exact in a float.
TREES = st.recursive(SMALL.map(_leaf), _combine, max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(TREES)
def test_parenthesised_integer_arithmetic(case: tuple[str, int]) -> None:
    text, value = case
    assert compile_expr(text).evaluate({}) == float(value)


@st.composite
def flat_sums_of_products(draw: st.DrawFn) -> tuple[str, int]:
    """``a * b - c + d * e * f`` without parentheses: the value by precedence,
    products first, then sums and differences left to right."""
    terms = draw(st.lists(st.lists(SMALL, min_size=1, max_size=4), min_size=1, max_size=5))
    signs = draw(st.lists(st.sampled_from("+-"), min_size=len(terms) - 1, max_size=len(terms) - 1))
    text = " * ".join(str(n) for n in terms[0])
    total = math.prod(terms[0])
    for sign, term in zip(signs, terms[1:], strict=True):
        # "- -3" and "* -3" are valid: unary minus binds tighter than * and -.
        text += f" {sign} " + " * ".join(str(n) for n in term)
        total = total + math.prod(term) if sign == "+" else total - math.prod(term)
    return text, total


@settings(max_examples=300, deadline=None)
@given(flat_sums_of_products())
def test_unparenthesised_precedence(case: tuple[str, int]) -> None:
    text, value = case
    assert compile_expr(text).evaluate({}) == float(value)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 4096), st.integers(1, 1024))
def test_launch_names_evaluate_like_their_values(gx: int, bx: int) -> None:
    # grid.x * block.x + grid.x // 2, computed directly.
    e = compile_expr("grid.x * block.x + grid.x // 2")
    assert e.evaluate({"grid.x": gx, "block.x": bx}) == float(gx * bx + gx // 2)
