"""``ncu-roofline report``: analyse exports and write one roofline report."""

from __future__ import annotations

import click

from ncu_roofline.cli.analyse import analyse_and_gate
from ncu_roofline.cli.messages import emit, exit_on_tripped, warn
from ncu_roofline.cli.options import (
    GateOptions,
    OutputOptions,
    RoofOptions,
    TheoryOptions,
    cache_option,
    gate_options,
    inputs_argument,
    merge_option,
    output_options,
    progress_option,
    roof_options,
    theory_options,
)
from ncu_roofline.render import stream_document
from ncu_roofline.render.format import plural
from ncu_roofline.render.output import refuse_existing


@click.command()
@inputs_argument
@output_options(
    "Output file ('-': standard output; default: the first input's name with .html, "
    "or standard output for --format json)."
)
@roof_options
@theory_options(excess_threshold=True)
@gate_options
@progress_option
@cache_option
@merge_option
@click.option(
    "--nsys",
    "nsys",
    multiple=True,
    metavar="FILE",
    help="An Nsight Systems timeline of the same program (repeatable: the reports of one "
    "capture): nsys stats CSV reports, the SQLite export, or .nsys-rep (with nsys on PATH). "
    "Adds where each step's time goes (kernels, copies, idle gaps, kernels ncu did not "
    "profile) and weights each group by how often it really ran.",
)
@click.option(
    "--project-to",
    "project_to",
    multiple=True,
    metavar="GPU",
    help="Project the measured launches onto this GPU (repeatable; see `ncu-roofline gpus`): "
    "each launch keeps its measured efficiency against its roofline, so its time scales "
    "with the ratio of its roofline floors on the two GPUs; latency-bound and under-filled "
    "launches keep their measured time.  Adds projected_s per launch and group and a "
    "headline per GPU.",
)
def report(
    inputs: tuple[str, ...],
    out: OutputOptions,
    roofs: RoofOptions,
    theory: TheoryOptions,
    gating: GateOptions,
    progress: bool | None,
    merge: bool,
    nsys: tuple[str, ...],
    project_to: tuple[str, ...],
) -> None:
    """Analyse exports and write a roofline report.

    Every launch is placed on the roofline of its GPU: measured FLOPs per
    precision and bytes per memory level, the roofs (from the export's own
    peak metrics, the built-in GPU table, --gpu or --roofs), the bound class,
    efficiency and recoverable time.  Kernels are grouped by name and launch
    configuration and ranked by recoverable time.

    With --nsys FILE (an Nsight Systems timeline of the same program) the
    report also says where each step's time goes between kernels: kernel
    time by bound class, copies, idle gaps, kernels ncu did not profile.

    With --project-to GPU (repeatable) the measured launches are projected
    onto another GPU: each keeps its efficiency against its roofline, so a
    memory-bound kernel scales with the DRAM bandwidth, a compute-bound one
    with its precision's peak; latency-bound and under-filled ones keep
    their measured time.

    With --theory FILE or --model NAME each kernel is also compared with the
    minimum its math needs (theoretical FLOPs and bytes), and kernels moving
    far more DRAM bytes than that are flagged (excess-traffic).

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 3 the output was
    written but a --fail-on gate tripped, 4 unreadable input, 5 output
    exists or cannot be written, 6 missing optional module, 7 missing input,
    8 out of memory, 9 profiling failed.
    """
    settings = gating.settings()
    roofs = roofs.configured(settings, "gpu", "roofs_file", "clocks")
    out = out.configured(settings, "plotly_js")
    theory = theory.configured(settings, "excess_threshold")
    gates = gating.report_gates(settings)
    out_format = out.format()
    implied = out.implied_format()
    if implied:
        warn(f"{out.output}: writing {out.fmt} into a file named like {implied}")
    output = out.target(inputs[0], out_format)
    refuse_existing(output, out.force)
    context, tripped = analyse_and_gate(
        inputs, roofs, theory, gates, progress, merge, nsys, project_to
    )
    document = stream_document("report", out_format, context, out.render_options())
    summary = context["summary"]
    emit(
        document,
        output,
        out.force,
        f"({out_format}): {plural(summary['launches'], 'launch', 'launches')}, "
        f"{plural(summary['kernels'], 'kernel group')}, "
        f"{plural(len(context['findings']), 'finding')}",
    )
    exit_on_tripped(tripped)
