"""Where the tool keeps what it may reuse between runs, and the switch that turns that off.

Two things live there: the parse cache (``readers/cache.py``: one input's
parsed columns per file) and the compiled page templates
(``render/templates.py``).  Both are only ever a shortcut: a folder that
cannot be made, read or written, or :data:`OFF_VARIABLE`, leaves every
command doing the work again with the same result.
"""

from __future__ import annotations

import os
from pathlib import Path

from ncu_roofline.version import NAME

__all__ = ["DIR_VARIABLE", "OFF_VARIABLE", "cache_dir", "cache_off", "flag"]

#: The cache folder (default: ``$XDG_CACHE_HOME/ncu-roofline`` or ``~/.cache/ncu-roofline``).
DIR_VARIABLE = "NCU_ROOFLINE_CACHE_DIR"
#: Set (to anything but empty or ``0``) to turn every cache off.
OFF_VARIABLE = "NCU_ROOFLINE_NO_CACHE"


def flag(variable: str) -> bool:
    """Whether environment ``variable`` is set to anything but empty or ``0``."""
    return os.environ.get(variable, "").strip() not in ("", "0")


def cache_off() -> bool:
    """Whether :data:`OFF_VARIABLE` turns the caches off."""
    return flag(OFF_VARIABLE)


def cache_dir() -> Path:
    """The cache folder: :data:`DIR_VARIABLE`, else under ``$XDG_CACHE_HOME``, else ``~/.cache``."""
    own = os.environ.get(DIR_VARIABLE, "").strip()
    if own:
        return Path(own).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / NAME
