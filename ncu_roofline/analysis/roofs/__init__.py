"""Roofs (peak FLOP/s per precision, peak bytes/s per memory level) per launch.

Four sources, in order of precedence for each ceiling:

1. ``explicit``: a GPU the user named (``--gpu``) or a user roofs file
   (``--roofs``).
2. ``profile``: ncu's own peak metrics, ``*.peak_sustained`` x the clock the
   kernel ran at.  Exact for that clock; ncu locks clocks to base by default,
   so these sit below datasheet (boost) figures.
3. ``table``: the built-in GPU table, matched by the device name in the
   export.
4. ``derived``: per-SM-per-clock rates of the architecture x the SM count
   and clock the export reports (compute; L1 from the architecture
   description's bytes per clock per SM), and 2 x memory clock x bus width
   (DRAM), for GPUs the table does not know.

Table figures are datasheet peaks at the boost (or tensor) clock.  With
``clocks="measured"`` (the default) compute ceilings are scaled to the SM
clock the export measured, which is what the kernel could actually reach;
memory ceilings are never scaled.

The package: :mod:`.sources` gives each source's figures per launch;
:mod:`.infer` says which GPU of the table an export ran on when it does not
say; :mod:`.assign` chooses among the sources and records where each ceiling
came from; :mod:`.arithmetic` is the roofline arithmetic on arrays
(attainable performance, ridge point, sides; numpy only, which the theory
table uses without pandas).  The check of the roofs in use against ncu's own
DRAM % is a finding rule
(:func:`~ncu_roofline.analysis.findings.rules.roof_mismatch_findings`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.roofs.assign import (
        ALL_COMPUTE_KEYS,
        Ceiling,
        DeviceRoofs,
        RoofAssignment,
        assign_roofs,
        peak_column,
    )
    from ncu_roofline.analysis.roofs.infer import Inference, infer_gpu

_ASSIGN = "ncu_roofline.analysis.roofs.assign"

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "ALL_COMPUTE_KEYS": _ASSIGN,
    "Ceiling": _ASSIGN,
    "DeviceRoofs": _ASSIGN,
    "RoofAssignment": _ASSIGN,
    "assign_roofs": _ASSIGN,
    "peak_column": _ASSIGN,
    "Inference": "ncu_roofline.analysis.roofs.infer",
    "infer_gpu": "ncu_roofline.analysis.roofs.infer",
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = [
    "ALL_COMPUTE_KEYS",
    "Ceiling",
    "DeviceRoofs",
    "Inference",
    "RoofAssignment",
    "assign_roofs",
    "infer_gpu",
    "peak_column",
]
