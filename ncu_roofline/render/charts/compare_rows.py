"""One row of a comparison on the chart: its two positions and its hover text.

A comparison row holds both sides of a kernel group (``base_*`` and
``candidate_*`` fields).  Each side with a point becomes a marker; rows
only one side has (``added``, ``removed``) show that side alone in the hover
text, matched rows show ``base → candidate``.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.render.charts.groups import not_plotted_reason
from ncu_roofline.render.charts.style import escape_markup, wrapped
from ncu_roofline.render.charts.values import finite
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import ComparisonRecord

#: The hover template of every comparison marker; the fields are :func:`customdata`.
HOVER = (
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


class _SidePoint(TypedDict):
    """One side's bound class and point: the kernel-group fields :func:`not_plotted_reason` reads."""

    bound: str | None
    ai_dram: float | None
    achieved_flops_per_s: float | None


def _side(record: ComparisonRecord, side: str) -> _SidePoint:
    """One side of a row as the kernel-group fields :func:`not_plotted_reason` reads."""
    if side == "base":
        return {
            "bound": record.get("base_bound"),
            "ai_dram": record.get("base_ai_dram"),
            "achieved_flops_per_s": record.get("base_achieved_flops_per_s"),
        }
    if side == "candidate":
        return {
            "bound": record.get("candidate_bound"),
            "ai_dram": record.get("candidate_ai_dram"),
            "achieved_flops_per_s": record.get("candidate_achieved_flops_per_s"),
        }
    return {"bound": None, "ai_dram": None, "achieved_flops_per_s": None}


def position(record: ComparisonRecord, side: str) -> tuple[float, float] | None:
    """The (intensity, FLOP/s) of one side of a comparison row, if it has a point."""
    if record.get(f"{side}_groups") is None:
        return None
    point = _side(record, side)
    x, y = finite(point["ai_dram"]), finite(point["achieved_flops_per_s"])
    if not_plotted_reason(point) is not None or x is None or y is None:
        return None
    return x, y


def why_not(record: ComparisonRecord, side: str) -> str:
    """Why one side of a row has no point, plain text."""
    return f"{side}: {not_plotted_reason(_side(record, side)) or 'no point'}"


def status_line(record: ComparisonRecord) -> str:
    """The row's status and how its time changed, plain text."""
    status = str(record.get("status"))
    if status in ("added", "removed"):
        return f"{status}: {TEXT.signed(record.get('delta_s'), 's')} of kernel time"
    return (
        f"{status}: {TEXT.signed(record.get('delta_s'), 's')} total "
        f"({TEXT.pct(record.get('delta_pct'), sign=True)}), "
        f"{TEXT.signed(record.get('delta_duration_s'), 's')} per launch "
        f"({TEXT.pct(record.get('delta_duration_pct'), sign=True)})"
    )


def _both(
    record: ComparisonRecord,
    base: str,
    cand: str,
    *,
    new: str = "",
    gone: str = "",
    moved: str = "",
) -> str:
    """``base → candidate``, or the one side an added or removed row has."""
    status = record.get("status")
    if status == "added":
        return cand + new
    if status == "removed":
        return base + gone
    return f"{base} → {cand}{moved}"


def _change(record: ComparisonRecord, field: str, unit: str) -> str:
    b = TEXT.si(record.get(f"base_{field}"), unit)
    c = TEXT.si(record.get(f"candidate_{field}"), unit)
    return _both(record, b, c, new=" (new)", gone=" (gone)")


def _efficiency(record: ComparisonRecord) -> str:
    d = record.get("delta_efficiency")
    return _both(
        record,
        TEXT.pct(record.get("base_efficiency")),
        TEXT.pct(record.get("candidate_efficiency")),
        moved="" if finite(d) is None else f" ({TEXT.points(d)})",
    )


def _bound(record: ComparisonRecord) -> str:
    return _both(
        record,
        escape_markup(record.get("base_bound") or "n/a"),
        escape_markup(record.get("candidate_bound") or "n/a"),
        moved=" (changed)" if record.get("bound_changed") else "",
    )


def _launches(record: ComparisonRecord) -> str:
    return _both(
        record,
        TEXT.count(record.get("base_launches")),
        TEXT.count(record.get("candidate_launches")),
    )


def _match_line(record: ComparisonRecord) -> str:
    if record.get("match") == "implementation":
        return "<br>implementation changed: names differ only in template arguments"
    if record.get("match") != "name only":
        return ""
    return "<br>matched by name only: launch configuration " + escape_markup(
        f"grid {record.get('base_grid')} block {record.get('base_block')} → "
        f"grid {record.get('candidate_grid')} block {record.get('candidate_block')}"
    )


def customdata(record: ComparisonRecord, side: str) -> list[str]:
    """Hover fields of one marker; the shared template is :data:`HOVER`."""
    point = position(record, side)
    full = str(record.get("kernel") or "")
    short = str(record.get("kernel_short") or full)
    return [
        escape_markup(short),
        side,
        wrapped(full),
        escape_markup(status_line(record)),
        escape_markup(_change(record, "total_duration_s", "s")),
        escape_markup(_change(record, "duration_s", "s")),
        escape_markup(_launches(record)),
        TEXT.missing if point is None else TEXT.fixed(point[0]),
        TEXT.missing if point is None else TEXT.si(point[1], "FLOP/s"),
        escape_markup(_efficiency(record)),
        _bound(record),
        _match_line(record),
    ]
