"""Tensor-core work the export did not count.

A tensor-core GEMM exported without tensor counters (no
``sm__ops_path_tensor_*``, no ``sm__inst_executed_pipe_tensor`` counts) still
has SASS FLOP counts: the FP32 or FP16 instructions of its epilogue.  Placed
by those alone it looks like a kernel doing almost nothing ("latency-bound at
2%"), which says more about the export than about the kernel.

Evidence of tensor-core work, per launch:

* a tensor-pipe utilisation of at least :data:`TENSOR_PIPE_MIN_PCT` percent
  (``sm__pipe_tensor_cycles_active``, ``sm__pipe_tensor_op_hmma_cycles_active``,
  ``sm__inst_executed_pipe_tensor_*`` as ``.pct_of_peak_sustained_*``;
  HFMA2.MMA register moves keep it at a few hundredths of a percent, as on
  the real A100 n-body export), or
* a kernel name that says so (:func:`~ncu_roofline.analysis.tensor_names.is_tensor_kernel_name`),
  unless the export measured the tensor pipe and found it idle: a CUTLASS
  Volta ``mma.sync.m8n8k4`` GEMM on a GPU that runs it on the FMA pipes is
  named TensorOp but does no tensor-core work, or
* tensor instructions counted without a FLOPs-per-instruction factor.

Where there is evidence and no tensor FLOP count, the launch is marked
``tensor_uncounted`` and not placed; the finding names the metrics that
would count the work on the launch's architecture.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.analysis.tensor_names import is_tensor_kernel_name
from ncu_roofline.core.frame import floats
from ncu_roofline.core.metrics import (
    TENSOR_PIPE_UTILISATION,
    TENSOR_SECTION,
    tensor_metrics_to_collect,
)

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]
BoolArray = npt.NDArray[np.bool_]

#: Tensor-pipe utilisation (percent of peak) from which a launch counts as
#: having done tensor-core work.
TENSOR_PIPE_MIN_PCT = 1.0

#: Kernels a finding names before it says "and N more".
NAMED_KERNELS = 3


def _pipe_utilisation(df: pd.DataFrame) -> tuple[FloatArray, ObjArray]:
    """Per launch, the highest tensor-pipe utilisation (percent) and the metric it is from."""
    n = len(df)
    best = np.full(n, np.nan)
    metric = np.full(n, None, dtype=object)
    for name in sorted(str(c) for c in df.columns if TENSOR_PIPE_UTILISATION.match(str(c))):
        values = floats(df[name])
        take = ~np.isnan(values) & ~(values <= best)
        best[take] = values[take]
        metric[take] = name
    return best, metric


def _named(df: pd.DataFrame) -> BoolArray:
    """Launches whose kernel name says tensor cores (decided once per distinct name)."""
    if "kernel" not in df:
        return np.zeros(len(df), dtype=bool)
    names = df["kernel"].astype(object).fillna("").astype(str)
    hits = {u for u in pd.unique(names) if is_tensor_kernel_name(u)}
    return names.isin(hits).to_numpy(dtype=bool)


def tensor_uncounted(
    df: pd.DataFrame, flops_tensor: FloatArray, tensor_basis: ObjArray
) -> tuple[BoolArray, ObjArray]:
    """Per launch: tensor-core work present but not counted, and the evidence for it.

    ``df`` is the launch model (kernel names and the metrics of the export);
    ``flops_tensor`` and ``tensor_basis`` are the measured tensor FLOPs
    (NaN where nothing counted them) and their basis.  The basis text is
    None where the launch is not marked.
    """
    util, metric = _pipe_utilisation(df)
    busy = util >= TENSOR_PIPE_MIN_PCT
    idle = util < TENSOR_PIPE_MIN_PCT
    named = _named(df) & ~idle
    no_factor = (
        pd.Series(tensor_basis, dtype=object)
        .str.startswith("tensor instructions without", na=False)
        .to_numpy(dtype=bool)
    )
    marked = (busy | named | no_factor) & np.isnan(flops_tensor)
    basis = np.full(len(df), None, dtype=object)
    pct = pd.Series(util).round(1).astype(str).to_numpy(dtype=object)
    basis[marked & named] = "the kernel name says tensor cores"
    basis[marked & no_factor] = "tensor instructions without a FLOPs-per-instruction factor"
    rows = marked & busy
    basis[rows] = "tensor pipe " + pct[rows] + "% busy (" + metric[rows] + ")"
    both = rows & named
    basis[both] = basis[both] + " and the kernel name says tensor cores"
    return marked, basis


def _collect_advice(cc: str | None) -> str:
    """The ncu options that count tensor work on compute capability ``cc``."""
    metrics = tensor_metrics_to_collect(cc)
    section = f"--section {TENSOR_SECTION}"
    if not metrics:
        return f"{section} (ncu --query-metrics lists the sm__ops_path_tensor_* names of this GPU)"
    return f"--metrics {','.join(metrics)} (or {section})"


def uncounted_tensor_work(launches: pd.DataFrame) -> list[tuple[str | None, str, str]]:
    """``tensor-uncounted`` findings as (kernel or None, message, source), one per input and CC.

    The message names the kernels and the ncu options that would count
    their tensor work on that architecture.
    """
    if "tensor_uncounted" not in launches:
        return []
    marked = launches[launches["tensor_uncounted"].fillna(False).astype(bool)]
    out: list[tuple[str | None, str, str]] = []
    keys = marked[["source", "cc"]].astype(object).fillna("")
    for (source, cc), rows in marked.groupby([keys["source"], keys["cc"]], sort=False):
        kernels = pd.unique(rows["kernel"].astype(object))
        shorts = pd.unique(rows["kernel_short"].astype(object))
        names = ", ".join(str(k) for k in shorts[:NAMED_KERNELS])
        more = f" and {len(shorts) - NAMED_KERNELS} more" if len(shorts) > NAMED_KERNELS else ""
        evidence = _evidence(rows["tensor_uncounted_basis"])
        where = f" (CC {cc})" if cc else ""
        message = (
            f"{len(rows)} launch(es) of {len(shorts)} kernel(s) show tensor-core work ({evidence}) "
            f"that no tensor counter of the export counts: {names}{more}. Their FLOPs would be "
            "only the FP32/FP16 instructions around the MMAs, so they are not placed. Collect the "
            f"tensor counters{where}: {_collect_advice(str(cc) if cc else None)}."
        )
        out.append((str(kernels[0]) if len(kernels) == 1 else None, message, str(source)))
    return out


def _evidence(basis: pd.Series) -> str:
    """One phrase for the evidence of a group of launches: the most common basis."""
    counts = basis.astype(object).dropna().value_counts()
    return str(counts.index[0]) if len(counts) else "tensor-core evidence"
