"""Ingest benchmark: ``ncu-roofline inspect`` against a bare pyarrow parse.

Both measurements run as separate child processes so that wall time and peak
resident memory are comparable (both include interpreter start-up and
imports):

* **bare**: ``pyarrow.csv.read_csv`` of the same file and the same columns the
  details reader converts, with the same options as
  ``ncu_roofline/readers/table.py`` (header passed as ``column_names`` cut to
  the metric-row width, an invalid-row handler that skips the wider rule rows,
  16 MiB blocks, one thread where rule rows are skipped) but plain ``string``
  columns instead of dictionary-encoded ones, and nothing done with the table
  afterwards;
* **inspect**: ``ncu-roofline inspect FILE --json``, the real CLI path.

Peak memory comes from ``/usr/bin/time -v`` when it exists, else from
``resource.getrusage(RUSAGE_CHILDREN)`` in a small wrapper process.  The file is
read once beforehand so that both runs find it in the page cache.

Goals (checked, with a non-zero exit on failure, only with ``--check``):
inspect wall time <= 2x the bare parse's, and inspect peak RSS <= 2x the file
size.  With ``--repeat N`` the check uses the fastest time of each and the
largest peak RSS of each.

Usage::

    .venv/bin/python bench/make_large_export.py
    .venv/bin/python bench/bench_ingest.py [FILE] [--repeat 2] [--check] [--json-out PATH]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = REPO_ROOT / "bench" / "out" / "large_details.csv"

#: The columns ncu_roofline's details reader converts (in header order).
NEEDED_COLUMNS = (
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
)

TIME_GOAL = 2.0  # inspect wall time / bare parse wall time
RAW_TIME_GOAL = 1.5  # the same for a ``--page raw`` export
MEMORY_GOAL = 2.0  # inspect peak RSS / file size

_GNU_TIME = "/usr/bin/time"
_BLOCK_SIZE = 16 << 20

# Runs a command and reports its peak RSS when /usr/bin/time is missing.
_RUSAGE_WRAPPER = """
import json, resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(sys.argv[1], "w") as fh:
    json.dump({"maxrss_kb": ru.ru_maxrss, "rc": rc}, fh)
sys.exit(rc)
"""


@dataclass
class Measurement:
    """One child-process run."""

    name: str
    run: int
    wall_s: float
    peak_rss_bytes: int
    detail: dict[str, Any]


# --------------------------------------------------------------------------
# The bare parse (runs in a child process: ``bench_ingest.py --bare-child``).


def _header_position(path: Path) -> tuple[int, list[str], int]:
    """(line index of the ``"ID",...`` header, its fields, metric-row width).

    The width is the most common one among the first 400 rows, as in the reader
    (rule rows are wider than metric rows).
    """
    with open(path, "rb") as fh:
        for idx, line in enumerate(fh):
            if line.startswith((b'"ID",', b'\xef\xbb\xbf"ID",')):
                header = next(csv.reader([line.decode("utf-8").lstrip("\ufeff").rstrip("\r\n")]))
                rows = [fh.readline().decode("utf-8").rstrip("\r\n") for _ in range(400)]
                widths = Counter(len(r) for r in csv.reader(r for r in rows if r.startswith('"')))
                width = widths.most_common(1)[0][0] if widths else len(header)
                return idx, header, width
            if idx > 10_000:
                break
    raise SystemExit(f'{path}: no details-page header (a line starting with "ID",)')


def raw_columns(header: list[str]) -> list[str]:
    """The columns the raw-page reader converts: identity, NVTX and relevant metric columns.

    Asked of ncu_roofline in the parent process, so that the bare child
    imports nothing but pyarrow.
    """
    from ncu_roofline.core.metrics import canonical_metric, is_relevant
    from ncu_roofline.readers.identity import IDENTITY_HEADERS
    from ncu_roofline.readers.nvtx import NVTX_PUSHPOP, NVTX_STARTEND

    ident = [c for c in IDENTITY_HEADERS if c in header]
    nvtx = [h for h in header if h.startswith((NVTX_PUSHPOP, NVTX_STARTEND))]
    metrics = [
        c
        for c in header
        if c not in IDENTITY_HEADERS and c not in nvtx and is_relevant(canonical_metric(c))
    ]
    return ident + nvtx + metrics


def is_raw(header: list[str]) -> bool:
    """Whether a header is a ``--page raw`` one (no ``Metric Value`` column)."""
    return "Metric Value" not in header


def bare_parse(path: Path, raw_include: list[str] | None = None) -> dict[str, Any]:
    """Parse the needed columns the way the reader does; return counts and timing.

    ``raw_include`` (a raw export's) lists the columns to read; the units row
    under the header is skipped with it.
    """
    t0 = time.perf_counter()
    import pyarrow as pa
    import pyarrow.csv as pacsv

    t_import = time.perf_counter() - t0
    header_idx, header, width = _header_position(path)
    names = header[:width]
    rule_width = len(header)
    if raw_include is not None:
        names = _dedupe(header)
        header_idx += 1
    skipped = {"rule": 0, "other": 0}

    def handler(row: Any) -> str:
        skipped["rule" if row.actual_columns == rule_width else "other"] += 1
        return "skip"

    include = raw_include or [c for c in NEEDED_COLUMNS if c in names]
    t1 = time.perf_counter()
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(
            column_names=names,
            skip_rows=header_idx + 1,
            block_size=_BLOCK_SIZE,
            # As the reader: one thread where rule rows call the skip handler.
            use_threads=raw_include is not None or width == rule_width,
        ),
        parse_options=pacsv.ParseOptions(invalid_row_handler=handler, newlines_in_values=False),
        convert_options=pacsv.ConvertOptions(
            include_columns=include,
            column_types={c: pa.string() for c in include},
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
        ),
    )
    t_parse = time.perf_counter() - t1
    return {
        "rows": table.num_rows,
        "columns": table.num_columns,
        "skipped_rule_rows": skipped["rule"],
        "skipped_other_rows": skipped["other"],
        "table_bytes": table.nbytes,
        "import_s": round(t_import, 3),
        "parse_s": round(t_parse, 3),
        "pyarrow": pa.__version__,
    }


def _dedupe(names: list[str]) -> list[str]:
    """Repeated header names made unique as the reader does (``name#2``)."""
    seen: Counter[str] = Counter()
    out: list[str] = []
    for n in names:
        seen[n] += 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


# --------------------------------------------------------------------------
# Child-process measurement.


def _parse_gnu_time(text: str) -> int:
    for line in text.splitlines():
        if "Maximum resident set size" in line:
            return int(line.rsplit(":", 1)[1].strip()) * 1024
    raise RuntimeError(f"no 'Maximum resident set size' in /usr/bin/time output:\n{text}")


def measure(cmd: list[str], use_gnu_time: bool) -> tuple[float, int, str, str, int]:
    """Run ``cmd``; return (wall s, peak RSS bytes, stdout, stderr, exit code)."""
    with tempfile.TemporaryDirectory(prefix="bench_ingest_") as tmp:
        report = os.path.join(tmp, "rusage")
        if use_gnu_time:
            full = [_GNU_TIME, "-v", "-o", report, *cmd]
        else:
            full = [sys.executable, "-c", _RUSAGE_WRAPPER, report, *cmd]
        t0 = time.perf_counter()
        proc = subprocess.run(full, capture_output=True, text=True, check=False)
        wall = time.perf_counter() - t0
        with open(report) as fh:
            text = fh.read()
    rss = _parse_gnu_time(text) if use_gnu_time else int(json.loads(text)["maxrss_kb"]) * 1024
    return wall, rss, proc.stdout, proc.stderr, proc.returncode


def _inspect_command(explicit: str | None) -> list[str]:
    if explicit:
        return explicit.split()
    sibling = Path(sys.executable).with_name("ncu-roofline")
    if sibling.exists():
        return [str(sibling)]
    found = shutil.which("ncu-roofline")
    if found:
        return [found]
    return [sys.executable, "-m", "ncu_roofline"]


def run_bare(
    path: Path, run: int, use_gnu_time: bool, columns_file: Path | None = None
) -> Measurement:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--bare-child", str(path)]
    if columns_file is not None:
        cmd += ["--bare-columns", str(columns_file)]
    wall, rss, out, err, rc = measure(cmd, use_gnu_time)
    if rc != 0:
        raise SystemExit(f"bare parse failed (exit {rc}):\n{err}")
    return Measurement("bare pyarrow read_csv", run, wall, rss, json.loads(out))


def run_inspect(path: Path, run: int, use_gnu_time: bool, base_cmd: list[str]) -> Measurement:
    cmd = [*base_cmd, "inspect", str(path), "--json"]
    wall, rss, out, err, rc = measure(cmd, use_gnu_time)
    if rc != 0:
        raise SystemExit(f"`{' '.join(cmd)}` failed (exit {rc}):\n{err}")
    item = json.loads(out)["inputs"][0]
    detail = {k: item[k] for k in ("layout", "launches", "kernels", "devices")}
    detail["warnings"] = len(item["warnings"])
    return Measurement("ncu-roofline inspect --json", run, wall, rss, detail)


def warm_page_cache(path: Path) -> float:
    t0 = time.perf_counter()
    with open(path, "rb", buffering=0) as fh:
        while fh.read(_BLOCK_SIZE):
            pass
    return time.perf_counter() - t0


# --------------------------------------------------------------------------
# Report.


def _row(m: Measurement, size: int) -> str:
    return (
        f"{m.run:>3}  {m.name:<28} {m.wall_s:>8.2f} {size / 1e6 / m.wall_s:>8.1f} "
        f"{m.peak_rss_bytes / 1e6:>10.0f} {m.peak_rss_bytes / size:>9.2f}"
    )


def _machine() -> str:
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(fh.readline().split()[1])
        mem = f", {kb / 1024**2:.0f} GiB RAM"
    except (OSError, ValueError, IndexError):
        pass
    return f"{os.cpu_count()} CPUs{mem}, {platform.system()} {platform.machine()}, Python {platform.python_version()}"


def _code_version() -> str:
    """``git`` commit of the checkout, with ``+dirty`` when ncu_roofline/ has changes."""
    try:
        sha = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "status", "--porcelain", "--", "ncu_roofline"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha + ("+dirty" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "file",
        nargs="?",
        type=Path,
        default=DEFAULT_FILE,
        help=f"a details-page export (default {DEFAULT_FILE}; build it with make_large_export.py)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="measure N times (default 1)")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is not met")
    parser.add_argument("--json-out", type=Path, help="also write the results as JSON here")
    parser.add_argument(
        "--inspect-cmd",
        help="command that runs ncu-roofline (default: the one next to this Python)",
    )
    parser.add_argument(
        "--no-gnu-time",
        action="store_true",
        help="measure peak RSS with getrusage even when /usr/bin/time exists",
    )
    parser.add_argument("--bare-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bare-columns", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    path: Path = args.file
    if args.bare_child:
        cols = json.loads(args.bare_columns.read_text()) if args.bare_columns else None
        print(json.dumps(bare_parse(path, cols)))
        return 0
    if not path.is_file():
        print(
            f"bench_ingest: {path} not found; run bench/make_large_export.py first",
            file=sys.stderr,
        )
        return 2

    size = path.stat().st_size
    use_gnu_time = not args.no_gnu_time and os.access(_GNU_TIME, os.X_OK)
    inspect_cmd = _inspect_command(args.inspect_cmd)
    print(f"file     {path} ({size / 1e6:,.1f} MB)")
    print(f"machine  {_machine()}")
    print(f"code     {_code_version()} ({' '.join(inspect_cmd)})")
    print(f"memory   peak RSS via {'/usr/bin/time -v' if use_gnu_time else 'getrusage'}")
    print(f"warm-up  read the file once in {warm_page_cache(path):.2f} s (page cache)")
    print()
    print(
        f"{'run':>3}  {'measurement':<28} {'wall s':>8} {'MB/s':>8} {'peak MB':>10} {'RSS/file':>9}"
    )

    header = _header_position(path)[1]
    raw = is_raw(header)
    time_goal = RAW_TIME_GOAL if raw else TIME_GOAL
    columns_file: Path | None = None
    if raw:
        # The bare child reads exactly the raw reader's columns.
        columns_file = Path(tempfile.mkstemp(prefix="bench_ingest_cols_", suffix=".json")[1])
        columns_file.write_text(json.dumps(raw_columns(header)))
    results: list[Measurement] = []
    for run in range(1, args.repeat + 1):
        bare = run_bare(path, run, use_gnu_time, columns_file)
        print(_row(bare, size))
        insp = run_inspect(path, run, use_gnu_time, inspect_cmd)
        print(_row(insp, size))
        results += [bare, insp]

    if columns_file is not None:
        columns_file.unlink()
    bares = [m for m in results if m.name.startswith("bare")]
    insps = [m for m in results if not m.name.startswith("bare")]
    b0, i0 = bares[0].detail, insps[0].detail
    print()
    print(
        f"bare     {b0['rows']:,} {'launch' if raw else 'metric'} rows x {b0['columns']} columns, "
        f"{b0['skipped_rule_rows']:,} rule rows skipped; in-process parse "
        + ", ".join(f"{m.detail['parse_s']:.2f} s" for m in bares)
        + f" (pyarrow {b0['pyarrow']})"
    )
    print(
        f"inspect  {i0['layout']}, {i0['launches']:,} launches, {i0['kernels']} kernels, "
        f"{i0['warnings']} warnings"
    )

    time_ratio = min(m.wall_s for m in insps) / min(m.wall_s for m in bares)
    mem_ratio = max(m.peak_rss_bytes for m in insps) / size
    bare_mem_ratio = max(m.peak_rss_bytes for m in bares) / size
    time_ok = time_ratio <= time_goal
    mem_ok = mem_ratio <= MEMORY_GOAL
    print()
    print(
        f"time     inspect / bare  = {time_ratio:5.2f}x  (goal <= {time_goal:g}x)  "
        + ("met" if time_ok else "NOT MET")
    )
    print(
        f"memory   inspect / file  = {mem_ratio:5.2f}x  (goal <= {MEMORY_GOAL:g}x)  "
        + ("met" if mem_ok else "NOT MET")
        + f"   [bare / file = {bare_mem_ratio:.2f}x]"
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
                    "rss_source": "gnu-time" if use_gnu_time else "getrusage",
                    "measurements": [asdict(m) for m in results],
                    "time_ratio": time_ratio,
                    "memory_ratio": mem_ratio,
                    "goals": {"time": time_goal, "memory": MEMORY_GOAL},
                    "met": {"time": time_ok, "memory": mem_ok},
                },
                indent=2,
            )
        )
    if args.check and not (time_ok and mem_ok):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
