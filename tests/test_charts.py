"""Roofline figures built from report contexts of real and synthetic analyses.

The synthetic GPU has a 1 TFLOP/s FP32 roof, a 0.5 TFLOP/s FP64 roof (marked
unsure) and a 100 GB/s DRAM roof, so its ridge points sit at
1e12 / 1e11 = 10 and 5e11 / 1e11 = 5 FLOP/byte.
"""

from __future__ import annotations

import copy
import dataclasses
import html
import itertools
import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ncu_roofline import analyze, load
from ncu_roofline.render.charts import (
    BOUND_COLOURS,
    DEFAULT_X_RANGE,
    MAX_MARKER_PX,
    MIN_MARKER_PX,
    escape_markup,
    roofline_figures,
)
from ncu_roofline.report.context import build_context
from ncu_roofline.theory import find_model
from ncu_roofline.theory.config import TheoryConfig
from tests.helpers import (
    OWN_TAGS,
    SAMPLE,
    XSS,
    check_figure,
    fp32,
    hover_escaped,
    profile,
    sample_roofs,
    spec,
    strings,
)

TEMPLATE = "{{7*7}}"
CPP = "void k<float, 4>(float*)"
HOSTILE = (XSS, TEMPLATE, CPP)
PLOTTED = {"memory", "compute", "latency"}


@cache
def _sample_context(with_theory: bool) -> dict[str, Any]:
    theory = TheoryConfig(model=find_model("llama-3-8b")) if with_theory else None
    return build_context(analyze(load([str(SAMPLE)]), theory=theory))


def sample_context(with_theory: bool = False) -> dict[str, Any]:
    """A fresh copy, so a test may edit it."""
    return copy.deepcopy(_sample_context(with_theory))


def synthetic_gpu() -> Any:
    """The synthetic GPU of the module docstring, FP64 marked unsure."""
    return dataclasses.replace(spec(compute={"fp32": 1e12, "fp64": 5e11}), unsure=("fp64",))


SYNTHETIC_NAMES = [
    XSS,
    TEMPLATE,
    CPP,
    "nodram",
    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(x)",
    "copy",
]
SYNTHETIC_ROWS = [
    # ai 1e8 / 2e7 = 5, 1e8 FLOP / 1 ms = 1e11 FLOP/s: memory-bound.
    {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
    # ai 4e8 / 4e7 = 10 (the ridge), 4e11 FLOP/s: compute-bound.
    {**fp32(4e8), "dram__bytes.sum": 4e7, "gpu__time_duration.sum": 1e-3},
    # ai 1, 5e11 FLOP/s: above its 1e11 roof, still a memory-side point.
    {**fp32(1e6), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 2e-6},
    # No DRAM bytes: no intensity, not placeable.
    {**fp32(1e8), "gpu__time_duration.sum": 1e-3},
    # NCCL: communication, never a point.
    {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
    # No FLOPs: intensity 0, no point on a log axis.
    {**fp32(0.0), "dram__bytes.sum": 5e7, "gpu__time_duration.sum": 1e-3},
]


@cache
def _synthetic_context() -> dict[str, Any]:
    p = profile(SYNTHETIC_ROWS, kernel=SYNTHETIC_NAMES)
    return build_context(analyze(p, gpu=synthetic_gpu(), clocks="datasheet"))


def synthetic_context() -> dict[str, Any]:
    """A fresh copy of the synthetic context, so a test may edit it."""
    return copy.deepcopy(_synthetic_context())


# --- helpers -----------------------------------------------------------------------


def group_traces(fig: dict[str, Any]) -> list[dict[str, Any]]:
    """The kernel-group marker traces (one per bound class)."""
    return [
        t
        for t in fig["data"]
        if t.get("legendgroup") == "kernel groups"
        and "customdata" in t
        and t["name"] != "theory (minimal bytes)"
    ]


def trace_named(fig: dict[str, Any], prefix: str) -> dict[str, Any]:
    """The one trace whose legend name starts with ``prefix``."""
    found: list[dict[str, Any]] = [t for t in fig["data"] if t["name"].startswith(prefix)]
    assert len(found) == 1, [t["name"] for t in fig["data"]]
    return found[0]


def plottable(context: dict[str, Any], device: dict[str, Any]) -> list[dict[str, Any]]:
    """Groups that should have a marker, worked out from the context alone."""

    def ok(v: Any) -> bool:
        return v is not None and math.isfinite(v) and v > 0

    def measured(k: dict[str, Any]) -> bool:
        return k["bound"] in PLOTTED and ok(k["ai_dram"]) and ok(k["achieved_flops_per_s"])

    def by_bandwidth(k: dict[str, Any]) -> bool:
        # No FP work counted (FLOPs exactly 0) but a DRAM utilisation: the strip.
        return (
            k["bound"] in PLOTTED
            and k["flops"] == 0
            and ok(k["dram_utilization"])
            and ok(k["peak_dram_bytes_per_s"])
        )

    def by_theory(k: dict[str, Any]) -> bool:
        # No FLOP or byte counters, but theoretical work and a duration.
        return (
            (k["flops"] is None or k["dram_bytes"] is None)
            and k["bound"] != "communication"
            and ok(k.get("theory_flops"))
            and ok(k.get("theory_bytes"))
            and ok(k["total_duration_s"])
            and ok(k["peak_dram_bytes_per_s"])
        )

    return [
        k
        for k in context["kernels"]
        if k["source"] == device["source"]
        and k["device_name"] == device["device_name"]
        and (measured(k) or by_bandwidth(k) or by_theory(k))
    ]


def expected_point(k: dict[str, Any], fig: dict[str, Any]) -> tuple[float, float]:
    """Where a group's marker should be, worked out from its record and the x axis.

    Measured groups sit at (DRAM intensity, achieved FLOP/s).  A group with
    no FP work sits on the strip a quarter decade right of the left edge, as
    far under the DRAM roof there as its DRAM utilisation: y = x x
    utilisation x DRAM peak.
    """
    if k["flops"] == 0:
        x = 10.0 ** (fig["layout"]["xaxis"]["range"][0] + 0.25)
        return x, x * k["dram_utilization"] * k["peak_dram_bytes_per_s"]
    return k["ai_dram"], k["achieved_flops_per_s"]


# --- the shipped sample ----------------------------------------------------------


@pytest.mark.parametrize("with_theory", [False, True])
def test_sample_figure_is_valid_plotly(with_theory: bool) -> None:
    ctx = sample_context(with_theory)
    figures = roofline_figures(ctx)
    assert len(figures) == 1
    entry = figures[0]
    check_figure(entry)
    assert entry["id"] == "roofline-0"
    assert entry["title"].startswith("Roofline")
    assert set(entry) == {
        "id",
        "title",
        "figure",
        "groups_plotted",
        "launches_plotted",
        "not_plotted",
    }
    assert entry["figure"]["layout"]["meta"]["groups_plotted"] == entry["groups_plotted"]


@pytest.mark.parametrize("with_theory", [False, True])
def test_one_marker_per_plottable_group(with_theory: bool) -> None:
    ctx = sample_context(with_theory)
    entry = roofline_figures(ctx)[0]
    expected = plottable(ctx, ctx["roofs"][0])
    traces = group_traces(entry["figure"])
    assert sum(len(t["x"]) for t in traces) == len(expected) == entry["groups_plotted"]
    assert len(expected) + len(entry["not_plotted"]) == len(ctx["kernels"])
    # Under 20 groups: one trace per group, coloured by its bound class.
    assert len(traces) == len(expected)
    by_rank = {k["rank"]: k for k in expected}
    for t in traces:
        (rank,) = t["meta"]["ranks"]
        k = by_rank[rank]
        assert t["meta"]["bound"] == k["bound"]
        assert t["marker"]["color"] == BOUND_COLOURS[k["bound"]]
        x, y = expected_point(k, entry["figure"])
        assert t["x"] == [pytest.approx(x)] and t["y"] == [pytest.approx(y)]


def test_sample_ceilings_ridges_and_dram_line() -> None:
    ctx = sample_context()
    fig = roofline_figures(ctx)[0]["figure"]
    ceilings = ctx["roofs"][0]["ceilings"]
    dram = next(c["value"] for c in ceilings if c["key"] == "dram")
    top = max(c["value"] for c in ceilings if c["kind"] == "compute")
    names = {"fp64": "FP64", "fp32": "FP32", "fp16": "FP16", "tensor_bf16": "Tensor BF16"}
    ridge = trace_named(fig, "ridge points")
    for c in ceilings:
        if c["kind"] == "compute":
            t = trace_named(fig, names[c["key"]] + " ")
            assert t["legendgroup"] == "compute roofs"
            # Flat at the ceiling, starting at the ridge point with DRAM.
            assert set(t["y"]) == {c["value"]}
            assert t["x"][0] == pytest.approx(c["value"] / dram, rel=1e-12)
            assert t["x"][-1] == pytest.approx(10 ** fig["layout"]["xaxis"]["range"][1])
            if t.get("visible", True) is not True:
                # A roof no placed group uses: in the legend, no ridge marker.
                assert t["visible"] == "legendonly" and c["value"] not in ridge["y"]
                continue
            i = ridge["y"].index(c["value"])
            assert ridge["x"][i] == pytest.approx(c["value"] / dram, rel=1e-12)
            assert f"ridge {names[c['key']]}/DRAM at" in ridge["text"][i]
        else:
            t = trace_named(fig, "DRAM ")
            assert t["legendgroup"] == "memory roofs"
            assert t["name"] == "DRAM 3.36 TB/s"
            # y = bw * x everywhere, so the line passes through (1, bw) ...
            assert all(
                y / x == pytest.approx(dram, rel=1e-12) for x, y in zip(t["x"], t["y"], strict=True)
            )
            assert t["x"][0] < 1 < t["x"][-1]
            # ... from the left edge up to the highest compute roof (shown here).
            assert t["x"][0] == pytest.approx(10 ** fig["layout"]["xaxis"]["range"][0])
            assert t["y"][-1] == pytest.approx(top, rel=1e-12)
    # From the CSV: the medians over the 44 launches of 16,896 FFMA/cycle x 2 x SM clock
    # and 1,280 bytes/cycle x DRAM clock; FP32 ridge 53.8e12 / 3.36e12 = 16.0 FLOP/B.
    roofs = sample_roofs()
    assert roofs["fp32"] == pytest.approx(53.8e12, abs=0.05e12)
    assert roofs["dram"] == pytest.approx(3.36e12, abs=0.005e12)
    assert roofs["fp32"] / roofs["dram"] == pytest.approx(16.0, abs=0.05)
    assert dram == pytest.approx(roofs["dram"], rel=1e-12)
    assert trace_named(fig, "FP32 ")["name"] == "FP32 53.8 TFLOP/s"
    assert "ridge FP32/DRAM at 16.0 FLOP/B" in ridge["text"]


def test_sample_axes_cover_points_and_ridges_with_margin() -> None:
    ctx = sample_context(True)
    fig = roofline_figures(ctx)[0]["figure"]
    lay = fig["layout"]
    assert lay["xaxis"]["type"] == lay["yaxis"]["type"] == "log"
    assert "FLOP/byte" in lay["xaxis"]["title"]["text"]
    assert "FLOP/s" in lay["yaxis"]["title"]["text"]
    markers = [t for t in fig["data"] if t["mode"] == "markers"]
    xs = [x for t in markers for x in t["x"]]
    ys = [y for t in markers for y in t["y"]]
    x0, x1 = lay["xaxis"]["range"]
    y0, y1 = lay["yaxis"]["range"]
    assert x0 <= math.log10(min(xs)) - 0.5 + 1e-9
    assert x1 >= math.log10(max(xs)) + 0.5 - 1e-9
    assert y0 <= math.log10(min(ys)) - 0.5 + 1e-9
    assert y1 >= math.log10(max(ys)) + 0.5 - 1e-9
    assert lay["hovermode"] == "closest"
    assert lay["paper_bgcolor"] == lay["plot_bgcolor"] == "rgba(0,0,0,0)"
    assert lay["xaxis"]["gridcolor"] == "rgba(128,128,128,0.25)"
    assert "template" not in lay
    assert (
        lay["uirevision"] == roofline_figures(sample_context())[0]["figure"]["layout"]["uirevision"]
    )


def test_sample_findings_make_diamonds_and_size_follows_time_share() -> None:
    ctx = sample_context(True)
    fig = roofline_figures(ctx)[0]["figure"]
    flagged = {f["kernel"] for f in ctx["findings"] if f["kernel"]}
    # Short names repeat (one kernel, several grids): find groups by their point.
    by_point = {expected_point(k, fig): k for k in ctx["kernels"] if k["placement"]}
    seen = 0
    for t in group_traces(fig):
        for i, cd in enumerate(t["customdata"]):
            k = by_point[t["x"][i], t["y"][i]]
            assert html.unescape(cd[1]) == k["kernel_short"]
            has = k["kernel"] in flagged
            # Groups with no FP work have a shape of their own (the strip).
            shape = "triangle-right" if k["flops"] == 0 else ("diamond" if has else "circle")
            assert t["marker"]["symbol"][i] == shape
            assert t["marker"]["line"]["width"][i] == (3.0 if has else 0.5)
            size = min(
                MAX_MARKER_PX, max(MIN_MARKER_PX, MAX_MARKER_PX * math.sqrt(k["time_share"]))
            )
            assert t["marker"]["size"][i] == pytest.approx(size)
            seen += has
    assert seen > 0


def test_sample_hover_carries_the_measures() -> None:
    ctx = sample_context(True)
    fig = roofline_figures(ctx)[0]["figure"]
    t = trace_named(fig, "3 · flash_fwd_splitkv_kernel")
    assert t["hovertemplate"].endswith("<extra></extra>")
    flash = next(cd for cd in t["customdata"] if cd[1] == "flash_fwd_splitkv_kernel")
    k = next(k for k in ctx["kernels"] if k["kernel_short"] == "flash_fwd_splitkv_kernel")
    assert html.unescape(flash[0].replace("<br>", "")) == k["kernel"]
    assert flash[2] == str(k["launches"])
    assert flash[4] == f"{100 * k['time_share']:.1f}%"
    assert flash[7].startswith(f"{100 * k['efficiency']:.0f}% of roof")
    assert flash[8] == "memory-bound"
    assert f"{k['byte_excess']:.2f}x" in flash[10]
    assert "theory: " in flash[10]
    assert "excess-traffic" in flash[11]


def test_theory_arrows_use_log10_coordinates() -> None:
    ctx = sample_context(True)
    fig = roofline_figures(ctx)[0]["figure"]
    anns = fig["layout"]["annotations"]
    assert anns
    for a in anns:
        assert (a["xref"], a["yref"], a["axref"], a["ayref"]) == ("x", "y", "x", "y")
        assert a["y"] == a["ay"]
        assert abs(a["x"] - a["ax"]) > 0.02
    # By hand: fused_add_rms_norm_kernel has a theory of 81,920 FLOPs over
    # 163,840 bytes = 0.5 FLOP/B, so the tail sits at log10(0.5) = -0.30103;
    # the head at log10 of the measured intensity, both at log10 of the rate.
    rms = next(k for k in ctx["kernels"] if k["kernel_short"] == "fused_add_rms_norm_kernel")
    assert (rms["theory_flops"], rms["theory_bytes"], rms["theory_ai"]) == (81920, 163840, 0.5)
    arrow = next(a for a in anns if "fused_add_rms_norm_kernel" in a["hovertext"])
    assert arrow["ax"] == pytest.approx(-0.30103, abs=1e-5)
    assert arrow["x"] == pytest.approx(math.log10(rms["ai_dram"]))
    assert arrow["y"] == pytest.approx(math.log10(rms["achieved_flops_per_s"]))
    # The hollow theory markers sit at (theory_ai, achieved) in data units.
    theory = trace_named(fig, "theory (minimal bytes)")
    assert theory["marker"]["symbol"] == "circle-open"
    i = theory["customdata"].index(
        next(cd for cd in theory["customdata"] if cd[0] == "fused_add_rms_norm_kernel")
    )
    assert (theory["x"][i], theory["y"][i]) == (0.5, rms["achieved_flops_per_s"])
    with_theory = [
        k
        for k in plottable(ctx, ctx["roofs"][0])
        if k["theory_ai"] is not None and k["theory_ai"] > 0
    ]
    assert len(theory["x"]) == len(with_theory)


def test_theory_arrow_by_hand_on_a_synthetic_context() -> None:
    ctx = synthetic_context()
    k = next(k for k in ctx["kernels"] if k["kernel"] == XSS)
    # Measured ai 5, 1e11 FLOP/s; theory 1 FLOP/B: arrow from x = log10 1 = 0
    # to x = log10 5 = 0.69897, at y = log10 1e11 = 11.
    k["theory_ai"], k["byte_excess"], k["theory_source"] = 1.0, 5.0, "rule <x> & y"
    # A theory within 0.02 decades of the measurement gets a marker, no arrow.
    near = next(k for k in ctx["kernels"] if k["kernel"] == TEMPLATE)
    near["theory_ai"] = near["ai_dram"] * 1.01
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    (arrow,) = entry["figure"]["layout"]["annotations"]
    assert arrow["ax"] == 0.0
    assert arrow["x"] == pytest.approx(0.69897, abs=1e-5)
    assert arrow["y"] == arrow["ay"] == pytest.approx(11.0)
    theory = trace_named(entry["figure"], "theory")
    assert len(theory["x"]) == 2
    assert any("rule &lt;x&gt; &amp; y" in cd[3] for cd in theory["customdata"])
    # Theory points widen the x range too: 1 FLOP/B is inside with a half-decade margin.
    assert entry["figure"]["layout"]["xaxis"]["range"][0] <= -0.5


def test_view_buttons_switch_groups_levels_and_launches() -> None:
    fig = roofline_figures(sample_context(True))[0]["figure"]
    data = fig["data"]
    (menu,) = fig["layout"]["updatemenus"]
    groups_btn, levels_btn, launch_btn = menu["buttons"]
    assert [b["label"] for b in menu["buttons"]] == [
        "Kernel groups",
        "Memory levels",
        "Every launch",
    ]
    g_vis, v_vis, l_vis = (b["args"][0]["visible"] for b in menu["buttons"])
    assert len(g_vis) == len(v_vis) == len(l_vis) == len(data)
    launch = [i for i, t in enumerate(data) if t["type"] == "scattergl"]
    assert len(launch) == 1
    assert data[launch[0]]["visible"] == "legendonly"
    for i, t in enumerate(data):
        default = t.get("visible", True)
        if t["legendgroup"] == "compute roofs":
            # Roofs keep their default (shown or in the legend) in every view.
            assert g_vis[i] == v_vis[i] == l_vis[i] == default
        elif t["legendgroup"] == "memory roofs":
            assert g_vis[i] == l_vis[i] == default
            assert v_vis[i] is True
        elif t["legendgroup"] == "kernel groups":
            assert g_vis[i] is True and v_vis[i] is True and l_vis[i] == "legendonly"
        elif t["legendgroup"] == "memory levels":
            assert t["visible"] == "legendonly"
            assert g_vis[i] == "legendonly" and v_vis[i] is True and l_vis[i] == "legendonly"
        else:
            assert i == launch[0]
            assert g_vis[i] == v_vis[i] == "legendonly" and l_vis[i] is True
    # Arrows belong to the group views.
    n = len(fig["layout"]["annotations"])
    assert launch_btn["args"][1] == {f"annotations[{i}].visible": False for i in range(n)}
    assert groups_btn["args"][1] == {f"annotations[{i}].visible": True for i in range(n)}
    assert levels_btn["args"][1] == groups_btn["args"][1]


def test_launch_view_has_every_placeable_launch() -> None:
    ctx = sample_context()
    entry = roofline_figures(ctx)[0]
    t = trace_named(entry["figure"], "every launch")
    ok = [
        r
        for r in ctx["launches"]
        if r["ai_dram"]
        and r["achieved_flops_per_s"]
        and r["ai_dram"] > 0
        and r["achieved_flops_per_s"] > 0
    ]
    assert len(t["x"]) == len(ok) == entry["launches_plotted"]
    assert t["x"] == [r["ai_dram"] for r in ok]
    assert [cd[1] for cd in t["customdata"]] == [r["id"] for r in ok]
    assert [cd[0] for cd in t["customdata"]] == [hover_escaped(r["kernel_short"]) for r in ok]
    assert t["marker"]["color"] == [BOUND_COLOURS[r["bound"]] for r in ok]


# --- synthetic contexts -----------------------------------------------------------


def test_hostile_names_are_escaped_everywhere() -> None:
    ctx = synthetic_context()
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    text = json.dumps(entry["figure"])
    assert "<img" not in text and "</script" not in text.lower()
    hover = [s for t in group_traces(entry["figure"]) for cd in t["customdata"] for s in cd]
    for name in HOSTILE:
        assert hover_escaped(name) in hover, name
        assert escape_markup(name) == hover_escaped(name)
    assert "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in hover
    assert "void k&lt;float, 4&gt;(float*)" in hover
    assert "{{7*7}}" in hover
    launch = trace_named(entry["figure"], "every launch")
    assert "&lt;/script&gt;" in [cd[0] for cd in launch["customdata"]]


def test_synthetic_ceilings_unsure_dashed() -> None:
    entry = roofline_figures(synthetic_context())[0]
    fig = entry["figure"]
    fp64 = trace_named(fig, "FP64 ")
    assert fp64["name"] == "FP64 500 GFLOP/s (unsure)"
    assert fp64["line"]["dash"] == "dash"
    assert "unsure" in fp64["hovertemplate"]
    fp32_line = trace_named(fig, "FP32 ")
    assert fp32_line["name"] == "FP32 1 TFLOP/s"
    assert fp32_line["line"]["dash"] == "solid"
    assert "chosen: Synthetic GPU (test)" in fp32_line["hovertemplate"]
    ridge = trace_named(fig, "ridge points")
    # 1e12 / 1e11 = 10 FLOP/B; every kernel is FP32, so the FP64 roof waits
    # in the legend and its ridge (5 FLOP/B) is not marked.
    assert sorted(ridge["x"]) == [10.0]
    assert fp64["visible"] == "legendonly" and "visible" not in fp32_line
    assert "ridge FP32/DRAM at 10.0 FLOP/B" in ridge["text"]
    dram = trace_named(fig, "DRAM ")
    assert dram["name"] == "DRAM 100 GB/s"


def test_synthetic_not_plotted_reasons() -> None:
    ctx = synthetic_context()
    entry = roofline_figures(ctx)[0]
    reasons = {n["kernel_short"]: n["reason"] for n in entry["not_plotted"]}
    # The copy kernel (no FLOPs, DRAM bytes) is on the bandwidth strip, not in the list.
    assert set(reasons) == {"nodram", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}
    assert reasons["nodram"].startswith("not placeable")
    assert "communication" in reasons["ncclDevKernel_AllReduce_Sum_f32_RING_LL"]
    assert entry["groups_plotted"] == len(plottable(ctx, ctx["roofs"][0])) == 4


def test_none_intensity_in_a_placed_group_is_not_plotted() -> None:
    ctx = synthetic_context()
    k = next(k for k in ctx["kernels"] if k["kernel"] == CPP)
    k["ai_dram"] = None
    entry = roofline_figures(ctx)[0]
    (why,) = [n["reason"] for n in entry["not_plotted"] if n["kernel_short"] == k["kernel_short"]]
    assert "intensity" in why
    assert entry["groups_plotted"] == 3


def test_device_without_ceilings_has_no_figure() -> None:
    p = profile(SYNTHETIC_ROWS[:1], device_name="Mystery GPU 9000")
    ctx = build_context(analyze(p))
    assert ctx["roofs"] and not ctx["roofs"][0]["ceilings"]
    assert roofline_figures(ctx) == []
    # Compute ceilings without any memory ceiling: no roofline either.
    ctx = synthetic_context()
    ctx["roofs"][0]["ceilings"] = [c for c in ctx["roofs"][0]["ceilings"] if c["kind"] == "compute"]
    assert roofline_figures(ctx) == []


def test_extra_memory_levels_get_their_own_diagonal() -> None:
    ctx = synthetic_context()
    ctx["roofs"][0]["ceilings"].append(
        {
            "key": "l2",
            "kind": "memory",
            "unit": "byte/s",
            "value": 4e11,
            "source": "s",
            "clock_hz": None,
            "uncertain": False,
        }
    )
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    l2 = trace_named(entry["figure"], "L2 ")
    assert l2["name"] == "L2 400 GB/s"
    assert all(y / x == pytest.approx(4e11) for x, y in zip(l2["x"], l2["y"], strict=True))
    # It stops at the highest compute roof: 1e12 / 4e11 = 2.5 FLOP/B.
    assert l2["x"][-1] == pytest.approx(2.5)
    # Ridges stay with the DRAM roof (the unused FP64 roof's is not marked).
    assert sorted(trace_named(entry["figure"], "ridge")["x"]) == [10.0]
    # Only DRAM, the primary memory roof, is drawn at first.
    assert l2["visible"] == "legendonly"
    assert "visible" not in trace_named(entry["figure"], "DRAM ")


def test_two_devices_two_figures() -> None:
    p = profile(
        SYNTHETIC_ROWS[:3], device_name=["GPU A", "GPU A", "GPU B"], kernel=["a1", "a2", "b1"]
    )
    ctx = build_context(analyze(p, gpu=synthetic_gpu(), clocks="datasheet"))
    figures = roofline_figures(ctx)
    assert [f["id"] for f in figures] == ["roofline-0", "roofline-1"]
    names = [
        sorted(cd[1] for t in group_traces(f["figure"]) for cd in t["customdata"]) for f in figures
    ]
    assert names == [["a1", "a2"], ["b1"]]
    assert [f["launches_plotted"] for f in figures] == [2, 1]
    assert "GPU A" in figures[0]["title"] and "GPU B" in figures[1]["title"]


def test_nothing_plotted_uses_the_default_range() -> None:
    ctx = synthetic_context()
    for k in ctx["kernels"]:
        k["ai_dram"] = k["placement"] = None
    ctx["launches"] = []
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    assert entry["groups_plotted"] == entry["launches_plotted"] == 0
    assert len(entry["not_plotted"]) == len(ctx["kernels"])
    assert entry["figure"]["layout"]["xaxis"]["range"] == list(DEFAULT_X_RANGE)
    assert "updatemenus" not in entry["figure"]["layout"]


def test_many_launches_are_subsampled_evenly() -> None:
    ctx = synthetic_context()
    base = ctx["launches"][0]
    ctx["launches"] = [{**base, "id": i, "ai_dram": 1.0 + i} for i in range(1001)]
    entry = roofline_figures(ctx, max_launch_points=101)[0]
    t = trace_named(entry["figure"], "every launch")
    assert entry["launches_plotted"] == 101
    assert [cd[1] for cd in t["customdata"]] == list(range(0, 1001, 10))
    assert "101 of 1,001" in t["name"] and "subsampled" in t["name"]
    with pytest.raises(ValueError):
        roofline_figures(ctx, max_launch_points=-1)


def test_large_context_builds_every_point() -> None:
    ctx = synthetic_context()
    ceilings = ctx["roofs"][0]["ceilings"]
    k0 = next(k for k in ctx["kernels"] if k["kernel"] == XSS)
    l0 = next(r for r in ctx["launches"] if r["kernel"] == XSS)
    ctx["kernels"] = [
        {
            **k0,
            "kernel": f"kernel_{i}<T>",
            "kernel_short": f"kernel_{i}",
            "ai_dram": 0.1 + i,
            "time_share": 1 / 2000,
        }
        for i in range(2000)
    ]
    ctx["launches"] = [
        {
            **l0,
            "id": i,
            "kernel": f"kernel_{i % 2000}<T>",
            "kernel_short": f"kernel_{i % 2000}",
            "ai_dram": 0.1 + i % 997,
        }
        for i in range(50_000)
    ]
    ctx["findings"] = [
        {
            "kind": "below-roof",
            "kernel": f"kernel_{i}<T>",
            "severity": "info",
            "message": "",
            "source": None,
        }
        for i in range(0, 2000, 7)
    ]
    assert ceilings
    # Speed is measured by bench/bench_html.py, not asserted here.
    (entry,) = roofline_figures(ctx)
    assert entry["groups_plotted"] == 2000 and entry["launches_plotted"] == 50_000
    json.dumps(entry["figure"], allow_nan=False)


# --- property: no name ever reaches the figure unescaped -----------------------------

_PIECES = (
    *"<>&\"'{}%/=;#abcxyz0179 ()*:,_\u00b5\u2026",
    "&lt;",
    "<br>",
    "%{x}",
    "</script>",
    "<extra>",
)
#: Arbitrary text, plus text built from the pieces markup and templates are made of.
_NAME = st.one_of(
    st.text(min_size=1, max_size=60),
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=30).map("".join),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=_NAME, short=_NAME, other=_NAME)
def test_arbitrary_names_never_appear_unescaped(name: str, short: str, other: str) -> None:
    ctx = synthetic_context()
    ctx["roofs"][0]["device_name"] = other
    ctx["roofs"][0]["source"] = other
    for c in ctx["roofs"][0]["ceilings"]:
        c["source"] = other
    for rec in [*ctx["kernels"], *ctx["launches"]]:
        if rec["kernel"] == XSS:
            rec["kernel"], rec["kernel_short"] = name, short
            rec["theory_ai"], rec["theory_source"], rec["byte_excess"] = 2.0, other, 2.5
        rec["bound_reason"] = other
        rec["device_name"] = rec["source"] = other
    for f in ctx["findings"]:
        if f["kernel"] == XSS:
            f["kernel"], f["kind"] = name, other
        f["source"] = None
    (entry,) = roofline_figures(ctx)
    check_figure(entry)
    fig = entry["figure"]
    for raw in (name, short, other):
        if any(ch in raw for ch in "<>\"'"):
            # The module's own tags (<br>, <b>, <extra>) may contain a short raw name.
            assert not any(raw in OWN_TAGS.sub("", s) for s in strings(fig)), raw
    points = [
        cd for t in group_traces(fig) for cd in t["customdata"] if cd[1] == hover_escaped(short)
    ]
    assert name in [html.unescape(cd[0].replace("<br>", "")) for cd in points]


# --- labels, relevant roofs, memory levels ------------------------------------------


def _by_rank(ctx: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {k["rank"]: k for k in ctx["kernels"]}


def test_labels_are_the_table_numbers_of_the_groups_with_most_time() -> None:
    ctx = sample_context()
    fig = roofline_figures(ctx)[0]["figure"]
    ranks = _by_rank(ctx)
    labelled: list[int] = []
    for t in group_traces(fig):
        assert t["mode"] == "markers+text"
        assert len(t["text"]) == len(t["x"]) == len(t["meta"]["ranks"])
        for i, rank in enumerate(t["meta"]["ranks"]):
            k = ranks[rank]
            # Every point carries its number in the hover box, at its own position.
            assert t["customdata"][i][12] == str(rank)
            assert (t["x"][i], t["y"][i]) == pytest.approx(expected_point(k, fig))
            labelled += [int(n) for n in t["text"][i].split(",") if n]
    assert t["hovertemplate"].startswith("<b>#%{customdata[12]} ")
    # The ten plotted groups with the most time, each number printed once.
    plotted = plottable(ctx, ctx["roofs"][0])
    top = sorted(plotted, key=lambda k: -k["total_duration_s"])[:10]
    assert sorted(labelled) == sorted(k["rank"] for k in top)
    assert len(plotted) == 13 and len(labelled) == 10
    # The four cuBLAS GEMV groups (64.5% of the time) sit within 0.002 decades
    # of each other at ~0.99 FLOP/B: one combined label, on the one with most time.
    gemv = [k for k in plotted if k["kernel_short"].startswith("gemvx::kernel")]
    assert [k["rank"] for k in gemv] == [4, 5, 6, 7]
    assert sum(k["time_share"] for k in gemv) == pytest.approx(0.645, abs=0.001)
    texts = [s for t in group_traces(fig) for s in t["text"] if s]
    (combined,) = [s for s in texts if "4" in s.split(",")]
    assert {"4", "5", "6", "7"} <= set(combined.split(","))
    most = max(gemv, key=lambda k: k["total_duration_s"])
    trace = trace_named(fig, f"{most['rank']} · gemvx::kernel")
    assert trace["text"] == [combined]


def test_legend_names_each_group_by_its_table_number() -> None:
    ctx = sample_context()
    fig = roofline_figures(ctx)[0]["figure"]
    ranks = _by_rank(ctx)
    traces = group_traces(fig)
    names = [t["name"] for t in traces]
    # In the table's order, "rank · short name", cut at 32 characters.
    assert [int(n.split(" · ")[0]) for n in names] == sorted(
        k["rank"] for k in plottable(ctx, ctx["roofs"][0])
    )
    for t in traces:
        (rank,) = t["meta"]["ranks"]
        # Groups whose shown names collide carry their grid too.
        number, name, *_grid = html.unescape(t["name"]).split(" · ")
        assert number == str(rank) == t["customdata"][0][12]
        short = ranks[rank]["kernel_short"]
        assert name == (short if len(short) <= 32 else short[:31] + "…")
        # A labelled point prints the same number.
        assert t["text"][0] == "" or str(rank) in t["text"][0].split(",")
    gemm = html.unescape(names[0])
    assert gemm == "1 · sm90_xmma_gemm_bf16bf16_bf16f32…", gemm


def test_past_twenty_groups_only_the_labelled_have_their_own_entry() -> None:
    ctx = sample_context()
    base = ctx["kernels"]
    kernels = []
    for c in range(3):
        for k in base:
            copy_k = dict(k)
            copy_k["rank"] = c * len(base) + k["rank"]
            copy_k["kernel"] = f"{k['kernel']}#{c}"
            kernels.append(copy_k)
    ctx["kernels"] = kernels
    fig = roofline_figures(ctx)[0]["figure"]
    traces = group_traces(fig)
    own = [t for t in traces if not t["name"].startswith("other ")]
    rest = [t for t in traces if t["name"].startswith("other ")]
    plotted = plottable(ctx, ctx["roofs"][0])
    # 13 groups three times, the zero-FLOP copy on the bandwidth strip among them.
    assert len(plotted) == 39 and len(own) == 10
    # The 10 with most time (the labelled ones) have entries of their own; the
    # other 29 are by class.
    top = sorted(plotted, key=lambda k: (-k["total_duration_s"], k["rank"]))[:10]
    assert sorted(t["meta"]["ranks"][0] for t in own) == sorted(k["rank"] for k in top)
    assert sum(len(t["x"]) for t in rest) == 29
    for t in rest:
        bound = t["meta"]["bound"]
        assert t["name"] == f"other {bound}-bound ({len(t['x'])})"
        members = [k for k in kernels if k["rank"] in t["meta"]["ranks"]]
        assert len(members) == len(t["x"]) and all(k["bound"] == bound for k in members)


def test_far_apart_points_keep_their_own_labels() -> None:
    ctx = synthetic_context()
    fig = roofline_figures(ctx)[0]["figure"]
    texts = sorted(s for t in group_traces(fig) for s in t["text"])
    # Three groups at 5, 10 and 1 FLOP/B: none within 3% of the axis of another.
    assert texts == sorted(str(k["rank"]) for k in plottable(ctx, ctx["roofs"][0]))


def _a100_context(samples_dir: Any) -> dict[str, Any]:
    path = samples_dir / "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
    return build_context(analyze(load([str(path)])))


def test_equal_roofs_are_one_line_with_a_combined_label(samples_dir: Any) -> None:
    ctx = _a100_context(samples_dir)
    ceilings = {c["key"]: c["value"] for c in ctx["roofs"][0]["ceilings"]}
    # On the A100 (ncu's peak metrics at the 1.41 GHz the kernels ran at), the
    # FP32 pipes and the FP64 tensor cores both make 15.1 TFLOP/s, and FP16
    # and BF16 tensor cores 242 TFLOP/s.
    assert ceilings["fp32"] == pytest.approx(ceilings["tensor_fp64"], rel=0.01)
    assert ceilings["fp32"] == pytest.approx(15.1e12, rel=0.005)
    assert ceilings["tensor_fp16"] == pytest.approx(ceilings["tensor_bf16"], rel=0.01)
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    compute = [t for t in entry["figure"]["data"] if t["legendgroup"] == "compute roofs"]
    lines = [t for t in compute if t["mode"] == "lines"]
    # Eight compute ceilings (beside the DRAM, L2 and L1 roofs), six lines:
    # no two within 1% of each other.
    assert len(ceilings) - 3 == 8 and len(lines) == 6
    heights = sorted(t["meta"]["value"] for t in lines)
    assert all(b > 1.01 * a for a, b in itertools.pairwise(heights))
    fp32_line = trace_named(entry["figure"], "FP32, Tensor FP64 ")
    assert fp32_line["name"] == "FP32, Tensor FP64 15.1 TFLOP/s"
    assert fp32_line["meta"]["keys"] == ["fp32", "tensor_fp64"]
    assert "<b>FP32</b>" in fp32_line["hovertemplate"]
    assert "<b>Tensor FP64</b>" in fp32_line["hovertemplate"]
    assert trace_named(entry["figure"], "Tensor FP16, Tensor BF16 ")["name"].endswith("242 TFLOP/s")


def _shown(fig: dict[str, Any], group: str) -> list[str]:
    return [
        t["name"]
        for t in fig["data"]
        if t["legendgroup"] == group and t["mode"] == "lines" and t.get("visible", True) is True
    ]


def test_default_roofs_are_the_used_precisions_and_dram(samples_dir: Any) -> None:
    # N-body on an A100: both kernels are FP32, so of ten roofs only DRAM and
    # the FP32 line are drawn; the rest wait in the legend.
    ctx = _a100_context(samples_dir)
    assert {k["precision"] for k in ctx["kernels"]} == {"fp32"}
    fig = roofline_figures(ctx)[0]["figure"]
    assert _shown(fig, "compute roofs") == ["FP32, Tensor FP64 15.1 TFLOP/s"]
    assert _shown(fig, "memory roofs") == ["DRAM 1.56 TB/s"]
    hidden = [t for t in fig["data"] if t.get("visible") == "legendonly"]
    assert {t["legendgroup"] for t in hidden} >= {"compute roofs", "memory roofs"}
    assert trace_named(fig, "L2 ")["visible"] == "legendonly"
    assert trace_named(fig, "Tensor INT8 ")["visible"] == "legendonly"
    # The Llama decode sample: BF16 tensor GEMM and FP32 elsewhere.
    fig = roofline_figures(sample_context())[0]["figure"]
    assert _shown(fig, "compute roofs") == ["Tensor BF16 861 TFLOP/s", "FP32 53.8 TFLOP/s"]
    assert trace_named(fig, "FP64 ")["visible"] == "legendonly"
    assert trace_named(fig, "FP16 ")["visible"] == "legendonly"


def test_without_placed_groups_every_roof_is_drawn() -> None:
    ctx = synthetic_context()
    for k in ctx["kernels"]:
        k["ai_dram"] = k["placement"] = None
    fig = roofline_figures(ctx)[0]["figure"]
    roofs = [t for t in fig["data"] if t["legendgroup"] in ("compute roofs", "memory roofs")]
    assert len(roofs) == 4 and all("visible" not in t for t in roofs)
    assert sorted(trace_named(fig, "ridge")["x"]) == [5.0, 10.0]


def test_memory_levels_draw_three_points_per_group() -> None:
    ctx = sample_context(True)
    entry = roofline_figures(ctx)[0]
    check_figure(entry)
    t = trace_named(entry["figure"], "memory levels")
    assert t["visible"] == "legendonly" and t["mode"] == "lines+markers"
    ranks = _by_rank(ctx)
    # A group with no FLOPs has no intensity at any level: no level points.
    plotted = [k for k in plottable(ctx, ctx["roofs"][0]) if k["flops"]]
    # Every other plotted group of the sample has all three intensities: three
    # points and a gap each, so the lines never join two groups.
    assert len(t["x"]) == len(t["y"]) == len(t["meta"]["ranks"]) == 4 * len(plotted) == 48
    seen = {}
    for i in range(0, len(t["x"]), 4):
        rank = t["meta"]["ranks"][i]
        k = ranks[rank]
        assert t["meta"]["ranks"][i : i + 3] == [rank] * 3
        assert t["x"][i : i + 4] == [k["ai_l1"], k["ai_l2"], k["ai_dram"], None]
        assert t["y"][i : i + 4] == [k["achieved_flops_per_s"]] * 3 + [None]
        assert [cd[1] for cd in t["customdata"][i : i + 3]] == ["L1", "L2", "DRAM"]
        assert t["marker"]["symbol"][i : i + 3] == ["triangle-up", "square", "circle"]
        seen[rank] = True
    assert sorted(seen) == sorted(k["rank"] for k in plotted)
    # By hand, the BF16 GEMM (rank 1): 137.4 GFLOP over 1.314 GB at L1 and
    # 876 MB at L2 is 104.6 and 156.9 FLOP/B; 941 FLOP/B at DRAM (146 MB).
    gemm = ranks[1]
    assert gemm["ai_l1"] == pytest.approx(137438953472 / 1314287136, rel=1e-6)
    assert gemm["ai_l1"] == pytest.approx(104.57, abs=0.01)
    assert gemm["ai_l2"] == pytest.approx(156.86, abs=0.01)
    # The axis covers the leftmost level point.
    lo = entry["figure"]["layout"]["xaxis"]["range"][0]
    assert lo <= math.log10(min(x for x in t["x"] if x is not None)) - 0.5 + 1e-9


# --- lazy launch records ---------------------------------------------------------------


def test_launch_view_reads_lazy_launches_column_wise(
    samples_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ncu_roofline.report.records import LaunchRecords

    paths = [SAMPLE, samples_dir / "wangzy0327__cuda-roofline__src_output.csv"]
    context = build_context(analyze(load([str(p) for p in paths], progress=False)))
    lazy = context["launches"]
    assert isinstance(lazy, LaunchRecords)
    eager = dict(context, launches=list(lazy))
    expected = roofline_figures(eager, max_launch_points=30)

    def refuse(*_: object) -> None:
        raise AssertionError("a dict was made per launch")

    monkeypatch.setattr(LaunchRecords, "__iter__", refuse)
    monkeypatch.setattr(LaunchRecords, "__getitem__", refuse)
    got = roofline_figures(context, max_launch_points=30)
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    # Both devices' launch views were drawn, subsampled to at most 30 points each.
    launch_traces = [
        t for f in got for t in f["figure"]["data"] if t.get("legendgroup") == "launches"
    ]
    assert len(launch_traces) == 2
    assert all(0 < len(t["x"]) <= 30 for t in launch_traces)
    assert sum(f["launches_plotted"] for f in got) == sum(len(t["x"]) for t in launch_traces)


@settings(max_examples=300, deadline=None)
@given(
    lo=st.floats(-12, 12, allow_nan=False),
    span=st.floats(0, 12, allow_nan=False),
    n=st.integers(2, 40),
)
def test_roof_points_are_logspace_to_the_last_bit_or_so(lo: float, span: float, n: int) -> None:
    """The roofs' points are numpy's logspace, computed in software (the same on every CPU):
    within two units in the last place of numpy's, ends included."""
    import numpy as np

    from ncu_roofline.render.charts.ceilings import log_points

    ours = log_points(lo, lo + span, n)
    theirs = np.logspace(lo, lo + span, n)
    assert ours.shape == theirs.shape
    assert np.all(np.abs(ours - theirs) <= 2 * np.spacing(theirs))
    # Each point is ten to its exponent, correctly rounded (the exponents are linspace's).
    import decimal

    exponents = np.linspace(lo, lo + span, n).tolist()
    with decimal.localcontext(decimal.Context(prec=60)):
        exact = [float(decimal.Decimal(10) ** decimal.Decimal(e)) for e in exponents]
    assert ours.tolist() == exact


@pytest.mark.parametrize(
    ("value", "expected"),
    [(1000.0, 3.0), (0.01, -2.0), (0.0, -math.inf), (-5.0, math.nan), (math.nan, math.nan)],
)
def test_axis_log10_reads_as_numpys(value: float, expected: float) -> None:
    from ncu_roofline.render.charts.layout import log10

    got = log10(value)
    assert got == expected or (math.isnan(got) and math.isnan(expected))


def test_launch_devices_over_codes_are_the_lookup_of_each_launch(samples_dir: Path) -> None:
    from ncu_roofline.render.charts.figure import DeviceIndex, _launch_devices

    paths = [SAMPLE, samples_dir / "wangzy0327__cuda-roofline__src_output.csv"]
    context = build_context(analyze(load([str(p) for p in paths], progress=False)))
    launches = context["launches"]
    # A third device key no roof matches, and launches missing each field.
    extra = [dict(r) for r in list(launches)[:4]]
    extra[0]["device_name"] = "Mystery GPU"
    extra[1]["cc"] = None
    extra[2]["source"] = None
    extra[3]["device_name"] = None
    records = [*list(launches), *extra]
    index = DeviceIndex(context["roofs"])
    want = [index.lookup(r.get("source"), r.get("device_name"), r.get("cc")) for r in records]
    assert sorted(set(want)) == [-1, 0, 1]
    assert _launch_devices(records, DeviceIndex(context["roofs"])).tolist() == want
    assert _launch_devices(launches, index).tolist() == want[: len(launches)]


def test_launch_fields_are_read_only_for_launches_with_a_point(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ncu_roofline.report.records import LaunchRecords

    read: list[str] = []
    column = LaunchRecords.column

    def counted(self: LaunchRecords, field: str) -> list[Any]:
        read.append(field)
        return column(self, field)

    monkeypatch.setattr(LaunchRecords, "column", counted)
    # No device has roofs: no launch field is read at all.
    p = profile(SYNTHETIC_ROWS[:2], device_name="Mystery GPU 9000")
    ctx = build_context(analyze(p))
    assert isinstance(ctx["launches"], LaunchRecords)
    assert roofline_figures(ctx) == []
    assert read == []
    # Roofs, but no launch has a point (no FLOPs): the hover fields are not read.
    ctx = build_context(analyze(profile(SYNTHETIC_ROWS[:3]), gpu=synthetic_gpu()))
    records = ctx["launches"]
    no_point = {f: np.full(len(records), math.nan) for f in ("ai_dram", "achieved_flops_per_s")}
    records._frame = records._frame.with_columns(no_point)
    (entry,) = roofline_figures(ctx)
    assert entry["launches_plotted"] == 0
    assert not {"kernel_short", "kernel", "bound", "id"} & set(read)
    # A launch with a point: its fields are read, once each.
    read.clear()
    ctx = build_context(analyze(profile(SYNTHETIC_ROWS[:3]), gpu=synthetic_gpu()))
    (entry,) = roofline_figures(ctx)
    assert entry["launches_plotted"] == 3
    assert sorted(f for f in read if f in {"kernel_short", "kernel", "bound", "id"}) == [
        "bound",
        "id",
        "kernel",
        "kernel_short",
    ]


def test_launch_devices_break_ties_by_compute_capability() -> None:
    from ncu_roofline.render.charts.figure import DeviceIndex, _launch_devices

    roofs: list[Any] = [
        {"source": "a.csv", "device_name": "GPU X", "cc": "8.0"},
        {"source": "a.csv", "device_name": "GPU X", "cc": "9.0"},
        {"source": "b.csv", "device_name": None, "cc": None},
    ]
    keys = [
        ("a.csv", "GPU X", "9.0"),
        ("a.csv", "GPU X", "8.0"),
        ("a.csv", "GPU X", None),
        ("b.csv", None, None),
        ("b.csv", None, "9.0"),
        ("c.csv", "GPU X", "9.0"),
    ]
    records = [dict(zip(("source", "device_name", "cc"), k, strict=True)) for k in keys * 3]
    index = DeviceIndex(roofs)
    want = [index.lookup(*k) for k in keys * 3]
    assert want[:6] == [1, 0, 0, 2, 2, -1]
    assert _launch_devices(records, DeviceIndex(roofs)).tolist() == want
