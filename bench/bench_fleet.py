"""Run datasets at fleet scale: history of one kernel, a fleet-wide query, one export.

Builds a dataset of ``--runs`` runs x ``--groups`` kernel groups (x
``--launches-per-group`` launch rows), written through the exporter's own
atomic writer from the tables of the shipped sample (kernel names varied to
make the groups, durations with 1% noise per run and a 20% step in one
kernel half-way), then times whole processes, on the dataset as exported
(one file per run and table) and after ``ncu-roofline compact`` (one file
per table and day; the goals are for the compacted dataset):

* ``ncu-roofline history DATASET --kernel K --format json`` (goal <= 2 s);
* ``ncu-roofline query`` of the fleet-wide "most slowed kernel groups this
  month" SQL in ``docs/fleet.md`` (goal <= 5 s);
* ``ncu-roofline compact DATASET`` itself (no goal);
* in-process: the export of one ``--export-launches`` launch profile
  (made with ``make_large_export.py``) beyond its analysis (goal <= 2 s).

Usage: ``python bench/bench_fleet.py [--runs 10000] [--groups 100]
[--launches-per-group 10] [--repeat 3] [--skip-uncompacted] [--check]``.
The dataset is kept in ``bench/out/`` and reused when its size matches
(compacted or not: a compacted one skips the uncompacted timings).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from ncu_roofline.analysis import analyze  # noqa: E402
from ncu_roofline.fleet.dataset import (  # noqa: E402
    export_analysis,
    plan_run,
    read_table,
    write_run,
)
from ncu_roofline.fleet.tables import Run, run_columns, run_tables  # noqa: E402
from ncu_roofline.readers import load  # noqa: E402

SAMPLE = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.details.csv"
OUT = REPO / "bench" / "out"
T0 = datetime(2026, 11, 5, tzinfo=timezone.utc)


def _replicate(table: pa.Table, rows: int, groups: int) -> pa.Table:
    """``rows`` rows cycling over ``table``'s, kernel names varied over ``groups`` names."""
    idx = pa.array(np.arange(rows) % table.num_rows)
    out = table.take(idx)
    suffix = pa.array([f"_v{i % groups:03d}" for i in range(rows)])
    for name in ("kernel", "kernel_short"):
        col = out.column(name)
        out = out.set_column(
            out.schema.get_field_index(name), name, pc.binary_join_element_wise(col, suffix, "")
        )
    return out


def _with_run(table: pa.Table, run: Run, scale: np.ndarray) -> pa.Table:
    cols = run_columns(run, table.num_rows)
    for i, name in enumerate(("run_id", "run_time", "tags")):
        table = table.set_column(i, name, cols[i])
    for name in ("duration_s", "total_duration_s"):
        if name in table.column_names:
            j = table.schema.get_field_index(name)
            values = np.asarray(pc.fill_null(table.column(name), 0.0)) * scale
            table = table.set_column(j, name, pa.array(values))
    return table


def build(dataset: Path, runs: int, groups: int, per_group: int) -> None:
    """The bench dataset (see the module docstring)."""
    base = run_tables(analyze(load([str(SAMPLE)])), Run("0" * 16, T0))
    (gpu,) = base["groups"]
    group_rows = _replicate(base["groups"][gpu], groups, groups)
    launch_rows = _replicate(base["launches"][gpu], groups * per_group, groups)
    rng = np.random.default_rng(5)
    stepped_g = np.char.endswith(np.asarray(group_rows.column("kernel_short"), dtype=str), "_v007")
    stepped_l = np.char.endswith(np.asarray(launch_rows.column("kernel_short"), dtype=str), "_v007")
    t = time.perf_counter()
    for r in range(runs):
        run = Run(f"{r:016x}", T0 + timedelta(minutes=3 * r), {"commit": f"c{r:05d}"})
        step = 1.2 if r >= runs // 2 else 1.0
        gs = (1 + rng.uniform(-0.01, 0.01, groups)) * np.where(stepped_g, step, 1.0)
        ls = (1 + rng.uniform(-0.01, 0.01, launch_rows.num_rows)) * np.where(stepped_l, step, 1.0)
        tables = {
            "launches": {gpu: _with_run(launch_rows, run, ls)},
            "groups": {gpu: _with_run(group_rows, run, gs)},
            "findings": {
                gpu: _with_run(base["findings"][gpu], run, np.ones(base["findings"][gpu].num_rows))
            },
            "runs": {"": _with_run(base["runs"][""], run, np.ones(1))},
        }
        write_run(str(dataset), run, tables)
        if r and r % 1000 == 0:
            print(f"  {r:,} runs written ({time.perf_counter() - t:.0f} s)", flush=True)


def _best(cmd: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, cwd=OUT)
        times.append(time.perf_counter() - t)
    return min(times)


PROG = [sys.executable, "-m", "ncu_roofline"]


def _files(dataset: Path) -> int:
    return sum(1 for _ in dataset.glob("table=*/**/*.parquet"))


def _queries(dataset: Path, repeat: int) -> tuple[float, float]:
    """Best times of the one-kernel history and the fleet-wide query, whole processes."""
    hist = _best(
        [
            *PROG,
            "history",
            str(dataset),
            "--kernel",
            "_v007",
            "--format",
            "json",
            "-o",
            str(OUT / "fleet_history.json"),
            "--force",
        ],
        repeat,
    )
    sql = (REPO / "docs" / "fleet.md").read_text().split("```sql\n", 1)[1].split("```", 1)[0]
    fleet = _best(
        [
            *PROG,
            "query",
            str(dataset),
            sql,
            "--format",
            "csv",
            "-o",
            str(OUT / "fleet_top.csv"),
            "--force",
        ],
        repeat,
    )
    return hist, fleet


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--groups", type=int, default=100)
    ap.add_argument("--launches-per-group", type=int, default=10)
    ap.add_argument("--export-launches", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--skip-uncompacted", action="store_true", help="time only the compacted dataset"
    )
    ap.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    dataset = OUT / f"fleet_{args.runs}x{args.groups}x{args.launches_per_group}"
    if (
        not (dataset / "table=runs").is_dir()
        or read_table(str(dataset), "runs", ["run_id"]).num_rows != args.runs
    ):
        shutil.rmtree(dataset, ignore_errors=True)
        build(dataset, args.runs, args.groups, args.launches_per_group)
    print(
        f"dataset: {args.runs:,} runs x {args.groups} groups ({args.runs * args.groups:,} "
        f"group rows, {args.runs * args.groups * args.launches_per_group:,} launch rows)"
    )
    misses = 0
    compacted = not any((dataset / "table=runs").glob("*/part-*.parquet"))
    if not compacted and not args.skip_uncompacted:
        hist, fleet = _queries(dataset, args.repeat)
        print(f"  as exported ({_files(dataset):,} files):")
        print(f"    history of one kernel        {hist:6.2f} s")
        print(f"    fleet-wide top regressions   {fleet:6.2f} s")
    if not compacted:
        t = time.perf_counter()
        subprocess.run([*PROG, "compact", str(dataset)], check=True, capture_output=True)
        print(f"  compact                        {time.perf_counter() - t:6.2f} s")
    hist, fleet = _queries(dataset, args.repeat)
    print(f"  compacted ({_files(dataset):,} files):")
    for label, value, goal in (
        ("history of one kernel", hist, 2.0),
        ("fleet-wide top regressions", fleet, 5.0),
    ):
        ok = value <= goal
        misses += not ok
        print(f"    {label:26s} {value:6.2f} s (goal <= {goal:g}){'' if ok else '  MISSED'}")
    big = OUT / f"html_details_{args.export_launches}.csv"
    if big.is_file():
        analysis = analyze(load([str(big)]))
        target = OUT / "fleet_export"
        shutil.rmtree(target, ignore_errors=True)
        t = time.perf_counter()
        planned = plan_run(str(target), [str(big)], {"commit": "bench"}, False)
        export_analysis(str(target), planned, analysis)
        spent = time.perf_counter() - t
        misses += spent > 2.0
        print(
            f"  export of {len(analysis.launches):,} launches beyond analysis {spent:6.2f} s (goal <= 2)"
        )
    else:
        print(
            f"  export: {big.name} not found (make it with bench_html.py or make_large_export.py)"
        )
    return 1 if (args.check and misses) else 0


if __name__ == "__main__":
    raise SystemExit(main())
