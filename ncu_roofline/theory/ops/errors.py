"""The error of the op library."""

from __future__ import annotations

from ncu_roofline.errors import UsageError


class TheoryError(UsageError, ValueError):
    """A theoretical estimate was asked for with wrong parameters.

    The message is one line naming the op and the parameter.  It is a
    ValueError for library callers and a UsageError (exit code 2) for the
    command line.
    """
