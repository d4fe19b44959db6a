"""The nsys readers: every ``nsys stats`` CSV layout, the SQLite export, ``.nsys-rep``.

Fixtures are written here from nsys's documented columns; expected values
are worked out by hand from the fixture text (in the comments beside them).
The real exports in ``../shared/nsys-samples/`` are checked against the
totals their index states, when that folder is present.
"""

from __future__ import annotations

import math
import os
import sqlite3
import stat
import sys
from pathlib import Path

import pandas as pd
import pytest

from ncu_roofline.core.timeline import TABLES
from ncu_roofline.errors import InputFormatError, InputNotFoundError, MissingDependencyError
from ncu_roofline.readers.nsys import is_nsys_input, load_timeline
from ncu_roofline.readers.nsys.nesting import levels
from tests.helpers import DATA, REPO

NSYS_SAMPLES = REPO.parent / "shared" / "nsys-samples"

DEVICE = "NVIDIA A100-SXM4-80GB (0)"

GPU_TRACE = (
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name\n"
    f"1000,500,11,,,,,,,,,,4.194,8388.0,Pageable,Device,{DEVICE},1,,7,[CUDA memcpy Host-to-Device]\n"
    f'2000,3000,12,128,1,1,256,1,1,32,0.000,0.000,,,,,{DEVICE},1,,7,"void gemm<float, 4>(int, float*)"\n'
    f"6000,250,13,,,,,,,,,,0.001,4.0,Device,,{DEVICE},1,,7,[CUDA memset]\n"
    f"7000,100,50,64,2,1,128,1,1,16,0.000,0.000,,,,,{DEVICE},1,,13,graph_a\n"
    f"7200,100,50,64,2,1,128,1,1,16,0.000,0.000,,,,,{DEVICE},1,,13,graph_b\n"
)
# An older nsys: no GreenCtx column, and CorrID spelt so.
GPU_TRACE_OLD = (
    "Start (ns),Duration (ns),CorrID,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name\n"
    f"1000,500,11,,,,,,,,,,4.194,8388.0,Pageable,Device,{DEVICE},1,7,[CUDA memcpy Host-to-Device]\n"
    f'2000,3000,12,128,1,1,256,1,1,32,0.000,0.000,,,,,{DEVICE},1,7,"void gemm<float, 4>(int, float*)"\n'
)
API_TRACE = (
    "Start (ns),Duration (ns),Name,Result,CorrID,Pid,Tid,T-Pri,Thread Name\n"
    "900,80,cudaMemcpyAsync,0,11,4242,4243,20,python\n"
    "1900,40,cudaLaunchKernel,0,12,4242,4243,20,python\n"
    "6950,30,cudaGraphLaunch,0,50,4242,4244,20,worker\n"
)
SUM_HEADER = (
    "Time (%),Total Time (ns),{count},Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
)
KERN_SUM = SUM_HEADER.format(count="Instances") + (
    '75.0,3000,2,1500.0,1500.0,1000,2000,707.1,"void gemm<float, 4>(int, float*)"\n'
    "25.0,1000,4,250.0,250.0,200,300,40.8,ucopy_bf16\n"
)
API_SUM = SUM_HEADER.format(count="Num Calls") + (
    "60.0,600,3,200.0,200.0,100,300,100.0,cudaLaunchKernel\n"
    "40.0,400,2,200.0,200.0,150,250,70.7,cudaMemcpyAsync\n"
)
NVTX_KERN_SUM = (
    "NVTX Range,Style,PID,TID,NVTX Inst,Kern Inst,Total Time (ns),Avg (ns),Med (ns),Min (ns),"
    "Max (ns),StdDev (ns),Kernel Name\n"
    ",,10,11,0,5,900,180.0,170.0,100,300,80.0,ucopy_bf16\n"
    ':kiln/decode,PushPop,10,11,2,3,3000,1000.0,1000.0,900,1100,100.0,"void gemm<float, 4>(int, float*)"\n'
)
PUSHPOP_TRACE = (
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,NumChild,"
    "RangeId,ParentId,RangeStack,NameTree\n"
    "100,900,800,300,500,:step,10,11,0,1,1,,:1,:step\n"
    "200,500,300,0,300,:decode,10,11,1,0,2,1,:1:2,--:decode\n"
    "600,700,100,0,100,mydomain:sample,10,12,0,0,3,,:3,mydomain:sample\n"
)
PROJ_TRACE = (
    "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),Style,"
    "PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack\n"
    ":step,2000,3500,100,800,PushPop,10,11,2,0,1,1,,:1\n"
    ":decode,2000,3000,200,300,PushPop,10,11,1,1,0,2,1,:1:2\n"
)
PROJ_SUM = (
    "Range,Style,Total Proj Time (ns),Total Range Time (ns),Range Instances,Proj Avg (ns),"
    "Proj Med (ns),Proj Min (ns),Proj Max (ns),Proj StdDev (ns),Total GPU Ops,Avg GPU Ops,"
    "Avg Range Lvl,Avg Num Child\n"
    ":kiln/step,PushPop,7000,8000,2,3500.0,3500.0,3000,4000,707.1,6,3.0,0.0,1.0\n"
)


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return str(path)


def _row(frame: pd.DataFrame, column: str, value: object) -> pd.Series:
    rows = frame[frame[column] == value]
    assert len(rows) == 1, f"{column}={value!r}: {len(rows)} rows"
    return rows.iloc[0]


# -- CSV reports, one per file ------------------------------------------------------------


@pytest.mark.parametrize("text", [GPU_TRACE, GPU_TRACE_OLD], ids=["greenctx-CorrId", "old-CorrID"])
def test_gpu_trace_fills_activities(tmp_path: Path, text: str) -> None:
    path = _write(tmp_path, "trace.csv", text)
    tl = load_timeline(path)
    acts = tl.activities
    assert list(acts.columns) == list(TABLES["activities"])
    assert tl.sources[0].reports == ["cuda_gpu_trace"]
    copy = _row(acts, "kind", "memcpy")
    assert copy["name"] == "[CUDA memcpy Host-to-Device]"
    assert (copy["start_ns"], copy["end_ns"]) == (1000, 1500)  # 1000 + 500
    assert copy["bytes"] == pytest.approx(4_194_000)  # 4.194 MB of 1e6 bytes
    assert copy["grid"] is None and copy["block"] is None
    kern = acts[acts["corr_id"] == 12].iloc[0]
    assert kern["kind"] == "kernel"
    assert kern["name"] == "void gemm<float, 4>(int, float*)"  # quoted: it holds commas
    assert (kern["start_ns"], kern["end_ns"]) == (2000, 5000)
    assert (kern["grid"], kern["block"]) == ("(128, 1, 1)", "(256, 1, 1)")
    assert (kern["device"], kern["context"], kern["stream"]) == (DEVICE, 1, 7)
    assert math.isnan(kern["bytes"])
    assert kern["source"] == path


def test_gpu_trace_memset_and_graph_kernels(tmp_path: Path) -> None:
    acts = load_timeline(_write(tmp_path, "trace.csv", GPU_TRACE)).activities
    assert acts["kind"].tolist() == ["memcpy", "kernel", "memset", "kernel", "kernel"]
    memset = _row(acts, "kind", "memset")
    assert memset["bytes"] == pytest.approx(1000)  # 0.001 MB
    assert memset["end_ns"] == 6250
    graph = acts[acts["corr_id"] == 50]
    # Two kernels of one CUDA graph share their launch's correlation id.
    assert graph["name"].tolist() == ["graph_a", "graph_b"]
    assert set(graph["grid"]) == {"(64, 2, 1)"}


def test_windows_bom_and_crlf(tmp_path: Path) -> None:
    text = "\ufeff" + KERN_SUM.replace("\n", "\r\n")
    sums = load_timeline(_write(tmp_path, "k.csv", text)).kernel_sums
    assert sums["instances"].tolist() == [2, 4]
    assert sums["name"].tolist() == ["void gemm<float, 4>(int, float*)", "ucopy_bf16"]


def test_api_trace_fills_api(tmp_path: Path) -> None:
    api = load_timeline(_write(tmp_path, "api.csv", API_TRACE)).api
    launch = _row(api, "name", "cudaLaunchKernel")
    assert (launch["start_ns"], launch["end_ns"], launch["corr_id"]) == (1900, 1940, 12)
    assert launch["thread"] == 4243
    assert _row(api, "name", "cudaGraphLaunch")["thread"] == 4244


def test_kern_sum(tmp_path: Path) -> None:
    tl = load_timeline(_write(tmp_path, "k.csv", KERN_SUM))
    sums = tl.kernel_sums
    assert tl.sources[0].reports == ["cuda_gpu_kern_sum"]
    gemm = _row(sums, "name", "void gemm<float, 4>(int, float*)")
    assert gemm["range"] is None
    assert (gemm["instances"], gemm["total_ns"], gemm["avg_ns"]) == (2, 3000.0, 1500.0)
    assert (gemm["min_ns"], gemm["max_ns"], gemm["stddev_ns"]) == (1000.0, 2000.0, 707.1)
    assert sums["instances"].sum() == 6  # 2 + 4


@pytest.mark.parametrize(
    ("count", "name"),
    [("Num Calls", "api.csv"), ("Instances", "api.csv"), ("Instances", "run_cuda_api_sum.csv")],
    ids=["num-calls", "instances-by-names", "instances-by-file-name"],
)
def test_api_sum_spellings(tmp_path: Path, count: str, name: str) -> None:
    text = API_SUM.replace("Num Calls", count)
    tl = load_timeline(_write(tmp_path, name, text))
    assert tl.sources[0].reports == ["cuda_api_sum"]
    assert len(tl.kernel_sums) == 0
    launch = _row(tl.api_sums, "name", "cudaLaunchKernel")
    assert (launch["calls"], launch["total_ns"], launch["med_ns"]) == (3, 600.0, 200.0)
    assert tl.api_sums["calls"].sum() == 5


def test_instances_header_with_kernel_names_is_a_kernel_summary(tmp_path: Path) -> None:
    # The same header as an old cuda_api_sum: kernel names (not cu*) decide.
    tl = load_timeline(_write(tmp_path, "x.csv", KERN_SUM))
    assert tl.sources[0].reports == ["cuda_gpu_kern_sum"]


def test_nvtx_kern_sum_ranges(tmp_path: Path) -> None:
    sums = load_timeline(_write(tmp_path, "nk.csv", NVTX_KERN_SUM)).kernel_sums
    outside = _row(sums, "name", "ucopy_bf16")
    assert outside["range"] is None  # an empty range: outside every range
    assert outside["instances"] == 5  # Kern Inst, not NVTX Inst
    gemm = _row(sums, "name", "void gemm<float, 4>(int, float*)")
    assert gemm["range"] == "kiln/decode"  # the default domain's ':' dropped
    assert (gemm["instances"], gemm["total_ns"]) == (3, 3000.0)


def test_pushpop_trace_ranges(tmp_path: Path) -> None:
    ranges = load_timeline(_write(tmp_path, "pp.csv", PUSHPOP_TRACE)).ranges
    assert list(ranges.columns) == list(TABLES["ranges"])
    step = _row(ranges, "name", "step")
    assert (step["domain"], step["start_ns"], step["end_ns"], step["level"]) == (None, 100, 900, 0)
    decode = _row(ranges, "name", "decode")
    assert (decode["level"], decode["thread"], bool(decode["projected"])) == (1, 11, False)
    sample = _row(ranges, "name", "sample")
    assert (sample["domain"], sample["thread"]) == ("mydomain", 12)


def test_pushpop_trace_name_from_name_tree(tmp_path: Path) -> None:
    # Without a Name column, the NameTree's '--' nesting marks are dropped.
    text = PUSHPOP_TRACE.replace(",Name,", ",Label,", 1)
    ranges = load_timeline(_write(tmp_path, "pp.csv", text)).ranges
    assert ranges["name"].tolist() == ["step", "decode", "sample"]
    assert ranges["level"].tolist() == [0, 1, 0]


def test_gpu_projection_trace_and_summary(tmp_path: Path) -> None:
    tl = load_timeline(
        [_write(tmp_path, "pt.csv", PROJ_TRACE), _write(tmp_path, "ps.csv", PROJ_SUM)]
    )
    step = _row(tl.ranges, "name", "step")
    assert (step["start_ns"], step["end_ns"], bool(step["projected"])) == (
        2000,
        5500,
        True,
    )  # 2000 + 3500
    assert _row(tl.ranges, "name", "decode")["level"] == 1
    row = _row(tl.range_sums, "name", "kiln/step")
    assert (row["instances"], row["total_proj_ns"], row["total_range_ns"], row["gpu_ops"]) == (
        2,
        7000,
        8000,
        6,
    )


def test_several_inputs_keep_their_source(tmp_path: Path) -> None:
    trace = _write(tmp_path, "run_cuda_gpu_trace.csv", GPU_TRACE)
    nvtx = _write(tmp_path, "run_nvtx_pushpop_trace.csv", PUSHPOP_TRACE)
    tl = load_timeline([trace, nvtx])
    assert [s.path for s in tl.sources] == [trace, nvtx]
    assert set(tl.activities["source"]) == {trace}
    assert set(tl.ranges["source"]) == {nvtx}
    assert (len(tl.activities), len(tl.ranges)) == (5, 3)


# -- The stdout stream of several reports ------------------------------------------------

OSRT_SUM = (
    SUM_HEADER.format(count="Num Calls") + "90.0,9000,3,3000.0,3000.0,1000,5000,2000.0,poll\n"
)


def _stream() -> str:
    base = "/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports"

    def processing(report: str) -> str:
        return f"Processing [run.sqlite] with [{base}/{report}.py]... \n"

    # A cuda_api_sum with Instances and a name no heuristic takes for an API:
    # the heading decides.
    api_sum = (
        SUM_HEADER.format(count="Instances") + "100.0,500,5,100.0,100.0,90,110,8.0,ncclAllReduce\n"
    )
    return (
        "Generating SQLite file run.sqlite from run.nsys-rep\n"
        + processing("nvtx_pushpop_trace")
        + "SKIPPED: run.sqlite does not contain NV Tools Extension (NVTX) data.\n\n"
        + processing("cuda_api_sum")
        + "\n ** CUDA API Summary (cuda_api_sum):\n\n"
        + api_sum
        + "\n"
        + processing("cuda_gpu_trace")
        + "\n ** CUDA GPU Trace (cuda_gpu_trace):\n\n"
        + GPU_TRACE
        + "\n"
        + processing("osrt_sum")
        + "\n ** OS Runtime Summary (osrt_sum):\n\n"
        + OSRT_SUM
        + "\n"
        + processing("cuda_gpu_kern_sum")
        + "\n ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n\n"
        + KERN_SUM
        + "\n"
    )


def test_stdout_stream_of_several_reports(tmp_path: Path) -> None:
    path = _write(tmp_path, "stats.txt", _stream())
    assert is_nsys_input(path)
    tl = load_timeline(path)
    src = tl.sources[0]
    assert src.reports == ["cuda_api_sum", "cuda_gpu_trace", "cuda_gpu_kern_sum"]
    assert tl.api_sums["name"].tolist() == ["ncclAllReduce"]
    assert tl.api_sums["calls"].tolist() == [5]
    assert len(tl.activities) == 5
    assert tl.kernel_sums["instances"].sum() == 6
    # osrt_sum shares cuda_api_sum's header; the stream named it: left out, said so.
    assert "poll" not in set(tl.api_sums["name"])
    assert any("osrt_sum" in w for w in src.warnings)


def test_stream_line_numbers_in_errors(tmp_path: Path) -> None:
    text = _stream().replace("6000,250,13", "6000,2x0,13")
    path = _write(tmp_path, "stats.txt", text)
    lines = text.splitlines()
    bad = next(i for i, line in enumerate(lines, 1) if line.startswith("6000,2x0"))
    with pytest.raises(
        InputFormatError, match=rf"line {bad}, column 'Duration \(ns\)': '2x0' is not a number"
    ):
        load_timeline(path)


# -- Bad inputs -------------------------------------------------------------------------------


def test_unknown_header_names_file_and_columns(tmp_path: Path) -> None:
    path = _write(tmp_path, "odd.csv", "Foo,Bar (ns),Baz\n1,2,3\n")
    with pytest.raises(InputFormatError) as err:
        load_timeline(path)
    assert path in str(err.value)
    assert "columns: Foo, Bar (ns), Baz" in str(err.value)
    assert err.value.exit_code == 4


def test_truncated_last_row_is_dropped_with_a_warning(tmp_path: Path) -> None:
    path = _write(tmp_path, "k.csv", KERN_SUM + "12.5,1000,4,250.0,250")
    tl = load_timeline(path)
    assert len(tl.kernel_sums) == 2
    assert any("line 4 is cut short (5 of 9 fields" in w for w in tl.sources[0].warnings)


def test_truncated_inside_a_quoted_name(tmp_path: Path) -> None:
    path = _write(
        tmp_path, "k.csv", KERN_SUM + '10.0,100,1,100.0,100.0,100,100,0.0,"void foo<int, '
    )
    tl = load_timeline(path)
    assert tl.kernel_sums["instances"].sum() == 6
    assert any("line 4 is cut short" in w for w in tl.sources[0].warnings)


def test_no_final_line_end_is_warned(tmp_path: Path) -> None:
    tl = load_timeline(_write(tmp_path, "k.csv", KERN_SUM.rstrip("\n")))
    assert len(tl.kernel_sums) == 2
    assert any("may be cut short" in w for w in tl.sources[0].warnings)


def test_whole_file_warns_nothing(tmp_path: Path) -> None:
    assert load_timeline(_write(tmp_path, "k.csv", KERN_SUM)).sources[0].warnings == []


def test_non_numeric_value(tmp_path: Path) -> None:
    path = _write(tmp_path, "k.csv", KERN_SUM.replace(",1000,4,", ",1000,four,"))
    with pytest.raises(
        InputFormatError, match=r"k\.csv: line 3, column 'Instances': 'four' is not a number"
    ):
        load_timeline(path)


def test_short_row_mid_file(tmp_path: Path) -> None:
    text = KERN_SUM.replace("25.0,1000,4,", "25.0,1000,")
    with pytest.raises(
        InputFormatError, match=r"line 3 has 8 fields where the header \(line 1\) has 9"
    ):
        load_timeline(_write(tmp_path, "k.csv", text))


def test_integers_written_with_decimals(tmp_path: Path) -> None:
    text = KERN_SUM.replace(",2,1500.0", ",2.0,1500.0")
    sums = load_timeline(_write(tmp_path, "k.csv", text)).kernel_sums
    assert sums["instances"].tolist() == [2, 4]


def test_empty_and_blank_files(tmp_path: Path) -> None:
    for text in ("", "\n\n  \n"):
        with pytest.raises(InputFormatError, match="empty"):
            load_timeline(_write(tmp_path, "e.csv", text))


def test_header_only_is_an_empty_report(tmp_path: Path) -> None:
    tl = load_timeline(_write(tmp_path, "k.csv", SUM_HEADER.format(count="Instances")))
    assert tl.sources[0].reports == ["cuda_gpu_kern_sum"]
    assert len(tl.kernel_sums) == 0


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError):
        load_timeline(str(tmp_path / "nope.csv"))


def test_binary_bytes_are_no_report(tmp_path: Path) -> None:
    path = _write(tmp_path, "junk.bin", bytes(range(256)) * 4)
    assert not is_nsys_input(path)
    with pytest.raises(InputFormatError):
        load_timeline(path)


def test_not_sqlite_behind_the_magic(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad.sqlite", b"SQLite format 3\x00" + b"\xff" * 2000)
    with pytest.raises(InputFormatError, match=r"bad\.sqlite"):
        load_timeline(path)


def test_sqlite_without_nsys_tables(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    conn.close()
    with pytest.raises(InputFormatError, match="without any nsys table"):
        load_timeline(str(path))


# -- SQLite export --------------------------------------------------------------------------

PID, TID, TID2 = 100, 101, 102
GTID = (PID << 24) | TID
GTID2 = (PID << 24) | TID2


def _make_db(path: Path, nvtx: bool = True) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
            start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,
            blockX INTEGER, blockY INTEGER, blockZ INTEGER, demangledName INTEGER, shortName INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
            start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER, contextId INTEGER,
            streamId INTEGER, correlationId INTEGER, bytes INTEGER, copyKind INTEGER);
        CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
            start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER, globalTid INTEGER,
            correlationId INTEGER, nameId INTEGER, returnValue INTEGER);
        """
    )
    conn.executemany(
        "INSERT INTO StringIds VALUES (?, ?)",
        [
            (1, "void gemm<float, 4>(int, float*)"),
            (2, "gemm"),
            (3, "graph_a"),
            (4, "graph_b"),
            (5, "cudaLaunchKernel_v7000"),
            (6, "cudaGraphLaunch_v10000"),
            (7, "cudaMemcpyAsync_v3020"),
            (8, "decode"),
            (9, "short_only"),
        ],
    )
    kernels = [
        # start, end, dev, ctx, stream, corr, grid, block, demangled, short
        (2000, 5000, 0, 1, 7, 12, 128, 1, 1, 256, 1, 1, 1, 2),
        (7000, 7100, 0, 1, 13, 50, 64, 2, 1, 128, 1, 1, 3, 3),
        (7200, 7300, 0, 1, 13, 50, 64, 2, 1, 128, 1, 1, 4, 4),
        (8000, 8100, 0, 1, 13, 51, 1, 1, 1, 32, 1, 1, None, 9),
    ]
    conn.executemany(
        f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ({','.join('?' * 14)})", kernels
    )
    conn.executemany(
        "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(1000, 1500, 0, 1, 7, 11, 4_194_304, 1), (5500, 5600, 0, 1, 7, 14, 4096, 2)],
    )
    conn.executemany(
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, ?, ?, ?)",
        [
            (900, 980, 1, GTID, 11, 7, 0),
            (1900, 1940, 1, GTID, 12, 5, 0),
            (6950, 6980, 1, GTID2, 50, 6, 0),
        ],
    )
    if nvtx:
        conn.execute(
            "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, "
            "rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
            "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER)"
        )
        events = [
            # start, end, type, text, gtid, textId, domainId
            (0, None, 75, "mydom", GTID, None, 1),  # domain create
            (0, 1000, 59, "step", GTID, None, 0),  # level 0
            (100, 400, 59, None, GTID, 8, 0),  # "decode" by textId: level 1
            (150, 200, 59, "inner", GTID, None, 0),  # level 2
            (400, 900, 59, "sample", GTID, None, 0),  # starts as decode ends: level 1
            (120, 130, 59, "own_stack", GTID, None, 1),  # domain 1 keeps its own stack: level 0
            (50, 60, 59, "other_thread", GTID2, None, 0),  # level 0
            (300, 300, 34, "a mark", GTID, None, 0),  # a mark: no range
        ]
        conn.executemany(
            "INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            events,
        )
    conn.commit()
    conn.close()
    return path


def test_sqlite_kernels_memcpys_and_graphs(tmp_path: Path) -> None:
    path = str(_make_db(tmp_path / "run.sqlite"))
    assert is_nsys_input(path)
    tl = load_timeline(path)
    assert tl.sources[0].reports == ["sqlite"]
    acts = tl.activities
    assert list(acts.columns) == list(TABLES["activities"])
    gemm = _row(acts, "corr_id", 12)
    assert gemm["name"] == "void gemm<float, 4>(int, float*)"  # demangledName, not shortName
    assert (gemm["grid"], gemm["block"], gemm["stream"], gemm["device"]) == (
        "(128, 1, 1)",
        "(256, 1, 1)",
        7,
        0,
    )
    assert (gemm["start_ns"], gemm["end_ns"]) == (2000, 5000)
    assert _row(acts, "corr_id", 51)["name"] == "short_only"  # no demangled name: shortName
    graph = acts[acts["corr_id"] == 50]
    assert graph["name"].tolist() == ["graph_a", "graph_b"]
    launch = _row(tl.api, "corr_id", 50)
    assert launch["name"] == "cudaGraphLaunch"  # the _v10000 version tag dropped
    assert launch["thread"] == TID2
    copies = acts[acts["kind"] == "memcpy"]
    assert copies["name"].tolist() == [
        "[CUDA memcpy Host-to-Device]",
        "[CUDA memcpy Device-to-Host]",
    ]
    assert copies["bytes"].tolist() == [4_194_304.0, 4096.0]
    assert set(acts["source"]) == {path}


def test_sqlite_nested_nvtx(tmp_path: Path) -> None:
    ranges = load_timeline(str(_make_db(tmp_path / "run.sqlite"))).ranges
    got = {r["name"]: (r["level"], r["domain"], r["thread"]) for _, r in ranges.iterrows()}
    assert got == {
        "step": (0, None, TID),
        "decode": (1, None, TID),
        "inner": (2, None, TID),
        "sample": (1, None, TID),
        "own_stack": (0, "mydom", TID),
        "other_thread": (0, None, TID2),
    }
    assert not ranges["projected"].any()


def test_sqlite_without_nvtx(tmp_path: Path) -> None:
    tl = load_timeline(str(_make_db(tmp_path / "run.sqlite", nvtx=False)))
    assert len(tl.ranges) == 0
    assert len(tl.activities) == 6


def test_levels_vectorised() -> None:
    import numpy as np

    # Thread 0: [0,10] > [2,5] > [3,4]; [5,8] starts as [2,5] ends; zero-length [6,6] inside it.
    # Thread 1: [0,1]; an unclosed range in thread 1.
    start = np.array([0, 2, 3, 5, 6, 0, 2])
    end = np.array([10, 5, 4, 8, 6, 1, np.iinfo(np.int64).max])
    group = np.array([0, 0, 0, 0, 0, 1, 1])
    assert levels(group, start, end).tolist() == [0, 1, 2, 1, 2, 0, 0]


# -- .nsys-rep --------------------------------------------------------------------------


def _fake_nsys(bin_dir: Path, fixture: Path, fail: bool = False) -> Path:
    bin_dir.mkdir()
    script = bin_dir / "nsys"
    body = (
        "import shutil, sys\n"
        f"open({str(bin_dir / 'args.txt')!r}, 'w').write('\\n'.join(sys.argv[1:]))\n"
        + ("sys.stderr.write('Error: cannot open report\\n'); sys.exit(3)\n" if fail else "")
        + "out = sys.argv[sys.argv.index('--output') + 1]\n"
        + f"shutil.copy({str(fixture)!r}, out)\n"
    )
    script.write_text(f"#!{sys.executable}\n{body}", encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script


def test_nsys_rep_through_a_fake_nsys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixture = _make_db(tmp_path / "fixture.sqlite")
    bin_dir = tmp_path / "bin"
    _fake_nsys(bin_dir, fixture)
    monkeypatch.setenv("PATH", str(bin_dir))
    rep = _write(tmp_path, "run.nsys-rep", b"not read by the tool itself")
    assert is_nsys_input(rep)
    tl = load_timeline(rep)
    assert tl.sources[0].path == rep
    assert tl.sources[0].reports == ["nsys-rep"]
    assert set(tl.activities["source"]) == {rep}
    assert len(tl.activities) == 6 and len(tl.ranges) == 6
    args = (bin_dir / "args.txt").read_text().split("\n")
    assert args[:4] == ["export", "--type", "sqlite", "--output"]
    assert args[-1] == rep
    # The export went to a temporary folder, removed afterwards, never beside the input.
    assert not os.path.exists(args[4])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "fixture.sqlite", "run.nsys-rep"]


def test_nsys_rep_export_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fixture = _make_db(tmp_path / "fixture.sqlite")
    _fake_nsys(tmp_path / "bin", fixture, fail=True)
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    rep = _write(tmp_path, "run.nsys-rep", b"x")
    with pytest.raises(InputFormatError, match=r"failed \(exit 3\): Error: cannot open report"):
        load_timeline(rep)


def test_nsys_rep_without_nsys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    rep = _write(tmp_path, "run.nsys-rep", b"x")
    with pytest.raises(MissingDependencyError) as err:
        load_timeline(rep)
    assert f"nsys export --type sqlite --output run.sqlite {rep}" in str(err.value)
    assert err.value.exit_code == 6


# -- Sniffing --------------------------------------------------------------------------------


def test_is_nsys_input(tmp_path: Path) -> None:
    assert is_nsys_input(_write(tmp_path, "k.csv", KERN_SUM))
    assert is_nsys_input(_write(tmp_path, "t.csv", GPU_TRACE))
    assert not is_nsys_input(_write(tmp_path, "odd.csv", "Foo,Bar\n1,2\n"))
    assert not is_nsys_input(str(tmp_path / "missing.csv"))
    assert not is_nsys_input(DATA / "details_nvtx.csv")  # an ncu export


# -- Speed: a long trace reads as whole columns -------------------------------------------


def test_long_trace_reads_vectorised(tmp_path: Path) -> None:
    rows = 200_000
    body = "".join(
        f"{1000 * i},500,{i},{1 + i % 7},1,1,256,1,1,32,0.000,0.000,,,,,{DEVICE},1,,7,kernel_{i % 13}\n"
        for i in range(rows)
    )
    path = _write(tmp_path, "big.csv", GPU_TRACE.split("\n", 1)[0] + "\n" + body)
    acts = load_timeline(path).activities
    assert len(acts) == rows
    assert acts["end_ns"].iloc[-1] == 1000 * (rows - 1) + 500
    assert acts["grid"].iloc[8] == "(2, 1, 1)"  # 1 + 8 % 7
    assert acts["name"].nunique() == 13


# -- The real exports ---------------------------------------------------------------------

_real = pytest.mark.skipif(not NSYS_SAMPLES.is_dir(), reason="../shared/nsys-samples is absent")


def _sample(part: str) -> str:
    found = [p for p in NSYS_SAMPLES.glob("*.csv") if part in p.name]
    assert len(found) == 1, part
    return str(found[0])


@_real
@pytest.mark.parametrize(
    ("part", "kernels", "instances"),
    [
        ("decode_nsys_summary_cuda_gpu_kern_sum", 46, 78_016),
        ("prefill_nsys_summary_cuda_gpu_kern_sum", 97, 6_660),
        ("kiln__docs_phase-c52_cuda_gpu_kern_sum", 61, 302_144),
    ],
)
def test_real_kernel_summaries(part: str, kernels: int, instances: int) -> None:
    path = _sample(part)
    assert is_nsys_input(path)
    tl = load_timeline(path)
    assert tl.sources[0].reports == ["cuda_gpu_kern_sum"]
    assert tl.sources[0].warnings == []
    assert len(tl.kernel_sums) == kernels
    assert tl.kernel_sums["instances"].sum() == instances
    assert tl.kernel_sums["range"].isna().all()


@_real
def test_real_api_summary() -> None:
    tl = load_timeline(_sample("cuda_api_sum"))
    sums = tl.api_sums
    assert tl.sources[0].reports == ["cuda_api_sum"]
    assert len(sums) == 31
    assert sums["calls"].sum() == 4_000_451
    assert _row(sums, "name", "cuLaunchKernel")["calls"] == 268_276


@_real
def test_real_nvtx_reports() -> None:
    tl = load_timeline([_sample("nvtx_gpu_proj_sum"), _sample("nvtx_kern_sum")])
    assert len(tl.range_sums) == 37
    assert not tl.range_sums["name"].str.startswith(":").any()
    assert _row(tl.range_sums, "name", "kiln/gdn/qk_norm")["instances"] == 2352
    assert len(tl.kernel_sums) == 189
    outside = tl.kernel_sums[tl.kernel_sums["range"].isna()]
    assert len(outside) > 0
    assert _row(outside, "name", "ucopy_bf16")["instances"] == 13_545
