"""Several inputs read at once, on daemon threads.

Threads rather than processes: pyarrow's CSV parse and its compute kernels
release the GIL, so one input's parse runs while another's launch frame is
built, and a thread's result needs no copying.  Worker processes would pay
an interpreter start (or fork a process that already runs Arrow's thread
pools) and the pickling of every launch frame: on two 100,000-launch raw
exports a process pool took 2.3-2.8 s where threads took 1.1-1.6 s and one
after the other 1.3-2.2 s.

The threads are daemons so that an interrupt ends the process at once
instead of waiting for the reads in flight; their results are only ever
taken by the caller, in input order, so a failure is the one a serial read
would have raised first.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from ncu_roofline.core.jobs import JOBS_VARIABLE, jobs_variable

__all__ = [
    "JOBS_VARIABLE",
    "MAX_JOBS",
    "auto_jobs",
    "jobs_variable",
    "parallel_safe",
    "read_all",
    "total_size",
]

T = TypeVar("T")

#: More threads than this add contention, not speed: the parse is already
#: multi-threaded inside Arrow, and the rest of a read is short.
MAX_JOBS = 4

#: Fraction of the available memory that the inputs read at once may take
#: (a read peaks near the input's size).
_MEMORY_SHARE = 0.5


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _available_memory() -> int | None:
    """Bytes the kernel says can be allocated without swapping, or None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def parallel_safe(path: str) -> bool:
    """Whether ``path`` may be read on a worker thread.

    Standard input is read by the caller; ``.ncu-rep`` files go through the
    ``ncu_report`` extension, whose thread safety is not documented.
    """
    if path == "-" or path.lower().endswith(".ncu-rep"):
        return False
    try:
        return os.path.isfile(path)
    except (OSError, ValueError):
        return False


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:  # gone since: its read will say so
        return 0


def total_size(paths: Sequence[str]) -> int:
    """Bytes of the inputs that :func:`read_all` reads on worker threads."""
    return sum(_size(p) for p in paths if parallel_safe(p))


def auto_jobs(paths: Sequence[str]) -> int:
    """How many inputs to read at once when the user did not say.

    One per core up to :data:`MAX_JOBS`, only for inputs that may be read on
    a thread, and fewer while the largest inputs read together would take
    more than half of the available memory.  :data:`JOBS_VARIABLE`, when
    set, decides instead.
    """
    safe = [p for p in paths if parallel_safe(p)]
    wanted = jobs_variable()
    if wanted is not None:
        return max(1, min(wanted, len(safe)))
    jobs = min(_cpus(), len(safe), MAX_JOBS)
    if jobs < 2:
        return 1
    sizes = sorted((_size(p) for p in safe), reverse=True)
    available = _available_memory()
    while jobs > 1 and available is not None and sum(sizes[:jobs]) > _MEMORY_SHARE * available:
        jobs -= 1
    return jobs


class _Slot(Generic[T]):
    """One input's outcome: its result or the exception its read raised."""

    __slots__ = ("done", "error", "value")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value: T | None = None
        self.error: BaseException | None = None


def read_all(paths: Sequence[str], read: Callable[[str], T], jobs: int) -> list[T]:
    """``read(path)`` for every path, ``jobs`` at a time, results in input order.

    Paths that :func:`parallel_safe` refuses are read by the calling thread,
    in their turn.  The first failure in input order is raised, as a serial
    read would; inputs not started by then are not read.
    """
    if jobs < 2 or len(paths) < 2:
        return [read(p) for p in paths]
    slots: list[_Slot[T]] = [_Slot() for _ in paths]
    queue = [i for i, p in enumerate(paths) if parallel_safe(p)]
    queued = frozenset(queue)
    lock = threading.Lock()
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            with lock:
                if not queue:
                    return
                i = queue.pop(0)
            slot = slots[i]
            try:
                slot.value = read(paths[i])
            except BaseException as exc:  # handed to the caller, re-raised there
                slot.error = exc
            finally:
                slot.done.set()

    for _ in range(min(jobs, len(queue))):
        threading.Thread(target=work, name="ncu-roofline-read", daemon=True).start()
    out: list[T] = []
    try:
        for i, path in enumerate(paths):
            slot = slots[i]
            if i not in queued:
                slot.value = read(path)
                slot.done.set()
            # A timed wait keeps the main thread responsive to signals.
            while not slot.done.wait(0.25):
                pass
            if slot.error is not None:
                raise slot.error
            out.append(slot.value)  # type: ignore[arg-type]
    finally:
        stop.set()
    return out
