"""The launch model: one row per profiled launch, in SI units.

Every reader produces a :class:`pandas.DataFrame` with the identity columns in
:data:`IDENTITY_COLUMNS` (the launch-model entries of the column registry,
:mod:`ncu_roofline.core.columns`, which gives their order, type and
meaning) followed by one float column per roofline input, named by its ncu
metric id (``dram__bytes.sum``) and holding SI values (seconds, bytes,
hertz, bytes per second, counts; percentages in percent).
A missing value is NaN, never zero.  Downstream stages never see a unit
string or a thousands separator.

For ``--print-summary per-kernel`` inputs one row stands for ``invocations``
launches of one kernel and launch shape; its metric values are per-launch
averages (ncu's ``Average`` column) and the source is marked ``aggregated``.
Everywhere else ``invocations`` is 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.launches import (
    GPU_TIME_METRICS,
    Coded,
    LaunchColumns,
    coded,
    durations,
    finalize_columns,
    present_in_frame,
    short_name_column,
)
from ncu_roofline.core.rules import RuleTable
from ncu_roofline.core.table import Table

if TYPE_CHECKING:
    import pandas as pd

#: Identity columns, in order, with their meaning (from the column registry).
IDENTITY_COLUMNS: dict[str, str] = {c.name: c.doc for c in LAUNCH_MODEL_COLUMNS}

__all__ = [
    "GPU_TIME_METRICS",
    "IDENTITY_COLUMNS",
    "LaunchColumns",
    "Profile",
    "SourceInfo",
    "empty_launches",
    "fill_duration",
    "finalize_launches",
    "short_names",
]


@dataclass
class SourceInfo:
    """Provenance of one input."""

    path: str
    layout: str
    launches: int = 0
    rows: int = 0
    kernels: int = 0
    devices: list[str] = field(default_factory=list)
    ncu_version: str | None = None
    units: str | None = None
    aggregated: bool = False
    warnings: list[str] = field(default_factory=list)
    ncu_errors: list[str] = field(default_factory=list)
    metric_units: dict[str, str] = field(default_factory=dict)
    #: The inputs joined into this one with ``--merge`` (passes of one run):
    #: ``{"path", "rows", "metrics"}`` each; empty for a single input.
    passes: list[dict[str, Any]] = field(default_factory=list)
    #: ncu's rule results, keyed by launch (:mod:`ncu_roofline.core.rules`).
    rules: RuleTable = field(default_factory=RuleTable)

    def warn(self, message: str) -> None:
        """Record a warning about this input (shown by the command line)."""
        if message not in self.warnings:
            self.warnings.append(message)

    def absorb(self, part: SourceInfo) -> None:
        """Take on a part's warnings, ncu errors and metric units (tables or passes joined)."""
        for w in part.warnings:
            self.warn(w)
        self.ncu_errors += [e for e in part.ncu_errors if e not in self.ncu_errors]
        for k, v in part.metric_units.items():
            self.metric_units.setdefault(k, v)
        self.rules.extend(part.rules)

    def to_dict(self) -> dict[str, Any]:
        """Plain-data form for JSON output."""
        return {
            "path": self.path,
            "layout": self.layout,
            "launches": self.launches,
            "rows": self.rows,
            "kernels": self.kernels,
            "devices": list(self.devices),
            "ncu_version": self.ncu_version,
            "units": self.units,
            "aggregated": self.aggregated,
            "warnings": list(self.warnings),
            "ncu_errors": list(self.ncu_errors),
            "passes": [dict(p) for p in self.passes],
        }


class Profile:
    """Launches read from one or more ncu exports, plus per-source provenance.

    ``launches`` may be given as :class:`~ncu_roofline.core.launches.LaunchColumns`
    (as :func:`~ncu_roofline.readers.load` gives them, one input's or several
    joined by :meth:`~ncu_roofline.core.launches.LaunchColumns.concat`): the
    pandas frame is then built once, the first time it is asked for, so that
    what needs only the sources and the metrics present never builds it.
    """

    def __init__(self, launches: pd.DataFrame | LaunchColumns, sources: list[SourceInfo]) -> None:
        self._columns = launches if isinstance(launches, LaunchColumns) else None
        self._frame = None if isinstance(launches, LaunchColumns) else launches
        self.sources = sources

    def __repr__(self) -> str:
        n = len(self._columns) if self._columns is not None else len(self.launches)
        return f"Profile({n} rows, {len(self.sources)} source(s))"

    @property
    def launches(self) -> pd.DataFrame:
        """The launch frame: one row per launch (or per summary row)."""
        if self._frame is None:
            assert self._columns is not None
            self._frame = self._columns.to_frame()
        return self._frame

    @launches.setter
    def launches(self, frame: pd.DataFrame) -> None:
        self._frame, self._columns = frame, None

    def identity_frame(self, names: Sequence[str]) -> pd.DataFrame:
        """The identity columns ``names`` that the launches have, as the launch frame
        holds them, on a fresh positional index; built from the columns (no metric
        copied) while the frame is not."""
        if self._frame is None and self._columns is not None:
            return self._columns.identity_frame(names)
        frame = self.launches
        kept: pd.DataFrame = frame[[c for c in names if c in frame]].reset_index(drop=True)
        return kept

    def identity_view(self) -> Profile:
        """The launches' identity columns as they are now, as a profile of its own that
        later changes to this one's launches (its frame built, edited or replaced) do
        not reach.

        Nothing is copied while the frame is not built; a built frame's
        identity columns are copied (its holder may edit it in place).
        """
        if self._frame is None and self._columns is not None:
            return Profile(self._columns.identity_view(), self.sources)
        frame = self.launches
        kept = frame[[c for c in IDENTITY_COLUMNS if c in frame]].reset_index(drop=True)
        return Profile(kept.copy(), self.sources)

    def table(self) -> Table:
        """The launches as a :class:`~ncu_roofline.core.table.Table` (row order kept).

        Read from the columns while the frame is not built (no pandas, no
        metric copied), else from the frame.
        """
        if self._frame is None and self._columns is not None:
            return self._columns.table()
        return Table.from_frame(self.launches)

    def inputs(self) -> list[Profile]:
        """Each input as a profile of its own (this profile alone when it has one source).

        Inputs read apart keep their own columns (nothing is parsed or
        copied again); a profile whose frame was built or joined is split on
        its ``source`` column.
        """
        if len(self.sources) < 2:
            return [self]
        if self._frame is None and self._columns is not None:
            parts = self._columns.parts()
            if len(parts) == len(self.sources):
                return [Profile(p, [s]) for p, s in zip(parts, self.sources, strict=True)]
        frame = self.launches
        source = frame["source"].astype(str).to_numpy(dtype=object)
        return [Profile(frame[source == s.path].reset_index(drop=True), [s]) for s in self.sources]

    @property
    def metric_columns(self) -> list[str]:
        """The metric-id columns (everything after the identity columns)."""
        if self._frame is None and self._columns is not None:
            return self._columns.metric_names()
        return [c for c in self.launches.columns if c not in IDENTITY_COLUMNS]

    def metric_units(self) -> dict[str, str]:
        """SI unit of each metric column, merged over sources."""
        units: dict[str, str] = {}
        for src in self.sources:
            for k, v in src.metric_units.items():
                units.setdefault(k, v)
        return units

    def present_metrics(self, source: str | None = None) -> set[str]:
        """Metric ids with at least one value (optionally in one source)."""
        if self._frame is None and self._columns is not None:
            mine = self._of_source(self._columns, source)
            return mine.present_metrics() if mine is not None else set()
        df = self.launches
        if source is not None:
            df = df[df["source"] == source]
        return present_in_frame(df, self.metric_columns)

    def _of_source(self, columns: LaunchColumns, source: str | None) -> LaunchColumns | None:
        """The columns of ``source``'s launches (all with None); None when it has none."""
        if source is None:
            return columns
        if source not in [s.path for s in self.sources]:
            return None
        parts = columns.parts()
        if len(parts) == 1:
            # One input's launches (its source column holds its path).
            return columns
        # Several inputs (or tables) one after another: the parts of that source.
        mine = [p for p in parts if source in _present_texts(p.text("source"))]
        return LaunchColumns.concat(mine) if mine else None

    def compute_capability(self, source: str | None = None) -> str | None:
        """The one compute capability of the launches (optionally of one source); None if not one.

        Advice on what to collect is chip-specific: with none or several
        chips it falls back to what any chip can give.
        """
        if self._frame is None and self._columns is not None:
            mine = self._of_source(self._columns, source)
            if mine is None:
                return None
            column = mine.text("cc")
            found = [column.values[int(code)] for code in column.present()]
        else:
            df = self.launches
            if source is not None:
                df = df[df["source"] == source]
            found = [v for v in df["cc"].dropna().unique().tolist() if str(v).strip()]
        return str(found[0]) if len(found) == 1 else None


def short_names(kernels: pd.Series) -> pd.Series:
    """Unique short names of a profile's kernels, computed once per distinct name.

    Distinct kernels never share a short name within the frame (see
    :func:`~ncu_roofline.core.names.unique_short_names`).
    """
    import pandas as pd

    names = short_name_column(coded(kernels.to_numpy(dtype=object), len(kernels)))
    out: pd.Series = pd.Series(names.texts(), index=kernels.index)
    return out


def finalize_launches(identity: dict[str, Any], metrics: dict[str, Any], n: int) -> pd.DataFrame:
    """The canonical launch frame from identity and metric arrays.

    The frame of :func:`~ncu_roofline.core.launches.finalize_columns`: missing
    identity columns are missing throughout, derived ones (short name,
    grid/block products, duration) computed there so every reader agrees.
    """
    return finalize_columns(identity, metrics, n).to_frame()


def fill_duration(df: pd.DataFrame) -> None:
    """Set ``duration_s`` and ``duration_basis`` from a launch frame's metrics (in place).

    The rule is :func:`~ncu_roofline.core.launches.durations`.
    """

    def get(metric: str) -> np.ndarray | None:
        return floats(df[metric]) if metric in df else None

    duration, basis = durations(get, len(df))
    df["duration_s"] = duration
    df["duration_basis"] = basis.texts()


def empty_launches() -> pd.DataFrame:
    """A launch frame with the identity columns and no rows."""
    return finalize_launches({}, {}, 0)


def _present_texts(column: Coded) -> list[Any]:
    """The values of a text column that occur, in order of first appearance."""
    return [column.values[int(code)] for code in column.present()]
