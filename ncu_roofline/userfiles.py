"""Reading the small text files users give the tool (roofs, model configs).

One place turns the ways a read can fail into the documented errors: a
missing, unreadable or directory path is InputNotFoundError, a file that is
not UTF-8 text is InputFormatError.
"""

from __future__ import annotations

import os
from pathlib import Path

from ncu_roofline.errors import InputFormatError, InputNotFoundError


def read_user_text(path: str | os.PathLike[str], what: str, directory: str | None = None) -> str:
    """The UTF-8 text of ``path``; ``what`` names the file in messages.

    ``directory`` replaces the message for a path that is a directory.
    """
    label = os.fspath(path)
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InputNotFoundError(f"{label}: no such {what}") from exc
    except IsADirectoryError as exc:
        raise InputNotFoundError(
            f"{label}: {directory or f'is a directory, expected a {what}'}"
        ) from exc
    except PermissionError as exc:
        raise InputNotFoundError(f"{label}: cannot be read (permission denied)") from exc
    except UnicodeDecodeError as exc:
        raise InputFormatError(f"{label}: not a UTF-8 text file") from exc
