"""The theoretical time floor: the least time an op's work could take on a GPU.

``floor = max(FLOPs / compute ceiling, bytes / DRAM bandwidth)``, used by
both the report (per launch, on the launch's roofs) and the ``theory``
command (per op, on a GPU's datasheet roofs), so one op gets one floor.

Which compute ceiling
    The ceiling of the op's own precision.  A GPU without it lends the
    ceiling of a same-rate datatype (:data:`SAME_RATE`: BF16 and FP16 tensor
    math, FP8 and INT8 tensor math, FP16 on FP32 cores), unless the GPU is
    older than the first one with the op's datatype (:data:`FIRST_CC`: no
    BF16 tensor math on Volta or Turing, no FP8 before Ada), where no
    ceiling exists.  Otherwise there is no ceiling and no floor: the ceiling
    of whatever precision a kernel happened to run is not a bound on the
    op's theoretical work.
Zero work, missing roofs
    No FLOPs (or no bytes) take no time whatever the ceiling; work against
    a missing or zero ceiling has no floor (NaN), and neither part alone
    makes one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

#: Ceilings that stand in for a precision's own when a GPU lacks it (same-rate pairs).
SAME_RATE: Mapping[str, tuple[str, ...]] = {
    "tensor_bf16": ("tensor_fp16",),
    "tensor_fp16": ("tensor_bf16",),
    "tensor_fp8": ("tensor_int8",),
    "tensor_int8": ("tensor_fp8",),
    "fp16": ("fp32",),
}
#: Oldest compute capability that has each tensor datatype: a stand-in never
#: lends a GPU a type its hardware lacks.
FIRST_CC: Mapping[str, float] = {"tensor_bf16": 8.0, "tensor_fp8": 8.9, "tensor_int8": 7.2}


def compute_ceiling(
    ceilings: Mapping[str, FloatArray], precision: ObjArray, cc: FloatArray
) -> tuple[FloatArray, ObjArray]:
    """Per row, the compute ceiling (FLOP/s) for the row's ``precision``, and its key.

    ``ceilings`` maps compute keys to per-row ceilings (NaN where a row's GPU
    lacks one), ``cc`` is each row's compute capability (NaN when unknown).
    The rule is the module's: own ceiling, else a same-rate one where the
    GPU has the datatype; rows with neither get NaN and ``None``.
    """
    n = len(precision)
    peak = np.full(n, np.nan)
    used = np.full(n, None, dtype=object)
    # The keys present, missing ones (None, NaN) left out; the rows of two
    # keys never overlap, so their order does not matter.
    keys = sorted({k for k in set(precision.tolist()) if k is not None and k == k}, key=str)
    for key in keys:
        rows = precision == key
        older = cc < FIRST_CC[key] if key in FIRST_CC else np.zeros(n, dtype=bool)
        for pos, alt in enumerate((key, *SAME_RATE.get(str(key), ()))):
            values = ceilings.get(str(alt))
            if values is None:
                continue
            take = rows & np.isnan(peak) & ~np.isnan(values)
            if pos > 0:
                take &= ~older
            peak[take] = values[take]
            used[take] = alt
    return peak, used


def time_floor(
    flops: npt.ArrayLike, nbytes: npt.ArrayLike, peak: npt.ArrayLike, bandwidth: npt.ArrayLike
) -> FloatArray:
    """``max(flops / peak, nbytes / bandwidth)`` per row, NaN where either part is unknown.

    A zero count takes no time whatever its roof; a missing or zero roof
    under non-zero work leaves that part, and so the floor, unknown.
    """
    f, b = np.asarray(flops, dtype=np.float64), np.asarray(nbytes, dtype=np.float64)
    pk, bw = np.asarray(peak, dtype=np.float64), np.asarray(bandwidth, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        compute = np.where(f == 0, 0.0, np.where(pk > 0, f / pk, np.nan))
        memory = np.where(b == 0, 0.0, np.where(bw > 0, b / bw, np.nan))
    floor = np.fmax(compute, memory)
    # fmax ignores one NaN side: a floor needs both parts known.
    floor[np.isnan(compute) | np.isnan(memory)] = np.nan
    return np.asarray(floor, dtype=np.float64)


def cc_number(cc: npt.ArrayLike) -> FloatArray:
    """Compute capabilities (``"9.0"``, ``8.6``, ``None``) as floats, NaN when unknown."""
    raw = np.asarray(cc, dtype=object)
    try:
        return np.asarray(raw.astype(np.float64), dtype=np.float64)
    except (TypeError, ValueError):
        pass
    # Some value is missing or malformed: convert each distinct spelling once
    # (a profile has one or two) and spread the results over the rows.
    keys, inverse = np.unique(raw.astype(str), return_inverse=True)
    values = np.array([_float_or_nan(k) for k in keys.tolist()], dtype=np.float64)
    return np.asarray(values[inverse].reshape(raw.shape), dtype=np.float64)


def _float_or_nan(text: str) -> float:
    """``text`` as a number, NaN where it is none (``"None"``, ``""``, ``"n/a"``)."""
    try:
        return float(text)
    except ValueError:
        return math.nan
