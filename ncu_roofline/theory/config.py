"""The theory inputs of one analysis and how theory is judged against the measurement.

Design: kept apart from :mod:`ncu_roofline.theory.assign` (which joins theory
to launches with pandas); the defaults live in :mod:`ncu_roofline.theory.defaults`,
which the command line builds its options from without importing the op
library and model table that this module needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ncu_roofline.theory import defaults
from ncu_roofline.theory.models import ModelConfig, ModelOp, expand_model

if TYPE_CHECKING:
    from ncu_roofline.theory.estimates import TheoryFile


@dataclass
class TheoryConfig:
    """Where theory comes from and how it is judged."""

    file: TheoryFile | None = None
    model: ModelConfig | None = None
    phase: str = defaults.PHASE
    batch: int = defaults.BATCH
    seq: int = defaults.SEQ
    dtype: str = defaults.DTYPE
    kv_dtype: str | None = None
    tp: int = defaults.TP
    #: byte_excess at or above this raises an ``excess-traffic`` finding ...
    excess_threshold: float = defaults.EXCESS_THRESHOLD
    #: ... for kernel groups with at least this share of the profiled time.
    min_time_share: float = defaults.MIN_TIME_SHARE
    _ops: list[ModelOp] | None = field(default=None, repr=False)

    def model_ops(self) -> list[ModelOp]:
        """The model's ops for the configured phase and shapes (cached)."""
        if self.model is None:
            return []
        if self._ops is None:
            self._ops = expand_model(
                self.model,
                phase=self.phase,
                batch=self.batch,
                seq=self.seq,
                dtype=self.dtype,
                kv_dtype=self.kv_dtype,
                tp=self.tp,
            )
        return self._ops

    def describe(self) -> dict[str, Any]:
        """Plain data for the report's options."""
        out: dict[str, Any] = {
            "file": self.file.path if self.file else None,
            "excess_threshold": self.excess_threshold,
            "min_time_share": self.min_time_share,
        }
        if self.model is not None:
            out["model"] = {
                "key": self.model.key,
                "name": self.model.name,
                "source": self.model.source,
                "phase": self.phase,
                "batch": self.batch,
                "seq": self.seq,
                "dtype": self.dtype,
                "kv_dtype": self.kv_dtype,
                "tp": self.tp,
            }
        return out


__all__ = ["TheoryConfig"]
