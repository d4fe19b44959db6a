"""A finding, the evidence every rule reads, and the one shape of a rule.

A rule is a function of the :class:`Evidence` (the analysed launches and
groups, the devices' roofs, the theory inputs) that returns the
:class:`Finding` objects of the kinds it detects, in the order it found them;
the catalogue (:data:`~ncu_roofline.analysis.catalogue.RULES`) names every
rule and the kinds it may report.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ncu_roofline.analysis.catalogue import severity_of
from ncu_roofline.analysis.findings.records import FindingRecord
from ncu_roofline.core.frame import floats

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
    """What the rules read: the analysed launches and kernel groups, and their context."""

    launches: pd.DataFrame
    kernels: pd.DataFrame
    devices: list[DeviceRoofs]
    #: The theory inputs, ``None`` without ``--theory`` or ``--model``.
    theory: TheoryConfig | None = None
    #: Kernels that matched no theory rule or model op.
    unmatched: list[str] = field(default_factory=list)

    @property
    def grand(self) -> float:
        """The profile's time: the launches' summed durations (seconds)."""
        return float(np.nansum(floats(self.launches["total_duration_s"])))


#: A rule: the evidence to the findings of the kinds it detects.
Rule = Callable[[Evidence], list[Finding]]


def pct(x: float) -> str:
    """A share as a whole percentage, ``"an unknown share"`` when it is not finite."""
    return f"{100 * x:.0f}%" if np.isfinite(x) else "an unknown share"


def share(seconds: float, grand: float) -> float:
    """``seconds`` as a share of the profile's time ``grand``; NaN without one."""
    return seconds / grand if grand > 0 else float("nan")
