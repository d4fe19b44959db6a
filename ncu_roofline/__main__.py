"""``python -m ncu_roofline`` and the ``ncu-roofline`` console script.

Design: the thinnest wrapper around :func:`ncu_roofline.cli.main`.  The
command line's imports (pandas, plotly, ...) take about half a second; the
signal handlers are installed, and an interrupt is caught, before any of
them, so Ctrl-C at any moment ends with one line and exit 130.  The package's
``__init__`` imports its heavy parts lazily for the same reason.
"""

from __future__ import annotations

import contextlib
import os
import sys

from ncu_roofline import interrupts


def main() -> None:
    """Console entry point: signal handlers first, then the command line."""
    interrupts.install()
    interrupts.guard_closed_stdout()
    try:
        # Imported here, after the handlers: an interrupt during these imports
        # must end like one during the run.
        from ncu_roofline.cli import main as run

        run()
    except (interrupts.Interrupted, KeyboardInterrupt) as exc:
        interrupts.end(exc)
    except SystemExit as exc:
        # The run is over, its output written or its error said: a signal
        # during the interpreter's shutdown must not change the exit code.
        interrupts.ignore()
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if code != 0:
            # An error can leave Arrow's reader tasks running; the thread
            # pool's teardown at exit then aborts ("terminate called without
            # an active exception", exit -6).  Everything is written and
            # said: flush and end here.
            for stream in (sys.stdout, sys.stderr):
                with contextlib.suppress(OSError, ValueError):
                    stream.flush()
            os._exit(code)
        raise


if __name__ == "__main__":
    main()
