"""ncu-roofline: roofline reports from NVIDIA Nsight Compute exports.

The public entry points (:mod:`ncu_roofline.notebook`) are :func:`load`,
which reads one or more ``ncu`` exports into a
:class:`~ncu_roofline.core.model.Profile`, :func:`analyze`, which places
every launch on the roofline and returns an
:class:`~ncu_roofline.analysis.Analysis`, :func:`compare`, which matches the
kernel groups of two analyses, and :func:`report_html`, the HTML page of
``ncu-roofline report`` as a string.  What they return shows itself in a
notebook (a one-line ``repr``, a summary card, ``figure()``).  The page's
function is not called ``report``: that name is the ``report`` stage's
subpackage, which Python binds here when it is imported.

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
    from ncu_roofline.analysis import Analysis, Thresholds
    from ncu_roofline.analysis.compare import Comparison
    from ncu_roofline.core.model import Profile, SourceInfo
    from ncu_roofline.notebook import analyze, compare, load, report_html

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "Analysis": "ncu_roofline.analysis",
    "Thresholds": "ncu_roofline.analysis",
    "Comparison": "ncu_roofline.analysis.compare",
    "Profile": "ncu_roofline.core.model",
    "SourceInfo": "ncu_roofline.core.model",
    "analyze": "ncu_roofline.notebook",
    "compare": "ncu_roofline.notebook",
    "load": "ncu_roofline.notebook",
    "report_html": "ncu_roofline.notebook",
}


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


__all__ = [
    "Analysis",
    "Comparison",
    "NcuRooflineError",
    "Profile",
    "SourceInfo",
    "Thresholds",
    "__version__",
    "analyze",
    "compare",
    "load",
    "report_html",
]
