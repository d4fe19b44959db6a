"""How a comparison judges each matched kernel group: which measure, and what counts as a change.

The measure is the basis's (:mod:`.basis`).  A group whose work (FLOPs, else DRAM bytes) changed by more than the noise
is a *work change*: it is judged on its measure per unit of work (time or
cycles per FLOP or per byte), its efficiency, not on the raw measure, which
a bigger problem makes longer whatever the code does.  A group lacking
cycles on either side is judged on time.

A change counts when its relative size is strictly greater than the noise:
a change of exactly the noise is ``"unchanged"``.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.roofs.arithmetic import ratio
from ncu_roofline.core.frame import column as _floats

__all__ = ["judge", "status", "work_change"]

FloatArray = npt.NDArray[np.float64]


def status(
    matched: npt.NDArray[np.bool_],
    in_base: npt.NDArray[np.bool_],
    base_v: FloatArray,
    delta: FloatArray,
    noise: float,
) -> npt.NDArray[np.object_]:
    """Each row's status from its base value and change: strictly beyond ``noise`` counts."""
    rel = ratio(delta, base_v)
    out = np.full(len(delta), "unchanged", dtype=object)
    out[np.isnan(delta)] = "not comparable"
    # A group that took no time before and some now is slower whatever the noise.
    zero_base = (base_v == 0) & (delta > 0)
    out[(rel > noise) | zero_base] = "regression"
    out[rel < -noise] = "improvement"
    out[~matched & in_base] = "removed"
    out[~matched & ~in_base] = "added"
    return out


def work_change(
    m: pd.DataFrame, noise: float
) -> tuple[FloatArray, FloatArray, npt.NDArray[np.object_], FloatArray]:
    """Per row: base and candidate work, its unit (``"FLOP"``/``"byte"``), and its relative change.

    FLOPs where both sides counted some, else DRAM bytes; NaN and ``None``
    where neither side has either.
    """
    bf, cf = _floats(m, "base_flops"), _floats(m, "candidate_flops")
    bb, cb = _floats(m, "base_dram_bytes"), _floats(m, "candidate_dram_bytes")
    use_flops = (bf > 0) & (cf > 0)
    use_bytes = ~use_flops & (bb > 0) & (cb > 0)
    base_w = np.where(use_flops, bf, np.where(use_bytes, bb, np.nan))
    cand_w = np.where(use_flops, cf, np.where(use_bytes, cb, np.nan))
    unit = np.full(len(m), None, dtype=object)
    unit[use_flops] = "FLOP"
    unit[use_bytes] = "byte"
    return base_w, cand_w, unit, ratio(cand_w - base_w, base_w)


def judge(
    m: pd.DataFrame, basis: str, noise: float, comparable: bool
) -> dict[str, npt.NDArray[np.object_] | FloatArray]:
    """Status, measure and relative change each row is judged on, with the work columns.

    ``m`` is the matched frame (``base_*`` / ``candidate_*`` columns and
    ``match``); ``comparable`` false (different GPUs, not allowed) makes
    every matched row ``"not comparable"``.
    """
    matched = m["match"].notna().to_numpy()
    in_base = m["base_groups"].notna().to_numpy()
    if basis == "per-launch":
        base_q, cand_q = _floats(m, "base_duration_s"), _floats(m, "candidate_duration_s")
        measure = np.full(len(m), "time per launch", dtype=object)
    else:
        base_q = _floats(m, "base_total_duration_s")
        cand_q = _floats(m, "candidate_total_duration_s")
        measure = np.full(len(m), "time", dtype=object)
        if basis == "cycles":
            bc, cc = _floats(m, "base_cycles"), _floats(m, "candidate_cycles")
            has = ~np.isnan(bc) & ~np.isnan(cc)
            base_q, cand_q = np.where(has, bc, base_q), np.where(has, cc, cand_q)
            measure[has] = "cycles"
    base_w, cand_w, unit, work_rel = work_change(m, noise)
    changed = matched & (np.abs(np.nan_to_num(work_rel)) > noise)
    base_q = np.where(changed, ratio(base_q, base_w), base_q)
    cand_q = np.where(changed, ratio(cand_q, cand_w), cand_q)
    measure[changed] = [
        f"{q} per {u}" for q, u in zip(measure[changed], unit[changed], strict=True)
    ]
    delta = np.where(matched, cand_q - base_q, np.nan)
    st = status(matched, in_base, base_q, delta, noise)
    if not comparable:
        st[matched] = "not comparable"
    judged = np.where(matched, ratio(delta, base_q), np.nan)
    measure[~matched] = None
    work_changed = np.full(len(m), None, dtype=object)
    work_changed[matched] = changed[matched]
    return {
        "status": st,
        "judged_on": measure,
        "judged_pct": judged,
        "work_unit": unit,
        "delta_work_pct": np.where(matched, work_rel, np.nan),
        "work_changed": work_changed,
        "base_time_per_work": ratio(_floats(m, "base_total_duration_s"), base_w),
        "candidate_time_per_work": ratio(_floats(m, "candidate_total_duration_s"), cand_w),
    }
