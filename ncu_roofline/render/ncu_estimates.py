"""ncu's own estimates beside ours: the rows the HTML page and the Markdown show.

Plain text per kernel group (the templates and the Markdown writer escape
it): ncu's recoverable time (its largest estimated speedup x the time),
ours, the one that ranks the group, ncu's rules with an estimate, and a
note where the two estimates differ by more than
:data:`~ncu_roofline.core.rules.DISAGREE_FACTOR`.
"""

from __future__ import annotations

from typing import Any

from ncu_roofline.core.rules import DISAGREE_FACTOR
from ncu_roofline.render.format import TEXT

#: Rules named per group, largest estimate first.
RULES_SHOWN = 3


def _rule_text(rule: dict[str, Any]) -> str:
    """``"TheoreticalOccupancy (OPT, global 67.9%)"``."""
    kind = rule.get("speedup_type") or "unknown type"
    parts = [p for p in (rule.get("type"), f"{kind} {rule['speedup_pct']:g}%") if p]
    # Text output names no rule: its section stands in.
    name = rule.get("name") or rule.get("section") or "ncu rule"
    return f"{name} ({', '.join(parts)})"


def ncu_estimate_rows(kernels: list[dict[str, Any]], limit: int = 10) -> list[dict[str, Any]]:
    """Kernel groups ncu estimated a speedup for, most recoverable by ncu first."""
    rows = [k for k in kernels if k.get("ncu_recoverable_s") is not None]
    rows.sort(key=lambda k: (-float(k["ncu_recoverable_s"]), k.get("rank") or 0))
    out: list[dict[str, Any]] = []
    for k in rows[:limit]:
        rules = [r for r in k.get("ncu_rules") or [] if r.get("speedup_pct") is not None]
        rules.sort(key=lambda r: -float(r["speedup_pct"]))
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


__all__ = ["RULES_SHOWN", "ncu_estimate_rows"]
