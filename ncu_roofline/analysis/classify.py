"""Place launches and kernel groups on the roofline and say what bounds them.

Bound classes:

``memory`` / ``compute``
    Intensity at DRAM below / at or above the ridge point of the precision
    the kernel mostly uses.
``latency``
    Placeable, but far under every roof with low speed-of-light
    percentages, or so short that launch overhead dominates.
``communication``
    Collective kernels (NCCL and custom all-reduce): their time goes to the
    interconnect, so they are not judged against the DRAM roof.
``not placeable``
    A FLOP count, byte count, duration or roof is missing; ``bound_reason``
    says which.  Bandwidth-only figures (DRAM throughput against its roof)
    are still reported where the bytes are known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.ncu_rules import disagrees, group_rules
from ncu_roofline.analysis.placement import placement
from ncu_roofline.analysis.rate_point import (
    counts_or_rates,
    duration_weights,
    group_rates_without_duration,
    point_from_rates,
)
from ncu_roofline.analysis.roofs.arithmetic import attainable, ratio, recoverable, ridge_point, side
from ncu_roofline.analysis.roofs.assign import peak_column
from ncu_roofline.core.columns import COLUMNS, FIRST_LAUNCH_COLUMNS, GROUP_KEYS, SUMMED_COLUMNS
from ncu_roofline.core.frame import Columns, floats, missing_values, objects, objects_at
from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.grouping import distinct_codes, per_distinct, row_groups, text_mask
from ncu_roofline.core.reduce import (
    descending_order,
    group_fsum,
    group_max,
    group_min,
    unique_keys,
)
from ncu_roofline.core.table import Table, absent, distinct, present

if TYPE_CHECKING:
    import pandas as pd

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

BOUND_CLASSES: tuple[str, ...] = ("memory", "compute", "latency", "communication", "not placeable")

#: Kernel names of collective-communication kernels.
COMMUNICATION_PATTERN = re.compile(
    r"nccl|msccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|cross_device_reduce|sendrecv",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Thresholds:
    """Tunable limits of the classification (fractions, seconds, percent)."""

    #: Below this duration launch overhead dominates ...
    short_launch_s: float = 5e-6
    #: ... when the launch also reaches less than this fraction of its roof.
    short_launch_efficiency: float = 0.5
    #: "Far under a roof": achieved below this fraction of it.
    far_below: float = 0.10
    #: Speed-of-light percentages below this count as low.
    low_sol_pct: float = 20.0
    #: Tolerance before a point counts as above its roof (clock jitter).
    above_roof_tolerance: float = 0.02


def dominant_precision(frame: Columns) -> ObjArray:
    """The compute-ceiling key of the precision with the most FLOPs."""
    keys: list[str] = []
    arrays: list[FloatArray] = []
    for p in ("fp64", "fp32", "fp16"):
        if f"flops_{p}" in frame:
            keys.append(p)
            arrays.append(floats(frame[f"flops_{p}"]))
    dtype_cols = [
        c
        for c in frame.columns
        if str(c).startswith("flops_tensor_") and not str(c).endswith("_basis")
    ]
    for c in dtype_cols:
        keys.append("tensor_" + str(c)[len("flops_tensor_") :])
        arrays.append(floats(frame[c]))
    if "flops_tensor" in frame:
        # Instruction-count estimates carry no datatype; FP16 is the one
        # every tensor-core generation supports, so its roof is used.  Only
        # launches without per-datatype counts take this path.
        estimate = floats(frame["flops_tensor"]).copy()
        for c in dtype_cols:
            estimate[~np.isnan(floats(frame[c]))] = np.nan
        keys.append("tensor_fp16")
        arrays.append(estimate)
    n = len(frame)
    out = np.full(n, None, dtype=object)
    if not keys:
        return out
    arrays = counts_or_rates(frame, keys, arrays)
    stack = np.nan_to_num(np.vstack(arrays), nan=-1.0)
    best = stack.argmax(axis=0)
    has_work = stack.max(axis=0) > 0
    names = np.array(keys, dtype=object)
    out[has_work] = names[best[has_work]]
    return out


def _gather_peak(frame: Columns, precision: ObjArray) -> FloatArray:
    n = len(frame)
    out = np.full(n, np.nan)
    for key in distinct(precision):
        col = peak_column(str(key))
        if col in frame:
            rows = precision == key
            out[rows] = floats(frame[col])[rows]
    return out


def place(frame: Columns, thresholds: Thresholds) -> dict[str, npt.NDArray[np.generic]]:
    """Roofline placement of every row: intensities, roofs, efficiency, bound.

    ``frame`` holds measured columns (``flops*``, ``*_bytes``,
    ``*_bytes_per_s``, ``achieved_flops_per_s``, ``duration_s``,
    ``total_duration_s``) and ceiling columns (``peak_*``).
    """
    flops = _f(frame, "flops")
    achieved = _f(frame, "achieved_flops_per_s")
    precision = dominant_precision(frame)
    zero_work = flops == 0
    precision[zero_work] = None
    peak = _gather_peak(frame, precision)
    out: dict[str, npt.NDArray[np.generic]] = {"precision": precision, "peak_flops_per_s": peak}
    _place_levels(frame, flops, achieved, peak, out)
    from_sol = _dram_utilization(frame, out)
    dram_util = np.asarray(out["dram_utilization"], dtype=np.float64)
    bw = _f(frame, "peak_dram_bytes_per_s")
    att = np.asarray(out["attainable_dram_flops_per_s"], dtype=np.float64)
    out["attainable_flops_per_s"] = att
    out["ridge_dram"] = ridge_point(peak, bw)
    out["compute_utilization"] = ratio(achieved, peak)
    out["binding_level"] = _binding_level(out)
    eff = ratio(achieved, att)
    # Pure data movement (copies, memsets): the bandwidth fraction is the
    # limit of achieved/attainable as the FLOPs go to zero.
    eff = np.where(zero_work & ~from_sol, dram_util, eff)
    roof_side = side(np.asarray(out["ai_dram"], dtype=np.float64), peak, bw)
    roof_side[zero_work & ~np.isnan(dram_util) & ~from_sol] = "memory"
    out["side"] = roof_side

    bound = np.array(roof_side, dtype=object)
    reason = np.full(len(frame), None, dtype=object)
    reason[roof_side == "memory"] = "intensity below the ridge point"
    reason[roof_side == "compute"] = "intensity at or above the ridge point"
    _mark_latency(frame, out, eff, bound, reason, thresholds)
    unplaced = _unplaced_reason(frame, flops, peak, bw, precision)
    nop = present(unplaced)
    bound[nop] = "not placeable"
    reason[nop] = unplaced[nop]
    comm = _communication_mask(frame)
    bound[comm] = "communication"
    reason[comm] = (
        "collective communication kernel: bound by the interconnect, not judged against the DRAM roof"
    )
    eff[comm | nop] = np.nan

    out["efficiency"] = eff
    out["bound"] = bound
    out["bound_reason"] = reason
    out["recoverable_s"] = recoverable(_f(frame, "total_duration_s"), eff)
    out["above_roof"] = _above_roof(frame, out, from_sol, comm, thresholds)
    return out


def _place_levels(
    frame: Columns,
    flops: FloatArray,
    achieved: FloatArray,
    peak: FloatArray,
    out: dict[str, npt.NDArray[np.generic]],
) -> None:
    """Intensity, attainable rate and bandwidth utilisation at DRAM, L2 and L1, into ``out``."""
    for level in ("dram", "l2", "l1"):
        nbytes = _f(frame, f"{level}_bytes")
        rate = _f(frame, f"{level}_bytes_per_s")
        # Rate over rate is ncu's own definition, and keeps FLOPs and bytes
        # on one time base when either came from a measured rate.
        ai = ratio(achieved, rate)
        ai = np.where(np.isnan(ai), ratio(flops, nbytes), ai)
        # Work with no traffic at this level (data already on chip): the
        # point sits infinitely far right, under the compute roof.
        ai[(flops > 0) & (nbytes == 0)] = np.inf
        out[f"ai_{level}"] = ai
        out[f"attainable_{level}_flops_per_s"] = attainable(
            ai, peak, _f(frame, f"peak_{level}_bytes_per_s")
        )
        out[f"{level}_utilization"] = ratio(rate, _f(frame, f"peak_{level}_bytes_per_s"))


def _dram_utilization(
    frame: Columns, out: dict[str, npt.NDArray[np.generic]]
) -> npt.NDArray[np.bool_]:
    """DRAM utilisation with its basis, into ``out``; the rows taken from ncu's percentage.

    Without byte counts, ncu's DRAM speed-of-light percentage still tells
    how busy DRAM was (reported, never used to place the point).
    """
    dram_util = np.asarray(out["dram_utilization"], dtype=np.float64)
    sol_dram = _f(frame, "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed") / 100.0
    from_sol: npt.NDArray[np.bool_] = np.isnan(dram_util) & ~np.isnan(sol_dram)
    dram_util = np.where(from_sol, sol_dram, dram_util)
    out["dram_utilization"] = dram_util
    basis = np.full(len(frame), None, dtype=object)
    basis[~np.isnan(dram_util)] = "bytes/s over the DRAM roof"
    basis[from_sol] = "ncu DRAM speed-of-light %"
    out["dram_utilization_basis"] = basis
    return from_sol


def _binding_level(out: dict[str, npt.NDArray[np.generic]]) -> ObjArray:
    """The memory level with the lowest attainable rate, per row (None where none is known)."""
    levels = np.vstack(
        [
            np.asarray(out[f"attainable_{lv}_flops_per_s"], dtype=np.float64)
            for lv in ("dram", "l2", "l1")
        ]
    )
    binding = np.full(levels.shape[1], None, dtype=object)
    known = ~np.isnan(levels).all(axis=0)
    lowest = np.argmin(np.where(np.isnan(levels), np.inf, levels), axis=0)
    binding[known] = np.array(["dram", "l2", "l1"], dtype=object)[lowest[known]]
    return binding


def _mark_latency(
    frame: Columns,
    out: dict[str, npt.NDArray[np.generic]],
    eff: FloatArray,
    bound: ObjArray,
    reason: ObjArray,
    thresholds: Thresholds,
) -> None:
    """Latency-bound rows, in place: far under every roof with low speed-of-light
    throughput, or so short that launch overhead dominates."""
    n = len(frame)
    compute_util = np.asarray(out["compute_utilization"], dtype=np.float64)
    dram_util = np.asarray(out["dram_utilization"], dtype=np.float64)
    far = np.ones(n, dtype=bool)
    for util in (compute_util, dram_util, out["l2_utilization"], out["l1_utilization"]):
        u = np.asarray(util, dtype=np.float64)
        far &= np.isnan(u) | (u < thresholds.far_below)
    far &= ~(np.isnan(compute_util) & np.isnan(dram_util))
    sol = np.fmax(
        _f(frame, "sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        _f(frame, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"),
    )
    duration = _f(frame, "duration_s")
    short = (duration < thresholds.short_launch_s) & (eff < thresholds.short_launch_efficiency)
    placed = present(bound)
    lat_far = placed & far & (sol < thresholds.low_sol_pct)
    unconfirmed = placed & far & np.isnan(sol) & ~short
    lat_short = placed & short & ~lat_far
    bound[lat_far] = "latency"
    reason[lat_far] = "far under every roof with low speed-of-light throughput"
    bound[lat_short] = "latency"
    reason[lat_short] = (
        f"shorter than {thresholds.short_launch_s * 1e6:g} us: launch overhead dominates"
    )
    reason[unconfirmed] = np.array(
        [
            f"{r}; far under every roof, but the export has no speed-of-light metrics to confirm latency"
            for r in reason[unconfirmed]
        ],
        dtype=object,
    )


def _unplaced_reason(
    frame: Columns,
    flops: FloatArray,
    peak: FloatArray,
    bw: FloatArray,
    precision: ObjArray,
) -> ObjArray:
    """Why each row cannot be placed (None where it can), most basic cause winning."""
    zero_work = flops == 0
    duration = _f(frame, "duration_s")
    # Rates alone place a point (ncu's roofline-chart section has no duration).
    rates = point_from_rates(frame)
    unplaced = np.full(len(frame), None, dtype=object)
    # Later assignments win, so the most basic cause comes last.
    checks: list[tuple[npt.NDArray[np.bool_], str]] = [
        (np.isnan(bw), "no DRAM roof for this GPU"),
        (
            ~zero_work & np.isnan(peak) & present(precision),
            "no compute roof for this precision on this GPU",
        ),
        (
            np.isnan(bw) & np.isnan(peak) & present(precision),
            "no roofs for this GPU (not in the built-in table, no peak metrics in the export): "
            "use --gpu or --roofs",
        ),
        (np.isnan(_f(frame, "dram_bytes")) & ~rates, "no DRAM byte counts in the export"),
        (zero_work & (_f(frame, "dram_bytes") == 0), "no floating-point work and no DRAM traffic"),
        (np.isnan(flops) & ~rates, "no FLOP counters in the export"),
        (np.isnan(duration) & ~rates, "no duration in the export"),
        (
            _f(frame, "tensor_uncounted") == 1,
            "tensor-core work not counted (no tensor counters in the export): its FP32/FP16 "
            "FLOPs alone would misplace it",
        ),
    ]
    for mask, text in checks:
        unplaced[mask] = text
    if "flops_tensor_basis" in frame:
        tbasis = frame["flops_tensor_basis"]
        no_factor = text_mask(tbasis, lambda t: t.startswith("tensor instructions without"))
        unplaced[no_factor & np.isnan(flops)] = (
            "tensor-core work present but not countable: no FLOPs-per-instruction factor for this "
            "architecture (collect sm__ops_path_tensor_*)"
        )
        approx_only = text_mask(tbasis, lambda t: "approximate" in t) & np.isnan(flops)
        unplaced[approx_only & ~no_factor] = (
            "no SASS FLOP counters; only an approximate tensor-core estimate "
            "(collect sm__sass_thread_inst_executed_op_* or the full set)"
        )
    return unplaced


def _above_roof(
    frame: Columns,
    out: dict[str, npt.NDArray[np.generic]],
    from_sol: npt.NDArray[np.bool_],
    comm: npt.NDArray[np.bool_],
    thresholds: Thresholds,
) -> ObjArray:
    """The roofs each row is above (``"compute, DRAM bandwidth"``), None where none."""
    tol = 1.0 + thresholds.above_roof_tolerance
    dram_util = np.asarray(out["dram_utilization"], dtype=np.float64)
    labels: list[tuple[npt.NDArray[np.bool_], str]] = []
    with np.errstate(invalid="ignore"):
        labels.append((np.asarray(out["compute_utilization"], dtype=np.float64) > tol, "compute"))
        labels.append((np.where(from_sol, np.nan, dram_util) > tol, "DRAM bandwidth"))
        labels.append((np.asarray(out["l2_utilization"], dtype=np.float64) > tol, "L2 bandwidth"))
        labels.append((np.asarray(out["l1_utilization"], dtype=np.float64) > tol, "L1 bandwidth"))
        if "flops_tensor_basis" in frame and "peak_tensor_fp16_flops_per_s" in frame:
            approx = text_mask(frame["flops_tensor_basis"], lambda t: "approximate" in t)
            tensor_rate = ratio(_f(frame, "flops_tensor"), _f(frame, "duration_s"))
            over = approx & (ratio(tensor_rate, _f(frame, "peak_tensor_fp16_flops_per_s")) > tol)
            labels.append((over, "tensor (approximate FLOPs)"))
    above = np.full(len(frame), "", dtype=object)
    for mask, text in labels:
        above[mask] = np.where(above[mask] == "", text, above[mask] + ", " + text)
    above[(above == "") | comm] = None
    return above


def _communication_mask(frame: Columns) -> npt.NDArray[np.bool_]:
    # The function name only: template arguments such as WarpAllReduce<float>
    # inside a softmax kernel must not make it a collective.
    col = "kernel_short" if "kernel_short" in frame else "kernel"

    def collective(name: object) -> bool:
        return bool(COMMUNICATION_PATTERN.search(str(name)))

    hits: npt.NDArray[np.bool_] = per_distinct(frame[col], collective, collective(""), bool)
    return hits


class Groups:
    """Launches' group ids and the vectorised per-group reductions over them."""

    def __init__(self, launches: Columns) -> None:
        # Missing keys group with empty ones, as the page shows both blank.
        self.gid: npt.NDArray[np.intp] = row_groups([launches[k] for k in GROUP_KEYS], "")
        self.n = int(self.gid.max()) + 1 if len(self.gid) else 0
        # Groups are numbered in order of first appearance: the first launch of each.
        self.first = np.unique(self.gid, return_index=True)[1]

    def count(self, weights: FloatArray) -> FloatArray:
        """Per-group sum of ``weights`` with NaN as nothing."""
        out: FloatArray = np.bincount(self.gid, weights=weights, minlength=self.n).astype(
            np.float64
        )
        return out

    def sum(self, values: FloatArray, strict: bool = True) -> FloatArray:
        """Per-group sum; NaN when any (``strict``) or every launch lacks the value."""
        nan = np.isnan(values)
        total = self.count(np.where(nan, 0.0, values))
        if strict:
            total[self.count(nan.astype(np.float64)) > 0] = np.nan
        else:
            total[~(self.count((~nan).astype(np.float64)) > 0)] = np.nan
        return total

    def weighted_mean(self, values: FloatArray, weights: FloatArray) -> FloatArray:
        """Per-group mean of ``values`` weighted by ``weights``, over launches that have a value."""
        has = ~np.isnan(values)
        return ratio(
            self.count(np.where(has, values * weights, 0.0)),
            self.count(np.where(has, weights, 0.0)),
        )


def group_kernels(launches: Columns, thresholds: Thresholds) -> pd.DataFrame:
    """:func:`group_kernel_table` as a pandas frame (for the callers that still take one)."""
    return kernel_frame(group_kernel_table(launches, thresholds))


def kernel_frame(table: Table) -> pd.DataFrame:
    """Kernel groups (:func:`group_kernel_table`) as a pandas frame.

    Built from the table's arrays as a frame of a dict of arrays is built:
    texts become pandas' text columns, as they always did here.  A missing
    whole number (a device index) is pandas' NA, as the launch frame's
    nullable integers have always given it.
    """
    import pandas as pd

    columns: dict[str, npt.NDArray[np.generic]] = {}
    for name in table.columns:
        values = table[name]
        if name in _WHOLE_NUMBERS and values.dtype == object:
            values = values.copy()
            values[absent(values)] = pd.NA
        columns[name] = values
    frame: pd.DataFrame = pd.DataFrame(columns, copy=True)
    return frame


def group_kernel_table(launches: Columns, thresholds: Thresholds) -> Table:
    """One row per kernel and launch configuration, with time-weighted figures, ranked.

    Counts (FLOPs, bytes) are summed over launches, so the group's intensity
    and achieved rates equal time-weighted means of its launches'.
    Efficiency is time-weighted and the recoverable time is the sum over
    launches; the bound class is the one that holds for most of the time.
    A sum is NaN when any launch of the group lacks the value.

    Rows are ranked by recoverable time, then total time (most first,
    unknown last, ties in order of first appearance); ``rank`` is the first
    column.  Numbers are float64 (NaN where missing), counts int64, flags
    bool, texts and other values objects (None where missing).
    """
    groups = Groups(launches)
    inv = floats(launches["invocations"])
    inv = np.where(np.isnan(inv), 1.0, inv)
    t0 = np.nan_to_num(_f(launches, "total_duration_s"))
    # Means weigh launches by time; each launch once where none has a duration.
    tw = duration_weights(launches, groups.gid)
    out = _group_counts(launches, groups, inv)
    total = np.asarray(out["total_duration_s"], dtype=np.float64)
    # Ceilings: time-weighted means of the launches' ceilings.
    for col in [
        str(c)
        for c in launches.columns
        if str(c).startswith("peak_") and str(c) != "peak_flops_per_s"
    ]:
        out[col] = groups.weighted_mean(_f(launches, col), tw)
    # The group table's columns, in order; a column set again keeps its place.
    cols: dict[str, npt.NDArray[np.generic]] = dict(out)
    _join_theory_labels(launches, groups.gid, inv, groups.n, cols)
    if "theory_flops" in cols:
        _group_theory_comparison(cols, out, total)
    cols.update(place(Table(cols, groups.n), thresholds))

    eff = _f(launches, "efficiency")
    cols["efficiency"] = groups.weighted_mean(np.where(tw > 0, eff, np.nan), tw)
    cols["recoverable_s"] = groups.sum(_f(launches, "recoverable_s"), strict=False)
    cols["bound"], cols["bound_reason"] = _dominant_bound(launches, groups, tw)
    if "limiter" in launches:
        limiter, first = _dominant(launches, "limiter", groups, tw, "unknown")
        group_limiter(launches, groups, tw, limiter, first, cols)
    if "profiling_failed" in launches:
        failed = (~missing_values(launches["profiling_failed"])).astype(np.float64)
        cols["failed_launches"] = groups.count(failed * inv).astype(np.int64)
    cols["placement"] = placement(Table(cols, groups.n), "total_duration_s")
    if "roof_recoverable_s" in launches:
        _group_ncu_rules(launches, groups, tw, cols)
    above = ~missing_values(launches["above_roof"])
    cols["above_roof_launches"] = groups.count(above.astype(np.float64)).astype(np.int64)
    grand = float(np.nansum(t0))
    cols["time_share"] = ratio(total, np.full(groups.n, grand))
    cols["launches"] = cols["launches"].astype(np.int64)
    order = descending_order(
        [
            np.asarray(cols["recoverable_s"], dtype=np.float64),
            np.asarray(cols["total_duration_s"], dtype=np.float64),
        ]
    )
    ranked: dict[str, npt.NDArray[np.generic]] = {"rank": np.arange(1, groups.n + 1)}
    for name, values in cols.items():
        ranked[name] = values[order]
    return Table(ranked, groups.n)


def _group_ncu_rules(
    launches: Columns,
    groups: Groups,
    tw: FloatArray,
    cols: dict[str, npt.NDArray[np.generic]],
) -> None:
    """A group's ncu rules and estimates, and our own roof-and-units bound, into ``cols``.

    Sums over the launches that have a value (ncu estimates only some);
    the bound that won for most of the time names the group's.
    """
    cols["ncu_rules"] = group_rules(
        objects(launches["ncu_rules"]),
        objects(launches["ncu_rule_messages"]),
        groups.gid,
        groups.n,
    )
    launch_ncu = _f(launches, "ncu_recoverable_s")
    launch_ours = _f(launches, "roof_recoverable_s")
    ncu = groups.sum(launch_ncu, strict=False)
    cols["ncu_recoverable_s"] = ncu
    cols["roof_recoverable_s"] = groups.sum(launch_ours, strict=False)
    by, _ = _dominant(launches, "recoverable_bound_by", groups, tw, "")
    by[by == ""] = None
    cols["recoverable_bound_by"] = by
    cols["ncu_tail_pct"] = group_max(_f(launches, "ncu_tail_pct"), groups.gid, groups.n)
    # Like for like: ours over the launches ncu estimated, not over all of them.
    ours_where_ncu = groups.sum(np.where(np.isnan(launch_ncu), np.nan, launch_ours), strict=False)
    cols["ncu_disagrees"] = disagrees(ours_where_ncu, ncu)


#: First-launch columns the launch model holds as whole numbers (a frame as
#: pandas' nullable integers, a table as floats).
_WHOLE_NUMBERS = frozenset(c.name for c in COLUMNS if c.dtype == "int")


def _first_values(launches: Columns, name: str, first: npt.NDArray[np.intp]) -> ObjArray:
    """Column ``name`` at each group's first launch, as objects (None where missing).

    A whole-number column is read as integers whether the launches are a
    frame (8) or a table (8.0), so that a group shows the number alike.
    """
    values = objects_at(launches[name], first)
    if name in _WHOLE_NUMBERS:
        for i, value in enumerate(values.tolist()):  # one per group
            if isinstance(value, float) and value.is_integer():
                values[i] = int(value)
    return values


def _group_counts(
    launches: Columns, groups: Groups, inv: FloatArray
) -> dict[str, npt.NDArray[np.generic]]:
    """Group identity, launch counts, durations, summed work and traffic, and the rates."""
    out: dict[str, npt.NDArray[np.generic]] = {}
    for k in GROUP_KEYS:
        out[k] = _first_values(launches, k, groups.first)
    for k in FIRST_LAUNCH_COLUMNS:
        if k in launches:
            out[k] = _first_values(launches, k, groups.first)
    out["launches"] = groups.count(inv)
    # Launches whose profiling failed have no time to add: the group's time is
    # that of its profiled launches (missing when none of them has one).
    failed = (
        ~missing_values(launches["profiling_failed"])
        if "profiling_failed" in launches
        else np.zeros(len(launches), dtype=bool)
    )
    total = groups.sum(np.where(failed, 0.0, _f(launches, "total_duration_s")))
    profiled = groups.count(np.where(failed, 0.0, inv))
    total[profiled == 0] = np.nan
    out["total_duration_s"] = total
    out["duration_s"] = ratio(total, profiled)
    durations = _f(launches, "duration_s")
    out["min_duration_s"] = group_min(durations, groups.gid, groups.n)
    out["max_duration_s"] = group_max(durations, groups.gid, groups.n)
    per_type = [
        str(c)
        for c in launches.columns
        if str(c).startswith("flops_tensor_") and not str(c).endswith("_basis")
    ]
    for col in (*SUMMED_COLUMNS, *per_type):
        if col in launches:
            # Counts of the profiled launches, over the profiled launches' time.
            summed = groups.sum(np.where(failed, 0.0, _f(launches, col) * inv))
            summed[profiled == 0] = np.nan
            out[col] = summed
    out["achieved_flops_per_s"] = (
        ratio(out["flops"], total) if "flops" in out else np.full(groups.n, np.nan)
    )
    for level in ("dram", "l2", "l1"):
        out[f"{level}_bytes_per_s"] = ratio(out[f"{level}_bytes"], total)
    group_rates_without_duration(launches, groups.gid, groups.n, out)
    return out


def _group_theory_comparison(
    cols: dict[str, npt.NDArray[np.generic]],
    out: dict[str, npt.NDArray[np.generic]],
    total: FloatArray,
) -> None:
    """The groups' theoretical intensity and measured-over-theory ratios, into ``cols``."""
    cols["theory_ai"] = ratio(out["theory_flops"], out["theory_bytes"])
    cols["byte_excess"] = ratio(out["dram_bytes"], out["theory_bytes"])
    cols["flop_excess"] = ratio(out["flops"], out["theory_flops"])
    cols["excess_bytes"] = np.asarray(out["dram_bytes"], dtype=np.float64) - np.asarray(
        out["theory_bytes"], dtype=np.float64
    )
    if "theory_floor_s" in out:
        cols["theory_efficiency"] = ratio(out["theory_floor_s"], total)
    cols["theory_flops_per_s"] = ratio(out["theory_flops"], total)


def _dominant_bound(launches: Columns, groups: Groups, t0: FloatArray) -> tuple[ObjArray, ObjArray]:
    """Per group, the bound class that holds for the most time, and its first launch's reason."""
    bound, first = _dominant(launches, "bound", groups, t0, "not placeable")
    reason = objects_at(launches["bound_reason"], first)
    return bound, reason


def _dominant(
    launches: Columns, column: str, groups: Groups, t0: FloatArray, missing: str
) -> tuple[ObjArray, npt.NDArray[np.intp]]:
    """Per group, the value of ``column`` that holds for the most time, and its first launch.

    A missing value counts as ``missing``; the time of launches without one
    (NaN) as nothing.  Of values holding equal time, the one a launch of the
    group had first wins.  Each (group, value) pair's time is summed exactly
    (:func:`~ncu_roofline.core.reduce.group_fsum`): ties are decided by these
    sums, so values whose launches took equal times tie whatever the order
    of the launches.
    """
    codes, uniques = distinct_codes(launches[column])
    if (codes < 0).any():
        # Missing values join an equal value the column holds, else are one of their own.
        at = [k for k, u in enumerate(uniques) if isinstance(u, str) and u == missing]
        codes = np.where(codes < 0, at[0] if at else len(uniques), codes)
        if not at:
            uniques = [*uniques, missing]
    width = len(uniques) + 1
    pairs, firsts, pair = unique_keys(groups.gid.astype(np.int64) * width + codes, groups.n * width)
    count = len(pairs)
    time = group_fsum(t0, pair, count)
    pair_gid = pairs // width
    # Each group's pairs, most time first, ties in order of first appearance.
    order = np.lexsort((firsts, -time, pair_gid))
    lead = np.ones(count, dtype=bool)
    lead[1:] = pair_gid[order][1:] != pair_gid[order][:-1]
    chosen = order[lead]
    value = np.full(groups.n, None, dtype=object)
    first = np.zeros(groups.n, dtype=np.intp)
    table = np.empty(len(uniques), dtype=object)
    for k, u in enumerate(uniques):
        table[k] = u  # one at a time: numpy would spread a sequence
    value[pair_gid[chosen]] = table[pairs[chosen] % width]
    first[pair_gid[chosen]] = firsts[chosen]
    return value, first


_CONFIDENCE_RANK = {"low": 0, "medium": 1, "high": 2, "user": 3}


def _join_theory_labels(
    launches: Columns,
    gid: npt.NDArray[np.intp],
    inv: FloatArray,
    n_groups: int,
    cols: dict[str, npt.NDArray[np.generic]],
) -> None:
    """A group's theory label and source name every op its launches ran, into ``cols``.

    One kernel with one launch configuration can serve several ops (a GEMV
    running the o and down projections), so the first launch's label would
    misdescribe the group's summed theory.  Each op is named with its
    launches' count, in the order the group's launches first ran it.
    Confidence is the lowest.
    """
    if "theory_label" not in launches or n_groups == 0:
        return
    for col in ("theory_label", "theory_source"):
        codes, uniques = distinct_codes(launches[col])
        has = codes >= 0
        if not has.any():
            continue
        width = len(uniques)
        pairs, firsts, pair = unique_keys(
            gid[has].astype(np.int64) * width + codes[has], n_groups * width
        )
        # Invocation counts: whole numbers, summed exactly in any order.
        counts = np.bincount(pair, weights=inv[has], minlength=len(pairs))
        parts: dict[int, list[tuple[str, float]]] = {}
        # Pairs in order of first appearance, as a group-by without sorting gives them.
        for p in np.argsort(firsts, kind="stable").tolist():
            g, v = divmod(int(pairs[p]), width)
            parts.setdefault(g, []).append((str(uniques[v]), float(counts[p])))
        joined: npt.NDArray[np.object_] = np.full(n_groups, None, dtype=object)
        for g, items in parts.items():
            joined[g] = (
                items[0][0] if len(items) == 1 else "; ".join(f"{v} ×{w:g}" for v, w in items)
            )
        cols[col] = joined
    rank = per_distinct(
        launches["confidence"],
        lambda v: _CONFIDENCE_RANK.get(v, np.nan),
        np.nan,
        np.float64,
    )
    lowest_rank = group_min(rank, gid, n_groups)
    names = {v: k for k, v in _CONFIDENCE_RANK.items()}
    lowest: npt.NDArray[np.object_] = np.full(n_groups, None, dtype=object)
    for g, r in enumerate(lowest_rank.tolist()):
        if r == r:  # not NaN
            lowest[g] = names[int(r)]
    cols["confidence"] = lowest


def group_limiter(
    launches: Columns,
    groups: Groups,
    t0: FloatArray,
    limiter: ObjArray,
    first: npt.NDArray[np.intp],
    cols: dict[str, npt.NDArray[np.generic]],
) -> None:
    """A group's limiter figures, into ``cols``: ``limiter`` is the one holding for most of
    its time.

    Its utilisation is the time-weighted mean over the launches it limits;
    the other figures are time-weighted means over all launches, the
    latency time a sum.
    """
    cols["limiter"] = limiter
    same = np.asarray(objects(launches["limiter"]) == limiter[groups.gid], dtype=bool)
    cols["limiter_utilization"] = groups.weighted_mean(
        np.where(same, _f(launches, "limiter_utilization"), np.nan), t0
    )
    cols["limiter_basis"] = objects_at(launches["limiter_basis"], first)
    cols["limiter_needs"] = objects_at(launches["limiter_needs"], first)
    cols["recoverable_basis"] = _group_recoverable_basis(launches, groups.gid, groups.n)
    for col in ("max_utilization", "mix_share", "waves", "tail_loss", "achieved_occupancy"):
        cols[col] = groups.weighted_mean(_f(launches, col), t0)
    cols["sm_count"] = groups.weighted_mean(_f(launches, "sm_count"), np.ones(len(t0)))
    # A flag column: missing counts as not under-filled.
    thin = np.nan_to_num(floats(launches["under_filled"])) != 0
    cols["under_filled"] = ratio(groups.count(np.where(thin, t0, 0.0)), groups.count(t0)) > 0.5
    cols["latency_s"] = groups.sum(_f(launches, "latency_s"), strict=False)


def _group_recoverable_basis(launches: Columns, gid: npt.NDArray[np.intp], n: int) -> ObjArray:
    """Per group, the bound of its launch with the most recoverable time, and its unknowns.

    A group whose launches are partly unknown sums the known ones only,
    and says how many it left out.
    """
    rec = _f(launches, "recoverable_s")
    # Most recoverable first within each group; unknown (NaN) launches last.
    order = np.lexsort((np.where(np.isnan(rec), np.inf, -rec), gid))
    lead = np.full(n, -1, dtype=np.intp)
    lead[gid[order][::-1]] = order[::-1]
    out = np.full(n, None, dtype=object)
    has = lead >= 0
    out[has] = objects_at(launches["recoverable_basis"], lead[has])
    unknown = np.bincount(gid, weights=np.isnan(rec).astype(np.float64), minlength=n)
    known = np.bincount(gid, weights=(~np.isnan(rec)).astype(np.float64), minlength=n)
    partial = (unknown > 0) & (known > 0)
    counts = unknown[partial].astype(np.int64).astype(str).astype(object)
    # A missing basis prints as a frame's missing text always printed here.
    leads = np.where(absent(out[partial]), "nan", out[partial])
    out[partial] = (
        leads.astype(str).astype(object)
        + "; excludes "
        + counts
        + " launch(es) with unknown recoverable time"
    )
    return out
