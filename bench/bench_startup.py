"""Time the start-up of the commands that read no data against ``import pandas``.

Each measurement is a whole process: the interpreter's start-up, the imports
and the command.  The cases run interleaved (one run of each, then the next
round), so a change in the host's load touches them all alike, and the
fastest of ``--repeat`` runs of each is compared.  Goal: ``--help``,
``--version`` and ``gpus`` take at most 0.4x the time of ``python -c "import
pandas"`` (``--check`` exits 1 otherwise).  ``theory`` is timed against the
same figure without a goal: it loads numpy for the engine's floor arithmetic
and Jinja2 for its table.  ``python -c pass`` is shown for scale: no command
can start faster than the bare interpreter.

Run it from the repository root: ``python -m`` finds the package of the
current directory first.

Usage::

    .venv/bin/python bench/bench_startup.py [--repeat 15] [--check]
    .venv/bin/python bench/bench_startup.py --cli .venv/bin/ncu-roofline
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

GOAL_RATIO = 0.4

#: The commands timed, as arguments of the command line, and whether the goal applies.
COMMANDS: tuple[tuple[tuple[str, ...], bool], ...] = (
    (("--help",), True),
    (("--version",), True),
    (("gpus",), True),
    (("theory", "--model", "llama-3-8b", "--gpu", "a100"), False),
)


@dataclass
class Case:
    """One process to time, and what each of its runs measured."""

    label: str
    argv: list[str]
    #: Whether the goal applies; ``None`` for the references it is measured against.
    goal: bool | None
    seconds: list[float]
    peak_mb: list[float]


def _run_once(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one run of ``argv``; its output is discarded."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=out)
        # wait4 gives this child's own resource use (RUSAGE_CHILDREN would
        # give the largest of every child so far).
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            out.seek(0)
            raise SystemExit(f"{shlex.join(argv)} exited {proc.returncode}:\n{out.read().decode()}")
    return elapsed, usage.ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each case (default 15)")
    parser.add_argument(
        "--cli",
        default=f"{shlex.quote(sys.executable)} -m ncu_roofline",
        help="how to start the command line (default: this interpreter, -m ncu_roofline)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)

    cli = shlex.split(args.cli)
    cases = [
        Case('python -c "pass"', [sys.executable, "-c", "pass"], None, [], []),
        Case('python -c "import pandas"', [sys.executable, "-c", "import pandas"], None, [], []),
        *(
            Case(shlex.join(["ncu-roofline", *cmd]), [*cli, *cmd], goal, [], [])
            for cmd, goal in COMMANDS
        ),
    ]
    for case in cases:  # one warm-up run each: the files in the page cache
        _run_once(case.argv)
    for _ in range(args.repeat):
        for case in cases:
            seconds, peak = _run_once(case.argv)
            case.seconds.append(seconds)
            case.peak_mb.append(peak)

    pandas_s = min(cases[1].seconds)
    print(f"best of {args.repeat} interleaved runs; goal <= {GOAL_RATIO}x import pandas")
    print(f"  {'what':<52} {'best s':>7} {'median s':>8} {'peak MB':>8} {'/ pandas':>9}")
    missed = []
    for case in cases:
        best = min(case.seconds)
        median = sorted(case.seconds)[len(case.seconds) // 2]
        ratio = best / pandas_s
        verdict = {None: "", False: "(no goal)", True: "met"}[case.goal]
        if case.goal and ratio > GOAL_RATIO:
            verdict = "MISSED"
            missed.append(case.label)
        print(
            f"  {case.label:<52} {best:7.3f} {median:8.3f} {max(case.peak_mb):8.0f}"
            f" {ratio:8.2f}x {verdict}"
        )
    if args.check and missed:
        print(f"goal missed: {', '.join(missed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
