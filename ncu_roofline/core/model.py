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

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.names import unique_short_names

#: Identity columns, in order, with their meaning (from the column registry).
IDENTITY_COLUMNS: dict[str, str] = {c.name: c.doc for c in LAUNCH_MODEL_COLUMNS}

_INT_COLUMNS = tuple(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "int")
_STR_COLUMNS = tuple(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "str")


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


@dataclass
class Profile:
    """Launches read from one or more ncu exports, plus per-source provenance."""

    launches: pd.DataFrame
    sources: list[SourceInfo]

    @property
    def metric_columns(self) -> list[str]:
        """The metric-id columns (everything after the identity columns)."""
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
        df = self.launches
        if source is not None:
            df = df[df["source"] == source]
        cols = self.metric_columns
        if df.empty or not cols:
            return set()
        has = df[cols].notna().any(axis=0)
        return {c for c, ok in has.items() if ok}


def _dims_product(text: object) -> float:
    """``"(384, 1, 1)"`` -> 384.0; NaN when not a dimension tuple."""
    if not isinstance(text, str):
        return float("nan")
    parts = text.strip().strip("()").replace(",", " ").split()
    try:
        nums = [int(p) for p in parts]
    except ValueError:
        return float("nan")
    if not nums:
        return float("nan")
    return float(np.prod(nums))


def _map_codes(series: pd.Series, values: list[Any], codes: np.ndarray, dtype: Any) -> pd.Series:
    """``values[i]`` wherever ``series`` holds its ``i``-th distinct value; missing stays missing.

    Taking from the distinct values by their codes avoids ``Series.map``'s
    hash lookup of every row (100,000 Arrow strings: 0.1-0.4 s).  With
    ``dtype`` None the type is inferred as ``map`` infers it (strings: str).
    """
    table = np.empty(len(values) + 1, dtype=object)
    table[: len(values)] = values
    table[len(values)] = None
    out: pd.Series = pd.Series(table[codes], index=series.index, dtype=dtype)
    return out


def _map_unique(series: pd.Series, func: Any, dtype: Any = None) -> pd.Series:
    """Apply ``func`` once per distinct value (names repeat across launches)."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    return _map_codes(series, [func(u) for u in uniques], codes, dtype)


def short_names(kernels: pd.Series) -> pd.Series:
    """Unique short names of a profile's kernels, computed once per distinct name.

    Distinct kernels never share a short name within the frame (see
    :func:`~ncu_roofline.core.names.unique_short_names`).
    """
    codes, uniques = pd.factorize(kernels, use_na_sentinel=True)
    names = [str(u) for u in uniques]
    mapping = unique_short_names(names)
    return _map_codes(kernels, [mapping[n] for n in names], codes, None)


def finalize_launches(identity: dict[str, Any], metrics: dict[str, Any], n: int) -> pd.DataFrame:
    """Assemble the canonical launch frame from identity and metric arrays.

    Missing identity columns are filled with nulls; derived identity columns
    (short name, grid/block products, duration) are computed here so every
    reader agrees on them.  An identity name the column registry lacks is a
    programming error (``ValueError``): a reader fills registry columns only.
    """
    unknown = [c for c in identity if c not in IDENTITY_COLUMNS]
    if unknown:
        raise ValueError(f"not launch-model columns: {', '.join(unknown)}")
    data: dict[str, Any] = {}
    for col in IDENTITY_COLUMNS:
        if col in identity:
            data[col] = identity[col]
        else:
            data[col] = [None] * n
    df: pd.DataFrame = pd.DataFrame(data, index=pd.RangeIndex(n))
    for col in _INT_COLUMNS:
        df[col] = pd.to_numeric(df[col], errors="coerce").astype("Int64")
    for col in _STR_COLUMNS:
        values = df[col].astype(object)
        df[col] = values.where(values.notna() & (values != ""), None)
    df["kernel"] = df["kernel"].fillna("")
    # Decimal-comma locales print the compute capability as "8,6".
    df["cc"] = _map_unique(df["cc"], lambda c: c.replace(",", ".") if isinstance(c, str) else c)
    df["kernel_short"] = short_names(df["kernel"])
    if df["grid_blocks"].isna().all():
        df["grid_blocks"] = (
            _map_unique(df["grid"], _dims_product, float).astype("Float64").astype("Int64")
        )
    if df["block_threads"].isna().all():
        df["block_threads"] = (
            _map_unique(df["block"], _dims_product, float).astype("Float64").astype("Int64")
        )
    # Old exports have no grid/block columns but may carry the launch metrics.
    for col, metric in (
        ("grid_blocks", "launch__grid_size"),
        ("block_threads", "launch__block_size"),
    ):
        if metric in metrics:
            fill = pd.array(
                np.round(np.asarray(metrics[metric], dtype=np.float64)), dtype="Float64"
            )
            df[col] = df[col].fillna(pd.Series(fill, index=df.index).astype("Int64"))
    if df["invocations"].isna().all():
        df["invocations"] = pd.array(np.ones(n, dtype=np.int64), dtype="Int64")
    metric_frame = pd.DataFrame(metrics, index=df.index) if metrics else None
    if metric_frame is not None:
        if "device__attribute_display_name" in metric_frame:
            names = metric_frame.pop("device__attribute_display_name")
            df["device_name"] = df["device_name"].where(df["device_name"].notna(), names)
        df = pd.concat([df, metric_frame], axis=1)
    fill_duration(df)
    return df


#: The duration metrics, in order of preference, with the ``duration_basis`` each gives.
GPU_TIME_METRICS: tuple[tuple[str, str], ...] = tuple(
    (f"{base}{rollup}", base)
    for base in ("gpu__time_duration", "gpu__time_active")
    for rollup in (".sum", ".avg", ".max")
)


def fill_duration(df: pd.DataFrame) -> None:
    """Set ``duration_s`` and ``duration_basis`` from a launch frame's metrics (in place).

    ``gpu__time_duration.sum``, else ``gpu__time_active.sum``, else elapsed cycles over their clock.

    The cycle form is NERSC's definition; it covers only the SM execution
    window and so reads slightly shorter than ncu's duration.
    """
    n = len(df)
    duration = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    # ncu's duration first; gpu__time_active (the time the GPU was busy with
    # the launch) where an export has only that.  A gpu__ counter has one
    # instance per GPU, so its .avg and .max are its .sum.
    for metric, name in GPU_TIME_METRICS:
        if metric in df:
            d = floats(df[metric])
            ok = np.isnan(duration) & ~np.isnan(d)
            duration[ok] = d[ok]
            basis[ok] = name
    for unit in ("sm", "smsp", "gpc"):
        cyc, rate = f"{unit}__cycles_elapsed.avg", f"{unit}__cycles_elapsed.avg.per_second"
        if unit == "gpc":
            cyc = "gpc__cycles_elapsed.max"
        if cyc in df and rate in df:
            with np.errstate(divide="ignore", invalid="ignore"):
                d = floats(df[cyc]) / df[rate].to_numpy(dtype=np.float64, na_value=np.nan)
            ok = np.isnan(duration) & np.isfinite(d) & (d > 0)
            duration[ok] = d[ok]
            basis[ok] = "cycles/clock"
    df["duration_s"] = duration
    df["duration_basis"] = basis


def empty_launches() -> pd.DataFrame:
    """A launch frame with the identity columns and no rows."""
    return finalize_launches({}, {}, 0)
