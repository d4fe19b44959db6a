"""The HTML page's context: the report context arranged for reading.

Everything the template shows is prepared here as plain data: numbers are
formatted, the kernel table rows carry both their display text and a sort
key, findings are grouped by the advice they share, and the roofline charts
come ready to embed.  The template only lays this out; it computes nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ncu_roofline.analysis.catalogue import advice, advice_label
from ncu_roofline.analysis.limiter.units import UNIT_LABELS
from ncu_roofline.render.advice_refs import groups_by_advice
from ncu_roofline.render.budget_view import budget_view
from ncu_roofline.render.charts import BOUND_COLOURS, roofline_figures
from ncu_roofline.render.charts.groups import PLACEMENT_SYMBOLS
from ncu_roofline.render.charts.style import NEUTRAL
from ncu_roofline.render.charts.types import RooflineChart
from ncu_roofline.render.charts.values import field_counts
from ncu_roofline.render.format import TABLE, collect_command, file_name, plural, unknown
from ncu_roofline.render.html_report import generated_at_text
from ncu_roofline.render.ncu_estimates import ncu_estimate_rows
from ncu_roofline.render.page_views import (
    AdviceCard,
    BoundBar,
    CeilingView,
    CollectBox,
    CollectInput,
    DeviceView,
    FindingGroup,
    Headline,
    KernelRow,
    MethodologyRow,
    PageView,
    ProjectionView,
    SummaryView,
    TheoryRow,
    TopRow,
    TryLine,
)
from ncu_roofline.render.severity import most_severe_first
from ncu_roofline.render.story import first_step_text, story
from ncu_roofline.report.schema import (
    DeviceRoofsRecord,
    InputRecord,
    KernelRecord,
    ReportContext,
    ReportOptions,
    Summary,
)
from ncu_roofline.version import __version__

#: What each bound class means, in one line, for the summary.
BOUND_MEANING: dict[str, str] = {
    "memory": "left of the ridge point: limited by DRAM bandwidth",
    "compute": "right of the ridge point: limited by the compute roof",
    "latency": "far under every roof, or too short for launch overhead to amortise",
    "communication": "collective kernels, bound by the interconnect",
    "not placeable": "an input the roofline needs is missing",
}


def advice_anchor(advice_id: str) -> str:
    """The page anchor of an advice card: ``advice-`` and the id with ``/`` as ``--``."""
    return "advice-" + "".join(c if c.isalnum() or c == "-" else "--" for c in advice_id)


def try_line(k: KernelRecord) -> TryLine | None:
    """A group's "Try" reference: its advice's few words, the card's anchor and the gain.

    The gain is the group's recoverable time where it has any; the advice's
    text itself is on its card, once.
    """
    advice_id = k.get("advice")
    if not isinstance(advice_id, str) or not advice_id:
        return None
    rec = k.get("recoverable_s")
    return {
        "label": advice_label(advice_id),
        "anchor": advice_anchor(advice_id),
        "gain": TABLE.duration(rec) if isinstance(rec, (int, float)) and rec > 0 else None,
    }


#: The kernel table's columns a narrow screen keeps (with the name and the bound class).
COMPACT = ("rank", "time", "share", "recoverable")


def _sort_key(value: Any) -> str:
    """A sortable attribute: numbers as repr, missing as empty (sorted last by the script)."""
    if unknown(value):
        return ""
    if isinstance(value, (int, float)):
        return repr(float(value))
    return str(value)


def _kernel_rows(
    kernels: list[KernelRecord], with_theory: bool, targets: tuple[str, ...] = ()
) -> list[KernelRow]:
    rows: list[KernelRow] = []
    repeats = Counter(k["kernel_short"] or k["kernel"] for k in kernels)
    for k in kernels:
        cells = [
            ("rank", str(k["rank"]), k["rank"]),
            ("launches", TABLE.count(k["launches"]), k["launches"]),
            ("time", TABLE.duration(k["total_duration_s"]), k["total_duration_s"]),
            ("share", TABLE.pct(k["time_share"]), k["time_share"]),
            ("ai", TABLE.number(k["ai_dram"]), k["ai_dram"]),
            ("achieved", TABLE.si(k["achieved_flops_per_s"], "FLOP/s"), k["achieved_flops_per_s"]),
            ("bandwidth", TABLE.si(k["dram_bytes_per_s"], "B/s"), k["dram_bytes_per_s"]),
            ("efficiency", TABLE.pct(k["efficiency"]), k["efficiency"]),
            ("recoverable", TABLE.recoverable(k["recoverable_s"]), k["recoverable_s"]),
        ]
        if with_theory:
            cells.append(
                (
                    "byte_excess",
                    TABLE.ratio(k.get("byte_excess")),
                    k.get("byte_excess"),
                )
            )
        projected = k.get("projected") or {}
        for i, key in enumerate(targets):
            value = projected.get(key)
            cells.append((f"projected_{i}", TABLE.duration(value), value))
        short = k["kernel_short"] or k["kernel"]
        # Several launch configurations of one kernel: say which, on a line
        # of its own so a clipped long name cannot hide it.
        hint = f"grid {k['grid']}" if repeats[short] > 1 and k["grid"] else ""
        rows.append(
            {
                "short": short,
                "hint": hint,
                "full": k["kernel"],
                "bound": k["bound"],
                "bound_reason": k["bound_reason"] or "",
                "limiter": _limiter_text(k),
                "binding": _binding_text(k),
                "recoverable_basis": k.get("recoverable_basis") or "",
                "precision": k["precision"] or TABLE.missing,
                "config": f"grid {k['grid'] or '?'} block {k['block'] or '?'}",
                "device": k["device_name"] or (f"CC {k['cc']}" if k["cc"] else "unknown device"),
                "source": k["source"],
                "theory": k.get("theory_source") or "",
                "confidence": k.get("confidence") or "",
                "try": try_line(k),
                "cells": [
                    {
                        "key": key,
                        "text": text,
                        "sort": _sort_key(raw),
                        "wide": key not in COMPACT and not key.startswith("projected"),
                    }
                    for key, text, raw in cells
                ],
            }
        )
    return rows


#: Display names of the memory levels.
_LEVEL_LABELS = {"dram": "DRAM", "l2": "L2", "l1": "L1"}


def _binding_text(k: KernelRecord) -> str:
    """``"binding level: L2"`` where a level other than DRAM binds; empty otherwise.

    DRAM binds unless the device has L2 or L1 roofs that sit lower at the
    group's intensities, so only the exception is worth a line.
    """
    level = k.get("binding_level")
    if not isinstance(level, str) or level == "dram":
        return ""
    return f"binding level: {_LEVEL_LABELS.get(level, level)}"


def _limiter_text(k: KernelRecord) -> str:
    """``"limiter: L1/TEX 55%"``; the class alone where no unit limits; for an unknown
    limiter, what to collect to settle it; empty where the group has none."""
    limiter = k.get("limiter")
    if not isinstance(limiter, str) or not limiter:
        return ""
    needs = k.get("limiter_needs")
    if limiter == "unknown" and isinstance(needs, str) and needs:
        return f"limiter: unknown (no utilisation in the export); collect {needs}"
    util = k.get("limiter_utilization")
    label = UNIT_LABELS.get(limiter, limiter)
    busy = f" {TABLE.pct(util)}" if limiter in UNIT_LABELS and not unknown(util) else ""
    return f"limiter: {label}{busy}"


def _methodology(context: ReportContext) -> list[MethodologyRow]:
    """Which metric family each quantity came from, with launch counts."""
    launches = context["launches"]
    out: list[MethodologyRow] = []
    for field, title in (
        ("duration_basis", "Duration"),
        ("flops_tensor_basis", "Tensor-core FLOPs"),
        ("dram_bytes_basis", "DRAM bytes"),
        ("l2_bytes_basis", "L2 bytes"),
        ("l1_bytes_basis", "L1 bytes"),
    ):
        # Counted per distinct value (codes counted in C), not per launch in Python.
        counts: Counter[str] = Counter()
        missing = 0
        for value, n in field_counts(launches, field):
            if value:
                counts[str(value)] += n
            else:
                missing += n
        items = [f"{name} ({plural(n, 'launch', 'launches')})" for name, n in counts.most_common()]
        if missing:
            items.append(f"not available ({plural(missing, 'launch', 'launches')})")
        out.append({"title": title, "entries": items})
    return out


def untitled(charts: list[RooflineChart]) -> list[RooflineChart]:
    """Drop the in-chart title: the page's heading above each chart says it."""
    for c in charts:
        layout = c["figure"]["layout"]
        layout["title"] = {"text": ""}
        layout["margin"] = {**layout.get("margin", {}), "t": 40}
    return charts


def _options_line(options: ReportOptions) -> str:
    """The settings the report was made with, in one line."""
    parts = []
    if options.get("gpu"):
        parts.append(f"--gpu {options['gpu']}")
    if options.get("roofs_file"):
        parts.append(f"--roofs {options['roofs_file']}")
    parts.append(f"clocks {options.get('clocks', 'measured')}")
    theory = options.get("theory")
    if theory:
        if theory.get("file"):
            parts.append(f"--theory {theory['file']}")
        model = theory.get("model")
        if model:
            parts.append(
                f"model {model['name']} {model['phase']}, batch {model['batch']}, seq "
                f"{model['seq']}, {model['dtype']}"
                + (f", KV {model['kv_dtype']}" if model.get("kv_dtype") else "")
                + (f", tp {model['tp']}" if model.get("tp", 1) > 1 else "")
            )
        parts.append(f"excess threshold {TABLE.number(theory['excess_threshold'], digits=6)}x")
    return "options: " + "; ".join(parts)


def _by_bound(summary: Summary) -> list[BoundBar]:
    """One bar per bound class: time, share of the profile and colour.

    ``summary["by_bound"]`` lists every bound class in the report's order,
    those without kernels included, so the page needs no list of its own.
    """
    total = summary["total_duration_s"]
    rows: list[BoundBar] = []
    for b, entry in summary["by_bound"].items():
        seconds = entry["duration_s"]
        share = (seconds / total) if (seconds is not None and total) else None
        rows.append(
            {
                "bound": b,
                "meaning": BOUND_MEANING[b],
                "kernels": entry["kernels"],
                "time": TABLE.duration(seconds),
                "share": TABLE.pct(share),
                "width": TABLE.decimals(100 * share) if share else "0",
                "colour": BOUND_COLOURS[b],
            }
        )
    return rows


#: Kernel groups in the summary's table of the most recoverable time.
TOP_RECOVERABLE = 5


def top_recoverable(kernels: list[KernelRecord], total: float | None) -> list[TopRow]:
    """The table of the kernel groups with the most recoverable time (the context ranks them).

    At most :data:`TOP_RECOVERABLE` rows; the groups are ranked by
    recoverable time, so the first rows of ``kernels`` are enough.
    """
    # Latency-class groups have nothing to recover: they are not "top".
    ranked = [k for k in kernels if k["recoverable_s"]][:TOP_RECOVERABLE]
    # One kernel at several launch shapes is several groups of one name:
    # their grids tell the rows apart (the # links them to the kernel table).
    names = Counter(k["kernel_short"] or k["kernel"] for k in ranked)
    return [
        {
            "rank": k["rank"],
            "shape": (
                f"grid {k['grid']}, block {k['block']}"
                if names[k["kernel_short"] or k["kernel"]] > 1 and k.get("grid")
                else None
            ),
            "short": k["kernel_short"] or k["kernel"],
            "full": k["kernel"],
            "bound": k["bound"],
            "colour": BOUND_COLOURS.get(k["bound"] or "", NEUTRAL),
            "limiter": _limiter_text(k) or None,
            "time": TABLE.duration(k["total_duration_s"]),
            "time_share": TABLE.pct(k["time_share"]),
            "efficiency": TABLE.pct(k["efficiency"]),
            "recoverable": TABLE.recoverable(k["recoverable_s"]),
            "share": TABLE.pct(_share(k["recoverable_s"], total)),
            "try": try_line(k),
        }
        for k in ranked
    ]


def _share(part: float | None, total: float | None) -> float | None:
    """``part`` as a fraction of ``total``; ``None`` where either is unknown or ``total`` is 0."""
    return part / total if part is not None and total else None


def _failed_launches(summary: Summary) -> int:
    """Launches whose profiling failed (0 in reports written before the field existed)."""
    failed = summary.get("profiling_failed") or {}
    return int(failed.get("launches") or 0)


def headline(summary: Summary, latency: float | None = None) -> Headline:
    """The summary's totals as text: time, launches, groups, recoverable and latency time.

    ``latency`` is the story's latency time (:func:`~ncu_roofline.render.story.story`:
    placed groups only); the summary's own where not given.
    """
    total = summary["total_duration_s"]
    if latency is None:
        latency = summary.get("latency_s")
    return {
        "total": TABLE.duration(total),
        "launches": TABLE.count(summary["launches"]),
        "kernels": TABLE.count(summary["kernels"]),
        "launches_words": (
            ("launch" if summary["launches"] == 1 else "launches")
            + " in "
            + plural(int(summary["kernels"] or 0), "kernel group")
        ),
        "recoverable": TABLE.recoverable_total(
            summary["recoverable_s"], summary.get("recoverable_unknown")
        ),
        "recoverable_share": TABLE.pct(summary["recoverable_s"] / total)
        if (summary["recoverable_s"] is not None and total)
        else TABLE.missing,
        "latency": TABLE.duration(latency) if latency else None,
        # Launches whose profiling failed have no time to add: counted apart.
        "failed": TABLE.count(failed) if (failed := _failed_launches(summary)) else None,
        "latency_share": TABLE.pct(latency / total) if (latency and total) else TABLE.missing,
    }


def _summary(context: ReportContext) -> SummaryView:
    """The summary block: totals, time by bound class, top kernels, finding kinds."""
    summary = context["summary"]
    figures = story(context)
    first = figures["first"]
    short = {k["kernel"]: k["kernel_short"] or k["kernel"] for k in context["kernels"]}
    return {
        **headline(summary, figures["latency_s"] or 0.0),
        "findings": figures["findings"],
        "findings_word": "finding" if figures["findings"] == 1 else "findings",
        "verdict": first_step_text(first, short),
        "first_kernel": first["kernels"][0] if first["kernels"] else "",
        "by_bound": _by_bound(summary),
        # Classes without kernels say nothing on the first screen.
        "by_bound_shown": [b for b in _by_bound(summary) if b["kernels"]],
        "top": top_recoverable(context["kernels"], summary["total_duration_s"]),
        "finding_kinds": figures["finding_kinds"],
    }


def _findings(context: ReportContext) -> list[FindingGroup]:
    """The findings grouped by their advice, most severe group first.

    Each group shows its advice (why it matters, what to try) once and
    lists the findings that share it, so twelve kernels with the same
    problem make one card, not twelve copies of one paragraph.  Each card
    also names the kernel groups whose "Try" line points to it.
    """
    texts = context.get("advice") or {}
    users = _advice_users(context["kernels"])
    groups: dict[str, FindingGroup] = {}
    for f in most_severe_first(context["findings"]):
        advice_id = f.get("advice") or f["kind"]
        group = groups.get(advice_id)
        if group is None:
            text = texts.get(advice_id)
            why, what = (text["why"], text["what_to_try"]) if text else advice(advice_id)
            group = groups[advice_id] = {
                "kind": f["kind"],
                "severity": f["severity"],
                "advice": advice_id,
                "anchor": advice_anchor(advice_id),
                "for": users.get(advice_id, ""),
                "why": why,
                "what": what,
                "items": [],
            }
        group["items"].append(f)
    out = list(groups.values())
    _advice_once(out)
    return out


def _advice_once(cards: list[Any], said: dict[str, str] | None = None) -> dict[str, str]:
    """Say each "Try" text once per page: a later card with the same text points back.

    ``said`` maps the texts already shown to their card's anchor; returned updated.
    """
    said = {} if said is None else said
    for card in cards:
        what = card["what"]
        if not what:
            continue
        if what in said:
            card["what"] = f"the same as the card above ({said[what]})."
        else:
            said[what] = advice_label(card["advice"])
    return said


def _advice_users(kernels: list[KernelRecord]) -> dict[str, str]:
    """Per advice id, the kernel groups that carry it: ``"#1 name, #4 name"`` (first ten)."""
    by_id = {
        a: [f"#{k['rank']} {k['kernel_short'] or k['kernel']}" for k in groups]
        for a, groups in groups_by_advice(kernels).items()
    }
    return {
        a: ", ".join(names[:10]) + (f" and {len(names) - 10} more" if len(names) > 10 else "")
        for a, names in by_id.items()
    }


def _advice_cards(context: ReportContext, findings: list[FindingGroup]) -> list[AdviceCard]:
    """The advice of kernel groups that no finding shares, one card each, in rank order."""
    texts = context.get("advice") or {}
    users = _advice_users(context["kernels"])
    shown = {g["advice"] for g in findings}
    cards: list[AdviceCard] = []
    for advice_id in users:
        if advice_id in shown:
            continue
        text = texts.get(advice_id)
        why, what = (text["why"], text["what_to_try"]) if text else advice(advice_id)
        cards.append(
            {
                "advice": advice_id,
                "anchor": advice_anchor(advice_id),
                "label": advice_label(advice_id),
                "for": users[advice_id],
                "why": why,
                "what": what,
            }
        )
    _advice_once(cards, _advice_once([dict(g) for g in findings]))
    return cards


def _devices(roofs: list[DeviceRoofsRecord]) -> list[DeviceView]:
    """Each device's ceilings with their sources, and a one-line summary of where they came from."""
    devices: list[DeviceView] = []
    for d in roofs:
        name = d["device_name"] or "device name not in the export"
        cc = d["cc"] or "?"
        clock = TABLE.si(d["measured_sm_clock_hz"], "Hz")
        ceilings: list[CeilingView] = [
            {
                "key": c["key"],
                "value": TABLE.si(c["value"], "B/s" if c["kind"] == "memory" else "FLOP/s"),
                "source": c["source"],
                "clock": TABLE.si(c["clock_hz"], "Hz") if c["clock_hz"] else TABLE.missing,
                "uncertain": c["uncertain"],
            }
            for c in d["ceilings"]
        ]
        sources = list(dict.fromkeys(c["source"] for c in ceilings))
        # "X at the measured SM clock" already says "X": name the source once.
        sources = [s for s in sources if not any(o != s and o.startswith(s) for o in sources)]
        devices.append(
            {
                "name": name,
                "cc": cc,
                "gpu": d["gpu"]["name"] if d["gpu"] else None,
                "clock": clock,
                "ceilings": ceilings,
                "notes": d["notes"],
                "source": d["source"],
                "summary": (
                    f"{name} (CC {cc}): roofs from "
                    + ("; ".join(sources) if sources else "nowhere (no roofs)")
                    + (f", SM clock {clock}" if clock != TABLE.missing else "")
                ),
            }
        )
    return devices


def _theory_rows(kernels: list[KernelRecord]) -> list[TheoryRow]:
    """The theory table: kernel groups with a theoretical intensity or byte excess."""
    rows: list[TheoryRow] = []
    for k in kernels:
        if k.get("theory_ai") is None and k.get("byte_excess") is None:
            continue
        rows.append(
            {
                "short": k["kernel_short"] or k["kernel"],
                "full": k["kernel"],
                "label": k.get("theory_label") or "",
                "theory_ai": TABLE.number(k.get("theory_ai")),
                "ai": TABLE.number(k["ai_dram"]),
                "byte_excess": TABLE.number(k.get("byte_excess")),
                "flop_excess": TABLE.number(k.get("flop_excess")),
                "confidence": k.get("confidence") or "",
                "source": k.get("theory_source") or "",
                "floor": TABLE.duration(k.get("theory_floor_s")),
                "theory_efficiency": TABLE.pct(k.get("theory_efficiency")),
            }
        )
    return rows


def _collect(context: ReportContext, points: int) -> CollectBox | None:
    """With no point placed, the ``ncu`` command that collects what is missing; else ``None``.

    Shown in place of an empty chart, so the first screen says what to do.
    """
    if points or not any(k["bound"] == "not placeable" for k in context["kernels"]):
        return None
    reasons = list(
        dict.fromkeys(
            k["bound_reason"] for k in context["kernels"] if k["bound"] == "not placeable"
        )
    )
    inputs: list[CollectInput] = [
        {
            "path": c["path"],
            "missing": ", ".join(c["missing"]),
            "command": collect_command(c["ncu_options"]),
        }
        for c in context.get("collect", [])
        if c["ncu_options"]
    ]
    return {
        "reasons": [r[:1].upper() + r[1:] for r in reasons if r],
        "inputs": inputs,
        "no_roofs": not any(d["ceilings"] for d in context["roofs"]),
    }


def _marker_hint(charts: list[RooflineChart]) -> str:
    """What the marker shapes mean: diamonds (when some, not all, markers have findings),
    the bandwidth strip's triangles and the theory squares (when there are any)."""
    symbols: list[Any] = []
    for c in charts:
        for trace in c["figure"].get("data", []):
            symbol = (trace.get("marker") or {}).get("symbol")
            if trace.get("legendgroup") == "kernel groups" and isinstance(symbol, list):
                symbols.extend(symbol)
    parts = []
    diamonds = sum(1 for sym in symbols if sym == "diamond")
    if 0 < diamonds < len(symbols):
        parts.append("diamonds have findings")
    if PLACEMENT_SYMBOLS["bandwidth"] in symbols:
        parts.append(
            "triangles at the left edge do no floating-point work: they are placed by their "
            "DRAM bandwidth, as far under the DRAM roof as their share of its peak"
        )
    if PLACEMENT_SYMBOLS["theory"] in symbols:
        parts.append(
            "squares are placed from theoretical work (the export has no FLOP or byte "
            "counters): theoretical intensity, theoretical FLOPs over the measured time"
        )
    return "; ".join(parts)


def page_charts(
    context: ReportContext, *, titled: bool = False
) -> tuple[list[RooflineChart], CollectBox | None]:
    """The page's roofline charts, and the box that replaces them when none can be drawn.

    The charts are :func:`~ncu_roofline.render.charts.roofline_figures`,
    without their in-chart titles (the page's headings say them) unless
    ``titled``.  Where no kernel group could be placed there is no chart:
    the second value is then what to collect (:func:`_collect`), else ``None``.
    """
    charts = roofline_figures(context)
    collect = _collect(context, sum(c["groups_plotted"] for c in charts))
    if collect is not None:
        # Nothing to draw: the box with the command replaces the empty chart.
        return [], collect
    return (charts if titled else untitled(charts)), None


def _title(inputs: list[InputRecord]) -> str:
    title = "Roofline report: " + ", ".join(file_name(i["path"]) for i in inputs[:3])
    if len(inputs) > 3:
        title += f" and {len(inputs) - 3} more"
    return title


def _projections(context: ReportContext) -> list[ProjectionView]:
    """Each ``--project-to`` target: its key (the kernel table's column), name, headline, model."""
    return [
        {
            "key": p["target"],
            "name": p["target_name"],
            "headline": p["headline"] or f"{p['target_name']}: no launch could be projected.",
            "model": p["model"],
        }
        for p in context.get("projection", [])
    ]


def build_page(
    context: ReportContext, plotly_js: str = "inline", generated_at: str | None = None
) -> PageView:
    """The template's context for the HTML report."""
    kernels = context["kernels"]
    with_theory = context.get("theory") is not None
    charts, collect = page_charts(context)
    findings = _findings(context)
    points = sum(c["groups_plotted"] for c in charts)
    projections = _projections(context)
    return {
        "title": _title(context["inputs"]),
        "generated_at": generated_at_text(generated_at),
        "version": __version__,
        "inputs": [
            {**i, "launches_text": plural(int(i["launches"]), "launch", "launches")}
            for i in context["inputs"]
        ],
        "devices": _devices(context["roofs"]),
        "options": context["options"],
        "options_line": _options_line(context["options"]),
        "summary": _summary(context),
        "budget": budget_view(context.get("budget")),
        "charts": [
            {"id": c["id"], "title": c["title"], "not_plotted": c["not_plotted"]} for c in charts
        ],
        "chart_data": {c["id"]: c["figure"] for c in charts},
        "collect": collect,
        "marker_hint": _marker_hint(charts),
        "bound_colours": BOUND_COLOURS,
        "kernels": _kernel_rows(kernels, with_theory, tuple(p["key"] for p in projections)),
        "projections": projections,
        "with_theory": with_theory,
        "theory": context.get("theory"),
        "theory_rows": _theory_rows(kernels) if with_theory else [],
        "findings": findings,
        "advice_cards": _advice_cards(context, findings),
        "ncu_estimates": ncu_estimate_rows(kernels),
        "methodology": _methodology(context),
        "plotly_js": plotly_js,
        "counts": {
            "groups": len(kernels),
            "points": points,
            "launch_points": sum(c["launches_plotted"] for c in charts),
        },
    }
