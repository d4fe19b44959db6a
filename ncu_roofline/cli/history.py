"""``ncu-roofline history``: kernel groups over the runs of a dataset, with change points."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from ncu_roofline.analysis.changes import ChangeRule
from ncu_roofline.cli.export import parse_tags, parse_time
from ncu_roofline.cli.messages import emit
from ncu_roofline.cli.options import (
    force_option,
    format_from_name,
    format_option,
    output_option,
    plotly_option,
    top_option,
)
from ncu_roofline.cli.types import FiniteFloatRange
from ncu_roofline.errors import UsageError
from ncu_roofline.render.output import refuse_existing, write_output

_FORMATS = ("html", "md", "json")
_METRICS = ("duration", "efficiency", "recoverable")
_DIALECTS = ("duckdb", "spark", "trino")
F = TypeVar("F", bound=Callable[..., Any])


#: --metric and the change-point rule: --window, --sustain, --noise, --min-step.
_RULE_OPTIONS: tuple[Callable[[F], F], ...] = (
    click.option(
        "--metric",
        type=click.Choice(_METRICS),
        default="duration",
        show_default=True,
        help="What change points are found in: time per launch, efficiency or recoverable time.",
    ),
    click.option(
        "--window",
        type=click.IntRange(min=2),
        default=ChangeRule.window,
        show_default=True,
        help="Runs in the rolling baseline.",
    ),
    click.option(
        "--sustain",
        type=click.IntRange(min=1),
        default=ChangeRule.sustain,
        show_default=True,
        help="Runs a step must last to count.",
    ),
    click.option(
        "--noise",
        type=FiniteFloatRange(min=0.0),
        default=ChangeRule.noise,
        show_default=True,
        help="A step must exceed this many noise deviations (scaled MAD of the baseline).",
    ),
    click.option(
        "--min-step",
        type=FiniteFloatRange(min=0.0),
        default=ChangeRule.min_step,
        show_default=True,
        help="... and this share of the baseline (0.05 = 5%).",
    ),
)


def _rule_options(func: F) -> F:
    for option in reversed(_RULE_OPTIONS):
        func = option(func)
    return func


@click.command()
@click.argument("dataset", metavar="DATASET")
@click.option("--kernel", metavar="REGEX", help="Kernel groups whose name matches REGEX.")
@click.option(
    "--tag", "tags", multiple=True, metavar="KEY=VALUE", help="Runs with this tag (repeatable)."
)
@click.option("--since", metavar="DATE", help="Runs at or after DATE (ISO 8601, UTC).")
@click.option(
    "--order-by",
    default="time",
    show_default=True,
    metavar="time|TAG",
    help="Order runs by time, or by a tag's value (numbers as numbers).",
)
@click.option(
    "--label",
    default="commit",
    show_default=True,
    metavar="TAG",
    help="The tag that names a run (its time where the tag is absent).",
)
@_rule_options
@top_option(20, "Kernel groups shown with their trend (most regressed first).")
@output_option("Output file ('-' or none: standard output).")
@format_option(list(_FORMATS), "Output format (default: from the output name, else md).")
@plotly_option("Inline plotly.js (works offline) or load it from the Plotly CDN.")
@force_option
@click.option(
    "--sql", "print_sql", is_flag=True, help="Print the query and stop (no DuckDB needed)."
)
@click.option(
    "--dialect",
    type=click.Choice(_DIALECTS),
    default="duckdb",
    show_default=True,
    help="For --sql: the engine the query is written for.",
)
def history(
    dataset: str,
    kernel: str | None,
    tags: tuple[str, ...],
    since: str | None,
    order_by: str,
    label: str,
    metric: str,
    window: int,
    sustain: int,
    noise: float,
    min_step: float,
    top: int,
    output: str | None,
    fmt: str | None,
    plotly_js: str,
    force: bool,
    print_sql: bool,
    dialect: str,
) -> None:
    """Kernel groups over the runs of a dataset, with their change points.

    A kernel group across runs is its GPU, kernel name, grid and block.  Per
    run it shows the group's time per launch, efficiency and recoverable
    time, ordered by run time or by a tag (--order-by), and flags change
    points: a step beyond the noise (more than --noise scaled MADs and
    --min-step of the rolling median of the --window runs before it),
    sustained over --sustain runs, reported at the first run where it
    happened.  Groups with a regression come first.

    The dataset is queried with DuckDB (`pip install 'ncu-roofline[fleet]'`);
    --sql prints the query instead, for DuckDB, Spark or Trino.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error (a bad query or
    option), 4 not a dataset or a damaged dataset file, 5 the output exists
    or cannot be written, 6 DuckDB missing, 7 no such dataset or a dataset
    file that cannot be opened, 8 out of memory.
    """
    from ncu_roofline.fleet.history import HistoryQuery, history_sql

    rule = ChangeRule(
        window=window,
        sustain=sustain,
        noise=noise,
        min_step=min_step,
        min_baseline=min(ChangeRule.min_baseline, window),
    )
    query = HistoryQuery(
        kernel=kernel,
        tags=tuple(parse_tags(tags).items()),
        since=parse_time(since),
        order_by=order_by,
        label=label,
        metric=metric,
        rule=rule,
        top=top,
    )
    if print_sql:
        write_output(history_sql(query, dialect) + ";\n", None)
        return
    out_format = fmt or format_from_name(output, _FORMATS)
    if out_format is None and output and output != "-":
        raise UsageError(f"{output}: cannot tell the format from the name; add --format")
    refuse_existing(output, force)

    from ncu_roofline.fleet.engine import Dataset
    from ncu_roofline.fleet.history import build_history
    from ncu_roofline.render import RenderOptions, render_document

    with Dataset(dataset) as ds:
        context = build_history(ds, query)
    out_format = out_format or "md"
    text = render_document("history", out_format, context, RenderOptions(plotly_js=plotly_js))
    emit(
        text,
        output,
        force,
        f"({out_format}): {context['runs']:,} runs, {context['series']:,} kernel groups, "
        f"{len(context['changes'])} change points",
    )
