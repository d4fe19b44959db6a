"""Comparison rooflines: where each kernel group was, where it is now, and which way it moved.

:func:`comparison_figures` draws, for every device of the candidate profile
that has ceilings, the candidate's roofline (ceilings and ridge points as in
:func:`~ncu_roofline.render.charts.roofline_figures`) with the base's roofs
dashed, each kernel group's base
position as a hollow marker, its candidate position as a filled marker
coloured by status (red regression, green improvement, grey unchanged,
blue added), and an arrow from the base position to the candidate one.

Figures are plain plotly.js dicts (``{"data": [...], "layout": {...}}``)
with no NaN, and every profile-derived string passes through
:func:`~ncu_roofline.render.charts.style.escape_markup`, as in the report's charts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TypedDict, cast

from ncu_roofline.render.charts.ceilings import device_roofs
from ncu_roofline.render.charts.compare_rows import (
    HOVER,
    customdata,
    position,
    status_line,
    why_not,
)
from ncu_roofline.render.charts.figure import DeviceIndex, roofline_figures
from ncu_roofline.render.charts.groups import PLOTTED_BOUNDS
from ncu_roofline.render.charts.style import MIN_ARROW_DECADES, arrow, escape_markup, marker_size
from ncu_roofline.render.charts.types import NotPlotted, PlotlyJSON, RooflineChart
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import (
    ChartContext,
    ComparisonContext,
    ComparisonRecord,
    DeviceRoofsRecord,
    KernelRecord,
    ReportContext,
)

#: Colour of the candidate marker and arrow of each status.  Okabe-Ito
#: vermillion and bluish green; the marker symbols differ too (triangle up /
#: down), so the two stay apart without colour.
STATUS_COLOURS: dict[str, str] = {
    "regression": "#D55E00",
    "improvement": "#009E73",
    "unchanged": "#999999",
    "not comparable": "#999999",
    "added": "#0072B2",
    "removed": "#555555",
}

_SYMBOLS: dict[str, str] = {
    "regression": "triangle-up",
    "improvement": "triangle-down",
    "unchanged": "circle",
    "not comparable": "circle-dot",
    "added": "star",
}

#: Candidate traces, in legend order.
_CANDIDATE_STATUSES: tuple[str, ...] = (
    "regression",
    "improvement",
    "unchanged",
    "not comparable",
    "added",
)

_BASE_COLOUR = "rgba(110,110,110,0.9)"
_CEILING_GROUPS = ("memory roofs", "compute roofs")


#: A row and one of its positions.
_Point = tuple[ComparisonRecord, tuple[float, float]]


def _markers(
    name: str,
    members: Sequence[tuple[ComparisonRecord, tuple[float, float]]],
    side: str,
    symbol: str,
    colour: str,
    group: str,
) -> PlotlyJSON:
    filled = not symbol.endswith("-open")
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} ({TEXT.count(len(members))})",
        "legendgroup": group,
        "legendgrouptitle": {"text": group},
        "x": [p[0] for _, p in members],
        "y": [p[1] for _, p in members],
        "customdata": [customdata(r, side) for r, _ in members],
        "hovertemplate": HOVER,
        "marker": {
            "symbol": symbol,
            "size": [marker_size(r.get(f"{side}_time_share")) for r, _ in members],
            "sizemode": "diameter",
            "color": colour,
            "line": {
                "color": colour if not filled else _BASE_COLOUR,
                "width": 2 if not filled else 0.5,
            },
            "opacity": 0.9 if filled else 1.0,
        },
        "showlegend": True,
    }


def _arrow(
    record: ComparisonRecord, tail: tuple[float, float], head: tuple[float, float]
) -> PlotlyJSON:
    name = str(record.get("kernel_short") or record.get("kernel") or "")
    colour = STATUS_COLOURS.get(str(record.get("status")), _BASE_COLOUR)
    return arrow(tail, head, colour, escape_markup(f"{name}: {status_line(record)}"))


@dataclass
class _Placed:
    """The rows of one figure sorted into marker traces, arrows and rows without a point."""

    base: list[_Point] = field(default_factory=list)
    removed: list[_Point] = field(default_factory=list)
    candidate: dict[str, list[_Point]] = field(
        default_factory=lambda: {s: [] for s in _CANDIDATE_STATUSES}
    )
    arrows: list[PlotlyJSON] = field(default_factory=list)
    not_plotted: list[NotPlotted] = field(default_factory=list)
    plotted: int = 0

    def add(self, r: ComparisonRecord) -> None:
        """Place one row: its markers, its arrow when it moved far enough to see."""
        status = str(r.get("status"))
        b = position(r, "base")
        c = position(r, "candidate")
        if b is not None:
            (self.removed if status == "removed" else self.base).append((r, b))
        if c is not None:
            self.candidate.setdefault(status, []).append((r, c))
        if b is None and c is None:
            side = "base" if status == "removed" else "candidate"
            self.not_plotted.append(
                {
                    "kernel_short": r.get("kernel_short") or r.get("kernel"),
                    "reason": why_not(r, side),
                }
            )
            return
        self.plotted += 1
        if b is not None and c is not None:
            moved = math.hypot(math.log10(c[0] / b[0]), math.log10(c[1] / b[1]))
            if moved >= MIN_ARROW_DECADES:
                self.arrows.append(_arrow(r, b, c))

    def traces(self) -> list[PlotlyJSON]:
        """Base positions, removed groups, then the candidate positions by status."""
        data = []
        if self.base:
            data.append(
                _markers("base position", self.base, "base", "circle-open", _BASE_COLOUR, "base")
            )
        if self.removed:
            data.append(
                _markers(
                    "removed",
                    self.removed,
                    "base",
                    "square-open",
                    STATUS_COLOURS["removed"],
                    "base",
                )
            )
        for status in _CANDIDATE_STATUSES:
            pts = self.candidate.get(status) or []
            if pts:
                data.append(
                    _markers(
                        status,
                        pts,
                        "candidate",
                        _SYMBOLS[status],
                        STATUS_COLOURS[status],
                        "candidate",
                    )
                )
        return data


def _home(
    record: ComparisonRecord, roofs: Sequence[DeviceRoofsRecord], device_of: DeviceIndex
) -> int:
    """Index in the candidate's ``roofs`` of the device a row is drawn on.

    The candidate's device for matched and added rows; for removed rows a
    candidate device of the same name (and compute capability), else the
    first device.  -1 when the candidate has no devices.
    """
    if record.get("candidate_groups") is not None:
        return device_of.lookup(
            record.get("candidate_source"),
            record.get("candidate_device_name"),
            record.get("candidate_cc"),
        )
    name, cc = record.get("base_device_name"), record.get("base_cc")
    same_name = [i for i, r in enumerate(roofs) if r.get("device_name") == name]
    for i in same_name:
        if roofs[i].get("cc") == cc:
            return i
    if same_name:
        return same_name[0]
    return 0 if roofs else -1


def _homes(
    records: list[ComparisonRecord], devices: list[DeviceRoofsRecord], drawn: list[int]
) -> list[int]:
    """The device each row is drawn on; removed rows of a device without a figure go to the first."""
    device_of = DeviceIndex(devices)
    homes: list[int] = []
    for r in records:
        home = _home(r, devices, device_of)
        if home not in drawn and r.get("status") == "removed" and drawn:
            home = drawn[0]
        homes.append(home)
    return homes


def _stand_ins(
    records: list[ComparisonRecord],
    homes: list[int],
    devices: list[DeviceRoofsRecord],
    drawn: list[int],
) -> ChartContext:
    """A chart context of the candidate's roofs with every position as a stand-in group.

    Its roofline figures have axes and ceilings that span both sides.  A
    stand-in has only the fields that place a point (a partial kernel record).
    """
    stand_ins: list[_StandIn] = []
    for r, home in zip(records, homes, strict=True):
        if home not in drawn:
            continue
        device = devices[home]
        for side in ("base", "candidate"):
            point = position(r, side)
            if point is not None:
                stand_ins.append(
                    {
                        "source": device.get("source"),
                        "device_name": device.get("device_name"),
                        "cc": device.get("cc"),
                        "kernel": "",
                        "ai_dram": point[0],
                        "achieved_flops_per_s": point[1],
                        "bound": PLOTTED_BOUNDS[0],
                    }
                )
    kernels = cast("list[KernelRecord]", stand_ins)
    return {"roofs": devices, "kernels": kernels, "launches": [], "findings": []}


class _StandIn(TypedDict):
    """A position of a comparison row as a kernel group: only the fields that place a point."""

    source: str | None
    device_name: str | None
    cc: str | None
    kernel: str
    ai_dram: float
    achieved_flops_per_s: float
    bound: str


def _input_names(context: ReportContext) -> str:
    names = [
        PurePath(str(s.get("path"))).name for s in context.get("inputs") or [] if s.get("path")
    ]
    return ", ".join(names) or "base"


def _gpu_label(device: DeviceRoofsRecord) -> str:
    gpu = device.get("gpu")
    name = device.get("device_name") or (gpu.get("name") if gpu else None)
    if name:
        return str(name)
    return f"CC {device['cc']}" if device.get("cc") else "unknown GPU"


def _side_ceilings(traces: list[PlotlyJSON], side: str, gpu: str) -> list[PlotlyJSON]:
    """Ceiling traces named after their side and GPU; the base's dashed."""
    out = []
    for t in traces:
        t = dict(t)
        t["name"] = f"{side}: {t.get('name')}"
        t["legendgroup"] = f"{side} {t.get('legendgroup')}"
        t["legendgrouptitle"] = {"text": escape_markup(f"{side} roofs ({gpu})")}
        if side == "base":
            t["line"] = {**(t.get("line") or {}), "dash": "dash"}
            if "marker" in t:
                t["marker"] = {**t["marker"], "opacity": 0.6}
        out.append(t)
    return out


def _base_ceilings(
    base_context: ReportContext, records: list[ComparisonRecord], near: DeviceRoofsRecord
) -> list[PlotlyJSON]:
    """The base's ceilings for a device drawn from the candidate: the same-named base device, else its first.

    Drawn with the positions of ``records`` so the frame spans the same groups.
    """
    devices = list(base_context.get("roofs") or [])
    devices = [d for d in devices if device_roofs(d) is not None]
    if not devices:
        return []
    same = [d for d in devices if d.get("device_name") == near.get("device_name")]
    device = (same or devices)[0]
    frames = roofline_figures(
        _stand_ins(records, [0] * len(records), [device], [0]), max_launch_points=0
    )
    if not frames:
        return []
    ceilings = [t for t in frames[0]["figure"]["data"] if t.get("legendgroup") in _CEILING_GROUPS]
    return _side_ceilings(ceilings, "base", _gpu_label(device))


def _comparison_figure(
    frame: RooflineChart,
    records: list[ComparisonRecord],
    orphans: list[ComparisonRecord],
    base: tuple[str, list[PlotlyJSON]],
    device: DeviceRoofsRecord,
) -> RooflineChart:
    """One device's comparison: both sides' ceilings with the rows drawn on that device."""
    base_names, base_ceilings = base
    layout = dict(frame["figure"]["layout"])
    index = int(layout["meta"]["device_index"])
    data = _side_ceilings(
        [t for t in frame["figure"]["data"] if t.get("legendgroup") in _CEILING_GROUPS],
        "candidate",
        _gpu_label(device),
    )
    data += base_ceilings
    placed = _Placed()
    for r in records:
        placed.add(r)
    not_plotted = placed.not_plotted + [
        {
            "kernel_short": r.get("kernel_short") or r.get("kernel"),
            "reason": "its device has no compute and memory ceilings",
        }
        for r in orphans
    ]
    data += placed.traces()

    device_title = str(frame["title"]).removeprefix("Roofline: ")
    title = f"Roofline comparison: {device_title} (base: {base_names})"
    layout["title"] = {"text": escape_markup(title)}
    layout["annotations"] = placed.arrows
    layout.pop("updatemenus", None)
    layout["meta"] = {
        "device_index": index,
        "groups_plotted": placed.plotted,
        "groups_not_plotted": len(not_plotted),
        "arrows": len(placed.arrows),
        "base_points": len(placed.base) + len(placed.removed),
        "base_ceilings": len(base_ceilings),
        "candidate_points": sum(len(v) for v in placed.candidate.values()),
    }
    return {
        "id": f"comparison-{index}",
        "title": title,
        "figure": {"data": data, "layout": layout},
        "groups_plotted": placed.plotted,
        "launches_plotted": 0,
        "not_plotted": not_plotted,
    }


def comparison_figures(
    cmp_context: ComparisonContext,
    base_context: ReportContext,
    candidate_context: ReportContext,
) -> list[RooflineChart]:
    """One comparison roofline per device of the candidate profile that has ceilings.

    ``cmp_context`` is :func:`ncu_roofline.report.compare.comparison_context`;
    ``base_context`` and ``candidate_context`` are the
    :func:`~ncu_roofline.report.context.build_context` of the two analyses.
    Both sides' ceilings are drawn, each named with its side and GPU: the
    candidate's solid, the base's (its device of the same name, else its
    first) dashed.  Each entry has the shape of a
    :func:`~ncu_roofline.render.charts.roofline_figures` entry: ``{"id":
    "comparison-<i>", "title", "figure", "groups_plotted",
    "launches_plotted"`` (always 0: no launch view) ``, "not_plotted"}``.

    A matched group gets an arrow from its base to its candidate position
    when both have a point and it moved at least
    :data:`~ncu_roofline.render.charts.MIN_ARROW_DECADES` decades; a shorter arrow
    would be hidden under the marker.
    """
    devices = list(candidate_context["roofs"])
    records: list[ComparisonRecord] = list(cmp_context.get("kernels") or [])
    # Devices that get a figure: those with a compute and a memory ceiling.
    drawn = [i for i, d in enumerate(devices) if device_roofs(d) is not None]
    homes = _homes(records, devices, drawn)
    frames = roofline_figures(_stand_ins(records, homes, devices, drawn), max_launch_points=0)
    base_names = _input_names(base_context)
    # Rows whose device has no ceilings are listed under the first figure.
    orphans = [r for r, h in zip(records, homes, strict=True) if h not in drawn]
    figures = []
    for n, frame in enumerate(frames):
        index = int(frame["figure"]["layout"]["meta"]["device_index"])
        mine = [r for r, h in zip(records, homes, strict=True) if h == index]
        base = (base_names, _base_ceilings(base_context, mine, devices[index]))
        figures.append(
            _comparison_figure(frame, mine, orphans if n == 0 else [], base, devices[index])
        )
    return figures
