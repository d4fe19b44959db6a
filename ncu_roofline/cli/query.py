"""``ncu-roofline query``: ad-hoc SQL over a dataset, with DuckDB."""

from __future__ import annotations

import click

from ncu_roofline.cli.messages import emit
from ncu_roofline.cli.options import force_option, output_option


@click.command()
@click.argument("dataset", metavar="DATASET")
@click.argument("sql", metavar="SQL")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="table: aligned text for a terminal; csv and json: every row.",
)
@click.option(
    "--max-rows",
    type=click.IntRange(min=1),
    default=50,
    show_default=True,
    help="Rows of the text table (csv and json have every row).",
)
@click.option(
    "--allow-external-access",
    is_flag=True,
    help="Let the query reach beyond the dataset: read and write other files "
    "(COPY, read_csv, ...), attach databases, install and load extensions, "
    "change settings.  Off by default, so that a query pasted from elsewhere "
    "can only read the dataset; give it only for a query you trust.",
)
@output_option("Output file ('-' or none: standard output).")
@force_option
def query(
    dataset: str,
    sql: str,
    fmt: str,
    max_rows: int,
    allow_external_access: bool,
    output: str | None,
    force: bool,
) -> None:
    """Answer an SQL query over a dataset's tables, with DuckDB.

    The tables are views named `launches`, `groups`, `findings` and `runs`,
    each with the partition columns `gpu` and `date`; every row carries
    its run's `run_id`, `run_time` and `tags` (a map: `tags['commit']`).
    They hold the rows that count, each run once (compacted or not);
    `TABLE_files` hold every file's rows and `located` each run's file.
    For example:

    \b
      ncu-roofline query runs/ "SELECT kernel_short, avg(efficiency)
        FROM groups WHERE gpu = 'h100-sxm' GROUP BY ALL ORDER BY 2 LIMIT 10"

    The query reads the dataset and nothing else: only read-only statements
    (SELECT, WITH, FROM, VALUES, DESCRIBE, SHOW, SUMMARIZE, EXPLAIN) run, and
    DuckDB refuses any other file, URL, database or extension and any change
    of its settings; --allow-external-access lifts this.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error (a bad or refused
    query), 4 not a dataset or a damaged dataset file, 5 the output exists
    or cannot be written, 6 DuckDB missing, 7 no such dataset or a dataset
    file that cannot be opened, 8 out of memory.
    """
    from ncu_roofline.fleet.engine import Dataset
    from ncu_roofline.render.output import refuse_existing
    from ncu_roofline.render.tabular import table_csv, table_json, table_text

    refuse_existing(output, force)
    with Dataset(dataset, confined=not allow_external_access) as ds:
        result = ds.sql(sql)
    if fmt == "csv":
        text = table_csv(result)
    elif fmt == "json":
        text = table_json(result)
    else:
        text = table_text(result, max_rows)
    emit(text, output, force, f"({fmt}): {result.num_rows:,} rows")
