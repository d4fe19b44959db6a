"""Why a matched group's time changed: a short list of reasons, each with its figures.

Every matched row of a comparison gets ``why``, a list of
:class:`~.records.WhyRecord`, each ``reason`` one of :data:`WHY_REASONS`:

``fewer-flops`` / ``more-flops``
    The group did less / more floating-point work (``base_flops`` and
    ``candidate_flops``).
``fewer-bytes`` / ``more-bytes``
    The group moved fewer / more bytes at one memory level; ``level`` says
    which (``dram``, ``l2``, ``l1``), one reason per level the export measured.
``higher-efficiency`` / ``lower-efficiency``
    The same kind of work ran closer to / farther from its roof (the
    group's efficiency, the fraction of the roof it reached).
``fewer-launches`` / ``more-launches``
    The group was launched fewer / more times.
``bottleneck-moved``
    What limits the group changed: its limiter (``limiter``, e.g. ``dram``
    → ``l2``) or, where the export says nothing of the limiter, its bound
    class (``bound``); ``on`` says which, ``base`` and ``candidate`` are the
    two values and ``change`` is ``None`` (``unknown`` and ``not placeable``
    name no bottleneck and move nothing).
``clock``
    The sides ran at different clocks (``clock``: ``sm_clock_hz`` or
    ``memory_clock_hz``), every matched group's time changes with them.
``hardware``
    The sides ran on different hardware (``base`` and ``candidate`` name
    each side's GPUs); every matched group is affected.

A quantity changed when it moved by more than the comparison's ``noise``, a
fraction of its base value (``change`` is that fraction, candidate minus base
over base); a quantity unknown or zero on the base side gives no reason.
Added and removed groups get an empty list.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.compare.records import ComparisonFacts, WhyRecord
from ncu_roofline.core.frame import column as _floats

__all__ = ["WHY_LEVELS", "WHY_REASONS", "why"]

#: Every reason a matched group's ``why`` may give, in the order they are listed.
WHY_REASONS: tuple[str, ...] = (
    "fewer-flops",
    "more-flops",
    "fewer-bytes",
    "more-bytes",
    "higher-efficiency",
    "lower-efficiency",
    "fewer-launches",
    "more-launches",
    "bottleneck-moved",
    "clock",
    "hardware",
)

#: Memory levels a bytes reason names, with the column of each side's bytes.
WHY_LEVELS: tuple[tuple[str, str], ...] = (
    ("dram", "dram_bytes"),
    ("l2", "l2_bytes"),
    ("l1", "l1_bytes"),
)

FloatArray = npt.NDArray[np.float64]


def _plain(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _objects(m: pd.DataFrame, col: str) -> npt.NDArray[np.object_]:
    if col not in m:
        return np.full(len(m), None, dtype=object)
    values: npt.NDArray[np.object_] = m[col].to_numpy(dtype=object)
    return values


#: Limiter and bound values that name no bottleneck.
_VAGUE: tuple[str, ...] = ("unknown", "not placeable")

#: One list of reasons per row.
Reasons = list[list[WhyRecord]]


def why(
    m: pd.DataFrame,
    matched: npt.NDArray[np.bool_],
    context: ComparisonFacts,
    noise: float,
) -> Reasons:
    """Each row's reasons (a list of :class:`WhyRecord`; empty for added and removed rows).

    ``m`` holds each side's figures prefixed ``base_`` / ``candidate_``.
    Every test is vectorised; dicts are built only for the rows a reason fires on.
    """
    out: Reasons = [[] for _ in range(len(m))]

    def quantity(col: str, less: str, more: str, level: str | None = None) -> None:
        base, cand = _floats(m, f"base_{col}"), _floats(m, f"candidate_{col}")
        ok = matched & np.isfinite(base) & np.isfinite(cand) & (base > 0)
        change = np.where(ok, (cand - base) / np.where(ok, base, 1.0), 0.0)
        fires = ok & (np.abs(change) > noise)
        for i in np.flatnonzero(fires):
            record: WhyRecord = {"reason": less if change[i] < 0 else more}
            if level is not None:
                record["level"] = level
            record["base"] = _plain(base[i])
            record["candidate"] = _plain(cand[i])
            record["change"] = float(change[i])
            out[i].append(record)

    quantity("flops", "fewer-flops", "more-flops")
    for level, col in WHY_LEVELS:
        quantity(col, "fewer-bytes", "more-bytes", level)
    quantity("efficiency", "lower-efficiency", "higher-efficiency")
    quantity("launches", "fewer-launches", "more-launches")
    _bottleneck(m, matched, out)
    _profile_wide(context, matched, noise, out)
    return out


def _bottleneck(m: pd.DataFrame, matched: npt.NDArray[np.bool_], out: Reasons) -> None:
    """``bottleneck-moved`` where the limiter (else the bound class) differs between the sides."""
    for on in ("limiter", "bound"):
        b_arr, c_arr = _objects(m, f"base_{on}"), _objects(m, f"candidate_{on}")
        known = matched & ~pd.isna(b_arr) & ~pd.isna(c_arr)
        # "unknown" / "not placeable" say nothing of where the bottleneck is.
        for vague in _VAGUE:
            known &= (b_arr != vague) & (c_arr != vague)
        moved = known & (b_arr != c_arr)
        for i in np.flatnonzero(moved):
            out[i].append(
                {
                    "reason": "bottleneck-moved",
                    "on": on,
                    "base": str(b_arr[i]),
                    "candidate": str(c_arr[i]),
                    "change": None,
                }
            )
        # The bound class speaks only for rows whose limiter is not known on both sides.
        matched = matched & ~known


def _profile_wide(
    context: ComparisonFacts, matched: npt.NDArray[np.bool_], noise: float, out: Reasons
) -> None:
    """``clock`` and ``hardware``: facts of the whole profile, given to every matched row."""
    b, c = context["base"], context["candidate"]
    shared: list[WhyRecord] = []
    clocks = (
        ("sm_clock_hz", b["sm_clock_hz"], c["sm_clock_hz"]),
        ("memory_clock_hz", b["memory_clock_hz"], c["memory_clock_hz"]),
    )
    for clock, base, cand in clocks:
        if base and cand and abs(cand / base - 1.0) > noise:
            shared.append(
                {
                    "reason": "clock",
                    "clock": clock,
                    "base": float(base),
                    "candidate": float(cand),
                    "change": float(cand / base - 1.0),
                }
            )
    if context["hardware_verdict"] == "different":
        shared.append(
            {
                "reason": "hardware",
                "base": ", ".join(b["gpus"]) or None,
                "candidate": ", ".join(c["gpus"]) or None,
                "change": None,
            }
        )
    if shared:
        for i in np.flatnonzero(matched):
            out[i].extend(WhyRecord(**s) for s in shared)
