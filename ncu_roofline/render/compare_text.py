"""The words every comparison output shares: what changed besides the code, the basis, the story.

The HTML page, the Markdown comment, the JUnit suite and the terminal line
state the same facts first, in the same words, from the ``context`` block
of :func:`~ncu_roofline.report.compare.comparison_context`; the HTML page,
the Markdown comment, the terminal and the JSON tell the same story
(:func:`story_text`, from its ``story`` block).
"""

from __future__ import annotations

from typing import Any

from ncu_roofline.render.format import TEXT
from ncu_roofline.report.schema import (
    ComparisonContext,
    ComparisonRecord,
    ComparisonTotals,
    SideFacts,
    StoryGroupRecord,
    StoryRecord,
    WhyRecord,
)

__all__ = [
    "LAUNCH_SHAPE_MISSING",
    "at_roof",
    "basis_text",
    "change_text",
    "context_lines",
    "headline_reason",
    "interval_text",
    "not_comparable_text",
    "side_line",
    "story_text",
    "summary_line",
    "trials_text",
    "verdict_text",
    "why_text",
    "with_story_text",
]

#: Said once, instead of "grid ? block ?" on every row, when no group has a launch shape.
LAUNCH_SHAPE_MISSING = "launch shape not exported"

_BASIS_WORDS = {
    "time": "kernel time",
    "cycles": "elapsed SM cycles",
    "per-launch": "time per launch",
}


def at_roof(value: Any) -> str:
    """A share of the roof: one decimal below 10% (``2.2%``), none above (``65%``)."""
    if value is None:
        return TEXT.missing
    return TEXT.pct(value, digits=1 if abs(float(value)) < 0.1 else 0)


def basis_text(totals: ComparisonTotals) -> str:
    """Which basis judged the comparison, and why (``elapsed SM cycles (auto: ...)``)."""
    basis = str(totals.get("basis") or "time")
    text = _BASIS_WORDS.get(basis, basis)
    if totals.get("basis_requested") == "auto":
        text += f" (auto: {totals.get('basis_reason')})"
    return text


def _hz(value: Any) -> str:
    return TEXT.si(value, "Hz") if value is not None else "unknown"


def side_line(label: str, side: SideFacts) -> str:
    """One side's GPU, CC, clocks, ncu version and metric set, in one line."""
    gpu = ", ".join(side.get("gpus") or []) or "unknown GPU"
    cc = ", ".join(side.get("ccs") or []) or "unknown"
    ncu = ", ".join(side.get("ncu_versions") or []) or "unknown"
    return (
        f"{label}: {gpu}, CC {cc}, SM clock {_hz(side.get('sm_clock_hz'))}, memory clock "
        f"{_hz(side.get('memory_clock_hz'))}, ncu {ncu}, {side.get('metric_count', 0)} metrics"
    )


def context_lines(cmp: ComparisonContext) -> list[str]:
    """What differs besides the code (each difference), then each side, then the basis."""
    ctx = cmp["context"]
    lines = [f"Not like for like: {d['message']}" for d in ctx["differences"]]
    if not ctx["differences"]:
        lines.append(
            "No difference found in GPU, clocks, ncu version, metric set, work or launch count."
        )
    lines.append(side_line("Base", ctx["base"]))
    lines.append(side_line("Candidate", ctx["candidate"]))
    lines.append(f"Judged on {basis_text(cmp['totals'])}.")
    trials = trials_text(cmp["totals"])
    if trials:
        lines.append(trials)
    lead = not_comparable_text(cmp)
    if lead is not None:
        lines.append(lead)
    elif ctx.get("different_gpus"):
        lines.append("Different GPUs, judged anyway (--allow-cross-gpu).")
    elif ctx.get("hardware_verdict") == "undecided":
        lines.append("Hardware undecided, judged anyway (--allow-cross-gpu).")
    return lines


def trials_text(totals: ComparisonTotals) -> str | None:
    """How many runs each side holds and what that changes; ``None`` with one run a side."""
    base, cand = totals.get("base_trials", 1), totals.get("candidate_trials", 1)
    if base <= 1 and cand <= 1:
        return None
    conf = TEXT.pct(totals.get("confidence"), digits=0)
    return (
        f"Trials: base {base} run(s), candidate {cand} run(s); each group's figures are the "
        f"median over its runs, and a change counts only when it exceeds the noise threshold "
        f"and its {conf} interval excludes zero."
    )


def interval_text(r: ComparisonRecord | ComparisonTotals, confidence: Any = None) -> str | None:
    """A change's interval and noise (trials), ``None`` without: ``+2.1% .. +7.9%, noise 1.2%``."""
    low, high = r.get("change_low"), r.get("change_high")
    if low is None or high is None:
        return None
    conf = f"{TEXT.pct(confidence, digits=0)} " if confidence is not None else ""
    noise = r.get("trial_noise")
    tail = f", run-to-run noise {TEXT.pct(noise, digits=1)}" if noise is not None else ""
    return (
        f"{conf}interval {TEXT.pct(low, sign=True, digits=1)} .. "
        f"{TEXT.pct(high, sign=True, digits=1)}{tail}"
    )


def not_comparable_text(cmp: ComparisonContext) -> str | None:
    """Why the pair is not judged, as the sentence a report leads with; ``None`` when it is judged."""
    if cmp["totals"].get("comparable", True):
        return None
    ctx = cmp["context"]
    if ctx.get("hardware_verdict") == "undecided":
        clocks = (
            f"base {_hz(ctx['base'].get('sm_clock_hz'))}, "
            f"candidate {_hz(ctx['candidate'].get('sm_clock_hz'))}"
        )
        return (
            f"Not comparable: neither export identifies its GPU and the SM clocks differ "
            f"({clocks}), so a clock change cannot be told from a different GPU; no group is "
            "judged and regression gates do not trip (say which with --same-gpu or "
            "--base-gpu/--candidate-gpu, or give --allow-cross-gpu to judge anyway)."
        )
    reason = ctx.get("not_comparable_reason") or "different GPUs"
    why = ctx.get("comparable_reason", "").removeprefix("not comparable: ")
    detail = why.removeprefix("different hardware: ")
    return (
        f"Not comparable: {reason}" + (f" ({detail})" if detail else "") + "; no group is "
        "judged and regression gates do not trip (give --allow-cross-gpu to judge anyway)."
    )


def headline_reason(cmp: ComparisonContext) -> str | None:
    """The short word a report shows instead of the headline percentage; ``None`` when judged."""
    if cmp["totals"].get("comparable", True):
        return None
    if cmp["context"].get("hardware_verdict") == "undecided":
        return "Undecided"
    return "Not comparable"


def change_text(r: ComparisonRecord) -> str:
    """A row's judged change, and its time and cycle changes side by side."""
    parts = [f"time {TEXT.pct(r.get('delta_pct'), sign=True)}"]
    if r.get("match") == "implementation":
        parts.insert(0, "implementation changed (names differ only in template arguments)")
    if r.get("delta_cycles_pct") is not None:
        parts.append(f"cycles {TEXT.pct(r['delta_cycles_pct'], sign=True)}")
    if r.get("work_changed"):
        parts.append(f"work change {TEXT.pct(r.get('delta_work_pct'), sign=True)}")
    judged = r.get("judged_on")
    if judged and judged != "time" and r.get("status") != "not comparable":
        parts.append(f"judged on {judged} {TEXT.pct(r.get('judged_pct'), sign=True)}")
    interval = interval_text(r)
    if interval and r.get("status") != "not comparable":
        parts.append(interval)
    text = ", ".join(parts)
    why = why_text(r)
    return f"{text}; why: {why}" if why else text


#: How a reason's quantity is named in text, by reason (bytes by level below).
_WHY_NOUNS = {
    "flops": "FLOPs",
    "efficiency": "of roof reached",
    "launches": "launches",
}
#: Memory levels as text.
_WHY_LEVELS = {"dram": "DRAM", "l2": "L2", "l1": "L1"}
#: Clocks as text.
_WHY_CLOCKS = {"sm_clock_hz": "SM clock", "memory_clock_hz": "memory clock"}


def _why_one(w: WhyRecord) -> str:
    """One reason as a phrase: ``31% fewer DRAM bytes``, ``dram → l2``, ``SM clock +12%``."""
    reason = w["reason"]
    change = w.get("change")
    if reason == "bottleneck-moved":
        return f"{w.get('on', 'limiter')} {w.get('base')} → {w.get('candidate')}"
    if reason == "clock":
        label = _WHY_CLOCKS.get(w.get("clock", ""), "clock")
        return f"{label} {TEXT.pct(change, sign=True)}"
    if reason == "hardware":
        return f"hardware {w.get('base') or '?'} → {w.get('candidate') or '?'}"
    direction, _, what = reason.partition("-")
    size = TEXT.pct(abs(change) if change is not None else None)
    if what == "bytes":
        return f"{size} {direction} {_WHY_LEVELS.get(w.get('level', ''), '?')} bytes"
    if what == "efficiency":
        return f"{size} {direction} efficiency"
    return f"{size} {direction} {_WHY_NOUNS.get(what, what)}"


def why_text(r: ComparisonRecord) -> str:
    """A row's reasons (``why``) as one line, ``""`` when it has none."""
    return "; ".join(_why_one(w) for w in r.get("why") or [])


def verdict_text(cmp: ComparisonContext, *, lead: bool = True) -> str:
    """The headline change: kernel time, cycles where known, and what it was judged on.

    ``lead`` false leaves out the words "kernel time", for a sentence that has them.
    """
    t = cmp["totals"]
    text = ("kernel time " if lead else "") + TEXT.pct(t.get("delta_pct"), sign=True)
    if t.get("delta_cycles_pct") is not None:
        text += f", cycles {TEXT.pct(t['delta_cycles_pct'], sign=True)}"
    if not t.get("comparable", True):
        text += " (not judged)"
    elif t.get("judged_on") and t["judged_on"] != "time":
        text += f" (judged on {t['judged_on']}: {TEXT.pct(t.get('judged_pct'), sign=True)})"
    interval = interval_text(t, t.get("confidence"))
    if interval and t.get("comparable", True):
        text += f"; {interval}"
    return text


def summary_line(cmp: ComparisonContext) -> str:
    """The terminal's one line: differences first, then the change and its counts."""
    kinds = [d["kind"] for d in cmp["context"]["differences"]]
    head = f"differs in {', '.join(kinds)}; " if kinds else ""
    if not cmp["totals"].get("comparable", True):
        head += (
            f"not comparable: {cmp['context'].get('not_comparable_reason') or 'different GPUs'}; "
        )
    return (
        f"{head}{verdict_text(cmp)}, {len(cmp['regressions'])} regression(s), "
        f"{len(cmp['improvements'])} improvement(s)"
    )


#: Bound classes as the story says them ("the base was 72% memory-bound").
_BOUND_WORDS = {
    "memory": "memory-bound",
    "compute": "compute-bound",
    "latency": "latency-bound",
    "communication": "communication-bound",
    "not placeable": "not placeable",
    "unknown": "of unknown bound",
}
#: A bound class below this share of the base's time is left out of the story.
_STORY_MIN_SHARE = 0.05


def _size(value: float) -> str:
    """A relative change's size: one decimal below 10% (``2.5%``), none above (``31%``)."""
    return TEXT.pct(abs(value), digits=1 if abs(value) < 0.1 else 0)


def _groups(n: int) -> str:
    return f"{n} group" + ("" if n == 1 else "s")


def _listed(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _work_clause(s: StoryRecord) -> str:
    """Question 1: fewer FLOPs, fewer bytes, fewer launches; and the efficiency."""
    changed, same, unmeasured = [], [], []
    work = ((s["flops"], "FLOPs"), (s["dram_bytes"], "DRAM bytes"), (s["launches"], "launches"))
    for w, noun in work:
        change = w["change"]
        if not w["known"] or change is None:
            unmeasured.append(noun)
        elif abs(change) > s["noise"]:
            fewer = change < 0
            n = w["fewer"] if fewer else w["more"]
            where = f" in {_groups(n)}" if n else ""
            changed.append(f"{_size(change)} {'fewer' if fewer else 'more'} {noun}{where}")
        else:
            same.append(noun)
    parts = changed
    if same:
        parts.append(f"same {_listed(same)}")
    if unmeasured:
        parts.append(f"{_listed(unmeasured)} not measured")
    e = s["efficiency"]
    if not e["known"]:
        parts.append("efficiency unknown")
    elif not (e["higher"] or e["lower"]):
        parts.append("efficiency unchanged")
    else:
        moved = [
            f"{word} in {_groups(n)}"
            for word, n in (("higher", e["higher"]), ("lower", e["lower"]))
            if n
        ]
        parts.append(
            f"efficiency {at_roof(e['base'])} → {at_roof(e['candidate'])} of roof "
            f"(time-weighted; {', '.join(moved)})"
        )
    return ", ".join(parts)


def _carrier(c: StoryGroupRecord) -> str:
    status = {"added": "new, ", "removed": "removed, "}.get(c["status"], "")
    return f"{c['kernel_short']} ({status}{TEXT.signed(c['delta_s'], 's', typographic=True)})"


def _where_clause(s: StoryRecord) -> str | None:
    """Questions 2 and 4: the groups carrying the change, and whether their bottleneck moved."""
    carriers = s["carriers"]
    if not carriers:
        return None
    text = f"carried by {_listed([_carrier(c) for c in carriers])}"
    if s["carried_share"] is not None:
        text += f", {TEXT.pct(s['carried_share'], digits=0)} of the change"
    moves = [
        f"bottleneck moved in {m['kernel_short']} ({m['on']} {m['base']} → {m['candidate']})"
        for m in s["moves"]
    ]
    if moves:
        text += "; " + "; ".join(moves)
    elif any(c["status"] not in ("added", "removed") for c in carriers):
        text += "; no bottleneck moved in " + (
            "that group" if len(carriers) == 1 else "those groups"
        )
    return text


def _bound_clause(s: StoryRecord) -> str:
    """Question 3: the base's time share by bound class."""
    share = s["base_bound_share"]
    if not share:
        return "the base's bound is unknown (no kernel time)"
    shown = [(b, v) for b, v in share.items() if v >= _STORY_MIN_SHARE][:3]
    return "the base was " + ", ".join(
        f"{TEXT.pct(v, digits=0)} {_BOUND_WORDS.get(b, b)}" for b, v in shown
    )


def story_text(cmp: ComparisonContext) -> str:
    """The whole profile's change as one short paragraph answering the four questions.

    Does it do less work or fewer launches; which groups carry it; what
    bounded the base; did the bottleneck move.  A pair that is not comparable,
    or whose change is within the noise, claims no speed-up.
    """
    s = cmp["story"]
    bound = _bound_clause(s)
    if not s["comparable"]:
        reason = s["not_comparable_reason"] or "different GPUs"
        return f"No speed-up is claimed: the pair is not comparable ({reason}); {bound}."
    if s["changed"] is None:
        return (
            f"No speed-up is claimed: the change of kernel time is unknown; "
            f"{_work_clause(s)}; {bound}."
        )
    head = f"{TEXT.pct(s['delta_pct'], sign=True)} kernel time"
    if s["judged_on"] != "time":
        head += f" (judged on {s['judged_on']}: {TEXT.pct(s['judged_pct'], sign=True)})"
    if not s["changed"]:
        noise = TEXT.pct(s["noise"], digits=0 if s["noise"] >= 0.1 else 1)
        interval = interval_text(cmp["totals"], cmp["totals"].get("confidence"))
        beyond = f"±{noise}" + (f", {interval}" if interval else "")
        return f"No change beyond the noise ({beyond}): {head}; {_work_clause(s)}; {bound}."
    where = _where_clause(s)
    return f"{head}: {_work_clause(s)}; " + (f"{where}; " if where else "") + f"{bound}."


def with_story_text(cmp: ComparisonContext) -> ComparisonContext:
    """``cmp`` with its story's ``text`` (:func:`story_text`), for the JSON output; not modified."""
    out = cmp.copy()
    story = out["story"].copy()
    story["text"] = story_text(cmp)
    out["story"] = story
    return out
