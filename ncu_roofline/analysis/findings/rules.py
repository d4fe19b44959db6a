"""The rules that look at a whole analysis: roofs and devices, points above and
far below their roofs, kernels not placed or not profiled, collectives,
mixed metric families, theory's excess traffic, and counters an export
lacks (tensor-core and packed FP32 work).

Each is a :data:`~ncu_roofline.analysis.findings.finding.Rule`; the limiter's
rules live with the limiter (:mod:`ncu_roofline.analysis.limiter.findings`).
The roof check: ncu reports a DRAM speed-of-light percentage of its own
peak next to the measured DRAM rate, so rate / (percentage / 100) is the
peak ncu used.  When that implied peak and the DRAM roof the analysis uses
are more than :data:`MISMATCH` apart, every DRAM utilisation and efficiency
of the device is off by their ratio: a wrong ``--gpu`` or roofs file is the
usual cause (``--gpu a100_40gb_pcie`` for a run on an 80 GB SXM part reads
1.31x ncu's own DRAM %).  The check uses launches whose percentage is at
least :data:`~ncu_roofline.analysis.roofs.infer.MIN_RELIABLE_PCT` and the
median of their implied peaks per device.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ncu_roofline.analysis.findings.finding import Evidence, Finding, finding, pct, share
from ncu_roofline.analysis.limiter.units import UNIT_LABELS
from ncu_roofline.analysis.measures import PACKED_FP32_MISSING
from ncu_roofline.analysis.roofs.infer import MIN_RELIABLE_PCT, dram_pct, implied_dram_peak
from ncu_roofline.analysis.tensor_check import NAMED_KERNELS, collect_advice, evidence_phrase
from ncu_roofline.core.frame import column
from ncu_roofline.core.grouping import text_mask
from ncu_roofline.core.hardware import builtin_gpus
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


def _cause_of_above(source: str | None) -> str:
    if source and source.startswith("profile"):
        return (
            "the counters and the peak come from different replay passes or clocks "
            "(try --clock-control base and one kernel per pass)"
        )
    if source and (source.startswith("table") or source.startswith("chosen")):
        return "the roof is for another GPU or clock than the one profiled (check --gpu / --roofs)"
    return "the roof does not match the GPU or clock the kernel ran at"


def device_findings(evidence: Evidence) -> list[Finding]:
    """Devices without a complete set of roofs, and the notes their roofs came with."""
    found: list[Finding] = []
    for dev in evidence.devices:
        if not any(c.kind == "compute" for c in dev.ceilings) or not any(
            c.key == "dram" for c in dev.ceilings
        ):
            found.append(
                finding(
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
                    finding("gpu-mismatch", None, f"{dev.source}: {note}.", source=dev.source)
                )
            if note.startswith("kernels ran at"):
                found.append(
                    finding(
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


def above_roof_findings(evidence: Evidence) -> list[Finding]:
    """Launches above a roof: never clipped, always explained, one finding per kernel and roof."""
    launches = evidence.launches
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
                    f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} reach {pct(worst)} of the "
                    f"{what} roof ({src or 'unknown source'}); likely cause: {_cause_of_above(src)}."
                )
            found.append(
                finding("above-roof", str(kernel), message, source=str(rows["source"].iloc[0]))
            )
    return found


def below_roof_findings(evidence: Evidence) -> list[Finding]:
    """Groups far below their roof, ranked by recoverable time."""
    kernels, grand = evidence.kernels, evidence.grand
    found: list[Finding] = []
    ranked = kernels[
        (kernels["efficiency"] < FAR_BELOW_EFFICIENCY)
        & kernels["bound"].isin(["memory", "compute", "latency"])
        & (kernels["recoverable_s"] >= MIN_RECOVERABLE_SHARE * grand)
    ].head(MAX_BELOW_ROOF)
    for _, k in ranked.iterrows():
        part = share(float(k["recoverable_s"]), grand)
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
            finding(
                "below-roof",
                str(k["kernel"]),
                f"{k['kernel_short']} {what} and runs at {pct(float(k['efficiency']))} of its roof "
                f"({roof}) over "
                f"{int(k['launches'])} launch(es){_busiest(k)}: {format_si(float(k['recoverable_s']), 's')} of "
                f"{format_si(float(k['total_duration_s']), 's')} recoverable ({pct(part)} of profiled time).",
                # Little recoverable time: worth knowing, not worth a warning.
                severity=None if part >= 0.05 else "info",
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
    return f" (busiest unit: {UNIT_LABELS[limiter]} at {pct(float(util))})"


def unplaced_findings(evidence: Evidence) -> list[Finding]:
    """Kernels that could not be placed, one finding per reason."""
    kernels, grand = evidence.kernels, evidence.grand
    found: list[Finding] = []
    unplaced = kernels[kernels["bound"] == "not placeable"]
    # Failed profiles are a finding of their own (their time is unknown, not 0%).
    failed = unplaced["bound_reason"].astype(str).str.startswith("profiling failed")
    unplaced = unplaced[~failed.to_numpy(dtype=bool)]
    for reason, rows in unplaced.groupby("bound_reason", sort=False):
        part = share(float(np.nansum(rows["total_duration_s"])), grand)
        names = ", ".join(str(x) for x in rows["kernel_short"].head(3))
        more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
        found.append(
            finding(
                "not-placeable",
                str(rows["kernel"].iloc[0]) if len(rows) == 1 else None,
                f"{len(rows)} kernel(s) not placed ({reason}): {names}{more}; {pct(part)} of profiled time.",
                source=str(rows["source"].iloc[0]),
            )
        )
    return found


def failed_profile_findings(evidence: Evidence) -> list[Finding]:
    """Launches whose profiling failed, one finding per kernel name, with the launches' counts.

    Their time is unknown, so no share of the profiled time is claimed for them.
    """
    launches = evidence.launches
    if "profiling_failed" not in launches:
        return []
    failed = launches[launches["profiling_failed"].notna().to_numpy(dtype=bool)]
    found: list[Finding] = []
    for kernel, rows in failed.groupby("kernel", sort=False, dropna=False):
        reasons = list(dict.fromkeys(str(r) for r in rows["profiling_failed"]))
        ids = ", ".join(str(i) for i in rows["id"].head(5))
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        found.append(
            finding(
                "profiling-failed",
                None if pd.isna(kernel) else str(kernel),
                f"{len(rows)} launch(es) of {rows['kernel_short'].iloc[0]} (ID {ids}{more}): "
                f"{'; '.join(reasons[:3])}; their time is unknown and not in the profiled time.",
                source=str(rows["source"].iloc[0]),
            )
        )
    return found


def communication_findings(evidence: Evidence) -> list[Finding]:
    """The share of time in collective kernels, which no DRAM roof judges."""
    kernels = evidence.kernels
    comm = kernels[kernels["bound"] == "communication"]
    if comm.empty:
        return []
    part = share(float(np.nansum(comm["total_duration_s"])), evidence.grand)
    return [
        finding(
            "communication",
            None,
            f"{len(comm)} collective kernel(s) take {pct(part)} of profiled time; they are bound by "
            "the interconnect and not judged against the DRAM roof.",
        )
    ]


def mixed_definition_findings(evidence: Evidence) -> list[Finding]:
    """Cache levels whose bytes come from more than one metric family."""
    launches = evidence.launches
    found: list[Finding] = []
    for level in ("l2", "l1"):
        col = f"{level}_bytes_basis"
        if col in launches:
            kinds = [k for k in pd.unique(launches[col].dropna())]
            if len(kinds) > 1:
                found.append(
                    finding(
                        "mixed-definitions",
                        None,
                        f"{level.upper()} bytes come from different metric families ({', '.join(map(str, kinds))}); "
                        "they count different things and are not comparable across launches.",
                    )
                )
    return found


def theory_findings(evidence: Evidence) -> list[Finding]:
    """The findings that need theory: excess traffic, a model that misfits, unmatched kernels."""
    kernels, theory, unmatched = evidence.kernels, evidence.theory, evidence.unmatched
    if theory is None:
        return []
    found: list[Finding] = []
    if "byte_excess" in kernels:
        found.extend(_excess_traffic_findings(kernels, theory))
        if theory.model is not None:
            found.extend(_theory_mismatch_findings(kernels, theory))
    if unmatched:
        names = ", ".join(short_name(u) for u in unmatched[:5])
        more = f" and {len(unmatched) - 5} more" if len(unmatched) > 5 else ""
        found.append(
            finding(
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
            finding(
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
        finding(
            "theory-mismatch",
            None,
            f"{len(below)} of {len(modelled)} kernel groups with model theory move less than "
            f"half their minimal DRAM bytes ({names}): the model's shapes probably do not "
            f"match the run (check --phase {theory.phase}, --batch {theory.batch}, "
            f"--seq {theory.seq}, --tp {theory.tp}), or inputs stayed in L2 (ncu "
            "--cache-control none).",
        )
    ]


#: Implied peak and roof further apart than this (relative) give a finding.
MISMATCH = 0.10


def _fitting_gpus(implied: float, cc: str | None, sms: int | None = None) -> list[str]:
    """Table GPUs whose DRAM bandwidth is within :data:`MISMATCH` of ``implied``, closest first.

    A GPU of another compute capability, or of another SM count than the
    export's ``sms``, or a theory-only device, is no fit whatever its bandwidth.
    """
    fits = []
    for spec in builtin_gpus():
        bandwidth = spec.memory.get("dram")
        # A theory-only device (a TPU, an AMD GPU) is no fit for an ncu export.
        if spec.theory_only or not bandwidth or (cc and spec.cc and spec.cc != cc):
            continue
        if sms and spec.sms and spec.sms != sms:
            continue
        off = abs(bandwidth / implied - 1.0)
        if off <= MISMATCH:
            fits.append((off, f"{spec.name} ({spec.key}, {format_si(bandwidth, 'B/s')})"))
    return [text for _, text in sorted(fits)]


def roof_mismatch_findings(evidence: Evidence) -> list[Finding]:
    """``roof-mismatch`` per device whose DRAM roof disagrees with the peak ncu's DRAM % implies."""
    launches, devices = evidence.launches, evidence.devices
    pct = dram_pct(launches)
    if pct is None or "peak_dram_bytes_per_s" not in launches:
        return []
    implied = implied_dram_peak(column(launches, "dram_bytes_per_s"), pct)
    roof = column(launches, "peak_dram_bytes_per_s")
    usable = np.isfinite(implied) & np.isfinite(roof) & (roof > 0)
    if not usable.any():
        return []
    keys = pd.DataFrame(
        {
            col: launches[col].astype(object).fillna("").to_numpy()
            for col in ("source", "device_name", "cc")
        }
    )
    device_cc = {(d.source, d.device_name or ""): d.cc for d in devices}
    device_sms = {(d.source, d.device_name or ""): d.export_sms for d in devices}
    found: list[Finding] = []
    for (source, name, cc), rows in (
        keys[usable].groupby(["source", "device_name", "cc"], sort=False).indices.items()
    ):
        rows = np.flatnonzero(usable)[rows]
        cc = cc or device_cc.get((source, name)) or ""
        peak = float(np.median(implied[rows]))
        used = float(np.median(roof[rows]))
        if abs(peak / used - 1.0) <= MISMATCH:
            continue
        labels = launches["roof_source_dram"].astype(object).iloc[rows].dropna()
        origin = str(labels.value_counts().index[0]) if len(labels) else "unknown source"
        sms = device_sms.get((source, name))
        fits = _fitting_gpus(peak, str(cc) or None, sms)
        where = (f" of CC {cc}" if cc else "") + (f" with {sms} SMs" if sms else "")
        suggestion = (
            f"the built-in GPU{'s' if len(fits) > 1 else ''}{where} whose DRAM bandwidth fits: "
            + "; ".join(fits)
            if fits
            else f"no built-in GPU{where} has that DRAM bandwidth"
        )
        found.append(
            finding(
                "roof-mismatch",
                None,
                f"{source}: ncu's DRAM % implies a DRAM peak of {format_si(peak, 'B/s')} (median of "
                f"{len(rows)} launch(es) with DRAM at {MIN_RELIABLE_PCT:.0f}% or more) for device "
                f"{str(name) or 'unknown'!r}, but the DRAM roof in use is {format_si(used, 'B/s')} "
                f"({origin}): DRAM utilisations read {peak / used:.2f}x ncu's own DRAM %. "
                f"{suggestion[0].upper() + suggestion[1:]}; check --gpu / --roofs.",
                source=str(source),
            )
        )
    return found


def packed_fp32_findings(evidence: Evidence) -> list[Finding]:
    """``fp32-packed-uncounted``, one per input and CC: packed FP32 work the export did not count.

    Blackwell data-center chips (CC 10.x) execute packed FP32 instructions
    (``FADD2``, ``FMUL2``, ``FFMA2``: two lanes each), which ncu counts in
    ``sass_thread_inst_executed_op_{fadd2,fmul2,ffma2}_pred_on`` and its own FP
    roofline weighs 2, 2 and 4 FLOPs.  An export of such a chip with the FFMA
    counters but not the packed ones misses that work without a sign of it: the
    measures mark those launches' FP32 basis
    (:data:`~ncu_roofline.analysis.measures.PACKED_FP32_MISSING`) and this
    rule turns the marks into one finding per input and compute capability.
    """
    launches = evidence.launches
    if "flops_fp32_basis" not in launches:
        return []
    mask = text_mask(launches["flops_fp32_basis"], lambda t: t.endswith(PACKED_FP32_MISSING))
    if not mask.any():
        return []
    marked = launches[mask]
    out: list[Finding] = []
    keys = marked[["source", "cc"]].astype(object).fillna("")
    for (source, cc), rows in marked.groupby([keys["source"], keys["cc"]], sort=False):
        kernels = pd.unique(rows["kernel"].astype(object))
        message = (
            f"FP32 work may be undercounted: the GPU (CC {cc}) executes packed FP32 "
            f"(FADD2/FMUL2/FFMA2), but {len(rows)} launch(es) of {len(kernels)} kernel(s) have "
            "FFMA counters and no packed ones. Collect "
            "sm__sass_thread_inst_executed_op_{fadd2,fmul2,ffma2}_pred_on.sum "
            "(2, 2 and 4 FLOPs each)."
        )
        kernel = str(kernels[0]) if len(kernels) == 1 else None
        out.append(finding("fp32-packed-uncounted", kernel, message, source=str(source)))
    return out


def tensor_uncounted_findings(evidence: Evidence) -> list[Finding]:
    """``tensor-uncounted``, one per input and CC.

    The message names the kernels and the ncu options that would count
    their tensor work on that architecture.
    """
    launches = evidence.launches
    if "tensor_uncounted" not in launches:
        return []
    mask = launches["tensor_uncounted"].fillna(False).astype(bool).to_numpy()
    if not mask.any():
        return []
    marked = launches[mask]
    out: list[Finding] = []
    keys = marked[["source", "cc"]].astype(object).fillna("")
    for (source, cc), rows in marked.groupby([keys["source"], keys["cc"]], sort=False):
        kernels = pd.unique(rows["kernel"].astype(object))
        shorts = pd.unique(rows["kernel_short"].astype(object))
        names = ", ".join(str(k) for k in shorts[:NAMED_KERNELS])
        more = f" and {len(shorts) - NAMED_KERNELS} more" if len(shorts) > NAMED_KERNELS else ""
        shown = evidence_phrase(rows["tensor_uncounted_basis"])
        where = f" (CC {cc})" if cc else ""
        message = (
            f"{len(rows)} launch(es) of {len(shorts)} kernel(s) show tensor-core work ({shown}) "
            f"that no tensor counter of the export counts: {names}{more}. Their FLOPs would be "
            "only the FP32/FP16 instructions around the MMAs, so they are not placed. Collect the "
            f"tensor counters{where}: {collect_advice(str(cc) if cc else None)}."
        )
        kernel = str(kernels[0]) if len(kernels) == 1 else None
        out.append(finding("tensor-uncounted", kernel, message, source=str(source)))
    return out
