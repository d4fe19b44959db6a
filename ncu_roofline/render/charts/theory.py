"""Theory on the chart: each group's minimal-bytes intensity and an arrow to the measured one.

A theory estimate gives the fewest DRAM bytes a kernel's math needs, hence
the highest intensity it could have.  Drawn at the group's measured FLOP/s,
a hollow marker sits at that intensity and an arrow runs from it to the
measured marker: the longer the arrow, the more bytes the kernel moves
beyond its minimum.
"""

from __future__ import annotations

import math

from ncu_roofline.render.charts.groups import GroupPoint, byte_excess_text
from ncu_roofline.render.charts.style import (
    MIN_ARROW_DECADES,
    NEUTRAL,
    arrow,
    escape_markup,
    wrapped,
)
from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.format import TEXT


def theory_trace(points: list[GroupPoint]) -> PlotlyJSON:
    """The hollow theory markers of the groups with a theoretical intensity."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": "theory (minimal bytes)",
        "legendgroup": "kernel groups",
        "legendgrouptitle": {"text": "kernel groups"},
        "x": [float(p.record["theory_ai"]) for p in points],
        "y": [p.y for p in points],
        "customdata": [_theory_customdata(p) for p in points],
        "hovertemplate": (
            "<b>%{customdata[0]}</b> (theory)<br>"
            "minimal-bytes intensity %{customdata[1]} FLOP/B<br>"
            "%{customdata[2]}<br>theory: %{customdata[3]}<extra></extra>"
        ),
        "marker": {
            "symbol": "circle-open",
            "size": 10,
            "color": NEUTRAL,
            "line": {"width": 2, "color": NEUTRAL},
        },
        "showlegend": True,
    }


def theory_arrows(points: list[GroupPoint]) -> list[PlotlyJSON]:
    """Arrows from theory to measurement, leaving out those too short to see."""
    arrows = []
    for p in points:
        theory_ai = float(p.record["theory_ai"])
        if abs(math.log10(p.x / theory_ai)) <= MIN_ARROW_DECADES:
            continue
        name = p.record.get("kernel_short") or p.record.get("kernel") or ""
        hover = f"{name}: theory {TEXT.fixed(theory_ai)} → measured {TEXT.fixed(p.x)} FLOP/B"
        arrows.append(arrow((theory_ai, p.y), (p.x, p.y), NEUTRAL, escape_markup(hover)))
    return arrows


def _theory_customdata(p: GroupPoint) -> list[str]:
    k = p.record
    return [
        escape_markup(k.get("kernel_short") or k.get("kernel") or ""),
        TEXT.fixed(float(k["theory_ai"])),
        byte_excess_text(k.get("byte_excess")) or "byte excess n/a",
        wrapped(str(k.get("theory_source") or "unknown")),
    ]
