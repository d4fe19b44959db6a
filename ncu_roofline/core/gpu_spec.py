"""The GPU roof model: the roof vocabulary and the records a GPU and an
architecture's per-SM rates are read into, in SI units.

:mod:`ncu_roofline.core.roofs_file` reads them from TOML (the built-in table
and user roofs files); :mod:`ncu_roofline.core.hardware` holds the built-in
table and looks GPUs up in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypedDict

COMPUTE_KEYS: tuple[str, ...] = (
    "fp64",
    "fp32",
    "fp16",
    "tensor_fp64",
    "tensor_tf32",
    "tensor_fp16",
    "tensor_bf16",
    "tensor_fp8",
    "tensor_int8",
    "tensor_fp4",
)
MEMORY_KEYS: tuple[str, ...] = ("dram", "l2", "l1")

#: How compute roofs follow the clock: scaled to the SM clock an export
#: measured, or kept at the datasheet's (``analyze(clocks=...)``, ``--clocks``).
CLOCK_MODES: tuple[str, ...] = ("measured", "datasheet")

#: A compute capability as the tables write it: ``"9.0"``.
CC_PATTERN = re.compile(r"^\d+\.\d+$")


class GpuRecord(TypedDict):
    """One GPU of the table (``GpuSpec.to_dict()``): its datasheet figures, SI units."""

    key: str
    name: str
    arch: str | None
    cc: str | None
    sms: int | None
    boost_hz: float | None
    base_hz: float | None
    tensor_hz: float | None
    compute: dict[str, float]
    memory: dict[str, float]
    dram_bytes: float | None
    match: list[str]
    source: str
    notes: str
    unsure: list[str]
    derived: list[str]
    disputed: list[str]
    origin: str
    vendor: str
    theory_only: bool


@dataclass(frozen=True)
class GpuSpec:
    """Peak roofs of one GPU, in SI units.

    ``compute`` maps keys of :data:`COMPUTE_KEYS` to FLOP/s (``tensor_int8``:
    OP/s) and ``memory`` maps keys of :data:`MEMORY_KEYS` to bytes/s; a key is
    present only where the figure is known.  ``unsure``, ``derived`` and
    ``disputed`` use the same keys, plus the field names ``sms``,
    ``boost_hz``, ``base_hz``, ``tensor_hz`` and ``dram_bytes``.

    ``theory_only`` marks a device Nsight Compute cannot profile (a Google
    TPU, an AMD Instinct GPU): it has no compute capability and no ``match``
    patterns, serves ``theory`` only, and is refused where a profile is
    judged (:func:`~ncu_roofline.core.hardware.refuse_theory_only`).
    ``vendor`` is who makes it, lower case (``nvidia``, ``google``, ``amd``).
    """

    key: str
    name: str
    arch: str | None
    cc: str | None
    sms: int | None
    boost_hz: float | None
    base_hz: float | None
    tensor_hz: float | None
    compute: dict[str, float] = field(hash=False)
    memory: dict[str, float] = field(hash=False)
    match: tuple[str, ...]
    source: str
    notes: str
    unsure: tuple[str, ...]
    derived: tuple[str, ...]
    disputed: tuple[str, ...]
    origin: str
    # DRAM capacity as marketed (GB x 1e9): a label for reports, not a roof.
    dram_bytes: float | None = None
    vendor: str = "nvidia"
    theory_only: bool = False

    def clock_for(self, key: str) -> float | None:
        """The clock (Hz) that the figure under ``key`` assumes, if known.

        Tensor figures assume ``tensor_hz`` where the vendor quotes a lower
        tensor clock, else ``boost_hz``.  FP64 tensor (DMMA) figures are the
        exception: on Hopper and Blackwell they reproduce at the boost clock,
        not at the lower clock of the other tensor figures.  DRAM bandwidth
        does not depend on the SM clock, so ``dram`` gives None; ``l2`` and
        ``l1`` are per-clock figures taken at the boost clock.
        """
        if key in COMPUTE_KEYS:
            if key.startswith("tensor_") and key != "tensor_fp64":
                return self.tensor_hz if self.tensor_hz is not None else self.boost_hz
            return self.boost_hz
        if key == "dram":
            return None
        if key in MEMORY_KEYS:
            return self.boost_hz
        raise ValueError(
            f"unknown roof key {key!r}; expected one of {', '.join(COMPUTE_KEYS + MEMORY_KEYS)}"
        )

    def to_dict(self) -> GpuRecord:
        """Plain JSON-able data: SI units, lists instead of tuples."""
        return {
            "key": self.key,
            "name": self.name,
            "arch": self.arch,
            "cc": self.cc,
            "sms": self.sms,
            "boost_hz": self.boost_hz,
            "base_hz": self.base_hz,
            "tensor_hz": self.tensor_hz,
            "compute": dict(self.compute),
            "memory": dict(self.memory),
            "dram_bytes": self.dram_bytes,
            "match": list(self.match),
            "source": self.source,
            "notes": self.notes,
            "unsure": list(self.unsure),
            "derived": list(self.derived),
            "disputed": list(self.disputed),
            "origin": self.origin,
            "vendor": self.vendor,
            "theory_only": self.theory_only,
        }


@dataclass(frozen=True)
class ArchRates:
    """Dense peak throughput per SM per clock of one architecture variant.

    ``per_sm_per_clock`` uses the :data:`COMPUTE_KEYS` vocabulary (FLOP per
    clock per SM; ``tensor_int8``: OP).  ``geforce`` marks the consumer
    variant whose FP32-accumulate tensor rates are halved.
    """

    key: str
    cc: tuple[str, ...]
    geforce: bool
    description: str
    per_sm_per_clock: dict[str, float] = field(hash=False)
    # Keys (COMPUTE_KEYS vocabulary) whose rate is inferred, not verified.
    unsure: tuple[str, ...] = ()
