"""The choices and defaults of a comparison, for the command line's options.

Design: plain constants, apart from :mod:`ncu_roofline.analysis.compare`
(which joins two analyses with pandas), so that ``compare --help`` needs
neither pandas nor the engine.
"""

from __future__ import annotations

__all__ = ["BASES", "DEFAULT_NOISE"]

#: The bases ``compare`` accepts; ``total`` is the former name of ``time``.
BASES: tuple[str, ...] = ("auto", "time", "cycles", "per-launch")

#: Default relative change of a group's total time below which it counts as unchanged.
DEFAULT_NOISE = 0.02
