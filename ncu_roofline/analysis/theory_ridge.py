"""Where a model's phase turns compute-bound on a GPU: its ridge crossing.

A forward pass's arithmetic intensity is its FLOPs over its minimal bytes,
both summed over its ops times their counts (the ``theory`` table's
per-pass ``flops`` and ``bytes``).  In decode it grows with the batch (the
weights are read once for every sequence), in prefill with the prompt
length (every weight meets ``batch x seq`` tokens).  The ridge crossing is
the least batch (decode) or sequence length (prefill), the other shapes
held, at which that intensity reaches the GPU's ridge point: the dense
datasheet peak of the model's matrix precision (``tensor_bf16`` for bf16,
by :func:`~ncu_roofline.analysis.theory_table.peak_for`'s rule) over its
DRAM bandwidth.

The search doubles the value from 1 until the intensity reaches the ridge,
then bisects between the last value below and the first at or above it;
it gives up past :data:`SEARCH_LIMIT` (``None``: the phase stays
memory-bound, as decode over a long context does, its KV-cache reads
growing with the batch as fast as its FLOPs).  The theory page repeats this
arithmetic step for step in JavaScript, so the two agree.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ncu_roofline.analysis.options import RidgeCrossing
from ncu_roofline.analysis.theory_table import peak_for
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.theory.models import ModelConfig, expand_model
from ncu_roofline.theory.ops import canonical_dtype
from ncu_roofline.theory.ops.dtypes import matmul_precision

__all__ = ["SEARCH_LIMIT", "RidgeCrossing", "pass_intensity", "ridge_crossing"]

#: Largest batch or sequence length the search tries (2**20).
SEARCH_LIMIT = 1 << 20


def pass_intensity(
    cfg: ModelConfig,
    phase: str,
    batch: int,
    seq: int,
    dtype: str = "bf16",
    kv_dtype: str | None = None,
    tp: int = 1,
) -> float:
    """FLOPs over minimal bytes of one forward pass (sums of the ops times their counts)."""
    flops = nbytes = 0.0
    for op in expand_model(cfg, phase, batch, seq, dtype, kv_dtype, tp):
        flops += op.estimate.flops * op.count
        nbytes += op.estimate.bytes * op.count
    return flops / nbytes if nbytes > 0 else math.nan


def _least(reaches: Callable[[int], bool]) -> int | None:
    """The least x in [1, SEARCH_LIMIT] with ``reaches(x)``, assuming it stays true above."""
    if reaches(1):
        return 1
    lo, hi = 1, 2
    while not reaches(hi):
        if hi >= SEARCH_LIMIT:
            return None
        lo, hi = hi, min(2 * hi, SEARCH_LIMIT)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if reaches(mid):
            hi = mid
        else:
            lo = mid
    return hi


def ridge_crossing(
    cfg: ModelConfig,
    spec: GpuSpec,
    phase: str,
    batch: int,
    seq: int,
    dtype: str = "bf16",
    kv_dtype: str | None = None,
    tp: int = 1,
) -> RidgeCrossing:
    """Where ``cfg``'s ``phase`` turns compute-bound on ``spec`` (see the module)."""
    mode = str(phase).strip().lower()
    over = "batch" if mode == "decode" else "seq"
    dt = canonical_dtype(dtype)
    peak, key = peak_for(spec, matmul_precision(dt, dt))
    bw = spec.memory.get("dram")
    here = pass_intensity(cfg, mode, batch, seq, dt, kv_dtype, tp)
    out: RidgeCrossing = {
        "over": over,
        "value": None,
        "ridge": None,
        "precision": key,
        "intensity": here if math.isfinite(here) else None,
        "searched_to": SEARCH_LIMIT,
    }
    if not peak or not bw:
        return out
    ridge = peak / bw
    out["ridge"] = ridge

    def reaches(x: int) -> bool:
        b, s = (x, seq) if over == "batch" else (batch, x)
        return pass_intensity(cfg, mode, b, s, dt, kv_dtype, tp) >= ridge

    out["value"] = _least(reaches)
    return out
