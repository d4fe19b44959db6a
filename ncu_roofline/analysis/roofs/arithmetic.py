"""Roofline arithmetic on arrays: attainable performance, ridge point, sides.

Every function takes scalars or equal-length arrays and returns float arrays.
NaN in any input gives NaN (or ``None`` for labels) in the output: a missing
peak or byte count never turns into a zero.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def _arr(x: npt.ArrayLike) -> FloatArray:
    return np.asarray(x, dtype=np.float64)


def attainable(
    intensity: npt.ArrayLike, peak: npt.ArrayLike, bandwidth: npt.ArrayLike
) -> FloatArray:
    """``min(peak, intensity x bandwidth)``: the roof above a point.

    ``intensity`` in FLOP/byte, ``peak`` in FLOP/s, ``bandwidth`` in byte/s.
    """
    ai, pk, bw = _arr(intensity), _arr(peak), _arr(bandwidth)
    with np.errstate(invalid="ignore", over="ignore"):
        mem = ai * bw
        # np.minimum propagates NaN, which is what we want for missing inputs.
        return np.minimum(pk, mem)


def ridge_point(peak: npt.ArrayLike, bandwidth: npt.ArrayLike) -> FloatArray:
    """Intensity (FLOP/byte) where the memory roof meets the compute roof."""
    pk, bw = _arr(peak), _arr(bandwidth)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(pk / bw, dtype=np.float64)
    return np.where(np.isfinite(out), out, np.nan)


def side(
    intensity: npt.ArrayLike, peak: npt.ArrayLike, bandwidth: npt.ArrayLike
) -> npt.NDArray[np.object_]:
    """``"memory"`` left of the ridge point, ``"compute"`` at or right of it.

    A point exactly on the ridge is compute-bound: both roofs bind there and
    the compute roof is the one that cannot be raised by moving fewer bytes.
    """
    ai = _arr(intensity)
    ridge = ridge_point(peak, bandwidth)
    ai, ridge = np.broadcast_arrays(ai, ridge)
    out = np.full(ai.shape, None, dtype=object)
    ok = ~np.isnan(ai) & ~np.isnan(ridge)
    out[ok & (ai < ridge)] = "memory"
    out[ok & (ai >= ridge)] = "compute"
    return out


def ratio(numerator: npt.ArrayLike, denominator: npt.ArrayLike) -> FloatArray:
    """``numerator / denominator`` with NaN where the denominator is 0 or NaN."""
    num, den = np.broadcast_arrays(_arr(numerator), _arr(denominator))
    out = np.full(num.shape, np.nan)
    ok = np.isfinite(num) & np.isfinite(den) & (den > 0)
    out[ok] = num[ok] / den[ok]
    return out


def recoverable(duration: npt.ArrayLike, efficiency: npt.ArrayLike) -> FloatArray:
    """Time that reaching the roof would save: ``duration x (1 - efficiency)``.

    Points above their roof (efficiency > 1) recover nothing; they are
    reported by the sanity checks rather than clipped here.
    """
    d, e = np.broadcast_arrays(_arr(duration), _arr(efficiency))
    with np.errstate(invalid="ignore"):
        return d * np.clip(1.0 - e, 0.0, None)
