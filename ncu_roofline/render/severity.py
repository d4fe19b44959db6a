"""Finding severities as the reports show them: the order findings are listed and counted in.

The context's findings carry their severity as a string; every renderer
lists the most severe first and counts them in the same order, so that
order is read from the findings catalogue.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from ncu_roofline.analysis.catalogue import SEVERITIES
from ncu_roofline.report.schema import FindingRecord

_F = TypeVar("_F", bound=FindingRecord)

_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def most_severe_first(findings: Iterable[_F]) -> list[_F]:
    """The findings sorted by severity, in their own order within one; unknown severities last."""
    return sorted(findings, key=lambda f: _RANK.get(str(f.get("severity")), len(_RANK)))


def severity_counts(findings: Iterable[FindingRecord]) -> dict[str, int]:
    """How many findings of each severity: every known one (zeros too), then any others."""
    counts = dict.fromkeys(SEVERITIES, 0)
    for f in findings:
        sev = str(f.get("severity"))
        counts[sev] = counts.get(sev, 0) + 1
    return counts
