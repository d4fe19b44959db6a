"""SI formatting of numbers for people (``1.23 GB/s``).

Design: pure Python, apart from :mod:`ncu_roofline.core.units` (which parses
numbers with pyarrow and pandas), so that the commands that read no data can
format numbers without loading either.
"""

from __future__ import annotations

import math


def format_si(value: float | None, unit: str = "", digits: int = 3) -> str:
    """Human-readable SI formatting (``1.23 GB/s``); ``"n/a"`` when missing."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if value == 0:
        return f"0 {unit}".strip()
    mag = abs(value)
    for scale, prefix in (
        (1e15, "P"),
        (1e12, "T"),
        (1e9, "G"),
        (1e6, "M"),
        (1e3, "k"),
        (1.0, ""),
        (1e-3, "m"),
        (1e-6, "µ"),
        (1e-9, "n"),
    ):
        if mag >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}".strip()
    return f"{value:.{digits}g} {unit}".strip()


__all__ = ["format_si"]
