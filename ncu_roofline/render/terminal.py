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

from ncu_roofline.analysis.catalogue import abbreviation, advice_label
from ncu_roofline.core.names import middle_cut
from ncu_roofline.render.advice_refs import groups_by_advice
from ncu_roofline.render.compare_text import LAUNCH_SHAPE_MISSING
from ncu_roofline.render.format import TEXT, file_name, plural
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.render.severity import severity_counts
from ncu_roofline.render.story import first_step_text, story
from ncu_roofline.report.schema import FindingRecord, KernelRecord, ReportContext
from ncu_roofline.version import NAME

#: Narrowest kernel-name column before columns are dropped.
_MIN_NAME = 12
#: Name width the findings column makes room for before it is cut.
_NAME_ROOM = 28
#: Name width kept by dropping columns, least important first.
_NAME_ROOM_NARROW = 24
#: Widest findings column.
_MAX_FINDINGS = 32
#: Marks an efficiency against the theory floor rather than a roof.
_THEORY_MARK = "th"
_GAP = "  "


def _clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters, the last one ``…`` when cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def _clip_words(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters at a word boundary, ``…`` when cut.

    A list of finding words (``tail effect, excess traffic``) loses whole
    words, never half of one; a first word that does not fit is cut.
    """
    if len(text) <= width:
        return text
    cut = text[: max(0, width - 1)]
    if text[len(cut)] not in " ,":
        cut = cut.rsplit(" ", 1)[0] if " " in cut else cut
    cut = cut.rstrip(" ,")
    return (cut + "…") if cut else _clip(text, width)


def _grid(k: KernelRecord) -> str:
    """The grid without brackets and spaces (``16,32,1``): the name column needs the room."""
    return "".join(ch for ch in str(k.get("grid") or "") if ch not in "() ")


def _efficiency(k: KernelRecord) -> str:
    """The share of the roof reached; where no roof applies, of the theory floor (``th``)."""
    if k.get("efficiency") is None and k.get("theory_efficiency") is not None:
        return f"{TEXT.pct(k.get('theory_efficiency'))} {_THEORY_MARK}"
    return TEXT.pct(k.get("efficiency"))


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

    def __init__(self, title: str, cell: Callable[[KernelRecord], str], right: bool) -> None:
        self.title = title
        self.cell = cell
        self.right = right


def _header(context: ReportContext, groups: int, shape: bool) -> list[str]:
    """The inputs, the totals, whether the launch shape is missing, and a blank line."""
    summary = context.get("summary") or {}
    inputs = [file_name(i.get("path")) for i in context.get("inputs") or []]
    total = summary.get("total_duration_s")
    recoverable = summary.get("recoverable_s")
    share = f" ({TEXT.pct(recoverable / total)})" if recoverable is not None and total else ""
    figures = story(context)
    latency = figures["latency_s"]
    return [
        f"{NAME}: " + (", ".join(terminal_safe(n) for n in inputs) or "no input"),
        f"{TEXT.duration(total)} kernel time, "
        f"{TEXT.recoverable_total(recoverable, summary.get('recoverable_unknown'))} "
        f"recoverable{share}, "
        + (f"{TEXT.duration(latency)} latency, " if latency else "")
        + f"{plural(groups, 'kernel group')}, "
        + plural(int(summary.get("launches") or 0), "launch", "launches"),
        *(
            [
                f"{plural(failed, 'launch', 'launches')} whose profiling failed "
                "(time unknown, in no total)"
            ]
            if (failed := int((summary.get("profiling_failed") or {}).get("launches") or 0))
            else []
        ),
        *([] if shape or not groups else [f"grid and block: {LAUNCH_SHAPE_MISSING}"]),
        "",
    ]


#: Index of the kernel-name column, the one that takes what the others leave.
_NAME = 1
#: Columns dropped, in this order, while the name column has too little room.
_DROP_ORDER = ("findings", "grid", "share", "bound", "roof%")


def _fit(widths: list[int], width: int, titles: list[str], wanted: int) -> list[int]:
    """The columns kept in ``width`` characters; narrows the name column in ``widths`` to fit."""
    keep = list(range(len(widths)))
    for title in _DROP_ORDER:
        if title not in titles:
            continue
        drop = titles.index(title)
        others = sum(widths[i] for i in keep if i != _NAME) + len(_GAP) * (len(keep) - 1)
        # Findings and grid go to keep a readable name; the others only when
        # the name would not fit at all.
        if width - others >= (wanted if title in ("findings", "grid") else _MIN_NAME):
            break
        keep.remove(drop)
    others = sum(widths[i] for i in keep if i != _NAME) + len(_GAP) * (len(keep) - 1)
    widths[_NAME] = max(1, min(widths[_NAME], width - others))
    return keep


def _ranks(groups: list[KernelRecord]) -> str:
    """``"#1,#4"``: the groups' table numbers."""
    return ",".join(f"#{k.get('rank')}" for k in groups)


def _try_lines(shown: list[KernelRecord]) -> list[str]:
    """What to try for the groups shown, each advice once with the groups' numbers.

    The full text is in the HTML, Markdown and JSON reports (``advice``).
    """
    users = groups_by_advice(shown)
    if not users:
        return []
    out = ["try:"]
    out += [
        f"  {_ranks(groups)}: {terminal_safe(advice_label(a))} ({a})" for a, groups in users.items()
    ]
    out.append("")
    return out


def _footer(findings: list[FindingRecord]) -> str:
    """The findings counted by severity."""
    counts = severity_counts(findings)
    # "info" is a mass noun: "3 info", not "3 infos".
    return (
        plural(sum(counts.values()), "finding")
        + ": "
        + ", ".join(plural(n, sev, sev if sev == "info" else None) for sev, n in counts.items())
    )


def render_summary(context: ReportContext, *, width: int = 100, top: int = 15) -> str:
    """Render a report context as a plain-text table no wider than ``width`` columns.

    Rows are the ``top`` kernel groups by total time (the context's rank):
    rank, unique short name (cut in the middle, so that the end that tells
    siblings apart survives), grid, bound class, share of the roof reached
    (of the theory floor where no roof applies), time, share of the
    profile's time, recoverable time and the kinds of finding about the
    kernel in words.  A header line names the inputs and totals and says once
    when the exports have no launch shape; a footer counts the findings by
    severity.
    """
    width = max(1, int(width))
    kernels = list(context.get("kernels") or [])
    findings = list(context.get("findings") or [])
    shown = kernels[: max(0, int(top))]
    kinds = _kinds_by_kernel(findings)

    shape = any(k.get("grid") for k in kernels)
    lines = _header(context, len(kernels), shape)

    columns = [
        _Column("#", lambda k: str(k.get("rank") or ""), True),
        _Column(
            "kernel",
            lambda k: terminal_safe(k.get("kernel_short") or k.get("kernel") or "?"),
            False,
        ),
        *([_Column("grid", _grid, False)] if shape else []),
        _Column(
            "bound",
            lambda k: str(k.get("bound") or "n/a"),
            False,
        ),
        _Column("roof%", _efficiency, True),
        _Column("time", lambda k: TEXT.duration(k.get("total_duration_s")), True),
        _Column("share", lambda k: TEXT.pct(k.get("time_share")), True),
        _Column("recov.", lambda k: TEXT.recoverable(k.get("recoverable_s")), True),
        _Column("findings", lambda k: ", ".join(kinds.get(str(k.get("kernel")), [])), False),
    ]
    cells = [[terminal_safe(c.cell(k)) for c in columns] for k in shown]
    widths = [max([len(c.title), *(len(row[i]) for row in cells)]) for i, c in enumerate(columns)]
    # The findings column gives up room before the name column drops under
    # _NAME_ROOM characters: a name cut short tells siblings apart no more.
    wanted = min(widths[_NAME], _NAME_ROOM)
    others = sum(widths[:-1]) - widths[_NAME] + len(_GAP) * (len(widths) - 1)
    widths[-1] = max(
        len(columns[-1].title), min(widths[-1], _MAX_FINDINGS, width - others - wanted)
    )
    keep = _fit(
        widths, width, [c.title for c in columns], max(_MIN_NAME, min(wanted, _NAME_ROOM_NARROW))
    )

    findings_col = len(columns) - 1

    def line(texts: list[str]) -> str:
        parts = []
        for i in keep:
            cut = middle_cut if i == _NAME else _clip_words if i == findings_col else _clip
            text = cut(texts[i], widths[i])
            parts.append(text.rjust(widths[i]) if columns[i].right else text.ljust(widths[i]))
        return _GAP.join(parts).rstrip()

    lines.append(line([c.title for c in columns]))
    lines.append(_GAP.join("-" * widths[i] for i in keep))
    lines.extend(line(row) for row in cells)
    if not shown:
        lines.append("(no kernels)")
    if len(kernels) > len(shown):
        more = len(kernels) - len(shown)
        lines.append(f"… {plural(more, 'more kernel group')} not shown")
    lines.append("")
    lines.extend(_try_lines(shown))
    roof = next(i for i, c in enumerate(columns) if c.title == "roof%")
    if roof in keep and any(row[roof].endswith(_THEORY_MARK) for row in cells):
        lines.append(f"{_THEORY_MARK}: share of the theory floor, for kernels with no roof")
    lines.append(_footer(findings))
    short = {str(k.get("kernel")): str(k.get("kernel_short") or k.get("kernel")) for k in kernels}
    lines.append(
        "first: " + terminal_safe(first_step_text(story(context)["first"], short, command=False))
    )
    return "\n".join(_clip(text, width) for text in lines) + "\n"
