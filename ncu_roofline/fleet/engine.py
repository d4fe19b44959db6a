"""The dataset in DuckDB: one view per table, queries answered as Arrow tables.

DuckDB is optional (``pip install 'ncu-roofline[fleet]'``) and imported only
here.  Views read the Parquet files in place (nothing is loaded up front):
``launches``, ``groups``, ``findings`` and ``runs``, each with the partition
columns ``gpu`` (text) and ``date`` (a date), hold the rows that count
(:mod:`~ncu_roofline.fleet.located`): a run's newest ``runs`` row, and its
data rows from the file that row names.  Below them, ``TABLE_files`` views
hold every file's rows (data tables with each row's ``file`` name) and
``located`` each run's day and file, as the SQL ``history --sql`` prints
expects.  Files of one schema are read
by position, the fast path; when a query meets files of different column
sets (a dataset written by several versions), the views are made again to
match columns by name, and an older file's missing columns read as null.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ncu_roofline.errors import MissingDependencyError, UsageError
from ncu_roofline.fleet.dataset import check_dataset, has_files
from ncu_roofline.fleet.located import LOCATED_SQL, RUNS_SQL
from ncu_roofline.fleet.schema import PARTITIONS, TABLES, table_schema

if TYPE_CHECKING:
    import duckdb

_HIVE_TYPES = {"gpu": "VARCHAR", "date": "DATE"}
#: The ``located`` CTE's body, as a view.
_LOCATED_VIEW = LOCATED_SQL.split(" AS (", 1)[1].rsplit(")", 1)[0]


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as e:
        raise MissingDependencyError(
            "querying a dataset needs DuckDB: pip install 'ncu-roofline[fleet]' "
            "(or pip install duckdb)"
        ) from e
    return duckdb


def quote_literal(text: str) -> str:
    """``text`` as an SQL string literal (standard quoting: ``'`` doubled)."""
    return "'" + text.replace("'", "''") + "'"


class Dataset:
    """A dataset opened in DuckDB, with the four tables as views."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.root = check_dataset(path)
        self._duckdb = _duckdb()
        self.con: duckdb.DuckDBPyConnection = self._duckdb.connect()
        # Keep each file's footer once read: binding a view, then a query, reads
        # every footer again otherwise.
        self.con.execute("SET parquet_metadata_cache = true")
        self._by_name = False
        self._made: set[str] = set()

    def _views(self, tables: set[str]) -> None:
        """The views of ``tables`` (and ``runs``, which says where rows are), made once.

        Made on first use: binding a view reads every file's footer, so a
        query of ``groups`` never pays for the files of ``launches``.
        """
        if not tables <= self._made:
            self._made |= tables | {"runs"}
            self._make(self._made)

    def _make(self, tables: set[str]) -> None:
        for table in TABLES:
            if table in tables:
                raw = f"{table}_files"
                self.con.execute(f"CREATE OR REPLACE VIEW {raw} AS {self._source(table)}")
        self.con.execute(f"CREATE OR REPLACE VIEW located AS {_LOCATED_VIEW}")
        self.con.execute(f"CREATE OR REPLACE VIEW runs AS {RUNS_SQL}")
        for table in TABLES:
            if table != "runs" and table in tables:
                self.con.execute(
                    f"CREATE OR REPLACE VIEW {table} AS SELECT * EXCLUDE (file) "
                    f"FROM {table}_files d SEMI JOIN located l "
                    "ON d.run_id = l.run_id AND d.date = l.date AND d.file = l.file"
                )

    def _source(self, table: str) -> str:
        """The raw files of a table; data tables get each row's file name as ``file``."""
        if not has_files(self.root, table):
            return self._empty(table)
        pattern = str(self.root / f"table={table}" / "**" / "*.parquet")
        types = ", ".join(
            f"{quote_literal(k)}: {quote_literal(_HIVE_TYPES[k])}" for k in PARTITIONS[table]
        )
        # runs: always by name, and with every current column (older rows lack
        # data_file and listed_at, which say where a run's rows are).
        by_name = self._by_name or table == "runs"
        read = (
            f"read_parquet({quote_literal(pattern)}, "
            f"hive_partitioning = true, hive_types = {{{types}}}, "
            f"union_by_name = {'true' if by_name else 'false'}"
        )
        if table == "runs":
            return (
                f'SELECT * EXCLUDE ("table") FROM {read}) '
                f"UNION ALL BY NAME SELECT * FROM {self._register_empty(table)}"
            )
        return (
            f'SELECT * EXCLUDE ("table", filename), parse_filename(filename) AS file '
            f"FROM {read}, filename = true)"
        )

    def _empty(self, table: str) -> str:
        """A typed view with no rows, for a table no run has written yet."""
        name = self._register_empty(table)
        if table == "runs":
            return f"SELECT * FROM {name}"
        return f"SELECT *, CAST(NULL AS VARCHAR) AS file FROM {name}"

    def _register_empty(self, table: str) -> str:
        schema = table_schema(table)
        empty = schema.empty_table()
        for key in PARTITIONS[table]:
            kind = pa.string() if key == "gpu" else pa.date32()
            empty = empty.append_column(key, pa.array([], type=kind))
        name = f"_empty_{table}"
        self.con.register(name, empty)
        return name

    def sql(self, query: str) -> pa.Table:
        """The result of ``query`` as an Arrow table; a bad query is a usage error."""
        self._views({t for t in TABLES if re.search(rf"\b{t}(_files)?\b", query, re.IGNORECASE)})
        try:
            return self._run(query)
        except self._duckdb.Error as e:
            if not self._by_name and _schema_mismatch(e):
                self._by_name = True
                self._make(self._made)
                try:
                    return self._run(query)
                except self._duckdb.Error as again:
                    raise UsageError(f"query failed: {_first_line(again)}") from again
            raise UsageError(f"query failed: {_first_line(e)}") from e

    def _run(self, query: str) -> pa.Table:
        result = self.con.sql(query)
        if result is None:
            return pa.table({})
        table: pa.Table = result.to_arrow_table()
        return table

    def close(self) -> None:
        """Close the connection."""
        self.con.close()

    def __enter__(self) -> Dataset:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _schema_mismatch(error: Exception) -> bool:
    text = str(error).lower()
    return any(
        s in text for s in ("schema", "union_by_name", "column", "mismatch", "does not exist")
    )


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
