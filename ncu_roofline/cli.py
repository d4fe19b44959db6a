"""The ``ncu-roofline`` command line.

Every :class:`~ncu_roofline.errors.NcuRooflineError` becomes a one- or
two-line message on stderr and its documented exit code; a traceback is shown
only for internal errors, and only with ``--debug``.
"""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ncu_roofline import __version__
from ncu_roofline.errors import NcuRooflineError, UsageError
from ncu_roofline.inspection import inspect_profile
from ncu_roofline.readers import load
from ncu_roofline.resources import render

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


def _progress_flag(value: str) -> bool | None:
    return {"auto": None, "always": True, "never": False}[value]


@cli.command()
@click.argument("inputs", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.option(
    "--progress",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Progress bar on stderr for large inputs (auto: only on a terminal).",
)
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


def main(argv: list[str] | None = None) -> None:
    """Console entry point with error mapping."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        cli.main(args=argv, prog_name=_PROG, standalone_mode=False)
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
