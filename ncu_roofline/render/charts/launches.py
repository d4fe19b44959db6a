"""Every launch on the chart: the hidden alternative view to the kernel groups.

A profile may hold a hundred thousand launches, so this view is built with
numpy indexing, subsampled evenly past a limit, and drawn as a WebGL trace;
its strings are formatted once per distinct kernel name and bound class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt

from ncu_roofline.render.charts.style import BOUND_COLOURS, NEUTRAL, escape_markup
from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.charts.values import FloatArray
from ncu_roofline.render.format import TEXT


@dataclass(frozen=True)
class LaunchFields:
    """The launch fields the launch view shows, one list each, in report order."""

    kernel_short: Sequence[Any]
    kernel: Sequence[Any]
    bound: Sequence[Any]
    id: Sequence[Any]


class LaunchPoints(TypedDict):
    """One device's launches as points (:func:`launch_points`): coordinates, hover data, colours."""

    x: FloatArray
    y: FloatArray
    #: Launches with a point, before any were left out to keep at most ``max_points``.
    total: int
    customdata: list[list[object]]
    colours: list[str]


def launch_points(
    fields: Callable[[], LaunchFields],
    rows: npt.NDArray[np.intp],
    ai: FloatArray,
    rate: FloatArray,
    max_points: int,
) -> LaunchPoints:
    """The launch view of one device: coordinates, hover data and colours.

    Per-launch work is numpy indexing; strings are formatted and escaped once
    per distinct kernel name and bound class.  ``fields`` gives the launches'
    fields, asked for only when a launch has a point.
    """
    x = ai[rows]
    y = rate[rows]
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    rows = rows[keep]
    total = len(rows)
    if total > max_points:
        pick = np.unique(np.linspace(0, total - 1, num=max_points).round().astype(np.intp))
        rows = rows[pick]
    launches = fields() if len(rows) else LaunchFields([], [], [], [])
    names: dict[str, int] = {}
    bounds: dict[str, int] = {}
    name_codes = np.fromiter(
        (
            names.setdefault(str(launches.kernel_short[i] or launches.kernel[i] or ""), len(names))
            for i in rows.tolist()
        ),
        dtype=np.intp,
        count=len(rows),
    )
    bound_codes = np.fromiter(
        (bounds.setdefault(str(launches.bound[i]), len(bounds)) for i in rows.tolist()),
        dtype=np.intp,
        count=len(rows),
    )
    escaped_names = np.array([escape_markup(n) for n in names], dtype=object)
    escaped_bounds = np.array([escape_markup(b) for b in bounds], dtype=object)
    colours = np.array([BOUND_COLOURS.get(b, NEUTRAL) for b in bounds], dtype=object)
    ids = [launches.id[i] for i in rows.tolist()]
    customdata = [
        list(row)
        for row in zip(
            escaped_names[name_codes].tolist(),
            ids,
            escaped_bounds[bound_codes].tolist(),
            strict=True,
        )
    ]
    return {
        "x": ai[rows],
        "y": rate[rows],
        "total": total,
        "customdata": customdata,
        "colours": colours[bound_codes].tolist(),
    }


def launch_trace(launches: LaunchPoints) -> PlotlyJSON:
    """The every-launch trace of :func:`launch_points` output, hidden until asked for."""
    shown = len(launches["x"])
    total = TEXT.count(launches["total"])
    name = f"every launch ({total})"
    if launches["total"] > shown:
        name = f"every launch ({TEXT.count(shown)} of {total} shown, evenly subsampled)"
    return {
        "type": "scattergl",
        "mode": "markers",
        "name": name,
        "legendgroup": "launches",
        "legendgrouptitle": {"text": "launches"},
        "visible": "legendonly",
        "x": launches["x"].tolist(),
        "y": launches["y"].tolist(),
        "customdata": launches["customdata"],
        "hovertemplate": (
            "<b>%{customdata[0]}</b><br>launch id %{customdata[1]}<br>"
            "intensity %{x:.3g} FLOP/B<br>achieved %{y:.3s}FLOP/s<br>"
            "%{customdata[2]}-bound<extra></extra>"
        ),
        "marker": {"size": 4, "color": launches["colours"], "opacity": 0.6},
        "showlegend": True,
    }
