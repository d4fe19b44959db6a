"""The roofline engine: from a :class:`~ncu_roofline.core.model.Profile` to an
:class:`Analysis` with measured work and traffic, roofs, bound classes,
recoverable time and findings, for every launch and every kernel group.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.advice import group_advice_ids
from ncu_roofline.analysis.budget.records import BudgetRecord
from ncu_roofline.analysis.classify import (
    BOUND_CLASSES,
    Thresholds,
    group_kernel_table,
    kernel_frame,
    place,
)
from ncu_roofline.analysis.failed_profile import failed_profiles
from ncu_roofline.analysis.findings.collect import collect_findings
from ncu_roofline.analysis.findings.finding import Finding
from ncu_roofline.analysis.floor import cc_number, compute_ceiling, time_floor
from ncu_roofline.analysis.limiter.judge import judge, mix_share
from ncu_roofline.analysis.measures import measure
from ncu_roofline.analysis.ncu_rules import combine
from ncu_roofline.analysis.options import ReportOptions, TheorySummary, no_options
from ncu_roofline.analysis.placement import placement
from ncu_roofline.analysis.projection_records import ProjectionRecord
from ncu_roofline.analysis.roofs.arithmetic import ratio
from ncu_roofline.analysis.roofs.assign import (
    ALL_COMPUTE_KEYS,
    DeviceRoofs,
    RoofAssignment,
    assign_roofs,
    peak_column,
)
from ncu_roofline.core.columns import PROFILE_COLUMNS
from ncu_roofline.core.frame import Columns, floats
from ncu_roofline.core.gpu_spec import CLOCK_MODES
from ncu_roofline.core.grouping import per_distinct, shared_texts
from ncu_roofline.core.hardware import MEMORY_KEYS, GpuLookup, GpuSpec, chosen_roofs, match_device
from ncu_roofline.core.model import Profile
from ncu_roofline.core.table import Table, absent, distinct, present
from ncu_roofline.errors import UsageError
from ncu_roofline.theory.config import TheoryConfig

if TYPE_CHECKING:
    import pandas as pd

    from ncu_roofline.core.timeline import Timeline

__all__ = [
    "BOUND_CLASSES",
    "Analysis",
    "Finding",
    "TheoryConfig",
    "Thresholds",
    "add_comparison",
    "analyze",
    "theory_floor",
]


_SOL = (
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
)


@dataclass(repr=False)
class Analysis:
    """Roofline analysis of a profile.

    ``launch_table`` has one row per launch (identity columns, measured FLOPs
    and bytes, ceilings, placement); ``kernel_table`` one row per kernel and
    launch configuration, ranked by recoverable time; ``roofs`` the ceilings
    used per device with their sources; ``findings`` what to look at first.

    The tables are numpy columns (:class:`~ncu_roofline.core.table.Table`);
    :attr:`launches` and :attr:`kernels` are the same rows as pandas frames,
    built the first time they are asked for.  Once built (or set), a frame is
    what the analysis holds: :attr:`launch_columns` and
    :attr:`kernel_columns` give it, so that a change made to it is seen by
    whatever reads the analysis next.
    """

    profile: Profile
    launch_table: Table
    kernel_table: Table
    roofs: list[DeviceRoofs]
    findings: list[Finding]
    thresholds: Thresholds
    clocks: str
    options: ReportOptions = field(default_factory=no_options)
    #: Theory inputs, and kernels that none of them matched.
    theory: TheoryConfig | None = None
    unmatched: list[str] = field(default_factory=list)
    #: An nsys timeline joined to the groups, and its time budget
    #: (:func:`ncu_roofline.analysis.budget.attach_timeline`); ``None`` without one.
    timeline: Timeline | None = None
    budget: BudgetRecord | None = None
    #: One summary per ``--project-to`` target (:func:`ncu_roofline.analysis.projection.project_analysis`);
    #: empty without one.
    projections: list[ProjectionRecord] = field(default_factory=list)
    #: The launch table's columns that are the profile's own identity columns,
    #: unchanged: its frame takes them as the launch frame holds them.
    identity: tuple[str, ...] = ()
    #: The frames built or set, by name ("launches", "kernels"); each analysis
    #: holds its own dictionary (a copy made with ``dataclasses.replace``
    #: or ``copy.copy`` too), so that setting one analysis' frame leaves the
    #: other's as it was.
    frames: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The profile's identity columns as they were when analysed
    #: (:meth:`~ncu_roofline.core.model.Profile.identity_view`), which
    #: :attr:`launches` takes its own from; ``None``: the profile's.
    identity_source: Profile | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.frames = dict(self.frames)

    def __copy__(self) -> Analysis:
        return dataclasses.replace(self)

    def __repr__(self) -> str:
        # The generated repr would print every frame: a debugger or a failing
        # test would show megabytes.  The counts say which analysis it is.
        return (
            f"{type(self).__name__}({len(self.launch_columns)} launch rows, "
            f"{len(self.kernel_columns)} kernel groups, {len(self.findings)} findings)"
        )

    @property
    def launch_columns(self) -> Columns:
        """The launches as columns: the frame once one was built or set, else the table."""
        return self.frames.get("launches", self.launch_table)

    @property
    def kernel_columns(self) -> Columns:
        """The kernel groups as columns: the frame once one was built or set, else the table."""
        return self.frames.get("kernels", self.kernel_table)

    @property
    def launches(self) -> pd.DataFrame:
        """The launches as a pandas frame (built once, on first use)."""
        if "launches" not in self.frames:
            own = self.identity_source or self.profile
            self.frames["launches"] = launch_frame(self.launch_table, own, self.identity)
        return self.frames["launches"]

    @launches.setter
    def launches(self, frame: pd.DataFrame) -> None:
        self.frames["launches"] = frame

    @property
    def kernels(self) -> pd.DataFrame:
        """The kernel groups as a pandas frame (built once, on first use)."""
        if "kernels" not in self.frames:
            self.frames["kernels"] = kernel_frame(self.kernel_table)
        return self.frames["kernels"]

    @kernels.setter
    def kernels(self, frame: pd.DataFrame) -> None:
        self.frames["kernels"] = frame


def launch_frame(table: Table, profile: Profile, identity: Sequence[str]) -> pd.DataFrame:
    """The launch table as a pandas frame: the profile's identity columns as its launch
    frame holds them (nullable integers, texts), then each column of the table (texts
    as objects, numbers and flags as they are)."""
    import pandas as pd

    own = profile.identity_frame(identity) if identity else None
    data: dict[str, pd.Series | npt.NDArray[Any]] = {}
    for name in table.columns:
        if own is not None and name in own:
            data[name] = own[name]
        else:
            values = table[name]
            data[name] = (
                pd.Series(values, dtype=object, copy=False) if values.dtype == object else values
            )
    out: pd.DataFrame = pd.DataFrame(data, index=pd.RangeIndex(len(table)))
    return out


class _Launches:
    """The analysis' launch table as the stages add to it, and which identity columns they
    replaced."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.written: set[str] = set()

    def join(self, columns: Mapping[str, Any]) -> None:
        """Add ``columns`` (or replace those the table has, where they stand).

        Texts made per launch (joined, formatted) are held once per distinct
        text: hundreds of thousands of copies of a handful of texts would be
        hashed again wherever the column is read.
        """
        made: dict[str, npt.NDArray[Any]] = {}
        for col, values in columns.items():
            arr = np.asarray(values)
            made[col] = shared_texts(arr) if arr.dtype == object else arr
        self.written.update(made)
        self.table = self.table.with_columns(made)


def _fill_cc(src: Table, explicit: list[GpuSpec] | None) -> npt.NDArray[np.object_]:
    """Compute capability per launch: the export's, else the chosen or matched GPU's
    (looked up once per distinct device name)."""
    cc: npt.NDArray[np.object_] = src.objects("cc").copy()
    missing = absent(cc)
    if not missing.any():
        return cc

    def spec_cc(name: Any) -> str | None:
        text = name if isinstance(name, str) else None
        spec = None
        if explicit:
            spec = explicit[0] if len(explicit) == 1 else match_device(text, explicit)
        if spec is None:
            spec = match_device(text)
        return spec.cc if spec else None

    cc[missing] = per_distinct(src.objects("device_name")[missing], spec_cc, spec_cc(None))
    return cc


def analyze(
    profile: Profile,
    gpu: str | GpuLookup | GpuSpec | None = None,
    roofs: str | os.PathLike[str] | Sequence[GpuSpec] | None = None,
    clocks: str = "measured",
    thresholds: Thresholds | None = None,
    theory: TheoryConfig | None = None,
) -> Analysis:
    """Place every launch of ``profile`` on the roofline.

    ``gpu`` names a built-in GPU (``"h100_sxm5"``, ``"A100"``) whose roofs
    replace the profile's own (or is one already looked up: the command line
    resolves ``--gpu`` once and passes the lookup; a name is resolved here,
    once); ``roofs`` is a user TOML file (or specs) with
    the same schema.  ``clocks="measured"`` scales datasheet compute roofs to
    the SM clock the export measured; ``"datasheet"`` keeps them as
    published.  ``theory`` adds theoretical FLOPs and minimal bytes per
    launch (from an estimates file and/or a model) and the excess-traffic
    comparison.
    """
    if clocks not in CLOCK_MODES:
        raise UsageError(f"unknown clock mode {clocks!r}; expected one of {', '.join(CLOCK_MODES)}")
    thresholds = thresholds or Thresholds()
    lookup, explicit = chosen_roofs(gpu, roofs)
    # The launches as columns: read straight from the launch model (no frame
    # of every metric is built); positional alignment everywhere below.
    src = profile.table()
    # The identity columns the analysis keeps are those of now: the profile's
    # frame may be built and edited before the analysis' frame is.
    own = profile.identity_view()
    cc = _fill_cc(src, explicit)
    measured = measure(src, cc=cc)

    identity = [c for c in PROFILE_COLUMNS if c in src]
    launches = _Launches(own.table().select(identity))
    inv = src.floats("invocations")
    inv = np.where(np.isnan(inv), 1.0, inv)
    launches.join({"cc": cc, "total_duration_s": src.floats("duration_s") * inv})
    launches.join(measured.columns)

    basis = {
        lvl: np.asarray(measured.columns[f"{lvl}_bytes_basis"], dtype=object)
        for lvl in ("dram", "l2", "l1")
    }
    dram_rate = floats(np.asarray(measured.columns["dram_bytes_per_s"]))
    del measured
    assignment = assign_roofs(src, basis, explicit=explicit, clocks=clocks, dram_rate=dram_rate)
    del basis, dram_rate
    # A --gpu shorthand ("a100") says in the roof notes which GPU it meant.
    alias = lookup.describe() if lookup is not None else None
    if alias:
        for dev in assignment.devices:
            dev.notes.append(alias)
    roofs_of_launch: dict[str, npt.NDArray[np.float64]] = {"sm_clock_hz": assignment.sm_clock_hz}
    for key in (*ALL_COMPUTE_KEYS, *MEMORY_KEYS):
        # Taken out of the assignment: the table's is the one kept.
        values = assignment.peaks.pop(key)
        if key in MEMORY_KEYS or not np.isnan(values).all():
            roofs_of_launch[peak_column(key)] = values
    for col in _SOL:
        if col in src:
            roofs_of_launch[col] = src.floats(col)
    launches.join(roofs_of_launch)
    del roofs_of_launch

    placed = place(launches.table, thresholds)
    launches.join(placed)
    precision = np.asarray(placed["precision"], dtype=object)
    del placed
    launches.join(_roof_sources(precision, assignment))
    assignment.sources.clear()  # read: the table holds the launches' own
    launches.join({"mix_share": mix_share(src, precision)})
    sms = _sm_counts(src, assignment.devices)
    launches.join(judge(src, launches.table, sms, thresholds))
    # ncu's own rule results and speedup estimates, and the recoverable time
    # that ranks: ours bounded by ncu's (a step apart from the judgement).
    launches.join(combine(launches.table, profile.sources))
    launches.join(_failed_marks(launches.table, failed_profiles(src)))

    unmatched: list[str] = []
    if theory is not None:
        unmatched = _join_theory(launches, own, identity, theory)
    launches.join({"placement": placement(launches.table)})

    table = launches.table
    kernels = group_kernel_table(table, thresholds)
    kernels = kernels.with_columns({"advice": np.array(group_advice_ids(kernels), dtype=object)})
    findings = collect_findings(
        table, kernels, assignment.devices, theory=theory, unmatched=unmatched
    )
    return Analysis(
        profile=profile,
        launch_table=table,
        kernel_table=kernels,
        roofs=assignment.devices,
        findings=findings,
        thresholds=thresholds,
        clocks=clocks,
        options={
            "gpu": lookup.spec.key if lookup is not None else None,
            "roofs_file": str(roofs) if isinstance(roofs, (str, os.PathLike)) else None,
            "clocks": clocks,
            "theory": cast("TheorySummary", theory.describe()) if theory is not None else None,
        },
        theory=theory,
        unmatched=unmatched,
        identity=tuple(c for c in identity if c not in launches.written),
        identity_source=own,
    )


def _join_theory(
    launches: _Launches, profile: Profile, identity: list[str], theory: TheoryConfig
) -> list[str]:
    """The theory columns and the excess-traffic comparison, joined to ``launches``; the
    kernels no theory matched.

    The theory stages read and write a pandas frame: with theory inputs
    (a model or an estimates file, never on a plain report) the launches
    go through one and back.
    """
    import pandas as pd

    from ncu_roofline.analysis.theory_check import distrust_absurd_theory
    from ncu_roofline.theory.assign import apply_theory

    kept = [c for c in identity if c not in launches.written]
    frame = launch_frame(launches.table, profile, kept)
    theory_cols, unmatched = apply_theory(frame, theory)
    for name, values in theory_cols.items():
        frame[name] = (
            pd.Series(values, dtype=object) if np.asarray(values).dtype == object else values
        )
    add_comparison(frame)
    distrust_absurd_theory(frame, profile.sources)
    back = Table.from_frame(frame)
    launches.join({name: back[name] for name in back.columns if name not in kept})
    return unmatched


def _failed_marks(table: Table, failed: npt.NDArray[np.object_]) -> dict[str, npt.NDArray[Any]]:
    """The columns that mark the launches whose profiling failed: not placeable, with the
    count as the reason, and their verdicts cleared.

    Whatever few values such a launch has say nothing about the kernel, so
    its verdicts are cleared rather than drawn from them.
    """
    out: dict[str, npt.NDArray[Any]] = {"profiling_failed": failed}
    rows = present(failed)
    if not rows.any():
        return out
    changes: list[tuple[str, Any]] = [
        ("bound", "not placeable"),
        ("bound_reason", failed),
        *(
            (col, np.nan)
            for col in (
                "efficiency",
                "recoverable_s",
                "latency_s",
                "limiter_utilization",
                "max_utilization",
                "tail_loss",
                "roof_recoverable_s",
                "ncu_recoverable_s",
            )
        ),
        *(
            (col, None)
            for col in ("limiter", "limiter_basis", "side", "limiter_needs", "recoverable_bound_by")
        ),
        ("recoverable_basis", "unknown: profiling failed"),
    ]
    for col, value in changes:
        if col not in table:
            continue
        values = np.array(table[col])  # a copy: the table's arrays are read-only
        values[rows] = value[rows] if isinstance(value, np.ndarray) else value
        out[col] = values
    return out


def _sm_counts(src: Table, devices: list[DeviceRoofs]) -> npt.NDArray[np.float64]:
    """SMs per launch: the export's device attribute, else the GPU its roofs came from."""
    sms = src.floats("device__attribute_multiprocessor_count")
    if "launch__sm_count" in src:
        sms = np.where(np.isnan(sms), src.floats("launch__sm_count"), sms)
    if not np.isnan(sms).any():
        return sms
    # The table's arrays are read-only: fill a copy.
    sms = np.array(sms, dtype=np.float64)
    source = src.objects("source")
    name = src.objects("device_name")
    for dev in devices:
        if dev.gpu is None or not dev.gpu.sms:
            continue
        rows = np.isnan(sms) & (source == dev.source)
        rows &= absent(name) if dev.device_name is None else (name == dev.device_name)
        sms[rows] = float(dev.gpu.sms)
    return sms


def _roof_sources(
    precision: npt.NDArray[np.object_], assignment: RoofAssignment
) -> dict[str, npt.NDArray[np.object_]]:
    """Where each launch's binding ceilings came from."""
    compute_source = np.full(len(precision), None, dtype=object)
    for key in distinct(precision):
        rows = precision == key
        compute_source[rows] = assignment.sources[str(key)][rows]
    dram = assignment.sources["dram"]
    return {
        "roof_source_compute": compute_source,
        "roof_source_dram": dram,
        "roof_source": np.where(present(compute_source), compute_source, dram),
    }


def add_comparison(frame: pd.DataFrame) -> None:
    """Theoretical intensity and the measured-over-theory ratios, in place."""
    t_flops = floats(frame["theory_flops"])
    t_bytes = floats(frame["theory_bytes"])
    frame["theory_ai"] = ratio(t_flops, t_bytes)
    frame["byte_excess"] = ratio(floats(frame["dram_bytes"]), t_bytes)
    frame["flop_excess"] = ratio(floats(frame["flops"]), t_flops)
    frame["excess_bytes"] = floats(frame["dram_bytes"]) - t_bytes
    floor = theory_floor(frame, t_flops, t_bytes)
    frame["theory_floor_s"] = floor
    frame["theory_efficiency"] = ratio(floor, floats(frame["duration_s"]))
    frame["theory_flops_per_s"] = ratio(t_flops, floats(frame["duration_s"]))


def theory_floor(
    frame: pd.DataFrame, t_flops: npt.NDArray[np.float64], t_bytes: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """The least time the theoretical work could take on each launch's roofs.

    :func:`~ncu_roofline.analysis.floor.time_floor` on the ceiling of the
    op's precision (:func:`~ncu_roofline.analysis.floor.compute_ceiling`)
    and the DRAM bandwidth; it needs no FLOP or byte counters, so kernels
    the roofline cannot place (a duration but no counters) still get a
    theory-based efficiency.
    """
    n = len(frame)
    ceilings = {
        key: floats(frame[peak_column(key)])
        for key in ALL_COMPUTE_KEYS
        if peak_column(key) in frame
    }
    precision = (
        frame["theory_precision"].to_numpy(dtype=object)
        if "theory_precision" in frame
        else np.full(n, None, dtype=object)
    )
    peak, _ = compute_ceiling(ceilings, precision, cc_number(frame["cc"]))
    bw = (
        floats(frame["peak_dram_bytes_per_s"])
        if "peak_dram_bytes_per_s" in frame
        else np.full(n, np.nan)
    )
    return time_floor(t_flops, t_bytes, peak, bw)
