"""The JSON schema of the reports, as types.

Every document the tool writes (``report --format json``, ``compare
--format json``) and every renderer reads is one of these plain-data
shapes, so mypy checks the keys a renderer reads against the keys the
report stage builds.  The per-launch and per-group records are
``Record``: their fields come from the column registry
(:mod:`ncu_roofline.core.columns`), which also orders them, plus the tensor
datatypes and theory fields a profile has, so they are not fixed keys.

Units are SI; a value the export cannot give is ``None``, never 0.
"""

from __future__ import annotations

from typing import Any, TypedDict

__all__ = [
    "BoundTotals",
    "CeilingRecord",
    "ComparisonContext",
    "ComparisonDocument",
    "ComparisonSide",
    "DeviceRoofsRecord",
    "FindingRecord",
    "GatesRecord",
    "Generator",
    "InputRecord",
    "Record",
    "ReportContext",
    "Summary",
    "TheorySummary",
]

#: One launch, kernel group or comparison row: field name -> plain value.
Record = dict[str, Any]


class Generator(TypedDict):
    """The tool that wrote the document."""

    name: str
    version: str


class InputRecord(TypedDict):
    """One input file and what was read from it."""

    path: str
    layout: str
    launches: int
    rows: int
    kernels: int
    devices: list[str]
    ncu_version: str | None
    units: str | None
    aggregated: bool
    warnings: list[str]
    ncu_errors: list[str]


class BoundTotals(TypedDict):
    """Kernel groups, launches and time of one bound class."""

    kernels: int
    launches: int
    duration_s: float | None


class Summary(TypedDict):
    """Whole-profile totals."""

    launches: int
    rows: int
    kernels: int
    total_duration_s: float | None
    recoverable_s: float | None
    #: Every bound class, in the order of ``analysis.BOUND_CLASSES``.
    by_bound: dict[str, BoundTotals]
    #: Findings per severity (``error``, ``warning``, ``info``).
    findings: dict[str, int]


class CeilingRecord(TypedDict):
    """One roof: a compute ceiling or a memory bandwidth."""

    uncertain: bool
    key: str
    kind: str
    unit: str
    value: float
    min: float | None
    max: float | None
    source: str
    clock_hz: float | None
    launches: int


class DeviceRoofsRecord(TypedDict):
    """The roofs used for one device of one input."""

    source: str
    device_name: str | None
    cc: str | None
    gpu: dict[str, Any] | None
    measured_sm_clock_hz: float | None
    ceilings: list[CeilingRecord]
    notes: list[str]


class FindingRecord(TypedDict):
    """One finding; its kind is an entry of the findings catalogue."""

    kind: str
    kernel: str | None
    severity: str
    message: str
    source: str | None
    recoverable_s: float | None


class TheorySummary(TypedDict, total=False):
    """How theory was given (file, model) and what it matched."""

    file: str | None
    excess_threshold: float
    min_time_share: float
    model: dict[str, Any]
    kernels_with_theory: int
    unmatched: list[str]


class GatesRecord(TypedDict):
    """The gates asked for and the ones that tripped (added by the command)."""

    rules: list[str]
    tripped: list[dict[str, Any]]


class _ReportFields(TypedDict):
    """The fields every report context has."""

    schema_version: str
    generator: Generator
    options: dict[str, Any]
    inputs: list[InputRecord]
    summary: Summary
    roofs: list[DeviceRoofsRecord]
    theory: TheorySummary | None
    launches: list[Record]
    kernels: list[Record]
    findings: list[FindingRecord]


class ReportContext(_ReportFields, total=False):
    """The report of one analysis: ``report --format json``; ``gates`` when gates were asked."""

    gates: GatesRecord


class ComparisonSide(TypedDict):
    """One side of a comparison: its inputs, options and totals."""

    inputs: list[InputRecord]
    options: dict[str, Any]
    summary: Summary


class _ComparisonFields(TypedDict):
    """The fields every comparison context has."""

    schema_version: str
    kind: str
    generator: Generator
    options: dict[str, Any]
    base: ComparisonSide
    candidate: ComparisonSide
    totals: dict[str, Any]
    kernels: list[Record]
    regressions: list[Record]
    improvements: list[Record]
    added: list[Record]
    removed: list[Record]


class ComparisonContext(_ComparisonFields, total=False):
    """The comparison of two analyses: ``compare --format json``; ``gates`` when asked."""

    gates: GatesRecord


class ComparisonDocument(TypedDict):
    """What the comparison renderers read: the comparison and each side's report."""

    comparison: ComparisonContext
    base_report: ReportContext
    candidate_report: ReportContext
