"""The ``history`` documents: Markdown table, HTML page with trend charts.

:func:`~ncu_roofline.fleet.history.build_history` computes the plain-data
history (series, change points, ranks); this module only words and formats
it for the templates.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.render.charts.history import group_colour, history_figures
from ncu_roofline.render.format import TABLE, TEXT, Formatter, plural
from ncu_roofline.render.html_report import generated_at_text, page_assets
from ncu_roofline.render.markdown_report import escape_code, escape_text
from ncu_roofline.render.templates import environment, render
from ncu_roofline.report.schema import HistoryContext, HistoryGroup
from ncu_roofline.version import __version__

#: How each metric is named in the documents.
METRIC_WORDS = {
    "duration": "time per launch",
    "efficiency": "efficiency",
    "recoverable": "recoverable time",
}
_FIELDS = {"duration": "duration_s", "efficiency": "efficiency", "recoverable": "recoverable_s"}


class ChangeRow(TypedDict):
    """A change point as text: its group, run, values before and after, and the step."""

    group: int
    kernel: str
    label: str
    when: str
    run: int
    before: str
    after: str
    step: str
    verdict: str
    regression: bool


class GroupRow(TypedDict):
    """A kernel group's history as text: first and latest value, changes, colour."""

    number: int
    kernel: str
    full: str
    gpu: str
    shape: str
    runs: str
    first: str
    latest: str
    efficiency: str
    recoverable: str
    changes: int
    regressions: int
    colour: str


def _value(metric: str, value: object, fmt: Formatter) -> str:
    return fmt.pct(value) if metric == "efficiency" else fmt.duration(value)


def _rule_line(context: HistoryContext) -> str:
    r = context["rule"]
    return (
        f"a change is a step of more than max({TEXT.number(r['noise'])} × noise, "
        f"{TEXT.pct(r['min_step'], 0)}) from the median of the previous {r['window']} runs, "
        f"sustained over {r['sustain']} runs"
    )


def _filters(context: HistoryContext) -> str:
    q = context["query"]
    parts = []
    if q["kernel"]:
        parts.append(f"kernel ~ {q['kernel']}")
    parts += [f"{k}={v}" for k, v in q["tags"].items()]
    if q["since"]:
        parts.append(f"since {q['since']}")
    parts.append("ordered by " + ("run time" if q["order_by"] == "time" else q["order_by"]))
    return ", ".join(parts)


def _headline(context: HistoryContext) -> str:
    changes = context["changes"]
    regressions = sum(1 for c in changes if c["regression"])
    return (
        f"{plural(context['runs'], 'run')}, {plural(context['series'], 'kernel group')}, "
        f"{plural(len(changes), 'change point')} in {METRIC_WORDS[context['query']['metric']]} "
        f"({plural(regressions, 'regression')})"
    )


def _change_rows(context: HistoryContext, fmt: Formatter, md: bool) -> list[ChangeRow]:
    metric = context["query"]["metric"]
    rows: list[ChangeRow] = []
    for c in context["changes"]:
        rows.append(
            {
                "group": c["group"],
                "kernel": escape_code(c["kernel_short"], table=True) if md else c["kernel_short"],
                "label": escape_text(c["label"]) if md else c["label"],
                "when": c["run_time"][:10],
                "run": c["run"],
                "before": _value(metric, c["before"], fmt),
                "after": _value(metric, c["after"], fmt),
                "step": fmt.pct(c["step"], sign=True),
                "verdict": "regression" if c["regression"] else "improvement",
                "regression": c["regression"],
            }
        )
    return rows


def _group_rows(context: HistoryContext, fmt: Formatter, md: bool) -> list[GroupRow]:
    metric = context["query"]["metric"]
    field = _FIELDS[metric]
    rows: list[GroupRow] = []
    for i, g in enumerate(context["groups"]):
        first, latest = g["points"][0], g["points"][-1]
        rows.append(
            {
                "number": g["number"],
                "kernel": escape_code(g["kernel_short"], table=True) if md else g["kernel_short"],
                "full": g["kernel"],
                "gpu": escape_text(g["gpu"]) if md else g["gpu"],
                "shape": _shape(g, md),
                "runs": fmt.count(g["runs"]),
                "first": _value(metric, first[field], fmt),  # type: ignore[literal-required]
                "latest": _value(metric, latest[field], fmt),  # type: ignore[literal-required]
                "efficiency": fmt.pct(latest["efficiency"]),
                "recoverable": fmt.duration(latest["recoverable_s"]),
                "changes": len(g["changes"]),
                "regressions": sum(1 for c in g["changes"] if c["regression"]),
                "colour": group_colour(i),
            }
        )
    return rows


def _shape(g: HistoryGroup, md: bool) -> str:
    text = f"{g['grid'] or '?'} × {g['block'] or '?'}"
    return escape_text(text) if md else text


def render_history_markdown(context: HistoryContext) -> str:
    """The history as GitHub-flavoured Markdown: change points first, then the groups."""
    return (
        render(
            "history_md.txt.j2",
            dataset=escape_text(context["dataset"]),
            headline=_headline(context),
            filters=escape_text(_filters(context), 400),
            rule=_rule_line(context),
            metric=METRIC_WORDS[context["query"]["metric"]],
            changes=_change_rows(context, TEXT, md=True),
            groups=_group_rows(context, TEXT, md=True),
            omitted=context["omitted"],
        ).rstrip("\n")
        + "\n"
    )


def render_history_html(context: HistoryContext, plotly_js: str = "inline") -> str:
    """The history page: headline, change points, trend charts and the group table."""
    charts = history_figures(context)
    template = environment().get_template("history.html.j2")
    return template.render(
        title=f"History of {context['dataset']}",
        version=__version__,
        generated_at=generated_at_text(),
        headline=_headline(context),
        filters=_filters(context),
        rule=_rule_line(context),
        metric=METRIC_WORDS[context["query"]["metric"]],
        changes=_change_rows(context, TABLE, md=False),
        groups=_group_rows(context, TABLE, md=False),
        omitted=context["omitted"],
        sql=context["sql"],
        charts=[{"id": c["id"], "title": c["title"]} for c in charts],
        data={"charts": {c["id"]: c["figure"] for c in charts}},
        **page_assets(plotly_js),
    )
