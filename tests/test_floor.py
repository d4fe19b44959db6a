"""One theoretical time floor for the report and the ``theory`` command."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ncu_roofline.analysis import theory_floor
from ncu_roofline.analysis.floor import compute_ceiling, time_floor
from ncu_roofline.analysis.theory_table import peak_for
from ncu_roofline.core.hardware import find_gpu


def test_same_rate_stand_in_only_where_the_gpu_has_the_datatype() -> None:
    # A BF16 tensor op on GPUs that publish only an FP16 tensor roof of 1e15 FLOP/s.
    ceilings = {"tensor_fp16": np.array([1e15, 1e15]), "fp32": np.array([5e13, 5e13])}
    precision = np.array(["tensor_bf16", "tensor_bf16"], dtype=object)
    peak, key = compute_ceiling(ceilings, precision, np.array([9.0, 7.0]))
    assert peak[0] == 1e15 and key[0] == "tensor_fp16"
    # CC 7.0 (Volta) has no BF16 tensor math: no stand-in, and no fallback to FP32.
    assert np.isnan(peak[1]) and key[1] is None
    # 4e12 FLOPs / 1e15 FLOP/s = 4 ms; 2e9 B / 2e12 B/s = 1 ms; floor = max = 4 ms.
    floor = time_floor([4e12, 4e12], [2e9, 2e9], peak, [2e12, 2e12])
    assert floor[0] == pytest.approx(4e-3)
    assert np.isnan(floor[1])


def test_zero_work_needs_no_roof_and_missing_roofs_give_no_floor() -> None:
    # No FLOPs: 0 s of compute whatever the roof; 1e9 B / 1e12 B/s = 1 ms.
    assert time_floor([0.0], [1e9], [np.nan], [1e12])[0] == pytest.approx(1e-3)
    # Work against a zero or missing roof has no floor, not an infinite one.
    assert np.isnan(time_floor([1e9], [1e9], [0.0], [1e12])[0])
    assert np.isnan(time_floor([1e9], [1e9], [1e12], [np.nan])[0])


def test_report_and_theory_command_agree() -> None:
    gpu = find_gpu("h100_sxm5")
    peak, key = peak_for(gpu, "tensor_bf16")
    assert key == "tensor_bf16" and peak == gpu.compute["tensor_bf16"]
    frame = pd.DataFrame(
        {
            "cc": [gpu.cc],
            "theory_precision": ["tensor_bf16"],
            "peak_tensor_bf16_flops_per_s": [gpu.compute["tensor_bf16"]],
            # The launch's own dominant precision must not stand in for the op's.
            "peak_flops_per_s": [gpu.compute["fp32"]],
            "peak_dram_bytes_per_s": [gpu.memory["dram"]],
        }
    )
    flops, nbytes = 2 * 4096.0**3, 3 * 2 * 4096.0**2
    got = theory_floor(frame, np.array([flops]), np.array([nbytes]))[0]
    expected = max(flops / gpu.compute["tensor_bf16"], nbytes / gpu.memory["dram"])
    assert got == pytest.approx(expected)
