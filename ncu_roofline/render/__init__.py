"""Renderers: a plain-data context to a document, looked up by kind and format.

Design: every document the command line writes is one entry of
:data:`RENDERERS`, keyed by the kind of document and the format:

- ``report`` (:func:`~ncu_roofline.report.context.build_context`): html, json,
  md, junit, and text (the terminal table of ``summary``);
- ``comparison`` (:func:`~ncu_roofline.report.compare.comparison_document`):
  html, json, md, junit;
- ``theory`` (:func:`~ncu_roofline.report.theory.build_theory_table`):
  html, json, text;
- ``inspect`` (:func:`~ncu_roofline.report.inspect.inspect_profile`): json, text;
- ``gpus`` (:class:`~ncu_roofline.report.schema.GpusDocument`): json, text;
- ``history`` (:func:`~ncu_roofline.fleet.history.build_history`): html, json, md;
- ``timeline`` (:func:`~ncu_roofline.report.timeline.timeline_document`):
  html, json, md, text.

Each entry takes the context and :class:`RenderOptions` and returns the whole
document (``str``, or ``bytes`` for JUnit XML).  :func:`stream_document` gives
a document in pieces for writing: the JSON report's launches are encoded a
block at a time (:func:`~ncu_roofline.render.json_report.iter_json_report`),
every other document comes as one piece.  An entry needs nothing but
plain data: the HTML entries build their charts here, so a caller never
handles figures.  Each entry imports its writer when it runs: the charts and
the HTML, Markdown and JUnit writers are never loaded for a listing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ncu_roofline._lazy import lazy_attributes
from ncu_roofline.render.options import FORMATS, PLOTLY_MODES
from ncu_roofline.version import NAME, __version__

if TYPE_CHECKING:
    from ncu_roofline.render.json_report import render_json, render_json_bytes
    from ncu_roofline.report.schema import (
        ComparisonDocument,
        GpusDocument,
        HistoryContext,
        InspectDocument,
        ReportContext,
        TheoryTable,
    )
    from ncu_roofline.report.timeline import TimelineDocument

# The report's JSON encoder (orjson) and the schema's types are imported where
# used: the command line imports this module for FORMATS and RenderOptions.


@dataclass(frozen=True)
class RenderOptions:
    """How to render, beyond the context itself.

    Tripped gates are not an option: they travel in the context's ``gates``
    record (:func:`~ncu_roofline.report.schema.tripped_gates`), the one
    place every renderer reads them from.
    """

    plotly_js: str = "inline"
    html_url: str | None = None
    top: int = 10
    width: int = 100


#: A renderer: the plain-data context and the options to the document.
#: Each takes its own kind's document type (a report, a comparison document...).
Renderer = Callable[[Any, RenderOptions], str | bytes]


def _json(context: Mapping[str, Any], options: RenderOptions) -> bytes:
    from ncu_roofline.render.json_report import render_json_bytes

    return render_json_bytes(context)


def _report_html(context: ReportContext, options: RenderOptions) -> str:
    from ncu_roofline.render.html_report import render_html
    from ncu_roofline.render.page import build_page

    return render_html(build_page(context, plotly_js=options.plotly_js))


def _report_md(context: ReportContext, options: RenderOptions) -> str:
    from ncu_roofline.render.markdown_report import render_markdown

    return render_markdown(context, html_url=options.html_url, top=options.top)


def _report_junit(context: ReportContext, options: RenderOptions) -> bytes:
    from ncu_roofline.render.junit_report import render_junit

    return render_junit(context)


def _report_text(context: ReportContext, options: RenderOptions) -> str:
    from ncu_roofline.render.terminal import render_summary

    return render_summary(context, width=options.width, top=options.top).rstrip("\n") + "\n"


def _comparison_html(doc: ComparisonDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.charts import comparison_figures
    from ncu_roofline.render.compare_report import render_compare_html
    from ncu_roofline.render.page import untitled

    cmp = doc["comparison"]
    figures = untitled(comparison_figures(cmp, doc["base_report"], doc["candidate_report"]))
    return render_compare_html(cmp, figures, plotly_js=options.plotly_js)


def _comparison_md(doc: ComparisonDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.compare_report import render_compare_markdown

    return render_compare_markdown(doc["comparison"], html_url=options.html_url, top=options.top)


def _comparison_junit(doc: ComparisonDocument, options: RenderOptions) -> bytes:
    from ncu_roofline.render.junit_report import comparison_suite, render_suite

    suite = comparison_suite(doc["comparison"], doc["candidate_report"])
    return render_suite(suite, suite_name=f"{NAME} compare")


def _comparison_json(doc: ComparisonDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.compare_text import with_story_text
    from ncu_roofline.render.json_report import render_json

    return render_json(with_story_text(doc["comparison"]))


def _history_html(context: HistoryContext, options: RenderOptions) -> str:
    from ncu_roofline.render.history import render_history_html

    return render_history_html(context, options.plotly_js)


def _history_md(context: HistoryContext, options: RenderOptions) -> str:
    from ncu_roofline.render.history import render_history_markdown

    return render_history_markdown(context)


def _theory_html(table: TheoryTable, options: RenderOptions) -> str:
    from ncu_roofline.render.html_report import generated_at_text, render_theory_html
    from ncu_roofline.render.theory import theory_html_context

    return render_theory_html(
        theory_html_context(table), generated_at_text(), __version__, options.plotly_js
    )


def _theory_text(table: TheoryTable, options: RenderOptions) -> str:
    from ncu_roofline.render.text import theory_text

    return theory_text(table)


def _pretty_json(value: Any, indent: int) -> str:
    # The listings are small and read by people too: indented, ASCII-escaped.
    return json.dumps(value, indent=indent, allow_nan=False) + "\n"


def _inspect_json(data: InspectDocument, options: RenderOptions) -> str:
    return _pretty_json(data, 2)


def _inspect_text(data: InspectDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.text import inspect_text

    return inspect_text(data)


def _gpus_json(context: GpusDocument, options: RenderOptions) -> str:
    return _pretty_json(context["gpus"], 1)


def _gpus_text(context: GpusDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.text import gpus_text

    return gpus_text(context["gpus"])


def _timeline_html(doc: TimelineDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.html_report import generated_at_text
    from ncu_roofline.render.timeline_view import render_timeline_html

    return render_timeline_html(
        doc, generated_at=generated_at_text(), version=__version__, top=options.top
    )


def _timeline_md(doc: TimelineDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.timeline_view import render_timeline_markdown

    return render_timeline_markdown(doc, top=options.top)


def _timeline_text(doc: TimelineDocument, options: RenderOptions) -> str:
    from ncu_roofline.render.timeline_view import render_timeline_text

    return render_timeline_text(doc, width=options.width, top=options.top)


RENDERERS: dict[tuple[str, str], Renderer] = {
    ("report", "html"): _report_html,
    ("report", "json"): _json,
    ("report", "md"): _report_md,
    ("report", "junit"): _report_junit,
    ("report", "text"): _report_text,
    ("comparison", "html"): _comparison_html,
    ("comparison", "json"): _comparison_json,
    ("comparison", "md"): _comparison_md,
    ("comparison", "junit"): _comparison_junit,
    ("theory", "html"): _theory_html,
    ("theory", "json"): _json,
    ("theory", "text"): _theory_text,
    ("inspect", "json"): _inspect_json,
    ("inspect", "text"): _inspect_text,
    ("gpus", "json"): _gpus_json,
    ("gpus", "text"): _gpus_text,
    ("history", "html"): _history_html,
    ("history", "json"): _json,
    ("history", "md"): _history_md,
    ("timeline", "html"): _timeline_html,
    ("timeline", "json"): _json,
    ("timeline", "md"): _timeline_md,
    ("timeline", "text"): _timeline_text,
}


def render_document(
    kind: str,
    fmt: str,
    context: ReportContext | ComparisonDocument | Mapping[str, Any],
    options: RenderOptions | None = None,
) -> str | bytes:
    """Render ``context`` (a ``kind`` document) as ``fmt``; see the module docstring."""
    try:
        renderer = RENDERERS[(kind, fmt)]
    except KeyError:
        known = sorted(f for k, f in RENDERERS if k == kind)
        raise ValueError(f"no {fmt!r} renderer for {kind!r} documents (known: {known})") from None
    return renderer(context, options or RenderOptions())


def stream_document(
    kind: str,
    fmt: str,
    context: ReportContext | ComparisonDocument | Mapping[str, Any],
    options: RenderOptions | None = None,
) -> Iterator[str | bytes]:
    """:func:`render_document` in pieces that join to the same document.

    A ``report`` as ``json`` is encoded as it is written (see the module
    docstring); an unknown kind or format is refused before any piece.
    """
    if (kind, fmt) == ("report", "json"):
        from ncu_roofline.render.json_report import iter_json_report

        return iter_json_report(context)
    return iter((render_document(kind, fmt, context, options),))


__all__ = [
    "FORMATS",
    "PLOTLY_MODES",
    "RENDERERS",
    "RenderOptions",
    "Renderer",
    "render_document",
    "render_json",
    "render_json_bytes",
    "stream_document",
]


#: The JSON writers, imported from :mod:`.json_report` on first use.
__getattr__, __dir__ = lazy_attributes(
    globals(),
    {
        "render_json": "ncu_roofline.render.json_report",
        "render_json_bytes": "ncu_roofline.render.json_report",
    },
)
