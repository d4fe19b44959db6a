"""The analysis engine on synthetic launch frames, with values worked out by hand.

Every profile here is built in the test from metric dictionaries (no files),
through :func:`ncu_roofline.core.model.finalize_launches` as the readers do.  The
expected numbers are computed by hand in the comments from the formulas of
docs/ncu-format.md sections 4 and 5:

* FP64 / FP32 FLOPs = add + mul + 2 x fma; FP16 = 2 x add + 2 x mul + 4 x fma;
* per-cycle rate form: FLOP/s = (weighted per-cycle sum) x
  ``smsp__cycles_elapsed.avg.per_second``, FLOPs = the same sum x
  ``smsp__cycles_elapsed.avg``;
* tensor FLOPs from one ``sm__ops_path_tensor_*`` family, else instruction
  count x a per-architecture factor (approximate);
* roofs: explicit GPU > ncu peak metrics > built-in table (> derived);
* efficiency = achieved / min(peak, AI x bandwidth), recoverable =
  duration x (1 - efficiency), groups time-weighted.

The synthetic GPU used by most tests has a 1 TFLOP/s FP32 roof and a
100 GB/s DRAM roof, so its FP32 ridge point is 1e12 / 1e11 = 10 FLOP/byte.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ncu_roofline import analyze
from tests.helpers import FP, analyse_rows, col, counts, fp32, num, profile, sass, spec

REL = 1e-12  # products and quotients of exact inputs: only float rounding


def approx(x: float, rel: float = REL) -> Any:
    return pytest.approx(x, rel=rel, abs=0.0)


# --- 1. SASS FLOP counting ----------------------------------------------------


def test_flop_weights_per_precision() -> None:
    row = {
        # FP64: 1e6 + 2e6 + 2 x 3e6 = 9e6
        **counts("fp64", 1e6, 2e6, 3e6),
        # FP32: 4e6 + 5e6 + 2 x 6e6 = 21e6
        **counts("fp32", 4e6, 5e6, 6e6),
        # FP16 (packed half2): 2 x 7e6 + 2 x 8e6 + 4 x 9e6 = 14e6 + 16e6 + 36e6 = 66e6
        **counts("fp16", 7e6, 8e6, 9e6),
        "dram__bytes.sum": 1e7,
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row])
    assert num(a, "flops_fp64") == 9e6
    assert num(a, "flops_fp32") == 21e6
    assert num(a, "flops_fp16") == 66e6
    # Total 9e6 + 21e6 + 66e6 = 96e6 over 1 ms = 9.6e10 FLOP/s.
    assert num(a, "flops") == 96e6
    assert num(a, "achieved_flops_per_s") == approx(9.6e10)
    assert col(a, "flops_fp32_basis") == ["sm__sass counts"]
    # FP16 has the most FLOPs.
    assert col(a, "precision") == ["fp16"]
    # No tensor counters at all: missing, not zero.
    assert math.isnan(num(a, "flops_tensor"))
    assert col(a, "flops_missing") == ["tensor"]


def test_smsp_prefix_counts_like_sm() -> None:
    # smsp__ sums over all sub-partitions: the same device-wide count.
    # FP32: 4e6 + 5e6 + 2 x 6e6 = 21e6.
    a = analyse_rows(
        [{**counts("fp32", 4e6, 5e6, 6e6, prefix="smsp"), "gpu__time_duration.sum": 1e-3}]
    )
    assert num(a, "flops_fp32") == 21e6
    assert col(a, "flops_fp32_basis") == ["smsp__sass counts"]


def test_sm_prefix_preferred_over_smsp() -> None:
    # sm__: 1 + 1 + 2 x 1 = 4 (x1e6); smsp__ would give 2 + 2 + 2 x 2 = 8.
    row = {
        **counts("fp32", 1e6, 1e6, 1e6),
        **counts("fp32", 2e6, 2e6, 2e6, prefix="smsp"),
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row])
    assert num(a, "flops_fp32") == 4e6
    assert col(a, "flops_fp32_basis") == ["sm__sass counts"]


def _rate_row(precision: str, add: float, mul: float, fma: float) -> dict[str, float]:
    letter = FP[precision]
    return {
        f"smsp__sass_thread_inst_executed_op_{letter}add_pred_on.sum.per_cycle_elapsed": add,
        f"smsp__sass_thread_inst_executed_op_{letter}mul_pred_on.sum.per_cycle_elapsed": mul,
        f"smsp__sass_thread_inst_executed_op_{letter}fma_pred_on.sum.per_cycle_elapsed": fma,
    }


def test_per_cycle_rate_form() -> None:
    # FP32 per cycle: 10 + 20 + 2 x 30 = 90 FLOP/cycle.
    # Clock 1.5e9 cycles/s -> achieved 90 x 1.5e9 = 1.35e11 FLOP/s.
    # Elapsed cycles 3e6 -> FLOPs 90 x 3e6 = 2.7e8.
    # The duration (2.1 ms, deliberately not 3e6 / 1.5e9 = 2 ms) enters neither.
    clock = {"smsp__cycles_elapsed.avg.per_second": 1.5e9, "gpu__time_duration.sum": 2.1e-3}
    with_cycles = {**_rate_row("fp32", 10, 20, 30), **clock, "smsp__cycles_elapsed.avg": 3e6}
    # Without elapsed cycles, FLOPs = 90 x 1.5e9 x 2.1e-3 = 2.835e8.
    without_cycles = {**_rate_row("fp32", 10, 20, 30), **clock}
    a = analyse_rows([with_cycles, without_cycles])
    assert num(a, "achieved_flops_per_s", 0) == approx(1.35e11)
    assert num(a, "flops_fp32", 0) == approx(2.7e8)
    assert num(a, "achieved_flops_per_s", 1) == approx(1.35e11)
    assert num(a, "flops_fp32", 1) == approx(2.835e8)
    assert col(a, "flops_fp32_basis") == ["smsp__sass per-cycle rates"] * 2


def test_per_cycle_rate_form_fp16_and_derived_fma() -> None:
    # ncu's charts carry FMA pre-multiplied: derived ..._hfma_pred_on_x4 = 4 x hfma/cycle.
    # FP16 per cycle: 2 x 10 + 2 x 20 + 120 (= 4 x 30) = 180 FLOP/cycle;
    # x 1.5e9 Hz = 2.7e11 FLOP/s; x 3e6 cycles = 5.4e8 FLOPs.
    # FP32 with derived ..._ffma_pred_on_x2 = 60 (2 x 30): 10 + 20 + 60 = 90 FLOP/cycle;
    # x 1.5e9 = 1.35e11 FLOP/s; x 3e6 = 2.7e8.  Together 4.05e11 FLOP/s, 8.1e8 FLOPs.
    row = {
        "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed": 10.0,
        "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed": 20.0,
        "derived__smsp__sass_thread_inst_executed_op_hfma_pred_on_x4": 120.0,
        "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed": 10.0,
        "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed": 20.0,
        "derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2": 60.0,
        "smsp__cycles_elapsed.avg.per_second": 1.5e9,
        "smsp__cycles_elapsed.avg": 3e6,
        "gpu__time_duration.sum": 2e-3,
    }
    a = analyse_rows([row])
    assert num(a, "flops_fp16") == approx(5.4e8)
    assert num(a, "flops_fp32") == approx(2.7e8)
    assert num(a, "flops") == approx(8.1e8)
    assert num(a, "achieved_flops_per_s") == approx(4.05e11)


# --- 2. Tensor ops_path ---------------------------------------------------------

OPS = "sm__ops_path_tensor_"


def test_tensor_hopper_both_families_counted_once() -> None:
    # Hopper lists the per-instruction counter and the per-datatype aggregate
    # for the same work; only the src_* aggregate counts: 8e9, not 1.6e10.
    row = {
        f"{OPS}op_hgmma_src_bf16_dst_fp32_sparsity_off.sum": 8e9,
        f"{OPS}src_bf16_dst_fp32.sum": 8e9,
        "dram__bytes.sum": 1e8,
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row], gpu=spec({"fp32": 1e12, "tensor_bf16": 1e15}), cc="9.0")
    assert num(a, "flops_tensor") == 8e9
    assert num(a, "flops_tensor_bf16") == 8e9
    assert col(a, "flops_tensor_basis") == ["sm__ops_path_tensor_src_*"]
    # Exact tensor counts alone place the kernel: 8e9 FLOPs, 8e12 FLOP/s, on the BF16 roof.
    assert num(a, "flops") == 8e9
    assert num(a, "achieved_flops_per_s") == approx(8e12)
    assert col(a, "precision") == ["tensor_bf16"]
    assert num(a, "peak_flops_per_s") == 1e15


def test_tensor_op_family_when_no_aggregates() -> None:
    # Only op_* counters: BF16 8e9 + FP16 1e9 = 9e9.
    row = {
        f"{OPS}op_hgmma_src_bf16_dst_fp32_sparsity_off.sum": 8e9,
        f"{OPS}op_hmma_src_fp16_dst_fp32_sparsity_off.sum": 1e9,
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row], cc="9.0")
    assert num(a, "flops_tensor_bf16") == 8e9
    assert num(a, "flops_tensor_fp16") == 1e9
    assert num(a, "flops_tensor") == 9e9
    assert col(a, "flops_tensor_basis") == ["sm__ops_path_tensor_op_*"]


def test_tensor_per_dtype_columns_and_nan_variant() -> None:
    # Launch 0: BF16 3e9; FP16 = 2e9 (dst fp32) + 1e9 (dst fp16) = 3e9; total 6e9.
    # Launch 1: the fp16->fp16 variant is missing (NaN); FP16 = 2e9 alone, not NaN;
    #           total 3e9 + 2e9 = 5e9.
    rows = [
        {
            f"{OPS}src_bf16_dst_fp32.sum": 3e9,
            f"{OPS}src_fp16_dst_fp32.sum": 2e9,
            f"{OPS}src_fp16_dst_fp16.sum": 1e9,
            "gpu__time_duration.sum": 1e-3,
        },
        {
            f"{OPS}src_bf16_dst_fp32.sum": 3e9,
            f"{OPS}src_fp16_dst_fp32.sum": 2e9,
            "gpu__time_duration.sum": 1e-3,
        },
    ]
    a = analyse_rows(rows, cc="8.0")
    assert col(a, "flops_tensor_bf16") == [3e9, 3e9]
    assert col(a, "flops_tensor_fp16") == [3e9, 2e9]
    assert col(a, "flops_tensor") == [6e9, 5e9]


def test_tensor_family_chosen_per_launch() -> None:
    # Two exports in one profile (the readers concatenate sources): launch 0
    # carries both families (count the src_* aggregate once: 8e9); launch 1
    # only the op_* counters (5e9), its src_* columns being NaN.  Each launch
    # takes the first metric set *it* carries, so launch 1 has 5e9, not NaN.
    rows = [
        {
            f"{OPS}op_hgmma_src_bf16_dst_fp32_sparsity_off.sum": 8e9,
            f"{OPS}src_bf16_dst_fp32.sum": 8e9,
            "gpu__time_duration.sum": 1e-3,
        },
        {
            f"{OPS}op_hgmma_src_bf16_dst_fp32_sparsity_off.sum": 5e9,
            "gpu__time_duration.sum": 1e-3,
        },
    ]
    a = analyse_rows(rows, cc="9.0", source=["a.csv", "b.csv"])
    assert col(a, "flops_tensor_bf16") == [8e9, 5e9]
    assert col(a, "flops_tensor") == [8e9, 5e9]
    assert col(a, "flops") == [8e9, 5e9]


def test_tensor_rate_form() -> None:
    # 1000 ops/cycle x 1.5e9 Hz = 1.5e12 op/s; x 3e6 SM cycles = 3e9 ops.
    row = {
        f"{OPS}src_bf16_dst_fp32.sum.per_cycle_elapsed": 1000.0,
        "sm__cycles_elapsed.avg.per_second": 1.5e9,
        "sm__cycles_elapsed.avg": 3e6,
        "gpu__time_duration.sum": 2e-3,
    }
    a = analyse_rows([row], cc="8.0")
    assert num(a, "flops_tensor_bf16") == approx(3e9)
    assert num(a, "achieved_flops_per_s") == approx(1.5e12)


# --- 3. Tensor instruction fallback ------------------------------------------------

TENSOR_INST = "sm__inst_executed_pipe_tensor.sum"


def test_tensor_instruction_factors() -> None:
    rows = [
        {TENSOR_INST: 1000.0},  # CC 7.0: 1000 x 512 = 512,000 (Volta HMMA.884)
        {TENSOR_INST: 1000.0},  # CC 7.5: 1000 x 2048 = 2,048,000 (HMMA.1688)
        {TENSOR_INST: 1000.0},  # CC 8.0: 1000 x 4096 = 4,096,000 (HMMA.16816)
        {TENSOR_INST: 1000.0},  # CC 9.0: wgmma shapes vary: no factor, NaN
        {TENSOR_INST: 0.0},  # CC 8.0, no tensor instructions: 0
    ]
    for r in rows:
        r.update({**fp32(1e6), "gpu__time_duration.sum": 1e-3})
    a = analyse_rows(rows, cc=["7.0", "7.5", "8.0", "9.0", "8.0"])
    t = col(a, "flops_tensor")
    basis = col(a, "flops_tensor_basis")
    assert t[0] == 512_000.0
    assert "approximate" in basis[0] and "512" in basis[0]
    assert t[1] == 2_048_000.0
    assert "approximate" in basis[1]
    assert t[2] == 4_096_000.0
    assert "approximate" in basis[2] and "4096" in basis[2]
    assert math.isnan(t[3])
    assert "no known" in basis[3] or "without a known" in basis[3]
    assert t[4] == 0.0
    assert basis[4] == "no tensor-core instructions"
    # Total FLOPs: 1e6 FP32 + tensor, the NaN (CC 9.0) not turned into a number.
    assert col(a, "flops")[:3] == [1e6 + 512_000.0, 1e6 + 2_048_000.0, 1e6 + 4_096_000.0]
    assert "tensor" in str(col(a, "flops_missing")[3])


def test_tensor_instructions_that_are_hfma2_mma() -> None:
    # HFMA thread instructions 3200 = 100 warp instructions; the tensor pipe saw
    # exactly those 100 (HFMA2.MMA register moves): tensor FLOPs 0, and the
    # 100 x 32 = 3200 HFMAs behind them are no FP16 work either:
    # FP16 = 4 x (3200 - 3200) = 0.  Half of them are moves (50 tensor-pipe
    # instructions): FP16 = 4 x (3200 - 1600) = 6400.
    row = {
        TENSOR_INST: 100.0,
        **counts("fp16", 0.0, 0.0, 3200.0),
        "gpu__time_duration.sum": 1e-3,
    }
    half = {**row, TENSOR_INST: 50.0}
    a = analyse_rows([row, half], cc="8.0")
    assert col(a, "flops_tensor") == [0.0, 0.0]
    assert "HFMA2.MMA" in col(a, "flops_tensor_basis")[0]
    assert col(a, "flops_fp16") == [0.0, 6400.0]
    assert col(a, "flops") == [0.0, 6400.0]
    assert "less HFMA2.MMA register moves" in col(a, "flops_fp16_basis")[1]
    # No FLOPs left: no precision to state.
    precision = col(a, "precision")
    assert pd.isna(precision[0]) and precision[1] == "fp16"


def test_tensor_instructions_of_a_gemm_with_hfma_epilogue() -> None:
    # 1e6 tensor instructions, of which 32,000 / 32 = 1000 are HFMA2.MMA:
    # (1e6 - 1000) x 4096 = 999,000 x 4096 = 4,091,904,000.
    row = {
        TENSOR_INST: 1e6,
        **counts("fp16", 0.0, 0.0, 32_000.0),
        "gpu__time_duration.sum": 1e-3,
    }
    a = analyse_rows([row], cc="8.0")
    assert num(a, "flops_tensor") == 4_091_904_000.0


def test_instruction_fallback_per_launch_next_to_ops_path() -> None:
    # A Volta export (no ops_path block, tensor-pipe instructions only) merged
    # with an Ampere one (ops_path): the Volta launch still gets its estimate,
    # 1000 x 512 = 512,000, and the Ampere launch its exact 1e9.
    rows = [
        {TENSOR_INST: 1000.0, **fp32(1e6), "gpu__time_duration.sum": 1e-3},
        {f"{OPS}src_fp16_dst_fp32.sum": 1e9, **fp32(1e6), "gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows, cc=["7.0", "8.0"], source=["volta.csv", "ampere.csv"])
    assert col(a, "flops_tensor") == [512_000.0, 1e9]
    basis = col(a, "flops_tensor_basis")
    assert "approximate" in basis[0]
    assert basis[1] == "sm__ops_path_tensor_src_*"


def test_instruction_estimate_sets_precision_next_to_ops_path() -> None:
    # As above, but the tensor work dominates both launches (FP32 only 1e5):
    # the Volta launch's 512,000 estimated tensor FLOPs carry no datatype and
    # are judged against the FP16 tensor roof, like in an all-Volta profile;
    # the Ampere launch's 1e9 FP16 ops too.
    rows = [
        {TENSOR_INST: 1000.0, **fp32(1e5), "gpu__time_duration.sum": 1e-3},
        {f"{OPS}src_fp16_dst_fp32.sum": 1e9, **fp32(1e5), "gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows, cc=["7.0", "8.0"], source=["volta.csv", "ampere.csv"])
    assert col(a, "precision") == ["tensor_fp16", "tensor_fp16"]


def test_approximate_tensor_alone_does_not_place() -> None:
    # No SASS counters: approximate tensor estimates are not a FLOP total.
    a = analyse_rows(
        [{TENSOR_INST: 1000.0, "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-3}], cc="7.0"
    )
    assert num(a, "flops_tensor") == 512_000.0
    assert math.isnan(num(a, "flops"))
    assert col(a, "bound") == ["not placeable"]
    assert "FLOP" in col(a, "bound_reason")[0]


# --- 4. Bytes -------------------------------------------------------------------------


def test_byte_sources() -> None:
    rows = [
        {
            # DRAM read + write: 3e6 + 1e6 = 4e6 bytes; over 1 ms = 4e9 B/s.
            "dram__bytes_read.sum": 3e6,
            "dram__bytes_write.sum": 1e6,
            "lts__t_bytes.sum": 5e6,
            "l1tex__t_bytes.sum": 7e6,
            "gpu__time_duration.sum": 1e-3,
        },
        {
            # Sectors: (1000 + 500) x 32 = 48,000 bytes.
            "dram__sectors_read.sum": 1000.0,
            "dram__sectors_write.sum": 500.0,
            # L2 as ncu's roofline counts it: 1000 crossbar cycles x 32 = 32,000.
            "lts__lts2xbar_cycles_active.sum": 1000.0,
            # L1 writeback cycles x 128 bytes: 100 x 128 = 12,800.
            "l1tex__lsu_writeback_active_mem_lg.sum": 100.0,
            "gpu__time_duration.sum": 1e-3,
        },
        {
            # Rate x duration: 2e9 B/s x 1.5 ms = 3e6 bytes; the rate is kept exactly.
            "dram__bytes.sum.per_second": 2e9,
            # L2 sectors: 100 x 32 = 3200 bytes (the lts__t_bytes definition).
            "lts__t_sectors.sum": 100.0,
            # Hopper's lgds writeback: 10 x 128 = 1280.
            "l1tex__lsu_writeback_active_mem_lgds.sum": 10.0,
            "gpu__time_duration.sum": 1.5e-3,
        },
    ]
    a = analyse_rows(rows)
    assert col(a, "dram_bytes")[:2] == [4e6, 48_000.0]
    assert num(a, "dram_bytes", 2) == approx(3e6)
    assert col(a, "dram_bytes_basis") == ["dram__bytes"] * 3
    assert num(a, "dram_bytes_per_s", 0) == approx(4e9)
    assert num(a, "dram_bytes_per_s", 2) == 2e9
    assert col(a, "l2_bytes") == [5e6, 32_000.0, 3200.0]
    assert col(a, "l2_bytes_basis") == ["lts__t_bytes", "lts__lts2xbar", "lts__t_bytes"]
    assert col(a, "l1_bytes") == [7e6, 12_800.0, 1280.0]
    assert col(a, "l1_bytes_basis") == [
        "l1tex__t_bytes",
        "l1tex__lsu_writeback",
        "l1tex__lsu_writeback",
    ]
    # Two L2 (and L1) definitions in one profile are not comparable: a warning says so.
    mixed = [f for f in a.findings if f.kind == "mixed-definitions"]
    assert {f.message[:2] for f in mixed} == {"L2", "L1"}
    assert all(f.severity == "warning" for f in mixed)


# --- 5. Roof precedence -------------------------------------------------------------

A100 = "NVIDIA A100-SXM4-40GB"
# ncu's peak metrics on an A100 at its 1095 MHz base clock:
# FP32 = 6912 FFMA/cycle (64 x 108 SMs) x 1.095e9 Hz x 2 FLOP = 1.513728e13 FLOP/s;
# DRAM = 1280 bytes/cycle x 1.215e9 Hz = 1.5552e12 bytes/s.
PROFILE_PEAKS = {
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained": 6912.0,
    "sm__cycles_elapsed.avg.per_second": 1.095e9,
    "dram__bytes.sum.peak_sustained": 1280.0,
    "dram__cycles_elapsed.avg.per_second": 1.215e9,
}
WORK = {**fp32(4e9), "dram__bytes.sum": 1e9, "gpu__time_duration.sum": 1e-3}


def test_profile_peaks_beat_the_table() -> None:
    a = analyze(profile([{**WORK, **PROFILE_PEAKS}], device_name=A100))
    assert num(a, "peak_fp32_flops_per_s") == approx(1.513728e13)
    assert num(a, "peak_dram_bytes_per_s") == approx(1.5552e12)
    assert str(col(a, "roof_source_compute")[0]).startswith("profile")
    assert str(col(a, "roof_source_dram")[0]).startswith("profile")
    assert str(col(a, "roof_source")[0]).startswith("profile")
    # Ceilings the profile lacks still come from the table match (A100 SXM4 40GB):
    # FP64 9.7e12 scaled to the measured clock, 9.7e12 x 1.095 / 1.41.
    assert num(a, "peak_fp64_flops_per_s") == approx(9.7e12 * 1.095e9 / 1.41e9)


def test_explicit_gpu_beats_the_profile() -> None:
    a = analyze(
        profile([{**WORK, **PROFILE_PEAKS}], device_name=A100), gpu=spec(), clocks="measured"
    )
    # The synthetic spec has no boost clock, so nothing is rescaled.
    assert num(a, "peak_fp32_flops_per_s") == 1e12
    assert num(a, "peak_dram_bytes_per_s") == 1e11
    assert col(a, "roof_source") == ["chosen: Synthetic GPU (test)"]
    assert col(a, "roof_source_dram") == ["chosen: Synthetic GPU (test)"]


def test_roofs_file_beats_the_profile(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_text(
        '[gpu.lab]\nname = "Lab GPU"\nfp32_tflops = 2.0\ndram_gbps = 500\n', encoding="utf-8"
    )
    a = analyze(profile([{**WORK, **PROFILE_PEAKS}], device_name=A100), roofs=path)
    # 2 TFLOP/s = 2e12, 500 GB/s = 5e11.
    assert num(a, "peak_fp32_flops_per_s") == 2e12
    assert num(a, "peak_dram_bytes_per_s") == 5e11
    assert str(col(a, "roof_source")[0]).startswith("chosen: Lab GPU")


def test_table_roofs_scaled_to_the_measured_clock() -> None:
    row = {**WORK, "sm__cycles_elapsed.avg.per_second": 1.095e9}
    measured = analyze(profile([row], device_name=A100), clocks="measured")
    # 19.5e12 x 1.095e9 / 1.41e9 = 1.5143617...e13; DRAM is not clock-scaled: 1555 GB/s.
    assert num(measured, "peak_fp32_flops_per_s") == approx(19.5e12 * 1.095e9 / 1.41e9)
    assert num(measured, "peak_dram_bytes_per_s") == approx(1.555e12)
    src = str(col(measured, "roof_source_compute")[0])
    assert src.startswith("table: A100 SXM4 40GB") and "measured" in src
    assert str(col(measured, "roof_source_dram")[0]).startswith("table: A100 SXM4 40GB")
    datasheet = analyze(profile([row], device_name=A100), clocks="datasheet")
    assert num(datasheet, "peak_fp32_flops_per_s") == approx(19.5e12)
    assert num(datasheet, "peak_dram_bytes_per_s") == approx(1.555e12)
    assert "measured" not in str(col(datasheet, "roof_source_compute")[0])


# --- 6. Classification ----------------------------------------------------------------


def test_memory_compute_and_zero_flop_placement() -> None:
    rows = [
        # ai = 1e8 / 2e7 = 5 < 10 -> memory; attainable 5 x 1e11 = 5e11;
        # achieved 1e8 / 1e-3 = 1e11 -> efficiency 0.2; recoverable 1 ms x 0.8 = 0.8 ms.
        {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
        # ai = 4e8 / 4e7 = 10 = ridge -> compute; attainable 1e12; achieved 4e11 -> 0.4.
        {**fp32(4e8), "dram__bytes.sum": 4e7, "gpu__time_duration.sum": 1e-3},
        # ai = 4e8 / (4e7 + 1) just below 10 -> memory; attainable = ai x 1e11;
        # efficiency = 4e11 x (4e7 + 1) / (4e8 x 1e11) = (4e7 + 1) / 1e8 = 0.40000001.
        {**fp32(4e8), "dram__bytes.sum": 4e7 + 1, "gpu__time_duration.sum": 1e-3},
        # No floating-point work, 5e7 bytes in 1 ms = 5e10 B/s = 50 % of the DRAM
        # roof: memory-bound, efficiency 0.5, recoverable 0.5 ms.
        {**fp32(0.0), "dram__bytes.sum": 5e7, "gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows, kernel=["mem", "ridge", "below", "copy"])
    assert col(a, "ai_dram")[:2] == [5.0, 10.0]
    assert col(a, "ridge_dram")[:3] == [10.0, 10.0, 10.0]
    assert col(a, "side")[:3] == ["memory", "compute", "memory"]
    assert col(a, "bound") == ["memory", "compute", "memory", "memory"]
    assert num(a, "attainable_flops_per_s", 0) == approx(5e11)
    assert num(a, "efficiency", 0) == approx(0.2)
    assert num(a, "recoverable_s", 0) == approx(8e-4)
    assert num(a, "efficiency", 1) == approx(0.4)
    assert num(a, "efficiency", 2) == approx(0.40000001)
    assert num(a, "flops", 3) == 0.0
    assert pd.isna(col(a, "precision")[3])
    assert num(a, "dram_utilization", 3) == approx(0.5)
    assert num(a, "efficiency", 3) == approx(0.5)
    assert num(a, "recoverable_s", 3) == approx(5e-4)


def test_recoverable_is_duration_times_inefficiency() -> None:
    # ai = 2e8 / 4e7 = 5 -> attainable 5e11; achieved 2e8 / 2e-3 = 1e11 -> 0.2;
    # recoverable = 2 ms x (1 - 0.2) = 1.6 ms.
    a = analyse_rows([{**fp32(2e8), "dram__bytes.sum": 4e7, "gpu__time_duration.sum": 2e-3}])
    assert num(a, "efficiency") == approx(0.2)
    assert num(a, "recoverable_s") == approx(1.6e-3)
    assert num(a, "recoverable_s") == approx(num(a, "duration_s") * (1 - num(a, "efficiency")))


def test_no_flop_counters_not_placeable_but_bandwidth_known() -> None:
    # 5e7 bytes / 1 ms = 5e10 B/s = 0.5 of the DRAM roof.
    a = analyse_rows([{"dram__bytes.sum": 5e7, "gpu__time_duration.sum": 1e-3}])
    assert col(a, "bound") == ["not placeable"]
    assert "FLOP" in col(a, "bound_reason")[0]
    assert math.isnan(num(a, "flops"))
    assert math.isnan(num(a, "efficiency"))
    assert num(a, "dram_utilization") == approx(0.5)
    # DRAM busy half the time bounds what can be recovered: 1 ms x (1 - 0.5).
    assert num(a, "recoverable_s") == approx(0.5e-3)
    assert col(a, "recoverable_basis") == ["busiest unit: DRAM at 50%"]


def test_unknown_gpu_without_peaks() -> None:
    p = profile(
        [{**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3}],
        device_name="Mystery GPU 9000",
    )
    a = analyze(p)
    assert col(a, "bound") == ["not placeable"]
    assert "roof" in col(a, "bound_reason")[0]
    assert math.isnan(num(a, "peak_dram_bytes_per_s"))
    assert math.isnan(num(a, "efficiency"))
    no_roofs = [f for f in a.findings if f.kind == "no-roofs"]
    assert len(no_roofs) == 1
    assert "Mystery GPU 9000" in no_roofs[0].message


def test_nccl_kernel_is_communication() -> None:
    nccl = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096>)"
    a = analyse_rows(
        [{**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3}], kernel=nccl
    )
    assert col(a, "bound") == ["communication"]
    assert math.isnan(num(a, "efficiency"))
    assert math.isnan(num(a, "recoverable_s"))
    assert pd.isna(col(a, "above_roof")[0])
    assert a.kernels.iloc[0]["bound"] == "communication"
    assert any(f.kind == "communication" for f in a.findings)


def test_short_launch_is_latency() -> None:
    # 2 us: ai = 2e5 / 4e4 = 5 -> attainable 5e11; achieved 2e5 / 2e-6 = 1e11 -> 0.2
    # (DRAM at 4e4 / 2e-6 = 2e10 B/s = 20 %, so not "far under every roof").
    # 0.2 < 0.5 and 2 us < 5 us -> latency: nothing recoverable at a roof,
    # the 2 us are latency time.
    a = analyse_rows([{**fp32(2e5), "dram__bytes.sum": 4e4, "gpu__time_duration.sum": 2e-6}])
    assert num(a, "efficiency") == approx(0.2)
    assert col(a, "bound") == ["latency"]
    assert "launch overhead" in col(a, "bound_reason")[0]
    assert num(a, "recoverable_s") == 0.0
    assert num(a, "latency_s") == approx(2e-6)
    assert col(a, "limiter") == ["latency"]


def test_far_under_every_roof_is_latency_unless_sol_is_high() -> None:
    # ai = 1e6 / 1e6 = 1 -> attainable 1e11; achieved 1e9 -> efficiency 0.01;
    # compute 1e9 / 1e12 = 0.1 %, DRAM 1e9 / 1e11 = 1 %: far under both roofs.
    # Latency needs the speed-of-light percentages to confirm it: without
    # them the launch keeps its memory class and the reason says so.
    row = {**fp32(1e6), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": 1e-3}
    idle = {**row, "sm__throughput.avg.pct_of_peak_sustained_elapsed": 5.0}
    busy = {**row, "sm__throughput.avg.pct_of_peak_sustained_elapsed": 50.0}
    a = analyse_rows([idle, busy, row], kernel=["idle", "busy", "unknown"])
    assert col(a, "efficiency") == [approx(0.01)] * 3
    assert col(a, "bound") == ["latency", "memory", "memory"]
    assert "far under" in col(a, "bound_reason")[0]
    assert "no speed-of-light metrics" in col(a, "bound_reason")[2]


# --- 7. Kernel groups ---------------------------------------------------------------------


def test_kernel_groups() -> None:
    rows = [
        # gemm, grid (8,1,1):
        # L0: 1 ms, ai 1e8/5e7 = 2 -> att 2e11, ach 1e11 -> eff 0.5, memory; rec 0.5 ms.
        {**fp32(1e8), "dram__bytes.sum": 5e7, "gpu__time_duration.sum": 1e-3},
        # L1: 3 ms, ai 3e8/6e7 = 5 -> att 5e11, ach 1e11 -> eff 0.2, memory; rec 2.4 ms.
        {**fp32(3e8), "dram__bytes.sum": 6e7, "gpu__time_duration.sum": 3e-3},
        # L2: 2 ms, ai 1.6e9/4e7 = 40 -> att 1e12, ach 8e11 -> eff 0.8, compute; rec 0.4 ms.
        {**fp32(1.6e9), "dram__bytes.sum": 4e7, "gpu__time_duration.sum": 2e-3},
        # gemm, grid (2,1,1): 1 ms, ai 2e8/2e7 = 10 -> compute, ach 2e11 -> 0.2; rec 0.8 ms.
        {**fp32(2e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
        # other: 5 ms, ai 5e8/1e8 = 5 -> att 5e11, ach 1e11 -> 0.2, memory; rec 4 ms.
        {**fp32(5e8), "dram__bytes.sum": 1e8, "gpu__time_duration.sum": 5e-3},
    ]
    a = analyse_rows(
        rows,
        kernel=["gemm", "gemm", "gemm", "gemm", "other"],
        grid=["(8, 1, 1)", "(8, 1, 1)", "(8, 1, 1)", "(2, 1, 1)", "(8, 1, 1)"],
    )
    assert col(a, "efficiency") == [approx(0.5), approx(0.2), approx(0.8), approx(0.2), approx(0.2)]
    assert col(a, "bound") == ["memory", "memory", "compute", "compute", "memory"]
    k = a.kernels
    assert len(k) == 3
    # Ranked by recoverable time: other 4 ms, gemm (8,1,1) 3.3 ms, gemm (2,1,1) 0.8 ms.
    assert list(k["rank"]) == [1, 2, 3]
    assert list(k["kernel"]) == ["other", "gemm", "gemm"]
    assert list(k["grid"]) == ["(8, 1, 1)", "(8, 1, 1)", "(2, 1, 1)"]
    assert list(k["recoverable_s"]) == [approx(4e-3), approx(3.3e-3), approx(0.8e-3)]
    g = k.iloc[1]
    assert g["launches"] == 3
    assert g["total_duration_s"] == approx(6e-3)  # 1 + 3 + 2 ms
    # Time-weighted efficiency: (0.5 x 1 + 0.2 x 3 + 0.8 x 2) / 6 = 2.7 / 6 = 0.45.
    assert g["efficiency"] == approx(0.45)
    # Recoverable: 0.5 + 2.4 + 0.4 = 3.3 ms (also 6 ms x (1 - 0.45)).
    assert g["recoverable_s"] == approx(3.3e-3)
    # Intensity of the sums: (1e8 + 3e8 + 1.6e9) / (5e7 + 6e7 + 4e7) = 2e9 / 1.5e8 = 13.33...
    assert g["flops"] == approx(2e9)
    assert g["dram_bytes"] == approx(1.5e8)
    assert g["ai_dram"] == approx(2e9 / 1.5e8)
    # Memory holds 4 ms of the 6, compute 2 ms: the group is memory-bound even
    # though its summed intensity sits right of the ridge.
    assert g["bound"] == "memory"
    assert k.iloc[2]["launches"] == 1
    assert k.iloc[2]["bound"] == "compute"


def test_summary_rows_stand_for_several_launches() -> None:
    # One --print-summary row: 4 launches averaging 1 ms, 1e8 FLOPs, 2e7 bytes.
    # ai 5 -> attainable 5e11, achieved 1e11 -> efficiency 0.2;
    # total 4 ms, recoverable 4 ms x 0.8 = 3.2 ms; group sums 4e8 FLOPs, 8e7 bytes.
    a = analyse_rows(
        [{**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3}], invocations=4
    )
    assert num(a, "total_duration_s") == approx(4e-3)
    assert num(a, "efficiency") == approx(0.2)
    assert num(a, "recoverable_s") == approx(3.2e-3)
    g = a.kernels.iloc[0]
    assert g["launches"] == 4
    assert g["total_duration_s"] == approx(4e-3)
    assert g["duration_s"] == approx(1e-3)
    assert g["flops"] == approx(4e8)
    assert g["dram_bytes"] == approx(8e7)
    assert g["ai_dram"] == approx(5.0)
    assert g["achieved_flops_per_s"] == approx(1e11)
    assert g["recoverable_s"] == approx(3.2e-3)


# --- 8. Missing is NaN, never 0 -------------------------------------------------------------


def test_missing_dram_bytes_are_nan() -> None:
    rows = [
        {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
        {**fp32(1e8), "gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows)
    assert math.isnan(num(a, "dram_bytes", 1))
    assert pd.isna(col(a, "dram_bytes_basis")[1])
    assert math.isnan(num(a, "dram_bytes_per_s", 1))
    assert math.isnan(num(a, "ai_dram", 1))
    assert math.isnan(num(a, "dram_utilization", 1))
    assert math.isnan(num(a, "efficiency", 1))
    # Unplaced, but its FMA pipe is 1e8 FLOP / 1 ms / 1 TFLOP/s = 10% busy
    # (no instruction mix given): at most 1 ms x 0.9 is recoverable.
    assert num(a, "recoverable_s", 1) == approx(0.9e-3)
    assert col(a, "recoverable_basis")[1] == "busiest unit: FMA pipe at 10%"
    assert col(a, "bound")[1] == "not placeable"
    assert "DRAM byte" in col(a, "bound_reason")[1]
    # The group sum is NaN when one launch lacks the bytes, not 2e7.
    assert math.isnan(float(a.kernels.iloc[0]["dram_bytes"]))
    assert math.isnan(float(a.kernels.iloc[0]["ai_dram"]))
    # The recoverable time sums both launches' bounds: 1 ms x (1 - 0.2)
    # (DRAM 2e7 B / 1 ms over 100 GB/s) + 0.9 ms = 1.7 ms.
    assert float(a.kernels.iloc[0]["recoverable_s"]) == approx(1.7e-3)


def test_missing_counter_is_not_a_partial_sum() -> None:
    # FFMA absent in launch 1: FP32 is unknown, not fadd + fmul = 2e6.
    rows = [
        {**counts("fp32", 1e6, 1e6, 1e6), "gpu__time_duration.sum": 1e-3},
        {sass("fadd"): 1e6, sass("fmul"): 1e6, "gpu__time_duration.sum": 1e-3},
    ]
    a = analyse_rows(rows)
    assert num(a, "flops_fp32", 0) == 4e6
    assert math.isnan(num(a, "flops_fp32", 1))
    assert math.isnan(num(a, "flops", 1))
    assert math.isnan(num(a, "flops_fp64", 0))
    assert pd.isna(col(a, "flops_fp32_basis")[1])


def test_missing_duration_is_nan() -> None:
    a = analyse_rows([{**fp32(1e8), "dram__bytes.sum": 2e7}])
    assert math.isnan(num(a, "duration_s"))
    assert num(a, "flops") == 1e8  # the count itself is known
    assert math.isnan(num(a, "dram_bytes_per_s"))
    assert math.isnan(num(a, "efficiency"))
    assert col(a, "bound") == ["not placeable"]
    assert "duration" in col(a, "bound_reason")[0]
    assert np.isnan(a.kernels.iloc[0]["total_duration_s"])


def test_missing_duration_gives_nan_flop_rate() -> None:
    # 1e8 FLOPs over an unknown time: the rate is unknown, not 0 FLOP/s
    # (and the compute utilisation is unknown, not 0 %).
    a = analyse_rows([{**fp32(1e8), "dram__bytes.sum": 2e7}])
    assert math.isnan(num(a, "achieved_flops_per_s"))
    assert math.isnan(num(a, "compute_utilization"))
