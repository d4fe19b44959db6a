"""Two versions of ncu-roofline side by side on the goal inputs: before against after.

bench_goals.py measures one version against the goals; this compares two
source trees (two checkouts or worktrees of the repository) command by
command, so that a change is measured on the same host in the same minutes:

* each (shape, command) pair runs ``--repeat`` times per side, the sides
  interleaved (before, after, before, after, ...), every run a whole child
  process (``python -m ncu_roofline`` with ``PYTHONPATH`` set to the side's
  tree, run from a neutral folder so that neither tree shadows the other);
* every run is cold: the input's modification time is moved to five seconds
  ago first (a parse cache keyed on it misses; the cache keeps no file
  modified within two seconds), and each side has a cache folder of its own
  for the whole invocation, as a user's would hold the previous runs;
* the best wall time of each side is printed with the range of its peak RSS
  (``/usr/bin/time``, else ``getrusage``, as bench_ingest.py measures it).

The inputs are bench_goals.py's (``bench/out/goals_<shape>_<size>mb.csv``),
built when missing.

Usage::

    git worktree add /tmp/before c7582e9
    python bench/bench_sides.py --before /tmp/before --after . \\
        --shapes many,raw --commands html,json,summary,inspect --repeat 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

# The benchmark folder is the script's own: its modules import as they are.
import bench_goals
import bench_ingest

COMMANDS = ("html", "json", "summary", "inspect")


def _args(command: str, path: Path, out_dir: Path) -> list[str]:
    if command == "html":
        return ["report", str(path), "-o", str(out_dir / "sides.html"), "--force"]
    if command == "json":
        return [
            "report",
            str(path),
            "--format",
            "json",
            "-o",
            str(out_dir / "sides.json"),
            "--force",
        ]
    if command == "summary":
        return ["summary", str(path)]
    return ["inspect", str(path), "--json"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="source tree of the old version")
    parser.add_argument("--after", type=Path, required=True, help="source tree of the new version")
    parser.add_argument("--shapes", default="many", help="comma-separated bench_goals shapes")
    parser.add_argument("--commands", default="html,json,summary", help=f"of {', '.join(COMMANDS)}")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--size-mb", type=float, default=524)
    args = parser.parse_args()
    commands = args.commands.split(",")
    unknown = [c for c in commands if c not in COMMANDS]
    if unknown:
        parser.error(f"unknown command(s): {', '.join(unknown)}")
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    for name, root in sides.items():
        if not (root / "ncu_roofline" / "__init__.py").is_file():
            parser.error(f"--{name} {root}: no ncu_roofline package there")
    gnu = os.access(bench_ingest._GNU_TIME, os.X_OK)
    caches = {name: tempfile.mkdtemp(prefix=f"bench_sides_{name}_") for name in sides}
    neutral = tempfile.mkdtemp(prefix="bench_sides_cwd_")
    bench_goals.OUT_DIR.mkdir(parents=True, exist_ok=True)
    print(f"before {sides['before']}\nafter  {sides['after']}", flush=True)
    for shape in args.shapes.split(","):
        path = bench_goals.input_path(shape, args.size_mb)
        if not path.exists():
            bench_goals.build_input(shape, path, args.size_mb)
        for command in commands:
            runs: dict[str, list[tuple[float, int]]] = {name: [] for name in sides}
            for _ in range(args.repeat):
                for name, root in sides.items():
                    stamp = time.time() - 5.0
                    os.utime(path, (stamp, stamp))
                    os.environ["PYTHONPATH"] = str(root)
                    os.environ["NCU_ROOFLINE_CACHE_DIR"] = caches[name]
                    cmd = [
                        sys.executable,
                        "-m",
                        "ncu_roofline",
                        *_args(command, path, bench_goals.OUT_DIR),
                    ]
                    cwd = os.getcwd()
                    os.chdir(neutral)
                    try:
                        wall, rss, _, err, rc = bench_ingest.measure(cmd, gnu)
                    finally:
                        os.chdir(cwd)
                    if rc != 0:
                        raise SystemExit(
                            f"{name}: {' '.join(cmd)} failed (exit {rc}):\n{err[-2000:]}"
                        )
                    runs[name].append((wall, rss))
            cells = []
            for name in sides:
                walls = [w for w, _ in runs[name]]
                peaks = [r // 1_000_000 for _, r in runs[name]]
                cells.append(f"{name} {min(walls):.2f} s ({min(peaks)}-{max(peaks)} MB)")
            print(f"{shape:10} {command:8} " + "  ".join(cells), flush=True)


if __name__ == "__main__":
    main()
