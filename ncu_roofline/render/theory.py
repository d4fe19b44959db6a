"""The ``theory`` command's presentation: text lines, the HTML page's strings and its chart.

:func:`~ncu_roofline.report.theory.build_theory_table` computes the
plain-data table (floors, floors times counts, shares, tokens per second,
speedups) and :func:`~ncu_roofline.report.theory.theory_chart_context` the
chart's input; this module only formats them, for the text and HTML
templates and the roofline chart.
"""

from __future__ import annotations

from ncu_roofline.render.format import TABLE, TEXT, Formatter
from ncu_roofline.render.theory_views import (
    Cell,
    GpuCard,
    GpuCells,
    OpRow,
    TextTotals,
    TheoryHtmlView,
    TheoryTextView,
)
from ncu_roofline.report.schema import TheoryGpuRecord, TheoryOpRecord, TheoryTable, TheoryTotals
from ncu_roofline.report.theory import theory_chart_context

__all__ = [
    "theory_html_context",
    "theory_page_title",
    "theory_text_context",
]


def _rate(value: object, fmt: Formatter) -> str:
    """Tokens per second: whole numbers from 100 up, three significant digits below."""
    if isinstance(value, float) and value >= 100:
        return fmt.count(round(value))
    return fmt.number(value)


def _title(table: TheoryTable) -> str | None:
    model = table["model"]
    if not model:
        return None
    return (
        f"{model['name']} {model['phase']}, batch {model['batch']}, seq {model['seq']}, "
        f"{model['dtype']}" + (f", tp {model['tp']}" if model["tp"] > 1 else "")
    )


def _pass_words(table: TheoryTable) -> str:
    """What one pass is, and what its tokens are."""
    model = table["model"]
    if model and str(model["phase"]) == "decode":
        return "a decode step: one new token per sequence"
    return "prefill: batch x seq prompt tokens"


def _tokens_word(table: TheoryTable) -> str:
    """``token`` or ``tokens``, for the tokens one pass handles."""
    totals = table["totals"]
    one = totals is not None and all(t["tokens"] == 1 for t in totals.values())
    return "token" if one else "tokens"


def _speedup(t: TheoryTotals, fmt: Formatter, mark: str) -> str | None:
    """The speedup over the first GPU (``2.35x``); ``None`` for the first GPU itself."""
    s = t["speedup_vs_first"]
    if s is None or abs(s - 1.0) < 1e-9:
        return None
    return fmt.ratio(s, mark)


def peaks_words(g: TheoryGpuRecord, fmt: Formatter) -> str:
    """Which peaks a GPU's floors use: dense datasheet figures, each at its clock."""
    by_clock: dict[str, list[str]] = {}
    for p in g["peaks_used"]:
        clock = (
            f"the {fmt.si(p['clock_hz'], 'Hz')} {p['clock']} clock"
            if p["clock_hz"] is not None and p["clock"]
            else "the vendor's clock"
        )
        by_clock.setdefault(clock, []).append(f"{p['key']} {fmt.si(p['flops_per_s'], 'FLOP/s')}")
    used = "; ".join(f"{', '.join(v)} at {k}" for k, v in by_clock.items())
    sparsity = "dense (2:4 sparsity not counted)" if g["sparsity"] == "dense" else g["sparsity"]
    return f"{sparsity} datasheet peaks" + (f": {used}" if used else "")


def ridge_words(t: TheoryTotals, fmt: Formatter) -> str | None:
    """Where the phase turns compute-bound on a GPU, as a sentence; None without a crossing."""
    rc = t["ridge_crossing"]
    if rc is None or rc["ridge"] is None:
        return None
    ridge = f"ridge {fmt.number(rc['ridge'])} FLOP/B of {rc['precision']}"
    now = f"{fmt.number(rc['intensity'])} FLOP/B now" if rc["intensity"] is not None else None
    if rc["value"] is None:
        head = f"memory-bound at every {rc['over']} up to {fmt.count(rc['searched_to'])}"
    else:
        head = f"compute-bound from {rc['over']} {fmt.count(rc['value'])}"
    return f"{head} ({', '.join(x for x in (now, ridge) if x)})"


def _text_totals(table: TheoryTable) -> list[TextTotals]:
    totals: list[TextTotals] = []
    model_totals = table["totals"]
    if not model_totals:
        return totals
    first = table["gpus"][0]
    for g in table["gpus"]:
        t = model_totals[g["key"]]
        speedup = _speedup(t, TEXT, "x")
        totals.append(
            {
                "gpu": f"{g['key']} ({g['name']})",
                "floor": TEXT.si(t["time_floor_s"], "s"),
                "flops": TEXT.si(t["flops"], "FLOP"),
                "bytes": TEXT.si(t["bytes"], "B"),
                "tokens": (
                    f"at most {_rate(t['tokens_per_s'], TEXT)} tokens/s"
                    if t["tokens_per_s"] is not None
                    else None
                ),
                "speedup": f"{speedup} the speed of {first['key']}" if speedup else None,
                "complete": t["complete"],
                "collectives": t["collectives_not_included"],
                "ridge": ridge_words(t, TEXT),
            }
        )
    return totals


def theory_text_context(table: TheoryTable) -> TheoryTextView:
    """Strings and column widths for the text template (no arithmetic there)."""
    gpus = table["gpus"]
    header = ["#", "op", "count", "FLOPs", "bytes", "FLOP/B"]
    for g in gpus:
        header += [f"{g['key']} bound", "floor", "x count", "share"]
    body: list[list[str]] = []
    for op in table["ops"]:
        cells = [
            str(op["number"]),
            str(op["name"]),
            TEXT.count(op["count"]),
            TEXT.si(op["flops"], "FLOP"),
            TEXT.si(op["bytes"], "B"),
            TEXT.number(op["ai"], 4),
        ]
        for g in gpus:
            placed = op["gpus"][g["key"]]
            cells += [
                placed["bound"] or TEXT.missing,
                TEXT.duration(placed["time_floor_s"]),
                TEXT.duration(placed["pass_time_s"]),
                TEXT.pct(placed["share"]),
            ]
        body.append(cells)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    lines = [
        "  ".join(
            c.ljust(w) if i == 1 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in [header, *body]
    ]
    return {
        "title": _title(table),
        "lines": lines,
        "totals": _text_totals(table),
        "pass_words": _pass_words(table),
        "share_of": "the pass's sum" if table["model"] else "the table's sum",
        "peaks": [f"{g['key']}: {peaks_words(g, TEXT)}" for g in gpus],
    }


def theory_page_title(table: TheoryTable, text_title: str | None) -> str:
    """The HTML page's title: the model line, else the first three ops' names."""
    return "Theory: " + (text_title or ", ".join(op["name"] for op in table["ops"][:3]))


def _cell(text: str, sort: float | None, cls: str = "num") -> Cell:
    return {"text": text, "sort": "" if sort is None else sort, "cls": cls}


def _op_row(op: TheoryOpRecord, gpus: list[TheoryGpuRecord], top: dict[str, int]) -> OpRow:
    cells = [
        _cell(TABLE.count(op["count"]), op["count"]),
        _cell(TABLE.si(op["flops"], "FLOP"), op["flops"]),
        _cell(TABLE.si(op["bytes"], "B"), op["bytes"]),
        _cell(TABLE.fixed(op["ai"]), op["ai"]),
    ]
    per_gpu: list[GpuCells] = []
    for g in gpus:
        p = op["gpus"][g["key"]]
        per_gpu.append(
            {
                "bound": p["bound"] or "unplaced",
                "cells": [
                    _cell(TABLE.duration(p["time_floor_s"]), p["time_floor_s"]),
                    _cell(TABLE.duration(p["pass_time_s"]), p["pass_time_s"]),
                    _cell(TABLE.pct(p["share"]), p["share"]),
                ],
                "share_pct": 0.0 if p["share"] is None else round(100 * p["share"], 1),
                "top": top.get(g["key"]) == op["number"],
            }
        )
    return {
        "number": op["number"],
        "name": op["name"],
        "label": op["label"],
        "notes": op["notes"],
        "in_model": op["in_model"],
        "precision": op["precision"],
        "cells": cells,
        "gpus": per_gpu,
    }


def _largest(table: TheoryTable) -> dict[str, int]:
    """Per GPU key, the number of the op with the largest share."""
    out: dict[str, int] = {}
    for g in table["gpus"]:
        shares = [
            (op["gpus"][g["key"]]["share"] or 0.0, op["number"])
            for op in table["ops"]
            if op["gpus"][g["key"]]["share"] is not None
        ]
        if shares:
            out[g["key"]] = max(shares)[1]
    return out


def _headline(table: TheoryTable, top: dict[str, int]) -> list[GpuCard]:
    """One card per GPU: the pass's floor, tokens per second and speedup over the first GPU."""
    from ncu_roofline.render.charts.theory_page import GPU_COLOURS, GPU_SYMBOLS

    cards: list[GpuCard] = []
    totals = table["totals"]
    ops = {op["number"]: op for op in table["ops"]}
    first = table["gpus"][0] if table["gpus"] else None
    for i, g in enumerate(table["gpus"]):
        card: GpuCard = {
            "key": g["key"],
            "name": g["name"],
            "colour": GPU_COLOURS[i % len(GPU_COLOURS)],
            "symbol": GPU_SYMBOLS[i % len(GPU_SYMBOLS)],
            "floor": None,
            "tokens": None,
            "speedup": None,
            "caveat": None,
            "largest": None,
            "ridge": None,
            "peaks": peaks_words(g, TABLE),
        }
        if totals is not None and first is not None:
            t = totals[g["key"]]
            card["floor"] = TABLE.duration(t["time_floor_s"])
            card["tokens"] = None if t["tokens_per_s"] is None else _rate(t["tokens_per_s"], TABLE)
            card["tokens_count"] = TABLE.count(t["tokens"])
            speedup = _speedup(t, TABLE, "×")
            card["speedup"] = f"{speedup} the speed of {first['name']}" if speedup else None
            if t["collectives_not_included"]:
                card["caveat"] = (
                    f"{TABLE.count(t['collectives_not_included'])} collectives not included"
                )
            elif not t["complete"]:
                card["caveat"] = "some ops lack a roof: the floor is lower than the true one"
            card["ridge"] = ridge_words(t, TABLE)
        number = top.get(g["key"])
        if number is not None:
            op = ops[number]
            card["largest"] = {
                "number": number,
                "name": op["name"],
                "share": TABLE.pct(op["gpus"][g["key"]]["share"]),
            }
        cards.append(card)
    return cards


def theory_html_context(table: TheoryTable) -> TheoryHtmlView:
    """Everything the HTML template prints: title, headline cards, op rows, the chart."""
    # The chart and page modules load the report's chart stack: the text
    # output, which shares this module, must not wait for them.
    from ncu_roofline.render.charts.theory_page import theory_figure
    from ncu_roofline.render.page import untitled
    from ncu_roofline.report.theory_calc import calculator_data

    text = theory_text_context(table)
    top = _largest(table)
    chart = theory_figure(theory_chart_context(table))
    charts = untitled([chart]) if chart is not None else []
    return {
        "title": theory_page_title(table, text["title"]),
        "model_line": text["title"],
        "pass_words": text["pass_words"],
        "with_model": table["totals"] is not None,
        "tokens_word": _tokens_word(table),
        "headline": _headline(table, top),
        "gpus": [{"key": g["key"], "name": g["name"]} for g in table["gpus"]],
        "rows": [_op_row(op, table["gpus"], top) for op in table["ops"]],
        "totals": text["totals"],
        "charts": charts,
        "peaks": text["peaks"],
        "calculator": calculator_data(table),
    }
