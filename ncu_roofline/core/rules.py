"""ncu's own rule results (its conclusions), per source, keyed by launch.

ncu's rules (``SOLBottleneck``, ``TheoreticalOccupancy`` ...) judge each
launch and, since ncu 2023.x, estimate the speedup fixing the issue would
give: ``global`` (of the kernel's duration) or ``local`` (of the unit or
metric the rule looks at; a bound on what the kernel could gain from it).
Details CSVs print them as rule rows (``Rule Name``, ``Rule Type``, ``Rule
Description``, ``Estimated Speedup Type``, ``Estimated Speedup``);
``.ncu-rep`` files hold them as rule results.

A source keeps its rules as one column-wise table, not a list per launch:
launches are named by their ``(process_id, id)``, the identity columns the
launch model already has, so the table survives the concatenation of
sources and tables unchanged and costs nothing where a source has no rules.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

#: ncu's estimate and ours differing by more than this factor is said.
DISAGREE_FACTOR = 2.0

#: The fields of one rule result in the reports, in order.
RULE_FIELDS = ("name", "type", "section", "message", "speedup_type", "speedup_pct")


@dataclass
class RuleTable:
    """Rule results of one source: one entry per rule result, column by column.

    ``process_id`` and ``launch_id`` name the launch (-1 where the export
    leaves the process id out); ``speedup_pct`` is NaN where ncu estimates
    no speedup; ``speedup_type`` is ``"global"``, ``"local"`` or None.
    """

    process_id: list[int] = field(default_factory=list)
    launch_id: list[int] = field(default_factory=list)
    #: The rule's identifier; None in text output, which prints none.
    name: list[str | None] = field(default_factory=list)
    type: list[str | None] = field(default_factory=list)
    section: list[str | None] = field(default_factory=list)
    message: list[str | None] = field(default_factory=list)
    speedup_type: list[str | None] = field(default_factory=list)
    speedup_pct: list[float] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.name)

    def add(
        self,
        process_id: int,
        launch_id: int,
        name: str | None,
        rule_type: str | None,
        section: str | None,
        message: str | None,
        speedup_type: str | None,
        speedup_pct: float,
    ) -> None:
        """Append one rule result."""
        self.process_id.append(process_id)
        self.launch_id.append(launch_id)
        self.name.append(name)
        self.type.append(rule_type or None)
        self.section.append(section or None)
        self.message.append(message or None)
        self.speedup_type.append(speedup_type or None)
        self.speedup_pct.append(speedup_pct)

    def extend(self, other: RuleTable) -> None:
        """Append another table's rule results (tables or passes of one source joined)."""
        for name in ("process_id", "launch_id", *RULE_FIELDS):
            getattr(self, name).extend(getattr(other, name))

    def keys(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """The process ids and launch ids as arrays."""
        return (
            np.asarray(self.process_id, dtype=np.int64),
            np.asarray(self.launch_id, dtype=np.int64),
        )


def speedup_number(text: str | None) -> float:
    """ncu's estimated speedup (percent) from its printed text; NaN when empty or not a number.

    ``"67.9"`` -> 67.9; ``""`` -> NaN (ncu estimates nothing for INF rules).
    """
    if text is None:
        return float("nan")
    cleaned = text.strip().replace(",", "")
    try:
        value = float(cleaned)
    except ValueError:
        return float("nan")
    # A negative or infinite estimate is no estimate.
    return value if 0.0 <= value < float("inf") else float("nan")


__all__ = ["DISAGREE_FACTOR", "RULE_FIELDS", "RuleTable", "speedup_number"]
