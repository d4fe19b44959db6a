"""The records of a projection onto another GPU (:mod:`ncu_roofline.analysis.projection`).

Plain ``TypedDict`` s with no pandas, so the report schema can name them
without loading the engine.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ByBoundProjection", "ProjectionRecord"]


class ByBoundProjection(TypedDict):
    """One bound class's launches: measured and projected time, and the speed-up."""

    launches: int
    measured_s: float | None
    projected_s: float | None
    speedup: float | None


class ProjectionRecord(TypedDict):
    """The projection onto one target GPU, as plain data (the report's ``projection`` list)."""

    target: str
    target_name: str
    asked: str
    theory_only: bool
    model: str
    clocks: str
    measured_s: float | None
    projected_s: float | None
    speedup: float | None
    launches: int
    roof_projected: int
    kept: int
    unknown: int
    by_bound: dict[str, ByBoundProjection]
    fallbacks: list[str]
    headline: str | None
