"""The timeline model: what an Nsight Systems (nsys) capture says happened, and when.

An ncu profile says what each kernel does while it runs; it profiles a sample
of launches, serialised, and says nothing of the time between kernels.  An
nsys capture records that time: every GPU activity (kernel, memcpy, memset)
with its start and end, the API calls that launched them, and the NVTX ranges
the program marked (a decode step, ``prefill``).  Readers
(:mod:`ncu_roofline.readers.nsys`) fill a :class:`Timeline` from any of nsys's
outputs; the analysis (:mod:`ncu_roofline.analysis.budget`) joins it with an
ncu analysis.

Each table is a pandas frame with the columns of its ``*_COLUMNS`` tuple, in
that order, whatever the input held: a column the input lacks is all missing
(``None``/NaN/``<NA>``), never 0.  Times are integer nanoseconds on the
capture's clock (``start_ns``, ``end_ns``; nsys's own clock, the same for GPU
and CPU rows of one capture).  Grid and block are text as ncu writes them,
``"(x, y, z)"``, so a trace kernel and an ncu launch compare equal.

``activities``
    one row per GPU activity: ``kind`` (:data:`ACTIVITY_KINDS`), ``start_ns``,
    ``end_ns``, ``name`` (the kernel's demangled name; for a memcpy or memset,
    nsys's label such as ``[CUDA memcpy Host-to-Device]``), ``grid``,
    ``block`` (kernels only), ``corr_id`` (the API call that launched it;
    several kernels of one CUDA graph share their ``cudaGraphLaunch``'s),
    ``device``, ``context``, ``stream``, ``bytes`` (memcpy and memset), ``source``.
``api``
    one row per CUDA API call: ``name`` (``cudaLaunchKernel``,
    ``cuLaunchKernel``, ``cudaGraphLaunch``...), ``start_ns``, ``end_ns``,
    ``corr_id``, ``thread``, ``source``.
``ranges``
    one row per NVTX range: ``name`` (without nsys's leading ``:`` of the
    default domain), ``domain``, ``start_ns``, ``end_ns``, ``level`` (nesting
    depth, 0 outermost), ``thread``, ``projected`` (true when the times are
    the range projected onto the GPU, ``nvtx_gpu_proj_trace``), ``source``.
``kernel_sums``
    per-kernel summaries (``cuda_gpu_kern_sum``, and ``nvtx_kern_sum`` per
    range): ``name``, ``range`` (``None`` for the whole capture),
    ``instances``, ``total_ns``, ``avg_ns``, ``med_ns``, ``min_ns``,
    ``max_ns``, ``stddev_ns``, ``source``.
``range_sums``
    per-range summaries (``nvtx_gpu_proj_sum``): ``name``, ``instances``,
    ``total_proj_ns`` (GPU time projected onto the range),
    ``total_range_ns`` (the ranges' own CPU time), ``gpu_ops``, ``source``.
``api_sums``
    per-API summaries (``cuda_api_sum``): ``name``, ``calls``, ``total_ns``,
    ``avg_ns``, ``med_ns``, ``min_ns``, ``max_ns``, ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "ACTIVITY_COLUMNS",
    "ACTIVITY_KINDS",
    "API_COLUMNS",
    "API_SUM_COLUMNS",
    "KERNEL_SUM_COLUMNS",
    "RANGE_COLUMNS",
    "RANGE_SUM_COLUMNS",
    "TABLES",
    "Timeline",
    "TimelineSource",
    "empty_table",
    "grid_text",
]

#: The kinds of GPU activity a timeline holds.
ACTIVITY_KINDS: tuple[str, ...] = ("kernel", "memcpy", "memset")

ACTIVITY_COLUMNS: tuple[str, ...] = (
    "kind",
    "start_ns",
    "end_ns",
    "name",
    "grid",
    "block",
    "corr_id",
    "device",
    "context",
    "stream",
    "bytes",
    "source",
)
API_COLUMNS: tuple[str, ...] = ("name", "start_ns", "end_ns", "corr_id", "thread", "source")
RANGE_COLUMNS: tuple[str, ...] = (
    "name",
    "domain",
    "start_ns",
    "end_ns",
    "level",
    "thread",
    "projected",
    "source",
)
KERNEL_SUM_COLUMNS: tuple[str, ...] = (
    "name",
    "range",
    "instances",
    "total_ns",
    "avg_ns",
    "med_ns",
    "min_ns",
    "max_ns",
    "stddev_ns",
    "source",
)
RANGE_SUM_COLUMNS: tuple[str, ...] = (
    "name",
    "instances",
    "total_proj_ns",
    "total_range_ns",
    "gpu_ops",
    "source",
)
API_SUM_COLUMNS: tuple[str, ...] = (
    "name",
    "calls",
    "total_ns",
    "avg_ns",
    "med_ns",
    "min_ns",
    "max_ns",
    "source",
)

#: Table name -> its columns.
TABLES: dict[str, tuple[str, ...]] = {
    "activities": ACTIVITY_COLUMNS,
    "api": API_COLUMNS,
    "ranges": RANGE_COLUMNS,
    "kernel_sums": KERNEL_SUM_COLUMNS,
    "range_sums": RANGE_SUM_COLUMNS,
    "api_sums": API_SUM_COLUMNS,
}

#: Column dtypes (pandas names); a column not listed is ``object`` (text, ``None`` missing).
_DTYPES: dict[str, str] = {
    "start_ns": "Int64",
    "end_ns": "Int64",
    "corr_id": "Int64",
    "level": "Int64",
    "instances": "Int64",
    "calls": "Int64",
    "gpu_ops": "Int64",
    "bytes": "float64",
    "total_ns": "float64",
    "avg_ns": "float64",
    "med_ns": "float64",
    "min_ns": "float64",
    "max_ns": "float64",
    "stddev_ns": "float64",
    "total_proj_ns": "float64",
    "total_range_ns": "float64",
    "projected": "boolean",
}


def _dtype(column: str) -> Any:
    """A column's pandas dtype name (``Any``: pandas' stubs type dtypes by literal)."""
    return _DTYPES.get(column, "object")


def empty_table(name: str) -> pd.DataFrame:
    """An empty table ``name`` (a key of :data:`TABLES`) with its columns and dtypes."""
    import pandas as pd

    cols = TABLES[name]
    out: pd.DataFrame = pd.DataFrame({c: pd.Series([], dtype=_dtype(c)) for c in cols})
    return out


def conform(name: str, frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as table ``name``: its columns in order, missing ones all missing, dtypes set."""
    import pandas as pd

    out = pd.DataFrame(index=frame.index)
    for c in TABLES[name]:
        dtype = _DTYPES.get(c, "object")
        if c in frame:
            col = frame[c]
            out[c] = col.astype(_dtype(c)) if str(col.dtype) != dtype else col
        else:
            missing = {"object": None, "float64": float("nan")}.get(dtype, pd.NA)
            out[c] = pd.Series(missing, index=frame.index, dtype=dtype)
    conformed: pd.DataFrame = out.reset_index(drop=True)
    return conformed


def grid_text(x: Any, y: Any, z: Any) -> str | None:
    """A launch dimension as ncu writes it, ``"(x, y, z)"``; ``None`` when any part is missing."""
    parts = []
    for v in (x, y, z):
        try:
            parts.append(int(v))
        except (TypeError, ValueError):
            return None
    return f"({parts[0]}, {parts[1]}, {parts[2]})"


@dataclass
class TimelineSource:
    """One nsys input: its path, the reports it held, and what the reader noticed."""

    path: str
    #: The nsys reports read from it: ``cuda_gpu_trace``, ``cuda_gpu_kern_sum``,
    #: ``cuda_api_trace``, ``cuda_api_sum``, ``nvtx_pushpop_trace``,
    #: ``nvtx_gpu_proj_trace``, ``nvtx_gpu_proj_sum``, ``nvtx_kern_sum``, or ``sqlite``.
    reports: list[str] = field(default_factory=list)
    rows: int = 0
    warnings: list[str] = field(default_factory=list)

    def warn(self, message: str) -> None:
        """Record a warning about this input (shown by the command line)."""
        if message not in self.warnings:
            self.warnings.append(message)


@dataclass
class Timeline:
    """GPU activities, API calls, NVTX ranges and summaries of one or more nsys inputs."""

    activities: pd.DataFrame
    api: pd.DataFrame
    ranges: pd.DataFrame
    kernel_sums: pd.DataFrame
    range_sums: pd.DataFrame
    api_sums: pd.DataFrame
    sources: list[TimelineSource] = field(default_factory=list)

    @classmethod
    def empty(cls) -> Timeline:
        """A timeline holding nothing."""
        return cls.of()

    @classmethod
    def of(cls, sources: list[TimelineSource] | None = None, **tables: pd.DataFrame) -> Timeline:
        """A timeline from the tables given (each conformed), the others empty."""
        unknown = set(tables) - set(TABLES)
        if unknown:
            raise ValueError(f"unknown timeline tables: {sorted(unknown)}")

        def table(name: str) -> pd.DataFrame:
            return conform(name, tables[name]) if name in tables else empty_table(name)

        return cls(
            activities=table("activities"),
            api=table("api"),
            ranges=table("ranges"),
            kernel_sums=table("kernel_sums"),
            range_sums=table("range_sums"),
            api_sums=table("api_sums"),
            sources=list(sources or []),
        )

    @classmethod
    def concat(cls, parts: list[Timeline]) -> Timeline:
        """Several inputs' timelines as one (rows kept apart by their ``source``)."""
        import pandas as pd

        if not parts:
            return cls.empty()
        if len(parts) == 1:
            return parts[0]
        tables = {
            name: pd.concat([getattr(p, name) for p in parts], ignore_index=True, sort=False)
            for name in TABLES
        }
        return cls.of([s for p in parts for s in p.sources], **tables)

    def __repr__(self) -> str:
        return (
            f"Timeline({len(self.activities)} activities, {len(self.api)} API calls, "
            f"{len(self.ranges)} ranges, {len(self.kernel_sums)} kernel summaries, "
            f"{len(self.sources)} source(s))"
        )

    @property
    def has_trace(self) -> bool:
        """True when the timeline holds GPU activities with their times (a trace)."""
        return len(self.activities) > 0
