"""Finding severities as the reports show them: the order findings are listed and counted in.

The context's findings carry their severity as a string; every renderer
lists the most severe first and counts them in the same order, so that
order is written once, here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Severities, most severe first.
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")

_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def most_severe_first(findings: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The findings sorted by severity, in their own order within one; unknown severities last."""
    return sorted(findings, key=lambda f: _RANK.get(str(f.get("severity")), len(_RANK)))


def severity_counts(findings: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many findings of each severity: every known one (zeros too), then any others."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        sev = str(f.get("severity"))
        counts[sev] = counts.get(sev, 0) + 1
    return counts
