"""The suite's own setup: what a test needs from outside skips locally and fails in CI.

A copy of ``conftest.py`` and ``helpers.py`` in a temporary checkout that has
no ``../shared/ncu-samples/`` beside it runs a one-test suite twice: as on a
developer's machine (the sample test skips with a reason) and with
``NCU_ROOFLINE_REQUIRE_SAMPLES=1`` as ``.ci/run`` sets it (the session stops
before any test, naming the variable and the folder).  The same holds for a
headless browser (``NCU_ROOFLINE_REQUIRE_BROWSER``, with an empty PATH) and
NVIDIA's ``ncu_report`` module (``NCU_ROOFLINE_REQUIRE_NCU_REPORT``, with a
module of that name that fails to import placed first on the path).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers import REPO

#: The prefix of the variables that make a missing requirement fail the session.
REQUIRE = "NCU_ROOFLINE_REQUIRE_"

SAMPLE_TEST = """
def test_reads_a_sample(samples_dir):
    assert samples_dir.is_dir()
"""


def _suite(tmp_path: Path) -> Path:
    """A checkout with the suite's shared files, one sample test, and no samples beside it."""
    checkout = tmp_path / "checkout"
    (checkout / "tests").mkdir(parents=True)
    for name in ("conftest.py", "helpers.py"):
        shutil.copy(REPO / "tests" / name, checkout / "tests" / name)
    (checkout / "tests" / "test_sample.py").write_text(SAMPLE_TEST, encoding="utf-8")
    assert not (tmp_path / "shared").exists()
    return checkout


def _pytest(checkout: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(REQUIRE)}
    # The copy's ``tests`` package first, the package under test from the checkout.
    environ["PYTHONPATH"] = os.pathsep.join([str(checkout), str(REPO)])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "tests"],
        cwd=checkout,
        env={**environ, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_missing_samples_skip_with_a_reason(tmp_path: Path) -> None:
    proc = _pytest(_suite(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 skipped" in proc.stdout
    assert "real ncu samples not found at" in proc.stdout


def test_missing_samples_fail_the_session_when_required(tmp_path: Path) -> None:
    proc = _pytest(_suite(tmp_path), NCU_ROOFLINE_REQUIRE_SAMPLES="1")
    assert proc.returncode == 4, proc.stdout + proc.stderr  # pytest's usage error
    out = proc.stdout + proc.stderr
    assert "NCU_ROOFLINE_REQUIRE_SAMPLES is set" in out
    assert str(tmp_path / "shared" / "ncu-samples") in out
    assert "test_sample.py" not in proc.stdout  # stopped before collecting any test


def test_required_samples_present_run_normally(tmp_path: Path) -> None:
    checkout = _suite(tmp_path)
    (tmp_path / "shared" / "ncu-samples").mkdir(parents=True)
    proc = _pytest(checkout, NCU_ROOFLINE_REQUIRE_SAMPLES="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_a_missing_browser_fails_the_session_when_required(tmp_path: Path) -> None:
    checkout = _suite(tmp_path)
    (tmp_path / "shared" / "ncu-samples").mkdir(parents=True)
    empty = tmp_path / "no-browsers"
    empty.mkdir()
    proc = _pytest(checkout, NCU_ROOFLINE_REQUIRE_BROWSER="1", PATH=str(empty))
    assert proc.returncode == 4, proc.stdout + proc.stderr  # pytest's usage error
    out = proc.stdout + proc.stderr
    assert "NCU_ROOFLINE_REQUIRE_BROWSER is set but no headless browser is on PATH" in out
    assert "chromium" in out
    assert "test_sample.py" not in proc.stdout


def test_an_unimportable_ncu_report_fails_the_session_when_required(tmp_path: Path) -> None:
    checkout = _suite(tmp_path)
    (tmp_path / "shared" / "ncu-samples").mkdir(parents=True)
    (checkout / "ncu_report.py").write_text(
        'raise ImportError("libnvperf_host.so: cannot open shared object file")\n',
        encoding="utf-8",
    )
    proc = _pytest(checkout, NCU_ROOFLINE_REQUIRE_NCU_REPORT="1")
    assert proc.returncode == 4, proc.stdout + proc.stderr
    out = proc.stdout + proc.stderr
    assert "NCU_ROOFLINE_REQUIRE_NCU_REPORT is set but NVIDIA's ncu_report module" in out
    assert "libnvperf_host.so: cannot open shared object file" in out
    assert "test_sample.py" not in proc.stdout


def test_missing_browser_and_ncu_report_are_fine_unless_required(tmp_path: Path) -> None:
    checkout = _suite(tmp_path)
    (tmp_path / "shared" / "ncu-samples").mkdir(parents=True)
    (checkout / "ncu_report.py").write_text('raise ImportError("absent")\n', encoding="utf-8")
    empty = tmp_path / "no-browsers"
    empty.mkdir()
    proc = _pytest(checkout, PATH=str(empty), NCU_ROOFLINE_REQUIRE_NCU_REPORT="0")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


def test_ci_requires_what_the_tests_would_otherwise_skip_without() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for variable in ("SAMPLES", "BROWSER", "NCU_REPORT"):
        assert f"export {REQUIRE}{variable}=1" in ci, variable
    # Every requirement the session checks is one CI sets.
    conftest = (REPO / "tests" / "conftest.py").read_text(encoding="utf-8")
    checked = set(re.findall(rf'"({REQUIRE}\w+)"', conftest))
    assert checked == {f"{REQUIRE}{v}" for v in ("SAMPLES", "BROWSER", "NCU_REPORT")}
