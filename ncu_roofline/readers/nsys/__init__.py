"""Readers for Nsight Systems (nsys) output, filling the timeline model.

:func:`load_timeline` reads one or more inputs into one
:class:`~ncu_roofline.core.timeline.Timeline`; :func:`is_nsys_input` tells,
from a file's first bytes, whether it is one (so the command line can route
it away from the ncu readers).  Inputs:

* CSV from ``nsys stats --format csv``: one report per file (``--output``)
  or several in one stream as printed to stdout (:mod:`.stream`), each
  report recognised by its header (:mod:`.reports`, :mod:`.columns`);
* the SQLite export, ``nsys export --type sqlite`` (:mod:`.sqlite`);
* an ``.nsys-rep`` capture, exported with ``nsys`` when it is on the PATH
  (:mod:`.rep`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from os import PathLike

from ncu_roofline.core.timeline import Timeline
from ncu_roofline.errors import InputNotFoundError
from ncu_roofline.readers.nsys.columns import key_of
from ncu_roofline.readers.nsys.csvinput import read_csv_reports
from ncu_roofline.readers.nsys.rep import REP_SUFFIXES, read_nsys_rep
from ncu_roofline.readers.nsys.reports import candidates
from ncu_roofline.readers.nsys.sqlite import SQLITE_MAGIC, read_sqlite
from ncu_roofline.readers.nsys.stream import blocks, header_cells

__all__ = ["is_nsys_input", "load_timeline", "read_timeline"]

#: How much of a file :func:`is_nsys_input` reads.
_SNIFF_BYTES = 1 << 16


def is_nsys_input(path: str | PathLike[str]) -> bool:
    """True when ``path`` looks like nsys output: an ``.nsys-rep``, an SQLite file, or report CSV.

    Cheap: the name and at most the first 64 KiB are read.  A path that
    cannot be read is not claimed (the ncu reader then says why).
    """
    name = os.fspath(path)
    if name.endswith(REP_SUFFIXES):
        return True
    try:
        with open(name, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    if head.startswith(SQLITE_MAGIC):
        return True
    if b"\n" in head and len(head) == _SNIFF_BYTES:
        # Only whole lines: the last may be cut by the read.
        head = head[: head.rfind(b"\n") + 1]
    for block in blocks(head):
        keys = {k for k in (key_of(c) for c in header_cells(head, block)) if k is not None}
        if candidates(keys):
            return True
    return False


def read_timeline(path: str | PathLike[str]) -> Timeline:
    """Read one nsys input (report CSV, SQLite export or ``.nsys-rep``) into a timeline."""
    name = os.fspath(path)
    if not os.path.exists(name):
        raise InputNotFoundError(f"{name}: no such file")
    if os.path.isdir(name):
        raise InputNotFoundError(f"{name}: is a folder, not a file")
    if name.endswith(REP_SUFFIXES):
        return read_nsys_rep(name)
    try:
        with open(name, "rb") as fh:
            buf = fh.read()
    except OSError as exc:
        raise InputNotFoundError(f"{name}: cannot be read ({exc.strerror or exc})") from None
    if buf.startswith(SQLITE_MAGIC):
        del buf
        return read_sqlite(name)
    return read_csv_reports(name, buf)


def load_timeline(
    paths: str | PathLike[str] | Iterable[str | PathLike[str]],
) -> Timeline:
    """Read one or more nsys inputs into one :class:`Timeline`.

    Each row's ``source`` is the path of the input it came from, so a trace
    CSV and an NVTX CSV of one capture read together stay told apart.

    >>> timeline = load_timeline(["run_cuda_gpu_trace.csv", "run_nvtx_pushpop_trace.csv"])  # doctest: +SKIP
    >>> timeline.activities[["name", "start_ns", "end_ns"]]  # doctest: +SKIP
    """
    items = [paths] if isinstance(paths, (str, PathLike)) else list(paths)
    return Timeline.concat([read_timeline(p) for p in items])
