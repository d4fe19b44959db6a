"""Writing outputs: atomically, and never over an existing file without ``force``."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ncu_roofline.errors import OutputError


def write_atomic(path: str | os.PathLike[str], data: str | bytes, force: bool = False) -> Path:
    """Write ``data`` to ``path`` via a temporary file and a rename.

    A reader never sees a half-written file, and an interrupted run leaves
    any previous output intact.  An existing file is refused unless ``force``.
    """
    target = Path(path)
    if target.exists() and not force:
        raise OutputError(f"{target}: already exists (use --force to overwrite)")
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
