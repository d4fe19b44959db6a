"""Writing outputs: standard output for ``-``, else atomically, never over a file unasked.

Design: a command checks its output with :func:`refuse_existing` before any
work (an analysis can take minutes; refusing afterwards would waste it) and
writes with :func:`write_output` at the end.  A file is written through a
temporary file and a rename (:func:`write_atomic`), so a reader never sees a
half-written report and an interrupted run keeps the previous one.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import click

from ncu_roofline.errors import OutputError

__all__ = ["is_stdout", "refuse_existing", "write_atomic", "write_output"]


def is_stdout(path: str | None) -> bool:
    """Whether ``path`` names standard output: no output given, or ``-``."""
    return path is None or path == "-"


def _exists(target: str | os.PathLike[str]) -> OutputError:
    return OutputError(f"{target}: already exists (use --force to overwrite)")


def refuse_existing(path: str | None, force: bool) -> None:
    """Refuse an existing output file unless ``force`` (standard output is never refused)."""
    if path and not is_stdout(path) and not force and os.path.exists(path):
        raise _exists(path)


def write_output(data: str | bytes, path: str | None, force: bool = False) -> bool:
    """Write ``data`` to standard output (``path`` None or ``-``) or atomically to ``path``.

    Returns whether a file was written.  Standard output gets the text as it
    is (bytes as UTF-8), through ``click.echo`` like every other line the
    command line prints.
    """
    if path is None or is_stdout(path):
        click.echo(data if isinstance(data, str) else data.decode("utf-8"), nl=False)
        return False
    write_atomic(path, data, force=force)
    return True


def write_atomic(path: str | os.PathLike[str], data: str | bytes, force: bool = False) -> Path:
    """Write ``data`` to ``path`` via a temporary file and a rename.

    A reader never sees a half-written file, and an interrupted run leaves
    any previous output intact.  An existing file is refused unless ``force``.
    """
    target = Path(path)
    if target.exists() and not force:
        raise _exists(target)
    if target.is_dir():
        raise OutputError(f"{target}: is a directory")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"{target}: directory {parent} does not exist")
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write ({exc.strerror})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise OutputError(f"{target}: cannot write ({exc.strerror})") from None
    return target
