"""The ``theory`` command's presentation: its table as text lines, a page title and charts.

:func:`~ncu_roofline.report.theory.build_theory_table` computes the
plain-data table and :func:`~ncu_roofline.report.theory.theory_chart_context`
its chart input; this module only formats them, for the text and HTML
templates and the roofline charts.
"""

from __future__ import annotations

from typing import Any

from ncu_roofline.render.charts import roofline_figures
from ncu_roofline.render.format import TEXT
from ncu_roofline.render.page import untitled
from ncu_roofline.report.schema import TheoryTable
from ncu_roofline.report.theory import theory_chart_context

__all__ = ["theory_figures", "theory_page_title", "theory_text_context"]


def theory_text_context(table: TheoryTable) -> dict[str, Any]:
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
            TEXT.si(op["flops"]),
            TEXT.si(op["bytes"], "B"),
            TEXT.number(op["ai"], 4),
        ]
        for g in gpus:
            placed = op["gpus"][g["key"]]
            cells += [placed["bound"] or TEXT.missing, TEXT.si(placed["time_floor_s"], "s")]
        body.append(cells)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, *body]
    ]
    totals: list[dict[str, Any]] = []
    model_totals = table["totals"]
    if model_totals:
        for g in gpus:
            t = model_totals[g["key"]]
            totals.append(
                {
                    "gpu": f"{g['key']} ({g['name']})",
                    "floor": TEXT.si(t["time_floor_s"], "s"),
                    "flops": TEXT.si(t["flops"]),
                    "bytes": TEXT.si(t["bytes"], "B"),
                    "complete": t["complete"],
                    "collectives": t["collectives_not_included"],
                }
            )
    model = table["model"]
    title = None
    if model:
        title = (
            f"{model['name']} {model['phase']}, batch {model['batch']}, seq {model['seq']}, "
            f"{model['dtype']}" + (f", tp {model['tp']}" if model["tp"] > 1 else "")
        )
    return {"title": title, "lines": lines, "totals": totals}


def theory_page_title(table: TheoryTable, text_title: str | None) -> str:
    """The HTML page's title: the model line, else the first three ops' names."""
    return "Theory: " + (text_title or ", ".join(op["name"] for op in table["ops"][:3]))


def theory_figures(table: TheoryTable) -> list[dict[str, Any]]:
    """One roofline figure per GPU, its points the ops at their time floors."""
    charts = untitled(roofline_figures(theory_chart_context(table)))
    for chart in charts:
        # The points are ops, not measured kernel groups.
        for trace in chart["figure"]["data"]:
            if trace.get("legendgroup") == "kernel groups":
                trace["legendgrouptitle"] = {"text": "ops (theory)"}
    return charts
