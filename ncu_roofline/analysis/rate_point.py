"""Roofline points from rates alone, for exports without a duration.

ncu's ``SpeedOfLight_RooflineChart`` section carries what its chart needs:
achieved per-cycle instruction rates with their clocks, the DRAM bandwidth
and the peaks, but no duration and no counts (NVIDIA's rooflines never use
the duration).  The point is fully known from the rates: intensity is the
FLOP rate over the byte rate and the height is the FLOP rate.  What needs
the duration stays missing: counts, and the time that could be recovered.

The measures give each launch's FLOP rate per compute-ceiling key as
``<key>_flops_per_s`` (``fp32_flops_per_s``, ``tensor_bf16_flops_per_s``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.frame import column as _f

FloatArray = npt.NDArray[np.float64]

#: The per-second columns a kernel group takes from its launches when their
#: durations are unknown.
_GROUP_RATES = ("achieved_flops_per_s", "dram_bytes_per_s", "l2_bytes_per_s", "l1_bytes_per_s")


def rate_column(key: str) -> str:
    """The measured FLOP rate of a compute-ceiling key: ``fp32`` -> ``fp32_flops_per_s``."""
    return f"{key}_flops_per_s"


def point_from_rates(frame: pd.DataFrame) -> npt.NDArray[np.bool_]:
    """Rows whose roofline point is known from the FLOP and DRAM byte rates."""
    return ~np.isnan(_f(frame, "achieved_flops_per_s")) & ~np.isnan(_f(frame, "dram_bytes_per_s"))


def counts_or_rates(
    frame: pd.DataFrame, keys: list[str], counts: list[FloatArray]
) -> list[FloatArray]:
    """Per key, the FLOP count, or the FLOP rate in rows that have no count at all.

    Which precision dominates is the same question asked of counts or of
    rates over one duration; rows without any count compare rates.
    """
    if not counts:
        return counts
    no_count = np.isnan(np.vstack(counts)).all(axis=0)
    if not no_count.any():
        return counts
    out: list[FloatArray] = []
    for key, values in zip(keys, counts, strict=True):
        rate = _f(frame, rate_column(key))
        out.append(np.where(no_count, rate, values))
    return out


def group_rates_without_duration(
    launches: pd.DataFrame,
    gid: npt.NDArray[np.intp],
    n_groups: int,
    out: dict[str, npt.NDArray[np.generic]],
) -> None:
    """Rates of groups whose total duration is unknown: the mean over their launches, in place.

    With no durations to weight by, each launch counts once; groups with a
    duration keep their count-over-time rates.
    """
    unknown = np.isnan(np.asarray(out["total_duration_s"], dtype=np.float64))
    if not unknown.any():
        return
    keys = [str(c) for c in launches.columns if str(c).endswith("_flops_per_s")]
    for col in dict.fromkeys([*_GROUP_RATES, *keys]):
        if col not in launches or col.startswith(("peak_", "attainable_")):
            continue
        mean = pd.Series(_f(launches, col)).groupby(gid).mean().reindex(range(n_groups))
        current = (
            np.asarray(out[col], dtype=np.float64) if col in out else np.full(n_groups, np.nan)
        )
        out[col] = np.where(unknown & np.isnan(current), mean.to_numpy(dtype=np.float64), current)


def duration_weights(launches: pd.DataFrame, gid: npt.NDArray[np.intp]) -> FloatArray:
    """Each launch's weight in its group's means: its time, or 1 where no launch of the group has one."""
    t = _f(launches, "total_duration_s")
    timed = pd.Series(~np.isnan(t)).groupby(gid).transform("any").to_numpy(dtype=bool)
    return np.where(timed, np.nan_to_num(t), 1.0)
