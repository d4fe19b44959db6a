"""The ``theory`` command's documents: its table, and the table as chart input.

Design: :func:`build_theory_table` turns the analysis stage's placements
(:func:`~ncu_roofline.analysis.theory_table.place`) into the plain-data
table that ``theory --format json`` writes as is: per op and GPU the floor,
the floor times the op's count and its share of the pass; per GPU a model's
per-pass totals, tokens per second and the speedup over the first GPU.
:func:`theory_chart_context` recasts that table as the input of one chart
-- every GPU's datasheet ceilings, every op at its time floor on each GPU --
so the renderers only format and draw.
"""

from __future__ import annotations

import math
from dataclasses import asdict

from ncu_roofline.analysis.theory_ridge import ridge_crossing
from ncu_roofline.analysis.theory_table import Placement, TheoryRow, intensity, place
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.report.schema import (
    CeilingRecord,
    DeviceRoofsRecord,
    ModelRecord,
    TheoryChartContext,
    TheoryChartGpu,
    TheoryChartPoint,
    TheoryGpuRecord,
    TheoryModelConfig,
    TheoryOpRecord,
    TheoryPeakUsed,
    TheoryPlacement,
    TheoryTable,
    TheoryTotals,
)
from ncu_roofline.theory.models import ModelConfig
from ncu_roofline.theory.phases import tokens_per_pass

__all__ = ["build_theory_table", "clock_name", "theory_chart_context"]


def clock_name(spec: GpuSpec, key: str) -> str | None:
    """Which clock a compute figure assumes: ``tensor`` (a lower tensor clock) or ``boost``."""
    hz = spec.clock_for(key)
    if hz is None:
        return None
    return "tensor" if hz == spec.tensor_hz and spec.tensor_hz != spec.boost_hz else "boost"


def _placement(p: Placement, count: int, spec: GpuSpec) -> TheoryPlacement:
    return {
        "precision": p.precision,
        "peak_flops_per_s": p.peak_flops_per_s,
        "peak_clock_hz": None if p.precision is None else spec.clock_for(p.precision),
        "peak_dram_bytes_per_s": p.peak_dram_bytes_per_s,
        "ridge": p.ridge,
        "attainable_flops_per_s": p.attainable_flops_per_s,
        "bound": p.bound,
        "time_floor_s": p.time_floor_s,
        "pass_time_s": None if p.time_floor_s is None else p.time_floor_s * count,
        "share": None,  # set once the pass's total is known
    }


def _op_record(number: int, row: TheoryRow, gpus: list[GpuSpec]) -> TheoryOpRecord:
    est = row.estimate
    ai = intensity(est)
    return {
        "number": number,
        "name": row.name,
        "op": est.op,
        "label": est.label,
        "count": row.count,
        "flops": est.flops,
        "bytes": est.bytes,
        "ai": ai if math.isfinite(ai) else None,
        "precision": est.precision,
        "params": dict(est.params),
        "notes": list(est.notes),
        "in_model": row.in_model,
        "gpus": {g.key: _placement(place(est, g, ai), row.count, g) for g in gpus},
    }


def _gpu_record(g: GpuSpec, ops: list[TheoryOpRecord]) -> TheoryGpuRecord:
    used: dict[str, TheoryPeakUsed] = {}
    for op in ops:
        placed = op["gpus"][g.key]
        key, peak = placed["precision"], placed["peak_flops_per_s"]
        if key is None or peak is None or key in used:
            continue
        used[key] = {
            "key": key,
            "flops_per_s": peak,
            "clock_hz": g.clock_for(key),
            "clock": clock_name(g, key),
        }
    return {
        "key": g.key,
        "name": g.name,
        "origin": g.origin,
        "compute": dict(g.compute),
        "memory": dict(g.memory),
        "boost_hz": g.boost_hz,
        "base_hz": g.base_hz,
        "tensor_hz": g.tensor_hz,
        # The table holds dense figures only (2:4 structured sparsity never counted).
        "sparsity": "dense",
        "peaks_used": list(used.values()),
    }


def _totals(ops: list[TheoryOpRecord], key: str, tokens: int | None) -> TheoryTotals:
    """A model's pass on one GPU: its ops' floors, FLOPs and bytes times their counts."""
    t: TheoryTotals = {
        "time_floor_s": 0.0,
        "flops": 0.0,
        "bytes": 0.0,
        "complete": True,
        "collectives_not_included": 0,
        "tokens": tokens,
        "tokens_per_s": None,
        "speedup_vs_first": None,
        "ai": None,
        "ridge_crossing": None,
    }
    for op in ops:
        if not op["in_model"]:
            continue  # --op rows are tabulated, not added to the model's pass
        t["flops"] += op["flops"] * op["count"]
        t["bytes"] += op["bytes"] * op["count"]
        placed = op["gpus"][key]
        pass_time = placed["pass_time_s"]
        if pass_time is None:
            t["complete"] = False
            if placed["bound"] == "communication":
                t["collectives_not_included"] += op["count"]
        else:
            t["time_floor_s"] += pass_time
    if tokens is not None and t["time_floor_s"] > 0:
        t["tokens_per_s"] = tokens / t["time_floor_s"]
    if t["bytes"] > 0:
        t["ai"] = t["flops"] / t["bytes"]
    return t


def _set_shares(ops: list[TheoryOpRecord], key: str, with_model: bool) -> None:
    """Each op's share of the summed pass times of the rows a total counts."""
    counted = [op for op in ops if op["in_model"] or not with_model]
    total = sum(op["gpus"][key]["pass_time_s"] or 0.0 for op in counted)
    if total <= 0:
        return
    for op in counted:
        placed = op["gpus"][key]
        if placed["pass_time_s"] is not None:
            placed["share"] = placed["pass_time_s"] / total


def build_theory_table(
    rows: list[TheoryRow],
    gpus: list[GpuSpec],
    model: ModelRecord | None = None,
    config: ModelConfig | None = None,
) -> TheoryTable:
    """Plain data for the ``theory`` command (JSON as is, text and HTML via the renderers).

    ``model`` describes the model the rows were expanded from (``None`` for
    ``--op`` rows alone); only with a model are the per-pass totals summed.
    Shares are of the model's pass, or of the whole table without a model.
    ``config`` is that model's shapes: with it (and the model's phase and
    shapes) each GPU's totals carry the ridge crossing
    (:func:`~ncu_roofline.analysis.theory_ridge.ridge_crossing`), and the
    table the shapes as ``model_config``.
    """
    ops = [_op_record(i, row, gpus) for i, row in enumerate(rows, start=1)]
    for g in gpus:
        _set_shares(ops, g.key, model is not None)
    totals: dict[str, TheoryTotals] | None = None
    if model is not None:
        shape = ("phase", "batch", "seq")
        tokens = (
            tokens_per_pass(str(model["phase"]), int(model["batch"]), int(model["seq"]))
            if all(model.get(k) is not None for k in shape)
            else None
        )
        totals = {g.key: _totals(ops, g.key, tokens) for g in gpus}
        if config is not None and tokens is not None and model is not None:
            for g in gpus:
                totals[g.key]["ridge_crossing"] = ridge_crossing(
                    config,
                    g,
                    str(model["phase"]),
                    int(model["batch"]),
                    int(model["seq"]),
                    str(model.get("dtype") or "bf16"),
                    model.get("kv_dtype"),
                    int(model.get("tp") or 1),
                )
        first = totals[gpus[0].key]["time_floor_s"] if gpus else 0.0
        for t in totals.values():
            if first > 0 and t["time_floor_s"] > 0:
                t["speedup_vs_first"] = first / t["time_floor_s"]
    model_config: TheoryModelConfig | None = None
    if config is not None:
        model_config = asdict(config)  # type: ignore[assignment]
    return {
        "model": model,
        "model_config": model_config,
        "gpus": [_gpu_record(g, ops) for g in gpus],
        "ops": ops,
        "totals": totals,
    }


def _device(g: TheoryGpuRecord) -> DeviceRoofsRecord:
    """A GPU as a report's device: its datasheet ceilings, used by no launch."""

    def ceiling(key: str, kind: str, unit: str, value: float, clock: float | None) -> CeilingRecord:
        return {
            "uncertain": False,
            "key": key,
            "kind": kind,
            "unit": unit,
            "value": value,
            "min": value,
            "max": value,
            "source": "datasheet",
            "clock_hz": clock,
            "launches": 0,
        }

    ceilings = [ceiling(k, "compute", "FLOP/s", v, g["boost_hz"]) for k, v in g["compute"].items()]
    ceilings += [ceiling(k, "memory", "byte/s", v, None) for k, v in g["memory"].items()]
    return {
        "source": g["key"],
        "device_name": g["name"],
        "cc": None,
        "gpu": None,
        "measured_sm_clock_hz": None,
        "ceilings": ceilings,
        "notes": [],
    }


def _point(op: TheoryOpRecord, key: str) -> TheoryChartPoint:
    """One op on one GPU: at its intensity and the rate its floor implies (FLOPs / floor)."""
    placed = op["gpus"][key]
    floor = placed["time_floor_s"]
    rate = op["flops"] / floor if floor and op["flops"] > 0 else None
    return {
        "number": op["number"],
        "name": op["name"],
        "label": op["label"],
        "count": op["count"],
        "bound": placed["bound"],
        "precision": placed["precision"],
        "ai": op["ai"] if op["ai"] and op["flops"] > 0 else None,
        "flops_per_s": rate,
        "time_floor_s": floor,
        "pass_time_s": placed["pass_time_s"],
        "share": placed["share"],
    }


def theory_chart_context(table: TheoryTable) -> TheoryChartContext:
    """The ``theory`` table as one chart's input: per GPU its ceilings and its ops' points."""
    gpus: list[TheoryChartGpu] = [
        {
            "key": g["key"],
            "name": g["name"],
            "roofs": _device(g),
            "points": [_point(op, g["key"]) for op in table["ops"]],
        }
        for g in table["gpus"]
    ]
    return {"gpus": gpus}
