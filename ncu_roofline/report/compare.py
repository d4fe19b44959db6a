"""The plain-data report of a comparison: the JSON schema of ``compare``.

:func:`comparison_context` turns a :class:`~ncu_roofline.analysis.compare.Comparison`
into JSON-safe values (``None`` for missing, never NaN), with the same
per-side summary as a single report's context.  :func:`comparison_document`
adds the full report context of each side (what the comparison chart and
the JUnit view read); the JUnit writer's
:func:`~ncu_roofline.render.junit_report.comparison_suite` recasts the
comparison as a suite whose test cases are the candidate's groups.
"""

from __future__ import annotations

import math
from typing import Any, cast

from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.compare import COMPARISON_FIELDS, STATUSES, Comparison
from ncu_roofline.report.context import (
    SCHEMA_VERSION,
    build_context,
    generator,
    input_records,
    report_options,
    summary_context,
)
from ncu_roofline.report.records import records
from ncu_roofline.report.schema import (
    ComparisonContext,
    ComparisonDocument,
    ComparisonRecord,
    ComparisonSide,
    StoryRecord,
)

__all__ = ["comparison_context", "comparison_document"]


def _side_context(analysis: Analysis, trials: list[Analysis]) -> ComparisonSide:
    """A side's inputs (every trial's, when it has several), options and summary.

    The summary is the representative trial's (its total time the median).
    """
    inputs = [i for a in trials for i in input_records(a)] if trials else input_records(analysis)
    return {
        "inputs": inputs,
        "options": report_options(analysis),
        "summary": summary_context(analysis),
    }


def _plain(value: Any) -> Any:
    """``value`` with NaN and infinities as ``None``, nested containers copied."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def comparison_context(cmp: Comparison) -> ComparisonContext:
    """The plain-data report of a comparison (JSON-safe: ``None`` for missing, never NaN).

    ``context`` holds each side's GPU, compute capability, SM and memory
    clock, ncu version, metric count, launches and work, and the
    ``differences`` between them (kinds of
    :data:`~ncu_roofline.analysis.compare.context.DIFFERENCE_KINDS`).
    ``kernels`` holds every row (fields of :data:`COMPARISON_FIELDS`);
    ``regressions``, ``improvements``, ``added`` and ``removed`` the rows of
    that status, largest ``|delta_s|`` first.  ``story`` is the whole
    profile's change as four questions
    (:class:`~ncu_roofline.report.schema.StoryRecord`).
    """
    rows = cast("list[ComparisonRecord]", records(cmp.kernels, COMPARISON_FIELDS))
    by_status: dict[str, list[ComparisonRecord]] = {s: [] for s in STATUSES}
    for r in rows:
        by_status[str(r["status"])].append(r)
    return {
        "schema_version": SCHEMA_VERSION,
        "kind": "comparison",
        "generator": generator(),
        "options": {"noise": cmp.noise},
        "context": _plain(dict(cmp.context or {})),
        "base": _side_context(cmp.base, cmp.base_trials),
        "candidate": _side_context(cmp.candidate, cmp.candidate_trials),
        "totals": cmp.totals.copy(),
        "story": cast("StoryRecord", _plain(dict(cmp.story or _untold(cmp)))),
        "kernels": rows,
        "regressions": by_status["regression"],
        "improvements": by_status["improvement"],
        "added": by_status["added"],
        "removed": by_status["removed"],
    }


def _untold(cmp: Comparison) -> StoryRecord:
    """The story of a comparison built by hand, without one (``compare`` always tells it)."""
    from ncu_roofline.analysis.compare.story import story

    return story(cmp.kernels, cmp.totals, cmp.context, cmp.noise)


def comparison_document(cmp: Comparison) -> ComparisonDocument:
    """What the comparison renderers read: ``{"comparison", "base_report", "candidate_report"}``.

    ``comparison`` is :func:`comparison_context` (the JSON document);
    ``base_report`` and ``candidate_report`` are each side's
    :func:`~ncu_roofline.report.context.build_context`, since the chart places
    every group of both sides and JUnit lists the candidate's inputs.
    """
    return {
        "comparison": comparison_context(cmp),
        "candidate_report": build_context(cmp.candidate),
        "base_report": build_context(cmp.base),
    }
