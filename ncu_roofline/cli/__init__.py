"""The ``ncu-roofline`` command line.

Design: this module holds the click group, its commands (one module each:
:mod:`~ncu_roofline.cli.inspect`, :mod:`~ncu_roofline.cli.report`,
:mod:`~ncu_roofline.cli.compare`, :mod:`~ncu_roofline.cli.summary`,
:mod:`~ncu_roofline.cli.theory`, :mod:`~ncu_roofline.cli.gpus`,
:mod:`~ncu_roofline.cli.profile`, :mod:`~ncu_roofline.cli.timeline`) and
:func:`main`, which maps errors to exit codes.  The options the commands
share are defined once, in :mod:`~ncu_roofline.cli.options`.

The group is lazy: a command's module (and with it pandas, pyarrow and the
engine) is imported only when that command runs or shows its own help.  The
group's ``--help`` lists the commands from :data:`COMMANDS`, which holds each
command's summary (the first paragraph of its docstring, checked by the
tests), so ``--help``, ``--version``, ``gpus`` and ``theory`` start without
loading the data stack.

Every :class:`~ncu_roofline.errors.NcuRooflineError` becomes a one- or
two-line message on stderr and its documented exit code; a traceback is shown
only for internal errors, and only with ``--debug``.
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
from typing import NoReturn

import click

from ncu_roofline import interrupts
from ncu_roofline.cli.messages import PROG, error
from ncu_roofline.core.limits import address_space_limited, check_room, memory_exhausted
from ncu_roofline.errors import NcuRooflineError, OutOfMemoryError, OutputError, UsageError
from ncu_roofline.render.output import stdout_unwritable
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.version import __version__

#: Exit code of an interrupted run (the shell's for SIGINT).
_INTERRUPTED = 130


#: Command name -> (module, summary shown by the group's --help).
COMMANDS: dict[str, tuple[str, str]] = {
    "compact": (
        "ncu_roofline.cli.compact",
        "Merge each day's run files into one file per table and GPU, for fast queries.",
    ),
    "compare": (
        "ncu_roofline.cli.compare",
        "Compare two profiles: what got slower, what got faster, what moved.",
    ),
    "export": (
        "ncu_roofline.cli.export",
        "Analyse exports and append them to a Parquet dataset as one run.",
    ),
    "gpus": (
        "ncu_roofline.cli.gpus",
        "List the GPUs whose roofs are known (names usable with --gpu).",
    ),
    "history": (
        "ncu_roofline.cli.history",
        "Kernel groups over the runs of a dataset, with their change points.",
    ),
    "inspect": (
        "ncu_roofline.cli.inspect",
        "Describe each input: layout, launches, devices, roofline inputs.",
    ),
    "profile": (
        "ncu_roofline.cli.profile",
        "Profile a program with ncu and write its roofline report.",
    ),
    "query": (
        "ncu_roofline.cli.query",
        "Answer an SQL query over a dataset's tables, with DuckDB.",
    ),
    "report": ("ncu_roofline.cli.report", "Analyse exports and write a roofline report."),
    "summary": (
        "ncu_roofline.cli.summary",
        "Print the kernels with the most recoverable time, in a terminal table.",
    ),
    "theory": (
        "ncu_roofline.cli.theory",
        "Theoretical FLOPs, minimal bytes and time floors, without a profile.",
    ),
    "timeline": (
        "ncu_roofline.cli.timeline",
        "Where a program's GPU time goes, from an Nsight Systems timeline alone.",
    ),
}


#: Commands that start without the data stack (numpy, pandas, pyarrow).
_LIGHT = frozenset({"gpus", "theory"})


class LazyGroup(click.Group):
    """A group whose commands are imported on first use (see the module docstring)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, without importing any of them."""
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its module imported now (``None`` for an unknown name)."""
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            if cmd_name not in _LIGHT:
                _blas_under_limit()
            module = importlib.import_module(COMMANDS[cmd_name][0])
            command = getattr(module, cmd_name)
            if not isinstance(command, click.Command):
                raise TypeError(f"{COMMANDS[cmd_name][0]}.{cmd_name} is not a click command")
            self.add_command(command, cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of ``--help``, from the summaries of :data:`COMMANDS`.

        The same layout as click's own, without importing the commands: each
        summary is shortened to the width exactly as click shortens a help text.
        """
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            if name in COMMANDS:
                # A stand-in with the summary as its help: click shortens it.
                text = click.Command(name, help=COMMANDS[name][1]).get_short_help_str(limit)
            else:
                command = self.commands[name]
                if command.hidden:
                    continue
                text = command.get_short_help_str(limit)
            rows.append((name, text))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG)
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


def main(argv: list[str] | None = None) -> None:
    """Console entry point with error mapping."""
    try:
        _run(argv)
    finally:
        # A failed write may leave text buffered for a stdout that cannot take
        # it; the interpreter's last flush must not fail (exit 120) over it.
        interrupts.settle_stdout()


def _run(argv: list[str] | None) -> None:
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    try:
        # Outside standalone mode click returns ctx.exit()'s code instead of
        # exiting: a tripped gate (3) must reach the shell.
        code = cli.main(args=argv, prog_name=PROG, standalone_mode=False)
        if isinstance(code, int) and code != 0:
            sys.exit(code)
    except click.exceptions.Abort as exc:
        if isinstance(exc.__context__, KeyboardInterrupt):
            interrupts.end(exc.__context__)
        click.echo(f"{PROG}: aborted", err=True)
        sys.exit(_INTERRUPTED)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(UsageError.exit_code if exc.exit_code == 2 else exc.exit_code)
    except NcuRooflineError as exc:
        error(str(exc))
        sys.exit(exc.exit_code)
    except (interrupts.Interrupted, KeyboardInterrupt) as exc:
        interrupts.end(exc)
    except BrokenPipeError:
        interrupts.end(interrupts.StdoutClosed())
    except MemoryError:
        out_of_memory()
    except OSError as exc:
        if memory_exhausted(exc):
            out_of_memory()
        if exc.errno not in _STREAM_FULL:
            _internal(exc, debug)
        # click's own help and version text into a full device or disk.
        interrupts.settle_stdout()
        error(str(stdout_unwritable(exc)))
        sys.exit(OutputError.exit_code)
    except Exception as exc:
        if memory_exhausted(exc):
            out_of_memory()
        _internal(exc, debug)
    sys.exit(0)


#: Address space that must be free to load numpy under a limit (see _blas_under_limit).
_BLAS_ROOM = 96 << 20


def _blas_under_limit() -> None:
    """Under ``ulimit -v``, load numpy with one OpenBLAS thread (the environment left as it was).

    numpy's OpenBLAS starts a thread per core and allocates a buffer per
    thread when it loads; under an address-space limit that fails in C,
    where OpenBLAS exits 1 or raises SIGINT (exit 130) after its own
    messages, and no Python code can say "out of memory" instead.  With one
    thread it needs a fraction of that, and a failure left is an ImportError
    or MemoryError, mapped to exit 8.  Nothing here multiplies matrices.
    The variable is removed again so that ``profile`` does not hand it to
    the profiled program.
    """
    if "numpy" in sys.modules or not address_space_limited():
        return
    # OpenBLAS's buffer (32 MiB and more) must fit, or it exits 1: with less
    # room than this no command can run anyway.
    check_room(_BLAS_ROOM, "numpy")
    if "OPENBLAS_NUM_THREADS" in os.environ:
        import numpy

        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401 - loaded now, for the variable to count
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]


#: Errors of a write to a stream that cannot take more: an output error, not a bug.
_STREAM_FULL = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EIO", "EFBIG", "EBADF")
    if hasattr(errno, name)
)


def _internal(exc: Exception, debug: bool) -> NoReturn:
    """An exception no stage expected: one line saying it is a bug (the traceback with --debug)."""
    if debug:
        raise exc
    click.echo(
        f"{PROG}: internal error: {type(exc).__name__}: {terminal_safe(exc)}\n"
        f"{PROG}: this is a bug; rerun with --debug and report the traceback",
        err=True,
    )
    sys.exit(1)


# --- out of memory ------------------------------------------------------------

_OUT_OF_MEMORY = (
    f"{PROG}: error: out of memory while reading or analysing the input; free memory, "
    "raise the limit (ulimit -v) or read a smaller export\n"
).encode()


def out_of_memory() -> NoReturn:
    """Say that memory ran out and end the process now, with exit code 8.

    After a MemoryError, Arrow's worker threads may wait forever on memory
    that never comes, and a normal exit waits for them: ``os._exit`` skips
    that wait (after flushing what was written).  The message is prepared
    beforehand and written with ``os.write``, which needs no memory.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    with contextlib.suppress(OSError):
        os.write(2, _OUT_OF_MEMORY)
    os._exit(OutOfMemoryError.exit_code)


__all__ = ["COMMANDS", "LazyGroup", "cli", "main", "out_of_memory"]
