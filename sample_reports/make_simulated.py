"""Write the SIMULATED sample export in this folder.

No GPU was at hand when this sample was made, so its counters are synthetic:
derived from the minimal FLOPs and bytes of each operation of Llama-3-8B
decode (batch 1, context 2048, bf16) with plausible inefficiencies, at an
H100 SXM's clocks and peaks.  The file says so in its first lines.  It has
the exact shape of a live ``ncu --csv --print-units base`` details export
from ncu 2025.x: program output and ``==PROF==`` lines before the table, the
20-column header with rule columns, metric rows ending in a trailing comma.

Run ``python sample_reports/make_simulated.py`` to regenerate; a test checks
that the committed file matches this script's output.
"""

from __future__ import annotations

import csv
import io
import random
import sys
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parent / "simulated_llama3_8b_decode_h100.details.csv"

HEADER = [
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
    "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
    "Metric Value", "Rule Name", "Rule Type", "Rule Description", "Estimated Speedup Type",
    "Estimated Speedup",
]  # fmt: skip

SM_CLOCK = 1_593_000_000.0  # ncu locks clocks to base by default
DRAM_CLOCK = 2_619_000_000.0
SMS = 132
PEAK_FFMA = SMS * 128  # FP32 FMA thread instructions per cycle
PEAK_DFMA = SMS * 64
PEAK_HFMA = SMS * 128  # packed half2: 4 FLOPs each
PEAK_DRAM_BYTES_PER_CYCLE = 1_280
PEAK_TENSOR_BF16 = SMS * 4_096  # dense bf16 tensor ops per cycle

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, FFN, VOCAB, CTX = 4096, 32, 8, 128, 14336, 128256, 2048
BF16 = 2


@dataclass
class Op:
    """One kernel launch: minimal work and the inefficiencies applied to it."""

    name: str
    block: tuple[int, int, int]
    grid: tuple[int, int, int]
    flops_fp32_fma: float  # FMA thread instructions
    flops_fp32_add: float
    flops_fp32_mul: float
    tensor_ops: float
    dram_read: float
    dram_write: float
    bw_efficiency: float  # achieved fraction of peak DRAM bandwidth
    l2_factor: float
    l1_factor: float
    min_time_s: float = 2.5e-6  # launch and tail latency floor


def _gemv(name: str, n: int, k: int, eff: float) -> Op:
    weights = n * k * BF16
    return Op(
        name, (128, 1, 1), ((n + 3) // 4, 1, 1), n * k, n * 4, 0.0, 0.0,
        weights + k * BF16, n * BF16, eff, 1.05, 1.6,
    )  # fmt: skip


KERNELS = {
    "gemv": (
        "void gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, float, float, false, true, "
        "true, false, 7, false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<const "
        "__nv_bfloat16>, cublasGemvTensorStridedBatched<const __nv_bfloat16>, "
        "cublasGemvTensorStridedBatched<__nv_bfloat16>, float>>(T13, T6, T6)"
    ),
    "rmsnorm": (
        "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16 *, const c10::BFloat16 *, "
        "const c10::BFloat16 *, float, int, int)"
    ),
    "fused_add_rmsnorm": (
        "void vllm::fused_add_rms_norm_kernel<c10::BFloat16, 8>(c10::BFloat16 *, "
        "c10::BFloat16 *, const c10::BFloat16 *, float, int, int)"
    ),
    "rotary": (
        "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(const long *, c10::BFloat16 *, "
        "c10::BFloat16 *, const c10::BFloat16 *, int, long, long, int, int, int)"
    ),
    "attn": (
        "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, "
        "false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t>>, "
        "false, false, false, false, true, true, false, false>(Flash_fwd_params)"
    ),
    "attn_combine": (
        "void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, "
        "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, "
        "cutlass::bfloat16_t>>, 4, 3, true>(Flash_fwd_params)"
    ),
    "silu_mul": (
        "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>"
        "(c10::BFloat16 *, const c10::BFloat16 *, int)"
    ),
    "argmax": (
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
        "at::native::ArgMaxOps<float>, unsigned int, long, 4>>(T3)"
    ),
    "copy": (
        "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl_nocast<"
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda() (instance "
        "3)]::operator ()() const::[lambda() (instance 7)]::operator ()() const::[lambda(float) "
        "(instance 1)]>(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)"
    ),
    "prefill_gemm": (
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_"
        "execute_segment_k_off_kernel__5x_cublas"
    ),
}


def _layer_ops() -> list[Op]:
    kv_bytes = 2 * CTX * KV_HEADS * HEAD_DIM * BF16
    attn_flops = 4 * HEADS * CTX * HEAD_DIM
    qkv_n = HIDDEN + 2 * KV_HEADS * HEAD_DIM
    return [
        Op(KERNELS["rmsnorm"], (1024, 1, 1), (1, 1, 1), HIDDEN, 2 * HIDDEN, 2 * HIDDEN, 0,
           3 * HIDDEN * BF16, HIDDEN * BF16, 0.02, 1.2, 1.5),
        _gemv(KERNELS["gemv"], qkv_n, HIDDEN, 0.86),
        Op(KERNELS["rotary"], (512, 1, 1), (1, 1, 1), 2 * (HEADS + KV_HEADS) * HEAD_DIM, 0,
           2 * (HEADS + KV_HEADS) * HEAD_DIM, 0, 2 * (HEADS + KV_HEADS) * HEAD_DIM * BF16 * 1.5,
           (HEADS + KV_HEADS) * HEAD_DIM * BF16, 0.03, 1.3, 2.0),
        # Split-KV decode re-reads each KV head once per query head of its
        # group when the kernel is not GQA-aware: 4x the minimal KV bytes.
        Op(KERNELS["attn"], (128, 1, 1), (1, 32, 16), attn_flops / 2, attn_flops / 8,
           attn_flops / 8, 0, kv_bytes * 4 + HEADS * HEAD_DIM * BF16,
           16 * HEADS * HEAD_DIM * 4, 0.55, 1.2, 2.5),
        Op(KERNELS["attn_combine"], (128, 1, 1), (32, 1, 1), 16 * HEADS * HEAD_DIM, 0,
           16 * HEADS * HEAD_DIM, 0, 16 * HEADS * HEAD_DIM * 4, HEADS * HEAD_DIM * BF16, 0.01,
           1.1, 1.4),
        _gemv(KERNELS["gemv"], HIDDEN, HIDDEN, 0.84),
        Op(KERNELS["fused_add_rmsnorm"], (1024, 1, 1), (1, 1, 1), HIDDEN, 3 * HIDDEN,
           2 * HIDDEN, 0, 4 * HIDDEN * BF16, 2 * HIDDEN * BF16, 0.02, 1.2, 1.5),
        _gemv(KERNELS["gemv"], 2 * FFN, HIDDEN, 0.91),
        Op(KERNELS["silu_mul"], (1024, 1, 1), (1, 1, 1), FFN, FFN, 3 * FFN, 0,
           2 * FFN * BF16, FFN * BF16, 0.05, 1.1, 1.3),
        _gemv(KERNELS["gemv"], HIDDEN, FFN, 0.9),
    ]  # fmt: skip


def _ops() -> list[Op]:
    ops: list[Op] = []
    for _ in range(4):
        ops.extend(_layer_ops())
    ops.append(_gemv(KERNELS["gemv"], VOCAB, HIDDEN, 0.92))
    ops.append(
        Op(KERNELS["argmax"], (512, 1, 1), (1, 1, 1), 0, VOCAB, 0, 0, VOCAB * 4, 8, 0.04, 1.1, 1.2)
    )
    # A float32 copy with a strided (uncoalesced) access pattern: 8 sectors
    # fetched per useful one.
    n_copy = 16 * 1024 * 1024
    ops.append(
        Op(KERNELS["copy"], (128, 1, 1), (32768, 1, 1), 0, 0, 0, 0, n_copy * 4 * 3.2, n_copy * 4,
           0.62, 4.0, 8.0)
    )  # fmt: skip
    # One prefill-sized GEMM (M=N=K=4096) on the tensor cores.
    m = 4096
    ops.append(
        Op(KERNELS["prefill_gemm"], (384, 1, 1), (16, 32, 1), 0, 0, 0, 2.0 * m * m * m,
           3 * m * m * BF16 * 1.15, m * m * BF16, 0.0, 6.0, 9.0)
    )  # fmt: skip
    return ops


def _fmt(value: float) -> str:
    if float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}"


def _rows(rng: random.Random) -> list[list[str]]:
    rows: list[list[str]] = []
    for launch_id, op in enumerate(_ops()):
        jitter = rng.uniform(0.97, 1.03)
        dram_read = round(op.dram_read * jitter / 32) * 32
        dram_write = round(op.dram_write * rng.uniform(0.99, 1.01) / 32) * 32
        dram = dram_read + dram_write
        peak_bw = PEAK_DRAM_BYTES_PER_CYCLE * DRAM_CLOCK
        t_mem = dram / (peak_bw * op.bw_efficiency) if op.bw_efficiency > 0 else 0.0
        t_tensor = op.tensor_ops / (PEAK_TENSOR_BF16 * SM_CLOCK * 0.71) if op.tensor_ops else 0.0
        duration_ns = round(max(t_mem, t_tensor, op.min_time_s * jitter) * 1e9)
        seconds = duration_ns * 1e-9
        sm_clock = SM_CLOCK * rng.uniform(0.999, 1.001)
        cycles = seconds * sm_clock
        fp32_flops = op.flops_fp32_add + op.flops_fp32_mul + 2 * op.flops_fp32_fma
        sm_pct = min(
            99.0,
            100
            * max(
                fp32_flops / (2 * PEAK_FFMA * cycles) if cycles else 0,
                op.tensor_ops / (PEAK_TENSOR_BF16 * cycles) if cycles else 0,
            )
            + rng.uniform(2, 9),
        )
        dram_pct = 100 * dram / (peak_bw * seconds)
        metrics: list[tuple[str, str, float]] = [
            ("dram__bytes_read.sum", "byte", dram_read),
            ("dram__bytes_write.sum", "byte", dram_write),
            ("dram__bytes.sum.peak_sustained", "byte/cycle", PEAK_DRAM_BYTES_PER_CYCLE),
            ("dram__cycles_elapsed.avg.per_second", "hz", round(DRAM_CLOCK * jitter, 2)),
            ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "%",
             round(max(dram_pct, sm_pct * 0.5) * 1.02, 2)),
            ("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed", "%", round(dram_pct, 2)),
            ("gpu__time_duration.sum", "ns", duration_ns),
            ("l1tex__t_bytes.sum", "byte", round(dram * op.l1_factor / 32) * 32),
            ("lts__t_bytes.sum", "byte", round(dram * op.l2_factor / 32) * 32),
            ("sm__cycles_elapsed.avg", "cycle", round(cycles, 2)),
            ("sm__cycles_elapsed.avg.per_second", "hz", round(sm_clock, 2)),
            ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", "", round(op.tensor_ops)),
            ("sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained", "", PEAK_TENSOR_BF16),
            ("sm__sass_thread_inst_executed_op_dadd_pred_on.sum", "inst", 0),
            ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum", "inst", 0),
            ("sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained", "inst/cycle",
             PEAK_DFMA),
            ("sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "inst", 0),
            ("sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "inst", round(op.flops_fp32_add)),
            ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", round(op.flops_fp32_fma)),
            ("sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained", "inst/cycle",
             PEAK_FFMA),
            ("sm__sass_thread_inst_executed_op_fmul_pred_on.sum", "inst", round(op.flops_fp32_mul)),
            ("sm__sass_thread_inst_executed_op_hadd_pred_on.sum", "inst", 0),
            ("sm__sass_thread_inst_executed_op_hfma_pred_on.sum", "inst", 0),
            ("sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained", "inst/cycle",
             PEAK_HFMA),
            ("sm__sass_thread_inst_executed_op_hmul_pred_on.sum", "inst", 0),
            ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", round(sm_pct, 2)),
        ]  # fmt: skip
        ident = [
            str(launch_id), "4242", "python3.12", "127.0.0.1", op.name, "1", "7",
            "({}, {}, {})".format(*op.block), "({}, {}, {})".format(*op.grid), "0", "9.0",
        ]  # fmt: skip
        for name, unit, value in metrics:
            # ncu ends metric rows after "Metric Value" when rule columns exist.
            rows.append([*ident, "Command line profiler metrics", name, unit, _fmt(value), ""])
        if dram_pct < 60 and sm_pct < 60:
            rows.append(
                [*ident, "SpeedOfLight", "", "", "", "SOLBottleneck", "OPT",
                 "This workload exhibits low compute throughput and memory bandwidth "
                 "utilization relative to the peak performance of this device.", "global",
                 f"{100 - max(dram_pct, sm_pct):.2f}"]
            )  # fmt: skip
    return rows


def render() -> str:
    """The sample export as text (deterministic)."""
    rng = random.Random(20261130)
    buf = io.StringIO()
    buf.write("==PROF== Connected to process 4242 (/usr/bin/python3.12)\n")
    buf.write("SIMULATED SAMPLE: synthetic counters written by sample_reports/make_simulated.py,\n")
    buf.write("not measured on a GPU. Llama-3-8B decode, batch 1, context 2048, bf16, H100 SXM.\n")
    buf.write("==PROF== Disconnected from process 4242\n")
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(HEADER)
    for row in _rows(rng):
        line = io.StringIO()
        csv.writer(line, quoting=csv.QUOTE_ALL, lineterminator="").writerow(row)
        text = line.getvalue()
        if row[-1] == "" and len(row) == 16:
            text = text[: -len('""')]  # the trailing comma with nothing after it
        buf.write(text + "\n")
    return buf.getvalue()


def main() -> int:
    """Write the sample next to this script."""
    OUT.write_text(render(), encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
