"""Findings: what a reader of the report should look at first.

Each finding names a kind, the kernel it is about (``None`` for findings
about the whole profile), a severity (``error``, ``warning``, ``info``) and a
one-sentence message with the numbers behind it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ncu_roofline.analysis.roofs import DeviceRoofs
from ncu_roofline.units import format_si

SEVERITIES = ("error", "warning", "info")

#: Findings about kernels far under their roof: at most this many ...
MAX_BELOW_ROOF = 10
#: ... each with at least this share of the profile's time recoverable.
MIN_RECOVERABLE_SHARE = 0.01
#: Efficiency under which a kernel counts as far below its roof.
FAR_BELOW_EFFICIENCY = 0.6


@dataclass(frozen=True)
class Finding:
    """One thing worth a reader's attention."""

    kind: str
    kernel: str | None
    severity: str
    message: str
    source: str | None = None
    recoverable_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {
            "kind": self.kind,
            "kernel": self.kernel,
            "severity": self.severity,
            "message": self.message,
            "source": self.source,
            "recoverable_s": self.recoverable_s,
        }


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _cause_of_above(source: str | None) -> str:
    if source and source.startswith("profile"):
        return (
            "the counters and the peak come from different replay passes or clocks "
            "(try --clock-control base and one kernel per pass)"
        )
    if source and (source.startswith("table") or source.startswith("chosen")):
        return "the roof is for another GPU or clock than the one profiled (check --gpu / --roofs)"
    return "the roof does not match the GPU or clock the kernel ran at"


def collect_findings(
    launches: pd.DataFrame, kernels: pd.DataFrame, devices: list[DeviceRoofs]
) -> list[Finding]:
    """Findings from the analysed launches and groups, most severe first."""
    found: list[Finding] = []
    grand = float(
        np.nansum(launches["total_duration_s"].to_numpy(dtype=np.float64, na_value=np.nan))
    )

    for dev in devices:
        if not any(c.kind == "compute" for c in dev.ceilings) or not any(
            c.key == "dram" for c in dev.ceilings
        ):
            found.append(
                Finding(
                    "no_roofs",
                    None,
                    "warning",
                    f"{dev.source}: no complete set of roofs for device {dev.device_name or 'unknown'!r}"
                    f"{f' (CC {dev.cc})' if dev.cc else ''}; "
                    "launches cannot be placed. Choose a GPU with --gpu NAME (see `ncu-roofline gpus`) "
                    "or give roofs with --roofs FILE.",
                    source=dev.source,
                )
            )
        for note in dev.notes:
            if note.startswith("kernels ran at"):
                found.append(
                    Finding(
                        "clock_below_datasheet",
                        None,
                        "info",
                        f"{dev.source}: {note}.",
                        source=dev.source,
                    )
                )

    # Above a roof: never clipped, always explained.
    src_col = (
        launches["roof_source_compute"]
        if "roof_source_compute" in launches
        else pd.Series([None] * len(launches))
    )
    above = launches[launches["above_roof"].notna()]
    if not above.empty:
        for (kernel, what), rows in above.groupby(["kernel", "above_roof"], sort=False):
            first = rows.index[0]
            src = (
                src_col.loc[first]
                if what == "compute"
                else launches.get("roof_source_dram", src_col).loc[first]
            )
            util_col = {
                "compute": "compute_utilization",
                "DRAM bandwidth": "dram_utilization",
                "L2 bandwidth": "l2_utilization",
                "L1 bandwidth": "l1_utilization",
            }[str(what)]
            worst = float(rows[util_col].max())
            found.append(
                Finding(
                    "above_roof",
                    str(kernel),
                    "warning",
                    f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} reach {_pct(worst)} of the "
                    f"{what} roof ({src or 'unknown source'}); likely cause: {_cause_of_above(src)}.",
                    source=str(rows["source"].iloc[0]),
                )
            )

    # Far below the roof, ranked by recoverable time.
    ranked = kernels[
        (kernels["efficiency"] < FAR_BELOW_EFFICIENCY)
        & kernels["bound"].isin(["memory", "compute", "latency"])
        & (kernels["recoverable_s"] >= MIN_RECOVERABLE_SHARE * grand)
    ].head(MAX_BELOW_ROOF)
    for _, k in ranked.iterrows():
        share = float(k["recoverable_s"]) / grand if grand > 0 else float("nan")
        bound = str(k["bound"])
        if bound == "latency":
            what = f"is latency-bound ({k['bound_reason']})"
        else:
            what = f"is {bound}-bound"
        found.append(
            Finding(
                "below_roof",
                str(k["kernel"]),
                "warning" if share >= 0.05 else "info",
                f"{k['kernel_short']} {what} and runs at {_pct(float(k['efficiency']))} of its roof over "
                f"{int(k['launches'])} launch(es): {format_si(float(k['recoverable_s']), 's')} of "
                f"{format_si(float(k['total_duration_s']), 's')} recoverable ({_pct(share)} of profiled time).",
                source=str(k["source"]),
                recoverable_s=float(k["recoverable_s"]),
            )
        )

    # Kernels that could not be placed, one finding per reason.
    unplaced = kernels[kernels["bound"] == "not placeable"]
    for reason, rows in unplaced.groupby("bound_reason", sort=False):
        share = float(np.nansum(rows["total_duration_s"])) / grand if grand > 0 else float("nan")
        names = ", ".join(str(x) for x in rows["kernel_short"].head(3))
        more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
        found.append(
            Finding(
                "not_placeable",
                str(rows["kernel"].iloc[0]) if len(rows) == 1 else None,
                "info",
                f"{len(rows)} kernel(s) not placed ({reason}): {names}{more}; {_pct(share)} of profiled time.",
                source=str(rows["source"].iloc[0]),
            )
        )

    comm = kernels[kernels["bound"] == "communication"]
    if not comm.empty:
        share = float(np.nansum(comm["total_duration_s"])) / grand if grand > 0 else float("nan")
        found.append(
            Finding(
                "communication",
                None,
                "info",
                f"{len(comm)} collective kernel(s) take {_pct(share)} of profiled time; they are bound by "
                "the interconnect and not judged against the DRAM roof.",
            )
        )

    for level in ("l2", "l1"):
        col = f"{level}_bytes_basis"
        if col in launches:
            kinds = [k for k in pd.unique(launches[col].dropna())]
            if len(kinds) > 1:
                found.append(
                    Finding(
                        "mixed_definitions",
                        None,
                        "warning",
                        f"{level.upper()} bytes come from different metric families ({', '.join(map(str, kinds))}); "
                        "they count different things and are not comparable across launches.",
                    )
                )
    order = {s: i for i, s in enumerate(SEVERITIES)}
    found.sort(key=lambda f: (order[f.severity], -(f.recoverable_s or 0.0)))
    return found
