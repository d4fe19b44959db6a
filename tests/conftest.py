"""Fixtures and session checks shared by the test modules.

Plain helpers (paths, the CLI runner, synthetic profiles) live in
``tests/helpers.py``; synthetic ncu exports of every layout in
``tests/synthetic_exports.py``.  Three kinds of test need something from
outside the repository and skip, with a reason, where it is absent on a
developer's machine:

* the real ncu exports, in ``../shared/ncu-samples/`` beside the checkout;
* a headless browser (Chromium) on PATH, for the report page tests;
* NVIDIA's ``ncu_report`` module (``pip install 'ncu-roofline[ncu-rep]'``),
  for the ``.ncu-rep`` tests.

Each has a variable that makes its absence fail the session at start
instead, before any test runs: ``NCU_ROOFLINE_REQUIRE_SAMPLES``,
``NCU_ROOFLINE_REQUIRE_BROWSER`` and ``NCU_ROOFLINE_REQUIRE_NCU_REPORT``
(set to anything but empty or ``0``).  ``.ci/run`` sets all three, so CI
cannot go green on skips.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import BROWSERS, SAMPLES, find_browser

#: Set (to anything but empty or ``0``) to make missing real samples an error.
REQUIRE_SAMPLES = "NCU_ROOFLINE_REQUIRE_SAMPLES"
#: ... a missing headless browser an error.
REQUIRE_BROWSER = "NCU_ROOFLINE_REQUIRE_BROWSER"
#: ... a missing (or unimportable) ``ncu_report`` module an error.
REQUIRE_NCU_REPORT = "NCU_ROOFLINE_REQUIRE_NCU_REPORT"


def _required(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0")


def _ncu_report_problem() -> str | None:
    """Why ``import ncu_report`` fails (as the tests' importorskip would), or None."""
    try:
        importlib.import_module("ncu_report")
    except ImportError as exc:
        return str(exc) or type(exc).__name__
    return None


def pytest_sessionstart(session: pytest.Session) -> None:
    """Stop before any test runs when something required is absent."""
    problems = []
    if _required(REQUIRE_SAMPLES) and not SAMPLES.is_dir():
        problems.append(
            f"{REQUIRE_SAMPLES} is set but the real ncu samples are not at {SAMPLES}; "
            "put the exports in ../shared/ncu-samples/ beside the checkout, "
            f"or unset {REQUIRE_SAMPLES} to skip the tests that read them"
        )
    if _required(REQUIRE_BROWSER) and find_browser() is None:
        problems.append(
            f"{REQUIRE_BROWSER} is set but no headless browser is on PATH (looked for "
            f"{', '.join(BROWSERS)}); install Chromium, "
            f"or unset {REQUIRE_BROWSER} to skip the tests that load the report page"
        )
    if _required(REQUIRE_NCU_REPORT):
        why = _ncu_report_problem()
        if why is not None:
            problems.append(
                f"{REQUIRE_NCU_REPORT} is set but NVIDIA's ncu_report module cannot be "
                f"imported ({why}); pip install 'ncu-roofline[ncu-rep]', "
                f"or unset {REQUIRE_NCU_REPORT} to skip the tests that read .ncu-rep files"
            )
    if problems:
        raise pytest.UsageError("\n".join(problems))


@pytest.fixture(autouse=True, scope="session")
def _session_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache folder for what runs before each test's own: module- and session-scoped
    fixtures (pages made once for a module's browser tests) never write the user's."""
    folder = tmp_path_factory.mktemp("session-cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NCU_ROOFLINE_CACHE_DIR", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def _parse_cache_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Every test's parse cache in a folder of its own, never the user's cache.

    The variable reaches the commands the tests start in subprocesses too.
    Inputs under the cache's size threshold are not cached, so most tests
    never write one (``tests/test_parse_cache.py`` lowers it).
    """
    folder = tmp_path_factory.mktemp("parse-cache")
    monkeypatch.setenv("NCU_ROOFLINE_CACHE_DIR", str(folder))
    monkeypatch.delenv("NCU_ROOFLINE_NO_CACHE", raising=False)
    monkeypatch.delenv("NCU_ROOFLINE_CACHE_MIN_BYTES", raising=False)
    monkeypatch.delenv("NCU_ROOFLINE_CACHE_MB", raising=False)
    return folder


@pytest.fixture
def samples_dir() -> Path:
    """The folder of real ncu exports; tests skip when it is absent."""
    if not SAMPLES.is_dir():
        pytest.skip(f"real ncu samples not found at {SAMPLES}")
    return SAMPLES
