"""Time budgets: where a step's GPU time goes between kernels, from an nsys timeline.

A roofline says how well each kernel uses the GPU while it runs; it cannot
say how much of a step no kernel ran at all (launch overhead, idle gaps) or
ran kernels ncu never profiled.  :func:`budget` reads a
:class:`~ncu_roofline.core.timeline.Timeline` (and optionally an
:class:`~ncu_roofline.analysis.engine.Analysis` to join) and says where the
capture's, each NVTX step's and each range name's time went;
:func:`weight_by_timeline` weights the roofline's ranking by the real
time each kernel group took; :func:`budget_findings` turns a budget into
findings (``launch-bound``, ``graph-launched``, ``unprofiled-hot``).

The package: :mod:`.sweep` the time attribution rule (kernel over copy over
idle; overlapping kernels share an instant equally), :mod:`.windows` the
budget of many windows at once and the NVTX range windows, :mod:`.join`
the join of trace kernels with ncu groups, :mod:`.labels` the classes time
is sorted by, :mod:`.graphs` CUDA graph launches, :mod:`.summary` the
summary-only budget, :mod:`.weight` the time weighting, :mod:`.findings`
the findings, :mod:`.records` the plain-data types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.budget.attach import attach_timeline
    from ncu_roofline.analysis.budget.build import budget
    from ncu_roofline.analysis.budget.findings import budget_findings
    from ncu_roofline.analysis.budget.join import join_key
    from ncu_roofline.analysis.budget.records import BudgetRecord
    from ncu_roofline.analysis.budget.weight import weight_by_timeline

__all__ = [
    "BudgetRecord",
    "attach_timeline",
    "budget",
    "budget_findings",
    "join_key",
    "weight_by_timeline",
]

_LAZY = {
    "attach_timeline": "ncu_roofline.analysis.budget.attach",
    "budget": "ncu_roofline.analysis.budget.build",
    "budget_findings": "ncu_roofline.analysis.budget.findings",
    "join_key": "ncu_roofline.analysis.budget.join",
    "BudgetRecord": "ncu_roofline.analysis.budget.records",
    "weight_by_timeline": "ncu_roofline.analysis.budget.weight",
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)
