"""``ncu-roofline summary``: the kernels with the most recoverable time, on stdout."""

from __future__ import annotations

import click

from ncu_roofline.cli.analyse import analyse_and_gate
from ncu_roofline.cli.messages import exit_on_tripped
from ncu_roofline.cli.options import (
    GateOptions,
    RoofOptions,
    TheoryOptions,
    cache_option,
    format_option,
    gate_options,
    inputs_argument,
    merge_option,
    progress_option,
    roof_options,
    theory_options,
    top_option,
)
from ncu_roofline.render import RenderOptions, render_document
from ncu_roofline.render.output import write_output


@click.command()
@inputs_argument
@roof_options
@click.option(
    "--width", type=click.IntRange(min=40), default=100, show_default=True, help="Columns."
)
@top_option(15, "Kernel rows.")
@format_option(
    ["text", "md", "json", "junit"],
    "text: the terminal table; md, json, junit: as `report` writes them, to stdout.",
    default="text",
)
@theory_options()
@gate_options
@progress_option
@cache_option
@merge_option
def summary(
    inputs: tuple[str, ...],
    roofs: RoofOptions,
    width: int,
    top: int,
    fmt: str,
    theory: TheoryOptions,
    gating: GateOptions,
    progress: bool | None,
    merge: bool,
) -> None:
    """Print the kernels with the most recoverable time, in a terminal table.

    The table fits in --width columns (default 100): rank, kernel, grid,
    bound class, efficiency (% of roof; % of the theory floor, marked "th",
    where no roof applies), time, share, recoverable time and the kernel's
    findings.  --gpu, --roofs and --clocks choose the roofs as for `report`.  --fail-on gates work as for `report` (exit 3).
    """
    settings = gating.settings()
    roofs = roofs.configured(settings, "gpu", "roofs_file", "clocks")
    gates = gating.report_gates(settings)
    context, tripped = analyse_and_gate(inputs, roofs, theory, gates, progress, merge)
    options = RenderOptions(width=width, top=top)
    write_output(render_document("report", fmt, context, options), None)
    exit_on_tripped(tripped)
