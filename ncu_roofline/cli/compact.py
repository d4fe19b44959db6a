"""``ncu-roofline compact``: merge a dataset's older days into one file per table and GPU."""

from __future__ import annotations

import click

from ncu_roofline.cli.messages import PROG
from ncu_roofline.render.safe_text import terminal_safe


@click.command()
@click.argument("dataset", metavar="DATASET")
@click.option(
    "--older-than",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    metavar="DAYS",
    help="Compact the days at least DAYS days before today (UTC); 0: today too.",
)
def compact(dataset: str, older_than: int) -> None:
    """Merge each day's run files into one file per table and GPU, for fast queries.

    Every export adds one small file per table; queries over thousands of
    runs spend most of their time opening them.  For each day old enough,
    this writes one compacted file per table and GPU partition (sorted by
    kernel), then one `runs` file naming it, then removes the files it
    replaced.  Readers count a run's rows only from the file its newest
    `runs` row names, so after a crash at any point every run is read
    exactly once, and running it again finishes the job; a query running
    while a day switches never counts a run twice but may miss that day or
    fail on a removed file.  Compact when nothing reads (e.g. nightly), and
    leave the days still being exported to alone (the default skips today).

    A day with a damaged file is left as it was (the other days are
    compacted), and the file named.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 4 not a dataset
    or a damaged dataset file, 5 the dataset cannot be written, 7 no such
    dataset or a dataset file that cannot be opened, 8 out of memory.
    """
    from ncu_roofline.fleet.compact import compact_dataset

    done = compact_dataset(dataset, older_than)
    runs = sum(d.runs for d in done)
    removed = sum(d.removed for d in done)
    written = sum(d.written for d in done)
    click.echo(
        f"{PROG}: compacted {terminal_safe(dataset)}: {len(done)} days, {runs:,} runs; "
        f"{removed:,} files replaced by {written:,}",
        err=True,
    )
