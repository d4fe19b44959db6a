"""What the ``theory`` templates read: the view models built by :mod:`.theory`.

Every value is text ready to show (numbers already formatted), a flag, or a
sort key; the HTML page's chart is the report's roofline chart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from ncu_roofline.render.charts.types import RooflineChart
    from ncu_roofline.report.theory_calc import CalculatorData

__all__ = [
    "Cell",
    "GpuCard",
    "GpuCells",
    "GpuName",
    "LargestOp",
    "OpRow",
    "TextTotals",
    "TheoryHtmlView",
    "TheoryTextView",
]


class TextTotals(TypedDict):
    """A model's pass on one GPU, as text: floor, work, tokens, speedup, whether complete."""

    gpu: str
    floor: str
    flops: str
    bytes: str
    tokens: str | None
    speedup: str | None
    complete: bool
    collectives: int
    #: Where the phase turns compute-bound (:func:`~ncu_roofline.render.theory.ridge_words`).
    ridge: str | None


class TheoryTextView(TypedDict):
    """What the text template prints: the title, the table's lines, the totals."""

    title: str | None
    lines: list[str]
    totals: list[TextTotals]
    pass_words: str
    share_of: str
    #: Per GPU, the peaks its floors use (dense, at which clock).
    peaks: list[str]


class Cell(TypedDict):
    """A number of the HTML table: its text, sort key and class."""

    text: str
    sort: str | float
    cls: str


class GpuCells(TypedDict):
    """An op's placement on one GPU: its bound, cells, share, and whether it is the largest."""

    bound: str
    cells: list[Cell]
    share_pct: float
    top: bool


class OpRow(TypedDict):
    """One op of the HTML table."""

    number: int
    name: str
    label: str
    notes: list[str]
    in_model: bool
    precision: str
    cells: list[Cell]
    gpus: list[GpuCells]


class LargestOp(TypedDict):
    """The op with the largest share of a GPU's pass."""

    number: int
    name: str
    share: str


class _CardFields(TypedDict):
    key: str
    name: str
    colour: str
    symbol: str
    floor: str | None
    tokens: str | None
    speedup: str | None
    caveat: str | None
    largest: LargestOp | None
    #: Where the phase turns compute-bound on this GPU, as a sentence.
    ridge: str | None
    #: The peaks the floors use: dense datasheet figures, at which clock.
    peaks: str


class GpuCard(_CardFields, total=False):
    """A headline card per GPU: the pass's floor, tokens per second, speedup over the first GPU.

    ``tokens_count`` only where the table has a model's totals.
    """

    tokens_count: str


class GpuName(TypedDict):
    """A GPU's key and name."""

    key: str
    name: str


class TheoryHtmlView(TypedDict):
    """Everything the HTML template prints: title, headline cards, op rows, the chart."""

    title: str
    model_line: str | None
    pass_words: str
    with_model: bool
    tokens_word: str
    headline: list[GpuCard]
    gpus: list[GpuName]
    rows: list[OpRow]
    totals: list[TextTotals]
    charts: list[RooflineChart]
    #: Per GPU, the peaks its floors use (dense, at which clock).
    peaks: list[str]
    #: The calculator's data (:func:`~ncu_roofline.report.theory_calc.calculator_data`);
    #: None for ``--op`` rows without a model.
    calculator: CalculatorData | None
