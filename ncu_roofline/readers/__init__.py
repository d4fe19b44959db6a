"""Readers: every ncu export layout into the one launch model.

:func:`load` is the library entry point; :func:`read_source` reads one input.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from os import PathLike
from typing import TYPE_CHECKING, Any

from ncu_roofline.core.launches import LaunchColumns, finalize_columns
from ncu_roofline.core.model import Profile, SourceInfo, short_names
from ncu_roofline.core.progress import ProgressBar, make_progress
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers import cache as parse_cache
from ncu_roofline.readers.csv_pages import read_long, read_raw
from ncu_roofline.readers.header import detect_layout
from ncu_roofline.readers.integrity import merge_tables
from ncu_roofline.readers.locate import (
    Located,
    RawInput,
    TextOutput,
    is_ncu_rep,
    line_number,
    locate_table,
    locate_tables,
    open_input,
    repaired_utf8,
)
from ncu_roofline.readers.ncurep import read_ncu_rep
from ncu_roofline.readers.parallel import auto_jobs, parallel_safe, read_all, total_size
from ncu_roofline.readers.passes import merge_passes, pass_groups, pass_hint, pass_keys
from ncu_roofline.readers.table import (
    InvalidUtf8,
    MoreTables,
    arrow_signal_thread,
    give_back_memory,
)
from ncu_roofline.readers.text import read_text

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["load", "read_source"]


def read_source(
    path: str,
    progress: bool | None = None,
    bar: ProgressBar | None = None,
    cache: bool = True,
) -> tuple[pd.DataFrame, SourceInfo]:
    """Read one input (a path, ``-`` for stdin, ``.gz`` allowed).

    ``progress``: True forces a bar on stderr, False disables it, None shows
    one for large inputs when stderr is a terminal.  ``bar``: a bar shared
    with other inputs, advanced instead of one of this input's own.
    ``cache``: use the parse cache (:mod:`~ncu_roofline.readers.cache`).
    """
    columns, info = _read_columns(path, progress, bar, cache)
    return columns.to_frame(), info


def _read_columns(
    path: str,
    progress: bool | None = None,
    bar: ProgressBar | None = None,
    cache: bool = True,
) -> tuple[LaunchColumns, SourceInfo]:
    """:func:`read_source`, the launches as columns (no pandas frame built yet).

    With ``cache`` the parse cache is asked first, and a parsed input is
    kept there (:mod:`~ncu_roofline.readers.cache`).
    """
    entry = parse_cache.lookup(path, cache)
    if entry is not None:
        hit = entry.load()
        if hit is not None:
            if bar is not None:
                bar(entry.key["size"])
            return hit
    columns, info = _parse_columns(path, progress, bar)
    if entry is not None:
        entry.store(columns, info)
    return columns, info


def _parse_columns(
    path: str, progress: bool | None, bar: ProgressBar | None
) -> tuple[LaunchColumns, SourceInfo]:
    """:func:`_read_columns` without the cache: the input parsed."""
    raw = open_input(path)
    try:
        columns, info = _read(raw, progress, bar)
    except InputFormatError as exc:
        # Only on this error path: the nsys readers load pandas.
        from ncu_roofline.readers.nsys import is_nsys_input

        if path != "-" and is_nsys_input(path):
            # An Nsight Systems report given where an ncu export belongs.
            raise InputFormatError(
                f"{raw.name}: an Nsight Systems (nsys) report, not an ncu export: give it "
                "with --nsys beside the ncu profile (report PROFILE --nsys FILE), or read it "
                "alone with `ncu-roofline timeline FILE`"
            ) from None
        if str(exc).startswith(f"{raw.name}:"):
            raise
        raise InputFormatError(f"{raw.name}: {exc}") from None
    finally:
        # Arrow may still hold a view of the map; it is released with it.
        with contextlib.suppress(BufferError):
            raw.close()
    give_back_memory()
    info.rows = len(columns)
    # A summary row stands for `invocations` launches.
    info.launches = columns.launch_count()
    info.kernels = columns.kernel_count()
    info.devices = columns.device_labels()
    return columns, info


def _read(
    raw: RawInput, progress: bool | None, bar: ProgressBar | None
) -> tuple[LaunchColumns, SourceInfo]:
    if is_ncu_rep(raw):
        frame, info = read_ncu_rep(raw)
    else:
        try:
            frame, info = _read_csv(raw, progress, bar)
        except TextOutput:
            frame, info = read_text(raw)
        except InvalidUtf8:
            # Rare: decode once with replacement, then read the repaired text.
            raw = repaired_utf8(raw)
            frame, info = _read_csv(raw, progress, bar)
    for note in raw.notes:
        info.warn(note)
    return frame, info


def _read_csv(
    raw: RawInput, progress: bool | None, bar: ProgressBar | None
) -> tuple[LaunchColumns, SourceInfo]:
    """The input's table; its tables, each with its own header, when the first holds a header line."""
    try:
        return _read_tables(raw, [locate_table(raw)], progress, bar)
    except MoreTables:
        return _read_tables(raw, locate_tables(raw), progress, bar)
    except InputFormatError:
        # A table whose rows stop fitting its header may be followed by
        # another export (a summary, then a log with a details page): read
        # them table by table when there are several, else say what failed.
        tables = locate_tables(raw)
        if len(tables) < 2:
            raise
        return _read_tables(raw, tables, progress, bar)


def _read_tables(
    raw: RawInput, tables: list[Located], progress: bool | None, shared: ProgressBar | None
) -> tuple[LaunchColumns, SourceInfo]:
    """Each located table read with its own header; several are merged into one source."""
    bar = shared or make_progress(raw.name, sum(t.end - t.start for t in tables), progress)
    parts: list[tuple[LaunchColumns, SourceInfo]] = []
    lines: list[int] = []
    failed: list[str] = []
    try:
        for loc in tables:
            layout = detect_layout(loc.header)
            line = line_number(raw.buf, loc.start) if len(tables) > 1 else 1
            try:
                if layout == "raw":
                    parts.append(read_raw(raw, loc, bar))
                else:
                    parts.append(read_long(raw, loc, layout, bar))
            except InputFormatError as exc:
                # One empty or unreadable table among several: the others stand.
                if len(tables) == 1:
                    raise
                failed.append(f"the table with its header on line {line} is left out: {exc}")
                continue
            lines.append(line)
    finally:
        if bar is not None and shared is None:
            bar.close()
    if not parts:
        raise InputFormatError(failed[0])
    if len(tables) == 1:
        return parts[0]
    frame, info = merge_tables(parts, lines, raw.name)
    for message in failed:
        info.warn(message)
    return frame, info


def load(
    paths: str | PathLike[str] | Iterable[str | PathLike[str]],
    progress: bool | None = None,
    merge: bool = False,
    jobs: int | None = None,
    cache: bool = True,
) -> Profile:
    """Read one or more ncu exports into a :class:`Profile`.

    Launches from several inputs are kept apart by the ``source`` column.
    Inputs that look like passes of one run (:mod:`~ncu_roofline.readers.passes`)
    are joined per launch into one source when ``merge`` is true; otherwise
    each of them carries a warning saying ``--merge`` would join them.
    ``jobs`` inputs are read at once (None: one per core, up to
    :data:`~ncu_roofline.readers.parallel.MAX_JOBS`, within the memory
    available; see :mod:`~ncu_roofline.readers.parallel`).
    ``cache``: keep each parsed input in the parse cache and read it back
    from there while the input is unchanged (:mod:`~ncu_roofline.readers.cache`;
    ``NCU_ROOFLINE_NO_CACHE=1`` turns it off too).

    >>> profile = load("profile.csv")          # doctest: +SKIP
    >>> profile.launches[["kernel_short", "duration_s"]]   # doctest: +SKIP
    """
    if isinstance(paths, (str, PathLike)):
        items: list[Any] = [paths]
    else:
        items = list(paths)
    names = [str(p) for p in items]
    read = _read_sources(names, progress, jobs, cache)
    if not read:
        return Profile(finalize_columns({}, {}, 0), [])
    if len(read) == 1:
        # One input: its columns stand as they are; the frame is built when asked for.
        return Profile(read[0][0], [read[0][1]])
    columns = [c for c, _ in read]
    infos = [info for _, info in read]
    keyed = pass_keys(columns, infos)
    groups = pass_groups(columns, infos, keyed)
    if not merge or not groups:
        for group in groups:
            hint = pass_hint(infos, group)
            for i in group:
                infos[i].warn(hint)
        # Names unique per input can meet their sibling from another input:
        # the short names are computed again when the frame is built.
        return Profile(LaunchColumns.concat(columns, renamed=True), infos)
    # Joining passes works on the frames: each input's is built here, once.
    import pandas as pd

    frames, infos = _merged(columns, infos, groups, keyed)
    if len(frames) == 1:
        return Profile(frames[0], infos)
    launches = pd.concat(frames, ignore_index=True, sort=False)
    launches["kernel_short"] = short_names(launches["kernel"])
    return Profile(launches, infos)


def _read_sources(
    names: list[str], progress: bool | None, jobs: int | None, cache: bool = True
) -> list[tuple[LaunchColumns, SourceInfo]]:
    """Every input read, several at once where :func:`auto_jobs` (or ``jobs``) allows."""
    # Before the first parse: see arrow_signal_thread.
    arrow_signal_thread()
    jobs = auto_jobs(names) if jobs is None else max(1, jobs)
    if jobs < 2 or len(names) < 2:
        return [_read_columns(name, progress=progress, cache=cache) for name in names]
    # One bar over every input: several bars redrawn from threads would mix.
    together = sum(parallel_safe(n) for n in names)
    bar = make_progress(f"{together} inputs", total_size(names), progress)
    try:
        return read_all(names, lambda name: _read_columns(name, progress, bar, cache), jobs)
    finally:
        if bar is not None:
            bar.close()


def _merged(
    columns: list[LaunchColumns],
    infos: list[SourceInfo],
    groups: list[list[int]],
    keyed: list[np.ndarray | None],
) -> tuple[list[pd.DataFrame], list[SourceInfo]]:
    """The inputs' frames with each group of passes joined into one."""
    frames = [c.to_frame() for c in columns]
    joined: dict[int, tuple[pd.DataFrame, SourceInfo]] = {}
    skip: set[int] = set()
    for group in groups:
        joined[group[0]] = merge_passes(frames, infos, group, keyed)
        skip.update(group[1:])
    out_frames: list[pd.DataFrame] = []
    out_infos: list[SourceInfo] = []
    for i, (frame, info) in enumerate(zip(frames, infos, strict=True)):
        if i in skip:
            continue
        frame, info = joined.get(i, (frame, info))
        out_frames.append(frame)
        out_infos.append(info)
    return out_frames, out_infos
