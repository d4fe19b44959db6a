"""``tomllib`` on every supported Python (``tomli`` before 3.11)."""

from __future__ import annotations

import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    # tomli is installed only on Python < 3.11, so mypy (which checks this
    # branch for python_version 3.10) may not find it in a newer environment.
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

__all__ = ["tomllib"]
