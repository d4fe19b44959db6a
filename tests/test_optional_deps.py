"""The optional ncu-report module and the progress bar."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ncu_roofline.errors import MissingDependencyError
from ncu_roofline.readers import read_source
from tests.helpers import SAMPLE, run


def test_ncu_rep_without_module_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = tmp_path / "profile.ncu-rep"
    report.write_bytes(b"NVR\x00" + b"\x01" * 64)
    # A None entry makes `import ncu_report` raise ImportError.
    monkeypatch.setitem(sys.modules, "ncu_report", None)
    with pytest.raises(MissingDependencyError) as exc:
        read_source(str(report))
    assert "pip install 'ncu-roofline[ncu-rep]'" in str(exc.value)
    assert MissingDependencyError.exit_code == 6


def test_cli_missing_module_exit_code(tmp_path: Path) -> None:
    report = tmp_path / "profile.ncu-rep"
    report.write_bytes(b"NVR\x00" + b"\x01" * 64)
    code = (
        "import sys; sys.modules['ncu_report'] = None; "
        "from ncu_roofline.cli import main; main(['inspect', sys.argv[1]])"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(report)], capture_output=True, text=True)
    assert proc.returncode == 6
    assert "ncu-roofline[ncu-rep]" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_progress_bar_only_when_asked_or_on_a_terminal() -> None:
    forced = run("inspect", "--progress", "always", str(SAMPLE))
    assert forced.returncode == 0, forced.stderr
    assert "reading" in forced.stderr and "100.0%" in forced.stderr
    # stderr is a pipe here, so the default shows nothing.
    auto = run("inspect", str(SAMPLE))
    assert auto.returncode == 0, auto.stderr
    assert "reading" not in auto.stderr
    assert forced.stdout == auto.stdout
