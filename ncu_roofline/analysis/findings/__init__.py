"""Findings: what a reader of the report should look at first.

Each finding names a kind, the kernel it is about (``None`` for findings
about the whole profile), a severity (``error``, ``warning``, ``info``) and a
one-sentence message with the numbers behind it, and the id of the advice
that fits its kernel (:mod:`ncu_roofline.analysis.advice`).

The package: :mod:`.finding` holds :class:`Finding`, the :class:`Evidence`
every rule reads and the one shape of a rule (evidence in, findings out);
:mod:`.rules` the rules about the whole analysis; :mod:`.collect` runs every
rule in the catalogue's order (:data:`~ncu_roofline.analysis.catalogue.RULES`).
Rules that belong to another concept live with it (the limiter's in
:mod:`ncu_roofline.analysis.limiter.findings`).  Adding a kind is a catalogue
entry plus the rule that detects it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.findings.collect import RULES, collect_findings
    from ncu_roofline.analysis.findings.finding import Evidence, Finding, Rule

_FINDING = "ncu_roofline.analysis.findings.finding"
_COLLECT = "ncu_roofline.analysis.findings.collect"

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "Evidence": _FINDING,
    "Finding": _FINDING,
    "Rule": _FINDING,
    "RULES": _COLLECT,
    "collect_findings": _COLLECT,
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = ["RULES", "Evidence", "Finding", "Rule", "collect_findings"]
