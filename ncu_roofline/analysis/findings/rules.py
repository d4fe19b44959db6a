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

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.findings.finding import (
    Evidence,
    Finding,
    Rows,
    finding,
    pct,
    share,
)
from ncu_roofline.analysis.limiter.units import UNIT_LABELS
from ncu_roofline.analysis.measures import PACKED_FP32_MISSING
from ncu_roofline.analysis.roofs.assign import commonest
from ncu_roofline.analysis.roofs.infer import MIN_RELIABLE_PCT, dram_pct, implied_dram_peak
from ncu_roofline.analysis.tensor_check import NAMED_KERNELS, collect_advice, evidence_phrase
from ncu_roofline.core.frame import Columns, column, floats, missing_values, object_column
from ncu_roofline.core.grouping import distinct_codes, row_groups, text_mask
from ncu_roofline.core.hardware import builtin_gpus
from ncu_roofline.core.names import short_name
from ncu_roofline.core.si import format_si
from ncu_roofline.core.table import distinct, present
from ncu_roofline.theory.causes import causes_for
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
    if "above_roof" not in launches or missing_values(launches["above_roof"]).all():
        return found
    above = launches["above_roof"]
    kernel_code, kernels = distinct_codes(object_column(launches, "kernel"))
    short = object_column(launches, "kernel_short")
    source = object_column(launches, "source")
    for what, (util_col, src_name) in _ABOVE_ROOF_UTILISATION.items():
        flagged = np.flatnonzero(text_mask(above, _mentions(what)))
        if not flagged.size:
            continue
        roof_source = object_column(launches, src_name) if src_name in launches else None
        utilisation = column(launches, util_col) if util_col is not None else None
        # A launch without a kernel name is in no kernel's finding.
        for part in _groups(kernel_code[flagged]):
            rows = flagged[part]
            first = int(rows[0])
            src = roof_source[first] if roof_source is not None else None
            src = src if isinstance(src, str) else None
            if utilisation is None:
                message = (
                    f"{len(rows)} launch(es) of {short[first]} would run above the "
                    "tensor-core roof with the approximate FLOPs-per-instruction factor; the kernel "
                    "probably uses a smaller MMA shape (e.g. m16n8k8: 2048 FLOPs per instruction, "
                    "not 4096). Collect sm__ops_path_tensor_* for exact counts."
                )
            else:
                # The largest known (NaN only where none is).
                worst = float(np.fmax.reduce(utilisation[rows]))
                message = (
                    f"{len(rows)} launch(es) of {short[first]} reach {pct(worst)} of the "
                    f"{what} roof ({src or 'unknown source'}); likely cause: {_cause_of_above(src)}."
                )
            kernel = kernels[int(kernel_code[first])]
            found.append(finding("above-roof", str(kernel), message, source=str(source[first])))
    return found


def _mentions(what: str) -> Callable[[str], bool]:
    """A test of whether a text holds ``what``."""
    return lambda text: what in text


def _groups(
    codes: npt.NDArray[np.integer[Any]], missing: bool = False
) -> list[npt.NDArray[np.intp]]:
    """The positions holding each code, in order of each code's first position.

    Code -1 (a missing value) is a group of its own where ``missing`` says
    so (as grouping with ``dropna=False`` keeps it), else left out.
    """
    if not len(codes):
        return []
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    parts = [
        part
        for part, at in zip(np.split(order, starts[1:]), starts.tolist(), strict=True)
        if missing or ordered[at] >= 0
    ]
    # Each part is in row order (a stable sort): its first row is where it first appears.
    parts.sort(key=lambda part: int(part[0]))
    return parts


def below_roof_findings(evidence: Evidence) -> list[Finding]:
    """Groups far below their roof, ranked by recoverable time."""
    kernels, grand = evidence.kernels, evidence.grand
    found: list[Finding] = []
    bound = object_column(kernels, "bound")
    ranked = np.flatnonzero(
        (column(kernels, "efficiency") < FAR_BELOW_EFFICIENCY)
        & text_mask(bound, lambda t: t in ("memory", "compute", "latency"))
        & (column(kernels, "recoverable_s") >= MIN_RECOVERABLE_SHARE * grand)
    )[:MAX_BELOW_ROOF]
    rows = Rows(kernels)
    for at in ranked.tolist():
        k = rows[at]
        part = share(float(k["recoverable_s"]), grand)
        bound_class = str(k["bound"])
        if bound_class == "latency":
            what = f"is latency-bound ({k['bound_reason']})"
        else:
            what = f"is {bound_class}-bound"
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


def _busiest(k: Mapping[str, Any]) -> str:
    """``" (busiest unit: L1/TEX at 55%)"`` where the limiter names a unit."""
    limiter = k.get("limiter")
    util = k.get("limiter_utilization")
    if not isinstance(limiter, str) or limiter not in UNIT_LABELS or util is None or util != util:
        return ""
    return f" (busiest unit: {UNIT_LABELS[limiter]} at {pct(float(util))})"


def unplaced_findings(evidence: Evidence) -> list[Finding]:
    """Kernels that could not be placed, one finding per reason."""
    kernels, grand = evidence.kernels, evidence.grand
    found: list[Finding] = []
    reason = object_column(kernels, "bound_reason")
    unplaced = text_mask(object_column(kernels, "bound"), lambda t: t == "not placeable")
    # Failed profiles are a finding of their own (their time is unknown, not 0%).
    failed = text_mask(reason, lambda t: t.startswith("profiling failed"))
    kept = np.flatnonzero(unplaced & ~failed)
    reason_code, reasons = distinct_codes(reason[kept])
    total = column(kernels, "total_duration_s")
    kernel = object_column(kernels, "kernel")
    short = object_column(kernels, "kernel_short")
    source = object_column(kernels, "source")
    # A group without a reason is in no reason's finding.
    for part in _groups(reason_code):
        rows = kept[part]
        why = reasons[int(reason_code[part[0]])]
        part_share = share(float(np.nansum(total[rows])), grand)
        names = ", ".join(str(x) for x in short[rows[:3]])
        more = f" and {len(rows) - 3} more" if len(rows) > 3 else ""
        found.append(
            finding(
                "not-placeable",
                str(kernel[rows[0]]) if len(rows) == 1 else None,
                f"{len(rows)} kernel(s) not placed ({why}): {names}{more}; {pct(part_share)} of profiled time.",
                source=str(source[rows[0]]),
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
    failed = np.flatnonzero(~missing_values(launches["profiling_failed"]))
    if not failed.size:
        return []
    reason = object_column(launches, "profiling_failed")
    kernel_code, kernels = distinct_codes(object_column(launches, "kernel")[failed])
    ids = column(launches, "id")
    short = object_column(launches, "kernel_short")
    source = object_column(launches, "source")
    found: list[Finding] = []
    # Launches without a kernel name are one finding of their own.
    for part in _groups(kernel_code, missing=True):
        rows = failed[part]
        code = int(kernel_code[part[0]])
        reasons = [str(r) for r in distinct(reason[rows])]
        listed = ", ".join(_id_text(i) for i in ids[rows[:5]].tolist())
        more = f" and {len(rows) - 5} more" if len(rows) > 5 else ""
        found.append(
            finding(
                "profiling-failed",
                None if code < 0 else str(kernels[code]),
                f"{len(rows)} launch(es) of {short[rows[0]]} (ID {listed}{more}): "
                f"{'; '.join(reasons[:3])}; their time is unknown and not in the profiled time.",
                source=str(source[rows[0]]),
            )
        )
    return found


def _id_text(value: float) -> str:
    """A launch ID as the launch frame's integer column prints it (``<NA>`` where missing)."""
    if value != value:
        return "<NA>"
    return str(int(value)) if float(value).is_integer() else str(value)


def communication_findings(evidence: Evidence) -> list[Finding]:
    """The share of time in collective kernels, which no DRAM roof judges."""
    kernels = evidence.kernels
    comm = text_mask(object_column(kernels, "bound"), lambda t: t == "communication")
    if not comm.any():
        return []
    part = share(float(np.nansum(column(kernels, "total_duration_s")[comm])), evidence.grand)
    return [
        finding(
            "communication",
            None,
            f"{int(comm.sum())} collective kernel(s) take {pct(part)} of profiled time; they are bound by "
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
            _, kinds = distinct_codes(launches[col])
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


def _excess_traffic_findings(kernels: Columns, theory: TheoryConfig) -> list[Finding]:
    """``excess-traffic`` for groups moving far more bytes than their math needs."""
    found: list[Finding] = []
    # Top-k / sampling kernels make several passes by design: only far
    # more than that is excess.
    threshold = np.where(
        text_mask(object_column(kernels, "theory_op"), lambda t: t == "sampling"),
        max(theory.excess_threshold, SAMPLING_EXPECTED_EXCESS),
        theory.excess_threshold,
    )
    communication = text_mask(object_column(kernels, "bound"), lambda t: t == "communication")
    selected = np.flatnonzero(
        (column(kernels, "byte_excess") >= threshold)
        & (column(kernels, "time_share") >= theory.min_time_share)
        & ~communication
    )
    rows = Rows(kernels)
    for at in selected.tolist():
        k = rows[at]
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


def _theory_mismatch_findings(kernels: Columns, theory: TheoryConfig) -> list[Finding]:
    """Many modelled groups moving under half their minimal bytes: the model misfits the run."""
    confidence = object_column(kernels, "confidence")
    modelled = present(confidence) & ~text_mask(confidence, lambda t: t == "user")
    below = np.flatnonzero(modelled & (column(kernels, "byte_excess") < 0.5))
    n_modelled, n_below = int(modelled.sum()), len(below)
    if not (n_modelled and (n_below >= 3 or n_below >= 0.25 * n_modelled)):
        return []
    names = ", ".join(str(x) for x in object_column(kernels, "kernel_short")[below[:4]])
    return [
        finding(
            "theory-mismatch",
            None,
            f"{n_below} of {n_modelled} kernel groups with model theory move less than "
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
    device_cc = {(d.source, d.device_name or ""): d.cc for d in devices}
    device_sms = {(d.source, d.device_name or ""): d.export_sms for d in devices}
    roof_source = object_column(launches, "roof_source_dram")
    found: list[Finding] = []
    for (source, name, cc), rows in _by_keys(
        launches, ("source", "device_name", "cc"), np.flatnonzero(usable)
    ):
        cc = cc or device_cc.get((source, name)) or ""
        peak = float(np.median(implied[rows]))
        used = float(np.median(roof[rows]))
        if abs(peak / used - 1.0) <= MISMATCH:
            continue
        labels = roof_source[rows]
        labels = labels[present(labels)]
        origin = commonest(labels) if len(labels) else "unknown source"
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
    names_of = object_column(launches, "kernel")
    out: list[Finding] = []
    for (source, cc), rows in _by_keys(launches, ("source", "cc"), np.flatnonzero(mask)):
        kernels = _values(names_of[rows])
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
    # Set where True (or any number but 0); a missing mark is no mark.
    marks = floats(launches["tensor_uncounted"])
    mask = (marks != 0) & ~np.isnan(marks)
    if not mask.any():
        return []
    names_of = object_column(launches, "kernel")
    short = object_column(launches, "kernel_short")
    basis = object_column(launches, "tensor_uncounted_basis")
    out: list[Finding] = []
    for (source, cc), rows in _by_keys(launches, ("source", "cc"), np.flatnonzero(mask)):
        kernels = _values(names_of[rows])
        shorts = _values(short[rows])
        names = ", ".join(str(k) for k in shorts[:NAMED_KERNELS])
        more = f" and {len(shorts) - NAMED_KERNELS} more" if len(shorts) > NAMED_KERNELS else ""
        shown = evidence_phrase(basis[rows])
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


def _by_keys(
    frame: Columns, names: tuple[str, ...], rows: npt.NDArray[np.intp]
) -> list[tuple[list[Any], npt.NDArray[np.intp]]]:
    """The rows ``rows`` of ``frame`` by the values of the columns ``names``, in order of
    first appearance: each group's values (a missing one as the blank text) and rows.

    A missing value and a blank text are one group, as grouping the columns
    filled with a blank gives.
    """
    if not len(rows):
        return []
    keys = [object_column(frame, name)[rows] for name in names]
    out = []
    for part in _groups(row_groups(keys, "")):
        first = int(part[0])
        values = [key[first] for key in keys]
        out.append((["" if v is None else v for v in values], rows[part]))
    return out


def _values(values: npt.NDArray[np.object_]) -> list[Any]:
    """The distinct values, in order of first appearance, a missing one (None) among them."""
    codes, uniques = distinct_codes(values)
    _, firsts = np.unique(codes, return_index=True)
    return [None if code < 0 else uniques[code] for code in codes[np.sort(firsts)].tolist()]
