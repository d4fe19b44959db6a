"""The catalogue of finding kinds: every fact about a kind in one record.

A finding kind is detected by a rule (:data:`RULES` names each rule and the
kinds it may report; the rules are in :mod:`ncu_roofline.analysis.findings`
and run in this order); what a
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
    they are detected.  ``variants`` holds advice for particular evidence
    (a memory-bound GEMM, an L1-limited kernel, an FP64 kernel, ...) that
    replaces ``why`` and ``what_to_try``; :mod:`ncu_roofline.analysis.advice`
    chooses the variant of each finding from its kernel's family and
    evidence, and names it ``kind/variant`` (the plain ``kind`` is the
    default advice).
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
    variants: Mapping[str, tuple[str, str]] = field(default_factory=dict)

    def advice(self, variant: str | None) -> tuple[str, str]:
        """Why the finding matters and what to try, for advice ``variant`` (None: the default)."""
        if variant is not None and variant in self.variants:
            return self.variants[variant]
        return self.why, self.what_to_try

    def advice_ids(self) -> tuple[str, ...]:
        """Every advice id of the kind: the default first, then ``kind/variant`` ones."""
        return (self.kind, *(f"{self.kind}/{v}" for v in self.variants))


#: Advice that more than one kind gives, keyed by the unit or situation.
_L1_ADVICE = (
    "Wide, coalesced loads (128-bit LDG, ldmatrix), no shared-memory bank conflicts (pad or "
    "swizzle the tile layout), and cp.async or TMA to move tiles without staging them in "
    "registers; Nsight Compute's Memory Workload Analysis shows the bank conflicts and sectors "
    "per request."
)
_L2_ADVICE = (
    "Raise L2 reuse: rasterise or swizzle the CTA order so neighbouring CTAs share tiles in L2, "
    "use larger tiles, keep the working set within L2 (persisting-access windows on Ampere and "
    "later); Nsight Compute's Memory Chart shows the L2 hit rate."
)
_ALU_ADVICE = (
    "Cut integer, logic and conversion instructions: precompute indices outside the loop, "
    "replace division and modulo by shifts or multiplications by a reciprocal, avoid type "
    "conversions in the inner loop; Nsight Compute's Instruction Statistics show the mix."
)
_ISSUE_ADVICE = (
    "Issue fewer instructions per FLOP: unroll, vectorise loads and stores, hoist address "
    "arithmetic and predicates out of the loop, and remove warp divergence; Nsight Compute's "
    "source view shows the instruction count per line."
)
_FMA_ADVICE = (
    "The FP pipes are what it waits on: fewer FP instructions per result (contract adds and "
    "multiplies into FMAs, precompute reciprocals, use fast intrinsics such as rsqrtf and "
    "__fdividef where the accuracy allows), more independent work per thread so the pipes "
    "never wait on a dependent result."
)
_LAUNCH_ADVICE = (
    "Give each launch more work or fewer launches: fuse tiny kernels, capture launch sequences "
    "in CUDA graphs to hide launch overhead, batch independent launches into one grid."
)

# --- Advice for every kernel group (analysis/advice.py group_advice) -------
#: Below-roof variants that only a group's own advice names (no finding
#: chooses them): a pipe that is neither an FP pipe, the ALU nor the LSU.
_GROUP_VARIANTS: dict[str, tuple[str, str]] = {
    "pipe": (
        "An execution pipe other than the FP, ALU and load/store pipes (special-function, "
        "uniform, shared-memory or another unit) is the busiest unit: the instructions it runs, "
        "not the kernel's FLOPs or bytes, set its time.",
        "Find which instructions that pipe runs (Nsight Compute's Instruction Statistics and "
        "source view) and issue fewer of them: cheaper forms or tables instead of "
        "transcendentals where the accuracy allows, warp-uniform arithmetic hoisted out of the "
        "loop, wider shared-memory accesses; move work to a pipe with room to spare.",
    ),
}
_PROFILING_FAILED = FindingKind(
    "profiling-failed",
    "warning",
    "Profiling failed",
    "ncu could not collect this launch's metrics (its replay failed, or the kernel failed or "
    "timed out under the profiler): most of them are missing, the duration often among them, "
    "so its share of the time is unknown, not zero, and it cannot be placed.",
    "Read ncu's ==ERROR== lines for the cause, then profile the kernel again on its own "
    "(--kernel-name with --launch-skip and --launch-count); if replay is what failed, try "
    "--replay-mode application or fewer metrics per pass.",
    "profiling failed",
)
#: A few words for each advice a kernel group can be given, for the top
#: tables' "Try" lines, which name the advice and point to its one text.
_ADVICE_LABELS: dict[str, str] = {
    "below-roof": "cut the bytes and stream them faster",
    "below-roof/memory-gemm": "more rows per weight read, quantised weights, split-K",
    "below-roof/memory-attention-decode": "split-KV, GQA-aware reads, FP8 KV cache",
    "below-roof/memory-streaming": "fuse with its neighbours, 128-bit loads",
    "below-roof/memory-l1": "wide, coalesced loads; no bank conflicts",
    "below-roof/memory-l2": "raise L2 reuse (CTA swizzle, larger tiles)",
    "below-roof/compute-tensor-gemm": "run it on the tensor cores",
    "below-roof/compute-tensor": "feed the MMAs: deeper pipelines, larger tiles",
    "below-roof/compute-fp64": "keep the FP64 pipe busy, or lower the precision",
    "below-roof/compute-fma": "fewer FP instructions per result",
    "below-roof/compute-alu": "cut integer and conversion instructions",
    "below-roof/compute-issue": "issue fewer instructions per FLOP",
    "below-roof/compute": "more of the issue slots on FP math",
    "below-roof/latency-short": "fuse launches or use CUDA graphs",
    "below-roof/latency": "hide latency with more parallel work",
    "below-roof/pipe": "fewer instructions on the busiest pipe",
    "limiter-disagrees/dram": "cut DRAM traffic, then re-check the FLOP count",
    "limiter-disagrees/fp": "fewer FP instructions per result",
    "under-filled": "more parallel work per launch",
    "under-filled/gemm": "split-K or smaller tiles for this shape",
    "under-filled/attention-decode": "split the sequence across CTAs",
    "under-filled/reduction": "several rows per launch, or split long rows",
    "under-filled/many": "fuse launches or use CUDA graphs",
    "communication": "overlap communication with compute",
    "not-placeable": "collect the missing metrics",
    "profiling-failed": "profile the kernel again on its own",
}
# --- end of the group advice block -------------------------------------------

_KINDS: tuple[FindingKind, ...] = (
    FindingKind(
        "excess-traffic",
        "warning",
        "Excess DRAM traffic",
        "The kernel reads or writes far more DRAM bytes than its math needs.",
        "Reuse data on chip (tiling, shared memory), coalesce accesses, avoid re-reading inputs "
        "and check for register spills (Nsight Compute's local-memory traffic).",
        "excess traffic",
        needs_theory=True,
        variants={
            "attention-decode": (
                "A decode attention kernel reads more KV-cache bytes than one pass over the "
                "cache needs.",
                "Read each KV head once for all its query heads (a GQA-aware kernel), fill pages "
                "fully (page size vs sequence length), keep split-KV partials few, and quantise "
                "the KV cache (FP8) to halve what is left.",
            ),
            "attention": (
                "An attention kernel re-reads K and V, or writes scores, beyond one pass over "
                "its inputs.",
                "Use a fused attention kernel (FlashAttention-style tiling keeps the scores on "
                "chip), larger query tiles so K/V are re-read fewer times, and L2-friendly CTA "
                "order across heads.",
            ),
            "gemm": (
                "A GEMM moves more bytes than reading A and B once and writing C once needs.",
                "Larger CTA tiles and CTA rasterisation (swizzle) so A and B tiles are reused "
                "from L2, fewer split-K partial sums (or an in-kernel reduction), and a layout "
                "(transpose) that lets loads coalesce.",
            ),
            "streaming": (
                "An elementwise or normalisation kernel moves more than one read of its inputs "
                "and one write of its outputs.",
                "Fuse it with its producer or consumer so intermediates stay on chip, read each "
                "input once (no separate statistics pass), and avoid strided or misaligned "
                "access that over-fetches sectors.",
            ),
        },
    ),
    FindingKind(
        "above-roof",
        "warning",
        "Above a roof",
        "A point above a roof means the roof or the counters do not describe this run.",
        "Check the clocks (ncu --clock-control base), the GPU the roofs come from (--gpu, --roofs) "
        "and that the counters come from one replay of the kernel.",
        "above roof",
    ),
    FindingKind(
        "below-roof",
        "warning",
        "Far below its roof",
        "The kernel moves bytes more slowly than DRAM allows, and bytes are what limit it.",
        "Cut the bytes and make the rest move faster: reuse data on chip (tiling, shared "
        "memory), read each input once, coalesce accesses and make loads wide, and keep enough "
        "loads in flight (more blocks, several elements per thread) for DRAM to run near its peak.",
        "far below roof",
        on_stderr=False,
        variants={
            "memory-gemm": (
                "A memory-bound GEMM streams its operands (mostly the weights) from DRAM more "
                "slowly than DRAM allows; at this intensity only fewer bytes or faster streaming "
                "help.",
                "Batch more rows (tokens) per weight read so the GEMM moves right of the ridge, "
                "quantise the weights (FP8, INT4 with a weight-only kernel), use split-K or "
                "stream-K so enough CTAs stream at once, and check the library chose a GEMV or "
                "skinny-GEMM kernel for small M.",
            ),
            "memory-attention-decode": (
                "Decode attention is bound by reading the KV cache and runs under the DRAM rate.",
                "Split the sequence across CTAs (flash-decoding, split-KV) so every SM streams "
                "KV, read each KV head once for its query heads (GQA), quantise the KV cache "
                "(FP8), and use large enough pages for wide loads.",
            ),
            "memory-streaming": (
                "A streaming kernel (elementwise, normalisation, copy, reduction) makes one pass "
                "over its data with nothing to reuse: its time is its bytes over the bandwidth "
                "it reaches.",
                "Fuse it into its producer or consumer so its bytes never reach DRAM, use 128-bit "
                "vectorised loads and stores, keep enough bytes in flight per SM (more blocks, "
                "several elements per thread, a grid-stride loop), and store in lower precision "
                "where the consumer allows.",
            ),
            "memory-l1": (
                "The point is left of the ridge, but the L1/TEX path or the load/store pipe is "
                "busier than DRAM: the kernel issues too many or too narrow memory instructions.",
                _L1_ADVICE,
            ),
            "memory-l2": (
                "The point is left of the ridge, but L2 is busier than DRAM: the kernel's tiles "
                "are re-read from L2 far more than DRAM is touched.",
                _L2_ADVICE,
            ),
            "compute-tensor-gemm": (
                "The FP32 FMA pipes do this matrix work at a fraction of what the tensor cores "
                "could.",
                "Run it on the tensor cores: TF32 (cuBLAS math mode, "
                "torch.backends.cuda.matmul.allow_tf32), or BF16/FP16 inputs with FP32 "
                "accumulation; otherwise larger register tiles and double-buffered shared memory.",
            ),
            "compute-tensor": (
                "A tensor-core kernel runs well under its tensor roof: the MMAs are not fed fast "
                "enough.",
                "Deeper pipelines (more stages, cp.async or TMA, warp specialisation), larger CTA "
                "tiles, problem sizes that are multiples of the tile (no padded tiles), and a "
                "kernel built for this GPU's architecture (an sm_80 kernel on sm_90 has no "
                "wgmma).",
            ),
            "compute-fp64": (
                "The kernel's FP64 work runs well under the FP64 roof.",
                "Keep the FP64 pipe busy (unroll, more independent FMAs per thread, fewer FP64 "
                "divisions and square roots); where the accuracy allows, FP32 or mixed precision "
                "runs many times faster, most of all on GPUs with reduced-rate FP64.",
            ),
            "compute-fma": (
                "The FP32 pipes are the busiest unit, yet the kernel runs under the FP32 roof.",
                _FMA_ADVICE,
            ),
            "compute-alu": (
                "The integer/logic (ALU) pipe is busier than the FP pipes: instructions no FLOP "
                "roof counts take the issue slots.",
                _ALU_ADVICE,
            ),
            "compute-issue": (
                "Instruction issue is the busiest unit: the kernel spends its issue slots on "
                "instructions other than its FLOPs.",
                _ISSUE_ADVICE,
            ),
            "compute": (
                "The kernel has enough work per byte to be compute-bound but runs well under the "
                "compute roof.",
                "Raise the share of issue slots doing FP math: unroll, hoist address and index "
                "arithmetic out of loops, use FMAs; check occupancy and stall reasons in Nsight "
                "Compute's source view.",
            ),
            "latency-short": (
                "The kernel is too short for its work to amortise the launch.",
                _LAUNCH_ADVICE,
            ),
            "latency": (
                "The kernel is far from every roof: it cannot keep the GPU busy long enough.",
                "Hide latency with more parallel work: more resident warps (fewer registers or "
                "less shared memory per block), more independent loads and FMAs per thread, and "
                "fewer dependent global-memory round trips; Nsight Compute's warp-state "
                "statistics show what the warps wait on.",
            ),
            **_GROUP_VARIANTS,
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
        "other limiter",
        variants={
            "l1": (
                "The L1/TEX path or the load/store pipe is busier than the roof the point sits "
                "under: memory instructions, not DRAM bytes or FLOPs, limit the kernel.",
                _L1_ADVICE,
            ),
            "l2": (
                "L2 is busier than the roof the point sits under: tiles are re-read from L2.",
                _L2_ADVICE,
            ),
            "alu": (
                "The integer/logic (ALU) pipe is the busiest unit: the kernel's own FLOPs and "
                "bytes are not what it waits on.",
                _ALU_ADVICE,
            ),
            "issue": (
                "Instruction issue is the busiest unit: the kernel's own FLOPs and bytes are not "
                "what it waits on.",
                _ISSUE_ADVICE,
            ),
            "fp": (
                "An FP pipe is busier than DRAM although the point sits left of the ridge: the "
                "kernel issues more FP instructions than its counted FLOPs suggest.",
                _FMA_ADVICE,
            ),
            "dram": (
                "DRAM is busier than the compute roof although the point sits right of the "
                "ridge: bytes the intensity does not show (uncounted FLOPs, L2 misses) limit it.",
                "Cut DRAM traffic first: reuse on chip, read each input once, coalesce; then "
                "re-check the FLOP count (tensor counters, special-function work).",
            ),
        },
    ),
    FindingKind(
        "under-filled",
        "warning",
        "Under-filled GPU",
        "The grid gives the GPU fewer blocks than it has SMs: some SMs sit idle whatever the "
        "kernel's code does.",
        "Give each launch more parallel work: more, smaller blocks, batching several launches "
        "into one, or a persistent kernel sized to the SM count.",
        "under-filled",
        on_stderr=False,
        variants={
            "gemm": (
                "The GEMM's output tiles give the GPU fewer CTAs than it has SMs: SMs sit idle "
                "while the rest compute.",
                "Split K (split-K, stream-K) so each output tile is shared by several CTAs, use "
                "smaller CTA tiles for this shape, or batch the GEMMs that run back to back "
                "(grouped or batched GEMM).",
            ),
            "attention-decode": (
                "Decode attention gives the GPU one CTA per head and request, too few to fill "
                "it at this batch size.",
                "Split the sequence across CTAs (flash-decoding, split-KV with a combine step) "
                "or batch more requests per launch.",
            ),
            "reduction": (
                "A row-wise kernel (reduction, normalisation, softmax) gives one block per row, "
                "fewer than the GPU has SMs.",
                "Process several rows per launch (batch or fuse launches), or split long rows "
                "across blocks with a second, small combine pass.",
            ),
            "many": (
                "Many short kernels leave the GPU idle: each has too few blocks to fill it, and "
                "no unit is busy.",
                _LAUNCH_ADVICE,
            ),
        },
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
        "instruction mix",
        on_stderr=False,
    ),
    FindingKind(
        "not-placeable",
        "info",
        "Not placeable",
        "Without FLOP counts, byte counts, a duration or roofs a kernel cannot be placed.",
        "Collect the missing metrics: ncu --set full --print-units base, or the --metrics list "
        "`ncu-roofline inspect` prints; name the GPU with --gpu when the export lacks it.",
        "not placeable",
    ),
    _PROFILING_FAILED,
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
        "tensor uncounted",
    ),
    FindingKind(
        "fp32-packed-uncounted",
        "warning",
        "Packed FP32 not counted",
        "The GPU (CC 10.x) executes packed FP32 (FADD2, FMUL2, FFMA2, two lanes each), but the "
        "export has only the unpacked FP32 counters: FP32 work may be undercounted, by up to "
        "half of the FLOPs of a kernel the compiler packed.",
        "Profile again with sm__sass_thread_inst_executed_op_{fadd2,fmul2,ffma2}_pred_on.sum "
        "(ncu-roofline profile asks for them on CC 10.x); they count 2, 2 and 4 FLOPs each, as "
        "ncu's own FP roofline does.",
        "packed FP32",
    ),
    FindingKind(
        "no-roofs",
        "warning",
        "No roofs",
        "No peak figures are known for this device.",
        "Choose a GPU with --gpu NAME (ncu-roofline gpus lists them) or give roofs with "
        "--roofs FILE.",
        "no roofs",
    ),
    FindingKind(
        "communication",
        "info",
        "Communication",
        "Collective kernels wait on NVLink, PCIe or the network, not on DRAM.",
        "Overlap communication with compute and compare the bus bandwidth with nccl-tests.",
        "communication",
    ),
    FindingKind(
        "clock-below-datasheet",
        "info",
        "Clock below datasheet",
        "ncu locks clocks to base by default, so kernels ran slower than datasheet boost.",
        "Read efficiencies against the profile's own roofs; profile with --clock-control none to "
        "see boost-clock behaviour.",
        "low clock",
    ),
    FindingKind(
        "gpu-mismatch",
        "warning",
        "GPU mismatch",
        "The chosen GPU does not look like the profiled device.",
        "Check --gpu: roofs of another GPU make every efficiency wrong.",
        "GPU mismatch",
    ),
    FindingKind(
        "mixed-definitions",
        "warning",
        "Mixed byte definitions",
        "L2 or L1 bytes come from metric families that count different things.",
        "Collect one family for the whole profile (lts__t_bytes and l1tex__t_bytes, or ncu's "
        "roofline sections).",
        "mixed metrics",
    ),
    FindingKind(
        "no-theory",
        "info",
        "No theory",
        "Some kernels matched no theory rule or model op.",
        "Add [[kernel]] rules to a --theory file for them.",
        "no theory",
        needs_theory=True,
    ),
    FindingKind(
        "theory-mismatch",
        "warning",
        "Theory does not match the run",
        "",
        "",
        "theory mismatch",
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
        "roof mismatch",
    ),
    # --- tail effect (waves per SM) ---
    FindingKind(
        "tail-effect",
        "warning",
        "Partial last wave (tail effect)",
        "The grid runs in more than one wave and the last one is partial: while it runs, part "
        "of the GPU's block slots are empty. If every block takes as long, the tail wastes "
        "(1 - partial share) / ceil(waves) of the runtime (ncu's TailEffect rule quotes the "
        "whole partial wave's share, 1 / ceil(waves), as an upper bound).",
        "Size the grid to a whole number of waves (blocks = SMs x resident blocks per SM x k), "
        "give each block more or less work so the count fits, raise occupancy so a wave holds "
        "more blocks, or use a persistent kernel that loops over the work.",
        "tail effect",
        on_stderr=False,
    ),
    # --- the time budget of an nsys timeline (analysis/budget) ---
    FindingKind(
        "launch-bound",
        "warning",
        "Launch-bound: the GPU waits between kernels",
        "Idle gaps and kernels of a few microseconds make a large share of the step: the GPU "
        "spends that time waiting for the CPU to launch the next kernel, or running kernels too "
        "short to hide their own launch, and no kernel-level tuning recovers it.",
        "Capture the step in a CUDA graph (torch.cuda.graphs, torch.compile mode "
        "'reduce-overhead', CUDA Graph APIs) so one launch replays every kernel; fuse the small "
        "kernels (torch.compile, a fused epilogue, a custom kernel); use a persistent kernel that "
        "loops over the work; or give each step more work (a larger batch, several requests "
        "per step).",
        "launch bound",
    ),
    FindingKind(
        "graph-launched",
        "info",
        "Kernels launched by CUDA graphs",
        "These kernels were replayed from CUDA graphs (one graph launch, one correlation id, "
        "many kernels): their CPU launch overhead is already amortised, so gaps between them "
        "are dependencies or GPU-side latency, not launch latency.",
        "Look elsewhere for launch overhead: the kernels launched outside the graphs, and the "
        "gaps between graph launches (CPU work between steps).",
        "CUDA graphs",
        # Good news, not a problem: nothing to gate on.
        gateable=False,
    ),
    FindingKind(
        "unprofiled-hot",
        "warning",
        "Hot kernels ncu did not profile",
        "Kernels that ncu did not profile take a large share of the timeline's kernel time: the "
        "roofline says nothing about them, so its ranking misses that time.",
        "Profile them with the ncu options the finding names (--kernel-name regex:NAME "
        "--launch-skip N --launch-count M) and analyse the exports together.",
        "unprofiled",
    ),
)

#: Every finding kind by its id, in catalogue order.
CATALOGUE: Mapping[str, FindingKind] = {k.kind: k for k in _KINDS}

#: The rules that detect findings, in the order they run, and the kinds each
#: may report: every one a function of the evidence returning findings
#: (:data:`~ncu_roofline.analysis.findings.finding.Rule`).  Named, not
#: imported: the rules need pandas, the catalogue must not.
RULES: Mapping[str, tuple[str, ...]] = {
    "theory_findings": ("excess-traffic", "theory-mismatch", "no-theory"),
    "device_findings": ("no-roofs", "gpu-mismatch", "clock-below-datasheet"),
    "roof_mismatch_findings": ("roof-mismatch",),
    "above_roof_findings": ("above-roof",),
    "below_roof_findings": ("below-roof",),
    "limiter_findings": ("limiter-disagrees", "under-filled", "tail-effect", "instruction-mix"),
    "unplaced_findings": ("not-placeable",),
    "failed_profile_findings": ("profiling-failed",),
    "communication_findings": ("communication",),
    "mixed_definition_findings": ("mixed-definitions",),
    "tensor_uncounted_findings": ("tensor-uncounted",),
    "packed_fp32_findings": ("fp32-packed-uncounted",),
}

#: Rules over other evidence than an analysis, and the kinds each may
#: report: the budget of an nsys timeline
#: (:func:`~ncu_roofline.analysis.budget.findings.budget_findings`, which the
#: report calls with a budget record; it is no
#: :data:`~ncu_roofline.analysis.findings.finding.Rule`).
TIMELINE_RULES: Mapping[str, tuple[str, ...]] = {
    "budget_findings": ("launch-bound", "graph-launched", "unprofiled-hot"),
}

#: Kinds a ``--fail-on`` gate may name.
GATEABLE_KINDS: tuple[str, ...] = tuple(k.kind for k in _KINDS if k.gateable)

#: Kinds that exist only when theory (``--theory`` or ``--model``) is given.
THEORY_KINDS: tuple[str, ...] = tuple(k.kind for k in _KINDS if k.needs_theory)


def severity_of(kind: str) -> str:
    """The usual severity of ``kind``."""
    return CATALOGUE[kind].severity


def advice(advice_id: str | None) -> tuple[str, str]:
    """Why a finding with advice ``advice_id`` (``kind`` or ``kind/variant``) matters, and what to try.

    Unknown kinds (from a report written by another version) get no advice;
    an unknown variant of a known kind gets the kind's default.
    """
    kind, _, variant = (advice_id or "").partition("/")
    entry = CATALOGUE.get(kind)
    return entry.advice(variant or None) if entry is not None else ("", "")


def advice_label(advice_id: str | None) -> str:
    """A few words naming advice ``advice_id`` (a top table's "Try" line); its kind's title else."""
    if advice_id in _ADVICE_LABELS:
        return _ADVICE_LABELS[advice_id]
    entry = CATALOGUE.get((advice_id or "").partition("/")[0])
    return entry.title if entry is not None else (advice_id or "")


def abbreviation(kind: str) -> str:
    """The kind in a few words for the terminal summary; unknown kinds as their words."""
    entry = CATALOGUE.get(kind)
    return entry.abbreviation if entry is not None else kind.replace("-", " ")[:20]
