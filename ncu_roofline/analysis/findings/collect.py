"""Every rule run over one analysis, the findings sorted and given their advice.

:data:`RULES` lists the rules in the order they run; the catalogue names the
same rules, in the same order, with the kinds each may report
(:data:`~ncu_roofline.analysis.catalogue.RULES`), and a test holds the two
together.  Findings are sorted most severe first, then by recoverable time;
rules that tie keep their order.
"""

from __future__ import annotations

from dataclasses import replace

from ncu_roofline.analysis.advice import advice_ids
from ncu_roofline.analysis.catalogue import SEVERITIES
from ncu_roofline.analysis.findings.finding import Evidence, Finding, Rule
from ncu_roofline.analysis.findings.rules import (
    above_roof_findings,
    below_roof_findings,
    communication_findings,
    device_findings,
    failed_profile_findings,
    mixed_definition_findings,
    packed_fp32_findings,
    roof_mismatch_findings,
    tensor_uncounted_findings,
    theory_findings,
    unplaced_findings,
)
from ncu_roofline.analysis.limiter.findings import limiter_findings
from ncu_roofline.analysis.roofs.assign import DeviceRoofs
from ncu_roofline.core.frame import Columns
from ncu_roofline.theory.config import TheoryConfig

#: The rules, in the order they run.
RULES: tuple[Rule, ...] = (
    theory_findings,
    device_findings,
    roof_mismatch_findings,
    above_roof_findings,
    below_roof_findings,
    limiter_findings,
    unplaced_findings,
    failed_profile_findings,
    communication_findings,
    mixed_definition_findings,
    tensor_uncounted_findings,
    packed_fp32_findings,
)


def collect_findings(
    launches: Columns,
    kernels: Columns,
    devices: list[DeviceRoofs],
    theory: TheoryConfig | None = None,
    unmatched: list[str] | None = None,
) -> list[Finding]:
    """Findings from the analysed launches and groups (tables or frames), most severe first."""
    evidence = Evidence(launches, kernels, devices, theory, unmatched or [])
    found = [f for rule in RULES for f in rule(evidence)]
    order = {s: i for i, s in enumerate(SEVERITIES)}
    found.sort(key=lambda f: (order[f.severity], -(f.recoverable_s or 0.0)))
    ids = advice_ids([(f.kind, f.kernel) for f in found], kernels)
    return [replace(f, advice=a) for f, a in zip(found, ids, strict=True)]
