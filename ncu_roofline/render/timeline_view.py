"""The ``timeline`` command's outputs: a time budget without an ncu profile.

One view (:func:`timeline_view`) of a
:class:`~ncu_roofline.report.timeline.TimelineDocument` feeds the terminal
text, the Markdown and the HTML page, so they say the same thing: the
budget line and bar of :mod:`~ncu_roofline.render.budget_view` (without an
ncu profile there are no bound classes: kernel time is one part,
"kernels"), the kernels with the most time (short names; instances, total,
mean, share of kernel time), each NVTX range's median step split into
kernel, copy and idle time, and the budget's findings.

A summary-only timeline (``nsys stats`` kernel summaries) has no spans or
gaps: those cells are ``n/a``, and a range's kernel time per step is the
mean over its instances (summaries give no median).
"""

from __future__ import annotations

import statistics
from typing import TypedDict

from ncu_roofline.core.names import middle_cut, short_name
from ncu_roofline.render.budget_view import BudgetView, budget_line, budget_view
from ncu_roofline.render.format import TEXT
from ncu_roofline.render.markdown_report import escape_text
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.render.templates import Code, environment, templates_dir
from ncu_roofline.report.schema import BudgetRecord, FindingRecord
from ncu_roofline.report.timeline import TimelineDocument

__all__ = [
    "KernelRow",
    "RangeRow",
    "TimelineView",
    "render_timeline_html",
    "render_timeline_markdown",
    "render_timeline_text",
    "timeline_view",
]

#: Characters of a kernel's short name in the terminal and Markdown tables.
_NAME_WIDTH = 48


class KernelRow(TypedDict):
    """One distinct kernel of the timeline, as text."""

    rank: str
    name: str
    short: str
    grid: str
    instances: str
    total: str
    mean: str
    share: str


class RangeRow(TypedDict):
    """One NVTX range name: its steps' median span and how it splits, as text."""

    name: str
    steps: str
    span: str
    kernel: str
    copies: str
    gaps: str
    launch_bound: str


class TimelineView(TypedDict):
    """Everything the three renderers show."""

    title: str
    headline: str
    inputs: list[str]
    budget: BudgetView | None
    kernels: list[KernelRow]
    kernels_total: int
    ranges: list[RangeRow]
    #: ``median`` (trace steps) or ``mean`` (summaries).
    range_stat: str
    findings: list[FindingRecord]
    warnings: list[str]


def _kernel_rows(record: BudgetRecord, top: int) -> list[KernelRow]:
    kernels = record["trace_kernels"]
    total = sum(k["total_s"] for k in kernels)
    rows: list[KernelRow] = []
    for i, k in enumerate(kernels[:top], start=1):
        n = k["instances"]
        rows.append(
            {
                "rank": str(i),
                "name": k["name"],
                "short": short_name(k["name"]) or k["name"],
                "grid": k["grid"] or "",
                "instances": TEXT.count(n),
                "total": TEXT.duration(k["total_s"]),
                "mean": TEXT.duration(k["total_s"] / n if n else None),
                "share": TEXT.pct(k["total_s"] / total if total > 0 else None, digits=1),
            }
        )
    return rows


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(statistics.median(known)) if known else None


def _range_rows(record: BudgetRecord) -> list[RangeRow]:
    """Each range name's median step (trace) or mean instance (summaries)."""
    steps: dict[str, list[dict[str, float | None]]] = {}
    for s in record["steps"]:
        if not s["empty"]:
            steps.setdefault(s["name"], []).append(
                {
                    "span": s["span_s"],
                    "kernel": s["kernel_s"],
                    "copies": s["memcpy_s"],
                    "gaps": s["gaps_s"],
                }
            )
    rows: list[RangeRow] = []
    for r in record["ranges"]:
        mine = steps.get(r["name"], [])
        if mine:
            span, kernel, copies, gaps = (
                _median([m[key] for m in mine]) for key in ("span", "kernel", "copies", "gaps")
            )
        else:
            n = r["instances"]
            span = copies = gaps = None
            kernel = r["kernel_s"] / n if n else None
        rows.append(
            {
                "name": r["name"],
                "steps": TEXT.count(r["instances"]),
                "span": TEXT.duration(span),
                "kernel": TEXT.duration(kernel),
                "copies": TEXT.duration(copies),
                "gaps": TEXT.duration(gaps),
                "launch_bound": TEXT.pct(r["launch_bound_share"], digits=0),
            }
        )
    return rows


def timeline_view(doc: TimelineDocument, top: int = 10) -> TimelineView:
    """What every output of ``timeline`` shows, as text (names not yet escaped)."""
    record = doc["budget"]
    inputs = [i["path"] for i in doc["inputs"]]
    shown = ", ".join(inputs[:3]) + (f" and {len(inputs) - 3} more" if len(inputs) > 3 else "")
    warnings = [f"{i['path']}: {w}" for i in doc["inputs"] for w in i["warnings"]]
    return {
        "title": f"Timeline of {shown}" if shown else "Timeline",
        "headline": budget_line(record) or "The timeline holds no GPU activity.",
        "inputs": inputs,
        "budget": budget_view(record),
        "kernels": _kernel_rows(record, top),
        "kernels_total": len(record["trace_kernels"]),
        "ranges": _range_rows(record),
        "range_stat": "median" if record["basis"] == "trace" else "mean",
        "findings": doc["findings"],
        "warnings": [*warnings, *record["warnings"]],
    }


# -- terminal -------------------------------------------------------------------------


def _columns(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def render_timeline_text(doc: TimelineDocument, *, width: int = 100, top: int = 10) -> str:
    """The terminal summary: the budget line, the top kernels, the ranges, the findings."""
    view = timeline_view(doc, top)
    name_width = max(16, min(_NAME_WIDTH, width - 52))
    lines = [terminal_safe(view["headline"])]
    if view["kernels"]:
        lines += ["", f"Kernels by time (top {len(view['kernels'])} of {view['kernels_total']:,}):"]
        rows = [["#", "kernel", "instances", "total", "mean", "share"]]
        rows += [
            [
                k["rank"],
                terminal_safe(middle_cut(k["short"], name_width)),
                k["instances"],
                k["total"],
                k["mean"],
                k["share"],
            ]
            for k in view["kernels"]
        ]
        lines += _columns(rows, {0, 2, 3, 4, 5})
    if view["ranges"]:
        stat = view["range_stat"]
        lines += ["", f"NVTX ranges ({stat} step):"]
        rows = [["range", "steps", "span", "kernel", "copies", "idle gaps", "gaps+small"]]
        rows += [
            [
                terminal_safe(middle_cut(r["name"], name_width)),
                r["steps"],
                r["span"],
                r["kernel"],
                r["copies"],
                r["gaps"],
                r["launch_bound"],
            ]
            for r in view["ranges"][:top]
        ]
        lines += _columns(rows, {1, 2, 3, 4, 5, 6})
        if len(view["ranges"]) > top:
            lines.append(f"... and {len(view['ranges']) - top} more ranges (--top)")
    findings = view["findings"]
    if findings:
        lines += ["", "Findings:"]
        lines += [
            f"- [{f['severity']}] {f['kind']}: {terminal_safe(f['message'])}"
            for f in findings[:top]
        ]
        if len(findings) > top:
            lines.append(f"... and {len(findings) - top} more findings (--top, or --format md)")
    return "\n".join(lines) + "\n"


# -- Markdown -------------------------------------------------------------------------


def _md_table(head: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    rule = ["---:" if i in right else "---" for i in range(len(head))]
    return [f"| {' | '.join(r)} |" for r in (head, rule, *rows)]


def render_timeline_markdown(doc: TimelineDocument, *, top: int = 10) -> str:
    """GitHub Markdown: every value from the data escaped (:func:`escape_text`)."""
    view = timeline_view(doc, top)
    lines = [
        f"## ncu-roofline timeline: {escape_text(view['title'], limit=300)}",
        "",
        escape_text(view["headline"], limit=1000),
    ]
    if view["kernels"]:
        lines += [
            "",
            f"### Kernels by time (top {len(view['kernels'])} of {view['kernels_total']:,})",
            "",
        ]
        lines += _md_table(
            ["#", "kernel", "instances", "total", "mean", "share"],
            [
                [
                    k["rank"],
                    escape_text(middle_cut(k["short"], _NAME_WIDTH)),
                    k["instances"],
                    k["total"],
                    k["mean"],
                    k["share"],
                ]
                for k in view["kernels"]
            ],
            {0, 2, 3, 4, 5},
        )
    if view["ranges"]:
        lines += ["", f"### NVTX ranges ({view['range_stat']} step)", ""]
        lines += _md_table(
            ["range", "steps", "span", "kernel", "copies", "idle gaps", "gaps + small kernels"],
            [
                [
                    escape_text(r["name"]),
                    r["steps"],
                    r["span"],
                    r["kernel"],
                    r["copies"],
                    r["gaps"],
                    r["launch_bound"],
                ]
                for r in view["ranges"][:top]
            ],
            {1, 2, 3, 4, 5, 6},
        )
    if view["findings"]:
        lines += ["", "### Findings", ""]
        lines += [
            f"- **{escape_text(f['severity'])}** {escape_text(f['kind'])}: "
            f"{escape_text(f['message'], limit=2000)}"
            for f in view["findings"]
        ]
    if view["warnings"]:
        lines += ["", "### Warnings", ""]
        lines += [f"- {escape_text(w, limit=2000)}" for w in view["warnings"]]
    return "\n".join(lines) + "\n"


# -- HTML -----------------------------------------------------------------------------


def render_timeline_html(
    doc: TimelineDocument, *, generated_at: str, version: str, top: int = 10
) -> str:
    """A self-contained page (``timeline.html.j2``): the report's stylesheet, no script."""
    view = timeline_view(doc, top)
    css = (templates_dir() / "assets" / "report.css").read_text(encoding="utf-8")
    template = environment().get_template("timeline.html.j2")
    return template.render(
        **view,
        css=Code(css),
        generated_at=generated_at,
        version=version,
        top=top,
    )
