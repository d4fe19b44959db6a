"""Time the HTML report on a large profile, from analysis to a page ready in a browser.

Builds (or takes) a details export of 50,000 launches made by replicating the
launches of the shipped simulated sample with renumbered IDs, then, in one
process, times loading, analysis, the report context, the page context
(``build_page``, which builds the roofline figures), ``render_html`` and
writing the file.  Finally it opens the page in headless Chromium and measures
how long the page takes until its script has set ``data-ready="1"``.

Goals (``--check`` exits 1 when one is missed):

* HTML written within 5 s of the start of the analysis (analyze + context +
  page + render + write; loading the CSV is reported but not counted);
* the HTML file is at most 15 MB (10^6 bytes);
* the page is interactive within 3 s in headless Chromium: its script has set
  ``data-ready="1"`` without errors and the browser has rendered a frame.

Browser timing, two methods, both reported (fastest of ``--repeat`` runs):

* ``in-page`` (checked against the goal by default): a copy of the page gets
  one extra ``<script>`` after ``report.js`` that logs ``performance.now()``
  (milliseconds since navigation start, so reading and parsing the file
  count) when ``data-ready`` is ``"1"`` (*ready*) and again in a
  ``setTimeout`` inside the next ``requestAnimationFrame`` (*frame*: layout
  and paint of the charts and the table are done).  Read from Chromium's
  console log (``--enable-logging=stderr``); run without
  ``--virtual-time-budget``, so that the clock is real.
* ``wall``: wall time of ``chromium --headless --virtual-time-budget=10000
  --dump-dom PAGE`` minus that of the same command on an empty HTML page
  (browser start-up and shutdown).  The dumped DOM is checked for
  ``data-ready="1"``, an empty ``data-errors`` and the point counts.  This
  also counts serialising the whole DOM (the inline plotly.js included) to
  stdout, so it errs on the slow side; ``--ready-metric wall`` checks the
  goal against it instead.

Usage::

    .venv/bin/python bench/bench_html.py [FILE] [--launches 50000] [--check]

Without FILE the export is written to ``bench/out/html_details_50000.csv``
(git-ignored) unless it is already there (``--rebuild`` rewrites it); the page
goes to ``bench/out/html_report_50000.html``.  ``--variants N`` gives each
copy of the sample's launches one of N grid sizes, for N times as many kernel
groups (files named ``..._50000_xN``).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "bench" / "out"
SAMPLE = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.details.csv"
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
BROWSER_TIMEOUT = 300
_GRID_FIELD = 7  # "Grid Size" in a row without its ID field

GOAL_WRITE_S = 5.0
GOAL_SIZE_MB = 15.0
GOAL_READY_S = 3.0

_READY_MARK = "ncu-roofline-bench-ready"
_PROBE = (
    "<script>(function(){var b=document.body;"
    "function log(what){console.log('" + _READY_MARK + " '+what+' '+"
    "performance.now().toFixed(1));}"
    "function done(){log('ready');"
    "requestAnimationFrame(function(){setTimeout(function(){log('frame');},0);});}"
    "if(b.getAttribute('data-ready')==='1'){done();}else{"
    "new MutationObserver(function(m,o){if(b.getAttribute('data-ready')==='1')"
    "{o.disconnect();done();}}).observe(b,{attributes:true});}})();</script>"
)


# --------------------------------------------------------------------------- input


def _split_template(template: Path) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """The template's lines up to the header, and its launches as (ID, rest of line) rows."""
    lines = template.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(i for i, ln in enumerate(lines) if ln.startswith('"ID",'))
    launches: list[list[tuple[str, str]]] = []
    last = None
    for line in lines[header + 1 :]:
        if not line.startswith('"'):
            continue
        launch_id = next(csv.reader([line]))[0]
        prefix = f'"{launch_id}",'
        if not line.startswith(prefix):
            raise SystemExit(
                f"{template}: row does not start with a plain quoted ID: {line[:60]!r}"
            )
        if launch_id != last:
            launches.append([])
            last = launch_id
        launches[-1].append((launch_id, line[len(prefix) :]))
    if not launches:
        raise SystemExit(f"{template}: no launches after the header")
    return lines[: header + 1], launches


def _with_grid_variant(rest: str, variant: int) -> str:
    """``rest`` (a row after its ID) with the grid's z dimension raised by ``variant``."""
    if variant == 0:
        return rest
    body = rest.rstrip("\r\n")
    ending = rest[len(body) :]
    fields = next(csv.reader([body]))
    x, y, z = (int(v) for v in fields[_GRID_FIELD].strip("()").split(","))
    fields[_GRID_FIELD] = f"({x}, {y}, {z + variant})"
    trailing = body.endswith(",") and fields[-1] == ""
    kept = fields[:-1] if trailing else fields
    line = ",".join('"' + f.replace('"', '""') + '"' for f in kept)
    return line + ("," if trailing else "") + ending


def make_export(output: Path, template: Path, launches: int, variants: int = 1) -> tuple[int, int]:
    """Replicate the template's launches, IDs renumbered 0..N-1; return (bytes, launches).

    With ``variants`` > 1, copy ``c`` of the template's launches gets grid
    ``(x, y, z + c % variants)``: the same counters under ``variants`` times as
    many kernel groups (a group is kernel name, grid and block).
    """
    head, template_launches = _split_template(template)
    per_variant = [
        [[_with_grid_variant(rest, v) for _, rest in rows] for rows in template_launches]
        for v in range(max(1, variants))
    ]
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    written = 0
    with open(tmp, "w", encoding="utf-8", newline="", buffering=1 << 20) as fh:
        text = "".join(head)
        fh.write(text)
        written += len(text.encode())
        per_copy = len(template_launches)
        for n in range(launches):
            rows = per_variant[(n // per_copy) % len(per_variant)][n % per_copy]
            chunk = "".join(f'"{n}",{rest}' for rest in rows)
            fh.write(chunk)
            written += len(chunk.encode())
    os.replace(tmp, output)
    return written, launches


# --------------------------------------------------------------------------- browser


def find_browser(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def _chromium(browser: str, profile: Path, virtual_time: bool) -> list[str]:
    args = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
    ]
    if virtual_time:
        args.append("--virtual-time-budget=10000")
    return args


def dump_dom(browser: str, page: Path, workdir: Path) -> tuple[float, str]:
    """Wall seconds of one ``--dump-dom`` run, and the DOM it printed."""
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    t = time.perf_counter()
    proc = subprocess.run(
        [*_chromium(browser, profile, True), "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
    )
    elapsed = time.perf_counter() - t
    shutil.rmtree(profile, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"chromium failed on {page}:\n{proc.stderr[-2000:]}")
    return elapsed, proc.stdout


def in_page_ready(browser: str, page: Path, workdir: Path) -> dict[str, float]:
    """Milliseconds from navigation start to data-ready and to the next frame (probed copy)."""
    text = page.read_text(encoding="utf-8")
    cut = text.rfind("</body>")
    probed = workdir / "probed.html"
    probed.write_text(text[:cut] + _PROBE + text[cut:], encoding="utf-8")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    proc = subprocess.run(
        [
            *_chromium(browser, profile, False),
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
            probed.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=BROWSER_TIMEOUT,
    )
    shutil.rmtree(profile, ignore_errors=True)
    return {
        what: float(ms) for what, ms in re.findall(_READY_MARK + r" (\w+) ([0-9.]+)", proc.stderr)
    }


def body_attrs(dom: str) -> dict[str, str]:
    m = re.search(r"<body\b([^>]*)>", dom)
    return dict(re.findall(r'([\w-]+)="([^"]*)"', m.group(1))) if m else {}


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", type=Path, default=None)
    parser.add_argument("--launches", type=int, default=50_000, help="default 50,000")
    parser.add_argument("--template", type=Path, default=SAMPLE, help="export to replicate")
    parser.add_argument(
        "--variants",
        type=int,
        default=1,
        help="grid variants per kernel: N times the sample's 13 kernel groups (default 1)",
    )
    parser.add_argument("--rebuild", action="store_true", help="rewrite the generated export")
    parser.add_argument("-o", "--html", type=Path, default=None, help="page to write")
    parser.add_argument("--gpu", default=None, help="GPU for the roofs (default: the profile's)")
    parser.add_argument("--model", default=None, help="add theory from a built-in model")
    parser.add_argument("--plotly-js", choices=("inline", "cdn"), default="inline")
    parser.add_argument("--browser", default=None, help="browser binary (default: on PATH)")
    parser.add_argument("--no-browser", action="store_true", help="skip the browser timing")
    parser.add_argument("--repeat", type=int, default=3, help="browser runs each (fastest kept)")
    parser.add_argument(
        "--ready-metric",
        choices=("frame", "wall"),
        default="frame",
        help="browser figure the 3 s goal is checked against (default: in-page frame)",
    )
    parser.add_argument("--json-out", type=Path, default=None, help="write the figures as JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    args = parser.parse_args(argv)

    import ncu_roofline
    from ncu_roofline.render.html_report import render_html
    from ncu_roofline.render.output import write_atomic
    from ncu_roofline.render.page import build_page
    from ncu_roofline.report.context import build_context

    stem = f"{args.launches}" + (f"_x{args.variants}" if args.variants > 1 else "")
    source = args.input or OUT / f"html_details_{stem}.csv"
    html_path = args.html or OUT / f"html_report_{stem}.html"
    if args.input is None and (args.rebuild or not source.is_file()):
        t = time.perf_counter()
        size, n = make_export(source, args.template, args.launches, args.variants)
        print(
            f"wrote {source.relative_to(REPO)}: {size / 1e6:,.1f} MB, {n:,} launches "
            f"in {time.perf_counter() - t:.1f} s"
        )

    theory = None
    if args.model:
        from ncu_roofline.theory.config import TheoryConfig
        from ncu_roofline.theory.models import find_model

        theory = TheoryConfig(model=find_model(args.model))

    stages: list[tuple[str, float]] = []

    def timed(name: str, fn: Any, *a: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        result = fn(*a, **kw)
        stages.append((name, time.perf_counter() - t0))
        return result

    profile = timed("load", ncu_roofline.load, [str(source)])
    analysis = timed("analyze", ncu_roofline.analyze, profile, gpu=args.gpu, theory=theory)
    context = timed("context", build_context, analysis)
    page = timed("page", build_page, context, plotly_js=args.plotly_js)
    text = timed("render", render_html, page)
    timed("write", write_atomic, html_path, text, force=True)

    size_mb = html_path.stat().st_size / 1e6
    write_s = sum(s for name, s in stages if name != "load")
    counts = page["counts"]
    figures: dict[str, Any] = {
        "input": str(source),
        "launches": len(analysis.launches),
        "kernel_groups": len(analysis.kernels),
        "points": counts["points"],
        "launch_points": counts["launch_points"],
        "stages_s": dict(stages),
        "analysis_to_file_s": write_s,
        "html_mb": size_mb,
    }
    print(
        f"{source}: {figures['launches']:,} launches, {figures['kernel_groups']:,} kernel groups, "
        f"{counts['points']:,} group points, {counts['launch_points']:,} launch points"
    )
    for name, seconds in stages:
        print(f"  {name:<8} {seconds:7.2f} s")
    print(f"  analysis to file  {write_s:6.2f} s (goal <= {GOAL_WRITE_S:g})")
    print(f"  HTML size         {size_mb:6.2f} MB (goal <= {GOAL_SIZE_MB:g})")

    missed = []
    if write_s > GOAL_WRITE_S:
        missed.append("analysis to file")
    if size_mb > GOAL_SIZE_MB:
        missed.append("file size")

    browser = None if args.no_browser else find_browser(args.browser)
    if browser is None and not args.no_browser:
        print("  browser: none found, page timing skipped", file=sys.stderr)
        if args.check:
            missed.append("page ready (no browser)")
    if browser:
        with tempfile.TemporaryDirectory(prefix="bench-html-") as tmp:
            work = Path(tmp)
            empty = work / "empty.html"
            empty.write_text("<!DOCTYPE html><html><body></body></html>\n", encoding="utf-8")
            baselines = [dump_dom(browser, empty, work)[0] for _ in range(args.repeat)]
            runs = []
            dom = ""
            for _ in range(args.repeat):
                seconds, dom = dump_dom(browser, html_path, work)
                runs.append(seconds)
            attrs = body_attrs(dom)
            probes = [in_page_ready(browser, html_path, work) for _ in range(args.repeat)]
        wall_s = min(runs) - min(baselines)
        in_page = {
            what: min(p[what] for p in probes if what in p) / 1000
            for what in ("ready", "frame")
            if any(what in p for p in probes)
        }
        figures.update(
            {
                "browser": subprocess.run(
                    [browser, "--version"], capture_output=True, text=True, timeout=60
                ).stdout.strip(),
                "baseline_wall_s": baselines,
                "page_wall_s": runs,
                "ready_wall_s": wall_s,
                "in_page_ms": probes,
                "ready_in_page_s": in_page.get("ready"),
                "frame_in_page_s": in_page.get("frame"),
                "body": attrs,
            }
        )
        print(
            f"  browser: empty page {min(baselines):.2f} s, report {min(runs):.2f} s "
            f"(runs: {', '.join(f'{r:.2f}' for r in runs)})"
        )
        print(f"  page ready, wall - empty      {wall_s:6.2f} s")
        for what, label in (("ready", "data-ready"), ("frame", "next frame")):
            if what in in_page:
                print(f"  page {label + ', in-page':<25}{in_page[what]:6.2f} s")
        print(
            f"  body: ready={attrs.get('data-ready')} points={attrs.get('data-points')} "
            f"drawn={attrs.get('data-drawn-points')} rows={attrs.get('data-rows')} "
            f"errors={attrs.get('data-errors')!r}"
        )
        checked = wall_s if args.ready_metric == "wall" else in_page.get("frame")
        if attrs.get("data-ready") != "1" or attrs.get("data-errors"):
            missed.append("page ready (not ready or JS errors)")
        elif checked is None:
            missed.append("page ready (the in-page probe reported nothing)")
        else:
            print(
                f"  interactive ({args.ready_metric}) {checked:6.2f} s (goal <= {GOAL_READY_S:g})"
            )
            if checked > GOAL_READY_S:
                missed.append("page interactive")

    if args.json_out:
        args.json_out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    if missed:
        print(f"goal missed: {', '.join(missed)}", file=sys.stderr)
        if args.check:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
