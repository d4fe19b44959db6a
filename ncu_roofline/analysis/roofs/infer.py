"""Which GPU of the built-in table an export ran on, when the export does not say.

Many exports carry no device name (the ``Kernel Time`` and ``Block Size,
Grid Size, Device, CC`` CSV headers have none) or a name the table does not
know, yet they hold facts about the hardware: the compute capability, the SM
count, ncu's DRAM peak or the memory clock and bus width, ncu's DRAM % next
to a measured DRAM rate (which implies the peak), the DRAM rate reached, and
the SM clock, which ncu locks to the base clock by default.

:func:`infer_gpu` weighs that evidence against the table.  The compute
capability must be known and must match; an entry is ruled out by a
different SM count, a DRAM peak more than :data:`DRAM_RULE_OUT` away, or a
DRAM rate measured above its peak.  Each remaining entry scores one point
per fact that positively matches it (the SM count, a DRAM peak within
:data:`DRAM_MATCH`, a steady SM clock within :data:`BASE_CLOCK_MATCH` of its
base clock).  Entries whose roofs are identical (the 16 GB and 32 GB V100
PCIe cards) count as one.  The entry with the highest score is used only
when its score is at least one and no other entry ties it: the compute
capability alone never decides, because the table lists a few GPUs of each
architecture and lacks the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.roofs.sources import attribute_dram_peak, profile_dram_peak, sm_count
from ncu_roofline.core.frame import Columns, FloatArray, optional_column
from ncu_roofline.core.hardware import GpuSpec, builtin_gpus
from ncu_roofline.core.si import format_si

#: ncu's DRAM % below this is too coarse (two decimals in auto units) to imply a peak.
MIN_RELIABLE_PCT = 5.0
#: ncu's DRAM speed-of-light percentage, in the order the columns are preferred.
DRAM_PCT_COLUMNS = (
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed",
)
#: A DRAM peak this close to an entry's bandwidth is evidence for it ...
DRAM_MATCH = 0.04
#: ... and one further away than this rules the entry out.
DRAM_RULE_OUT = 0.10
#: A measured DRAM rate above an entry's bandwidth by more than this rules it out.
DRAM_RATE_MARGIN = 1.10
#: A steady SM clock this close to an entry's base clock is evidence for it.
BASE_CLOCK_MATCH = 0.015
#: SM clocks spreading less than this (max / min) across launches were locked.
STEADY_CLOCK = 1.02


def dram_pct(frame: Columns) -> FloatArray | None:
    """ncu's DRAM % per launch (percent), from the first column the frame has; None without one."""
    out: FloatArray | None = None
    for name in DRAM_PCT_COLUMNS:
        values = optional_column(frame, name)
        if values is not None:
            out = values if out is None else np.where(np.isnan(out), values, out)
    return out


def implied_dram_peak(rate: FloatArray, pct: FloatArray) -> FloatArray:
    """The DRAM peak each launch implies: measured bytes/s over ncu's DRAM fraction.

    NaN where the percentage is under :data:`MIN_RELIABLE_PCT` or either
    value is missing.
    """
    # An overflow is an infinite implied peak, refused below like a zero.
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        implied = rate / (pct / 100.0)
    ok = np.isfinite(implied) & (implied > 0) & (pct >= MIN_RELIABLE_PCT)
    return np.where(ok, implied, np.nan)


def _median(values: FloatArray | None) -> float | None:
    if values is None:
        return None
    known = values[np.isfinite(values) & (values > 0)]
    return float(np.median(known)) if len(known) else None


@dataclass(frozen=True)
class Evidence:
    """What an export says about the hardware of one device."""

    cc: str | None
    sms: int | None = None
    dram_peak: float | None = None
    #: Where the DRAM peak comes from, for the note.
    dram_how: str | None = None
    #: The highest DRAM rate measured (bytes/s): the peak is at least this.
    dram_reached: float | None = None
    #: The SM clock when it held steady across launches (Hz).
    steady_clock: float | None = None

    def facts(self) -> list[str]:
        """The evidence as short phrases."""
        out = [f"CC {self.cc}"] if self.cc else []
        if self.sms:
            out.append(f"{self.sms} SMs")
        if self.dram_peak:
            out.append(f"DRAM peak {format_si(self.dram_peak, 'B/s')} {self.dram_how}")
        if self.dram_reached:
            out.append(f"{format_si(self.dram_reached, 'B/s')} of DRAM traffic measured")
        if self.steady_clock:
            out.append(f"SM clock {self.steady_clock / 1e6:.0f} MHz on every launch")
        return out


def gather_evidence(
    df: Columns,
    rows: npt.NDArray[np.bool_],
    cc: str | None,
    clock: FloatArray,
    dram_rate: FloatArray | None,
) -> Evidence:
    """The hardware facts of the launches ``rows`` of the profile frame ``df``."""
    sms = _median(sm_count(df)[rows])
    dram: float | None = None
    how = None
    attrs = attribute_dram_peak(df)
    pct = dram_pct(df)
    for values, label in (
        (profile_dram_peak(df), "from ncu's peak metrics"),
        (attrs, "from the memory clock and bus width"),
        (
            None if pct is None or dram_rate is None else implied_dram_peak(dram_rate, pct),
            "implied by ncu's DRAM %",
        ),
    ):
        found = _median(None if values is None else values[rows])
        if found is not None:
            dram, how = found, label
            break
    reached = None
    if dram_rate is not None:
        rates = dram_rate[rows]
        rates = rates[np.isfinite(rates) & (rates > 0)]
        reached = float(rates.max()) if len(rates) else None
    known = clock[rows]
    known = known[np.isfinite(known) & (known > 0)]
    steady = (
        float(np.median(known))
        if len(known) and known.max() <= STEADY_CLOCK * known.min()
        else None
    )
    return Evidence(
        cc=cc,
        sms=round(sms) if sms else None,
        dram_peak=dram,
        dram_how=how,
        dram_reached=reached,
        steady_clock=steady,
    )


@dataclass(frozen=True)
class _Fit:
    spec: GpuSpec
    score: int
    reasons: tuple[str, ...]


def _judge(spec: GpuSpec, ev: Evidence) -> _Fit | str:
    """How well ``spec`` fits the evidence, or why the evidence rules it out."""
    reasons: list[str] = []
    if ev.sms and spec.sms:
        if spec.sms != ev.sms:
            return f"{spec.key} ({spec.sms} SMs)"
        reasons.append(f"{ev.sms} SMs")
    bandwidth = spec.memory.get("dram")
    if ev.dram_peak and bandwidth:
        off = abs(bandwidth / ev.dram_peak - 1.0)
        if off > DRAM_RULE_OUT:
            return f"{spec.key} (DRAM {format_si(bandwidth, 'B/s')})"
        if off <= DRAM_MATCH:
            reasons.append(f"DRAM peak {format_si(ev.dram_peak, 'B/s')} {ev.dram_how}")
    if ev.dram_reached and bandwidth and ev.dram_reached > DRAM_RATE_MARGIN * bandwidth:
        return (
            f"{spec.key} (DRAM {format_si(bandwidth, 'B/s')}, below the "
            f"{format_si(ev.dram_reached, 'B/s')} measured)"
        )
    if (
        ev.steady_clock
        and spec.base_hz
        and (abs(ev.steady_clock / spec.base_hz - 1.0) <= BASE_CLOCK_MATCH)
    ):
        reasons.append(
            f"SM clock {ev.steady_clock / 1e6:.0f} MHz on every launch, its "
            f"{spec.base_hz / 1e6:.0f} MHz base clock (ncu locks clocks to base by default)"
        )
    return _Fit(spec, len(reasons), tuple(reasons))


def _roofs_key(spec: GpuSpec) -> tuple[Any, ...]:
    """Entries with equal keys give identical roofs at any measured clock."""
    return (
        tuple(sorted(spec.compute.items())),
        tuple(sorted(spec.memory.items())),
        spec.boost_hz,
        spec.tensor_hz,
    )


@dataclass(frozen=True)
class Inference:
    """The GPU inferred for one device, or the table GPUs that fit when none could be chosen."""

    spec: GpuSpec | None
    #: Keys of the table GPUs that fit, when none was chosen.
    candidates: tuple[str, ...]
    #: One sentence saying how the GPU was inferred, or why none was.
    note: str | None


def infer_gpu(
    ev: Evidence, device_name: str | None, gpus: Sequence[GpuSpec] | None = None
) -> Inference:
    """The table GPU the evidence of one device points to (see the module docstring)."""
    who = (
        "the export does not name its GPU"
        if not device_name
        else f"device {device_name!r} is not in the built-in GPU table"
    )
    if not ev.cc:
        return Inference(
            None, (), f"{who} and gives no compute capability, so no GPU of the table is inferred"
        )
    table = builtin_gpus() if gpus is None else list(gpus)
    judged = [_judge(s, ev) for s in table if s.cc == ev.cc and not s.theory_only]
    fits = [f for f in judged if isinstance(f, _Fit)]
    ruled_out = [r for r in judged if isinstance(r, str)]
    facts = ", ".join(ev.facts())
    if not fits:
        return Inference(None, (), f"{who}, and no GPU of the table fits its evidence ({facts})")
    classes: dict[tuple[Any, ...], list[_Fit]] = {}
    for fit in fits:
        classes.setdefault(_roofs_key(fit.spec), []).append(fit)
    best = {key: max(members, key=lambda f: f.score) for key, members in classes.items()}
    top = max(f.score for f in best.values())
    leaders = [key for key, f in best.items() if f.score == top]
    keys = tuple(f.spec.key for f in fits)
    if top == 0:
        return Inference(
            None,
            keys,
            f"{who}; by its compute capability alone ({facts}) it could be {', '.join(keys)} of "
            "the built-in table, which does not identify a GPU: choose one with --gpu NAME",
        )
    if len(leaders) > 1:
        tied = tuple(f.spec.key for k in leaders for f in classes[k])
        return Inference(
            None,
            tied,
            f"{who}; its evidence ({facts}) fits {', '.join(tied)} of the built-in table equally "
            "well, so none is used: choose one with --gpu NAME",
        )
    chosen = best[leaders[0]]
    twins = [f.spec.key for f in classes[leaders[0]] if f.spec is not chosen.spec]
    others = [k for k in keys if k != chosen.spec.key and k not in twins]
    note = (
        f"{chosen.spec.name} ({chosen.spec.key}) inferred because {who}: "
        f"CC {ev.cc}, {', '.join(chosen.reasons)}"
    )
    if twins:
        note += f"; {', '.join(twins)} would give the same roofs"
    if others:
        note += f"; {', '.join(others)} also have CC {ev.cc} but fit less well"
    if ruled_out:
        note += f"; ruled out: {', '.join(ruled_out)}"
    return Inference(chosen.spec, (), note + "; name the GPU with --gpu if it is another")
