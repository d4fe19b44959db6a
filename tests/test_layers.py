"""The import-linter contracts in pyproject.toml can fail.

A contract that never breaks proves nothing: these tests copy the package
and pyproject.toml to a temporary folder, inject an import that runs the
wrong way, and check that ``lint-imports`` (the one installed beside the
interpreter, as ``.ci/run`` runs it) exits non-zero naming the broken
contract, and that it passes on the unmodified copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import REPO

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
LAYERS = "Stages: core <- readers, theory <- analysis <- report <- render, fleet <- cli, notebook"
NO_STAGE = "The version and error modules import no stage"


def _copy(tmp_path: Path) -> Path:
    """The package and its pyproject.toml, without caches, in a fresh folder."""
    copy = tmp_path / "copy"
    shutil.copytree(
        REPO / "ncu_roofline",
        copy / "ncu_roofline",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
    )
    shutil.copy(REPO / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _lint(copy: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS.is_file(), f"import-linter is not installed beside {sys.executable}"
    env = {**os.environ, "PYTHONPATH": str(copy)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(copy / "pyproject.toml"), "--no-cache"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _inject(module: Path, line: str) -> None:
    text = module.read_text(encoding="utf-8")
    module.write_text(f"{text}\n{line}\n", encoding="utf-8")


def _said(proc: subprocess.CompletedProcess[str]) -> str:
    """What lint-imports printed, with its line wrapping undone (it wraps long contract names)."""
    return " ".join(proc.stdout.split())


def test_the_unmodified_copy_keeps_every_contract(tmp_path: Path) -> None:
    proc = _lint(_copy(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{LAYERS} KEPT" in _said(proc)
    assert f"{NO_STAGE} KEPT" in _said(proc)


@pytest.mark.parametrize(
    ("module", "line", "broken", "kept"),
    [
        # core is the bottom layer: it may not import the renderers.
        ("core/units.py", "import ncu_roofline.render", LAYERS, NO_STAGE),
        # readers and theory are siblings: neither imports the other.
        ("readers/__init__.py", "import ncu_roofline.theory", LAYERS, NO_STAGE),
        # render and fleet are siblings: a writer never queries a dataset.
        ("render/tabular.py", "import ncu_roofline.fleet", LAYERS, NO_STAGE),
        # the two front ends are siblings: the notebook API never runs a command.
        ("notebook.py", "import ncu_roofline.cli", LAYERS, NO_STAGE),
        # the version module imports no stage.
        ("version.py", "import ncu_roofline.core", NO_STAGE, LAYERS),
    ],
)
def test_a_wrong_way_import_breaks_its_contract(
    tmp_path: Path, module: str, line: str, broken: str, kept: str
) -> None:
    copy = _copy(tmp_path)
    _inject(copy / "ncu_roofline" / module, f"{line}  # noqa: F401, E402")
    proc = _lint(copy)
    assert proc.returncode != 0, proc.stdout
    assert f"{broken} BROKEN" in _said(proc), proc.stdout
    assert f"{kept} KEPT" in _said(proc), proc.stdout
    assert line.split()[-1] in proc.stdout  # the report names the offending import
