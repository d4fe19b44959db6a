"""Tensor-core work the export did not count.

A tensor-core GEMM exported without tensor counters (no
``sm__ops_path_tensor_*``, no ``sm__inst_executed_pipe_tensor`` counts) still
has SASS FLOP counts: the FP32 or FP16 instructions of its epilogue.  Placed
by those alone it looks like a kernel doing almost nothing ("latency-bound at
2%"), which says more about the export than about the kernel.

Evidence of tensor-core work, per launch:

* a tensor-pipe utilisation of at least :data:`TENSOR_PIPE_MIN_PCT` percent
  (``sm__pipe_tensor_cycles_active``, ``sm__pipe_tensor_op_hmma_cycles_active``,
  ``sm__inst_executed_pipe_tensor_*`` as ``.pct_of_peak_sustained_*``).
  The cut is 5%, not "any": HFMA2.MMA register moves keep the pipe at a few
  hundredths of a percent (the real A100 n-body export), and a PyTorch
  random-number kernel shows 1.2%; under 5% the uncounted work is under 5%
  of the tensor roof, too little to change the verdict of a kernel that
  is not a matrix product, or
* a tensor-pipe utilisation of at least :data:`TENSOR_PIPE_TRACE_PCT`
  percent in a kernel of a matrix family (GEMM, convolution, attention,
  by :func:`~ncu_roofline.theory.families.classify`): there a little
  tensor work is likely the whole product, memory-bound, or
* a kernel name that says so (:func:`~ncu_roofline.analysis.tensor_names.is_tensor_kernel_name`),
  unless the export measured the tensor pipe and found it idle (under
  :data:`TENSOR_PIPE_TRACE_PCT`): a CUTLASS Volta ``mma.sync.m8n8k4`` GEMM
  on a GPU that runs it on the FMA pipes is named TensorOp but does no
  tensor-core work, or
* tensor instructions counted without a FLOPs-per-instruction factor.

Where there is evidence and no tensor FLOP count, the launch is marked
``tensor_uncounted`` and not placed; the finding names the metrics that
would count the work on the launch's architecture.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ncu_roofline.analysis.advice import ATTENTION_FAMILIES, GEMM_FAMILIES
from ncu_roofline.analysis.tensor_names import is_tensor_kernel_name
from ncu_roofline.core.frame import Columns, floats
from ncu_roofline.core.grouping import distinct_codes, per_distinct, text_mask
from ncu_roofline.core.metrics import (
    TENSOR_PIPE_UTILISATION,
    TENSOR_SECTION,
    tensor_metrics_to_collect,
)
from ncu_roofline.theory.families import classify

if TYPE_CHECKING:
    import pandas as pd

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]
BoolArray = npt.NDArray[np.bool_]

#: Tensor-pipe utilisation (percent of peak) from which any launch counts as
#: having done tensor-core work that matters.
TENSOR_PIPE_MIN_PCT = 5.0
#: Tensor-pipe utilisation (percent of peak) under which the pipe is idle; from
#: it, a matrix-family kernel counts as having done tensor-core work.
TENSOR_PIPE_TRACE_PCT = 1.0
#: Kernel families whose work is a matrix product (GEMM, convolution, attention).
MATRIX_FAMILIES = GEMM_FAMILIES | ATTENTION_FAMILIES | {"attention_decode"}

#: Kernels a finding names before it says "and N more".
NAMED_KERNELS = 3


def _pipe_utilisation(df: Columns) -> tuple[FloatArray, ObjArray]:
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


def _named(df: Columns) -> tuple[BoolArray, BoolArray]:
    """Launches whose kernel name says tensor cores, and those of a matrix family.

    Each distinct name is read once.
    """
    if "kernel" not in df:
        none = np.zeros(len(df), dtype=bool)
        return none, none.copy()

    def says_tensor(name: object) -> bool:
        return is_tensor_kernel_name(str(name))

    def matrix_family(name: object) -> bool:
        return classify(str(name)).family in MATRIX_FAMILIES

    names = df["kernel"]
    tensor = per_distinct(names, says_tensor, says_tensor(""), bool)
    matrix = per_distinct(names, matrix_family, matrix_family(""), bool)
    return tensor, matrix


def tensor_uncounted(
    df: Columns, flops_tensor: FloatArray, tensor_basis: ObjArray
) -> tuple[BoolArray, ObjArray]:
    """Per launch: tensor-core work present but not counted, and the evidence for it.

    ``df`` is the launch model (kernel names and the metrics of the export);
    ``flops_tensor`` and ``tensor_basis`` are the measured tensor FLOPs
    (NaN where nothing counted them) and their basis.  The basis text is
    None where the launch is not marked.
    """
    util, metric = _pipe_utilisation(df)
    tensor_name, matrix_name = _named(df)
    with np.errstate(invalid="ignore"):
        trace = util >= TENSOR_PIPE_TRACE_PCT
        idle = util < TENSOR_PIPE_TRACE_PCT
        busy = (util >= TENSOR_PIPE_MIN_PCT) | (trace & matrix_name)
    named = tensor_name & ~idle
    no_factor = text_mask(tensor_basis, lambda t: t.startswith("tensor instructions without"))
    marked = (busy | named | no_factor) & np.isnan(flops_tensor)
    basis = np.full(len(df), None, dtype=object)
    basis[marked & named] = "the kernel name says tensor cores"
    basis[marked & no_factor] = "tensor instructions without a FLOPs-per-instruction factor"
    rows = marked & busy
    # Each distinct busy share written once (as pandas writes a float: "12.5").
    shares, at = np.unique(np.round(util[rows], 1), return_inverse=True)
    pct = np.array([str(float(v)) for v in shares] or [""], dtype=object)[at.reshape(-1)]
    basis[rows] = "tensor pipe " + pct + "% busy (" + metric[rows] + ")"
    both = rows & named
    basis[both] = basis[both] + " and the kernel name says tensor cores"
    return marked, basis


def collect_advice(cc: str | None) -> str:
    """The ncu options that count tensor work on compute capability ``cc``."""
    metrics = tensor_metrics_to_collect(cc)
    section = f"--section {TENSOR_SECTION}"
    if not metrics:
        return f"{section} (ncu --query-metrics lists the sm__ops_path_tensor_* names of this GPU)"
    return f"--metrics {','.join(metrics)} (or {section})"


def evidence_phrase(basis: ObjArray | pd.Series) -> str:
    """One phrase for the evidence of a group of launches: the most common basis (of
    equally common ones, the first seen)."""
    # Counted over codes, numbered in order of first appearance: the first
    # largest count is the first seen of the most common.
    codes, bases = distinct_codes(basis)
    held = codes[codes >= 0]
    if not held.size:
        return "tensor-core evidence"
    return str(bases[int(np.argmax(np.bincount(held, minlength=len(bases))))])
