"""ncu-roofline: roofline reports from NVIDIA Nsight Compute exports.

The public entry points for notebooks are :func:`load`, which reads one or
more ``ncu`` exports into a :class:`~ncu_roofline.core.model.Profile`, and
:func:`analyze`, which places every launch on the roofline and returns an
:class:`~ncu_roofline.analysis.Analysis`.

The heavy names are imported on first use (PEP 562): the command line's
entry wrapper lives in this package and must install its signal handlers
before pandas and plotly load.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes
from ncu_roofline.errors import NcuRooflineError
from ncu_roofline.version import __version__

if TYPE_CHECKING:
    from ncu_roofline.analysis import Analysis, Thresholds, analyze
    from ncu_roofline.core.model import Profile, SourceInfo
    from ncu_roofline.readers import load

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "Analysis": "ncu_roofline.analysis",
    "Thresholds": "ncu_roofline.analysis",
    "analyze": "ncu_roofline.analysis",
    "Profile": "ncu_roofline.core.model",
    "SourceInfo": "ncu_roofline.core.model",
    "load": "ncu_roofline.readers",
}


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


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
