"""The ``theory`` command's documents: its table, and the table as chart input.

Design: :func:`build_theory_table` turns the analysis stage's placements
(:func:`~ncu_roofline.analysis.theory_table.place`) into the plain-data
table that ``theory --format json`` writes as is, with a model's per-pass
totals.  :func:`theory_chart_context` recasts that table in the shape the
roofline charts read from a report -- GPUs as devices with their datasheet
ceilings, ops as kernel groups at their time floor -- so the renderers only
format and draw.
"""

from __future__ import annotations

import math
from typing import Any

from ncu_roofline.analysis.theory_table import Placement, TheoryRow, intensity, place
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.report.schema import (
    CeilingRecord,
    DeviceRoofsRecord,
    Record,
    TheoryChartContext,
    TheoryGpuRecord,
    TheoryOpRecord,
    TheoryPlacement,
    TheoryTable,
    TheoryTotals,
)

__all__ = ["build_theory_table", "theory_chart_context"]


def _placement(p: Placement) -> TheoryPlacement:
    return {
        "precision": p.precision,
        "peak_flops_per_s": p.peak_flops_per_s,
        "peak_dram_bytes_per_s": p.peak_dram_bytes_per_s,
        "ridge": p.ridge,
        "attainable_flops_per_s": p.attainable_flops_per_s,
        "bound": p.bound,
        "time_floor_s": p.time_floor_s,
    }


def _op_record(row: TheoryRow, gpus: list[GpuSpec]) -> TheoryOpRecord:
    est = row.estimate
    ai = intensity(est)
    return {
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
        "gpus": {g.key: _placement(place(est, g, ai)) for g in gpus},
    }


def _gpu_record(g: GpuSpec) -> TheoryGpuRecord:
    return {
        "key": g.key,
        "name": g.name,
        "origin": g.origin,
        "compute": dict(g.compute),
        "memory": dict(g.memory),
        "boost_hz": g.boost_hz,
    }


def _totals(rows: list[TheoryRow], ops: list[TheoryOpRecord], key: str) -> TheoryTotals:
    """A model's pass on one GPU: its ops' floors, FLOPs and bytes times their counts."""
    t: TheoryTotals = {
        "time_floor_s": 0.0,
        "flops": 0.0,
        "bytes": 0.0,
        "complete": True,
        "collectives_not_included": 0,
    }
    for row, op in zip(rows, ops, strict=True):
        if not row.in_model:
            continue  # --op rows are tabulated, not added to the model's pass
        t["flops"] += op["flops"] * row.count
        t["bytes"] += op["bytes"] * row.count
        placed = op["gpus"][key]
        floor = placed["time_floor_s"]
        if floor is None:
            t["complete"] = False
            if placed["bound"] == "communication":
                t["collectives_not_included"] += row.count
        else:
            t["time_floor_s"] += floor * row.count
    return t


def build_theory_table(
    rows: list[TheoryRow], gpus: list[GpuSpec], model: dict[str, Any] | None = None
) -> TheoryTable:
    """Plain data for the ``theory`` command (JSON as is, text and HTML via the renderers).

    ``model`` describes the model the rows were expanded from (``None`` for
    ``--op`` rows alone); only with a model are the per-pass totals summed.
    """
    ops = [_op_record(row, gpus) for row in rows]
    return {
        "model": model,
        "gpus": [_gpu_record(g) for g in gpus],
        "ops": ops,
        "totals": {g.key: _totals(rows, ops, g.key) for g in gpus} if model is not None else None,
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


def _op_groups(table: TheoryTable, g: TheoryGpuRecord, first_rank: int) -> list[Record]:
    """The ops on one GPU as kernel groups at their time floors.

    Each sits at its theoretical intensity and the best rate it could reach
    there (FLOPs over its floor), its time the floor times its count, its
    share of the time that over the summed floors of all ops.
    """
    ops = table["ops"]
    floors = [(op["gpus"][g["key"]]["time_floor_s"] or 0.0) * op["count"] for op in ops]
    total = sum(floors) or 1.0
    groups: list[Record] = []
    for op, floor in zip(ops, floors, strict=True):
        placed = op["gpus"][g["key"]]
        per_op = placed["time_floor_s"]
        groups.append(
            {
                "rank": first_rank + len(groups),
                "source": g["key"],
                "device_name": g["name"],
                "cc": None,
                "kernel": f"{op['name']}: {op['label']}",
                "kernel_short": op["name"],
                "grid": None,
                "block": None,
                "launches": op["count"],
                "total_duration_s": floor,
                "time_share": floor / total,
                "ai_dram": op["ai"],
                "achieved_flops_per_s": op["flops"] / per_op if per_op else None,
                "efficiency": 1.0,
                "bound": placed["bound"] or "not placeable",
                "bound_reason": "theory: the op at its time floor, on the roof",
                "recoverable_s": None,
            }
        )
    return groups


def theory_chart_context(table: TheoryTable) -> TheoryChartContext:
    """The ``theory`` table in the shape the roofline charts read.

    Each GPU becomes a device with its datasheet ceilings; each op a kernel
    group per GPU, ranked in table order, GPU after GPU.
    """
    kernels: list[Record] = []
    for g in table["gpus"]:
        kernels += _op_groups(table, g, len(kernels) + 1)
    return {
        "roofs": [_device(g) for g in table["gpus"]],
        "kernels": kernels,
        "launches": [],
        "findings": [],
    }
