"""The package installs from a wheel into a fresh environment and runs from there."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from ncu_roofline.render.templates import templates_dir
from tests.helpers import REPO, SAMPLE


def _readme_test_command() -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```(?:bash|sh|console)?\n(.*?)```", text, flags=re.S)
    commands = [line.strip() for b in blocks for line in b.splitlines() if "pytest" in line]
    assert len(commands) == 1, commands
    return commands[0]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_test_command() in ci.splitlines()


def test_templates_found_in_source_checkout() -> None:
    assert (templates_dir() / "inspect.txt.j2").is_file()


@pytest.mark.slow
def test_wheel_installs_and_runs_in_fresh_venv(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)],
        check=True,
    )
    wheels = list(dist.glob("ncu_roofline-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "ncu_roofline/templates/inspect.txt.j2" in names
    assert "ncu_roofline/templates/gpus.txt.j2" in names
    assert "ncu_roofline/core/data/gpus.toml" in names
    assert not any(n.startswith("tests/") for n in names)

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", str(wheels[0])], check=True)
    sample = SAMPLE
    # Run from an unrelated directory, without the checkout on PYTHONPATH, so
    # nothing resolves through the checkout.
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [str(env_dir / "bin" / "ncu-roofline"), "inspect", str(sample)],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "layout    details" in out.stdout
    # The report needs the GPU table shipped as package data.
    report = subprocess.run(
        [str(env_dir / "bin" / "ncu-roofline"), "report", str(sample), "-o", "r.json"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
    )
    assert report.returncode == 0, report.stderr
    assert '"schema_version":"1.0"' in (tmp_path / "r.json").read_text()
    gpus = subprocess.run(
        [str(env_dir / "bin" / "ncu-roofline"), "gpus"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "h100_sxm5" in gpus.stdout
    located = subprocess.run(
        [str(py), "-c", "import ncu_roofline.render.templates as r; print(r.templates_dir())"],
        cwd=tmp_path,
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(env_dir) in located.stdout
