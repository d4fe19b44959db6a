"""Regenerate everything in this folder: the sample export and its reports.

1. ``simulated_llama3_8b_decode_h100.details.csv`` (``make_simulated.py``);
2. its JSON and HTML reports, with Llama-3-8B decode theory, made exactly as
   ``ncu-roofline report`` makes them (the HTML loads plotly.js from the CDN
   to keep the repository small; the command's default inlines it);
3. the ``theory`` page of the same decode step on an H100 and an H200, as
   ``ncu-roofline theory --model llama-3-8b --gpu h100_sxm5 --gpu h200_sxm``
   makes it;
4. screenshots for the README, when Chromium is at hand: the report and the
   theory page on a desktop, and both side by side at a phone's width.

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
#: The GPUs of the sample theory page: the sample's own, and the one a user
#: would weigh it against.
THEORY_GPUS = ("h100_sxm5", "h200_sxm")
#: A phone's viewport (CSS pixels).  Headless Chromium makes no window under
#: 500 px, so phone views are frames of this size in a wider page.
PHONE = (390, 844)


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
    from ncu_roofline.theory.config import TheoryConfig
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
        f"{STEM}.theory.html": theory_page("cdn"),
    }


def theory_page(plotly_js: str) -> str:
    """The ``theory`` page of the sample's decode step on :data:`THEORY_GPUS`."""
    from ncu_roofline import __version__
    from ncu_roofline.analysis.theory_table import rows_from_model
    from ncu_roofline.core.hardware import find_gpu
    from ncu_roofline.render.html_report import render_theory_html
    from ncu_roofline.render.theory import theory_html_context
    from ncu_roofline.report.theory import build_theory_table
    from ncu_roofline.theory.config import TheoryConfig
    from ncu_roofline.theory.models import find_model

    config = TheoryConfig(model=find_model("llama-3-8b"), phase="decode", batch=1, seq=2048)
    table = build_theory_table(
        rows_from_model(config.model_ops()),
        [find_gpu(g) for g in THEORY_GPUS],
        model=config.describe()["model"],
        config=config.model,
    )
    return render_theory_html(theory_html_context(table), GENERATED_AT, __version__, plotly_js)


def _browser() -> str | None:
    return next(
        (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
    )


def screenshot(html: Path, png: Path, size: tuple[int, int] = (1400, 1500)) -> bool:
    """A PNG of the top of a page; False when no Chromium is installed."""
    browser = _browser()
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
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                f"--window-size={size[0]},{size[1]}",
                "--virtual-time-budget=10000",
                f"--screenshot={png}",
                html.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
    return png.exists()


def phone_frames(pages: list[Path], out: Path) -> tuple[int, int]:
    """A page showing ``pages`` side by side in phone-sized frames; the window it needs."""
    w, h = PHONE
    gap = 8
    frames = "".join(
        f'<iframe src="{p.name}" width="{w}" height="{h}" style="border:1px solid #888"></iframe>'
        for p in pages
    )
    out.write_text(
        '<!DOCTYPE html><html><body style="margin:0;display:flex;'
        f'gap:{gap}px;overflow:hidden;background:#fff">{frames}</body></html>',
        encoding="utf-8",
    )
    return (len(pages) * (w + 2 + gap), h + 2)


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
    from ncu_roofline.theory.config import TheoryConfig
    from ncu_roofline.theory.models import find_model

    os.chdir(REPO)
    theory = TheoryConfig(model=find_model("llama-3-8b"))
    page = build_page(
        build_context(analyze(load([SAMPLE]), theory=theory)), generated_at=GENERATED_AT
    )
    with tempfile.TemporaryDirectory() as tmp:
        full = Path(tmp) / "report.html"
        full.write_text(render_html(page), encoding="utf-8")
        theory = Path(tmp) / "theory.html"
        theory.write_text(theory_page("inline"), encoding="utf-8")
        phone = Path(tmp) / "phone.html"
        shots = [
            (full, HERE / f"{STEM}.report.png", (1400, 1500)),
            (theory, HERE / f"{STEM}.theory.png", (1400, 1500)),
            (phone, HERE / f"{STEM}.phone.png", phone_frames([full, theory], phone)),
        ]
        for html, png, size in shots:
            if not screenshot(html, png, size):
                print("no Chromium found: screenshots not updated")
                break
            print(f"wrote {png.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
