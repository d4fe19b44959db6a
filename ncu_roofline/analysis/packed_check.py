"""Packed FP32 work the export did not count.

Blackwell data-center chips (CC 10.x) execute packed FP32 instructions
(``FADD2``, ``FMUL2``, ``FFMA2``: two lanes each), which ncu counts in
``sass_thread_inst_executed_op_{fadd2,fmul2,ffma2}_pred_on`` and its own FP
roofline weighs 2, 2 and 4 FLOPs.  An export of such a chip with the FFMA
counters but not the packed ones misses that work without a sign of it: the
measures mark those launches' FP32 basis
(:data:`~ncu_roofline.analysis.measures.PACKED_FP32_MISSING`) and this
module turns the marks into one finding per input and compute capability.
"""

from __future__ import annotations

import pandas as pd

from ncu_roofline.analysis.measures import PACKED_FP32_MISSING


def packed_fp32_uncounted(launches: pd.DataFrame) -> list[tuple[str | None, str, str]]:
    """``fp32-packed-uncounted`` findings as (kernel or None, message, source), one per input and CC."""
    if "flops_fp32_basis" not in launches:
        return []
    basis = launches["flops_fp32_basis"].astype(object).fillna("").astype(str)
    marked = launches[basis.str.endswith(PACKED_FP32_MISSING).to_numpy(dtype=bool)]
    out: list[tuple[str | None, str, str]] = []
    keys = marked[["source", "cc"]].astype(object).fillna("")
    for (source, cc), rows in marked.groupby([keys["source"], keys["cc"]], sort=False):
        kernels = pd.unique(rows["kernel"].astype(object))
        message = (
            f"FP32 work may be undercounted: the GPU (CC {cc}) executes packed FP32 "
            f"(FADD2/FMUL2/FFMA2), but {len(rows)} launch(es) of {len(kernels)} kernel(s) have "
            "FFMA counters and no packed ones. Collect "
            "sm__sass_thread_inst_executed_op_{fadd2,fmul2,ffma2}_pred_on.sum "
            "(2, 2 and 4 FLOPs each)."
        )
        out.append((str(kernels[0]) if len(kernels) == 1 else None, message, str(source)))
    return out
