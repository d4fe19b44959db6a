"""The whole profile's change as the four questions any claimed speed-up must answer.

1. Does it do less work (fewer FLOPs, fewer bytes moved) or amortise fixed
   overhead (fewer launches)?  ``flops``, ``dram_bytes`` and ``launches``
   sum each over the matched groups that know it on both sides, and count the
   groups whose own change is beyond the noise; ``efficiency`` says whether
   the same work ran closer to its roof.
2. Which part of the profile does it help?  ``carriers``: the few groups
   holding most of the summed ``|delta_s|``, each with its ``why``.
3. What bounded the base?  ``base_bound_share``: the base's kernel time per
   bound class.
4. Did the bottleneck go, or move elsewhere?  ``moves``: the
   ``bottleneck-moved`` reasons of the carriers.

Every figure comes from the comparison's ``kernels`` frame (the same figures
its rows show); a figure nothing measured is ``None``, never 0.  A pair that
is not comparable gets no carriers and no moves and ``changed`` ``None``: its
time change is not a claim about the code.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.classify import BOUND_CLASSES
from ncu_roofline.analysis.compare.records import (
    BottleneckMoveRecord,
    ComparisonFacts,
    ComparisonTotals,
    EfficiencyChangeRecord,
    StoryGroupRecord,
    StoryRecord,
    WhyRecord,
    WorkChangeRecord,
)
from ncu_roofline.core.frame import column as _floats

__all__ = ["CARRIED_SHARE", "MAX_CARRIERS", "story"]

FloatArray = npt.NDArray[np.float64]

#: Carriers are taken, largest ``|delta_s|`` first, until they hold this share of the change.
CARRIED_SHARE = 0.8
#: At most this many carriers: a paragraph names a few groups, the table lists the rest.
MAX_CARRIERS = 3

#: The bound class of a base group whose class is missing.
_UNKNOWN_BOUND = "unknown"


def _rel(base: float | None, cand: float | None) -> float | None:
    return None if base is None or cand is None or base <= 0 else (cand - base) / base


def _work(
    kernels: pd.DataFrame, matched: npt.NDArray[np.bool_], col: str, noise: float
) -> WorkChangeRecord:
    """``col`` summed over the matched groups knowing it on both sides, and who moved it."""
    base, cand = _floats(kernels, f"base_{col}"), _floats(kernels, f"candidate_{col}")
    ok = matched & np.isfinite(base) & np.isfinite(cand)
    known = int(ok.sum())
    base_sum = float(base[ok].sum()) if known else None
    cand_sum = float(cand[ok].sum()) if known else None
    # Each group's own change, as its why measures it (no reason where the base is 0).
    own = ok & (base > 0)
    change = np.where(own, (cand - base) / np.where(own, base, 1.0), 0.0)
    return {
        "base": base_sum,
        "candidate": cand_sum,
        "change": _rel(base_sum, cand_sum),
        "known": known,
        "fewer": int((own & (change < -noise)).sum()),
        "more": int((own & (change > noise)).sum()),
    }


def _efficiency(
    kernels: pd.DataFrame, matched: npt.NDArray[np.bool_], noise: float
) -> EfficiencyChangeRecord:
    """Each side's efficiency weighted by its own time, over the groups knowing both."""
    b_eff, c_eff = _floats(kernels, "base_efficiency"), _floats(kernels, "candidate_efficiency")
    b_t = _floats(kernels, "base_total_duration_s")
    c_t = _floats(kernels, "candidate_total_duration_s")
    ok = matched & np.isfinite(b_eff) & np.isfinite(c_eff) & (b_t > 0) & (c_t > 0)
    known = int(ok.sum())
    own = ok & (b_eff > 0)
    change = np.where(own, (c_eff - b_eff) / np.where(own, b_eff, 1.0), 0.0)
    return {
        "base": float((b_eff * b_t)[ok].sum() / b_t[ok].sum()) if known else None,
        "candidate": float((c_eff * c_t)[ok].sum() / c_t[ok].sum()) if known else None,
        "known": known,
        "higher": int((own & (change > noise)).sum()),
        "lower": int((own & (change < -noise)).sum()),
    }


def _bound_share(kernels: pd.DataFrame) -> dict[str, float] | None:
    """The base's timed kernel time per bound class, largest share first; ``None`` untimed."""
    t = _floats(kernels, "base_total_duration_s")
    timed = np.isfinite(t)
    total = float(t[timed].sum())
    if not timed.any() or total <= 0:
        return None
    bound = kernels["base_bound"].astype(object).where(kernels["base_bound"].notna())
    by = pd.Series(t[timed]).groupby(bound.fillna(_UNKNOWN_BOUND).to_numpy()[timed]).sum()
    by = by[by > 0] / total
    # Largest first; ties in the order of the bound classes.
    rank = {b: i for i, b in enumerate((*BOUND_CLASSES, _UNKNOWN_BOUND))}
    order = sorted(by.index, key=lambda b: (-float(by[b]), rank.get(str(b), len(rank))))
    return {str(b): float(by[b]) for b in order}


def _carriers(kernels: pd.DataFrame) -> tuple[list[StoryGroupRecord], float | None]:
    """The few groups holding most of the summed ``|delta_s|``, and their share of it."""
    size = np.abs(_floats(kernels, "delta_s"))
    size = np.where(np.isfinite(size), size, 0.0)
    total = float(size.sum())
    if total <= 0:
        return [], None
    order = np.argsort(-size, kind="stable")
    shares = size[order] / total
    # Enough groups to hold CARRIED_SHARE of the change (the one crossing it included).
    n = min(MAX_CARRIERS, int(np.searchsorted(np.cumsum(shares), CARRIED_SHARE)) + 1)
    n = min(n, int((shares > 0).sum()))
    out: list[StoryGroupRecord] = []
    for i, share in zip(order[:n], shares[:n], strict=True):
        row = kernels.iloc[int(i)]
        why: list[WhyRecord] = list(row["why"] or [])
        out.append(
            {
                "kernel": str(row["kernel"]),
                "kernel_short": str(row["kernel_short"]),
                "status": str(row["status"]),
                "delta_s": float(row["delta_s"]),
                "share": float(share),
                "base_bound": None if pd.isna(row["base_bound"]) else str(row["base_bound"]),
                "candidate_bound": (
                    None if pd.isna(row["candidate_bound"]) else str(row["candidate_bound"])
                ),
                "why": why,
            }
        )
    return out, float(shares[:n].sum())


def _moves(carriers: list[StoryGroupRecord]) -> list[BottleneckMoveRecord]:
    """The carriers' ``bottleneck-moved`` reasons."""
    return [
        {
            "kernel_short": c["kernel_short"],
            "on": str(w.get("on", "limiter")),
            "base": str(w.get("base")),
            "candidate": str(w.get("candidate")),
        }
        for c in carriers
        for w in c["why"]
        if w["reason"] == "bottleneck-moved"
    ]


def story(
    kernels: pd.DataFrame,
    totals: ComparisonTotals,
    context: ComparisonFacts | None,
    noise: float,
) -> StoryRecord:
    """The comparison's four-question story (:class:`StoryRecord`) from its ranked ``kernels``.

    ``totals`` gives the judged change and whether the pair is comparable,
    ``context`` (where known) why not; ``noise`` is the comparison's.
    """
    matched = kernels["match"].notna().to_numpy()
    comparable = bool(totals["comparable"])
    judged = totals["judged_pct"]
    # Trials: a change whose interval holds zero is inside the run-to-run noise.
    low, high = totals.get("change_low"), totals.get("change_high")
    inside = low is not None and high is not None and low <= 0 <= high
    carriers, carried = _carriers(kernels) if comparable else ([], None)
    return {
        "comparable": comparable,
        "not_comparable_reason": (
            None if comparable or context is None else context["not_comparable_reason"]
        ),
        "noise": noise,
        "delta_s": totals["delta_s"],
        "delta_pct": totals["delta_pct"],
        "judged_on": totals["judged_on"],
        "judged_pct": judged,
        "changed": (
            None if not comparable or judged is None else abs(judged) > noise and not inside
        ),
        "flops": _work(kernels, matched, "flops", noise),
        "dram_bytes": _work(kernels, matched, "dram_bytes", noise),
        "launches": _work(kernels, matched, "launches", noise),
        "efficiency": _efficiency(kernels, matched, noise),
        "base_bound_share": _bound_share(kernels),
        "carriers": carriers,
        "carried_share": carried,
        "moves": _moves(carriers),
    }
