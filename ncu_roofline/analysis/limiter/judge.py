"""The limiter of every launch: each unit's utilisation on one time base, the
busiest unit, and the recoverable time the evidence bounds (the rules are in
:mod:`ncu_roofline.analysis.limiter`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.limiter.units import SOL_METRICS, UNIT_LABELS, UNITS, Unit
from ncu_roofline.analysis.measures import FLOP_WEIGHTS, packed_fp32_lanes
from ncu_roofline.analysis.roofs.arithmetic import ratio
from ncu_roofline.analysis.waves import blocks_per_sm, fill, tail_loss, under_filled
from ncu_roofline.core.frame import Columns, object_column, optional_column
from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.grouping import concat_texts, distinct_codes, per_distinct, text_mask
from ncu_roofline.core.metrics import REQUIREMENTS
from ncu_roofline.core.table import present

if TYPE_CHECKING:
    import pandas as pd

    # Only for annotations: the classification imports this module.
    from ncu_roofline.analysis.classify import Thresholds

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

#: A unit this busy limits the launch; below it ncu itself speaks of
#: latency ("below 60% of peak typically indicate latency issues").
BUSY = 0.60
#: A composite (ncu's SM or memory throughput) this much busier than every
#: named unit names the limiter itself: the busy unit was not collected.
COMPOSITE_MARGIN = 0.15
#: Why a launch the roofline placed is latency-class, by limiter.
_LATENCY_REASONS = {
    "under-filled": "the grid leaves SMs idle (fewer blocks than SMs) and no unit is {busy} busy",
    "latency": "every unit under {low} busy, or shorter than {short}: latency, not a roof, "
    "limits it",
}

#: Limiters that leave nothing for a roof to recover.
LATENCY_CLASS = ("latency", "under-filled")
#: What bounds a latency-class launch's recoverable time (nothing: it is latency).
_LATENCY_BASIS = {
    "latency": "none: latency, not a roof, limits it (its time is latency_s)",
    "under-filled": "none: the grid leaves SMs idle (its time is latency_s)",
}


def _needs() -> str:
    """The ncu section and metrics that give every unit's utilisation."""
    sol = next(r for r in REQUIREMENTS if r.key == "sol_pct")
    return f"--section {sol.ncu_section} ({', '.join(sol.collect)})"


#: What to collect where the export cannot name a limiter, or only units far from busy.
LIMITER_NEEDS = _needs()


#: The pipe a launch's FLOPs run on, by dominant precision.
PRECISION_PIPE = {"fp32": "fma-pipe", "fp16": "fma-pipe", "fp64": "fp64-pipe"}


def active_share(df: Columns) -> FloatArray:
    """The SM's active share of the elapsed cycles (NaN where unknown), in [0, 1]."""
    active = _f(df, "sm__cycles_active.avg")
    elapsed = _f(df, "sm__cycles_elapsed.avg")
    for alt in (_f(df, "gpc__cycles_elapsed.max"), _f(df, "sm__cycles_elapsed.max")):
        elapsed = np.where(np.isnan(elapsed), alt, elapsed)
    by_clock = _f(df, "duration_s") * _f(df, "sm__cycles_elapsed.avg.per_second")
    elapsed = np.where(np.isnan(elapsed), by_clock, elapsed)
    return np.clip(ratio(active, elapsed), 0.0, 1.0)


def _measured(df: Columns, unit: Unit, share: FloatArray) -> tuple[FloatArray, ObjArray]:
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


def mix_share(df: Columns, precision: ObjArray) -> FloatArray:
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
    df: Columns, letter: str
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


def _approximate_tensor(placed: Columns) -> npt.NDArray[np.bool_]:
    """Launches whose tensor FLOPs are an estimate (the MMA shape read off the kernel name)."""
    if "flops_tensor_basis" not in placed:
        return np.zeros(len(placed), dtype=bool)
    return text_mask(placed["flops_tensor_basis"], lambda t: "approximate" in t)


@dataclass
class Utilisations:
    """Per unit, per launch: the fraction of its peak over elapsed time, and its metric."""

    values: dict[str, FloatArray]
    basis: dict[str, ObjArray]
    has_sol: npt.NDArray[np.bool_]


def utilisations(df: Columns, placed: Columns) -> Utilisations:
    """Every unit's utilisation per launch: ncu's metrics first, the roofline's where they lack.

    ``df`` is the export's launches (raw metric columns); ``placed`` the
    analysed launches aligned with it (roofline utilisations, precision,
    mix share); each a table or a frame.
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
        missing = np.isnan(values[level])
        roof = _f(placed, f"{level}_utilization")
        if level == "dram" and "dram_utilization_basis" in placed:
            from_bytes = text_mask(
                placed["dram_utilization_basis"], lambda t: t == "bytes/s over the DRAM roof"
            )
            roof = np.where(from_bytes, roof, np.nan)
        take = missing & ~np.isnan(roof)
        values[level][take] = roof[take]
        basis[level][take] = f"{level}_bytes_per_s over the {level.upper()} roof"
    # Each launch's precision as a code (texts compared once per distinct one).
    precision = placed["precision"] if "precision" in placed else np.full(n, None, dtype=object)
    is_precision = _label_masks(precision)
    compute = _f(placed, "compute_utilization")
    mix = _f(placed, "mix_share")
    from_mix = ratio(compute, np.where(np.isnan(mix), 1.0, mix))
    for key, pipe in PRECISION_PIPE.items():
        rows = is_precision(key) & np.isnan(values[pipe]) & ~np.isnan(from_mix)
        values[pipe][rows] = from_mix[rows]
        basis[pipe][rows] = f"{key} FLOP/s over the roof its instruction mix reaches"
    tensor = text_mask(precision, lambda t: t.startswith("tensor"))
    rows = tensor & np.isnan(values["tensor-pipe"]) & ~np.isnan(compute)
    values["tensor-pipe"][rows] = compute[rows]
    basis["tensor-pipe"][rows] = "tensor FLOP/s over the tensor roof"
    # Tensor FLOPs the roofline could not place (an estimate from the
    # kernel name's MMA shape, no SASS FLOP counters) still measure how busy
    # the tensor pipe was: their rate over the tensor roof.
    rate = ratio(_f(placed, "flops_tensor"), _f(placed, "duration_s"))
    from_rate = ratio(rate, _f(placed, "peak_flops_per_s"))
    with np.errstate(invalid="ignore"):
        rows = tensor & np.isnan(values["tensor-pipe"]) & (from_rate > 0)
    values["tensor-pipe"][rows] = from_rate[rows]
    approx = _approximate_tensor(placed)
    basis["tensor-pipe"][rows & ~approx] = "tensor FLOP/s over the tensor roof"
    basis["tensor-pipe"][rows & approx] = (
        "tensor FLOP/s over the tensor roof (FLOPs from the kernel name's MMA shape)"
    )
    has_sol = np.zeros(n, dtype=bool)
    for name in SOL_METRICS:
        col = optional_column(df, name)
        if col is not None:
            has_sol |= ~np.isnan(col)
    return Utilisations(values, basis, has_sol)


def judge(
    df: Columns,
    placed: Columns,
    sms: FloatArray,
    thresholds: Thresholds,
) -> dict[str, npt.NDArray[np.generic]]:
    """The limiter, its utilisation and the honest recoverable time of every launch.

    ``placed`` is the analysed launches (a table or a frame) after roofline
    placement (``bound``, ``efficiency``, ``mix_share``, ``attainable_flops_per_s`` ...);
    the result holds new columns and the revised ``bound``,
    ``bound_reason``, ``efficiency`` and ``recoverable_s``.
    """
    n = len(df)
    util = utilisations(df, placed)
    busiest = _busiest(util, n)
    # Every unit's utilisations and bases (40 arrays a launch long) are read:
    # let go before the rest of the judgement adds its own.
    has_sol = util.has_sol
    del util
    limiter, lim_util, lim_basis = busiest.limiter, busiest.utilization, busiest.basis
    max_util = busiest.max_util
    any_known = ~np.isnan(max_util)

    blocks, waves, occupancy = fill(df)
    thin = under_filled(blocks, waves, sms, blocks_per_sm(df))
    # Copies: they are revised in place, and a table's columns are read-only.
    bound = object_column(placed, "bound").copy()
    reason = object_column(placed, "bound_reason").copy()
    eff = _f(placed, "efficiency").copy()
    duration = _f(placed, "duration_s")
    total = _f(placed, "total_duration_s")
    low = thresholds.low_sol_pct / 100.0
    with np.errstate(invalid="ignore"):
        idle = any_known & (max_util < low) & has_sol
        # Every unit counted is far from busy and nothing covers the rest:
        # the work that takes the time was not measured.
        unseen = any_known & (max_util < thresholds.far_below) & ~has_sol
        busy = max_util >= BUSY
    short = (duration < thresholds.short_launch_s) & ~busy
    starved = thin & ~busy & ~short & present(bound) & (bound != "not placeable")
    latency = short | (((bound == "latency") | idle) & ~starved)
    limiter[starved] = "under-filled"
    limiter[latency] = "latency"
    # The limiter changes no more: its labels compared as integer codes.
    is_limiter = _label_masks(limiter)
    lim_basis[is_limiter("latency", "under-filled", "unknown")] = None

    comm = bound == "communication"
    _bandwidth_verdicts(placed, is_limiter, limiter, lim_util, bound, reason, eff)
    recoverable, rec_basis = honest_recoverable(placed, eff, busiest)
    rec_basis[unseen] = _unseen_basis(busiest.top[unseen], max_util[unseen], thresholds.far_below)
    recoverable[unseen] = np.nan
    latency_class = is_limiter(*LATENCY_CLASS) & ~comm
    # Launches set to latency below stay among these bounds: the mask holds.
    judged = _label_masks(bound)("memory", "compute", "latency")
    bound_latency = bound == "latency"
    for key, why in _LATENCY_REASONS.items():
        rows = is_limiter(key) & judged
        if key == "latency":
            rows &= ~bound_latency
        bound[rows] = "latency"
        bound_latency |= rows
        reason[rows] = why.format(
            busy=f"{100 * BUSY:.0f}%",
            low=f"{thresholds.low_sol_pct:g}%",
            short=f"{thresholds.short_launch_s * 1e6:g} us",
        )
    recoverable[latency_class] = np.where(np.isnan(total[latency_class]), np.nan, 0.0)
    rec_basis[latency_class] = _LATENCY_BASIS["latency"]
    rec_basis[latency_class & is_limiter("under-filled")] = _LATENCY_BASIS["under-filled"]
    rows = latency_class & any_known
    rec_basis[rows] = concat_texts(
        rec_basis[rows], "; busiest unit: ", _unit_text(busiest.top[rows], max_util[rows])
    )
    recoverable[comm] = np.nan
    rec_basis[comm] = "unknown: a communication kernel waits on other GPUs, not on a roof"
    rec_basis[np.isnan(total)] = None
    latency_s = np.where(latency_class, total, 0.0)
    latency_s[np.isnan(total)] = np.nan
    needs = np.full(n, None, dtype=object)
    needs[is_limiter("unknown") | (unseen & ~latency_class)] = LIMITER_NEEDS
    return {
        "limiter": limiter,
        "limiter_utilization": lim_util,
        "limiter_basis": lim_basis,
        "limiter_needs": needs,
        "max_utilization": max_util,
        "under_filled": thin,
        "waves": waves,
        "tail_loss": tail_loss(waves),
        "achieved_occupancy": occupancy,
        "sm_count": sms,
        "bound": bound,
        "bound_reason": reason,
        "efficiency": eff,
        "recoverable_s": recoverable,
        "recoverable_basis": rec_basis,
        "latency_s": latency_s,
    }


def _label_masks(labels: ObjArray | pd.Series) -> Callable[..., npt.NDArray[np.bool_]]:
    """A test of which rows hold any of some labels, over codes found once.

    Comparing an object column with a text compares every row's object in
    Python; the column is coded once here and each test compares integers.
    Missing values (None) hold no label.
    """
    codes, distinct = distinct_codes(labels)
    code_of = {label: i for i, label in enumerate(distinct)}

    def holds(*wanted: str) -> npt.NDArray[np.bool_]:
        # A text absent from the column is no code (-2), never a row's.
        found = [code_of.get(w, -2) for w in wanted]
        out: npt.NDArray[np.bool_] = np.isin(codes, found)
        return out

    return holds


@dataclass
class Busiest:
    """Per launch: the limiter, its utilisation and metric, the highest utilisation and its unit."""

    limiter: ObjArray
    utilization: FloatArray
    basis: ObjArray
    max_util: FloatArray
    top: ObjArray


def _busiest(util: Utilisations, n: int) -> Busiest:
    """The busiest unit of every launch with any utilisation; ``unknown`` where it has none.

    A named unit wins over ncu's composites unless a composite is more
    than :data:`COMPOSITE_MARGIN` busier (the busy unit was not collected).
    """
    # A running maximum over the units, one launch-long array at a time: a
    # units x launches matrix (and its copies) would cost hundreds of MB at
    # 200,000 launches.  Ties go to the first unit, as an argmax's do.
    any_known = np.zeros(n, dtype=bool)
    best_all = np.zeros(n, dtype=np.intp)
    best_all_util = np.full(n, -1.0)
    best_named = np.zeros(n, dtype=np.intp)
    best_named_util = np.full(n, -1.0)
    named_keys_list: list[str] = []
    for i, unit in enumerate(UNITS):
        values = util.values[unit.key]
        known = ~np.isnan(values)
        any_known |= known
        filled = np.where(known, values, -1.0)
        _keep_larger(best_all, best_all_util, filled, i, first=i == 0)
        if not unit.composite:
            first = not named_keys_list
            _keep_larger(best_named, best_named_util, filled, len(named_keys_list), first)
            named_keys_list.append(unit.key)
    max_util = np.where(any_known, best_all_util, np.nan)
    keys = np.array([u.key for u in UNITS], dtype=object)
    # The units by index into UNITS: the named ones' indices, to map the
    # named winner (an index among them) to its unit.
    named_index = np.array([i for i, u in enumerate(UNITS) if not u.composite], dtype=np.intp)
    if not named_keys_list:
        named_index = np.arange(len(UNITS), dtype=np.intp)
    use_named = (best_named_util >= 0) & (best_named_util >= max_util - COMPOSITE_MARGIN)
    # Each launch's limiting unit as an index into UNITS, compared as integers.
    lim_index = np.where(use_named, named_index[best_named], best_all)
    limiter = keys[lim_index].astype(object)
    lim_util = np.where(use_named, best_named_util, max_util)
    lim_basis = np.full(n, None, dtype=object)
    for i, unit in enumerate(UNITS):
        rows = lim_index == i
        lim_basis[rows] = util.basis[unit.key][rows]
    # A unit at 0% limits nothing: every measured unit idle names none.
    with np.errstate(invalid="ignore"):
        named_any = any_known & (max_util > 0)
    limiter[~named_any] = "unknown"
    lim_util = np.where(named_any, lim_util, np.nan)
    top = keys[best_all].astype(object) if len(keys) else np.full(n, None, dtype=object)
    return Busiest(limiter, lim_util, lim_basis, max_util, top)


def _keep_larger(
    best: npt.NDArray[np.intp], best_util: FloatArray, filled: FloatArray, index: int, first: bool
) -> None:
    """``best``/``best_util`` updated in place where ``filled`` is larger (or set, for the first)."""
    take = np.ones(len(filled), dtype=bool) if first else filled > best_util
    best[take] = index
    best_util[take] = filled[take]


def _pct_codes(values: FloatArray) -> tuple[list[str], np.ndarray]:
    """Fractions as ``"81%"`` (one decimal under 10%): the distinct texts, and each value's."""
    pct = 100.0 * np.asarray(values, dtype=np.float64)
    # Formatted once per distinct value (NaN once: "nan%"), not once per launch.
    distinct, which = np.unique(pct, return_inverse=True)
    texts = [("%.1f%%" if v < 10.0 else "%.0f%%") % v for v in distinct.tolist()]
    return texts, which.reshape(-1)


def _pct_text(values: FloatArray) -> ObjArray:
    """Fractions as ``"81%"`` (one decimal under 10%), object strings."""
    texts, which = _pct_codes(values)
    out: ObjArray = np.array(texts, dtype=object)[which] if texts else np.full(0, "", object)
    return out


def _unit_text(limiter: ObjArray, util: FloatArray) -> ObjArray:
    """``"DRAM at 81%"`` per launch."""
    n = len(limiter)
    if n == 0:
        return np.full(0, "", dtype=object)
    codes, keys = distinct_codes(limiter)
    labels = [str(UNIT_LABELS.get(k, "?")) for k in keys] + ["?"]
    pct, which = _pct_codes(util)
    # One text per distinct (unit, percentage) pair.
    pair = np.asarray(codes, dtype=np.int64) % len(labels) * len(pct) + which
    distinct, at = np.unique(pair, return_inverse=True)
    texts = [f"{labels[p // len(pct)]} at {pct[p % len(pct)]}" for p in distinct.tolist()]
    out: ObjArray = np.array(texts, dtype=object)[at.reshape(-1)]
    return out


def _unseen_basis(limiter: ObjArray, max_util: FloatArray, far_below: float) -> ObjArray:
    """Why a launch whose counted units are all far from busy has no recoverable bound."""
    return concat_texts(
        f"unknown: no unit the export counts is {100 * far_below:g}% busy (busiest ",
        _unit_text(limiter, max_util),
        ") and it has no speed-of-light metrics for the rest",
    )


def honest_recoverable(
    placed: Columns, eff: FloatArray, busiest: Busiest
) -> tuple[FloatArray, ObjArray]:
    """Recoverable time bounded by evidence, and the bound used, per launch.

    ``min(t x (1 - achieved / attainable at the mix roof), t x (1 - busiest
    unit's utilisation))``: no unit does its work faster than at 100%, and
    the instruction mix caps the FLOP roof.  The roof gap alone bounds
    nothing, so a launch with no utilisation at all gets NaN ("unknown").
    """
    max_util = busiest.max_util
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
    by_mix = ~np.isnan(by_roof) & (np.isnan(by_sol) | (by_roof < by_sol))
    out = np.where(by_mix, by_roof, by_sol)
    # The roof gap is a bound only where a unit's utilisation stands behind it.
    out[np.isnan(max_util)] = np.nan
    basis = np.full(len(placed), "unknown: the export has no utilisation of any unit", dtype=object)
    # The busiest unit, whichever it is (a composite included).
    top = busiest.top
    rows = ~np.isnan(by_sol) & ~by_mix
    basis[rows] = concat_texts("busiest unit: ", _unit_text(top[rows], max_util[rows]))
    rows = by_mix & ~np.isnan(max_util)
    # The mix roof is the mix's only where the mix is known: without it
    # fmin leaves the DRAM roof, a plain roof gap.
    with_mix = rows & ~np.isnan(mix) & ~np.isnan(eff_mix) & (eff_mix >= eff)
    basis[rows] = concat_texts("roof gap: ", _pct_text(roof_eff[rows]), " of the attainable roof")
    basis[with_mix] = concat_texts(
        "instruction mix: ",
        _pct_text(eff_mix[with_mix]),
        " of the roof its mix reaches (",
        _pct_text(mix[with_mix]),
        " of the FLOP roof)",
    )
    return out, basis


def _bandwidth_verdicts(
    placed: Columns,
    is_limiter: Callable[..., npt.NDArray[np.bool_]],
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
    memory = is_limiter("dram", "l2", "l1")
    with np.errstate(invalid="ignore"):
        busy = lim_util >= BUSY
    rows = no_flops & memory & busy
    if not rows.any():
        return
    bound[rows] = "memory"
    # A limiter without a label reads "nan", as a label missing from a lookup did.
    labels = per_distinct(limiter[rows], lambda k: UNIT_LABELS.get(k, "nan"), "nan")
    pct = np.char.mod("%.1f%%", 100.0 * lim_util[rows])
    reason[rows] = (
        labels.astype(str)
        + np.char.add(" at ", pct).astype(object)
        + " of peak (no FLOP counters: judged by bandwidth alone)"
    )
    eff[rows] = lim_util[rows]
