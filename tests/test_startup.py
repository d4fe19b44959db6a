"""Start-up: the commands that read no data load neither pandas nor pyarrow,
and every command loads only the libraries it uses.

Each command runs in a fresh interpreter (a module imported by an earlier test
would hide an import); the child prints which heavy libraries it loaded.
Whether start-up is fast is measured by ``bench/bench_startup.py``, not here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ncu_roofline.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[1]

#: Runs the command line in-process, then lists the heavy libraries it imported.
_CHILD = """
import json, sys
from ncu_roofline.cli import main
sys.argv = ["ncu-roofline", *json.loads(sys.argv[1])]
code = 0
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
heavy = ("jinja2", "numpy", "pandas", "plotly", "pyarrow")
loaded = sorted(m for m in heavy if m in sys.modules)
compute = "pyarrow.compute" in sys.modules
models = "ncu_roofline.theory.models" in sys.modules
print("\\n" + json.dumps({"code": code, "loaded": loaded, "compute": compute, "models": models}))
"""

#: Commands that read no data, and the heavy libraries each needs: help and
#: listings none (click's own help, plain text); the GPU table its template.
LISTINGS = [
    (["--help"], []),
    (["--version"], []),
    (["gpus", "--json"], []),
    (["gpus"], ["jinja2"]),
    (["theory", "--list-ops"], []),
    (["theory", "--list-models"], []),
    *(([name, "--help"], []) for name in sorted(COMMANDS)),
]

#: Theory tables: the floor arithmetic is the engine's (numpy), a template
#: writes the text and the page, plotly the page's chart; never pandas or pyarrow.
THEORY = [
    (["theory", "--op", "gemm:M=1,N=2,K=3"], ["jinja2", "numpy"]),
    (
        ["theory", "--model", "llama-3-8b", "--gpu", "a100_80gb_sxm", "--gpu", "h100_sxm5"],
        ["jinja2", "numpy"],
    ),
    (
        ["theory", "--op", "gemm:M=4096,N=4096,K=4096", "--gpu", "H100-SXM", "--format", "json"],
        ["numpy"],
    ),
    (
        ["theory", "--model", "llama-3-8b", "--gpu", "a100_80gb_sxm", "--format", "html"],
        ["jinja2", "numpy", "plotly"],
    ),
]


def _run(
    args: list[str], cwd: Path = ROOT, child: str = _CHILD, env: dict[str, str] | None = None
) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", child, json.dumps(args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        env={
            "PYTHONPATH": str(ROOT),
            "PATH": "/usr/bin:/bin",
            "HOME": str(cwd),
            # The test's own cache folder (conftest): nothing written under HOME.
            "NCU_ROOFLINE_CACHE_DIR": os.environ["NCU_ROOFLINE_CACHE_DIR"],
            **(env or {}),
        },
    )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize(("args", "needs"), LISTINGS, ids=lambda v: " ".join(v) or "none")
def test_listing_loads_no_data_libraries(args: list[str], needs: list[str]) -> None:
    result = _run(args)
    assert result["code"] in (0, None), result
    assert result["loaded"] == needs


@pytest.mark.parametrize(("args", "needs"), THEORY, ids=lambda v: " ".join(v))
def test_theory_loads_neither_pandas_nor_pyarrow(
    args: list[str], needs: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "theory.out"
    result = _run([*args, "-o", str(out)], cwd=tmp_path)
    assert result["code"] in (0, None), result
    assert out.stat().st_size > 0
    assert result["loaded"] == needs


#: Commands that read data load the readers' libraries and their writer's, no
#: other.  inspect counts from the launch columns and reads Arrow arrays from
#: their buffers; the analysis and the report read numpy columns (no frame is
#: built), so neither loads pandas, whose import costs as much as the parse of
#: a 300 MB export.
DATA = [
    (["inspect", "--json"], ["numpy", "pyarrow"]),
    (["report", "--format", "json"], ["numpy", "pyarrow"]),
    (["report", "--format", "md"], ["jinja2", "numpy", "pyarrow"]),
    (["report", "--format", "junit"], ["numpy", "pyarrow"]),
    (["report", "--format", "html"], ["jinja2", "numpy", "plotly", "pyarrow"]),
    (["summary", "--format", "json"], ["numpy", "pyarrow"]),
]


@pytest.mark.parametrize(("args", "needs"), DATA, ids=lambda v: " ".join(v))
def test_data_command_loads_only_what_it_uses(
    args: list[str], needs: list[str], tmp_path: Path
) -> None:
    export = ROOT / "tests" / "data" / "details_nvtx.csv"
    out = ["-o", str(tmp_path / "out")] if args[0] == "report" else []
    result = _run([*args, *out, str(export)], cwd=tmp_path)
    assert result["code"] in (0, None), result
    assert result["loaded"] == needs


@pytest.mark.parametrize("name", ["raw_page.csv", "summary_per_kernel.csv", "details_kt_rules.csv"])
def test_inspect_of_other_layouts_loads_no_pandas(name: str, tmp_path: Path) -> None:
    result = _run(["inspect", "--json", str(ROOT / "tests" / "data" / name)], cwd=tmp_path)
    assert result["code"] in (0, None), result
    assert result["loaded"] == ["numpy", "pyarrow"]
    assert result["compute"] is False


def test_inspect_of_several_inputs_loads_no_pandas(tmp_path: Path) -> None:
    """Inputs (passes of one run among them) and the tables of one file are
    joined as launch columns, and passes found from them: no frame is built."""
    data = ROOT / "tests" / "data"
    passes = data / "passes" / "Giotyp__GPU-Roofline-Python__multi_kernels_timing.csv"
    two = tmp_path / "two_tables.csv"
    two.write_bytes((data / "details_nvtx.csv").read_bytes() * 2)
    inputs = [data / "details_nvtx.csv", data / "raw_page.csv", passes, passes, two]
    result = _run(["inspect", "--json", *map(str, inputs)], cwd=tmp_path)
    assert result["code"] in (0, None), result
    assert result["loaded"] == ["numpy", "pyarrow"]


@pytest.mark.parametrize("name", sorted(set(COMMANDS) - {"theory"}))
def test_command_help_loads_no_model_table(name: str) -> None:
    """The theory options' defaults come from ``theory.defaults``, not the model
    table (which only the ``theory`` command, listing the models, loads)."""
    result = _run([name, "--help"])
    assert result["code"] in (0, None), result
    assert result["models"] is False


@pytest.mark.parametrize(
    "args", [["inspect", "--json"], ["summary", "--format", "json"], ["report", "--format", "md"]]
)
def test_data_commands_call_arrow_kernels_without_the_compute_module(
    args: list[str], tmp_path: Path
) -> None:
    """``pyarrow.compute`` builds a wrapper per kernel on import (about 25 ms); the
    readers, the analysis' grouping and the report cache call the registry through
    ``core.compute`` instead."""
    export = ROOT / "tests" / "data" / "details_nvtx.csv"
    out = ["-o", str(tmp_path / "out")] if args[0] == "report" else []
    result = _run([*args, *out, str(export)], cwd=tmp_path)
    assert result["code"] in (0, None), result
    assert result["compute"] is False


def test_group_help_lists_each_command_with_its_own_summary() -> None:
    for name, (_module, summary) in COMMANDS.items():
        command = cli.get_command(None, name)  # type: ignore[arg-type]
        assert command is not None and command.help is not None
        assert command.help.split("\n\n")[0].replace("\n", " ") == summary


def test_group_help_matches_clicks_own_listing() -> None:
    from click.testing import CliRunner

    lazy = CliRunner().invoke(cli, ["--help"], terminal_width=80).output
    for name in COMMANDS:
        cli.get_command(None, name)  # type: ignore[arg-type]
    assert len(cli.commands) == len(COMMANDS)
    longest = max(len(name) for name in COMMANDS)
    rows = [
        f"  {name:<{longest + 1}} {cmd.get_short_help_str(80 - 6 - longest)}"
        for name, cmd in sorted(cli.commands.items())
    ]
    assert lazy.split("Commands:\n")[1].splitlines() == rows


_READ_CHILD = """
import json, sys
import ncu_roofline.readers as readers
real = readers.load
seen = []
def load(*args, **kwargs):
    seen.append("pandas" in sys.modules)
    return real(*args, **kwargs)
readers.load = load
from ncu_roofline.cli import main
try:
    main(json.loads(sys.argv[1]))
except SystemExit as exc:
    assert not exc.code, exc.code
print(json.dumps({"pandas_at_read": seen}))
"""


@pytest.mark.parametrize("command", [["report", "--format", "json"], ["summary"]])
def test_pandas_is_loaded_only_after_the_read(command: list[str], tmp_path: Path) -> None:
    """The parse's peak memory holds no pandas: the engine is imported after the read."""
    export = ROOT / "tests" / "data" / "details_nvtx.csv"
    out = ["-o", str(tmp_path / "out")] if command[0] == "report" else []
    result = _run([*command, *out, str(export)], cwd=tmp_path, child=_READ_CHILD)
    assert result == {"pandas_at_read": [False]}


def test_inspect_read_in_batches_loads_no_pandas(tmp_path: Path) -> None:
    """A table read batch by batch, its launch IDs past the size at which a dictionary
    is unified by Arrow (:data:`~ncu_roofline.readers.stream.ARROW_VALUES`): still
    neither pandas nor ``pyarrow.compute``."""
    from ncu_roofline.readers.stream import ARROW_VALUES

    # The small export's launches again and again, each copy's IDs the next ones.
    lines = (ROOT / "tests" / "data" / "details_nvtx.csv").read_text().splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = [line.split('","', 1) for line in lines[head + 1 :]]
    ids = len({first for first, _ in rows})
    copies = [
        f'"{int(first.strip(chr(34))) + k * ids}","{rest}'
        for k in range(ARROW_VALUES // ids + 2)
        for first, rest in rows
    ]
    export = tmp_path / "many.csv"
    export.write_text("\n".join([*lines[: head + 1], *copies]) + "\n")
    # Batches of 4 MiB from the first byte on, one parse thread: one stretch.
    env = {"NCU_ROOFLINE_STREAM_BYTES": "1", "NCU_ROOFLINE_PARSE_THREADS": "1"}
    result = _run(["inspect", "--json", str(export)], cwd=tmp_path, env=env)
    assert result["code"] in (0, None), result
    assert result["loaded"] == ["numpy", "pyarrow"]
    assert result["compute"] is False
