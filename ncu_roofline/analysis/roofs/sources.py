"""Ceilings from each source, per launch: ncu's peak metrics, a GPU spec, per-SM rates.

:mod:`ncu_roofline.analysis.roofs.assign` chooses among them in order of precedence
and records where each ceiling came from; every function here returns
``{ceiling key: per-launch values}`` with NaN where the source has no figure.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.measures import SECTOR_BYTES, tensor_dtype
from ncu_roofline.core.architecture import architecture
from ncu_roofline.core.frame import Columns
from ncu_roofline.core.frame import optional_column as _col
from ncu_roofline.core.hardware import GpuSpec, rates_for_cc

FloatArray = npt.NDArray[np.float64]

#: Byte definitions a table L2/L1 figure can be compared with.  The table's
#: L1 figure (L1 B/clk/SM x SMs x clock) is the data path's peak: both the
#: L1 tag-stage bytes and ncu's writeback bytes (one 128-byte writeback per
#: SM per cycle at peak) read against it.
_TABLE_LEVEL_BASIS: dict[str, tuple[str, ...]] = {
    "l2": ("lts__t_bytes",),
    "l1": ("l1tex__t_bytes", "l1tex__lsu_writeback"),
}


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


def sm_clock(df: Columns) -> FloatArray:
    """The SM clock each launch ran at (Hz), NaN when the export lacks it."""
    return _first(
        len(df),
        _col(df, "sm__cycles_elapsed.avg.per_second"),
        _col(df, "smsp__cycles_elapsed.avg.per_second"),
        _col(df, "gpc__cycles_elapsed.avg.per_second"),
    )


def profile_roofs(df: Columns, basis: dict[str, npt.NDArray[np.object_]]) -> dict[str, FloatArray]:
    """Ceilings from ncu's peak metrics, per launch (NaN where absent)."""
    n = len(df)
    clock = _first(n, _col(df, "sm__cycles_elapsed.avg.per_second"))
    out: dict[str, FloatArray] = {
        "fp64": _sass_peak(df, clock, "d", 2.0),
        "fp32": _sass_peak(df, clock, "f", 2.0),
        "fp16": _sass_peak(df, clock, "h", 4.0),
    }
    out.update(_tensor_peaks(df, clock))
    out["dram"] = profile_dram_peak(df)
    out["l2"] = _by_basis(n, basis["l2"], _l2_peaks(df))
    out["l1"] = _by_basis(n, basis["l1"], _l1_peaks(df))
    return out


def profile_dram_peak(df: Columns) -> FloatArray:
    """ncu's DRAM peak per launch (bytes/s): ``dram__bytes.sum.peak_sustained`` x the DRAM clock."""
    return _first(
        len(df),
        _mul(
            _col(df, "dram__bytes.sum.peak_sustained"),
            _col(df, "dram__cycles_elapsed.avg.per_second"),
        ),
        _col(df, "dram__bytes.sum.peak_sustained_elapsed.per_second"),
    )


def attribute_dram_peak(df: Columns) -> FloatArray | None:
    """DRAM peak from the device attributes, 2 x memory clock x bus width; None without them."""
    mem_clock = _col(df, "device__attribute_memory_clock_rate")
    width = _col(df, "device__attribute_global_memory_bus_width")
    if mem_clock is None or width is None:
        return None
    # Double data rate: the attribute is the I/O clock, two transfers a cycle.
    return 2.0 * mem_clock * width / 8.0


def sm_count(df: Columns) -> FloatArray:
    """SMs per launch from the device attributes (NaN where the export lacks them)."""
    return _first(
        len(df), _col(df, "device__attribute_multiprocessor_count"), _col(df, "launch__sm_count")
    )


def _sass_peak(df: Columns, clock: FloatArray, letter: str, factor: float) -> FloatArray:
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


def _tensor_peaks(df: Columns, clock: FloatArray) -> dict[str, FloatArray]:
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


def _l2_peaks(df: Columns) -> dict[str, FloatArray]:
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


def _l1_peaks(df: Columns) -> dict[str, FloatArray]:
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
            sel = rows & np.isin(basis[key], _TABLE_LEVEL_BASIS[key])
        arr[sel] = value
        ref = spec.clock_for(key)
        if scale_clocks and ref:
            # Cache bandwidths are per-clock figures; DRAM has no SM clock.
            use = sel & ~np.isnan(clock)
            arr[use] = (value * clock / ref)[use]
        out[key] = arr
    return out


def derived_roofs(
    df: Columns,
    rows: npt.NDArray[np.bool_],
    cc: str | None,
    device_name: str | None,
    clock: FloatArray,
) -> tuple[dict[str, FloatArray], str | None]:
    """Compute ceilings from per-SM rates, DRAM from the memory attributes."""
    n = len(df)
    out: dict[str, FloatArray] = {}
    rates = rates_for_cc(cc, device_name)
    sms = sm_count(df)
    label = None
    if rates is not None:
        for key, per_clock in rates.per_sm_per_clock.items():
            arr = np.full(n, np.nan)
            arr[rows] = (per_clock * sms * clock)[rows]
            out[key] = arr
        label = rates.key
    dram = attribute_dram_peak(df)
    if dram is not None:
        arr = np.full(n, np.nan)
        arr[rows] = dram[rows]
        out["dram"] = arr
    return out, label


def derived_l1_roof(
    rows: npt.NDArray[np.bool_],
    cc: str | None,
    sms: FloatArray,
    clock: FloatArray,
    l1_basis: npt.NDArray[np.object_],
) -> tuple[FloatArray, str] | None:
    """L1 roof from the architecture's L1 bytes per clock per SM x SM count x measured clock.

    Only for launches whose L1 bytes are of a definition the figure
    describes (:data:`_TABLE_LEVEL_BASIS`); with the label its ceiling
    carries.  None where the architecture's L1 figure is not known.
    """
    arch = architecture(cc)
    if arch is None or arch.l1_bytes_per_clk is None:
        return None
    sel = rows & np.isin(l1_basis, _TABLE_LEVEL_BASIS["l1"])
    arr = np.full(len(rows), np.nan)
    arr[sel] = (arch.l1_bytes_per_clk * sms * clock)[sel]
    label = (
        f"derived: CC {arch.cc} L1 {arch.l1_bytes_per_clk:g} B/clk/SM x SM count x measured "
        f"clock ({arch.l1_source or 'architecture description'})"
    )
    return arr, label
