"""A measured profile projected onto another GPU (``report --project-to GPU``).

The model
---------
Each launch has a *roofline floor* on the GPU it ran on: the longest of its
roof times ``w_r / P_r`` over the roofs ``r`` it uses (FLOPs of each
precision against that precision's compute roof; DRAM, L2 and L1 bytes
against their bandwidths), with ``P_r`` the ceilings the analysis placed it
under.  Its measured time ``t`` is that floor divided by its roofline
efficiency ``E = floor / t``.  On the target the same work has the floor
``floor' = max_r w_r / P'_r`` (the target's table peaks), and the model
assumes the launch keeps its efficiency against the floor::

    projected = t * floor' / floor   ( = floor' / E )

So a memory-bound launch speeds up by the DRAM bandwidth ratio, a
compute-bound one by its precision's compute ratio, and one whose binding
roof changes on the target (DRAM grew more than compute) by the ratio of
the two floors.  Projecting onto the GPU the profile's ceilings came from
gives the measured time back (the floors are equal).  The projection is
never faster than the target's roofline allows: a launch measured above its
source roofs (``E > 1``) is held at the target's floor.

Clocks: compute, L2 and L1 figures of the table assume the boost clock
(:meth:`~ncu_roofline.core.gpu_spec.GpuSpec.clock_for`).  With the
analysis's ``clocks="measured"`` the source ceilings were scaled to the SM
clock the export measured; the target's are scaled by the same fraction of
its boost clock (the target is assumed to run as far below its boost clock
as the profiled GPU did).  DRAM bandwidth does not follow the SM clock.

What is not projected onto a roof: latency-bound launches, under-filled
grids (fewer blocks than SMs), collective-communication kernels and launches
the roofline cannot place keep their measured time (no roof speed-up is
promised for them), raised to the target's floor where that is longer.
Precisions the target lacks run at a documented stand-in rate
(:data:`FALLBACK`: FP8 tensor work on an A100 at its FP16 tensor rate); a
roof with no figure on either GPU after that is left out, and a launch with
no roof known on both GPUs, or no duration, has no projection (``None``).

Everything here is vectorised over launches: no per-launch Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.classify import BOUND_CLASSES, Groups
from ncu_roofline.analysis.projection_records import ByBoundProjection, ProjectionRecord
from ncu_roofline.analysis.roofs.assign import peak_column
from ncu_roofline.core.columns import GROUP_KEYS
from ncu_roofline.core.frame import floats
from ncu_roofline.core.hardware import MEMORY_KEYS, GpuLookup, GpuSpec, match_device

if TYPE_CHECKING:
    from ncu_roofline.analysis.engine import Analysis

__all__ = [
    "FALLBACK",
    "MODEL",
    "ByBoundProjection",
    "ProjectionRecord",
    "add_projections",
    "project",
    "project_analysis",
]

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]

#: The model in one sentence: what every output says about the projection.
MODEL = (
    "projected time = measured time x (roofline floor on the target / roofline floor on "
    "the profiled GPU), the floor being the longest of FLOPs per precision / compute peak "
    "and bytes / bandwidth at DRAM, L2 and L1: each launch keeps its measured efficiency "
    "against its roofline, and is never faster than the target's roofline allows; "
    "latency-bound, under-filled, communication and unplaceable launches keep their "
    "measured time (raised to the target's floor where that is longer)"
)

#: Where the target lacks a precision's figure, the rate its work runs at
#: instead, tried in order: the next-wider tensor format (what a framework
#: falls back to), then the SIMT pipe of the same width.
FALLBACK: dict[str, tuple[str, ...]] = {
    "tensor_fp4": ("tensor_fp8", "tensor_fp16"),
    "tensor_fp8": ("tensor_fp16",),
    "tensor_int8": ("tensor_fp16",),
    "tensor_bf16": ("tensor_fp16",),
    "tensor_tf32": ("fp32",),
    "tensor_fp16": ("fp16", "fp32"),
    "tensor_fp64": ("fp64",),
    "fp16": ("fp32",),
}

#: Bound classes whose launches keep their measured time.
_KEPT_BOUNDS = ("latency", "communication", "not placeable")


@dataclass(frozen=True)
class _Roof:
    key: str
    work: FloatArray
    source_peak: FloatArray
    target_peak: FloatArray
    #: The target key whose figure stands in, where not ``key`` itself.
    stand_in: str | None


def _target_figure(spec: GpuSpec, key: str) -> tuple[float | None, str]:
    """The target's figure for roof ``key`` (following :data:`FALLBACK`), and the key it is."""
    figures = spec.memory if key in MEMORY_KEYS else spec.compute
    for candidate in (key, *([] if key in MEMORY_KEYS else FALLBACK.get(key, ()))):
        value = figures.get(candidate)
        if value is not None and value > 0:
            return float(value), candidate
    return None, key


def _clock_fraction(
    launches: pd.DataFrame, analysis_roofs: Sequence[object], clocks: str
) -> FloatArray:
    """Per launch, the SM clock it ran at over its GPU's boost clock; 1 where unknown or datasheet."""
    n = len(launches)
    out = np.ones(n)
    if clocks != "measured" or "sm_clock_hz" not in launches:
        return out
    boost = np.full(n, np.nan)
    source = launches["source"].astype(object).to_numpy()
    name = launches["device_name"].astype(object).to_numpy()
    for dev in analysis_roofs:
        gpu = getattr(dev, "gpu", None)
        if gpu is None or not gpu.boost_hz:
            continue
        rows = source == getattr(dev, "source", None)
        dev_name = getattr(dev, "device_name", None)
        rows &= pd.isna(name) if dev_name is None else (name == dev_name)
        boost[rows & np.isnan(boost)] = float(gpu.boost_hz)
    for dev_name in pd.unique(name[np.isnan(boost)]):
        spec = match_device(dev_name if isinstance(dev_name, str) else None)
        if spec is not None and spec.boost_hz:
            boost[np.isnan(boost) & (name == dev_name)] = float(spec.boost_hz)
    frac = floats(launches["sm_clock_hz"]) / boost
    return np.where(np.isfinite(frac) & (frac > 0), frac, 1.0)


def _roofs(launches: pd.DataFrame, spec: GpuSpec, frac: FloatArray) -> list[_Roof]:
    """Every roof a launch can use: its work, the source ceiling, the target's figure."""
    n = len(launches)
    compute: list[tuple[str, FloatArray]] = []
    for p in ("fp64", "fp32", "fp16"):
        if f"flops_{p}" in launches:
            compute.append((p, floats(launches[f"flops_{p}"])))
    typed = [
        str(c)
        for c in launches.columns
        if str(c).startswith("flops_tensor_") and not str(c).endswith("_basis")
    ]
    for c in typed:
        compute.append(("tensor_" + c[len("flops_tensor_") :], floats(launches[c])))
    if "flops_tensor" in launches:
        # Instruction-count estimates carry no datatype: the analysis puts
        # them under the FP16 tensor roof, where no per-datatype count exists.
        estimate = floats(launches["flops_tensor"]).copy()
        for c in typed:
            estimate[~np.isnan(floats(launches[c]))] = np.nan
        compute.append(("tensor_fp16", estimate))
    out: list[_Roof] = []
    items = [
        *compute,
        *(
            (lvl, floats(launches[f"{lvl}_bytes"]))
            for lvl in MEMORY_KEYS
            if f"{lvl}_bytes" in launches
        ),
    ]
    for key, work in items:
        col = peak_column(key)
        src_peak = floats(launches[col]) if col in launches else np.full(n, np.nan)
        figure, used = _target_figure(spec, key)
        if figure is None:
            tgt = np.full(n, np.nan)
        else:
            clock = spec.clock_for(used)
            scale = (
                frac * (spec.boost_hz / clock)
                if (clock and spec.boost_hz)
                else (np.ones(n) if clock is None else frac)
            )
            tgt = figure * scale
        out.append(_Roof(key, work, src_peak, tgt, used if used != key else None))
    return out


def project(
    launches: pd.DataFrame,
    target: GpuSpec,
    *,
    roofs: Sequence[object] = (),
    clocks: str = "measured",
    target_clock_hz: float | None = None,
) -> tuple[FloatArray, ObjArray, list[str]]:
    """Each launch's projected duration on ``target`` (seconds per invocation, NaN unknown).

    ``launches`` is an analysis's launch frame, ``roofs`` its
    :class:`~ncu_roofline.analysis.roofs.assign.DeviceRoofs` (for the boost
    clock each launch's ceilings assumed) and ``clocks`` its clock mode.
    Returns the projected seconds, the basis of each (``projection_basis``)
    and the stand-in rates used (``"tensor_fp8 at tensor_fp16 rate"``).
    The model is the module's docstring.  ``target_clock_hz`` fixes the
    SM clock the target runs at instead (its clock-following figures scaled
    to it from its boost clock), for comparing with a run at a known clock.
    """
    n = len(launches)
    t = floats(launches["duration_s"])
    if target_clock_hz is not None and target.boost_hz:
        frac = np.full(n, target_clock_hz / target.boost_hz)
    else:
        frac = _clock_fraction(launches, roofs, clocks)
    floor_src = np.zeros(n)
    floor_tgt = np.zeros(n)
    usable = np.zeros(n, dtype=bool)
    stand_ins: list[str] = []
    stood_in = np.full(n, "", dtype=object)
    for roof in _roofs(launches, target, frac):
        w = roof.work
        worked = np.isfinite(w) & (w > 0)
        ok = worked & (roof.source_peak > 0) & (roof.target_peak > 0)
        # Work under a roof one GPU has no figure for: left out, and said so.
        stood_in[worked & ~ok] = (
            stood_in[worked & ~ok] + f"; without the {roof.key} roof (no figure on both GPUs)"
        )
        if not ok.any():
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            floor_src = np.where(ok, np.maximum(floor_src, w / roof.source_peak), floor_src)
            floor_tgt = np.where(ok, np.maximum(floor_tgt, w / roof.target_peak), floor_tgt)
        usable |= ok
        if roof.stand_in is not None:
            note = f"{roof.key} at {roof.stand_in} rate"
            stand_ins.append(note)
            stood_in[ok] = stood_in[ok] + "; " + note
    floor_src = np.where(usable, floor_src, np.nan)
    floor_tgt = np.where(usable, floor_tgt, np.nan)
    timed = np.isfinite(t) & (t > 0)

    bound = launches["bound"].astype(object).to_numpy() if "bound" in launches else np.full(n, None)
    thin = (
        launches["under_filled"].fillna(False).to_numpy(dtype=bool)
        if "under_filled" in launches
        else np.zeros(n, dtype=bool)
    )
    kept = np.isin(bound, _KEPT_BOUNDS) | thin
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = t * (floor_tgt / floor_src)
    roofed = timed & usable & ~kept
    projected = np.full(n, np.nan)
    projected[roofed] = np.maximum(scaled[roofed], floor_tgt[roofed])
    projected[timed & kept] = np.fmax(t[timed & kept], floor_tgt[timed & kept])

    basis = np.full(n, "unknown: no duration", dtype=object)
    basis[timed & ~kept & ~usable] = "unknown: no roof known on both GPUs"
    basis[roofed] = "roof"
    basis[roofed & (floor_src > t)] = (
        "roof: measured above the source roofs, held at the target's floor"
    )
    why = np.where(
        thin & ~np.isin(bound, _KEPT_BOUNDS), "under-filled grid", np.asarray(bound, dtype=object)
    )
    kept_rows = timed & kept
    basis[kept_rows] = "kept: " + why[kept_rows].astype(str) + " (measured time)"
    raised = kept_rows & (floor_tgt > t)
    basis[raised] = "kept: " + why[raised].astype(str) + " (raised to the target's roofline floor)"
    notes = roofed & (stood_in != "")
    basis[notes] = basis[notes] + stood_in[notes]
    return projected, basis, list(dict.fromkeys(stand_ins))


def _seconds(value: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(value) >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value / 1e-9:.3g} ns"


def _summary(
    launches: pd.DataFrame,
    projected: FloatArray,
    basis: ObjArray,
    spec: GpuSpec,
    asked: str,
    clocks: str,
    fallbacks: list[str],
) -> ProjectionRecord:
    inv = launches["invocations"].to_numpy(dtype=np.float64, na_value=1.0)
    t = floats(launches["duration_s"]) * inv
    p = projected * inv
    both = np.isfinite(t) & np.isfinite(p)
    text = basis.astype(str)
    bound = launches["bound"].astype(object).fillna("not placeable").to_numpy()
    by_bound: dict[str, ByBoundProjection] = {}
    for b in BOUND_CLASSES:
        rows = both & (bound == b)
        m = float(t[rows].sum()) if rows.any() else None
        q = float(p[rows].sum()) if rows.any() else None
        by_bound[b] = {
            "launches": int(inv[rows].sum()),
            "measured_s": m,
            "projected_s": q,
            "speedup": m / q if m is not None and q else None,
        }
    measured = float(t[both].sum()) if both.any() else None
    total = float(p[both].sum()) if both.any() else None
    speedup = measured / total if measured is not None and total else None
    record: ProjectionRecord = {
        "target": spec.key,
        "target_name": spec.name,
        "asked": asked,
        "theory_only": bool(getattr(spec, "theory_only", False)),
        "model": MODEL,
        "clocks": (
            "the target runs at the same fraction of its boost clock as the profiled GPU did"
            if clocks == "measured"
            else "datasheet clocks on both GPUs"
        ),
        "measured_s": measured,
        "projected_s": total,
        "speedup": speedup,
        "launches": int(inv[both].sum()),
        "roof_projected": int(inv[both & np.char.startswith(text, "roof")].sum()),
        "kept": int(inv[both & np.char.startswith(text, "kept")].sum()),
        "unknown": int(inv[~both & np.isfinite(t)].sum()),
        "by_bound": by_bound,
        "fallbacks": fallbacks,
        "headline": None,
    }
    record["headline"] = headline(record)
    return record


def headline(record: ProjectionRecord) -> str | None:
    """One sentence: the whole profile's time on the target, and which kernels gain most."""
    m, p, s = record["measured_s"], record["projected_s"], record["speedup"]
    if m is None or p is None or s is None:
        return None
    how = f"{s:.2g}x faster" if s >= 1 else f"{1 / s:.2g}x slower"
    text = (
        f"On {record['target_name']} this profile would take {_seconds(p)} "
        f"instead of {_seconds(m)} ({how})"
    )
    gains = [
        (b, (v["measured_s"] or 0.0) - (v["projected_s"] or 0.0), v["speedup"])
        for b, v in record["by_bound"].items()
        if v["measured_s"] is not None and v["projected_s"] is not None
    ]
    gains.sort(key=lambda g: -g[1])
    if gains and gains[0][1] > 0 and gains[0][2] is not None:
        text += f", {gains[0][0]}-bound kernels gaining most ({gains[0][2]:.2g}x)"
    if record["unknown"]:
        text += f"; {record['unknown']:,} launch(es) could not be projected"
    return text + "."


def _group_rows(
    launches: pd.DataFrame, kernels: pd.DataFrame
) -> tuple[Groups, npt.NDArray[np.intp]]:
    """The launches' groups (as the engine forms them) and, per kernel row, its group id (-1: none)."""
    groups = Groups(launches)
    keys = list(GROUP_KEYS)
    firsts = launches[keys].iloc[groups.first].astype(object).fillna("")
    firsts["_gid"] = np.arange(groups.n)
    right = kernels[keys].astype(object).fillna("")
    joined = right.merge(firsts, on=keys, how="left")
    gid = joined["_gid"].to_numpy(dtype=np.float64, na_value=np.nan)
    return groups, np.where(np.isnan(gid), -1, gid).astype(np.intp)


def _group_totals(
    groups: Groups, rows: npt.NDArray[np.intp], values: FloatArray, inv: FloatArray
) -> FloatArray:
    """Per kernel row: its launches' ``values`` x invocations summed, NaN if any is unknown."""
    total = groups.sum(values * inv, strict=True)
    out = np.full(len(rows), np.nan)
    has = rows >= 0
    out[has] = total[rows[has]]
    return out


def add_projections(
    launches: pd.DataFrame,
    kernels: pd.DataFrame,
    targets: Sequence[GpuLookup | GpuSpec],
    *,
    roofs: Sequence[object] = (),
    clocks: str = "measured",
) -> list[ProjectionRecord]:
    """Project onto each target: columns in place, and one summary per target.

    ``projected_s`` (launches: seconds per invocation, like ``duration_s``;
    groups: the group's total, like ``total_duration_s``) and
    ``projection_basis`` are the first target's; ``projected`` maps every
    target's key to its figure.
    """
    per_launch: dict[str, FloatArray] = {}
    per_group: dict[str, FloatArray] = {}
    out: list[ProjectionRecord] = []
    groups, rows = _group_rows(launches, kernels)
    inv = launches["invocations"].to_numpy(dtype=np.float64, na_value=1.0)
    for i, target in enumerate(targets):
        spec = target.spec if isinstance(target, GpuLookup) else target
        asked = target.asked if isinstance(target, GpuLookup) else spec.key
        projected, basis, fallbacks = project(launches, spec, roofs=roofs, clocks=clocks)
        group = _group_totals(groups, rows, projected, inv)
        if i == 0:
            launches["projected_s"] = projected
            launches["projection_basis"] = basis
            kernels["projected_s"] = group
        per_launch[spec.key] = projected
        per_group[spec.key] = group
        out.append(_summary(launches, projected, basis, spec, asked, clocks, fallbacks))
    launches["projected"] = _mapping_column(per_launch, len(launches))
    kernels["projected"] = _mapping_column(per_group, len(kernels))
    return out


def project_analysis(analysis: Analysis, targets: Sequence[GpuLookup | GpuSpec]) -> Analysis:
    """``analysis`` with its launches and groups projected onto ``targets`` (in place, and returned).

    Adds ``projected_s``, ``projection_basis`` and ``projected`` to its
    frames and one :class:`ProjectionRecord` per target to ``projections``.
    """
    if not targets:
        return analysis
    analysis.projections = add_projections(
        analysis.launches,
        analysis.kernels,
        targets,
        roofs=analysis.roofs,
        clocks=analysis.clocks,
    )
    if analysis.budget is not None:
        # The projection is of ncu's sampled launches; a joined timeline's real
        # time is not projected, and the headline must not read as if it were.
        for record in analysis.projections:
            if record["headline"]:
                record["headline"] = (
                    record["headline"].rstrip(".")
                    + " (the launches ncu profiled, not the timeline's real time)."
                )
    return analysis


def _mapping_column(values: dict[str, FloatArray], n: int) -> ObjArray:
    """Per row, ``{target key: value or None}``."""
    keys = list(values)
    cols = [np.where(np.isfinite(v), v, np.nan).tolist() for v in values.values()]
    rows = (
        [
            {k: (x if x == x else None) for k, x in zip(keys, row, strict=True)}
            for row in zip(*cols, strict=True)
        ]
        if cols
        else [{} for _ in range(n)]
    )
    out: ObjArray = np.empty(n, dtype=object)
    out[:] = rows
    return out
