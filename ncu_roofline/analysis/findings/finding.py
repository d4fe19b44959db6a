"""A finding, the evidence every rule reads, and the one shape of a rule.

A rule is a function of the :class:`Evidence` (the analysed launches and
groups, the devices' roofs, the theory inputs) that returns the
:class:`Finding` objects of the kinds it detects, in the order it found them;
the catalogue (:data:`~ncu_roofline.analysis.catalogue.RULES`) names every
rule and the kinds it may report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from ncu_roofline.analysis.catalogue import severity_of
from ncu_roofline.analysis.findings.records import FindingRecord
from ncu_roofline.core.frame import Columns, floats, objects

if TYPE_CHECKING:
    from ncu_roofline.analysis.roofs.assign import DeviceRoofs
    from ncu_roofline.theory.config import TheoryConfig


@dataclass(frozen=True)
class Finding:
    """One thing worth a reader's attention."""

    kind: str
    kernel: str | None
    severity: str
    message: str
    source: str | None = None
    recoverable_s: float | None = None
    #: ``kind`` or ``kind/variant``: which of the catalogue's advice fits.
    advice: str | None = None

    def to_dict(self) -> FindingRecord:
        """Plain data for reports."""
        return {
            "kind": self.kind,
            "kernel": self.kernel,
            "severity": self.severity,
            "message": self.message,
            "source": self.source,
            "recoverable_s": self.recoverable_s,
            "advice": self.advice or self.kind,
        }


def finding(
    kind: str,
    kernel: str | None,
    message: str,
    *,
    severity: str | None = None,
    source: str | None = None,
    recoverable_s: float | None = None,
) -> Finding:
    """A finding of ``kind``, at the catalogue's severity unless the numbers say otherwise."""
    return Finding(
        kind,
        kernel,
        severity or severity_of(kind),
        message,
        source=source,
        recoverable_s=recoverable_s,
    )


@dataclass(frozen=True)
class Evidence:
    """What the rules read: the analysed launches and kernel groups (tables or frames),
    and their context."""

    launches: Columns
    kernels: Columns
    devices: list[DeviceRoofs]
    #: The theory inputs, ``None`` without ``--theory`` or ``--model``.
    theory: TheoryConfig | None = None
    #: Kernels that matched no theory rule or model op.
    unmatched: list[str] = field(default_factory=list)

    @property
    def grand(self) -> float:
        """The profile's time: the launches' summed durations (seconds)."""
        return float(np.nansum(floats(self.launches["total_duration_s"])))


class Rows:
    """The rows of a table or frame, one :class:`Row` each, as a rule reads a group.

    A column is read once, when a row is first asked for it: numbers (flags
    and integers too) as Python floats, NaN where missing; anything else as
    the column holds it, None where missing.  A frame and its table give
    equal rows.
    """

    __slots__ = ("_columns", "_frame")

    def __init__(self, frame: Columns) -> None:
        self._frame = frame
        self._columns: dict[str, list[Any]] = {}

    def __len__(self) -> int:
        return len(self._frame)

    def __getitem__(self, at: int) -> Row:
        return Row(self, at)

    def names(self) -> list[str]:
        """The column names, in order."""
        return [str(c) for c in self._frame.columns]

    def column(self, name: str) -> list[Any]:
        """Column ``name`` as plain values; a KeyError where the frame lacks it."""
        values = self._columns.get(name)
        if values is None:
            if name not in self._frame:
                raise KeyError(name)
            held = self._frame[name]
            cells = floats(held) if held.dtype.kind in "iufb" else objects(held)
            values = self._columns[name] = cells.tolist()
        return values


class Row(Mapping[str, Any]):
    """One row of :class:`Rows`: ``row[name]`` (a KeyError where the frame lacks the
    column) and ``row.get(name)``, as a frame's row is read."""

    __slots__ = ("_at", "_rows")

    def __init__(self, rows: Rows, at: int) -> None:
        self._rows = rows
        self._at = at

    def __getitem__(self, name: str) -> Any:
        return self._rows.column(name)[self._at]

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows.names())

    def __len__(self) -> int:
        return len(self._rows.names())


#: A rule: the evidence to the findings of the kinds it detects.
Rule = Callable[[Evidence], list[Finding]]


def pct(x: float) -> str:
    """A share as a whole percentage, ``"an unknown share"`` when it is not finite."""
    return f"{100 * x:.0f}%" if np.isfinite(x) else "an unknown share"


def share(seconds: float, grand: float) -> float:
    """``seconds`` as a share of the profile's time ``grand``; NaN without one."""
    return seconds / grand if grand > 0 else float("nan")
