"""How many inputs a command reads at once, as the environment asks.

Light on purpose (the standard library only): a command checks the setting
before it asks the report cache, and a hit must not load the readers.
"""

from __future__ import annotations

import os

from ncu_roofline.errors import UsageError

__all__ = ["JOBS_VARIABLE", "jobs_variable"]

#: Environment variable that sets how many inputs are read at once
#: (``1``: one after the other), for every command.
JOBS_VARIABLE = "NCU_ROOFLINE_JOBS"


def jobs_variable() -> int | None:
    """The count :data:`JOBS_VARIABLE` asks for (None when unset); a usage error when it is
    not a whole number of 1 or more."""
    text = os.environ.get(JOBS_VARIABLE, "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{JOBS_VARIABLE}={text!r}: give a whole number of inputs, 1 or more")
    return value
