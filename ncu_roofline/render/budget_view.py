"""Where the step's time goes: the words and the bar every output shows of a time budget.

The page's "Where the step's time goes" bar and table, the Markdown line and
the terminal line all come from here, from the report's ``budget`` record
(:func:`ncu_roofline.analysis.budget.build`), so they say the same thing.
The bar's parts are the budget's own, in seconds of the capture's span:
kernel time per bound class (kernels no ncu group joined as "not profiled"),
copies (memcpy, memset), idle gaps; they add up to the span.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.render.charts.style import BOUND_COLOURS
from ncu_roofline.render.format import TEXT, plural
from ncu_roofline.report.schema import BudgetRecord

__all__ = ["BudgetPart", "BudgetView", "budget_line", "budget_view"]

#: Colours of the parts that are not a bound class (bound classes keep the roofline's).
_PART_COLOURS = {
    "not profiled": "#E69F00",
    "unknown": "#BBBBBB",
    "memcpy": "#56B4E9",
    "memset": "#9ADCF5",
    "idle gaps": "#F0E442",
}
#: What each part means, for the table.
_MEANING = {
    "not profiled": "kernels the ncu profile does not hold: their roofline place is unknown",
    "memcpy": "copies with no kernel running",
    "memset": "memsets with no kernel running",
    "idle gaps": "the GPU ran nothing: launch overhead, synchronisation, host work",
    "unknown": "kernels joined to a group whose bound class is unknown",
}


class BudgetPart(TypedDict):
    """One part of the span: its label, time, share of the span and bar width."""

    label: str
    seconds: str
    share: str
    #: Bar width in percent of the span, as text ("0" for none).
    width: str
    colour: str
    meaning: str


class BudgetView(TypedDict):
    """The page's budget section: the headline, the bar's parts and the details."""

    headline: str
    #: ``trace`` or ``summary`` (no gaps measured).
    basis: str
    parts: list[BudgetPart]
    details: list[str]
    steps: list[dict[str, str]]
    gaps: list[dict[str, str]]


def _parts(budget: BudgetRecord) -> list[tuple[str, float]]:
    """The capture's span in parts, seconds each: kernel classes, copies, idle gaps."""
    cap = budget
    parts: list[tuple[str, float]] = []
    by_bound = cap.get("by_bound") or {}
    if by_bound:
        for label, value in sorted(by_bound.items(), key=lambda kv: -kv[1]):
            parts.append((label, float(value)))
    elif cap.get("kernel_s"):
        parts.append(("kernels", float(cap["kernel_s"])))
    others: tuple[tuple[str, float | None], ...] = (
        ("memcpy", cap.get("memcpy_only_s")),
        ("memset", cap.get("memset_s")),
        ("idle gaps", cap.get("gaps_s")),
    )
    for label, seconds in others:
        if seconds:
            parts.append((label, float(seconds)))
    return parts


def _whole(budget: BudgetRecord) -> float | None:
    """What the parts are shares of: the span, or the kernel time of a summary."""
    cap = budget
    whole = cap.get("span_s") if budget["basis"] == "trace" else cap.get("kernel_s")
    return float(whole) if whole else None


def budget_line(budget: BudgetRecord | None) -> str | None:
    """The budget in one line (Markdown, terminal); ``None`` without a budget or any time."""
    if budget is None or budget["basis"] == "empty":
        return None
    cap = budget
    whole = _whole(budget)
    if whole is None:
        return None
    # Parts under half a per cent would read "0%": the page's table lists them.
    parts = ", ".join(
        f"{label} {TEXT.pct(s / whole, digits=0)}"
        for label, s in _parts(budget)
        if s / whole >= 0.005
    )
    small = cap.get("small_kernels") or 0
    tail = f"; {plural(int(small), 'kernel')} under {TEXT.duration(budget['small_kernel_threshold_s'])}"
    if budget["basis"] == "trace":
        gaps = cap.get("gap_count")
        gap_text = f", {plural(int(gaps), 'idle gap')}" if gaps else ""
        steps = budget.get("steps") or []
        step_text = f" over {plural(len(steps), 'step')}" if steps else ""
        return f"Timeline: span {TEXT.duration(whole)}{step_text}: {parts}{gap_text}{tail}."
    return (
        f"Timeline (kernel summaries: no gaps measured): kernel time {TEXT.duration(whole)}: "
        f"{parts}{tail}."
    )


def budget_view(budget: BudgetRecord | None) -> BudgetView | None:
    """The page's "Where the step's time goes" section; ``None`` without a budget."""
    if budget is None or budget["basis"] == "empty":
        return None
    whole = _whole(budget)
    if whole is None:
        return None
    parts: list[BudgetPart] = []
    for label, seconds in _parts(budget):
        share = seconds / whole
        parts.append(
            {
                "label": label,
                "seconds": TEXT.duration(seconds),
                "share": TEXT.pct(share, digits=1),
                "width": f"{100 * share:.3f}" if share > 0 else "0",
                "colour": BOUND_COLOURS.get(label) or _PART_COLOURS.get(label, "#777777"),
                "meaning": _MEANING.get(label, f"{label}-bound kernels")
                if label not in BOUND_COLOURS
                else f"kernels the roofline calls {label}-bound",
            }
        )
    cap = budget
    details = []
    joins = budget.get("joins")
    if joins is not None:
        joined = joins["joined_exact"] + joins["joined_by_name"] + joins["joined_normalised"]
        total = joined + joins["not_joined"]
        details.append(
            f"{plural(total, 'kernel launch', 'kernel launches')} in the timeline, "
            f"{TEXT.count(joined)} joined to an ncu kernel group "
            f"({TEXT.count(joins['joined_exact'])} by name, grid and block)."
        )
    if cap.get("small_kernels"):
        details.append(
            f"{plural(int(cap['small_kernels']), 'kernel')} shorter than "
            f"{TEXT.duration(budget['small_kernel_threshold_s'])} "
            f"({TEXT.duration(cap.get('small_kernel_s'))} in all)."
        )
    graphs = budget.get("graphs")
    if graphs and graphs.get("graph_launches"):
        details.append(
            f"{plural(int(graphs['graph_launches']), 'CUDA graph launch', 'CUDA graph launches')}"
            f" ({TEXT.pct(graphs.get('kernel_share'), digits=0)} of kernel launches)."
        )
    if budget["basis"] != "trace":
        details.append(
            "From kernel summaries: the idle time between kernels and their overlap are not "
            "measured; give a GPU trace (nsys stats -r cuda_gpu_trace, or the SQLite export)."
        )
    if budget.get("range_basis"):
        details.append(
            f"Steps are NVTX ranges, timed by their {budget['range_basis']}; a range's "
            "overhead is its idle gaps plus its kernels under "
            f"{TEXT.duration(budget['small_kernel_threshold_s'])}, of its span."
        )
    steps = [
        {
            "name": r["name"],
            "instances": TEXT.count(r.get("instances")),
            "median": TEXT.duration(r.get("median_span_s")),
            "kernel": TEXT.duration(r.get("kernel_s")),
            "gaps": TEXT.duration(r.get("gaps_s")),
            "not_profiled": TEXT.duration(r.get("not_profiled_s")),
            "launch_bound": TEXT.pct(r.get("launch_bound_share"), digits=0),
        }
        for r in (budget.get("ranges") or [])[:12]
    ]
    gaps = [
        {
            "label": g["label"],
            "count": TEXT.count(g["count"]),
            "seconds": TEXT.duration(g["seconds"]),
        }
        for g in (cap.get("gaps") or [])
        if g["count"]
    ]
    return {
        "headline": budget_line(budget) or "",
        "basis": budget["basis"],
        "parts": parts,
        "details": details,
        "steps": steps,
        "gaps": gaps,
    }
