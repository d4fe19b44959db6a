"""Damaged or unreadable dataset files: found after a failed read, and named.

A dataset is thousands of small Parquet files written by many exports over
months; one of them cut short (a full disk, an interrupted copy), zeroed or
overwritten makes every read of its table fail.  DuckDB and pyarrow say so in
their own words, naming the file only sometimes ("No magic bytes found at
end of file '...'", "TProtocolException: Invalid data").  Nothing is checked
before a read: opening every file's footer up front would double the cost of
a query over a large dataset for a failure that is rare.  After a failed
read, :func:`dataset_error` names the culprit: the file the engine's message
names, else the first file whose footer (then, only if every footer reads,
whose data) pyarrow cannot read.

A damaged file is exit 4 (an input that is not readable as what it should
be: a dataset file is an input of ``history``, ``query`` and ``compact``);
a file that cannot be opened (no permission, removed during the read) is
exit 7, as for any input.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ncu_roofline.core.limits import memory_exhausted
from ncu_roofline.errors import InputFormatError, InputNotFoundError, NcuRooflineError

__all__ = [
    "READ_ERRORS",
    "dataset_error",
    "file_problem",
    "find_damaged",
    "named_file",
    "reading",
]

#: What pyarrow raises for a file it cannot read: ArrowInvalid (no footer) is an
#: ArrowException, a corrupt page or footer an OSError.
READ_ERRORS: tuple[type[BaseException], ...] = (pa.ArrowException, OSError)

#: A quoted path in an engine's message.
_QUOTED = re.compile(r"""(['"])(/[^'"]+?\.parquet)\1""")

#: What to do about a damaged file (the run's inputs are the source of truth).
_REMEDY = (
    "restore it from a copy, or move it out of the dataset and export its runs again (--replace)"
)


def _relative(root: Path, path: Path) -> str:
    try:
        return str(path.absolute().relative_to(root.absolute()))
    except ValueError:
        return str(path)


def _reason(error: BaseException) -> str:
    """pyarrow's message, first line, in the words a user can act on."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if "magic bytes" in text.lower():
        return "no Parquet footer: cut short or overwritten"
    if "file size is 0" in text.lower():
        return "the file is empty"
    return text


def file_problem(root: Path, path: Path, deep: bool = True) -> str | None:
    """Why ``path`` does not read as Parquet (None when it reads).

    Reads the footer; with ``deep``, every row group too (a zeroed data
    page passes the footer).  A file that cannot be opened raises
    :class:`InputNotFoundError` (exit 7): it is not damaged, only out of reach.
    """
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below
    except FileNotFoundError as e:
        raise InputNotFoundError(
            f"{root}: dataset file {_relative(root, path)} is gone (removed while "
            "reading, e.g. by a compaction running); run the command again"
        ) from e
    except OSError as e:
        raise InputNotFoundError(
            f"{root}: cannot read dataset file {_relative(root, path)} ({e.strerror})"
        ) from e
    with fh:
        try:
            parquet = pq.ParquetFile(fh)
            if deep:
                for group in range(parquet.num_row_groups):
                    parquet.read_row_group(group)
        except MemoryError:
            raise
        except READ_ERRORS as e:
            if memory_exhausted(e):
                raise MemoryError(str(e)) from e
            return _reason(e)
    return None


def named_file(root: Path, text: str) -> Path | None:
    """The dataset file an engine's message names (a quoted path below ``root``), if any."""
    base = os.path.abspath(root)
    for match in _QUOTED.finditer(text):
        candidate = os.path.abspath(match.group(2))
        if any(c in candidate for c in "*?[") or not candidate.startswith(base + os.sep):
            continue
        return Path(candidate)
    return None


def find_damaged(root: Path, files: Iterable[Path]) -> tuple[Path, str] | None:
    """The first of ``files`` that does not read, and why: footers first, then data.

    The footers cost one small read per file; the data is read only when
    every footer is sound, and stops at the first bad file.
    """
    listed = list(files)
    for deep in (False, True):
        for path in listed:
            problem = file_problem(root, path, deep=deep)
            if problem is not None:
                return path, problem
    return None


def _damaged(root: Path, path: Path, problem: str) -> InputFormatError:
    return InputFormatError(
        f"{root}: damaged dataset file {_relative(root, path)} ({problem}); {_REMEDY}"
    )


def dataset_error(
    root: Path,
    error: BaseException,
    files: Callable[[], Iterable[Path]],
    scan: bool = True,
) -> NcuRooflineError | None:
    """The user-facing error for a read of the dataset that failed with ``error``.

    The file the message names, else (with ``scan``) the first of ``files()``
    that does not read; None when ``scan`` is off and the message names no
    dataset file, or when every file reads (the caller then says what failed).
    """
    text = str(error)
    named = named_file(root, text)
    if named is not None:
        problem = file_problem(root, named)
        first = text.strip().splitlines()[0] if text.strip() else type(error).__name__
        return _damaged(root, named, problem or first)
    if not scan:
        return None
    found = find_damaged(root, files())
    return None if found is None else _damaged(root, *found)


@contextlib.contextmanager
def reading(root: Path, files: Callable[[], Iterable[Path]]) -> Iterator[None]:
    """Turn a failed pyarrow read of the dataset into a message naming the damaged file.

    ``files`` lists the files the read covered (called only after a
    failure).  Running out of memory stays what it is (exit 8).
    """
    try:
        yield
    except MemoryError:
        raise
    except READ_ERRORS as e:
        if memory_exhausted(e):
            # No room for a buffer or a reader thread: not the file's fault.
            raise MemoryError(str(e)) from e
        found = dataset_error(root, e, files)
        if found is None:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise InputFormatError(f"{root}: cannot read the dataset ({first})") from e
        raise found from e
