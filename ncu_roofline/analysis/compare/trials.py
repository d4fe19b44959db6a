"""Repeated runs as trials: one program measured several times on a side, and its noise.

A benchmark run once is noisy; CI owners run it three to five times per side.
Several inputs on one side are *trials* of one program when they hold the
same kernel groups (``(kernel, grid, block)``), or when the user says so; they
are then not concatenated (which would double every launch) but measured
apart:

* each group's figures on a side are the **median over its trials** (time,
  cycles, launches, FLOPs, bytes, efficiency); the bound class and identity
  are the *representative* trial's, the trial whose total kernel time is the
  median;
* the **spread** between trials estimates each group's run-to-run noise:
  the pooled standard deviation of the log of its measure within each side
  (``trial_noise``, a fraction of the value);
* each matched group's change gets an **interval** (``change_low``,
  ``change_high``) at :data:`CONFIDENCE`, centred on the change of the
  medians, and a regression (or improvement) needs the change to exceed the
  threshold *and* the interval to exclude zero.

Noise estimate
    Three trials a side give each group only four degrees of freedom, far
    too few to tell a 5 % change from 2 % noise.  Run-to-run noise is
    however much alike across the groups of one program, so each group's
    variance is moderated towards the profile's pooled variance (the prior
    weighs :data:`PRIOR_WEIGHT` times the group's own degrees of freedom, at
    most the other groups' total), as empirical-Bayes moderated tests do; and
    because tiny kernels can be far noisier than the rest, the moderated
    variance is never below the group's own.  The interval uses Student's
    *t* with the moderated degrees of freedom and the sampling variance of a
    median (:func:`median_variance`), not a mean's.

What it achieves (``tests/test_compare_trials.py`` checks it by simulation,
three trials a side, threshold 2 %, 20 groups): on A/A pairs, fewer than 1 %
of the groups judged a regression at noise of 2 % (trials within ±2 %, or a
standard deviation of 2 %); a true +5 % caught in more than 90 % of groups
when trials lie within ±2 % of the truth (standard deviation 1.15 %) or
have a standard deviation of 1 %.  At a standard deviation of 2 % no test
can do both with three trials (a +5 % change is then 3 standard errors of a
difference of three-trial means; 1 % false alarms and 90 % power need 3.6):
the interval stays honest and the change is left ``unchanged``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from statistics import NormalDist

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.model import Profile

__all__ = [
    "CONFIDENCE",
    "PRIOR_WEIGHT",
    "TRIAL_FIELDS",
    "SideTrials",
    "TrialSplit",
    "combine",
    "interval",
    "median_variance",
    "representative",
    "split_trials",
    "t_quantile",
]

FloatArray = npt.NDArray[np.float64]

#: Two-sided confidence of ``change_low`` .. ``change_high``: each side's tail
#: is 1 %, the false-regression rate a CI gate is allowed.
CONFIDENCE = 0.98

#: Weight of the profile's pooled variance in a group's noise estimate, in
#: multiples of the group's own degrees of freedom.
PRIOR_WEIGHT = 4

#: The per-trial figures a side keeps for each group (keys x trials matrices).
TRIAL_FIELDS: tuple[str, ...] = ("total_duration_s", "launches", "cycles", "flops", "dram_bytes")

#: Figures of a group that are the median over its trials.
_MEDIAN_FIELDS: tuple[str, ...] = (
    "total_duration_s",
    "launches",
    "cycles",
    "flops",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "efficiency",
)

_KEY: tuple[str, ...] = ("kernel", "grid", "block")

# Variance of the median of n standard normal values (n * Var -> pi / 2).
_MEDIAN_VARIANCE: dict[int, float] = {
    1: 1.0,
    2: 0.5,
    3: 0.4487,
    4: 0.2982,
    5: 0.2864,
    6: 0.2147,
    7: 0.2105,
    8: 0.1686,
    9: 0.1660,
    10: 0.1381,
    11: 0.1372,
}


def median_variance(n: int) -> float:
    """Sampling variance of the median of ``n`` draws of unit variance (normal)."""
    if n < 1:
        raise ValueError(f"a median needs at least one value, not {n}")
    return _MEDIAN_VARIANCE.get(n, math.pi / (2 * n))


def t_quantile(p: float, df: float) -> float:
    """Student's *t* quantile: exact for 1 and 2 degrees of freedom, else Cornish-Fisher.

    The expansion is within 0.5 % of the exact value from 3 degrees of
    freedom on (4.523 for 4.541 at ``p = 0.99, df = 3``) and closer above.
    """
    if not 0 < p < 1 or not df > 0:
        raise ValueError(f"t quantile needs 0 < p < 1 and df > 0, not p={p}, df={df}")
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:
        return (2 * p - 1) / math.sqrt(2 * p * (1 - p))
    z = NormalDist().inv_cdf(p)
    return (
        z
        + (z**3 + z) / (4 * df)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * df**4)
    )


@dataclass(frozen=True)
class TrialSplit:
    """One side's inputs, and whether they are trials of one program.

    ``profiles`` holds one profile per trial when ``trials`` is true, else
    the side's one (possibly joined) profile.  ``missing`` maps each group
    key some trial lacks to the inputs that lack it (``--trials`` given on
    inputs with different kernels); ``metrics_missing`` maps an input to the
    metrics the side's other inputs measured and it did not.
    """

    profiles: list[Profile]
    trials: bool
    reason: str
    missing: dict[tuple[str, str, str], list[str]] = field(default_factory=dict)
    metrics_missing: dict[str, list[str]] = field(default_factory=dict)


def _keys(profile: Profile) -> set[tuple[str, str, str]]:
    frame = profile.launches
    cols = [
        frame[c].astype(object).where(frame[c].notna(), "").astype(str)
        if c in frame
        else pd.Series("", index=frame.index)
        for c in _KEY
    ]
    return set(zip(*cols, strict=True))


def split_trials(profile: Profile, trials: bool | None = None) -> TrialSplit:
    """Whether ``profile``'s inputs are trials, and each trial's profile if so.

    ``trials`` ``None`` decides from the inputs: two or more inputs holding
    the same kernel groups (``(kernel, grid, block)``) are trials; inputs
    holding different ones stay one profile, as several inputs always were.
    ``True`` makes any two or more inputs trials (the groups some lack are
    listed in ``missing``), ``False`` never.
    """
    if len(profile.sources) < 2 or trials is False:
        why = "one input" if len(profile.sources) < 2 else "--no-trials"
        return TrialSplit([profile], False, why)
    parts = profile.inputs()
    keys = [_keys(p) for p in parts]
    union = set().union(*keys)
    missing = {
        k: [p.sources[0].path for p, ks in zip(parts, keys, strict=True) if k not in ks]
        for k in sorted(union)
        if any(k not in ks for ks in keys)
    }
    if not any(keys):
        return TrialSplit([profile], False, "no kernel launches")
    if missing and trials is None:
        return TrialSplit([profile], False, "the inputs hold different kernels", missing=missing)
    present = [p.present_metrics() for p in parts]
    every = set().union(*present)
    metrics_missing = {
        p.sources[0].path: sorted(every - have)
        for p, have in zip(parts, present, strict=True)
        if every - have
    }
    why = "--trials" if trials else "the inputs hold the same kernels"
    return TrialSplit(parts, True, why, missing, metrics_missing)


@dataclass(frozen=True)
class SideTrials:
    """One side's per-trial figures: for each of :data:`TRIAL_FIELDS`, a keys x trials matrix.

    Row ``i`` is the ``i``-th group of the side's combined aggregate
    (:func:`combine`); a trial that lacks the group has NaN.
    """

    n: int
    values: dict[str, FloatArray]

    def count(self) -> npt.NDArray[np.int64]:
        """How many trials measured each group's time."""
        counts: npt.NDArray[np.int64] = (
            np.isfinite(self.values["total_duration_s"]).sum(axis=1).astype(np.int64)
        )
        return counts


def _nanmedian(matrix: FloatArray) -> FloatArray:
    with warnings.catch_warnings():
        # A group no trial measured: its median is NaN, which is what it should be.
        warnings.simplefilter("ignore", RuntimeWarning)
        out: FloatArray = np.nanmedian(matrix, axis=1)
    return out


def representative(totals: list[float | None]) -> int:
    """The trial whose total kernel time is the median (the lower of two middles)."""
    known = [(t, i) for i, t in enumerate(totals) if t is not None and math.isfinite(t)]
    if not known:
        return 0
    known.sort()
    return known[(len(known) - 1) // 2][1]


def combine(aggregates: list[pd.DataFrame], lead: int) -> tuple[pd.DataFrame, SideTrials]:
    """One side's trials, each aggregated per group, as one aggregate of medians.

    ``aggregates`` are the trials' group tables (one row per
    ``(kernel, grid, block)``), ``lead`` the representative trial whose
    bound class, limiter and identity each group keeps (another trial's
    where it lacks the group).  Returns the combined table, with the same
    columns, and the per-trial matrices for the noise estimate.
    """
    order = [lead, *(i for i in range(len(aggregates)) if i != lead)]
    frames = [aggregates[i].assign(_trial=t) for t, i in enumerate(order)]
    every = pd.concat(frames, ignore_index=True, sort=False)
    keys = pd.DataFrame(
        {c: every[c].astype(object).where(every[c].notna(), "").astype(str) for c in _KEY}
    )
    gid = keys.groupby(list(_KEY), sort=False).ngroup().to_numpy()
    n_keys = int(gid.max()) + 1 if len(gid) else 0
    trial = every["_trial"].to_numpy()
    n = len(aggregates)

    def matrix(col: str) -> FloatArray:
        out = np.full((n_keys, n), np.nan)
        if col in every:
            out[gid, trial] = pd.to_numeric(every[col], errors="coerce").to_numpy(dtype=np.float64)
        return out

    mats = {c: matrix(c) for c in _MEDIAN_FIELDS}
    first = pd.Series(np.arange(len(every))).groupby(gid).first().to_numpy()
    out = every.iloc[first].drop(columns="_trial").reset_index(drop=True)
    for c in _MEDIAN_FIELDS:
        out[c] = _nanmedian(mats[c])
    launches = np.round(out["launches"].to_numpy(dtype=np.float64))
    out["launches"] = launches.astype(np.int64)
    total = out["total_duration_s"].to_numpy(dtype=np.float64)
    flops = out["flops"].to_numpy(dtype=np.float64)
    dram = out["dram_bytes"].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["duration_s"] = total / launches
        grand = np.nansum(total)
        out["time_share"] = total / grand if grand > 0 else np.nan
        out["achieved_flops_per_s"] = flops / total
        ai = flops / dram
    ai[(flops > 0) & (dram == 0)] = np.inf
    out["ai_dram"] = ai
    # Trial order back to the inputs' order, for the matrices' columns.
    back = np.argsort(np.asarray(order))
    values = {c: mats[c][:, back] for c in TRIAL_FIELDS}
    return out, SideTrials(n, values)


def interval(
    base_logs: FloatArray,
    candidate_logs: FloatArray,
    center: FloatArray,
    confidence: float = CONFIDENCE,
    prior_weight: float = PRIOR_WEIGHT,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Each row's change interval and noise: ``(change_low, change_high, trial_noise)``.

    ``base_logs`` and ``candidate_logs`` are the log of each row's measure
    per trial (rows x trials, NaN where a trial lacks the row); ``center``
    the log of the change of the medians.  ``trial_noise`` is the moderated
    standard deviation of one trial's log measure (about a fraction of the
    value).  Rows without a degree of freedom (one trial a side), or without
    a centre, get NaN throughout.
    """
    nb = np.isfinite(base_logs).sum(axis=1)
    nc = np.isfinite(candidate_logs).sum(axis=1)

    def squares(logs: FloatArray) -> FloatArray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(logs, axis=1, keepdims=True)
        dev = np.where(np.isfinite(logs), logs - mean, 0.0)
        out: FloatArray = (dev**2).sum(axis=1)
        return out

    df = (np.maximum(nb - 1, 0) + np.maximum(nc - 1, 0)).astype(np.float64)
    ok = (df > 0) & (nb > 0) & (nc > 0) & np.isfinite(center)
    ss = squares(base_logs) + squares(candidate_logs)
    nan = np.full(len(center), np.nan)
    if not ok.any():
        return nan, nan.copy(), nan.copy()
    own = np.where(ok, ss / np.where(df > 0, df, 1.0), np.nan)
    pooled_df = df[ok].sum()
    pooled = ss[ok].sum() / pooled_df
    # The prior's weight: a multiple of the row's own df, at most the other rows' df.
    d0 = np.minimum(prior_weight * df, pooled_df - df)
    d0 = np.where(ok, np.maximum(d0, 0.0), 0.0)
    # The pooled variance without the row itself (its own data is counted once).
    others = np.where(d0 > 0, (ss[ok].sum() - ss) / np.maximum(pooled_df - df, 1.0), pooled)
    moderated = (d0 * others + df * own) / np.where(ok, d0 + df, 1.0)
    var = np.maximum(moderated, own)
    dof = d0 + df
    table = np.array(
        [np.nan, *(median_variance(i) for i in range(1, int(max(nb.max(), nc.max())) + 1))]
    )
    factor = np.where(ok, table[nb] + table[nc], np.nan)
    p = 1 - (1 - confidence) / 2
    # One quantile per distinct df: rows share a few.
    t = np.full(len(center), np.nan)
    for d in np.unique(dof[ok]):
        t[ok & (dof == d)] = t_quantile(p, float(d))
    half = t * np.sqrt(var * factor)
    low = np.where(ok, np.expm1(center - half), np.nan)
    high = np.where(ok, np.expm1(center + half), np.nan)
    return low, high, np.where(ok, np.sqrt(var), np.nan)
