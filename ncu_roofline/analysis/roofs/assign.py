"""Each launch's roofs chosen among the sources in order of precedence, and the
record of where each came from (the rules are in
:mod:`ncu_roofline.analysis.roofs`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.measures import TENSOR_DTYPES
from ncu_roofline.analysis.roofs.infer import Inference, gather_evidence, infer_gpu
from ncu_roofline.analysis.roofs.records import CeilingRecord, DeviceRoofsRecord
from ncu_roofline.analysis.roofs.sources import (
    derived_l1_roof,
    derived_roofs,
    profile_roofs,
    sm_clock,
    sm_count,
    spec_roofs,
)
from ncu_roofline.core.frame import Columns, object_column
from ncu_roofline.core.grouping import distinct_codes, row_groups, text_codes
from ncu_roofline.core.hardware import (
    COMPUTE_KEYS,
    MEMORY_KEYS,
    GpuSpec,
    match_device,
)
from ncu_roofline.core.table import absent

FloatArray = npt.NDArray[np.float64]

#: Every compute ceiling key, including tensor datatypes the table lacks.
ALL_COMPUTE_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys([*COMPUTE_KEYS, *(f"tensor_{d}" for d in TENSOR_DTYPES)])
)


def peak_column(key: str) -> str:
    """Launch-frame column holding the ceiling ``key`` (``fp32``, ``dram``)."""
    if key in MEMORY_KEYS:
        return f"peak_{key}_bytes_per_s"
    return f"peak_{key}_flops_per_s"


@dataclass
class Ceiling:
    """One roof of one device, summarised over the launches that use it."""

    key: str
    kind: str
    value: float
    low: float
    high: float
    source: str
    clock_hz: float | None
    launches: int
    #: The table marks this figure unsure or disputed.
    uncertain: bool = False

    def to_dict(self) -> CeilingRecord:
        """Plain data for reports."""
        return {
            "uncertain": self.uncertain,
            "key": self.key,
            "kind": self.kind,
            "unit": "byte/s"
            if self.kind == "memory"
            else ("OP/s" if "int" in self.key else "FLOP/s"),
            "value": self.value,
            "min": self.low,
            "max": self.high,
            "source": self.source,
            "clock_hz": self.clock_hz,
            "launches": self.launches,
        }


@dataclass
class DeviceRoofs:
    """The roofs used for one device of one input."""

    source: str
    device_name: str | None
    cc: str | None
    gpu: GpuSpec | None
    measured_sm_clock_hz: float | None
    ceilings: list[Ceiling] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: Keys of the table GPUs the export's evidence fits when none could be chosen.
    candidates: tuple[str, ...] = ()
    #: The SM count the export reports (device attributes), None without one:
    #: a table GPU with another SM count is never named as a fit.
    export_sms: int | None = None

    def to_dict(self) -> DeviceRoofsRecord:
        """Plain data for reports."""
        return {
            "source": self.source,
            "device_name": self.device_name,
            "cc": self.cc,
            "gpu": None
            if self.gpu is None
            else {
                "key": self.gpu.key,
                "name": self.gpu.name,
                "origin": self.gpu.origin,
                "sources": self.gpu.source,
            },
            "measured_sm_clock_hz": self.measured_sm_clock_hz,
            "ceilings": [c.to_dict() for c in self.ceilings],
            "notes": list(self.notes),
        }


@dataclass
class RoofAssignment:
    """Per-launch ceilings with their sources, and a per-device summary."""

    peaks: dict[str, FloatArray]
    sources: dict[str, npt.NDArray[np.object_]]
    devices: list[DeviceRoofs]
    sm_clock_hz: FloatArray


def _device_groups(
    df: Columns,
) -> list[tuple[str, str | None, str | None, npt.NDArray[np.bool_]]]:
    """The launches of each (source, device name, CC), in order of first appearance.

    A missing source is the empty one; a missing name or CC is its own
    value, told apart from the empty text (both read as no name or CC).
    """
    source = object_column(df, "source")
    name = object_column(df, "device_name")
    cc = object_column(df, "cc")
    keys = (
        np.where(absent(source), "", source),
        np.where(absent(name), "\0", name),
        np.where(absent(cc), "\0", cc),
    )
    group_of = row_groups(list(keys))
    # Groups are numbered in order of first appearance: each one's first row.
    _, firsts = np.unique(group_of, return_index=True)
    groups = []
    for group, first in enumerate(firsts.tolist()):
        src, dev, cap = (str(k[first]) for k in keys)
        groups.append(
            (
                src,
                None if dev in ("\0", "") else dev,
                None if cap in ("\0", "") else cap,
                group_of == group,
            )
        )
    return groups


def _label_spec(label: str, chosen: GpuSpec | None, table: GpuSpec | None) -> GpuSpec | None:
    if label.startswith("chosen"):
        return chosen
    if label.startswith("table"):
        return table
    return None


def _ceiling_clock(
    key: str, label: str, measured: float | None, chosen: GpuSpec | None, table: GpuSpec | None
) -> float | None:
    """The SM clock a ceiling's value corresponds to."""
    if key == "dram":
        return None
    spec = _label_spec(label, chosen, table)
    if spec is None or "measured SM clock" in label:
        return measured
    return spec.clock_for(key) if key in (*COMPUTE_KEYS, *MEMORY_KEYS) else None


def _uncertain(key: str, label: str, chosen: GpuSpec | None, table: GpuSpec | None) -> bool:
    """Whether a table figure is marked unsure or disputed in its sources."""
    spec = _label_spec(label, chosen, table)
    return spec is not None and (key in spec.unsure or key in spec.disputed)


def _spec_label(spec: GpuSpec, how: str, inferred: bool = False) -> str:
    if spec.origin == "built-in":
        return (
            f"{how}: {spec.name} (built-in table{', inferred from the export' if inferred else ''})"
        )
    return f"{how}: {spec.name} ({spec.origin})"


class _Offers:
    """Per-launch ceilings being chosen: the first finite, positive offer of a key wins."""

    def __init__(self, n: int, keys: Sequence[str]) -> None:
        self.peaks = {k: np.full(n, np.nan) for k in keys}
        self.sources = {k: np.full(n, None, dtype=object) for k in keys}

    def offer(self, values: dict[str, FloatArray], label: str, rows: npt.NDArray[np.bool_]) -> None:
        """Offer ``values`` under ``label`` to ``rows`` that have no ceiling of that key yet."""
        for key, arr in values.items():
            if key not in self.peaks:
                continue
            take = rows & np.isnan(self.peaks[key]) & np.isfinite(arr) & (arr > 0)
            self.peaks[key][take] = arr[take]
            self.sources[key][take] = label


def assign_roofs(
    df: Columns,
    basis: dict[str, npt.NDArray[np.object_]],
    explicit: Sequence[GpuSpec] | None = None,
    clocks: str = "measured",
    dram_rate: FloatArray | None = None,
) -> RoofAssignment:
    """Choose every ceiling of every launch and record where it came from.

    ``dram_rate`` is the measured DRAM bytes/s per launch, evidence for
    inferring the GPU of a device the table does not match by name.
    """
    clock = sm_clock(df)
    scale = clocks == "measured"
    prof = profile_roofs(df, basis)
    keys = [*ALL_COMPUTE_KEYS, *MEMORY_KEYS]
    offers = _Offers(len(df), keys)
    devices: list[DeviceRoofs] = []
    for src, name, cc, rows in _device_groups(df):
        chosen: GpuSpec | None = None
        notes: list[str] = []
        if explicit:
            chosen = explicit[0] if len(explicit) == 1 else match_device(name, explicit)
            if chosen is None:
                notes.append(f"no entry of the roofs file matches device {name!r}")
        table = match_device(name)
        if chosen is not None and len(explicit or ()) == 1:
            notes.extend(_mismatch_note(chosen, table, name, cc))
        inference: Inference | None = None
        if table is None and not explicit:
            inference = infer_gpu(gather_evidence(df, rows, cc, clock, dram_rate), name)
            table = inference.spec
        # Order of precedence: the chosen GPU, the profile's own peaks, the
        # table, and last the roofs derived from per-SM rates.
        scaled_note = (
            " at the measured SM clock" if scale and not np.isnan(clock[rows]).all() else ""
        )
        for spec, how in ((chosen, "chosen"), (None, "profile"), (table, "table")):
            if how == "profile":
                offers.offer(
                    {k: np.where(rows, v, np.nan) for k, v in prof.items()},
                    "profile: ncu peak metrics x measured clock",
                    rows,
                )
            elif spec is not None:
                label = _spec_label(spec, how, inferred=inference is not None and how == "table")
                for key, arr in spec_roofs(spec, rows, clock, scale, basis).items():
                    offers.offer(
                        {key: arr}, label + (scaled_note if spec.clock_for(key) else ""), rows
                    )
        _offer_derived(df, rows, cc or (table.cc if table else None), name, clock, offers)
        l1 = derived_l1_roof(
            rows, cc or (table.cc if table else None), sm_count(df), clock, basis["l1"]
        )
        if l1 is not None:
            offers.offer({"l1": l1[0]}, l1[1], rows)

        spec = chosen or table
        med_clock = float(np.nanmedian(clock[rows])) if not np.isnan(clock[rows]).all() else None
        dev = DeviceRoofs(
            source=src,
            device_name=name,
            cc=cc or (spec.cc if spec else None),
            gpu=spec,
            measured_sm_clock_hz=med_clock,
        )
        dev.export_sms = _export_sms(df, rows)
        dev.ceilings = _summarise(keys, offers, rows, med_clock, chosen, table)
        notes.extend(_clock_note(clock[rows], spec, scale))
        complete = any(c.kind == "compute" for c in dev.ceilings) and any(
            c.key == "dram" for c in dev.ceilings
        )
        if inference is not None and inference.note and (spec is not None or not complete):
            # Why no GPU was inferred matters only where roofs are missing.
            notes.append(inference.note)
            dev.candidates = inference.candidates
        if spec is None and not any(c.kind == "compute" for c in dev.ceilings):
            notes.append(
                f"device {name or 'unknown'!r} is not in the built-in GPU table and the export has no peak "
                "metrics: choose a GPU with --gpu NAME or give roofs with --roofs FILE"
            )
        dev.notes.extend(notes)
        devices.append(dev)
    return RoofAssignment(
        peaks=offers.peaks, sources=offers.sources, devices=devices, sm_clock_hz=clock
    )


def _export_sms(df: Columns, rows: npt.NDArray[np.bool_]) -> int | None:
    """The median SM count the launches ``rows`` report, None where none does."""
    sms = sm_count(df)[rows]
    known = sms[np.isfinite(sms) & (sms > 0)]
    return round(float(np.median(known))) if len(known) else None


def _mismatch_note(
    chosen: GpuSpec, table: GpuSpec | None, name: str | None, cc: str | None
) -> list[str]:
    """A note when the one chosen GPU does not look like the profiled device."""
    mismatch = []
    if cc and chosen.cc and cc != chosen.cc:
        mismatch.append(f"CC {cc} vs {chosen.cc}")
    if table is not None and table.key != chosen.key and chosen.origin == "built-in":
        mismatch.append(f"the device name matches {table.name}")
    if not mismatch:
        return []
    return [
        f"chosen GPU {chosen.name} does not look like this device "
        f"({name or 'unknown name'}: {'; '.join(mismatch)}); its roofs are used anyway"
    ]


def _offer_derived(
    df: Columns,
    rows: npt.NDArray[np.bool_],
    cc: str | None,
    name: str | None,
    clock: FloatArray,
    offers: _Offers,
) -> None:
    """Offer the roofs derived from per-SM rates and device attributes, the last resort."""
    derived, arch_key = derived_roofs(df, rows, cc, name, clock)
    if not derived:
        return
    offers.offer(
        {k: v for k, v in derived.items() if k != "dram"},
        f"derived: {arch_key} per-SM rates x SM count x measured clock",
        rows,
    )
    if "dram" in derived:
        offers.offer(
            {"dram": derived["dram"]},
            "derived: 2 x memory clock x bus width (device attributes)",
            rows,
        )


def commonest(labels: npt.NDArray[np.object_]) -> str:
    """The label most rows hold (of equally common ones, the first seen; missing ones
    left out), as ``value_counts`` orders them; counted over codes, not by making a
    column of every row's text.  A ValueError where no row holds a label."""
    coded = text_codes(labels)
    # Other values than texts (numbers, text subclasses) are told apart by value.
    codes, values = coded if coded is not None else distinct_codes(labels)
    held = codes[codes >= 0]
    if not held.size:
        raise ValueError("no label to count")
    return str(values[int(np.argmax(np.bincount(held, minlength=len(values))))])


def _summarise(
    keys: Sequence[str],
    offers: _Offers,
    rows: npt.NDArray[np.bool_],
    med_clock: float | None,
    chosen: GpuSpec | None,
    table: GpuSpec | None,
) -> list[Ceiling]:
    """One :class:`Ceiling` per key a device's launches have: median, range, commonest source."""
    ceilings = []
    for key in keys:
        vals = offers.peaks[key][rows]
        ok = ~np.isnan(vals)
        if not ok.any():
            continue
        label = commonest(offers.sources[key][rows][ok])
        ceilings.append(
            Ceiling(
                key=key,
                kind="memory" if key in MEMORY_KEYS else "compute",
                value=float(np.median(vals[ok])),
                low=float(vals[ok].min()),
                high=float(vals[ok].max()),
                source=label,
                clock_hz=_ceiling_clock(key, label, med_clock, chosen, table),
                launches=int(ok.sum()),
                uncertain=_uncertain(key, label, chosen, table),
            )
        )
    return ceilings


#: Launches whose SM clocks spread wider than this (max / min) did not run at
#: a locked clock.
_CLOCK_SPREAD = 1.05


def _clock_note(clocks: FloatArray, spec: GpuSpec | None, scale: bool) -> list[str]:
    """A note when the kernels ran well below the datasheet boost clock.

    It says what the clocks were: one steady clock (what ncu's default
    ``--clock-control base`` gives) or, when they spread across launches, the
    range they varied over, which no clock lock produces.
    """
    known = clocks[np.isfinite(clocks) & (clocks > 0)]
    if len(known) == 0 or spec is None or not spec.boost_hz:
        return []
    med_clock = float(np.median(known))
    ratio = med_clock / spec.boost_hz
    if ratio >= 0.95:
        return []
    effect = (
        "ceilings from the profile or scaled to the measured clock sit that much below "
        "datasheet peaks"
        if scale
        else "table ceilings are kept at datasheet clocks (--clocks datasheet), so they "
        "overstate what these kernels could reach"
    )
    lo, hi = float(known.min()), float(known.max())
    why = (
        f"clocks varied from {lo / 1e9:.2f} to {hi / 1e9:.2f} GHz across launches, so they were "
        "not locked"
        if hi > _CLOCK_SPREAD * lo
        else "ncu locks clocks to base by default, --clock-control base"
    )
    return [
        f"kernels ran at {med_clock / 1e9:.2f} GHz SM clock, {100 * (1 - ratio):.0f}% below the "
        f"{spec.boost_hz / 1e9:.2f} GHz boost clock of the datasheet ({why}); {effect}"
    ]
