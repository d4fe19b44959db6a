"""``ncu-roofline compare``: what got slower, what got faster, what moved.

Design: the two sides are read and analysed like ``report`` does, the engine
(:func:`ncu_roofline.analysis.compare.compare`) matches their kernel groups,
and :func:`ncu_roofline.report.compare.comparison_document` is what every
format renders; this module only checks the inputs and says what looks
suspicious (nothing matched, different launch counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import click

from ncu_roofline.analysis.compare.basis import DEFAULT_NOISE
from ncu_roofline.cli import types
from ncu_roofline.cli.analyse import gates_record
from ncu_roofline.cli.messages import (
    emit,
    exit_on_tripped,
    note,
    note_gpu_alias,
    print_input_warnings,
    warn,
    warn_gates_without_theory,
)
from ncu_roofline.cli.options import (
    GateOptions,
    Options,
    OutputOptions,
    TheoryOptions,
    cache_option,
    clocks_option,
    gate_options,
    gpu_option,
    option_group,
    output_options,
    progress_option,
    theory_options,
    use_cache,
)
from ncu_roofline.core.hardware import refuse_theory_only, resolve_gpu
from ncu_roofline.errors import InputFormatError, UsageError
from ncu_roofline.render import render_document
from ncu_roofline.render.compare_text import basis_text, story_text, summary_line, why_text
from ncu_roofline.render.output import refuse_existing
from ncu_roofline.report.gates import Gate, evaluate_comparison
from ncu_roofline.report.schema import ComparisonContext, InputRecord, ReportContext

if TYPE_CHECKING:
    from ncu_roofline.analysis.compare.trials import TrialSplit


@dataclass(frozen=True)
class Sides(Options):
    """The inputs: BASE CANDIDATE, or --base and --candidate (repeatable)."""

    pair: tuple[str, ...] = ()
    base_files: tuple[str, ...] = ()
    candidate_files: tuple[str, ...] = ()

    def files(self) -> tuple[list[str], list[str]]:
        """The base and the candidate inputs, each listed once."""
        base, candidate = self.base_files, self.candidate_files
        if self.pair and (base or candidate):
            raise UsageError("give BASE CANDIDATE or --base/--candidate, not both")
        if self.pair:
            if len(self.pair) != 2:
                raise UsageError(
                    "compare takes exactly two inputs: BASE CANDIDATE (or --base/--candidate)"
                )
            base, candidate = (self.pair[0],), (self.pair[1],)
        if not base or not candidate:
            raise UsageError("compare needs a base and a candidate input")
        return list(dict.fromkeys(base)), list(dict.fromkeys(candidate))


@dataclass(frozen=True)
class ComparisonOptions(Options):
    """Each side's roofs and how changes are judged."""

    gpu: str | None = None
    base_gpu: str | None = None
    basis: str = "auto"
    allow_cross_gpu: bool = False
    candidate_gpu: str | None = None
    clocks: str = "measured"
    noise: float = DEFAULT_NOISE
    same_gpu: bool = False
    pair_implementations: bool = True
    trials: bool | None = None


_sides = option_group(
    Sides,
    "sides",
    click.argument("pair", nargs=-1, metavar="[BASE CANDIDATE]"),
    click.option(
        "--base", "base_files", multiple=True, metavar="FILE", help="A base input (repeatable)."
    ),
    click.option(
        "--candidate",
        "candidate_files",
        multiple=True,
        metavar="FILE",
        help="A candidate input (repeatable).",
    ),
)

_comparison_options = option_group(
    ComparisonOptions,
    "judge",
    gpu_option("Use this GPU's roofs for both sides."),
    click.option(
        "--base-gpu", metavar="NAME", help="The base side's GPU (profiles from two GPUs)."
    ),
    click.option(
        "--basis",
        type=types.BASIS,
        default="auto",
        show_default=True,
        help="Judge changes by total kernel time, elapsed SM cycles (clock-independent), or "
        "mean time per launch (profiles that captured different numbers of launches); auto: "
        "cycles when the two sides' SM clocks differ beyond --noise, else time.",
    ),
    click.option(
        "--allow-cross-gpu",
        is_flag=True,
        default=False,
        help="Judge changes (and regression gates) even when the two sides ran on different GPUs.",
    ),
    click.option("--candidate-gpu", metavar="NAME", help="The candidate side's GPU."),
    clocks_option("Table compute roofs at the measured clock or datasheet."),
    click.option(
        "--noise",
        type=types.NOISE,
        default=DEFAULT_NOISE,
        show_default=True,
        help="Changes below this fraction count as unchanged.",
    ),
    click.option(
        "--same-gpu",
        is_flag=True,
        default=False,
        help="Both sides ran on the same GPU (model): when neither export identifies its "
        "hardware and the clocks differ, judge the clock change on elapsed cycles instead "
        "of leaving the comparison undecided.",
    ),
    click.option(
        "--pair-implementations/--no-pair-implementations",
        default=True,
        show_default=True,
        help="Pair a removed and a new kernel group whose names differ only in template "
        "arguments (same grid, block and launches, one of each) as one group whose "
        "implementation changed, judged like a matched group; off: a removal and an addition.",
    ),
    click.option(
        "--trials/--no-trials",
        default=None,
        help="Several inputs on a side are runs (trials) of one program: each group's figures "
        "are the median over the trials and a change must lie outside their spread.  "
        "Default: trials when a side's inputs hold the same kernel groups, else one profile "
        "joined from all of them; --trials also when they differ, --no-trials never.",
    ),
)


@click.command()
@_sides
@output_options(
    "Output file ('-': standard output; default: the candidate's name with .diff.html, "
    "or standard output for --format json)."
)
@_comparison_options
@theory_options()
@gate_options
@progress_option
@cache_option
def compare(
    sides: Sides,
    out: OutputOptions,
    judge: ComparisonOptions,
    theory: TheoryOptions,
    gating: GateOptions,
    progress: bool | None,
) -> None:
    """Compare two profiles: what got slower, what got faster, what moved.

    Give BASE CANDIDATE, or --base FILE... --candidate FILE... when a side
    has several inputs.  Several inputs holding the same kernels are trials
    (runs of one benchmark): each group's time is the median over them, its
    noise their spread, and a regression needs the change to exceed both
    --noise and that spread (98% interval, change_low..change_high in the
    JSON); inputs holding different kernels are joined into one profile.
    Kernel groups are matched by kernel name and launch
    configuration (then by name alone when unambiguous), tolerant of
    reordering and of kernels added or removed.  A removed and a new group
    whose names differ only in template arguments, with the same grid, block
    and launches (one of each), are one group whose implementation changed,
    judged like any matched group (--no-pair-implementations: a removal and
    an addition).

    \b
    Gates (--fail-on, repeatable): regression>5% (a group or the total got
    slower by more), new-kernel, efficiency<N, or a finding kind of the
    candidate; exit 3 after writing the output when one trips.  Theory
    (--theory, --model) applies to the candidate, for excess-traffic gates.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 3 the output was
    written but a gate tripped, 4 unreadable input, 5 output exists or cannot
    be written, 6 missing optional module, 7 missing input, 8 out of memory,
    9 profiling failed.
    """
    # The readers and the engine load pandas and pyarrow: not for --help.
    from ncu_roofline.analysis import analyze
    from ncu_roofline.analysis.compare import compare as compare_analyses
    from ncu_roofline.analysis.compare.trials import split_trials
    from ncu_roofline.readers import load
    from ncu_roofline.report.compare import comparison_document

    base_files, candidate_files = sides.files()
    settings = gating.settings()
    judge = judge.configured(
        settings, "gpu", "clocks", "noise", "basis", "allow_cross_gpu", "pair_implementations"
    )
    out = out.configured(settings, "plotly_js", "top")
    gates = gating.comparison_gates(settings)
    config = theory.config()
    warn_gates_without_theory(gates, config is not None)
    out_format = out.format()
    output = out.target(candidate_files[0], out_format, infix=".diff")
    refuse_existing(output, out.force)
    # Each --gpu is resolved here, once, and the lookups handed to the engine;
    # a theory-only device is refused before the (possibly long) read.
    gpu, base_gpu, candidate_gpu = (
        refuse_theory_only(resolve_gpu(name)) if name else None
        for name in (judge.gpu, judge.base_gpu, judge.candidate_gpu)
    )
    note_gpu_alias(gpu, base_gpu, candidate_gpu)
    base_split = _side(
        "base", split_trials(load(base_files, progress=progress, cache=use_cache()), judge.trials)
    )
    candidate_split = _side(
        "candidate",
        split_trials(load(candidate_files, progress=progress, cache=use_cache()), judge.trials),
    )
    base = [analyze(p, gpu=base_gpu or gpu, clocks=judge.clocks) for p in base_split.profiles]
    candidate = [
        analyze(p, gpu=candidate_gpu or gpu, clocks=judge.clocks, theory=config)
        for p in candidate_split.profiles
    ]
    doc = comparison_document(
        compare_analyses(
            base,
            candidate,
            noise=judge.noise,
            basis=judge.basis,
            allow_cross_gpu=judge.allow_cross_gpu,
            same_gpu=judge.same_gpu,
            pair_implementations=judge.pair_implementations,
        )
    )
    cmp = doc["comparison"]
    _print_side_warnings(cmp["base"]["inputs"], doc["base_report"])
    _print_side_warnings(cmp["candidate"]["inputs"], doc["candidate_report"])
    _warn_unlike(cmp, gates)
    tripped = evaluate_comparison(gates, cmp, doc["candidate_report"])
    if gates:
        cmp["gates"] = gates_record(gates, tripped)
    text = render_document("comparison", out_format, doc, out.render_options())
    emit(text, output, out.force, f"({out_format}): {summary_line(cmp)}")
    exit_on_tripped(tripped)


def _side(name: str, split: TrialSplit) -> TrialSplit:
    """``split``, having said whether a side's inputs are trials and what does not fit them."""
    parts = [p for whole in split.profiles for p in whole.inputs()]
    empty = [p.sources[0].path for p in parts if len(p.launches) == 0]
    if empty and (len(empty) == len(parts) or split.trials):
        which = ", ".join(empty)
        raise InputFormatError(
            f"the {name} side has an input with no kernel launches ({which}): nothing to "
            "compare; was the profiled program's kernel filter right?"
            if split.trials
            else f"the {name} side holds no kernel launches ({which}): nothing to compare"
        )
    n = len(parts)
    if split.trials:
        note(
            f"{name}: {n} inputs read as trials of one program ({split.reason}): each group's "
            "figures are the median over the trials, its noise their spread"
        )
    elif split.missing:
        key = next(iter(split.missing))
        warn(
            f"{name}: the {n} inputs hold different kernels ({len(split.missing)} group(s) not "
            f"in every input, e.g. {_key_text(key)} not in {split.missing[key][0]}): joined into "
            "one profile, not read as trials; --trials reads them as runs of one program"
        )
    if split.trials and split.missing:
        key = next(iter(split.missing))
        warn(
            f"{name}: --trials on inputs with different kernels: {len(split.missing)} group(s) "
            f"are missing from some trials (e.g. {_key_text(key)} not in "
            f"{', '.join(split.missing[key])}); each is judged on the trials that ran it"
        )
    for path, metrics in split.metrics_missing.items():
        shown = ", ".join(metrics[:3]) + (
            f" and {len(metrics) - 3} more" if len(metrics) > 3 else ""
        )
        warn(
            f"{name}: trial {path} lacks {len(metrics)} metric(s) the other trials measured "
            f"({shown}): what needs them is unknown in that trial, and the medians use the "
            "trials that have them"
        )
    return split


def _print_side_warnings(inputs: list[InputRecord], report: ReportContext) -> None:
    """Every input's warnings (each said once for all the trials that share it), then findings."""
    paths: dict[str, list[str]] = {}
    for item in inputs:
        for w in item["warnings"]:
            paths.setdefault(w, []).append(item["path"])
    for w, where in paths.items():
        warn(f"{', '.join(where)}: {w}")
    print_input_warnings([], report["findings"])


def _key_text(key: tuple[str, str, str]) -> str:
    kernel, grid, block = key
    shape = f" grid {grid} block {block}" if grid or block else ""
    return f"{kernel[:80]}{shape}"


def _warn_unlike(cmp: ComparisonContext, gates: list[Gate]) -> None:
    """Say what differs besides the code, which basis judged it, its story, what cannot be judged."""
    for d in cmp["context"]["differences"]:
        warn(d["message"])
    t = cmp["totals"]
    if t.get("comparable", True):
        note(f"judged on {basis_text(t)}")
    note(story_text(cmp))
    paired = [r for r in cmp["kernels"] if r.get("match") == "implementation"]
    for r in paired[:5]:
        note(
            f"implementation changed (names differ only in template arguments), judged as one "
            f"group: {r.get('kernel_short')} ({r.get('status')})"
        )
    if len(paired) > 5:
        note(f"and {len(paired) - 5} more implementation change(s)")
    for r in [*cmp["regressions"][:5], *cmp["improvements"][:5]]:
        why = why_text(r)
        if why:
            note(f"{r.get('status')} {r.get('kernel_short')}: {why}")
    if t.get("matched", 1) == 0:
        warn("no kernel group matched between base and candidate: are these the same workload?")
    relaunched = [
        r
        for r in cmp["kernels"]
        if r.get("status") not in ("added", "removed")
        and r.get("base_launches") != r.get("candidate_launches")
    ]
    if relaunched and t.get("basis") != "per-launch":
        warn(
            f"{len(relaunched)} matched kernel group(s) ran a different number of launches; "
            "their total times are not like for like (judge per launch with --basis per-launch)"
        )
    if any(g.kind == "regression" for g in gates):
        if not t.get("comparable", True):
            ctx = cmp["context"]
            hint = (
                "give --same-gpu or --base-gpu/--candidate-gpu to say which, or "
                "--allow-cross-gpu to judge them anyway"
                if ctx["hardware_verdict"] == "undecided"
                else "give --allow-cross-gpu to judge them anyway"
            )
            warn(
                f"regression gates: not comparable: {ctx['not_comparable_reason']}; not judged "
                f"({hint})"
            )
        elif t.get("delta_pct") is None:
            warn("regression gates cannot be evaluated: the profiles carry no durations")
