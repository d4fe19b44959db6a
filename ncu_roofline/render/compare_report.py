"""Renderers of a comparison: Markdown for the PR comment, HTML for the artifact.

Both read the plain-data comparison context from
:func:`ncu_roofline.report.compare.comparison_context`.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, TypedDict

from ncu_roofline.render.compare_text import (
    LAUNCH_SHAPE_MISSING,
    at_roof,
    context_lines,
    headline_reason,
    not_comparable_text,
    story_text,
    verdict_text,
    why_text,
)
from ncu_roofline.render.format import TABLE
from ncu_roofline.render.html_report import generated_at_text, page_assets
from ncu_roofline.render.markdown_report import (
    MAX_MARKDOWN_CHARS,
    escape_code,
    escape_text,
    html_link,
)
from ncu_roofline.render.templates import environment
from ncu_roofline.report.schema import (
    ComparisonContext,
    ComparisonRecord,
    GateRecord,
    tripped_gates,
)
from ncu_roofline.version import __version__

if TYPE_CHECKING:
    # The charts (numpy) load only where a page draws them.
    from ncu_roofline.render.charts.types import RooflineChart

#: The longest "why" text a Markdown cell shows; reasons are a handful of short phrases.
_WHY_LIMIT = 400


def _grid(r: ComparisonRecord) -> str | None:
    return r.get("candidate_grid") or r.get("base_grid")


def _label(r: ComparisonRecord, repeats: Counter[str], *, table: bool) -> str:
    """Short name in code, with the grid when several groups share the name and it is known."""
    short = str(r.get("kernel_short") or r.get("kernel") or "?")
    text = escape_code(short, table=table)
    if repeats[short] > 1 and _grid(r):
        text += f" grid {escape_text(_grid(r))}"
    return text


def _has_shape(cmp: ComparisonContext) -> bool:
    """Whether any group has a launch shape (else it is said once, not "grid ?" per row)."""
    return any(
        r.get(f"{s}_{k}")
        for r in cmp["kernels"]
        for s in ("base", "candidate")
        for k in ("grid", "block")
    )


def _work(r: ComparisonRecord) -> str:
    """The work change, and the time per unit of work when it counts as a work change."""
    text = TABLE.pct(r.get("delta_work_pct"), sign=True)
    if r.get("work_changed"):
        unit = r.get("work_unit") or "unit"
        text = (
            f"work change {text}: "
            f"{TABLE.si(r.get('base_time_per_work'), 's')} → "
            f"{TABLE.si(r.get('candidate_time_per_work'), 's')} per {unit}"
        )
    return text


def _arrow(base: Any, cand: Any, fmt: Any) -> str:
    return f"{fmt(base)} → {fmt(cand)}"


def _rows(records: list[ComparisonRecord], limit: int, repeats: Counter[str]) -> list[list[str]]:
    rows = []
    for r in records[:limit]:
        rows.append(
            [
                _label(r, repeats, table=True),
                TABLE.duration(r.get("base_total_duration_s")),
                TABLE.duration(r.get("candidate_total_duration_s")),
                TABLE.signed(r.get("delta_s"), "s", typographic=True),
                TABLE.pct(r.get("delta_pct"), sign=True),
                TABLE.pct(r.get("delta_cycles_pct"), sign=True),
                _work(r),
                _judged(r),
                f"{r.get('base_launches') or 0} → {r.get('candidate_launches') or 0}",
                _arrow(r.get("base_ai_dram"), r.get("candidate_ai_dram"), TABLE.number),
                _arrow(
                    r.get("base_achieved_flops_per_s"),
                    r.get("candidate_achieved_flops_per_s"),
                    lambda v: TABLE.si(v, "FLOP/s"),
                ),
                _arrow(r.get("base_efficiency"), r.get("candidate_efficiency"), _at_roof),
                escape_text(r.get("candidate_bound") or r.get("base_bound") or "–"),
                # Our own short phrases (GPU names the longest part): kept whole.
                escape_text(why_text(r) or "–", limit=_WHY_LIMIT),
            ]
        )
    return rows


def _at_roof(value: Any) -> str:
    return TABLE.missing if value is None else at_roof(value)


def _judged(r: ComparisonRecord) -> str:
    if r.get("judged_on") is None:
        return TABLE.missing
    text = f"{r['judged_on']} {TABLE.pct(r.get('judged_pct'), sign=True)}"
    low, high = r.get("change_low"), r.get("change_high")
    if low is not None and high is not None and r.get("status") != "not comparable":
        # Trials: the interval the status rests on, and the noise it came from.
        text += (
            f" ({TABLE.pct(low, sign=True)} .. {TABLE.pct(high, sign=True)}, "
            f"noise {TABLE.pct(r.get('trial_noise'))})"
        )
    return text


_HEAD = [
    "Kernel",
    "Base",
    "Candidate",
    "Δ time",
    "Δ %",
    "Δ cycles",
    "Work",
    "Judged on",
    "Launches",
    "FLOP/B",
    "Achieved",
    "At roof",
    "Bound",
    "Why",
]


def _table(rows: list[list[str]]) -> list[str]:
    # Numbers right-aligned; the kernel, its bound and why as text.
    out = ["| " + " | ".join(_HEAD) + " |", "|---|" + "---:|" * (len(_HEAD) - 3) + "---|---|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def render_compare_markdown(
    cmp: ComparisonContext,
    *,
    html_url: str | None = None,
    top: int = 10,
) -> str:
    """GitHub Markdown for a PR comment, at most 65,536 characters (gates from ``cmp["gates"]``)."""
    gates = tripped_gates(cmp)
    for limit in (top, 5, 2, 0):
        text = _compare_markdown(cmp, html_url, limit, gates)
        if len(text) <= MAX_MARKDOWN_CHARS:
            return text
    return text[: MAX_MARKDOWN_CHARS - 2] + "…\n"


def _compare_markdown(
    cmp: ComparisonContext, html_url: str | None, limit: int, gates: list[GateRecord] | None
) -> str:
    t = cmp["totals"]
    repeats: Counter[str] = Counter(
        str(r.get("kernel_short") or r.get("kernel") or "?") for r in cmp["kernels"]
    )
    lines = ["## Roofline comparison", ""]
    base = ", ".join(
        escape_code(i["path"].rsplit("/", 1)[-1], table=False) for i in cmp["base"]["inputs"]
    )
    cand = ", ".join(
        escape_code(i["path"].rsplit("/", 1)[-1], table=False) for i in cmp["candidate"]["inputs"]
    )
    lines.append(f"Base {base} → candidate {cand}.")
    lines.append("")
    lines += [f"- {escape_text(line, limit=600)}" for line in context_lines(cmp)]
    if not _has_shape(cmp):
        lines.append(f"- Kernel groups: {LAUNCH_SHAPE_MISSING}.")
    lines.append("")
    times = (
        f"Kernel time {TABLE.duration(t.get('base_total_duration_s'))} → "
        f"{TABLE.duration(t.get('candidate_total_duration_s'))} ({verdict_text(cmp, lead=False)})."
    )
    reason = not_comparable_text(cmp)
    # A pair that is not judged leads with why, not with a percentage.
    lead = (
        f"**{escape_text(reason, limit=600)}** {escape_text(times)}" if reason else f"**{times}**"
    )
    verdict = (
        f"{lead} {len(cmp['regressions'])} regression(s), {len(cmp['improvements'])} "
        f"improvement(s), {len(cmp['added'])} new and {len(cmp['removed'])} removed kernel group(s)."
    )
    if gates is not None:
        verdict += f" {len(gates)} gate(s) tripped." if gates else " No gate tripped."
    # The four questions a speed-up must answer, right under the verdict.
    lines += [verdict, "", escape_text(story_text(cmp), limit=1200), ""]
    if gates:
        lines += ["### Gates", ""]
        for g in gates[: max(limit, 5)]:
            lines.append(f"- **{escape_text(g['rule'])}**: {escape_text(g['message'], limit=300)}")
        lines.append("")
    for title, records in (
        ("Regressions", cmp["regressions"]),
        ("Improvements", cmp["improvements"]),
    ):
        if records and limit:
            lines += [f"### {title}", ""]
            lines += _table(_rows(records, limit, repeats))
            if len(records) > limit:
                lines.append(f"\n… and {len(records) - limit} more")
            lines.append("")
    paired = [r for r in cmp["kernels"] if r.get("match") == "implementation"]
    if paired:
        shown = ", ".join(_label(r, repeats, table=False) for r in paired[: max(limit, 3)])
        more = f" and {len(paired) - max(limit, 3)} more" if len(paired) > max(limit, 3) else ""
        lines += [
            f"**Implementation changed** (names differ only in template arguments; same grid, "
            f"block and launches; judged as one group): {shown}{more}",
            "",
        ]
    for title, records in (("New kernels", cmp["added"]), ("Removed kernels", cmp["removed"])):
        if records:
            shown = ", ".join(_label(r, repeats, table=False) for r in records[: max(limit, 3)])
            more = (
                f" and {len(records) - max(limit, 3)} more" if len(records) > max(limit, 3) else ""
            )
            lines += [f"**{title}:** {shown}{more}", ""]
    if not cmp["kernels"]:
        lines += ["Neither profile has a kernel group, so there is nothing to compare.", ""]
    elif cmp["totals"].get("matched", 0) == 0:
        lines += [
            "No kernel group matched between base and candidate (by name, grid and block, "
            "then by name alone): are these the same workload?",
            "",
        ]
    if limit and cmp["totals"].get("matched", 0):
        every = [r for r in cmp["kernels"] if r.get("status") not in ("added", "removed")]
        lines += ["<details><summary>Every matched kernel group</summary>", ""]
        lines += _table(_rows(every, 4 * limit if limit < 10 else 400, repeats))
        if len(every) > (4 * limit if limit < 10 else 400):
            lines.append("\n… more in the JSON or HTML comparison")
        lines += ["", "</details>", ""]
    if html_url:
        lines.append(html_link(html_url, "Full HTML comparison"))
    return "\n".join(lines).rstrip() + "\n"


class CompareRow(TypedDict):
    """One row of the comparison page's table: a group's name, status and changes as text."""

    short: str
    full: str
    status: str | None
    match: str | None
    grid: str | None
    ai: str
    achieved: str
    sort_delta: str
    sort_pct: str
    base: str
    candidate: str
    delta: str
    pct: str
    cycles: str
    work: str
    judged: str
    launches: str
    efficiency: str
    bound: str
    #: Why the group changed, as text (:func:`~.compare_text.why_text`); empty when no reason.
    why: str


class CompareTotalsText(TypedDict):
    """The comparison's total kernel time per side, its change, and the verdict, as text."""

    base: str
    candidate: str
    delta: str
    pct: str
    verdict: str
    #: What the page shows in large type: the percentage, or "Not comparable"/"Undecided".
    big: str
    #: Why the pair is not judged ("" when it is).
    reason: str


class CompareHeadline(TypedDict):
    """The comparison's totals as text (``totals``) and its groups per status (``counts``)."""

    totals: CompareTotalsText
    counts: dict[str, int]


def _full_name(r: ComparisonRecord) -> str:
    """The kernel's full name; both, base first, where the implementation changed."""
    if r.get("match") == "implementation":
        return f"{r.get('base_kernel') or '?'} → {r.get('candidate_kernel') or '?'}"
    return r.get("kernel") or ""


def _match_text(match: str | None) -> str | None:
    """How a row was matched, for "matched by …" (nothing for an exact match)."""
    if match == "implementation":
        return "template, implementation changed (names differ only in template arguments)"
    return match if match != "exact" else None


def _sort_value(value: float | None) -> str:
    """A number as the table's sort key (``repr`` of the float); empty when unknown."""
    return "" if value is None else repr(float(value))


def html_rows(records: list[ComparisonRecord]) -> list[CompareRow]:
    """The comparison page's table rows: each group's name, status and changes as text."""
    return [
        {
            "short": r.get("kernel_short") or r.get("kernel") or "?",
            "full": _full_name(r),
            "status": r.get("status"),
            "match": _match_text(r.get("match")),
            "grid": _grid(r),
            "ai": _arrow(r.get("base_ai_dram"), r.get("candidate_ai_dram"), TABLE.number),
            "achieved": _arrow(
                r.get("base_achieved_flops_per_s"),
                r.get("candidate_achieved_flops_per_s"),
                lambda v: TABLE.si(v, "FLOP/s"),
            ),
            "sort_delta": _sort_value(r.get("delta_s")),
            "sort_pct": _sort_value(r.get("delta_pct")),
            "base": TABLE.duration(r.get("base_total_duration_s")),
            "candidate": TABLE.duration(r.get("candidate_total_duration_s")),
            "delta": TABLE.signed(r.get("delta_s"), "s", typographic=True),
            "pct": TABLE.pct(r.get("delta_pct"), sign=True),
            "cycles": TABLE.pct(r.get("delta_cycles_pct"), sign=True),
            "work": _work(r),
            "judged": _judged(r),
            "launches": f"{r.get('base_launches') or 0} → {r.get('candidate_launches') or 0}",
            "efficiency": _arrow(r.get("base_efficiency"), r.get("candidate_efficiency"), _at_roof),
            "bound": f"{r.get('base_bound') or '–'} → {r.get('candidate_bound') or '–'}",
            "why": why_text(r),
        }
        for r in records
    ]


def comparison_headline(cmp: ComparisonContext) -> CompareHeadline:
    """The comparison's totals as text (``totals``) and its groups per status (``counts``)."""
    t = cmp["totals"]
    return {
        "totals": {
            "base": TABLE.duration(t.get("base_total_duration_s")),
            "candidate": TABLE.duration(t.get("candidate_total_duration_s")),
            "delta": TABLE.signed(t.get("delta_s"), "s", typographic=True),
            "pct": TABLE.pct(t.get("delta_pct"), sign=True),
            "verdict": verdict_text(cmp),
            "big": headline_reason(cmp) or TABLE.pct(t.get("delta_pct"), sign=True),
            "reason": not_comparable_text(cmp) or "",
        },
        "counts": {k: len(cmp[k]) for k in ("regressions", "improvements", "added", "removed")},
    }


def render_compare_html(
    cmp: ComparisonContext,
    charts: list[RooflineChart],
    *,
    plotly_js: str = "inline",
    generated_at: str | None = None,
) -> str:
    """The comparison page: totals, ranked changes, the roofline with arrows, tripped gates."""
    assets = page_assets(plotly_js)
    page = {
        "title": "Roofline comparison",
        "generated_at": generated_at_text(generated_at),
        "version": __version__,
        "base_inputs": [i["path"] for i in cmp["base"]["inputs"]],
        "candidate_inputs": [i["path"] for i in cmp["candidate"]["inputs"]],
        **comparison_headline(cmp),
        "context_lines": context_lines(cmp),
        "story": story_text(cmp),
        "launch_shape_missing": LAUNCH_SHAPE_MISSING if not _has_shape(cmp) else None,
        "matched": cmp["totals"].get("matched", 0),
        "rows": html_rows(cmp["kernels"]),
        "gates": tripped_gates(cmp),
        "charts": [{"id": c["id"], "title": c["title"]} for c in charts],
    }
    template = environment().get_template("compare.html.j2")
    return template.render(
        **page,
        data={"charts": {c["id"]: c["figure"] for c in charts}},
        **assets,
    )
