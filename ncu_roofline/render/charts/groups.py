"""Kernel groups on the chart: which get a marker, their hover text and their traces.

One marker per kernel group, coloured by bound class, its area following
the group's share of the profile's time; a group with findings is a
diamond with a heavy outline.  Each marker carries its group's number (the
kernel table's ``#``) in the hover box; the :data:`LABELLED` groups with the
most time show it on the chart too, points closer than :data:`NEAR` (as
fractions of the axes) sharing one combined label ("4,5,7").  The legend
names the :data:`LEGEND_GROUPS` groups with the most time by the same
number ("3 · sgemm_128x64…").  Groups without a point (communication
kernels, unplaceable ones, missing or non-positive coordinates) are listed
with the reason instead.

Where the analysis placed a group other than by its measured FLOPs and
bytes (its ``placement``, see :mod:`ncu_roofline.analysis.placement`), its
marker has a shape of its own and its hover box says what the point rests
on: ``bandwidth`` (no floating-point work) on a strip at the chart's left
edge, as far under the DRAM roof there as its DRAM utilisation says;
``theory`` at the theoretical intensity and the rate of the theoretical
work.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ncu_roofline.render.charts.style import (
    BOUND_COLOURS,
    GRID_COLOUR,
    NEUTRAL,
    escape_markup,
    marker_size,
    wrapped,
)
from ncu_roofline.render.charts.types import NotPlotted, PlotlyJSON
from ncu_roofline.render.charts.values import finite, number
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import KernelRecord

#: Bound classes drawn as kernel-group markers.  Communication kernels move
#: data between devices and "not placeable" ones lack a roof: neither has a
#: meaningful point on a FLOP/s-versus-DRAM-intensity chart.
PLOTTED_BOUNDS: tuple[str, ...] = ("memory", "compute", "latency")


#: Groups with the most time whose number is printed next to their marker.
LABELLED = 10
#: Labelled points closer than this on both axes, as fractions of each axis's
#: span (about 30 px across and 18 px up on a desktop chart, a label's size),
#: share one label, on the point with the most time.
NEAR: tuple[float, float] = (0.03, 0.045)
#: Up to this many placed groups, each gets a legend entry of its own; past it,
#: only the :data:`LABELLED` ones do.
LEGEND_GROUPS = 20
#: Longest short name in a legend entry, in characters (the hover box has it whole).
LEGEND_NAME = 32


#: Marker shapes of the placements other than ``measured`` (whose markers are
#: circles, or diamonds with findings).
PLACEMENT_SYMBOLS: dict[str, str] = {"bandwidth": "triangle-right", "theory": "square"}
#: The bandwidth strip's position: this fraction of a decade right of the
#: chart's left edge (inside the margin :mod:`.layout` leaves there).
STRIP_DECADES = 0.25


@dataclass
class GroupPoint:
    """A kernel group that gets a marker, with the finding kinds about it.

    ``placement`` is the analysis's (``measured``, ``bandwidth``,
    ``theory``); a ``bandwidth`` point's ``x`` and ``y`` are NaN until
    :func:`on_strip` puts it on the chart's strip.
    """

    #: A kernel group, or the record of another point (an op on the theory chart).
    record: Mapping[str, Any]
    x: float
    y: float
    bound: str
    finding: list[str]
    placement: str = "measured"

    @property
    def rank(self) -> int | None:
        """The group's number in the kernel table."""
        rank = self.record.get("rank")
        return rank if isinstance(rank, int) and not isinstance(rank, bool) else None

    @property
    def seconds(self) -> float:
        """The group's total time; 0 when unknown (it sorts last)."""
        return finite(self.record.get("total_duration_s")) or 0.0


def not_plotted_reason(k: Mapping[str, Any]) -> str | None:
    """Why a kernel group has no marker; ``None`` when it has one."""
    if k.get("placement") in PLACEMENT_SYMBOLS:
        return None
    bound = k.get("bound")
    if bound == "communication":
        return "communication kernel: moves data between devices, no point on a compute roofline"
    if bound == "not placeable":
        reason = k.get("bound_reason")
        return f"not placeable: {reason}" if reason else "not placeable on the roofline"
    ai = k.get("ai_dram")
    rate = k.get("achieved_flops_per_s")
    for value, what in ((ai, "DRAM arithmetic intensity"), (rate, "achieved FLOP/s")):
        if value is None:
            return f"no {what} (FLOPs, DRAM bytes or duration missing)"
        if not isinstance(value, (int, float)) or not math.isfinite(value):
            return f"{what} is not a finite number"
        if value <= 0:
            return f"{what} is {TEXT.fixed(float(value))}: no point on a log-log chart"
    if bound not in PLOTTED_BOUNDS:
        return f"no bound class ({bound!s})"
    return None


def kinds_by_kernel(findings: Iterable[Mapping[str, Any]]) -> dict[tuple[Any, str], list[str]]:
    """Finding kinds per (source, kernel); source ``None`` matches every source."""
    out: dict[tuple[Any, str], list[str]] = {}
    for f in findings:
        kernel = f.get("kernel")
        if kernel is None:
            continue
        kinds = out.setdefault((f.get("source"), str(kernel)), [])
        kind = str(f.get("kind") or "finding")
        if kind not in kinds:
            kinds.append(kind)
    return out


def place_groups(
    groups: Iterable[KernelRecord], kinds: dict[tuple[Any, str], list[str]]
) -> tuple[list[GroupPoint], list[NotPlotted]]:
    """The groups that get a marker, and ``{"kernel_short", "reason"}`` for those that do not.

    ``kinds`` is :func:`kinds_by_kernel` of the context's findings.
    """
    points: list[GroupPoint] = []
    not_plotted: list[NotPlotted] = []
    for k in groups:
        reason = not_plotted_reason(k)
        if reason is not None:
            not_plotted.append(
                {"kernel_short": k.get("kernel_short") or k.get("kernel"), "reason": reason}
            )
            continue
        kernel = str(k.get("kernel") or "")
        found = list(kinds.get((k.get("source"), kernel), []))
        found += [x for x in kinds.get((None, kernel), []) if x not in found]
        how = str(k.get("placement") or "measured")
        x, y = _coordinates(k, how)
        points.append(
            GroupPoint(record=k, x=x, y=y, bound=str(k["bound"]), finding=found, placement=how)
        )
    return points, not_plotted


def _coordinates(k: KernelRecord, how: str) -> tuple[float, float]:
    """A group's point by its placement; NaN for a bandwidth point (the strip places it)."""
    if how == "theory":
        return number(k.get("theory_ai")), number(k.get("theory_flops_per_s"))
    if how == "bandwidth":
        return math.nan, math.nan
    return number(k["ai_dram"]), number(k["achieved_flops_per_s"])


def on_strip(points: list[GroupPoint], x_lo: float) -> list[float]:
    """Put the bandwidth-placed points on the strip near ``x_lo`` (log10); their ys.

    At intensity ``x`` the DRAM roof is ``x`` times the bandwidth, so a point
    at ``x`` times the bandwidth the kernel reached sits under that roof by
    exactly its DRAM utilisation: the strip reads like the rest of the chart.
    """
    x = 10.0 ** (x_lo + STRIP_DECADES)
    ys: list[float] = []
    for p in points:
        if p.placement != "bandwidth":
            continue
        util = finite(p.record.get("dram_utilization")) or math.nan
        peak = finite(p.record.get("peak_dram_bytes_per_s")) or math.nan
        p.x, p.y = x, x * util * peak
        ys.append(p.y)
    return ys


def byte_excess_text(value: Any) -> str | None:
    """How far a group's DRAM bytes are over the theory's minimum; ``None`` when unknown."""
    excess = finite(value)
    return (
        None if excess is None else f"DRAM bytes {TEXT.decimals(excess)}x the theoretical minimum"
    )


_GROUP_HOVER = (
    "<b>#%{customdata[12]} %{customdata[1]}</b><br>"
    "%{customdata[0]}<br>"
    "launches %{customdata[2]}, total %{customdata[3]} (%{customdata[4]} of time)<br>"
    "%{customdata[5]}<br>"
    "%{customdata[6]}, %{customdata[7]}<br>"
    "%{customdata[8]}: %{customdata[9]}"
    "%{customdata[10]}%{customdata[11]}"
    "<extra></extra>"
)


def _group_customdata(p: GroupPoint) -> list[str]:
    k = p.record
    full = str(k.get("kernel") or "")
    short = str(k.get("kernel_short") or full)
    eff = k.get("efficiency")
    roof = k.get("attainable_flops_per_s")
    eff_text = (
        f"{TEXT.pct(eff, digits=0)} of roof ({TEXT.si(roof, 'FLOP/s')})"
        if finite(eff) is not None
        else "efficiency n/a"
    )
    if p.placement == "bandwidth":
        eff_text = f"{TEXT.pct(eff, digits=0)} of DRAM peak"
    elif p.placement == "theory" and finite(k.get("theory_efficiency")) is not None:
        eff_text = f"the theory floor is {TEXT.pct(k['theory_efficiency'], digits=0)} of its time"
    excess = byte_excess_text(k.get("byte_excess"))
    theory = "" if excess is None else f"<br>{excess}"
    if k.get("theory_source"):
        theory += f"<br>theory: {wrapped(str(k['theory_source']))}"
    findings = f"<br>findings: {escape_markup(', '.join(p.finding))}" if p.finding else ""
    launches = k.get("launches")
    where, achieved = _position_lines(p)
    return [
        wrapped(full),
        escape_markup(short),
        TEXT.count(launches) if isinstance(launches, int) else escape_markup(launches),
        TEXT.duration(k.get("total_duration_s")),
        TEXT.pct(k.get("time_share")),
        where,
        achieved,
        eff_text,
        escape_markup(f"{p.bound}-bound" if p.bound in PLOTTED_BOUNDS else p.bound),
        escape_markup(k.get("bound_reason") or "no reason recorded"),
        theory,
        findings,
        "?" if p.rank is None else str(p.rank),
    ]


def _position_lines(p: GroupPoint) -> tuple[str, str]:
    """The hover box's lines on what the point is: its intensity and achieved rate,
    or, for points placed otherwise, what the placement rests on."""
    k = p.record
    if p.placement == "bandwidth":
        bw = TEXT.si(k.get("dram_bytes_per_s"), "B/s")
        return (
            "no floating-point work: placed by bandwidth "
            f"({TEXT.pct(k.get('dram_utilization'), digits=0)} of DRAM peak)",
            f"DRAM {bw}, on the strip at the left edge of the chart",
        )
    if p.placement == "theory":
        return (
            "placed from theoretical work: the export has no FLOP/byte counters<br>"
            f"theoretical intensity {TEXT.fixed(p.x)} FLOP/B",
            f"theoretical work at {TEXT.si(p.y, 'FLOP/s')} over the measured time",
        )
    return f"intensity {TEXT.fixed(p.x)} FLOP/B at DRAM", f"achieved {TEXT.si(p.y, 'FLOP/s')}"


def point_labels(
    points: list[GroupPoint], spans: tuple[float, float], top: int = LABELLED
) -> list[str]:
    """The text printed next to each point: the number of each of the ``top`` groups by time.

    ``spans`` are the x and y axes' spans in decades.  A labelled point
    within :data:`NEAR` of a labelled point with more time adds its number to
    that point's label and prints none itself, so coincident points read
    "4,5,7" rather than numbers on top of each other.
    """
    near_x, near_y = NEAR[0] * spans[0], NEAR[1] * spans[1]
    order = sorted(
        (i for i, p in enumerate(points) if p.rank is not None), key=lambda i: -points[i].seconds
    )[:top]
    anchors: list[tuple[int, list[int]]] = []
    for i in order:
        lx, ly = math.log10(points[i].x), math.log10(points[i].y)
        for a, members in anchors:
            if (
                abs(math.log10(points[a].x) - lx) < near_x
                and abs(math.log10(points[a].y) - ly) < near_y
            ):
                members.append(i)
                break
        else:
            anchors.append((i, [i]))
    labels = [""] * len(points)
    for a, members in anchors:
        labels[a] = ",".join(str(r) for r in sorted(points[m].rank or 0 for m in members))
    return labels


def _legend_short(p: GroupPoint) -> str:
    """A group's short name as its legend entry shows it (cut to :data:`LEGEND_NAME`)."""
    short = str(p.record.get("kernel_short") or p.record.get("kernel") or "")
    if len(short) > LEGEND_NAME:
        short = short[: LEGEND_NAME - 1] + "…"
    return short


def legend_name(p: GroupPoint, with_grid: bool = False) -> str:
    """A group's legend entry: its number, as on the chart and in the table, and its short name.

    ``with_grid`` adds the group's grid ("3 · gemvx::kernel<…> · grid (64, 1, 1)"):
    for groups whose shown names collide, which the number alone tells apart
    only by a trip to the table.
    """
    rank = "?" if p.rank is None else str(p.rank)
    grid = p.record.get("grid") if with_grid else None
    tail = f" · grid {grid}" if grid else ""
    return escape_markup(f"{rank} · {_legend_short(p)}{tail}")


def legend_names(points: list[GroupPoint]) -> list[str]:
    """The legend entries of ``points``: with the grid where two shown names collide."""
    shown = Counter(_legend_short(p) for p in points)
    return [legend_name(p, with_grid=shown[_legend_short(p)] > 1) for p in points]


def _trace(members: list[GroupPoint], labels: list[str], bound: str, name: str) -> PlotlyJSON:
    return {
        "type": "scatter",
        "mode": "markers+text",
        "name": name,
        "legendgroup": "kernel groups",
        "legendgrouptitle": {"text": "kernel groups"},
        "x": [p.x for p in members],
        "y": [p.y for p in members],
        "text": labels,
        "textposition": "top center",
        "textfont": {"size": 12},
        "customdata": [_group_customdata(p) for p in members],
        "hovertemplate": _GROUP_HOVER,
        "meta": {
            "role": "groups",
            "bound": bound,
            "ranks": [p.rank for p in members],
            "placements": [p.placement for p in members],
        },
        "marker": {
            "color": BOUND_COLOURS[bound],
            "size": [marker_size(p.record.get("time_share")) for p in members],
            "sizemode": "diameter",
            "symbol": [_symbol(p) for p in members],
            "line": {
                "color": NEUTRAL,
                "width": [3.0 if p.finding else 0.5 for p in members],
            },
            "opacity": 0.85,
        },
        "selected": {"marker": {"opacity": 1.0}},
        "unselected": {"marker": {"opacity": 0.2}, "textfont": {"color": GRID_COLOUR}},
        "showlegend": True,
    }


def _symbol(p: GroupPoint) -> str:
    """Its placement's shape; else a diamond with findings, a circle without."""
    if p.placement in PLACEMENT_SYMBOLS:
        return PLACEMENT_SYMBOLS[p.placement]
    return "diamond" if p.finding else "circle"


def group_traces(points: list[GroupPoint], spans: tuple[float, float]) -> list[PlotlyJSON]:
    """The kernel-group marker traces: one per group, up to :data:`LEGEND_GROUPS` groups.

    Each of those groups is its own legend entry, "3 · name", its number the
    one on its marker label and in the kernel table's ``#``; the legend
    toggles it alone.  With more than :data:`LEGEND_GROUPS` groups, only the
    :data:`LABELLED` ones with the most time keep a trace of their own and
    the others share one per bound class ("other memory-bound (n)"), so a
    profile with a thousand groups keeps a legend one can read and a chart
    that draws fast.  The groups' own traces go by number, the shared ones by bound
    class in :data:`PLOTTED_BOUNDS` order.

    ``spans`` are the axes' spans in decades, for :func:`point_labels`.
    Each trace's ``meta`` is ``{"role": "groups", "bound": ..., "ranks":
    [...]}``: the group number of each point, for the page's script to link
    points and table rows.
    """
    labels = point_labels(points, spans)
    order = sorted(range(len(points)), key=lambda i: (-points[i].seconds, points[i].rank or 0))
    # Past LEGEND_GROUPS, only the labelled groups keep an entry of their own:
    # each trace costs the page time to draw (about 20 ms on a loaded laptop).
    n_own = len(points) if len(points) <= LEGEND_GROUPS else LABELLED
    # Their legend entries in the table's order, so the numbers read 1, 2, 3.
    own = sorted(order[:n_own], key=lambda i: (points[i].rank is None, points[i].rank or 0))
    rest = set(order[n_own:])
    names = legend_names([points[i] for i in own])
    traces = [
        _trace([points[i]], [labels[i]], points[i].bound, name)
        for i, name in zip(own, names, strict=True)
    ]
    # Groups placed from theory may be of a class the chart otherwise omits.
    extra = sorted({points[i].bound for i in rest} - set(PLOTTED_BOUNDS))
    for bound in (*PLOTTED_BOUNDS, *extra):
        idx = [i for i in order if i in rest and points[i].bound == bound]
        if not idx:
            continue
        name = f"other {bound}-bound ({TEXT.count(len(idx))})"
        traces.append(_trace([points[i] for i in idx], [labels[i] for i in idx], bound, name))
    return traces
