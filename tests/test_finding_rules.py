"""Every finding comes from a rule of one shape, registered in the catalogue.

The catalogue names each rule and the kinds it may report
(:data:`ncu_roofline.analysis.catalogue.RULES`); the findings package runs
the same rules in the same order (:data:`ncu_roofline.analysis.findings.RULES`).
These tests hold the two together and check that a rule reports only its
own kinds.
"""

from __future__ import annotations

import inspect

from ncu_roofline.analysis import analyze
from ncu_roofline.analysis.catalogue import CATALOGUE, RULES, TIMELINE_RULES
from ncu_roofline.analysis.findings import RULES as RUN_RULES
from ncu_roofline.analysis.findings import Evidence, Finding
from ncu_roofline.readers import load
from tests.helpers import SAMPLE


def test_the_catalogue_names_every_rule_in_the_order_they_run() -> None:
    assert [rule.__name__ for rule in RUN_RULES] == list(RULES)


def test_every_kind_is_reported_by_exactly_one_rule() -> None:
    rules = {**RULES, **TIMELINE_RULES}
    assert len(rules) == len(RULES) + len(TIMELINE_RULES)
    kinds = [kind for found in rules.values() for kind in found]
    assert sorted(kinds) == sorted(CATALOGUE)


def test_every_rule_takes_the_evidence_alone() -> None:
    for rule in RUN_RULES:
        params = list(inspect.signature(rule).parameters.values())
        assert [p.name for p in params] == ["evidence"], rule.__name__
        assert params[0].annotation in (Evidence, "Evidence"), rule.__name__


def test_a_rule_reports_only_its_own_kinds() -> None:
    analysis = analyze(load([SAMPLE]))
    evidence = Evidence(analysis.launches, analysis.kernels, analysis.roofs)
    for rule in RUN_RULES:
        found = rule(evidence)
        assert all(isinstance(f, Finding) for f in found), rule.__name__
        assert {f.kind for f in found} <= set(RULES[rule.__name__]), rule.__name__
