"""Regenerate everything in this folder: the sample export and its reports.

1. ``simulated_llama3_8b_decode_h100.details.csv`` (``make_simulated.py``);
2. its JSON and HTML reports, with Llama-3-8B decode theory, made exactly as
   ``ncu-roofline report`` makes them (the HTML loads plotly.js from the CDN
   to keep the repository small; the command's default inlines it);
3. a screenshot of the HTML report for the README, when Chromium is at hand.

Run from anywhere: ``python sample_reports/make_reports.py``.  A test checks
that the committed CSV, JSON and HTML match this script's output.  The
generation time printed in the report is fixed so the files are stable.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SAMPLE = "sample_reports/simulated_llama3_8b_decode_h100.details.csv"
STEM = "simulated_llama3_8b_decode_h100"
GENERATED_AT = "2026-11-30T00:00:00+00:00"


def _simulated() -> object:
    spec = importlib.util.spec_from_file_location("make_simulated", HERE / "make_simulated.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_simulated"] = mod
    spec.loader.exec_module(mod)
    return mod


def reports() -> dict[str, str]:
    """The JSON and HTML reports of the sample, as text (deterministic)."""
    from ncu_roofline import analyze, load
    from ncu_roofline.render import render_json
    from ncu_roofline.render.html_report import render_html
    from ncu_roofline.render.page import build_page
    from ncu_roofline.report.context import build_context
    from ncu_roofline.theory.assign import TheoryConfig
    from ncu_roofline.theory.models import find_model

    cwd = os.getcwd()
    # Paths in the reports are as given: relative to the repository root.
    os.chdir(REPO)
    try:
        theory = TheoryConfig(model=find_model("llama-3-8b"), phase="decode", batch=1, seq=2048)
        context = build_context(analyze(load([SAMPLE]), theory=theory))
    finally:
        os.chdir(cwd)
    page = build_page(context, plotly_js="cdn", generated_at=GENERATED_AT)
    return {
        f"{STEM}.report.json": render_json(context),
        f"{STEM}.report.html": render_html(page),
    }


def screenshot(html: Path, png: Path) -> bool:
    """A PNG of the top of the report; False when no Chromium is installed."""
    browser = next(
        (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
    )
    if browser is None:
        return False
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                "--window-size=1400,1500",
                "--virtual-time-budget=10000",
                f"--screenshot={png}",
                html.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return png.exists()


def main() -> int:
    """Write every sample file next to this script."""
    mod = _simulated()
    (HERE / f"{STEM}.details.csv").write_text(mod.render(), encoding="utf-8")  # type: ignore[attr-defined]
    for name, text in reports().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    # The screenshot needs plotly.js, so it is taken from a self-contained copy.
    from ncu_roofline import analyze, load
    from ncu_roofline.render.html_report import render_html
    from ncu_roofline.render.page import build_page
    from ncu_roofline.report.context import build_context
    from ncu_roofline.theory.assign import TheoryConfig
    from ncu_roofline.theory.models import find_model

    os.chdir(REPO)
    theory = TheoryConfig(model=find_model("llama-3-8b"))
    page = build_page(
        build_context(analyze(load([SAMPLE]), theory=theory)), generated_at=GENERATED_AT
    )
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "report.html"
        full.write_text(render_html(page), encoding="utf-8")
        png = HERE / f"{STEM}.report.png"
        if screenshot(full, png):
            print(f"wrote {png.name}")
        else:
            print("no Chromium found: screenshot not updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
