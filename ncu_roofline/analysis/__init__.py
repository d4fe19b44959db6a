"""The roofline engine: from a :class:`~ncu_roofline.core.model.Profile` to an
:class:`Analysis` with measured work and traffic, roofs, bound classes,
recoverable time and findings, for every launch and every kernel group.

Design: the engine itself lives in :mod:`ncu_roofline.analysis.engine`; its
names are imported from there on first use
(:func:`~ncu_roofline._lazy.lazy_attributes`).  The package's light modules
(the findings catalogue, the theory table, ...) are imported by commands that
read no data, and importing one of them runs this file: it must not load
pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.engine import (
        BOUND_CLASSES,
        Analysis,
        TheoryConfig,
        Thresholds,
        add_comparison,
        analyze,
        theory_floor,
    )
    from ncu_roofline.analysis.findings.finding import Finding
    from ncu_roofline.core.gpu_spec import CLOCK_MODES

_ENGINE = "ncu_roofline.analysis.engine"

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "BOUND_CLASSES": _ENGINE,
    "CLOCK_MODES": "ncu_roofline.core.gpu_spec",
    "Analysis": _ENGINE,
    "Finding": "ncu_roofline.analysis.findings.finding",
    "TheoryConfig": _ENGINE,
    "Thresholds": _ENGINE,
    "add_comparison": _ENGINE,
    "analyze": _ENGINE,
    "theory_floor": _ENGINE,
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

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
