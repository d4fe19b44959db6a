"""The ``theory`` page's one chart: every GPU's roofs and every op at its time floor.

Each GPU has one colour for its roofs and its op points and one marker
symbol, so two GPUs read apart on one chart (the legend's group per GPU
toggles its roofs).  An op sits at its theoretical intensity and the rate
its floor implies (FLOPs over the floor), the marker's area following its
share of the pass, its number (the op table's ``#``) printed beside the
points with the most time, coincident points sharing one label.  Only the
roofs of the precisions the ops use, and DRAM, are drawn at first; the
others wait in the legend.  Each shown roof is named at its right end.
"""

from __future__ import annotations

import math

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
#: A roof's name is left out where it would overlap one already printed:
#: closer than this in decades (about a label's width across, its height up).
_LABEL_GAP: tuple[float, float] = (0.6, 0.12)

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
    """One GPU's roofs in its own colour and legend group, each shown roof named at its end."""
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
                # A flat roof's name at its right end; a diagonal's at one x for
                # every GPU (the diagonals end where the top roofs, often equal,
                # begin), where its bandwidth sets it apart from the others.
                at = len(t["x"]) - 1
                if t["meta"]["kind"] == "memory roofs":
                    # A point added on the (straight) diagonal to carry the name.
                    x = 10.0 ** (ranges.x_lo + 0.45 * (ranges.x_hi - ranges.x_lo))
                    at = int(np.searchsorted(np.asarray(t["x"], dtype=np.float64), x))
                    slope = _roof_value(t)
                    t["x"] = [*t["x"][:at], x, *t["x"][at:]]
                    t["y"] = [*t["y"][:at], x * slope, *t["y"][at:]]
                n = len(t["x"])
                t["mode"] = "lines+text"
                t["text"] = [""] * n
                t["text"][at] = t["name"]
                t["textposition"] = "top left"
                t["textfont"] = {"size": 11, "color": colour}
        else:
            t["marker"] = {**t["marker"], "color": colour, "line": {"width": 2, "color": colour}}
    return traces


def _roof_value(t: PlotlyJSON) -> float:
    """A roof line's value: its FLOP/s (flat) or its bandwidth (the diagonal's slope)."""
    if t["meta"]["kind"] == "memory roofs":
        return float(t["y"][0]) / float(t["x"][0])
    return float(t["y"][0])


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
                if t.get("text"):
                    t["mode"] = "lines"
                    del t["text"], t["textposition"], t["textfont"]
                if earlier.get("text"):
                    also = escape_markup(t["meta"]["gpu_name"])
                    at = next(i for i, text in enumerate(earlier["text"]) if text)
                    earlier["text"][at] += f" (also {also})"
                break
        else:
            drawn.append(t)


def _declutter(data: list[PlotlyJSON]) -> None:
    """Drop roof names that would print over an earlier one (the first GPU's win)."""
    placed: list[tuple[float, float]] = []
    for t in data:
        if t.get("mode") != "lines+text":
            continue
        at = next(i for i, text in enumerate(t["text"]) if text)
        x, y = math.log10(t["x"][at]), math.log10(t["y"][at])
        if any(abs(x - px) < _LABEL_GAP[0] and abs(y - py) < _LABEL_GAP[1] for px, py in placed):
            t["mode"] = "lines"
            del t["text"], t["textposition"], t["textfont"]
        else:
            placed.append((x, y))


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
    _declutter(data)
    plotted = 0
    for i, g, _ in drawn:
        points, kept = placed[i]
        if points:
            data.append(_op_trace(i, g, points, kept, spans))
            plotted += len(points)
    names = " vs ".join(g["name"] for _, g, _ in drawn)
    meta = {"groups_plotted": plotted, "gpus": [g["key"] for _, g, _ in drawn]}
    layout = device_layout({"device_name": names}, ranges, [], meta)
    return {
        "id": "roofline-0",
        "title": f"Roofline: {names}",
        "figure": {"data": data, "layout": layout},
        "groups_plotted": plotted,
        "launches_plotted": 0,
        "not_plotted": not_plotted(context),
    }
