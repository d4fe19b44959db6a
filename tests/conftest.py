"""Shared test helpers."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO.parent / "shared" / "ncu-samples"
DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture
def samples_dir() -> Path:
    """The folder of real ncu exports; tests skip when it is absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    return SAMPLES
