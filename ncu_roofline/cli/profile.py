"""``ncu-roofline profile -- CMD``: run ncu with what the roofline needs, then write the report.

Design: the ncu command line is built from one metric list
(:func:`~ncu_roofline.core.collect.profile_metrics`, the list ``inspect``
recommends plus the architecture's tensor op counters) and always writes a
raw-page CSV in base units beside the report (``report.html`` ->
``report.ncu.csv``), so the profile outlives the report and can be read
again.  ncu's console output is captured, shown on stderr, and searched for
its known failures; a program that exits non-zero is warned about and
whatever was collected is still reported.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import click

from ncu_roofline.cli.analyse import analyse_and_gate
from ncu_roofline.cli.messages import emit, warn
from ncu_roofline.cli.options import (
    RoofOptions,
    TheoryOptions,
    force_option,
    format_from_name,
    roof_options,
    theory_options,
)
from ncu_roofline.core.collect import PROFILE_SECTIONS, profile_metrics
from ncu_roofline.errors import MissingDependencyError, ProfilingError, UsageError
from ncu_roofline.render import RenderOptions, stream_document
from ncu_roofline.render.format import plural
from ncu_roofline.render.output import refuse_existing
from ncu_roofline.render.safe_text import terminal_safe

#: How every profile is written: the raw page (one row per launch) in base units.
_RAW_CSV = ("--csv", "--page", "raw", "--print-units", "base")
#: What ncu prints when the user may not read the performance counters.
PERMISSION_ERROR = "ERR_NVGPUCTRPERM"
#: What ncu prints when its filters matched no kernel.
NO_KERNELS = "No kernels were profiled"
_PERMISSION_FIX = (
    "ncu has no permission to read the GPU's performance counters (ERR_NVGPUCTRPERM): "
    "run as an administrator (sudo), or let every user profile by loading the NVIDIA "
    "driver with `options nvidia NVreg_RestrictProfilingToAdminUsers=0` (see NVIDIA's "
    "ERR_NVGPUCTRPERM page: https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
)
_NO_KERNELS_HINT = (
    "ncu profiled no kernel: the program launched none, or --kernel-name, --kernel-id, "
    "--nvtx-include or --launch-skip/--launch-count filtered them all out"
)


def _cc(arch: str | None) -> str | None:
    """``sm_90``, ``90``, ``9.0`` -> ``"9.0"``; ``None`` stays unknown."""
    if not arch:
        return None
    text = arch.strip().lower().removeprefix("sm_").removeprefix("sm")
    if "." in text:
        return text
    if text.isdigit() and len(text) >= 2:
        return f"{text[:-1]}.{text[-1]}"
    raise UsageError(f"--arch {arch!r}: give a compute capability such as 9.0 or sm_90")


def _query_cc() -> str | None:
    """The first GPU's compute capability from nvidia-smi, or ``None``."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    try:
        out = subprocess.run(
            [smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    first = out.stdout.strip().splitlines()[:1]
    return first[0].strip() if out.returncode == 0 and first else None


def ncu_arguments(
    ncu: str,
    depth: str,
    cc: str | None,
    log_file: str,
    passthrough: list[str],
    export: str | None,
) -> list[str]:
    """The ncu command line (without the program): what to collect and where to write it."""
    args = [ncu]
    if depth == "full":
        args += ["--set", "full"]
    else:
        for section in PROFILE_SECTIONS:
            args += ["--section", section]
    args += ["--metrics", ",".join(profile_metrics(cc)), *passthrough]
    if export is not None:
        return [*args, "--export", export, "--force-overwrite"]
    return [*args, *_RAW_CSV, "--log-file", log_file]


#: What nsys records for the step budget: CUDA API and GPU activity, NVTX ranges,
#: each kernel of a CUDA graph on its own; no CPU sampling (it only adds overhead).
NSYS_PROFILE = (
    "profile",
    "--trace=cuda,nvtx",
    "--sample=none",
    "--cpuctxsw=none",
    "--cuda-graph-trace=node",
    "--force-overwrite=true",
)


def nsys_arguments(nsys: str, base: str) -> list[str]:
    """The nsys command line (without the program): a timeline capture to ``base.nsys-rep``."""
    return [nsys, *NSYS_PROFILE, "--output", base]


def nsys_export_arguments(nsys: str, rep: str, sqlite: str) -> list[str]:
    """The nsys command line that turns the capture into the SQLite export the budget reads."""
    return [
        nsys,
        "export",
        "--type",
        "sqlite",
        "--force-overwrite",
        "true",
        "--output",
        sqlite,
        rep,
    ]


def import_arguments(ncu: str, report: str, log_file: str) -> list[str]:
    """The ncu command line that turns a kept ``.ncu-rep`` into the raw-page CSV."""
    return [ncu, "--import", report, *_RAW_CSV, "--log-file", log_file]


def _passthrough(
    kernel_name: str | None,
    kernel_id: str | None,
    launch_skip: int | None,
    launch_count: int | None,
    nvtx_include: tuple[str, ...],
    replay_mode: str | None,
    clock_control: str | None,
) -> list[str]:
    args: list[str] = []
    for flag, value in (
        ("--kernel-name", kernel_name),
        ("--kernel-id", kernel_id),
        ("--launch-skip", launch_skip),
        ("--launch-count", launch_count),
        ("--replay-mode", replay_mode),
        ("--clock-control", clock_control),
    ):
        if value is not None:
            args += [flag, str(value)]
    if nvtx_include:
        args.append("--nvtx")
        for rng in nvtx_include:
            args += ["--nvtx-include", rng]
    return args


def _run(args: list[str]) -> tuple[int, str]:
    """Run one ncu command; its console output is shown on stderr and returned."""
    try:
        proc = subprocess.run(args, capture_output=True, text=True, errors="replace", check=False)
    except OSError as exc:
        raise MissingDependencyError(f"could not run {args[0]}: {exc.strerror or exc}") from None
    text = proc.stdout + proc.stderr
    if text:
        click.echo(terminal_safe(text.rstrip("\n")), err=True)
    return proc.returncode, text


def _check(returncode: int, console: str, log_file: Path) -> None:
    """Raise for ncu's known failures; warn for a non-zero exit with a profile to report."""
    log = log_file.read_text(encoding="utf-8", errors="replace") if log_file.is_file() else ""
    seen = console + log
    if PERMISSION_ERROR in seen:
        raise ProfilingError(_PERMISSION_FIX)
    if NO_KERNELS in seen or not log.strip():
        raise ProfilingError(_NO_KERNELS_HINT)
    if returncode != 0:
        warn(f"ncu or the program exited with status {returncode}; reporting what {log_file} holds")


def _timeline_steps(
    with_nsys: bool, nsys_path: str | None, dry_run: bool, base: str, cmd: list[str]
) -> list[list[str]]:
    """The nsys capture and export command lines (none without ``--nsys``)."""
    if not with_nsys:
        return []
    nsys = nsys_path or shutil.which("nsys") or ("nsys" if dry_run else None)
    if nsys is None:
        raise MissingDependencyError(
            "nsys (Nsight Systems) is not on PATH: install it, give --nsys-path PATH, or "
            "leave out --nsys"
        )
    return [
        [*nsys_arguments(nsys, base), *cmd],
        nsys_export_arguments(nsys, f"{base}.nsys-rep", f"{base}.nsys.sqlite"),
    ]


def _capture_timeline(steps: list[list[str]], rep: str, sqlite: str) -> list[str]:
    """Run the nsys steps; the SQLite export to report with, or nothing (with a warning)."""
    if not steps:
        return []
    code, _ = _run(steps[0])
    if Path(rep).is_file():
        _run(steps[1])
    if Path(sqlite).is_file():
        return [sqlite]
    warn(f"nsys wrote no timeline (exit status {code}); the report has no step budget")
    return []


@click.command(context_settings={"allow_interspersed_args": False})
@click.argument(
    "command", nargs=-1, required=True, type=click.UNPROCESSED, metavar="-- CMD [ARGS]..."
)
@click.option(
    "--ncu", "ncu_path", metavar="PATH", help="The ncu executable (default: ncu on PATH)."
)
@click.option(
    "--depth",
    type=click.Choice(["roofline", "full"]),
    default="roofline",
    show_default=True,
    help="roofline: the metrics and sections the analysis reads; full: also --set full.",
)
@click.option(
    "--arch",
    metavar="CC",
    help="The GPU's compute capability (9.0 or sm_90) for its tensor op counters "
    "(default: asked of nvidia-smi).",
)
@click.option("--kernel-name", help="Passed to ncu: profile only kernels of this name.")
@click.option("--kernel-id", help="Passed to ncu: context:stream:name:invocation filter.")
@click.option("--launch-skip", type=click.IntRange(min=0), help="Passed to ncu.")
@click.option("--launch-count", type=click.IntRange(min=1), help="Passed to ncu.")
@click.option("--nvtx-include", multiple=True, help="Passed to ncu (with --nvtx); repeatable.")
@click.option(
    "--replay-mode",
    type=click.Choice(["kernel", "application", "range", "app-range"]),
    help="Passed to ncu.",
)
@click.option("--clock-control", type=click.Choice(["base", "none"]), help="Passed to ncu.")
@click.option("--keep-rep", is_flag=True, help="Keep ncu's .ncu-rep beside the report too.")
@click.option(
    "--nsys",
    "with_nsys",
    is_flag=True,
    help="Also capture the program's timeline with Nsight Systems first (report.nsys-rep, "
    "report.nsys.sqlite): the report then says where the step's time goes between kernels "
    "and weights each kernel by how often it really runs.",
)
@click.option("--nsys-path", metavar="PATH", help="The nsys executable (default: nsys on PATH).")
@click.option("--dry-run", is_flag=True, help="Print the ncu command line(s) and exit.")
@click.option(
    "-o",
    "--output",
    default="report.html",
    show_default=True,
    help="The report; the profile is written beside it (report.ncu.csv).",
)
@theory_options()
@roof_options
@force_option
def profile(
    command: tuple[str, ...],
    ncu_path: str | None,
    depth: str,
    arch: str | None,
    kernel_name: str | None,
    kernel_id: str | None,
    launch_skip: int | None,
    launch_count: int | None,
    nvtx_include: tuple[str, ...],
    replay_mode: str | None,
    clock_control: str | None,
    keep_rep: bool,
    with_nsys: bool,
    nsys_path: str | None,
    dry_run: bool,
    output: str,
    theory: TheoryOptions,
    roofs: RoofOptions,
    force: bool,
) -> None:
    """Profile a program with ncu and write its roofline report.

    Runs ncu with the metrics and sections the roofline needs (the list
    `inspect` recommends, and the GPU's tensor op counters per datatype),
    keeps the raw-page CSV beside the report, then writes the report:

    \b
        ncu-roofline profile -o matmul.html -- ./matmul 4096
        (writes matmul.ncu.csv and matmul.html)

    With --nsys the program first runs under Nsight Systems (a timeline
    capture, exported to SQLite beside the report), so the report also says
    where each step's time goes: kernels, copies, idle gaps, kernels ncu did
    not profile.  --dry-run prints every command.
    """
    cmd = list(command)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        raise UsageError("no program to profile: give it after --, e.g. -- ./app ARGS")
    ncu = ncu_path or shutil.which("ncu") or ("ncu" if dry_run else None)
    if ncu is None:
        raise MissingDependencyError(
            "ncu (Nsight Compute) is not on PATH: install it or give --ncu PATH"
        )
    cc = _cc(arch) or (None if dry_run else _query_cc())
    if cc is None and not dry_run:
        warn(
            "GPU architecture unknown (no nvidia-smi): tensor op counters not collected; give --arch"
        )
    base = Path(output).with_suffix("")
    log_file = Path(f"{base}.ncu.csv")
    rep = f"{base}.ncu-rep" if keep_rep else None
    passthrough = _passthrough(
        kernel_name, kernel_id, launch_skip, launch_count, nvtx_include, replay_mode, clock_control
    )
    nsys_rep, nsys_db = f"{base}.nsys-rep", f"{base}.nsys.sqlite"
    timeline = _timeline_steps(with_nsys, nsys_path, dry_run, str(base), cmd)
    steps = [[*ncu_arguments(ncu, depth, cc, str(log_file), passthrough, rep), *cmd]]
    if rep is not None:
        steps.append(import_arguments(ncu, rep, str(log_file)))
    if dry_run:
        click.echo("\n".join(shlex.join(step) for step in [*timeline, *steps]))
        return
    extra = (nsys_rep, nsys_db) if with_nsys else ()
    for path in (output, str(log_file), rep, *extra):
        refuse_existing(path, force)
    if force and log_file.is_file():
        log_file.unlink()  # ncu appends to an existing log file
    # The timeline first: ncu serialises and replays kernels, so it cannot run beside it.
    nsys_inputs = _capture_timeline(timeline, nsys_rep, nsys_db)
    returncode, console = _run(steps[0])
    if rep is not None and Path(rep).is_file():
        _run(steps[1])
    _check(returncode, console, log_file)
    context, _ = analyse_and_gate([str(log_file)], roofs, theory, [], None, nsys=nsys_inputs)
    fmt = format_from_name(output) or "html"
    text = stream_document("report", fmt, context, RenderOptions())
    summary = context["summary"]
    emit(
        text,
        output,
        force,
        f"({fmt}) from {log_file}: {plural(summary['launches'], 'launch', 'launches')}, "
        f"{plural(summary['kernels'], 'kernel group')}, "
        f"{plural(len(context['findings']), 'finding')}",
    )
