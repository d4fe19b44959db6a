"""The units a launch can be limited by, and the ncu metrics that measure each.

Design: plain data, apart from :mod:`ncu_roofline.analysis.limiter` (which
judges launches with pandas), so that the pages and messages that only name
a unit need neither pandas nor the engine.
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
    """A unit a launch can be limited by, and the ncu metrics that measure it."""

    key: str
    label: str
    #: ncu percentage metrics, most specific first; ``_active`` ones are rescaled.
    metrics: tuple[str, ...]
    composite: bool = False


def _pipe(name: str) -> tuple[str, ...]:
    """The spellings ncu versions use for one pipe's utilisation."""
    out: list[str] = []
    for prefix in ("sm", "smsp"):
        for form in (f"pipe_{name}_cycles_active", f"inst_executed_pipe_{name}"):
            for agg in ("avg", "sum"):
                for base in ("active", "elapsed"):
                    out.append(f"{prefix}__{form}.{agg}.pct_of_peak_sustained_{base}")
    return tuple(out)


UNITS: tuple[Unit, ...] = (
    Unit(
        "dram",
        "DRAM",
        (
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    Unit("l2", "L2", ("lts__throughput.avg.pct_of_peak_sustained_elapsed",)),
    Unit(
        "l1",
        "L1/TEX",
        (
            "l1tex__throughput.avg.pct_of_peak_sustained_active",
            "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
        ),
    ),
    Unit("fma-pipe", "FMA pipe", _pipe("fma") + _pipe("fmaheavy")),
    Unit("alu-pipe", "ALU pipe", _pipe("alu")),
    Unit("fp64-pipe", "FP64 pipe", _pipe("fp64") + _pipe("dmma")),
    Unit("lsu-pipe", "LSU pipe", _pipe("lsu")),
    Unit(
        "tensor-pipe",
        "tensor pipe",
        _pipe("tensor") + _pipe("tensor_op_hmma") + _pipe("tensor_op_imma") + _pipe("shared"),
    ),
    Unit(
        "issue",
        "issue slots",
        (
            "sm__inst_issued.avg.pct_of_peak_sustained_active",
            "smsp__issue_active.avg.pct_of_peak_sustained_active",
            "sm__instruction_throughput.avg.pct_of_peak_sustained_active",
            "smsp__inst_issued.avg.pct_of_peak_sustained_active",
        ),
    ),
    Unit("sm", "SM (ncu's SM throughput)", (SOL_METRICS[0],), composite=True),
    Unit("memory", "memory (ncu's memory throughput)", (SOL_METRICS[1],), composite=True),
)
#: Unit key -> label, for messages.
UNIT_LABELS: dict[str, str] = {u.key: u.label for u in UNITS}


__all__ = ["SOL_METRICS", "UNITS", "UNIT_LABELS", "Unit"]
