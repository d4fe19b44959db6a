"""Comparison rooflines: where each kernel group was, where it is now, and which way it moved.

:func:`comparison_figures` draws, for every device of the candidate profile
that has ceilings, the candidate's roofline (ceilings and ridge points as in
:func:`ncu_roofline.render.charts.roofline_figures`), each kernel group's base
position as a hollow marker, its candidate position as a filled marker
coloured by status (red regression, green improvement, grey unchanged,
blue added), and an arrow from the base position to the candidate one.

Figures are plain plotly.js dicts (``{"data": [...], "layout": {...}}``)
with no NaN, and every profile-derived string passes through
:func:`~ncu_roofline.render.charts.escape_markup`, as in :mod:`ncu_roofline.render.charts`.
On log axes plotly places annotations in log10 units: an arrow's head
(``x``, ``y``) and tail (``ax``, ``ay``, with ``axref``/``ayref`` set to the
axes) are log10 of intensity and FLOP/s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from ncu_roofline.render.charts import (
    MIN_ARROW_DECADES,
    PLOTTED_BOUNDS,
    _DeviceIndex,
    _marker_size,
    _not_plotted_reason,
    _wrapped,
    escape_markup,
    roofline_figures,
)
from ncu_roofline.render.format import TEXT, unknown

__all__ = ["STATUS_COLOURS", "comparison_figures"]

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

_HOVER = (
    "<b>%{customdata[0]}</b> (%{customdata[1]})<br>"
    "%{customdata[2]}<br>"
    "%{customdata[3]}<br>"
    "total %{customdata[4]}<br>"
    "per launch %{customdata[5]}<br>"
    "launches %{customdata[6]}<br>"
    "intensity %{customdata[7]} FLOP/B at DRAM<br>"
    "achieved %{customdata[8]}<br>"
    "efficiency %{customdata[9]}<br>"
    "bound %{customdata[10]}"
    "%{customdata[11]}"
    "<extra></extra>"
)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _position(record: dict[str, Any], side: str) -> tuple[float, float] | None:
    """The (intensity, FLOP/s) of one side of a comparison row, if it has a point."""
    if record.get(f"{side}_groups") is None:
        return None
    point = {
        "bound": record.get(f"{side}_bound"),
        "ai_dram": record.get(f"{side}_ai_dram"),
        "achieved_flops_per_s": record.get(f"{side}_achieved_flops_per_s"),
    }
    x, y = _number(point["ai_dram"]), _number(point["achieved_flops_per_s"])
    if _not_plotted_reason(point) is not None or x is None or y is None:
        return None
    return x, y


def _why_not(record: dict[str, Any], side: str) -> str:
    point = {
        "bound": record.get(f"{side}_bound"),
        "ai_dram": record.get(f"{side}_ai_dram"),
        "achieved_flops_per_s": record.get(f"{side}_achieved_flops_per_s"),
    }
    return f"{side}: {_not_plotted_reason(point) or 'no point'}"


def _change(record: dict[str, Any], field: str, unit: str) -> str:
    """``base → candidate`` of a field, one side only for added/removed rows."""
    b = TEXT.si(record.get(f"base_{field}"), unit)
    c = TEXT.si(record.get(f"candidate_{field}"), unit)
    status = record.get("status")
    if status == "added":
        return f"{c} (new)"
    if status == "removed":
        return f"{b} (gone)"
    return f"{b} → {c}"


def _status_line(record: dict[str, Any]) -> str:
    status = str(record.get("status"))
    if status in ("added", "removed"):
        return f"{status}: {TEXT.signed(record.get('delta_s'), 's')} of kernel time"
    return (
        f"{status}: {TEXT.signed(record.get('delta_s'), 's')} total "
        f"({TEXT.pct(record.get('delta_pct'), sign=True)}), "
        f"{TEXT.signed(record.get('delta_duration_s'), 's')} per launch "
        f"({TEXT.pct(record.get('delta_duration_pct'), sign=True)})"
    )


def _efficiency(record: dict[str, Any]) -> str:
    base, cand = (
        TEXT.pct(record.get("base_efficiency")),
        TEXT.pct(record.get("candidate_efficiency")),
    )
    status = record.get("status")
    if status == "added":
        return cand
    if status == "removed":
        return base
    d = record.get("delta_efficiency")
    delta = "" if unknown(d) else f" ({TEXT.points(d)})"
    return f"{base} → {cand}{delta}"


def _bound(record: dict[str, Any]) -> str:
    b = escape_markup(record.get("base_bound") or "n/a")
    c = escape_markup(record.get("candidate_bound") or "n/a")
    status = record.get("status")
    if status == "added":
        return c
    if status == "removed":
        return b
    return f"{b} → {c}" + (" (changed)" if record.get("bound_changed") else "")


def _launches(record: dict[str, Any]) -> str:
    base, cand = (
        TEXT.count(record.get("base_launches")),
        TEXT.count(record.get("candidate_launches")),
    )
    status = record.get("status")
    if status == "added":
        return cand
    if status == "removed":
        return base
    return f"{base} → {cand}"


def _match_line(record: dict[str, Any]) -> str:
    if record.get("match") != "name only":
        return ""
    return "<br>matched by name only: launch configuration " + escape_markup(
        f"grid {record.get('base_grid')} block {record.get('base_block')} → "
        f"grid {record.get('candidate_grid')} block {record.get('candidate_block')}"
    )


def _customdata(record: dict[str, Any], side: str) -> list[str]:
    """Hover fields of one marker; the shared template is :data:`_HOVER`."""
    point = _position(record, side)
    full = str(record.get("kernel") or "")
    short = str(record.get("kernel_short") or full)
    return [
        escape_markup(short),
        side,
        _wrapped(full),
        escape_markup(_status_line(record)),
        escape_markup(_change(record, "total_duration_s", "s")),
        escape_markup(_change(record, "duration_s", "s")),
        escape_markup(_launches(record)),
        TEXT.missing if point is None else TEXT.fixed(point[0]),
        TEXT.missing if point is None else TEXT.si(point[1], "FLOP/s"),
        escape_markup(_efficiency(record)),
        _bound(record),
        _match_line(record),
    ]


def _markers(
    name: str,
    members: Sequence[tuple[dict[str, Any], tuple[float, float]]],
    side: str,
    symbol: str,
    colour: str,
    group: str,
) -> dict[str, Any]:
    filled = not symbol.endswith("-open")
    return {
        "type": "scatter",
        "mode": "markers",
        "name": f"{name} ({len(members):,})",
        "legendgroup": group,
        "legendgrouptitle": {"text": group},
        "x": [p[0] for _, p in members],
        "y": [p[1] for _, p in members],
        "customdata": [_customdata(r, side) for r, _ in members],
        "hovertemplate": _HOVER,
        "marker": {
            "symbol": symbol,
            "size": [_marker_size(r.get(f"{side}_time_share")) for r, _ in members],
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
    record: dict[str, Any], tail: tuple[float, float], head: tuple[float, float]
) -> dict[str, Any]:
    name = str(record.get("kernel_short") or record.get("kernel") or "")
    return {
        "x": math.log10(head[0]),
        "y": math.log10(head[1]),
        "ax": math.log10(tail[0]),
        "ay": math.log10(tail[1]),
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": "",
        "showarrow": True,
        "arrowhead": 2,
        "arrowsize": 1,
        "arrowwidth": 1.5,
        "arrowcolor": STATUS_COLOURS.get(str(record.get("status")), _BASE_COLOUR),
        "standoff": 4,
        "hovertext": escape_markup(f"{name}: {_status_line(record)}"),
        "visible": True,
    }


def _home(record: dict[str, Any], roofs: Sequence[dict[str, Any]], device_of: _DeviceIndex) -> int:
    """Index in the candidate's ``roofs`` of the device a row is drawn on.

    The candidate's device for matched and added rows; for removed rows a
    candidate device of the same name (and compute capability), else the
    first device.  -1 when the candidate has no devices.
    """
    if record.get("candidate_groups") is not None:
        return device_of(
            {
                "source": record.get("candidate_source"),
                "device_name": record.get("candidate_device_name"),
                "cc": record.get("candidate_cc"),
            }
        )
    name, cc = record.get("base_device_name"), record.get("base_cc")
    same_name = [i for i, r in enumerate(roofs) if r.get("device_name") == name]
    for i in same_name:
        if roofs[i].get("cc") == cc:
            return i
    if same_name:
        return same_name[0]
    return 0 if roofs else -1


def _input_names(context: dict[str, Any]) -> str:
    names = [
        PurePath(str(s.get("path"))).name for s in context.get("inputs") or [] if s.get("path")
    ]
    return ", ".join(names) or "base"


def comparison_figures(
    cmp_context: dict[str, Any],
    base_context: dict[str, Any],
    candidate_context: dict[str, Any],
) -> list[dict[str, Any]]:
    """One comparison roofline per device of the candidate profile that has ceilings.

    ``cmp_context`` is :func:`ncu_roofline.report.compare.comparison_context`;
    ``base_context`` and ``candidate_context`` are the
    :func:`~ncu_roofline.report.context.build_context` of the two analyses (the
    ceilings drawn are the candidate's).  Each entry has the shape of a
    :func:`~ncu_roofline.render.charts.roofline_figures` entry: ``{"id":
    "comparison-<i>", "title", "figure", "groups_plotted",
    "launches_plotted"`` (always 0: no launch view) ``, "not_plotted"}``.

    A matched group gets an arrow from its base to its candidate position
    when both have a point and it moved at least
    :data:`~ncu_roofline.render.charts.MIN_ARROW_DECADES` decades; a shorter arrow
    would be hidden under the marker.
    """
    roofs: list[dict[str, Any]] = list(candidate_context.get("roofs") or [])
    records: list[dict[str, Any]] = list(cmp_context.get("kernels") or [])
    # Devices that get a figure: those with a compute and a memory ceiling.
    drawn = [
        int(f["figure"]["layout"]["meta"]["device_index"])
        for f in roofline_figures({"roofs": roofs}, max_launch_points=0)
    ]
    device_of = _DeviceIndex(roofs)
    homes: list[int] = []
    for r in records:
        home = _home(r, roofs, device_of)
        if home not in drawn and r.get("status") == "removed" and drawn:
            home = drawn[0]
        homes.append(home)

    # The candidate's roofline with every position as a stand-in group, so
    # that the axes and ceilings span both sides.
    stand_ins: list[dict[str, Any]] = []
    for r, home in zip(records, homes, strict=True):
        if home not in drawn:
            continue
        device = roofs[home]
        for side in ("base", "candidate"):
            point = _position(r, side)
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
    frames = roofline_figures(
        {"roofs": roofs, "kernels": stand_ins, "launches": [], "findings": []},
        max_launch_points=0,
    )
    base_names = _input_names(base_context)
    # Rows whose device has no ceilings are listed under the first figure.
    orphans = [r for r, h in zip(records, homes, strict=True) if h not in drawn]

    figures: list[dict[str, Any]] = []
    for n, frame in enumerate(frames):
        layout = dict(frame["figure"]["layout"])
        index = int(layout["meta"]["device_index"])
        data = [t for t in frame["figure"]["data"] if t.get("legendgroup") in _CEILING_GROUPS]

        base_pts: list[tuple[dict[str, Any], tuple[float, float]]] = []
        removed_pts: list[tuple[dict[str, Any], tuple[float, float]]] = []
        cand_pts: dict[str, list[tuple[dict[str, Any], tuple[float, float]]]] = {
            s: [] for s in _CANDIDATE_STATUSES
        }
        annotations: list[dict[str, Any]] = []
        not_plotted: list[dict[str, Any]] = []
        plotted = 0
        mine = [r for r, h in zip(records, homes, strict=True) if h == index]
        mine_orphans = orphans if n == 0 else []
        for r in mine:
            status = str(r.get("status"))
            b = _position(r, "base")
            c = _position(r, "candidate")
            if b is not None:
                (removed_pts if status == "removed" else base_pts).append((r, b))
            if c is not None:
                cand_pts.setdefault(status, []).append((r, c))
            if b is None and c is None:
                side = "base" if status == "removed" else "candidate"
                not_plotted.append(
                    {
                        "kernel_short": r.get("kernel_short") or r.get("kernel"),
                        "reason": _why_not(r, side),
                    }
                )
                continue
            plotted += 1
            if b is not None and c is not None:
                moved = math.hypot(math.log10(c[0] / b[0]), math.log10(c[1] / b[1]))
                if moved >= MIN_ARROW_DECADES:
                    annotations.append(_arrow(r, b, c))
        not_plotted.extend(
            {
                "kernel_short": r.get("kernel_short") or r.get("kernel"),
                "reason": "its device has no compute and memory ceilings",
            }
            for r in mine_orphans
        )

        if base_pts:
            data.append(
                _markers("base position", base_pts, "base", "circle-open", _BASE_COLOUR, "base")
            )
        if removed_pts:
            data.append(
                _markers(
                    "removed", removed_pts, "base", "square-open", STATUS_COLOURS["removed"], "base"
                )
            )
        for status in _CANDIDATE_STATUSES:
            pts = cand_pts.get(status) or []
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

        device_title = str(frame["title"]).removeprefix("Roofline: ")
        title = f"Roofline comparison: {device_title} (base: {base_names})"
        layout["title"] = {"text": escape_markup(title)}
        layout["annotations"] = annotations
        layout.pop("updatemenus", None)
        layout["meta"] = {
            "device_index": index,
            "groups_plotted": plotted,
            "groups_not_plotted": len(not_plotted),
            "arrows": len(annotations),
            "base_points": len(base_pts) + len(removed_pts),
            "candidate_points": sum(len(v) for v in cand_pts.values()),
        }
        figures.append(
            {
                "id": f"comparison-{index}",
                "title": title,
                "figure": {"data": data, "layout": layout},
                "groups_plotted": plotted,
                "launches_plotted": 0,
                "not_plotted": not_plotted,
            }
        )
    return figures
