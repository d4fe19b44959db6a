"""Peer benchmark: ``ncu-roofline report`` against the NERSC roofline post-processing script.

The peer is a re-implementation of the pandas core of ``postprocess.py`` from
NERSC's "Roofline on NVIDIA GPUs" scripts (Charlene Yang et al.,
https://gitlab.com/NERSC/roofline-on-nvidia-gpus; the fork read here is the
mirror ``rashwanth/RooflineAnalysis_On_NVIDIA_GPU``, file
``custom-scripts/postprocess.py``).  Its steps, kept here:

1. find the line holding ``Host Name`` (the table header) and read the CSV
   from there with ``pandas.read_csv``;
2. the fork's fix for thousands separators: remove every ``,`` from
   ``Metric Value`` and convert it to floats;
3. sum ``Metric Value`` per (``Kernel Name``, ``Metric Name``) and pivot to
   one row per kernel name, one column per metric;
4. ``Count`` = rows per kernel name (``groupby(...).count()['ID']``) divided
   by the number of metric columns;
5. ``Time`` = ``sm__cycles_elapsed.avg`` / (``sm__cycles_elapsed.avg.per_second``
   / ``Count``); CUDA-core FLOPs = 2 x FMA + MUL + ADD of double, single and
   half precision (``sm__sass_thread_inst_executed_op_*_pred_on.sum``);
   tensor FLOPs = 512 x ``sm__inst_executed_pipe_tensor.sum``; all FLOPs;
   arithmetic intensity against ``dram__bytes.sum``, ``lts__t_bytes.sum`` and
   ``l1tex__t_bytes.sum``; GFLOP/s with 1024^3.

The script then plots with matplotlib; the peer stops before that.  Two
changes were needed for it to run on current exports, and neither makes it
do more work: values such as ``n/a`` (which ``astype(float)`` refuses) become
NaN through ``pandas.to_numeric(errors="coerce")``, and metrics the export
lacks (the script's counter names are ncu 2020's) are NaN columns, so every
formula still runs over every kernel row.  The peer keeps one row per
*kernel name*, summing the counters of all its launches; ``ncu-roofline``
keeps every launch.

Three things run, each as a whole child process (interpreter start-up and
imports included), interleaved, ``--repeat`` rounds:

* **peer**: the steps above (``bench_peer.py --peer-child FILE``);
* **report html**: ``ncu-roofline report FILE -o OUT.html --force``;
* **report json**: ``ncu-roofline report FILE --format json -o OUT.json --force``.

Goals (best time of each; ``--check`` exits 1 when one is missed): report
html <= 1.3x the peer, report json <= 1.6x the peer.  Peak RSS is measured as
in ``bench_ingest.py`` (``/usr/bin/time -v``, else ``getrusage``).

Usage::

    .venv/bin/python bench/make_large_export.py --size-mb 524 --launches 1 \\
        -o bench/out/large_details_524.csv
    .venv/bin/python bench/bench_peer.py bench/out/large_details_524.csv --repeat 5 --check

``--before CMD`` runs a second ``ncu-roofline`` (an older checkout, e.g.
``env PYTHONPATH=OLD .venv/bin/ncu-roofline``) in each round as well.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ingest import (
    _code_version,
    _inspect_command,
    _machine,
    measure,
    warm_page_cache,
)

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = REPO_ROOT / "bench" / "out" / "large_details_524.csv"
OUT_DIR = REPO_ROOT / "bench" / "out"

HTML_GOAL = 1.3  # report html wall time / peer wall time
JSON_GOAL = 1.6  # report json wall time / peer wall time

#: The counters ``postprocess.py`` reads (ncu 2020 names).
PEER_METRICS = (
    "sm__cycles_elapsed.avg",
    "sm__cycles_elapsed.avg.per_second",
    "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
    "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
    "sm__inst_executed_pipe_tensor.sum",
    "dram__bytes.sum",
    "lts__t_bytes.sum",
    "l1tex__t_bytes.sum",
)


@dataclass
class Measurement:
    """One child-process run."""

    name: str
    run: int
    wall_s: float
    peak_rss_bytes: int
    detail: dict[str, Any]


# --------------------------------------------------------------------------
# The peer (runs in a child process: ``bench_peer.py --peer-child FILE``).


def peer(path: Path) -> dict[str, Any]:
    """The pandas core of ``postprocess.py`` on one export; a summary of its per-kernel table."""
    t0 = time.perf_counter()
    import pandas as pd

    # The header is the first line naming "Host Name"; everything before it is log.
    count = 0
    with open(path) as fh:
        for line in fh:
            count += 1
            if "Host Name" in line:
                break
    df = pd.read_csv(path, skiprows=count - 1)
    t_read = time.perf_counter() - t0

    # The fork's thousands-separator fix (commas removed, then numbers).
    text = df["Metric Value"].replace(",", "", regex=True)
    df["Metric Value"] = pd.to_numeric(text, errors="coerce").astype(float)

    sums = df.groupby(["Kernel Name", "Metric Name"])["Metric Value"].sum().reset_index()
    metric = pd.pivot_table(sums, index="Kernel Name", columns="Metric Name", values="Metric Value")
    measured = metric.shape[1]
    metric["Count"] = df.groupby(["Kernel Name"]).count()["ID"].div(measured)
    absent = [name for name in PEER_METRICS if name not in metric.columns]
    metric = metric.assign(**dict.fromkeys(absent, float("nan")))

    def m(name: str) -> Any:
        return metric[name]

    op = "sm__sass_thread_inst_executed_op_{}_pred_on.sum"
    metric["Time"] = m("sm__cycles_elapsed.avg") / (
        m("sm__cycles_elapsed.avg.per_second") / m("Count")
    )
    metric["CC FLOPs"] = (
        2 * m(op.format("dfma"))
        + m(op.format("dmul"))
        + m(op.format("dadd"))
        + 2 * m(op.format("ffma"))
        + m(op.format("fmul"))
        + m(op.format("fadd"))
        + 2 * m(op.format("hfma"))
        + m(op.format("hmul"))
        + m(op.format("hadd"))
    )
    metric["TC FLOPs"] = 512 * m("sm__inst_executed_pipe_tensor.sum")
    metric["all FLOPs"] = m("CC FLOPs") + m("TC FLOPs")
    metric["AI HBM"] = m("all FLOPs").div(m("dram__bytes.sum"))
    metric["AI L2"] = m("all FLOPs").div(m("lts__t_bytes.sum"))
    metric["AI L1"] = m("all FLOPs").div(m("l1tex__t_bytes.sum"))
    metric["GFLOP/s"] = m("all FLOPs") / m("Time") / 1024 / 1024 / 1024
    metric["TC GFLOP/s"] = m("TC FLOPs") / m("Time") / 1024 / 1024 / 1024
    # What the script hands to its plot.
    plotted = {
        "labels": metric.index.tolist(),
        "ai_l1": metric["AI L1"].tolist(),
        "ai_l2": metric["AI L2"].tolist(),
        "ai_hbm": metric["AI HBM"].tolist(),
        "gflops": metric["GFLOP/s"].tolist(),
    }
    return {
        "rows": len(df),
        "kernels": len(plotted["labels"]),
        "metrics": int(measured),
        "absent_metrics": len(absent),
        "launch_rows_per_kernel": [float(c) for c in metric["Count"].tolist()],
        "read_s": round(t_read, 3),
        "total_s": round(time.perf_counter() - t0, 3),
        "pandas": pd.__version__,
    }


# --------------------------------------------------------------------------
# Child-process measurement.


def run_peer(path: Path, run: int, use_gnu_time: bool) -> Measurement:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--peer-child", str(path)]
    wall, rss, out, err, rc = measure(cmd, use_gnu_time)
    if rc != 0:
        raise SystemExit(f"peer failed (exit {rc}):\n{err}")
    return Measurement("peer (NERSC postprocess core)", run, wall, rss, json.loads(out))


def run_report(
    path: Path, fmt: str, run: int, use_gnu_time: bool, base_cmd: list[str], label: str = ""
) -> Measurement:
    target = OUT_DIR / f"bench_peer_report{label.replace(' ', '_')}.{fmt}"
    cmd = [*base_cmd, "report", str(path), "-o", str(target), "--force"]
    if fmt == "json":
        cmd[len(base_cmd) + 2 : len(base_cmd) + 2] = ["--format", "json"]
    wall, rss, _out, err, rc = measure(cmd, use_gnu_time)
    if rc != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed (exit {rc}):\n{err}")
    detail: dict[str, Any] = {"output_bytes": target.stat().st_size}
    if fmt == "json":
        with open(target, "rb") as fh:
            doc = json.load(fh)
        detail["launches"] = len(doc["launches"])
        detail["kernels"] = len(doc["kernels"])
    return Measurement(f"ncu-roofline report {fmt}{label}", run, wall, rss, detail)


def _row(m: Measurement, size: int) -> str:
    return (
        f"{m.run:>3}  {m.name:<39} {m.wall_s:>8.2f} "
        f"{m.peak_rss_bytes / 1e6:>10.0f} {m.peak_rss_bytes / size:>9.2f}"
    )


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=DEFAULT_FILE,
        help=f"a details-page export (default {DEFAULT_FILE}; build it with make_large_export.py)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is not met")
    parser.add_argument("--json-out", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--cmd", help="command that runs ncu-roofline (default: the one next to this Python)"
    )
    parser.add_argument(
        "--before",
        help="a second ncu-roofline command (an older version) to run in each round, "
        "reported beside the first",
    )
    parser.add_argument(
        "--no-gnu-time",
        action="store_true",
        help="measure peak RSS with getrusage even when /usr/bin/time exists",
    )
    parser.add_argument("--peer-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    path: Path = args.file
    if args.peer_child:
        print(json.dumps(peer(path)))
        return 0
    if not path.is_file():
        print(f"bench_peer: {path} not found; run bench/make_large_export.py", file=sys.stderr)
        return 2

    OUT_DIR.mkdir(parents=True, exist_ok=True)
    size = path.stat().st_size
    use_gnu_time = not args.no_gnu_time and os.access("/usr/bin/time", os.X_OK)
    base_cmd = _inspect_command(args.cmd)
    before_cmd = args.before.split() if args.before else None
    print(f"file     {path} ({size / 1e6:,.1f} MB)")
    print(f"machine  {_machine()}")
    print(f"code     {_code_version()} ({' '.join(base_cmd)})")
    print(f"memory   peak RSS via {'/usr/bin/time -v' if use_gnu_time else 'getrusage'}")
    print(f"warm-up  read the file once in {warm_page_cache(path):.2f} s (page cache)")
    print(f"load     {_load()} (1, 5, 15 min) before")
    print()
    print(f"{'run':>3}  {'measurement':<39} {'wall s':>8} {'peak MB':>10} {'RSS/file':>9}")

    results: list[Measurement] = []
    for run in range(1, args.repeat + 1):
        for m in (
            run_peer(path, run, use_gnu_time),
            run_report(path, "html", run, use_gnu_time, base_cmd),
            run_report(path, "json", run, use_gnu_time, base_cmd),
            *(
                run_report(path, fmt, run, use_gnu_time, before_cmd, " (before)")
                for fmt in (("html", "json") if before_cmd else ())
            ),
        ):
            print(_row(m, size), flush=True)
            results.append(m)

    def best(name: str) -> Measurement:
        return min((m for m in results if m.name == name), key=lambda m: m.wall_s)

    p = best("peer (NERSC postprocess core)")
    h, j = best("ncu-roofline report html"), best("ncu-roofline report json")
    print()
    print(
        f"peer     {p.detail['rows']:,} rows, {p.detail['kernels']} kernel names "
        f"(pandas {p.detail['pandas']}; in-process read {p.detail['read_s']:.2f} s "
        f"of {p.detail['total_s']:.2f} s)"
    )
    jd = j.detail
    print(
        f"report   json {jd['output_bytes'] / 1e6:,.1f} MB with {jd['launches']:,} launches, "
        f"{jd['kernels']} kernel groups; html {h.detail['output_bytes'] / 1e6:,.1f} MB"
    )
    print(f"load     {_load()} (1, 5, 15 min) after")
    if before_cmd:
        for fmt in ("html", "json"):
            b = best(f"ncu-roofline report {fmt} (before)")
            print(f"before   {fmt} {b.wall_s:.2f} s = {b.wall_s / p.wall_s:.2f}x the peer")
    html_ratio = h.wall_s / p.wall_s
    json_ratio = j.wall_s / p.wall_s
    html_ok = html_ratio <= HTML_GOAL
    json_ok = json_ratio <= JSON_GOAL
    print()
    print(
        f"html     report / peer = {html_ratio:5.2f}x  (goal <= {HTML_GOAL:g}x)  "
        + ("met" if html_ok else "NOT MET")
    )
    print(
        f"json     report / peer = {json_ratio:5.2f}x  (goal <= {JSON_GOAL:g}x)  "
        + ("met" if json_ok else "NOT MET")
    )
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(
            json.dumps(
                {
                    "file": str(path),
                    "file_bytes": size,
                    "machine": _machine(),
                    "code": _code_version(),
                    "measurements": [asdict(m) for m in results],
                    "ratios": {"html": html_ratio, "json": json_ratio},
                    "goals": {"html": HTML_GOAL, "json": JSON_GOAL},
                    "met": {"html": html_ok, "json": json_ok},
                },
                indent=2,
            )
        )
    if args.check and not (html_ok and json_ok):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
