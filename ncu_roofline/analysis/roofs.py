"""Roofs (peak FLOP/s per precision, peak bytes/s per memory level) per launch.

Four sources, in order of precedence for each ceiling:

1. ``explicit``: a GPU the user named (``--gpu``) or a user roofs file
   (``--roofs``).
2. ``profile``: ncu's own peak metrics, ``*.peak_sustained`` x the clock the
   kernel ran at.  Exact for that clock; ncu locks clocks to base by default,
   so these sit below datasheet (boost) figures.
3. ``table``: the built-in GPU table, matched by the device name in the
   export.
4. ``derived``: per-SM-per-clock rates of the architecture x the SM count
   and clock the export reports (compute), and 2 x memory clock x bus width
   (DRAM), for GPUs the table does not know.

Table figures are datasheet peaks at the boost (or tensor) clock.  With
``clocks="measured"`` (the default) compute ceilings are scaled to the SM
clock the export measured, which is what the kernel could actually reach;
memory ceilings are never scaled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.measures import SECTOR_BYTES, TENSOR_DTYPES, tensor_dtype
from ncu_roofline.core.frame import floats
from ncu_roofline.core.hardware import (
    COMPUTE_KEYS,
    MEMORY_KEYS,
    GpuSpec,
    match_device,
    rates_for_cc,
)

FloatArray = npt.NDArray[np.float64]

#: Every compute ceiling key, including tensor datatypes the table lacks.
ALL_COMPUTE_KEYS: tuple[str, ...] = tuple(
    dict.fromkeys([*COMPUTE_KEYS, *(f"tensor_{d}" for d in TENSOR_DTYPES)])
)

#: Byte definitions a table L2/L1 figure can be compared with.
_TABLE_LEVEL_BASIS = {"l2": "lts__t_bytes", "l1": "l1tex__t_bytes"}


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

    def to_dict(self) -> dict[str, Any]:
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

    def to_dict(self) -> dict[str, Any]:
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


def _col(df: pd.DataFrame, name: str) -> FloatArray | None:
    if name not in df.columns:
        return None
    return floats(df[name])


def _first(n: int, *candidates: FloatArray | None) -> FloatArray:
    out = np.full(n, np.nan)
    for c in candidates:
        if c is not None:
            out = np.where(np.isnan(out), c, out)
    return out


def _mul(*arrays: FloatArray | None, factor: float = 1.0) -> FloatArray | None:
    if any(a is None for a in arrays):
        return None
    out = np.full(len(arrays[0]), factor)  # type: ignore[arg-type]
    for a in arrays:
        out = out * a
    return out


def sm_clock(df: pd.DataFrame) -> FloatArray:
    """The SM clock each launch ran at (Hz), NaN when the export lacks it."""
    return _first(
        len(df),
        _col(df, "sm__cycles_elapsed.avg.per_second"),
        _col(df, "smsp__cycles_elapsed.avg.per_second"),
        _col(df, "gpc__cycles_elapsed.avg.per_second"),
    )


def profile_roofs(
    df: pd.DataFrame, basis: dict[str, npt.NDArray[np.object_]]
) -> dict[str, FloatArray]:
    """Ceilings from ncu's peak metrics, per launch (NaN where absent)."""
    n = len(df)
    clock = _first(n, _col(df, "sm__cycles_elapsed.avg.per_second"))
    out: dict[str, FloatArray] = {
        "fp64": _sass_peak(df, clock, "d", 2.0),
        "fp32": _sass_peak(df, clock, "f", 2.0),
        "fp16": _sass_peak(df, clock, "h", 4.0),
    }
    out.update(_tensor_peaks(df, clock))
    dram_clock = _col(df, "dram__cycles_elapsed.avg.per_second")
    out["dram"] = _first(
        n,
        _mul(_col(df, "dram__bytes.sum.peak_sustained"), dram_clock),
        _col(df, "dram__bytes.sum.peak_sustained_elapsed.per_second"),
    )
    out["l2"] = _by_basis(n, basis["l2"], _l2_peaks(df))
    out["l1"] = _by_basis(n, basis["l1"], _l1_peaks(df))
    return out


def _sass_peak(df: pd.DataFrame, clock: FloatArray, letter: str, factor: float) -> FloatArray:
    """The FMA peak of one CUDA-core precision (``d``, ``f``, ``h``) in FLOP/s."""
    name = f"sass_thread_inst_executed_op_{letter}fma_pred_on"
    cands: list[FloatArray | None] = [
        _mul(_col(df, f"sm__{name}.sum.peak_sustained"), clock, factor=factor),
        _mul(_col(df, f"derived__sm__{name}_x{int(factor)}"), clock),
        _mul(_col(df, f"sm__{name}.sum.peak_sustained_elapsed.per_second"), factor=factor),
    ]
    if letter == "h":
        # Older half-precision sections defined an _x2 peak; the
        # instruction is still a packed pair, so 4 FLOPs per HFMA2.
        cands.append(_mul(_col(df, f"derived__sm__{name}_x2"), clock, factor=2.0))
    return _first(len(df), *cands)


def _tensor_peaks(df: pd.DataFrame, clock: FloatArray) -> dict[str, FloatArray]:
    """Tensor peaks per datatype (``tensor_bf16``, ...).

    Variants of one input type differ by accumulator (GeForce parts run FP32
    accumulation at half the FP16 rate), so a launch is judged against the
    peaks of the variants that carry its operations, weighted by them;
    without counts, against the FP32-accumulate variant (the table's
    convention), else the highest.
    """
    n = len(df)
    per_dtype: dict[str, list[tuple[str, FloatArray]]] = {}
    for name in df.columns:
        s = str(name)
        for suffix, needs_clock in (
            (".sum.peak_sustained", True),
            (".sum.peak_sustained_elapsed.per_second", False),
        ):
            if s.startswith("sm__ops_path_tensor_") and s.endswith(suffix):
                variant = s[len("sm__ops_path_tensor_") : -len(suffix)]
                dtype = tensor_dtype(variant)
                if dtype is None or "sparsity_on" in variant:
                    continue
                value = _mul(_col(df, s), clock) if needs_clock else _col(df, s)
                if value is not None:
                    per_dtype.setdefault(dtype, []).append((variant, value))
    out: dict[str, FloatArray] = {}
    for dtype, variants in per_dtype.items():
        num = np.zeros(n)
        den = np.zeros(n)
        for variant, peak in variants:
            count = _col(df, f"sm__ops_path_tensor_{variant}.sum")
            if count is None:
                continue
            use = ~np.isnan(count) & (count > 0) & ~np.isnan(peak)
            num[use] += (count * peak)[use]
            den[use] += count[use]
        weighted = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)
        preferred = [v for name, v in variants if "dst_fp32" in name]
        fallback = _first(n, *preferred) if preferred else np.full(n, np.nan)
        highest = np.full(n, np.nan)
        for _, peak in variants:
            highest = np.fmax(highest, peak)
        out[f"tensor_{dtype}"] = _first(n, weighted, fallback, highest)
    return out


def _l2_peaks(df: pd.DataFrame) -> dict[str, FloatArray]:
    """L2 bandwidth peaks by the byte definition they match."""
    n = len(df)
    lts_clock = _col(df, "lts__cycles_elapsed.avg.per_second")
    return {
        "lts__t_bytes": _first(
            n,
            _mul(_col(df, "lts__t_bytes.sum.peak_sustained"), lts_clock),
            _mul(_col(df, "lts__t_sectors.sum.peak_sustained"), lts_clock, factor=SECTOR_BYTES),
            _col(df, "lts__t_bytes.sum.peak_sustained_elapsed.per_second"),
        ),
        "lts__lts2xbar": _first(
            n,
            _mul(
                _col(df, "lts__lts2xbar_cycles_active.sum.peak_sustained"),
                lts_clock,
                factor=SECTOR_BYTES,
            ),
            _mul(_col(df, "derived__lts__lts2xbar_bytes.sum.peak_sustained"), lts_clock),
        ),
        "l1tex__m_xbar2l1tex_read": _first(
            n, _mul(_col(df, "l1tex__m_xbar2l1tex_read_bytes.sum.peak_sustained"), lts_clock)
        ),
    }


def _l1_peaks(df: pd.DataFrame) -> dict[str, FloatArray]:
    """L1 bandwidth peaks by the byte definition they match."""
    n = len(df)
    l1_clock = _col(df, "l1tex__cycles_elapsed.avg.per_second")
    wb: list[FloatArray | None] = []
    for suffix in ("_mem_lgds", "_mem_lg", ""):
        wb.append(
            _mul(
                _col(df, f"l1tex__lsu_writeback_active{suffix}.sum.peak_sustained"),
                l1_clock,
                factor=128.0,
            )
        )
        wb.append(
            _mul(
                _col(df, f"derived__l1tex__lsu_writeback_bytes{suffix}.sum.peak_sustained"),
                l1_clock,
            )
        )
    return {
        "l1tex__t_bytes": _first(
            n,
            _mul(_col(df, "l1tex__t_bytes.sum.peak_sustained"), l1_clock),
            _col(df, "l1tex__t_bytes.sum.peak_sustained_elapsed.per_second"),
        ),
        "l1tex__lsu_writeback": _first(n, *wb),
    }


def _by_basis(n: int, basis: npt.NDArray[np.object_], table: dict[str, FloatArray]) -> FloatArray:
    out = np.full(n, np.nan)
    for name, values in table.items():
        rows = basis == name
        out[rows] = values[rows]
    return out


def spec_roofs(
    spec: GpuSpec,
    rows: npt.NDArray[np.bool_],
    clock: FloatArray,
    scale_clocks: bool,
    basis: dict[str, npt.NDArray[np.object_]],
) -> dict[str, FloatArray]:
    """Ceilings from a GPU spec for the selected rows (NaN elsewhere)."""
    n = len(rows)
    out: dict[str, FloatArray] = {}
    for key, value in spec.compute.items():
        arr = np.full(n, np.nan)
        arr[rows] = value
        ref = spec.clock_for(key)
        if scale_clocks and ref:
            scaled = value * clock / ref
            use = rows & ~np.isnan(clock)
            arr[use] = scaled[use]
        out[key] = arr
    for key, value in spec.memory.items():
        arr = np.full(n, np.nan)
        sel = rows
        if key in _TABLE_LEVEL_BASIS:
            sel = rows & (basis[key] == _TABLE_LEVEL_BASIS[key])
        arr[sel] = value
        ref = spec.clock_for(key)
        if scale_clocks and ref:
            # Cache bandwidths are per-clock figures; DRAM has no SM clock.
            use = sel & ~np.isnan(clock)
            arr[use] = (value * clock / ref)[use]
        out[key] = arr
    return out


def derived_roofs(
    df: pd.DataFrame,
    rows: npt.NDArray[np.bool_],
    cc: str | None,
    device_name: str | None,
    clock: FloatArray,
) -> tuple[dict[str, FloatArray], str | None]:
    """Compute ceilings from per-SM rates, DRAM from the memory attributes."""
    n = len(df)
    out: dict[str, FloatArray] = {}
    rates = rates_for_cc(cc, device_name)
    sms = _first(
        n, _col(df, "device__attribute_multiprocessor_count"), _col(df, "launch__sm_count")
    )
    label = None
    if rates is not None:
        for key, per_clock in rates.per_sm_per_clock.items():
            arr = np.full(n, np.nan)
            arr[rows] = (per_clock * sms * clock)[rows]
            out[key] = arr
        label = rates.key
    mem_clock = _col(df, "device__attribute_memory_clock_rate")
    width = _col(df, "device__attribute_global_memory_bus_width")
    if mem_clock is not None and width is not None:
        arr = np.full(n, np.nan)
        # Double data rate: the attribute is the I/O clock, two transfers a cycle.
        arr[rows] = (2.0 * mem_clock * width / 8.0)[rows]
        out["dram"] = arr
    return out, label


@dataclass
class RoofAssignment:
    """Per-launch ceilings with their sources, and a per-device summary."""

    peaks: dict[str, FloatArray]
    sources: dict[str, npt.NDArray[np.object_]]
    devices: list[DeviceRoofs]
    sm_clock_hz: FloatArray


def _device_groups(
    df: pd.DataFrame,
) -> list[tuple[str, str | None, str | None, npt.NDArray[np.bool_]]]:
    keys = pd.DataFrame(
        {
            "source": df["source"].astype(object).fillna(""),
            "device_name": df["device_name"].astype(object).fillna("\0"),
            "cc": df["cc"].astype(object).fillna("\0"),
        }
    )
    groups = []
    n = len(df)
    for (src, name, cc), idx in keys.groupby(
        ["source", "device_name", "cc"], sort=False
    ).indices.items():
        rows = np.zeros(n, dtype=bool)
        rows[idx] = True
        groups.append(
            (
                str(src),
                None if name in ("\0", "") else str(name),
                None if cc in ("\0", "") else str(cc),
                rows,
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


def _spec_label(spec: GpuSpec, how: str) -> str:
    if spec.origin == "built-in":
        return f"{how}: {spec.name} (built-in table)"
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
    df: pd.DataFrame,
    basis: dict[str, npt.NDArray[np.object_]],
    explicit: Sequence[GpuSpec] | None = None,
    clocks: str = "measured",
) -> RoofAssignment:
    """Choose every ceiling of every launch and record where it came from."""
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
                label = _spec_label(spec, how)
                for key, arr in spec_roofs(spec, rows, clock, scale, basis).items():
                    offers.offer(
                        {key: arr}, label + (scaled_note if spec.clock_for(key) else ""), rows
                    )
        _offer_derived(df, rows, cc or (table.cc if table else None), name, clock, offers)

        spec = chosen or table
        med_clock = float(np.nanmedian(clock[rows])) if not np.isnan(clock[rows]).all() else None
        dev = DeviceRoofs(
            source=src,
            device_name=name,
            cc=cc or (spec.cc if spec else None),
            gpu=spec,
            measured_sm_clock_hz=med_clock,
        )
        dev.ceilings = _summarise(keys, offers, rows, med_clock, chosen, table)
        notes.extend(_clock_note(med_clock, spec, scale))
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
    df: pd.DataFrame,
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
        labels = pd.Series(offers.sources[key][rows][ok]).value_counts()
        label = str(labels.index[0])
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


def _clock_note(med_clock: float | None, spec: GpuSpec | None, scale: bool) -> list[str]:
    """A note when the kernels ran well below the datasheet boost clock."""
    if med_clock is None or spec is None or not spec.boost_hz:
        return []
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
    return [
        f"kernels ran at {med_clock / 1e9:.2f} GHz SM clock, {100 * (1 - ratio):.0f}% below the "
        f"{spec.boost_hz / 1e9:.2f} GHz boost clock of the datasheet (ncu locks clocks to base by "
        f"default, --clock-control base); {effect}"
    ]
