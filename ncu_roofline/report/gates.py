"""CI gates (``--fail-on RULE``) and their evaluation.

Rules, repeatable on the command line or listed under ``fail-on`` in the
configuration:

``regression>5%``
    (``compare`` only) a kernel group, or the total kernel time, got slower
    by more than 5% (``regression>0.05`` means the same).
``efficiency<0.3``
    a kernel group with at least 1% of the kernel time runs under 30% of its
    roof (``efficiency<30%`` means the same).
``new-kernel``
    (``compare`` only) a kernel group the base profile did not have.
``excess-traffic``, ``above-roof``, ``below-roof``, ... any finding kind
    a finding of that kind.

A tripped gate never stops the output from being written; the command then
exits with :data:`~ncu_roofline.errors.GATE_TRIPPED` (3).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ncu_roofline.analysis.catalogue import GATEABLE_KINDS, THEORY_KINDS
from ncu_roofline.errors import UsageError
from ncu_roofline.report.schema import (
    ComparisonContext,
    FindingRecord,
    GateRecord,
    KernelRecord,
    ReportContext,
)

#: Efficiency gates skip kernel groups with less of the time than this.
EFFICIENCY_MIN_SHARE = 0.01

_THRESHOLD = re.compile(r"^(regression|efficiency)\s*([<>])\s*([0-9.]+)\s*(%?)$")


@dataclass(frozen=True)
class Gate:
    """One parsed ``--fail-on`` rule."""

    text: str
    kind: str
    threshold: float | None = None

    @property
    def needs_comparison(self) -> bool:
        """Whether the rule only makes sense for ``compare``."""
        return self.kind in ("regression", "new-kernel")


def parse_gate(text: str) -> Gate:
    """Parse one rule; :class:`UsageError` names the accepted forms."""
    rule = text.strip().lower()
    m = _THRESHOLD.match(rule)
    if m:
        kind, op, number, pct = m.groups()
        expected = ">" if kind == "regression" else "<"
        if op != expected:
            raise UsageError(f"--fail-on {text}: write {kind}{expected}N")
        try:
            value = float(number)
        except ValueError:
            raise UsageError(f"--fail-on {text}: {number!r} is not a number") from None
        if pct:
            value /= 100.0
        elif value > 1:
            # A bare number is a fraction; "regression>5" is ambiguous.
            raise UsageError(
                f"--fail-on {text}: write a fraction ({kind}{expected}{value / 100:g}) "
                f"or a percentage ({kind}{expected}{value:g}%)"
            )
        return Gate(text=text, kind=kind, threshold=value)
    if rule == "new-kernel":
        return Gate(text=text, kind="new-kernel")
    if rule in GATEABLE_KINDS:
        return Gate(text=text, kind="finding", threshold=None)
    raise UsageError(
        f"--fail-on {text}: unknown rule; use regression>N%, efficiency<N, new-kernel or a "
        f"finding kind ({', '.join(GATEABLE_KINDS)})"
    )


def parse_gates(texts: list[str] | tuple[str, ...], comparison: bool) -> list[Gate]:
    """Parse every rule, refusing comparison-only rules outside ``compare``."""
    gates = [parse_gate(t) for t in texts]
    if not comparison:
        for g in gates:
            if g.needs_comparison:
                raise UsageError(
                    f"--fail-on {g.text}: only `ncu-roofline compare` has a base to compare with"
                )
    return gates


def _trip(
    gate: Gate, kernel: str | None, message: str, record: Mapping[str, Any] | None = None
) -> GateRecord:
    """A tripped gate; with the group's (or comparison row's) record, it names its launch configuration."""
    out: GateRecord = {"rule": gate.text, "kernel": kernel, "message": message}
    if record is not None:
        out["grid"] = record.get("grid") or record.get("candidate_grid")
        out["block"] = record.get("block") or record.get("candidate_block")
    return out


def theory_gates_without_theory(gates: list[Gate], has_theory: bool) -> list[str]:
    """Gates that can never trip because no theory was given."""
    if has_theory:
        return []
    return [g.text for g in gates if g.kind == "finding" and g.text.strip().lower() in THEORY_KINDS]


def _shape(k: KernelRecord) -> str:
    """`` (grid …)`` for a group with a launch shape; nothing where the export has none."""
    return f" (grid {k['grid']})" if k.get("grid") else ""


def _efficiency(gate: Gate, kernels: list[KernelRecord]) -> list[GateRecord]:
    assert gate.threshold is not None
    out = []
    for k in kernels:
        eff, share = k.get("efficiency"), k.get("time_share")
        if eff is None or share is None or share < EFFICIENCY_MIN_SHARE:
            continue
        if eff < gate.threshold:
            out.append(
                _trip(
                    gate,
                    k["kernel"],
                    f"{k['kernel_short']}{_shape(k)} runs at {100 * eff:.1f}% "
                    f"of its roof ({100 * share:.1f}% of the kernel time), under "
                    f"{100 * gate.threshold:g}%",
                    k,
                )
            )
    return out


def _findings(gate: Gate, findings: list[FindingRecord]) -> list[GateRecord]:
    kind = gate.text.strip().lower()
    return [_trip(gate, f.get("kernel"), f["message"]) for f in findings if f["kind"] == kind]


def evaluate_report(gates: list[Gate], context: ReportContext) -> list[GateRecord]:
    """The gates a report trips: ``[{"rule", "kernel", "message"}]``."""
    tripped: list[GateRecord] = []
    for gate in gates:
        if gate.kind == "efficiency":
            tripped += _efficiency(gate, context["kernels"])
        elif gate.kind == "finding":
            tripped += _findings(gate, context["findings"])
    return tripped


def _interval_note(r: Mapping[str, Any], confidence: Any) -> str:
    """`` (98% interval +7.9% .. +12.1%)`` for a change judged on trials, else ``""``."""
    low, high = r.get("change_low"), r.get("change_high")
    if low is None or high is None:
        return ""
    conf = f"{100 * float(confidence):g}% " if confidence is not None else ""
    return f" ({conf}interval {100 * low:+.1f}% .. {100 * high:+.1f}%)"


def _within_noise(low: float | None) -> bool:
    """True when a change's interval (trials) reaches zero: it could be noise."""
    return low is not None and not low > 0


def _regressions(gate: Gate, cmp: ComparisonContext) -> list[GateRecord]:
    """A regression gate: the total, then each matched group, on what the comparison judged.

    Each change is measured as the comparison judged it (time, elapsed
    cycles or time per launch, per unit of work for a work change), and
    trips when strictly greater than the threshold.  Across different GPUs
    nothing is judged, so nothing trips, unless ``--allow-cross-gpu``.  With
    trials, a change whose interval reaches zero (``change_low <= 0``) is
    inside the run-to-run noise and trips nothing, whatever its size.
    """
    assert gate.threshold is not None
    total = cmp["totals"]
    if not total.get("comparable", True):
        return []
    out: list[GateRecord] = []
    pct = total.get("judged_pct", total.get("delta_pct"))
    on = total.get("judged_on") or "time"
    if pct is not None and pct > gate.threshold and not _within_noise(total.get("change_low")):
        what = "kernel time" if on == "time" else on
        out.append(
            _trip(
                gate,
                None,
                f"total {what} +{100 * pct:.1f}% (over {100 * gate.threshold:g}%)"
                + _interval_note(total, total.get("confidence")),
            )
        )
    # Every matched group, not only those past --noise: a gate tighter than
    # the noise threshold still applies.
    for k in cmp.get("kernels", []):
        # Records without a judged change (hand-written ones) judge on time.
        kpct = k["judged_pct"] if "judged_pct" in k else k.get("delta_pct")
        if k.get("status") in ("added", "removed") or kpct is None:
            continue
        if _within_noise(k.get("change_low")):
            continue
        if kpct > gate.threshold:
            on = str(k.get("judged_on") or "time")
            what = {"time": "kernel time"}.get(on, on)
            if k.get("work_changed"):
                what += f" (work change {100 * (k.get('delta_work_pct') or 0):+.1f}%)"
            grid = k.get("candidate_grid")
            shape = f" (grid {grid})" if grid else ""
            out.append(
                _trip(
                    gate,
                    k.get("kernel"),
                    f"{k.get('kernel_short') or k.get('kernel')}{shape} +{100 * kpct:.1f}% {what}"
                    + _interval_note(k, total.get("confidence")),
                    k,
                )
            )
    return out


def evaluate_comparison(
    gates: list[Gate], cmp: ComparisonContext, candidate: ReportContext
) -> list[GateRecord]:
    """The gates a comparison trips (regressions, new kernels, candidate findings)."""
    tripped: list[GateRecord] = []
    for gate in gates:
        if gate.kind == "regression":
            tripped += _regressions(gate, cmp)
        elif gate.kind == "new-kernel":
            # A kernel the base never ran; a new launch configuration of a
            # known kernel is not a new kernel.
            base_names = {
                k.get("kernel") for k in cmp.get("kernels", []) if k.get("status") != "added"
            }
            for k in cmp.get("added", []):
                if k.get("kernel") in base_names:
                    continue
                name = k.get("kernel_short") or k.get("kernel")
                tripped.append(_trip(gate, k.get("kernel"), f"new kernel {name}", k))
        elif gate.kind == "efficiency":
            tripped += _efficiency(gate, candidate["kernels"])
        elif gate.kind == "finding":
            tripped += _findings(gate, candidate["findings"])
    return tripped
