"""Theoretical FLOPs and minimal DRAM bytes of common GPU operations.

Each op of :data:`OPS` turns a few shape parameters into an
:class:`OpEstimate`: the FLOPs the algorithm must do and the bytes it must
move between DRAM and the chip.  The conventions, used by every op:

* one multiply-add is 2 FLOPs (a GEMM is ``2·M·N·K``); integer math counts
  the same way, as OPs against the INT8 ceiling;
* a transcendental (exp, tanh, rsqrt, erf) is 1 FLOP.  That figure is
  nominal: such functions run on the SFU and Nsight Compute's FP counters do
  not see them, so memory-bound ops should be judged by their bytes;
* minimal bytes read every input tensor once and write every output tensor
  once: perfect on-chip reuse inside one kernel, a cold cache between kernels.
  No re-reads, spills, split-K partials or workspace.

The minimal bytes are therefore a lower bound on what a kernel moves and the
resulting arithmetic intensity an upper bound on the DRAM intensity it can
reach (unless its inputs are still in L2 from an earlier kernel).

Use :func:`estimate` (keyword parameters) or :func:`parse_op_spec` (the
``gemm:M=4096,N=4096,K=4096,dtype=fp16`` form of the command line).

Layout: :mod:`.dtypes` (element sizes, canonical names), :mod:`.params`
(declaring parameters and binding values to them), :mod:`.registry`
(:class:`OpSpec`, :class:`OpEstimate`, :func:`estimate`), and the ops by
kind -- :mod:`.gemm`, :mod:`.attention`, :mod:`.elementwise`,
:mod:`.memory` -- each op's spec registered right above its formula.
"""

from __future__ import annotations

# isort: off
# Each op module registers its ops when imported: this order is the order of
# OPS, of ``ncu-roofline theory --list`` and of the "known ops" in errors.
from ncu_roofline.theory.ops import gemm as gemm
from ncu_roofline.theory.ops import attention as attention
from ncu_roofline.theory.ops import elementwise as elementwise
from ncu_roofline.theory.ops import memory as memory

# isort: on
from ncu_roofline.theory.ops.dtypes import DTYPE_BYTES, canonical_dtype, dtype_bytes
from ncu_roofline.theory.ops.errors import TheoryError
from ncu_roofline.theory.ops.params import AUTO, Derived, ParamSpec
from ncu_roofline.theory.ops.registry import OPS, OpEstimate, OpSpec, estimate, parse_op_spec

__all__ = [
    "AUTO",
    "DTYPE_BYTES",
    "OPS",
    "Derived",
    "OpEstimate",
    "OpSpec",
    "ParamSpec",
    "TheoryError",
    "canonical_dtype",
    "dtype_bytes",
    "estimate",
    "parse_op_spec",
]
