"""Several inputs read at once against one after the other, as whole processes.

Copies one export ``--copies`` times (under other names, so no input is read
twice) and runs ``ncu-roofline inspect COPIES... --json`` with
``NCU_ROOFLINE_JOBS=1`` and with the default (one input per core), runs
interleaved, fastest of ``--repeat``.  The two outputs must be byte-identical.

Usage::

    .venv/bin/python bench/make_large_export.py --layout raw --size-mb 1 --launches 100000
    .venv/bin/python bench/bench_parallel.py bench/out/large_raw.csv --copies 4 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ingest import _GNU_TIME, measure

DEFAULT_INPUT = Path(__file__).resolve().parent / "out" / "large_raw.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default=str(DEFAULT_INPUT))
    parser.add_argument("--copies", type=int, default=4, help="inputs per command (default 4)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each (default 3)")
    args = parser.parse_args(argv)
    gnu_time = os.path.exists(_GNU_TIME)
    cmd = [sys.executable, "-m", "ncu_roofline", "inspect"]
    results: dict[str, list[tuple[float, int]]] = {"serial": [], "parallel": []}
    with tempfile.TemporaryDirectory(prefix="bench_parallel_") as tmp:
        copies = []
        for i in range(args.copies):
            target = Path(tmp) / f"copy{i}{Path(args.input).suffix}"
            shutil.copyfile(args.input, target)
            copies.append(str(target))
        outputs: dict[str, str] = {}
        for _ in range(args.repeat):
            for mode, jobs in (("serial", "1"), ("parallel", "")):
                env_jobs = os.environ.pop("NCU_ROOFLINE_JOBS", None)
                if jobs:
                    os.environ["NCU_ROOFLINE_JOBS"] = jobs
                try:
                    wall, rss, out, err, code = measure([*cmd, *copies, "--json"], gnu_time)
                finally:
                    os.environ.pop("NCU_ROOFLINE_JOBS", None)
                    if env_jobs is not None:
                        os.environ["NCU_ROOFLINE_JOBS"] = env_jobs
                if code != 0:
                    print(err, file=sys.stderr)
                    return 2
                outputs[mode] = out
                results[mode].append((wall, rss))
                print(f"{mode:8s} {wall:6.2f} s  peak RSS {rss / 1e6:7.0f} MB", flush=True)
    if outputs["serial"] != outputs["parallel"]:
        print("the two outputs differ", file=sys.stderr)
        return 2
    best = {mode: min(w for w, _ in runs) for mode, runs in results.items()}
    peak = {mode: max(r for _, r in runs) for mode, runs in results.items()}
    print(
        f"best: one after the other {best['serial']:.2f} s, at once {best['parallel']:.2f} s "
        f"({best['serial'] / best['parallel']:.2f}x); peak RSS {peak['serial'] / 1e6:.0f} "
        f"/ {peak['parallel'] / 1e6:.0f} MB; os.cpu_count() = {os.cpu_count()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
