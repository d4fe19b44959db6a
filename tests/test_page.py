"""The HTML page without a browser: escaping, the data blob, formatting."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import ncu_roofline
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.page import build_page
from ncu_roofline.render.templates import _autoescape
from ncu_roofline.report.context import build_context
from tests.helpers import fp32, profile, spec

HOSTILE = '</script><img src=x onerror="alert(1)">'


def _html(kernel: str) -> tuple[str, dict]:  # type: ignore[type-arg]
    rows = [{**fp32(1e9), "dram__bytes.sum": 1e8, "gpu__time_duration.sum": 1e-3}]
    p = profile(rows, kernel=kernel)
    context = build_context(ncu_roofline.analyze(p, gpu=spec(), clocks="datasheet"))
    page = build_page(context, plotly_js="cdn", generated_at="2026-01-01T00:00:00+00:00")
    return render_html(page), page


def test_markup_templates_are_escaped_and_text_templates_are_not() -> None:
    assert _autoescape("report.html.j2")
    assert _autoescape("anything.xml")
    assert not _autoescape("inspect.txt.j2")
    assert not _autoescape("theory.txt.j2")


def test_hostile_kernel_name_is_text_everywhere() -> None:
    html, _ = _html(HOSTILE)
    assert "<img" not in html
    assert "&lt;img src=x onerror=" in html  # the table and findings show it as text
    # Every script element closes once: the name cannot end one early.
    assert html.count("<script") == html.count("</script>")
    blob = re.search(
        r'<script type="application/json" id="ncu-roofline-data">(.*?)</script>', html, re.S
    )
    assert blob is not None
    data = json.loads(blob.group(1), parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
    assert "roofline-0" in data["charts"]


def test_page_numbers_are_formatted_in_the_context() -> None:
    # 1e9 FLOPs over 1 ms on a 1e12 FLOP/s, 1e11 B/s GPU with 1e8 bytes:
    # AI 10 = ridge 10, so compute-bound at 1e12 / 1e12 = 100% of the roof.
    _, page = _html("k")
    row = page["kernels"][0]
    cells = {c["key"]: c["text"] for c in row["cells"]}
    assert cells["achieved"] == "1 TFLOP/s"
    assert cells["efficiency"] == "100.0%"
    assert cells["time"] == "1 ms"
    assert row["bound"] == "compute"
    assert page["counts"]["points"] == 1


def test_kernel_rows_name_a_binding_level_other_than_dram(samples_dir: Path) -> None:
    # A100 GEMM tutorial: randomInit does 0.0024 FLOP per L2 byte, so at the
    # 3.92 TB/s L2 roof it can reach 0.0024 x 3.92e12 = 9.5 GFLOP/s, far
    # under its DRAM-side roof (0.31 FLOP/B x 1.56 TB/s = 480 GFLOP/s): L2 binds.
    path = samples_dir / "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
    ctx = build_context(ncu_roofline.analyze(ncu_roofline.load([str(path)])))
    roofs = {c["key"]: c["value"] for c in ctx["roofs"][0]["ceilings"]}
    init = [k for k in ctx["kernels"] if k["kernel_short"] == "randomInit"]
    assert len(init) == 2
    for k in init:
        assert k["ai_l2"] == pytest.approx(0.00242, abs=0.00001)
        assert k["ai_l2"] * roofs["l2"] < k["ai_dram"] * roofs["dram"]
    # With the table's L1 roof (108 SMs x 128 B x 765 MHz = 10.6 TB/s) L1
    # binds tighter still: launch 0 does 838,860,800 FFMA x 2 = 1.68e9 FLOPs
    # over l1tex__t_bytes.sum 16,852,881,244,160 B, 1.0e-4 FLOP/B, so at most
    # 1.0e-4 x 10.6e12 = 1.05 GFLOP/s, under the 9.5 GFLOP/s at L2.
    for k in init:
        assert k["ai_l1"] == pytest.approx(1_677_721_600 / 16_852_881_244_160, rel=0.01)
        assert k["ai_l1"] * roofs["l1"] < k["ai_l2"] * roofs["l2"]
    rows = {r["short"]: r["binding"] for r in build_page(ctx)["kernels"]}
    assert rows == {"gemm_v0": "binding level: L1", "randomInit": "binding level: L1"}
    html = render_html(build_page(ctx))
    assert html.count('<div class="reason binding">binding level: L1</div>') == 3


def test_first_screen_parts() -> None:
    # One compute-bound group at 100% of the roof: nothing recoverable, so no
    # "top" row; the bound table keeps only the class that has kernels.
    _, page = _html("k")
    shown = [b["bound"] for b in page["summary"]["by_bound_shown"]]
    assert shown == ["compute"]
    assert len(page["summary"]["by_bound"]) == 5
    assert page["collect"] is None
    # Its one marker is a circle or a diamond: either way "diamonds have
    # findings" tells nothing when every marker (or none) is one.
    assert page["marker_hint"] == ""


def test_header_names_each_roof_source_once(samples_dir) -> None:  # type: ignore[no-untyped-def]
    from ncu_roofline import load

    bert = samples_dir / (
        "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
        "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
    )
    context = build_context(ncu_roofline.analyze(load([str(bert)]), gpu="a100_40gb_pcie"))
    page = build_page(context, plotly_js="cdn", generated_at="2026-01-01T00:00:00+00:00")
    summary = page["devices"][0]["summary"]
    assert summary.count("A100 PCIe 40GB (built-in table)") == 1, summary
    assert "at the measured SM clock" in summary
    # One of BERT's ten measured groups has a finding: the shapes mean something;
    # its copies and fills (no FLOPs) are on the bandwidth strip, said too.
    hints = page["marker_hint"].split("; ")
    assert hints[0] == "diamonds have findings"
    assert hints[1].startswith("triangles at the left edge do no floating-point work")


def test_nothing_placed_gives_the_inspect_command(samples_dir) -> None:  # type: ignore[no-untyped-def]
    from ncu_roofline import load

    export = samples_dir / ("Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv")
    context = build_context(ncu_roofline.analyze(load([str(export)]), gpu="a100_40gb_pcie"))
    page = build_page(context, plotly_js="cdn", generated_at="2026-01-01T00:00:00+00:00")
    collect = page["collect"]
    assert collect is not None and page["charts"] == []
    assert collect["reasons"] == ["No duration in the export"]
    (item,) = collect["inputs"]
    # The summary export has DRAM and L2 sectors but no time and no FLOPs.
    assert item["missing"].startswith("kernel duration, FP64 FLOP counts")
    assert item["command"].startswith("ncu --metrics gpu__time_duration.sum,")
    assert not collect["no_roofs"]
