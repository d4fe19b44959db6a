"""Reading the TOML and text files the tool is given or ships.

One place turns the ways a read can fail into the documented errors: a
missing, unreadable or directory path is InputNotFoundError, a file that is
not UTF-8 text or not valid TOML is InputFormatError.  The built-in tables
(``core/data/gpus.toml``, ``theory/data/models.toml``) are read through the
same loader as users' files, so both fail the same way.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ncu_roofline.errors import InputFormatError, InputNotFoundError

#: How the name of inputs joined with ``--merge`` (passes of one run) joins theirs.
MERGED_SEPARATOR = " + "

#: Endings of Nsight Systems' binary captures (read by exporting them with ``nsys``).
NSYS_REP_SUFFIXES = (".nsys-rep", ".qdrep")

#: The first bytes of an Nsight Compute report (``.ncu-rep``), whatever its name.
NCU_REP_MAGIC = b"NVR\x00"

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    # tomli is installed only on Python < 3.11, so mypy (which checks this
    # branch for python_version 3.10) may not find it in a newer environment.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = ["load_builtin_toml", "parse_toml", "read_user_text", "tomllib", "unique_inputs"]


def read_user_text(path: str | os.PathLike[str], what: str, directory: str | None = None) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in messages.

    ``directory`` replaces the message for a path that is a directory.
    """
    label = os.fspath(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputNotFoundError(f"{label}: no such {what}") from exc
    except IsADirectoryError as exc:
        raise InputNotFoundError(
            f"{label}: {directory or f'is a directory, expected a {what}'}"
        ) from exc
    except PermissionError as exc:
        raise InputNotFoundError(f"{label}: cannot be read (permission denied)") from exc
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{label}: not a UTF-8 text file") from exc


#: The deepest nesting of arrays and tables (inline or bracketed) a TOML or
#: JSON file may have; real roofs files and model configs use three or four.
MAX_NESTING = 100

# Strings (TOML's four kinds, which cover JSON's one) and comments are
# skipped so a bracket inside them is not counted; what remains are brackets.
_NESTING_TOKENS = re.compile(
    r'"""(?:\\.|[^\\])*?"""'
    r"|'''.*?'''"
    r'|"(?:\\.|[^"\\\n])*"'
    r"|'[^'\n]*'"
    r"|#[^\n]*"
    r"|[\[\]{}]",
    re.DOTALL,
)


def too_deep(text: str, limit: int = MAX_NESTING) -> bool:
    """Whether ``text`` (TOML or JSON) nests arrays or tables more than ``limit`` deep.

    The parsers recurse once per level and fail with RecursionError past the
    interpreter's recursion limit, but that limit is process-wide and another
    library may have raised it, so the depth is bounded here, the same way
    whatever else has run.
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for token in _NESTING_TOKENS.finditer(text):
        bracket = token.group()
        if bracket in ("[", "{"):
            depth += 1
            if depth > limit:
                return True
        elif bracket in ("]", "}"):
            depth -= 1
    return False


def parse_toml(text: str, label: str) -> dict[str, Any]:
    """``text`` parsed as TOML; ``label`` names the file in the error."""
    if too_deep(text):
        raise InputFormatError(
            f"{label}: not valid TOML: arrays or tables nested too deeply "
            f"(more than {MAX_NESTING} levels)"
        )
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputFormatError(f"{label}: not valid TOML: {exc}") from exc
    except RecursionError:
        raise InputFormatError(
            f"{label}: not valid TOML: arrays or tables nested too deeply"
        ) from None
    except ValueError:
        # Python refuses to read integers of more than 4300 digits.
        raise InputFormatError(f"{label}: not valid TOML: a number too long to read") from None
    return data


def load_builtin_toml(package: str, name: str) -> tuple[dict[str, Any], str]:
    """A TOML table shipped in ``package``'s ``data/`` folder, and its label."""
    label = f"{name} (built-in)"
    # Here, not at the top: importlib.resources costs ~5 ms at start, and
    # only the commands that read a packaged table need it.
    from importlib import resources

    resource = resources.files(package) / "data" / name
    return parse_toml(resource.read_text(encoding="utf-8"), label), label


def _identity(path: str) -> object:
    """What makes two paths one input: the file's device and inode, else its real path.

    ``X``, ``./X``, an absolute path and a hard or symbolic link all name one
    file.  A pipe or stdin is itself only (reading it twice is not reading
    it again).
    """
    if path == "-":
        return path
    try:
        st = os.stat(path)
    except OSError:
        return os.path.realpath(path)
    if not stat.S_ISREG(st.st_mode):
        return path
    return (st.st_dev, st.st_ino)


def unique_inputs(paths: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """``paths`` with each file kept once (its first spelling), and the (repeat, first) pairs left out."""
    first: dict[object, str] = {}
    kept: list[str] = []
    repeats: list[tuple[str, str]] = []
    for p in paths:
        key = _identity(p)
        if key in first:
            repeats.append((p, first[key]))
            continue
        first[key] = p
        kept.append(p)
    return kept, repeats
