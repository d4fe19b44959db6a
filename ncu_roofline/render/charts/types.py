"""The shapes of chart entries: what every chart builder returns and every page reads.

A figure's traces and layout are plotly.js's own schema, open by nature
(:data:`PlotlyJSON`); the entry around a figure, its id, title and what
could not be plotted, is fixed.
"""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = ["Chart", "NotPlotted", "PlotlyFigure", "PlotlyJSON", "RooflineChart"]

#: A plotly.js trace, layout or part of one: plotly's schema, not ours.
PlotlyJSON = dict[str, Any]


class PlotlyFigure(TypedDict):
    """A plotly.js figure: ``Plotly.newPlot(div, figure.data, figure.layout)``."""

    data: list[PlotlyJSON]
    layout: PlotlyJSON


class NotPlotted(TypedDict):
    """A kernel group (or op) with no point on a chart, and why (plain text)."""

    kernel_short: str | None
    reason: str


class Chart(TypedDict):
    """One chart of a page: its element id, its title (plain text) and its figure."""

    id: str
    title: str
    figure: PlotlyFigure


class RooflineChart(Chart):
    """A roofline chart: with how many groups and launches it plots, and those it cannot."""

    groups_plotted: int
    launches_plotted: int
    not_plotted: list[NotPlotted]
