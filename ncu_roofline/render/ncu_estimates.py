"""ncu's own estimates beside ours: the rows the HTML page and the Markdown show.

Plain text per kernel group (the templates and the Markdown writer escape
it): ncu's recoverable time (its largest estimated speedup x the time),
ours, the one that ranks the group, ncu's rules with an estimate, and a
note where the two estimates differ by more than
:data:`~ncu_roofline.core.rules.DISAGREE_FACTOR`.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.core.rules import DISAGREE_FACTOR
from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import KernelRecord, NcuRuleRecord

#: Rules named per group, largest estimate first.
RULES_SHOWN = 3


class NcuEstimateRow(TypedDict):
    """One kernel group's line of the "ncu's own estimates" table, as display text."""

    #: The short name, and the full one for the hover.
    kernel: str
    full: str
    #: ncu's recoverable time, ours (roof and units), and the smaller that ranks.
    ncu: str
    ours: str
    ranked: str
    #: Whose estimate ranks: ``"ncu's"``, ``"ours"`` or ``"n/a"``.
    ranked_by: str
    #: Up to :data:`RULES_SHOWN` rules with an estimate, and how many more there are.
    rules: list[str]
    more_rules: int
    #: Where the two estimates differ by more than the factor; else empty.
    note: str


def _rule_text(rule: NcuRuleRecord) -> str:
    """``"TheoreticalOccupancy (OPT, global 67.9%)"``."""
    kind = rule.get("speedup_type") or "unknown type"
    parts = [p for p in (rule.get("type"), f"{kind} {rule.get('speedup_pct'):g}%") if p]
    # Text output names no rule: its section stands in.
    name = rule.get("name") or rule.get("section") or "ncu rule"
    return f"{name} ({', '.join(parts)})"


def ncu_estimate_rows(kernels: list[KernelRecord], limit: int = 10) -> list[NcuEstimateRow]:
    """Kernel groups ncu estimated a speedup for, most recoverable by ncu first."""
    rows = [k for k in kernels if k.get("ncu_recoverable_s") is not None]
    rows.sort(key=lambda k: (-(k["ncu_recoverable_s"] or 0.0), k.get("rank") or 0))
    out: list[NcuEstimateRow] = []
    for k in rows[:limit]:
        rules: list[NcuRuleRecord] = [
            r for r in k.get("ncu_rules") or [] if r.get("speedup_pct") is not None
        ]
        rules.sort(key=lambda r: -float(r.get("speedup_pct") or 0.0))
        ours = k.get("roof_recoverable_s")
        by = k.get("recoverable_bound_by")
        note = ""
        if k.get("ncu_disagrees"):
            note = (
                f"ncu's estimate ({TEXT.duration(k['ncu_recoverable_s'])}) and ours "
                f"({TEXT.duration(ours)}) differ by more than {DISAGREE_FACTOR:g}x; "
                "the smaller ranks the kernel"
            )
        out.append(
            {
                "kernel": k.get("kernel_short") or k.get("kernel") or "",
                "full": k.get("kernel") or "",
                "ncu": TEXT.duration(k["ncu_recoverable_s"]),
                "ours": TEXT.duration(ours),
                "ranked": TEXT.duration(k.get("recoverable_s")),
                "ranked_by": {"ncu": "ncu's", "ours": "ours"}.get(str(by), "n/a"),
                "rules": [_rule_text(r) for r in rules[:RULES_SHOWN]],
                "more_rules": max(0, len(rules) - RULES_SHOWN),
                "note": note,
            }
        )
    return out


__all__ = ["RULES_SHOWN", "NcuEstimateRow", "ncu_estimate_rows"]
