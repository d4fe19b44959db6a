"""The terminal summary: a plain-text table of the kernels that take the most time.

No line is longer than ``width`` characters: the kernel-name column takes
what the other columns leave, names are cut with ``…``, and on very narrow
terminals the least important columns go.  The text has no ANSI colours, and
control characters from the data (an escape sequence in a kernel name) are
replaced (:func:`~ncu_roofline.render.safe_text.terminal_safe`) so that
nothing in a profile can drive the terminal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ncu_roofline.analysis.catalogue import BOUND_ABBREVIATIONS, abbreviation
from ncu_roofline.render.format import TEXT, file_name, plural
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.render.severity import severity_counts
from ncu_roofline.report.schema import FindingRecord, ReportContext
from ncu_roofline.version import NAME

#: Narrowest kernel-name column before columns are dropped.
_MIN_NAME = 12
#: Widest findings column.
_MAX_FINDINGS = 18
_GAP = "  "


def _clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one ``…`` when cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _kinds_by_kernel(findings: list[FindingRecord]) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for f in findings:
        if f.get("kernel") is None:
            continue
        kind = str(f.get("kind") or "")
        short = abbreviation(kind)
        listed = kinds.setdefault(str(f["kernel"]), [])
        if short not in listed:
            listed.append(short)
    return kinds


class _Column:
    """One table column: a title, right or left alignment and its cell text per row."""

    def __init__(self, title: str, cell: Callable[[dict[str, Any]], str], right: bool) -> None:
        self.title = title
        self.cell = cell
        self.right = right


def _header(context: ReportContext, groups: int) -> list[str]:
    """The inputs, the totals and a blank line."""
    summary = context.get("summary") or {}
    inputs = [file_name(i.get("path")) for i in context.get("inputs") or []]
    total = summary.get("total_duration_s")
    recoverable = summary.get("recoverable_s")
    share = f" ({TEXT.pct(recoverable / total)})" if recoverable is not None and total else ""
    launches = TEXT.count(summary.get("launches") or 0)
    latency = summary.get("latency_s")
    return [
        f"{NAME}: " + (", ".join(terminal_safe(n) for n in inputs) or "no input"),
        f"{TEXT.duration(total)} kernel time, {TEXT.duration(recoverable)} recoverable{share}, "
        + (f"{TEXT.duration(latency)} latency, " if latency else "")
        + f"{TEXT.count(groups)} kernel group(s), {launches} launch(es)",
        "",
    ]


#: Index of the kernel-name column, the one that takes what the others leave.
_NAME = 1
#: Columns dropped, in this order, while the name column has too little room:
#: findings, share, bound, roof%.
_DROP_ORDER = (7, 5, 3, 4)


def _fit(widths: list[int], width: int) -> list[int]:
    """The columns kept in ``width`` characters; narrows the name column in ``widths`` to fit."""
    keep = list(range(len(widths)))
    for drop in _DROP_ORDER:
        others = sum(widths[i] for i in keep if i != _NAME) + len(_GAP) * (len(keep) - 1)
        if width - others >= _MIN_NAME:
            break
        keep.remove(drop)
    others = sum(widths[i] for i in keep if i != _NAME) + len(_GAP) * (len(keep) - 1)
    widths[_NAME] = max(1, min(widths[_NAME], width - others))
    return keep


def _footer(findings: list[FindingRecord]) -> str:
    """The findings counted by severity."""
    counts = severity_counts(findings)
    # "info" is a mass noun: "3 info", not "3 infos".
    return "findings: " + ", ".join(
        plural(n, sev, sev if sev == "info" else None) for sev, n in counts.items()
    )


def render_summary(context: ReportContext, *, width: int = 100, top: int = 15) -> str:
    """Render a report context as a plain-text table no wider than ``width`` columns.

    Rows are the ``top`` kernel groups by total time (the context's rank):
    rank, short name, bound class, share of the roof reached, time, share of
    the profile's time, recoverable time and the kinds of finding about the
    kernel.  A header line names the inputs and totals; a footer counts the
    findings by severity.
    """
    width = max(1, int(width))
    kernels = list(context.get("kernels") or [])
    findings = list(context.get("findings") or [])
    shown = kernels[: max(0, int(top))]
    kinds = _kinds_by_kernel(findings)

    lines = _header(context, len(kernels))

    columns = [
        _Column("#", lambda k: str(k.get("rank") or ""), True),
        _Column(
            "kernel",
            lambda k: terminal_safe(k.get("kernel_short") or k.get("kernel") or "?"),
            False,
        ),
        _Column(
            "bound",
            lambda k: BOUND_ABBREVIATIONS.get(k.get("bound") or "", k.get("bound") or "n/a"),
            False,
        ),
        _Column("roof%", lambda k: TEXT.pct(k.get("efficiency")), True),
        _Column("time", lambda k: TEXT.duration(k.get("total_duration_s")), True),
        _Column("share", lambda k: TEXT.pct(k.get("time_share")), True),
        _Column("recov.", lambda k: TEXT.duration(k.get("recoverable_s")), True),
        _Column("findings", lambda k: ",".join(kinds.get(str(k.get("kernel")), [])), False),
    ]
    cells = [[terminal_safe(c.cell(k)) for c in columns] for k in shown]
    widths = [max([len(c.title), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    widths[-1] = min(widths[-1], _MAX_FINDINGS)
    keep = _fit(widths, width)

    def line(texts: list[str]) -> str:
        parts = []
        for i in keep:
            text = _clip(texts[i], widths[i])
            parts.append(text.rjust(widths[i]) if columns[i].right else text.ljust(widths[i]))
        return _GAP.join(parts).rstrip()

    lines.append(line([c.title for c in columns]))
    lines.append(_GAP.join("-" * widths[i] for i in keep))
    lines.extend(line(row) for row in cells)
    if not shown:
        lines.append("(no kernels)")
    if len(kernels) > len(shown):
        lines.append(f"… {TEXT.count(len(kernels) - len(shown))} more kernel group(s) not shown")
    lines.append("")
    lines.append(_footer(findings))
    return "\n".join(_clip(text, width) for text in lines) + "\n"
