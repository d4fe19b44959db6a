"""An analysis as the dataset's Arrow tables, built column by column.

The launch and kernel-group columns are the analysis frames' columns cast to
the declared types (:mod:`ncu_roofline.fleet.schema`): NaN and ``pd.NA``
become null, a column the analysis lacks is all null.  No per-row Python:
each column is converted once, and the run's columns are repeated with
``take``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import numpy as np
import orjson
import pandas as pd
import pyarrow as pa

from ncu_roofline.analysis import Analysis
from ncu_roofline.core.frame import floats
from ncu_roofline.fleet.schema import (
    JSON_FIELDS,
    RECORD_FIELDS,
    RUN_FIELDS,
    SCHEMA_VERSION,
    table_schema,
)
from ncu_roofline.report.context import SCHEMA_VERSION as REPORT_SCHEMA_VERSION
from ncu_roofline.report.context import summary_context
from ncu_roofline.version import __version__

#: ncu's rule records may hold numpy numbers (a group's launch counts).
_NUMPY = orjson.OPT_SERIALIZE_NUMPY

#: The partition value of rows whose GPU neither the roofs nor the export name.
UNKNOWN_GPU = "unknown"


@dataclass(frozen=True)
class Run:
    """One exported run: its identity, time, tags and inputs."""

    run_id: str
    run_time: datetime
    tags: dict[str, str] = field(default_factory=dict)
    #: The SHA-256 of each input's bytes, in input order.
    input_sha256: tuple[str, ...] = ()

    @property
    def date(self) -> str:
        """The run's UTC day, ``YYYY-MM-DD``: its ``date`` partition."""
        return self.run_time.astimezone(timezone.utc).strftime("%Y-%m-%d")


def gpu_slug(text: str) -> str:
    """A GPU name as a partition value: lower case, letters, digits, ``.`` and ``-``."""
    slug = re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-.")
    return slug or UNKNOWN_GPU


def gpu_labels(analysis: Analysis, frame: pd.DataFrame) -> np.ndarray:
    """Per row of ``frame``, its GPU: the roofs' table key, else the device name, else the CC.

    Rows are matched to the roofs of their input and device name; the label
    is the partition value of the row's files.
    """
    by_device: dict[tuple[str, str], str] = {}
    for dev in analysis.roofs:
        if dev.gpu is not None:
            label = dev.gpu.key
        elif dev.device_name:
            label = gpu_slug(dev.device_name)
        elif dev.cc:
            label = "sm" + dev.cc.replace(".", "")
        else:
            label = UNKNOWN_GPU
        by_device.setdefault((dev.source, dev.device_name or ""), label)
    n = len(frame)
    if n == 0:
        return np.empty(0, dtype=object)
    sources = frame["source"].astype(object).fillna("")
    names = (
        frame["device_name"].astype(object).fillna("")
        if "device_name" in frame
        else pd.Series([""] * n, dtype=object)
    )
    # One lookup per distinct (input, device), not per row.
    codes, pairs = pd.MultiIndex.from_arrays([sources, names]).factorize()
    # A kernel group of several devices' launches, or a finding's source:
    # the input's first device.
    by_source = {src: label for (src, _), label in reversed(by_device.items())}
    labels = np.array(
        [by_device.get(pair, by_source.get(pair[0], UNKNOWN_GPU)) for pair in pairs],
        dtype=object,
    )
    out: np.ndarray = labels[codes]
    return out


def column_array(frame: pd.DataFrame, name: str, kind: pa.DataType) -> pa.Array:
    """Column ``name`` of ``frame`` as an Arrow array of ``kind``; missing values null."""
    n = len(frame)
    if name not in frame:
        return pa.nulls(n, type=kind)
    s = frame[name]
    if name in JSON_FIELDS:
        texts = s.astype(object).map(
            lambda v: None if v is None else orjson.dumps(v, option=_NUMPY).decode()
        )
        return pa.array(texts, type=pa.string(), from_pandas=True)
    if pa.types.is_floating(kind):
        values = floats(s)
        return pa.array(values, type=kind, mask=~np.isfinite(values))
    if pa.types.is_string(kind):
        obj = s.astype(object)
        try:
            return pa.array(obj, type=kind, from_pandas=True)
        except (pa.ArrowTypeError, pa.ArrowInvalid):
            # A name read as a number or an array scalar: keep its text.
            return pa.array(obj.map(lambda v: None if pd.isna(v) else str(v)), type=kind)
    if pa.types.is_integer(kind) and pd.api.types.is_float_dtype(s.dtype):
        values = floats(s)
        return pa.array(
            np.nan_to_num(values).astype(np.int64), type=kind, mask=~np.isfinite(values)
        )
    return pa.array(s.astype(object), type=kind, from_pandas=True)


def _repeat(value: pa.Array, n: int) -> pa.Array:
    return value.take(pa.array(np.zeros(n, dtype=np.int32)))


def run_columns(run: Run, n: int) -> list[pa.Array]:
    """The ``run_id``, ``run_time`` and ``tags`` columns of ``n`` rows of ``run``."""
    one = [
        pa.array([run.run_id], type=RUN_FIELDS[0].type),
        pa.array([run.run_time], type=RUN_FIELDS[1].type),
        pa.array([sorted(run.tags.items())], type=RUN_FIELDS[2].type),
    ]
    return [_repeat(a, n) for a in one]


def record_table(table: str, frame: pd.DataFrame, run: Run) -> pa.Table:
    """The ``launches`` or ``groups`` table of one analysis frame."""
    schema = table_schema(table)
    n = len(frame)
    own = [column_array(frame, f, schema.field(f).type) for f in RECORD_FIELDS[table]]
    return pa.Table.from_arrays([*run_columns(run, n), *own], schema=schema)


def findings_table(analysis: Analysis, run: Run) -> tuple[pa.Table, np.ndarray]:
    """The ``findings`` table, and per finding the GPU of its input."""
    schema = table_schema("findings")
    # Read by the table schema's field names: as a mapping.
    rows: list[Mapping[str, object]] = [f.to_dict() for f in analysis.findings]
    own = [
        pa.array([r[f.name] for r in rows], type=f.type)
        for f in schema
        if f.name not in ("run_id", "run_time", "tags")
    ]
    frame = pd.DataFrame({"source": [r["source"] for r in rows]}, dtype=object)
    gpus = gpu_labels(analysis, frame)
    return pa.Table.from_arrays([*run_columns(run, len(rows)), *own], schema=schema), gpus


def runs_table(analysis: Analysis, run: Run, gpus: list[str]) -> pa.Table:
    """The one-row ``runs`` table: versions, inputs, options and totals of the run."""
    summary = summary_context(analysis)
    sources = analysis.profile.sources
    devices = sorted({d.device_name for d in analysis.roofs if d.device_name})
    values: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "report_schema_version": REPORT_SCHEMA_VERSION,
        "tool_version": __version__,
        "ncu_versions": sorted({s.ncu_version for s in sources if s.ncu_version}),
        "gpus": gpus,
        "device_names": devices,
        "inputs": [s.path for s in sources],
        "input_sha256": list(run.input_sha256),
        "layouts": [s.layout for s in sources],
        "options": orjson.dumps(analysis.options, option=orjson.OPT_SORT_KEYS).decode(),
        "launches": summary["launches"],
        "rows": summary["rows"],
        "kernels": summary["kernels"],
        "findings": len(analysis.findings),
        "total_duration_s": summary["total_duration_s"],
        "recoverable_s": summary["recoverable_s"],
        "latency_s": summary["latency_s"],
        "data_file": f"part-{run.run_id}.parquet",
        "listed_at": datetime.now(timezone.utc),
    }
    schema = table_schema("runs")
    own = [pa.array([values[f.name]], type=f.type) for f in schema if f.name in values]
    return pa.Table.from_arrays([*run_columns(run, 1), *own], schema=schema)


def split_by(table: pa.Table, labels: np.ndarray) -> dict[str, pa.Table]:
    """``table``'s rows per label, in first-seen label order (every label once)."""
    out: dict[str, pa.Table] = {}
    if len(labels) == 0:
        return out
    codes, uniques = pd.factorize(pd.Series(labels, dtype=object))
    for i, label in enumerate(uniques):
        out[str(label)] = table.filter(pa.array(codes == i))
    return out


def run_tables(analysis: Analysis, run: Run) -> dict[str, dict[str, pa.Table]]:
    """Every table of the run, split by GPU partition (``runs`` under the key ``""``)."""
    launches = record_table("launches", analysis.launches, run)
    groups = record_table("groups", analysis.kernels, run)
    findings, finding_gpus = findings_table(analysis, run)
    launch_gpus = gpu_labels(analysis, analysis.launches)
    group_gpus = gpu_labels(analysis, analysis.kernels)
    gpus = list(dict.fromkeys([*launch_gpus.tolist(), *group_gpus.tolist()]))
    out = {
        "launches": split_by(launches, launch_gpus),
        "groups": split_by(groups, group_gpus),
        "findings": split_by(findings, finding_gpus),
    }
    # Every GPU partition of the run gets each table, empty where it has no rows,
    # so that a query of a table sees every run's schema.
    for name, parts in out.items():
        schema = table_schema(name)
        for gpu in gpus or [UNKNOWN_GPU]:
            parts.setdefault(gpu, schema.empty_table())
    out["runs"] = {"": runs_table(analysis, run, gpus)}
    return out
