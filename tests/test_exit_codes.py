"""The documented exit codes: ``errors.EXIT_CODES`` is the list every other one must match.

The README's table, the ``errors`` module's own table and the "Exit codes"
paragraph of each command's help describe the same codes in words; these
tests hold each of them to :data:`~ncu_roofline.errors.EXIT_CODES`.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from ncu_roofline import errors
from ncu_roofline.cli import cli
from ncu_roofline.errors import EXIT_CODES, NcuRooflineError
from tests.helpers import REPO

#: A word each description of a code must use, so a table cannot swap two meanings.
_WORDS = {
    "ok": "success",
    "internal": "internal",
    "usage": "usage",
    "gate": "gate",
    "input-format": "readable",
    "output": "output",
    "missing-dependency": "optional",
    "input-not-found": "missing",
    "out-of-memory": "memory",
    "profiling": "profil",
}


def _readme_table() -> dict[int, str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("### Exit codes\n", 1)[1].split("\n#", 1)[0]
    return {
        int(code): meaning for code, meaning in re.findall(r"^\| (\d+) \| (.+) \|$", section, re.M)
    }


def _docstring_table() -> dict[int, str]:
    return {int(c): m for c, m in re.findall(r"^(\d+)\s{2,}(\S.*)$", errors.__doc__ or "", re.M)}


def _help_paragraph(*command: str) -> dict[int, str] | None:
    result = CliRunner().invoke(cli, [*command, "--help"])
    assert result.exit_code == 0, result.output
    found = re.search(r"Exit codes: (.*?)\.\n", result.output, re.S)
    if found is None:
        return None
    items = re.split(r",\s+", " ".join(found.group(1).split()))
    return {int(code): meaning for code, meaning in (item.split(" ", 1) for item in items)}


def _check(table: dict[int, str]) -> None:
    assert sorted(table) == sorted(EXIT_CODES.values())
    for name, code in EXIT_CODES.items():
        assert _WORDS[name] in table[code].lower(), (name, code, table[code])


def test_exit_codes_are_distinct_and_cover_every_error_class() -> None:
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES) == len(_WORDS)
    classes = [NcuRooflineError, *NcuRooflineError.__subclasses__()]
    assert {c.exit_code for c in classes} <= set(EXIT_CODES.values())


def test_the_readme_table_lists_the_exit_codes() -> None:
    _check(_readme_table())


def test_the_errors_module_lists_the_exit_codes() -> None:
    _check(_docstring_table())


@pytest.mark.parametrize("command", [(), ("report",), ("compare",), ("summary",)])
def test_help_that_lists_exit_codes_lists_them_all(command: tuple[str, ...]) -> None:
    table = _help_paragraph(*command)
    if command in (("report",), ("compare",)):
        assert table is not None
    if table is not None:
        _check(table)
