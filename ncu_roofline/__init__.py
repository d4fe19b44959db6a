"""ncu-roofline: roofline reports from NVIDIA Nsight Compute exports.

The public entry point for notebooks is :func:`load`, which reads one or more
``ncu`` exports into a :class:`~ncu_roofline.model.Profile`.
"""

from __future__ import annotations

__version__ = "0.1.0"

from ncu_roofline.errors import NcuRooflineError
from ncu_roofline.model import Profile, SourceInfo
from ncu_roofline.readers import load

__all__ = ["NcuRooflineError", "Profile", "SourceInfo", "__version__", "load"]
