"""The ``theory`` page's one chart: every GPU's roofs and every op at its time floor.

Each GPU has one colour for its roofs and its op points and one marker
symbol, so two GPUs read apart on one chart (the legend's group per GPU
toggles its roofs).  An op sits at its theoretical intensity and the rate
its floor implies (FLOPs over the floor), the marker's area following its
share of the pass, its number (the op table's ``#``) printed beside the
points with the most time, coincident points sharing one label.  Only the
roofs of the precisions the ops use, and DRAM, are drawn at first; the
others wait in the legend.  Each shown roof is named inside the plot, the
names kept apart so none covers another at any width.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

import numpy as np

from ncu_roofline.render.charts.ceilings import SAME_ROOF, Roofs, ceiling_traces, device_roofs
from ncu_roofline.render.charts.groups import GroupPoint, point_labels
from ncu_roofline.render.charts.layout import Ranges, axis_ranges, device_layout
from ncu_roofline.render.charts.style import GRID_COLOUR, escape_markup, marker_size
from ncu_roofline.render.charts.types import NotPlotted, PlotlyJSON, RooflineChart
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import TheoryChartContext, TheoryChartGpu, TheoryChartPoint

__all__ = ["GPU_COLOURS", "GPU_SYMBOLS", "theory_figure"]

#: One colour per GPU, in ``--gpu`` order (Okabe-Ito, distinct under the
#: common colour-vision deficiencies, readable on light and dark pages).
GPU_COLOURS: tuple[str, ...] = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
#: One marker symbol per GPU, so the GPUs differ in shape as well as colour.
GPU_SYMBOLS: tuple[str, ...] = ("circle", "diamond", "square", "triangle-up", "cross", "x")

#: Ops whose number is printed beside their point, per GPU, by pass time.
LABELLED = 8
#: The smallest plot area (width, height in pixels) the roof names are laid
#: out for: a phone's, with the legend below the chart.  On a larger one
#: they only stand further apart.
_PLOT_PX: tuple[float, float] = (240.0, 250.0)
#: A roof name's line height and (generously) a character's width, in pixels.
_LABEL_PX = 16.0
_LABEL_CHAR_PX = 6.6

_OP_HOVER = (
    "<b>#%{customdata[0]} %{customdata[1]}</b> on %{customdata[2]}<br>"
    "%{customdata[3]}<br>"
    "%{customdata[4]}-bound, floor %{customdata[5]} x %{customdata[6]} = %{customdata[7]}"
    " (%{customdata[8]} of the pass)<br>"
    "intensity %{customdata[9]} FLOP/B, %{customdata[10]} at the floor"
    "<extra></extra>"
)


def _points(gpu: TheoryChartGpu) -> tuple[list[GroupPoint], list[TheoryChartPoint]]:
    """The ops with a point on a log-log chart, as :class:`GroupPoint` for labelling."""
    placed: list[GroupPoint] = []
    kept: list[TheoryChartPoint] = []
    for p in gpu["points"]:
        x, y = p["ai"], p["flops_per_s"]
        if x is None or y is None or not (x > 0 and y > 0):
            continue
        if not (math.isfinite(x) and math.isfinite(y)):
            continue
        record = {"rank": p["number"], "total_duration_s": p["pass_time_s"]}
        placed.append(GroupPoint(record, x, y, str(p["bound"]), []))
        kept.append(p)
    return placed, kept


def not_plotted(context: TheoryChartContext) -> list[NotPlotted]:
    """``{"kernel_short", "reason"}`` for each op with no point on any GPU (plain text)."""
    out: list[NotPlotted] = []
    if not context["gpus"]:
        return out
    for i, p in enumerate(context["gpus"][0]["points"]):
        if any(g["points"][i]["flops_per_s"] for g in context["gpus"]) and p["ai"]:
            continue
        if p["bound"] == "communication":
            reason = "collective: moves data between GPUs, no roof of one GPU bounds it"
        elif not p["ai"]:
            reason = "no FLOPs: its floor is bytes / bandwidth, no point on a log-log chart"
        else:
            reason = "no roof for its precision on these GPUs"
        out.append({"kernel_short": f"#{p['number']} {p['name']}", "reason": reason})
    return out


def _customdata(gpu: TheoryChartGpu, p: TheoryChartPoint) -> list[str]:
    return [
        str(p["number"]),
        escape_markup(p["name"]),
        escape_markup(gpu["name"]),
        escape_markup(p["label"]),
        escape_markup(p["bound"] or "unplaced"),
        TEXT.duration(p["time_floor_s"]),
        TEXT.count(p["count"]),
        TEXT.duration(p["pass_time_s"]),
        TEXT.pct(p["share"]),
        TEXT.fixed(p["ai"]),
        TEXT.si(p["flops_per_s"], "FLOP/s"),
    ]


def _op_trace(
    index: int,
    gpu: TheoryChartGpu,
    points: list[GroupPoint],
    kept: list[TheoryChartPoint],
    spans: tuple[float, float],
) -> PlotlyJSON:
    colour = GPU_COLOURS[index % len(GPU_COLOURS)]
    return {
        "type": "scatter",
        "mode": "markers+text",
        "name": escape_markup(f"ops on {gpu['name']} ({TEXT.count(len(kept))})"),
        "legendgroup": "kernel groups",
        "legendgrouptitle": {"text": "ops at their floors"},
        "x": [p.x for p in points],
        "y": [p.y for p in points],
        "text": point_labels(points, spans, LABELLED),
        "textposition": "top center",
        "textfont": {"size": 12, "color": colour},
        "customdata": [_customdata(gpu, p) for p in kept],
        "hovertemplate": _OP_HOVER,
        "meta": {"role": "groups", "ranks": [p["number"] for p in kept], "gpu": gpu["key"]},
        "marker": {
            "color": colour,
            "size": [marker_size(p["share"]) for p in kept],
            "sizemode": "diameter",
            "symbol": GPU_SYMBOLS[index % len(GPU_SYMBOLS)],
            "line": {"color": colour, "width": 1.0},
            "opacity": 0.8,
        },
        "selected": {"marker": {"opacity": 1.0}},
        "unselected": {"marker": {"opacity": 0.2}, "textfont": {"color": GRID_COLOUR}},
        "showlegend": True,
    }


def _gpu_roofs(
    index: int, gpu: TheoryChartGpu, roofs: Roofs, ranges: Ranges, used: set[str] | None
) -> list[PlotlyJSON]:
    """One GPU's roofs in its own colour and legend group; each shown roof's name in its meta."""
    colour = GPU_COLOURS[index % len(GPU_COLOURS)]
    group = escape_markup(f"{gpu['name']} roofs")
    traces = ceiling_traces(roofs, ranges.x_lo, ranges.x_hi, used)
    for t in traces:
        t["meta"] = {**t.get("meta", {}), "kind": t["legendgroup"], "gpu_name": gpu["name"]}
        t["legendgroup"] = f"gpu-{index}"
        t["legendgrouptitle"] = {"text": group}
        if t.get("mode") == "lines":
            t["line"] = {**t["line"], "color": colour}
            if t.get("visible", True) is True:
                t["meta"]["label"] = t["name"]
        else:
            t["marker"] = {**t["marker"], "color": colour, "line": {"width": 2, "color": colour}}
    return traces


def _roof_value(t: PlotlyJSON) -> float:
    """A roof line's value: its FLOP/s (flat) or its bandwidth (the diagonal's slope)."""
    return float(t["meta"]["value"])


def _shared_roofs(data: list[PlotlyJSON]) -> None:
    """A later GPU's roof equal to an earlier GPU's is dashed over it, so neither hides.

    Its name is not printed again; the earlier roof's name says which GPUs share it.
    """
    drawn: list[PlotlyJSON] = []
    for t in data:
        if "lines" not in str(t.get("mode")) or t.get("visible", True) is not True:
            continue
        value = _roof_value(t)
        for earlier in drawn:
            same = (
                earlier["meta"]["kind"] == t["meta"]["kind"]
                and earlier["legendgroup"] != t["legendgroup"]
                and abs(_roof_value(earlier) - value) <= SAME_ROOF * value
            )
            if same:
                t["line"] = {**t["line"], "dash": "dash"}
                t["meta"].pop("label", None)
                if "label" in earlier["meta"]:
                    also = escape_markup(t["meta"]["gpu_name"])
                    earlier["meta"]["label"] += f" (also {also})"
                break
        else:
            drawn.append(t)


@dataclass
class _Label:
    """A roof's name: the point it hangs on (log10 units), its side and its lift in pixels."""

    text: str
    colour: str
    x: float
    y: float
    anchor: str
    shift: float = 0.0

    @property
    def height(self) -> float:
        """Pixels the label takes up, one line height per line."""
        return _LABEL_PX * (self.text.count("<br>") + 1)


def _plain_len(text: str) -> int:
    """Characters of ``text`` as printed: an entity is one."""
    return len(re.sub(r"&[#\w]+;", "x", text))


def _label_width(text: str) -> float:
    """A generous guess at a label's width in pixels: its longest line's."""
    return max(_plain_len(line) for line in text.split("<br>")) * _LABEL_CHAR_PX


def _wrapped(text: str) -> str:
    """``text`` broken into lines that fit the narrowest plot, after a comma or before a ``(``."""
    width = int(_PLOT_PX[0] / _LABEL_CHAR_PX)
    words = re.split(r"(?<=, )|(?= \()", text)
    lines = [""]
    for word in words:
        if lines[-1] and _plain_len(lines[-1] + word) > width:
            lines.append(word.lstrip())
        else:
            lines[-1] += word
    return "<br>".join(
        line.rstrip(", ") if i < len(lines) - 1 else line for i, line in enumerate(lines)
    )


def _stack(labels: list[_Label], y_lo: float, y_hi: float) -> None:
    """Lift labels (lowest first) so none overlaps the one below it, on the smallest plot.

    Every label is above its roof's line, and any two may overlap across (a
    name's width against the plot's is not known here), so each sits at
    least a line's height above the previous one.  On a taller plot the
    lines are further apart and the labels are too: a lift that separates
    them at :data:`_PLOT_PX` separates them at any height above it.
    """
    per_decade = _PLOT_PX[1] / (y_hi - y_lo)
    below = -math.inf
    for label in sorted(labels, key=lambda lb: lb.y):
        base = (label.y - y_lo) * per_decade
        label.shift = max(0.0, below - base)
        below = base + label.shift + label.height


def _roof_labels(data: list[PlotlyJSON], ranges: Ranges) -> tuple[list[PlotlyJSON], Ranges]:
    """The shown roofs' names as annotations inside the plot, none over another.

    A flat roof's name sits right-aligned at the plot's right edge, just
    above its line; a diagonal's above the point where it ends (the ridge of
    the highest roof shown), right-aligned there unless the plot is too
    narrow left of it, then left-aligned.  Names too close to one another
    are lifted apart, and the y axis grows upward where the top ones need
    room; the ranges returned are the chart's.
    """
    labels: list[_Label] = []
    span = ranges.x_hi - ranges.x_lo
    for t in data:
        name = t.get("meta", {}).get("label") if "lines" in str(t.get("mode")) else None
        if not name:
            continue
        text = _wrapped(name)
        colour = t["line"]["color"]
        if t["meta"]["kind"] == "memory roofs":
            x, y = math.log10(t["x"][-1]), math.log10(t["y"][-1])
            room = (x - ranges.x_lo) / span * _PLOT_PX[0]
            anchor = "right" if room >= _label_width(text) else "left"
        else:
            x, y, anchor = ranges.x_hi, math.log10(_roof_value(t)), "right"
        labels.append(_Label(text, colour, x, y, anchor))
    y_hi = ranges.y_hi
    for _ in range(8):
        _stack(labels, ranges.y_lo, y_hi)
        per_decade = _PLOT_PX[1] / (y_hi - ranges.y_lo)
        need = max(
            (lb.y + (lb.shift + lb.height) / per_decade for lb in labels), default=ranges.y_hi
        )
        if need <= y_hi:
            break
        # The plot's height stays, so a grown range packs the decades closer: again.
        y_hi = need + 0.05
    annotations = [
        {
            "x": lb.x,
            "y": lb.y,
            "xref": "x",
            "yref": "y",
            "text": lb.text,
            "showarrow": False,
            "xanchor": lb.anchor,
            "align": lb.anchor,
            "yanchor": "bottom",
            "yshift": round(lb.shift, 1),
            "font": {"size": 11, "color": lb.colour},
            "captureevents": False,
        }
        for lb in labels
    ]
    return annotations, replace(ranges, y_hi=y_hi)


def theory_figure(context: TheoryChartContext) -> RooflineChart | None:
    """One plotly.js figure of every GPU's roofs and ops; ``None`` without a usable GPU.

    The entry is ``{"id", "title", "figure", "groups_plotted",
    "launches_plotted", "not_plotted"}`` like a report's charts.
    """
    usable = [(i, g, device_roofs(g["roofs"])) for i, g in enumerate(context["gpus"])]
    drawn = [(i, g, r) for i, g, r in usable if r is not None]
    if not drawn:
        return None
    placed = {i: _points(g) for i, g, _ in drawn}
    empty = np.array([], dtype=np.float64)
    parts = [
        axis_ranges(r, [p.x for p in placed[i][0]], [p.y for p in placed[i][0]], empty, empty)
        for i, _, r in drawn
    ]
    ranges = Ranges(
        min(p.x_lo for p in parts),
        max(p.x_hi for p in parts),
        min(p.y_lo for p in parts),
        max(p.y_hi for p in parts),
    )
    spans = (ranges.x_hi - ranges.x_lo, ranges.y_hi - ranges.y_lo)
    data: list[PlotlyJSON] = []
    for i, g, r in drawn:
        used = {str(p["precision"]) for p in placed[i][1] if p["precision"]}
        data += _gpu_roofs(i, g, r, ranges, used if placed[i][1] else None)
    _shared_roofs(data)
    labels, ranges = _roof_labels(data, ranges)
    plotted = 0
    for i, g, _ in drawn:
        points, kept = placed[i]
        if points:
            data.append(_op_trace(i, g, points, kept, spans))
            plotted += len(points)
    names = " vs ".join(g["name"] for _, g, _ in drawn)
    meta = {"groups_plotted": plotted, "gpus": [g["key"] for _, g, _ in drawn]}
    layout = device_layout({"device_name": names}, ranges, labels, meta)
    return {
        "id": "roofline-0",
        "title": f"Roofline: {names}",
        "figure": {"data": data, "layout": layout},
        "groups_plotted": plotted,
        "launches_plotted": 0,
        "not_plotted": not_plotted(context),
    }
