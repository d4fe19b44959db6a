"""Profiles across runs: a per-launch Parquet dataset and the queries over it.

Design: ``export`` appends one analysed run (its launches, kernel groups and
findings, typed as in the JSON report, plus the run's tags and versions) to a
Hive-partitioned Parquet directory; ``history`` and ``query`` read it with
DuckDB.  The layout is plain Parquet under ``table=NAME/gpu=GPU/date=DAY/``,
so Spark, Trino or any lakehouse engine reads the same files unchanged.

:mod:`~ncu_roofline.fleet.schema` fixes the tables' columns and types,
:mod:`~ncu_roofline.fleet.tables` builds them from an analysis,
:mod:`~ncu_roofline.fleet.dataset` writes and lists runs (atomically),
:mod:`~ncu_roofline.fleet.located` says which file holds each run's rows
(the rule every reader follows), :mod:`~ncu_roofline.fleet.compact`
merges a day's files into one per table and GPU,
:mod:`~ncu_roofline.fleet.engine` opens the dataset in DuckDB (confined
to reading it), :mod:`~ncu_roofline.fleet.damage` names the damaged file
after a failed read, and
:mod:`~ncu_roofline.fleet.history` asks the per-group history and flags
change points.  DuckDB is an optional dependency (``ncu-roofline[fleet]``),
imported only by the commands that query.
"""
