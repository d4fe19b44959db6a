"""Our roofline figures against Nsight Compute's own, where an export has both.

ncu's roofline sections print derived values next to the raw counters: the
doubled FFMA rates (``derived__smsp__..._ffma_pred_on_x2``, "Predicated-On
FFMA Operations Per Cycle") and doubled peaks (``derived__sm__..._x2``,
"Theoretical Predicated-On FFMA Operations").  The engine computes its
figures from the undoubled counters, so agreeing with ncu's derived values
within 1% checks the formulas, not a copy of them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ncu_roofline

LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
LAKOC_REP = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
SASS = "sass_thread_inst_executed_op_{}_pred_on"


def _ncu_achieved_fp32(launches, i: int) -> float:
    """ncu's SP achieved work: (fadd + fmul + its own doubled ffma) per cycle x smsp clock."""
    per_cycle = (
        launches[f"smsp__{SASS.format('fadd')}.sum.per_cycle_elapsed"].iloc[i]
        + launches[f"smsp__{SASS.format('fmul')}.sum.per_cycle_elapsed"].iloc[i]
        + launches[f"derived__smsp__{SASS.format('ffma')}_x2"].iloc[i]
    )
    return float(per_cycle * launches["smsp__cycles_elapsed.avg.per_second"].iloc[i])


@pytest.mark.parametrize("name", [LUKAS, LAKOC_REP])
def test_achieved_and_peak_fp32_match_ncu(samples_dir: Path, name: str) -> None:
    path = samples_dir / name
    if name.endswith(".ncu-rep"):
        pytest.importorskip("ncu_report")
    profile = ncu_roofline.load([str(path)])
    analysis = ncu_roofline.analyze(profile)
    raw = profile.launches
    ours = analysis.launches
    assert len(ours) >= 3
    for i in range(len(ours)):
        ncu_achieved = _ncu_achieved_fp32(raw, i)
        ncu_peak = float(
            raw[f"derived__sm__{SASS.format('ffma')}_x2"].iloc[i]
            * raw["sm__cycles_elapsed.avg.per_second"].iloc[i]
        )
        ncu_dram_peak = float(
            raw["dram__bytes.sum.peak_sustained"].iloc[i]
            * raw["dram__cycles_elapsed.avg.per_second"].iloc[i]
        )
        # FP32 is the only work in these launches (FP64 rates are 0).
        assert ours["flops_fp64"].iloc[i] == 0
        assert ours["achieved_flops_per_s"].iloc[i] == pytest.approx(ncu_achieved, rel=0.01)
        assert ours["peak_fp32_flops_per_s"].iloc[i] == pytest.approx(ncu_peak, rel=0.01)
        assert ours["peak_dram_bytes_per_s"].iloc[i] == pytest.approx(ncu_dram_peak, rel=0.01)
        assert ours["dram_bytes_per_s"].iloc[i] == pytest.approx(
            raw["dram__bytes.sum.per_second"].iloc[i], rel=0.01
        )
        assert str(ours["roof_source_compute"].iloc[i]).startswith("profile")


def test_lakoc_report_values_by_hand(samples_dir: Path) -> None:
    """Launch 0 of the A100 N-body report, worked out from its metric values.

    fadd 1927.256, fmul 1498.970, ncu's doubled ffma 1284.984 per cycle at
    1.095064 GHz: (1927.256 + 1498.970 + 1284.984) x 1.095064e9 = 5.1590e12
    FLOP/s.  Peak: 13824 (= 2 x 6912) x 1.095064e9 = 1.51382e13 FLOP/s.
    DRAM: 1280 B/cycle x 1.215113 GHz = 1.55535e12 B/s; measured
    1.187494e8 B/s.  Intensity = 5.1590e12 / 1.187494e8 = 43,445 FLOP/B,
    far right of the ridge (1.51382e13 / 1.55535e12 = 9.73): compute-bound
    at 5.1590 / 15.1382 = 34.1% of the FP32 roof.
    """
    pytest.importorskip("ncu_report")
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / LAKOC_REP)]))
    row = analysis.launches.iloc[0]
    assert row["achieved_flops_per_s"] == pytest.approx(5.1590e12, rel=1e-4)
    assert row["peak_fp32_flops_per_s"] == pytest.approx(1.51382e13, rel=1e-4)
    assert row["peak_dram_bytes_per_s"] == pytest.approx(1.55535e12, rel=1e-4)
    assert row["ridge_dram"] == pytest.approx(9.733, rel=1e-3)
    assert row["bound"] == "compute"
    assert row["efficiency"] == pytest.approx(0.3408, rel=1e-3)
    # Honest recoverable time.  The mix: (fadd + fmul + 2 ffma) / (2 (fadd +
    # fmul + ffma)) = (1927.256 + 1498.970 + 1284.984) / (2 x 4068.718) =
    # 0.57895 of the FP32 roof, so the roof side allows t x (1 - 0.3408 /
    # 0.57895) = t x 0.4113; ncu's SM throughput of 68.2963% allows t x
    # 0.317037.  The smaller: 13.03936 ms x 0.317037 = 4.1340 ms (not the
    # FFMA roof's 8.60 ms).
    assert row["mix_share"] == pytest.approx(0.57895, rel=1e-4)
    assert row["recoverable_s"] == pytest.approx(13.03936e-3 * 0.317037, rel=1e-4)
    # The report's own utilisations, of elapsed cycles: the issue stage
    # (sm__issue_active 68.2963%, the figure ncu's SM throughput is the
    # largest of) ahead of the FMA pipe (sm__pipe_fma_cycles_active 65.1208%;
    # the FLOP/s over the mix's roof would say 34.08% / 0.57895 = 58.9%).
    assert row["limiter"] == "issue"
    assert row["limiter_utilization"] == pytest.approx(0.682963, rel=1e-5)
    assert row["limiter_basis"] == "sm__issue_active.avg.pct_of_peak_sustained_elapsed"
    # The A100 is matched from the device name for the ceilings the export
    # lacks (tensor), scaled to the measured 1.095 GHz SM clock.
    expected_tensor = 312e12 * row["sm_clock_hz"] / 1.41e9
    assert row["peak_tensor_bf16_flops_per_s"] == pytest.approx(expected_tensor, rel=1e-6)
    device = analysis.roofs[0]
    assert device.gpu is not None and device.gpu.key == "a100_40gb_sxm"
    assert any("below the" in note for note in device.notes)  # base-clock note
    assert np.isfinite(row["sm_clock_hz"])
