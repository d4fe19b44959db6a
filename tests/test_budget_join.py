"""The budget against a real ncu analysis and a real nsys kernel summary.

The ncu export ``CodeGandee__...kernel_0005_ncu.details.csv`` (one CUTLASS
GEMM launch) and the nsys ``cuda_gpu_kern_sum`` of the same project's decode
stage (46 kernels, 78,016 instances) live in ``../shared/``.  Trace
timelines here use the export's kernel name exactly and in nsys's spellings,
so each join pass is seen; the summary is read with pandas in the test and
its totals checked against the budget's.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ncu_roofline
from ncu_roofline.analysis.budget import budget, budget_findings, join_key, weight_by_timeline
from ncu_roofline.analysis.engine import Analysis
from ncu_roofline.core.timeline import Timeline
from tests.helpers import SAMPLES

US = 1e-6
NCU = (
    SAMPLES / "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
)
DECODE_SUM = (
    SAMPLES.parent
    / "nsys-samples"
    / "CodeGandee__llm-perf-opt__reports_20251107-dsocr_nsys_per-stage_decode_nsys_summary_cuda_gpu_kern_sum.csv"
)
NAME = "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)"
NSYS_NAME = "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(T1::Params)"


@functools.cache
def _analysis(path: Path) -> Analysis:
    return ncu_roofline.analyze(ncu_roofline.load(str(path)))


@pytest.fixture
def analysis() -> Analysis:
    if not NCU.is_file():
        pytest.skip(f"real ncu sample not found at {NCU}")
    return _analysis(NCU)


def trace(*rows: tuple[str, int, int, str | None]) -> Timeline:
    """Kernels from ``(name, start_ns, end_ns, grid)`` rows, block (256, 1, 1)."""
    return Timeline.of(
        activities=pd.DataFrame(
            {
                "kind": "kernel",
                "name": [r[0] for r in rows],
                "start_ns": [r[1] for r in rows],
                "end_ns": [r[2] for r in rows],
                "grid": [r[3] for r in rows],
                "block": "(256, 1, 1)",
                "device": 0,
            }
        )
    )


JOINED = trace(
    (NAME, 0, 112_000, "(332, 1, 1)"),  # exact
    (NAME, 200_000, 312_000, "(100, 1, 1)"),  # another grid: by name
    (NSYS_NAME, 400_000, 402_000, "(332, 1, 1)"),  # nsys's spelling: normalised
    ("void other_kernel<float>(float *)", 600_000, 603_000, "(1, 1, 1)"),  # never profiled
)


def test_the_group_is_as_the_tests_assume(analysis: Analysis) -> None:
    k = analysis.kernels.iloc[0]
    assert (k["kernel"], k["grid"], k["block"], k["bound"], k["limiter"]) == (
        NAME,
        "(332, 1, 1)",
        "(256, 1, 1)",
        "compute",
        "tensor-pipe",
    )


def test_each_join_pass_against_the_real_analysis(analysis: Analysis) -> None:
    r = budget(JOINED, analysis)
    assert r["joins"] == {
        "joined_exact": 1,
        "joined_by_name": 1,
        "joined_normalised": 1,
        "not_joined": 1,
        "joined_share": pytest.approx(226 / 229),
        "ncu_groups_unseen": 0,
    }
    cap = r
    assert cap["by_bound"] == pytest.approx({"compute": 226 * US, "not profiled": 3 * US})
    assert cap["by_limiter"] == pytest.approx({"tensor-pipe": 226 * US, "not profiled": 3 * US})
    assert cap["not_profiled_s"] == pytest.approx(3 * US)
    joins = {(k["name"], k["grid"]): (k["join"], k["ncu_kernel"]) for k in r["trace_kernels"]}
    assert joins[(NSYS_NAME, "(332, 1, 1)")] == ("normalised", NAME)
    assert joins[("void other_kernel<float>(float *)", "(1, 1, 1)")] == ("not joined", None)
    (unprofiled,) = r["unprofiled"]
    assert (
        unprofiled["ncu_options"]
        == "--kernel-name 'regex:(^|::)other_kernel$' --launch-skip 0 --launch-count 1"
    )
    assert r["warnings"] == []


def test_overlap_split_feeds_the_classes(analysis: Analysis) -> None:
    """Overlapping kernels split each instant: by_bound adds up to the kernel time."""
    timeline = trace(
        (NAME, 0, 10_000, "(332, 1, 1)"),
        ("unprofiled", 5_000, 15_000, None),
        ("unprofiled", 5_000, 7_000, None),
    )
    cap = budget(timeline, analysis)
    # [0,5) profiled alone; [5,7) three kernels, 2/3 us each; [7,10) two, 1.5 each; [10,15) unprofiled.
    assert cap["by_bound"] == pytest.approx(
        {"compute": (5 + 2 / 3 + 1.5) * US, "not profiled": (4 / 3 + 1.5 + 5) * US}
    )
    assert sum((cap["by_bound"] or {}).values()) == pytest.approx(cap["kernel_s"])
    assert sum((cap["by_limiter"] or {}).values()) == pytest.approx(cap["kernel_s"])


def test_a_trace_of_another_program_joins_nothing(analysis: Analysis) -> None:
    r = budget(
        trace(("void foo(int)", 0, 1_000, None), ("void bar(int)", 2_000, 9_000, None)), analysis
    )
    assert (
        r["joins"] is not None
        and r["joins"]["joined_share"] == 0
        and r["joins"]["ncu_groups_unseen"] == 1
    )
    assert r["not_profiled_s"] == pytest.approx(r["kernel_s"])
    assert any("another program" in w for w in r["warnings"])
    (hot,) = [f for f in budget_findings(r) if f.kind == "unprofiled-hot"]
    assert "100%" in hot.message and "Nothing joined" in hot.message and "bar" in hot.message


@pytest.mark.parametrize(
    ("ncu", "nsys"),
    [
        (NAME, NSYS_NAME),
        (
            "void gemvx::kernel<int, 7, false>(Params)",
            "std::enable_if<!T7, void>::type internal::gemvx::kernel<int, (int)7, (bool)0>(T13)",
        ),
        (
            "void (anonymous namespace)::softmax<float, 6u>(float *, int)",
            "void <unnamed>::softmax<float, (unsigned int)6>(T1 *, int)",
        ),
    ],
)
def test_join_key_forgives_the_spellings(ncu: str, nsys: str) -> None:
    assert join_key(ncu) == join_key(nsys)


def test_join_key_keeps_instantiations_apart() -> None:
    assert join_key("void k<(int)6>(T1)") != join_key("void k<(int)7>(T1)")


def test_weight_by_timeline_gives_real_time(analysis: Analysis) -> None:
    w = weight_by_timeline(analysis, JOINED)
    row = w.iloc[0]
    assert row["nsys_instances"] == 3
    assert row["nsys_total_s"] == pytest.approx(226 * US)
    assert row["nsys_time_share"] == pytest.approx(226 / 229)
    assert row["nsys_join"] == "exact, by name, normalised"
    assert row["time_basis"] == "nsys"
    scale = 226 * US / float(row["total_duration_s"])
    assert row["weighted_recoverable_s"] == pytest.approx(float(row["recoverable_s"]) * scale)
    assert row["weighted_rank"] == 1


def test_weight_by_timeline_leaves_unseen_groups_missing(analysis: Analysis) -> None:
    w = weight_by_timeline(analysis, trace(("void foo(int)", 0, 1_000, None)))
    row = w.iloc[0]
    assert row["time_basis"] == "ncu"
    assert (
        pd.isna(row["nsys_instances"])
        and np.isnan(row["nsys_total_s"])
        and np.isnan(row["nsys_time_share"])
    )
    assert row["weighted_recoverable_s"] == pytest.approx(float(row["recoverable_s"]))


@pytest.fixture
def decode_summary() -> Timeline:
    if not DECODE_SUM.is_file():
        pytest.skip(f"real nsys sample not found at {DECODE_SUM}")
    raw = pd.read_csv(DECODE_SUM)
    sums = pd.DataFrame(
        {
            "name": raw["Name"],
            "instances": raw["Instances"],
            "total_ns": raw["Total Time (ns)"].astype(float),
            "avg_ns": raw["Avg (ns)"],
            "med_ns": raw["Med (ns)"],
            "min_ns": raw["Min (ns)"].astype(float),
            "max_ns": raw["Max (ns)"].astype(float),
            "stddev_ns": raw["StdDev (ns)"],
        }
    )
    return Timeline.of(kernel_sums=sums)


def test_summary_only_decode_against_the_real_analysis(
    decode_summary: Timeline, analysis: Analysis
) -> None:
    """The decode stage never ran the profiled GEMM: everything is not profiled, from the summaries' totals."""
    raw = pd.read_csv(DECODE_SUM)
    total_s = float(raw["Total Time (ns)"].sum()) / 1e9
    r = budget(decode_summary, analysis)
    cap = r
    assert r["basis"] == "summary" and r["devices"] == [] and r["steps"] == []
    assert (
        cap["span_s"] is None
        and cap["gaps_s"] is None
        and cap["gaps"] is None
        and cap["memcpy_s"] is None
    )
    assert len(raw) == 46 and len(r["trace_kernels"]) == 46
    assert cap["kernels"] == 78_016 == int(raw["Instances"].sum())
    assert cap["kernel_s"] == pytest.approx(total_s)
    assert cap["not_profiled_s"] == pytest.approx(total_s)
    assert cap["by_bound"] == pytest.approx({"not profiled": total_s})
    assert r["joins"] is not None
    assert r["joins"]["not_joined"] == 78_016 and r["joins"]["joined_share"] == 0
    small = raw[raw["Avg (ns)"] < 5_000]
    assert cap["small_kernels"] == int(small["Instances"].sum())
    assert cap["small_kernel_s"] == pytest.approx(float(small["Total Time (ns)"].sum()) / 1e9)
    top = r["unprofiled"][0]
    assert top["name"] == raw["Name"].iloc[0] and top["instances"] == 16_448
    assert (
        top["ncu_options"]
        == "--kernel-name 'regex:(^|::)kernel$' --launch-skip 50 --launch-count 5"
    )
    kinds = {f.kind for f in budget_findings(r)}
    assert kinds == {"unprofiled-hot", "launch-bound"}
    (lb,) = [f for f in budget_findings(r) if f.kind == "launch-bound"]
    assert "gaps between them are unknown" in lb.message and "summaries" in lb.message


def test_summary_joins_by_name_when_the_kernel_is_there(analysis: Analysis) -> None:
    sums = pd.DataFrame(
        {
            "name": [NSYS_NAME, "void other(int)"],
            "instances": [10, 5],
            "total_ns": [1_000_000.0, 250_000.0],
            "avg_ns": [100_000.0, 50_000.0],
        }
    )
    r = budget(Timeline.of(kernel_sums=sums), analysis)
    assert r["joins"] is not None
    assert (r["joins"]["joined_normalised"], r["joins"]["not_joined"]) == (10, 5)
    assert r["by_bound"] == pytest.approx({"compute": 1e-3, "not profiled": 2.5e-4})
    w = weight_by_timeline(analysis, Timeline.of(kernel_sums=sums))
    assert w.iloc[0]["nsys_instances"] == 10 and w.iloc[0]["nsys_total_s"] == pytest.approx(1e-3)
    assert w.iloc[0]["nsys_time_share"] == pytest.approx(0.8)


def test_weight_by_timeline_reranks_by_real_time() -> None:
    """A group ncu ranked fourth that ran 100 times as long in the trace comes first."""
    from tests.helpers import SAMPLE

    analysis = _analysis(SAMPLE)
    k = analysis.kernels
    fourth = k.iloc[3]
    ncu_time = float(fourth["total_duration_s"])
    runs = 100
    per = int(ncu_time * 1e9)
    timeline = Timeline.of(
        activities=pd.DataFrame(
            {
                "kind": "kernel",
                "name": str(fourth["kernel"]),
                "start_ns": [i * 2 * per for i in range(runs)],
                "end_ns": [i * 2 * per + per for i in range(runs)],
                "grid": fourth["grid"],
                "block": fourth["block"],
            }
        )
    )
    w = weight_by_timeline(analysis, timeline)
    top = w.iloc[0]
    assert (top["kernel"], top["grid"]) == (fourth["kernel"], fourth["grid"])
    assert top["nsys_instances"] == runs and top["time_basis"] == "nsys"
    assert top["weighted_recoverable_s"] == pytest.approx(
        float(fourth["recoverable_s"]) * runs * per / 1e9 / ncu_time
    )
    assert list(w["weighted_rank"]) == list(range(1, len(w) + 1))
    others = w.iloc[1:]
    assert set(others["time_basis"]) == {"ncu"} and others["nsys_total_s"].isna().all()
    assert (others["weighted_recoverable_s"].to_numpy() == others["recoverable_s"].to_numpy()).all()
