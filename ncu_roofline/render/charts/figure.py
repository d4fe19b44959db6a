"""One roofline figure per device: the pieces of the chart assembled in trace order.

Traces go in a fixed order: the ceilings (memory roofs, compute roofs,
ridge points), the memory-level view (drawn under the group markers), the
kernel groups by bound class, the theory markers, then the every-launch
view; the view menu toggles traces by that index.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from ncu_roofline.errors import UsageError
from ncu_roofline.render.charts.ceilings import Roofs, ceiling_traces, device_roofs
from ncu_roofline.render.charts.groups import group_traces, kinds_by_kernel, on_strip, place_groups
from ncu_roofline.render.charts.launches import (
    LaunchFields,
    LaunchPoints,
    launch_points,
    launch_trace,
)
from ncu_roofline.render.charts.layout import (
    MARGIN_DECADES,
    axis_ranges,
    device_layout,
    device_title,
    view_menu,
)
from ncu_roofline.render.charts.levels import level_points, level_trace
from ncu_roofline.render.charts.theory import theory_arrows, theory_trace
from ncu_roofline.render.charts.types import PlotlyJSON, RooflineChart
from ncu_roofline.render.charts.values import coded_field, column, field_values, finite_positive
from ncu_roofline.report.schema import ChartContext, DeviceRoofsRecord, KernelRecord, LaunchRecord

#: The chart's views, by the name a caller asks for, and the label of the
#: view menu's button that shows each (in the menu's order).
VIEWS: dict[str, str] = {
    "groups": "Kernel groups",
    "levels": "Memory levels",
    "launches": "Every launch",
}


class DeviceIndex:
    """Maps a kernel or launch record to the index of its device in ``roofs``.

    Devices are keyed by (source, device name) like the records; the
    compute capability only breaks ties, because a device's ``cc`` may have
    been filled in from the GPU table where the records have none.
    """

    def __init__(self, roofs: Sequence[DeviceRoofsRecord]) -> None:
        self._by_name: dict[tuple[Any, Any], list[int]] = {}
        self._cc = [r.get("cc") for r in roofs]
        for i, r in enumerate(roofs):
            self._by_name.setdefault((r.get("source"), r.get("device_name")), []).append(i)
        self._cache: dict[tuple[Any, Any, Any], int] = {}

    def __call__(self, record: KernelRecord) -> int:
        return self.lookup(record.get("source"), record.get("device_name"), record.get("cc"))

    def lookup(self, source: Any, device_name: Any, cc: Any) -> int:
        """The index for a record with these three fields; -1 when no device matches."""
        key = (source, device_name, cc)
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


def _views(
    data: list[PlotlyJSON], levels_index: int | None, launch_index: int | None
) -> list[tuple[str, list[bool | str], bool]]:
    """The chart's views: kernel groups, memory levels (with every memory roof), every launch."""
    base: list[bool | str] = [t.get("visible", True) for t in data]
    groups = list(base)
    views: list[tuple[str, list[bool | str], bool]] = [(VIEWS["groups"], groups, True)]
    if levels_index is not None:
        levels = list(base)
        levels[levels_index] = True
        for i, t in enumerate(data):
            # Each level's point reads against that level's roof.
            if t.get("legendgroup") == "memory roofs":
                levels[i] = True
        views.append((VIEWS["levels"], levels, True))
    if launch_index is not None:
        launch = list(base)
        for i, t in enumerate(data):
            if t.get("legendgroup") in ("kernel groups", "memory levels"):
                launch[i] = "legendonly"
        launch[launch_index] = True
        views.append((VIEWS["launches"], launch, False))
    return views


def _device_figure(
    index: int,
    device: DeviceRoofsRecord,
    roofs: Roofs,
    groups: list[KernelRecord],
    launches: LaunchPoints,
    kinds: dict[tuple[Any, str], list[str]],
) -> RooflineChart:
    points, not_plotted = place_groups(groups, kinds)
    # The arrows run from theory to a measured point; a theory-placed point is its theory.
    theory_points = [
        p
        for p in points
        if p.placement == "measured" and finite_positive(p.record.get("theory_ai"))
    ]
    placed = [p for p in points if p.placement != "bandwidth"]
    ranges = axis_ranges(
        roofs,
        [p.x for p in placed]
        + [float(p.record["theory_ai"]) for p in theory_points]
        + [ai for p in placed for _, ai in level_points(p)],
        [p.y for p in placed],
        launches["x"],
        launches["y"],
    )
    strip = on_strip(points, ranges.x_lo)
    if strip:
        # Kernels far under the DRAM roof on the strip stay on the chart.
        low = math.log10(min(strip)) - MARGIN_DECADES
        ranges = replace(ranges, y_lo=min(ranges.y_lo, low))
    used = {str(p.record["precision"]) for p in points if p.record.get("precision")}

    data = ceiling_traces(roofs, ranges.x_lo, ranges.x_hi, used if points else None)
    levels_index: int | None = None
    levels = level_trace(points)
    if levels is not None:
        # Under the group markers, which are the DRAM points of the view.
        levels_index = len(data)
        data.append(levels)
    data += group_traces(points, (ranges.x_hi - ranges.x_lo, ranges.y_hi - ranges.y_lo))
    annotations: list[PlotlyJSON] = []
    if theory_points:
        data.append(theory_trace(theory_points))
        annotations = theory_arrows(theory_points)
    launch_index: int | None = None
    n_launch = len(launches["x"])
    if n_launch:
        launch_index = len(data)
        data.append(launch_trace(launches))

    meta = {
        "device_index": index,
        "groups_plotted": len(points),
        "groups_not_plotted": len(not_plotted),
        "launches_plotted": n_launch,
        "launches_placeable": launches["total"],
        "theory_points": len(theory_points),
    }
    layout = device_layout(device, ranges, annotations, meta)
    views = _views(data, levels_index, launch_index)
    if len(views) > 1:
        layout["updatemenus"] = [view_menu(views, len(annotations))]
    return {
        "id": f"roofline-{index}",
        "title": device_title(device),
        "figure": {"data": data, "layout": layout},
        "groups_plotted": len(points),
        "launches_plotted": n_launch,
        "not_plotted": not_plotted,
    }


def roofline_figures(
    context: ChartContext, max_launch_points: int = 200_000
) -> list[RooflineChart]:
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
    devices = list(context.get("roofs") or [])
    kernels = list(context.get("kernels") or [])
    # Read field by field: the launches may be lazy records, and a dict per
    # launch for a 400,000-launch report is gigabytes.
    launch_records: Sequence[LaunchRecord] = context.get("launches") or []
    kinds = kinds_by_kernel(context.get("findings") or [])

    device_of = DeviceIndex(devices)
    kernel_device = [device_of(k) for k in kernels]
    charted = [(i, d, r) for i, d in enumerate(devices) if (r := device_roofs(d)) is not None]
    if not charted:
        return []  # no device has roofs: no launch is read
    launch_device = _launch_devices(launch_records, device_of)
    ai = column(launch_records, "ai_dram")
    rate = column(launch_records, "achieved_flops_per_s")

    @cache
    def fields() -> LaunchFields:
        # Read only where a launch has a point: an export without FLOP counts has none.
        return LaunchFields(
            *(field_values(launch_records, f) for f in ("kernel_short", "kernel", "bound", "id"))
        )

    figures: list[RooflineChart] = []
    for index, device, roofs in charted:
        groups = [k for k, d in zip(kernels, kernel_device, strict=True) if d == index]
        rows = np.flatnonzero(launch_device == index)
        launches = launch_points(fields, rows, ai, rate, max_launch_points)
        figures.append(_device_figure(index, device, roofs, groups, launches, kinds))
    return figures


def _launch_devices(
    launch_records: Sequence[LaunchRecord], device_of: DeviceIndex
) -> npt.NDArray[np.intp]:
    """Each launch's device index (-1: none), looked up once per distinct (source,
    device, CC) found over the fields' codes, then mapped in C."""
    coded = [coded_field(launch_records, f) for f in ("source", "device_name", "cc")]
    key = np.zeros(len(launch_records), dtype=np.int64)
    bound = 1
    for codes, distinct in coded:
        # A mixed-radix number of the codes (missing, -1, is digit 0),
        # renumbered densely before it could pass int64.
        if bound * (len(distinct) + 1) >= 1 << 62:
            _, dense = np.unique(key, return_inverse=True)
            key = dense.reshape(-1).astype(np.int64)
            bound = int(key.max(initial=0)) + 1
        key = key * (len(distinct) + 1) + (codes + 1)
        bound *= len(distinct) + 1
    keys, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    found = np.empty(len(keys), dtype=np.intp)
    # In order of first appearance, as the launches would be looked up one by one.
    for k in np.argsort(first, kind="stable").tolist():
        row = int(first[k])
        values = [distinct[c] if (c := int(codes[row])) >= 0 else None for codes, distinct in coded]
        found[k] = device_of.lookup(*values)
    out: npt.NDArray[np.intp] = found[inverse.reshape(-1)]
    return out


def check_view(view: str) -> None:
    """Refuse a view name that is not one of :data:`VIEWS`, naming those that are."""
    if view not in VIEWS:
        raise UsageError(f"unknown view {view!r}; expected one of {', '.join(VIEWS)}")


def figure_views(figure: Mapping[str, Any]) -> list[str]:
    """The views a figure of :func:`roofline_figures` offers, by name, in its menu's order.

    A chart with nothing but kernel groups to show has no menu: its one view
    is ``"groups"``.
    """
    menus = figure["layout"].get("updatemenus") or []
    if not menus:
        return ["groups"]
    by_label = {label: name for name, label in VIEWS.items()}
    return [by_label[b["label"]] for b in menus[0]["buttons"]]


def show_view(figure: Mapping[str, Any], view: str) -> PlotlyJSON:
    """A copy of ``figure`` as its view menu's ``view`` button shows it.

    The button's own arguments (which traces are visible, whether the theory
    arrows are) are applied, and the menu marks that button active, so the
    figure is what a reader of the page sees after the click.  An unknown
    view, or one this chart lacks, is a :class:`~ncu_roofline.errors.UsageError`
    naming those it has.
    """
    check_view(view)
    views = figure_views(figure)
    if view not in views:
        raise UsageError(
            f"this chart has no {view!r} view (nothing to draw in it); it has: {', '.join(views)}"
        )
    data = [dict(trace) for trace in figure["data"]]
    layout = dict(figure["layout"])
    menus = layout.get("updatemenus") or []
    if not menus:
        return {"data": data, "layout": layout}
    index = views.index(view)
    menu = {**menus[0], "active": index}
    traces, arrows = menu["buttons"][index]["args"]
    for trace, visible in zip(data, traces["visible"], strict=True):
        trace["visible"] = visible
    annotations = [dict(a) for a in layout.get("annotations") or []]
    for key, visible in arrows.items():
        # The button's keys are plotly.js paths: "annotations[<i>].visible".
        annotations[int(key[key.index("[") + 1 : key.index("]")])]["visible"] = visible
    layout.update(annotations=annotations, updatemenus=[menu, *menus[1:]])
    return {"data": data, "layout": layout}
