"""Findings: what a reader of the report should look at first.

Each finding names a kind, the kernel it is about (``None`` for findings
about the whole profile), a severity (``error``, ``warning``, ``info``) and a
one-sentence message with the numbers behind it, and the id of the advice
that fits its kernel (:mod:`ncu_roofline.analysis.advice`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from ncu_roofline.analysis.advice import advice_ids
from ncu_roofline.analysis.catalogue import SEVERITIES, severity_of
from ncu_roofline.analysis.limiter_findings import limiter_findings
from ncu_roofline.analysis.limiter_units import UNIT_LABELS
from ncu_roofline.analysis.packed_check import packed_fp32_uncounted
from ncu_roofline.analysis.roof_check import roof_mismatch_findings
from ncu_roofline.analysis.roofs import DeviceRoofs
from ncu_roofline.analysis.tensor_check import uncounted_tensor_work
from ncu_roofline.core.frame import floats
from ncu_roofline.core.names import short_name
from ncu_roofline.core.si import format_si
from ncu_roofline.theory.assign import causes_for
from ncu_roofline.theory.config import TheoryConfig

#: Findings about kernels far under their roof: at most this many ...
MAX_BELOW_ROOF = 10
#: ... each with at least this share of the profile's time recoverable.
MIN_RECOVERABLE_SHARE = 0.01
#: Sampling kernels (radix select, sort) read their logits several times by
#: design; excess traffic is only flagged above this many times the minimum.
SAMPLING_EXPECTED_EXCESS = 20.0

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
    #: ``kind`` or ``kind/variant``: which of the catalogue's advice fits.
    advice: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain data for reports."""
        return {
            "kind": self.kind,
            "kernel": self.kernel,
            "severity": self.severity,
            "message": self.message,
            "source": self.source,
            "recoverable_s": self.recoverable_s,
            "advice": self.advice or self.kind,
        }


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%" if np.isfinite(x) else "an unknown share"


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
    launches: pd.DataFrame,
    kernels: pd.DataFrame,
    devices: list[DeviceRoofs],
    theory: TheoryConfig | None = None,
    unmatched: list[str] | None = None,
) -> list[Finding]:
    """Findings from the analysed launches and groups, most severe first."""
    found: list[Finding] = []
    if theory is not None:
        found.extend(_theory_findings(kernels, theory, unmatched or []))
    grand = float(np.nansum(floats(launches["total_duration_s"])))
    found.extend(_device_findings(devices))
    found.extend(roof_mismatch_findings(launches, devices))
    found.extend(_above_roof_findings(launches))
    found.extend(_below_roof_findings(kernels, grand))
    found.extend(
        Finding(kind, kernel, severity, message, source=source, recoverable_s=rec)
        for kind, kernel, severity, message, rec, source in limiter_findings(kernels, grand)
    )
    found.extend(_unplaced_findings(kernels, grand))
    found.extend(_failed_profile_findings(launches))
    found.extend(_communication_findings(kernels, grand))
    found.extend(_mixed_definition_findings(launches))
    found.extend(
        _finding("tensor-uncounted", k, m, source=s) for k, m, s in uncounted_tensor_work(launches)
    )
    found.extend(
        _finding("fp32-packed-uncounted", k, m, source=s)
        for k, m, s in packed_fp32_uncounted(launches)
    )
    order = {s: i for i, s in enumerate(SEVERITIES)}
    found.sort(key=lambda f: (order[f.severity], -(f.recoverable_s or 0.0)))
    ids = advice_ids([(f.kind, f.kernel) for f in found], kernels)
    return [replace(f, advice=a) for f, a in zip(found, ids, strict=True)]


def _finding(
    kind: str,
    kernel: str | None,
    message: str,
    *,
    severity: str | None = None,
    source: str | None = None,
    recoverable_s: float | None = None,
) -> Finding:
    """A finding of ``kind``, at the catalogue's severity unless the numbers say otherwise."""
    return Finding(
        kind,
        kernel,
        severity or severity_of(kind),
        message,
        source=source,
        recoverable_s=recoverable_s,
    )


def _share(seconds: float, grand: float) -> float:
    return seconds / grand if grand > 0 else float("nan")


def _device_findings(devices: list[DeviceRoofs]) -> list[Finding]:
    """Devices without a complete set of roofs, and the notes their roofs came with."""
    found: list[Finding] = []
    for dev in devices:
        if not any(c.kind == "compute" for c in dev.ceilings) or not any(
            c.key == "dram" for c in dev.ceilings
        ):
            found.append(
                _finding(
                    "no-roofs",
                    None,
                    f"{dev.source}: no complete set of roofs for device {dev.device_name or 'unknown'!r}"
                    f"{f' (CC {dev.cc})' if dev.cc else ''}; "
                    "launches cannot be placed. Choose a GPU with --gpu NAME (see `ncu-roofline gpus`"
                    f"{'; the export fits ' + ', '.join(dev.candidates) if dev.candidates else ''}) "
                    "or give roofs with --roofs FILE.",
                    source=dev.source,
                )
            )
        for note in dev.notes:
            if note.startswith("chosen GPU"):
                found.append(
                    _finding("gpu-mismatch", None, f"{dev.source}: {note}.", source=dev.source)
                )
            if note.startswith("kernels ran at"):
                found.append(
                    _finding(
                        "clock-below-datasheet", None, f"{dev.source}: {note}.", source=dev.source
                    )
                )
    return found


#: The roofs a launch can be above: the label ``place`` gives it, with the
#: utilisation column that measures it and the column naming the roof's source.
_ABOVE_ROOF_UTILISATION: dict[str, tuple[str | None, str]] = {
    "compute": ("compute_utilization", "roof_source_compute"),
    "DRAM bandwidth": ("dram_utilization", "roof_source_dram"),
    "L2 bandwidth": ("l2_utilization", "roof_source_dram"),
    "L1 bandwidth": ("l1_utilization", "roof_source_dram"),
    "tensor (approximate FLOPs)": (None, "roof_source_compute"),
}


def _above_roof_findings(launches: pd.DataFrame) -> list[Finding]:
    """Launches above a roof: never clipped, always explained, one finding per kernel and roof."""
    found: list[Finding] = []
    above_col = launches["above_roof"].astype(object)
    flagged = launches[above_col.notna()]
    for what, (util_col, src_name) in _ABOVE_ROOF_UTILISATION.items():
        rows_all = flagged[flagged["above_roof"].astype(str).str.contains(what, regex=False)]
        for kernel, rows in rows_all.groupby("kernel", sort=False):
            src = rows[src_name].iloc[0] if src_name in rows else None
            src = src if isinstance(src, str) else None
            if util_col is None:
                message = (
                    f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} would run above the "
                    "tensor-core roof with the approximate FLOPs-per-instruction factor; the kernel "
                    "probably uses a smaller MMA shape (e.g. m16n8k8: 2048 FLOPs per instruction, "
                    "not 4096). Collect sm__ops_path_tensor_* for exact counts."
                )
            else:
                worst = float(rows[util_col].max())
                message = (
                    f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} reach {_pct(worst)} of the "
                    f"{what} roof ({src or 'unknown source'}); likely cause: {_cause_of_above(src)}."
                )
            found.append(
                _finding("above-roof", str(kernel), message, source=str(rows["source"].iloc[0]))
            )
    return found


def _below_roof_findings(kernels: pd.DataFrame, grand: float) -> list[Finding]:
    """Groups far below their roof, ranked by recoverable time."""
    found: list[Finding] = []
    ranked = kernels[
        (kernels["efficiency"] < FAR_BELOW_EFFICIENCY)
        & kernels["bound"].isin(["memory", "compute", "latency"])
        & (kernels["recoverable_s"] >= MIN_RECOVERABLE_SHARE * grand)
    ].head(MAX_BELOW_ROOF)
    for _, k in ranked.iterrows():
        share = _share(float(k["recoverable_s"]), grand)
        bound = str(k["bound"])
        if bound == "latency":
            what = f"is latency-bound ({k['bound_reason']})"
        else:
            what = f"is {bound}-bound"
        if k["side"] == "memory":
            roof = f"DRAM {format_si(float(k['peak_dram_bytes_per_s']), 'B/s')}, {k.get('roof_source_dram')}"
        else:
            roof = (
                f"{k['precision']} {format_si(float(k['peak_flops_per_s']), 'FLOP/s')}, "
                f"{k.get('roof_source_compute')}"
            )
        found.append(
            _finding(
                "below-roof",
                str(k["kernel"]),
                f"{k['kernel_short']} {what} and runs at {_pct(float(k['efficiency']))} of its roof "
                f"({roof}) over "
                f"{int(k['launches'])} launch(es){_busiest(k)}: {format_si(float(k['recoverable_s']), 's')} of "
                f"{format_si(float(k['total_duration_s']), 's')} recoverable ({_pct(share)} of profiled time).",
                # Little recoverable time: worth knowing, not worth a warning.
                severity=None if share >= 0.05 else "info",
                source=str(k["source"]),
                recoverable_s=float(k["recoverable_s"]),
            )
        )
    return found


def _busiest(k: pd.Series) -> str:
    """``" (busiest unit: L1/TEX at 55%)"`` where the limiter names a unit."""
    limiter = k.get("limiter")
    util = k.get("limiter_utilization")
    if not isinstance(limiter, str) or limiter not in UNIT_LABELS or not pd.notna(util):
        return ""
    return f" (busiest unit: {UNIT_LABELS[limiter]} at {_pct(float(util))})"


def _unplaced_findings(kernels: pd.DataFrame, grand: float) -> list[Finding]:
    """Kernels that could not be placed, one finding per reason."""
    found: list[Finding] = []
    unplaced = kernels[kernels["bound"] == "not placeable"]
    # Failed profiles are a finding of their own (their time is unknown, not 0%).
    failed = unplaced["bound_reason"].astype(str).str.startswith("profiling failed")
    unplaced = unplaced[~failed.to_numpy(dtype=bool)]
    for reason, rows in unplaced.groupby("bound_reason", sort=False):
        share = _share(float(np.nansum(rows["total_duration_s"])), grand)
        names = ", ".join(str(x) for x in rows["kernel_short"].head(3))
        more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
        found.append(
            _finding(
                "not-placeable",
                str(rows["kernel"].iloc[0]) if len(rows) == 1 else None,
                f"{len(rows)} kernel(s) not placed ({reason}): {names}{more}; {_pct(share)} of profiled time.",
                source=str(rows["source"].iloc[0]),
            )
        )
    return found


def _failed_profile_findings(launches: pd.DataFrame) -> list[Finding]:
    """Launches whose profiling failed, one finding per kernel name, with the launches' counts.

    Their time is unknown, so no share of the profiled time is claimed for them.
    """
    if "profiling_failed" not in launches:
        return []
    failed = launches[launches["profiling_failed"].notna().to_numpy(dtype=bool)]
    found: list[Finding] = []
    for kernel, rows in failed.groupby("kernel", sort=False, dropna=False):
        reasons = list(dict.fromkeys(str(r) for r in rows["profiling_failed"]))
        ids = ", ".join(str(i) for i in rows["id"].head(5))
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        found.append(
            _finding(
                "profiling-failed",
                None if pd.isna(kernel) else str(kernel),
                f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} (ID {ids}{more}): "
                f"{'; '.join(reasons[:3])}; their time is unknown and not in the profiled time.",
                source=str(rows["source"].iloc[0]),
            )
        )
    return found


def _communication_findings(kernels: pd.DataFrame, grand: float) -> list[Finding]:
    """The share of time in collective kernels, which no DRAM roof judges."""
    comm = kernels[kernels["bound"] == "communication"]
    if comm.empty:
        return []
    share = _share(float(np.nansum(comm["total_duration_s"])), grand)
    return [
        _finding(
            "communication",
            None,
            f"{len(comm)} collective kernel(s) take {_pct(share)} of profiled time; they are bound by "
            "the interconnect and not judged against the DRAM roof.",
        )
    ]


def _mixed_definition_findings(launches: pd.DataFrame) -> list[Finding]:
    """Cache levels whose bytes come from more than one metric family."""
    found: list[Finding] = []
    for level in ("l2", "l1"):
        col = f"{level}_bytes_basis"
        if col in launches:
            kinds = [k for k in pd.unique(launches[col].dropna())]
            if len(kinds) > 1:
                found.append(
                    _finding(
                        "mixed-definitions",
                        None,
                        f"{level.upper()} bytes come from different metric families ({', '.join(map(str, kinds))}); "
                        "they count different things and are not comparable across launches.",
                    )
                )
    return found


def _theory_findings(
    kernels: pd.DataFrame, theory: TheoryConfig, unmatched: list[str]
) -> list[Finding]:
    """The findings that need theory: excess traffic, a model that misfits, unmatched kernels."""
    found: list[Finding] = []
    if "byte_excess" in kernels:
        found.extend(_excess_traffic_findings(kernels, theory))
        if theory.model is not None:
            found.extend(_theory_mismatch_findings(kernels, theory))
    if unmatched:
        names = ", ".join(short_name(u) for u in unmatched[:5])
        more = f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
        found.append(
            _finding(
                "no-theory",
                None,
                f"{len(unmatched)} kernel(s) matched no theory rule or model op and are shown without "
                f"theory: {names}{more}.",
            )
        )
    return found


def _excess_traffic_findings(kernels: pd.DataFrame, theory: TheoryConfig) -> list[Finding]:
    """``excess-traffic`` for groups moving far more bytes than their math needs."""
    found: list[Finding] = []
    # Top-k / sampling kernels make several passes by design: only far
    # more than that is excess.
    threshold = np.where(
        kernels["theory_op"].astype(object) == "sampling",
        max(theory.excess_threshold, SAMPLING_EXPECTED_EXCESS),
        theory.excess_threshold,
    )
    rows = kernels[
        (kernels["byte_excess"] >= threshold)
        & (kernels["time_share"] >= theory.min_time_share)
        & (kernels["bound"] != "communication")
    ]
    for _, k in rows.iterrows():
        compute_bound = k["bound"] == "compute"
        excess = float(k["excess_bytes"])
        peak = float(k["peak_dram_bytes_per_s"])
        saved_time = excess / peak if peak > 0 else float("nan")
        launches = int(k["launches"])
        per = f" over {launches} launches" if launches > 1 else ""
        gain = (
            "no time gain while the kernel stays compute-bound"
            if compute_bound
            else f"{format_si(saved_time, 's')} at the DRAM roof"
        )
        found.append(
            _finding(
                "excess-traffic",
                str(k["kernel"]),
                f"{k['kernel_short']} moves {float(k['byte_excess']):.1f}x the minimal DRAM bytes of "
                f"{k['theory_label']} ({format_si(float(k['dram_bytes']), 'B')} measured vs "
                f"{format_si(float(k['theory_bytes']), 'B')}{per}; theory from {k['theory_source']}, "
                f"confidence {k['confidence']}): {format_si(excess, 'B')} could be saved, "
                f"{gain}. Likely causes: "
                f"{causes_for(k['family'] if isinstance(k['family'], str) else None)}.",
                # Saving bytes buys no time while compute binds.
                severity="info" if compute_bound else None,
                source=str(k["source"]),
                recoverable_s=saved_time if np.isfinite(saved_time) and not compute_bound else None,
            )
        )
    return found


def _theory_mismatch_findings(kernels: pd.DataFrame, theory: TheoryConfig) -> list[Finding]:
    """Many modelled groups moving under half their minimal bytes: the model misfits the run."""
    modelled = kernels[kernels["confidence"].notna() & (kernels["confidence"] != "user")]
    below = modelled[modelled["byte_excess"] < 0.5]
    if not (len(modelled) and (len(below) >= 3 or len(below) >= 0.25 * len(modelled))):
        return []
    names = ", ".join(str(x) for x in below["kernel_short"].head(4))
    return [
        _finding(
            "theory-mismatch",
            None,
            f"{len(below)} of {len(modelled)} kernel groups with model theory move less than "
            f"half their minimal DRAM bytes ({names}): the model's shapes probably do not "
            f"match the run (check --phase {theory.phase}, --batch {theory.batch}, "
            f"--seq {theory.seq}, --tp {theory.tp}), or inputs stayed in L2 (ncu "
            "--cache-control none).",
        )
    ]
