"""Fixtures and session checks shared by the test modules.

Plain helpers (paths, the CLI runner, synthetic profiles) live in
``tests/helpers.py``.  The real ncu exports live outside the repository, in
``../shared/ncu-samples/`` beside the checkout: on a developer's machine the
tests that read them skip, with a reason, when that folder is absent; with
``NCU_ROOFLINE_REQUIRE_SAMPLES=1`` (set by ``.ci/run``) a missing folder
fails the session at start instead, so CI cannot go green on skips.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers import SAMPLES

#: Set (to anything but empty or ``0``) to make missing real samples an error.
REQUIRE_SAMPLES = "NCU_ROOFLINE_REQUIRE_SAMPLES"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop before any test runs when the samples are required but absent."""
    if os.environ.get(REQUIRE_SAMPLES, "") not in ("", "0") and not SAMPLES.is_dir():
        raise pytest.UsageError(
            f"{REQUIRE_SAMPLES} is set but the real ncu samples are not at {SAMPLES}; "
            "put the exports in ../shared/ncu-samples/ beside the checkout, "
            f"or unset {REQUIRE_SAMPLES} to skip the tests that read them"
        )


@pytest.fixture
def samples_dir() -> Path:
    """The folder of real ncu exports; tests skip when it is absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    return SAMPLES
