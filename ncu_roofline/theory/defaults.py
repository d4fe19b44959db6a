"""The defaults of the theory inputs, apart from the model table.

Design: the command line shows these defaults in every data command's
``--help``; kept here, with no import, so that building its options loads
neither the op library nor the model table (:mod:`ncu_roofline.theory.models`,
which :mod:`ncu_roofline.theory.config` imports).
"""

from __future__ import annotations

__all__ = ["BATCH", "DTYPE", "EXCESS_THRESHOLD", "MIN_TIME_SHARE", "PHASE", "SEQ", "TP"]

#: Model phase.
PHASE = "decode"
#: Sequences per step.
BATCH = 1
#: Context length (decode) or prompt length (prefill).
SEQ = 2048
#: Weights and activations dtype.
DTYPE = "bf16"
#: Tensor-parallel ranks.
TP = 1
#: byte_excess at or above this raises an ``excess-traffic`` finding ...
EXCESS_THRESHOLD = 2.0
#: ... for kernel groups with at least this share of the profiled time.
MIN_TIME_SHARE = 0.01
