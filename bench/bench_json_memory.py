"""Memory and time of writing the JSON report: whole document against pieces.

Loads and analyses an export once, then writes its JSON report in one of
two ways and samples the resident set size (Linux ``/proc/self/statm``,
every 5 ms) while it does:

* ``whole``: the way reports were written before, every launch as a dict
  and the whole document encoded into one ``bytes`` object;
* ``chunks``: as ``report --format json`` writes now, the launches made and
  encoded :data:`~ncu_roofline.render.json_report.CHUNK_LAUNCHES` at a time.

It prints the RSS after the analysis, the peak while writing and the time
of the writing stage.  Run each mode in its own process (the peak of one
would hide the other's) and compare the two files: they must be identical.

Usage::

    .venv/bin/python bench/make_large_export.py --size-mb 1 --launches 100000 \\
        -o bench/out/large100k.csv
    .venv/bin/python bench/bench_json_memory.py bench/out/large100k.csv --mode whole
    .venv/bin/python bench/bench_json_memory.py bench/out/large100k.csv --mode chunks
    cmp bench/out/report_whole.json bench/out/report_chunks.json
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from pathlib import Path

import ncu_roofline
from ncu_roofline.core.columns import LAUNCH_FIELDS
from ncu_roofline.render import stream_document
from ncu_roofline.render.json_report import render_json_bytes
from ncu_roofline.render.output import write_output
from ncu_roofline.report.context import _fields, build_context
from ncu_roofline.report.records import records

OUT = Path(__file__).resolve().parent / "out"
_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss() -> int:
    """This process's resident set size in bytes."""
    with open("/proc/self/statm", encoding="ascii") as fh:
        return int(fh.read().split()[1]) * _PAGE


class Peak(threading.Thread):
    """Samples the RSS until stopped; ``peak`` is the largest seen."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak = rss()
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(0.005):
            self.peak = max(self.peak, rss())

    def stop(self) -> int:
        self._stop_event.set()
        self.join()
        return max(self.peak, rss())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("--mode", choices=("whole", "chunks"), required=True)
    parser.add_argument("-o", "--output", help="default bench/out/report_MODE.json")
    args = parser.parse_args(argv)
    out = args.output or str(OUT / f"report_{args.mode}.json")

    analysis = ncu_roofline.analyze(ncu_roofline.load([args.input]))
    base = rss()
    sampler = Peak()
    sampler.start()
    t = time.perf_counter()
    context = build_context(analysis)
    if args.mode == "whole":
        launches = records(analysis.launches, _fields(analysis.launches, LAUNCH_FIELDS))
        write_output(render_json_bytes({**context, "launches": launches}), out, force=True)
    else:
        write_output(stream_document("report", "json", context), out, force=True)
    seconds = time.perf_counter() - t
    peak = sampler.stop()
    mb = 1e6
    print(
        f"{args.mode}: {len(analysis.launches):,} launches; RSS after analysis "
        f"{base / mb:,.0f} MB, peak while writing {peak / mb:,.0f} MB "
        f"(+{(peak - base) / mb:,.0f} MB); writing {seconds:.2f} s; "
        f"{os.path.getsize(out) / mb:,.1f} MB written"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
