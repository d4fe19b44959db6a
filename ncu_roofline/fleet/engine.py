"""The dataset in DuckDB: one view per table, queries answered as Arrow tables.

DuckDB is optional (``pip install 'ncu-roofline[fleet]'``) and imported only
here.  Views read the Parquet files in place (nothing is loaded up front):
``launches``, ``groups``, ``findings`` and ``runs``, each with the partition
columns ``gpu`` (text) and ``date`` (a date).  Files of one schema are read
by position, the fast path; when a query meets files of different column
sets (a dataset written by several versions), the views are made again to
match columns by name, and an older file's missing columns read as null.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ncu_roofline.errors import MissingDependencyError, UsageError
from ncu_roofline.fleet.dataset import check_dataset, has_files
from ncu_roofline.fleet.schema import PARTITIONS, TABLES, table_schema

if TYPE_CHECKING:
    import duckdb

_HIVE_TYPES = {"gpu": "VARCHAR", "date": "DATE"}


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
        self._by_name = False
        self._views()

    def _views(self) -> None:
        for table in TABLES:
            self.con.execute(f"CREATE OR REPLACE VIEW {table} AS {self._source(table)}")

    def _source(self, table: str) -> str:
        if not has_files(self.root, table):
            return self._empty(table)
        pattern = str(self.root / f"table={table}" / "**" / "*.parquet")
        types = ", ".join(
            f"{quote_literal(k)}: {quote_literal(_HIVE_TYPES[k])}" for k in PARTITIONS[table]
        )
        return (
            f'SELECT * EXCLUDE ("table") FROM read_parquet({quote_literal(pattern)}, '
            f"hive_partitioning = true, hive_types = {{{types}}}, "
            f"union_by_name = {'true' if self._by_name else 'false'})"
        )

    def _empty(self, table: str) -> str:
        """A typed view with no rows, for a table no run has written yet."""
        schema = table_schema(table)
        empty = schema.empty_table()
        for key in PARTITIONS[table]:
            kind = pa.string() if key == "gpu" else pa.date32()
            empty = empty.append_column(key, pa.array([], type=kind))
        name = f"_empty_{table}"
        self.con.register(name, empty)
        return f"SELECT * FROM {name}"

    def sql(self, query: str) -> pa.Table:
        """The result of ``query`` as an Arrow table; a bad query is a usage error."""
        try:
            return self._run(query)
        except self._duckdb.Error as e:
            if not self._by_name and _schema_mismatch(e):
                self._by_name = True
                self._views()
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


def table_path(root: Path, table: str) -> Path:
    """The directory of one table (what Spark or Trino point a table at)."""
    return root / f"table={table}"
