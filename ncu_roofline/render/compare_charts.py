"""Comparison rooflines; they live in :mod:`ncu_roofline.render.charts.compare`.

This module keeps the older import path working.
"""

from __future__ import annotations

from ncu_roofline.render.charts.compare import STATUS_COLOURS, comparison_figures

__all__ = ["STATUS_COLOURS", "comparison_figures"]
