"""Writing outputs: standard output for ``-``, else a file, never over anything unasked.

Design: a command checks its output with :func:`refuse_existing` before any
work (an analysis can take minutes; refusing afterwards would waste it) and
writes with :func:`write_output` at the end.  What happens to each kind of
target (the README's "Output guarantees" says the same):

* Nothing there: the document is written to a hidden temporary file in the
  same directory, then linked into place with ``os.link``, which fails when
  the name appeared meanwhile, so of two runs racing for one name exactly
  one wins and the other gets "already exists".  On a filesystem without
  hard links the name is claimed with ``O_CREAT | O_EXCL`` and the temporary
  file renamed over the claim.  A new file's mode is 0o666 less the umask.
* Anything there without ``--force`` (a file, a directory, a device, a FIFO,
  a symbolic link, even a dangling one): refused.
* With ``--force``:

  - a regular file is replaced by a rename (a reader never sees half a
    report, a failed run keeps the old one), keeping its permission bits
    (rwx for owner, group and others) and, where allowed, owner and group;
  - a symbolic link is followed and what it leads to handled by these rules:
    a regular file is replaced in its own directory, a dangling link's
    target is created; the link itself is never replaced;
  - a FIFO whose reader is waiting, the null device, or the terminal the
    command runs in is written through: opened and written, no rename,
    nothing created.  A FIFO without a reader is refused, not waited on;
  - anything else (a directory, a disk or other device, a socket) is refused.

A document is ``str``, ``bytes`` or an iterable of such pieces, written as
they come (a large JSON report is encoded while it is written): a failure
or signal part-way through a file leaves only the temporary file, which is
removed, so the target is never half-written.  A temporary file's name
holds the target's name, a tag of this host and the writing process's id
(``.report.html.1a2b3c4d-4242.9f8e7d6c.tmp``): one left by a process killed
outright (SIGKILL, a crash) is removed by the next write of the same target
once that process no longer exists on this host and the file has not
changed for a minute; another user's, or a live process's, is never touched.

What was written to standard output, a FIFO or a device cannot be taken
back: when such a write fails after some bytes went out, the error (or, for
a failure that is not the write's, a warning line on stderr) says "the
output on ... is incomplete: N bytes were written before the error", so
whoever reads it knows the document is cut short.  A reader that closed its
pipe is told nothing: it left.

Refusals and failures are :class:`~ncu_roofline.errors.OutputError` (exit 5).
A signal while writing removes the temporary file
(:mod:`ncu_roofline.interrupts`).  Standard output that cannot be written is
an OutputError too; a closed pipe is
:class:`~ncu_roofline.interrupts.StdoutClosed`, which ends the run quietly.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import os
import re
import stat
import sys
import threading
import time
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import click

from ncu_roofline import interrupts
from ncu_roofline.core.limits import address_space_limited
from ncu_roofline.errors import OutputError
from ncu_roofline.version import NAME

__all__ = [
    "Document",
    "is_stdout",
    "refuse_existing",
    "stdout_unwritable",
    "write_atomic",
    "write_output",
]

#: What is written: the whole document, or its pieces in order.
Document = str | bytes | Iterable[str | bytes]

#: Errors of ``os.link`` that mean "this filesystem has no hard links", not "cannot write".
_NO_HARD_LINKS = frozenset(
    getattr(errno, name)
    for name in ("EPERM", "EOPNOTSUPP", "ENOTSUP", "EMLINK", "ENOSYS", "EXDEV")
    if hasattr(errno, name)
)

#: Flags for a file only this run may have created (never follows a planted link).
_EXCLUSIVE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)

#: Flags for writing through: never create, never wait for a FIFO's reader, never
#: make a terminal the controlling one.
_THROUGH = (
    os.O_WRONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


#: Longest part of the target's name in a temporary file's name (bytes): the
#: rest (host tag, process id, random tag) fits within a 255-byte name.
_TEMP_STEM_BYTES = 200
#: What follows ``.NAME.`` in a temporary file's name: host tag, process id, random tag.
_TEMP_TAIL = re.compile(r"(?P<host>[0-9a-f]{8})-(?P<pid>[1-9][0-9]{0,9})\.[0-9a-f]{8}\.tmp")
#: Seconds a dead process's temporary file must have been left alone before it is removed.
STALE_TEMP_AGE_S = 60.0


def is_stdout(path: str | None) -> bool:
    """Whether ``path`` names standard output: no output given, or ``-``."""
    return path is None or path == "-"


@dataclass(frozen=True)
class _Plan:
    """How one output is written: ``new`` file, ``replace`` a file, write ``through``, or
    to this run's own ``stream`` (a link to the file stdout already writes)."""

    path: Path
    how: str
    existing: os.stat_result | None = None


def _exists(target: str | os.PathLike[str]) -> OutputError:
    return OutputError(f"{target}: already exists (use --force to overwrite)")


def _cannot(target: str | os.PathLike[str], exc: OSError, written: int = 0) -> OutputError:
    return OutputError(
        f"{target}: cannot write ({exc.strerror or exc})" + _incomplete(str(target), written, "; ")
    )


def refuse_existing(path: str | None, force: bool) -> None:
    """Refuse, before any work, an output that :func:`write_output` would refuse.

    Without ``force`` anything at ``path`` is refused, a dangling symbolic
    link included; with it, only what can never be written (a directory, a
    disk, a socket).  A missing directory is refused either way.  Standard
    output is never refused.
    """
    if path and not is_stdout(path):
        _plan(path, force)


def write_output(data: Document, path: str | None, force: bool = False) -> bool:
    """Write ``data`` to standard output (``path`` None or ``-``) or to the file ``path``.

    Returns whether a file was written.  Standard output gets the text as it
    is, as UTF-8; a failed write there is an OutputError, a closed pipe
    :class:`~ncu_roofline.interrupts.StdoutClosed`.
    """
    if path is None or is_stdout(path):
        written = _Written("standard output")
        try:
            with written.warn_if_cut():
                _write_stdout(data, written)
        except BrokenPipeError:
            raise interrupts.StdoutClosed() from None
        except OSError as exc:
            raise stdout_unwritable(exc, written.bytes) from None
        return False
    write_atomic(path, data, force=force)
    return True


def stdout_unwritable(exc: OSError, written: int = 0) -> OutputError:
    """The output error of a write to standard output that failed with ``exc``.

    ``written`` bytes had gone out before it: the error says the output is incomplete.
    """
    return OutputError(
        f"standard output: cannot write ({exc.strerror or exc})"
        + _incomplete("standard output", written, "; ")
    )


def _incomplete(where: str, written: int, lead: str = "") -> str:
    """What to say of a write to ``where`` cut short after ``written`` bytes ("" for none)."""
    if written <= 0:
        return ""
    noun = "byte was" if written == 1 else "bytes were"
    return f"{lead}the output on {where} is incomplete: {written:,} {noun} written before the error"


class _Written:
    """Bytes written to a target that cannot be taken back (standard output, a FIFO)."""

    def __init__(self, where: str | os.PathLike[str]) -> None:
        self.where = str(where)
        self.bytes = 0

    @contextlib.contextmanager
    def warn_if_cut(self) -> Iterator[None]:
        """Say on stderr, for a failure that is not the write's own, that the output is cut short.

        The write's own errors (``OSError``) say it in their message; a reader
        that closed its pipe (a broken pipe) has left and is told nothing.
        """
        try:
            yield
        except (OSError, interrupts.StdoutClosed):
            raise
        except BaseException:
            if self.bytes:
                with contextlib.suppress(Exception):
                    click.echo(f"{NAME}: warning: {_incomplete(self.where, self.bytes)}", err=True)
            raise


def write_atomic(path: str | os.PathLike[str], data: Document, force: bool = False) -> Path:
    """Write ``data`` to ``path`` by the rules of this module's docstring; return what was written.

    A regular file is written through a temporary file and a rename (or an
    exclusive link, for a new one), so a reader never sees a half-written
    file and a failed run leaves any previous output intact.  The path
    returned is the file written: a symbolic link's target, not the link.
    """
    plan = _plan(path, force)
    payload = _pieces(data)
    if plan.how == "stream":
        _write_stream(plan, payload)
    elif plan.how == "through":
        _write_through(plan, payload)
    else:
        _write_file(plan, payload)
    return plan.path


def _own_stream(found: os.stat_result) -> int | None:
    """The descriptor (1 or 2) of this run's own stdout or stderr when ``found`` is its file."""
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            if _same_node(os.fstat(fd), found):
                return fd
    return None


def _pieces(data: Document) -> Iterator[bytes]:
    """The document as UTF-8 byte pieces, in order."""
    for piece in (data,) if isinstance(data, (str, bytes)) else data:
        yield piece.encode("utf-8") if isinstance(piece, str) else piece


def _write_stream(plan: _Plan, payload: Iterable[bytes]) -> None:
    """``-o /dev/stdout`` (or a link to it) naming the file stdout already writes to
    (``>> log``): write to the descriptor, as the shell set it up (appending),
    never replace the file under it."""
    fd = _own_stream(plan.existing) if plan.existing is not None else None
    if fd is None:
        raise OutputError(f"{plan.path}: changed while being opened; nothing written")
    written = _Written(plan.path)
    try:
        with written.warn_if_cut():
            if fd == 1:
                sys.stdout.flush()
            _write_all(fd, payload, written)
    except OSError as exc:
        raise _cannot(plan.path, exc, written.bytes) from None


def _write_stdout(data: Document, written: _Written) -> None:
    """The document on standard output: straight to its descriptor where it has one.

    Python's buffered stdout can drop the rest of a large write silently
    when the reader leaves mid-write (a short write, then nothing); writing
    the descriptor until all is taken always sees the broken pipe.  A stream
    with no descriptor (a test's capture) gets ``click.echo``.
    """
    stream = sys.stdout
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        # Pieces may split a character: decode incrementally.
        decoder = codecs.getincrementaldecoder("utf-8")()
        for piece in _pieces(data):
            click.echo(decoder.decode(piece), nl=False)
            written.bytes += len(piece)
        click.echo(decoder.decode(b"", final=True), nl=False)
        return
    stream.flush()
    _write_all(fd, _pieces(data), written)


def _write_all(fd: int, payload: Iterable[bytes], written: _Written) -> None:
    for piece in payload:
        view = memoryview(piece)
        while view:
            n = os.write(fd, view)
            written.bytes += n
            view = view[n:]


# --- what the target is ------------------------------------------------------------


def _plan(path: str | os.PathLike[str], force: bool) -> _Plan:
    target = Path(path)
    try:
        found = os.lstat(target)
    except FileNotFoundError:
        return _new(target, target)
    except OSError as exc:
        raise _cannot(target, exc) from None
    if not force:
        raise _exists(target)
    if stat.S_ISLNK(found.st_mode):
        return _follow(target)
    return _by_kind(target, found)


def _new(target: Path, shown: Path) -> _Plan:
    parent = target.parent
    if not parent.is_dir():
        raise OutputError(f"{shown}: directory {parent} does not exist")
    return _Plan(target, "new")


def _follow(link: Path) -> _Plan:
    """A symbolic link under ``--force``: the rules apply to what it leads to."""
    try:
        found = os.stat(link)
    except FileNotFoundError:
        # Dangling: the file it names is created, as a shell's `>` would.
        return _new(Path(os.path.realpath(link)), link)
    except OSError as exc:
        raise OutputError(f"{link}: cannot follow the symbolic link ({exc.strerror})") from None
    if not stat.S_ISREG(found.st_mode):
        # Writing through opens the link, which follows it.
        return _by_kind(link, found)
    if _own_stream(found) is not None:
        return _Plan(link, "stream", found)
    real = Path(os.path.realpath(link))
    try:
        at_real = os.lstat(real)
    except OSError:
        at_real = None
    if at_real is None or not _same_node(at_real, found):
        # e.g. /proc/self/fd/1 naming a deleted file: there is no path to rename onto.
        raise OutputError(f"{link}: the symbolic link leads to a file with no path to replace")
    return _Plan(real, "replace", found)


def _by_kind(target: Path, found: os.stat_result) -> _Plan:
    mode = found.st_mode
    if stat.S_ISREG(mode):
        return _Plan(target, "replace", found)
    if stat.S_ISDIR(mode):
        raise OutputError(f"{target}: is a directory")
    if stat.S_ISFIFO(mode) or (stat.S_ISCHR(mode) and found.st_rdev in _safe_devices()):
        return _Plan(target, "through", found)
    raise OutputError(
        f"{target}: is {_kind(mode)}; only a regular file, a FIFO, the null device "
        "or this terminal is written"
    )


def _kind(mode: int) -> str:
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _safe_devices() -> set[int]:
    """Device numbers safe to write a document to: the null device and this run's terminal.

    Any other character device (a serial port, a flash chip, /dev/full, a
    SCSI generic node) could take bytes as commands, so it is refused.
    """
    safe: set[int] = set()
    for name in (os.devnull, "/dev/tty"):
        with contextlib.suppress(OSError):
            found = os.stat(name)
            if stat.S_ISCHR(found.st_mode):
                safe.add(found.st_rdev)
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            found = os.fstat(fd)
            if stat.S_ISCHR(found.st_mode) and os.isatty(fd):
                safe.add(found.st_rdev)
    return safe


def _same_node(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino, stat.S_IFMT(a.st_mode)) == (
        b.st_dev,
        b.st_ino,
        stat.S_IFMT(b.st_mode),
    )


# --- writing -----------------------------------------------------------------------


def _write_through(plan: _Plan, payload: Iterable[bytes]) -> None:
    """Open the FIFO or device and write; nothing is created or renamed."""
    try:
        fd = os.open(plan.path, _THROUGH)
    except OSError as exc:
        if exc.errno == errno.ENXIO and plan.existing and stat.S_ISFIFO(plan.existing.st_mode):
            raise OutputError(
                f"{plan.path}: a FIFO with no reader (start the reader first)"
            ) from None
        raise _cannot(plan.path, exc) from None
    written = _Written(plan.path)
    try:
        # Swapped for something else between the check and the open: write nothing.
        if plan.existing is None or not _same_node(os.fstat(fd), plan.existing):
            raise OutputError(f"{plan.path}: changed while being opened; nothing written")
        os.set_blocking(fd, True)
        with written.warn_if_cut():
            _write_all(fd, payload, written)
    except OSError as exc:
        raise _cannot(plan.path, exc, written.bytes) from None
    finally:
        os.close(fd)


def _write_file(plan: _Plan, payload: Iterable[bytes]) -> None:
    """Write a temporary file beside the target, then link (new) or rename (replace) it there."""
    target = plan.path
    tmp: Path | None = None
    _remove_stale_temps(target)
    try:
        # A signal between creating the file and knowing its name would leak it.
        with interrupts.deferred():
            fd, tmp = _create_temp(target)
            fh = os.fdopen(fd, "wb")
        with fh:
            if plan.existing is not None:
                _keep_owner_and_mode(tmp, plan.existing)
            _write_behind(fh, payload)
            fh.flush()
            os.fsync(fh.fileno())
        if plan.existing is None:
            _link_new(tmp, target)
        else:
            os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        _discard(tmp)
        raise _cannot(target, exc) from None
    except BaseException:
        _discard(tmp)
        raise


def _write_behind(fh: BinaryIO, payload: Iterable[bytes]) -> None:
    """Write the pieces to ``fh`` in order, each one on a thread while the next is made.

    A large document is made in Python a piece at a time (a JSON report:
    hundreds of megabytes), and writing a piece is a system call that lets
    go of the interpreter: on a second core the write of one piece overlaps
    making the next (a 190 MB report: 0.4 s of writing hidden).  One write
    is in flight at a time, so at most two pieces are held; the first error
    of a write is raised here, after the write in flight has ended.  Where no
    thread can be started, and under an address-space limit (where starting
    one can abort the process), the pieces are written here instead.
    """
    if address_space_limited():
        # Under ``ulimit -v`` a thread's start can abort the process (its
        # stack or unwinder not mapped) rather than raise: written here.
        for piece in payload:
            fh.write(piece)
        return
    failed: list[BaseException] = []

    def write(piece: bytes) -> None:
        try:
            fh.write(piece)
        except BaseException as exc:  # raised again by the thread making the pieces
            failed.append(exc)

    writer: threading.Thread | None = None
    try:
        for piece in payload:
            if writer is not None:
                writer.join()
                writer = None
            if failed:
                raise failed[0]
            thread = threading.Thread(
                target=write, args=(piece,), name=f"{NAME}-write", daemon=True
            )
            try:
                thread.start()
            except RuntimeError:  # no room for the thread's stack
                fh.write(piece)
                continue
            writer = thread
    except Exception:
        if writer is not None:
            writer.join()
        if failed:
            # The write failed first: making the next piece would not have begun.
            raise failed[0] from None
        raise
    finally:
        # Never leave a write running on a file about to be closed and removed.
        if writer is not None:
            writer.join()
    if failed:
        raise failed[0]


def _create_temp(target: Path) -> tuple[int, Path]:
    """A new hidden file beside ``target``, mode 0o666 less the umask (``mkstemp`` makes 0o600).

    Its name says which target, host and process it is for (the module's docstring).
    """
    prefix = f".{_temp_stem(target)}.{_host_tag()}-{os.getpid()}."
    for _ in range(100):
        tmp = target.parent / f"{prefix}{os.urandom(4).hex()}.tmp"
        try:
            return os.open(tmp, _EXCLUSIVE, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(target.parent))


def _temp_stem(target: Path) -> str:
    """The target's name as its temporary files begin with it: cut to leave room for the tail."""
    stem = target.name
    while len(os.fsencode(stem)) > _TEMP_STEM_BYTES:
        stem = stem[:-1]
    return stem


def _host_tag() -> str:
    """Eight hex digits naming this host, so that process ids are only judged where they live."""
    node = os.uname().nodename if hasattr(os, "uname") else os.environ.get("COMPUTERNAME", "")
    return f"{zlib.crc32(node.encode('utf-8', 'surrogateescape')):08x}"


def _pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists on this host (another user's counts: it exists)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):
        return True
    return True


def _remove_stale_temps(target: Path) -> None:
    """Remove the temporary files of ``target`` left by this user's processes that are gone.

    Only on POSIX (where signal 0 asks whether a process exists); only files
    named by this host, owned by this user, whose process no longer exists,
    and unchanged for :data:`STALE_TEMP_AGE_S` seconds.  Anything unexpected
    leaves the file alone: this is tidying, never a reason to fail a write.
    """
    if os.name != "posix":
        return
    prefix = f".{_temp_stem(target)}."
    host, uid = _host_tag(), os.geteuid()
    now = time.time()
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        name = entry.name
        tail = _TEMP_TAIL.fullmatch(name[len(prefix) :]) if name.startswith(prefix) else None
        if tail is None or tail.group("host") != host:
            continue
        with contextlib.suppress(OSError):
            found = entry.stat(follow_symlinks=False)
            if (
                stat.S_ISREG(found.st_mode)
                and found.st_uid == uid
                and now - found.st_mtime >= STALE_TEMP_AGE_S
                and not _pid_alive(int(tail.group("pid")))
            ):
                os.unlink(entry.path)


def _keep_owner_and_mode(tmp: Path, existing: os.stat_result) -> None:
    """Give the replacement the old file's permission bits and, where allowed, owner and group."""
    if hasattr(os, "chown"):
        mine = os.stat(tmp)
        if (mine.st_uid, mine.st_gid) != (existing.st_uid, existing.st_gid):
            try:
                os.chown(tmp, existing.st_uid, existing.st_gid)
            except OSError:
                # Another user's file: keep at least its group where this user is in it.
                with contextlib.suppress(OSError):
                    os.chown(tmp, -1, existing.st_gid)
    os.chmod(tmp, stat.S_IMODE(existing.st_mode) & 0o777)


def _link_new(tmp: Path, target: Path) -> None:
    """Put ``tmp`` at ``target`` only if nothing is there: the exclusive last step."""
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise _exists(target) from None
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        _claim_and_replace(tmp, target)
        return
    os.unlink(tmp)


def _claim_and_replace(tmp: Path, target: Path) -> None:
    """Without hard links: claim the name exclusively, then rename the full file over the claim."""
    with interrupts.deferred():
        try:
            os.close(os.open(target, _EXCLUSIVE, 0o666))
        except FileExistsError:
            raise _exists(target) from None
        try:
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(target)
            raise


def _discard(tmp: Path | None) -> None:
    """Remove a temporary file, not to be cut short by a signal."""
    if tmp is None:
        return
    # Already gone (renamed into place) or not removable: nothing more to do.
    with interrupts.deferred(), contextlib.suppress(OSError):
        os.unlink(tmp)
