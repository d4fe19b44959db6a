"""The ``timeline`` document: an nsys timeline's time budget without an ncu profile.

:func:`timeline_document` reads nothing: it takes a
:class:`~ncu_roofline.core.timeline.Timeline` (from
:func:`~ncu_roofline.readers.nsys.load_timeline`) and returns plain data, as
every report document is: the budget
(:func:`~ncu_roofline.analysis.budget.build`, without an analysis, so no
bound classes and no join), its findings, the inputs read, and the
``schema_version`` and ``generator`` fields of the other JSON documents.  A
missing figure is ``None``, never NaN.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.analysis.budget import budget, budget_findings
from ncu_roofline.analysis.budget.records import BudgetRecord
from ncu_roofline.core.timeline import Timeline
from ncu_roofline.report.context import SCHEMA_VERSION, advice_records, generator
from ncu_roofline.report.schema import AdviceRecord, FindingRecord, Generator

__all__ = ["TimelineDocument", "TimelineInput", "timeline_document"]


class TimelineInput(TypedDict):
    """One nsys input read: its path, the reports found in it, its warnings."""

    path: str
    reports: list[str]
    warnings: list[str]


class TimelineDocument(TypedDict):
    """What ``ncu-roofline timeline`` writes (``--format json``) and renders."""

    schema_version: str
    generator: Generator
    #: Always ``"timeline"``: tells this document from a report.
    document: str
    inputs: list[TimelineInput]
    budget: BudgetRecord
    findings: list[FindingRecord]
    advice: dict[str, AdviceRecord]


def timeline_document(timeline: Timeline) -> TimelineDocument:
    """The budget of ``timeline`` alone (no ncu analysis), with its findings, as plain data."""
    record = budget(timeline)
    findings = [f.to_dict() for f in budget_findings(record)]
    return {
        "schema_version": SCHEMA_VERSION,
        "generator": generator(),
        "document": "timeline",
        "inputs": [
            {"path": s.path, "reports": list(s.reports), "warnings": list(s.warnings)}
            for s in timeline.sources
        ],
        "budget": record,
        "findings": findings,
        "advice": advice_records([f["advice"] or f["kind"] for f in findings]),
    }
