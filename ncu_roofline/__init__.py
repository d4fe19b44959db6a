"""ncu-roofline: roofline reports from NVIDIA Nsight Compute exports.

The public entry points for notebooks are :func:`load`, which reads one or
more ``ncu`` exports into a :class:`~ncu_roofline.core.model.Profile`, and
:func:`analyze`, which places every launch on the roofline and returns an
:class:`~ncu_roofline.analysis.Analysis`.
"""

from __future__ import annotations

from ncu_roofline.analysis import Analysis, Thresholds, analyze
from ncu_roofline.core.model import Profile, SourceInfo
from ncu_roofline.errors import NcuRooflineError
from ncu_roofline.readers import load
from ncu_roofline.version import __version__

__all__ = [
    "Analysis",
    "NcuRooflineError",
    "Profile",
    "SourceInfo",
    "Thresholds",
    "__version__",
    "analyze",
    "load",
]
