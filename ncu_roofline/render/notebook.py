"""What a notebook shows of a profile, an analysis or a comparison: a card, a line, a chart.

Jupyter displays an object by its ``_repr_html_`` (a card) and prints it by
its ``repr`` (one line); :mod:`ncu_roofline.notebook` gives the objects of
the public API both, from the functions here.  Each reads plain data only:
the cards of :mod:`ncu_roofline.report.card`, the report context, the
comparison context.

A card is the report page's first screen in small: the GPU, launches,
kernel groups, kernel time and recoverable time in the page's own words
(:func:`~ncu_roofline.render.page.headline`), and the page's table of the
groups with the most recoverable time
(:func:`~ncu_roofline.render.page.top_recoverable`).  It is rendered by the
template engine of every page (autoescaped, control and bidirectional
characters shown as escapes) and holds no script.  A line is
:func:`~ncu_roofline.render.safe_text.safe_text` with its names clipped, so it
stays one short line whatever a profile names its GPU or its files.

A chart is the page's: the same figure of the same builder, with its
in-chart title kept (a notebook has no heading above it) and the view menu's
button for the asked view applied
(:func:`~ncu_roofline.render.charts.figure.show_view`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ncu_roofline.errors import NcuRooflineError, UsageError
from ncu_roofline.render.charts import comparison_figures
from ncu_roofline.render.charts.figure import check_view, show_view
from ncu_roofline.render.charts.layout import device_label, device_name
from ncu_roofline.render.charts.types import PlotlyJSON, RooflineChart
from ncu_roofline.render.compare_report import comparison_headline, html_rows
from ncu_roofline.render.compare_text import summary_line
from ncu_roofline.render.format import TABLE, file_name, plural
from ncu_roofline.render.page import TOP_RECOVERABLE, headline, page_charts, top_recoverable
from ncu_roofline.render.safe_text import safe_text
from ncu_roofline.render.templates import render, shown_data
from ncu_roofline.report.card import AnalysisCard, ProfileCard
from ncu_roofline.report.schema import (
    ComparisonContext,
    ComparisonDocument,
    DeviceRoofsRecord,
    InputRecord,
    ReportContext,
)

__all__ = [
    "CARD_ROWS",
    "analysis_html",
    "analysis_line",
    "comparison_chart",
    "comparison_html",
    "comparison_line",
    "profile_html",
    "profile_line",
    "roofline_chart",
]

#: Kernels a card lists: as many as the page's table of the most recoverable time.
CARD_ROWS = TOP_RECOVERABLE
#: Longest GPU or file name a one-line ``repr`` shows before clipping it.
_NAME_CHARS = 40
#: Inputs a card names before saying how many more there are.
_INPUTS_NAMED = 3


def _clip(text: str, width: int = _NAME_CHARS) -> str:
    """One line of ``text`` at most ``width`` characters, the last one ``…`` when cut."""
    shown = safe_text(text)
    return shown if len(shown) <= width else shown[: width - 1] + "…"


def _few(names: Sequence[str], clip: bool = False) -> str:
    """``a, b, c and 2 more``; ``none`` for no name."""
    shown = [_clip(n) if clip else n for n in names[:_INPUTS_NAMED]]
    if not shown:
        return "none"
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more else "")


def _on(names: Sequence[str]) -> str:
    """`` on <the GPU>`` for a line, the first of several GPUs and how many more."""
    if not names:
        return ""
    more = f" and {len(names) - 1} more" if len(names) > 1 else ""
    return f" on {_clip(names[0])}{more}"


def _inputs(inputs: list[InputRecord]) -> list[str]:
    return [file_name(i["path"]) for i in inputs]


def _devices(roofs: list[DeviceRoofsRecord], label: bool) -> list[str]:
    """Each device's name (with its compute capability when ``label``), once each."""
    named = device_label if label else device_name
    return list(dict.fromkeys(named(d) for d in roofs))


def profile_line(card: ProfileCard) -> str:
    """A profile in one line: ``<Profile: 1,234 launches, 12 kernels on H100, 3.2 ms, from a.csv>``."""
    inputs = _inputs(card["inputs"])
    source = f", from {_clip(inputs[0])}" if len(inputs) == 1 else f", from {len(inputs)} inputs"
    return (
        f"<Profile: {plural(card['launches'], 'launch', 'launches')}, "
        f"{plural(card['kernels'], 'kernel')}{_on(card['devices'])}, "
        f"{TABLE.duration(card['total_duration_s'])}{source}>"
    )


def profile_html(card: ProfileCard) -> str:
    """A profile's card: inputs, GPU, launches, kernels, kernel time and the top kernels by time."""
    total = card["total_duration_s"]
    return render(
        "card.html.j2",
        kind="profile",
        heading="ncu-roofline profile",
        facts=[
            ("GPU", _few(card["devices"])),
            ("Inputs", _few(_inputs(card["inputs"]))),
            ("Launches", TABLE.count(card["launches"])),
            ("Kernels", TABLE.count(card["kernels"])),
            ("Kernel time", TABLE.duration(total)),
            ("Warnings", TABLE.count(sum(len(i["warnings"]) for i in card["inputs"]))),
        ],
        rows=[
            {
                "short": k["kernel_short"] or k["kernel"] or "?",
                "full": k["kernel"] or "",
                "launches": TABLE.count(k["launches"]),
                "time": TABLE.duration(k["total_duration_s"]),
                "share": TABLE.pct(k["time_share"]),
            }
            for k in card["top"]
        ],
        hint="ncu_roofline.analyze(profile) places every launch on the roofline.",
    )


def analysis_line(card: AnalysisCard) -> str:
    """An analysis in one line: launches, groups, GPU, kernel time and recoverable time."""
    summary = card["summary"]
    head = headline(summary)
    return (
        f"<Analysis: {plural(summary['launches'], 'launch', 'launches')}, "
        f"{plural(summary['kernels'], 'kernel group')}"
        f"{_on(_devices(card['roofs'], label=False))}, {head['total']}, "
        f"{head['recoverable']} recoverable>"
    )


def analysis_html(card: AnalysisCard) -> str:
    """An analysis's card: GPU, totals and the page's table of the most recoverable time."""
    summary = card["summary"]
    head = headline(summary)
    recoverable = head["recoverable"]
    if head["recoverable_share"] != TABLE.missing:
        recoverable += f" ({head['recoverable_share']} of kernel time)"
    return render(
        "card.html.j2",
        kind="analysis",
        heading="ncu-roofline analysis",
        facts=[
            ("GPU", _few(_devices(card["roofs"], label=True))),
            ("Inputs", _few(_inputs(card["inputs"]))),
            ("Launches", head["launches"]),
            ("Kernel groups", head["kernels"]),
            ("Kernel time", head["total"]),
            ("Recoverable", recoverable),
        ],
        rows=top_recoverable(card["kernels"], summary["total_duration_s"]),
        hint=(
            "analysis.figure(view='groups' | 'levels' | 'launches') draws the roofline; "
            "analysis.kernels holds every group."
        ),
    )


def comparison_line(cmp: ComparisonContext) -> str:
    """A comparison in one line: what differs, the change of kernel time, the verdicts."""
    return f"<Comparison: {summary_line(cmp)}>"


def comparison_html(cmp: ComparisonContext) -> str:
    """A comparison's card: both sides, the change of kernel time and the largest changes."""
    head = comparison_headline(cmp)
    totals, counts = head["totals"], head["counts"]
    differences = [d["message"] for d in cmp["context"]["differences"]]
    return render(
        "card.html.j2",
        kind="comparison",
        heading="ncu-roofline comparison",
        facts=[
            ("Base", _few(_inputs(cmp["base"]["inputs"]))),
            ("Candidate", _few(_inputs(cmp["candidate"]["inputs"]))),
            (
                "Kernel time",
                f"{totals['base']} → {totals['candidate']} ({totals['delta']}); "
                f"{totals['verdict']}",
            ),
            (
                "Kernel groups",
                f"{counts['regressions']} regressions, {counts['improvements']} improvements, "
                f"{counts['added']} new, {counts['removed']} removed",
            ),
            *(("Not like for like", d) for d in differences),
        ],
        rows=html_rows(cmp["kernels"][:CARD_ROWS]),
        hint="comparison.figure() draws where each group moved; comparison.kernels holds them all.",
    )


def _pick(charts: list[RooflineChart], device: int, why_none: str) -> RooflineChart:
    """The ``device``-th chart (in the page's order); why there is none when there is none."""
    if not charts:
        raise NcuRooflineError(f"no roofline chart: {why_none}")
    if isinstance(device, bool) or not isinstance(device, int) or not 0 <= device < len(charts):
        listed = "; ".join(f"{i}: {c['title']}" for i, c in enumerate(charts))
        raise UsageError(f"device must be a chart's number, not {device!r} ({listed})")
    return charts[device]


def roofline_chart(context: ReportContext, view: str = "groups", device: int = 0) -> PlotlyJSON:
    """The report page's roofline of one device as a plotly figure dict, in ``view``.

    ``view`` is a key of :data:`~ncu_roofline.render.charts.figure.VIEWS`
    (``"groups"``, ``"levels"``, ``"launches"``);
    ``device`` numbers the page's charts from 0.  Where the page draws no
    chart (no group could be placed), the error says what the export lacks.
    """
    # Before the charts are built: a typo costs nothing on a large profile.
    check_view(view)
    charts, collect = page_charts(context, titled=True)
    reasons = (collect["reasons"] if collect else None) or [
        "no device has both a compute and a memory roof"
    ]
    chart = _pick(charts, device, "; ".join(reasons))
    return dict(shown_data(show_view(chart["figure"], view)))


def comparison_chart(doc: ComparisonDocument, device: int = 0) -> PlotlyJSON:
    """The comparison page's roofline of one device of the candidate, as a plotly figure dict."""
    charts = comparison_figures(doc["comparison"], doc["base_report"], doc["candidate_report"])
    chart = _pick(charts, device, "no device has both a compute and a memory roof")
    return dict(shown_data(chart["figure"]))
