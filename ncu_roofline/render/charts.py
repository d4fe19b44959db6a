"""Roofline charts as plain plotly.js figures, built from the report context.

:func:`roofline_figures` turns the plain-data report context
(:func:`ncu_roofline.report.context.build_context`) into one figure per device: the
ceilings of that device, one marker per kernel group, every launch as a
hidden alternative view, and arrows from the theoretical (minimal-bytes)
intensity to the measured one.

Each figure is a dict in plotly.js's own schema (``{"data": [...],
"layout": {...}}``) holding only dicts, lists, strings, Python numbers,
booleans and ``None``: it can be serialised with ``json.dumps(...,
allow_nan=False)`` and handed to ``Plotly.newPlot(div, fig.data,
fig.layout)`` without the plotly Python package.

Escaping: Plotly renders hover text, trace names, titles and annotations as
a small subset of HTML, and kernel names are C++ (``k<float, 4>``) or, from a
hostile export, markup.  Every string in a figure that comes from the
profile (kernel names, sources, device names, bound reasons, theory labels)
passes through :func:`escape_markup` before it goes in.  The entry-level
``title`` and ``not_plotted`` strings are plain text, for a renderer that
escapes (Jinja autoescape) to print.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

import numpy as np
import numpy.typing as npt

from ncu_roofline.render.format import TEXT

FloatArray = npt.NDArray[np.float64]

#: Colour of each bound class: the Okabe-Ito palette, which stays distinct
#: under the common colour-vision deficiencies and reads on light and dark
#: page backgrounds alike.
BOUND_COLOURS: dict[str, str] = {
    "memory": "#0072B2",
    "compute": "#D55E00",
    "latency": "#CC79A7",
    "communication": "#009E73",
    "not placeable": "#999999",
}

#: Bound classes drawn as kernel-group markers.  Communication kernels move
#: data between devices and "not placeable" ones lack a roof: neither has a
#: meaningful point on a FLOP/s-versus-DRAM-intensity chart.
PLOTTED_BOUNDS: tuple[str, ...] = ("memory", "compute", "latency")

#: Mid-luminance colours for compute ceilings (Paul Tol's "muted" set),
#: picked to be visible on white and on near-black backgrounds.
_COMPUTE_COLOURS: tuple[str, ...] = (
    "#44AA99",
    "#999933",
    "#AA4499",
    "#88CCEE",
    "#CC6677",
    "#DDCC77",
    "#117733",
    "#882255",
    "#6699CC",
    "#AA7744",
)
_MEMORY_COLOURS: dict[str, str] = {"dram": "#8C8C8C", "l2": "#B07AA1", "l1": "#76B7B2"}
#: One colour per compute ceiling, so a precision looks the same on every
#: GPU's chart; unknown keys take the rest of the palette in order.
_KEY_COLOURS: dict[str, str] = dict(
    zip(
        (
            "tensor_fp8", "tensor_bf16", "tensor_fp16", "tensor_tf32", "fp16",
            "fp32", "tensor_fp64", "fp64", "tensor_int8", "tensor_fp4",
        ),
        _COMPUTE_COLOURS,
        strict=True,
    )
)  # fmt: skip
_OTHER_MEMORY_COLOUR = "#A0A0A0"
_NEUTRAL = "rgba(128,128,128,0.9)"
_GRID = "rgba(128,128,128,0.25)"
_TRANSPARENT = "rgba(0,0,0,0)"

#: Marker diameter bounds in pixels; area grows with the share of time.
MIN_MARKER_PX = 6.0
MAX_MARKER_PX = 44.0

#: Arrows shorter than this (in decades of intensity) would be a dot under
#: the marker; the hollow theory marker already says "theory agrees".
MIN_ARROW_DECADES = 0.02

#: Margin around everything plotted, in decades, on both axes.
MARGIN_DECADES = 0.5
#: X range (log10 FLOP/byte) when no kernel or launch has a point.
DEFAULT_X_RANGE = (-2.0, 4.0)

#: Points per ceiling line: enough that hovering anywhere along the line
#: finds one (plotly hovers on data points, not on segments).
_LINE_POINTS = 16

#: Full kernel names are wrapped at this many characters in hover boxes, so a
#: 2,000-character C++ name makes a tall box rather than one wider than the page.
_WRAP = 100

_UIREVISION = "ncu-roofline"

_MARKUP_SAFE = {'"': "&#34;", "'": "&#39;"}


def escape_markup(text: object) -> str:
    """``text`` with ``& < > " '`` replaced by character references.

    Equivalent to :func:`html.escape`, except that quotes become numeric
    references: plotly.js decodes numeric references and a handful of named
    ones (``&amp; &lt; &gt;``) in hover text but not ``&quot;``, which would
    show up literally.
    """
    out = html.escape(str(text), quote=False)
    if '"' in out or "'" in out:
        out = out.replace('"', _MARKUP_SAFE['"']).replace("'", _MARKUP_SAFE["'"])
    return out


def _wrapped(text: str, width: int = _WRAP) -> str:
    """Escaped ``text`` broken into ``<br>``-separated lines of about ``width`` characters.

    Lines break after ``", "`` or a space where one falls in the second half
    of a line, else hard at ``width``.  The raw text is cut before escaping
    so that no character reference is split across lines.
    """
    lines: list[str] = []
    rest = text
    while len(rest) > width:
        cut = rest.rfind(" ", width // 2, width)
        cut = width if cut < 0 else cut + 1
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return "<br>".join(escape_markup(line) for line in lines)


def _finite_positive(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value > 0
    )


def _key_label(key: str) -> str:
    """Display label of a ceiling key: ``fp32`` -> ``FP32``, ``tensor_bf16`` -> ``Tensor BF16``."""
    parts = str(key).split("_")
    return " ".join("Tensor" if p == "tensor" else p.upper() for p in parts)


def _unit_label(unit: Any, kind: str) -> str:
    if kind == "memory":
        return "B/s"
    return str(unit) if unit else "FLOP/s"


@dataclass(frozen=True)
class _Ceiling:
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
        name = f"{self.label} {TEXT.si(self.value, self.unit)}"
        return escape_markup(f"{name} (unsure)" if self.uncertain else name)

    @property
    def hover(self) -> str:
        lines = [f"<b>{escape_markup(self.label)}</b> {TEXT.si(self.value, self.unit)}"]
        lines.append(f"source: {escape_markup(self.source or 'unknown')}")
        if self.clock_hz is not None:
            lines.append(f"clock: {TEXT.si(self.clock_hz, 'Hz')}")
        if self.uncertain:
            lines.append("figure marked unsure or disputed in its sources")
        return "<br>".join(lines) + "<extra></extra>"


def _ceilings(device: dict[str, Any]) -> tuple[list[_Ceiling], list[_Ceiling]]:
    """Usable (finite, positive) compute and memory ceilings of one device."""
    compute: list[_Ceiling] = []
    memory: list[_Ceiling] = []
    for c in device.get("ceilings") or []:
        value = c.get("value")
        kind = c.get("kind")
        if not _finite_positive(value) or kind not in ("compute", "memory"):
            continue
        clock = c.get("clock_hz")
        ceiling = _Ceiling(
            key=str(c.get("key")),
            kind=str(kind),
            label=_key_label(str(c.get("key"))),
            value=float(value),
            unit=_unit_label(c.get("unit"), str(kind)),
            source=None if c.get("source") is None else str(c.get("source")),
            clock_hz=float(clock) if _finite_positive(clock) else None,
            uncertain=bool(c.get("uncertain")),
        )
        (compute if kind == "compute" else memory).append(ceiling)
    # Highest compute roof first, so the legend reads top to bottom like the chart.
    compute.sort(key=lambda c: -c.value)
    return compute, memory


def _primary_memory(memory: list[_Ceiling]) -> _Ceiling:
    """The roof the x axis (DRAM intensity) belongs to: DRAM, else the slowest level."""
    for m in memory:
        if m.key == "dram":
            return m
    return min(memory, key=lambda m: m.value)


class _DeviceIndex:
    """Maps a kernel or launch record to the index of its device in ``roofs``.

    Devices are keyed by (source, device name) like the records; the
    compute capability only breaks ties, because a device's ``cc`` may have
    been filled in from the GPU table where the records have none.
    """

    def __init__(self, roofs: Sequence[dict[str, Any]]) -> None:
        self._by_name: dict[tuple[Any, Any], list[int]] = {}
        self._cc = [r.get("cc") for r in roofs]
        for i, r in enumerate(roofs):
            self._by_name.setdefault((r.get("source"), r.get("device_name")), []).append(i)
        self._cache: dict[tuple[Any, Any, Any], int] = {}

    def __call__(self, record: dict[str, Any]) -> int:
        key = (record.get("source"), record.get("device_name"), record.get("cc"))
        hit = self._cache.get(key)
        if hit is None:
            hit = self._resolve(key)
            self._cache[key] = hit
        return hit

    def _resolve(self, key: tuple[Any, Any, Any]) -> int:
        candidates = self._by_name.get((key[0], key[1]), [])
        if not candidates:
            return -1
        for i in candidates:
            if self._cc[i] == key[2]:
                return i
        return candidates[0]


def _column(records: Sequence[dict[str, Any]], name: str) -> FloatArray:
    """A numeric field of every record as float64; ``None`` and non-numbers become NaN."""
    values = [r.get(name) for r in records]
    try:
        out: FloatArray = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        out = np.array(
            [float(v) if isinstance(v, (int, float)) else math.nan for v in values],
            dtype=np.float64,
        )
    return out


@dataclass
class _GroupPoint:
    """A kernel group that gets a marker, with the finding kinds about it."""

    record: dict[str, Any]
    x: float
    y: float
    bound: str
    finding: list[str]


def _not_plotted_reason(k: dict[str, Any]) -> str | None:
    """Why a kernel group has no marker; ``None`` when it has one."""
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


def _finding_kinds(findings: Iterable[dict[str, Any]]) -> dict[tuple[Any, str], list[str]]:
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


def _marker_size(share: Any) -> float:
    """Diameter in px with the marker *area* proportional to the share of time."""
    s = float(share) if isinstance(share, (int, float)) and math.isfinite(share) else 0.0
    return float(min(MAX_MARKER_PX, max(MIN_MARKER_PX, MAX_MARKER_PX * math.sqrt(max(s, 0.0)))))


_GROUP_HOVER = (
    "<b>%{customdata[1]}</b><br>"
    "%{customdata[0]}<br>"
    "launches %{customdata[2]}, total %{customdata[3]} (%{customdata[4]} of time)<br>"
    "intensity %{customdata[5]} FLOP/B at DRAM<br>"
    "achieved %{customdata[6]}, %{customdata[7]}<br>"
    "%{customdata[8]}-bound: %{customdata[9]}"
    "%{customdata[10]}%{customdata[11]}"
    "<extra></extra>"
)


def _group_customdata(p: _GroupPoint) -> list[str]:
    k = p.record
    full = str(k.get("kernel") or "")
    short = str(k.get("kernel_short") or full)
    eff = k.get("efficiency")
    roof = k.get("attainable_flops_per_s")
    eff_text = (
        f"{TEXT.pct(eff, digits=0)} of roof ({TEXT.si(roof, 'FLOP/s')})"
        if isinstance(eff, (int, float)) and math.isfinite(eff)
        else "efficiency n/a"
    )
    theory = ""
    excess = k.get("byte_excess")
    if isinstance(excess, (int, float)) and math.isfinite(excess):
        theory = f"<br>DRAM bytes {excess:.2f}x the theoretical minimum"
        if k.get("theory_source"):
            theory += f"<br>theory: {_wrapped(str(k['theory_source']))}"
    elif k.get("theory_source"):
        theory = f"<br>theory: {_wrapped(str(k['theory_source']))}"
    findings = f"<br>findings: {escape_markup(', '.join(p.finding))}" if p.finding else ""
    launches = k.get("launches")
    return [
        _wrapped(full),
        escape_markup(short),
        f"{launches:,}" if isinstance(launches, int) else escape_markup(launches),
        TEXT.duration(k.get("total_duration_s")),
        TEXT.pct(k.get("time_share")),
        TEXT.fixed(p.x),
        TEXT.si(p.y, "FLOP/s"),
        eff_text,
        escape_markup(p.bound),
        escape_markup(k.get("bound_reason") or "no reason recorded"),
        theory,
        findings,
    ]


def _log_range(values: Sequence[float]) -> tuple[float, float]:
    logs = np.log10(np.asarray(values, dtype=np.float64))
    return float(logs.min()), float(logs.max())


def _device_title(device: dict[str, Any]) -> str:
    gpu = device.get("gpu") or {}
    name = device.get("device_name") or gpu.get("name") or "unknown device"
    cc = device.get("cc")
    label = f"{name} (CC {cc})" if cc else str(name)
    source = device.get("source")
    if source:
        label += f", {PurePath(str(source)).name}"
    return f"Roofline: {label}"


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


def _device_figure(
    index: int,
    device: dict[str, Any],
    compute: list[_Ceiling],
    memory: list[_Ceiling],
    groups: list[dict[str, Any]],
    launches: dict[str, Any],
    finding_kinds: dict[tuple[Any, str], list[str]],
) -> dict[str, Any]:
    primary = _primary_memory(memory)
    top = max(c.value for c in compute)
    ridges = [(c, c.value / primary.value) for c in compute]

    # --- kernel groups -------------------------------------------------
    points: list[_GroupPoint] = []
    not_plotted: list[dict[str, Any]] = []
    for k in groups:
        reason = _not_plotted_reason(k)
        if reason is not None:
            not_plotted.append(
                {"kernel_short": k.get("kernel_short") or k.get("kernel"), "reason": reason}
            )
            continue
        kernel = str(k.get("kernel") or "")
        kinds = list(finding_kinds.get((k.get("source"), kernel), []))
        kinds += [x for x in finding_kinds.get((None, kernel), []) if x not in kinds]
        points.append(
            _GroupPoint(
                record=k,
                x=float(k["ai_dram"]),
                y=float(k["achieved_flops_per_s"]),
                bound=str(k["bound"]),
                finding=kinds,
            )
        )

    theory_points = [p for p in points if _finite_positive(p.record.get("theory_ai"))]

    # --- launches ------------------------------------------------------
    lx: FloatArray = launches["x"]
    ly: FloatArray = launches["y"]

    # --- axis ranges (log10 units) ----------------------------------------
    xs: list[float] = [p.x for p in points] + [float(p.record["theory_ai"]) for p in theory_points]
    ys: list[float] = [p.y for p in points]
    x_lo = x_hi = y_lo = y_hi = math.nan
    if len(lx):
        x_lo, x_hi = float(np.log10(lx.min())), float(np.log10(lx.max()))
        y_lo, y_hi = float(np.log10(ly.min())), float(np.log10(ly.max()))
    if xs:
        px_lo, px_hi = _log_range(xs)
        py_lo, py_hi = _log_range(ys)
        x_lo, x_hi = float(np.fmin(x_lo, px_lo)), float(np.fmax(x_hi, px_hi))
        y_lo, y_hi = float(np.fmin(y_lo, py_lo)), float(np.fmax(y_hi, py_hi))
    # Ridge points and the tops of the memory diagonals must be on the chart
    # for the roofline's shape to read.
    anchors = [r for _, r in ridges] + [top / m.value for m in memory]
    a, b = _log_range(anchors)
    if math.isnan(x_lo):
        x_lo, x_hi = (
            min(DEFAULT_X_RANGE[0], a - MARGIN_DECADES),
            max(DEFAULT_X_RANGE[1], b + MARGIN_DECADES),
        )
    else:
        x_lo, x_hi = min(x_lo, a) - MARGIN_DECADES, max(x_hi, b) + MARGIN_DECADES
    roof_bottom = math.log10(primary.value) + x_lo
    y_lo = float(np.fmin(y_lo - MARGIN_DECADES, roof_bottom))
    y_hi = float(np.fmax(y_hi, math.log10(top))) + MARGIN_DECADES

    # --- ceilings --------------------------------------------------------
    data: list[dict[str, Any]] = []
    for m in memory:
        xs_m = np.logspace(x_lo, math.log10(top / m.value), _LINE_POINTS)
        data.append(
            _line(
                xs_m,
                xs_m * m.value,
                m.legend,
                _MEMORY_COLOURS.get(m.key, _OTHER_MEMORY_COLOUR),
                "memory roofs",
                m.hover,
                "dash" if m.uncertain else "solid",
                2.5 if m is primary else 1.5,
            )
        )
    for i, (c, ridge) in enumerate(ridges):
        xs_c = np.logspace(math.log10(ridge), x_hi, _LINE_POINTS)
        data.append(
            _line(
                xs_c,
                np.full(_LINE_POINTS, c.value),
                c.legend,
                _KEY_COLOURS.get(c.key, _COMPUTE_COLOURS[i % len(_COMPUTE_COLOURS)]),
                "compute roofs",
                c.hover,
                "dash" if c.uncertain else "solid",
                2.0,
            )
        )
    prim = escape_markup(primary.label)
    data.append(
        {
            "type": "scatter",
            "mode": "markers",
            "name": f"ridge points ({prim})",
            "legendgroup": "compute roofs",
            "legendgrouptitle": {"text": "compute roofs"},
            "x": [r for _, r in ridges],
            "y": [c.value for c, _ in ridges],
            "text": [
                f"ridge {escape_markup(c.label)}/{prim} at {TEXT.fixed(r)} FLOP/B"
                for c, r in ridges
            ],
            "hovertemplate": "%{text}<extra></extra>",
            "marker": {
                "symbol": "x-thin-open",
                "size": 8,
                "color": _NEUTRAL,
                "line": {"width": 2, "color": _NEUTRAL},
            },
            "showlegend": True,
        }
    )
    n_ceiling_traces = len(data)

    # --- kernel-group traces -------------------------------------------------
    group_traces: list[int] = []
    for bound in PLOTTED_BOUNDS:
        members = [p for p in points if p.bound == bound]
        if not members:
            continue
        group_traces.append(len(data))
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{bound}-bound ({len(members):,})",
                "legendgroup": "kernel groups",
                "legendgrouptitle": {"text": "kernel groups"},
                "x": [p.x for p in members],
                "y": [p.y for p in members],
                "customdata": [_group_customdata(p) for p in members],
                "hovertemplate": _GROUP_HOVER,
                "marker": {
                    "color": BOUND_COLOURS[bound],
                    "size": [_marker_size(p.record.get("time_share")) for p in members],
                    "sizemode": "diameter",
                    "symbol": ["diamond" if p.finding else "circle" for p in members],
                    "line": {
                        "color": _NEUTRAL,
                        "width": [3.0 if p.finding else 0.5 for p in members],
                    },
                    "opacity": 0.85,
                },
                "showlegend": True,
            }
        )

    # --- theory ---------------------------------------------------------------
    annotations: list[dict[str, Any]] = []
    theory_trace: int | None = None
    if theory_points:
        theory_trace = len(data)
        data.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": "theory (minimal bytes)",
                "legendgroup": "kernel groups",
                "legendgrouptitle": {"text": "kernel groups"},
                "x": [float(p.record["theory_ai"]) for p in theory_points],
                "y": [p.y for p in theory_points],
                "customdata": [_theory_customdata(p) for p in theory_points],
                "hovertemplate": (
                    "<b>%{customdata[0]}</b> (theory)<br>"
                    "minimal-bytes intensity %{customdata[1]} FLOP/B<br>"
                    "%{customdata[2]}<br>theory: %{customdata[3]}<extra></extra>"
                ),
                "marker": {
                    "symbol": "circle-open",
                    "size": 10,
                    "color": _NEUTRAL,
                    "line": {"width": 2, "color": _NEUTRAL},
                },
                "showlegend": True,
            }
        )
        for p in theory_points:
            theory_ai = float(p.record["theory_ai"])
            if abs(math.log10(p.x / theory_ai)) <= MIN_ARROW_DECADES:
                continue
            # On log axes plotly places annotations in log10 units, and with
            # axref/ayref set to the axes the tail (ax, ay) is in those units too.
            annotations.append(
                {
                    "x": math.log10(p.x),
                    "y": math.log10(p.y),
                    "ax": math.log10(theory_ai),
                    "ay": math.log10(p.y),
                    "xref": "x",
                    "yref": "y",
                    "axref": "x",
                    "ayref": "y",
                    "text": "",
                    "showarrow": True,
                    "arrowhead": 2,
                    "arrowsize": 1,
                    "arrowwidth": 1.5,
                    "arrowcolor": _NEUTRAL,
                    "standoff": 4,
                    "hovertext": escape_markup(
                        f"{p.record.get('kernel_short') or p.record.get('kernel') or ''}: "
                        f"theory {TEXT.fixed(theory_ai)} → measured {TEXT.fixed(p.x)} FLOP/B"
                    ),
                    "visible": True,
                }
            )

    # --- every launch -------------------------------------------------------------
    launch_trace: int | None = None
    n_launch = len(lx)
    if n_launch:
        launch_trace = len(data)
        name = f"every launch ({launches['total']:,})"
        if launches["total"] > n_launch:
            name = f"every launch ({n_launch:,} of {launches['total']:,} shown, evenly subsampled)"
        data.append(
            {
                "type": "scattergl",
                "mode": "markers",
                "name": name,
                "legendgroup": "launches",
                "legendgrouptitle": {"text": "launches"},
                "visible": "legendonly",
                "x": lx.tolist(),
                "y": ly.tolist(),
                "customdata": launches["customdata"],
                "hovertemplate": (
                    "<b>%{customdata[0]}</b><br>launch id %{customdata[1]}<br>"
                    "intensity %{x:.3g} FLOP/B<br>achieved %{y:.3s}FLOP/s<br>"
                    "%{customdata[2]}-bound<extra></extra>"
                ),
                "marker": {"size": 4, "color": launches["colours"], "opacity": 0.6},
                "showlegend": True,
            }
        )

    layout: dict[str, Any] = {
        "title": {"text": escape_markup(_device_title(device))},
        "xaxis": _axis("Arithmetic intensity at DRAM (FLOP/byte)", x_lo, x_hi),
        "yaxis": {**_axis("Performance (FLOP/s)", y_lo, y_hi), **_decade_ticks(y_lo, y_hi)},
        "hovermode": "closest",
        "showlegend": True,
        "legend": {
            "orientation": "v",
            "x": 1.02,
            "xanchor": "left",
            "y": 1.0,
            "yanchor": "top",
            "bgcolor": _TRANSPARENT,
            # An item click toggles one level or precision; a click on the
            # group title toggles the whole group.
            "groupclick": "toggleitem",
        },
        "paper_bgcolor": _TRANSPARENT,
        "plot_bgcolor": _TRANSPARENT,
        "margin": {"l": 70, "r": 20, "t": 80, "b": 60},
        "annotations": annotations,
        "uirevision": _UIREVISION,
        "meta": {
            "device_index": index,
            "groups_plotted": len(points),
            "groups_not_plotted": len(not_plotted),
            "launches_plotted": n_launch,
            "launches_placeable": launches["total"],
            "theory_points": len(theory_points),
        },
    }
    if launch_trace is not None:
        layout["updatemenus"] = [
            _view_menu(
                len(data),
                n_ceiling_traces,
                group_traces,
                theory_trace,
                launch_trace,
                len(annotations),
            )
        ]
    return {
        "id": f"roofline-{index}",
        "title": _device_title(device),
        "figure": {"data": data, "layout": layout},
        "groups_plotted": len(points),
        "launches_plotted": n_launch,
        "not_plotted": not_plotted,
    }


def _theory_customdata(p: _GroupPoint) -> list[str]:
    k = p.record
    excess = k.get("byte_excess")
    excess_text = (
        f"DRAM bytes {excess:.2f}x the theoretical minimum"
        if isinstance(excess, (int, float)) and math.isfinite(excess)
        else "byte excess n/a"
    )
    return [
        escape_markup(k.get("kernel_short") or k.get("kernel") or ""),
        TEXT.fixed(float(k["theory_ai"])),
        excess_text,
        _wrapped(str(k.get("theory_source") or "unknown")),
    ]


def _decade_ticks(lo: float, hi: float) -> dict[str, Any]:
    """One labelled tick per decade with SI prefixes (plotly stops at T)."""
    decades = list(range(math.ceil(lo), math.floor(hi) + 1))
    if not decades:
        return {}
    text = [TEXT.si(10.0**e, "").replace(" ", "") for e in decades]
    return {"tickmode": "array", "tickvals": [10.0**e for e in decades], "ticktext": text}


def _axis(title: str, lo: float, hi: float) -> dict[str, Any]:
    return {
        "title": {"text": title},
        "type": "log",
        "range": [lo, hi],
        "autorange": False,
        "exponentformat": "SI",
        "showgrid": True,
        "gridcolor": _GRID,
        "zeroline": False,
        "linecolor": _NEUTRAL,
        "ticks": "outside",
        "tickcolor": _NEUTRAL,
    }


def _view_menu(
    n_traces: int,
    n_ceilings: int,
    group_traces: list[int],
    theory_trace: int | None,
    launch_trace: int,
    n_annotations: int,
) -> dict[str, Any]:
    """Buttons switching between the kernel-group view and the every-launch view.

    Ceilings stay visible in both.  Hidden traces are ``"legendonly"`` rather
    than ``False`` so the legend can still bring them back one by one.
    """
    groups_view: list[bool | str] = [True] * n_traces
    launch_view: list[bool | str] = [True] * n_traces
    for i in [*group_traces, *([] if theory_trace is None else [theory_trace])]:
        launch_view[i] = "legendonly"
    groups_view[launch_trace] = "legendonly"
    # Theory arrows belong to the group view: they point at group markers.
    arrows_on = {f"annotations[{i}].visible": True for i in range(n_annotations)}
    arrows_off = {f"annotations[{i}].visible": False for i in range(n_annotations)}
    return {
        "type": "buttons",
        "direction": "right",
        "showactive": True,
        "active": 0,
        "x": 0.0,
        "xanchor": "left",
        "y": 1.02,
        "yanchor": "bottom",
        "pad": {"l": 0, "t": 0, "r": 4, "b": 4},
        # plotly.js paints the active button near-white whatever the layout
        # says, so the buttons get light chips and dark text of their own to
        # stay readable on dark pages too.
        "bgcolor": "#E6E6E6",
        "bordercolor": "#999999",
        "font": {"color": "#222222"},
        "buttons": [
            {
                "label": "Kernel groups",
                "method": "update",
                "args": [{"visible": groups_view}, arrows_on],
            },
            {
                "label": "Every launch",
                "method": "update",
                "args": [{"visible": launch_view}, arrows_off],
            },
        ],
    }


def _launch_points(
    launches: Sequence[dict[str, Any]],
    rows: npt.NDArray[np.intp],
    ai: FloatArray,
    rate: FloatArray,
    max_points: int,
) -> dict[str, Any]:
    """The launch view of one device: coordinates, hover data and colours.

    Per-launch work is numpy indexing; strings are formatted and escaped once
    per distinct kernel name and bound class.
    """
    x = ai[rows]
    y = rate[rows]
    keep = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    rows = rows[keep]
    total = len(rows)
    if total > max_points:
        pick = np.unique(np.linspace(0, total - 1, num=max_points).round().astype(np.intp))
        rows = rows[pick]
    names: dict[str, int] = {}
    bounds: dict[str, int] = {}
    name_codes = np.fromiter(
        (
            names.setdefault(
                str(launches[i].get("kernel_short") or launches[i].get("kernel") or ""), len(names)
            )
            for i in rows.tolist()
        ),
        dtype=np.intp,
        count=len(rows),
    )
    bound_codes = np.fromiter(
        (bounds.setdefault(str(launches[i].get("bound")), len(bounds)) for i in rows.tolist()),
        dtype=np.intp,
        count=len(rows),
    )
    escaped_names = np.array([escape_markup(n) for n in names], dtype=object)
    escaped_bounds = np.array([escape_markup(b) for b in bounds], dtype=object)
    colours = np.array([BOUND_COLOURS.get(b, _NEUTRAL) for b in bounds], dtype=object)
    ids = [launches[i].get("id") for i in rows.tolist()]
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


def roofline_figures(
    context: dict[str, Any], max_launch_points: int = 200_000
) -> list[dict[str, Any]]:
    """One roofline figure per device of the report context.

    A device gets a figure when it has at least one compute and one memory
    ceiling.  Each entry is ``{"id": "roofline-<i>"`` (``i`` the device's
    index in ``context["roofs"]``), ``"title"`` (plain text), ``"figure"``
    (plotly.js ``data`` and ``layout``), ``"groups_plotted"``,
    ``"launches_plotted"`` and ``"not_plotted"`` (``[{"kernel_short",
    "reason"}]``, plain text)``}``.

    At most ``max_launch_points`` launches per device go into the launch
    view, evenly spaced over the launches in report order.
    """
    if max_launch_points < 0:
        raise ValueError(f"max_launch_points must be >= 0, not {max_launch_points}")
    roofs: list[dict[str, Any]] = list(context.get("roofs") or [])
    kernels: list[dict[str, Any]] = list(context.get("kernels") or [])
    launch_records: list[dict[str, Any]] = list(context.get("launches") or [])
    finding_kinds = _finding_kinds(context.get("findings") or [])

    device_of = _DeviceIndex(roofs)
    kernel_device = [device_of(k) for k in kernels]
    launch_device = np.fromiter(
        (device_of(r) for r in launch_records), dtype=np.intp, count=len(launch_records)
    )
    ai = _column(launch_records, "ai_dram")
    rate = _column(launch_records, "achieved_flops_per_s")

    figures: list[dict[str, Any]] = []
    for index, device in enumerate(roofs):
        compute, memory = _ceilings(device)
        if not compute or not memory:
            continue
        groups = [k for k, d in zip(kernels, kernel_device, strict=True) if d == index]
        rows = np.flatnonzero(launch_device == index)
        launches = _launch_points(launch_records, rows, ai, rate, max_launch_points)
        figures.append(
            _device_figure(index, device, compute, memory, groups, launches, finding_kinds)
        )
    return figures
