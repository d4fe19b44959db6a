"""The roofline engine: from a :class:`~ncu_roofline.core.model.Profile` to an
:class:`Analysis` with measured work and traffic, roofs, bound classes,
recoverable time and findings, for every launch and every kernel group.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.advice import group_advice_ids
from ncu_roofline.analysis.budget.records import BudgetRecord
from ncu_roofline.analysis.classify import BOUND_CLASSES, Thresholds, group_kernels, place
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
from ncu_roofline.analysis.theory_check import distrust_absurd_theory
from ncu_roofline.core.columns import PROFILE_COLUMNS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.gpu_spec import CLOCK_MODES
from ncu_roofline.core.grouping import per_distinct, shared_texts
from ncu_roofline.core.hardware import MEMORY_KEYS, GpuLookup, GpuSpec, chosen_roofs, match_device
from ncu_roofline.core.model import Profile
from ncu_roofline.core.table import Table, absent
from ncu_roofline.core.timeline import Timeline
from ncu_roofline.errors import UsageError
from ncu_roofline.theory.assign import apply_theory
from ncu_roofline.theory.config import TheoryConfig

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

    ``launches`` has one row per launch (identity columns, measured FLOPs and
    bytes, ceilings, placement); ``kernels`` one row per kernel and launch
    configuration, ranked by recoverable time; ``roofs`` the ceilings used
    per device with their sources; ``findings`` what to look at first.
    """

    profile: Profile
    launches: pd.DataFrame
    kernels: pd.DataFrame
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

    def __repr__(self) -> str:
        # The generated repr would print every frame: a debugger or a failing
        # test would show megabytes.  The counts say which analysis it is.
        return (
            f"{type(self).__name__}({len(self.launches)} launch rows, "
            f"{len(self.kernels)} kernel groups, {len(self.findings)} findings)"
        )


def _joined(frame: pd.DataFrame, columns: Mapping[str, Any]) -> pd.DataFrame:
    """``frame`` with ``columns``: one it has is replaced in place, new ones are added
    together; text columns stay Python objects (None where missing), each distinct
    text held once.

    Added together, a stage's numbers of one kind make one block of the frame
    rather than one block each: a frame of some hundred columns added one by
    one is what pandas warns about ("highly fragmented") on every further
    column.  pandas would convert each array of texts to its own string type
    (a conversion per launch, and another each time a rule reads the column
    back); the launch model's texts are objects, and so are these.
    """
    new: dict[str, npt.NDArray[Any] | pd.Series] = {}
    for col, values in columns.items():
        if isinstance(values, np.ndarray) and values.dtype == object:
            # Texts made per launch (joined, formatted, copied out of pandas)
            # are held once per distinct text.
            values = pd.Series(shared_texts(values), index=frame.index, dtype=object, copy=False)
        if col in frame:
            frame[col] = values
        else:
            new[col] = values
    if not new:
        return frame
    joined: pd.DataFrame = pd.concat([frame, pd.DataFrame(new, index=frame.index)], axis=1)
    return joined


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
    cc = _fill_cc(src, explicit)
    measured = measure(src, cc=cc)

    frame = profile.identity_frame(PROFILE_COLUMNS)
    inv = src.floats("invocations")
    inv = np.where(np.isnan(inv), 1.0, inv)
    frame = _joined(frame, {"cc": cc, "total_duration_s": src.floats("duration_s") * inv})
    frame = _joined(frame, measured.columns)

    basis = {
        lvl: np.asarray(measured.columns[f"{lvl}_bytes_basis"], dtype=object)
        for lvl in ("dram", "l2", "l1")
    }
    dram_rate = floats(np.asarray(measured.columns["dram_bytes_per_s"]))
    # The frame holds copies of every stage's columns: each stage's own arrays
    # are let go once joined, so that they do not add up to the judgement's
    # peak (a 172,608-launch raw page: tens of MB each).
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
        # Taken out of the assignment: the frame's copy is the one kept.
        values = assignment.peaks.pop(key)
        if key in MEMORY_KEYS or not np.isnan(values).all():
            roofs_of_launch[peak_column(key)] = values
    for col in _SOL:
        if col in src:
            roofs_of_launch[col] = src.floats(col)
    frame = _joined(frame, roofs_of_launch)
    del roofs_of_launch

    placed = place(frame, thresholds)
    frame = _joined(frame, placed)
    precision = np.asarray(placed["precision"], dtype=object)
    del placed
    frame = _joined(frame, _roof_sources(precision, assignment))
    assignment.sources.clear()  # read: the frame holds the launches' own
    frame = _joined(frame, {"mix_share": mix_share(src, precision)})
    frame = _joined(frame, judge(src, frame, _sm_counts(src, assignment.devices), thresholds))
    # ncu's own rule results and speedup estimates, and the recoverable time
    # that ranks: ours bounded by ncu's (a step apart from the judgement).
    frame = _joined(frame, combine(frame, profile.sources))
    frame = _mark_failed(frame, failed_profiles(src))

    unmatched: list[str] = []
    if theory is not None:
        theory_cols, unmatched = apply_theory(frame, theory)
        frame = _joined(frame, theory_cols)
        add_comparison(frame)
        distrust_absurd_theory(frame, profile.sources)
    frame = _joined(frame, {"placement": placement(frame)})

    kernels = group_kernels(frame, thresholds)
    kernels["advice"] = np.array(group_advice_ids(kernels), dtype=object)
    findings = collect_findings(
        frame, kernels, assignment.devices, theory=theory, unmatched=unmatched
    )
    return Analysis(
        profile=profile,
        launches=frame.reset_index(drop=True),
        kernels=kernels,
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
    )


def _mark_failed(frame: pd.DataFrame, failed: npt.NDArray[np.object_]) -> pd.DataFrame:
    """``frame`` with the launches whose profiling failed marked: not placeable, with the
    count as the reason.

    Whatever few values such a launch has say nothing about the kernel, so
    its verdicts are cleared rather than drawn from them.
    """
    frame = _joined(frame, {"profiling_failed": failed})
    rows = pd.notna(failed)
    if not rows.any():
        return frame
    frame.loc[rows, "bound"] = "not placeable"
    frame.loc[rows, "bound_reason"] = failed[rows]
    for col in (
        "efficiency",
        "recoverable_s",
        "latency_s",
        "limiter_utilization",
        "max_utilization",
        "tail_loss",
        "roof_recoverable_s",
        "ncu_recoverable_s",
    ):
        if col in frame:
            frame.loc[rows, col] = np.nan
    for col in ("limiter", "limiter_basis", "side", "limiter_needs", "recoverable_bound_by"):
        if col in frame:
            frame.loc[rows, col] = None
    if "recoverable_basis" in frame:
        frame.loc[rows, "recoverable_basis"] = "unknown: profiling failed"
    return frame


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
    for key in pd.unique(precision[pd.notna(precision)]):
        rows = precision == key
        compute_source[rows] = assignment.sources[str(key)][rows]
    dram = assignment.sources["dram"]
    return {
        "roof_source_compute": compute_source,
        "roof_source_dram": dram,
        "roof_source": np.where(pd.notna(compute_source), compute_source, dram),
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
