"""The report context: an :class:`~ncu_roofline.analysis.Analysis` as plain data.

Renderers (JSON now; HTML, Markdown and JUnit build on the same context)
receive only dicts, lists, strings, numbers and ``None``: no DataFrames, no
NaN.  A missing value is ``None``, never 0.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis import BOUND_CLASSES, Analysis
from ncu_roofline.analysis.catalogue import SEVERITIES, advice
from ncu_roofline.core.columns import (
    KERNEL_FIELDS,
    LAUNCH_FIELDS,
    PROJECTION_FIELDS,
    THEORY_FIELDS,
    TIMELINE_FIELDS,
)
from ncu_roofline.core.frame import column, floats, missing_values, object_column
from ncu_roofline.core.metrics import ncu_options_for, requirement_status
from ncu_roofline.report.records import LaunchRecords, records
from ncu_roofline.report.schema import (
    AdviceRecord,
    BoundTotals,
    CollectRecord,
    FailedTotals,
    Generator,
    InputRecord,
    KernelRecord,
    ReportContext,
    ReportOptions,
    Summary,
    TheorySummary,
)
from ncu_roofline.version import NAME, __version__

if TYPE_CHECKING:
    from ncu_roofline.core.frame import Columns

#: Version of the JSON report layout; bumped when a field changes meaning
#: or disappears (added fields do not bump it).
SCHEMA_VERSION = "1.0"


def generator() -> Generator:
    """The ``generator`` record of every report document: this program's name and version."""
    return {"name": NAME, "version": __version__}


def launch_count(launches: Columns) -> int:
    """Launches a launch frame or table stands for: a summary row counts its invocations
    (a row whose count is missing, one)."""
    return int(_invocations(launches).sum()) if len(launches) else 0


def _invocations(launches: Columns) -> npt.NDArray[np.float64]:
    """Each row's invocations as float64, 1 where missing: a row is at least one launch."""
    inv = column(launches, "invocations")
    return np.where(np.isnan(inv), 1.0, inv)


def _present(frame: Columns, name: str) -> npt.NDArray[np.bool_]:
    """True where column ``name`` holds a value; all False when the frame lacks it."""
    if name not in frame:
        return np.zeros(len(frame), dtype=bool)
    return ~missing_values(frame[name])


def report_options(analysis: Analysis) -> ReportOptions:
    """The options the analysis was made with (its ``options``, copied)."""
    return analysis.options.copy()


def summary_context(analysis: Analysis) -> Summary:
    """The whole analysis's totals: launches, groups, time, recoverable time, by bound class.

    With an nsys timeline joined, time, recoverable and latency-bound time
    are the groups' (the timeline's real time, :mod:`ncu_roofline.analysis.budget.attach`),
    not the sampled launches'.
    """
    k = analysis.kernel_columns
    launches = analysis.launch_columns
    # The groups carry the timeline's real time; the launches only ncu's sample.
    timing = k if analysis.budget is not None else launches
    durations = floats(timing["total_duration_s"])
    timed = bool((~np.isnan(durations)).any())
    total = float(np.nansum(durations)) if timed else None
    rec = floats(timing["recoverable_s"])
    lat = floats(timing["latency_s"]) if "latency_s" in timing else np.full(len(timing), np.nan)
    bound = object_column(k, "bound")
    group_launches = column(k, "launches")
    group_time = column(k, "total_duration_s")
    by_bound: dict[str, BoundTotals] = {}
    for b in BOUND_CLASSES:
        rows = bound == b
        by_bound[b] = {
            "kernels": int(rows.sum()),
            "launches": int(np.nansum(group_launches[rows])),
            "duration_s": float(np.nansum(group_time[rows])) if timed else None,
        }
    return {
        "launches": launch_count(launches),
        "rows": len(launches),
        "kernels": len(k),
        "total_duration_s": total,
        "recoverable_s": float(np.nansum(rec)) if (~np.isnan(rec)).any() else None,
        "recoverable_unknown": int((np.isnan(rec) & ~np.isnan(durations)).sum()),
        "latency_s": float(np.nansum(lat)) if (~np.isnan(lat)).any() else None,
        "by_bound": by_bound,
        "profiling_failed": _failed_totals(launches, k),
        "findings": {s: sum(1 for f in analysis.findings if f.severity == s) for s in SEVERITIES},
    }


def _failed_totals(launches: Columns, kernels: Columns) -> FailedTotals:
    """Launches whose profiling failed and the groups holding them: counted apart, no time."""
    if "profiling_failed" not in launches:
        return {"launches": 0, "kernels": 0}
    failed = _present(launches, "profiling_failed")
    # A group with an unknown count of failed launches is not counted as failed.
    groups = int((column(kernels, "failed_launches") > 0).sum())
    return {"launches": int(_invocations(launches)[failed].sum()), "kernels": groups}


def _fields(frame: Columns, fields: tuple[str, ...]) -> tuple[str, ...]:
    """The fields plus this analysis's per-datatype tensor FLOPs and theory fields."""
    fields = _with_tensor_types(frame, fields)
    if "theory_flops" in frame:
        fields = (*fields, *THEORY_FIELDS)
    if "time_basis" in frame:
        fields = (*fields, *TIMELINE_FIELDS)
    if "projected" in frame:
        fields = (*fields, *(f for f in PROJECTION_FIELDS if f in frame))
    return fields


def _with_tensor_types(frame: Columns, fields: tuple[str, ...]) -> tuple[str, ...]:
    """The fields plus the per-datatype tensor FLOPs this profile has, after ``flops_tensor``."""
    extra = [
        str(c)
        for c in frame.columns
        if str(c).startswith("flops_tensor_") and str(c) != "flops_tensor_basis"
    ]
    if not extra:
        return fields
    at = fields.index("flops_tensor") + 1
    return (*fields[:at], *extra, *fields[at:])


def _theory(analysis: Analysis) -> TheorySummary | None:
    if analysis.theory is None:
        return None
    k = analysis.kernel_columns
    # Groups the theory reached: those with a FLOP count or a byte floor.
    with_theory = (
        int((_present(k, "theory_flops") | _present(k, "theory_bytes")).sum())
        if "theory_bytes" in k
        else 0
    )
    summary = cast("TheorySummary", analysis.theory.describe())
    summary["kernels_with_theory"] = with_theory
    summary["unmatched"] = list(analysis.unmatched)
    return summary


def input_records(analysis: Analysis) -> list[InputRecord]:
    """Each input file of the analysis and what was read from it."""
    return cast("list[InputRecord]", [s.to_dict() for s in analysis.profile.sources])


def collect_records(analysis: Analysis) -> list[CollectRecord]:
    """Per input, what ``inspect`` would call missing and the ``ncu`` options to collect it."""
    out: list[CollectRecord] = []
    for info in analysis.profile.sources:
        _, missing = requirement_status(analysis.profile.present_metrics(info.path))
        out.append(
            {
                "path": info.path,
                "missing": [m.title for m in missing],
                "ncu_options": ncu_options_for(
                    missing, analysis.profile.compute_capability(info.path)
                ),
            }
        )
    return out


def build_context(analysis: Analysis) -> ReportContext:
    """The plain-data report of an analysis (with its ``budget`` when a timeline was joined)."""
    context: ReportContext = {
        "schema_version": SCHEMA_VERSION,
        "generator": generator(),
        "options": report_options(analysis),
        "inputs": input_records(analysis),
        "summary": summary_context(analysis),
        "roofs": [d.to_dict() for d in analysis.roofs],
        "theory": _theory(analysis),
        "launches": LaunchRecords(
            analysis.launch_columns, _fields(analysis.launch_columns, LAUNCH_FIELDS)
        ),
        "kernels": cast(
            "list[KernelRecord]",
            records(analysis.kernel_columns, _fields(analysis.kernel_columns, KERNEL_FIELDS)),
        ),
        "findings": [f.to_dict() for f in analysis.findings],
        "advice": advice_records(
            [f.advice or f.kind for f in analysis.findings] + _group_advice(analysis)
        ),
        "collect": collect_records(analysis),
    }
    if analysis.budget is not None:
        context["budget"] = analysis.budget
    if analysis.projections:
        context["projection"] = list(analysis.projections)
    return context


def _group_advice(analysis: Analysis) -> list[str]:
    """The advice ids of the kernel groups, in rank order (each group's ``advice``)."""
    k = analysis.kernel_columns
    if "advice" not in k:
        return []
    advice_ids = object_column(k, "advice")
    return [str(a) for a in advice_ids[~missing_values(advice_ids)].tolist()]


def advice_records(ids: list[str]) -> dict[str, AdviceRecord]:
    """The text of each advice id, once, in the order the findings, then the groups, name them."""
    out: dict[str, AdviceRecord] = {}
    for advice_id in dict.fromkeys(ids):
        why, what = advice(advice_id)
        out[advice_id] = {"why": why, "what_to_try": what}
    return out
