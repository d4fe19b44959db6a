"""Which ncu metrics the launch model keeps, and how section labels map to them.

The model keeps every *roofline input* an export carries, under its ncu
metric id (``dram__bytes.sum``), in SI units.  Metric ids come either
directly (``--metrics`` exports, the raw page, ``.ncu-rep`` files) or from the
display labels of the standard sections on the details page (``Duration`` in
"GPU Speed Of Light Throughput").  Labels repeat across sections with
different meanings ("SM Frequency" is ``gpc__`` in the SOL header but
``sm__``/``smsp__`` in the roofline chart body), so the mapping is keyed by
section, body item label and label.

The requirement groups at the end drive ``inspect``: which inputs a roofline
needs, which metric ids satisfy each, and what to pass to ``ncu`` to collect
the ones that are missing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ncu_roofline.core.architecture import architecture

_OPS = r"(?:add|mul|fma)"
_RATE = r"(?:\.per_second|\.per_cycle_elapsed|\.peak_sustained|\.peak_sustained_elapsed\.per_second|\.pct_of_peak_sustained_elapsed|\.pct_of_peak_sustained_active)?"

#: A utilisation's aggregation and time base: ``.avg.pct_of_peak_sustained_active``.
_UTIL = r"\.(?:avg|sum)\.pct_of_peak_sustained_(?:active|elapsed)"

#: Metric ids (full regexes) that the launch model keeps.
RELEVANT_PATTERNS: tuple[str, ...] = (
    r"gpu__time_duration(?:\.sum|\.avg|\.max)?",
    r"gpu__time_active(?:\.sum|\.avg|\.max)?",
    r"(?:sm|smsp|gpc|dram|lts|l1tex|fbpa)__cycles_elapsed\.(?:avg|max|sum)(?:\.per_second)?",
    r"(?:sm|smsp)__cycles_active\.(?:avg|sum|max)",
    rf"(?:sm|smsp)__sass_thread_inst_executed_op_[dfh]{_OPS}_pred_on\.sum{_RATE}",
    # Packed FP32 (FADD2/FMUL2/FFMA2, CC 10.x): two lanes per thread instruction.
    rf"(?:sm|smsp)__sass_thread_inst_executed_op_f{_OPS}2_pred_on\.sum{_RATE}",
    r"(?:sm|smsp)__inst_executed_pipe_tensor\w*\.sum" + _RATE,
    r"sm__ops_path_tensor_\w+\.sum" + _RATE,
    r"(?:sm|smsp)__pipe_tensor\w*cycles_active\.(?:avg|sum)" + _RATE,
    # Tensor-pipe utilisation: evidence of tensor-core work, never a count.
    r"(?:sm|smsp)__inst_executed_pipe_tensor\w*\.avg\.pct_of_peak_sustained_(?:active|elapsed)",
    r"(?:sm|smsp)__pipe_tc_cycles_active\.(?:avg|sum)\.pct_of_peak_sustained_(?:active|elapsed)",
    # Every pipe's and the issue stage's utilisation (the limiter's units
    # inside the SM), in every spelling: sm or smsp, avg or sum, of active
    # or of elapsed cycles.
    rf"(?:sm|smsp)__(?:pipe_\w+_cycles_active|inst_executed_pipe_\w+){_UTIL}",
    rf"(?:sm|smsp)__(?:inst_issued|issue_active|instruction_throughput|inst_executed){_UTIL}",
    # The speed-of-light breakdowns' memory rows (what ncu's memory
    # throughput is the largest of), and ncu's warp occupancy.
    r"(?:l1tex|lts|dram|fbpa)__\w+\.avg\.pct_of_peak_sustained_elapsed",
    # ... and the breakdowns' other rows: the SM's MIO queues and internal
    # activity, the instruction cache (idc), the system-memory L2 slice.
    r"(?:sm__mio\w*|sm__\w+_internal_activity|idc__\w+|syslts__\w+"
    r"|gpu__compute_memory_\w+_internal_activity)\.avg\.pct_of_peak_sustained_elapsed",
    r"sm__warps_active\.avg\.pct_of_peak_sustained_elapsed",
    r"dram__bytes(?:_read|_write|_op_\w+)?\.sum" + _RATE,
    # Pascal-era spelling of the DRAM read and write bytes.
    r"dram__(?:read|write)_bytes(?:\.sum)?" + _RATE,
    r"dram__sectors(?:_read|_write|_op_\w+)?\.sum" + _RATE,
    r"dram__throughput\.avg\.pct_of_peak_sustained_elapsed",
    r"lts__t_bytes\w*\.sum" + _RATE,
    r"lts__t_sectors\w*\.sum" + _RATE,
    r"lts__lts2xbar_cycles_active\.sum" + _RATE,
    r"lts__t_sector\w*hit_rate\.pct",
    r"l1tex__t_bytes\w*\.sum" + _RATE,
    r"l1tex__t_sectors\w*\.sum" + _RATE,
    r"l1tex__t_sector\w*hit_rate\.pct",
    r"l1tex__lsu_writeback_active\w*\.sum" + _RATE,
    r"l1tex__m_xbar2l1tex_read_bytes\w*\.sum" + _RATE,
    r"(?:sm|gpu__compute_memory|gpu__dram|lts|l1tex|dram|gpc)__throughput\.avg\.pct_of_peak_sustained_(?:elapsed|active)",
    r"gpu__compute_memory_throughput\.avg\.pct_of_peak_sustained_elapsed",
    r"gpu__dram_throughput\.avg\.pct_of_peak_sustained_elapsed",
    r"sm__warps_active\.avg\.pct_of_peak_sustained_active",
    r"sm__maximum_warps_per_active_cycle_pct",
    r"launch__(?:grid_size|block_size|thread_count|registers_per_thread|waves_per_multiprocessor|shared_mem_per_block_(?:static|dynamic|driver)|grid_dim_[xyz]|block_dim_[xyz]|stream_id|context_id|device_id|sm_count)",
    r"device__attribute_(?:display_name|clock_rate|max_gpu_frequency_khz|max_mem_frequency_khz|memory_clock_rate|global_memory_bus_width|multiprocessor_count|compute_capability_major|compute_capability_minor|architecture|limits_max_cta_per_sm|l2_cache_size|fb_bus_width|dram_bandwidth)",
    r"derived__(?:sm|smsp)__sass_thread_inst_executed_op_[dfh]{_OPS}_pred_on_x[24]".replace(
        "{_OPS}", _OPS
    ),
    r"derived__lts__lts2xbar_bytes\.sum(?:\.per_second|\.peak_sustained)",
    r"derived__l1tex__lsu_writeback_bytes\w*\.sum(?:\.per_second|\.peak_sustained)",
    r"derived__(?:sm|smsp)__inst_executed_pipe_tensor_x\d+",
)

_RELEVANT = re.compile("^(?:" + "|".join(RELEVANT_PATTERNS) + ")$")

#: Metrics whose value is text, kept as strings.
STRING_METRICS: frozenset[str] = frozenset({"device__attribute_display_name"})

#: Older spellings mapped to the current metric id.
ALIASES: dict[str, str] = {
    "gpu__time_duration": "gpu__time_duration.sum",
    "gpu__time_active": "gpu__time_active.sum",
    "dram__read_bytes": "dram__read_bytes.sum",
    "dram__write_bytes": "dram__write_bytes.sum",
}


#: CUDA device attributes that ncu prints without a unit but that are kHz
#: (cudaDevAttrClockRate and friends); converted to Hz like every frequency.
KHZ_METRICS: frozenset[str] = frozenset(
    {
        "device__attribute_clock_rate",
        "device__attribute_memory_clock_rate",
        "device__attribute_max_gpu_frequency_khz",
        "device__attribute_max_mem_frequency_khz",
    }
)


#: Rates ncu prints with the unit of the amount they count, as seen in real
#: reports: ``derived__lts__lts2xbar_bytes.sum.per_second`` is printed as
#: ``byte`` in every ``--set full`` Hopper ``.ncu-rep`` (ncu 2023.x-2025.x),
#: while its name, and its value (bytes over the launch's duration), say
#: bytes per second.  :func:`rate_unit_quirk` reads every such rate by its
#: name; this table records the ones seen and is tested against the rule.
RATE_UNIT_QUIRKS: dict[str, str] = {
    "derived__lts__lts2xbar_bytes.sum.per_second": "byte",
}

#: Words of a counter's name and the amount unit they count.
_COUNTED_WORDS = {"bytes": "byte", "sectors": "sector", "inst": "inst"}
_AMOUNT_UNIT = re.compile(r"^([KMGTP]?)(byte|sector|inst)s?$")


def rate_unit_quirk(metric_id: str, printed_unit: str) -> str | None:
    """The rate unit a ``.per_second`` metric printed with an amount unit means, or None.

    ``("derived__lts__lts2xbar_bytes.sum.per_second", "byte")`` ->
    ``"byte/second"`` (``Kbyte`` -> ``Kbyte/second``).  Only where the name
    is unambiguous: it counts exactly one kind of thing (``bytes``,
    ``sectors`` or ``inst``) and the printed unit is that thing.  A rate
    printed as a time, a percentage or another amount stays as printed (and
    is left out by the dimension check, with a warning).
    """
    if not metric_id.endswith(".per_second"):
        return None
    m = _AMOUNT_UNIT.match(printed_unit.strip())
    if m is None:
        return None
    words = set(re.split(r"_+", metric_id.split(".", 1)[0]))
    counted = {unit for word, unit in _COUNTED_WORDS.items() if word in words}
    if counted != {m.group(2)}:
        return None
    return f"{printed_unit.strip()}/second"


def unit_for(metric_id: str, printed_unit: str) -> str:
    """The unit to apply to a metric: the printed one, unless ncu omits or misprints it."""
    if metric_id in KHZ_METRICS and printed_unit.strip() in ("", "khz", "Khz", "kHz"):
        return "Khz"
    return rate_unit_quirk(metric_id, printed_unit) or printed_unit


def is_relevant(metric_id: str) -> bool:
    """Whether the launch model keeps this metric id."""
    return bool(_RELEVANT.match(ALIASES.get(metric_id, metric_id)))


def canonical_metric(metric_id: str) -> str:
    """The current spelling of a metric id."""
    return ALIASES.get(metric_id, metric_id)


def looks_like_metric_id(name: str) -> bool:
    """Metric ids contain ``__`` and no spaces; section labels never do."""
    return "__" in name and " " not in name


#: The quantities the analysis adds up from several metrics, by metric id:
#: a launch that lost some of a quantity's metrics (a cut-off export) must
#: lose all of them, or the sum of the rest reads as the whole.  All FLOP
#: counters are one quantity, since the analysis totals the precisions.
_QUANTITY_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "FLOP counts",
        re.compile(r"sass_thread_inst_executed_op_|pipe_tensor|ops_path_tensor|pipe_tc_"),
    ),
    ("DRAM traffic", re.compile(r"^(?:derived__)?(?:dram__|gpu__dram_)")),
    ("L2 traffic", re.compile(r"^(?:derived__)?lts__")),
    ("L1 traffic", re.compile(r"^(?:derived__)?l1tex__")),
)


def quantity_family(metric_id: str) -> str | None:
    """The summed quantity a metric is part of (``"FLOP counts"``), or None."""
    for family, pattern in _QUANTITY_FAMILIES:
        if pattern.search(metric_id):
            return family
    return None


#: Tensor-pipe utilisation (percent of peak): evidence that a launch did
#: tensor-core work, never a count of it (docs/ncu-format.md section 5.2).
TENSOR_PIPE_UTILISATION = re.compile(
    r"^(?:sm|smsp)__(?:pipe_tensor\w*_cycles_active|pipe_tc_cycles_active|inst_executed_pipe_tensor\w*)"
    r"\.(?:avg|sum)\.pct_of_peak_sustained_(?:active|elapsed)$"
)

#: The ncu section that carries the tensor roofline's counters for the chip.
TENSOR_SECTION = "SpeedOfLight_HierarchicalTensorRooflineChart"

#: Tensor-pipe instruction count: convertible to FLOPs only where one MMA
#: shape dominates (Volta to Ada, ``Architecture.tensor_inst_flops``).
TENSOR_INSTRUCTIONS = "sm__inst_executed_pipe_tensor.sum"


def tensor_metrics_to_collect(cc: str | None) -> tuple[str, ...]:
    """The ``--metrics`` that count tensor-core work on compute capability ``cc``.

    From the architecture description
    (:func:`~ncu_roofline.core.architecture.architecture`): ``"8.0"`` ->
    ``sm__ops_path_tensor_src_fp16_dst_fp32_sparsity_off.sum`` and the other
    GA100 datatypes; Volta (``"7.0"``, ``"7.2"``), which has no ops_path
    counters -> ``sm__inst_executed_pipe_tensor.sum`` (HMMA.884
    instructions, 512 FLOPs each); an unknown architecture -> nothing
    (collect the section instead).
    """
    arch = architecture(cc)
    if arch is None:
        return ()
    if not arch.tensor_ops:
        return (TENSOR_INSTRUCTIONS,) if arch.tensor_inst_flops is not None else ()
    return arch.tensor_metrics()


# --- display labels of the standard sections ------------------------------

_SOL_NEW = "GPU Speed Of Light Throughput"
_SOL_OLD = "GPU Speed Of Light"
_ROOF = "GPU Speed Of Light Roofline Chart"
_MEM = "Memory Workload Analysis"
_LAUNCH = "Launch Statistics"
_OCC = "Occupancy"

_SASS = "sass_thread_inst_executed_op_{}_pred_on.sum"

#: (section display name, body item label or "*", label) -> metric id.
#: "*" matches any body item label, including the empty one.
LABELS: dict[tuple[str, str, str], str] = {}


def _label(section: str, label: str, metric: str, body: str = "*") -> None:
    LABELS[(section, body, label)] = metric


for _sec in (_SOL_NEW, _SOL_OLD):
    _label(_sec, "Duration", "gpu__time_duration.sum")
    _label(_sec, "Elapsed Cycles", "gpc__cycles_elapsed.max")
    _label(_sec, "SM Active Cycles", "sm__cycles_active.avg")
    _label(_sec, "SM Frequency", "gpc__cycles_elapsed.avg.per_second")
    _label(_sec, "DRAM Frequency", "dram__cycles_elapsed.avg.per_second")
    _label(_sec, "Memory Frequency", "dram__cycles_elapsed.avg.per_second")
    _label(_sec, "Compute (SM) Throughput", "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "SM [%]", "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "SOL SM", "sm__throughput.avg.pct_of_peak_sustained_elapsed")
    _label(
        _sec,
        "Memory Throughput",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    )
    _label(_sec, "Memory [%]", "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "DRAM Throughput", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "SOL FB", "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "L1/TEX Cache Throughput", "l1tex__throughput.avg.pct_of_peak_sustained_active")
    _label(_sec, "SOL L1/TEX Cache", "l1tex__throughput.avg.pct_of_peak_sustained_active")
    _label(_sec, "L2 Cache Throughput", "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "SOL L2 Cache", "lts__throughput.avg.pct_of_peak_sustained_elapsed")
    _label(_sec, "Waves Per SM", "launch__waves_per_multiprocessor")

# The SOL body repeats the two headline percentages under "GPU Throughput".
_label(_SOL_NEW, "Compute (SM) [%]", "sm__throughput.avg.pct_of_peak_sustained_elapsed")

#: The SOL section's breakdown bodies (``--print-details all``): each row is
#: one of the sub-metrics ncu's SM or memory throughput is the largest of,
#: named in words.
BREAKDOWN_BODIES = ("Compute Throughput Breakdown", "Memory Throughput Breakdown")

#: A breakdown label's unit prefix -> the metric id's unit.
_BREAKDOWN_UNITS = {
    "SM": "sm",
    "SMSP": "smsp",
    "L1": "l1tex",
    "L2": "lts",
    "LTS": "lts",
    "DRAM": "dram",
    "FBPA": "fbpa",
    "GPU": "gpu",
    "IDC": "idc",
    "SYSLTS": "syslts",
}
_BREAKDOWN_LABEL = re.compile(r"^([A-Z0-9]+): ([A-Za-z0-9 ]+)$")


def breakdown_metric(label: str) -> str | None:
    """The metric id behind a SOL breakdown row's label, or None when it is not one.

    ``SM: Pipe Fmaheavy Cycles Active`` ->
    ``sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_elapsed``.
    The rows are percentages of *elapsed* cycles, the time base of the
    throughput they break down: on a real RTX 5060 Ti GEMM (lukas-ruettgers
    sample) the largest compute row equals ``sm__throughput`` (54.76%), and
    ``L1: Lsuin Requests`` (54.76%) is the L1/TEX throughput of active cycles
    (58.04%) times the SM's active share (1244128.36 / 1318955 cycles).
    """
    m = _BREAKDOWN_LABEL.match(label.strip())
    if m is None or m.group(1) not in _BREAKDOWN_UNITS:
        return None
    counter = "_".join(m.group(2).lower().split())
    return f"{_BREAKDOWN_UNITS[m.group(1)]}__{counter}.avg.pct_of_peak_sustained_elapsed"


_label(_MEM, "Memory Throughput", "dram__bytes.sum.per_second")
_label(_MEM, "L1/TEX Hit Rate", "l1tex__t_sector_hit_rate.pct")
_label(_MEM, "L2 Hit Rate", "lts__t_sector_hit_rate.pct")

_label(_LAUNCH, "Block Size", "launch__block_size")
_label(_LAUNCH, "Grid Size", "launch__grid_size")
_label(_LAUNCH, "Threads", "launch__thread_count")
_label(_LAUNCH, "Registers Per Thread", "launch__registers_per_thread")
_label(_LAUNCH, "Waves Per SM", "launch__waves_per_multiprocessor")
_label(_LAUNCH, "Static Shared Memory Per Block", "launch__shared_mem_per_block_static")
_label(_LAUNCH, "Dynamic Shared Memory Per Block", "launch__shared_mem_per_block_dynamic")
_label(_LAUNCH, "Driver Shared Memory Per Block", "launch__shared_mem_per_block_driver")
_label(_LAUNCH, "# SMs", "launch__sm_count")

_label(_OCC, "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct")
_label(_OCC, "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active")

# Roofline chart body (ncu 2025.x, `--print-details all`).  The header rows
# (empty body label) carry the peak and achieved per-cycle rates; the
# "... Roofline" bodies carry the peaks' clocks, the "... Achieved Value"
# bodies the achieved clocks (smsp, not sm) and bandwidth.
for _p, _letter in (("F", "f"), ("D", "d"), ("H", "h")):
    _label(
        _ROOF,
        f"Theoretical Predicated-On {_p}FMA Thread Instructions Executed",
        "sm__" + _SASS.format(_letter + "fma") + ".peak_sustained",
    )
    for _op in ("FMA", "ADD", "MUL"):
        _label(
            _ROOF,
            f"Predicated-On {_p}{_op} Thread Instructions Executed Per Cycle",
            "smsp__" + _SASS.format(_letter + _op.lower()) + ".per_cycle_elapsed",
        )
# The chart bodies also print ncu's derived (doubled) FMA operations.
for _p, _letter, _body in (("F", "f", "Single"), ("D", "d", "Double")):
    _label(
        _ROOF,
        f"Theoretical Predicated-On {_p}FMA Operations",
        f"derived__sm__sass_thread_inst_executed_op_{_letter}fma_pred_on_x2",
        f"{_body} Precision Roofline",
    )
    _label(
        _ROOF,
        f"Predicated-On {_p}FMA Operations Per Cycle",
        f"derived__smsp__sass_thread_inst_executed_op_{_letter}fma_pred_on_x2",
        f"{_body} Precision Achieved Value",
    )
for _body in ("Single Precision Roofline", "Double Precision Roofline", "Half Precision Roofline"):
    _label(_ROOF, "SM Frequency", "sm__cycles_elapsed.avg.per_second", _body)
    _label(_ROOF, "Theoretical DRAM Bytes Accessible", "dram__bytes.sum.peak_sustained", _body)
    _label(_ROOF, "DRAM Frequency", "dram__cycles_elapsed.avg.per_second", _body)
for _body in (
    "Single Precision Achieved Value",
    "Double Precision Achieved Value",
    "Half Precision Achieved Value",
):
    _label(_ROOF, "SM Frequency", "smsp__cycles_elapsed.avg.per_second", _body)
    _label(_ROOF, "DRAM Bandwidth", "dram__bytes.sum.per_second", _body)


def metric_for_label(section: str, body: str, label: str) -> str | None:
    """The metric id behind a section label, or ``None`` when unknown."""
    found = LABELS.get((section, body, label)) or LABELS.get((section, "*", label))
    if found is None and body in BREAKDOWN_BODIES and section in (_SOL_NEW, _SOL_OLD):
        return breakdown_metric(label)
    return found


# --- requirement groups for `inspect` ---------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One roofline input and the metric sets that satisfy it.

    The input is present when every metric of at least one alternative is.
    ``collect`` is the metric list to pass to ``ncu --metrics`` when missing.
    """

    key: str
    title: str
    alternatives: tuple[tuple[str, ...], ...]
    collect: tuple[str, ...]
    ncu_section: str | None = None


def _sass(prefix: str, letter: str, suffix: str = "") -> tuple[str, ...]:
    return tuple(f"{prefix}__" + _SASS.format(letter + op) + suffix for op in ("add", "mul", "fma"))


def _flop_alternatives(letter: str) -> tuple[tuple[str, ...], ...]:
    alts: list[tuple[str, ...]] = []
    for prefix in ("sm", "smsp"):
        alts.append(_sass(prefix, letter))
        per_cycle = _sass(prefix, letter, ".per_cycle_elapsed")
        for unit in ("sm", "smsp"):
            # elapsed cycles directly, or the clock times the duration
            alts.append((*per_cycle, f"{unit}__cycles_elapsed.avg"))
            alts.append(
                (*per_cycle, f"{unit}__cycles_elapsed.avg.per_second", "gpu__time_duration.sum")
            )
    return tuple(alts)


REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "duration",
        "kernel duration",
        (
            ("gpu__time_duration.sum",),
            ("gpu__time_active.sum",),
            # One instance per GPU: .avg and .max are the same figure.
            ("gpu__time_duration.avg",),
            ("gpu__time_active.avg",),
            ("gpu__time_duration.max",),
            ("gpu__time_active.max",),
            ("sm__cycles_elapsed.avg", "sm__cycles_elapsed.avg.per_second"),
            ("smsp__cycles_elapsed.avg", "smsp__cycles_elapsed.avg.per_second"),
        ),
        ("gpu__time_duration.sum",),
        "SpeedOfLight",
    ),
    Requirement(
        "flops_fp64",
        "FP64 FLOP counts",
        _flop_alternatives("d"),
        _sass("sm", "d"),
        "SpeedOfLight_HierarchicalDoubleRooflineChart",
    ),
    Requirement(
        "flops_fp32",
        "FP32 FLOP counts",
        _flop_alternatives("f"),
        _sass("sm", "f"),
        "SpeedOfLight_HierarchicalSingleRooflineChart",
    ),
    Requirement(
        "flops_fp16",
        "FP16 FLOP counts",
        _flop_alternatives("h"),
        _sass("sm", "h"),
        "SpeedOfLight_HierarchicalHalfRooflineChart",
    ),
    Requirement(
        "flops_tensor",
        "tensor-core work",
        (
            ("sm__ops_path_tensor_*",),
            # The instruction counts the measures read, never their
            # utilisation percentages.
            ("sm__inst_executed_pipe_tensor.sum",),
            ("smsp__inst_executed_pipe_tensor.sum",),
            ("sm__inst_executed_pipe_tensor_op_hmma.sum",),
            ("smsp__inst_executed_pipe_tensor_op_hmma.sum",),
        ),
        (TENSOR_INSTRUCTIONS,),
        TENSOR_SECTION,
    ),
    Requirement(
        "dram_bytes",
        "DRAM bytes",
        (
            ("dram__bytes.sum",),
            ("dram__bytes_read.sum", "dram__bytes_write.sum"),
            ("dram__read_bytes.sum", "dram__write_bytes.sum"),
            ("dram__sectors_read.sum", "dram__sectors_write.sum"),
            ("dram__sectors.sum",),
            ("dram__bytes.sum.per_second", "gpu__time_duration.sum"),
        ),
        ("dram__bytes.sum",),
        "SpeedOfLight_RooflineChart",
    ),
    Requirement(
        "l2_bytes",
        "L2 bytes",
        (
            ("lts__t_bytes.sum",),
            ("lts__t_sectors.sum",),
            ("lts__t_sectors_op_read.sum", "lts__t_sectors_op_write.sum"),
            ("lts__lts2xbar_cycles_active.sum",),
            ("derived__lts__lts2xbar_bytes.sum.per_second",),
        ),
        ("lts__t_bytes.sum",),
        "SpeedOfLight_HierarchicalSingleRooflineChart",
    ),
    Requirement(
        "l1_bytes",
        "L1 bytes",
        (
            ("l1tex__t_bytes.sum",),
            ("l1tex__t_sectors.sum",),
            ("l1tex__lsu_writeback_active_mem_lg.sum",),
            ("l1tex__lsu_writeback_active_mem_lgds.sum",),
            ("derived__l1tex__lsu_writeback_bytes_mem_lg.sum.per_second",),
            ("derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",),
        ),
        ("l1tex__t_bytes.sum",),
        "SpeedOfLight_HierarchicalSingleRooflineChart",
    ),
    Requirement(
        "peak_compute",
        "peak compute rates from the profile",
        (
            (
                "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
                "sm__cycles_elapsed.avg.per_second",
            ),
            (
                "derived__sm__sass_thread_inst_executed_op_ffma_pred_on_x2",
                "sm__cycles_elapsed.avg.per_second",
            ),
        ),
        (
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained",
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained",
            "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained",
            "sm__cycles_elapsed.avg.per_second",
        ),
        "SpeedOfLight_RooflineChart",
    ),
    Requirement(
        "peak_dram",
        "peak DRAM bandwidth from the profile",
        (("dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"),),
        ("dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second"),
        "SpeedOfLight_RooflineChart",
    ),
    Requirement(
        "sol_pct",
        "speed-of-light percentages",
        (
            (
                "sm__throughput.avg.pct_of_peak_sustained_elapsed",
                "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            ),
        ),
        (
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
        ),
        "SpeedOfLight",
    ),
)


_NOT_A_COUNT = re.compile(r"(?:\.pct_of_peak_sustained_\w+|\.pct|_pct|\.peak_sustained\w*)$")


def is_count_metric(metric_id: str) -> bool:
    """Whether a metric id measures work or traffic (a count or its rate).

    Utilisation percentages (``.pct_of_peak_sustained_active``, hit rates)
    and peaks (``.peak_sustained``) are not: a tensor pipe 30% busy says
    nothing about how many FLOPs it did.
    """
    return not _NOT_A_COUNT.search(metric_id)


def _has(columns: set[str], name: str) -> bool:
    if name.endswith("*"):
        stem = name[:-1]
        return any(c.startswith(stem) and is_count_metric(c) for c in columns)
    return name in columns


def requirement_status(columns: set[str]) -> tuple[list[str], list[Requirement]]:
    """Split the requirement groups into present keys and missing groups.

    ``columns`` holds the metric ids that have at least one value.
    """
    present: list[str] = []
    missing: list[Requirement] = []
    for req in REQUIREMENTS:
        if any(all(_has(columns, m) for m in alt) for alt in req.alternatives):
            present.append(req.key)
        else:
            missing.append(req)
    return present, missing


def ncu_options_for(missing: list[Requirement], cc: str | None = None) -> list[str]:
    """The ``ncu`` options that would collect the missing inputs on compute capability ``cc``.

    Always asks for base units, since auto-scaled exports round values to two
    decimals (``Mbyte 17.50`` loses up to 5 kB).  Where tensor work is
    missing on a chip whose tensor counters the tool does not know, asks
    for ncu's tensor roofline section, which names them itself.
    """
    if not missing:
        return []
    options = ["--metrics", ",".join(collect_metrics(missing, cc)), "--print-units", "base"]
    if any(r.key == "flops_tensor" for r in missing) and not _tensor_collect(cc):
        options += ["--section", TENSOR_SECTION]
    return options


def _tensor_collect(cc: str | None) -> tuple[str, ...]:
    """The tensor counters to ask for on ``cc``; the instruction count where no CC is known.

    From Hopper on a tensor instruction has no one shape, so its count
    cannot be turned into FLOPs: the chip's ``sm__ops_path_tensor_*``
    counters are asked for instead (none where the chip is not described).
    """
    if cc is None or not str(cc).strip():
        return (TENSOR_INSTRUCTIONS,)
    arch = architecture(cc)
    if arch is None:
        return ()
    if arch.tensor_inst_flops is None:
        return arch.tensor_metrics()
    return (TENSOR_INSTRUCTIONS,)


def _collect_of(req: Requirement, cc: str | None) -> tuple[str, ...]:
    """What to ask ncu for to satisfy ``req`` on compute capability ``cc`` (None: any chip)."""
    if req.key == "flops_tensor":
        return _tensor_collect(cc)
    if req.key == "flops_fp32" and cc is not None:
        arch = architecture(cc)
        if arch is not None:
            return (*req.collect, *arch.packed_fp32_metrics())
    return req.collect


def collect_metrics(
    requirements: Sequence[Requirement] = REQUIREMENTS, cc: str | None = None
) -> list[str]:
    """The metrics ``ncu --metrics`` needs for ``requirements`` (default: every roofline input).

    The one list both ``inspect`` (for what an export lacks) and ``profile``
    (for a new profile) ask ncu for.  With ``cc`` the chip-specific counters
    come from its architecture description: the ``sm__ops_path_tensor_*``
    counters instead of the tensor instruction count from Hopper on, and the
    packed FP32 counters where the chip has packed FP32.
    """
    wanted: list[str] = []
    for req in requirements:
        for m in _collect_of(req, cc):
            if m not in wanted:
                wanted.append(m)
    return wanted
