"""The theory inputs of one analysis and how theory is judged against the measurement.

Design: kept apart from :mod:`ncu_roofline.theory.assign` (which joins theory
to launches with pandas) so that the command line can build its options from
these defaults without importing pandas (nor the op library: the
estimates file and model modules are imported where they are used).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ncu_roofline.theory.estimates import TheoryFile
    from ncu_roofline.theory.models import ModelConfig, ModelOp


@dataclass
class TheoryConfig:
    """Where theory comes from and how it is judged."""

    file: TheoryFile | None = None
    model: ModelConfig | None = None
    phase: str = "decode"
    batch: int = 1
    seq: int = 2048
    dtype: str = "bf16"
    kv_dtype: str | None = None
    tp: int = 1
    #: byte_excess at or above this raises an ``excess-traffic`` finding ...
    excess_threshold: float = 2.0
    #: ... for kernel groups with at least this share of the profiled time.
    min_time_share: float = 0.01
    _ops: list[ModelOp] | None = field(default=None, repr=False)

    def model_ops(self) -> list[ModelOp]:
        """The model's ops for the configured phase and shapes (cached)."""
        if self.model is None:
            return []
        if self._ops is None:
            # Here, not at the top: the command line reads this class's
            # defaults for every data command's --help, and the model table
            # (9 ms of a 56 ms import of the options) is only needed with a model.
            from ncu_roofline.theory.models import expand_model

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
