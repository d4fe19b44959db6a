"""``ncu-roofline timeline``: an nsys timeline's time budget, without an ncu profile."""

from __future__ import annotations

import click

from ncu_roofline.cli.messages import emit, note, warn
from ncu_roofline.cli.options import (
    force_option,
    format_from_name,
    format_option,
    inputs_argument,
    output_option,
    top_option,
)
from ncu_roofline.errors import UsageError
from ncu_roofline.render import RenderOptions, render_document
from ncu_roofline.render.output import is_stdout, refuse_existing

#: The formats of ``timeline``: ``text`` is the terminal summary.
_FORMATS = ("text", "json", "md", "html")


@click.command()
@inputs_argument
@output_option("Output file ('-': standard output; default: standard output).")
@format_option(
    list(_FORMATS),
    "text: the terminal summary; json, md, html: the document (default: from the output "
    "name, else text).",
)
@force_option
@top_option(10, "Kernel and range rows.")
@click.option(
    "--width", type=click.IntRange(min=40), default=100, show_default=True, help="Columns."
)
def timeline(
    inputs: tuple[str, ...],
    output: str | None,
    fmt: str | None,
    force: bool,
    top: int,
    width: int,
) -> None:
    """Where a program's GPU time goes, from an Nsight Systems timeline alone.

    Reads nsys output (FILE...: the reports of one capture) without any ncu
    profile: nsys stats CSV reports (cuda_gpu_trace, cuda_gpu_kern_sum,
    nvtx_gpu_proj_trace, cuda_api_trace, ...), the SQLite export, or an
    .nsys-rep (with nsys on PATH).  Prints the time budget (kernel time,
    copies, idle gaps, kernels under 5 us), the kernels with the most time,
    each NVTX range's median step, and the findings (launch-bound,
    graph-launched).  --format json, md or html writes the budget as a
    document (-o FILE; an existing file only with --force).  For bound
    classes and kernels ncu did not profile: `report PROFILE --nsys FILE`.
    """
    out_format = fmt or format_from_name(output, ("json", "md", "html")) or "text"
    if output and fmt is None and out_format == "text" and not is_stdout(output):
        raise UsageError(
            f"{output}: cannot tell the format from the name; add --format json, md or html"
        )
    target = None if output is None or is_stdout(output) else output
    refuse_existing(target, force)
    # The readers and the budget load pandas: imported here, so --help starts without them.
    from ncu_roofline.readers.nsys import load_timeline
    from ncu_roofline.render.budget_view import budget_line
    from ncu_roofline.report.timeline import timeline_document

    doc = timeline_document(load_timeline(list(dict.fromkeys(inputs))))
    for source in doc["inputs"]:
        for w in source["warnings"]:
            warn(f"{source['path']}: {w}")
    for w in doc["budget"]["warnings"]:
        warn(w)
    options = RenderOptions(top=top, width=width)
    document = render_document("timeline", out_format, doc, options)
    record = doc["budget"]
    if out_format != "text":
        line = budget_line(record)
        if line:
            note(line)
    emit(
        document,
        target,
        force,
        f"({out_format}): {record['kernels']:,} kernel launches, "
        f"{len(record['trace_kernels']):,} distinct kernels, {len(doc['findings'])} findings",
    )
