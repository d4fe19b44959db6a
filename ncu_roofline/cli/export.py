"""``ncu-roofline export``: append analysed profiles to a Parquet dataset, as one run."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

import click

from ncu_roofline.cli.analyse import analyse
from ncu_roofline.cli.config import load_config
from ncu_roofline.cli.messages import PROG, print_input_warnings
from ncu_roofline.cli.options import (
    RoofOptions,
    TheoryOptions,
    cache_option,
    config_option,
    inputs_argument,
    merge_option,
    progress_option,
    roof_options,
    theory_options,
)
from ncu_roofline.errors import NcuRooflineError, UsageError
from ncu_roofline.render.format import plural
from ncu_roofline.render.safe_text import terminal_safe

if TYPE_CHECKING:
    pass

_TAG_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")


def parse_tags(items: tuple[str, ...]) -> dict[str, str]:
    """``key=value`` options as a dict; a key is letters, digits, ``_``, ``.`` and ``-``."""
    tags: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--tag {item!r}: give key=value (e.g. --tag commit=abc123)")
        if not set(key) <= _TAG_KEY_CHARS:
            raise UsageError(f"--tag {item!r}: a key is letters, digits, '_', '.' and '-'")
        if key in tags and tags[key] != value:
            raise UsageError(f"--tag {key} given twice with different values")
        tags[key] = value
    return tags


def parse_time(text: str | None) -> datetime | None:
    """An ISO 8601 time (UTC when it names no zone), or None."""
    if text is None:
        return None
    try:
        at = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as e:
        raise UsageError(f"{text!r}: not an ISO 8601 date or time (e.g. 2026-12-01T12:00Z)") from e
    return at if at.tzinfo else at.replace(tzinfo=timezone.utc)


@click.command()
@inputs_argument
@click.option(
    "--to",
    "dataset",
    required=True,
    metavar="DATASET",
    help="Dataset directory (created when missing).",
)
@click.option(
    "--tag",
    "tags",
    multiple=True,
    metavar="KEY=VALUE",
    help="Tag the run (repeatable): commit, branch, model, batch, ...",
)
@click.option(
    "--time",
    "at",
    metavar="ISO",
    help="The run's time (default: now); e.g. the commit time when backfilling.",
)
@click.option(
    "--replace", is_flag=True, help="Export a run that is already there again, in its place."
)
@click.option(
    "--compact/--no-compact",
    "auto_compact",
    default=True,
    show_default=True,
    help="Compact the days before today that have 100 or more run files (see `compact`).",
)
@roof_options
@theory_options()
@config_option
@progress_option
@cache_option
@merge_option
def export(
    inputs: tuple[str, ...],
    dataset: str,
    tags: tuple[str, ...],
    at: str | None,
    replace: bool,
    auto_compact: bool,
    config_file: str | None,
    roofs: RoofOptions,
    theory: TheoryOptions,
    progress: bool | None,
    merge: bool,
) -> None:
    """Analyse exports and append them to a Parquet dataset as one run.

    The run's launches, kernel groups and findings (the JSON report's
    fields, typed) go to DATASET/table=NAME/gpu=GPU/date=DAY/part-RUN.parquet,
    with the run's id, time and tags in every row, and one row in the
    `runs` table (tags, inputs and their SHA-256, GPU, ncu and tool
    versions).  The run id comes from the inputs' content and the tags:
    exporting the same run twice is refused unless --replace.  Files are
    written under hidden names and renamed into place, so a crash never
    leaves a half file that readers pick up.

    Then, unless --no-compact, the days before today with 100 or more run
    files are compacted into one file per table and GPU (as `ncu-roofline
    compact` does; skipped while another compaction runs).

    Query the dataset with `ncu-roofline history` and `ncu-roofline query`
    (DuckDB), or point Spark or Trino at it.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 4 unreadable
    input or a damaged dataset file, 5 the run is already there or the
    dataset cannot be written, 7 missing input, 8 out of memory.
    """
    from ncu_roofline.fleet.dataset import export_analysis, plan_run
    from ncu_roofline.report.context import input_records

    settings = load_config(config_file)
    roofs = roofs.configured(settings, "gpu", "roofs_file", "clocks")
    run = plan_run(dataset, inputs, parse_tags(tags), replace, parse_time(at))
    analysis = analyse(inputs, roofs, theory, progress, merge)
    print_input_warnings(input_records(analysis), [f.to_dict() for f in analysis.findings])
    written = export_analysis(dataset, run, analysis, replace=replace)
    n_launches = len(analysis.launch_columns)
    click.echo(
        f"{PROG}: exported run {run.run_id} to {terminal_safe(dataset)}: "
        f"{plural(n_launches, 'launch', 'launches')}, "
        f"{plural(len(analysis.kernel_columns), 'kernel group')}, "
        f"{plural(len(analysis.findings), 'finding')} in {plural(len(written), 'file')}",
        err=True,
    )
    if auto_compact:
        from ncu_roofline.fleet.compact import auto_compact as compact_days

        try:
            done = compact_days(dataset)
        except NcuRooflineError as e:
            # The run is in place; a failed compaction only leaves the day as it was.
            click.echo(f"{PROG}: warning: compaction skipped: {terminal_safe(str(e))}", err=True)
            return
        for day in done:
            click.echo(
                f"{PROG}: compacted {day.day}: {day.runs:,} runs, "
                f"{day.removed:,} files replaced by {day.written:,}",
                err=True,
            )
