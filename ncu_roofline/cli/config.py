"""Settings from ``pyproject.toml`` (``[tool.ncu-roofline]``) or ``--config FILE``.

Keys (dashes or underscores): ``fail-on`` (list of gate rules),
``excess-threshold``, ``clocks``, ``gpu``, ``roofs``, ``plotly-js``, ``top``,
and for ``compare`` ``noise``, ``basis``, ``allow-cross-gpu`` and
``pair-implementations`` (the last two true or false).
The command line overrides every one of them; ``--fail-on`` given on the
command line replaces the configured list.  Every value is checked with the
click type of its option (:mod:`ncu_roofline.cli.types`), so ``top = -5`` or
``plotly-js = "evil"`` is refused as ``--top -5`` is, naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ncu_roofline.cli.types import SETTING_TYPES
from ncu_roofline.core.files import parse_toml, read_user_text
from ncu_roofline.errors import InputFormatError

KEYS: dict[str, type | tuple[type, ...]] = {
    "fail_on": list,
    "excess_threshold": (int, float),
    "clocks": str,
    "gpu": str,
    "roofs": str,
    "plotly_js": str,
    "top": int,
    "noise": (int, float),
    "basis": str,
    "allow_cross_gpu": bool,
    "pair_implementations": bool,
}


def _normalise(table: dict[str, Any], label: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("-", "_")
        if key not in KEYS:
            allowed = ", ".join(k.replace("_", "-") for k in KEYS)
            raise InputFormatError(f"{label}: unknown setting {raw_key!r}; known: {allowed}")
        expected = KEYS[key]
        # TOML's true/false are Python bools, which are also ints: only a
        # flag takes them, and a flag takes nothing else.
        if (expected is bool) != isinstance(value, bool) or not isinstance(value, expected):
            raise InputFormatError(f"{label}: {raw_key}: wrong type ({type(value).__name__})")
        if isinstance(value, list) and not all(isinstance(v, str) for v in value):
            raise InputFormatError(f"{label}: fail-on: expected a list of strings")
        if key in SETTING_TYPES:
            try:
                value = SETTING_TYPES[key].convert(value, None, None)
            except click.BadParameter as exc:
                raise InputFormatError(f"{label}: {raw_key}: {exc.message}") from None
        out[key] = value
    return out


def find_pyproject(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: cwd)."""
    here = Path(start or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Settings from ``path`` (a TOML file) or the nearest pyproject.toml.

    In an explicit file the settings may sit at the top level or under
    ``[tool.ncu-roofline]``; in pyproject.toml only under the latter.
    """
    explicit = path is not None
    target = Path(path) if path is not None else find_pyproject()
    if target is None:
        return {}
    label = str(target)
    data = parse_toml(read_user_text(target, "config file"), label)
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise InputFormatError(f"{label}: [tool] must be a table")
    section = tool.get("ncu-roofline")
    if section is None:
        if not explicit:
            return {}
        section = {k: v for k, v in data.items() if k != "tool"}
    if not isinstance(section, dict):
        raise InputFormatError(f"{label}: [tool.ncu-roofline] must be a table")
    return _normalise(section, label)
