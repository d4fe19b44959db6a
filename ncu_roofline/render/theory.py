"""The ``theory`` command's presentation: its table as text lines and as chart input.

:func:`~ncu_roofline.analysis.theory_table.build_theory_table` computes the
plain-data table; this module only formats it, for the text template and for
the roofline charts.
"""

from __future__ import annotations

from typing import Any

from ncu_roofline.core.units import format_si


def _fmt_count(x: float | None, unit: str = "") -> str:
    return format_si(x, unit) if x is not None else "n/a"


def theory_text_context(table: dict[str, Any]) -> dict[str, Any]:
    """Strings and column widths for the text template (no arithmetic there)."""
    gpus = table["gpus"]
    header = ["op", "count", "FLOPs", "bytes", "FLOP/B"]
    for g in gpus:
        header += [f"{g['key']} bound", "floor"]
    body: list[list[str]] = []
    for op in table["ops"]:
        cells = [
            str(op["name"]),
            str(op["count"]),
            _fmt_count(op["flops"]),
            _fmt_count(op["bytes"], "B"),
            "n/a" if op["ai"] is None else f"{op['ai']:.4g}",
        ]
        for g in gpus:
            placed = op["gpus"][g["key"]]
            cells += [str(placed["bound"] or "n/a"), _fmt_count(placed["time_floor_s"], "s")]
        body.append(cells)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, *body]
    ]
    totals = []
    if table.get("totals"):
        for g in gpus:
            t = table["totals"][g["key"]]
            totals.append(
                {
                    "gpu": f"{g['key']} ({g['name']})",
                    "floor": _fmt_count(t["time_floor_s"], "s"),
                    "flops": _fmt_count(t["flops"]),
                    "bytes": _fmt_count(t["bytes"], "B"),
                    "complete": t["complete"],
                    "collectives": t["collectives_not_included"],
                }
            )
    model = table.get("model")
    title = None
    if model:
        title = (
            f"{model['name']} {model['phase']}, batch {model['batch']}, seq {model['seq']}, "
            f"{model['dtype']}" + (f", tp {model['tp']}" if model["tp"] > 1 else "")
        )
    return {"title": title, "lines": lines, "totals": totals}


def theory_chart_context(table: dict[str, Any]) -> dict[str, Any]:
    """The ``theory`` table in the shape the roofline charts read.

    Each GPU becomes a device with its datasheet ceilings; each op a point
    at its theoretical intensity and the best rate it could reach there
    (FLOPs over its time floor), sized by its share of the summed floors.
    """
    roofs = []
    kernels: list[dict[str, Any]] = []
    for g in table["gpus"]:
        ceilings = [
            {"key": k, "kind": "compute", "unit": "FLOP/s", "value": v, "source": "datasheet",
             "clock_hz": g["boost_hz"], "uncertain": False}
            for k, v in g["compute"].items()
        ] + [
            {"key": k, "kind": "memory", "unit": "byte/s", "value": v, "source": "datasheet",
             "clock_hz": None, "uncertain": False}
            for k, v in g["memory"].items()
        ]  # fmt: skip
        roofs.append(
            {"source": g["key"], "device_name": g["name"], "cc": None, "gpu": None,
             "measured_sm_clock_hz": None, "ceilings": ceilings, "notes": []}
        )  # fmt: skip
        floors = [
            (op["gpus"][g["key"]]["time_floor_s"] or 0.0) * op["count"] for op in table["ops"]
        ]
        total = sum(floors) or 1.0
        for op, floor in zip(table["ops"], floors, strict=True):
            placed = op["gpus"][g["key"]]
            per_op = placed["time_floor_s"]
            rate = op["flops"] / per_op if per_op else None
            kernels.append(
                {
                    "rank": len(kernels) + 1,
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
                    "achieved_flops_per_s": rate,
                    "efficiency": 1.0,
                    "bound": placed["bound"] or "not placeable",
                    "bound_reason": "theory: the op at its time floor, on the roof",
                    "recoverable_s": None,
                }
            )
    return {"roofs": roofs, "kernels": kernels, "launches": [], "findings": []}
