"""The options an analysis was made with, as plain data (``Analysis.options``).

Set by :func:`~ncu_roofline.analysis.engine.analyse` and carried unchanged
into the report's ``options``: their one home is here;
:mod:`ncu_roofline.report.schema` re-exports them beside the other report types.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["ModelRecord", "ReportOptions", "RidgeCrossing", "TheorySummary", "no_options"]


class ModelRecord(TypedDict):
    """The model a theory was built for, and the shape of its forward pass."""

    key: str
    name: str
    #: Where the model's figures come from.
    source: str
    phase: str
    batch: int
    seq: int
    dtype: str
    kv_dtype: str | None
    tp: int


class RidgeCrossing(TypedDict):
    """The least batch (decode) or seq (prefill) at which the pass reaches the ridge."""

    #: ``batch`` (decode) or ``seq`` (prefill): the shape that varies.
    over: str
    #: The least value at which the pass's intensity reaches the ridge;
    #: ``None`` where it does not up to ``searched_to`` or the GPU has no roof.
    value: int | None
    #: The ridge point (FLOP/B): the peak of ``precision`` over DRAM bandwidth.
    ridge: float | None
    #: The compute ceiling's key (the model's matrix precision or a same-rate one).
    precision: str | None
    #: The pass's intensity at the table's own shapes (FLOP/B).
    intensity: float | None
    searched_to: int


class TheorySummary(TypedDict, total=False):
    """How theory was given (file, model) and what it matched."""

    file: str | None
    excess_threshold: float
    min_time_share: float
    model: ModelRecord
    kernels_with_theory: int
    unmatched: list[str]


class ReportOptions(TypedDict):
    """The options an analysis was made with."""

    #: The GPU named with ``--gpu`` (``None``: from the export).
    gpu: str | None
    roofs_file: str | None
    #: ``measured``, ``boost`` or ``base``: the clock datasheet roofs are scaled to.
    clocks: str
    #: The theory's file, model and thresholds (``None``: no theory given).
    theory: TheorySummary | None


def no_options() -> ReportOptions:
    """The options of an analysis made with none: roofs from the export, measured clocks."""
    return {"gpu": None, "roofs_file": None, "clocks": "measured", "theory": None}
