"""How far ``report --project-to`` lands from a real run on the target GPU.

The shared exports hold the same program (CUTLASS and cuBLAS FP16 GEMMs and
their matrix initialisation) profiled on a Tesla V100-PCIE-32GB
(``src_output.csv``) and on an A100-PCIE-40GB (``src_output_A100.csv``).
This projects the V100 export onto the A100 (``a100_40gb_pcie``, the
built-in table) and compares each kernel group, matched by kernel name,
grid and block, with the A100's measured mean duration per launch.  A
second projection puts the A100 at the SM clock its own run measured (ncu
locks clocks to base by default), to separate the clock from the model.  It prints the
table; it is not a test.

Usage::

    PYTHONPATH=. .venv/bin/python bench/projection_error.py [--samples DIR]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

import ncu_roofline
from ncu_roofline.analysis import analyze
from ncu_roofline.analysis.projection import project, project_analysis
from ncu_roofline.core.frame import floats
from ncu_roofline.core.hardware import resolve_gpu

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "ncu-samples"
SOURCE = "wangzy0327__cuda-roofline__src_output.csv"
TARGET = "wangzy0327__cuda-roofline__src_output_A100.csv"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", default=str(SAMPLES), help="the shared ncu-samples folder")
    parser.add_argument("--source-gpu", default="v100_pcie_32gb")
    parser.add_argument("--target-gpu", default="a100_40gb_pcie")
    args = parser.parse_args(argv)
    samples = Path(args.samples)

    source = analyze(ncu_roofline.load([str(samples / SOURCE)]), gpu=args.source_gpu)
    spec = resolve_gpu(args.target_gpu).spec
    project_analysis(source, [spec])
    target = analyze(ncu_roofline.load([str(samples / TARGET)]), gpu=args.target_gpu)
    # The same projection with the target at the SM clock its own run measured.
    a100_clock = float(np.nanmedian(floats(target.launches["sm_clock_hz"])))
    at_clock, _, _ = project(source.launches, spec, roofs=source.roofs, target_clock_hz=a100_clock)

    src = _per_group(source.launches, source.launches["projected_s"].to_numpy(), at_clock)
    tgt = _per_group(target.launches, None, None)
    pairs = src.merge(
        tgt, on=["kernel_short", "grid", "block"], how="outer", suffixes=("", "_a100")
    )
    # The cuBLAS call picks a different kernel per architecture (sm70 CUTLASS
    # on the V100, ampere_s16816gemm on the A100): the one unmatched group on
    # each side is the same call, paired by launch order.
    lone_src = pairs[pairs["measured_s_a100"].isna()]
    lone_tgt = pairs[pairs["measured_s"].isna()]
    if len(lone_src) == 1 and len(lone_tgt) == 1:
        i, j = lone_src.index[0], lone_tgt.index[0]
        for col in ("measured_s_a100", "launches_a100"):
            pairs.loc[i, col] = pairs.loc[j, col]
        pairs.loc[i, "kernel_short"] += f" vs {pairs.loc[j, 'kernel_short']}"
        pairs = pairs.drop(index=j)
    pairs = pairs.sort_values("order")

    sm_v100 = float(np.nanmedian(floats(source.launches["sm_clock_hz"])))
    print(f"{SOURCE} ({args.source_gpu}) projected onto {args.target_gpu}, vs {TARGET}")
    print(f"SM clocks measured: V100 {sm_v100 / 1e6:.0f} MHz, A100 {a100_clock / 1e6:.0f} MHz")
    print(source.projections[0]["model"])
    print()
    print(
        "| kernel (V100 vs A100) | grid | launches | measured V100 (ms) | measured A100 (ms) "
        "| projected A100 (ms) | error | projected at A100's clock (ms) | error | basis |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for _, row in pairs.iterrows():
        a100 = row["measured_s_a100"]
        err = (row["projected_s"] - a100) / a100
        err_clock = (row["at_clock_s"] - a100) / a100
        print(
            f"| `{row['kernel_short'][:120]}` | {row['grid']} | {int(row['launches'])} "
            f"| {row['measured_s'] * 1e3:.3f} | {a100 * 1e3:.3f} | {row['projected_s'] * 1e3:.3f} "
            f"| {err:+.1%} | {row['at_clock_s'] * 1e3:.3f} | {err_clock:+.1%} "
            f"| {row['bound']}: {row['basis']} |"
        )
    rec = source.projections[0]
    a100_total = float(np.nansum(floats(target.launches["total_duration_s"])))
    at_clock_total = float(np.nansum(at_clock))
    print()
    print(
        f"whole profile: measured V100 {rec['measured_s'] or 0:.4f} s; measured A100 "
        f"{a100_total:.4f} s; projected A100 {rec['projected_s'] or 0:.4f} s "
        f"({((rec['projected_s'] or 0) - a100_total) / a100_total:+.1%}), at the A100's "
        f"clock {at_clock_total:.4f} s ({(at_clock_total - a100_total) / a100_total:+.1%})"
    )
    return 0


def _per_group(
    launches: pd.DataFrame, projected: np.ndarray | None, at_clock: np.ndarray | None
) -> pd.DataFrame:
    """Mean seconds per launch of each (kernel_short, grid, block), in launch order."""
    frame = pd.DataFrame(
        {
            "kernel_short": launches["kernel_short"].astype(str),
            "grid": launches["grid"].astype(str),
            "block": launches["block"].astype(str),
            "measured_s": floats(launches["duration_s"]),
            "order": np.arange(len(launches)),
            "launches": 1,
        }
    )
    if projected is not None and at_clock is not None:
        frame["projected_s"] = projected
        frame["at_clock_s"] = at_clock
        frame["bound"] = launches["bound"].astype(str)
        frame["basis"] = launches["projection_basis"].astype(str)
    agg: dict[str, tuple[str, str]] = {
        c: (c, "mean") for c in ("measured_s", "projected_s", "at_clock_s") if c in frame
    }
    agg |= {"order": ("order", "min"), "launches": ("launches", "sum")}
    if "bound" in frame:
        agg |= {"bound": ("bound", "first"), "basis": ("basis", "first")}
    return frame.groupby(["kernel_short", "grid", "block"], sort=False).agg(**agg).reset_index()


if __name__ == "__main__":
    raise SystemExit(main())
