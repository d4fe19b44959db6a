"""The time budget of exact-layout timelines, worked out by hand.

Every timeline here is built in the test (``Timeline.of``), so each figure
can be checked against arithmetic done on the layout: the span, kernel,
copy and idle time, the gap histogram, the small kernels, the overlap rule
(overlapping kernels share an instant equally), NVTX steps on GPU and CPU
times, CUDA graph launches, and the odd input the budget must count rather
than drop.  A property test holds the parts to the span on random layouts.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis.budget import budget, budget_findings
from ncu_roofline.analysis.budget.records import BudgetRecord, WindowBudgetRecord
from ncu_roofline.core.timeline import Timeline

US = 1e-6


def acts(*rows: tuple[Any, ...], **columns: list[Any]) -> pd.DataFrame:
    """Activities from ``(kind, start_ns, end_ns, name)`` rows, plus any extra columns."""
    frame = pd.DataFrame(rows, columns=["kind", "start_ns", "end_ns", "name"])
    for col, values in columns.items():
        frame[col] = values
    return frame


def gap_counts(w: WindowBudgetRecord) -> dict[str, int]:
    return {b["label"]: b["count"] for b in w["gaps"] or [] if b["count"]}


def assert_parts_add_up(w: WindowBudgetRecord) -> None:
    assert w["span_s"] is not None and w["gaps_s"] is not None and w["memcpy_s"] is not None
    assert w["kernel_s"] + w["memcpy_s"] + w["gaps_s"] == pytest.approx(w["span_s"], abs=1e-15)
    assert sum(b["seconds"] for b in w["gaps"] or []) == pytest.approx(w["gaps_s"], abs=1e-15)
    assert sum(b["count"] for b in w["gaps"] or []) == w["gap_count"]
    assert (w["memcpy_only_s"] or 0) + (w["memset_s"] or 0) == pytest.approx(
        w["memcpy_s"], abs=1e-15
    )


ONE_STREAM = acts(
    ("kernel", 0, 2_000, "a"),
    ("kernel", 3_000, 8_000, "b"),
    ("memcpy", 10_000, 15_000, "[CUDA memcpy Host-to-Device]"),
    ("kernel", 20_000, 21_000, "a"),
    ("kernel", 21_000, 60_000, "c"),
    ("kernel", 100_000, 100_500, "a"),
    device=[0] * 6,
    stream=[7] * 6,
)


def test_one_stream_by_hand() -> None:
    """5 kernels, a memcpy and four gaps on one stream: every figure by hand."""
    r = budget(Timeline.of(activities=ONE_STREAM))
    cap = r
    assert r["basis"] == "trace" and r["device"] == "0"
    assert cap["start_ns"] == 0 and cap["end_ns"] == 100_500
    assert cap["span_s"] == pytest.approx(100.5 * US)
    # 2 + 5 + 1 + 39 + 0.5 us of kernels; 5 us of memcpy.
    assert cap["kernel_s"] == pytest.approx(47.5 * US)
    assert cap["memcpy_s"] == pytest.approx(5 * US)
    assert cap["memcpy_only_s"] == pytest.approx(5 * US)
    assert cap["memset_s"] == 0
    # Gaps: 2-3 us (1 us), 8-10 (2), 15-20 (5), 60-100 (40): bins by their left edge.
    assert cap["gaps_s"] == pytest.approx(48 * US)
    assert cap["gap_count"] == 4
    assert gap_counts(cap) == {"1-2us": 1, "2-5us": 1, "5-10us": 1, "20-50us": 1}
    # Under 5 us: the three ``a`` (2 + 1 + 0.5 us); ``b`` is 5 us exactly, not under.
    assert cap["kernels"] == 5
    assert cap["small_kernels"] == 3
    assert cap["small_kernel_s"] == pytest.approx(3.5 * US)
    assert cap["launch_bound_share"] == pytest.approx((48 + 3.5) / 100.5)
    # No analysis: no classes, no join.
    assert cap["by_bound"] is None and cap["not_profiled_s"] is None and r["joins"] is None
    assert r["steps"] == [] and r["range_basis"] is None
    assert_parts_add_up(cap)
    assert [k["name"] for k in r["trace_kernels"]] == ["c", "b", "a"]
    assert r["trace_kernels"][2]["instances"] == 3
    assert r["warnings"] == []


def test_overlapping_streams_share_each_instant_equally() -> None:
    """Two kernels overlap for 5 us: each is given half of it; a copy under a kernel gets nothing."""
    timeline = Timeline.of(
        activities=acts(
            ("kernel", 0, 10_000, "a"),
            ("kernel", 5_000, 15_000, "b"),
            ("memcpy", 12_000, 20_000, "[CUDA memcpy Device-to-Host]"),
            ("memset", 25_000, 26_000, "[CUDA memset]"),
            stream=[1, 2, 3, 3],
        )
    )
    r = budget(timeline)
    cap = r
    # [0,5) a; [5,10) a+b; [10,15) b (the copy under it is kernel time); [15,20) copy;
    # [20,25) idle; [25,26) memset.
    assert cap["span_s"] == pytest.approx(26 * US)
    assert cap["kernel_s"] == pytest.approx(15 * US)
    assert cap["memcpy_only_s"] == pytest.approx(5 * US)
    assert cap["memset_s"] == pytest.approx(1 * US)
    assert cap["memcpy_s"] == pytest.approx(6 * US)
    assert cap["gaps_s"] == pytest.approx(5 * US)
    assert_parts_add_up(cap)
    # Kernel totals stay each kernel's own duration, overlap or not.
    assert {k["name"]: k["total_s"] for k in r["trace_kernels"]} == pytest.approx(
        {"a": 10 * US, "b": 10 * US}
    )


STEPS = acts(
    ("kernel", 0, 2_000, "k"),
    ("kernel", 3_000, 4_000, "k"),
    ("kernel", 10_000, 11_000, "k"),
    ("memset", 11_200, 11_300, "[CUDA memset]"),
    ("kernel", 11_500, 12_000, "k"),
    corr_id=[1, 2, 3, 4, 5],
)


def test_projected_nvtx_steps_and_range_totals() -> None:
    """GPU-projected ranges: each step's window is its own, shrunk to its activity."""
    ranges = pd.DataFrame(
        {
            "name": ["decode_step", "decode_step", "idle"],
            "start_ns": [0, 9_000, 20_000],
            "end_ns": [4_500, 12_500, 21_000],
            "level": [1, 1, 0],
            "projected": [True, True, True],
        }
    )
    r = budget(Timeline.of(activities=STEPS, ranges=ranges))
    assert r["range_basis"] == "gpu projection"
    first, second, idle = r["steps"]
    assert (first["name"], first["index"], second["index"]) == ("decode_step", 0, 1)
    assert (first["start_ns"], first["end_ns"]) == (0, 4_000)
    assert first["span_s"] == pytest.approx(4 * US)
    assert first["kernel_s"] == pytest.approx(3 * US) and first["gaps_s"] == pytest.approx(1 * US)
    assert (second["start_ns"], second["end_ns"]) == (10_000, 12_000)
    assert second["kernel_s"] == pytest.approx(1.5 * US)
    assert second["memset_s"] == pytest.approx(0.1 * US)
    assert second["gaps_s"] == pytest.approx(0.4 * US) and second["gap_count"] == 2
    for step in (first, second):
        assert_parts_add_up(step)
    # A range with no activity is listed, with no span, and warned about.
    assert idle["empty"] and idle["span_s"] is None and idle["level"] == 0
    assert any("no GPU activity" in w for w in r["warnings"])
    totals = {x["name"]: x for x in r["ranges"]}
    decode = totals["decode_step"]
    assert decode["instances"] == 2 and decode["empty_instances"] == 0
    assert decode["span_s"] == pytest.approx(6 * US)
    assert decode["mean_span_s"] == pytest.approx(3 * US)
    assert decode["kernel_s"] == pytest.approx(4.5 * US)
    assert decode["gaps_s"] == pytest.approx(1.4 * US) and decode["gap_count"] == 3
    assert decode["kernels"] == 4 and decode["small_kernels"] == 4
    assert totals["idle"]["instances"] == 1 and totals["idle"]["empty_instances"] == 1
    assert totals["idle"]["span_s"] is None


def test_cpu_ranges_take_the_work_they_launched() -> None:
    """CPU ranges: a step is the GPU work whose launch call started inside it."""
    ranges = pd.DataFrame(
        {
            "name": ["step", "step"],
            "start_ns": [-1_000, 100],
            "end_ns": [50, 900],
            "level": [0, 0],
            "projected": [False, False],
        }
    )
    api = pd.DataFrame(
        {
            "name": ["cudaLaunchKernel"] * 5,
            "start_ns": [-900, -800, 200, 300, 400],
            "end_ns": [-850, -750, 250, 350, 450],
            "corr_id": [1, 2, 3, 4, 5],
        }
    )
    r = budget(Timeline.of(activities=STEPS, ranges=ranges, api=api))
    assert r["range_basis"] == "cpu (by launch)"
    first, second = r["steps"]
    assert (first["start_ns"], first["end_ns"]) == (0, 4_000)
    assert (second["start_ns"], second["end_ns"]) == (10_000, 12_000)
    # Without an API trace, activities starting inside a range are its work.
    r = budget(Timeline.of(activities=STEPS, ranges=ranges))
    assert r["range_basis"] == "cpu (by start)"
    assert (r["steps"][0]["start_ns"], r["steps"][0]["end_ns"]) == (0, 2_000)
    assert r["steps"][1]["empty"]


def test_cuda_graph_kernels_share_a_corr_id() -> None:
    """Three kernels on the corr id of a cudaGraphLaunch are graph-launched; an info finding says so."""
    timeline = Timeline.of(
        activities=acts(
            ("kernel", 0, 1_000, "g1"),
            ("kernel", 1_000, 2_000, "g2"),
            ("kernel", 2_000, 3_000, "g3"),
            ("kernel", 5_000, 9_000, "solo"),
            corr_id=[7, 7, 7, 8],
        ),
        api=pd.DataFrame(
            {
                "name": ["cudaGraphLaunch_v10000", "cudaLaunchKernel"],
                "start_ns": [0, 10],
                "end_ns": [5, 15],
                "corr_id": [7, 8],
            }
        ),
    )
    r = budget(timeline)
    assert r["graphs"] == {
        "basis": "api",
        "graph_launches": 1,
        "graph_kernels": 3,
        "graph_kernel_s": pytest.approx(3 * US),
        "kernel_share": 0.75,
    }
    kinds = [f.kind for f in budget_findings(r)]
    assert "graph-launched" in kinds
    # No API trace: kernels sharing a corr id are the evidence.
    bare = budget(Timeline.of(activities=timeline.activities))
    assert bare["graphs"]["basis"] == "shared corr id" and bare["graphs"]["graph_kernels"] == 3


def test_odd_activities_are_counted_not_dropped() -> None:
    """Missing times, end before start, absurd lengths, a detached cluster: each counted and warned."""
    timeline = Timeline.of(
        activities=acts(
            ("kernel", 0, 1_000, "k"),
            ("kernel", 2_000, 3_000, "k"),
            ("kernel", 5_000, 4_000, "k"),  # ends before it starts
            ("kernel", None, 4_000, "k"),  # no start
            ("kernel", 0, 100 * 10**9, "k"),  # 100 s long
            ("kernel", 500 * 10**9, 500 * 10**9 + 10, "k"),  # 500 s after the rest
            ("sync", 0, 10, "?"),
        )
    )
    r = budget(timeline)
    assert r["excluded"] == {
        "missing_times": 1,
        "end_before_start": 1,
        "absurd_duration": 1,
        "detached": 1,
        "unknown_kind": 1,
        "other_devices": 0,
    }
    assert len(r["warnings"]) == 5
    cap = r
    assert cap["span_s"] == pytest.approx(3 * US) and cap["kernels"] == 2
    assert_parts_add_up(cap)


def test_several_devices_budget_the_busiest() -> None:
    """The device with the most kernel time is the headline; the others are listed."""
    timeline = Timeline.of(
        activities=acts(
            ("kernel", 0, 1_000, "k"),
            ("kernel", 0, 5_000, "k"),
            ("kernel", 6_000, 9_000, "k"),
            device=[0, 1, 1],
        )
    )
    r = budget(timeline)
    assert r["device"] == "1"
    assert [(d["device"], d["headline"]) for d in r["devices"]] == [("0", False), ("1", True)]
    assert r["kernel_s"] == pytest.approx(8 * US)
    assert r["excluded"]["other_devices"] == 1
    assert any("2 devices" in w for w in r["warnings"])


def test_launch_bound_finding_follows_the_threshold() -> None:
    r = budget(Timeline.of(activities=ONE_STREAM))
    (found,) = [f for f in budget_findings(r) if f.kind == "launch-bound"]
    assert (
        found.severity == "warning"
        and "51%" in found.message
        and "nsys trace of device 0" in found.message
    )
    assert not [f for f in budget_findings(r, launch_bound_share=0.6) if f.kind == "launch-bound"]


def test_an_empty_timeline_says_so() -> None:
    r = budget(Timeline.empty())
    assert r["basis"] == "empty" and r["span_s"] is None
    assert any("neither" in w for w in r["warnings"])


# --- the parts add up, on random layouts --------------------------------------

_interval = st.tuples(
    st.sampled_from(["kernel", "kernel", "memcpy", "memset"]),
    st.integers(0, 60),
    st.integers(0, 25),
    st.integers(0, 2),
)


def _brute(rows: list[tuple[str, int, int, int]]) -> tuple[int, int, int, int]:
    """Kernel, copy, idle and span by walking every ns of the layout."""
    lo = min(s for _, s, _, _ in rows)
    hi = max(s + d for _, s, d, _ in rows)
    kernel = copy = idle = 0
    for t in range(lo, hi):
        running = {k for k, s, d, _ in rows if s <= t < s + d}
        if "kernel" in running:
            kernel += 1
        elif running:
            copy += 1
        else:
            idle += 1
    return kernel, copy, idle, hi - lo


@settings(max_examples=60, deadline=None)
@given(st.lists(_interval, min_size=1, max_size=12))
def test_parts_add_up_to_the_span(rows: list[tuple[str, int, int, int]]) -> None:
    rows = [r for r in rows if r[2] > 0] or [("kernel", 0, 1, 0)]
    frame = acts(
        *[(k, s, s + d, f"k{i % 3}") for i, (k, s, d, _) in enumerate(rows)],
        stream=[st_ for *_, st_ in rows],
    )
    record: BudgetRecord = budget(Timeline.of(activities=frame))
    cap = record
    kernel, copy, idle, span = _brute(rows)
    assert cap["span_s"] == pytest.approx(span * 1e-9, abs=1e-18)
    assert cap["kernel_s"] == pytest.approx(kernel * 1e-9, abs=1e-18)
    assert cap["memcpy_s"] == pytest.approx(copy * 1e-9, abs=1e-18)
    assert cap["gaps_s"] == pytest.approx(idle * 1e-9, abs=1e-18)
    assert_parts_add_up(cap)
    assert math.isclose(
        cap["kernel_s"] + (cap["memcpy_s"] or 0) + (cap["gaps_s"] or 0),
        cap["span_s"] or 0,
        abs_tol=1e-18,
    )


def test_launch_bound_notes_kernels_already_in_graphs() -> None:
    """Graph-launched small kernels with gaps: still launch-bound, but graphs are no remedy."""
    frame = acts(
        *[("kernel", i * 10_000, i * 10_000 + 1_000, "tiny") for i in range(4)],
        corr_id=[3, 3, 3, 3],
    )
    api = pd.DataFrame({"name": ["cuGraphLaunch"], "start_ns": [0], "end_ns": [1], "corr_id": [3]})
    r = budget(Timeline.of(activities=frame, api=api))
    (found,) = [f for f in budget_findings(r) if f.kind == "launch-bound"]
    assert "100% of the kernels already come from CUDA graphs" in found.message
