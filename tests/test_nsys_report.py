"""``report --nsys``, ``timeline`` and ``profile --nsys`` through the command line.

The fixtures are nsys reports in their exact layouts (``cuda_gpu_trace``,
``nvtx_gpu_proj_trace``, ``cuda_api_trace``, as ``nsys stats --format csv``
writes them), written here with known times; their kernels are the shipped
sample's (names, grids and blocks read from it), plus one kernel the ncu
profile does not hold, with ``<script>`` in its name.  Every expected value
is worked out by hand from the fixture's numbers (in the comments), never
from the tool.

The trace (ns; device 0, stream 7)::

    H2D copy   1_000_000 +  2_000
    step 1 (NVTX "decode", projected 1_003_000 .. 1_100_000):
      rms_norm   1_003_000 +  3_000     gap 1_000 before (after the copy)
      gemvx      1_010_000 + 20_000     gap 4_000
      rotary     1_032_000 +  2_000     gap 2_000
      sm90 gemm  1_050_000 + 10_000     gap 16_000
      evil       1_070_000 + 30_000     gap 10_000   (not in the ncu profile)
    step 2: the same +200_000 (gap 103_000 before it); its rms_norm and gemvx
      come from one cudaGraphLaunch (one CorrId)
    D2H copy   1_305_000 +  5_000     gap 5_000 before
"""

from __future__ import annotations

import csv
import json
import math
import sqlite3
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import REPO, SAMPLE, SAMPLES, run

NSYS_SAMPLES = REPO.parent / "shared" / "nsys-samples"
CODEGANDEE_NCU = (
    SAMPLES / "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
)
CODEGANDEE_NSYS = (
    NSYS_SAMPLES
    / "CodeGandee__llm-perf-opt__reports_20251107-dsocr_nsys_per-stage_decode_nsys_summary_cuda_gpu_kern_sum.csv"
)
KILN = sorted(NSYS_SAMPLES.glob("ericflo__kiln__*.csv"))

GPU_TRACE_HEAD = (
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name"
)
NVTX_HEAD = (
    "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
    "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack"
)
API_HEAD = "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name"

EVIL = "void evil_kernel<script>alert(1)</script>(float *)"
DEVICE = "NVIDIA H100 80GB HBM3 (0)"


def _sample_kernels() -> dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]]:
    """The sample's kernels used here, by role: (name, grid, block), read from the sample."""
    from ncu_roofline import load

    launches = load(str(SAMPLE)).launches
    picked: dict[str, tuple[str, tuple[int, ...], tuple[int, ...]]] = {}
    wanted = {
        "rms": ("rms_norm_kernel", "(1, 1, 1)"),
        "gemv": ("gemvx::kernel", "(1536, 1, 1)"),
        "rotary": ("rotary_embedding_kernel", "(1, 1, 1)"),
        "gemm": ("sm90_xmma_gemm", "(16, 32, 1)"),
    }
    for _, row in launches.iterrows():
        for role, (part, grid) in wanted.items():
            if role not in picked and part in row["kernel"] and row["grid"] == grid:
                dims = lambda text: tuple(int(x) for x in text.strip("()").split(","))  # noqa: E731
                picked[role] = (str(row["kernel"]), dims(row["grid"]), dims(row["block"]))
    assert len(picked) == 4
    return picked


def _q(text: str) -> str:
    return '"' + text.replace('"', '""') + '"'


def _kernel_row(
    start: int, dur: int, corr: int, k: tuple[str, tuple[int, ...], tuple[int, ...]]
) -> str:
    name, g, b = k
    return (
        f"{start},{dur},{corr},{g[0]},{g[1]},{g[2]},{b[0]},{b[1]},{b[2]},32,0.000,0.000,,,,,"
        f"{_q(DEVICE)},1,,7,{_q(name)}"
    )


def _copy_row(start: int, dur: int, corr: int, mb: float, src: str, dst: str, name: str) -> str:
    return (
        f"{start},{dur},{corr},,,,,,,,,,{mb:.3f},{mb / dur * 1e9:.3f},{src},{dst},"
        f"{_q(DEVICE)},1,,7,{_q(name)}"
    )


#: (role, offset from the step start, duration): one step's kernels.
STEP = [("rms", 0, 3_000), ("gemv", 7_000, 20_000), ("rotary", 29_000, 2_000),
        ("gemm", 47_000, 10_000), ("evil", 67_000, 30_000)]  # fmt: skip
STEP_STARTS = (1_003_000, 1_203_000)


def write_trace(tmp_path: Path, evil: str = EVIL) -> dict[str, Path]:
    """The trace, NVTX and API CSVs (see the module docstring)."""
    kernels: dict[str, Any] = {**_sample_kernels(), "evil": (evil, (4, 1, 1), (64, 1, 1))}
    rows = [
        _copy_row(1_000_000, 2_000, 1, 4.194, "Pageable", "Device", "[CUDA memcpy Host-to-Device]")
    ]
    api = []
    corr = 10
    for step, base in enumerate(STEP_STARTS):
        for role, offset, dur in STEP:
            graphed = step == 1 and role in ("rms", "gemv")
            c = 200 if graphed else corr
            rows.append(_kernel_row(base + offset, dur, c, kernels[role]))
            if not graphed:
                api.append(
                    f"{base + offset - 5_000},1500,cudaLaunchKernel,0,{c},4242,4242,0,python"
                )
            corr += 1
    api.append(f"{STEP_STARTS[1] - 6_000},2500,cudaGraphLaunch,0,200,4242,4242,0,python")
    rows.append(
        _copy_row(1_305_000, 5_000, 2, 0.001, "Device", "Pageable", "[CUDA memcpy Device-to-Host]")
    )
    nvtx = [
        f"decode,{s},97000,{s - 8_000},90000,PushPop,4242,4242,5,0,0,{i + 1},,:decode"
        for i, s in enumerate(STEP_STARTS)
    ]
    paths = {
        "trace": tmp_path / "run_cuda_gpu_trace.csv",
        "nvtx": tmp_path / "run_nvtx_gpu_proj_trace.csv",
        "api": tmp_path / "run_cuda_api_trace.csv",
    }
    for key, head, body in (
        ("trace", GPU_TRACE_HEAD, rows),
        ("nvtx", NVTX_HEAD, nvtx),
        ("api", API_HEAD, api),
    ):
        paths[key].write_text("\n".join([head, *body]) + "\n", encoding="utf-8")
    return paths


def _strict_json(text: str) -> Any:
    def refuse(token: str) -> Any:
        raise AssertionError(f"non-JSON number {token} in the output")

    return json.loads(text, parse_constant=refuse)


US = 1e-6


def _report(tmp_path: Path, *extra: str) -> tuple[Any, Any]:
    paths = write_trace(tmp_path)
    proc = run("report", str(SAMPLE), "--nsys", str(paths["trace"]), "--nsys", str(paths["nvtx"]),
               *extra, "--format", "json", "-o", "-")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return _strict_json(proc.stdout), proc


@pytest.fixture(scope="module")
def joined(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Any]:
    tmp = tmp_path_factory.mktemp("joined")
    paths = write_trace(tmp)
    proc = run("report", str(SAMPLE), "--nsys", str(paths["trace"]), "--nsys", str(paths["nvtx"]),
               "--nsys", str(paths["api"]), "--format", "json", "-o", "-")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return _strict_json(proc.stdout), proc


def test_report_budget_by_hand(joined: tuple[Any, Any]) -> None:
    doc, proc = joined
    b = doc["budget"]
    cap = b
    assert b["basis"] == "trace" and b["range_basis"] == "gpu projection"
    # Span: the H2D copy's start 1_000_000 to the D2H copy's end 1_310_000.
    assert cap["span_s"] == pytest.approx(310 * US)
    # Kernels: 2 steps x (3 + 20 + 2 + 10 + 30) us, no overlap.
    assert cap["kernel_s"] == pytest.approx(130 * US)
    assert cap["memcpy_s"] == pytest.approx(7 * US) and cap["memcpy_only_s"] == pytest.approx(
        7 * US
    )
    # Gaps: 1 + (4 + 2 + 16 + 10) + 103 + (4 + 2 + 16 + 10) + 5 = 173 us in 11 gaps.
    assert cap["gaps_s"] == pytest.approx(173 * US)
    assert cap["gap_count"] == 11
    assert cap["kernel_s"] + cap["memcpy_s"] + cap["gaps_s"] == pytest.approx(cap["span_s"])
    # Histogram: 1 us -> 1-2us; 2 us x2 -> 2-5us; 4 us x2 -> 2-5us; 5 us -> 5-10us;
    # 10 us x2 -> 10-20us; 16 us x2 -> 10-20us; 103 us -> 100us-1ms.
    counts = {g["label"]: g["count"] for g in cap["gaps"] if g["count"]}
    assert counts == {"1-2us": 1, "2-5us": 4, "5-10us": 1, "10-20us": 4, "100us-1ms": 1}
    # Small kernels (< 5 us): rms_norm (3 us) and rotary (2 us) in each step.
    assert cap["small_kernels"] == 4 and cap["small_kernel_s"] == pytest.approx(10 * US)
    # Not profiled: the evil kernel, 2 x 30 us; the by-bound parts add up to the kernel time.
    assert cap["not_profiled_s"] == pytest.approx(60 * US)
    assert cap["by_bound"]["not profiled"] == pytest.approx(60 * US)
    assert sum(cap["by_bound"].values()) == pytest.approx(cap["kernel_s"])
    assert cap["launch_bound_share"] == pytest.approx((173 + 10) / 310)
    # Steps: each 97 us, 65 us of kernels and 32 us of gaps.
    steps = b["steps"]
    assert [s["name"] for s in steps] == ["decode", "decode"]
    for s in steps:
        assert s["span_s"] == pytest.approx(97 * US)
        assert s["kernel_s"] == pytest.approx(65 * US)
        assert s["gaps_s"] == pytest.approx(32 * US)
        assert s["kernels"] == 5
    (decode,) = b["ranges"]
    assert decode["instances"] == 2 and decode["median_span_s"] == pytest.approx(97 * US)
    # The join: every kernel but the evil one, by name, grid and block.
    assert b["joins"]["joined_exact"] == 8 and b["joins"]["not_joined"] == 2
    assert {k["name"] for k in b["trace_kernels"] if k["join"] == "not joined"} == {EVIL}
    assert all(k["join"] == "exact" for k in b["trace_kernels"] if k["name"] != EVIL)
    (unprofiled,) = b["unprofiled"]
    assert unprofiled["instances"] == 2 and unprofiled["total_s"] == pytest.approx(60 * US)
    # Graphs: the cudaGraphLaunch's CorrId is shared by step 2's rms_norm and gemvx.
    assert b["graphs"]["basis"] == "api"
    assert b["graphs"]["graph_launches"] == 1 and b["graphs"]["graph_kernels"] == 2
    assert b["graphs"]["graph_kernel_s"] == pytest.approx(23 * US)
    assert "Timeline: span 310 µs over 2 steps" in proc.stderr


def test_report_kernels_weighted_by_real_time(joined: tuple[Any, Any]) -> None:
    doc, _ = joined
    kernels = doc["kernels"]
    seen = [k for k in kernels if k["time_basis"] == "nsys"]
    # Four sample groups ran in the trace, each twice; their real time over all 130 us.
    real = {
        "rms_norm_kernel": 6,
        "gemvx::kernel": 40,
        "rotary_embedding_kernel": 4,
        "sm90_xmma": 20,
    }
    assert len(seen) == 4
    for k in seen:
        (us,) = [v for part, v in real.items() if part in k["kernel"]]
        assert k["nsys_instances"] == 2
        assert k["nsys_total_s"] == pytest.approx(us * US)
        assert k["time_share"] == pytest.approx(us / 130)
        assert k["sample_time_share"] is not None
        # total_duration_s is the real time now; the sampled one is kept beside it.
        assert k["total_duration_s"] == pytest.approx(k["nsys_total_s"])
        scale = k["nsys_total_s"] / k["sample_total_duration_s"]
        assert k["recoverable_s"] == pytest.approx(k["sample_recoverable_s"] * scale)
    for k in kernels:
        if k["time_basis"] != "nsys":
            assert k["time_share"] is None and k["nsys_total_s"] is None
            assert k["recoverable_s"] == k["sample_recoverable_s"]
    ranked = sorted(kernels, key=lambda k: k["rank"])
    values = [k["recoverable_s"] for k in ranked if k["recoverable_s"] is not None]
    assert values == sorted(values, reverse=True)


def test_report_findings(joined: tuple[Any, Any]) -> None:
    doc, _ = joined
    by_kind: dict[str, list[Any]] = {}
    for f in doc["findings"]:
        by_kind.setdefault(f["kind"], []).append(f)
    # Gaps (173 us) and small kernels (10 us) make 59% of the 310 us span.
    (capture,) = [f for f in by_kind["launch-bound"] if f["message"].startswith("The capture")]
    assert "59%" in capture["message"]
    # The decode steps: 2 x 32 us gaps + 10 us small kernels over 194 us = 38%.
    assert any(
        "'decode'" in f["message"] and "38%" in f["message"] for f in by_kind["launch-bound"]
    )
    (hot,) = by_kind["unprofiled-hot"]
    assert "46%" in hot["message"]  # 60 of 130 us
    assert (
        "--kernel-name 'regex:(^|::)evil_kernel$' --launch-skip 0 --launch-count 2"
        in hot["message"]
    )
    (graph,) = by_kind["graph-launched"]
    assert "cudaGraphLaunch" in graph["message"] and "2 kernels" in graph["message"]


def test_report_without_api_trace_finds_the_graph_by_shared_corr_id(tmp_path: Path) -> None:
    doc, _ = _report(tmp_path)
    assert doc["budget"]["graphs"]["basis"] == "shared corr id"


def test_report_html_and_markdown_escape_names(tmp_path: Path) -> None:
    paths = write_trace(tmp_path)
    nsys = ["--nsys", str(paths["trace"]), "--nsys", str(paths["nvtx"])]
    page = tmp_path / "r.html"
    proc = run("report", str(SAMPLE), *nsys, "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text(encoding="utf-8")
    assert '<section id="budget">' in html and "Where the step's time goes" in html
    assert "<script>alert(1)" not in html
    assert "evil_kernel&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = run("report", str(SAMPLE), *nsys, "--format", "md", "-o", "-")
    assert md.returncode == 0, md.stderr
    assert "Timeline: span 310 µs over 2 steps" in md.stdout
    assert "evil" in md.stdout and "<script>" not in md.stdout


def test_trace_of_another_program(tmp_path: Path) -> None:
    head = GPU_TRACE_HEAD
    body = [
        f"{1000 * i},500,{i},1,1,1,32,1,1,16,0,0,,,,,{_q(DEVICE)},1,,7,other_kernel_{i}"
        for i in range(1, 4)
    ]
    trace = tmp_path / "other_cuda_gpu_trace.csv"
    trace.write_text("\n".join([head, *body]) + "\n", encoding="utf-8")
    proc = run("report", str(SAMPLE), "--nsys", str(trace), "--format", "json", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    assert "no trace kernel joined an ncu kernel group" in proc.stderr
    assert "of another program" in proc.stderr
    doc = _strict_json(proc.stdout)
    assert doc["budget"]["joins"]["not_joined"] == 3


def test_bad_nsys_file_is_exit_4(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("Colour,Flavour\nred,sweet\n", encoding="utf-8")
    proc = run("report", str(SAMPLE), "--nsys", str(bad), "--format", "json", "-o", "-")
    assert proc.returncode == 4, proc.stderr
    assert "bad.csv" in proc.stderr and "Traceback" not in proc.stderr


def test_report_without_nsys_has_no_budget() -> None:
    proc = run("report", str(SAMPLE), "--format", "json", "-o", "-")
    assert proc.returncode == 0
    doc = _strict_json(proc.stdout)
    assert "budget" not in doc
    assert all("nsys_total_s" not in k for k in doc["kernels"])
    assert "Timeline:" not in proc.stderr


@pytest.mark.skipif(
    not CODEGANDEE_NSYS.is_file() or not CODEGANDEE_NCU.is_file(), reason="no shared samples"
)
def test_real_ncu_and_nsys_summary() -> None:
    with CODEGANDEE_NSYS.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    total_ns = sum(int(r["Total Time (ns)"]) for r in rows)
    instances = sum(int(r["Instances"]) for r in rows)
    assert (total_ns, instances) == (179_072_697, 78_016)
    proc = run(
        "report", str(CODEGANDEE_NCU), "--nsys", str(CODEGANDEE_NSYS), "--format", "json", "-o", "-"
    )
    assert proc.returncode == 0, proc.stderr
    b = _strict_json(proc.stdout)["budget"]
    assert b["basis"] == "summary"
    assert b["kernel_s"] == pytest.approx(total_ns / 1e9)
    assert b["kernels"] == instances
    assert b["span_s"] is None and b["gaps_s"] is None
    # That ncu kernel (a CUTLASS GEMM) ran in the prefill stage, not in decode: nothing joins.
    assert b["joins"]["joined_by_name"] + b["joins"]["joined_exact"] == 0
    assert "no summary kernel joined an ncu kernel group" in proc.stderr
    prefill = Path(str(CODEGANDEE_NSYS).replace("_decode_", "_prefill_"))
    proc = run("report", str(CODEGANDEE_NCU), "--nsys", str(prefill), "--format", "json", "-o", "-")
    assert proc.returncode == 0, proc.stderr
    joins = _strict_json(proc.stdout)["budget"]["joins"]
    assert joins["joined_by_name"] + joins["joined_normalised"] >= 1


# -- timeline ---------------------------------------------------------------------------------


def test_timeline_terminal(tmp_path: Path) -> None:
    paths = write_trace(tmp_path)
    proc = run("timeline", *(str(p) for p in paths.values()))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    # No ncu profile: kernel time is one part, "kernels" (130 of 310 us = 42%).
    assert out.startswith(
        "Timeline: span 310 µs over 2 steps: kernels 42%, memcpy 2%, idle gaps 56%"
    )
    assert "not profiled" not in out
    lines = out.splitlines()
    # The top kernel: the evil one, 2 x 30 us = 60 us, 46.2% of 130 us.
    (evil,) = [line for line in lines if "evil_kernel" in line]
    assert evil.split()[0] == "1" and "60 µs" in evil and "30 µs" in evil and "46.2%" in evil
    # gemvx, shortened: 40 us, mean 20 us, 30.8%.
    (gemv,) = [line for line in lines if "gemvx" in line]
    assert "void gemvx" not in gemv and "40 µs" in gemv and "30.8%" in gemv
    # decode: median step 97 us, 65 us kernels, no copies, 32 us gaps; 38% gaps + small.
    (decode,) = [line for line in lines if line.startswith("decode")]
    assert decode.split() == [
        "decode",
        "2",
        "97",
        "µs",
        "65",
        "µs",
        "0",
        "s",
        "32",
        "µs",
        "38%",
    ] or ("97 µs" in decode and "65 µs" in decode and "32 µs" in decode and "38%" in decode)
    assert "launch-bound" in out and "graph-launched" in out and "unprofiled-hot" not in out


def test_timeline_json(tmp_path: Path) -> None:
    paths = write_trace(tmp_path)
    out = tmp_path / "t.json"
    proc = run("timeline", *(str(p) for p in paths.values()), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "wrote" in proc.stderr and "Timeline: span 310 µs" in proc.stderr
    doc = _strict_json(out.read_text(encoding="utf-8"))
    assert doc["document"] == "timeline" and doc["schema_version"]
    assert doc["generator"]["name"] == "ncu-roofline"
    b = doc["budget"]
    assert b["joins"] is None and b["by_bound"] is None
    assert b["not_profiled_s"] is None
    assert b["span_s"] == pytest.approx(310 * US)
    assert {f["kind"] for f in doc["findings"]} == {"launch-bound", "graph-launched"}
    assert [i["path"] for i in doc["inputs"]] == [str(p) for p in paths.values()]
    # Never over an existing file without --force (exit 5); with it, written again.
    again = run("timeline", str(paths["trace"]), "-o", str(out))
    assert again.returncode == 5 and "exists" in again.stderr
    forced = run("timeline", str(paths["trace"]), "-o", str(out), "--force")
    assert forced.returncode == 0, forced.stderr
    assert _strict_json(out.read_text(encoding="utf-8"))["budget"]["steps"] == []


def test_timeline_html_and_markdown(tmp_path: Path) -> None:
    paths = write_trace(tmp_path)
    files = [str(p) for p in paths.values()]
    page = tmp_path / "t.html"
    proc = run("timeline", *files, "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    html = page.read_text(encoding="utf-8")
    assert '<section id="budget">' in html and 'id="kernels"' in html and 'id="ranges"' in html
    assert "<script" not in html and "evil_kernel&lt;script&gt;" in html
    assert "http://" not in html and "https://" not in html and "<link" not in html
    md = run("timeline", *files, "--format", "md")
    assert md.returncode == 0, md.stderr
    assert "Timeline: span 310 µs over 2 steps" in md.stdout
    assert "<script>" not in md.stdout and "evil\\_kernel&lt;script&gt;" in md.stdout


def test_timeline_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("Colour,Flavour\nred,sweet\n", encoding="utf-8")
    proc = run("timeline", str(bad))
    assert proc.returncode == 4 and "bad.csv" in proc.stderr
    missing = run("timeline", str(tmp_path / "nothing.csv"))
    assert missing.returncode == 7
    unknown = run("timeline", str(bad), "-o", str(tmp_path / "out.txt"))
    assert unknown.returncode == 2 and "--format" in unknown.stderr


@pytest.mark.skipif(len(KILN) != 4, reason="no shared samples")
def test_timeline_on_real_summaries() -> None:
    kern_sum = next(p for p in KILN if "cuda_gpu_kern_sum" in p.name)
    with kern_sum.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    total_ns = sum(int(r["Total Time (ns)"]) for r in rows)
    proc = run("timeline", *(str(p) for p in KILN), "--format", "json")
    assert proc.returncode == 0, proc.stderr
    b = _strict_json(proc.stdout)["budget"]
    assert b["basis"] == "summary"
    # The whole-capture summary alone: nvtx_kern_sum's kernels outside every range
    # (empty range) are in it already and must not count twice.
    assert b["kernel_s"] == pytest.approx(total_ns / 1e9)
    assert b["kernels"] == 302_144
    assert len(b["ranges"]) == 37
    text = run("timeline", *(str(p) for p in KILN))
    assert text.returncode == 0
    assert text.stdout.startswith(
        "Timeline (kernel summaries: no gaps measured): kernel time 2.69 s"
    )
    assert "NVTX ranges (mean step)" in text.stdout


# -- profile --nsys ---------------------------------------------------------------------------

_FAKE_NSYS = """
import os, sqlite3, sys
args = sys.argv[1:]
with open(os.environ["FAKE_NSYS_ARGS"], "a", encoding="utf-8") as f:
    f.write(" ".join(args) + "\\n")
if args[0] == "profile":
    out = args[args.index("--output") + 1]
    open(out + ".nsys-rep", "wb").write(b"rep")
    sys.exit(0)
out = args[args.index("--output") + 1]
conn = sqlite3.connect(out)
conn.executescript(os.environ["FAKE_NSYS_SQL"])
conn.commit()
conn.close()
"""

_FAKE_NCU = """
import os, shutil, sys
args = sys.argv[1:]
shutil.copyfile(os.environ["FAKE_NCU_EXPORT"], args[args.index("--log-file") + 1])
"""


def _sql() -> str:
    """The SQLite export: two kernels of the sample and one graph of an unprofiled kernel."""
    k = _sample_kernels()
    names = [k["rms"][0], k["gemv"][0], "unprofiled_kernel"]
    ddl = (
        "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
        "deviceId INTEGER, contextId INTEGER, streamId INTEGER, correlationId INTEGER, gridX INTEGER, "
        "gridY INTEGER, gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, demangledName INTEGER);"
    )
    strings = "".join(
        f"INSERT INTO StringIds VALUES ({i + 1}, '{n}');" for i, n in enumerate(names)
    )
    rows = [
        (1000, 4000, 1, k["rms"]),  # 3 us
        (6000, 26000, 2, k["gemv"]),  # 20 us, 2 us gap
        (30000, 40000, 3, ("", (1, 1, 1), (32, 1, 1))),  # 10 us, 4 us gap
    ]
    kernels = "".join(
        f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({s}, {e}, 0, 1, 7, {c}, "
        f"{g[0]}, {g[1]}, {g[2]}, {b[0]}, {b[1]}, {b[2]}, {c});"
        for s, e, c, (_, g, b) in rows
    )
    return ddl + strings + kernels


@pytest.fixture()
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in (("nsys", _FAKE_NSYS), ("ncu", _FAKE_NCU)):
        exe = bin_dir / name
        exe.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_NSYS_ARGS", str(tmp_path / "nsys_args.txt"))
    monkeypatch.setenv("FAKE_NSYS_SQL", _sql())
    monkeypatch.setenv("FAKE_NCU_EXPORT", str(SAMPLE))
    return bin_dir


def test_profile_nsys_dry_run(fakes: Path, tmp_path: Path) -> None:
    proc = run(
        "profile",
        "--nsys",
        "--arch",
        "9.0",
        "--dry-run",
        "-o",
        "r.html",
        "--",
        "./app",
        "7",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 3
    nsys = str(fakes / "nsys")
    assert lines[0].startswith(f"{nsys} profile --trace=cuda,nvtx") and lines[0].endswith(
        "--output r ./app 7"
    )
    assert (
        lines[1]
        == f"{nsys} export --type sqlite --force-overwrite true --output r.nsys.sqlite r.nsys-rep"
    )
    assert lines[2].startswith(f"{fakes / 'ncu'} ") and lines[2].endswith(" ./app 7")
    assert not (tmp_path / "nsys_args.txt").exists()


def test_profile_nsys_report_gets_a_budget(fakes: Path, tmp_path: Path) -> None:
    proc = run("profile", "--nsys", "--arch", "9.0", "-o", "r.json", "--", "./app", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    calls = (tmp_path / "nsys_args.txt").read_text(encoding="utf-8").splitlines()
    assert [c.split()[0] for c in calls] == ["profile", "export"]
    b = _strict_json((tmp_path / "r.json").read_text(encoding="utf-8"))["budget"]
    # 1_000 .. 40_000 ns: 33 us of kernels, 2 + 4 us gaps; the unprofiled kernel 10 us.
    assert b["basis"] == "trace"
    assert b["span_s"] == pytest.approx(39 * US)
    assert b["kernel_s"] == pytest.approx(33 * US)
    assert b["gaps_s"] == pytest.approx(6 * US)
    assert b["not_profiled_s"] == pytest.approx(10 * US)
    assert b["joins"]["joined_exact"] == 2 and b["joins"]["not_joined"] == 1
    assert (tmp_path / "r.nsys.sqlite").is_file() and (tmp_path / "r.nsys-rep").is_file()


def test_profile_nsys_missing_is_exit_6(fakes: Path, tmp_path: Path) -> None:
    (fakes / "nsys").unlink()
    proc = run("profile", "--nsys", "--arch", "9.0", "-o", "r.html", "--", "./app", cwd=tmp_path)
    assert proc.returncode == 6
    assert "nsys (Nsight Systems) is not on PATH" in proc.stderr
    assert not (tmp_path / "r.html").exists()


def test_fixture_numbers_are_consistent() -> None:
    # The step's own arithmetic, used by the expectations above.
    assert sum(d for _, _, d in STEP) == 65_000
    ends = [o + d for _, o, d in STEP]
    gaps = [STEP[i + 1][1] - ends[i] for i in range(len(STEP) - 1)]
    assert gaps == [4_000, 2_000, 16_000, 10_000] and ends[-1] == 97_000
    assert math.isclose((173 + 10) / 310, 0.5903, abs_tol=1e-4)
    assert sqlite3.sqlite_version


def test_nsys_report_given_as_the_profile_says_what_it_is(tmp_path: Path) -> None:
    trace = tmp_path / "trace.csv"
    trace.write_text(
        "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
        "100.0,5000,2,2500.0,2500.0,2000,3000,707.1,my_kernel\n",
        encoding="utf-8",
    )
    proc = run("report", str(trace), "-o", str(tmp_path / "r.md"))
    assert proc.returncode == 4
    assert "an Nsight Systems (nsys) report, not an ncu export" in proc.stderr
    assert "--nsys" in proc.stderr and "Traceback" not in proc.stderr
