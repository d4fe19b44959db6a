"""What the HTML report's template reads: the page's view models, built by :mod:`.page`.

Every value is text ready to show (numbers already formatted) or a flag; the
records of the report (:mod:`ncu_roofline.report.schema`) pass through where
the template reads them as they are.  Names that are Python keywords
(``for``, ``try``) make some of them functional ``TypedDict`` definitions.
"""

from __future__ import annotations

from typing import TypedDict

from ncu_roofline.render.budget_view import BudgetView
from ncu_roofline.render.charts.types import NotPlotted, PlotlyFigure
from ncu_roofline.render.ncu_estimates import NcuEstimateRow
from ncu_roofline.report.schema import (
    FindingRecord,
    InputRecord,
    ReportOptions,
    TheorySummary,
)

__all__ = [
    "AdviceCard",
    "BoundBar",
    "CeilingView",
    "ChartTab",
    "CollectBox",
    "CollectInput",
    "DeviceView",
    "FindingGroup",
    "Headline",
    "InputView",
    "KernelCell",
    "KernelRow",
    "MethodologyRow",
    "PageCounts",
    "PageView",
    "SummaryView",
    "TheoryRow",
    "TopRow",
    "TryLine",
]


class TryLine(TypedDict):
    """A kernel row's "Try:" reference: the advice's few words, its card's anchor, the gain."""

    label: str
    anchor: str
    #: The group's recoverable time as text; None where it has none.
    gain: str | None


#: A card of advice that no finding shares, naming the kernel groups told to try it.
AdviceCard = TypedDict(
    "AdviceCard",
    {"advice": str, "anchor": str, "label": str, "for": str, "why": str, "what": str},
)


class KernelCell(TypedDict):
    """One number of the kernel table: its column, text, sort key, and whether narrow screens hide it."""

    key: str
    text: str
    sort: str
    wide: bool


#: One row of the kernel table.
KernelRow = TypedDict(
    "KernelRow",
    {
        "short": str,
        "hint": str,
        "full": str,
        "bound": str | None,
        "bound_reason": str,
        "limiter": str,
        "binding": str,
        "recoverable_basis": str,
        "precision": str,
        "config": str,
        "device": str,
        "source": str,
        "theory": str,
        "confidence": str,
        "try": TryLine | None,
        "cells": list[KernelCell],
    },
)


class MethodologyRow(TypedDict):
    """Which metric family a quantity came from, with launch counts."""

    title: str
    entries: list[str]


class BoundBar(TypedDict):
    """One bar of the time by bound class: time, share of the profile and colour."""

    bound: str
    meaning: str
    kernels: int
    time: str
    share: str
    width: str
    colour: str


#: One item of the list of the kernel groups with the most recoverable time: its
#: bound class's colour and its limiter (``"limiter: DRAM 91%"``) with the numbers.
TopRow = TypedDict(
    "TopRow",
    {
        "rank": int,
        "shape": str | None,
        "short": str,
        "full": str,
        "bound": str | None,
        "colour": str,
        "limiter": str | None,
        "time": str,
        "time_share": str,
        "efficiency": str,
        "recoverable": str,
        "share": str,
        "try": TryLine | None,
    },
)


class Headline(TypedDict):
    """The summary's totals as text: time, launches, groups, recoverable and latency time."""

    total: str
    launches: str
    kernels: str
    recoverable: str
    recoverable_share: str
    latency: str | None
    failed: str | None
    latency_share: str
    #: "launches in 3 kernel groups", in the number each word takes.
    launches_words: str


class SummaryView(Headline):
    """The summary block: totals, time by bound class, top kernels, finding kinds."""

    by_bound: list[BoundBar]
    by_bound_shown: list[BoundBar]
    top: list[TopRow]
    finding_kinds: list[tuple[str, int]]
    #: Every finding (the kinds' counts add up to it), and "finding"/"findings".
    findings: int
    findings_word: str
    #: What to do first (:func:`~ncu_roofline.render.story.first_step_text`).
    verdict: str
    #: The full name of the kernel group the verdict names first ("" for none).
    first_kernel: str


#: The findings that share one piece of advice: one card.
FindingGroup = TypedDict(
    "FindingGroup",
    {
        "kind": str,
        "severity": str,
        "advice": str,
        "anchor": str,
        "for": str,
        "why": str,
        "what": str,
        "items": list[FindingRecord],
    },
)


class CeilingView(TypedDict):
    """One roof of a device, as text."""

    key: str
    value: str
    source: str
    clock: str
    uncertain: bool


class DeviceView(TypedDict):
    """A device's ceilings with their sources, and where they came from in one line."""

    name: str
    cc: str
    gpu: str | None
    clock: str
    ceilings: list[CeilingView]
    notes: list[str]
    source: str
    summary: str


class TheoryRow(TypedDict):
    """One row of the theory table: a group with a theoretical intensity or byte excess."""

    short: str
    full: str
    label: str
    theory_ai: str
    ai: str
    byte_excess: str
    flop_excess: str
    confidence: str
    source: str
    floor: str
    theory_efficiency: str


class CollectInput(TypedDict):
    """An input that lacks roofline inputs, and the ``ncu`` command that collects them."""

    path: str
    missing: str
    command: str


class CollectBox(TypedDict):
    """What replaces the charts when no group could be placed: why, and what to collect."""

    reasons: list[str]
    inputs: list[CollectInput]
    no_roofs: bool


class InputView(InputRecord):
    """An input, with its launch count as text."""

    launches_text: str


class ChartTab(TypedDict):
    """A chart's heading: its id, title and the groups it cannot plot."""

    id: str
    title: str
    not_plotted: list[NotPlotted]


class PageCounts(TypedDict):
    """How many groups the page lists, and how many points and launches its charts plot."""

    groups: int
    points: int
    launch_points: int


class ProjectionView(TypedDict):
    """One ``--project-to`` target on the page: its headline and the kernel table's column."""

    key: str
    name: str
    headline: str
    model: str


class PageView(TypedDict):
    """The template's context for the HTML report (:func:`~ncu_roofline.render.page.build_page`)."""

    title: str
    generated_at: str
    version: str
    inputs: list[InputView]
    devices: list[DeviceView]
    options: ReportOptions
    options_line: str
    summary: SummaryView
    #: Where the step's time goes (an nsys timeline was joined); ``None`` without one.
    budget: BudgetView | None
    charts: list[ChartTab]
    chart_data: dict[str, PlotlyFigure]
    collect: CollectBox | None
    marker_hint: str
    bound_colours: dict[str, str]
    kernels: list[KernelRow]
    #: The ``--project-to`` targets, in order; empty without one.
    projections: list[ProjectionView]
    with_theory: bool
    theory: TheorySummary | None
    theory_rows: list[TheoryRow]
    findings: list[FindingGroup]
    advice_cards: list[AdviceCard]
    ncu_estimates: list[NcuEstimateRow]
    methodology: list[MethodologyRow]
    plotly_js: str
    counts: PageCounts
