"""A device's ceilings on the chart: the roofs, the ridge points and their traces.

Memory roofs are diagonals (FLOP/s = intensity x bandwidth) drawn up to the
highest compute roof drawn at first, as a roofline is drawn: no diagonal runs
on past the roofs shown to reach a hidden one.  Compute roofs are horizontal
lines from their ridge point, where they meet the primary memory roof (the
roof the x axis, intensity at DRAM, belongs to), to the right edge; a hidden
compute roof above the shown ones carries the primary memory roof's stretch
up to it (from the highest shown roof's ridge to its own) in its own trace,
so that stretch appears and hides with it.  The other memory roofs do not
grow when a higher hidden compute roof is shown: they stay at the highest
roof shown at first.

Ceilings of equal value (within :data:`SAME_ROOF`, closer than a line's width
on the chart) are drawn once with a combined label, so no roof hides under
another.  Only the roofs the chart's kernel groups are judged against (their
precisions and the primary memory roof) are drawn at first; the others wait
in the legend (plotly's ``visible="legendonly"``).
"""

from __future__ import annotations

import decimal
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ncu_roofline.render.charts.style import (
    COMPUTE_COLOURS,
    KEY_COLOURS,
    MEMORY_COLOURS,
    NEUTRAL,
    OTHER_MEMORY_COLOUR,
    escape_markup,
)
from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.charts.values import FloatArray, finite_positive, number
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import DeviceRoofsRecord

#: Relative difference under which two ceilings are one line: 1% is 0.004
#: decades, under a pixel on any chart this tool draws.
SAME_ROOF = 0.01

#: Points per ceiling line: enough that hovering anywhere along the line
#: finds one (plotly hovers on data points, not on segments).
_LINE_POINTS = 16


def _key_label(key: str) -> str:
    """Display label of a ceiling key: ``fp32`` -> ``FP32``, ``tensor_bf16`` -> ``Tensor BF16``."""
    parts = str(key).split("_")
    return " ".join("Tensor" if p == "tensor" else p.upper() for p in parts)


def _unit_label(unit: Any, kind: str) -> str:
    if kind == "memory":
        return "B/s"
    return str(unit) if unit else "FLOP/s"


@dataclass(frozen=True)
class Ceiling:
    """One ceiling of the device, with its display label and unit."""

    key: str
    kind: str
    label: str
    value: float
    unit: str
    source: str | None
    clock_hz: float | None
    uncertain: bool

    @property
    def legend(self) -> str:
        """The legend entry: label and value, marked when the figure is unsure."""
        name = f"{self.label} {TEXT.si(self.value, self.unit)}"
        return escape_markup(f"{name} (unsure)" if self.uncertain else name)

    @property
    def hover(self) -> str:
        """The hover box: value, source, clock and doubts about the figure."""
        lines = [f"<b>{escape_markup(self.label)}</b> {TEXT.si(self.value, self.unit)}"]
        lines.append(f"source: {escape_markup(self.source or 'unknown')}")
        if self.clock_hz is not None:
            lines.append(f"clock: {TEXT.si(self.clock_hz, 'Hz')}")
        if self.uncertain:
            lines.append("figure marked unsure or disputed in its sources")
        return "<br>".join(lines) + "<extra></extra>"


@dataclass(frozen=True)
class Line:
    """Ceilings of one kind drawn as one line: one ceiling, or several of equal value."""

    members: tuple[Ceiling, ...]

    @property
    def first(self) -> Ceiling:
        """The member that names the colour and the line's value (the highest)."""
        return self.members[0]

    @property
    def value(self) -> float:
        """Where the line is drawn."""
        return self.first.value

    @property
    def keys(self) -> list[str]:
        """Every member's key."""
        return [m.key for m in self.members]

    @property
    def uncertain(self) -> bool:
        """Dashed only when every member is unsure: a sure member vouches for the line."""
        return all(m.uncertain for m in self.members)

    @property
    def legend(self) -> str:
        """``FP32, Tensor FP64 19.5 TFLOP/s``; values per member when they print differently."""
        if len(self.members) == 1:
            return self.first.legend
        values = {TEXT.si(m.value, m.unit) for m in self.members}
        if len(values) == 1:
            labels = ", ".join(m.label for m in self.members)
            unsure = " (unsure)" if self.uncertain else ""
            return escape_markup(f"{labels} {values.pop()}{unsure}")
        return ", ".join(m.legend for m in self.members)

    @property
    def hover(self) -> str:
        """Each member's hover box, one after the other."""
        return "<br>".join(m.hover.removesuffix("<extra></extra>") for m in self.members) + (
            "<extra></extra>"
        )


def merge_equal(ceilings: list[Ceiling], used: set[str] | None = None) -> list[Line]:
    """Ceilings grouped into lines: each within :data:`SAME_ROOF` of its line's first member.

    ``ceilings`` are in drawing order (highest first for compute roofs); the
    order of lines follows the first member of each.  Within a line the
    precisions in ``used`` come first, so the roof a kernel is judged
    against names the line and gives it its colour.
    """
    lines: list[list[Ceiling]] = []
    for c in sorted(ceilings, key=lambda c: -c.value):
        for line in lines:
            if abs(line[0].value - c.value) <= SAME_ROOF * line[0].value:
                line.append(c)
                break
        else:
            lines.append([c])
    order = {id(c): i for i, c in enumerate(ceilings)}
    lines.sort(key=lambda members: order[id(members[0])])
    mine = used or set()
    return [Line(tuple(sorted(m, key=lambda c: c.key not in mine))) for m in lines]


@dataclass(frozen=True)
class Roofs:
    """The usable ceilings of one device and the points the roofline's shape hangs on."""

    #: Compute ceilings, highest first, so the legend reads top to bottom like the chart.
    compute: list[Ceiling]
    memory: list[Ceiling]
    #: The memory roof the x axis (DRAM intensity) belongs to.
    primary: Ceiling

    @property
    def top(self) -> float:
        """The highest compute roof."""
        return max(c.value for c in self.compute)

    def shown_top(self, used: set[str] | None) -> float:
        """The highest compute roof drawn at first; :attr:`top` when none is.

        The memory roofs end there: a roofline does not run on to a roof
        that waits hidden in the legend.
        """
        shown = [line.value for line in merge_equal(self.compute, used) if self.shown(line, used)]
        return max(shown) if shown else self.top

    @property
    def ridges(self) -> list[tuple[Ceiling, float]]:
        """Each compute roof with the intensity where it meets the primary memory roof."""
        return [(c, c.value / self.primary.value) for c in self.compute]

    def shown(self, line: Line, used: set[str] | None) -> bool:
        """Whether ``line`` is drawn at first: a precision in ``used``, or the primary memory roof.

        ``used`` is ``None`` when no kernel group is placed: then every roof is drawn.
        """
        if used is None:
            return True
        if line.first.kind == "memory":
            return self.primary in line.members
        return any(k in used for k in line.keys)


def _usable(device: DeviceRoofsRecord) -> tuple[list[Ceiling], list[Ceiling]]:
    """Usable (finite, positive) compute and memory ceilings of one device."""
    compute: list[Ceiling] = []
    memory: list[Ceiling] = []
    for c in device.get("ceilings") or []:
        value = c.get("value")
        kind = c.get("kind")
        if not finite_positive(value) or kind not in ("compute", "memory"):
            continue
        clock = c.get("clock_hz")
        ceiling = Ceiling(
            key=str(c.get("key")),
            kind=str(kind),
            label=_key_label(str(c.get("key"))),
            value=number(value),
            unit=_unit_label(c.get("unit"), str(kind)),
            source=None if c.get("source") is None else str(c.get("source")),
            clock_hz=number(clock) if finite_positive(clock) else None,
            uncertain=bool(c.get("uncertain")),
        )
        (compute if kind == "compute" else memory).append(ceiling)
    # Highest compute roof first, so the legend reads top to bottom like the chart.
    compute.sort(key=lambda c: -c.value)
    return compute, memory


def _primary_memory(memory: list[Ceiling]) -> Ceiling:
    """The roof the x axis (DRAM intensity) belongs to: DRAM, else the slowest level."""
    for m in memory:
        if m.key == "dram":
            return m
    return min(memory, key=lambda m: m.value)


def device_roofs(device: DeviceRoofsRecord) -> Roofs | None:
    """The roofs of one ``roofs`` entry of the context; ``None`` without a compute and a memory roof."""
    compute, memory = _usable(device)
    if not compute or not memory:
        return None
    return Roofs(compute, memory, _primary_memory(memory))


def _line(
    xs: FloatArray,
    ys: FloatArray,
    name: str,
    colour: str,
    group: str,
    hover: str,
    dash: str,
    width: float,
) -> PlotlyJSON:
    """A ceiling drawn as a line trace in the legend group ``group``."""
    return {
        "type": "scatter",
        "mode": "lines",
        "x": xs.tolist(),
        "y": ys.tolist(),
        "name": name,
        "legendgroup": group,
        "legendgrouptitle": {"text": group},
        "line": {"color": colour, "dash": dash, "width": width},
        "hovertemplate": hover,
        "showlegend": True,
    }


def log_points(lo: float, hi: float, n: int) -> FloatArray:
    """``numpy.logspace(lo, hi, n)``, the same to the last bit on every machine.

    numpy raises ten to each power with a vectorised routine chosen by the
    CPU, whose last bit differs between CPUs: the roofs' points, and so the
    committed sample pages, would differ with the machine that drew them.
    Decimal arithmetic is done in software, the same everywhere.
    """
    exponents = np.linspace(lo, hi, n).tolist()
    # No traps: an exponent past the doubles' range gives infinity or zero, as numpy's.
    with decimal.localcontext(decimal.Context(prec=30, traps=[])):
        ten = decimal.Decimal(10)
        return np.array([float(ten ** decimal.Decimal(e)) for e in exponents], dtype=np.float64)


def ceiling_traces(
    roofs: Roofs, x_lo: float, x_hi: float, used: set[str] | None = None
) -> list[PlotlyJSON]:
    """Memory roofs, compute roofs and the ridge points, for an x range in log10 units.

    ``used`` holds the precisions of the kernel groups on the chart: roofs of
    other precisions, and memory roofs other than the primary one, start
    hidden in the legend.  Each ceiling trace's ``meta`` lists its ceiling
    keys, so a view can show a level's roof by key, and its ``value`` (the
    roof's FLOP/s, or the memory roof's bandwidth).
    """
    data: list[PlotlyJSON] = []
    top = roofs.shown_top(used)
    for line in merge_equal(roofs.memory):
        m = line.first
        xs_m = log_points(x_lo, math.log10(top / m.value), _LINE_POINTS)
        trace = _line(
            xs_m,
            xs_m * m.value,
            line.legend,
            MEMORY_COLOURS.get(m.key, OTHER_MEMORY_COLOUR),
            "memory roofs",
            line.hover,
            "dash" if line.uncertain else "solid",
            2.5 if roofs.primary in line.members else 1.5,
        )
        data.append(_visibility(trace, line, roofs.shown(line, used)))
        trace["meta"]["value"] = m.value
    shown_ridges: list[tuple[Line, float]] = []
    for i, line in enumerate(merge_equal(roofs.compute, used)):
        c = line.first
        ridge = c.value / roofs.primary.value
        xs_c = log_points(math.log10(ridge), x_hi, _LINE_POINTS)
        ys_c = np.full(_LINE_POINTS, c.value)
        shown = roofs.shown(line, used)
        if not shown and c.value > top * (1 + SAME_ROOF):
            # The primary memory roof's stretch from the shown top up to this
            # hidden roof, drawn with it: shown with it, hidden with it.
            xs_d = log_points(math.log10(top / roofs.primary.value), math.log10(ridge), 4)
            xs_c = np.concatenate([xs_d[:-1], xs_c])
            ys_c = np.concatenate([xs_d[:-1] * roofs.primary.value, ys_c])
        trace = _line(
            xs_c,
            ys_c,
            line.legend,
            KEY_COLOURS.get(c.key, COMPUTE_COLOURS[i % len(COMPUTE_COLOURS)]),
            "compute roofs",
            line.hover,
            "dash" if line.uncertain else "solid",
            2.0,
        )
        data.append(_visibility(trace, line, shown))
        trace["meta"]["value"] = c.value
        if shown:
            shown_ridges.append((line, ridge))
    data.append(_ridge_trace(roofs, shown_ridges))
    return data


def _visibility(trace: PlotlyJSON, line: Line, shown: bool) -> PlotlyJSON:
    trace["meta"] = {"keys": line.keys}
    if not shown:
        trace["visible"] = "legendonly"
    return trace


def _ridge_trace(roofs: Roofs, ridges: list[tuple[Line, float]]) -> PlotlyJSON:
    """The ridge points of the compute roofs drawn at first."""
    prim = escape_markup(roofs.primary.label)
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"ridge points ({prim})",
        "legendgroup": "compute roofs",
        "legendgrouptitle": {"text": "compute roofs"},
        "x": [r for _, r in ridges],
        "y": [c.value for c, _ in ridges],
        "text": [
            f"ridge {escape_markup(', '.join(m.label for m in c.members))}/{prim} at "
            f"{TEXT.fixed(r)} FLOP/B"
            for c, r in ridges
        ],
        "hovertemplate": "%{text}<extra></extra>",
        "marker": {
            "symbol": "x-thin-open",
            "size": 8,
            "color": NEUTRAL,
            "line": {"width": 2, "color": NEUTRAL},
        },
        "showlegend": True,
    }
