"""The catalogue of finding kinds: every fact about a kind in one record.

A finding kind is detected in :mod:`ncu_roofline.analysis.findings`; what a
reader is told about it (why it matters, what to try), its usual severity,
its short form in the terminal summary, whether a ``--fail-on`` gate may
name it and whether it needs theory inputs all live here, so that adding a
kind is one :class:`FindingKind` entry in :data:`CATALOGUE` plus the code
that detects it.

The order of :data:`CATALOGUE` is the order the gate help lists the kinds in.
The short forms of the bound classes for the terminal summary live here too,
next to the kinds they sit beside in that table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: Finding severities, most severe first (findings are sorted in this order).
SEVERITIES: tuple[str, ...] = ("error", "warning", "info")


@dataclass(frozen=True)
class FindingKind:
    """One kind of finding and what a report says about it.

    ``severity`` is the kind's usual severity; the few kinds whose severity
    depends on the numbers (a below-roof kernel with little recoverable
    time, excess traffic of a compute-bound kernel) are downgraded where
    they are detected.  ``by_bound`` gives bound-class-specific advice that
    replaces ``why`` and ``what_to_try`` for kernels of that class.
    ``on_stderr`` says whether the command line repeats a finding of this
    kind at warning severity or worse as a warning on stderr; a kind that
    flags many kernels of an ordinary profile stays in the report only.
    """

    kind: str
    severity: str
    title: str
    why: str
    what_to_try: str
    abbreviation: str
    gateable: bool = True
    needs_theory: bool = False
    on_stderr: bool = True
    by_bound: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def advice(self, bound: str | None) -> tuple[str, str]:
        """Why the finding matters and what to try, for a kernel of class ``bound``."""
        if bound is not None and bound in self.by_bound:
            return self.by_bound[bound]
        return self.why, self.what_to_try


_KINDS: tuple[FindingKind, ...] = (
    FindingKind(
        "excess-traffic",
        "warning",
        "Excess DRAM traffic",
        "The kernel reads or writes far more DRAM bytes than its math needs.",
        "Reuse data on chip (tiling, shared memory), coalesce accesses, avoid re-reading inputs "
        "(e.g. a GQA-aware decode kernel reads each KV head once), and check for register spills.",
        "excess",
        needs_theory=True,
    ),
    FindingKind(
        "above-roof",
        "warning",
        "Above a roof",
        "A point above a roof means the roof or the counters do not describe this run.",
        "Check the clocks (ncu --clock-control base), the GPU the roofs come from (--gpu, --roofs) "
        "and that the counters come from one replay of the kernel.",
        "above",
    ),
    FindingKind(
        "below-roof",
        "warning",
        "Far below its roof",
        "The kernel moves bytes more slowly than DRAM allows, and bytes are what limit it.",
        "Cut the bytes: fuse it with its neighbours, quantise weights or the KV cache (FP8, INT4), "
        "batch more work per weight read, improve reuse with tiling; make loads wide and coalesced "
        "so DRAM runs near its peak.",
        "below",
        on_stderr=False,
        by_bound={
            "compute": (
                "The kernel has enough work per byte to be compute-bound but runs well under the "
                "compute roof.",
                "Use the tensor cores (FP32 math can often run as TF32 or BF16), larger tiles, "
                "fewer non-FMA instructions; check occupancy and pipeline stalls in Nsight "
                "Compute's source view.",
            ),
            "latency": (
                "The kernel is far from every roof: it cannot keep the GPU busy long enough.",
                "Raise occupancy (more blocks, fewer registers per thread), give each launch more "
                "work, fuse tiny kernels, and capture launch sequences in CUDA graphs to hide "
                "launch overhead.",
            ),
        },
    ),
    FindingKind(
        "limiter-disagrees",
        "warning",
        "Limiter disagrees with the roofline",
        "The point's side of the ridge names one roof, but ncu's utilisations show another unit "
        "is the busiest: the roofline's verdict is not what limits this kernel.",
        "Work on the unit the limiter names (Nsight Compute's Memory Workload and Compute "
        "Workload sections break it down), not on the roof the point sits under.",
        "limiter",
    ),
    FindingKind(
        "under-filled",
        "warning",
        "Under-filled GPU",
        "The grid gives the GPU fewer blocks than it has SMs, or less than one wave: some SMs "
        "sit idle or half-filled whatever the kernel's code does.",
        "Give each launch more parallel work: more, smaller blocks, split-K or split-sequence "
        "decomposition, batching several launches into one, or a persistent kernel sized to "
        "the SM count.",
        "thin",
        on_stderr=False,
    ),
    FindingKind(
        "instruction-mix",
        "info",
        "Instruction mix caps the FLOP roof",
        "The FLOP roof counts every issue slot as a fused multiply-add (two FLOPs); FADD and "
        "FMUL use a slot for one, so a mix with few FMAs can never reach the roof.",
        "Let the compiler contract multiplies and adds into FMAs (no -fmad=false, "
        "__fmaf_rn), rearrange sums as multiply-adds; judge the kernel against the mix roof "
        "this finding gives, not the FMA peak.",
        "mix",
        on_stderr=False,
    ),
    FindingKind(
        "not-placeable",
        "info",
        "Not placeable",
        "Without FLOP counts, byte counts, a duration or roofs a kernel cannot be placed.",
        "Collect the missing metrics: ncu --set full --print-units base, or the --metrics list "
        "`ncu-roofline inspect` prints; name the GPU with --gpu when the export lacks it.",
        "unplaced",
    ),
    FindingKind(
        "tensor-uncounted",
        "warning",
        "Tensor-core work not counted",
        "The kernel ran on the tensor cores, but the export has no tensor counters: its FLOPs "
        "would be only the FP32/FP16 instructions around the MMAs, placing it far under a roof "
        "that does not describe it.",
        "Profile again with the tensor counters the finding names for the GPU "
        "(the sm__ops_path_tensor_* metrics, or ncu --section "
        "SpeedOfLight_HierarchicalTensorRooflineChart; sm__inst_executed_pipe_tensor.sum on Volta).",
        "tensor",
    ),
    FindingKind(
        "no-roofs",
        "warning",
        "No roofs",
        "No peak figures are known for this device.",
        "Choose a GPU with --gpu NAME (ncu-roofline gpus lists them) or give roofs with "
        "--roofs FILE.",
        "no-roofs",
    ),
    FindingKind(
        "communication",
        "info",
        "Communication",
        "Collective kernels wait on NVLink, PCIe or the network, not on DRAM.",
        "Overlap communication with compute and compare the bus bandwidth with nccl-tests.",
        "comm",
    ),
    FindingKind(
        "clock-below-datasheet",
        "info",
        "Clock below datasheet",
        "ncu locks clocks to base by default, so kernels ran slower than datasheet boost.",
        "Read efficiencies against the profile's own roofs; profile with --clock-control none to "
        "see boost-clock behaviour.",
        "clock",
    ),
    FindingKind(
        "gpu-mismatch",
        "warning",
        "GPU mismatch",
        "The chosen GPU does not look like the profiled device.",
        "Check --gpu: roofs of another GPU make every efficiency wrong.",
        "gpu",
    ),
    FindingKind(
        "mixed-definitions",
        "warning",
        "Mixed byte definitions",
        "L2 or L1 bytes come from metric families that count different things.",
        "Collect one family for the whole profile (lts__t_bytes and l1tex__t_bytes, or ncu's "
        "roofline sections).",
        "mixed",
    ),
    FindingKind(
        "no-theory",
        "info",
        "No theory",
        "Some kernels matched no theory rule or model op.",
        "Add [[kernel]] rules to a --theory file for them.",
        "no-theory",
        needs_theory=True,
    ),
    FindingKind(
        "theory-mismatch",
        "warning",
        "Theory does not match the run",
        "",
        "",
        "mismatch",
        needs_theory=True,
    ),
    FindingKind(
        "roof-mismatch",
        "warning",
        "DRAM roof disagrees with ncu",
        "The DRAM peak that ncu's own DRAM % implies (measured bytes/s over the percentage) is "
        "far from the DRAM roof in use, so every DRAM utilisation and efficiency of the device is "
        "off by their ratio; the roofs probably belong to another GPU.",
        "Check --gpu or --roofs against the GPU the profile ran on; the finding names the "
        "built-in GPUs whose DRAM bandwidth fits the implied peak.",
        "roof",
    ),
)

#: Every finding kind by its id, in catalogue order.
CATALOGUE: Mapping[str, FindingKind] = {k.kind: k for k in _KINDS}

#: Kinds a ``--fail-on`` gate may name.
GATEABLE_KINDS: tuple[str, ...] = tuple(k.kind for k in _KINDS if k.gateable)

#: Kinds that exist only when theory (``--theory`` or ``--model``) is given.
THEORY_KINDS: tuple[str, ...] = tuple(k.kind for k in _KINDS if k.needs_theory)

#: Short forms of the bound classes that are long, for narrow tables.
BOUND_ABBREVIATIONS: Mapping[str, str] = {"not placeable": "unplaced", "communication": "comm"}


def severity_of(kind: str) -> str:
    """The usual severity of ``kind``."""
    return CATALOGUE[kind].severity


def advice(kind: str, bound: str | None) -> tuple[str, str]:
    """Why a finding of ``kind`` about a kernel of class ``bound`` matters, and what to try.

    Unknown kinds (from a report written by another version) get no advice.
    """
    entry = CATALOGUE.get(kind)
    return entry.advice(bound) if entry is not None else ("", "")


def abbreviation(kind: str) -> str:
    """The kind's short form in the terminal summary; unknown kinds are cut to 8 characters."""
    entry = CATALOGUE.get(kind)
    return entry.abbreviation if entry is not None else kind[:8]
