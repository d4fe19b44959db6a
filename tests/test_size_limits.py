"""Size limits of the package: no module over 1,000 lines, no function over 120.

Size follows concepts: a module is one idea, and one idea may take 800 lines;
the module limit only catches a file that has become several ideas.

A module's length is its number of physical lines; a function's runs from
its first decorator to its last line (``ast`` line numbers).  Nested
functions and methods count on their own as well as inside their parent.
"""

from __future__ import annotations

import ast

from tests.helpers import REPO

MAX_MODULE_LINES = 1000
MAX_FUNCTION_LINES = 120
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
    # A decorated function of 1 + 1 + 120 lines, a short one, then blank
    # lines up to 601: both limits exceeded by a little, the short one not.
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
