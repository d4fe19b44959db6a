"""Roofline charts as plain plotly.js figures, built from the report context.

:func:`roofline_figures` turns the plain-data report context
(:func:`ncu_roofline.report.context.build_context`) into one figure per device: the
ceilings of that device (those of unused precisions hidden in the legend),
one numbered marker per kernel group, each group at every memory level and
every launch as hidden alternative views, and arrows from the theoretical (minimal-bytes)
intensity to the measured one.  :func:`comparison_figures` draws two
profiles' kernel groups on the candidate's roofline, with arrows from where
each group was to where it is.

Each figure is a dict in plotly.js's own schema (``{"data": [...],
"layout": {...}}``) holding only dicts, lists, strings, Python numbers,
booleans and ``None``: it can be serialised with ``json.dumps(...,
allow_nan=False)`` and handed to ``Plotly.newPlot(div, fig.data,
fig.layout)`` without the plotly Python package.

Every string in a figure that comes from the profile passes through
:func:`escape_markup` (:mod:`.style` says why).  The entry-level ``title``
and ``not_plotted`` strings are plain text, for a renderer that escapes
(Jinja autoescape) to print.

Modules, in the order a figure is built: :mod:`.values` (numbers from
records), :mod:`.style` (colours, sizes, markup, arrows), :mod:`.ceilings`,
:mod:`.groups`, :mod:`.levels` (the memory-level view), :mod:`.theory`,
:mod:`.launches`, :mod:`.layout` (axes, view menu) and :mod:`.figure` (assembly); :mod:`.compare_rows` and
:mod:`.compare` for comparisons.
"""

from __future__ import annotations

from ncu_roofline.render.charts.compare import STATUS_COLOURS, comparison_figures
from ncu_roofline.render.charts.figure import roofline_figures
from ncu_roofline.render.charts.groups import PLOTTED_BOUNDS
from ncu_roofline.render.charts.layout import DEFAULT_X_RANGE, MARGIN_DECADES
from ncu_roofline.render.charts.style import (
    BOUND_COLOURS,
    MAX_MARKER_PX,
    MIN_ARROW_DECADES,
    MIN_MARKER_PX,
    escape_markup,
)

__all__ = [
    "BOUND_COLOURS",
    "DEFAULT_X_RANGE",
    "MARGIN_DECADES",
    "MAX_MARKER_PX",
    "MIN_ARROW_DECADES",
    "MIN_MARKER_PX",
    "PLOTTED_BOUNDS",
    "STATUS_COLOURS",
    "comparison_figures",
    "escape_markup",
    "roofline_figures",
]
