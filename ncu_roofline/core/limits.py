"""The process's resource limits, as far as they change how a run fails.

Light on purpose (the standard library only): the command line asks it when
mapping an error to its exit code, before anything heavy is imported.
"""

from __future__ import annotations

import errno
import mmap

try:
    # Imported now (as mmap): when asked, memory may have run out, and
    # importing an extension module then fails.
    import resource
except ImportError:  # pragma: no cover - not a Unix
    resource = None  # type: ignore[assignment]

__all__ = ["address_space_limited", "check_room", "memory_exhausted"]


def address_space_limited() -> bool:
    """Whether an address-space limit (``ulimit -v``, RLIMIT_AS) is set for this process.

    Under one, allocations fail where they would otherwise succeed: mapping a
    library at import, a thread's stack, a large buffer.
    """
    if resource is None:  # pragma: no cover - not a Unix
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return bool(soft != resource.RLIM_INFINITY)


#: Words of an error that says memory, or the address space for a thread's
#: stack, ran out, as the libraries below word it.
_MEMORY_SIGNS = (
    # dlopen of an extension module (a lazy import) under ulimit -v: ENOMEM.
    "failed to map segment from shared object",
    # strerror(ENOMEM), in an OSError or an Arrow IOError's text.
    "cannot allocate memory",
    # Python's threading (also concurrent.futures): no room for a stack.
    "can't start new thread",
    # Arrow's thread pool, in an ArrowException ("Unknown error: ...").
    "failed to launch worker thread",
    "std::bad_alloc",
    # DuckDB's OutOfMemoryException ("Out of Memory Error: ...").
    "out of memory error",
)


def memory_exhausted(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from or during) says memory ran out.

    Not every library raises :class:`MemoryError`: under an address-space
    limit an import fails with ImportError, a thread pool with RuntimeError
    or an ArrowException, and an extension may return an error without
    setting one (SystemError); each is the same condition, exit 8, not a bug.
    """
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, MemoryError):
            return True
        if isinstance(current, OSError) and current.errno == errno.ENOMEM:
            return True
        text = str(current).lower()
        if any(sign in text for sign in _MEMORY_SIGNS):
            return True
        if (
            isinstance(current, SystemError)
            and ("without setting an exception" in text or "without exception set" in text)
            and address_space_limited()
        ):
            # An import (or other C call) that failed to allocate and never
            # said so; only under a limit is that the likely reason.
            return True
        current = current.__cause__ or current.__context__
    return False


def check_room(size: int, what: str) -> None:
    """Raise :class:`MemoryError` when ``size`` bytes of address space are not free.

    Only under an address-space limit (elsewhere it proves nothing and costs
    a system call).  For a library that, out of room, exits or aborts
    instead of raising: checked before loading it, the run ends with exit 8
    instead.  The mapping is reserved and released, never touched.
    """
    if not address_space_limited():
        return
    try:
        mmap.mmap(-1, size).close()
    except OSError as exc:
        raise MemoryError(f"no room for {what}: {exc}") from exc
