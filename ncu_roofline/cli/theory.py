"""``ncu-roofline theory``: FLOPs, minimal bytes and time floors without a profile."""

from __future__ import annotations

import click

from ncu_roofline.cli.messages import emit, note_gpu_alias, warn
from ncu_roofline.cli.options import (
    OutputOptions,
    TheoryOptions,
    force_option,
    format_from_name,
    format_option,
    gpu_option,
    option_group,
    output_option,
    plotly_option,
    theory_options,
)
from ncu_roofline.core.hardware import find_gpu, resolve_gpu
from ncu_roofline.errors import UsageError
from ncu_roofline.render import RenderOptions, render_document
from ncu_roofline.render.output import refuse_existing, write_output
from ncu_roofline.theory.models import builtin_models
from ncu_roofline.theory.ops import OPS, parse_op_spec

#: GPU of the table when no --gpu is given.
_DEFAULT_GPU = "h100_sxm5"


#: The theory command's formats; a name no format claims gives the text table.
_FORMATS = ("text", "json", "html")


def _list_ops() -> None:
    lines = []
    for kind, spec in sorted(OPS.items()):
        params = ", ".join(
            p.name if p.default is None else f"{p.name}={p.default}" for p in spec.params
        )
        lines.append(f"{kind}: {spec.summary}\n    {params}\n")
    # Through the one stdout writer: a full disk or closed pipe is handled there.
    write_output("".join(lines), None)


def _list_models() -> None:
    write_output(
        "".join(
            f"{key}: {cfg.name} ({cfg.num_hidden_layers} layers, hidden {cfg.hidden_size})\n"
            for key, cfg in builtin_models().items()
        ),
        None,
    )


@click.command()
@click.option(
    "--op",
    "op_specs",
    multiple=True,
    metavar="KIND:key=value,...",
    help="An op to tabulate, e.g. gemm:M=4096,N=4096,K=4096,dtype=fp16 (repeatable).",
)
@theory_options()
@gpu_option("GPU to place the ops on (repeatable).", dest="gpu_names", multiple=True)
@option_group(
    OutputOptions,
    "out",
    format_option(list(_FORMATS), "Output format (default: from the output name, else text)."),
    plotly_option("For HTML: inline plotly.js or load it from the Plotly CDN."),
    output_option("Output file ('-' or omitted: standard output)."),
    force_option,
)
@click.option("--list-ops", is_flag=True, help="List the op library and each op's parameters.")
@click.option("--list-models", is_flag=True, help="List the built-in models.")
def theory(
    op_specs: tuple[str, ...],
    theory: TheoryOptions,
    gpu_names: tuple[str, ...],
    out: OutputOptions,
    list_ops: bool,
    list_models: bool,
) -> None:
    """Theoretical FLOPs, minimal bytes and time floors, without a profile.

    Tabulates ops (--op) or a model's ops for one phase (--model, --phase,
    --batch, --seq) on one or more GPUs (--gpu, repeatable): intensity,
    bound class and the least time any implementation could take.  For
    example, is Llama-3-8B decode at batch 1 memory-bound on an A100, and
    what would an H200 buy?

    \b
        ncu-roofline theory --model llama-3-8b --phase decode --batch 1 \\
            --gpu a100_80gb_sxm --gpu h200_sxm
    """
    if list_ops:
        _list_ops()
        return
    if list_models:
        _list_models()
        return
    if theory.theory_file:
        raise UsageError("--theory rules need a profile; use them with `ncu-roofline report`")
    # The floor arithmetic loads numpy: imported here, not for --help or a listing.
    from ncu_roofline.analysis.theory_table import TheoryRow, rows_from_model
    from ncu_roofline.report.theory import build_theory_table

    rows = [TheoryRow(name=spec, estimate=parse_op_spec(spec)) for spec in op_specs]
    config = theory.config()
    model_info = None
    model_config = None
    if config is not None and config.model is not None:
        model_config = config.model
        rows.extend(rows_from_model(config.model_ops()))
        model_info = config.describe()["model"]
    if not rows:
        raise UsageError("nothing to tabulate: give --op KIND:key=value,... or --model NAME")
    lookups = [resolve_gpu(g) for g in gpu_names]
    note_gpu_alias(*lookups)
    gpus = [lookup.spec for lookup in lookups]
    if not gpus:
        gpus = [find_gpu(_DEFAULT_GPU)]
        warn(f"no --gpu given; using {_DEFAULT_GPU}")
    out_format = out.fmt or format_from_name(out.output, _FORMATS) or "text"
    refuse_existing(out.output, out.force)
    table = build_theory_table(rows, gpus, model=model_info, config=model_config)
    text = render_document("theory", out_format, table, RenderOptions(plotly_js=out.plotly_js))
    emit(
        text,
        out.output,
        out.force,
        f"({out_format}): {len(table['ops'])} ops on {len(gpus)} GPU(s)",
    )
