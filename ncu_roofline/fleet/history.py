"""Per kernel group, its time, efficiency and recoverable time over runs, and its change points.

A group across runs is one GPU partition, kernel name and launch shape
(grid and block): the same kernel launched the same way.  Within a run its
rows from several inputs are summed (launches, time, recoverable time) and
its efficiency is time-weighted.  The query is plain SQL over the ``groups``
table (:func:`history_sql`, which picks the rows that count itself), printed
with ``--sql`` for DuckDB, Spark or Trino; the change points come from :mod:`ncu_roofline.analysis.changes`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ncu_roofline.analysis.changes import Change, ChangeRule, change_points
from ncu_roofline.errors import UsageError
from ncu_roofline.fleet.engine import Dataset, quote_literal
from ncu_roofline.fleet.located import LOCATED_SQL, current_sql
from ncu_roofline.fleet.schema import SCHEMA_VERSION
from ncu_roofline.report.context import generator
from ncu_roofline.report.schema import (
    GroupChange,
    HistoryChange,
    HistoryContext,
    HistoryGroup,
    HistoryPoint,
)

#: The measures a history can flag: column, and whether up is worse.
METRICS: dict[str, tuple[str, bool]] = {
    "duration": ("duration_s", True),
    "efficiency": ("efficiency", False),
    "recoverable": ("recoverable_s", True),
}
DIALECTS: tuple[str, ...] = ("duckdb", "spark", "trino")
_KEYS = ("gpu", "kernel", "grid", "block")


@dataclass(frozen=True)
class HistoryQuery:
    """What ``history`` asks of the dataset."""

    #: Regular expression searched in the kernel name (full or short).
    kernel: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    since: datetime | None = None
    #: ``time`` (run time) or the name of a tag to order runs by.
    order_by: str = "time"
    #: The tag that names a run in tables and charts (its time where absent).
    label: str = "commit"
    metric: str = "duration"
    rule: ChangeRule = field(default_factory=ChangeRule)
    #: Groups shown with their points (most changed, then most time, first).
    top: int = 20


def _literal(text: str, dialect: str) -> str:
    if dialect == "spark":
        # Spark's parser reads backslash escapes in literals.
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return quote_literal(text)


def _tag(key: str, dialect: str) -> str:
    if dialect == "trino":
        return f"element_at(tags, {_literal(key, dialect)})"
    return f"tags[{_literal(key, dialect)}]"


def _matches(column: str, pattern: str, dialect: str) -> str:
    p = _literal(pattern, dialect)
    if dialect == "spark":
        return f"{column} RLIKE {p}"
    if dialect == "trino":
        return f"regexp_like({column}, {p})"
    return f"regexp_matches({column}, {p})"


def _timestamp(at: datetime, dialect: str) -> str:
    text = at.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S+00:00")
    return f"TIMESTAMPTZ '{text}'" if dialect == "duckdb" else f"TIMESTAMP '{text}'"


def history_sql(q: HistoryQuery, dialect: str = "duckdb") -> str:
    """The history query in ``dialect``, over the raw ``groups_files`` and ``runs_files``.

    It counts a run's rows only from the file its newest ``runs`` row names
    (:mod:`~ncu_roofline.fleet.located`), on any engine.
    """
    if dialect not in DIALECTS:
        raise UsageError(f"unknown SQL dialect {dialect!r} (known: {', '.join(DIALECTS)})")
    where = []
    if q.kernel:
        where.append(
            f"({_matches('kernel', q.kernel, dialect)} "
            f"OR {_matches('kernel_short', q.kernel, dialect)})"
        )
    for key, value in q.tags:
        where.append(f"{_tag(key, dialect)} = {_literal(value, dialect)}")
    if q.since is not None:
        where.append(f"run_time >= {_timestamp(q.since, dialect)}")
    order_value = "NULL" if q.order_by == "time" else f"max({_tag(q.order_by, dialect)})"
    keys = ", ".join(_KEYS)
    lines = [
        f"WITH {LOCATED_SQL},",
        f"groups AS (\n  {current_sql('groups')}\n)",
        "SELECT",
        f"  {keys}, run_id,",
        "  min(run_time) AS run_time,",
        f"  max({_tag(q.label, dialect)}) AS run_label,",
        f"  {order_value} AS order_value,",
        "  min(kernel_short) AS kernel_short,",
        "  CAST(sum(launches) AS BIGINT) AS launches,",
        "  sum(total_duration_s) AS total_duration_s,",
        "  sum(total_duration_s) / sum(launches) AS duration_s,",
        "  sum(efficiency * total_duration_s)",
        "    / sum(CASE WHEN efficiency IS NOT NULL THEN total_duration_s END) AS efficiency,",
        "  sum(recoverable_s) AS recoverable_s",
        "FROM groups",
    ]
    if where:
        lines.append("WHERE " + "\n  AND ".join(where))
    lines.append(f"GROUP BY {keys}, run_id")
    order = "run_time, run_id"
    if q.order_by != "time":
        order = "TRY_CAST(order_value AS DOUBLE) NULLS LAST, order_value NULLS LAST, " + order
    lines.append(f"ORDER BY {keys}, {order}")
    return "\n".join(lines)


def _finite(value: Any) -> float | None:
    if value is None:
        return None
    v = float(value)
    return v if math.isfinite(v) else None


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return str(value)


def _points(rows: dict[str, list[Any]], lo: int, hi: int) -> list[HistoryPoint]:
    out: list[HistoryPoint] = []
    for i in range(lo, hi):
        t = rows["run_time"][i]
        label = rows["run_label"][i]
        out.append(
            {
                "run_id": rows["run_id"][i],
                "run_time": _iso(t),
                "label": label if label is not None else _iso(t)[:16].replace("T", " "),
                "order": None if rows["order_value"][i] is None else str(rows["order_value"][i]),
                "launches": int(rows["launches"][i] or 0),
                "total_duration_s": _finite(rows["total_duration_s"][i]),
                "duration_s": _finite(rows["duration_s"][i]),
                "efficiency": _finite(rows["efficiency"][i]),
                "recoverable_s": _finite(rows["recoverable_s"][i]),
            }
        )
    return out


def _change(c: Change, at: HistoryPoint, q: HistoryQuery) -> HistoryChange:
    _, up_is_worse = METRICS[q.metric]
    return {
        "run_id": at["run_id"],
        "run_time": at["run_time"],
        "label": at["label"],
        "run": c.index + 1,
        "metric": q.metric,
        "direction": c.direction,
        "regression": (c.direction == "up") == up_is_worse,
        "before": c.before,
        "after": c.after,
        "step": _finite(c.step),
        "threshold": c.threshold,
        "baseline_runs": c.baseline_runs,
        "total_duration_s": at["total_duration_s"],
    }


def _weight(changes: list[HistoryChange], latest: float) -> tuple[int, float, float]:
    """Shown first: groups with a regression, by the time it moved, then by time."""
    moved = max(
        (
            abs(c["step"] or 0.0) * (c["total_duration_s"] or 0.0)
            for c in changes
            if c["regression"]
        ),
        default=0.0,
    )
    return (0 if moved > 0 else 1, -moved, -(latest if math.isfinite(latest) else 0.0))


def _series(table: pa.Table) -> np.ndarray:
    """Start row of each series (the table is sorted by the group keys)."""
    n = table.num_rows
    if n == 0:
        return np.zeros(1, dtype=np.intp)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for key in _KEYS:
        col = table.column(key)
        prev, this = col.slice(0, n - 1), col.slice(1)
        differs = pc.fill_null(pc.not_equal(prev, this), True)
        both_null = pc.and_(pc.is_null(prev), pc.is_null(this))
        change[1:] |= np.asarray(pc.and_not(differs, both_null))
    starts: np.ndarray = np.r_[np.flatnonzero(change), n]
    return starts


def _floats(table: pa.Table, column: str) -> np.ndarray:
    if table.num_rows == 0:
        return np.empty(0)
    return np.asarray(
        pc.fill_null(table.column(column).cast(pa.float64()), float("nan")), dtype=np.float64
    )


def build_history(ds: Dataset, q: HistoryQuery) -> HistoryContext:
    """The history context of the dataset for ``q``.

    Change points are found for every group; points are listed only for the
    ``top`` groups shown (most regressed first), so a fleet-wide history of
    a million group rows builds few records.
    """
    if q.metric not in METRICS:
        raise UsageError(f"unknown metric {q.metric!r} (known: {', '.join(METRICS)})")
    sql = history_sql(q)
    table = ds.sql(sql)
    bounds = _series(table)
    metric_col, _ = METRICS[q.metric]
    values = _floats(table, metric_col)
    totals = _floats(table, "total_duration_s")
    found: list[tuple[tuple[int, float, float], int, int, list[HistoryChange]]] = []
    for s in range(len(bounds) - 1):
        lo, hi = int(bounds[s]), int(bounds[s + 1])
        if hi <= lo:
            continue
        changes = [
            _change(c, _points(table.slice(lo + c.index, 1).to_pydict(), 0, 1)[0], q)
            for c in change_points(values[lo:hi], q.rule)
        ]
        found.append((_weight(changes, float(totals[hi - 1])), lo, hi, changes))
    found.sort(key=lambda f: f[0])
    runs = pc.count_distinct(table.column("run_id")).as_py() if table.num_rows else 0
    groups: list[HistoryGroup] = []
    all_changes: list[GroupChange] = []
    for number, (_, lo, hi, changes) in enumerate(found, 1):
        first = table.slice(lo, 1).to_pydict()
        short = first["kernel_short"][0] or first["kernel"][0]
        all_changes += [{**c, "group": number, "kernel_short": short} for c in changes]
        if q.top > 0 and number > q.top:
            continue
        groups.append(
            {
                "number": number,
                "gpu": first["gpu"][0],
                "kernel": first["kernel"][0],
                "kernel_short": short,
                "grid": first["grid"][0],
                "block": first["block"][0],
                "runs": hi - lo,
                "changes": changes,
                "points": _points(table.slice(lo, hi - lo).to_pydict(), 0, hi - lo),
            }
        )
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "history",
        "generator": generator(),
        "dataset": ds.path,
        "query": {
            "kernel": q.kernel,
            "tags": dict(q.tags),
            "since": None if q.since is None else _iso(q.since),
            "order_by": q.order_by,
            "label": q.label,
            "metric": q.metric,
            "top": q.top,
        },
        "rule": {
            "window": q.rule.window,
            "sustain": q.rule.sustain,
            "noise": q.rule.noise,
            "min_step": q.rule.min_step,
            "min_baseline": q.rule.min_baseline,
        },
        "runs": runs,
        "series": len(found),
        "changes": all_changes,
        "groups": groups,
        "omitted": len(found) - len(groups),
        "sql": sql,
    }
