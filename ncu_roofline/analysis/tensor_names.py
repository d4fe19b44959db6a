"""What a kernel's name says about its tensor-core work.

Library kernels spell their tensor-core use in their names: cuBLAS and
cuDNN give the MMA instruction shape (``ampere_s16816gemm``,
``volta_h884gemm``), CUTLASS its operator class and warp-level MMA
(``cutlass_80_tensorop_*``, ``OpClassTensorOp``, ``Mma<GemmShape<16, 8,
16>, 32, ...>``), Hopper and Blackwell kernels their instruction family
(``wgmma``, ``gmma``, ``tcgen05``, ``xmma``, ``nvjet``).  Names are
evidence, not counts: the measures count work, and a name only says that
work the export did not count may be missing.
"""

from __future__ import annotations

import re

_NAME_SHAPES = (
    # cuBLAS / CUTLASS procedural names: s16816gemm, h1688gemm, i16832gemm, s884cudnn ...
    re.compile(r"(?<![0-9])(16816|16832|1688|1684|884)(?:gemm|cudnn)"),
    # CUTLASS 2.x templates spell the instruction shape as Mma<GemmShape<16, 8, 16>, 32, ...;
    # ncu 2023 and older print it with namespaces and casts:
    # arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)8>, (int)32, ...
    re.compile(
        r"(?<![A-Za-z0-9_])Mma<(?:cutlass::)?(?:gemm::)?GemmShape<"
        r"(?:\(int\))?(\d+), (?:\(int\))?(\d+), (?:\(int\))?(\d+)>, (?:\(int\))?32,"
    ),
)
_SHAPE_FLOPS = {"884": 512.0, "1684": 1024.0, "1688": 2048.0, "16816": 4096.0, "16832": 8192.0}


def name_mma_flops(name: str) -> float | None:
    """FLOPs per warp-level MMA instruction read off a kernel name, if it says.

    ``ampere_fp16_s16816gemm_...`` -> 4096 (2 x 16 x 8 x 16);
    ``...Mma<GemmShape<16, 8, 8>, 32, ...`` (also spelled
    ``arch::Mma<cutlass::gemm::GemmShape<(int)16, (int)8, (int)8>, (int)32, ...``)
    -> 2048; Volta's ``884`` and its ``GemmShape<16, 16, 4>`` warp shape -> 512
    per counted HMMA.884 instruction.
    """
    m = _NAME_SHAPES[0].search(name)
    if m:
        return _SHAPE_FLOPS[m.group(1)]
    m = _NAME_SHAPES[1].search(name)
    if m:
        mm, nn, kk = (int(g) for g in m.groups())
        if kk == 4:
            # Volta's only tensor instruction is HMMA.884: CUTLASS's 8x8x4 and
            # 16x16x4 warp shapes are both issued as 8x8x4 products, and ncu
            # counts those instructions, 2 x 8 x 8 x 4 FLOPs each.
            return 512.0
        return 2.0 * mm * nn * kk
    return None


#: Kernel names that say the kernel runs on the tensor cores.  Attention
#: kernels (``flash_fwd_kernel``, FlashInfer's ``BatchDecodeWithPagedKVCache``)
#: are not in it: decode attention often runs on the FMA pipes, and only a
#: measurement can tell.  CUTLASS's SIMT ``Mma<GemmShape<1, 1, 1>, 1, ...>``
#: is not either (the warp-level shape needs 32 threads, see
#: :func:`name_mma_flops`).
TENSOR_KERNEL_NAME = re.compile(
    # not c10::TensorOptions, which PyTorch kernels carry in their names
    r"tensorop(?!tion)"
    r"|(?<![0-9])(?:884|1684|1688|16816|16832|8816|8832)(?:gemm|cudnn|conv)"
    r"|(?<![a-z])(?:[hidbq]mma|wmma|w?gmma|[hibq]gmma|utc[a-z]*mma|xmma|tcgen05|nvjet)(?![a-z])",
    re.IGNORECASE,
)


def is_tensor_kernel_name(name: str) -> bool:
    """Whether a kernel's name says it runs on the tensor cores.

    ``cutlass_80_tensorop_bf16_s16816gemm_relu_...`` -> True;
    ``ampere_sgemm_128x128_nn`` (SIMT) -> False;
    ``sm90_xmma_gemm_bf16bf16_...`` -> True;
    ``flash_fwd_kernel<...>`` -> False; ``...(c10::TensorOptions)`` -> False.
    """
    return bool(TENSOR_KERNEL_NAME.search(name)) or name_mma_flops(name) is not None
