"""The memory-level (hierarchical) view: each kernel group at L1, L2 and DRAM intensity.

As in Nsight Compute's hierarchical roofline, a group's FLOP/s is drawn at
its intensity at each memory level, the points joined by a line: each
point reads against its own level's roof, and the level whose point sits
nearest its roof is the one that binds.  One trace holds every group (the
lines broken by gaps), hidden until the view is chosen; launches get no
such points, so the view costs three points per group whatever the
profile's size.  Groups placed other than by their measurements (on the
bandwidth strip, from theory) have no intensity per level and get none.
"""

from __future__ import annotations

from ncu_roofline.render.charts.groups import GroupPoint
from ncu_roofline.render.charts.style import MEMORY_COLOURS, NEUTRAL, escape_markup
from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.charts.values import finite, finite_positive
from ncu_roofline.render.format import TEXT

#: Levels left to right as intensity usually grows (L1 moves the most bytes).
LEVELS: tuple[tuple[str, str, str], ...] = (
    ("l1", "L1", "triangle-up"),
    ("l2", "L2", "square"),
    ("dram", "DRAM", "circle"),
)
_LABEL = {key: label for key, label, _ in LEVELS}


def level_points(p: GroupPoint) -> list[tuple[str, float]]:
    """``(level, intensity)`` of one group at every level with a finite positive intensity.

    Only a group placed by its measured FLOPs and bytes has such points: one
    on the bandwidth strip did no floating-point work (zero intensity at
    every level), and one placed from theory has the theory's intensity at
    DRAM only; either keeps its marker alone in the view.
    """
    if p.placement != "measured":
        return []
    out = []
    for key, _, _ in LEVELS:
        ai = p.x if key == "dram" else finite(p.record.get(f"ai_{key}"))
        if ai is not None and finite_positive(ai):
            out.append((key, ai))
    return out


def level_trace(points: list[GroupPoint]) -> PlotlyJSON | None:
    """The memory-level view's trace; ``None`` when no group has an L2 or L1 intensity."""
    xs: list[float | None] = []
    ys: list[float | None] = []
    symbols: list[str] = []
    colours: list[str] = []
    customdata: list[list[str] | None] = []
    ranks: list[int | None] = []
    symbol = {key: s for key, _, s in LEVELS}
    for p in points:
        levels = level_points(p)
        if len(levels) < 2:
            continue
        name = escape_markup(p.record.get("kernel_short") or p.record.get("kernel") or "")
        binding = p.record.get("binding_level")
        binds = f"binding level: {_LABEL.get(str(binding), escape_markup(binding))}"
        for key, ai in levels:
            xs.append(ai)
            ys.append(p.y)
            symbols.append(symbol[key])
            colours.append(MEMORY_COLOURS[key])
            rank = "?" if p.rank is None else str(p.rank)
            customdata.append([name, _LABEL[key], TEXT.fixed(ai), rank, binds if binding else ""])
            ranks.append(p.rank)
        # A gap ends this group's line.
        xs.append(None)
        ys.append(None)
        symbols.append("circle")
        colours.append(NEUTRAL)
        customdata.append(None)
        ranks.append(None)
    if not xs:
        return None
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": "memory levels (▲ L1, ■ L2, ● DRAM)",
        "legendgroup": "memory levels",
        "legendgrouptitle": {"text": "memory levels"},
        "visible": "legendonly",
        "x": xs,
        "y": ys,
        "connectgaps": False,
        "customdata": customdata,
        "hovertemplate": (
            "<b>#%{customdata[3]} %{customdata[0]}</b><br>"
            "intensity %{customdata[2]} FLOP/B at %{customdata[1]}<br>"
            "%{customdata[4]}<extra></extra>"
        ),
        "meta": {"role": "levels", "ranks": ranks},
        "line": {"color": NEUTRAL, "width": 1},
        "marker": {
            "symbol": symbols,
            "color": colours,
            "size": 9,
            "line": {"color": NEUTRAL, "width": 1},
        },
        "showlegend": True,
    }
