"""The ``ncu-roofline`` command line.

Every :class:`~ncu_roofline.errors.NcuRooflineError` becomes a one- or
two-line message on stderr and its documented exit code; a traceback is shown
only for internal errors, and only with ``--debug``.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ncu_roofline.analysis import CLOCK_MODES, analyze
from ncu_roofline.analysis.compare import compare as compare_analyses
from ncu_roofline.analysis.theory_table import TheoryRow, build_theory_table, rows_from_model
from ncu_roofline.cli.config import load_config
from ncu_roofline.core.hardware import builtin_gpus, find_gpu, load_roofs_file
from ncu_roofline.core.units import format_si
from ncu_roofline.errors import GATE_TRIPPED, NcuRooflineError, OutputError, UsageError
from ncu_roofline.readers import load
from ncu_roofline.render import FORMATS, render_json
from ncu_roofline.render.charts import roofline_figures
from ncu_roofline.render.compare_charts import comparison_figures
from ncu_roofline.render.compare_report import render_compare_html, render_compare_markdown
from ncu_roofline.render.html_report import PLOTLY_MODES, render_html, render_theory_html
from ncu_roofline.render.junit_report import render_junit
from ncu_roofline.render.markdown_report import render_markdown
from ncu_roofline.render.output import write_atomic
from ncu_roofline.render.page import build_page, untitled
from ncu_roofline.render.templates import render
from ncu_roofline.render.terminal import render_summary
from ncu_roofline.render.theory import theory_chart_context, theory_text_context
from ncu_roofline.report.compare import comparison_context
from ncu_roofline.report.context import build_context
from ncu_roofline.report.gates import (
    Gate,
    evaluate_comparison,
    evaluate_report,
    parse_gates,
    theory_gates_without_theory,
)
from ncu_roofline.report.inspect import inspect_profile
from ncu_roofline.theory.assign import TheoryConfig
from ncu_roofline.theory.estimates import load_theory_file
from ncu_roofline.theory.models import builtin_models, find_model, load_model_config
from ncu_roofline.theory.ops import OPS, parse_op_spec
from ncu_roofline.version import __version__

F = TypeVar("F", bound=Callable[..., Any])

_PROG = "ncu-roofline"


def _warn(message: str) -> None:
    click.echo(f"{_PROG}: warning: {message}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=_PROG)
@click.option("--debug", is_flag=True, help="Show tracebacks for internal errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Roofline reports from NVIDIA Nsight Compute (ncu) exports.

    Reads `ncu --csv` exports (details, raw and summary pages, base or auto
    units, with or without surrounding log output; `-` is stdin, `.gz` works)
    and `.ncu-rep` reports (with the optional ncu-report module).
    """
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


_progress_option = click.option(
    "--progress",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Progress bar on stderr for large inputs (auto: only on a terminal).",
)


def _progress_flag(value: str) -> bool | None:
    return {"auto": None, "always": True, "never": False}[value]


@cli.command()
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@_progress_option
def inspect(inputs: tuple[str, ...], as_json: bool, progress: str) -> None:
    """Describe each input: layout, launches, devices, roofline inputs.

    Lists which roofline inputs are present and which are missing, with the
    ncu options that would collect the missing ones.
    """
    profile = load(list(inputs), progress=_progress_flag(progress))
    data = inspect_profile(profile)
    if as_json:
        click.echo(json.dumps(data, indent=2, allow_nan=False))
        return
    click.echo(_inspect_text(data).rstrip("\n"))
    for item in data["inputs"]:
        for w in item["warnings"]:
            _warn(f"{item['path']}: {w}")


def _inspect_text(data: dict[str, Any]) -> str:
    items = []
    for item in data["inputs"]:
        extras = []
        if item.get("ncu_version"):
            extras.append(f"ncu {item['ncu_version']}")
        if item.get("units"):
            extras.append(f"{item['units']} units")
        if item.get("aggregated"):
            extras.append("aggregated per kernel")
        command = (
            "ncu "
            + " ".join(shlex.quote(o) for o in item["ncu_options"])
            + " --csv --page raw <app>"
        )
        items.append({**item, "extras": extras, "collect_command": command})
    return render("inspect.txt.j2", inputs=items)


_PHASES = ("decode", "prefill")


def _theory_format(output: str | None) -> str:
    """The ``theory`` output format implied by the output name."""
    name = (output or "").lower()
    if name.endswith(".json"):
        return "json"
    if name.endswith((".html", ".htm")):
        return "html"
    return "text"


def _theory_options(func: F) -> F:
    """Options that add theory (an estimates file or a model) to an analysis."""
    options = [
        click.option(
            "--theory",
            "theory_file",
            metavar="FILE",
            help="Estimates file: [[kernel]] rules (TOML).",
        ),
        click.option(
            "--model",
            metavar="NAME",
            help="Built-in model for theory (see `ncu-roofline theory --list-models`).",
        ),
        click.option("--model-config", metavar="FILE", help="Hugging Face config.json for theory."),
        click.option(
            "--phase",
            type=click.Choice(_PHASES),
            default="decode",
            show_default=True,
            help="Model phase.",
        ),
        click.option(
            "--batch",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Sequences per step.",
        ),
        click.option(
            "--seq",
            type=click.IntRange(min=1),
            default=2048,
            show_default=True,
            help="Context length (decode) or prompt length (prefill).",
        ),
        click.option(
            "--dtype", default="bf16", show_default=True, help="Weights and activations dtype."
        ),
        click.option("--kv-dtype", default=None, help="KV-cache dtype (default: --dtype)."),
        click.option(
            "--tp",
            type=click.IntRange(min=1),
            default=1,
            show_default=True,
            help="Tensor-parallel ranks.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def _theory_config(
    theory_file: str | None,
    model: str | None,
    model_config: str | None,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
    excess_threshold: float = 2.0,
) -> TheoryConfig | None:
    if model and model_config:
        raise UsageError("give either --model or --model-config, not both")
    if theory_file is None and model is None and model_config is None:
        return None
    cfg = None
    if model:
        cfg = find_model(model)
    elif model_config:
        cfg = load_model_config(model_config)
    config = TheoryConfig(
        file=load_theory_file(theory_file) if theory_file else None,
        model=cfg,
        phase=phase,
        batch=batch,
        seq=seq,
        dtype=dtype,
        kv_dtype=kv_dtype,
        tp=tp,
        excess_threshold=excess_threshold,
    )
    config.model_ops()  # bad shapes or dtypes fail here, before the profile is read
    return config


def _gate_options(func: F) -> F:
    """``--fail-on`` and ``--config``."""
    func = click.option(
        "--config",
        "config_file",
        metavar="FILE",
        help="Settings file (TOML); default: [tool.ncu-roofline] in the nearest pyproject.toml.",
    )(func)
    func = click.option(
        "--fail-on",
        "fail_on",
        multiple=True,
        metavar="RULE",
        help="Exit 3 after writing the output when RULE trips: efficiency<0.3, a finding kind "
        "(excess-traffic, above-roof, ...); compare also takes regression>5% and new-kernel.",
    )(func)
    return func


def _output_options(output_help: str) -> Callable[[F], F]:
    """-o, --format, --plotly-js, --force, --html-url and --top, as report and compare share them."""

    def decorate(func: F) -> F:
        options = [
            click.option("-o", "--output", metavar="OUT", help=output_help),
            click.option(
                "--format",
                "fmt",
                type=click.Choice(sorted(FORMATS)),
                help="Output format (default: from the output name, else html).",
            ),
            click.option(
                "--plotly-js",
                type=click.Choice(PLOTLY_MODES),
                default="inline",
                show_default=True,
                help="Inline plotly.js (works offline) or load it from the Plotly CDN (small file).",
            ),
            click.option("--force", is_flag=True, help="Overwrite an existing output file."),
            click.option(
                "--html-url", metavar="URL", help="For --format md: link to the HTML version."
            ),
            click.option(
                "--top",
                type=click.IntRange(min=1),
                default=10,
                show_default=True,
                help="Rows of top tables.",
            ),
        ]
        for option in reversed(options):
            func = option(func)
        return func

    return decorate


def _refuse_existing(output: str | None, force: bool) -> None:
    """Refuse an existing output before the (possibly long) analysis, not after."""
    if output and output != "-" and not force and os.path.exists(output):
        raise OutputError(f"{output}: already exists (use --force to overwrite)")


def _emit(text: str | bytes, output: str | None, force: bool, description: str) -> None:
    """Write to stdout (no output, or '-') or atomically to ``output``, saying where."""
    if output is None or output == "-":
        click.echo(text if isinstance(text, str) else text.decode("utf-8"), nl=False)
        return
    write_atomic(output, text, force=force)
    click.echo(f"{_PROG}: wrote {output} {description}", err=True)


def _output_format(output: str | None, fmt: str | None) -> str:
    """The report format: --format, else the output name's suffix, else HTML."""
    if fmt is not None:
        return fmt
    if output and output != "-":
        suffix = output.lower().rsplit(".", 1)[-1] if "." in output else ""
        for name, suffixes in FORMATS.items():
            if "." + suffix in suffixes:
                return name
        raise UsageError(
            f"{output}: cannot tell the format from the name; add --format "
            + " or --format ".join(sorted(FORMATS))
        )
    return "html"


_INPUT_SUFFIXES = (".gz", ".csv", ".ncu-rep", ".txt", ".out", ".log")


def _default_output(first_input: str, out_format: str) -> str:
    """``runs/profile.csv.gz`` -> ``profile.html`` in the current directory."""
    name = "ncu-roofline-report" if first_input == "-" else os.path.basename(first_input)
    stripped = True
    while stripped:
        stripped = False
        for suffix in _INPUT_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                stripped = True
    return f"{name}.{out_format}"


@cli.command()
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@_output_options(
    "Output file ('-': standard output; default: the first input's name with .html, "
    "or standard output for --format json)."
)
@click.option("--gpu", metavar="NAME", help="Use this GPU's roofs (see `ncu-roofline gpus`).")
@click.option(
    "--roofs",
    "roofs_file",
    metavar="FILE",
    help="Use roofs from a TOML file (same schema as the built-in table).",
)
@click.option(
    "--clocks",
    type=click.Choice(CLOCK_MODES),
    default="measured",
    show_default=True,
    help="Scale table compute roofs to the SM clock the export measured, or keep datasheet values.",
)
@_theory_options
@click.option(
    "--excess-threshold",
    type=click.FloatRange(min=1.0),
    default=2.0,
    show_default=True,
    help="Flag kernels moving at least this many times their minimal DRAM bytes.",
)
@_gate_options
@_progress_option
@click.pass_context
def report(
    ctx: click.Context,
    inputs: tuple[str, ...],
    output: str | None,
    fmt: str | None,
    plotly_js: str,
    force: bool,
    gpu: str | None,
    roofs_file: str | None,
    clocks: str,
    theory_file: str | None,
    model: str | None,
    model_config: str | None,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
    excess_threshold: float,
    html_url: str | None,
    top: int,
    fail_on: tuple[str, ...],
    config_file: str | None,
    progress: str,
) -> None:
    """Analyse exports and write a roofline report.

    Every launch is placed on the roofline of its GPU: measured FLOPs per
    precision and bytes per memory level, the roofs (from the export's own
    peak metrics, the built-in GPU table, --gpu or --roofs), the bound class,
    efficiency and recoverable time.  Kernels are grouped by name and launch
    configuration and ranked by recoverable time.

    With --theory FILE or --model NAME each kernel is also compared with the
    minimum its math needs (theoretical FLOPs and bytes), and kernels moving
    far more DRAM bytes than that are flagged (excess-traffic).

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 3 the output was
    written but a --fail-on gate tripped, 4 unreadable input, 5 output
    exists or cannot be written, 6 missing optional module, 7 missing input.
    """
    settings = _settings(ctx, config_file)
    gpu = settings.get("gpu", gpu)
    roofs_file = settings.get("roofs", roofs_file)
    clocks = settings.get("clocks", clocks)
    plotly_js = settings.get("plotly_js", plotly_js)
    excess_threshold = float(settings.get("excess_threshold", excess_threshold))
    gates = _report_gates_from(fail_on, settings)
    out_format = _output_format(output, fmt)
    if fmt and output and output != "-":
        implied = next((n for n, sfx in FORMATS.items() if output.lower().endswith(sfx)), None)
        if implied and implied != fmt:
            _warn(f"{output}: writing {fmt} into a file named like {implied}")
    if output is None and out_format in ("html", "junit"):
        output = _default_output(inputs[0], "xml" if out_format == "junit" else out_format)
    _refuse_existing(output, force)
    if gpu and roofs_file:
        raise UsageError("give either --gpu or --roofs, not both")
    unique = list(dict.fromkeys(inputs))
    if len(unique) < len(inputs):
        _warn("an input was given more than once; it is read once")
        inputs = tuple(unique)
    roofs = load_roofs_file(roofs_file) if roofs_file else None
    theory = _theory_config(
        theory_file, model, model_config, phase, batch, seq, dtype, kv_dtype, tp, excess_threshold
    )
    for rule in theory_gates_without_theory(gates, theory is not None):
        _warn(f"--fail-on {rule} can never trip without --theory or --model")
    profile = load(list(inputs), progress=_progress_flag(progress))
    analysis = analyze(profile, gpu=gpu, roofs=roofs, clocks=clocks, theory=theory)
    context = build_context(analysis)
    if roofs_file:
        context["options"]["roofs_file"] = roofs_file
    tripped = evaluate_report(gates, context)
    if gates:
        context["gates"] = {"rules": [g.text for g in gates], "tripped": tripped}
    gate_list = tripped if gates else None
    if out_format == "html":
        text: str | bytes = render_html(build_page(context, plotly_js=plotly_js))
    elif out_format == "md":
        text = render_markdown(context, html_url=html_url, top=top, gates=gate_list)
    elif out_format == "junit":
        text = render_junit(context, gates=tripped)
    else:
        text = render_json(context)
    _print_warnings(context)
    summary = context["summary"]
    _emit(
        text,
        output,
        force,
        f"({out_format}): {summary['launches']:,} launches, "
        f"{summary['kernels']:,} kernel groups, {len(context['findings'])} findings",
    )
    _report_gates(ctx, tripped)


def _print_warnings(context: dict[str, Any]) -> None:
    """Input warnings and warning findings of one analysis, on stderr."""
    for item in context["inputs"]:
        for w in item["warnings"]:
            _warn(f"{item['path']}: {w}")
    for finding in context["findings"]:
        if finding["severity"] in ("error", "warning") and finding["kind"] != "below-roof":
            _warn(finding["message"])


def _report_gates_from(fail_on: tuple[str, ...], settings: dict[str, Any]) -> list[Gate]:
    """Gates for ``report``: the command line's, else the configured ones.

    A configuration shared with ``compare`` may list comparison-only rules;
    ``report`` skips those (a command-line rule of that kind is an error).
    """
    if fail_on:
        return parse_gates(list(fail_on), comparison=False)
    gates = parse_gates(settings.get("fail_on", []), comparison=True)
    skipped = [g.text for g in gates if g.needs_comparison]
    if skipped:
        _warn(f"configured gates {', '.join(skipped)} apply to `compare` only; skipped")
    return [g for g in gates if not g.needs_comparison]


def _report_gates(ctx: click.Context, tripped: list[dict[str, Any]]) -> None:
    """Print tripped gates and exit 3; the output is already written."""
    if not tripped:
        return
    for t in tripped[:20]:
        _warn(f"gate {t['rule']} tripped: {t['message']}")
    if len(tripped) > 20:
        _warn(f"... and {len(tripped) - 20} more tripped gates (see the output)")
    click.echo(f"{_PROG}: {len(tripped)} gate(s) tripped", err=True)
    ctx.exit(GATE_TRIPPED)


_CONFIGURABLE = {
    "gpu": "gpu",
    "roofs": "roofs_file",
    "clocks": "clocks",
    "plotly_js": "plotly_js",
    "excess_threshold": "excess_threshold",
    "fail_on": "fail_on",
    "noise": "noise",
    "top": "top",
}


def _settings(ctx: click.Context, config_file: str | None) -> dict[str, Any]:
    """Configured values for the options the command line left at their defaults."""
    config = load_config(config_file)
    out: dict[str, Any] = {}
    for key, param in _CONFIGURABLE.items():
        if key not in config or param not in ctx.params:
            continue
        source = ctx.get_parameter_source(param)
        if source in (None, click.core.ParameterSource.DEFAULT):
            out[key] = config[key]
    return out


@cli.command()
@click.option(
    "--op",
    "op_specs",
    multiple=True,
    metavar="KIND:key=value,...",
    help="An op to tabulate, e.g. gemm:M=4096,N=4096,K=4096,dtype=fp16 (repeatable).",
)
@_theory_options
@click.option(
    "--gpu",
    "gpu_names",
    multiple=True,
    metavar="NAME",
    help="GPU to place the ops on (repeatable).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "html"]),
    help="Output format (default: from the output name, else text).",
)
@click.option(
    "--plotly-js",
    type=click.Choice(PLOTLY_MODES),
    default="inline",
    show_default=True,
    help="For HTML: inline plotly.js or load it from the Plotly CDN.",
)
@click.option(
    "-o", "--output", metavar="OUT", help="Output file ('-' or omitted: standard output)."
)
@click.option("--force", is_flag=True, help="Overwrite an existing output file.")
@click.option("--list-ops", is_flag=True, help="List the op library and each op's parameters.")
@click.option("--list-models", is_flag=True, help="List the built-in models.")
def theory(
    op_specs: tuple[str, ...],
    theory_file: str | None,
    model: str | None,
    model_config: str | None,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
    gpu_names: tuple[str, ...],
    fmt: str | None,
    plotly_js: str,
    output: str | None,
    force: bool,
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
        for kind, spec in sorted(OPS.items()):
            params = ", ".join(
                p.name if p.default is None else f"{p.name}={p.default}" for p in spec.params
            )
            click.echo(f"{kind}: {spec.summary}\n    {params}")
        return
    if list_models:
        for key, cfg in builtin_models().items():
            click.echo(
                f"{key}: {cfg.name} ({cfg.num_hidden_layers} layers, hidden {cfg.hidden_size})"
            )
        return
    if theory_file:
        raise UsageError("--theory rules need a profile; use them with `ncu-roofline report`")
    rows = [TheoryRow(name=spec, estimate=parse_op_spec(spec)) for spec in op_specs]
    config = _theory_config(None, model, model_config, phase, batch, seq, dtype, kv_dtype, tp)
    model_info = None
    if config is not None and config.model is not None:
        rows.extend(rows_from_model(config.model_ops()))
        model_info = config.describe()["model"]
    if not rows:
        raise UsageError("nothing to tabulate: give --op KIND:key=value,... or --model NAME")
    gpus = [find_gpu(g) for g in gpu_names]
    if not gpus:
        gpus = [find_gpu("h100_sxm5")]
        _warn("no --gpu given; using h100_sxm5")
    out_format = fmt or _theory_format(output)
    table = build_theory_table(rows, gpus, model=model_info)
    if out_format == "json":
        text = render_json(table)
    elif out_format == "html":
        text_ctx = theory_text_context(table)
        charts = untitled(roofline_figures(theory_chart_context(table)))
        for chart in charts:
            # The points are ops, not measured kernel groups.
            for trace in chart["figure"]["data"]:
                if trace.get("legendgroup") == "kernel groups":
                    trace["legendgrouptitle"] = {"text": "ops (theory)"}
        title = "Theory: " + (text_ctx["title"] or ", ".join(r.name for r in rows[:3]))
        generated = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()
        text = render_theory_html(text_ctx, charts, title, generated, __version__, plotly_js)
    else:
        text = render("theory.txt.j2", **theory_text_context(table)).rstrip("\n") + "\n"
    _emit(text, output, force, f"({out_format}): {len(table['ops'])} ops on {len(gpus)} GPU(s)")


@cli.command()
@click.argument("pair", nargs=-1, metavar="[BASE CANDIDATE]")
@click.option(
    "--base", "base_files", multiple=True, metavar="FILE", help="A base input (repeatable)."
)
@click.option(
    "--candidate",
    "candidate_files",
    multiple=True,
    metavar="FILE",
    help="A candidate input (repeatable).",
)
@_output_options(
    "Output file ('-': standard output; default: the candidate's name with .diff.html, "
    "or standard output for --format json)."
)
@click.option("--gpu", metavar="NAME", help="Use this GPU's roofs for both sides.")
@click.option("--base-gpu", metavar="NAME", help="The base side's GPU (profiles from two GPUs).")
@click.option(
    "--basis",
    type=click.Choice(["total", "per-launch"]),
    default="total",
    show_default=True,
    help="Judge changes by total kernel time, or by mean time per launch (for profiles "
    "that captured different numbers of launches).",
)
@click.option("--candidate-gpu", metavar="NAME", help="The candidate side's GPU.")
@click.option(
    "--clocks",
    type=click.Choice(CLOCK_MODES),
    default="measured",
    show_default=True,
    help="Table compute roofs at the measured clock or datasheet.",
)
@click.option(
    "--noise",
    type=click.FloatRange(min=0.0),
    default=0.02,
    show_default=True,
    help="Changes below this fraction count as unchanged.",
)
@_theory_options
@_gate_options
@_progress_option
@click.pass_context
def compare(
    ctx: click.Context,
    pair: tuple[str, ...],
    base_files: tuple[str, ...],
    candidate_files: tuple[str, ...],
    output: str | None,
    fmt: str | None,
    plotly_js: str,
    force: bool,
    gpu: str | None,
    base_gpu: str | None,
    basis: str,
    candidate_gpu: str | None,
    clocks: str,
    noise: float,
    html_url: str | None,
    top: int,
    theory_file: str | None,
    model: str | None,
    model_config: str | None,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
    fail_on: tuple[str, ...],
    config_file: str | None,
    progress: str,
) -> None:
    """Compare two profiles: what got slower, what got faster, what moved.

    Give BASE CANDIDATE, or --base FILE... --candidate FILE... when a side
    has several inputs.  Kernel groups are matched by kernel name and launch
    configuration (then by name alone when unambiguous), tolerant of
    reordering and of kernels added or removed.

    \b
    Gates (--fail-on, repeatable): regression>5% (a group or the total got
    slower by more), new-kernel, efficiency<N, or a finding kind of the
    candidate; exit 3 after writing the output when one trips.  Theory
    (--theory, --model) applies to the candidate, for excess-traffic gates.

    \b
    Exit codes: 0 success, 1 internal error, 2 usage error, 3 the output was
    written but a gate tripped, 4 unreadable input, 5 output exists or cannot
    be written, 6 missing optional module, 7 missing input.
    """
    if pair and (base_files or candidate_files):
        raise UsageError("give BASE CANDIDATE or --base/--candidate, not both")
    if pair:
        if len(pair) != 2:
            raise UsageError(
                "compare takes exactly two inputs: BASE CANDIDATE (or --base/--candidate)"
            )
        base_files, candidate_files = (pair[0],), (pair[1],)
    if not base_files or not candidate_files:
        raise UsageError("compare needs a base and a candidate input")
    base_files = tuple(dict.fromkeys(base_files))
    candidate_files = tuple(dict.fromkeys(candidate_files))
    settings = _settings(ctx, config_file)
    gpu = settings.get("gpu", gpu)
    clocks = settings.get("clocks", clocks)
    plotly_js = settings.get("plotly_js", plotly_js)
    noise = float(settings.get("noise", noise))
    top = int(settings.get("top", top))
    gates = parse_gates(list(fail_on) or settings.get("fail_on", []), comparison=True)
    theory = _theory_config(
        theory_file, model, model_config, phase, batch, seq, dtype, kv_dtype, tp
    )
    for rule in theory_gates_without_theory(gates, theory is not None):
        _warn(f"--fail-on {rule} can never trip without --theory or --model")
    out_format = _output_format(output, fmt)
    if output is None and out_format in ("html", "junit"):
        stem = _default_output(candidate_files[0], "x")[: -len(".x")]
        output = f"{stem}.diff.{'xml' if out_format == 'junit' else out_format}"
    _refuse_existing(output, force)
    show = _progress_flag(progress)
    base = analyze(load(list(base_files), progress=show), gpu=base_gpu or gpu, clocks=clocks)
    candidate = analyze(
        load(list(candidate_files), progress=show),
        gpu=candidate_gpu or gpu,
        clocks=clocks,
        theory=theory,
    )
    result = compare_analyses(base, candidate, noise=noise, basis=basis)
    cmp = comparison_context(result)
    candidate_context = build_context(candidate)
    base_context = build_context(base)
    _print_warnings(base_context)
    _print_warnings(candidate_context)
    if cmp["totals"].get("matched", 1) == 0:
        _warn("no kernel group matched between base and candidate: are these the same workload?")
    relaunched = [
        r
        for r in cmp["kernels"]
        if r.get("status") not in ("added", "removed")
        and r.get("base_launches") != r.get("candidate_launches")
    ]
    if relaunched and basis == "total":
        _warn(
            f"{len(relaunched)} matched kernel group(s) ran a different number of launches; "
            "their total times are not like for like (judge per launch with --basis per-launch)"
        )
    if any(g.kind == "regression" for g in gates) and cmp["totals"].get("delta_pct") is None:
        _warn("regression gates cannot be evaluated: the profiles carry no durations")
    tripped = evaluate_comparison(gates, cmp, candidate_context)
    if gates:
        cmp["gates"] = {"rules": [g.text for g in gates], "tripped": tripped}
    if out_format == "html":
        figures = untitled(comparison_figures(cmp, base_context, candidate_context))
        text: str | bytes = render_compare_html(cmp, figures, plotly_js=plotly_js, gates=tripped)
    elif out_format == "md":
        text = render_compare_markdown(
            cmp, html_url=html_url, top=top, gates=tripped if gates else None
        )
    elif out_format == "junit":
        text = render_junit(
            _comparison_junit_context(cmp, candidate_context),
            gates=tripped,
            suite_name="ncu-roofline compare",
        )
    else:
        text = render_json(cmp)
    pct = cmp["totals"].get("delta_pct")
    change = f"{100 * pct:+.1f}%" if pct is not None else "n/a"
    _emit(
        text,
        output,
        force,
        f"({out_format}): kernel time {change}, {len(cmp['regressions'])} regression(s), "
        f"{len(cmp['improvements'])} improvement(s)",
    )
    _report_gates(ctx, tripped)


def _comparison_junit_context(cmp: dict[str, Any], candidate: dict[str, Any]) -> dict[str, Any]:
    """The comparison's groups (merged over inputs) as JUnit test cases."""
    kernels = []
    for r in cmp["kernels"]:
        if r.get("status") == "removed":
            continue
        kernels.append(
            {
                "kernel": r.get("kernel"),
                "kernel_short": r.get("kernel_short"),
                "grid": r.get("candidate_grid"),
                "block": r.get("candidate_block"),
                "total_duration_s": r.get("candidate_total_duration_s"),
                "efficiency": r.get("candidate_efficiency"),
                "bound": r.get("candidate_bound"),
                "bound_reason": f"{r.get('status')}: {_signed_pct(r.get('delta_pct'))} kernel time",
                "recoverable_s": None,
            }
        )
    return {"kernels": kernels, "inputs": candidate["inputs"], "summary": candidate["summary"]}


def _signed_pct(value: Any) -> str:
    return "n/a" if value is None else f"{100 * float(value):+.1f}%"


@cli.command()
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option("--gpu", metavar="NAME", help="Use this GPU's roofs.")
@click.option(
    "--width", type=click.IntRange(min=40), default=100, show_default=True, help="Columns."
)
@click.option(
    "--top", type=click.IntRange(min=1), default=15, show_default=True, help="Kernel rows."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md", "json", "junit"]),
    default="text",
    show_default=True,
    help="text: the terminal table; md, json, junit: as `report` writes them, to stdout.",
)
@_theory_options
@_gate_options
@_progress_option
@click.pass_context
def summary(
    ctx: click.Context,
    inputs: tuple[str, ...],
    gpu: str | None,
    width: int,
    top: int,
    fmt: str,
    theory_file: str | None,
    model: str | None,
    model_config: str | None,
    phase: str,
    batch: int,
    seq: int,
    dtype: str,
    kv_dtype: str | None,
    tp: int,
    fail_on: tuple[str, ...],
    config_file: str | None,
    progress: str,
) -> None:
    """Print the kernels with the most recoverable time, in a terminal table.

    The table fits in --width columns (default 100): rank, kernel, bound
    class, efficiency (% of roof), time, share, recoverable time and the
    kernel's findings.  --fail-on gates work as for `report` (exit 3).
    """
    settings = _settings(ctx, config_file)
    gpu = settings.get("gpu", gpu)
    gates = _report_gates_from(fail_on, settings)
    theory = _theory_config(
        theory_file, model, model_config, phase, batch, seq, dtype, kv_dtype, tp
    )
    analysis = analyze(
        load(list(dict.fromkeys(inputs)), progress=_progress_flag(progress)), gpu=gpu, theory=theory
    )
    context = build_context(analysis)
    _print_warnings(context)
    tripped = evaluate_report(gates, context)
    if fmt == "md":
        click.echo(render_markdown(context, top=top, gates=tripped if gates else None), nl=False)
    elif fmt == "json":
        click.echo(render_json(context), nl=False)
    elif fmt == "junit":
        click.echo(render_junit(context, gates=tripped).decode("utf-8"), nl=False)
    else:
        click.echo(render_summary(context, width=width, top=top).rstrip("\n"))
    _report_gates(ctx, tripped)


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON (SI units).")
@click.option(
    "--roofs", "roofs_file", metavar="FILE", help="List the GPUs of a roofs file instead."
)
def gpus(as_json: bool, roofs_file: str | None) -> None:
    """List the GPUs whose roofs are known (names usable with --gpu)."""
    specs = load_roofs_file(roofs_file) if roofs_file else builtin_gpus()
    if as_json:
        click.echo(json.dumps([s.to_dict() for s in specs], indent=1, allow_nan=False))
        return
    rows = []
    for s in specs:
        rows.append(
            {
                "key": s.key,
                "name": s.name,
                "cc": s.cc or "?",
                "fp64": format_si(s.compute.get("fp64"), "FLOP/s"),
                "fp32": format_si(s.compute.get("fp32"), "FLOP/s"),
                "tensor": format_si(
                    s.compute.get("tensor_bf16") or s.compute.get("tensor_fp16"), "FLOP/s"
                ),
                "dram": format_si(s.memory.get("dram"), "B/s"),
            }
        )
    click.echo(render("gpus.txt.j2", gpus=rows).rstrip("\n"))


def main(argv: list[str] | None = None) -> None:
    """Console entry point with error mapping."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        # Outside standalone mode click returns ctx.exit()'s code instead of
        # exiting: a tripped gate (3) must reach the shell.
        code = cli.main(args=argv, prog_name=_PROG, standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except click.exceptions.Abort:
        click.echo(f"{_PROG}: aborted", err=True)
        sys.exit(130)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(UsageError.exit_code if exc.exit_code == 2 else exc.exit_code)
    except NcuRooflineError as exc:
        click.echo(f"{_PROG}: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo(f"{_PROG}: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except Exception as exc:
        if debug:
            raise
        click.echo(
            f"{_PROG}: internal error: {type(exc).__name__}: {exc}\n"
            f"{_PROG}: this is a bug; rerun with --debug and report the traceback",
            err=True,
        )
        sys.exit(1)
    sys.exit(0)
