"""A minimal progress bar on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO

#: Inputs smaller than this read too fast for a bar to help.
MIN_BYTES = 16 << 20


class ProgressBar:
    """Byte-count progress for one input, redrawn at most ten times a second."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self.label = label if len(label) <= 40 else "…" + label[-39:]
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream or sys.stderr
        self._last = 0.0
        # Inputs read on several threads may share one bar.
        self._lock = threading.Lock()
        self._closed = False

    def __call__(self, n: int) -> None:
        with self._lock:
            if self._closed:
                # A read still running after the caller gave up (another
                # input failed) must not redraw under the error message.
                return
            self.done += n
            now = time.monotonic()
            if now - self._last >= 0.1 or self.done >= self.total:
                self._last = now
                self._draw()

    def _draw(self) -> None:
        frac = min(self.done / self.total, 1.0)
        width = 30
        filled = int(frac * width)
        bar = "#" * filled + "-" * (width - filled)
        self.stream.write(
            f"\rreading {self.label} [{bar}] {frac * 100:5.1f}% "
            f"({self.done / 1e6:,.0f}/{self.total / 1e6:,.0f} MB)"
        )
        self.stream.flush()

    def close(self) -> None:
        """Finish the line so later output starts on a fresh one; later calls draw nothing."""
        with self._lock:
            self._closed = True
        self.stream.write("\n")
        self.stream.flush()


def make_progress(label: str, total: int, mode: bool | None) -> ProgressBar | None:
    """A bar when ``mode`` is True, or when None (auto) and stderr is a terminal."""
    if mode is False:
        return None
    if mode is None and (total < MIN_BYTES or not sys.stderr.isatty()):
        return None
    return ProgressBar(label, total)
