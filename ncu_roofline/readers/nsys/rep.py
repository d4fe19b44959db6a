"""``.nsys-rep`` captures, through ``nsys export --type sqlite``.

The report format is private to Nsight Systems; its own ``nsys`` turns it
into the documented SQLite export, which :mod:`.sqlite` reads.  The export
goes to a temporary folder removed afterwards (never beside the input, which
may be read-only or shared).  Without ``nsys`` on the PATH the error says the
exact command to run where it is installed.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile

from ncu_roofline.core.files import NSYS_REP_SUFFIXES
from ncu_roofline.core.timeline import Timeline
from ncu_roofline.errors import InputFormatError, MissingDependencyError
from ncu_roofline.readers.nsys.sqlite import read_sqlite

__all__ = ["REP_SUFFIXES", "export_command", "read_nsys_rep"]

#: File name endings of nsys captures (``.qdrep`` before nsys 2021.4).
REP_SUFFIXES = NSYS_REP_SUFFIXES


def export_command(path: str, output: str) -> list[str]:
    """The ``nsys export`` command line turning ``path`` into the SQLite file ``output``."""
    return ["nsys", "export", "--type", "sqlite", "--output", output, path]


def _sqlite_name(path: str) -> str:
    base = os.path.basename(path)
    for suffix in REP_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    return (base or "capture") + ".sqlite"


def read_nsys_rep(path: str) -> Timeline:
    """Export ``path`` to SQLite with ``nsys`` and read that; rows' ``source`` is ``path``."""
    nsys = shutil.which("nsys")
    if nsys is None:
        by_hand = shlex.join(export_command(path, _sqlite_name(path)))
        raise MissingDependencyError(
            f"{path}: reading an .nsys-rep capture needs Nsight Systems' `nsys` on the PATH. "
            f"Run `{by_hand}` where nsys is installed and pass the .sqlite file instead"
        )
    with tempfile.TemporaryDirectory(prefix="ncu-roofline-nsys-") as tmp:
        output = os.path.join(tmp, _sqlite_name(path))
        command = [nsys, *export_command(path, output)[1:]]
        try:
            done = subprocess.run(
                command, capture_output=True, text=True, errors="replace", check=False
            )
        except OSError as exc:
            raise MissingDependencyError(f"{path}: `nsys` could not be run ({exc})") from None
        if done.returncode != 0 or not os.path.isfile(output):
            said = (done.stderr or done.stdout).strip().splitlines()[-3:]
            detail = "; ".join(said) or "no message"
            raise InputFormatError(
                f"{path}: `nsys export --type sqlite` failed (exit {done.returncode}): {detail}"
            )
        timeline = read_sqlite(output, label=path)
    for source in timeline.sources:
        source.reports = ["nsys-rep"]
    return timeline
