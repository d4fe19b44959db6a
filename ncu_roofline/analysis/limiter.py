"""What limits each launch, from every utilisation the export has, and the
time that can honestly be recovered.

The roofline places a launch against two roofs (compute and DRAM); the
export usually says more.  Nsight Compute's speed-of-light section gives
the busiest fraction of the SM (``sm__throughput``) and of the memory
system (``gpu__compute_memory_throughput``), and the throughputs of DRAM,
L2 and L1/TEX; pipe and issue utilisations name the unit inside the SM;
the SASS instruction mix says which share of the FP32 roof the kernel can
reach at all; the launch statistics say whether the grid fills the GPU.

Every utilisation is a fraction of its unit's peak over the launch's
elapsed time.  ncu reports some over *active* cycles (L1/TEX, the pipes,
issue); those are scaled by the SM's active share of the elapsed cycles,
so that all units compare on one time base (on a real RTX 5060 Ti GEMM,
L1/TEX 58.04% of active cycles x 0.943 active = 54.8%, ncu's own memory
throughput for the kernel).

The limiter, in this order:

``latency`` (short)
    Shorter than :attr:`Thresholds.short_launch_s` with no unit
    :data:`BUSY` busy: launch overhead dominates.
``under-filled``
    The grid has fewer blocks than the GPU has SMs, or less than one
    wave, and no unit is :data:`BUSY` busy: the GPU is not given enough
    work to be limited by any unit.
``latency`` (idle)
    Every unit is under :attr:`Thresholds.low_sol_pct` busy by ncu's
    speed-of-light metrics.
``unknown``
    Nothing the export measured is :attr:`Thresholds.far_below` busy and
    it has no speed-of-light metrics that could name another unit
    (integer or special-function work, say, is not counted by FLOP
    counters).  Such a launch under :data:`NEGLIGIBLE` of both roofs gets
    no recoverable time at all (NaN): no roof describes its work.
otherwise
    the busiest unit, preferring a named unit (``dram``, ``l2``, ``l1``,
    ``fma-pipe``, ``alu-pipe``, ``fp64-pipe``, ``lsu-pipe``,
    ``tensor-pipe``, ``issue``) to ncu's composite figures (``sm``,
    ``memory``) unless the composite is more than :data:`COMPOSITE_MARGIN`
    busier (then the busy unit was not collected).

Recoverable time is bounded twice.  No unit can do its work faster than at
100%, so ``duration x (1 - highest utilisation)`` bounds it from the
speed-of-light side; and the roof itself is the one the instruction mix
can reach (:func:`mix_share`), so ``duration x (1 - achieved / attainable
at the mix roof)`` bounds it from the roofline side.  The smaller is
taken.  Latency-class and under-filled launches have nothing to recover
from a roof: their time is ``latency_s``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.limiter_units import SOL_METRICS, UNIT_LABELS, UNITS, Unit
from ncu_roofline.analysis.measures import FLOP_WEIGHTS, packed_fp32_lanes
from ncu_roofline.analysis.roofline import ratio
from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.frame import optional_column

if TYPE_CHECKING:
    # Only for annotations: the classification imports this module.
    from ncu_roofline.analysis.classify import Groups, Thresholds

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

#: A unit this busy limits the launch; below it ncu itself speaks of
#: latency ("below 60% of peak typically indicate latency issues").
BUSY = 0.60
#: A composite (ncu's SM or memory throughput) this much busier than every
#: named unit names the limiter itself: the busy unit was not collected.
COMPOSITE_MARGIN = 0.15
#: Under this fraction of every roof, the roofline counts almost none of a
#: launch's work (a curand set-up kernel: 0.003% of FP32, 0.05% of DRAM).
NEGLIGIBLE = 0.01
#: Why a launch the roofline placed is latency-class, by limiter.
_LATENCY_REASONS = {
    "under-filled": "the grid does not fill the GPU (fewer blocks than SMs, or under one wave) "
    "and no unit is {busy} busy",
    "latency": "every unit under {low} busy, or shorter than {short}: latency, not a roof, "
    "limits it",
}

#: Limiters that leave nothing for a roof to recover.
LATENCY_CLASS = ("latency", "under-filled")


#: The pipe a launch's FLOPs run on, by dominant precision.
PRECISION_PIPE = {"fp32": "fma-pipe", "fp16": "fma-pipe", "fp64": "fp64-pipe"}


def active_share(df: pd.DataFrame) -> FloatArray:
    """The SM's active share of the elapsed cycles (NaN where unknown), in [0, 1]."""
    active = _f(df, "sm__cycles_active.avg")
    elapsed = _f(df, "sm__cycles_elapsed.avg")
    for alt in (_f(df, "gpc__cycles_elapsed.max"), _f(df, "sm__cycles_elapsed.max")):
        elapsed = np.where(np.isnan(elapsed), alt, elapsed)
    by_clock = _f(df, "duration_s") * _f(df, "sm__cycles_elapsed.avg.per_second")
    elapsed = np.where(np.isnan(elapsed), by_clock, elapsed)
    return np.clip(ratio(active, elapsed), 0.0, 1.0)


def _measured(df: pd.DataFrame, unit: Unit, share: FloatArray) -> tuple[FloatArray, ObjArray]:
    """One unit's utilisation (fraction of elapsed peak) and the metric it came from.

    Per part, the first spelling the launch has; the unit is its busiest part.
    """
    n = len(df)
    util = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    for part in unit.parts:
        got = np.full(n, np.nan)
        for name in part:
            values = optional_column(df, name)
            if values is None:
                continue
            frac = values / 100.0
            if name.endswith("_active"):
                # Unknown active share: the active figure stands (it can only
                # overstate the utilisation, which understates what is recoverable).
                frac = np.where(np.isnan(share), frac, frac * share)
            take = np.isnan(got) & ~np.isnan(frac)
            got[take] = frac[take]
            better = take & ~(got <= util)
            util[better] = got[better]
            basis[better] = name
    return util, basis


def mix_share(df: pd.DataFrame, precision: ObjArray) -> FloatArray:
    """The share of a precision's FLOP roof its instruction mix can reach.

    The FP32 roof counts every issue slot as an FFMA (two FLOPs); an FADD
    or FMUL issues in the same slot for one.  With ``a``, ``m``, ``f``
    add, mul and fma instructions, the mix reaches
    ``(a + m + 2 f) / (2 (a + m + f))`` of the roof (FP64 alike; FP16's
    half2 forms keep the same ratio).  NaN where the launch's precision is
    not an FMA precision or its instruction counts are missing.

    Packed FP32 (CC 10.x) is counted in lanes, as the roof is: the FP32 peak
    of a B200 (75 TFLOP/s = 148 SMs x 1.965 GHz x 128 FMA lanes x 2) counts
    128 FMA lanes per SM per clock, and an ``FADD2``/``FMUL2``/``FFMA2``
    fills two of them.  So an FFMA2 reaches the roof (4 FLOPs in 2 lanes)
    and FADD2/FMUL2 half of it, as their unpacked forms: with ``a2``, ``m2``,
    ``f2`` packed instructions the share is
    ``(a + m + 2 f + 2 a2 + 2 m2 + 4 f2) / (2 (a + m + f + 2 a2 + 2 m2 + 2 f2))``.
    """
    n = len(df)
    out = np.full(n, np.nan)
    for key, (letter, weights) in FLOP_WEIGHTS.items():
        rows = precision == key
        if not rows.any():
            continue
        counts = _instruction_counts(df, letter)
        if counts is None:
            continue
        add, mul, fma, suffix = counts
        total = add + mul + fma
        work = weights[0] * add + weights[1] * mul + weights[2] * fma
        packed = packed_fp32_lanes(df, suffix) if letter == "f" else None
        if packed is not None:
            total, work = total + packed[0], work + packed[1]
        share = ratio(work, weights[2] * total)
        out[rows] = share[rows]
    return out


def _instruction_counts(
    df: pd.DataFrame, letter: str
) -> tuple[FloatArray, FloatArray, FloatArray, str] | None:
    """Add, mul and fma thread-instruction counts (or rates: only their ratio is used).

    The last item is the metric suffix of the form read (``""`` for counts,
    ``".per_cycle_elapsed"`` for rates), for the packed counters to match.
    """
    for prefix in ("sm", "smsp"):
        names = [
            f"{prefix}__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum"
            for op in ("add", "mul", "fma")
        ]
        cols = [optional_column(df, c) for c in names]
        if all(c is not None for c in cols):
            return cols[0], cols[1], cols[2], ""  # type: ignore[return-value]
    for prefix in ("smsp", "sm"):
        base = f"{prefix}__sass_thread_inst_executed_op_{letter}"
        add = optional_column(df, f"{base}add_pred_on.sum.per_cycle_elapsed")
        mul = optional_column(df, f"{base}mul_pred_on.sum.per_cycle_elapsed")
        fma = optional_column(df, f"{base}fma_pred_on.sum.per_cycle_elapsed")
        for mult in (2, 4):
            doubled = optional_column(
                df, f"derived__{prefix}__sass_thread_inst_executed_op_{letter}fma_pred_on_x{mult}"
            )
            if doubled is not None:
                halved = doubled / mult
                fma = halved if fma is None else np.where(np.isnan(fma), halved, fma)
        if add is not None and mul is not None and fma is not None:
            return add, mul, fma, ".per_cycle_elapsed"
    return None


@dataclass
class Utilisations:
    """Per unit, per launch: the fraction of its peak over elapsed time, and its metric."""

    values: dict[str, FloatArray]
    basis: dict[str, ObjArray]
    has_sol: npt.NDArray[np.bool_]


def utilisations(df: pd.DataFrame, placed: pd.DataFrame) -> Utilisations:
    """Every unit's utilisation per launch: ncu's metrics first, the roofline's where they lack.

    ``df`` is the export's launch frame (raw metric columns); ``placed``
    the analysed frame aligned with it (roofline utilisations, precision,
    mix share).
    """
    n = len(df)
    share = active_share(df)
    values: dict[str, FloatArray] = {}
    basis: dict[str, ObjArray] = {}
    for unit in UNITS:
        values[unit.key], basis[unit.key] = _measured(df, unit, share)
    # The roofline's own utilisations where ncu's are missing: bytes/s over
    # the bandwidth roofs, and FLOP/s over the roof the instruction mix
    # reaches (the FP32 issue rate of the FMA pipe).
    for level in ("dram", "l2", "l1"):
        fill = np.isnan(values[level])
        roof = _f(placed, f"{level}_utilization")
        if level == "dram" and "dram_utilization_basis" in placed:
            from_bytes = placed["dram_utilization_basis"].to_numpy(dtype=object) == (
                "bytes/s over the DRAM roof"
            )
            roof = np.where(from_bytes, roof, np.nan)
        take = fill & ~np.isnan(roof)
        values[level][take] = roof[take]
        basis[level][take] = f"{level}_bytes_per_s over the {level.upper()} roof"
    precision = placed["precision"].to_numpy(dtype=object)
    compute = _f(placed, "compute_utilization")
    mix = _f(placed, "mix_share")
    from_mix = ratio(compute, np.where(np.isnan(mix), 1.0, mix))
    for key, pipe in PRECISION_PIPE.items():
        rows = (precision == key) & np.isnan(values[pipe]) & ~np.isnan(from_mix)
        values[pipe][rows] = from_mix[rows]
        basis[pipe][rows] = f"{key} FLOP/s over the roof its instruction mix reaches"
    tensor = (
        pd.Series(precision, dtype=object).str.startswith("tensor", na=False).to_numpy(dtype=bool)
    )
    rows = tensor & np.isnan(values["tensor-pipe"]) & ~np.isnan(compute)
    values["tensor-pipe"][rows] = compute[rows]
    basis["tensor-pipe"][rows] = "tensor FLOP/s over the tensor roof"
    has_sol = np.zeros(n, dtype=bool)
    for name in SOL_METRICS:
        col = optional_column(df, name)
        if col is not None:
            has_sol |= ~np.isnan(col)
    return Utilisations(values, basis, has_sol)


def fill(df: pd.DataFrame) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Grid blocks, waves per SM and achieved occupancy (fraction) per launch.

    Waves come from ncu's ``launch__waves_per_multiprocessor``; without it,
    a grid of fewer blocks than SMs is still known to be under one wave.
    """
    blocks = _f(df, "grid_blocks")
    waves = _f(df, "launch__waves_per_multiprocessor")
    occupancy = _f(df, "sm__warps_active.avg.pct_of_peak_sustained_active") / 100.0
    return blocks, waves, occupancy


def under_filled(blocks: FloatArray, waves: FloatArray, sms: FloatArray) -> npt.NDArray[np.bool_]:
    """Launches whose grid leaves SMs idle or fills less than one wave."""
    with np.errstate(invalid="ignore"):
        few_blocks = blocks < sms
        part_wave = waves < 1.0
    return np.asarray(few_blocks | part_wave, dtype=bool)


def judge(
    df: pd.DataFrame,
    placed: pd.DataFrame,
    sms: FloatArray,
    thresholds: Thresholds,
) -> dict[str, npt.NDArray[np.generic]]:
    """The limiter, its utilisation and the honest recoverable time of every launch.

    ``placed`` is the analysed launch frame after roofline placement
    (``bound``, ``efficiency``, ``mix_share``, ``attainable_flops_per_s`` ...);
    the result holds new columns and the revised ``bound``,
    ``bound_reason``, ``efficiency`` and ``recoverable_s``.
    """
    n = len(df)
    util = utilisations(df, placed)
    stack = np.vstack([util.values[u.key] for u in UNITS]) if UNITS else np.empty((0, n))
    known = ~np.isnan(stack)
    any_known = known.any(axis=0)
    filled = np.where(known, stack, -1.0)
    max_util = np.where(any_known, filled.max(axis=0), np.nan)
    named = np.array([not u.composite for u in UNITS], dtype=bool)
    named_best = np.where(known[named], filled[named], -1.0)
    best_named = named_best.argmax(axis=0)
    best_named_util = named_best.max(axis=0)
    best_all = filled.argmax(axis=0)
    keys = np.array([u.key for u in UNITS], dtype=object)
    named_keys = keys[named]
    use_named = (best_named_util >= 0) & (best_named_util >= max_util - COMPOSITE_MARGIN)
    limiter = np.where(use_named, named_keys[best_named], keys[best_all]).astype(object)
    lim_util = np.where(use_named, best_named_util, max_util)
    lim_basis = np.full(n, None, dtype=object)
    for unit in UNITS:
        rows = limiter == unit.key
        lim_basis[rows] = util.basis[unit.key][rows]
    limiter[~any_known] = "unknown"
    lim_util = np.where(any_known, lim_util, np.nan)

    blocks, waves, occupancy = fill(df)
    thin = under_filled(blocks, waves, sms)
    bound = placed["bound"].to_numpy(dtype=object).copy()
    reason = placed["bound_reason"].to_numpy(dtype=object).copy()
    eff = _f(placed, "efficiency").copy()
    duration = _f(placed, "duration_s")
    total = _f(placed, "total_duration_s")
    low = thresholds.low_sol_pct / 100.0
    with np.errstate(invalid="ignore"):
        idle = any_known & (max_util < low) & util.has_sol
        unseen = any_known & (max_util < thresholds.far_below) & ~util.has_sol
        busy = max_util >= BUSY
    short = (duration < thresholds.short_launch_s) & ~busy
    starved = thin & ~busy & ~short & pd.notna(bound) & (bound != "not placeable")
    latency = short | (((bound == "latency") | idle) & ~starved)
    limiter[unseen] = "unknown"
    lim_util[unseen] = np.nan
    limiter[starved] = "under-filled"
    limiter[latency] = "latency"
    lim_basis[np.isin(limiter, ["latency", "under-filled", "unknown"])] = None

    comm = bound == "communication"
    _bandwidth_verdicts(placed, util, limiter, lim_util, bound, reason, eff)
    recoverable = honest_recoverable(placed, eff, max_util)
    latency_class = np.isin(limiter, LATENCY_CLASS) & ~comm
    for key, why in _LATENCY_REASONS.items():
        rows = (limiter == key) & np.isin(bound, ["memory", "compute", "latency"])
        if key == "latency":
            rows &= bound != "latency"
        bound[rows] = "latency"
        reason[rows] = why.format(
            busy=f"{100 * BUSY:.0f}%",
            low=f"{thresholds.low_sol_pct:g}%",
            short=f"{thresholds.short_launch_s * 1e6:g} us",
        )
    recoverable[latency_class] = np.where(np.isnan(total[latency_class]), np.nan, 0.0)
    # A launch under 1% of both roofs without speed-of-light metrics does
    # work no roof counts (integer, special-function, atomics): its roofline
    # "recoverable" time means nothing.
    with np.errstate(invalid="ignore"):
        no_work = np.fmax(_f(placed, "compute_utilization"), _f(placed, "dram_utilization")) < (
            NEGLIGIBLE
        )
    recoverable[unseen & no_work & ~latency_class] = np.nan
    recoverable[comm] = np.nan
    latency_s = np.where(latency_class, total, 0.0)
    latency_s[np.isnan(total)] = np.nan
    return {
        "limiter": limiter,
        "limiter_utilization": lim_util,
        "limiter_basis": lim_basis,
        "max_utilization": max_util,
        "under_filled": thin,
        "waves": waves,
        "achieved_occupancy": occupancy,
        "sm_count": sms,
        "bound": bound,
        "bound_reason": reason,
        "efficiency": eff,
        "recoverable_s": recoverable,
        "latency_s": latency_s,
    }


def honest_recoverable(placed: pd.DataFrame, eff: FloatArray, max_util: FloatArray) -> FloatArray:
    """Recoverable time bounded by the instruction mix's roof and by the busiest unit.

    ``min(t x (1 - achieved / attainable at the mix roof), t x (1 - max
    utilisation))`` where each is known; NaN where the launch is not
    placed (and has no bandwidth verdict).
    """
    total = _f(placed, "total_duration_s")
    achieved = _f(placed, "achieved_flops_per_s")
    peak = _f(placed, "peak_flops_per_s")
    mix = _f(placed, "mix_share")
    ai = _f(placed, "ai_dram")
    bw = _f(placed, "peak_dram_bytes_per_s")
    with np.errstate(invalid="ignore", over="ignore"):
        mix_roof = np.fmin(peak * mix, ai * bw)
    eff_mix = ratio(achieved, mix_roof)
    roof_eff = np.where(np.isnan(eff_mix) | np.isnan(eff), eff, np.fmax(eff, eff_mix))
    by_roof = total * np.clip(1.0 - roof_eff, 0.0, None)
    by_sol = total * np.clip(1.0 - max_util, 0.0, None)
    out = np.where(np.isnan(by_sol), by_roof, np.fmin(by_roof, by_sol))
    out[np.isnan(by_roof)] = np.nan
    return out


def _bandwidth_verdicts(
    placed: pd.DataFrame,
    util: Utilisations,
    limiter: ObjArray,
    lim_util: FloatArray,
    bound: ObjArray,
    reason: ObjArray,
    eff: FloatArray,
) -> None:
    """Launches without FLOP counters but with a busy memory unit: judged by bandwidth, in place.

    ncu's own DRAM (or L2, L1/TEX) speed-of-light percentage is a verdict
    the roofline cannot draw without FLOPs: a daxpy at 90.7% of DRAM is
    DRAM-bound whatever its intensity.  Its efficiency is that utilisation.
    """
    no_flops = np.isnan(_f(placed, "flops")) & (bound == "not placeable")
    memory = np.isin(limiter, ["dram", "l2", "l1"])
    with np.errstate(invalid="ignore"):
        busy = lim_util >= BUSY
    rows = no_flops & memory & busy
    if not rows.any():
        return
    bound[rows] = "memory"
    labels = pd.Series(limiter[rows], dtype=object).map(UNIT_LABELS).to_numpy(dtype=object)
    pct = np.char.mod("%.1f%%", 100.0 * lim_util[rows])
    reason[rows] = (
        labels.astype(str)
        + np.char.add(" at ", pct).astype(object)
        + " of peak (no FLOP counters: judged by bandwidth alone)"
    )
    eff[rows] = lim_util[rows]


def group_limiter(
    launches: pd.DataFrame,
    groups: Groups,
    t0: FloatArray,
    limiter: ObjArray,
    first: npt.NDArray[np.intp],
    frame: pd.DataFrame,
) -> None:
    """A group's limiter figures, in place: ``limiter`` is the one holding for most of its time.

    Its utilisation is the time-weighted mean over the launches it limits;
    the other figures are time-weighted means over all launches, the
    latency time a sum.
    """
    frame["limiter"] = limiter
    same = launches["limiter"].astype(object).to_numpy() == limiter[groups.gid]
    frame["limiter_utilization"] = groups.weighted_mean(
        np.where(same, _f(launches, "limiter_utilization"), np.nan), t0
    )
    frame["limiter_basis"] = launches["limiter_basis"].to_numpy(dtype=object)[first]
    for col in ("max_utilization", "mix_share", "waves", "achieved_occupancy"):
        frame[col] = groups.weighted_mean(_f(launches, col), t0)
    frame["sm_count"] = groups.weighted_mean(_f(launches, "sm_count"), np.ones(len(t0)))
    thin = launches["under_filled"].to_numpy(dtype=bool)
    frame["under_filled"] = ratio(groups.count(np.where(thin, t0, 0.0)), groups.count(t0)) > 0.5
    frame["latency_s"] = groups.sum(_f(launches, "latency_s"), strict=False)
