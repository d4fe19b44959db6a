"""How a comparison judges each matched kernel group: which measure, and what counts as a change.

The measure is the basis's (:mod:`.basis`).  A group whose work (FLOPs, else DRAM bytes) changed by more than the noise
is a *work change*: it is judged on its measure per unit of work (time or
cycles per FLOP or per byte), its efficiency, not on the raw measure, which
a bigger problem makes longer whatever the code does.  A group lacking
cycles on either side is judged on time.

A change counts when its relative size is strictly greater than the noise:
a change of exactly the noise is ``"unchanged"``.  With trials (several runs
of a side, :mod:`.trials`), it must also lie outside the run-to-run noise:
a regression needs ``change_low > 0`` and an improvement ``change_high < 0``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.compare.trials import SideTrials, interval
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


def _quantity(
    get: Callable[[str], FloatArray],
    basis: str,
    has_cycles: npt.NDArray[np.bool_],
    work: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_], npt.NDArray[np.bool_]],
) -> FloatArray:
    """The measure a row is judged on, from ``get``'s columns (one value, or one per trial).

    ``work`` is ``(changed, use_flops, use_bytes)``: a row whose work changed
    is judged per FLOP (or per DRAM byte).
    """
    changed, use_flops, use_bytes = work
    shape = get("total_duration_s").shape

    def rows(mask: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        return mask.reshape(-1, 1) if len(shape) == 2 else mask

    if basis == "per-launch":
        q = ratio(get("total_duration_s"), get("launches"))
    else:
        q = get("total_duration_s")
        if basis == "cycles":
            q = np.where(rows(has_cycles), get("cycles"), q)
    w = np.where(
        rows(use_flops), get("flops"), np.where(rows(use_bytes), get("dram_bytes"), np.nan)
    )
    out: FloatArray = np.where(rows(changed), ratio(q, w), q)
    return out


def _trial_rows(side: SideTrials, rows: FloatArray) -> Callable[[str], FloatArray]:
    """A getter of each row's per-trial values on one side (NaN where the side lacks the row)."""
    valid = ~np.isnan(rows)
    idx = np.where(valid, rows, 0).astype(np.int64)

    def get(col: str) -> FloatArray:
        out = (
            side.values[col][idx] if len(side.values[col]) else np.full((len(idx), side.n), np.nan)
        )
        out = np.array(out, dtype=np.float64)
        out[~valid] = np.nan
        return out

    return get


def _logs(q: FloatArray) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: FloatArray = np.where(q > 0, np.log(np.where(q > 0, q, 1.0)), np.nan)
    return out


def judge(
    m: pd.DataFrame,
    basis: str,
    noise: float,
    comparable: bool,
    trials: tuple[SideTrials, SideTrials] | None = None,
) -> dict[str, npt.NDArray[np.object_] | FloatArray]:
    """Status, measure and relative change each row is judged on, with the work columns.

    ``m`` is the matched frame (``base_*`` / ``candidate_*`` columns and
    ``match``); ``comparable`` false (different GPUs, not allowed) makes
    every matched row ``"not comparable"``.  ``trials`` (each side's
    per-trial figures, rows given by ``m``'s ``base_row`` and
    ``candidate_row``) adds each row's interval and noise (``change_low``,
    ``change_high``, ``trial_noise``) and the rule that a change must lie
    outside it.
    """
    matched = m["match"].notna().to_numpy()
    in_base = m["base_groups"].notna().to_numpy()
    bc, cc = _floats(m, "base_cycles"), _floats(m, "candidate_cycles")
    has_cycles = ~np.isnan(bc) & ~np.isnan(cc)
    base_w, cand_w, unit, work_rel = work_change(m, noise)
    changed = matched & (np.abs(np.nan_to_num(work_rel)) > noise)
    use_flops = unit == "FLOP"
    use_bytes = unit == "byte"
    work = (changed, use_flops, use_bytes)

    def point(prefix: str) -> Callable[[str], FloatArray]:
        return lambda col: _floats(m, f"{prefix}{col}")

    base_q = _quantity(point("base_"), basis, has_cycles, work)
    cand_q = _quantity(point("candidate_"), basis, has_cycles, work)
    if basis == "per-launch":
        measure = np.full(len(m), "time per launch", dtype=object)
    else:
        measure = np.full(len(m), "time", dtype=object)
        if basis == "cycles":
            measure[has_cycles] = "cycles"
    measure[changed] = [
        f"{q} per {u}" for q, u in zip(measure[changed], unit[changed], strict=True)
    ]
    delta = np.where(matched, cand_q - base_q, np.nan)
    st = status(matched, in_base, base_q, delta, noise)
    judged = np.where(matched, ratio(delta, base_q), np.nan)
    nan = np.full(len(m), np.nan)
    low, high, spread = nan, nan.copy(), nan.copy()
    if trials is not None:
        b_get = _trial_rows(trials[0], _floats(m, "base_row"))
        c_get = _trial_rows(trials[1], _floats(m, "candidate_row"))
        b_logs = _logs(_quantity(b_get, basis, has_cycles, work))
        c_logs = _logs(_quantity(c_get, basis, has_cycles, work))
        center = np.where(matched, np.log1p(np.where(judged > -1, judged, np.nan)), np.nan)
        low, high, spread = interval(b_logs, c_logs, center)
        # Beyond the threshold but inside the noise: not a change anyone can stand behind.
        st[(st == "regression") & ~(low > 0) & ~np.isnan(low)] = "unchanged"
        st[(st == "improvement") & ~(high < 0) & ~np.isnan(high)] = "unchanged"
    if not comparable:
        st[matched] = "not comparable"
    measure[~matched] = None
    work_changed = np.full(len(m), None, dtype=object)
    work_changed[matched] = changed[matched]
    return {
        "status": st,
        "judged_on": measure,
        "judged_pct": judged,
        "change_low": low,
        "change_high": high,
        "trial_noise": spread,
        "work_unit": unit,
        "delta_work_pct": np.where(matched, work_rel, np.nan),
        "work_changed": work_changed,
        "base_time_per_work": ratio(_floats(m, "base_total_duration_s"), base_w),
        "candidate_time_per_work": ratio(_floats(m, "candidate_total_duration_s"), cand_w),
    }
