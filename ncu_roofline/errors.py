"""One exception hierarchy for every user-facing failure, with exit codes.

The command line maps each class to the exit code in its ``exit_code``
attribute and prints ``str(error)``: a user error never shows a traceback.

Exit codes (also listed in the README):

====  =====================================================================
0     success
1     unexpected internal error (a bug: please report it)
2     bad command-line usage (unknown option, bad value)
3     the output was written but a ``--fail-on`` gate tripped
4     an input is not a readable ncu export (empty, binary, no table, ...)
5     an output file exists (use ``--force``) or cannot be written
6     an optional dependency is missing (e.g. ``ncu-report`` for .ncu-rep)
7     an input file is missing or cannot be read
8     out of memory (the run stopped; free memory or raise the limit)
9     profiling failed: ``ncu`` could not profile the program (``profile``)
====  =====================================================================
"""

from __future__ import annotations

#: Exit code when the output was written but a ``--fail-on`` gate tripped.
GATE_TRIPPED = 3


class NcuRooflineError(Exception):
    """Base class of every error the tool reports to users."""

    exit_code = 1


class UsageError(NcuRooflineError):
    """The command line or an option value is wrong."""

    exit_code = 2


class InputNotFoundError(NcuRooflineError):
    """An input path does not exist or cannot be opened."""

    exit_code = 7


class InputFormatError(NcuRooflineError):
    """An input exists but is not a readable Nsight Compute export."""

    exit_code = 4


class OutputError(NcuRooflineError):
    """An output exists and ``--force`` was not given, or writing failed."""

    exit_code = 5


class MissingDependencyError(NcuRooflineError):
    """An optional dependency needed for this input is not installed."""

    exit_code = 6


class OutOfMemoryError(NcuRooflineError):
    """Memory ran out while reading or analysing an input."""

    exit_code = 8


class ProfilingError(NcuRooflineError):
    """``ncu`` could not profile the program: no counter permission, no kernel profiled."""

    exit_code = 9


EXIT_CODES: dict[str, int] = {
    "ok": 0,
    "internal": NcuRooflineError.exit_code,
    "gate": GATE_TRIPPED,
    "usage": UsageError.exit_code,
    "input-not-found": InputNotFoundError.exit_code,
    "input-format": InputFormatError.exit_code,
    "output": OutputError.exit_code,
    "missing-dependency": MissingDependencyError.exit_code,
    "out-of-memory": OutOfMemoryError.exit_code,
    "profiling": ProfilingError.exit_code,
}
