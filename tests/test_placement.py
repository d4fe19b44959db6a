"""Every kernel placed or explained, a failed profile named, advice for every top kernel.

Placement (``analysis/placement.py``): zero-FLOP kernels on the bandwidth
strip, kernels without counters from their theoretical work.  Failed
profiles (``analysis/failed_profile.py``).  A "Try" line for every kernel
group (``analysis/advice.py`` ``group_advice``).
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis.advice import group_advice
from ncu_roofline.analysis.catalogue import CATALOGUE, advice_label
from ncu_roofline.render.charts import roofline_figures
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.markdown_report import render_markdown
from ncu_roofline.render.page import build_page
from ncu_roofline.render.terminal import render_summary
from ncu_roofline.report.context import build_context
from ncu_roofline.theory import find_model
from ncu_roofline.theory.config import TheoryConfig
from tests.helpers import SAMPLE, SAMPLES, check_figure, run

YKTIAN = (
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_"
    "ncu_metrics_show_torch.txt"
)


@cache
def _readme_context() -> dict[str, Any]:
    theory = TheoryConfig(model=find_model("llama-3-8b"))
    return build_context(analyze(load([str(SAMPLE)]), theory=theory))


def _group_traces(fig: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in fig["data"] if (t.get("meta") or {}).get("role") == "groups"]


def _point_of(fig: dict[str, Any], rank: int) -> tuple[dict[str, Any], int]:
    for t in _group_traces(fig):
        if rank in t["meta"]["ranks"]:
            return t, t["meta"]["ranks"].index(rank)
    raise AssertionError(f"group #{rank} has no point")


# --- 1. zero-FLOP kernels on the bandwidth strip --------------------------------


def test_readme_copy_kernel_is_on_the_bandwidth_strip() -> None:
    ctx = _readme_context()
    (k,) = [k for k in ctx["kernels"] if k["kernel_short"] == "elementwise_kernel"]
    assert k["flops"] == 0 and k["placement"] == "bandwidth" and k["rank"] == 2
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    assert all(n["kernel_short"] != "elementwise_kernel" for n in entry["not_plotted"])
    t, i = _point_of(entry["figure"], k["rank"])
    assert t["marker"]["symbol"][i] == "triangle-right"
    assert t["meta"]["placements"][i] == "bandwidth"
    # By hand from the CSV (launch 42): DRAM 214,549,664 B read + 67,327,072 B
    # written = 281,876,736 B in 135,619 ns = 2.0785 TB/s; the DRAM peak is
    # 1,280 B/cycle x 2,616,576,725.74 Hz = 3.3492 TB/s, so 62.06% of it.
    rate = (214_549_664 + 67_327_072) / 135_619e-9
    peak = 1280 * 2_616_576_725.74
    assert k["dram_utilization"] == pytest.approx(rate / peak, rel=1e-6)
    assert rate / peak == pytest.approx(0.6206, abs=5e-5)
    # On the strip a quarter decade right of the left edge, under the DRAM roof
    # there (x times the peak) by exactly that share: y = x x 2.0785 TB/s.
    x_lo = entry["figure"]["layout"]["xaxis"]["range"][0]
    x, y = t["x"][i], t["y"][i]
    assert x == pytest.approx(10 ** (x_lo + 0.25))
    assert y / x == pytest.approx(rate, rel=1e-6)
    assert math.log10(y) > entry["figure"]["layout"]["yaxis"]["range"][0]
    hover = " ".join(t["customdata"][i])
    assert "no floating-point work: placed by bandwidth (62% of DRAM peak)" in hover


def test_strip_reaches_down_to_a_barely_busy_copy() -> None:
    """A copy at 0.1% of DRAM stays on the chart: the y axis extends to it."""
    ctx = _readme_context()
    ctx = json.loads(json.dumps(ctx, default=list))
    (k,) = [k for k in ctx["kernels"] if k["kernel_short"] == "elementwise_kernel"]
    k["dram_utilization"] = 1e-3
    fig = roofline_figures(ctx)[0]["figure"]
    t, i = _point_of(fig, k["rank"])
    assert math.log10(t["y"][i]) > fig["layout"]["yaxis"]["range"][0]


# --- 2. theory placement -----------------------------------------------------------


def test_kernel_without_counters_is_placed_from_its_theory(tmp_path: Path) -> None:
    """A 256x256x256 FP32 GEMM rule for the export's sgemm, which has a duration only."""
    theory = tmp_path / "t.toml"
    theory.write_text(
        '[[kernel]]\nmatch = "ampere_sgemm"\nflops = "2*256*256*256"\nbytes = "3*256*256*4"\n'
    )
    proc = run(
        "report",
        str(SAMPLES / YKTIAN),
        "--gpu",
        "rtx_3090",
        "--theory",
        str(theory),
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    (k,) = [k for k in doc["kernels"] if k["kernel"] == "ampere_sgemm_32x32_sliced1x4_tn"]
    assert k["flops"] is None and k["dram_bytes"] is None and k["bound"] == "not placeable"
    assert k["placement"] == "theory"
    # By hand: 2 x 256^3 = 33,554,432 FLOPs over 3 x 256^2 x 4 = 786,432 bytes is
    # 42.667 FLOP/B; in the export's 16,704 ns that is 2.0088 TFLOP/s.
    assert k["theory_ai"] == pytest.approx(33_554_432 / 786_432)
    assert k["theory_flops_per_s"] == pytest.approx(33_554_432 / 16_704e-9)
    assert k["theory_flops_per_s"] == pytest.approx(2.0088e12, rel=1e-4)
    launch = next(x for x in doc["launches"] if x["kernel"] == k["kernel"])
    assert launch["placement"] == "theory"
    # Kernels no rule matched stay without a point (no FLOPs, no bytes, no theory).
    assert {x["placement"] for x in doc["kernels"] if x is not k} == {None}
    entry = roofline_figures(doc)[0]
    check_figure(entry)
    t, i = _point_of(entry["figure"], k["rank"])
    assert t["marker"]["symbol"][i] == "square"
    assert (t["x"][i], t["y"][i]) == pytest.approx((42.6667, 2.0088e12), rel=1e-4)
    hover = " ".join(t["customdata"][i])
    assert "placed from theoretical work: the export has no FLOP/byte counters" in hover
    assert len(entry["not_plotted"]) == len(doc["kernels"]) - 1


# --- 3. failed profiles -------------------------------------------------------------

_HEADER = (
    '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
    '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
    '"Metric Value"\n'
)
_METRICS = [
    ("gpu__time_duration.sum", "nsecond", "{t}"),
    ("dram__bytes_read.sum", "byte", "{b}"),
    ("dram__bytes_write.sum", "byte", "{b}"),
    ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "{f}"),
    ("sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", "0"),
    ("sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", "0"),
    ("sm__cycles_elapsed.avg.per_second", "cycle/second", "1410000000"),
    ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", "60"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", "40"),
]


def _failed_csv() -> str:
    """Three launches of one kernel; launch 1 has only its name, the duration and bytes n/a."""
    rows = [_HEADER]
    for launch in range(3):
        ident = (
            f'"{launch}","42","app","host","saxpy_kernel(float, float*, float*)","1","7",'
            '"(256, 1, 1)","(4096, 1, 1)","0","8.0","Command line profiler metrics"'
        )
        for name, unit, value in _METRICS:
            if launch == 1 and name != "sm__cycles_elapsed.avg.per_second":
                text = "n/a"
            else:
                text = value.format(t=100_000, b=50_000_000, f=500_000_000)
            rows.append(f'{ident},"{name}","{unit}","{text}"\n')
    return "".join(rows)


def test_failed_profile_is_named_and_counted_apart(tmp_path: Path) -> None:
    path = tmp_path / "failed.csv"
    path.write_text(_failed_csv())
    analysis = analyze(load([str(path)]), gpu="a100_40gb_sxm")
    ctx = build_context(analysis)
    failed = [x for x in ctx["launches"] if x["profiling_failed"]]
    assert [x["id"] for x in failed] == [1]
    # By hand: the other launches have all 9 metrics; launch 1 has only the
    # SM clock, so 8 of the 9 are missing (more than half).
    assert failed[0]["profiling_failed"] == "profiling failed: 8 of 9 metrics missing"
    assert failed[0]["bound"] == "not placeable"
    assert failed[0]["bound_reason"] == "profiling failed: 8 of 9 metrics missing"
    assert [x["profiling_failed"] for x in ctx["launches"] if x["id"] != 1] == [None, None]
    assert ctx["summary"]["profiling_failed"] == {"launches": 1, "kernels": 1}
    (group,) = ctx["kernels"]
    assert group["failed_launches"] == 1 and group["bound"] == "memory"
    # The time totals are the two profiled launches' (100 us each), nothing more;
    # the group's mean is over those two.
    assert ctx["summary"]["total_duration_s"] == pytest.approx(200e-6)
    assert group["total_duration_s"] == pytest.approx(200e-6)
    assert (group["launches"], group["duration_s"]) == (3, pytest.approx(100e-6))
    # Its counts are the profiled launches': 2 x 2 x 500,000,000 FFMA = 2 GFLOP over
    # 2 x (50 + 50) MB = 200 MB is 10 FLOP/B, a measured point.
    assert group["flops"] == pytest.approx(2e9) and group["ai_dram"] == pytest.approx(10.0)
    assert group["placement"] == "measured"
    (finding,) = [f for f in ctx["findings"] if f["kind"] == "profiling-failed"]
    assert "profiling failed: 8 of 9 metrics missing" in finding["message"]
    assert "(ID 1)" in finding["message"] and "0%" not in finding["message"]
    assert not any(f["kind"] == "not-placeable" for f in ctx["findings"])
    assert finding["advice"] in ctx["advice"]


def test_a_lone_launch_or_a_few_gaps_is_not_a_failed_profile(tmp_path: Path) -> None:
    text = _failed_csv()
    lines = text.splitlines(keepends=True)
    # Launch 1 keeps 5 of its 9 metrics: 4 missing is not more than half.
    restored = [
        line.replace('"n/a"', '"7"') if line.startswith('"1"') and i % 9 < 5 else line
        for i, line in enumerate(lines)
    ]
    path = tmp_path / "gaps.csv"
    path.write_text("".join(restored))
    failed = analyze(load([str(path)])).launches["profiling_failed"]
    assert failed.isna().all()
    lone = tmp_path / "lone.csv"
    lone.write_text("".join(line for line in lines if not line.startswith(('"0"', '"2"'))))
    assert analyze(load([str(lone)])).launches["profiling_failed"].isna().all()


# --- 4. advice for every top kernel -------------------------------------------------


def _group(**fields: Any) -> pd.Series:
    base = {
        "kernel": "k",
        "bound": "memory",
        "bound_reason": "intensity below the ridge point",
        "limiter": "dram",
        "precision": "fp32",
        "family": None,
    }
    return pd.Series({**base, **fields})


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        (
            {"bound": "compute", "limiter": "tensor-pipe", "precision": "tensor_bf16"},
            "compute-tensor",
        ),
        ({"limiter": "dram", "family": "elementwise"}, "memory-streaming"),
        ({"limiter": "dram", "family": "gemv"}, "memory-gemm"),
        ({"limiter": "dram"}, None),
        ({"limiter": "lsu-pipe"}, "memory-l1"),
        ({"bound": "compute", "limiter": "l2"}, "memory-l2"),
        ({"bound": "compute", "limiter": "fma-pipe"}, "compute-fma"),
        ({"bound": "compute", "limiter": "fma-pipe", "family": "gemm"}, "compute-tensor-gemm"),
        ({"bound": "compute", "limiter": "xu-pipe"}, "pipe"),
        ({"bound": "memory", "limiter": "uniform-pipe"}, "pipe"),
        ({"bound": "compute", "limiter": "some-new-unit"}, "compute"),
        ({"bound": "memory", "limiter": "unknown", "family": "rmsnorm"}, "memory-streaming"),
        ({"bound": "latency", "limiter": "latency"}, "latency"),
    ],
)
def test_group_advice_by_bound_and_limiter(fields: dict[str, Any], expected: str | None) -> None:
    advice_id = group_advice(_group(**fields))
    assert advice_id == (f"below-roof/{expected}" if expected else "below-roof")
    kind, _, variant = advice_id.partition("/")
    assert not variant or variant in CATALOGUE[kind].variants


def test_group_advice_outside_the_roofline() -> None:
    assert group_advice(_group(bound="communication", limiter=None)) == "communication"
    assert group_advice(_group(bound="not placeable", bound_reason="no DRAM roof")) == (
        "not-placeable"
    )
    failed = _group(bound="not placeable", bound_reason="profiling failed: 8 of 9 metrics missing")
    assert group_advice(failed) == "profiling-failed"
    under = _group(bound="latency", limiter="under-filled", family="gemm")
    assert group_advice(under) == "under-filled/gemm"
    assert group_advice(_group(limiter="dram", bound="compute")) == "limiter-disagrees/dram"


def test_readme_top_ten_each_have_a_try_line() -> None:
    ctx = _readme_context()
    top = ctx["kernels"][:10]
    assert all(k["advice"] and k["advice"] in ctx["advice"] for k in top)
    # #1: the BF16 GEMM, compute-bound with the tensor pipe its busiest unit and
    # tensor BF16 its precision; #2: the copy, memory-bound on DRAM, elementwise.
    one, two = top[0], top[1]
    assert (one["bound"], one["limiter"], one["precision"]) == (
        "compute",
        "tensor-pipe",
        "tensor_bf16",
    )
    assert one["advice"] == "below-roof/compute-tensor"
    assert (two["bound"], two["limiter"]) == ("memory", "dram")
    assert two["advice"] == "below-roof/memory-streaming"
    # HTML: every row of the kernel table, and the summary's top rows, link to a card.
    html = render_html(build_page(ctx))
    tries = re.findall(r'<div class="try"><strong>Try:</strong> <a href="#([^"]+)">', html)
    anchors = set(
        re.findall(r'<article class="finding[^"]*" data-advice="[^"]+" id="([^"]+)"', html)
    )
    assert len(tries) >= len(ctx["kernels"]) and set(tries) <= anchors
    for advice_id, text in ctx["advice"].items():
        # Each advice's text once on the page.
        assert html.count(text["what_to_try"].replace("'", "&#39;")) == 1, advice_id
    # Markdown: the top table's Try column, each text once.
    md = render_markdown(ctx)
    head = md.index("### Top 10 kernels by recoverable time")
    table = md[head:].split("\n\n")[1]
    rows = [r for r in table.splitlines() if re.match(r"\| \d+ \|", r)]
    assert len(rows) == 10
    for row in rows:
        rank = int(row.split("|")[1])
        k = next(k for k in ctx["kernels"] if k["rank"] == rank)
        assert row.rstrip(" |").endswith(advice_label(k["advice"]))
    assert md.count(ctx["advice"]["below-roof/compute-tensor"]["what_to_try"][:60]) == 1
    # The terminal summary names every shown group's advice.
    text = render_summary(ctx, width=120, top=10)
    assert "#1: " + advice_label("below-roof/compute-tensor") in text
    assert "#2: " + advice_label("below-roof/memory-streaming") in text
