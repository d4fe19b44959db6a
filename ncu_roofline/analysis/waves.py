"""How a launch's grid fills the GPU: idle SMs and the tail of a partial last wave.

ncu's launch statistics give the grid (``launch__grid_size``), the SMs
(``launch__sm_count``), the blocks one SM holds at once (the smallest of
the ``launch__occupancy_limit_*`` block limits) and the waves,
``launch__waves_per_multiprocessor`` = blocks / (SMs x blocks per SM).

Under-filled
    Some SM gets no block at all: fewer blocks than SMs.  Without the
    grid size, ``waves x blocks per SM < 1`` says the same (the grid is
    ``waves x SMs x blocks per SM`` blocks).  Fewer than one wave with at
    least one block per SM is *not* under-filled: every SM works, and
    whether it holds enough warps is an occupancy question (a decode
    kernel of 1,024 blocks on 148 SMs at 0.77 waves keeps every SM busy).
Tail effect
    With ``w`` waves, ``w > 1`` and a partial last wave holding
    ``frac = w - floor(w)`` of a full wave's blocks: if every block takes
    as long as every other (ncu's own assumption), each of the
    ``ceil(w)`` waves takes ``1 / ceil(w)`` of the runtime, and the last
    one leaves ``1 - frac`` of the GPU's block slots idle.  The runtime
    lost to the tail is ``(1 - frac) / ceil(w)``: at 1.10 waves
    0.90 / 2 = 45%, at 1.42 waves 0.58 / 2 = 29%.  ncu's TailEffect rule
    states the whole partial wave's share instead ("may account for up to
    ``100 / ceil(w)``% of the total kernel runtime": 50.0% at 1.42 waves,
    on the real A100 BERT export), an upper bound on the same loss; the
    loss here counts only the idle part of that wave.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ncu_roofline.core.frame import Columns, optional_column
from ncu_roofline.core.frame import column as _f

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

#: ncu's per-SM block limits; the smallest is the blocks one SM holds at once.
BLOCK_LIMITS = (
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__occupancy_limit_barriers",
)


def blocks_per_sm(df: Columns) -> FloatArray:
    """The blocks one SM holds at once (the tightest ncu block limit; NaN where none)."""
    out = np.full(len(df), np.nan)
    for name in BLOCK_LIMITS:
        values = optional_column(df, name)
        if values is not None:
            out = np.fmin(out, np.where(values > 0, values, np.nan))
    return out


def fill(df: Columns) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Grid blocks, waves per SM and achieved occupancy (fraction) per launch."""
    blocks = _f(df, "grid_blocks")
    waves = _f(df, "launch__waves_per_multiprocessor")
    occupancy = _f(df, "sm__warps_active.avg.pct_of_peak_sustained_active") / 100.0
    return blocks, waves, occupancy


def under_filled(
    blocks: FloatArray, waves: FloatArray, sms: FloatArray, per_sm: FloatArray
) -> BoolArray:
    """Launches whose grid leaves some SM without a block.

    Fewer blocks than SMs; where the grid size or the SM count is missing,
    fewer than one block per SM by ``waves x blocks per SM < 1`` (ncu's
    waves already divide the grid by the SMs).  Unknown stays False.
    """
    with np.errstate(invalid="ignore"):
        few_blocks = blocks < sms
        by_waves = (np.isnan(blocks) | np.isnan(sms)) & (waves * per_sm < 1.0)
    return np.asarray(few_blocks | by_waves, dtype=bool)


def tail_loss(waves: FloatArray) -> FloatArray:
    """The share of the runtime a partial last wave leaves idle: ``(1 - frac) / ceil(w)``.

    NaN where the waves are unknown; 0 at one wave or less (no tail: the
    grid fits in one wave) and at a whole number of waves.
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = waves - np.floor(waves)
        loss = np.where((waves > 1.0) & (frac > 0.0), (1.0 - frac) / np.ceil(waves), 0.0)
    return np.where(np.isnan(waves), np.nan, loss)
