"""What changed between two profiles besides the code: GPU, clocks, ncu, metrics, work, launches.

:func:`side_facts` summarises one side (its GPUs, compute capabilities,
median SM and memory clocks, ncu versions, metric count, launches, FLOPs and
bytes: a :class:`~.records.SideFacts`); :func:`side_metrics` gives its metric
set; :func:`differences` lists how two sides differ, each difference a
:class:`~.records.DifferenceRecord` with ``kind`` one of :data:`DIFFERENCE_KINDS`.
:func:`group_cycles` gives the elapsed SM cycles of each kernel group, the
clock-independent measure of time that ``--basis cycles`` judges on.

Clocks agree "within noise" when their ratio is within ``noise`` of 1, the
same fraction that decides whether a group's time changed.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.compare.records import DifferenceRecord, HardwareRecord, SideFacts
from ncu_roofline.analysis.roofs.infer import DRAM_RULE_OUT, dram_pct, implied_dram_peak
from ncu_roofline.analysis.roofs.sources import attribute_dram_peak, profile_dram_peak, sm_count
from ncu_roofline.core.frame import column as _floats
from ncu_roofline.core.si import format_si

__all__ = [
    "DIFFERENCE_KINDS",
    "differences",
    "group_cycles",
    "hardware_verdict",
    "launch_cycles",
    "side_facts",
    "side_hardware",
    "side_metrics",
]

#: Kinds of difference, in the order they are reported.
DIFFERENCE_KINDS: tuple[str, ...] = (
    "gpu",
    "clock",
    "ncu-version",
    "metric-set",
    "work",
    "launch-count",
)

FloatArray = npt.NDArray[np.float64]

#: Elapsed-cycle counters, most direct first (all count SM-clock cycles).
_CYCLE_METRICS = (
    "sm__cycles_elapsed.avg",
    "smsp__cycles_elapsed.avg",
    "gpc__cycles_elapsed.max",
    "sm__cycles_elapsed.max",
)

#: How many metric names a metric-set difference lists.
_LISTED_METRICS = 5


def launch_cycles(analysis: Analysis) -> FloatArray:
    """Elapsed SM cycles of each launch (one invocation), NaN where the export lacks them.

    The exports' own counters first; else a measured duration times the
    measured SM clock, which is what the counter would have read.
    """
    src = analysis.profile.launches.reset_index(drop=True)
    n = len(src)
    out = np.full(n, np.nan)
    for name in _CYCLE_METRICS:
        if name in src:
            values = _floats(src, name)
            out = np.where(np.isnan(out), values, out)
    by_clock = _floats(analysis.launches, "duration_s") * _floats(analysis.launches, "sm_clock_hz")
    result: FloatArray = np.where(np.isnan(out), by_clock, out)
    return result


def group_cycles(analysis: Analysis, keys: tuple[str, ...]) -> pd.DataFrame:
    """Total elapsed cycles per ``keys`` group (missing key parts as ""), NaN if any launch lacks them."""
    launches = analysis.launches.reset_index(drop=True)
    frame = pd.DataFrame(
        {
            c: launches[c].astype(object).where(launches[c].notna(), "").astype(str)
            if c in launches
            else ""
            for c in keys
        }
    )
    inv = _floats(launches, "invocations")
    cycles = launch_cycles(analysis) * np.where(np.isnan(inv), 1.0, inv)
    frame["cycles"] = cycles
    frame["_missing"] = np.isnan(cycles)
    grouped = frame.groupby(list(keys), sort=False).agg(
        cycles=("cycles", "sum"), missing=("_missing", "any")
    )
    grouped.loc[grouped["missing"], "cycles"] = np.nan
    out: pd.DataFrame = grouped[["cycles"]].reset_index()
    return out


def _median(values: FloatArray) -> float | None:
    known = values[np.isfinite(values) & (values > 0)]
    return float(np.median(known)) if len(known) else None


def _unique(values: Any) -> list[str]:
    return sorted({str(v) for v in values if v is not None and not pd.isna(v) and str(v)})


def side_metrics(analysis: Analysis) -> list[str]:
    """The metric ids one side measured, sorted (:func:`differences` compares the sets)."""
    return sorted(analysis.profile.present_metrics())


def side_facts(analysis: Analysis, metrics: list[str]) -> SideFacts:
    """One side's GPUs, compute capabilities, clocks, ncu versions, metric count and work.

    ``metrics`` is :func:`side_metrics` of the side.
    """
    launches = analysis.launches
    src = analysis.profile.launches
    gpus = _unique(launches["device_name"]) if "device_name" in launches else []
    if not gpus:
        # No name in the export: the GPU the roofs were taken from, if any.
        gpus = _unique(d.gpu.name for d in analysis.roofs if d.gpu is not None)
    t = _floats(launches, "total_duration_s")
    return {
        "gpus": gpus,
        "gpu_named_by_export": bool(_unique(launches.get("device_name", []))),
        "ccs": _unique(launches["cc"]) if "cc" in launches else [],
        "sm_clock_hz": _median(_floats(launches, "sm_clock_hz")),
        "memory_clock_hz": _median(_floats(src, "dram__cycles_elapsed.avg.per_second")),
        "ncu_versions": _unique(s.ncu_version for s in analysis.profile.sources),
        "metric_count": len(metrics),
        "launches": int(launches["invocations"].fillna(1).sum()) if len(launches) else 0,
        "total_duration_s": float(np.nansum(t)) if len(t) and not np.isnan(t).all() else None,
        "cycles": _sum_known(launch_cycles(analysis)),
        "flops": _sum_known(_floats(launches, "flops")),
        "dram_bytes": _sum_known(_floats(launches, "dram_bytes")),
        "hardware": side_hardware(analysis, gpus),
    }


def side_hardware(analysis: Analysis, gpus: list[str] | None = None) -> HardwareRecord:
    """Everything one side's export (or the user's ``--gpu``) says about its hardware.

    The device names, compute capabilities, SM count and DRAM peak (ncu's
    peak metrics, else the memory clock and bus width, else implied by ncu's
    DRAM %) identify the hardware; the SM and memory clocks alone do not, a
    GPU can run at many clocks.  ``gpus`` is the side's GPU names as
    :func:`side_facts` found them.
    """
    launches = analysis.launches
    src = analysis.profile.launches
    names = _unique(launches["device_name"]) if "device_name" in launches else []
    ccs = _unique(launches["cc"]) if "cc" in launches else []
    chosen = analysis.options.get("gpu")
    roof_gpus = _unique(d.gpu.name for d in analysis.roofs if d.gpu is not None)
    how = "chosen" if chosen else "export" if names else "inferred" if roof_gpus else "none"
    sms = _median(sm_count(src)) if len(src) else None
    peak, peak_how = None, None
    pct = dram_pct(src) if len(src) else None
    rate = _floats(launches, "dram_bytes_per_s")
    for values, label in (
        (profile_dram_peak(src) if len(src) else None, "ncu's peak metrics"),
        (attribute_dram_peak(src) if len(src) else None, "the memory clock and bus width"),
        (None if pct is None else implied_dram_peak(rate, pct), "implied by ncu's DRAM %"),
    ):
        found = None if values is None else _median(values)
        if found is not None:
            peak, peak_how = found, label
            break
    gpu = chosen or (names[0] if names else None) or (", ".join(gpus or roof_gpus) or None)
    return {
        "names": names,
        "gpu": gpu,
        "gpu_how": how,
        "ccs": ccs,
        "sm_count": round(sms) if sms else None,
        "sm_clock_hz": _median(_floats(launches, "sm_clock_hz")),
        "memory_clock_hz": _median(_floats(src, "dram__cycles_elapsed.avg.per_second")),
        "dram_peak_bytes_s": peak,
        "dram_peak_how": peak_how,
        "identified": bool(names or ccs or sms or peak or chosen),
    }


def _hardware_facts(b: HardwareRecord, c: HardwareRecord) -> tuple[list[str], list[str]]:
    """The identity facts both sides know: those that differ, and those that agree, as phrases."""
    differ: list[str] = []
    agree: list[str] = []

    def fact(known: bool, same: bool, different: str, equal: str) -> None:
        if known:
            (agree if same else differ).append(equal if same else different)

    fact(
        b["gpu_how"] == c["gpu_how"] == "chosen",
        b["gpu"] == c["gpu"],
        f"GPU {b['gpu']} vs {c['gpu']} (chosen)",
        f"GPU {b['gpu']} (chosen)",
    )
    bn, cn = ", ".join(b["names"]), ", ".join(c["names"])
    fact(bool(bn and cn), bn == cn, f"device {bn} vs {cn}", f"device {bn}")
    bc, cc = ", ".join(b["ccs"]), ", ".join(c["ccs"])
    fact(bool(bc and cc), bc == cc, f"CC {bc} vs {cc}", f"CC {bc}")
    bs, cs = b["sm_count"], c["sm_count"]
    fact(bool(bs and cs), bs == cs, f"{bs} vs {cs} SMs", f"{bs} SMs")
    bp, cp = b["dram_peak_bytes_s"], c["dram_peak_bytes_s"]
    if bp and cp:
        fact(
            True,
            abs(cp / bp - 1) <= DRAM_RULE_OUT,
            f"DRAM peak {format_si(bp, 'B/s')} vs {format_si(cp, 'B/s')}",
            f"DRAM peak {format_si(bp, 'B/s')}",
        )
    return differ, agree


def hardware_verdict(
    b: HardwareRecord, c: HardwareRecord, clocks_differ: bool, same_gpu: bool = False
) -> tuple[str, str]:
    """Whether the sides ran on the same hardware, and why: ``(verdict, reason)``.

    ``verdict`` is ``different`` (an identity fact known on both sides
    differs), ``same`` (the facts known on both sides agree, or the user
    said so with ``same_gpu``), ``undecided`` (no fact known on both sides
    and the SM clocks differ: a clock change on one GPU cannot be told from
    another GPU) or ``unknown`` (no fact known on both sides, clocks agree).
    """
    differ, agree = _hardware_facts(b, c)
    if differ:
        return "different", "different hardware: " + "; ".join(differ)
    if agree:
        return "same", "the same hardware: " + ", ".join(agree)
    if same_gpu:
        return "same", "the same GPU, as the user said (--same-gpu)"
    if clocks_differ:
        return "undecided", (
            "cannot tell a clock change from a different GPU: neither side identifies its "
            "hardware (no device name, compute capability, SM count or DRAM peak on both "
            f"sides) and the SM clocks differ (base {_hz(b['sm_clock_hz'])}, candidate "
            f"{_hz(c['sm_clock_hz'])}); say which with --same-gpu or --base-gpu/--candidate-gpu"
        )
    return "unknown", "neither side identifies its hardware; the clocks agree"


def _sum_known(values: FloatArray) -> float | None:
    """The sum, ``None`` unless every value is known."""
    if len(values) == 0 or np.isnan(values).any():
        return None
    return float(values.sum())


#: The facts :func:`clock_ratio` compares: clocks and work.
_RATIO_KEYS = Literal["sm_clock_hz", "memory_clock_hz", "flops", "dram_bytes"]


def clock_ratio(base: SideFacts, cand: SideFacts, key: _RATIO_KEYS) -> float | None:
    """Candidate over base value of a clock (or of the work), ``None`` when either is unknown."""
    a, b = base[key], cand[key]
    if a is None or b is None or a <= 0:
        return None
    return float(b) / float(a)


def beyond(ratio_value: float | None, noise: float) -> bool:
    """Whether a candidate/base ratio is further than ``noise`` from 1."""
    return ratio_value is not None and math.isfinite(ratio_value) and abs(ratio_value - 1) > noise


def different_gpus(base: SideFacts, cand: SideFacts) -> bool:
    """Whether the sides ran on different GPUs: names or compute capabilities known and unequal."""
    if base["ccs"] and cand["ccs"] and base["ccs"] != cand["ccs"]:
        return True
    named = base["gpu_named_by_export"] and cand["gpu_named_by_export"]
    return bool(named and base["gpus"] != cand["gpus"])


def _gpu_text(side: SideFacts) -> str:
    name = ", ".join(side["gpus"]) or "unknown GPU"
    return name + (f" (CC {', '.join(side['ccs'])})" if side["ccs"] else "")


def _hz(value: float | None) -> str:
    return "unknown" if value is None else f"{value / 1e9:.3g} GHz"


def _metric_list(names: list[str]) -> str:
    shown = ", ".join(names[:_LISTED_METRICS])
    return shown + (
        f" and {len(names) - _LISTED_METRICS} more" if len(names) > _LISTED_METRICS else ""
    )


def differences(
    base: SideFacts,
    cand: SideFacts,
    metrics: tuple[list[str], list[str]],
    noise: float,
    work_changed_groups: int = 0,
    same_gpu: bool = False,
) -> list[DifferenceRecord]:
    """How the two sides differ besides the code, as ``{"kind", "message", ...}`` records.

    ``metrics`` is each side's :func:`side_metrics` (base, candidate);
    ``same_gpu`` is the user's word that both ran on one GPU.
    """
    out: list[DifferenceRecord] = []
    verdict, reason = hardware_verdict(
        base["hardware"],
        cand["hardware"],
        beyond(clock_ratio(base, cand, "sm_clock_hz"), noise),
        same_gpu,
    )
    if different_gpus(base, cand):
        out.append(
            {
                "kind": "gpu",
                "message": f"different GPUs: base {_gpu_text(base)}, candidate {_gpu_text(cand)}",
            }
        )
    elif verdict in ("different", "undecided"):
        out.append({"kind": "gpu", "message": reason})
    clocks: tuple[tuple[_RATIO_KEYS, str], ...] = (
        ("sm_clock_hz", "SM clock"),
        ("memory_clock_hz", "memory clock"),
    )
    for key, label in clocks:
        r = clock_ratio(base, cand, key)
        if beyond(r, noise):
            assert r is not None
            out.append(
                {
                    "kind": "clock",
                    "clock": key,
                    "ratio": r,
                    "message": f"{label} differs: base {_hz(base[key])}, candidate "
                    f"{_hz(cand[key])} (x{r:.3f}); time changes with the clock, "
                    "elapsed cycles do not",
                }
            )
    if (
        base["ncu_versions"]
        and cand["ncu_versions"]
        and base["ncu_versions"] != cand["ncu_versions"]
    ):
        out.append(
            {
                "kind": "ncu-version",
                "message": f"ncu versions differ: base {', '.join(base['ncu_versions'])}, "
                f"candidate {', '.join(cand['ncu_versions'])}",
            }
        )
    base_metrics, cand_metrics = metrics
    only_base = sorted(set(base_metrics) - set(cand_metrics))
    only_cand = sorted(set(cand_metrics) - set(base_metrics))
    if only_base or only_cand:
        parts = []
        if only_base:
            parts.append(f"{len(only_base)} only in the base ({_metric_list(only_base)})")
        if only_cand:
            parts.append(f"{len(only_cand)} only in the candidate ({_metric_list(only_cand)})")
        out.append({"kind": "metric-set", "message": "metric sets differ: " + "; ".join(parts)})
    out += _work_differences(base, cand, noise, work_changed_groups)
    if base["launches"] != cand["launches"]:
        out.append(
            {
                "kind": "launch-count",
                "message": f"launch counts differ: base {base['launches']}, candidate "
                f"{cand['launches']}",
            }
        )
    return out


def _work_differences(
    base: SideFacts, cand: SideFacts, noise: float, groups: int
) -> list[DifferenceRecord]:
    """A whole-profile work change (FLOPs or DRAM bytes beyond noise), and groups whose work changed."""
    out: list[DifferenceRecord] = []
    changes = []
    work: tuple[tuple[_RATIO_KEYS, str], ...] = (("flops", "FLOPs"), ("dram_bytes", "DRAM bytes"))
    for key, label in work:
        r = clock_ratio(base, cand, key)
        if beyond(r, noise):
            assert r is not None
            changes.append(f"{label} x{r:.3g}")
    if changes:
        out.append(
            {
                "kind": "work",
                "scope": "profile",
                "message": "the whole profile's work changed ("
                + ", ".join(changes)
                + "): a different problem size or batch is not a code change",
            }
        )
    elif groups:
        out.append(
            {
                "kind": "work",
                "scope": "groups",
                "message": f"{groups} kernel group(s) changed their work (FLOPs or bytes); "
                "they are judged on time per unit of work",
            }
        )
    return out
