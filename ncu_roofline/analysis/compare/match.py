"""Two analyses matched kernel group by kernel group, each match judged: the
:class:`Comparison` (the rules are in :mod:`ncu_roofline.analysis.compare`)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.compare.basis import BASES, DEFAULT_NOISE, resolve_basis
from ncu_roofline.analysis.compare.context import (
    beyond,
    clock_ratio,
    differences,
    different_gpus,
    group_cycles,
    hardware_verdict,
    side_facts,
    side_metrics,
)
from ncu_roofline.analysis.compare.judge import judge
from ncu_roofline.analysis.compare.records import (
    ComparisonFacts,
    ComparisonTotals,
    SideFacts,
    StoryRecord,
)
from ncu_roofline.analysis.compare.story import story
from ncu_roofline.analysis.compare.trials import (
    CONFIDENCE,
    SideTrials,
    combine,
    interval,
    representative,
)
from ncu_roofline.analysis.compare.why import why
from ncu_roofline.analysis.roofs.arithmetic import ratio
from ncu_roofline.core.columns import COMPARE_SIDE_FIELDS
from ncu_roofline.core.frame import column as _floats
from ncu_roofline.core.names import unique_short_names, without_template_args

__all__ = [
    "COMPARISON_FIELDS",
    "MATCH_EXACT",
    "MATCH_IMPLEMENTATION",
    "MATCH_NAME_ONLY",
    "STATUSES",
    "Comparison",
    "compare",
]

FloatArray = npt.NDArray[np.float64]

#: Status of a comparison row.  ``"not comparable"``: matched, but the time
#: of either side is unknown, or the sides ran on different GPUs.
STATUSES: tuple[str, ...] = (
    "regression",
    "improvement",
    "unchanged",
    "not comparable",
    "added",
    "removed",
)

#: How a row was matched: on (kernel, grid, block), on the kernel name alone,
#: as one template's two instantiations (the implementation changed), or not
#: at all (added / removed rows have ``None``).
MATCH_EXACT = "exact"
MATCH_NAME_ONLY = "name only"
MATCH_IMPLEMENTATION = "implementation"

#: Columns identifying a kernel group across profiles.
_KEY: tuple[str, ...] = ("kernel", "grid", "block")

#: Fields of every comparison record, in order.
COMPARISON_FIELDS: tuple[str, ...] = (
    "rank",
    "status",
    "match",
    "kernel",
    "kernel_short",
    "base_kernel",
    "candidate_kernel",
    "base_grid",
    "base_block",
    "candidate_grid",
    "candidate_block",
    "base_groups",
    "candidate_groups",
    "base_source",
    "base_device_name",
    "base_cc",
    "candidate_source",
    "candidate_device_name",
    "candidate_cc",
    "base_launches",
    "candidate_launches",
    "delta_launches",
    "base_total_duration_s",
    "candidate_total_duration_s",
    "delta_s",
    "delta_pct",
    "base_duration_s",
    "candidate_duration_s",
    "delta_duration_s",
    "delta_duration_pct",
    "base_cycles",
    "candidate_cycles",
    "delta_cycles_pct",
    "judged_on",
    "judged_pct",
    "change_low",
    "change_high",
    "trial_noise",
    "base_time_share",
    "candidate_time_share",
    "base_flops",
    "candidate_flops",
    "base_dram_bytes",
    "candidate_dram_bytes",
    "work_unit",
    "delta_work_pct",
    "work_changed",
    "base_time_per_work",
    "candidate_time_per_work",
    "base_ai_dram",
    "candidate_ai_dram",
    "base_achieved_flops_per_s",
    "candidate_achieved_flops_per_s",
    "base_efficiency",
    "candidate_efficiency",
    "delta_efficiency",
    "base_bound",
    "candidate_bound",
    "bound_changed",
    "why",
)

#: Each side's figures carried for ``why`` only (not comparison fields of their own),
#: and the row of the side's aggregate (for its per-trial figures).
_WHY_SIDE: tuple[str, ...] = ("l2_bytes", "l1_bytes", "limiter", "row")


@dataclass(repr=False)
class Comparison:
    """Kernel-group comparison of two analyses.

    ``kernels`` has one row per matched, added or removed kernel group with
    the columns of :data:`COMPARISON_FIELDS`, ranked by ``|delta_s|``
    (largest change first, unknown changes last).  ``totals`` holds plain
    Python values: total kernel time per side and its change, launches, and
    how many groups were matched, added, removed, regressed and improved.
    With trials (several runs of a side), ``base`` and ``candidate`` are
    each side's representative trial (its total time the median) and
    ``base_trials`` / ``candidate_trials`` every trial's analysis.
    """

    base: Analysis
    candidate: Analysis
    kernels: pd.DataFrame
    totals: ComparisonTotals
    #: Relative change of total time within which a matched group is "unchanged".
    noise: float = DEFAULT_NOISE
    #: Each side's GPU, clocks, ncu version, metric set and work, and how they differ.
    context: ComparisonFacts | None = None
    base_trials: list[Analysis] = field(default_factory=list)
    candidate_trials: list[Analysis] = field(default_factory=list)
    #: The whole profile's change as the four questions a speed-up must answer (:mod:`.story`).
    story: StoryRecord | None = None

    def __repr__(self) -> str:
        # Not the generated repr: it would print both analyses and every frame.
        return f"{type(self).__name__}({len(self.kernels)} kernel groups, noise {self.noise:g})"


def _objects(frame: pd.DataFrame, col: str) -> npt.NDArray[np.object_]:
    if col not in frame:
        return np.full(len(frame), None, dtype=object)
    out: npt.NDArray[np.object_] = frame[col].astype(object).to_numpy(dtype=object, copy=True)
    out[pd.isna(out)] = None
    return out


def _aggregate(kernels: pd.DataFrame) -> pd.DataFrame:
    """The kernel groups of one side with rows sharing ``(kernel, grid, block)`` merged.

    A key held by one group keeps that group's own figures, so a comparison
    of single-input profiles shows the same numbers as their reports.
    """
    k = kernels.reset_index(drop=True)
    n = len(k)
    keys = pd.DataFrame({c: _objects(k, c) for c in _KEY}).fillna("").astype(str)
    gid = keys.groupby(list(_KEY), sort=False).ngroup().to_numpy()
    n_groups = int(gid.max()) + 1 if n else 0

    t = _floats(k, "total_duration_s")
    t0 = np.nan_to_num(t)

    def gsum(values: FloatArray) -> FloatArray:
        """Sum per key; NaN when any group of the key lacks the value."""
        nan = np.isnan(values)
        total = np.bincount(gid, weights=np.where(nan, 0.0, values), minlength=n_groups)
        bad = np.bincount(gid, weights=nan.astype(np.float64), minlength=n_groups) > 0
        out: FloatArray = np.where(bad, np.nan, total)
        return out

    # The group with the most time stands for the key (bound, identity).
    order = pd.DataFrame({"gid": gid, "t": np.where(np.isnan(t), -np.inf, t), "i": np.arange(n)})
    lead = (
        order.sort_values(["gid", "t"], ascending=[True, False], kind="stable")
        .drop_duplicates("gid")["i"]
        .to_numpy()
    )
    rows = np.bincount(gid, minlength=n_groups)
    single = rows == 1

    launches = np.bincount(gid, weights=_floats(k, "launches"), minlength=n_groups)
    total = gsum(t)
    flops = gsum(_floats(k, "flops"))
    dram = gsum(_floats(k, "dram_bytes"))
    achieved = ratio(flops, total)
    ai = ratio(flops, dram)
    ai[(flops > 0) & (dram == 0)] = np.inf
    eff = _floats(k, "efficiency")
    has = ~np.isnan(eff) & (t0 > 0)
    efficiency = ratio(
        np.bincount(gid, weights=np.where(has, eff * t0, 0.0), minlength=n_groups),
        np.bincount(gid, weights=np.where(has, t0, 0.0), minlength=n_groups),
    )

    def own(col: str, merged: FloatArray) -> FloatArray:
        """The lead group's own value for single-group keys, ``merged`` otherwise."""
        out: FloatArray = np.where(single, _floats(k, col)[lead], merged)
        return out

    # Match on the keys with missing parts as "", report them as they were.
    out: pd.DataFrame = pd.DataFrame({c: keys[c].to_numpy(dtype=object)[lead] for c in _KEY})
    for c in ("grid", "block"):
        out[c] = _objects(k, c)[lead]
    out["groups"] = rows.astype(np.int64)
    for col in ("source", "device_name", "cc", "kernel_short", "bound", "limiter"):
        out[col] = _objects(k, col)[lead]
    out["launches"] = launches.astype(np.int64)
    out["total_duration_s"] = total
    out["duration_s"] = ratio(total, launches)
    grand = float(np.nansum(t0))
    out["time_share"] = ratio(total, np.full(n_groups, grand))
    out["flops"] = flops
    out["dram_bytes"] = dram
    out["l2_bytes"] = gsum(_floats(k, "l2_bytes"))
    out["l1_bytes"] = gsum(_floats(k, "l1_bytes"))
    out["ai_dram"] = own("ai_dram", ai)
    out["achieved_flops_per_s"] = own("achieved_flops_per_s", achieved)
    out["efficiency"] = own("efficiency", efficiency)
    return out


@dataclass(frozen=True)
class _SideRuns:
    """One side as compared: its representative analysis, its groups and, with trials, theirs."""

    analysis: Analysis
    aggregate: pd.DataFrame
    facts: SideFacts
    trials: SideTrials | None
    trial_facts: list[SideFacts]
    analyses: list[Analysis]


def _side_runs(side: Analysis | Sequence[Analysis], metrics: list[str] | None = None) -> _SideRuns:
    """``side``'s groups: one analysis's, or the per-group medians of several trials'."""
    analyses = [side] if isinstance(side, Analysis) else list(side)
    if not analyses:
        raise ValueError("a side of a comparison needs at least one analysis")
    facts = [side_facts(a, metrics if metrics is not None else side_metrics(a)) for a in analyses]
    if len(analyses) == 1:
        agg = _with_cycles(_aggregate(analyses[0].kernels), analyses[0])
        agg["row"] = np.arange(len(agg), dtype=np.int64)
        return _SideRuns(analyses[0], agg, facts[0], None, [], analyses)
    lead = representative([f["total_duration_s"] for f in facts])
    aggs = [_with_cycles(_aggregate(a.kernels), a) for a in analyses]
    agg, trials = combine(aggs, lead)
    agg["row"] = np.arange(len(agg), dtype=np.int64)
    return _SideRuns(analyses[lead], agg, _median_facts(facts, lead), trials, facts, analyses)


def _median_facts(facts: list[SideFacts], lead: int) -> SideFacts:
    """The representative trial's facts with its work and time the median over the trials."""

    def median(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return float(np.median(known)) if known else None

    out = facts[lead].copy()
    out["total_duration_s"] = median([f["total_duration_s"] for f in facts])
    out["cycles"] = median([f["cycles"] for f in facts])
    out["flops"] = median([f["flops"] for f in facts])
    out["dram_bytes"] = median([f["dram_bytes"] for f in facts])
    out["launches"] = int(np.round(np.median([f["launches"] for f in facts])))
    return out


def _with_cycles(agg: pd.DataFrame, analysis: Analysis) -> pd.DataFrame:
    """``agg`` with each key's total elapsed cycles (NaN where any launch lacks them)."""
    cycles = group_cycles(analysis, _KEY)
    keys = pd.DataFrame({c: agg[c].fillna("").astype(str) for c in _KEY})
    merged = keys.merge(cycles, on=list(_KEY), how="left", sort=False)
    out: pd.DataFrame = agg.copy()
    out["cycles"] = merged["cycles"].to_numpy(dtype=np.float64)
    return out


def _side(agg: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """``agg`` with its columns prefixed, plus the match keys ``kernel``, ``_grid``, ``_block``."""
    out: pd.DataFrame = pd.DataFrame(
        {f"{prefix}{c}": agg[c].to_numpy() for c in (*COMPARE_SIDE_FIELDS, "cycles", *_WHY_SIDE)}
    )
    out["kernel"] = agg["kernel"].to_numpy(dtype=object)
    out["_grid"] = agg["grid"].fillna("").astype(str).to_numpy(dtype=object)
    out["_block"] = agg["block"].fillna("").astype(str).to_numpy(dtype=object)
    return out


def _implementation_keys(frame: pd.DataFrame, prefix: str) -> pd.DataFrame:
    """``frame``'s pairing keys: kernel name without template arguments, grid, block, launches."""
    names = frame["kernel"].astype(str)
    # Once per distinct name, never per row.
    stems = {n: without_template_args(n) for n in names.unique()}
    out: pd.DataFrame = pd.DataFrame(
        {
            "_stem": names.map(stems).to_numpy(dtype=object),
            "_grid": frame[f"{prefix}grid"].fillna("").astype(str).to_numpy(dtype=object),
            "_block": frame[f"{prefix}block"].fillna("").astype(str).to_numpy(dtype=object),
            "_launches": _floats(frame, f"{prefix}launches"),
        },
        index=frame.index,
    )
    return out


def _pair_implementations(
    removed: pd.DataFrame, added: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Removed and added groups that are one template's two instantiations, paired.

    A removed and an added group pair when their kernel names are equal
    without template arguments (:func:`without_template_args`) and they share
    grid, block and launch count, and when that key holds exactly one
    removed and one added group: several candidates pair none.  Returns the
    pairs (``kernel`` the candidate's name, ``base_kernel`` and
    ``candidate_kernel`` both names) and the removed and added groups left.
    """
    key = ["_stem", "_grid", "_block", "_launches"]
    left = pd.concat([removed, _implementation_keys(removed, "base_")], axis=1)
    right = pd.concat([added, _implementation_keys(added, "candidate_")], axis=1)
    one_left = left[~left.duplicated(key, keep=False)]
    one_right = right[~right.duplicated(key, keep=False)]
    pairs = (
        one_left.drop(columns=["kernel", "candidate_kernel", "match"])
        .reset_index()
        .merge(
            one_right.drop(columns=["base_kernel", "match"]).reset_index(),
            on=key,
            how="inner",
            sort=False,
            suffixes=("_base", "_candidate"),
        )
    )
    pairs["match"] = MATCH_IMPLEMENTATION
    rest_left = removed.drop(index=pairs["index_base"].to_numpy())
    rest_right = added.drop(index=pairs["index_candidate"].to_numpy())
    return pairs.drop(columns=[*key, "index_base", "index_candidate"]), rest_left, rest_right


def _match(
    base: pd.DataFrame, cand: pd.DataFrame, pair_implementations: bool = True
) -> pd.DataFrame:
    """Matched, added and removed rows of two aggregated sides, with a ``match`` column."""
    b = _side(base, "base_")
    c = _side(cand, "candidate_")
    b_cols = [col for col in b.columns if col.startswith("base_")]
    c_cols = [col for col in c.columns if col.startswith("candidate_")]
    exact = b.merge(c, on=["kernel", "_grid", "_block"], how="outer", indicator=True, sort=False)
    side = exact["_merge"].astype(str)
    both = exact[side == "both"].copy()
    both["match"] = MATCH_EXACT
    both["base_kernel"] = both["candidate_kernel"] = both["kernel"]
    left = exact.loc[side == "left_only", ["kernel", *b_cols]]
    right = exact.loc[side == "right_only", ["kernel", *c_cols]]

    # Second pass: a kernel name with exactly one unmatched group on each side.
    left_n = left["kernel"].value_counts()
    right_n = right["kernel"].value_counts()
    unique = left_n.index[left_n == 1].intersection(right_n.index[right_n == 1])
    by_name = left[left["kernel"].isin(unique)].merge(
        right[right["kernel"].isin(unique)], on="kernel", how="inner", sort=False
    )
    by_name["match"] = MATCH_NAME_ONLY
    by_name["base_kernel"] = by_name["candidate_kernel"] = by_name["kernel"]
    removed = left[~left["kernel"].isin(unique)].copy()
    removed["match"] = None
    removed["base_kernel"], removed["candidate_kernel"] = removed["kernel"], None
    added = right[~right["kernel"].isin(unique)].copy()
    added["match"] = None
    added["base_kernel"], added["candidate_kernel"] = None, added["kernel"]
    paired = pd.DataFrame()
    if pair_implementations and len(removed) and len(added):
        paired, removed, added = _pair_implementations(removed, added)

    columns = ["kernel", "base_kernel", "candidate_kernel", "match", *b_cols, *c_cols]
    parts = [p for p in (both, by_name, paired, removed, added) if len(p)]
    if not parts:
        empty: pd.DataFrame = pd.DataFrame(columns=columns)
        return empty
    # A side missing from every part (nothing matched, nothing added) comes back as NaN.
    out: pd.DataFrame = pd.concat(parts, ignore_index=True, sort=False).reindex(columns=columns)
    return out


def _pair_label(base_kernel: str, candidate_kernel: str) -> str:
    """``base → candidate``: the short names of an implementation pair, told apart."""
    names = unique_short_names([base_kernel, candidate_kernel])
    return f"{names[base_kernel]} → {names[candidate_kernel]}"


def _finite_sum(values: FloatArray) -> float | None:
    """Sum of the known values; ``None`` when none is known."""
    known = values[~np.isnan(values)]
    return float(known.sum()) if len(known) else None


def _subtotal(values: FloatArray) -> float | None:
    """Sum over some rows: 0 for no rows, ``None`` when rows exist but no value is known."""
    return 0.0 if len(values) == 0 else _finite_sum(values)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def _rel(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or a <= 0 else (b - a) / a


#: The work a profile's change may be judged per unit of.
_Work = Literal["flops", "dram_bytes"]


class _JudgedTotal(TypedDict):
    """The whole profile's change on the comparison's basis (:func:`_judged_total`)."""

    judged_on: str
    judged_pct: float | None
    confidence: float | None
    change_low: float | None
    change_high: float | None
    trial_noise: float | None
    base_cycles: float | None
    candidate_cycles: float | None
    delta_cycles_pct: float | None


class _Basis(TypedDict):
    """How the comparison was judged: the basis used, the one asked for, why, and whether at all."""

    basis: str
    basis_requested: str
    basis_reason: str | None
    comparable: bool


def _side_total(runs: _SideRuns) -> tuple[float | None, int]:
    """A side's total kernel time and launches: the median over its trials."""
    times = [_finite_sum(_floats(a.kernels, "total_duration_s")) for a in runs.analyses]
    launches = [int(a.kernels["launches"].sum()) if len(a.kernels) else 0 for a in runs.analyses]
    known = [t for t in times if t is not None]
    time = float(np.median(known)) if known else None
    return time, int(np.round(np.median(launches)))


def _totals(
    runs: tuple[_SideRuns, _SideRuns],
    frame: pd.DataFrame,
    counts: tuple[int, int],
    noise: float,
    judged: _JudgedTotal,
    basis: _Basis,
) -> ComparisonTotals:
    base_t, base_l = _side_total(runs[0])
    cand_t, cand_l = _side_total(runs[1])
    status = frame["status"].to_numpy(dtype=object)
    delta = _floats(frame, "delta_s")
    matched = frame["match"].notna().to_numpy()
    n_base, n_cand = counts
    return {
        "base_total_duration_s": base_t,
        "candidate_total_duration_s": cand_t,
        "delta_s": _delta(base_t, cand_t),
        "delta_pct": _rel(base_t, cand_t),
        "base_launches": base_l,
        "candidate_launches": cand_l,
        "delta_launches": cand_l - base_l,
        "base_groups": n_base,
        "candidate_groups": n_cand,
        "matched": int(matched.sum()),
        "matched_name_only": int((frame["match"] == MATCH_NAME_ONLY).sum()),
        "matched_implementation": int((frame["match"] == MATCH_IMPLEMENTATION).sum()),
        "added": int((status == "added").sum()),
        "removed": int((status == "removed").sum()),
        "regressions": int((status == "regression").sum()),
        "improvements": int((status == "improvement").sum()),
        "unchanged": int((status == "unchanged").sum()),
        "not_comparable": int((status == "not comparable").sum()),
        # delta_s = matched_delta_s + added_s - removed_s when every time is known.
        "matched_delta_s": _subtotal(delta[matched]),
        "added_s": _subtotal(delta[status == "added"]),
        "removed_s": _subtotal(-delta[status == "removed"]),
        "noise": noise,
        "judged_on": judged["judged_on"],
        "judged_pct": judged["judged_pct"],
        "base_trials": len(runs[0].analyses),
        "candidate_trials": len(runs[1].analyses),
        "confidence": judged["confidence"],
        "change_low": judged["change_low"],
        "change_high": judged["change_high"],
        "trial_noise": judged["trial_noise"],
        "base_cycles": judged["base_cycles"],
        "candidate_cycles": judged["candidate_cycles"],
        "delta_cycles_pct": judged["delta_cycles_pct"],
        "basis": basis["basis"],
        "basis_requested": basis["basis_requested"],
        "basis_reason": basis["basis_reason"],
        "comparable": basis["comparable"],
    }


def compare(
    base: Analysis | Sequence[Analysis],
    candidate: Analysis | Sequence[Analysis],
    noise: float = DEFAULT_NOISE,
    basis: str = "auto",
    allow_cross_gpu: bool = False,
    same_gpu: bool = False,
    pair_implementations: bool = True,
) -> Comparison:
    """Match the kernel groups of ``base`` and ``candidate`` and measure what changed.

    A matched group whose measure (``basis``: time, cycles or time per
    launch, per unit of work when its work changed; see
    :mod:`~ncu_roofline.analysis.compare.judge`) grew by more than ``noise``
    (a fraction of its base value) is a ``"regression"``, one that shrank by
    more an ``"improvement"``, anything else ``"unchanged"``; ``"not
    comparable"`` where either value is unknown, or where the sides ran on
    different GPUs unless ``allow_cross_gpu``, or where neither side identifies
    its hardware and the clocks differ unless ``same_gpu`` (the user's word
    that both ran on one GPU) or ``allow_cross_gpu``.  See the module
    docstring for matching; ``pair_implementations`` false leaves a changed
    template instantiation as one removed and one added group.

    A side given as several analyses is several *trials* of one program
    (:mod:`~ncu_roofline.analysis.compare.trials`): its groups' figures are
    the medians over the trials, each matched row gets ``change_low``,
    ``change_high`` and ``trial_noise``, and a change inside the noise is
    ``"unchanged"``.
    """
    if not (isinstance(noise, (int, float)) and math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite fraction >= 0, not {noise!r}")
    if basis not in (*BASES, "total"):
        raise ValueError(f"basis must be one of {BASES}, not {basis!r}")
    b_runs, c_runs = _side_runs(base), _side_runs(candidate)
    base, candidate = b_runs.analysis, c_runs.analysis
    base_agg, cand_agg = b_runs.aggregate, c_runs.aggregate
    m = _match(base_agg, cand_agg, pair_implementations)
    metrics = side_metrics(base), side_metrics(candidate)
    context = _context((b_runs.facts, c_runs.facts), float(noise), (allow_cross_gpu, same_gpu))
    resolved, reason = resolve_basis(
        basis, context["clocks_differ"], bool(np.isfinite(_floats(m, "base_cycles")).any())
    )

    matched = m["match"].notna().to_numpy()
    in_base = m["base_groups"].notna().to_numpy()
    in_cand = m["candidate_groups"].notna().to_numpy()
    base_t = _floats(m, "base_total_duration_s")
    cand_t = _floats(m, "candidate_total_duration_s")
    delta = np.where(in_base, base_t, 0.0)
    delta = np.where(in_cand, cand_t, 0.0) - delta
    base_d = _floats(m, "base_duration_s")
    cand_d = _floats(m, "candidate_duration_s")

    out = pd.DataFrame(index=m.index)
    trials = None
    if b_runs.trials is not None or c_runs.trials is not None:
        trials = (_one_trial(b_runs), _one_trial(c_runs))
    judged = judge(m, resolved, float(noise), context["comparable"], trials)
    out["status"] = judged["status"]
    out["match"] = m["match"].astype(object).to_numpy(dtype=object)
    out["kernel"] = m["kernel"].astype(object).to_numpy(dtype=object)
    short = np.where(
        pd.isna(_objects(m, "candidate_kernel_short")),
        _objects(m, "base_kernel_short"),
        _objects(m, "candidate_kernel_short"),
    )
    out["kernel_short"] = np.where(pd.isna(short), out["kernel"].to_numpy(dtype=object), short)
    out["base_kernel"] = _objects(m, "base_kernel")
    out["candidate_kernel"] = _objects(m, "candidate_kernel")
    paired = (m["match"] == MATCH_IMPLEMENTATION).to_numpy()
    out.loc[paired, "kernel_short"] = [
        _pair_label(b, c)
        for b, c in zip(out["base_kernel"][paired], out["candidate_kernel"][paired], strict=True)
    ]
    for side in ("base_", "candidate_"):
        for col in ("grid", "block", "source", "device_name", "cc"):
            out[f"{side}{col}"] = _objects(m, f"{side}{col}")
        out[f"{side}groups"] = m[f"{side}groups"].astype("Int64")
    out["base_launches"] = m["base_launches"].astype("Int64")
    out["candidate_launches"] = m["candidate_launches"].astype("Int64")
    out["delta_launches"] = (
        m["candidate_launches"].astype("Int64").fillna(0)
        - m["base_launches"].astype("Int64").fillna(0)
    ).astype("Int64")
    out["base_total_duration_s"] = base_t
    out["candidate_total_duration_s"] = cand_t
    out["delta_s"] = delta
    rel = ratio(delta, base_t)
    out["delta_pct"] = np.where(matched | ~in_cand, rel, np.nan)
    out["base_duration_s"] = base_d
    out["candidate_duration_s"] = cand_d
    out["delta_duration_s"] = np.where(matched, cand_d - base_d, np.nan)
    out["delta_duration_pct"] = np.where(matched, ratio(cand_d - base_d, base_d), np.nan)
    base_c, cand_c = _floats(m, "base_cycles"), _floats(m, "candidate_cycles")
    out["base_cycles"] = base_c
    out["candidate_cycles"] = cand_c
    out["delta_cycles_pct"] = np.where(matched, ratio(cand_c - base_c, base_c), np.nan)
    for col, values in judged.items():
        if col != "status":
            out[col] = values
    for col in (
        "time_share",
        "flops",
        "dram_bytes",
        "ai_dram",
        "achieved_flops_per_s",
        "efficiency",
    ):
        out[f"base_{col}"] = _floats(m, f"base_{col}")
        out[f"candidate_{col}"] = _floats(m, f"candidate_{col}")
    out["delta_efficiency"] = np.where(
        matched, out["candidate_efficiency"] - out["base_efficiency"], np.nan
    )
    base_b = _objects(m, "base_bound")
    cand_b = _objects(m, "candidate_bound")
    out["base_bound"] = base_b
    out["candidate_bound"] = cand_b
    changed = np.full(len(m), None, dtype=object)
    changed[matched] = base_b[matched] != cand_b[matched]
    out["bound_changed"] = changed
    out["why"] = pd.Series(why(m, matched, context, float(noise)), index=out.index, dtype=object)

    kernels = _ranked(out, delta, np.fmax(base_t, cand_t))
    totals = _totals(
        (b_runs, c_runs),
        kernels,
        (len(base_agg), len(cand_agg)),
        float(noise),
        _judged_total(context, resolved, float(noise), (b_runs, c_runs)),
        {
            "basis": resolved,
            "basis_requested": "time" if basis == "total" else basis,
            "basis_reason": reason,
            "comparable": context["comparable"],
        },
    )
    _add_differences(context, kernels, metrics, float(noise))
    return Comparison(
        base=base,
        candidate=candidate,
        kernels=kernels,
        totals=totals,
        noise=float(noise),
        context=context,
        base_trials=b_runs.analyses if b_runs.trials is not None else [],
        candidate_trials=c_runs.analyses if c_runs.trials is not None else [],
        story=story(kernels, totals, context, float(noise)),
    )


def _ranked(out: pd.DataFrame, delta: FloatArray, time: FloatArray) -> pd.DataFrame:
    """The rows ranked: largest change first, unknown changes last, ties by the larger time."""
    out["_size"] = np.abs(delta)
    out["_time"] = time
    out = out.sort_values(
        ["_size", "_time"], ascending=False, na_position="last", kind="stable"
    ).drop(columns=["_size", "_time"])
    out = out.reset_index(drop=True)
    out.insert(0, "rank", np.arange(1, len(out) + 1, dtype=np.int64))
    ranked: pd.DataFrame = out[list(COMPARISON_FIELDS)]
    return ranked


def _one_trial(runs: _SideRuns) -> SideTrials:
    """A side's per-trial figures; a side run once is one trial of its own groups."""
    if runs.trials is not None:
        return runs.trials
    agg = runs.aggregate
    values = {
        c: _floats(agg, c).reshape(-1, 1)
        for c in ("total_duration_s", "launches", "cycles", "flops", "dram_bytes")
    }
    return SideTrials(1, values)


def _add_differences(
    context: ComparisonFacts,
    kernels: pd.DataFrame,
    metrics: tuple[list[str], list[str]],
    noise: float,
) -> None:
    """The context's ``differences``, in place (``metrics``: each side's metric ids)."""
    work_groups = sum(
        1 for v in kernels["work_changed"].to_numpy(dtype=object) if v is not None and bool(v)
    )
    context["differences"] = differences(
        context["base"], context["candidate"], metrics, noise, work_groups, context["same_gpu"]
    )


def _context(
    facts: tuple[SideFacts, SideFacts],
    noise: float,
    allowed: tuple[bool, bool],
) -> ComparisonFacts:
    """Each side's facts, whether their clocks differ and whether they may be judged.

    ``allowed`` is ``(allow_cross_gpu, same_gpu)``; ``differences`` stays
    empty until :func:`_add_differences`.
    """
    allow_cross_gpu, same_gpu = allowed
    b, c = facts
    clocks_differ = beyond(clock_ratio(b, c, "sm_clock_hz"), noise)
    verdict, why = hardware_verdict(b["hardware"], c["hardware"], clocks_differ, same_gpu)
    named = different_gpus(b, c)
    cross = named or verdict == "different"
    blocked = (cross or verdict == "undecided") and not allow_cross_gpu
    reason = None
    if blocked:
        reason = (
            "different GPUs" if named else "different hardware" if cross else "hardware undecided"
        )
    return {
        "base": b,
        "candidate": c,
        "sm_clock_ratio": clock_ratio(b, c, "sm_clock_hz"),
        "clocks_differ": clocks_differ,
        "different_gpus": None if verdict == "undecided" else cross,
        "hardware_verdict": "different" if cross else verdict,
        "same_gpu": same_gpu,
        "allow_cross_gpu": allow_cross_gpu,
        "comparable": not blocked,
        "comparable_reason": _comparable_reason(why, blocked, allow_cross_gpu),
        "not_comparable_reason": reason,
        "differences": [],
    }


def _comparable_reason(why: str, blocked: bool, allow_cross_gpu: bool) -> str:
    """Why the pair is (or is not) judged, as a sentence."""
    if blocked:
        return f"not comparable: {why}"
    if allow_cross_gpu and why.startswith(("different", "cannot")):
        return f"judged anyway (--allow-cross-gpu): {why}"
    return f"comparable: {why}"


def _judged_total(
    context: ComparisonFacts, basis: str, noise: float, runs: tuple[_SideRuns, _SideRuns]
) -> _JudgedTotal:
    """The whole profile's change on the comparison's basis, per unit of work when that changed.

    With trials, the change's interval and noise come from each trial's
    total on the same measure.
    """
    b, c = context["base"], context["candidate"]
    on = "cycles" if basis == "cycles" and b["cycles"] and c["cycles"] else "time"
    base_v, cand_v = _measure(b, on), _measure(c, on)
    per: _Work | None = None
    works: tuple[tuple[_Work, str], ...] = (("flops", "FLOP"), ("dram_bytes", "byte"))
    for work, unit in works:
        r = clock_ratio(b, c, work)
        base_w, cand_w = _work(b, work), _work(c, work)
        if r is not None and base_w and cand_w:
            if beyond(r, noise) and base_v is not None and cand_v is not None:
                base_v, cand_v = base_v / base_w, cand_v / cand_w
                on, per = f"{on} per {unit}", work
            break
    pct = _rel(base_v, cand_v)
    low = high = spread = None
    confidence = None
    if runs[0].trial_facts or runs[1].trial_facts:
        confidence = CONFIDENCE
        logs = [_trial_logs(r.trial_facts or [r.facts], on.split(" per ")[0], per) for r in runs]
        width = max(len(x) for x in logs)
        mats = [np.array([x + [np.nan] * (width - len(x))]) for x in logs]
        center = np.array([math.log1p(pct) if pct is not None and pct > -1 else np.nan])
        lows, highs, noises = interval(mats[0], mats[1], center)
        low, high, spread = (
            None if math.isnan(v[0]) else float(v[0]) for v in (lows, highs, noises)
        )
    return {
        "judged_on": on,
        "judged_pct": pct,
        "confidence": confidence,
        "change_low": low,
        "change_high": high,
        "trial_noise": spread,
        "base_cycles": b["cycles"],
        "candidate_cycles": c["cycles"],
        "delta_cycles_pct": _rel(b["cycles"], c["cycles"]),
    }


def _trial_logs(facts: list[SideFacts], on: str, per: _Work | None) -> list[float]:
    """The log of each trial's whole-profile measure (NaN where unknown)."""
    out = []
    for f in facts:
        v = _measure(f, on)
        w = _work(f, per) if per is not None else 1.0
        out.append(math.log(v / w) if v and w and v > 0 and w > 0 else math.nan)
    return out


def _measure(side: SideFacts, on: str) -> float | None:
    """A side's cycles (``on == "cycles"``) or kernel time."""
    return side["cycles"] if on == "cycles" else side["total_duration_s"]


def _work(side: SideFacts, work: _Work) -> float | None:
    """A side's FLOPs or DRAM bytes."""
    return side["flops"] if work == "flops" else side["dram_bytes"]
