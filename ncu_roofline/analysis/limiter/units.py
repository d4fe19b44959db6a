"""The units a launch can be limited by, and the ncu metrics that measure each.

Plain data: the pages and messages that name a unit read it without pandas.

Every pipe ncu reports is a unit of its own (keys lowercase, pipes ending
in ``-pipe``), read from its busy cycles (``sm__pipe_X_cycles_active``) or
its issued instructions (``sm__inst_executed_pipe_X``), sm before smsp and
of elapsed cycles before active ones.  Sub-pipes fold into their pipe,
which is as busy as its busiest part: ``fmaheavy``/``fmalite`` into
``fma-pipe`` (one saturated half limits FP32 work), ``aluheavy`` into
``alu-pipe``, Blackwell's ``tc`` and the HMMA/IMMA sub-pipes into
``tensor-pipe``.  Volta and Turing's ``shared`` pipe (FP16 and tensor) is
``shared-pipe``.  The issue stage is ``issue`` (``sm__inst_issued``,
``smsp__issue_active``, ``sm__instruction_throughput``,
``sm__inst_executed``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Speed-of-light metrics whose presence lets "every unit is idle" mean latency.
SOL_METRICS = (
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
)


@dataclass(frozen=True)
class Unit:
    """A unit a launch can be limited by, and the ncu metrics that measure it.

    ``parts`` are the unit's sub-units (the FMA pipe's heavy and lite
    halves), each a tuple of spellings of one utilisation, most direct first;
    the first spelling a launch has stands for its part, and the unit is as
    busy as its busiest part.
    """

    key: str
    label: str
    parts: tuple[tuple[str, ...], ...]
    composite: bool = False

    @property
    def metrics(self) -> tuple[str, ...]:
        """Every metric id that measures the unit, part by part."""
        return tuple(name for part in self.parts for name in part)


def _pipe(name: str) -> tuple[str, ...]:
    """The spellings ncu versions use for one pipe's utilisation.

    Busy cycles before issued instructions, sm before smsp, and elapsed
    before active cycles: an ``_active`` figure must be rescaled by the SM's
    active share, an ``_elapsed`` one is already on the common time base.
    """
    out: list[str] = []
    for prefix in ("sm", "smsp"):
        for form in (f"pipe_{name}_cycles_active", f"inst_executed_pipe_{name}"):
            for base in ("elapsed", "active"):
                for agg in ("avg", "sum"):
                    out.append(f"{prefix}__{form}.{agg}.pct_of_peak_sustained_{base}")
    return tuple(out)


def _pipes(*names: str) -> tuple[tuple[str, ...], ...]:
    """One part per named (sub-)pipe."""
    return tuple(_pipe(n) for n in names)


def _issue() -> tuple[str, ...]:
    """The issue stage's utilisation: issued instructions, issue-active cycles, ncu's summary."""
    out: list[str] = []
    for base in ("elapsed", "active"):
        for name in (
            "sm__inst_issued",
            "smsp__issue_active",
            "smsp__inst_issued",
            "sm__instruction_throughput",
            "sm__issue_active",
            "sm__inst_executed",
            "smsp__inst_executed",
        ):
            out.append(f"{name}.avg.pct_of_peak_sustained_{base}")
    return tuple(out)


UNITS: tuple[Unit, ...] = (
    Unit(
        "dram",
        "DRAM",
        (
            (
                "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
                "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            ),
        ),
    ),
    Unit("l2", "L2", (("lts__throughput.avg.pct_of_peak_sustained_elapsed",),)),
    Unit(
        "l1",
        "L1/TEX",
        (
            (
                "l1tex__throughput.avg.pct_of_peak_sustained_active",
                "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
            ),
        ),
    ),
    # FMA: the whole pipe and its heavy (FP32 and IMAD) and lite (FP32 only)
    # halves since Ampere; one half saturated limits FP32 work.
    Unit("fma-pipe", "FMA pipe", _pipes("fma", "fmaheavy", "fmalite")),
    Unit("alu-pipe", "ALU pipe", _pipes("alu", "aluheavy")),
    Unit("fp64-pipe", "FP64 pipe", _pipes("fp64", "dmma")),
    Unit("fp16-pipe", "FP16 pipe", _pipes("fp16")),
    Unit("lsu-pipe", "LSU pipe", _pipes("lsu")),
    Unit("xu-pipe", "XU pipe (special functions)", _pipes("xu")),
    # Blackwell's tensor pipe is ``tc``; Volta-to-Hopper's ``tensor`` (with
    # the HMMA and IMMA sub-pipes).
    Unit(
        "tensor-pipe",
        "tensor pipe",
        _pipes("tensor", "tc", "tensor_op_hmma", "tensor_op_imma", "tensor_subpipe_hmma")
        # Blackwell's FP64 matrix sub-pipe is a tensor sub-pipe like HMMA and IMMA.
        + _pipes("tensor_subpipe_imma", "tensor_subpipe_dmma"),
    ),
    # Volta and Turing's pipe shared by FP16 and tensor work.
    Unit("shared-pipe", "shared pipe (FP16 and tensor)", _pipes("shared")),
    Unit("uniform-pipe", "uniform pipe", _pipes("uniform")),
    Unit("adu-pipe", "ADU pipe", _pipes("adu")),
    Unit("cbu-pipe", "CBU pipe", _pipes("cbu")),
    Unit("tex-pipe", "texture pipe", _pipes("tex")),
    Unit("tma-pipe", "TMA pipe", _pipes("tma")),
    Unit("tmem-pipe", "tensor memory pipe", _pipes("tmem")),
    Unit("issue", "issue slots", (_issue(),)),
    Unit("sm", "SM (ncu's SM throughput)", ((SOL_METRICS[0],),), composite=True),
    Unit("memory", "memory (ncu's memory throughput)", ((SOL_METRICS[1],),), composite=True),
)
#: Unit key -> label, for messages.
UNIT_LABELS: dict[str, str] = {u.key: u.label for u in UNITS}


__all__ = ["SOL_METRICS", "UNITS", "UNIT_LABELS", "Unit"]
