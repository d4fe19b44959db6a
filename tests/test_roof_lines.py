"""Roofs are drawn as a roofline is drawn, and their names stay readable.

Each memory roof (DRAM, L2, L1) ends where it meets the highest compute roof
shown at first: no drawn diagonal runs on past it to a roof that waits
hidden in the legend.  A hidden compute roof above the shown ones carries
the primary memory roof's stretch up to it in its own trace, so the stretch
is hidden with it.  Checked on the figure JSON of the shipped sample, real
exports and the theory page; the theory page's roof names are checked in a
browser, at a phone's width and a desktop's, to sit inside the plot area
and clear of one another.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis.theory_table import rows_from_model
from ncu_roofline.core.hardware import find_gpu
from ncu_roofline.render.charts import roofline_figures
from ncu_roofline.render.charts.theory_page import theory_figure
from ncu_roofline.report.context import build_context
from ncu_roofline.report.theory import build_theory_table, theory_chart_context
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import find_model
from tests.helpers import SAMPLE, run
from tests.test_report_browser import BERT, TIMEOUT, chromium_args, find_browser

#: Real exports with FLOP counters (so some roofs are shown and some hidden),
#: with the GPU of those whose export names none.
REAL = (
    (BERT, "a100_40gb_pcie"),
    (BERT, "h100_sxm5"),
    ("wangzy0327__cuda-roofline__src_output_A100.csv", None),
    ("CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv", None),
)
REL = 1e-9


def _kind(t: dict[str, Any]) -> str:
    """``compute roofs`` or ``memory roofs`` for a roof's trace; ``""`` for any other."""
    meta = t.get("meta") or {}
    if "value" not in meta:
        return ""
    return str(meta.get("kind") or t["legendgroup"])


def _visible(t: dict[str, Any]) -> bool:
    return t.get("visible", True) is True


def check_roofs(figure: dict[str, Any]) -> int:
    """Check every device's roofs in ``figure``; the number of hidden roofs with a stretch."""
    roofs = [t for t in figure["data"] if _kind(t)]
    devices: dict[Any, list[dict[str, Any]]] = {}
    for t in roofs:
        devices.setdefault(t["meta"].get("gpu_name"), []).append(t)
    stretched = 0
    for traces in devices.values():
        compute = [t for t in traces if _kind(t) == "compute roofs"]
        memory = [t for t in traces if _kind(t) == "memory roofs"]
        shown = [t["meta"]["value"] for t in compute if _visible(t)]
        assert shown, "no compute roof drawn at first"
        top = max(shown)
        for t in memory:
            # Every diagonal, drawn or hidden, ends at the ridge of the top shown roof.
            bandwidth = t["meta"]["value"]
            assert max(t["x"]) == pytest.approx(top / bandwidth, rel=REL)
            assert max(t["y"]) == pytest.approx(top, rel=REL)
        primary = max(
            (t for t in memory if _visible(t)), key=lambda t: t["line"]["width"], default=None
        )
        ridges = [
            t
            for t in figure["data"]
            if t["mode"] == "markers"
            and t["name"].startswith("ridge points")
            and t.get("meta", {}).get("gpu_name") == traces[0]["meta"].get("gpu_name")
        ]
        for t in traces + ridges:
            if _visible(t) and t["y"]:
                assert max(t["y"]) <= top * (1 + REL), t["name"]
        for t in compute:
            value = t["meta"]["value"]
            assert max(t["y"]) == pytest.approx(value, rel=REL)
            if min(t["y"]) < value * (1 - REL):
                # The primary roof's stretch from the top shown roof up to this hidden one.
                assert t.get("visible") == "legendonly", t["name"]
                assert primary is not None
                assert min(t["y"]) == pytest.approx(top, rel=REL)
                bandwidth = primary["meta"]["value"]
                assert min(t["x"]) == pytest.approx(top / bandwidth, rel=REL)
                for x, y in zip(t["x"], t["y"], strict=True):
                    assert y == pytest.approx(min(value, x * bandwidth), rel=1e-6)
                stretched += 1
            elif not _visible(t) and value > top * 1.01:
                pytest.fail(f"hidden roof {t['name']} above the shown ones has no stretch")
    return stretched


def _report_figures(
    path: Path, theory: bool = False, gpu: str | None = None
) -> list[dict[str, Any]]:
    config = None
    if theory:
        config = TheoryConfig(model=find_model("llama-3-8b"), phase="decode", batch=1, seq=2048)
    context = build_context(analyze(load([path]), gpu=gpu, theory=config))
    return [f["figure"] for f in roofline_figures(context)]  # type: ignore[arg-type]


def _theory_figure(gpus: tuple[str, ...]) -> dict[str, Any]:
    config = TheoryConfig(model=find_model("llama-3-8b"), phase="decode", batch=1, seq=2048)
    table = build_theory_table(
        rows_from_model(config.model_ops()),
        [find_gpu(g) for g in gpus],
        model=config.describe()["model"],
        config=config.model,
    )
    fig = theory_figure(theory_chart_context(table))  # type: ignore[arg-type]
    assert fig is not None
    return fig["figure"]  # type: ignore[return-value]


@pytest.mark.parametrize("theory", [False, True])
def test_sample_roofs_end_at_the_top_shown_roof(theory: bool) -> None:
    figures = _report_figures(SAMPLE, theory)
    assert figures
    for figure in figures:
        check_roofs(figure)
        # The view that shows every memory roof keeps them at the same top.
        for button in (figure["layout"].get("updatemenus") or [{}])[0].get("buttons", []):
            shown = dict(figure, data=[dict(t) for t in figure["data"]])
            for t, v in zip(shown["data"], button["args"][0]["visible"], strict=True):
                t["visible"] = v
            top = max(
                t["meta"]["value"]
                for t in shown["data"]
                if _kind(t) == "compute roofs" and _visible(t)
            )
            for t in shown["data"]:
                if _kind(t) == "memory roofs" and _visible(t):
                    assert max(t["y"]) == pytest.approx(top, rel=REL)


@pytest.mark.parametrize(("name", "gpu"), REAL)
def test_real_export_roofs_end_at_the_top_shown_roof(
    name: str, gpu: str | None, samples_dir: Path
) -> None:
    path = samples_dir / name
    if not path.exists():
        pytest.skip(f"{name} not in the samples")
    figures = _report_figures(path, gpu=gpu)
    assert figures
    stretched = sum(check_roofs(figure) for figure in figures)
    if name == BERT:
        # FP32 kernels: the tensor roofs wait hidden far above the FP32 roof.
        assert stretched >= 1


@pytest.mark.parametrize(
    "gpus", [("h100_sxm5",), ("h100_sxm5", "h200_sxm"), ("a100_80gb_sxm", "h200_sxm")]
)
def test_theory_roofs_end_at_the_top_shown_roof(gpus: tuple[str, ...]) -> None:
    figure = _theory_figure(gpus)
    # The H100's FP8 tensor roof (1.98 PFLOP/s) waits hidden over the BF16 one.
    assert check_roofs(figure) >= 1
    labels = figure["layout"]["annotations"]
    assert labels and all(not a["showarrow"] for a in labels)
    # Stretches and hidden roofs carry no name: an annotation would not hide with them.
    texts = " ".join(a["text"] for a in labels)
    assert "FP8" not in texts and "L1" not in texts


def test_roof_names_are_wrapped_to_fit_a_phone() -> None:
    figure = _theory_figure(("h100_sxm5", "h200_sxm"))
    texts = [a["text"] for a in figure["layout"]["annotations"]]
    assert "Tensor BF16, Tensor FP16 989 TFLOP/s<br>(also H200 SXM 141GB)" in texts
    assert "DRAM 3.35 TB/s" in texts and "DRAM 4.8 TB/s" in texts
    assert all(len(line) <= 36 for t in texts for line in t.split("<br>")), texts


_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="{src}#roofline" width="{w}" height="1000" style="border:0"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  setTimeout(function () {{
    var d = document.getElementById("f").contentDocument;
    var chart = d.getElementById("roofline-0");
    var plot = chart.querySelector(".nsewdrag").getBoundingClientRect();
    var boxes = Array.prototype.map.call(chart.querySelectorAll(".annotation"), function (a) {{
      var r = a.getBoundingClientRect();
      return {{ text: a.textContent, l: r.left, r: r.right, t: r.top, b: r.bottom }};
    }});
    var problems = [];
    boxes.forEach(function (a, i) {{
      if (a.l < plot.left - 0.5 || a.r > plot.right + 0.5 || a.t < plot.top - 0.5 ||
          a.b > plot.bottom + 0.5) {{ problems.push("outside: " + a.text); }}
      boxes.slice(i + 1).forEach(function (o) {{
        if (a.l < o.r && o.l < a.r && a.t < o.b && o.t < a.b) {{
          problems.push("overlap: " + a.text + " / " + o.text);
        }}
      }});
    }});
    document.body.setAttribute("data-labels", String(boxes.length));
    document.body.setAttribute("data-plot-width", String(plot.width));
    document.body.setAttribute("data-problems", problems.join("|"));
    document.body.setAttribute("data-done", "1");
  }}, 3000);
}});
</script></body></html>"""


@pytest.mark.parametrize("width", [390, 1440])
def test_theory_roof_names_inside_the_plot_and_apart(width: int, tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser found")
    page = tmp_path / "theory.html"
    proc = run(
        "theory",
        *("--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "2048"),
        *("--gpu", "h100_sxm5", "--gpu", "h200_sxm", "-o", str(page)),
    )
    assert proc.returncode == 0, proc.stderr
    frame = tmp_path / "frame.html"
    frame.write_text(_FRAME.format(src=page.name, w=width), encoding="utf-8")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=tmp_path))
    proc = subprocess.run(
        [
            *chromium_args(browser, profile),
            "--allow-file-access-from-files",
            f"--window-size={max(width + 20, 800)},1000",
            "--dump-dom",
            frame.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    body = dict(lxml.html.document_fromstring(proc.stdout).body.attrib)
    assert body.get("data-done") == "1", body
    # DRAM of each GPU and the three shared compute roofs.
    assert int(body["data-labels"]) == 5, body
    assert body["data-problems"] == "", body
