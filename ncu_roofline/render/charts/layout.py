"""The frame of a roofline chart: axis ranges, axes, the layout and the view menu.

Both axes are logarithmic.  Their ranges cover every point plotted (groups,
theory markers, launches) and the roofline's shape (ridge points and the
tops of the memory diagonals), with a margin; the y axis also reaches down
to where the primary memory roof enters the chart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ncu_roofline.render.charts.ceilings import Roofs
from ncu_roofline.render.charts.style import GRID_COLOUR, NEUTRAL, TRANSPARENT, escape_markup
from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.charts.values import FloatArray
from ncu_roofline.render.format import TEXT, file_name

#: Margin around everything plotted, in decades, on both axes.
MARGIN_DECADES = 0.5
#: X range (log10 FLOP/byte) when no kernel or launch has a point.
DEFAULT_X_RANGE = (-2.0, 4.0)

_UIREVISION = "ncu-roofline"


@dataclass(frozen=True)
class Ranges:
    """The axis ranges of one chart, in log10 units (plotly's for log axes)."""

    x_lo: float
    x_hi: float
    y_lo: float
    y_hi: float


def _log_range(values: Sequence[float]) -> tuple[float, float]:
    array = np.asarray(values, dtype=np.float64)
    return log10(float(array.min())), log10(float(array.max()))


def log10(value: float) -> float:
    """``numpy.log10`` of one value, the same on every machine (numpy picks a vectorised
    logarithm by the CPU, whose last bit differs between CPUs: a page's ranges, and the
    committed sample pages, would too).  Zero is minus infinity, a negative value NaN.
    """
    if value > 0:
        return math.log10(value)
    return -math.inf if value == 0 else math.nan


def axis_ranges(
    roofs: Roofs, xs: list[float], ys: list[float], lx: FloatArray, ly: FloatArray
) -> Ranges:
    """Ranges covering the points ``xs``/``ys``, the launches ``lx``/``ly`` and the roofs."""
    x_lo = x_hi = y_lo = y_hi = math.nan
    if len(lx):
        x_lo, x_hi = log10(float(lx.min())), log10(float(lx.max()))
        y_lo, y_hi = log10(float(ly.min())), log10(float(ly.max()))
    if xs:
        px_lo, px_hi = _log_range(xs)
        py_lo, py_hi = _log_range(ys)
        x_lo, x_hi = float(np.fmin(x_lo, px_lo)), float(np.fmax(x_hi, px_hi))
        y_lo, y_hi = float(np.fmin(y_lo, py_lo)), float(np.fmax(y_hi, py_hi))
    # Ridge points and the tops of the memory diagonals must be on the chart
    # for the roofline's shape to read.
    top = roofs.top
    anchors = [r for _, r in roofs.ridges] + [top / m.value for m in roofs.memory]
    a, b = _log_range(anchors)
    if math.isnan(x_lo):
        x_lo, x_hi = (
            min(DEFAULT_X_RANGE[0], a - MARGIN_DECADES),
            max(DEFAULT_X_RANGE[1], b + MARGIN_DECADES),
        )
    else:
        x_lo, x_hi = min(x_lo, a) - MARGIN_DECADES, max(x_hi, b) + MARGIN_DECADES
    roof_bottom = math.log10(roofs.primary.value) + x_lo
    y_lo = float(np.fmin(y_lo - MARGIN_DECADES, roof_bottom))
    y_hi = float(np.fmax(y_hi, math.log10(top))) + MARGIN_DECADES
    return Ranges(x_lo, x_hi, y_lo, y_hi)


def device_name(device: Mapping[str, Any]) -> str:
    """A device record's name, plain text: the export's, else its GPU's from the table."""
    gpu = device.get("gpu") or {}
    return str(device.get("device_name") or gpu.get("name") or "unknown device")


def device_label(device: Mapping[str, Any]) -> str:
    """A device record's name and compute capability, plain text: ``A100 (CC 8.0)``."""
    cc = device.get("cc")
    return f"{device_name(device)} (CC {cc})" if cc else device_name(device)


def device_title(device: Mapping[str, Any]) -> str:
    """The chart's title, plain text: device, compute capability and source file."""
    label = device_label(device)
    source = device.get("source")
    if source:
        label += f", {file_name(source)}"
    return f"Roofline: {label}"


def device_layout(
    device: Mapping[str, Any],
    ranges: Ranges,
    annotations: list[PlotlyJSON],
    meta: PlotlyJSON,
) -> PlotlyJSON:
    """The plotly layout of one device's chart; ``meta`` says what it holds."""
    return {
        "title": {"text": escape_markup(device_title(device))},
        "xaxis": _axis("Arithmetic intensity at DRAM (FLOP/byte)", ranges.x_lo, ranges.x_hi),
        "yaxis": {
            **_axis("Performance (FLOP/s)", ranges.y_lo, ranges.y_hi),
            **_decade_ticks(ranges.y_lo, ranges.y_hi),
        },
        "hovermode": "closest",
        "showlegend": True,
        "legend": {
            "orientation": "v",
            "x": 1.02,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "top",
            "bgcolor": TRANSPARENT,
            # An item click toggles one level or precision; a click on the
            # group title toggles the whole group.
            "groupclick": "toggleitem",
        },
        "paper_bgcolor": TRANSPARENT,
        "plot_bgcolor": TRANSPARENT,
        "margin": {"l": 70, "r": 20, "t": 80, "b": 60},
        "annotations": annotations,
        "uirevision": _UIREVISION,
        "meta": meta,
    }


def _decade_ticks(lo: float, hi: float) -> PlotlyJSON:
    """One labelled tick per decade with SI prefixes (plotly stops at T)."""
    decades = list(range(math.ceil(lo), math.floor(hi) + 1))
    if not decades:
        return {}
    text = [TEXT.si(10.0**e, "").replace(" ", "") for e in decades]
    return {"tickmode": "array", "tickvals": [10.0**e for e in decades], "ticktext": text}


def _axis(title: str, lo: float, hi: float) -> PlotlyJSON:
    return {
        "title": {"text": title},
        "type": "log",
        "range": [lo, hi],
        "autorange": False,
        "exponentformat": "SI",
        "showgrid": True,
        "gridcolor": GRID_COLOUR,
        "zeroline": False,
        "linecolor": NEUTRAL,
        "ticks": "outside",
        "tickcolor": NEUTRAL,
    }


def view_menu(views: list[tuple[str, list[bool | str], bool]], n_annotations: int) -> PlotlyJSON:
    """Buttons switching between views: ``(label, visible per trace, arrows shown)`` each.

    Hidden traces are ``"legendonly"`` rather than ``False`` so the legend
    can still bring them back one by one.
    """
    arrows_on = {f"annotations[{i}].visible": True for i in range(n_annotations)}
    arrows_off = {f"annotations[{i}].visible": False for i in range(n_annotations)}
    return {
        "type": "buttons",
        "direction": "right",
        "showactive": True,
        "active": 0,
        "x": 0.0,
        "xanchor": "left",
        "y": 1.02,
        "yanchor": "bottom",
        "pad": {"l": 0, "t": 0, "r": 4, "b": 4},
        # plotly.js paints the active button near-white whatever the layout
        # says, so the buttons get light chips and dark text of their own to
        # stay readable on dark pages too.
        "bgcolor": "#E6E6E6",
        "bordercolor": "#999999",
        "font": {"color": "#222222"},
        "buttons": [
            {
                "label": label,
                "method": "update",
                "args": [{"visible": visible}, arrows_on if arrows else arrows_off],
            }
            for label, visible, arrows in views
        ],
    }
