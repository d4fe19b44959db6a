"""The roofline engine: from a :class:`~ncu_roofline.core.model.Profile` to an
:class:`Analysis` with measured work and traffic, roofs, bound classes,
recoverable time and findings, for every launch and every kernel group.

Design: the engine itself lives in :mod:`ncu_roofline.analysis.engine`; its
names are imported from there on first use (PEP 562).  The package's light
modules (the findings catalogue, the theory table, ...) are imported by
commands that read no data, and importing one of them runs this file: it must
not load pandas.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ncu_roofline.analysis.engine import (
        BOUND_CLASSES,
        Analysis,
        Finding,
        TheoryConfig,
        Thresholds,
        add_comparison,
        analyze,
        theory_floor,
    )

#: The clock modes of ``analyze(clocks=...)``: the measured SM clock, or the datasheet's.
CLOCK_MODES = ("measured", "datasheet")

#: The engine's public names, imported from :mod:`.engine` when first read.
_ENGINE_NAMES = frozenset(
    {
        "BOUND_CLASSES",
        "Analysis",
        "Finding",
        "TheoryConfig",
        "Thresholds",
        "add_comparison",
        "analyze",
        "theory_floor",
    }
)


def __getattr__(name: str) -> object:
    """Import the engine on first use of one of its names and keep the name."""
    if name not in _ENGINE_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module("ncu_roofline.analysis.engine"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names, the lazy ones included."""
    return sorted({*globals(), *_ENGINE_NAMES})


__all__ = [
    "BOUND_CLASSES",
    "CLOCK_MODES",
    "Analysis",
    "Finding",
    "TheoryConfig",
    "Thresholds",
    "add_comparison",
    "analyze",
    "theory_floor",
]
