"""Trend charts of a dataset's history: one line per kernel group, change points marked.

Three figures share one x axis (the runs, by time or by the ordering tag):
time per launch, efficiency and recoverable time.  Each shown group is a
line of its own colour with its number in the legend; a change point is a
larger marker on the run it starts at, with the step in its hover text.
Every string from the dataset passes through :func:`escape_markup`.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ncu_roofline.render.charts.groups import LEGEND_NAME
from ncu_roofline.render.charts.style import escape_markup
from ncu_roofline.render.charts.types import Chart, PlotlyJSON
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import HistoryContext, HistoryGroup, HistoryPoint

#: Line colours of the first groups, in rank order; :func:`group_colour` makes more.
GROUP_COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#9467bd",
    "#ff7f0e",
    "#17becf",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
)
#: Hue step of the colours past :data:`GROUP_COLOURS`, in degrees (the golden
#: angle: consecutive hues land far apart and none comes back).
_HUE_STEP = 137.508


def group_colour(i: int) -> str:
    """The line colour of the ``i``-th shown group (from 0): none repeats.

    The first ten are :data:`GROUP_COLOURS`; past them, hues a golden angle
    apart, alternately darker and lighter, so no two groups on a page share
    a colour however many ``--top`` shows.
    """
    if i < len(GROUP_COLOURS):
        return GROUP_COLOURS[i]
    n = i - len(GROUP_COLOURS)
    hue = (15.0 + n * _HUE_STEP) % 360.0
    lightness = (38, 55, 46)[n % 3]
    return f"hsl({hue:.1f}, 70%, {lightness}%)"


def _short(name: str) -> str:
    """A short name as a legend entry shows it (cut to :data:`LEGEND_NAME`; the hover has it)."""
    return name if len(name) <= LEGEND_NAME else name[: LEGEND_NAME - 1] + "…"


def group_names(groups: list[HistoryGroup]) -> list[str]:
    """Each group's legend name, "#3 name", with its grid where two shown names collide."""
    shown = Counter(_short(g["kernel_short"]) for g in groups)
    return [
        f"#{g['number']} {_short(g['kernel_short'])}"
        + (f" · grid {g['grid']}" if shown[_short(g["kernel_short"])] > 1 and g["grid"] else "")
        for g in groups
    ]


#: (chart id, title, point field, y-axis title, how a value reads, log axis)
_CHARTS: tuple[tuple[str, str, str, str, str, bool], ...] = (
    ("history-duration", "Time per launch", "duration_s", "time per launch (s)", "duration", True),
    (
        "history-efficiency",
        "Efficiency (share of the roof)",
        "efficiency",
        "efficiency",
        "pct",
        False,
    ),
    (
        "history-recoverable",
        "Recoverable time per run",
        "recoverable_s",
        "recoverable (s)",
        "duration",
        True,
    ),
)


def _x(p: HistoryPoint, by_time: bool) -> Any:
    return p["run_time"] if by_time else (p["order"] if p["order"] is not None else p["label"])


def _read(value: object, how: str) -> str:
    return TEXT.pct(value) if how == "pct" else TEXT.duration(value)


def _group_traces(
    g: HistoryGroup, field: str, how: str, by_time: bool, colour: str, label: str
) -> list[PlotlyJSON]:
    name = escape_markup(label)
    points = g["points"]
    hover = [
        escape_markup(f"#{g['number']} {g['kernel_short']} · {p['label']} · {p['run_time'][:19]}")
        + f"<br>{_read(p[field], how)}"  # type: ignore[literal-required]
        for p in points
    ]
    traces: list[PlotlyJSON] = [
        {
            "type": "scatter",
            "mode": "lines+markers",
            "name": name,
            "legendgroup": f"g{g['number']}",
            "x": [_x(p, by_time) for p in points],
            "y": [p[field] for p in points],  # type: ignore[literal-required]
            "text": hover,
            "hoverinfo": "text",
            "line": {"color": colour, "width": 1.5},
            "marker": {"size": 4, "color": colour},
            "customdata": [g["number"]] * len(points),
        }
    ]
    marks = g["changes"]
    if marks:
        at = [points[c["run"] - 1] for c in marks]
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": escape_markup(f"#{g['number']} change points"),
                "legendgroup": f"g{g['number']}",
                "showlegend": False,
                "x": [_x(p, by_time) for p in at],
                "y": [p[field] for p in at],  # type: ignore[literal-required]
                "text": [
                    escape_markup(
                        f"#{g['number']} {g['kernel_short']}: "
                        f"{'regression' if c['regression'] else 'improvement'} at {c['label']}"
                    )
                    + f"<br>{c['metric']} {TEXT.pct(c['step'], sign=True)} "
                    f"(threshold {TEXT.number(c['threshold'])})"
                    for c in marks
                ],
                "hoverinfo": "text",
                "marker": {
                    "size": 13,
                    "symbol": "diamond-open",
                    "color": "#d62728",
                    "line": {"width": 2.5, "color": "#d62728"},
                },
            }
        )
    return traces


def history_figures(context: HistoryContext) -> list[Chart]:
    """The history page's charts: ``{"id", "title", "figure"}`` each (none without groups)."""
    groups = context["groups"]
    if not groups:
        return []
    by_time = context["query"]["order_by"] == "time"
    metric_field = {"duration": "duration_s", "efficiency": "efficiency"}.get(
        context["query"]["metric"], "recoverable_s"
    )
    out: list[Chart] = []
    for chart_id, title, field, y_title, how, log in _CHARTS:
        data: list[PlotlyJSON] = []
        for i, (g, label) in enumerate(zip(groups, group_names(groups), strict=True)):
            traces = _group_traces(g, field, how, by_time, group_colour(i), label)
            data += traces if field == metric_field else traces[:1]
        layout = {
            "xaxis": {
                "title": {"text": "run time (UTC)" if by_time else context["query"]["order_by"]},
                "type": "date" if by_time else "category",
            },
            "yaxis": {
                "title": {"text": y_title},
                "type": "log" if log else "linear",
                **({"tickformat": ".0%"} if how == "pct" else {}),
            },
            "hovermode": "closest",
            "legend": {"orientation": "v"},
            "margin": {"l": 70, "r": 20, "t": 40, "b": 60},
        }
        out.append({"id": chart_id, "title": title, "figure": {"data": data, "layout": layout}})
    return out
