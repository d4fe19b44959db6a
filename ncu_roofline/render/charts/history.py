"""Trend charts of a dataset's history: one line per kernel group, change points marked.

Three figures share one x axis (the runs, by time or by the ordering tag):
time per launch, efficiency and recoverable time.  Each shown group is a
line of its own colour with its number in the legend; a change point is a
larger marker on the run it starts at, with the step in its hover text.
Every string from the dataset passes through :func:`escape_markup`.
"""

from __future__ import annotations

from typing import Any

from ncu_roofline.render.charts.style import escape_markup
from ncu_roofline.render.charts.types import Chart, PlotlyJSON
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import HistoryContext, HistoryGroup, HistoryPoint

#: Line colours of the groups, in rank order (repeated past the last).
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
    g: HistoryGroup, field: str, how: str, by_time: bool, colour: str
) -> list[PlotlyJSON]:
    name = escape_markup(f"#{g['number']} {g['kernel_short']}")
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
        for i, g in enumerate(groups):
            colour = GROUP_COLOURS[i % len(GROUP_COLOURS)]
            traces = _group_traces(g, field, how, by_time, colour)
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
