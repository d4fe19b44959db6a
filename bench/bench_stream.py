"""Large-export benchmark: ``inspect`` and ``report --format json`` on a multi-GB details export.

Each command runs as its own child process under ``/usr/bin/time -v`` (wall
time and peak RSS, interpreter start-up and imports included), after the file
has been read once so that it is in the page cache.  ``--whole`` runs the same
commands with the batch reader switched off (``NCU_ROOFLINE_STREAM_BYTES``
set beyond the file's size): the whole-table reader, for comparison.

``--stages`` also runs each command once in-process with the peak RSS of each
stage measured (the kernel's high-water mark, reset with
``/proc/self/clear_refs`` at each stage's start): the parse into the compact
table, the rest of the read (pivot to launches and checks), the analysis and
report context, and the rendering.  That says whether the peak comes from the
reader or from building the report.

Goals (checked with ``--check``, exit 1 when one is missed), for a file over
1 GB: ``inspect`` peak RSS <= 0.5x the file; ``report --format json`` peak
RSS <= 3 GB.

Usage::

    .venv/bin/python bench/make_large_export.py --size-mb 6000 --launches 1 \\
        -o bench/out/details_6g.csv
    .venv/bin/python bench/bench_stream.py bench/out/details_6g.csv --stages --check
    .venv/bin/python bench/bench_stream.py bench/out/details_6g.csv --whole   # for comparison
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_ingest import (  # the sibling script, found through sys.path
    _code_version,
    _machine,
    measure,
    warm_page_cache,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = REPO_ROOT / "bench" / "out" / "details_6g.csv"
OUT_JSON = REPO_ROOT / "bench" / "out" / "bench_stream_report.json"

INSPECT_MEMORY_GOAL = 0.5  # inspect peak RSS / file size, for files over 1 GB
REPORT_MEMORY_GOAL = 3e9  # report --format json peak RSS, bytes


def _commands(path: Path) -> dict[str, list[str]]:
    return {
        "inspect --json": ["inspect", str(path), "--json"],
        "report --format json": [
            "report",
            str(path),
            "--format",
            "json",
            "-o",
            str(OUT_JSON),
            "--force",
        ],
    }


# --------------------------------------------------------------------------
# Stages, in-process (``bench_stream.py --stage-child CMD...``).


def _hwm_kb() -> int:
    with open("/proc/self/status") as fh:
        found = re.search(r"VmHWM:\s+(\d+)", fh.read())
    return int(found.group(1)) if found else 0


def _reset_hwm() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def _stage_child(args: list[str]) -> int:
    """Run the CLI in-process with each stage's peak RSS recorded; print them as JSON."""
    import ncu_roofline.cli.report as cli_report
    import ncu_roofline.readers as readers
    import ncu_roofline.readers.csv_pages as csv_pages
    from ncu_roofline.cli import main

    open_frames: list[dict[str, Any]] = []
    stages: list[dict[str, Any]] = []

    def wrap(owner: Any, name: str, label: str) -> None:
        real: Callable[..., Any] = getattr(owner, name)

        def timed(*a: Any, **k: Any) -> Any:
            h = _hwm_kb()
            for frame in open_frames:
                frame["peak_kb"] = max(frame["peak_kb"], h)
            frame = {"stage": label, "peak_kb": 0, "t0": time.perf_counter()}
            open_frames.append(frame)
            _reset_hwm()
            try:
                return real(*a, **k)
            finally:
                h = _hwm_kb()
                for f in open_frames:
                    f["peak_kb"] = max(f["peak_kb"], h)
                open_frames.pop()
                stages.append(
                    {
                        "stage": label,
                        "seconds": round(time.perf_counter() - frame["t0"], 2),
                        "peak_rss_mb": round(frame["peak_kb"] / 1024),
                    }
                )

        setattr(owner, name, timed)

    wrap(csv_pages, "read_table", "parse (pyarrow, into the table the pivot reads)")
    wrap(readers, "read_source", "read (parse + pivot to launches + checks)")
    wrap(cli_report, "analyse_and_gate", "read + analysis + report context")
    wrap(cli_report, "render_document", "render (JSON encoding)")
    try:
        main(list(args))
    except SystemExit as exc:
        if exc.code not in (0, None):
            raise
    print(json.dumps({"stages": stages, "process_peak_mb": round(_hwm_kb() / 1024)}))
    return 0


# --------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT_FILE)
    parser.add_argument("--repeat", type=int, default=1, help="measure N times (default 1)")
    parser.add_argument("--whole", action="store_true", help="switch the batch reader off")
    parser.add_argument("--stages", action="store_true", help="also measure each stage")
    parser.add_argument("--only", choices=("inspect", "report"), help="run one command only")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--stage-child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stage_child is not None:
        return _stage_child(args.stage_child)
    path: Path = args.file
    size = path.stat().st_size
    env = dict(os.environ)
    if args.whole:
        env["NCU_ROOFLINE_STREAM_BYTES"] = str(size * 2)
    os.environ.update(env)
    print(f"machine: {_machine()}; load average {os.getloadavg()[0]:.2f}")
    print(f"code: {_code_version()}; input {path.name}: {size / 1e9:.2f} GB")
    print(f"reader: {'whole-table' if args.whole else 'batched above the threshold'}")
    print(f"page cache warmed in {warm_page_cache(path):.1f} s")
    base = [sys.executable, "-m", "ncu_roofline"]
    missed: list[str] = []
    for name, cmd in _commands(path).items():
        if args.only and not name.startswith(args.only):
            continue
        best = float("inf")
        peak = 0
        for run in range(args.repeat):
            wall, rss, _, err, rc = measure([*base, *cmd], use_gnu_time=True)
            if rc != 0:
                print(f"{name}: exit {rc}\n{err[-2000:]}")
                missed.append(f"{name} failed")
                break
            best, peak = min(best, wall), max(peak, rss)
            print(
                f"  {name:<22} run {run + 1}: {wall:7.1f} s  {rss / 1e9:5.2f} GB  {rss / size:.2f}x"
            )
        if name.startswith("inspect") and peak > INSPECT_MEMORY_GOAL * size and size > 1e9:
            missed.append(f"inspect peak RSS {peak / size:.2f}x the file > {INSPECT_MEMORY_GOAL}x")
        if name.startswith("report") and peak > REPORT_MEMORY_GOAL and size > 1e9:
            missed.append(
                f"report peak RSS {peak / 1e9:.2f} GB > {REPORT_MEMORY_GOAL / 1e9:.0f} GB"
            )
        if args.stages:
            wall, rss, out, err, rc = measure(
                [sys.executable, str(Path(__file__).resolve()), "--stage-child", *cmd],
                use_gnu_time=True,
            )
            if rc != 0:
                print(f"stages of {name}: exit {rc}\n{err[-2000:]}")
                continue
            result = json.loads(out.strip().splitlines()[-1])
            for stage in result["stages"]:
                print(
                    f"    {stage['stage']:<50} {stage['seconds']:7.1f} s  peak {stage['peak_rss_mb']:6,} MB"
                )
    for line in missed:
        print(f"goal missed: {line}")
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
