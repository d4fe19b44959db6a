"""An outlier check, not a design rule: no module over 2,000 lines, no function over 150.

Size follows concepts: a module (or a small package) is one idea, as long as
that idea needs.  An earlier cap of 600 lines per module cut concepts into
fragments (``limiter``/``limiter_units``/``limiter_findings``...) to stay
under it; these limits are far above any module the package should have and
only catch a file that has silently become several ideas, or a function
nobody can read in one go.  Never split a module to satisfy them: a module
that reaches them is a design question, answered by its concepts.

A module's length is its number of physical lines; a function's runs from
its first decorator to its last line (``ast`` line numbers).  Nested
functions and methods count on their own as well as inside their parent.
"""

from __future__ import annotations

import ast

from tests.helpers import REPO

MAX_MODULE_LINES = 2000
MAX_FUNCTION_LINES = 150
PACKAGE = REPO / "ncu_roofline"


def oversized(text: str, name: str) -> list[str]:
    """What in the module source ``text`` (reported as ``name``) exceeds the limits."""
    found = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{name}: module ({lines} lines)")
    for node in ast.walk(ast.parse(text, filename=name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length > MAX_FUNCTION_LINES:
                found.append(f"{name}:{first} {node.name}() ({length} lines)")
    return found


def test_the_counter_sees_long_modules_and_functions() -> None:
    # A decorated function of 1 + 1 + MAX_FUNCTION_LINES lines, a short one,
    # then blank lines up to MAX_MODULE_LINES + 1: both limits exceeded by a
    # little, the short one not.
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    source = f"@staticmethod\ndef long():\n{body}\n\n\ndef short():\n    pass\n"
    source += "\n" * (MAX_MODULE_LINES + 1 - len(source.splitlines()))
    assert oversized(source, "probe.py") == [
        f"probe.py: module ({MAX_MODULE_LINES + 1} lines)",
        f"probe.py:1 long() ({MAX_FUNCTION_LINES + 2} lines)",
    ]
    at_limit = "def f():\n" + "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    assert oversized(at_limit, "ok.py") == []


def test_no_module_or_function_over_the_limits() -> None:
    found = [
        entry
        for path in sorted(PACKAGE.rglob("*.py"))
        for entry in oversized(path.read_text(encoding="utf-8"), path.relative_to(REPO).as_posix())
    ]
    assert not found, "over the size limits:\n" + "\n".join(found)
