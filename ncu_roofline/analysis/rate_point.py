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

from ncu_roofline.core.frame import Columns
from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.reduce import group_any, group_mean

FloatArray = npt.NDArray[np.float64]

#: The per-second columns a kernel group takes from its launches when their
#: durations are unknown.
_GROUP_RATES = ("achieved_flops_per_s", "dram_bytes_per_s", "l2_bytes_per_s", "l1_bytes_per_s")


def rate_column(key: str) -> str:
    """The measured FLOP rate of a compute-ceiling key: ``fp32`` -> ``fp32_flops_per_s``."""
    return f"{key}_flops_per_s"


def point_from_rates(frame: Columns) -> npt.NDArray[np.bool_]:
    """Rows whose roofline point is known from the FLOP and DRAM byte rates."""
    return ~np.isnan(_f(frame, "achieved_flops_per_s")) & ~np.isnan(_f(frame, "dram_bytes_per_s"))


def counts_or_rates(frame: Columns, keys: list[str], counts: list[FloatArray]) -> list[FloatArray]:
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
    launches: Columns,
    gid: npt.NDArray[np.intp],
    n_groups: int,
    out: dict[str, npt.NDArray[np.generic]],
) -> None:
    """Rates of groups whose total duration is unknown: the mean over their launches, in place.

    With no durations to weight by, each launch counts once; groups with a
    duration keep their count-over-time rates.  The means' sums are exact
    (:func:`~ncu_roofline.core.reduce.group_mean`).
    """
    unknown = np.isnan(np.asarray(out["total_duration_s"], dtype=np.float64))
    if not unknown.any():
        return
    keys = [str(c) for c in launches.columns if str(c).endswith("_flops_per_s")]
    for col in dict.fromkeys([*_GROUP_RATES, *keys]):
        if col not in launches or col.startswith(("peak_", "attainable_")):
            continue
        mean = group_mean(_f(launches, col), gid, n_groups)
        current = (
            np.asarray(out[col], dtype=np.float64) if col in out else np.full(n_groups, np.nan)
        )
        out[col] = np.where(unknown & np.isnan(current), mean, current)


def duration_weights(launches: Columns, gid: npt.NDArray[np.intp]) -> FloatArray:
    """Each launch's weight in its group's means: its time, or 1 where no launch of the group has one."""
    t = _f(launches, "total_duration_s")
    n_groups = int(gid.max()) + 1 if len(gid) else 0
    timed = group_any(~np.isnan(t), gid, n_groups)[gid]
    return np.where(timed, np.nan_to_num(t), 1.0)
