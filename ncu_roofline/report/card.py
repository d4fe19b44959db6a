"""Plain data for the summary cards a notebook shows of a profile and of an analysis.

A card is what Jupyter displays for an object: its GPU, launches, kernels,
time and the few kernels that matter most.  It is built from the frames the
object already holds, with vectorised steps only (no Python per launch),
so a card of a 100,000-launch profile costs milliseconds.  A comparison's
card reads :func:`~ncu_roofline.report.compare.comparison_context` as it is.
"""

from __future__ import annotations

from typing import TypedDict, cast

import numpy as np
import pandas as pd

from ncu_roofline.analysis import Analysis
from ncu_roofline.core.columns import KERNEL_FIELDS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.model import Profile
from ncu_roofline.report.context import input_records, launch_count, summary_context
from ncu_roofline.report.records import records
from ncu_roofline.report.schema import DeviceRoofsRecord, InputRecord, KernelRecord, Summary

__all__ = ["AnalysisCard", "KernelTime", "ProfileCard", "analysis_card", "profile_card"]


class KernelTime(TypedDict):
    """One kernel of a profile and the GPU time its launches took."""

    kernel: str | None
    kernel_short: str | None
    launches: int
    total_duration_s: float | None
    #: Share of the profile's kernel time.
    time_share: float | None


class ProfileCard(TypedDict):
    """A profile before analysis: what was read, and where the time went."""

    inputs: list[InputRecord]
    #: Device names the inputs report, once each, in input order.
    devices: list[str]
    launches: int
    #: Distinct kernel names (an analysis groups them further by launch shape).
    kernels: int
    total_duration_s: float | None
    #: The kernels with the most time, most first.
    top: list[KernelTime]


class AnalysisCard(TypedDict):
    """An analysis: its inputs, devices, totals and its first kernel groups in rank order."""

    inputs: list[InputRecord]
    roofs: list[DeviceRoofsRecord]
    summary: Summary
    #: The first kernel groups by rank (most recoverable time first), as report records.
    kernels: list[KernelRecord]


def _optional(value: float) -> float | None:
    return value if np.isfinite(value) else None


def profile_card(profile: Profile, top: int) -> ProfileCard:
    """The card of a profile with its ``top`` kernels by GPU time.

    A launch's time is its duration times the invocations it stands for, as
    the analysis counts it; a kernel none of whose launches has a duration
    has no time and comes last.
    """
    launches = profile.launches
    inv = launches["invocations"].to_numpy(dtype=np.float64, na_value=1.0)
    time = floats(launches["duration_s"]) * inv
    timed = bool((~np.isnan(time)).any())
    total = float(np.nansum(time)) if timed else None
    frame = pd.DataFrame(
        {
            "kernel": launches["kernel"].astype(object),
            "kernel_short": launches["kernel_short"].astype(object),
            "time": time,
            "launches": inv,
        }
    )
    grouped = frame.groupby("kernel", sort=False, dropna=False)
    kernels = pd.DataFrame(
        {
            "kernel_short": grouped["kernel_short"].first(),
            "launches": grouped["launches"].sum(),
            # Unknown, not zero, where no launch of the kernel has a duration.
            "time": grouped["time"].sum(min_count=1),
        }
    )
    ranked = kernels.sort_values("time", ascending=False, na_position="last", kind="stable")
    head = ranked.head(top)
    rows: list[KernelTime] = [
        {
            "kernel": None if pd.isna(name) else str(name),
            "kernel_short": None if pd.isna(short) else str(short),
            "launches": int(n),
            "total_duration_s": _optional(float(t)),
            "time_share": _optional(float(t) / total) if total else None,
        }
        for name, short, n, t in zip(
            head.index, head["kernel_short"], head["launches"], head["time"], strict=True
        )
    ]
    devices = dict.fromkeys(d for s in profile.sources for d in s.devices if d)
    return {
        "inputs": cast("list[InputRecord]", [s.to_dict() for s in profile.sources]),
        "devices": list(devices),
        "launches": launch_count(launches),
        "kernels": len(kernels),
        "total_duration_s": total,
        "top": rows,
    }


def analysis_card(analysis: Analysis, top: int) -> AnalysisCard:
    """The card of an analysis with its first ``top`` kernel groups in rank order."""
    return {
        "inputs": input_records(analysis),
        "roofs": [d.to_dict() for d in analysis.roofs],
        "summary": summary_context(analysis),
        "kernels": cast("list[KernelRecord]", records(analysis.kernels.head(top), KERNEL_FIELDS)),
    }
