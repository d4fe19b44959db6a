"""Time the stages of ``ncu-roofline report`` on a large export.

Runs load, analyze, report-context and JSON rendering in one process and
prints the wall time of each.  The goal is that everything after loading
costs at most half of the load itself (``--check`` exits 1 otherwise):
reading the CSV is the irreducible part, the analysis must stay vectorised.

Usage::

    .venv/bin/python bench/make_large_export.py --size-mb 1 --launches 100000
    .venv/bin/python bench/bench_report.py [FILE] [--gpu rtx_5090] [--check]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ncu_roofline
from ncu_roofline.render import render_json
from ncu_roofline.report.context import build_context

DEFAULT_INPUT = Path(__file__).resolve().parent / "out" / "large_details.csv"
GOAL_RATIO = 0.5


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default=str(DEFAULT_INPUT))
    parser.add_argument("--gpu", default="rtx_5090", help="GPU for the roofs (default rtx_5090)")
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args(argv)

    stages: list[tuple[str, float]] = []
    t = time.perf_counter()
    profile = ncu_roofline.load([args.input])
    stages.append(("load", time.perf_counter() - t))
    t = time.perf_counter()
    analysis = ncu_roofline.analyze(profile, gpu=args.gpu)
    stages.append(("analyze", time.perf_counter() - t))
    t = time.perf_counter()
    context = build_context(analysis)
    stages.append(("context", time.perf_counter() - t))
    t = time.perf_counter()
    text = render_json(context)
    stages.append(("json", time.perf_counter() - t))

    launches = len(analysis.launches)
    print(f"{args.input}: {launches:,} launches, {len(analysis.kernels):,} kernel groups")
    for name, seconds in stages:
        print(f"  {name:<8} {seconds:7.2f} s")
    after = sum(s for name, s in stages if name != "load")
    ratio = after / stages[0][1]
    print(
        f"  after-load / load = {ratio:.2f} (goal <= {GOAL_RATIO}); JSON {len(text) / 1e6:.1f} MB"
    )
    if args.check and ratio > GOAL_RATIO:
        print("goal missed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
