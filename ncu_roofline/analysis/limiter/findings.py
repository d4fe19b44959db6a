"""Findings from the limiter evidence: a limiter the roofline does not show,
a grid that leaves SMs idle, a partial last wave (tail effect), an
instruction mix that caps the FLOP roof.

Each is about a kernel group with at least :data:`MIN_TIME_SHARE` of the
profile's time, so an ordinary profile's many tiny kernels do not bury the
ones that matter.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ncu_roofline.analysis.catalogue import severity_of
from ncu_roofline.analysis.findings.finding import Evidence, Finding, Row, Rows, finding, pct
from ncu_roofline.analysis.limiter.judge import BUSY, LATENCY_CLASS, PRECISION_PIPE
from ncu_roofline.analysis.limiter.units import UNIT_LABELS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.si import format_si

#: Groups under this share of the profile's time get no limiter findings.
MIN_TIME_SHARE = 0.01
#: A limiter this much busier than the unit the roofline side names disagrees with it.
DISAGREE_MARGIN = 0.15
#: Under-filled latency-class groups listed one by one up to this many.
MAX_UNDER_FILLED = 3
#: Mix shares under this (FFMA under 80% of the instructions) are worth a finding.
MIX_SHARE_FINDING = 0.90
#: A partial last wave losing at least this share of a group's time is a finding
#: (:func:`~ncu_roofline.analysis.waves.tail_loss`).
TAIL_LOSS_FINDING = 0.10

#: The units each side of the ridge stands for.
_SIDE_UNITS = {
    "memory": ("dram",),
    "compute": ("fma-pipe", "fp64-pipe", "tensor-pipe", "alu-pipe", "issue", "sm"),
}
_PRECISION_LABEL = {"fp32": "FP32", "fp64": "FP64", "fp16": "FP16"}


def _label(key: object) -> str:
    return UNIT_LABELS.get(str(key), str(key))


def limiter_findings(evidence: Evidence) -> list[Finding]:
    """Every limiter finding about the analysed kernel groups."""
    kernels = evidence.kernels
    if "limiter" not in kernels or not len(kernels):
        return []
    grand = evidence.grand
    if not grand > 0:
        return []
    share = floats(kernels["total_duration_s"]) / grand
    rows = Rows(kernels)
    big = [rows[at] for at in np.flatnonzero(share >= MIN_TIME_SHARE).tolist()]
    out: list[Finding] = []
    starved: list[Finding] = []
    for k in big:
        thin = _under_filled(k)
        if thin is not None and str(k.get("limiter")) in LATENCY_CLASS:
            starved.append(thin)
            thin = None
        for found in (_disagrees(k), thin, _tail(k), _mix(k)):
            if found is not None:
                out.append(found)
    out.extend(_starved_summary(starved, big, grand))
    return out


def _starved_summary(starved: list[Finding], big: list[Row], grand: float) -> list[Finding]:
    """Under-filled latency-class groups: one finding each when few, one for all when many."""
    if len(starved) <= MAX_UNDER_FILLED:
        return starved
    names = {f.kernel for f in starved}
    times = [float(k["total_duration_s"]) for k in big if str(k["kernel"]) in names]
    seconds = float(np.nansum(np.asarray(times, dtype=np.float64)))
    listed = "; ".join(f.message.split(": ", 1)[0] for f in starved[:MAX_UNDER_FILLED])
    more = len(starved) - MAX_UNDER_FILLED
    message = (
        f"{len(starved)} kernel groups do not fill the GPU and keep no unit {pct(BUSY)} busy: "
        f"their {format_si(seconds, 's')} ({pct(seconds / grand)} of profiled time) is latency, "
        f"not recoverable at a roof. {listed}; and {more} more."
    )
    severity = severity_of("under-filled") if any(f.severity != "info" for f in starved) else "info"
    return [finding("under-filled", None, message, severity=severity, source=starved[0].source)]


def _found(
    kind: str,
    k: Mapping[str, Any],
    message: str,
    *,
    severity: str | None = None,
    recoverable_s: float | None = None,
) -> Finding:
    """A finding about group ``k``, at the catalogue's severity unless given."""
    return finding(
        kind,
        str(k["kernel"]),
        message,
        severity=severity,
        source=str(k["source"]),
        recoverable_s=recoverable_s,
    )


def _disagrees(k: Mapping[str, Any]) -> Finding | None:
    """The busiest unit is not the one the point's side of the ridge stands for."""
    side, limiter = k.get("side"), k.get("limiter")
    if k.get("bound") not in ("memory", "compute") or side not in _SIDE_UNITS:
        return None
    if not isinstance(limiter, str) or limiter in (*LATENCY_CLASS, "unknown"):
        return None
    if limiter in _SIDE_UNITS[str(side)]:
        return None
    busy = float(k["limiter_utilization"])
    if side == "memory":
        own, own_label = float(k["dram_utilization"]), "DRAM"
        where = "left of the ridge (memory side)"
    else:
        own = float(k["compute_utilization"])
        own_label = f"the {k['precision']} compute roof"
        where = "right of the ridge (compute side)"
    if not (np.isfinite(own) and np.isfinite(busy)) or busy - own < DISAGREE_MARGIN:
        return None
    rec = float(k["recoverable_s"])
    message = (
        f"{k['kernel_short']} sits {where}, but {own_label} is {pct(own)} busy while "
        f"{_label(limiter)} is {pct(busy)} ({k.get('limiter_basis') or 'ncu utilisation'}): "
        f"{_label(limiter)} limits it, so at most {format_si(rec, 's')} of "
        f"{format_si(float(k['total_duration_s']), 's')} is recoverable."
    )
    return _found("limiter-disagrees", k, message, recoverable_s=rec)


def _under_filled(k: Mapping[str, Any]) -> Finding | None:
    """A grid that leaves SMs without a block (:func:`~ncu_roofline.analysis.waves.under_filled`)."""
    if not bool(k.get("under_filled")) or k.get("bound") == "communication":
        return None
    # A count a column of objects holds (None where missing), or a number.
    held = k.get("grid_blocks")
    blocks = float("nan") if held is None else float(held)
    sms, waves = float(k["sm_count"]), float(k["waves"])
    occ = float(k["achieved_occupancy"])
    parts = []
    if np.isfinite(blocks):
        parts.append(
            f"{blocks:,.0f} block(s)" + (f" on {sms:,.0f} SMs" if np.isfinite(sms) else "")
        )
    if np.isfinite(waves):
        parts.append(f"{waves:.2f} waves")
    if np.isfinite(occ):
        parts.append(f"{pct(occ)} achieved occupancy")
    thin = str(k.get("limiter")) == "under-filled"
    if str(k.get("limiter")) in LATENCY_CLASS:
        tail = (
            f"no unit is more than {pct(float(k['max_utilization']))} busy, so its "
            f"{format_si(float(k['total_duration_s']), 's')} is latency, not recoverable at a roof"
        )
    else:
        tail = (
            f"it still keeps {_label(k.get('limiter'))} {pct(float(k['limiter_utilization']))} busy"
        )
    message = f"{k['kernel_short']} launches {', '.join(parts)}: {tail}."
    return _found("under-filled", k, message, severity=None if thin else "info")


def _tail(k: Mapping[str, Any]) -> Finding | None:
    """A partial last wave that idles at least :data:`TAIL_LOSS_FINDING` of the group's time."""
    loss = float(k.get("tail_loss", np.nan))
    if not np.isfinite(loss) or loss < TAIL_LOSS_FINDING or k.get("bound") == "communication":
        return None
    waves = float(k["waves"])
    total = float(k["total_duration_s"])
    lost = (
        f"about {format_si(loss * total, 's')} ({pct(loss)}) of {format_si(total, 's')} "
        "lost to the tail"
    )
    last = int(np.ceil(waves))
    frac = waves - np.floor(waves)
    if abs((1.0 - frac) / last - loss) > 0.01:
        # Launches of different wave counts: their mean is no one launch's shape.
        message = f"{k['kernel_short']} ends its launches with partial waves: {lost}."
    else:
        message = (
            f"{k['kernel_short']} runs {waves:.2f} waves per SM: the last of {last} waves holds "
            f"only {pct(frac)} of a wave's blocks. If every block takes as long, that wave takes "
            f"1/{last} of the runtime with {pct(1.0 - frac)} of the block slots idle: {lost}."
        )
    ncu = float(k.get("ncu_tail_pct", np.nan))
    if np.isfinite(ncu):
        # ncu's rule states the partial wave's whole share of the runtime, an
        # upper bound; ours counts only its idle block slots, so it is at most that.
        verdict = "within" if loss <= ncu / 100.0 + 1e-9 else "above"
        message += (
            f" ncu's own launch rule says the partial wave may take up to {ncu:g}% of the "
            f"runtime: this estimate is {verdict} that bound."
        )
    return _found("tail-effect", k, message, recoverable_s=loss * total)


def _mix(k: Mapping[str, Any]) -> Finding | None:
    """FADD/FMUL-heavy FP work that cannot reach the FMA-based FLOP roof."""
    share = float(k.get("mix_share", np.nan))
    precision = k.get("precision")
    if precision not in _PRECISION_LABEL or not np.isfinite(share) or share >= MIX_SHARE_FINDING:
        return None
    if k.get("bound") not in ("compute", "memory") or str(k.get("limiter")) in LATENCY_CLASS:
        return None
    # The mix caps the FLOP roof; it matters only where that roof is the limit.
    if k.get("side") != "compute" and k.get("limiter") != PRECISION_PIPE.get(str(precision)):
        return None
    fma_share = max(2.0 * share - 1.0, 0.0)
    compute = float(k["compute_utilization"])
    label = _PRECISION_LABEL[str(precision)]
    message = (
        f"{pct(1.0 - fma_share)} of {k['kernel_short']}'s {label} instructions are adds or "
        f"multiplies, not FMAs: the mix reaches at most {pct(share)} of the {label} roof "
        f"(an FMA counts two FLOPs per issue slot, an add or multiply one). It runs at "
        f"{pct(compute)} of the roof, {pct(compute / share)} of what the mix allows."
    )
    return _found("instruction-mix", k, message)
