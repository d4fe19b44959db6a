"""Measured work and traffic per launch: FLOPs per precision, bytes per level.

Each quantity is taken from the first metric set, in a fixed order of
preference, that a launch carries; the chosen set is recorded next to the
value (``*_basis``) because the alternatives are not always comparable
(``lts__t_bytes`` counts every L2 access, ncu's own L2 roofline counts only
L2-to-crossbar return cycles x 32 bytes).

Counting rules (see ncu's ``SpeedOfLight_Hierarchical*RooflineChart``
sections):

* FP64 and FP32: ``add + mul + 2 x fma`` thread instructions; FP32 adds
  the packed instructions of CC 10.x, ``2 x fadd2 + 2 x fmul2 + 4 x ffma2``
  (two lanes each), as ncu's FP roofline does, where the export has them.
* FP16: ``2 x add + 2 x mul + 4 x fma``.  The FP16 SASS counters count packed
  ``HADD2/HMUL2/HFMA2`` instructions, two lanes each, which is how Nsight
  Compute's half-precision roofline counts them.  NERSC's scripts weight them
  1/1/2 and so report half the FP16 FLOPs of ncu for the same kernel.
* Tensor cores: ``sm__ops_path_tensor_*`` operation counts (2 per MAC), one
  family only: the per-datatype ``src_*`` aggregates when present, else the
  per-instruction ``op_*`` counters (Hopper and Blackwell list both, and
  adding them double counts).  Without them,
  ``sm__inst_executed_pipe_tensor`` x an instruction-shape factor known for
  the architecture, marked approximate.

All arrays are float64 with NaN for missing values; nothing here loops over
launches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.tensor_check import tensor_uncounted
from ncu_roofline.analysis.tensor_names import name_mma_flops
from ncu_roofline.core.architecture import PACKED_FP32_OPS, architecture
from ncu_roofline.core.frame import Columns, floats, object_column
from ncu_roofline.core.frame import optional_column as _col
from ncu_roofline.core.grouping import per_distinct, text_mask
from ncu_roofline.core.table import distinct

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

SECTOR_BYTES = 32.0
#: ncu's hierarchical rooflines turn L1 writeback cycles into bytes with this.
L1_WRITEBACK_BYTES = 128.0

#: Weights of (add, mul, fma) per precision.
FLOP_WEIGHTS: dict[str, tuple[str, tuple[float, float, float]]] = {
    "fp64": ("d", (1.0, 1.0, 2.0)),
    "fp32": ("f", (1.0, 1.0, 2.0)),
    "fp16": ("h", (2.0, 2.0, 4.0)),
}

#: Tensor-pipe instruction counts up to this multiple of HFMA / 32 are taken
#: to be the HFMA2.MMA instructions already counted as FP16 work.  A real
#: GEMM issues K/16 MMAs per HFMA2 of its epilogue, far above this.
HFMA_MMA_RATIO = 2.0

#: Tensor datatypes in the order they are reported.
TENSOR_DTYPES: tuple[str, ...] = (
    "fp64",
    "tf32",
    "fp16",
    "bf16",
    "fp8",
    "fp4",
    "int8",
    "int4",
    "int1",
)

_OPS_PATH = re.compile(r"^sm__ops_path_tensor_(\w+?)\.sum(\.per_cycle_elapsed)?$")


def tensor_dtype(variant: str) -> str | None:
    """The input datatype of an ``sm__ops_path_tensor_<variant>`` counter.

    ``src_bf16_dst_fp32`` -> ``bf16``; ``op_hgmma_src_fp16_sparsity_off`` ->
    ``fp16``; ``src_fp4_fp6_fp8_dst_fp32`` -> ``fp8`` (the widest of the
    mixed low-precision inputs, whose roof is the lowest);
    ``src_fp16_bf16_tf32_dst_fp32`` (Turing) -> ``fp16``.
    """
    m = re.search(r"src_([a-z0-9_]+?)(?:_dst_|_sparsity_|$)", variant)
    if not m:
        return None
    types = m.group(1).split("_")
    for preferred in ("fp64", "fp16", "bf16", "tf32", "fp8", "fp6", "fp4", "int8", "int4", "int1"):
        if preferred in types:
            return "fp8" if preferred == "fp6" else preferred
    return None


@dataclass
class Measures:
    """Measured quantities for every launch, aligned with the launch frame."""

    columns: dict[str, npt.NDArray[np.generic]]


def _sum_cols(
    df: Columns, names: list[str], weights: list[float] | None = None
) -> FloatArray | None:
    """Weighted sum of columns, or None when any is absent; NaN rows stay NaN."""
    arrays = [_col(df, n) for n in names]
    if any(a is None for a in arrays):
        return None
    w = weights or [1.0] * len(names)
    total = np.zeros(len(df))
    for a, k in zip(arrays, w, strict=True):
        assert a is not None
        total = total + k * a
    return total


def _nan_add(a: FloatArray, b: FloatArray) -> FloatArray:
    """``a + b`` treating NaN as absent; NaN only where both are."""
    return np.where(np.isnan(a), b, np.where(np.isnan(b), a, a + b))


class _First:
    """Combine alternatives: each row takes the first one that is not NaN."""

    def __init__(self, n: int) -> None:
        self.values = np.full(n, np.nan)
        self.basis = np.full(n, None, dtype=object)

    def offer(self, values: FloatArray | None, basis: str) -> None:
        if values is None:
            return
        take = np.isnan(self.values) & ~np.isnan(values)
        self.values[take] = values[take]
        self.basis[take] = basis


def _cycles(df: Columns, unit: str, duration: FloatArray) -> FloatArray:
    """Elapsed cycles of a unit: measured, else its clock x the duration."""
    out = _First(len(df))
    out.offer(_col(df, f"{unit}__cycles_elapsed.avg"), "cycles")
    clock = _col(df, f"{unit}__cycles_elapsed.avg.per_second")
    if clock is not None:
        out.offer(clock * duration, "clock x duration")
    return out.values


def _packed_columns(
    df: Columns, prefix: str, suffix: str
) -> list[tuple[FloatArray | None, float]] | None:
    """The packed FP32 columns (FADD2, FMUL2, FFMA2) with their FLOPs, or None without any."""
    for spelling in (prefix, "smsp" if prefix == "sm" else "sm"):
        cols = [
            (_col(df, f"{spelling}__sass_thread_inst_executed_op_{op}_pred_on.sum{suffix}"), w)
            for op, w in PACKED_FP32_OPS
        ]
        if any(c is not None for c, _ in cols):
            return cols
    return None


def packed_fp32_lanes(
    df: Columns, suffix: str, prefix: str = "sm"
) -> tuple[FloatArray, FloatArray] | None:
    """FP32 lanes and FLOPs of the packed instructions: ``2 (a2 + m2 + f2)``, ``2 a2 + 2 m2 + 4 f2``.

    ``suffix`` picks counts (``""``) or per-cycle rates
    (``".per_cycle_elapsed"``); None when the export has no packed counter.
    A packed instruction fills two FP32 lanes, the unit the FP32 roof counts.
    The ``sm__`` and ``smsp__`` sums are one quantity (and their per-cycle
    rates share the SM clock), so the other spelling stands in where the
    export used it (ncu's own FP roofline rule reads ``smsp__``).  A launch
    without a value counts none: exports of chips before CC 10.0 lack them.
    """
    cols = _packed_columns(df, prefix, suffix)
    if cols is None:
        return None
    lanes = np.zeros(len(df))
    flops = np.zeros(len(df))
    for c, w in cols:
        if c is not None:
            lanes = lanes + 2.0 * np.nan_to_num(c)
            flops = flops + w * np.nan_to_num(c)
    return lanes, flops


#: Appended to the FP32 basis of a launch whose chip packs FP32 but whose
#: export lacks the packed counters (the ``fp32-packed-uncounted`` finding).
PACKED_FP32_MISSING = " without packed FP32 counters (FP32 work may be undercounted)"


def packed_fp32_lacking(df: Columns, cc: ObjArray) -> npt.NDArray[np.bool_]:
    """Launches of a chip with packed FP32 that have FFMA counters but no packed ones.

    Which chips pack FP32 is the architecture description's (CC 10.x).
    """
    n = len(df)
    packs = np.zeros(n, dtype=bool)
    for key in distinct(cc):
        arch = architecture(None if key is None else str(key))
        if arch is not None and arch.packed_fp32:
            packs |= cc == key
    if not packs.any():
        return packs
    ffma = np.zeros(n, dtype=bool)
    have = np.zeros(n, dtype=bool)
    for prefix in ("sm", "smsp"):
        for suffix in ("", ".per_cycle_elapsed"):
            c = _col(df, f"{prefix}__sass_thread_inst_executed_op_ffma_pred_on.sum{suffix}")
            if c is not None:
                ffma |= ~np.isnan(c)
            for packed, _ in _packed_columns(df, prefix, suffix) or ():
                if packed is not None:
                    have |= ~np.isnan(packed)
        derived = _col(df, f"derived__{prefix}__sass_thread_inst_executed_op_ffma_pred_on_x2")
        if derived is not None:
            ffma |= ~np.isnan(derived)
    return packs & ffma & ~have


def _sass_flops(
    df: Columns, precision: str, duration: FloatArray
) -> tuple[FloatArray, FloatArray, ObjArray]:
    """FLOPs, FLOP/s and basis of one SASS precision."""
    letter, weights = FLOP_WEIGHTS[precision]
    n = len(df)
    counts = _First(n)
    rates = np.full(n, np.nan)
    for prefix in ("sm", "smsp"):
        names = [
            f"{prefix}__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum"
            for op in ("add", "mul", "fma")
        ]
        plain = _sum_cols(df, names, list(weights))
        packed = packed_fp32_lanes(df, "", prefix) if letter == "f" else None
        if plain is not None and packed is not None:
            counts.offer(plain + packed[1], f"{prefix}__sass counts with packed FP32")
        counts.offer(plain, f"{prefix}__sass counts")
    with np.errstate(invalid="ignore", divide="ignore"):
        count_rate = counts.values / duration
    for prefix in ("smsp", "sm"):
        per_cycle = [
            _col(
                df,
                f"{prefix}__sass_thread_inst_executed_op_{letter}{op}_pred_on.sum.per_cycle_elapsed",
            )
            for op in ("add", "mul", "fma")
        ]
        # ncu's charts carry FMA already doubled (or quadrupled for half2);
        # chosen per launch, as merged exports may carry either form.
        fma_factor = weights[2]
        fma = _First(n)
        fma.offer(per_cycle[2], "raw")
        for mult in (4.0, 2.0):
            derived = _col(
                df,
                f"derived__{prefix}__sass_thread_inst_executed_op_{letter}fma_pred_on_x{int(mult)}",
            )
            fma.offer(None if derived is None else derived / mult, "derived")
        per_cycle[2] = None if np.isnan(fma.values).all() else fma.values
        if any(p is None for p in per_cycle):
            continue
        weighted = weights[0] * per_cycle[0] + weights[1] * per_cycle[1] + fma_factor * per_cycle[2]  # type: ignore[operator]
        packed = packed_fp32_lanes(df, ".per_cycle_elapsed", prefix) if letter == "f" else None
        basis = f"{prefix}__sass per-cycle rates"
        if packed is not None:
            weighted = weighted + packed[1]
            basis += " with packed FP32"
        clock = _col(df, f"{prefix}__cycles_elapsed.avg.per_second")
        if clock is None:
            continue
        rate = weighted * clock
        fill = np.isnan(counts.values) & ~np.isnan(rate)
        rates[fill] = rate[fill]
        counts.offer(weighted * _cycles(df, prefix, duration), basis)
    rates = np.where(np.isnan(rates), count_rate, rates)
    return counts.values, rates, counts.basis


def _tensor_ops(
    df: Columns, duration: FloatArray
) -> tuple[dict[str, FloatArray], dict[str, FloatArray], ObjArray | None]:
    """Tensor ops per datatype (counts and per-second rates) from ops_path.

    The family is chosen per launch: the ``src_*`` aggregates where the
    launch has any, else the ``op_*`` counters (profiles that merge exports
    with different metric lists can have both kinds of launch).
    """
    variants: dict[str, dict[str, str]] = {}
    for name in df.columns:
        m = _OPS_PATH.match(str(name))
        if m:
            variants.setdefault(m.group(1), {})["rate" if m.group(2) else "count"] = str(name)
    if not variants:
        return {}, {}, None
    n = len(df)
    sm_cycles = _cycles(df, "sm", duration)
    sm_clock = _col(df, "sm__cycles_elapsed.avg.per_second")
    families: dict[str, tuple[dict[str, FloatArray], dict[str, FloatArray]]] = {}
    for family in ("src", "op"):
        counts: dict[str, FloatArray] = {}
        rates: dict[str, FloatArray] = {}
        for variant, cols in sorted(variants.items()):
            dtype = tensor_dtype(variant)
            if dtype is None or not variant.startswith(family + "_"):
                continue
            count = _First(n)
            rate = np.full(n, np.nan)
            if "count" in cols:
                c = _col(df, cols["count"])
                count.offer(c, "count")
                if c is not None:
                    with np.errstate(invalid="ignore", divide="ignore"):
                        rate = c / duration
            if "rate" in cols:
                pc = _col(df, cols["rate"])
                assert pc is not None
                count.offer(pc * sm_cycles, "rate")
                if sm_clock is not None:
                    rate = np.where(np.isnan(rate), pc * sm_clock, rate)
            counts[dtype] = (
                _nan_add(counts[dtype], count.values) if dtype in counts else count.values
            )
            rates[dtype] = _nan_add(rates[dtype], rate) if dtype in rates else rate
        families[family] = (counts, rates)
    src_counts, src_rates = families["src"]
    op_counts, op_rates = families["op"]
    has_src = np.zeros(n, dtype=bool)
    for arr in src_counts.values():
        has_src |= ~np.isnan(arr)
    has_op = np.zeros(n, dtype=bool)
    for arr in op_counts.values():
        has_op |= ~np.isnan(arr)
    nan = np.full(n, np.nan)
    out_counts: dict[str, FloatArray] = {}
    out_rates: dict[str, FloatArray] = {}
    for dtype in dict.fromkeys([*src_counts, *op_counts]):
        out_counts[dtype] = np.where(has_src, src_counts.get(dtype, nan), op_counts.get(dtype, nan))
        out_rates[dtype] = np.where(has_src, src_rates.get(dtype, nan), op_rates.get(dtype, nan))
    basis = np.full(n, None, dtype=object)
    basis[has_op] = "sm__ops_path_tensor_op_*"
    basis[has_src] = "sm__ops_path_tensor_src_*"
    return out_counts, out_rates, basis


def _name_factor(name: object) -> float:
    """FLOPs per MMA instruction the kernel name says (NaN where it says none)."""
    factor = name_mma_flops(str(name))
    return np.nan if factor is None else float(factor)


def _tensor_instructions(df: Columns, cc: ObjArray) -> tuple[FloatArray, ObjArray, FloatArray]:
    """Tensor FLOPs from instruction counts x a FLOPs-per-instruction factor.

    The factor comes from the MMA shape in the kernel name when it has one,
    else from the shape compilers favour on the architecture; both are
    marked approximate.  Also returns, per launch, the HFMA thread
    instructions that were issued as HFMA2.MMA (0 where none were).
    """
    n = len(df)
    inst = _First(n)
    # HMMA-only counters first: they exclude the HFMA2.MMA instructions.
    for name in (
        "sm__inst_executed_pipe_tensor_op_hmma.sum",
        "smsp__inst_executed_pipe_tensor_op_hmma.sum",
    ):
        inst.offer(_col(df, name), "hmma")
    for name in ("sm__inst_executed_pipe_tensor.sum", "smsp__inst_executed_pipe_tensor.sum"):
        inst.offer(_col(df, name), "pipe")
    count = inst.values
    hfma = _First(n)
    for prefix in ("sm", "smsp"):
        hfma.offer(_col(df, f"{prefix}__sass_thread_inst_executed_op_hfma_pred_on.sum"), prefix)
    # From Turing on, compilers emit HFMA2.MMA (register moves and constant
    # loads issued to the tensor pipe as half-precision FMAs).  The HFMA
    # thread counter counts them too; on real A100 exports the tensor count
    # of non-GEMM kernels equals HFMA / 32, or exceeds it a little where
    # warps run with lanes predicated off.  They are neither tensor nor FP16
    # work.  Volta has no HFMA2.MMA; any other or unknown architecture may.
    mma_cc = ~np.isin(cc, ["7.0", "7.2"]) & ~np.isnan(hfma.values) & (inst.basis == "pipe")
    hfma_warps = np.nan_to_num(hfma.values) / 32.0
    as_hfma = mma_cc & (count > 0) & (count <= HFMA_MMA_RATIO * hfma_warps)
    # A warp instruction stands for at most 32 thread instructions.
    moves = np.where(as_hfma, np.minimum(count * 32.0, np.nan_to_num(hfma.values)), 0.0)
    count = np.where(mma_cc & ~as_hfma, np.maximum(count - hfma_warps, 0.0), count)
    count = np.where(as_hfma, 0.0, count)
    flops = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    zero = count == 0
    flops[zero] = 0.0
    basis[zero] = "no tensor-core instructions"
    basis[as_hfma] = "tensor-pipe instructions are HFMA2.MMA register moves, not counted as work"
    # The factor of the shape compilers favour on the architecture, where
    # one dominates (Volta to Ada); from Hopper on there is none.
    counted = ~np.isnan(count) & ~zero
    for key in distinct(cc[counted]):
        arch = architecture(None if key is None else str(key))
        if arch is None or arch.tensor_inst_flops is None:
            continue
        factor, shape = arch.tensor_inst_flops, arch.tensor_inst_shape
        rows = counted & (cc == key)
        flops[rows] = count[rows] * factor
        basis[rows] = f"tensor instructions x {factor:g} (approximate: assumes {shape})"
    if "kernel" in df:
        from_name = per_distinct(df["kernel"], _name_factor, _name_factor(""), np.float64)
        rows = ~np.isnan(from_name) & ~np.isnan(count) & ~zero
        flops[rows] = count[rows] * from_name[rows]
        for factor in distinct(from_name[rows]):
            sel = rows & (from_name == factor)
            basis[sel] = (
                f"tensor instructions x {factor:g} (approximate: MMA shape from the kernel name)"
            )
    unknown = ~np.isnan(count) & ~zero & np.isnan(flops)
    basis[unknown] = (
        "tensor instructions without a known FLOPs-per-instruction factor for this architecture"
    )
    return flops, basis, moves


def _drop_hfma_moves(
    out: dict[str, npt.NDArray[np.generic]], rates: list[FloatArray], moves: FloatArray
) -> None:
    """FP16 FLOPs less 4 per HFMA issued as HFMA2.MMA, in place; the rate shrinks alike."""
    fp16 = np.asarray(out["flops_fp16"], dtype=np.float64)
    # A launch whose HFMA counts were cut off has no FP16 FLOPs to correct.
    rows = (moves > 0) & ~np.isnan(fp16)
    kept = np.where(rows, np.maximum(fp16 - 4.0 * moves, 0.0), fp16)
    with np.errstate(invalid="ignore", divide="ignore"):
        rates[2] = np.where(rows, rates[2] * kept / fp16, rates[2])
    out["flops_fp16"] = kept
    basis = np.asarray(out["flops_fp16_basis"], dtype=object).copy()
    basis[rows] = basis[rows] + " less HFMA2.MMA register moves (tensor-pipe instructions x 32)"
    out["flops_fp16_basis"] = basis


def measure(df: Columns, cc: ObjArray | None = None) -> Measures:
    """Measured FLOPs, bytes and rates for every launch of ``df``.

    ``cc`` overrides the launch frame's compute capability (for exports that
    lack it when the user names the GPU).
    """
    n = len(df)
    duration = floats(df["duration_s"]) if "duration_s" in df else np.full(n, np.nan)
    if cc is None:
        cc = object_column(df, "cc")
    out: dict[str, npt.NDArray[np.generic]] = {}
    rate_parts: list[FloatArray] = []
    sass_known = np.zeros(n, dtype=bool)
    missing: list[tuple[str, npt.NDArray[np.bool_]]] = []
    for precision in ("fp64", "fp32", "fp16"):
        flops, rate, basis = _sass_flops(df, precision, duration)
        out[f"flops_{precision}"] = flops
        out[f"flops_{precision}_basis"] = basis
        rate_parts.append(rate)
        sass_known |= ~np.isnan(flops)
        missing.append((precision, np.isnan(flops)))

    lacking = packed_fp32_lacking(df, cc)
    fp32_basis = np.asarray(out["flops_fp32_basis"], dtype=object).copy()
    rows = lacking & ~np.isnan(np.asarray(out["flops_fp32"], dtype=np.float64))
    fp32_basis[rows] = fp32_basis[rows] + PACKED_FP32_MISSING
    out["flops_fp32_basis"] = fp32_basis

    counts, rates, ops_basis = _tensor_ops(df, duration)
    tensor = np.full(n, np.nan)
    tensor_rate = np.full(n, np.nan)
    tensor_basis = np.full(n, None, dtype=object)
    if counts and ops_basis is not None:
        for dtype in TENSOR_DTYPES:
            if dtype not in counts:
                continue
            out[f"flops_tensor_{dtype}"] = counts[dtype]
            tensor = _nan_add(tensor, counts[dtype])
            tensor_rate = _nan_add(tensor_rate, rates[dtype])
        tensor_basis[~np.isnan(tensor)] = ops_basis[~np.isnan(tensor)]
    exact_tensor = ~np.isnan(tensor)
    # ncu's roofline-chart sections carry per-cycle rates and clocks, not a
    # duration: there the rates are known and the counts are not.
    rated = (~np.isnan(np.vstack([*rate_parts, tensor_rate]))).any(axis=0)
    # Launches without ops_path counts (or profiles merging exports with
    # different metric lists) fall back to instruction counts, per launch.
    estimate, estimate_basis, moves = _tensor_instructions(df, cc)
    _drop_hfma_moves(out, rate_parts, moves)
    # Per compute-ceiling key, for the dominant precision of rate-only launches.
    keyed = {
        **dict(zip(FLOP_WEIGHTS, rate_parts, strict=True)),
        **{f"tensor_{d}": r for d, r in rates.items()},
    }
    for key, rate in keyed.items():
        out[f"{key}_flops_per_s"] = rate
    fallback = ~exact_tensor
    tensor[fallback] = estimate[fallback]
    tensor_basis[fallback] = estimate_basis[fallback]
    with np.errstate(invalid="ignore", divide="ignore"):
        tensor_rate = np.where(fallback, estimate / duration, tensor_rate)
    out["flops_tensor"] = tensor
    out["flops_tensor_basis"] = tensor_basis
    out["tensor_uncounted"], out["tensor_uncounted_basis"] = tensor_uncounted(
        df, np.where(np.isnan(tensor), tensor_rate, tensor), tensor_basis
    )
    rate_parts.append(tensor_rate)
    missing.append(("tensor", np.isnan(tensor)))

    parts = np.vstack([out["flops_fp64"], out["flops_fp32"], out["flops_fp16"], tensor]).astype(
        np.float64
    )
    rate_stack = np.vstack(rate_parts)
    # A total needs the SASS counters, or exact tensor counts (a GEMM export
    # with only ops_path metrics); approximate tensor counts alone are not
    # enough to place a kernel.
    # Tensor-core work that is present but cannot be counted (no factor for
    # the architecture) would make any total a silent undercount.
    uncountable = text_mask(tensor_basis, lambda t: t.startswith("tensor instructions without"))
    defined = (sass_known | exact_tensor) & ~uncountable
    with np.errstate(invalid="ignore"):
        total = np.where(defined, np.nansum(parts, axis=0), np.nan)
        any_rate = (~np.isnan(rate_stack)).any(axis=0)
        total_rate = np.where(
            ((defined & any_rate) | rated) & ~uncountable, np.nansum(rate_stack, axis=0), np.nan
        )
    out["flops"] = total
    out["achieved_flops_per_s"] = total_rate
    out["flops_missing"] = _missing_labels(missing, n)

    for level, builder in (("dram", _dram_bytes), ("l2", _l2_bytes), ("l1", _l1_bytes)):
        values, basis, bw = builder(df, duration)
        out[f"{level}_bytes"] = values
        out[f"{level}_bytes_basis"] = basis
        out[f"{level}_bytes_per_s"] = bw
    return Measures(columns=out)


def _missing_labels(missing: list[tuple[str, npt.NDArray[np.bool_]]], n: int) -> ObjArray:
    """Per launch, the names whose mask holds there, joined by commas in order; None for none.

    Each launch's set of names is a number (one bit per name), so each label
    is made once and shared, not concatenated launch by launch.
    """
    combination = np.zeros(n, dtype=np.int64)
    for bit, (_, mask) in enumerate(missing):
        combination |= mask.astype(np.int64) << bit
    table = np.empty(1 << len(missing), dtype=object)
    for k in range(len(table)):
        names = [name for bit, (name, _) in enumerate(missing) if k >> bit & 1]
        table[k] = ",".join(names) if names else None
    labels: ObjArray = table[combination]
    return labels


Traffic = tuple[FloatArray, ObjArray, FloatArray]


class _Alternatives:
    """Byte-count alternatives of one memory level, in order of preference.

    Per launch the first alternative with a value wins: bytes from a count,
    or a measured rate x the duration.  The bandwidth is the measured rate
    where ncu reports one for the winning definition (exact), else the
    bytes / duration.
    """

    def __init__(self, df: Columns, duration: FloatArray) -> None:
        self.duration = duration
        n = len(df)
        self.values = np.full(n, np.nan)
        self.rate = np.full(n, np.nan)
        self.basis = np.full(n, None, dtype=object)

    def offer(
        self,
        basis: str,
        count: FloatArray | None,
        rate: FloatArray | None = None,
        scale: float = 1.0,
    ) -> None:
        """Bytes from a count; ``rate`` is the same quantity per second, if measured."""
        if count is None:
            return
        r = rate * scale if rate is not None else np.full(len(self.values), np.nan)
        self._take(basis, count * scale, r)

    def offer_rate(self, basis: str, rate: FloatArray | None, scale: float = 1.0) -> None:
        """Bytes from a measured rate x the duration (when no count exists)."""
        if rate is None:
            return
        r = rate * scale
        self._take(basis, r * self.duration, r)

    def _take(self, basis: str, values: FloatArray, r: FloatArray) -> None:
        # A rate with no duration to make bytes of is still the bandwidth.
        bare = np.isnan(self.values) & np.isnan(values) & np.isnan(self.rate) & ~np.isnan(r)
        self.rate[bare] = r[bare]
        self.basis[bare] = basis
        take = np.isnan(self.values) & ~np.isnan(values)
        self.values[take] = values[take]
        self.rate[take] = r[take]
        self.basis[take] = basis

    def result(self) -> Traffic:
        with np.errstate(invalid="ignore", divide="ignore"):
            bw = self.values / self.duration
        bw[~np.isfinite(bw)] = np.nan
        bw = np.where(np.isnan(self.rate), bw, self.rate)
        return self.values, self.basis, bw


def _dram_bytes(df: Columns, duration: FloatArray) -> Traffic:
    alt = _Alternatives(df, duration)
    rate = _col(df, "dram__bytes.sum.per_second")
    alt.offer("dram__bytes", _col(df, "dram__bytes.sum"), rate)
    alt.offer("dram__bytes", _sum_cols(df, ["dram__bytes_read.sum", "dram__bytes_write.sum"]), rate)
    alt.offer("dram__bytes", _sum_cols(df, ["dram__read_bytes.sum", "dram__write_bytes.sum"]), rate)
    alt.offer(
        "dram__bytes", _sum_cols(df, ["dram__bytes_op_read.sum", "dram__bytes_op_write.sum"]), rate
    )
    sector_rate = None if rate is None else rate / SECTOR_BYTES
    alt.offer(
        "dram__bytes",
        _sum_cols(df, ["dram__sectors_read.sum", "dram__sectors_write.sum"]),
        sector_rate,
        scale=SECTOR_BYTES,
    )
    alt.offer("dram__bytes", _col(df, "dram__sectors.sum"), sector_rate, scale=SECTOR_BYTES)
    alt.offer_rate("dram__bytes", rate)
    return alt.result()


def _l2_bytes(df: Columns, duration: FloatArray) -> Traffic:
    alt = _Alternatives(df, duration)
    rate = _col(df, "lts__t_bytes.sum.per_second")
    sector_rate = _col(df, "lts__t_sectors.sum.per_second")
    alt.offer("lts__t_bytes", _col(df, "lts__t_bytes.sum"), rate)
    alt.offer("lts__t_bytes", _col(df, "lts__t_sectors.sum"), sector_rate, scale=SECTOR_BYTES)
    ops = _sum_cols(df, [f"lts__t_sectors_op_{op}.sum" for op in ("read", "write", "atom", "red")])
    alt.offer("lts__t_bytes", ops, scale=SECTOR_BYTES)
    alt.offer_rate("lts__t_bytes", rate)
    alt.offer_rate("lts__t_bytes", sector_rate, scale=SECTOR_BYTES)
    xbar_rate = _col(df, "lts__lts2xbar_cycles_active.sum.per_second")
    alt.offer(
        "lts__lts2xbar", _col(df, "lts__lts2xbar_cycles_active.sum"), xbar_rate, scale=SECTOR_BYTES
    )
    alt.offer_rate("lts__lts2xbar", xbar_rate, scale=SECTOR_BYTES)
    alt.offer_rate("lts__lts2xbar", _col(df, "derived__lts__lts2xbar_bytes.sum.per_second"))
    xbar_read_rate = _col(df, "l1tex__m_xbar2l1tex_read_bytes.sum.per_second")
    alt.offer(
        "l1tex__m_xbar2l1tex_read", _col(df, "l1tex__m_xbar2l1tex_read_bytes.sum"), xbar_read_rate
    )
    alt.offer_rate("l1tex__m_xbar2l1tex_read", xbar_read_rate)
    return alt.result()


def _l1_bytes(df: Columns, duration: FloatArray) -> Traffic:
    alt = _Alternatives(df, duration)
    rate = _col(df, "l1tex__t_bytes.sum.per_second")
    sector_rate = _col(df, "l1tex__t_sectors.sum.per_second")
    alt.offer("l1tex__t_bytes", _col(df, "l1tex__t_bytes.sum"), rate)
    alt.offer("l1tex__t_bytes", _col(df, "l1tex__t_sectors.sum"), sector_rate, scale=SECTOR_BYTES)
    alt.offer_rate("l1tex__t_bytes", rate)
    alt.offer_rate("l1tex__t_bytes", sector_rate, scale=SECTOR_BYTES)
    for suffix in ("_mem_lgds", "_mem_lg", ""):
        alt.offer(
            "l1tex__lsu_writeback",
            _col(df, f"l1tex__lsu_writeback_active{suffix}.sum"),
            _col(df, f"l1tex__lsu_writeback_active{suffix}.sum.per_second"),
            scale=L1_WRITEBACK_BYTES,
        )
    for suffix in ("_mem_lgds", "_mem_lg", ""):
        alt.offer_rate(
            "l1tex__lsu_writeback",
            _col(df, f"l1tex__lsu_writeback_active{suffix}.sum.per_second"),
            scale=L1_WRITEBACK_BYTES,
        )
        alt.offer_rate(
            "l1tex__lsu_writeback",
            _col(df, f"derived__l1tex__lsu_writeback_bytes{suffix}.sum.per_second"),
        )
    return alt.result()
