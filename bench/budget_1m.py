"""Time :func:`ncu_roofline.analysis.budget.build` on a synthetic 1,000,000-launch trace.

The trace imitates a launch-bound decode loop: steps of 200 kernels (five
kernel names, 20 launch configurations) on two streams that overlap now and
then, a memcpy and a memset per step, idle gaps of 1-50 us between kernels,
and one GPU-projected NVTX range per step (5,000 steps).  It is joined to a
real one-kernel ncu analysis (one of the names is that export's kernel), so
the join, the class sweeps and the per-step windows all run.  Building the
timeline (``Timeline.of``, what a reader ends with) is timed apart from the
budget.  Not a test: it prints the numbers.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python bench/budget_1m.py [--launches 1000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import ncu_roofline
from ncu_roofline.analysis.budget import budget, weight_by_timeline
from ncu_roofline.core.timeline import Timeline

SAMPLE = (
    Path(__file__).resolve().parent.parent.parent
    / "shared/ncu-samples/CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
)


def synthesise(launches: int, per_step: int, seed: int = 0) -> Timeline:
    """A ``launches``-kernel trace in steps of ``per_step`` kernels, with copies and NVTX steps."""
    rng = np.random.default_rng(seed)
    names = np.array(
        [
            "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
            "void at::native::vectorized_elementwise_kernel<(int)4, at::native::CUDAFunctor_add<c10::BFloat16>>(int, T2, T3)",
            "std::enable_if<!T7, void>::type internal::gemvx::kernel<int, (int)7>(T13)",
            "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<(int)128>>(Flash_fwd_params)",
            "void at::native::reduce_kernel<(int)512, (int)1>(T3)",
        ],
        dtype=object,
    )
    duration = rng.integers(1_000, 30_000, launches)
    gap = rng.integers(1_000, 50_000, launches)
    start = np.cumsum(gap + duration) - duration
    # Every 7th kernel runs on a second stream, starting under its predecessor.
    other = np.arange(launches) % 7 == 3
    start[other] -= duration[other] // 2
    end = start + duration
    grids = np.array([f"({g}, 1, 1)" for g in range(1, 21)], dtype=object)
    steps = launches // per_step
    step_start = start[::per_step][:steps]
    step_end = end[per_step - 1 :: per_step][:steps]
    copy_start = step_end + 500
    kernels = pd.DataFrame(
        {
            "kind": "kernel",
            "start_ns": start,
            "end_ns": end,
            "name": names[np.arange(launches) % len(names)],
            "grid": grids[rng.integers(0, len(grids), launches)],
            "block": "(256, 1, 1)",
            "corr_id": np.arange(launches),
            "device": 0,
            "stream": np.where(other, 8, 7),
        }
    )
    copies = pd.DataFrame(
        {
            "kind": np.repeat(["memcpy", "memset"], steps),
            "start_ns": np.concatenate([copy_start, copy_start + 2_000]),
            "end_ns": np.concatenate([copy_start + 1_500, copy_start + 2_300]),
            "name": np.repeat(["[CUDA memcpy Device-to-Host]", "[CUDA memset]"], steps),
            "device": 0,
            "stream": 7,
        }
    )
    ranges = pd.DataFrame(
        {
            "name": "decode_step",
            "start_ns": step_start,
            "end_ns": step_end + 3_000,
            "level": 0,
            "projected": True,
        }
    )
    return Timeline.of(activities=pd.concat([kernels, copies], ignore_index=True), ranges=ranges)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=1_000_000)
    parser.add_argument("--per-step", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    analysis = ncu_roofline.analyze(ncu_roofline.load(str(SAMPLE)))
    t0 = time.perf_counter()
    timeline = synthesise(args.launches, args.per_step)
    built = time.perf_counter() - t0
    print(
        f"timeline: {len(timeline.activities):,} activities, {len(timeline.ranges):,} ranges, built in {built:.2f} s"
    )
    times = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        record = budget(timeline, analysis)
        times.append(time.perf_counter() - t0)
    cap = record["capture"]
    print(
        f"budget: best {min(times):.2f} s, all {', '.join(f'{t:.2f}' for t in times)} s; "
        f"span {cap['span_s']:.4f} s = kernel {cap['kernel_s']:.4f} + copies {cap['memcpy_s']:.4f} "
        f"+ gaps {cap['gaps_s']:.4f}; {len(record['steps']):,} steps; joins {record['joins']}"
    )
    t0 = time.perf_counter()
    weight_by_timeline(analysis, timeline, budget_record=record)
    print(f"weight_by_timeline (budget reused): {time.perf_counter() - t0:.3f} s")


if __name__ == "__main__":
    main()
