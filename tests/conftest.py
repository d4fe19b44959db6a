"""Fixtures shared by the test modules (plain helpers live in ``tests/helpers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import SAMPLES


@pytest.fixture
def samples_dir() -> Path:
    """The folder of real ncu exports; tests skip when it is absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    return SAMPLES
