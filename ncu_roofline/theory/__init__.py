"""Theoretical FLOPs and minimal DRAM bytes, and their comparison with ncu.

:mod:`~ncu_roofline.theory.ops` is the op library (GEMM, attention, norms,
...); :mod:`~ncu_roofline.theory.models` expands a transformer config into
the ops of one forward pass.
"""

from ncu_roofline.theory.models import (
    ModelConfig,
    ModelOp,
    builtin_models,
    expand_model,
    find_model,
    load_model_config,
)
from ncu_roofline.theory.ops import (
    DTYPE_BYTES,
    OPS,
    OpEstimate,
    OpSpec,
    ParamSpec,
    TheoryError,
    estimate,
    parse_op_spec,
)

__all__ = [
    "DTYPE_BYTES",
    "OPS",
    "ModelConfig",
    "ModelOp",
    "OpEstimate",
    "OpSpec",
    "ParamSpec",
    "TheoryError",
    "builtin_models",
    "estimate",
    "expand_model",
    "find_model",
    "load_model_config",
    "parse_op_spec",
]
