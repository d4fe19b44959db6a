"""A device's ceilings on the chart: the roofs, the ridge points and their traces.

Memory roofs are diagonals (FLOP/s = intensity x bandwidth) drawn up to the
highest compute roof; compute roofs are horizontal lines from their ridge
point, where they meet the primary memory roof (the roof the x axis,
intensity at DRAM, belongs to), to the right edge.
"""

from __future__ import annotations

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
from ncu_roofline.render.charts.values import FloatArray, finite_positive
from ncu_roofline.render.format import TEXT

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

    @property
    def ridges(self) -> list[tuple[Ceiling, float]]:
        """Each compute roof with the intensity where it meets the primary memory roof."""
        return [(c, c.value / self.primary.value) for c in self.compute]


def _usable(device: dict[str, Any]) -> tuple[list[Ceiling], list[Ceiling]]:
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
            value=float(value),
            unit=_unit_label(c.get("unit"), str(kind)),
            source=None if c.get("source") is None else str(c.get("source")),
            clock_hz=float(clock) if finite_positive(clock) else None,
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


def device_roofs(device: dict[str, Any]) -> Roofs | None:
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
) -> dict[str, Any]:
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


def ceiling_traces(roofs: Roofs, x_lo: float, x_hi: float) -> list[dict[str, Any]]:
    """Memory roofs, compute roofs and the ridge points, for an x range in log10 units."""
    data: list[dict[str, Any]] = []
    for m in roofs.memory:
        xs_m = np.logspace(x_lo, math.log10(roofs.top / m.value), _LINE_POINTS)
        data.append(
            _line(
                xs_m,
                xs_m * m.value,
                m.legend,
                MEMORY_COLOURS.get(m.key, OTHER_MEMORY_COLOUR),
                "memory roofs",
                m.hover,
                "dash" if m.uncertain else "solid",
                2.5 if m is roofs.primary else 1.5,
            )
        )
    for i, (c, ridge) in enumerate(roofs.ridges):
        xs_c = np.logspace(math.log10(ridge), x_hi, _LINE_POINTS)
        data.append(
            _line(
                xs_c,
                np.full(_LINE_POINTS, c.value),
                c.legend,
                KEY_COLOURS.get(c.key, COMPUTE_COLOURS[i % len(COMPUTE_COLOURS)]),
                "compute roofs",
                c.hover,
                "dash" if c.uncertain else "solid",
                2.0,
            )
        )
    data.append(_ridge_trace(roofs))
    return data


def _ridge_trace(roofs: Roofs) -> dict[str, Any]:
    ridges = roofs.ridges
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
            f"ridge {escape_markup(c.label)}/{prim} at {TEXT.fixed(r)} FLOP/B" for c, r in ridges
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
