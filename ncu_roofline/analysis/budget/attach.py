"""An analysis with an nsys timeline attached: its budget, its groups weighted by real time.

ncu profiles a sample of launches, serialised; the timeline counts every
launch and the time between them.  Attached, the timeline changes three
things of the analysis, and says so in the groups' ``time_basis``:

* each kernel group's ``total_duration_s``, ``time_share``,
  ``recoverable_s`` and ``latency_s`` are the real ones (nsys's instance
  counts and durations; recoverable and latency-bound time are fractions of
  a group's time, so they scale by real over sampled time), the sampled
  ones kept as ``sample_total_duration_s``, ``sample_time_share`` and
  ``sample_recoverable_s``; a group the timeline never ran keeps its sampled
  figures and has no real share (``time_basis`` ``"ncu"``);
* the groups are ranked by that real recoverable time (``rank``);
* the budget's findings (``launch-bound``, ``graph-launched``,
  ``unprofiled-hot``) join the analysis's findings.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ncu_roofline.analysis.budget.build import budget
from ncu_roofline.analysis.budget.findings import budget_findings
from ncu_roofline.analysis.budget.weight import weight_by_timeline
from ncu_roofline.analysis.catalogue import SEVERITIES
from ncu_roofline.analysis.engine import Analysis
from ncu_roofline.core.timeline import Timeline

__all__ = ["attach_timeline"]


def attach_timeline(analysis: Analysis, timeline: Timeline) -> Analysis:
    """``analysis`` with ``timeline`` joined: budget, real-time weighting and findings.

    The analysis given is not modified.
    """
    record = budget(timeline, analysis)
    weighted = weight_by_timeline(analysis, timeline, budget_record=record)
    kernels = weighted.copy()
    seen = (kernels["time_basis"] == "nsys").to_numpy()
    kernels["sample_total_duration_s"] = kernels["total_duration_s"]
    kernels["sample_time_share"] = kernels["time_share"]
    kernels["sample_recoverable_s"] = kernels["recoverable_s"]
    share = kernels["nsys_time_share"].to_numpy(dtype=np.float64, na_value=np.nan)
    sampled = kernels["total_duration_s"].to_numpy(dtype=np.float64, na_value=np.nan)
    real = kernels["nsys_total_s"].to_numpy(dtype=np.float64, na_value=np.nan)
    kernels["total_duration_s"] = np.where(seen, real, sampled)
    kernels["time_share"] = np.where(seen, share, np.nan)
    kernels["recoverable_s"] = kernels["weighted_recoverable_s"]
    if "latency_s" in kernels:
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(seen, real / sampled, 1.0)
        latency = kernels["latency_s"].to_numpy(dtype=np.float64, na_value=np.nan)
        kernels["latency_s"] = np.where(np.isfinite(scale), latency * scale, np.nan)
    kernels["rank"] = kernels["weighted_rank"].astype("Int64")
    kernels = kernels.drop(
        columns=["weighted_recoverable_s", "weighted_rank", "nsys_time_share", "weighted_total_s"]
    )
    # The analysis's own order: severity first, then the most recoverable time.
    order = {s: i for i, s in enumerate(SEVERITIES)}
    findings = sorted(
        [*analysis.findings, *budget_findings(record)],
        key=lambda f: (order[f.severity], -(f.recoverable_s or 0.0)),
    )
    out: Analysis = dataclasses.replace(
        analysis,
        # The timeline's groups are a frame: the analysis holds it as its groups.
        frames={**analysis.frames, "kernels": pd.DataFrame(kernels)},
        findings=findings,
        timeline=timeline,
        budget=record,
    )
    return out
