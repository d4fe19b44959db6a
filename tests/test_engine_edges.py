"""Edge cases found in review: each once crashed, lost a class or miscounted."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import ncu_roofline
from ncu_roofline.analysis.measures import name_mma_flops
from ncu_roofline.core.model import Profile, SourceInfo, empty_launches
from ncu_roofline.report.context import build_context
from tests.helpers import SAMPLE, analyse_rows, col, fp32, num, profile, run, spec


def test_empty_profile_gives_empty_frames_and_null_totals() -> None:
    p = Profile(launches=empty_launches(), sources=[SourceInfo(path="x", layout="details")])
    a = ncu_roofline.analyze(p)
    assert len(a.launches) == 0 and len(a.kernels) == 0
    summary = build_context(a)["summary"]
    assert summary["total_duration_s"] is None
    assert summary["by_bound"]["memory"]["duration_s"] is None


def test_concatenated_launch_frames_with_repeated_labels() -> None:
    p = profile([{**fp32(1e9), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-3}] * 2)
    doubled = Profile(launches=pd.concat([p.launches, p.launches]), sources=p.sources)
    a = ncu_roofline.analyze(doubled, gpu=spec(), clocks="datasheet")
    assert len(a.launches) == 4
    assert int(a.kernels["launches"].iloc[0]) == 4


def test_work_without_dram_bytes_sits_right_of_the_ridge() -> None:
    # 1e9 FLOPs, 0 DRAM bytes (L2-resident): infinitely far right, judged
    # against the compute roof 1e12: achieved 1e9 / 1e-3 s = 1e12 -> efficiency 1.0.
    a = analyse_rows([{**fp32(1e9), "dram__bytes.sum": 0.0, "gpu__time_duration.sum": 1e-3}])
    assert math.isinf(num(a, "ai_dram"))
    assert col(a, "side") == ["compute"]
    assert col(a, "bound") == ["compute"]
    assert num(a, "efficiency") == pytest.approx(1.0)
    # and the JSON keeps it finite-safe: infinity becomes null.
    assert build_context(a)["launches"][0]["ai_dram"] is None


def test_collectives_matched_on_the_function_name_only() -> None:
    rows = [{**fp32(1e6), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-3}] * 2
    a = analyse_rows(
        rows,
        kernel=[
            "void softmax<WarpAllReduce<float>>(float *)",
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL",
        ],
    )
    assert col(a, "bound")[1] == "communication"
    assert col(a, "bound")[0] != "communication"


def test_uncountable_tensor_work_is_not_placeable() -> None:
    # CC 9.0 has no FLOPs-per-instruction factor: 1e8 tensor instructions
    # cannot be turned into FLOPs, so the FP32 FLOPs alone would undercount.
    row = {
        **fp32(1e6),
        "sm__inst_executed_pipe_tensor.sum": 1e8,
        "dram__bytes.sum": 1e6,
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row], cc="9.0")
    assert col(a, "bound") == ["not placeable"]
    assert "not countable" in col(a, "bound_reason")[0]
    assert math.isnan(num(a, "flops"))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn", 4096.0),  # 2*16*8*16
        ("ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_stages_32x1_nn", 2048.0),  # 2*16*8*8
        ("volta_h884gemm_64x64_ldg8_nn", 512.0),
        ("Kernel<Mma<GemmShape<16, 8, 8>, 32, half_t, RowMajor>>", 2048.0),
        ("Kernel<Mma<GemmShape<8, 8, 4>, 32, half_t, RowMajor>>", 512.0),
        # ncu <= 2023 spells the arguments with namespaces and (int) casts.
        (
            "cutlass::arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)8>, (int)32, "
            "cutlass::half_t, cutlass::layout::RowMajor>",
            2048.0,  # 2*16*8*8
        ),
        (
            "cutlass::arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)16>, (int)32, "
            "cutlass::half_t>",
            4096.0,  # 2*16*8*16
        ),
        # Volta's 16x16x4 warp shape runs as HMMA.884 instructions: 2*8*8*4 each.
        (
            "cutlass::arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)16, (int)4>, (int)32, x>",
            512.0,
        ),
        ("Kernel<Mma<GemmShape<16, 16, 4>, 32, half_t, RowMajor>>", 512.0),
        # A threadblock shape is not the instruction shape.
        ("MmaPipelined<cutlass::gemm::GemmShape<(int)128, (int)128, (int)32>, (int)32, x>", None),
        ("vectorized_elementwise_kernel", None),
    ],
)
def test_mma_shape_from_kernel_names(name: str, expected: float | None) -> None:
    assert name_mma_flops(name) == expected


def test_name_shape_beats_the_architecture_default() -> None:
    # CC 8.0 default is 4096 per instruction; the name says HMMA.1688 (2048):
    # 1e6 instructions -> 2.048e9 tensor FLOPs, marked approximate.
    row = {
        **fp32(0.0),
        "sm__inst_executed_pipe_tensor.sum": 1e6,
        "dram__bytes.sum": 1e6,
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows(
        [row], cc="8.0", kernel="ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_stages_32x1_nn"
    )
    assert num(a, "flops_tensor") == pytest.approx(2.048e9)
    assert "kernel name" in col(a, "flops_tensor_basis")[0]


def test_explicit_gpu_that_does_not_match_warns() -> None:
    row = {**fp32(1e9), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-3}
    p = profile([row], cc="7.0", device_name="Tesla V100-SXM2-16GB")
    a = ncu_roofline.analyze(p, gpu="h100_sxm5")
    kinds = [f.kind for f in a.findings]
    assert "gpu-mismatch" in kinds
    message = next(f.message for f in a.findings if f.kind == "gpu-mismatch")
    assert "CC 7.0 vs 9.0" in message


def test_above_roof_lists_every_roof_it_breaks() -> None:
    # 2e12 FLOP/s against a 1e12 roof, and 2e11 B/s against a 1e11 roof.
    row = {**fp32(2e9), "dram__bytes.sum": 2e8, "gpu__time_duration.sum": 1e-3}
    a = analyse_rows([row])
    assert col(a, "above_roof") == ["compute, DRAM bandwidth"]
    kinds = [f.message for f in a.findings if f.kind == "above-roof"]
    assert len(kinds) == 2


def test_the_readme_report_says_only_its_own_lines(tmp_path: Path) -> None:
    # The README's first command (a decode step, with a model's theory): the
    # analysis adds a hundred-odd columns, which pandas warns about ("highly
    # fragmented", with source lines) when they are added one by one.  Every
    # line on stderr must be the tool's own.
    out = tmp_path / "report.html"
    proc = run("report", str(SAMPLE), "--model", "llama-3-8b", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stderr.splitlines()
    assert lines and all(line.startswith("ncu-roofline: ") for line in lines), proc.stderr


def test_compute_capability_is_taken_value_for_value_or_once_per_text(
    samples_dir: Path,
) -> None:
    """The analysis keeps each launch's own compute capability: equal values of different
    types (8 and 8.0) stay apart; the launch model's Arrow-backed texts are read once per
    distinct text, each launch holding its text's one object, missing ones filled."""
    p = ncu_roofline.load([str(samples_dir / "wangzy0327__cuda-roofline__src_output_A100.csv")])
    mixed = p.launches.copy()
    n = len(mixed)
    mixed["cc"] = pd.Series([8 if i % 2 else 8.0 for i in range(n)], dtype=object)
    got = ncu_roofline.analyze(Profile(mixed, p.sources)).launches["cc"].tolist()
    assert [type(v) for v in got] == [int if i % 2 else float for i in range(n)]
    texts = p.launches.copy()
    texts["cc"] = pd.Series(["8.0" if i % 3 else None for i in range(n)], dtype="str")
    cc = ncu_roofline.analyze(Profile(texts, p.sources)).launches["cc"].to_numpy(dtype=object)
    given = [i for i in range(n) if i % 3]
    assert [cc[i] for i in given] == ["8.0"] * len(given)
    assert len({id(cc[i]) for i in given}) == 1
    # The export names no device: nothing fills a missing one.
    assert [cc[i] for i in range(0, n, 3)] == [None] * len(range(0, n, 3))
