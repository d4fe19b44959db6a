"""Findings from a time budget: ``launch-bound``, ``graph-launched``, ``unprofiled-hot``.

:func:`budget_findings` reads a :class:`~ncu_roofline.analysis.budget.records.BudgetRecord`
(not an analysis, so it is not one of the analysis's rules; the catalogue
lists it under :data:`~ncu_roofline.analysis.catalogue.TIMELINE_RULES`).
Each message ends with what it rests on: the trace of which device and
which NVTX times, or kernel summaries only.

Thresholds
    ``launch-bound``: idle gaps plus the time held by kernels shorter than
    the budget's small-kernel threshold (5 us by default) make at least
    :data:`LAUNCH_BOUND_SHARE` (30%) of the span of the capture or of a range
    name's steps.  Below that, launch overhead is a cost among others; above
    it, no kernel tuning can win back most of the step.  From summaries alone
    (no gaps), the small kernels' share of kernel time is held to the same
    threshold and the message says the gaps are unknown.
    ``unprofiled-hot``: kernels ncu did not profile hold at least
    :data:`UNPROFILED_SHARE` (10%) of the kernel time.
"""

from __future__ import annotations

from ncu_roofline.analysis.budget.records import BudgetRecord, RangeBudgetRecord, WindowBudgetRecord
from ncu_roofline.analysis.catalogue import severity_of
from ncu_roofline.analysis.findings.finding import Finding, pct
from ncu_roofline.core.names import short_name
from ncu_roofline.core.si import format_si

__all__ = ["LAUNCH_BOUND_SHARE", "UNPROFILED_SHARE", "budget_findings"]

#: Share of a span in idle gaps and small kernels from which a scope is launch-bound.
LAUNCH_BOUND_SHARE = 0.30
#: Share of kernel time in unprofiled kernels from which they are worth profiling.
UNPROFILED_SHARE = 0.10
#: Unprofiled kernels a finding names.
_NAMED = 3


def _finding(kind: str, message: str, kernel: str | None = None) -> Finding:
    return Finding(kind, kernel, severity_of(kind), message, advice=kind)


def _basis(record: BudgetRecord) -> str:
    if record["basis"] != "trace":
        return "nsys kernel summaries (totals only: no gaps or overlap measured)"
    ranges = f", NVTX steps by {record['range_basis']}" if record["range_basis"] else ""
    return f"the nsys trace of device {record['device'] or 'unknown'}{ranges}"


def _common_gap(w: WindowBudgetRecord | RangeBudgetRecord) -> str:
    bins = w["gaps"] or []
    if not bins or not w["gap_count"]:
        return ""
    top = max(bins, key=lambda b: b["seconds"])
    return f", most of their time in gaps of {top['label']}"


def _graphed(record: BudgetRecord) -> str:
    """A note when CUDA graphs already launch most kernels: graphs are then no remedy."""
    share = record["graphs"]["kernel_share"]
    if share is None or share < 0.5:
        return ""
    return (
        f" {pct(share)} of the kernels already come from CUDA graphs: fusing kernels or giving "
        "each more work is what is left."
    )


def _launch_bound(
    scope: str, w: WindowBudgetRecord | RangeBudgetRecord, record: BudgetRecord, threshold: float
) -> Finding | None:
    small_label = format_si(record["small_kernel_threshold_s"], "s")
    share = w["launch_bound_share"]
    if share is not None and w["span_s"]:
        if share < threshold:
            return None
        message = (
            f"{scope}: idle gaps ({format_si(w['gaps_s'], 's')} in {w['gap_count']} gaps"
            f"{_common_gap(w)}) and kernels under {small_label} ({format_si(w['small_kernel_s'], 's')}, "
            f"{w['small_kernels']} kernels) make {pct(share)} of its {format_si(w['span_s'], 's')} span "
            f"(threshold {pct(threshold)}): the GPU mostly waits on launches.{_graphed(record)} "
            f"From {_basis(record)}."
        )
        return _finding("launch-bound", message)
    if record["basis"] == "summary" and w["kernel_s"] > 0:
        share = w["small_kernel_s"] / w["kernel_s"]
        if share < threshold:
            return None
        message = (
            f"{scope}: kernels averaging under {small_label} take {pct(share)} of kernel time "
            f"({w['small_kernels']} instances, {format_si(w['small_kernel_s'], 's')}; threshold "
            f"{pct(threshold)}): a step of such kernels is likely launch-bound, though the idle "
            f"gaps between them are unknown. From {_basis(record)}."
        )
        return _finding("launch-bound", message)
    return None


def budget_findings(
    record: BudgetRecord,
    *,
    launch_bound_share: float = LAUNCH_BOUND_SHARE,
    unprofiled_share: float = UNPROFILED_SHARE,
) -> list[Finding]:
    """The findings a time budget supports, most severe first.

    ``launch-bound`` for the capture and each range name at or over
    ``launch_bound_share``; ``graph-launched`` when CUDA graphs launched
    kernels; ``unprofiled-hot`` when kernels ncu did not profile hold
    ``unprofiled_share`` or more of the kernel time (only with an analysis
    joined).
    """
    found: list[Finding] = []
    capture = _launch_bound("The capture", record, record, launch_bound_share)
    if capture is not None:
        found.append(capture)
    for r in record["ranges"]:
        steps = f" ({r['instances']} steps)" if r["instances"] else ""
        f = _launch_bound(f"NVTX range {r['name']!r}{steps}", r, record, launch_bound_share)
        if f is not None:
            found.append(f)

    cap = record
    not_profiled = cap["not_profiled_s"]
    if record["joins"] is not None and not_profiled and cap["kernel_s"] > 0:
        share = not_profiled / cap["kernel_s"]
        if share >= unprofiled_share:
            top = record["unprofiled"][:_NAMED]
            named = "; ".join(
                f"{short_name(u['name'])} ({format_si(u['total_s'], 's')}, "
                f"{u['instances']:,} launches; profile with ncu {u['ncu_options']})"
                for u in top
            )
            more = len(record["unprofiled"]) - len(top)
            nothing = (
                " Nothing joined at all: the ncu export is probably of another program."
                if not record["joins"]["joined_share"]
                else ""
            )
            found.append(
                _finding(
                    "unprofiled-hot",
                    f"Kernels ncu did not profile take {pct(share)} of kernel time "
                    f"({format_si(not_profiled, 's')} of {format_si(cap['kernel_s'], 's')}; threshold "
                    f"{pct(unprofiled_share)}): {named}{f' and {more} more' if more > 0 else ''}.{nothing} "
                    f"From {_basis(record)} joined with the ncu groups by name.",
                    kernel=top[0]["name"] if len(top) == 1 else None,
                )
            )

    graphs = record["graphs"]
    if graphs["basis"] is not None and (graphs["graph_kernels"] or graphs["graph_launches"]):
        evidence = {
            "api": "their corr ids are those of cudaGraphLaunch/cuGraphLaunch calls",
            "shared corr id": "several kernels share each corr id (no API trace to confirm)",
            "api summary": "the API summary counts the graph launches; which kernels is unknown",
        }[graphs["basis"]]
        kernels = (
            f"{graphs['graph_kernels']} kernels ({pct(graphs['kernel_share'] or float('nan'))} of "
            f"kernel launches, {format_si(graphs['graph_kernel_s'], 's')}) came from "
            if graphs["graph_kernels"]
            else ""
        )
        found.append(
            _finding(
                "graph-launched",
                f"{kernels}{graphs['graph_launches']} CUDA graph launch(es): their launch overhead "
                f"is already amortised ({evidence}).",
            )
        )
    return found
