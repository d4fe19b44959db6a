"""The Markdown report: a GitHub-flavoured summary for a pull-request comment.

GitHub refuses comments over 65,536 characters, so :func:`render_markdown`
shrinks the report until it fits: first the rows of the collapsed full kernel
table, then the collapsed roofs, then the top-N table, then the findings and
gates lists.

Every string taken from the data (kernel names, messages, file names, roof
sources, gate rules) is escaped here, in Python; the template
(``report_md.txt.j2``, a ``.txt`` template so Jinja does not HTML-escape it)
only lays out lines.  Outside code spans ``<``, ``>`` and ``&`` become entities
and Markdown punctuation is backslash-escaped; inside code spans the fence is
longer than any backtick run of the content.  In table cells ``|`` is escaped
as ``\\|`` (GitHub removes that backslash before parsing the cell, code spans
included).  No data ever reaches the document as raw HTML, so a kernel named
``</details><script>x</script>`` stays text.  A control or bidirectional
character (which would break a row, or reorder the comment's text) is shown
as its escape, ``\\x1b`` or ``\\u202e``
(:func:`~ncu_roofline.render.safe_text.safe_text`); a line break is a space.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any, TypedDict
from urllib.parse import quote

from ncu_roofline.analysis.catalogue import SEVERITIES, advice, advice_label
from ncu_roofline.core.names import middle_cut
from ncu_roofline.render.advice_refs import groups_by_advice
from ncu_roofline.render.budget_view import budget_line
from ncu_roofline.render.compare_text import LAUNCH_SHAPE_MISSING
from ncu_roofline.render.format import TEXT, file_name, plural
from ncu_roofline.render.ncu_estimates import ncu_estimate_rows
from ncu_roofline.render.safe_text import safe_text
from ncu_roofline.render.severity import most_severe_first, severity_counts
from ncu_roofline.render.story import by_recoverable, story
from ncu_roofline.render.templates import render
from ncu_roofline.report.schema import (
    AdviceRecord,
    FindingRecord,
    GateRecord,
    KernelRecord,
    ReportContext,
    tripped_gates,
)

#: GitHub's limit on the body of an issue or pull-request comment.
MAX_MARKDOWN_CHARS = 65_536

#: The Jinja template; ``.txt`` so that it is not HTML-escaped.
TEMPLATE = "report_md.txt.j2"

#: Longest kernel name, message or other data string shown (characters).
_MAX_NAME = 100
#: Longest kernel name in the tables outside the collapsed details (characters).
_MAX_KERNEL = 50
_MAX_MESSAGE = 2_000
_MAX_INPUTS = 5

# Markdown punctuation that means something in the middle of a line (GitHub
# also renders ``$...$`` as maths and ``~~...~~`` as strike-through).
_MD_PUNCT = re.compile(r"([\\`*_\[\]|~$])")
_BACKTICKS = re.compile(r"`+")


def _one_line(value: Any, limit: int = _MAX_NAME) -> str:
    """Data as a single line of at most ``limit`` characters (``…`` when cut).

    Line breaks are spaces, control and bidirectional characters their escapes.
    """
    text = safe_text(value)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def escape_text(value: Any, limit: int = _MAX_NAME) -> str:
    """Data as inert Markdown text: entities for ``<>&``, backslashes for punctuation.

    Safe in table cells too: a ``|`` becomes ``\\|``, which GitHub reads as a
    literal pipe whether or not the text is in a table.
    """
    text = _one_line(value, limit)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_PUNCT.sub(r"\\\1", text)


def escape_code(value: Any, *, table: bool, limit: int = _MAX_NAME) -> str:
    """Data as an inline code span, fenced by more backticks than it holds.

    In a table cell a ``|`` is written ``\\|``.  A backslash right before a
    pipe cannot be written in a code span inside a table (GitHub would read
    the pair as an escaped pipe), so such a name falls back to escaped text.
    """
    text = _one_line(value, limit)
    if not text.strip() or (table and "\\|" in text):
        return escape_text(text, limit)
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    # A space on both sides keeps a leading/trailing backtick off the fence;
    # GitHub strips one space from each side again.
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    if table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


def html_link(url: str, label: str = "Full HTML report") -> str:
    """The line linking an HTML report, ``label`` its text.

    Only ``http``/``https`` addresses and relative paths become links, with
    spaces, brackets, quotes and controls percent-encoded; anything else
    (``javascript:``, a drive letter) is shown as code, not linked.
    """
    scheme = _SCHEME.match(url)
    if scheme and scheme.group(1).lower() not in ("http", "https"):
        return f"{label}: {escape_code(url, table=False, limit=_MAX_MESSAGE)}"
    # Percent-encoding leaves no control, bidirectional or other non-ASCII character.
    target = quote(url, safe="/:?#@!$&'*+,;=%~")
    return f"[{label}]({target})"


class _Names:
    """Kernel display names: short name in code, cut in the middle, grid added when it repeats."""

    def __init__(self, kernels: list[KernelRecord]) -> None:
        self._repeats = Counter(self._short(k) for k in kernels)
        self._by_full: dict[str, str] = {}
        for k in kernels:
            self._by_full.setdefault(str(k.get("kernel")), self._short(k))

    @staticmethod
    def _short(k: KernelRecord) -> str:
        return str(k.get("kernel_short") or k.get("kernel") or "unnamed kernel")

    def cell(self, k: KernelRecord, *, table: bool = True) -> str:
        """The kernel's short name as a code span, with its grid when the name repeats."""
        short = self._short(k)
        text = escape_code(middle_cut(short, _MAX_KERNEL), table=table)
        if self._repeats[short] > 1 and k.get("grid"):
            text += f" grid {escape_text(k['grid'])}"
        return text

    def of_full(self, full: Any, *, table: bool = False) -> str:
        """The short name of a full kernel name (the full name, clipped, when unknown)."""
        return escape_code(
            middle_cut(self._by_full.get(str(full), str(full)), _MAX_KERNEL), table=table
        )


def _title(context: ReportContext) -> str:
    inputs = [file_name(i.get("path")) for i in context.get("inputs") or []]
    if not inputs:
        return "no input"
    names = ", ".join(escape_code(n, table=False, limit=80) for n in inputs[:_MAX_INPUTS])
    if len(inputs) > _MAX_INPUTS:
        names += f" and {TEXT.count(len(inputs) - _MAX_INPUTS)} more"
    return names


def _devices(context: ReportContext) -> str | None:
    """The header line naming each device and the SM clock it ran at (``None`` with no roofs).

    A device the export does not name reads "device not named in the export",
    with its compute capability or clock where known.
    """
    seen: list[str] = []
    for r in context.get("roofs") or []:
        gpu = r.get("gpu")
        device = (
            r.get("device_name")
            or (gpu.get("name") if gpu else None)
            or (f"CC {r['cc']}" if r.get("cc") else None)
        )
        text = escape_text(device) if device else "device not named in the export"
        if r.get("measured_sm_clock_hz"):
            text += f", SM clock {TEXT.si(r['measured_sm_clock_hz'], 'Hz')}"
        if text not in seen:
            seen.append(text)
    return ("**Device:** " + "; ".join(seen)) if seen else None


def _verdict(context: ReportContext, names: _Names, gates: list[GateRecord] | None) -> str:
    """Whether the gates passed and what to do first (:func:`~ncu_roofline.render.story.story`).

    The gate-tripping kernels when gates trip; the GPU to name or the
    metrics to collect when nothing could be placed; else the kernel group
    with the most recoverable time.
    """
    if gates is None:
        state = "no gates set"
    elif gates:
        state = f"**{plural(len(gates), 'gate')} tripped**"
    else:
        state = "gates passed"
    first = story(context)["first"]
    by_full = {str(k.get("kernel")): k for k in context.get("kernels") or []}
    if first["kind"] == "gates":
        shown = [names.of_full(k) for k in first["kernels"][:5]]
        more = len(first["kernels"]) - len(shown)
        look = (
            "fix the gate-tripping kernels first: "
            + ", ".join(shown)
            + (f" and {TEXT.count(more)} more" if more > 0 else "")
            if shown
            else "fix what tripped the gates first (the whole profile)"
        )
    elif first["kind"] in ("gpu", "collect"):
        collect = (
            "collect these metrics: "
            + escape_code(first["command"], table=False, limit=_MAX_MESSAGE)
            if first["command"]
            else "collect the missing metrics"
        )
        look = "nothing could be placed: " + (
            f"name the GPU with `--gpu NAME` (see `ncu-roofline gpus`), or {collect}"
            if first["kind"] == "gpu"
            else collect
        )
    elif first["kind"] == "kernel":
        k = by_full[first["kernels"][0]]
        look = (
            f"look first at {names.cell(k, table=False)} "
            f"({TEXT.recoverable(k.get('recoverable_s'))} recoverable, "
            f"{escape_text(k.get('bound') or 'n/a')})"
        )
    else:
        look = "no kernel has recoverable time to look at"
    return f"**Verdict:** {state}; {look}."


def _summary(context: ReportContext) -> str:
    """Totals: kernel time, recoverable and latency-bound time, findings by severity."""
    summary = context.get("summary") or {}
    total = summary.get("total_duration_s")
    recoverable = summary.get("recoverable_s")
    parts = [
        f"**{TEXT.duration(total)}** kernel time in {plural(int(summary.get('kernels') or 0), 'kernel')} "
        f"({plural(int(summary.get('launches') or 0), 'launch', 'launches')})"
    ]
    share = f" ({TEXT.pct(recoverable / total)} of it)" if recoverable is not None and total else ""
    unknowns = summary.get("recoverable_unknown")
    parts.append(
        f"**{TEXT.recoverable_total(recoverable, unknowns)}** recoverable at the roofs{share}"
    )
    figures = story(context)
    latency = figures["latency_s"]
    if latency:
        parts.append(f"{TEXT.duration(latency)} latency-bound (no roof can promise it)")
    failed = int((summary.get("profiling_failed") or {}).get("launches") or 0)
    if failed:
        parts.append(
            f"{plural(failed, 'launch', 'launches')} whose profiling failed (time unknown, "
            "in no total)"
        )
    counts = severity_counts(context.get("findings") or [])
    # "info" is a mass noun: "2 info", not "2 infos".
    detail = ", ".join(
        plural(counts[s], s, s if s == "info" else None) for s in SEVERITIES if counts[s]
    )
    n = sum(counts.values())
    parts.append(plural(n, "finding") + (f" ({detail})" if detail else ""))
    return "**Summary:** " + "; ".join(parts) + "."


def _bound_rows(context: ReportContext) -> list[list[str]]:
    summary = context.get("summary") or {}
    by_bound = summary.get("by_bound") or {}
    total = summary.get("total_duration_s")
    rows = []
    # by_bound lists the bound classes in the report's order.
    for bound, entry in by_bound.items():
        if not entry or not entry.get("kernels"):
            continue
        t = entry.get("duration_s")
        rows.append(
            [
                escape_text(bound),
                TEXT.count(entry.get("kernels")),
                TEXT.count(entry.get("launches")),
                TEXT.duration(t),
                TEXT.pct(t / total) if t is not None and total else TEXT.missing,
            ]
        )
    return rows


#: The kernels with a recoverable time, most first (the story's order).
_by_recoverable = by_recoverable


def _projected_cells(k: KernelRecord, targets: list[str]) -> list[str]:
    """The group's projected time on each ``--project-to`` target."""
    projected = k.get("projected") or {}
    return [TEXT.duration(projected.get(key)) for key in targets]


def _projection_lines(context: ReportContext) -> list[str]:
    """Each ``--project-to`` target's headline, escaped, and the model once."""
    projections = context.get("projection") or []
    lines = [escape_text(p["headline"], limit=600) for p in projections if p["headline"]]
    if projections:
        lines.append(escape_text("Projection model: " + projections[0]["model"] + ".", limit=800))
    return lines


def _top_rows(
    ranked: list[KernelRecord], names: _Names, with_theory: bool, targets: list[str] | None = None
) -> list[list[str]]:
    rows = []
    for k in ranked:
        row = [
            str(k.get("rank") or ""),
            names.cell(k),
            escape_text(k.get("bound") or "n/a"),
            TEXT.pct(k.get("efficiency")),
            TEXT.duration(k.get("total_duration_s")),
            TEXT.recoverable(k.get("recoverable_s")),
        ]
        if with_theory:
            row.append(TEXT.ratio(k.get("byte_excess")))
        row += _projected_cells(k, targets or [])
        advice_id = k.get("advice")
        row.append(escape_text(advice_label(advice_id), limit=80) if advice_id else TEXT.missing)
        rows.append(row)
    return rows


def _advice_lines(
    ranked: list[KernelRecord],
    findings: list[FindingRecord],
    texts: Mapping[str, AdviceRecord],
) -> list[str]:
    """The text of each top group's advice that no finding carries, once, naming its groups.

    Advice a finding carries is said with the findings; the top table's
    "Try" column names every group's advice by its few words.
    """
    said = {f.get("advice") or f.get("kind") for f in findings}
    lines = []
    for advice_id, groups in groups_by_advice(ranked).items():
        if advice_id in said:
            continue
        ranks = [f"#{k.get('rank')}" for k in groups]
        text = texts.get(advice_id)
        what = text["what_to_try"] if text else advice(advice_id)[1]
        lines.append(
            f"*{escape_text(advice_label(advice_id), limit=80)}* ({', '.join(ranks)}): "
            + escape_text(what, limit=_MAX_MESSAGE)
        )
    return lines


def _full_rows(
    kernels: list[KernelRecord],
    with_shape: bool,
    with_theory: bool,
    targets: list[str] | None = None,
) -> list[list[str]]:
    """The collapsed table: full kernel names, the launch shape where exported."""
    rows = []
    for k in kernels:
        row = [
            str(k.get("rank") or ""),
            escape_code(
                str(k.get("kernel") or k.get("kernel_short") or "?"), table=True, limit=_MAX_MESSAGE
            ),
        ]
        if with_shape:
            row += [
                escape_text(k.get("grid") or TEXT.missing),
                escape_text(k.get("block") or TEXT.missing),
            ]
        row += [
            TEXT.count(k.get("launches")),
            escape_text(k.get("bound") or "n/a"),
            TEXT.pct(k.get("efficiency")),
            TEXT.duration(k.get("total_duration_s")),
            TEXT.pct(k.get("time_share")),
            TEXT.number(k.get("ai_dram")),
            TEXT.si(k.get("achieved_flops_per_s"), "FLOP/s"),
            TEXT.recoverable(k.get("recoverable_s")),
        ]
        if with_theory:
            row.append(TEXT.ratio(k.get("byte_excess")))
        row += _projected_cells(k, targets or [])
        rows.append(row)
    return rows


class _RoofGroup(TypedDict):
    """One device's roofs in Markdown: a heading, a table's rows, the notes."""

    heading: str
    rows: list[list[str]]
    notes: list[str]


def _roof_groups(context: ReportContext) -> list[_RoofGroup]:
    groups: list[_RoofGroup] = []
    for r in context.get("roofs") or []:
        gpu = r.get("gpu")
        device = r.get("device_name") or (f"CC {r['cc']}" if r.get("cc") else "unknown device")
        heading = f"{escape_code(file_name(r.get('source')), table=False, limit=80)}, {escape_text(device)}"
        if gpu and gpu.get("name"):
            heading += f", {escape_text(gpu['name'])}"
        if r.get("measured_sm_clock_hz"):
            heading += f", SM clock {TEXT.si(r['measured_sm_clock_hz'], 'Hz')}"
        rows = []
        for c in r.get("ceilings") or []:
            unit = "B/s" if c.get("unit") == "byte/s" else str(c.get("unit") or "")
            value = TEXT.si(c.get("value"), unit)
            if c.get("uncertain"):
                value += " (uncertain)"
            rows.append(
                [
                    escape_code(c.get("key") or "?", table=True),
                    escape_text(c.get("kind") or ""),
                    escape_text(value),
                    escape_text(c.get("source") or "", limit=200),
                ]
            )
        groups.append(
            {
                "heading": heading,
                "rows": rows,
                "notes": [escape_text(n, limit=_MAX_MESSAGE) for n in r.get("notes") or []],
            }
        )
    return groups


def _finding_lines(
    findings: list[FindingRecord], texts: Mapping[str, AdviceRecord]
) -> list[dict[str, str | None]]:
    """The findings, those sharing advice together; the first of each group carries
    the group's header (severity, kind, what to try), so the advice is said once."""
    groups: dict[str, list[FindingRecord]] = {}
    for f in most_severe_first(findings):
        groups.setdefault(f.get("advice") or f.get("kind") or "finding", []).append(f)
    lines: list[dict[str, str | None]] = []
    for advice_id, members in groups.items():
        first = members[0]
        text = texts.get(advice_id)
        what = text["what_to_try"] if text else advice(advice_id)[1]
        header = (
            f"**{escape_text(first.get('severity') or 'info', limit=20)}** "
            f"({escape_text(first.get('kind') or 'finding', limit=40)}"
            + (f", {len(members)} findings" if len(members) > 1 else "")
            + ")"
            + (f": *Try:* {escape_text(what, limit=_MAX_MESSAGE)}" if what else "")
        )
        for i, f in enumerate(members):
            lines.append(
                {
                    "header": header if i == 0 else None,
                    "text": escape_text(f.get("message") or "", limit=_MAX_MESSAGE),
                }
            )
    return lines


def _ncu_lines(kernels: list[KernelRecord], names: _Names) -> list[str]:
    """ncu's own estimates beside ours, one line per kernel group ncu estimated."""
    lines = []
    for r in ncu_estimate_rows(kernels, limit=5):
        rules = "; ".join(escape_text(t, limit=_MAX_MESSAGE) for t in r["rules"])
        if r["more_rules"]:
            rules += f" and {r['more_rules']} more"
        line = (
            f"{names.of_full(r['full'])}: ncu {r['ncu']}, ours {r['ours']}, "
            f"ranked by {r['ranked_by']} ({r['ranked']})" + (f"; {rules}" if rules else "")
        )
        if r["note"]:
            line += f". {escape_text(r['note'], limit=_MAX_MESSAGE)}"
        lines.append(line)
    return lines


def _gate_lines(gates: list[GateRecord], names: _Names) -> list[str]:
    lines = []
    for g in gates:
        rule = escape_text(str(g.get("rule") or "gate").strip() or "gate", limit=80)
        where = names.of_full(g["kernel"]) if g.get("kernel") is not None else "whole profile"
        message = escape_text(g.get("message") or "", limit=_MAX_MESSAGE)
        lines.append(f"**{rule}**, {where}: {message}")
    return lines


def _omitted(n: int) -> str | None:
    """How many items a list leaves out, as the template prints it; ``None`` for none."""
    return TEXT.count(n) if n else None


def _fit(fits: Callable[[dict[str, int]], bool], key: str, low: int, high: int) -> int:
    """The largest n in [low, high] for which the document fits with ``key`` set to n.

    The length grows with every limit, so a binary search finds it; ``low``
    when even that does not fit.
    """
    while low < high:
        mid = (low + high + 1) // 2
        if fits({key: mid}):
            low = mid
        else:
            high = mid - 1
    return low


#: The order in which a long report shrinks: (limit, the least it shrinks to
#: at that step).  Details go first; a few findings, top kernels and gates
#: stay as long as possible.
_SHRINK: tuple[tuple[str, int], ...] = (
    ("full", 0),
    ("roofs", 0),
    ("findings", 20),
    ("gates", 20),
    ("top", 5),
    ("findings", 0),
    ("top", 0),
    ("gates", 0),
)


def _budget_line(context: ReportContext) -> str | None:
    """The timeline's budget in one line (``report --nsys``), escaped; ``None`` without one."""
    line = budget_line(context.get("budget"))
    return escape_text(line, limit=600) if line else None


def render_markdown(
    context: ReportContext,
    *,
    html_url: str | None = None,
    top: int = 10,
) -> str:
    """Render a report context as GitHub-flavoured Markdown for a PR comment.

    With the context's ``gates`` record (gates were asked for) the verdict
    says how many tripped, and each is listed.  The result is never longer
    than :data:`MAX_MARKDOWN_CHARS`.
    """
    gates = tripped_gates(context)
    kernels = list(context.get("kernels") or [])
    with_theory = context.get("theory") is not None
    names = _Names(kernels)
    ranked = _by_recoverable(kernels)
    targets = [p["target"] for p in context.get("projection") or []]
    top_rows = _top_rows(ranked, names, with_theory, targets)
    with_shape = any(k.get("grid") or k.get("block") for k in kernels)
    full_rows = _full_rows(kernels, with_shape, with_theory, targets)
    findings = _finding_lines(list(context.get("findings") or []), context.get("advice") or {})
    gate_lines = _gate_lines(list(gates or []), names)
    fixed = {
        "ncu_lines": _ncu_lines(kernels, names),
        "title": _title(context),
        "devices": _devices(context),
        "verdict": _verdict(context, names, gates),
        "budget_line": _budget_line(context),
        "projection_lines": _projection_lines(context),
        "projection_targets": [escape_text(t) for t in targets],
        "summary": _summary(context),
        "with_shape": with_shape,
        "shape_missing": LAUNCH_SHAPE_MISSING,
        "bound_rows": _bound_rows(context),
        "roof_groups": _roof_groups(context),
        "with_theory": with_theory,
        "html_link": html_link(html_url) if html_url else None,
        "kernel_total": TEXT.count(len(kernels)),
        "no_recoverable": bool(kernels) and not top_rows,
    }
    advice_lines = _advice_lines(
        ranked[: max(0, int(top))], list(context.get("findings") or []), context.get("advice") or {}
    )
    limits = {
        "top": max(0, min(int(top), len(top_rows))),
        "full": len(full_rows),
        "roofs": 1,
        "findings": len(findings),
        "gates": len(gate_lines),
    }

    def draw(change: dict[str, int]) -> str:
        n = {**limits, **change}
        shown_full = full_rows[: n["full"]]
        return (
            render(
                TEMPLATE,
                **fixed,
                top_rows=top_rows[: n["top"]],
                advice_lines=advice_lines if n["top"] else [],
                full_rows=shown_full,
                full_shown=TEXT.count(len(shown_full)),
                full_cut=len(shown_full) < len(kernels),
                show_roofs=bool(n["roofs"]) and bool(fixed["roof_groups"]),
                findings=findings[: n["findings"]],
                findings_omitted=_omitted(len(findings) - n["findings"]),
                gates=gate_lines[: n["gates"]],
                gates_omitted=_omitted(len(gate_lines) - n["gates"]),
                gates_given=gates is not None,
            ).rstrip("\n")
            + "\n"
        )

    def fits(change: dict[str, int]) -> bool:
        return len(draw(change)) <= MAX_MARKDOWN_CHARS

    # Shrink, least useful first, until the document fits.
    for key, floor in _SHRINK:
        if fits({}):
            break
        if limits[key] > floor:
            limits[key] = _fit(fits, key, floor, limits[key])
    text = draw({})
    if len(text) > MAX_MARKDOWN_CHARS and fixed["html_link"]:
        # Only the bounded header and an overlong link are left.
        fixed["html_link"] = None
        text = draw({})
    return text
