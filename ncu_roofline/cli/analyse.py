"""Reading, analysing and gating profiles: the flow ``report`` and ``summary`` share.

Design: both commands turn their inputs into one report context and judge
its ``--fail-on`` gates the same way, so that ``summary --format json`` is
the document ``report --format json`` writes, gates record and warnings
included.  What differs between them (where the document goes, the terminal
table) stays in the commands.  :func:`gates_record` is also the record
``compare`` adds to its comparison.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import click

from ncu_roofline.cli.messages import (
    note,
    note_gpu_alias,
    placeholder,
    print_warnings,
    recording,
    replay,
    unrecorded,
    warn,
    warn_gates_without_theory,
)
from ncu_roofline.cli.options import RoofOptions, TheoryOptions, use_cache
from ncu_roofline.core.files import unique_inputs
from ncu_roofline.core.hardware import GpuLookup, chosen_roofs, resolve_gpu
from ncu_roofline.errors import UsageError
from ncu_roofline.report.gates import Gate, evaluate_report
from ncu_roofline.report.schema import GateRecord, GatesRecord, ReportContext

if TYPE_CHECKING:
    from ncu_roofline.analysis import Analysis


def _at_end(finish: Callable[[], object]) -> None:
    """Call ``finish`` when the running command ends (now, outside of one)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        finish()
    else:
        ctx.call_on_close(finish)


def gates_record(gates: list[Gate], tripped: list[GateRecord]) -> GatesRecord:
    """The ``gates`` entry of a report or comparison: the rules asked for and those that tripped."""
    return {"rules": [g.text for g in gates], "tripped": tripped}


def analyse(
    inputs: Sequence[str],
    roofs: RoofOptions,
    theory: TheoryOptions,
    progress: bool | None,
    merge: bool = False,
    nsys: Sequence[str] = (),
    project_to: Sequence[str] = (),
    gate_warning: Callable[[], None] | None = None,
) -> Analysis:
    """The analysis of ``inputs`` with the roof and theory options.

    Each input is read once (a repeated one is warned about); passes of one
    run are joined per launch with ``merge``.
    ``nsys`` inputs (one capture's timeline) are joined to the groups: the
    step budget, the groups weighted by real time, the overhead findings.
    ``project_to`` names GPUs to project the measured launches onto
    (:mod:`ncu_roofline.analysis.projection`), resolved before the read.
    ``gate_warning``, when given, warns about gates that need theory when
    none was given, before the (possibly long) read; it is no recorded line
    but a place among them (the report cache replays the analysis' lines
    with each run's own gates).
    """
    # The readers load pyarrow, the engine pandas: imported here, so that the
    # commands sharing this module show their --help without them.  The
    # engine only after the read: pandas' 60 MB then join memory the parse
    # has given back, rather than adding to the parse's peak.
    from ncu_roofline.readers import load

    # --gpu is resolved and --roofs read here, once, before the (possibly
    # long) read; the engine takes them as they are.
    gpu, specs = chosen_roofs(roofs.gpu or None, roofs.roofs_file or None)
    note_gpu_alias(gpu)
    targets = project_targets(project_to)
    unique, repeats = unique_inputs(inputs)
    for again, first in repeats:
        if again == first:
            warn(f"an input was given more than once ({again}); it is read once")
        else:
            warn(f"{again} is the same file as {first}; it is read once")
    config = theory.config()
    if gate_warning is not None:
        # Said with the gates of each run: a place in the recorded lines, not a line.
        placeholder(_GATES)
        with unrecorded():
            gate_warning()
    profile = load(unique, progress=progress, merge=merge, cache=use_cache())
    from ncu_roofline.analysis import analyze

    analysis = analyze(
        profile,
        gpu=gpu,
        roofs=specs if gpu is None else None,
        clocks=roofs.clocks,
        theory=config,
    )
    if roofs.roofs_file:
        analysis.options["roofs_file"] = roofs.roofs_file
    if nsys:
        from ncu_roofline.analysis.budget import attach_timeline
        from ncu_roofline.readers.nsys import load_timeline

        timeline = load_timeline(list(dict.fromkeys(nsys)))
        for source in timeline.sources:
            for w in source.warnings:
                warn(f"{source.path}: {w}")
        analysis = attach_timeline(analysis, timeline)
        for w in analysis.budget["warnings"] if analysis.budget else []:
            warn(w)
    if targets:
        from ncu_roofline.analysis.projection import project_analysis

        project_analysis(analysis, targets)
    return analysis


#: Where the gates warning goes among an analysis' recorded lines.
_GATES = "gates"


def _tool_files(inputs: Sequence[str], nsys: Sequence[str]) -> list[str] | None:
    """The programs and modules a report's content also rests on, as files for the report
    cache's key; None when one is missing (the read will say so, uncached).

    ``.nsys-rep`` captures are exported by the ``nsys`` on the PATH, ``.ncu-rep``
    reports read by the ``ncu_report`` module: another version may read them
    differently.
    """
    import importlib.util
    import shutil

    from ncu_roofline.core.files import NCU_REP_MAGIC, NSYS_REP_SUFFIXES

    files: list[str] = []
    if any(name.endswith(NSYS_REP_SUFFIXES) for name in nsys):
        tool = shutil.which("nsys")
        if tool is None:
            return None
        files.append(os.path.realpath(tool))
    if any(_starts_with(name, NCU_REP_MAGIC) for name in inputs):
        try:
            spec = importlib.util.find_spec("ncu_report")
        except (ImportError, ValueError):
            return None
        if spec is None or spec.origin is None:
            return None
        files.append(spec.origin)
    return files


def _starts_with(name: str, magic: bytes) -> bool:
    try:
        with open(name, "rb") as fh:
            return fh.read(len(magic)) == magic
    except (OSError, ValueError):
        return False


def project_targets(names: Sequence[str]) -> list[GpuLookup]:
    """The ``--project-to`` GPUs, each looked up once (a name given twice counts once).

    An unknown name is a usage error with the close matches, as for --gpu.
    """
    out: dict[str, GpuLookup] = {}
    for name in names:
        try:
            lookup = resolve_gpu(name)
        except UsageError as e:
            raise UsageError(f"--project-to: {e}") from e
        said = lookup.describe()
        if said:
            note(said.replace("--gpu", "--project-to", 1))
        out.setdefault(lookup.spec.key, lookup)
    return list(out.values())


def analyse_and_gate(
    inputs: Sequence[str],
    roofs: RoofOptions,
    theory: TheoryOptions,
    gates: list[Gate],
    progress: bool | None,
    merge: bool = False,
    nsys: Sequence[str] = (),
    project_to: Sequence[str] = (),
) -> tuple[ReportContext, list[GateRecord]]:
    """The report context of ``inputs`` and the gates that tripped on it.

    The context carries the gates record when ``gates`` were asked for.  On
    stderr: gates that can never trip, what the analysis said, then the
    inputs' warnings and the warning findings.

    The context comes from the report cache (:mod:`ncu_roofline.report.context_cache`)
    when the same inputs, unchanged, were analysed with the same options
    before; what that analysis said on stderr is said again.
    """
    from ncu_roofline.core.jobs import jobs_variable
    from ncu_roofline.report import context_cache

    # What a read would refuse is refused before the cache is asked.
    jobs_variable()
    tools = _tool_files(inputs, nsys)
    entry = (
        None
        if tools is None
        else context_cache.lookup(
            inputs,
            [*([roofs.roofs_file] if roofs.roofs_file else []), *theory.files(), *nsys, *tools],
            {
                "merge": merge,
                "roofs": roofs.values(),
                "theory": theory.values(),
                "nsys": list(nsys),
                "project_to": list(project_to),
            },
            cache=use_cache(),
        )
    )
    cached = entry.load() if entry is not None else None

    def gate_warning() -> None:
        warn_gates_without_theory(gates, theory.given())

    if cached is not None:
        context, said = cached
        replay(said, {_GATES: gate_warning})
    else:
        with recording() as said:
            analysis = analyse(
                inputs, roofs, theory, progress, merge, nsys, project_to, gate_warning
            )
        from ncu_roofline.report.context import build_context

        context = build_context(analysis)
        if entry is not None:
            # Written while the command makes its output; waited for when it ends.
            _at_end(entry.store_behind(context, said))
    tripped = evaluate_report(gates, context)
    if gates:
        context["gates"] = gates_record(gates, tripped)
    print_warnings(context)
    if "budget" in context:
        from ncu_roofline.render.budget_view import budget_line

        line = budget_line(context["budget"])
        if line:
            note(line)
    for projection in context.get("projection", []):
        if projection["headline"]:
            note(projection["headline"])
    return context, tripped
