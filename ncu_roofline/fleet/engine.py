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

Confined by default (``confined``): a dataset is often shared and queries
get pasted from chat, so the connection may read the dataset's directory
and nothing else.  DuckDB's own settings refuse every other file, URL and
extension (``enable_external_access`` off, the dataset in
``allowed_directories``, extension auto-install and auto-load off), locked
so that a query cannot set them back; and only read-only statements run
(``SELECT`` and what DuckDB parses as one: ``WITH``, ``FROM``, ``VALUES``,
``DESCRIBE``, ``SHOW``, ``SUMMARIZE``; ``EXPLAIN`` of those), because the
settings alone would still let ``COPY`` write into the dataset's own
directory.  ``query --allow-external-access`` lifts all of it.

A read that fails on a damaged file names that file
(:mod:`~ncu_roofline.fleet.damage`, exit 4); a query DuckDB refuses for
itself (a typo, an unknown column) stays a usage error (exit 2).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from ncu_roofline.core.limits import memory_exhausted
from ncu_roofline.errors import (
    InputFormatError,
    MissingDependencyError,
    OutOfMemoryError,
    UsageError,
)
from ncu_roofline.fleet.damage import dataset_error
from ncu_roofline.fleet.dataset import check_dataset, has_files, table_files
from ncu_roofline.fleet.located import LOCATED_SQL, RUNS_SQL
from ncu_roofline.fleet.schema import PARTITIONS, TABLES, table_schema

if TYPE_CHECKING:
    import duckdb

_HIVE_TYPES = {"gpu": "VARCHAR", "date": "DATE"}
#: The ``located`` CTE's body, as a view.
_LOCATED_VIEW = LOCATED_SQL.split(" AS (", 1)[1].rsplit(")", 1)[0]

#: Said with every refusal of a confined query: what the rule is and how to lift it.
CONFINED = (
    "by default a query only reads the dataset; give --allow-external-access "
    "to lift this, for a query you trust"
)
#: The settings that confine a connection, in order: the lock comes last.
_CONFINING = (
    "enable_external_access = false",
    "autoinstall_known_extensions = false",
    "autoload_known_extensions = false",
    # Python objects in scope are no table of the dataset.
    "python_enable_replacements = false",
    "lock_configuration = true",
)
#: ``EXPLAIN``, ``EXPLAIN ANALYZE`` (which runs the statement) or ``EXPLAIN (options)``,
#: and what it explains.
_EXPLAIN = re.compile(
    r"\s*EXPLAIN\s+(?:ANALY[SZ]E\s+)?(?:\([^)]*\)\s*)?(.*)", re.IGNORECASE | re.DOTALL
)
#: A path in quotes in an engine's message.
_QUOTED_PATH = re.compile(r"""['"]((?:/|[A-Za-z]+://)[^'"]*)['"]""")


def _duckdb() -> Any:
    try:
        import duckdb
    except ImportError as e:
        if memory_exhausted(e):
            # Installed, but no room to load it (ulimit -v): exit 8, not "install it".
            raise MemoryError(str(e)) from e
        raise MissingDependencyError(
            "querying a dataset needs DuckDB: pip install 'ncu-roofline[fleet]' "
            "(or pip install duckdb)"
        ) from e
    return duckdb


def quote_literal(text: str) -> str:
    """``text`` as an SQL string literal (standard quoting: ``'`` doubled)."""
    return "'" + text.replace("'", "''") + "'"


class Dataset:
    """A dataset opened in DuckDB, with the four tables as views.

    ``confined`` (the default) lets queries read the dataset and nothing
    else (see the module docstring); ``query --allow-external-access`` turns
    it off.
    """

    def __init__(self, path: str, confined: bool = True) -> None:
        self.path = path
        self.root = check_dataset(path)
        # Absolute: the views' globs, and the one directory a confined
        # connection may read, must be the same path.
        self.base = Path(os.path.abspath(self.root))
        self.confined = confined
        self._duckdb = _duckdb()
        self.con: duckdb.DuckDBPyConnection = self._duckdb.connect()
        # Keep each file's footer once read: binding a view, then a query, reads
        # every footer again otherwise.
        self.con.execute("SET parquet_metadata_cache = true")
        if confined:
            self._confine()
        self._by_name = False
        self._made: set[str] = set()

    def _confine(self) -> None:
        """Let the connection read the dataset's directory and nothing else, for good."""
        # The separator at the end: "/data/ds" alone would also allow "/data/ds2".
        allowed = quote_literal(str(self.base) + os.sep)
        self.con.execute(f"SET allowed_directories = [{allowed}]")
        for setting in _CONFINING:
            self.con.execute(f"SET {setting}")

    def _check_read_only(self, query: str) -> None:
        """Refuse a statement that is not a read (a confined query runs reads only)."""
        for kind, text in self._statements(query):
            if kind == "SELECT":
                continue
            name = _first_word(text) or kind
            if kind == "EXPLAIN":
                # EXPLAIN ANALYZE runs what it explains: that must be a read too.
                inner = _EXPLAIN.match(text)
                try:
                    explained = self._statements(inner.group(1)) if inner else []
                except UsageError:  # not parsed alone: refused, as unknown
                    explained = []
                if explained and all(k == "SELECT" for k, _ in explained):
                    continue
                name = f"{name} {_first_word(inner.group(1)) if inner else ''}".strip()
            hint = ""
            if kind == "MULTI":
                # DuckDB makes an enum type first for a PIVOT that lists no values.
                hint = " (a PIVOT runs here with its values listed: ON col IN (...))"
            raise UsageError(f"query refused: {name} is not a read-only query{hint}; {CONFINED}")

    def _statements(self, query: str) -> list[tuple[str, str]]:
        try:
            found = self._duckdb.extract_statements(query)
        except self._duckdb.Error as e:
            self._raise_if_memory(e)
            raise UsageError(f"query failed: {_first_line(e)}") from e
        return [(s.type.name, s.query) for s in found]

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
        pattern = str(self.base / f"table={table}" / "**" / "*.parquet")
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
        """The result of ``query`` as an Arrow table.

        A bad query, or one a confined connection refuses, is a usage error
        (exit 2); a damaged dataset file is an input error naming it (exit 4).
        """
        if self.confined:
            self._check_read_only(query)
        tables = {t for t in TABLES if re.search(rf"\b{t}(_files)?\b", query, re.IGNORECASE)}
        if re.search(r"\blocated\b", query, re.IGNORECASE):
            tables.add("runs")
        try:
            self._views(tables)
            return self._run(query)
        except self._duckdb.Error as e:
            self._raise_known(e)
            if not self._by_name and _schema_mismatch(e):
                self._by_name = True
                try:
                    self._make(self._made)
                    return self._run(query)
                except self._duckdb.Error as again:
                    self._raise_known(again)
                    raise UsageError(f"query failed: {_first_line(again)}") from again
            raise UsageError(f"query failed: {_first_line(e)}") from e

    def _raise_known(self, error: Exception) -> None:
        """Raise what ``error`` is when it is not the query's fault: memory, confinement, a file."""
        db = self._duckdb
        self._raise_if_memory(error)
        if self.confined and isinstance(error, db.PermissionException):
            raise UsageError(
                f"query refused: it reaches outside the dataset ({_first_line(error)}); {CONFINED}"
            ) from error
        # Errors of reading a file: DuckDB's thrift and page decoding raise its
        # base class.  A bad query raises a subclass (parser, binder,
        # conversion, ...), and its message names no dataset file.
        reading = type(error) is db.Error or isinstance(
            error, (db.IOException, db.InternalException, db.SerializationException)
        )
        other_path = self._names_outside(str(error))
        found = dataset_error(self.root, error, self._files, scan=reading and not other_path)
        if found is not None:
            raise found from error
        if reading and not other_path:
            raise InputFormatError(
                f"{self.path}: cannot read the dataset ({_first_line(error)})"
            ) from error

    def _raise_if_memory(self, error: Exception) -> None:
        """Raise :class:`OutOfMemoryError` (exit 8) when ``error`` says memory ran out."""
        if isinstance(error, self._duckdb.OutOfMemoryException) or memory_exhausted(error):
            raise OutOfMemoryError(
                f"out of memory while querying the dataset ({_first_line(error)}); "
                "free memory, raise the limit or narrow the query"
            ) from error

    def _names_outside(self, text: str) -> bool:
        """Whether ``text`` names a file outside the dataset (the query's own, not ours)."""
        inside = str(self.base) + os.sep
        for match in _QUOTED_PATH.finditer(text):
            path = match.group(1)
            if "*" in path:  # the views' globs, quoted in DuckDB's context lines
                continue
            if "://" in path or not os.path.abspath(path).startswith(inside):
                return True
        return False

    def _files(self) -> Iterator[Path]:
        """The files of the tables whose views are made: where a failed read looks."""
        for table in TABLES:
            if table in (self._made or set(TABLES)):
                yield from table_files(self.base, table)

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


def _first_word(text: str) -> str:
    """The statement's keyword, upper case ("" when it starts with a comment)."""
    word = re.match(r"\s*([A-Za-z]+)", text)
    return word.group(1).upper() if word else ""


def _schema_mismatch(error: Exception) -> bool:
    text = str(error).lower()
    return any(
        s in text for s in ("schema", "union_by_name", "column", "mismatch", "does not exist")
    )


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
