"""How a run ends from outside: SIGINT, SIGTERM, SIGHUP, or a reader closing its pipe.

Design: Python turns SIGINT into ``KeyboardInterrupt`` but lets SIGTERM and
SIGHUP kill the process at once, skipping every ``finally``, so a write cut
short would leave its hidden temporary file behind.  :func:`install` makes all
three raise :class:`Interrupted`, which unwinds through the cleanup like any
exception.  It is not a ``KeyboardInterrupt`` on purpose: click turns that
into ``Abort`` after printing a blank line, and the run must end with one line.
:class:`Interrupted` derives from ``BaseException`` so that no ``except
Exception`` on the way mistakes it for an error to report.

:func:`deferred` holds a signal back over a few statements that must not be
split (creating a temporary file and remembering its name; removing it): the
signal is raised when the block ends.  It only defers signals that reach the
handlers :func:`install` set; a library caller without them gets Python's
usual ``KeyboardInterrupt``.

:func:`end` is the one place that turns either exception into the message
and the exit code (128 + the signal's number, as a shell reports it; a closed
standard output is 141, SIGPIPE's, and says nothing).  This module imports no
stage, so the thin entry wrapper can install the handlers before the
command line's heavy imports.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType
from typing import NoReturn

from ncu_roofline.version import NAME

__all__ = [
    "ClosedStdout",
    "Interrupted",
    "StdoutClosed",
    "deferred",
    "end",
    "guard_closed_stdout",
    "ignore",
    "install",
    "settle_stdout",
]

#: SIGPIPE's number; a closed standard output ends as a process killed by it would.
_SIGPIPE = int(getattr(signal, "SIGPIPE", 13))

#: The signals that end a run through its cleanup, where the platform has them.
SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Interrupted(BaseException):
    """The run was ended from outside; ``exit_code`` is 128 + the signal's number."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.exit_code = 128 + signum
        super().__init__(_signal_name(signum))


class StdoutClosed(Interrupted):
    """Standard output's reader went away (a broken pipe): the run ends quietly."""

    def __init__(self) -> None:
        super().__init__(_SIGPIPE)


def _signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


_depth = 0
_pending: int | None = None


def _handle(signum: int, frame: FrameType | None) -> None:
    global _pending
    if _depth:
        # Inside a deferred block: remember the first signal, raise it at the block's end.
        if _pending is None:
            _pending = signum
        return
    raise Interrupted(signum)


def install() -> None:
    """Make SIGINT, SIGTERM and SIGHUP raise :class:`Interrupted` in the main thread.

    A signal the parent set to be ignored (``nohup``, a background job's
    SIGINT) stays ignored.
    """
    for sig in SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, _handle)


def ignore() -> None:
    """Ignore those signals from now on: the run is over and only its exit code is left."""
    for sig in SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            signal.signal(sig, signal.SIG_IGN)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold back the signals :func:`install` handles until the block ends, then raise."""
    global _depth, _pending
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0 and _pending is not None:
            signum, _pending = _pending, None
            raise Interrupted(signum)


def settle_stdout() -> None:
    """Flush standard output; when that fails, point it at the null device.

    The interpreter flushes standard output once more at exit; after a
    closed pipe or a full disk that flush would fail again and print
    "Exception ignored" (exit 120).  Pointing the descriptor at the null
    device lets the buffered rest go nowhere, quietly.
    """
    stream = sys.stdout
    if stream is None:
        return
    try:
        stream.flush()
    except (OSError, ValueError):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, stream.fileno())
            finally:
                os.close(null)


def end(exc: BaseException) -> NoReturn:
    """Say how the run was ended (one line, none for a closed stdout) and exit with its code."""
    # A second signal while saying so must not turn into a traceback.
    ignore()
    signum = exc.signum if isinstance(exc, Interrupted) else int(signal.SIGINT)
    settle_stdout()
    if not isinstance(exc, StdoutClosed):
        said = "interrupted" if signum == signal.SIGINT else f"terminated ({_signal_name(signum)})"
        with contextlib.suppress(OSError, ValueError):
            print(f"{NAME}: {said}", file=sys.stderr, flush=True)
    sys.exit(128 + signum)


class ClosedStdout(io.TextIOBase):
    """Standard output when the process started with descriptor 1 closed.

    Python then sets ``sys.stdout`` to None, and every print or echo to it
    is dropped without a word: a report "written" to a closed stdout would
    exit 0 having written nothing.  This stand-in makes the first write fail
    as a write to a closed descriptor does (``EBADF``), so the command ends
    with its output error instead.  Flushing has nothing to lose.
    """

    def writable(self) -> bool:
        """Writes are attempted, and fail."""
        return True

    def write(self, text: str) -> int:
        """Refuse ``text``: the descriptor is closed."""
        raise OSError(errno.EBADF, "it is closed")

    def fileno(self) -> int:
        """There is no descriptor to write through."""
        raise OSError(errno.EBADF, "it is closed")

    def flush(self) -> None:
        """Nothing was buffered."""


def guard_closed_stdout() -> None:
    """Give a process started with standard output closed a stdout that says so when written."""
    if sys.stdout is None:
        sys.stdout = ClosedStdout()
