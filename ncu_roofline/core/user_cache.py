"""Where the tool keeps what it may reuse between runs, and the switch that turns that off.

Three things live there: the parse cache (``readers/cache.py``: one input's
parsed columns per file), the report cache (``report/context_cache.py``:
one report context per set of inputs and options) and the compiled page
templates (``render/templates.py``).  All are only ever a shortcut: a folder
that cannot be made, read or written, or :data:`OFF_VARIABLE`, leaves every
command doing the work again with the same result.

The parse and report caches share one folder and one bound on its size
(:func:`limit_bytes`): their files end in :data:`SUFFIX`, are written whole
or not at all (:func:`write_atomic`) and are trimmed least recently used
first (:func:`trim`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import threading
import time
import uuid
import zlib
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO, TypedDict

from ncu_roofline.core.limits import address_space_limited
from ncu_roofline.version import NAME

__all__ = [
    "DEFAULT_LIMIT_MB",
    "DIR_VARIABLE",
    "LIMIT_VARIABLE",
    "MIN_BYTES",
    "MIN_VARIABLE",
    "OFF_VARIABLE",
    "RACY_NS",
    "SUFFIX",
    "TEMP_PREFIX",
    "UNREADABLE",
    "CorruptCache",
    "FileStamp",
    "SummedSink",
    "cache_dir",
    "cache_off",
    "code_stamp",
    "file_stamp",
    "flag",
    "header_bytes",
    "limit_bytes",
    "min_bytes",
    "note",
    "now_ns",
    "number",
    "split_header",
    "stored_key",
    "trim",
    "usable",
    "writable_dir",
    "write_atomic",
    "write_behind",
]

#: The cache folder (default: ``$XDG_CACHE_HOME/ncu-roofline`` or ``~/.cache/ncu-roofline``).
DIR_VARIABLE = "NCU_ROOFLINE_CACHE_DIR"
#: Set (to anything but empty or ``0``) to turn every cache off.
OFF_VARIABLE = "NCU_ROOFLINE_NO_CACHE"
#: The bound on the folder's total size, in MB.
LIMIT_VARIABLE = "NCU_ROOFLINE_CACHE_MB"
#: The default bound on the cache folder's total size.
DEFAULT_LIMIT_MB = 2048

#: Inputs smaller than this (in all) are read too fast to be worth a cache file.
MIN_BYTES = 1 << 20
#: Inputs smaller than this many bytes are not cached (default :data:`MIN_BYTES`).
MIN_VARIABLE = "NCU_ROOFLINE_CACHE_MIN_BYTES"

#: The ending of every file the parse and report caches keep (and :func:`trim` counts).
SUFFIX = ".ncucache"
#: Files being written start so; a reader never opens them.
TEMP_PREFIX = ".tmp-"

#: A file modified less than this long before it was read is not cached: a
#: file system stamps times in ticks of a few milliseconds, so a rewrite of the
#: same size within one tick would keep its key ("racily clean", as git says).
RACY_NS = 2 * 10**9


def flag(variable: str) -> bool:
    """Whether environment ``variable`` is set to anything but empty or ``0``."""
    return os.environ.get(variable, "").strip() not in ("", "0")


def cache_off() -> bool:
    """Whether :data:`OFF_VARIABLE` turns the caches off."""
    return flag(OFF_VARIABLE)


def cache_dir() -> Path:
    """The cache folder: :data:`DIR_VARIABLE`, else under ``$XDG_CACHE_HOME``, else ``~/.cache``."""
    own = os.environ.get(DIR_VARIABLE, "").strip()
    if own:
        return Path(own).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / NAME


def number(variable: str, default: int) -> int:
    """Environment ``variable`` as a count (``default`` when unset or not a number)."""
    text = os.environ.get(variable, "").strip()
    try:
        return max(0, int(float(text))) if text else default
    except ValueError:
        return default


def limit_bytes() -> int:
    """The bound on the cache folder's total size (:data:`LIMIT_VARIABLE`, in MB)."""
    return number(LIMIT_VARIABLE, DEFAULT_LIMIT_MB) << 20


def min_bytes() -> int:
    """Inputs smaller than this are not cached (:data:`MIN_VARIABLE`, else :data:`MIN_BYTES`)."""
    return number(MIN_VARIABLE, MIN_BYTES)


def now_ns() -> int:
    """The wall-clock time in ns (what file modification times are compared with)."""
    return time.time_ns()


def note(message: str) -> None:
    """One note on stderr: never in a report, which must read the same with and without a cache."""
    with contextlib.suppress(OSError, ValueError):
        print(f"{NAME}: note: {message}", file=sys.stderr, flush=True)


_USABLE: dict[Path, bool] = {}
_USABLE_LOCK = threading.Lock()


def usable(folder: Path) -> bool:
    """Whether the folder exists (made if not) and can be written; asked once per process."""
    with _USABLE_LOCK:
        if folder not in _USABLE:
            try:
                folder.mkdir(parents=True, exist_ok=True)
                ok = os.access(folder, os.W_OK | os.X_OK)
            except OSError:
                ok = False
            _USABLE[folder] = ok
        return _USABLE[folder]


def writable_dir() -> Path | None:
    """The cache folder when it can be found and written (made if need be); None otherwise."""
    try:
        folder = cache_dir()
    except (RuntimeError, OSError, ValueError):  # no home folder to find
        return None
    return folder if usable(folder) else None


def write_atomic(file: Path, write: Callable[[BinaryIO], object]) -> bool:
    """Write ``file`` whole through ``write(handle)``; False when not written.

    The bytes go to a unique temporary file beside it, then :func:`os.replace`:
    a reader sees the old file, the new one or none, never a part.  Never
    raises: a cache that cannot be written is only a cache not kept.
    """
    tmp = file.with_name(f"{TEMP_PREFIX}{os.getpid()}-{uuid.uuid4().hex}{SUFFIX}")
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:
            write(fh)
        os.replace(tmp, file)
    except Exception:  # OSError; MemoryError, pyarrow's errors from an Arrow writer
        with contextlib.suppress(OSError):
            tmp.unlink()
        return False
    return True


def write_behind(
    file: Path, write: Callable[[BinaryIO], object], then: Callable[[], object]
) -> Callable[[], bool]:
    """:func:`write_atomic`, and ``then`` once the file is written, on a thread of their own.

    A cache file of tens of megabytes takes a tenth of a second to write,
    time the command can spend on its own output meanwhile.  The function
    returned waits for the thread and says whether the file was kept.  The
    thread is no daemon, so an exit waits for it: a file is never left half
    renamed.  Where no thread can start, and under an address-space limit
    (where starting one can abort the process), the file is written before
    this returns.  Never raises.
    """
    kept: list[bool] = []

    def work() -> None:
        try:
            ok = write_atomic(file, write)
            if ok:
                then()
        except Exception:  # only a cache: never fatal
            ok = False
        kept.append(ok)

    thread: threading.Thread | None = None
    # Under ``ulimit -v`` a thread's start can abort the process (its stack
    # or unwinder not mapped) rather than raise: written now.
    if not address_space_limited():
        thread = threading.Thread(target=work, name=f"{NAME} cache writer")
        try:
            thread.start()
        except RuntimeError:  # no thread can start: written now
            thread = None
    if thread is None:
        work()

    def finish() -> bool:
        if thread is not None:
            thread.join()
        return bool(kept and kept[0])

    return finish


def trim(folder: Path, limit: int) -> None:
    """Delete cache files, least recently used first, until the folder holds at most ``limit`` bytes.

    Temporary files of writers that died are removed when a day old.
    """
    files: list[tuple[int, int, Path]] = []
    try:
        with os.scandir(folder) as it:
            entries = list(it)
    except OSError:
        return
    now = now_ns()
    for entry in entries:
        if not entry.name.endswith(SUFFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode):
            continue
        if entry.name.startswith(TEMP_PREFIX):
            if now - st.st_mtime_ns > 86_400 * 10**9:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
            continue
        files.append((st.st_mtime_ns, st.st_size, Path(entry.path)))
    total = sum(size for _, size, _ in files)
    for _, size, file in sorted(files, key=lambda f: (f[0], f[2].name)):
        if total <= limit:
            break
        try:
            file.unlink()
        except FileNotFoundError:
            pass  # another process trimmed it first
        except OSError:
            continue
        total -= size


@cache
def code_stamp() -> str:
    """A hash of the installed package's files (names, sizes, modification times).

    A released install never changes under its version; a checkout being
    edited does, and must not read contexts its older code made.
    """
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                st = os.stat(path)
                digest.update(
                    f"{os.path.relpath(path, root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode(
                        "utf-8", "surrogateescape"
                    )
                )
    return digest.hexdigest()[:32]


class FileStamp(TypedDict):
    """A file as a cache key holds it: its name as given, and what tells its versions apart."""

    name: str
    path: str
    size: int
    mtime_ns: int
    #: A file replaced by another (``cp -p``), or its time set back, changes it.
    ctime_ns: int
    #: ``[st_dev, st_ino]`` (a list: the key goes through JSON).
    inode: list[int]


def file_stamp(name: str, resolved: str, st: os.stat_result) -> FileStamp:
    """The stamp of file ``name`` (resolved path ``resolved``) from its ``stat``."""
    return {
        "name": name,
        "path": resolved,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "ctime_ns": st.st_ctime_ns,
        "inode": [st.st_dev, st.st_ino],
    }


class CorruptCache(Exception):
    """A cache file that cannot be read back."""


class SummedSink:
    """A file for Arrow to write into: it keeps a CRC-32 of every byte written through it,
    and stays open when Arrow closes the sink it was given."""

    def __init__(self, fh: BinaryIO) -> None:
        self._fh = fh
        self.closed = False
        self.crc = 0

    def write(self, data: Any) -> int:
        """Write ``data`` (any bytes-like object), adding it to :attr:`crc`."""
        self.crc = zlib.crc32(data, self.crc)
        return int(self._fh.write(data))

    def flush(self) -> None:
        """Flush the file."""
        self._fh.flush()

    def tell(self) -> int:
        """The file's position."""
        return int(self._fh.tell())

    def close(self) -> None:
        """Mark the sink closed (the file stays open)."""
        self.closed = True

    def writable(self) -> bool:
        """Always True: a sink for writing."""
        return True


#: Where data after a cache file's header starts: a multiple of this.
ALIGN = 8


def aligned(n: int) -> int:
    """``n`` rounded up to a multiple of :data:`ALIGN`."""
    return (n + ALIGN - 1) // ALIGN * ALIGN


def header_bytes(magic: bytes, header: bytes) -> list[bytes]:
    """The start of a cache file: ``magic`` (8 bytes), the header's length (8 bytes,
    little-endian), the header (JSON), zeros up to the aligned end."""
    pad = aligned(16 + len(header)) - 16 - len(header)
    return [magic, len(header).to_bytes(8, "little"), header, b"\0" * pad]


#: What :func:`stored_key` returns for a file whose start is no whole header.
UNREADABLE: Any = object()


def stored_key(fh: BinaryIO, magic: bytes, loads: Callable[[bytes], Any] = json.loads) -> Any:
    """The ``key`` of the header at the start of an open cache file, read without the
    rest of the file; :data:`UNREADABLE` where the start is not a whole header (the
    caller then reads the file as a whole, which says what is wrong with it).

    A stale entry (its input changed since) is the usual miss: a re-profiled
    export keeps its name.  Its key alone tells, so the tens of megabytes after
    the header are never read for it.
    """
    try:
        start = fh.read(16)
        if len(start) < 16 or start[:8] != magic:
            return UNREADABLE
        size = int.from_bytes(start[8:16], "little")
        head = fh.read(size)
        if len(head) < size:
            return UNREADABLE
        header = loads(head)
    except Exception:  # OSError, a size past any file (OverflowError), a header too deep
        return UNREADABLE
    return header.get("key") if isinstance(header, dict) else UNREADABLE


def split_header(
    data: bytes | bytearray | memoryview,
    magic: bytes,
    what: str,
    loads: Callable[[bytes], Any] = json.loads,
) -> tuple[dict[str, Any], int]:
    """The JSON header of a cache file made with :func:`header_bytes`, and where what
    follows it starts; :class:`CorruptCache` when it is not such a file (``what``: its kind).

    ``loads`` decodes the header's bytes (a faster decoder for a large one).
    """
    if len(data) < 16 or data[:8] != magic:
        raise CorruptCache(f"not a {what} file")
    size = int.from_bytes(data[8:16], "little")
    if 16 + size > len(data):
        raise CorruptCache("truncated")
    try:
        header = loads(bytes(data[16 : 16 + size]))
    except (UnicodeDecodeError, ValueError) as exc:
        raise CorruptCache(f"bad header: {exc}") from None
    if not isinstance(header, dict):
        raise CorruptCache("bad header")
    return header, aligned(16 + size)
