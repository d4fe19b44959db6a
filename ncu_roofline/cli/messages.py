"""What the commands say on stderr: warnings, the written-file line, tripped gates.

Design: every line starts with the program's name so it stands out in CI
logs; stdout carries only documents, never these lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from ncu_roofline.errors import GATE_TRIPPED
from ncu_roofline.render.format import plural
from ncu_roofline.render.output import Document, write_output
from ncu_roofline.render.safe_text import terminal_safe
from ncu_roofline.version import NAME

if TYPE_CHECKING:
    from ncu_roofline.core.hardware import GpuLookup
    from ncu_roofline.report.gates import Gate
    from ncu_roofline.report.schema import FindingRecord, GateRecord, InputRecord, ReportContext

# The findings catalogue and the gates are imported where used: every
# command imports this module, most never print a finding.

PROG = NAME

#: Tripped gates listed one per line; the rest are counted (the output has them all).
_MAX_TRIPPED_LINES = 20


#: The open :func:`recording` lists: each warning and note is added to all of them.
_RECORDINGS: list[list[list[str]]] = []


def warn(message: str) -> None:
    """One warning line on stderr (made terminal-safe: it may quote kernel names)."""
    _say("warning", message)


def note(message: str) -> None:
    """One informational line on stderr."""
    _say("note", message)


def _say(kind: str, message: str) -> None:
    for said in _RECORDINGS:
        said.append([kind, message])
    click.echo(f"{PROG}: {kind}: {terminal_safe(message)}", err=True)


@contextmanager
def recording() -> Iterator[list[list[str]]]:
    """The warnings and notes said inside the block, as ``[kind, message]`` pairs, in order.

    What a cached report replays (:func:`replay`), so that a run served from
    the report cache says what the run that made it said.
    """
    said: list[list[str]] = []
    _RECORDINGS.append(said)
    try:
        yield said
    finally:
        _RECORDINGS.remove(said)


@contextmanager
def unrecorded() -> Iterator[None]:
    """Lines said inside the block go to no open :func:`recording`."""
    paused = _RECORDINGS[:]
    _RECORDINGS.clear()
    try:
        yield
    finally:
        _RECORDINGS[:0] = paused


def placeholder(kind: str) -> None:
    """Mark a place in the open recordings (nothing is said): :func:`replay` calls its
    ``fills[kind]`` there, for lines that depend on more than what was recorded."""
    for said in _RECORDINGS:
        said.append([kind, ""])


def replay(
    said: Sequence[Sequence[str]], fills: Mapping[str, Callable[[], None]] | None = None
) -> None:
    """Say again the lines a :func:`recording` took; at a :func:`placeholder`, call its fill.

    Unknown kinds are said as notes; a placeholder without a fill says nothing.
    """
    for kind, message in said:
        if kind in (fills or {}):
            (fills or {})[kind]()
        elif kind == "warning":
            warn(message)
        elif message:
            note(message)


def error(message: str) -> None:
    """One error line on stderr (the exit code is the caller's)."""
    click.echo(f"{PROG}: error: {terminal_safe(message)}", err=True)


def note_gpu_alias(*lookups: GpuLookup | None) -> None:
    """Say on stderr what each --gpu shorthand (``a100``, ``5090``) resolved to, once per name."""
    for lookup in {lk.asked: lk for lk in lookups if lk is not None}.values():
        said = lookup.describe()
        if said:
            note(said)


def print_warnings(context: ReportContext) -> None:
    """Input warnings and warning findings of one report context, on stderr."""
    print_input_warnings(context["inputs"], context["findings"])


def print_input_warnings(inputs: Sequence[InputRecord], findings: Sequence[FindingRecord]) -> None:
    """Each input's warnings, then the findings whose kind is shown on stderr.

    Those are the findings of severity warning and worse whose kind allows it.
    """
    from ncu_roofline.analysis.catalogue import CATALOGUE, SEVERITIES

    shown = SEVERITIES[: SEVERITIES.index("warning") + 1]
    for item in inputs:
        for w in item["warnings"]:
            warn(f"{item['path']}: {w}")
    for finding in findings:
        if finding["severity"] in shown and CATALOGUE[finding["kind"]].on_stderr:
            warn(finding["message"])


def warn_gates_without_theory(gates: list[Gate], has_theory: bool) -> None:
    """Warn about gates that need theory when none was given: they can never trip."""
    from ncu_roofline.report.gates import theory_gates_without_theory

    for rule in theory_gates_without_theory(gates, has_theory):
        warn(f"--fail-on {rule} can never trip without --theory or --model")


def emit(data: Document, output: str | None, force: bool, description: str) -> None:
    """Write a document to stdout or ``output``; for a file, say where and what."""
    if write_output(data, output, force=force):
        click.echo(f"{PROG}: wrote {terminal_safe(output)} {description}", err=True)


def exit_on_tripped(tripped: list[GateRecord]) -> None:
    """List tripped gates and exit 3 (the output is already written); nothing if none."""
    if not tripped:
        return
    for t in tripped[:_MAX_TRIPPED_LINES]:
        warn(f"gate {t['rule']} tripped: {t['message']}")
    if len(tripped) > _MAX_TRIPPED_LINES:
        warn(f"... and {len(tripped) - _MAX_TRIPPED_LINES} more tripped gates (see the output)")
    click.echo(f"{PROG}: {plural(len(tripped), 'gate')} tripped", err=True)
    click.get_current_context().exit(GATE_TRIPPED)
