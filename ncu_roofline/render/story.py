"""One story in every format: the headline figures and the first thing to do.

The HTML page's cards, the Markdown verdict and summary and the terminal
summary all read :func:`story`, so they state the same total time,
recoverable and latency time and finding count, and send the reader to the
same first step:

* gates tripped: the kernel groups that tripped them, first;
* nothing could be placed: name the GPU (``--gpu NAME``) where the export
  has no roofs, or collect the missing metrics (the ``ncu`` command);
* else the kernel group with the most recoverable time.

Latency time counts only placed kernel groups: a group that is not
placeable is in the "not placeable" class of the time-by-bound bars, and
its time is not said twice.
"""

from __future__ import annotations

from collections import Counter
from typing import TypedDict

from ncu_roofline.render.format import collect_command, unknown
from ncu_roofline.report.schema import KernelRecord, ReportContext, tripped_gates

#: The bound class of a kernel group with no place on the roofline.
NOT_PLACEABLE = "not placeable"


class FirstStep(TypedDict):
    """What to do first: ``kind`` is ``gates``, ``gpu``, ``collect``, ``kernel`` or ``none``.

    ``kernels`` holds the full names of the groups to look at (gate-tripping
    ones, or the one with the most recoverable time); ``command`` the
    ``ncu`` command that collects what is missing (``collect`` and ``gpu``).
    """

    kind: str
    kernels: list[str]
    command: str | None
    gates: int


class Story(TypedDict):
    """The headline figures every format states, and the first step."""

    total_s: float | None
    recoverable_s: float | None
    recoverable_unknown: int
    latency_s: float | None
    launches: int
    kernel_groups: int
    findings: int
    #: ``(kind, count)`` most first; the counts add up to ``findings``.
    finding_kinds: list[tuple[str, int]]
    placed: int
    first: FirstStep


def by_recoverable(kernels: list[KernelRecord]) -> list[KernelRecord]:
    """The kernel groups with a recoverable time, most first (rank breaks ties)."""
    return sorted(
        (k for k in kernels if k.get("recoverable_s") is not None),
        key=lambda k: (-(k["recoverable_s"] or 0.0), k.get("rank") or 0),
    )


def _latency(context: ReportContext) -> float | None:
    """The summary's latency time less that of groups that are not placeable."""
    summary = context.get("summary") or {}
    latency = summary.get("latency_s")
    if unknown(latency):
        return None
    unplaced = sum(
        float(k.get("latency_s") or 0.0)
        for k in context.get("kernels") or []
        if k.get("bound") == NOT_PLACEABLE and not unknown(k.get("latency_s"))
    )
    rest = float(latency) - unplaced  # type: ignore[arg-type]
    return rest if rest > 1e-15 else None


def _first(context: ReportContext, placed: int) -> FirstStep:
    kernels = list(context.get("kernels") or [])
    gates = tripped_gates(context) or []
    if gates:
        names = list(dict.fromkeys(str(g["kernel"]) for g in gates if g.get("kernel") is not None))
        return {"kind": "gates", "kernels": names, "command": None, "gates": len(gates)}
    if kernels and not placed:
        commands = [
            collect_command(c["ncu_options"])
            for c in context.get("collect") or []
            if c.get("ncu_options")
        ]
        no_roofs = not any(d.get("ceilings") for d in context.get("roofs") or [])
        return {
            "kind": "gpu" if no_roofs else "collect",
            "kernels": [],
            "command": commands[0] if commands else None,
            "gates": 0,
        }
    ranked = [k for k in by_recoverable(kernels) if k.get("recoverable_s")]
    if ranked:
        return {"kind": "kernel", "kernels": [ranked[0]["kernel"]], "command": None, "gates": 0}
    return {"kind": "none", "kernels": [], "command": None, "gates": 0}


def story(context: ReportContext) -> Story:
    """The headline figures of a report context and what to do first."""
    summary = context.get("summary") or {}
    kernels = list(context.get("kernels") or [])
    findings = list(context.get("findings") or [])
    kinds = Counter(str(f.get("kind") or "finding") for f in findings)
    placed = sum(1 for k in kernels if k.get("bound") != NOT_PLACEABLE)
    recoverable = summary.get("recoverable_s")
    return {
        "total_s": summary.get("total_duration_s"),
        "recoverable_s": None if unknown(recoverable) else recoverable,
        "recoverable_unknown": int(summary.get("recoverable_unknown") or 0),
        "latency_s": _latency(context),
        "launches": int(summary.get("launches") or 0),
        "kernel_groups": len(kernels),
        "findings": len(findings),
        "finding_kinds": sorted(kinds.items(), key=lambda kv: -kv[1]),
        "placed": placed,
        "first": _first(context, placed),
    }


def first_step_text(
    first: FirstStep, name: dict[str, str] | None = None, *, command: bool = True
) -> str:
    """What to do first as plain text (kernel names through ``name`` where given).

    Without ``command`` the ``ncu`` command is left to ``ncu-roofline inspect``
    (a terminal line has no room for it).
    """
    names = [(name or {}).get(k, k) for k in first["kernels"]]
    kind = first["kind"]
    if kind == "gates":
        if names:
            return "fix the gate-tripping kernels first: " + ", ".join(names)
        return "fix what tripped the gates first (the whole profile)"
    if kind in ("gpu", "collect"):
        collect = (
            (
                f"collect these metrics: {first['command']}"
                if command
                else "collect the metrics that `ncu-roofline inspect EXPORT` lists"
            )
            if first["command"]
            else ""
        )
        if kind == "gpu":
            return (
                "nothing could be placed: name the GPU with --gpu NAME (see `ncu-roofline gpus`)"
                + (f", or {collect}" if collect else "")
            )
        return "nothing could be placed: " + (collect or "collect the missing metrics")
    if kind == "kernel":
        return f"look first at {names[0]}"
    return "no kernel has recoverable time to look at"
