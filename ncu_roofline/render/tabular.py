"""Query results (Arrow tables) as a terminal table, CSV or JSON.

The ``query`` command's writers.  Values are shown as DuckDB returns them:
numbers unrounded in CSV and JSON, with up to 6 significant digits in the
terminal table; times as ISO 8601; missing values empty (CSV), ``null``
(JSON) or ``NULL`` (table).  Every cell of the table is stripped of control
characters.
"""

from __future__ import annotations

import io
import math
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

from ncu_roofline.render.json_report import dumps
from ncu_roofline.render.safe_text import terminal_safe

#: Longest cell of the terminal table (longer ones end in ``…``).
MAX_CELL = 60


def _cell(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, Decimal):
        value = _plain(value)
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else str(value)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return "{" + ", ".join(f"{_cell(k)}={_cell(v)}" for k, v in value) + "}"
        return "[" + ", ".join(_cell(v) for v in value) + "]"
    text = terminal_safe(str(value)).replace("\n", " ")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def table_text(table: pa.Table, max_rows: int) -> str:
    """The first ``max_rows`` rows as an aligned text table, with the row count."""
    names = [terminal_safe(n) for n in table.column_names]
    shown = table.slice(0, max_rows).to_pylist()
    rows = [[_cell(r[n]) for n in table.column_names] for r in shown]
    numeric = [
        pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_decimal(f.type)
        for f in table.schema
    ]
    widths = [max([len(names[i]), *(len(r[i]) for r in rows)]) for i in range(len(names))]

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if num else c.ljust(w)
            for c, w, num in zip(cells, widths, numeric, strict=True)
        ).rstrip()

    out = [line(names), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    more = table.num_rows - len(rows)
    noun = "row" if table.num_rows == 1 else "rows"
    out.append(
        f"({table.num_rows:,} {noun}"
        + (f"; {more:,} not shown, raise --max-rows or use --format csv)" if more > 0 else ")")
    )
    return "\n".join(out) + "\n"


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        # DuckDB's exact sums (HUGEINT, DECIMAL): whole ones as integers.
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        # A map column arrives as (key, value) pairs.
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return {str(k): _plain(v) for k, v in value}
        return [_plain(v) for v in value]
    return value


def table_json(table: pa.Table) -> str:
    """Every row as a JSON object (one array), maps as objects, times as ISO 8601."""
    rows = [{k: _plain(v) for k, v in r.items()} for r in table.to_pylist()]
    return dumps(rows) + "\n"


def table_csv(table: pa.Table) -> str:
    """Every row as CSV with a header; nested columns (maps, lists) as JSON text."""
    columns = []
    for col in table.columns:
        if pa.types.is_nested(col.type):
            text = [None if v is None else dumps(_plain(v)) for v in col.to_pylist()]
            columns.append(pa.array(text, type=pa.string()))
        else:
            columns.append(col)
    flat = pa.Table.from_arrays(columns, names=table.column_names)
    sink = io.BytesIO()
    pacsv.write_csv(flat, sink)
    return sink.getvalue().decode("utf-8")
