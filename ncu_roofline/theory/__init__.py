"""Theoretical FLOPs and minimal DRAM bytes, and their comparison with ncu.

:mod:`~ncu_roofline.theory.ops` is the op library (GEMM, attention, norms,
...); :mod:`~ncu_roofline.theory.models` expands a transformer config into
the ops of one forward pass.

Design: the names below are imported from their modules on first use
(PEP 562).  The command line reads option defaults from the package's light
modules (:mod:`.defaults`, :mod:`.phases`), and importing one of them runs this
file: building the op library and the model table here would cost every
command that reads a profile about 20 ms at start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
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

#: Public name -> the module that defines it.
_HOMES = {
    **dict.fromkeys(
        (
            "ModelConfig",
            "ModelOp",
            "builtin_models",
            "expand_model",
            "find_model",
            "load_model_config",
        ),
        "ncu_roofline.theory.models",
    ),
    **dict.fromkeys(
        (
            "DTYPE_BYTES",
            "OPS",
            "OpEstimate",
            "OpSpec",
            "ParamSpec",
            "TheoryError",
            "estimate",
            "parse_op_spec",
        ),
        "ncu_roofline.theory.ops",
    ),
}

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


__getattr__, __dir__ = lazy_attributes(globals(), _HOMES)
