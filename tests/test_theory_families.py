"""Kernel-name families: example names of every naming scheme, and the real samples.

The example names come from the research notes on kernel-name patterns
(theory.md section 3.1) and from public profiles (issue threads, vendor
sources); where a name is abridged there, a complete plausible spelling is
used.  The sample test classifies every distinct kernel name in the real ncu
exports (``../shared/ncu-samples/``) and in the repository's simulated
LLM-decode report, and states the expected family of each one explicitly.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline import load
from ncu_roofline.theory.families import (
    DTYPES,
    FAMILIES,
    LIBRARIES,
    KernelFamily,
    classify,
    classify_names,
)
from tests.helpers import REPO

FA2_FWD = (
    "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t, Flash_kernel_traits<128, 128, 64, 4, cutlass::bfloat16_t> >, "
    "false, true, false, false, true, true, false, false>(Flash_fwd_params)"
)
FA3_CAUSAL = (
    "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
    "flash::CollectiveMainloopFwdSm90<2, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, "
    "cute::tuple<cute::C<128>, cute::C<128>, cute::C<128> >, 128, cutlass::bfloat16_t, float, "
    "cutlass::arch::Sm90, true, false, false, true, true, false, false, true, true, true, false, "
    "false, cutlass::bfloat16_t, 1>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<128>, "
    "cute::C<128>, cute::C<128> >, cute::tuple<cute::C<1>, cute::C<1>, cute::C<1> >, "
    "cutlass::bfloat16_t, cutlass::arch::Sm90, 256, true, true, false, false>, "
    "flash::VarlenDynamicPersistentTileScheduler<128, 128, 256, 128, false, true, true, true, "
    "true, true> > > >"
)
FA3_NONCAUSAL_CAST = (
    "void cutlass::device_kernel<flash::enable_sm90_or_later<flash::FlashAttnFwdSm90<"
    "flash::CollectiveMainloopFwdSm90<(int)2, cute::tuple<cute::C<(int)1>, cute::C<(int)1>, "
    "cute::C<(int)1>>, cute::tuple<cute::C<(int)128>, cute::C<(int)176>, cute::C<(int)128>>, "
    "(int)128, cutlass::half_t, float, cutlass::arch::Sm90, (bool)0, (bool)0, (bool)0, (bool)1, "
    "(bool)1, (bool)0, (bool)0, (bool)1, (bool)1, (bool)1, (bool)0, (bool)0, "
    "cutlass::bfloat16_t>, flash::CollectiveEpilogueFwd<cute::tuple<cute::C<(int)128>, "
    "cute::C<(int)128>, cute::C<(int)176>>>>>>(T1::Params)"
)
CUTLASS3_TEMPLATE = (
    "void cutlass::device_kernel<cutlass::gemm::kernel::GemmUniversal<cute::tuple<int, int, int, "
    "int>, cutlass::gemm::collective::CollectiveMma<cutlass::gemm::MainloopSm90TmaGmmaWarpSpecialized"
    "<4, cute::tuple<cute::C<2>, cute::C<1>, cute::C<1> >, "
    "cutlass::gemm::KernelTmaWarpSpecializedCooperative>, cute::tuple<cute::C<128>, cute::C<128>, "
    "cute::C<64> >, cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, long>, "
    "cutlass::float_e4m3_t, cute::tuple<long, cute::C<1>, long> >, "
    "cutlass::epilogue::collective::CollectiveEpilogue<cutlass::epilogue::fusion::"
    "LinearCombination<cutlass::bfloat16_t, float, cutlass::bfloat16_t, float> >, void> >"
    "(cutlass::gemm::kernel::GemmUniversal<>::Params)"
)

# (name, family, library, dtype, out_dtype, tile, details subset)
Case = tuple[str, str, str | None, str | None, str | None, tuple[int, ...] | None, dict[str, Any]]

# fmt: off
CASES: list[Case] = [
    # --- cuBLAS legacy -----------------------------------------------------
    (
        "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_nn",
        "gemm", "cublas", "fp16", "fp16", (128, 128, 32),
        {"mma": "m16n8k16", "stages": 5, "layout": "nn", "arch": "sm80", "acc_dtype": "fp32"},
    ),
    (
        "ampere_h16816gemm_128x64_ldg8_stages_64x3_nn",
        "gemm", "cublas", "fp16", "fp16", (128, 64, 64), {"stages": 3, "acc_dtype": "fp16"},
    ),
    ("volta_sgemm_128x64_nn", "gemm", "cublas", "fp32", "fp32", (128, 64), {"layout": "nn"}),
    (
        "volta_h884gemm_64x64_ldg8_nn",
        "gemm", "cublas", "fp16", "fp16", (64, 64), {"mma": "m8n8k4", "ldg": 8, "arch": "sm70"},
    ),
    (
        "ampere_bf16_s1688gemm_bf16_128x128_ldg8_f2f_stages_32x1_nn",
        "gemm", "cublas", "bf16", "bf16", (128, 128, 32), {"mma": "m16n8k8", "stages": 1},
    ),
    (
        "ampere_sgemm_32x32_sliced1x4_tn",
        "gemm", "cublas", "fp32", "fp32", (32, 32), {"sliced": "1x4", "layout": "tn"},
    ),
    (
        "ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn",
        "gemm", "cublas", "fp16", "fp32", (256, 128, 64), {"stages": 3},
    ),
    (
        "volta_s884cudnn_fp16_256x64_ldg8_relu_exp_small_nhwc_tn_v1",
        "conv", "cudnn", "fp16", "fp32", (256, 64), {"mma": "m8n8k4", "tensor_layout": "nhwc"},
    ),
    (
        "volta_s884cudnn_fp16_128x128_ldg8_dgrad_f2f_exp_small_nhwc2nchw_tt_v1",
        "conv", "cudnn", "fp16", "fp32", (128, 128), {"layout": "tt"},
    ),
    # --- cuBLASLt / cuDNN xmma -------------------------------------------------
    (
        "sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize160x128x32_stage4_warpsize2x2x1_"
        "tensor16x8x16_kernel",
        "gemm", "cublasLt", "fp16", "fp16", (160, 128, 32),
        {"arch": "sm80", "stages": 4, "mma": "m16n8k16", "layout": "nn", "warps": (2, 2, 1)},
    ),
    (
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
        "execute_segment_k_off_kernel__5x_cublas",
        "gemm", "cublasLt", "bf16", "bf16", (128, 128, 64),
        {"arch": "sm90", "layout": "tn", "segment_k": False, "acc_dtype": "fp32"},
    ),
    (
        "sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_tilesize128x128x32_"
        "stage4_warpsize2x2x1_g1_tensor16x8x16_kernel",
        "conv", "cudnn", "fp16", "fp16", (128, 128, 32), {"direction": "fprop", "stages": 4},
    ),
    (
        "sm89_xmma_gemm_e4m3e4m3_bf16f32_f32_tn_n_tilesize128x128x64_stage3_warpsize2x2x1_"
        "tensor16x8x32_kernel",
        "gemm", "cublasLt", "fp8", "bf16", (128, 128, 64), {"fp8_format": "e4m3"},
    ),
    # --- nvjet ----------------------------------------------------------------------
    (
        "nvjet_hsh_192x192_64x3_2x1_v_bz_coopB_NTN",
        "gemm", "nvjet", "fp16", "fp16", (192, 192, 64),
        {"stages": 3, "cluster": (2, 1), "layout": "NTN", "raster": "v", "coop": "B"},
    ),
    (
        "nvjet_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
        "gemm", "nvjet", "bf16", "bf16", (256, 128, 64),
        {"stages": 4, "cluster": (1, 2), "layout": "NNT", "type_code": "tst"},
    ),
    ("nvjet_sm90_hss_320x128", "gemm", "nvjet", "fp16", "fp32", (320, 128), {"arch": "sm90"}),
    (
        "nvjet_tst_64x24_64x16_4x1_v_bz_splitK_bias_TNT",
        "gemm", "nvjet", "bf16", "bf16", (64, 24, 64), {"split_k": True, "layout": "TNT"},
    ),
    # --- cuBLAS GEMV / small -----------------------------------------------------------
    (
        "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, "
        "cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
        "float> >(cublasGemvParams<cublasGemvTensorStridedBatched<float const>, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>, "
        "float>, float, float)",
        "gemv", "cublas", "fp32", "fp32", None, {"transpose": "T"},
    ),
    ("gemv2N_kernel", "gemv", "cublas", None, None, None, {"transpose": "N"}),
    (
        "void gemvx::kernel<int, int, __half, __half, __half, float, false, true, true, false, 7, "
        "false, cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__half const>, "
        "cublasGemvTensorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half>, "
        "float> >(cublasGemvParamsEx<int, cublasGemvTensorStridedBatched<__half const>, "
        "cublasGemvTensorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half>, "
        "float>, float, float)",
        "gemv", "cublas", "fp16", "fp16", None, {"op": "gemv"},
    ),
    (
        "void gemvNSP_kernel<float, float, float, 1, 16, 4, 1024>(int)",
        "gemv", "cublas", "fp32", None, None, {},
    ),
    (
        "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 4, 4, true, "
        "cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float>>"
        "(cublasGemmSmallNParams<float>)",
        "gemm", "cublas", "fp32", "fp32", None, {"skinny": True, "layout": "tn"},
    ),
    (
        "void gemmk1_kernel<int, float, 256, 5, false, false>(float)",
        "gemm", "cublas", "fp32", "fp32", None, {},
    ),
    (
        "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, "
        "__nv_bfloat16, true, false, false>(cublasLt::cublasSplitKParams<float>, float const*, "
        "__nv_bfloat16 const*, __nv_bfloat16*, float const*)",
        "reduce", "cublasLt", "fp32", "bf16", None, {"split_k_reduce": True},
    ),
    (
        "void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensor<float const>, "
        "cublasGemvTensorStridedBatched<float> > >(cublasDotParams<cublasGemvTensor<float "
        "const>, cublasGemvTensorStridedBatched<float> >)",
        "gemv", "cublas", "fp32", "fp32", None, {"op": "dot"},
    ),
    # --- CUTLASS ------------------------------------------------------------------------
    (
        "void cutlass::Kernel<cutlass_80_tensorop_f16_s16816gemm_f16_256x128_32x3_tn_align8>"
        "(cutlass_80_tensorop_f16_s16816gemm_f16_256x128_32x3_tn_align8::Params)",
        "gemm", "cutlass", "fp16", "fp16", (256, 128, 32),
        {"arch": "sm80", "stages": 3, "layout": "tn", "align": 8, "mma": "m16n8k16"},
    ),
    (
        "cutlass_tensorop_s1688gemm_f16_256x128_32x2_nn_align8",
        "gemm", "cutlass", "fp16", "fp32", (256, 128, 32), {"stages": 2, "mma": "m16n8k8"},
    ),
    (
        "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
        "gemm", "cutlass", "bf16", "bf16", (256, 128, 32), {"flags": ("relu",)},
    ),
    (
        "cutlass_80_simt_sgemm_128x128_8x4_nn_align1",
        "gemm", "cutlass", "fp32", "fp32", (128, 128, 8), {"opclass": "simt"},
    ),
    (
        "cutlass3x_sm90_tensorop_s64x128x16gemm_f16_f16_f32_f16_f16_128x128x64_1x1x1_0_tnn_align8_"
        "warpspecialized_cooperative_epi_tma",
        "gemm", "cutlass", "fp16", "fp16", (128, 128, 64),
        {"arch": "sm90", "cluster": (1, 1, 1), "stages": "auto", "layout": "tnn"},
    ),
    (
        CUTLASS3_TEMPLATE,
        "gemm", "cutlass", "fp8", "bf16", (128, 128, 64),
        {"arch": "sm90", "stages": 4, "schedule": "KernelTmaWarpSpecializedCooperative"},
    ),
    (
        "void cutlass::Kernel<cutlass::conv::kernel::ImplicitGemmConvolution<cutlass::conv::"
        "threadblock::ImplicitGemmMultistage<cutlass::gemm::GemmShape<128, 128, 64>, "
        "cutlass::half_t>>>(Params)",
        "conv", "cutlass", "fp16", None, (128, 128, 64), {},
    ),
    # --- cuDNN ------------------------------------------------------------------------------
    (
        "void cudnn::detail::implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, true, "
        "false, true>(int, int, int, float const*, int, float*, float const*, kernel_conv_params, "
        "unsigned long long, int, float, float, int, float const*, float const*, bool, int, int)",
        "conv", "cudnn", "fp32", "fp32", None, {"algorithm": "implicit"},
    ),
    (
        "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>"
        "(cudnn::winograd_nonfused::WinogradDataParams<float, float>)",
        "conv", "cudnn", "fp32", "fp32", None, {"algorithm": "winograd"},
    ),
    ("fft1d_r2c_32", "conv", None, None, None, None, {}),
    (
        "void cudnn::ops::nchwToNhwcKernel<__half, __half, float, false, true, "
        "(cudnnKernelDataType_t)0>(cudnn::ops::nchw2nhwc_params_t<float>, __half const*, __half*)",
        "copy", "cudnn", "fp16", "fp16", None, {"op": "layout_transform"},
    ),
    ("nchwToNhwcKernel", "copy", None, None, None, None, {}),
    # --- FlashAttention -------------------------------------------------------------------------
    (
        FA2_FWD,
        "attention_prefill", "flash-attn", "bf16", "bf16", (128, 64),
        {"head_dim": 128, "causal": True, "warps": 4, "version": 2},
    ),
    (
        FA2_FWD.replace("flash::flash_fwd_kernel", "pytorch_flash::flash_fwd_kernel")
        .replace(
        "false, true, false, false, true, true, false, false>",
        "false, false, false, false, true, true, false, false>",
        )
        .replace("cutlass::bfloat16_t", "cutlass::half_t"),
        "attention_prefill", "flash-attn", "fp16", "fp16", (128, 64),
        {"head_dim": 128, "causal": False, "vendored_by": "pytorch"},
    ),
    (
        "void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<64, 64, 256, 4, false, "
        "false, cutlass::half_t, Flash_kernel_traits<64, 64, 256, 4, cutlass::half_t> >, true, "
        "false, false, false, true, true, false, true, false>(Flash_fwd_params)",
        "attention_decode", "flash-attn", "fp16", "fp16", (64, 256),
        {"head_dim": 64, "causal": True, "split_kv": True, "split": True, "append_kv": False},
    ),
    (
        "void flash::flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, "
        "false, false, cutlass::bfloat16_t, Flash_kernel_traits<128, 64, 128, 4, "
        "cutlass::bfloat16_t> >, 4, 3, true>(Flash_fwd_params)",
        "attention_combine", "flash-attn", "bf16", "bf16", None, {"head_dim": 128, "max_splits": 8},
    ),
    (
        "void flash::flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<64, "
        "128, 128, 8, 4, 4, 4, false, false, cutlass::half_t, Flash_kernel_traits<64, 128, 128, "
        "8, cutlass::half_t> >, false, true, false, false, true, true, false>(Flash_bwd_params)",
        "attention_prefill", "flash-attn", "fp16", "fp16", (128, 128),
        {"direction": "bwd", "causal": True, "head_dim": 64},
    ),
    (
        FA3_CAUSAL,
        "attention_prefill", "flash-attn", "bf16", "bf16", (128, 128),
        {"head_dim": 128, "causal": True, "arch": "sm90", "stages": 2, "version": 3},
    ),
    (
        FA3_NONCAUSAL_CAST,
        "attention_prefill", "flash-attn", "fp16", "fp16", (128, 176),
        {"head_dim": 128, "head_dim_v": 128, "causal": False},
    ),
    (
        "void cutlass::device_kernel<flash::FlashAttnFwdCombine<cute::tuple<cute::C<8>, "
        "cute::C<128> >, 7, 256, 1, false, true, cutlass::bfloat16_t, float, cutlass::arch::Sm90> >"
        "(flash::FlashAttnFwdCombine<>::Params)",
        "attention_combine", "flash-attn", "bf16", None, None, {"version": 3},
    ),
    (
        "flash_fwd_sm100_bf16_head_dim128_tile128x128_threads384_causal",
        "attention_prefill", "flash-attn", "bf16", None, (128, 128),
        {"head_dim": 128, "causal": True, "arch": "sm100"},
    ),
    # --- FlashInfer ---------------------------------------------------------------------------------
    (
        "void BatchDecodeWithPagedKVCacheKernel<0, 2, 1, 8, 16, 4, 2, DefaultAttention<0, 0, 0, 0>, "
        "Params>(T9)",
        "attention_decode", "flashinfer", None, None, None,
        {"head_dim": 128, "gqa_group_size": 4, "paged_kv": True},
    ),
    (
        "void flashinfer::BatchDecodeWithPagedKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, "
        "4u, 8u, 16u, 1u, 8u, flashinfer::DefaultAttention<false, false, false, false>, "
        "flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >"
        "(flashinfer::BatchDecodeParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)",
        "attention_decode", "flashinfer", "bf16", "bf16", None,
        {"head_dim": 128, "gqa_group_size": 1},
    ),
    (
        "void flashinfer::BatchPrefillWithPagedKVCacheKernel<flashinfer::KernelTraits<"
        "(flashinfer::MaskMode)1, 128u, 2u, 4u, 8u, 8u, 4u, 1u, (flashinfer::PosEncodingMode)0, "
        "__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, int, "
        "flashinfer::DefaultAttention<false, false, false, false> >, "
        "flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int> >"
        "(flashinfer::BatchPrefillPagedParams<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, int>)",
        "attention_prefill", "flashinfer", "bf16", "bf16", None, {"causal": True, "paged_kv": True},
    ),
    (
        "void flashinfer::BatchPrefillWithRaggedKVCacheKernel<flashinfer::KernelTraits<"
        "(flashinfer::MaskMode)0, 64u, 1u, 2u, 8u, 8u, 4u, 1u, (flashinfer::PosEncodingMode)0, "
        "__half, __half, __half, float, int, flashinfer::DefaultAttention<false, false, false, "
        "false> >, flashinfer::BatchPrefillRaggedParams<__half, __half, __half, int> >"
        "(flashinfer::BatchPrefillRaggedParams<__half, __half, __half, int>)",
        "attention_prefill", "flashinfer", "fp16", "fp16", None,
        {"causal": False, "paged_kv": False},
    ),
    (
        "void flashinfer::SingleDecodeWithKVCacheKernel<(flashinfer::PosEncodingMode)0, 2u, 8u, "
        "16u, 1u, 8u, flashinfer::DefaultAttention<false, false, false, false>, "
        "flashinfer::SingleDecodeParams<__half, __half, __half> >(flashinfer::SingleDecodeParams"
        "<__half, __half, __half>)",
        "attention_decode", "flashinfer", "fp16", "fp16", None, {},
    ),
    (
        "void flashinfer::MergeStatesKernel<8u, 16u, 8u, 4u, __nv_bfloat16, __nv_bfloat16>"
        "(__nv_bfloat16*, float*, __nv_bfloat16*, float*, unsigned int, unsigned int)",
        "attention_combine", "flashinfer", "bf16", None, None, {},
    ),
    # --- TensorRT-LLM ---------------------------------------------------------------------------------
    (
        "fmha_v2_flash_attention_fp16_64_128_S_qkv_128_tma_ws_sm90_kernel",
        "attention_prefill", "trtllm", "fp16", "fp16", (64, 128),
        {"head_dim": 128, "layout": "qkv", "arch": "sm90", "causal": False},
    ),
    (
        "fmha_v2_flash_attention_bf16_64_64_S_q_paged_kv_128_causal_sm80_kernel_nl",
        "attention_prefill", "trtllm", "bf16", "bf16", (64, 64),
        {"head_dim": 128, "layout": "q_paged_kv", "causal": True, "paged_kv": True},
    ),
    (
        "void tensorrt_llm::kernels::mmha::masked_multihead_attention_kernel<__nv_bfloat16, "
        "__nv_bfloat16, __nv_bfloat16, tensorrt_llm::kernels::KVBlockArray, "
        "tensorrt_llm::kernels::KVBlockArray, 128u, 256u, false, true, false, false, false, "
        "false>(tensorrt_llm::kernels::Multihead_attention_params<__nv_bfloat16, false>, "
        "tensorrt_llm::kernels::KVBlockArray, tensorrt_llm::kernels::KVBlockArray)",
        "attention_decode", "trtllm", "bf16", "bf16", None, {"head_dim": 128, "op": "mmha"},
    ),
    ("kernel_mha", "attention_decode", "trtllm", None, None, None, {"op": "xqa"}),
    (
        "xqa_kernel_dt_fp16_d_128_beam_1_kvt_e4m3_pagedKV_32_nqpkv_8_m_8_sm_90",
        "attention_decode", "trtllm", "fp16", "fp16", None,
        {"head_dim": 128, "page_size": 32, "q_heads_per_kv": 8, "kv_dtype_code": "e4m3"},
    ),
    # --- vLLM -----------------------------------------------------------------------------------------
    (
        "void vllm::paged_attention_v1_kernel<__nv_bfloat16, __nv_bfloat16, 128, 16, 128, "
        "(vllm::Fp8KVCacheDataType)0, false>(__nv_bfloat16*, __nv_bfloat16 const*, "
        "__nv_bfloat16 const*, __nv_bfloat16 const*, int, float, int const*, int const*, int, "
        "float const*, int, int, int, float const*, float const*)",
        "attention_decode", "vllm", "bf16", "bf16", None,
        {"head_dim": 128, "block_size": 16, "kv_cache_dtype": "auto", "version": "v1"},
    ),
    (
        "void vllm::paged_attention_v2_kernel<__nv_bfloat16, unsigned char, 128, 16, 128, "
        "(vllm::Fp8KVCacheDataType)1, false, 512>(float*, float*, __nv_bfloat16*)",
        "attention_decode", "vllm", "bf16", "bf16", None,
        {"head_dim": 128, "partition_size": 512, "kv_cache_dtype": "fp8_e4m3", "kv_dtype": "fp8"},
    ),
    (
        "void vllm::paged_attention_v2_reduce_kernel<__nv_bfloat16, 128, 128, 512>"
        "(__nv_bfloat16*, float const*, float const*, __nv_bfloat16 const*, int const*, int)",
        "attention_combine", "vllm", "bf16", "bf16", None, {"head_dim": 128, "partition_size": 512},
    ),
    (
        "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*, c10::BFloat16 const*, "
        "c10::BFloat16 const*, float, int, int)",
        "rmsnorm", "vllm", "bf16", "bf16", None, {},
    ),
    (
        "void vllm::fused_add_rms_norm_kernel<c10::Half, 8>(c10::Half*, c10::Half*, "
        "c10::Half const*, float, int, int)",
        "add_rmsnorm", "vllm", "fp16", "fp16", None, {},
    ),
    (
        "void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::gelu_tanh_kernel<c10::BFloat16>, "
        "true>(c10::BFloat16*, c10::BFloat16 const*, int)",
        "act_and_mul", "vllm", "bf16", "bf16", None, {"act": "gelu_tanh"},
    ),
    (
        "void vllm::silu_and_mul_kernel<c10::Half>(c10::Half*, c10::Half const*, int)",
        "act_and_mul", "vllm", "fp16", "fp16", None, {"act": "silu"},
    ),
    (
        "void vllm::rotary_embedding_kernel<c10::BFloat16, true>(long const*, c10::BFloat16*, "
        "c10::BFloat16*, c10::BFloat16 const*, int, long, long, int, int, int)",
        "rope", "vllm", "bf16", "bf16", None, {},
    ),
    (
        "void vllm::reshape_and_cache_kernel<__nv_bfloat16, __nv_bfloat16, "
        "(vllm::Fp8KVCacheDataType)0>(__nv_bfloat16 const*, __nv_bfloat16 const*, "
        "__nv_bfloat16*, __nv_bfloat16*, long const*, int, int, int, int, int, float const*, "
        "float const*)",
        "kv_append", "vllm", "bf16", "bf16", None, {},
    ),
    (
        "void vllm::reshape_and_cache_flash_kernel<__nv_bfloat16, unsigned char, "
        "(vllm::Fp8KVCacheDataType)1>(__nv_bfloat16 const*, __nv_bfloat16 const*, unsigned "
        "char*, unsigned char*, long const*, long, long, long, int, int, int, float const*, "
        "float const*)",
        "kv_append", "vllm", "bf16", "bf16", None, {},
    ),
    ("fused_moe_kernel", "grouped_gemm", "vllm", None, None, None, {"backend": "triton"}),
    (
        "void vllm::moe::moe_align_block_size_kernel<int>(int const*, int*, int*, int*, int, int, "
        "int, int, unsigned long)",
        "reduce", "vllm", None, None, None, {},
    ),
    (
        "void vllm::moe::topkGatingSoftmax<8, 8, 4, 16, int>(float const*, bool const*, float*, "
        "int, int*, int*, int, int, int)",
        "topk_sample", "vllm", "fp32", "fp32", None, {"op": "moe_gating"},
    ),
    (
        "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, "
        "vllm::RankSignals, vllm::Signal*, __nv_bfloat16*, int, int)",
        "communication", "vllm", "bf16", None, None, {},
    ),
    (
        "void vllm::scaled_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>"
        "(c10::Float8_e4m3fn*, c10::BFloat16 const*, float const*, long)",
        "quantize", "vllm", "bf16", "fp8", None, {"fp8_format": "e4m3"},
    ),
    (
        "void vllm::dynamic_per_token_scaled_fp8_quant_kernel<c10::BFloat16, c10::Float8_e4m3fn>"
        "(c10::Float8_e4m3fn*, float*, c10::BFloat16 const*, float const*, int)",
        "quantize", "vllm", "bf16", "fp8", None, {},
    ),
    (
        "void vllm::static_scaled_int8_quant_kernel<c10::BFloat16, float>(c10::BFloat16 const*, "
        "signed char*, float const*, int)",
        "quantize", "vllm", "bf16", "int8", None, {},
    ),
    (
        "void vllm::segmented_max_reduction<c10::BFloat16, c10::Float8_e4m3fn>(float*, "
        "c10::BFloat16 const*, long)",
        "reduce", "vllm", "bf16", "bf16", None, {},
    ),
    # --- Marlin and friends -----------------------------------------------------------------------------
    (
        "void marlin::Marlin<256, 1, 8, 8, 4, 8>(int4 const*, int4 const*, int4*, int4 const*, "
        "int, int, int, int*)",
        "gemm", "marlin", "fp16", "fp16", (16, 128, 128),
        {"weight_bits": 4, "group_size": 128, "stages": 4},
    ),
    (
        "void marlin::Marlin<__nv_bfloat16, 8, 256, 1, 8, 8, true, 4, false, false, -1>"
        "(int4 const*, int4 const*, int4*, int4*, int4 const*, int4 const*, int const*, int, "
        "int, int, int, int*, bool)",
        "gemm", "marlin", "bf16", "bf16", None, {"weight_bits": 8},
    ),
    (
        "void vllm::awq::gemm_forward_4bit_cuda_m16nXk32<128>(int, int, __half*, int*, __half*, "
        "int*, int, int, int, __half*)",
        "gemm", "vllm", "fp16", "fp16", None, {"weight_bits": 4},
    ),
    (
        "void gemm_half_q_half_gptq_4bit_kernel<true, 1>(__half const*, unsigned int const*, "
        "unsigned int const*, __half const*, __half*, int, int, int, int, int, int const*, bool)",
        "gemm", None, "fp16", "fp16", None, {"weight_bits": 4},
    ),
    # --- PyTorch ATen --------------------------------------------------------------------------------------
    (
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<"
        "c10::BFloat16>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<"
        "c10::BFloat16>, at::detail::Array<char*, 3>)",
        "elementwise", "pytorch", "bf16", "bf16", None, {"op": "add", "n_inputs": 2, "vec": 4},
    ),
    (
        "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda("
        "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
        "const::{lambda(float)#1}, at::detail::Array<char*, 2>, TrivialOffsetCalculator<1, "
        "unsigned int>, TrivialOffsetCalculator<1, unsigned int>, "
        "at::native::memory::LoadWithCast<1>, at::native::memory::StoreWithCast<1> >(int, "
        "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&))",
        "copy", "pytorch", "fp32", "fp32", None, {"op": "copy", "n_inputs": 1},
    ),
    (
        "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<"
        "at::native::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::"
        "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1}>(at::TensorIteratorBase&, "
        "at::native::silu_kernel(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::"
        "{lambda()#4}::operator()() const::{lambda(c10::BFloat16)#1} const&)::{lambda(int)#1}>"
        "(int, at::native::gpu_kernel_impl<>)",
        "elementwise", "pytorch", "bf16", "bf16", None, {"op": "silu"},
    ),
    (
        "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl("
        "at::TensorIteratorBase&, at::native::GeluType)::{lambda()#2}::operator()() const::"
        "{lambda()#4}::operator()() const::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >"
        "(int, at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType))",
        "elementwise", "pytorch", "fp16", "fp16", None, {"op": "gelu"},
    ),
    (
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>, "
        "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::BFloat16>, "
        "at::detail::Array<char*, 1>)",
        "memset", "pytorch", "bf16", "bf16", None, {"op": "fill", "n_inputs": 0},
    ),
    (
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps"
        "<float, float, float, float>, unsigned int, float, 4> >(at::native::ReduceOp<float, "
        "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
        "reduce", "pytorch", "fp32", "fp32", None, {"op": "mean"},
    ),
    (
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
        "at::native::ArgMaxOps<float>, unsigned int, long, 4>>(T3)",
        "reduce", "pytorch", "fp32", "int64", None, {"op": "argmax"},
    ),
    (
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
        "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
        "softmax", "pytorch", "fp32", "fp32", None, {},
    ),
    (
        "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::BFloat16, "
        "float>(int, float, c10::BFloat16 const*, c10::BFloat16 const*, c10::BFloat16 const*, "
        "float*, float*, c10::BFloat16*)",
        "layernorm", "pytorch", "bf16", "bf16", None, {},
    ),
    (
        "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, "
        "unsigned int, 2, 2, -2, true>(at::cuda::detail::TensorInfo<c10::BFloat16, unsigned "
        "int>, at::cuda::detail::TensorInfo<c10::BFloat16 const, unsigned int>, "
        "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, "
        "unsigned int, long)",
        "embedding", "pytorch", "bf16", "bf16", None, {},
    ),
    (
        "void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, "
        "long>(long const*, float const*, float*, int, long, int, int)",
        "embedding", "pytorch", "fp32", "fp32", None, {"direction": "bwd"},
    ),
    (
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<c10::BFloat16, "
        "unsigned int, 2, 128, 1>(c10::BFloat16*, at::native::(anonymous namespace)::"
        "CatArrInputTensorMetadata<c10::BFloat16, unsigned int, 128, 1>, "
        "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>, int, unsigned int)",
        "copy", "pytorch", "bf16", "bf16", None, {"op": "cat"},
    ),
    (
        "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>("
        "at::cuda::detail::TensorInfo<float const, unsigned int>, unsigned int, unsigned int, "
        "bool, unsigned int, unsigned int, at::cuda::detail::TensorInfo<float, unsigned int>, "
        "unsigned int, at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, float*)",
        "topk_sample", "pytorch", "fp32", "fp32", None, {},
    ),
    (
        "void at::native::bitonicSortKVInPlace<2, -1, 16, 16, float, long, "
        "at::native::LTOp<float, true>, unsigned int>(at::cuda::detail::TensorInfo<float, "
        "unsigned int>, unsigned int, unsigned int, unsigned int, "
        "at::cuda::detail::TensorInfo<long, unsigned int>, unsigned int, "
        "at::native::LTOp<float, true>)",
        "topk_sample", "pytorch", "fp32", "fp32", None, {},
    ),
    (
        "void at::native::mbtopk::radixFindKthValues<float, unsigned int, unsigned int, 2>"
        "(at::cuda::detail::TensorInfo<float const, unsigned int>, unsigned int)",
        "topk_sample", "pytorch", "fp32", "fp32", None, {},
    ),
    (
        "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<"
        "float, 4, at::native::templates::cuda::normal_and_transform<float, float, 4ul, "
        "at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*)>(int, "
        "at::PhiloxCudaState)",
        "elementwise", "pytorch", "fp32", "fp32", None, {"op": "random", "distribution": "normal"},
    ),
    (
        "void at::native::(anonymous namespace)::fused_dropout_kernel_vec<c10::Half, float, "
        "unsigned int, 1, 4, bool>(at::cuda::detail::TensorInfo<c10::Half const, unsigned int>, "
        "at::cuda::detail::TensorInfo<c10::Half, unsigned int>, unsigned int, float)",
        "elementwise", "pytorch", "fp16", "fp16", None, {"op": "random"},
    ),
    # --- Triton / Inductor -----------------------------------------------------------------------------------
    (
        "triton_poi_fused_add_mul_0",
        "elementwise", "inductor", None, None, None, {"op": "add_mul", "kind": "pointwise"},
    ),
    (
        "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_1",
        "rmsnorm", "inductor", None, None, None, {"kind": "reduction"},
    ),
    ("triton_per_fused__softmax_2", "softmax", "inductor", None, None, None, {"op": "_softmax"}),
    ("triton_per_fused_rms_norm_3", "rmsnorm", "inductor", None, None, None, {}),
    ("triton_red_fused_native_layer_norm_0", "layernorm", "inductor", None, None, None, {}),
    ("triton_red_fused_sum_4", "reduce", "inductor", None, None, None, {"op": "sum"}),
    ("triton_tem_fused_mm_3", "gemm", "inductor", None, None, None, {"kind": "template"}),
    ("triton_poi_fused_mul_silu_5", "act_and_mul", "inductor", None, None, None, {"act": "silu"}),
    ("triton_poi_fused_clone_7", "copy", "inductor", None, None, None, {}),
    (
        "triton_poi_fused_add_mul_0d1d2de",
        "elementwise", "inductor", None, None, None, {"op": "add_mul"},
    ),
    ("triton__0d1d2de", "triton", "triton", None, None, None, {}),
    ("_fwd_kernel_stage1", "attention_decode", "triton", None, None, None, {}),
    ("_fwd_kernel_stage2", "attention_combine", "triton", None, None, None, {}),
    ("_attn_fwd", "attention_prefill", "triton", None, None, None, {}),
    ("matmul_kernel_0d1d2d3d4d5d6d7c8d9c10d11c", "gemm", "triton", None, None, None, {}),
    ("_layer_norm_fwd_fused", "layernorm", "triton", None, None, None, {}),
    ("_rms_norm_fwd_kernel", "rmsnorm", "triton", None, None, None, {}),
    (
        "fused_recurrent_gated_delta_rule_packed_decode_kernel",
        "triton", "triton", None, None, None, {},
    ),
    # --- NCCL and custom all-reduce ----------------------------------------------------------------------------
    (
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
        "communication", "nccl", "fp32", "fp32", None,
        {"collective": "AllReduce", "reduce_op": "Sum", "algo": "RING", "proto": "LL"},
    ),
    (
        "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)",
        "communication", "nccl", "int8", "int8", None,
        {"collective": "AllGather", "algo": "RING", "proto": "LL"},
    ),
    (
        "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL128",
        "communication", "nccl", "bf16", "bf16", None, {"proto": "LL128"},
    ),
    (
        "ncclDevKernel_SendRecv(ncclDevKernelArgsStorage<4096ul>)",
        "communication", "nccl", None, None, None, {},
    ),
    (
        "void tensorrt_llm::kernels::oneShotAllReduceKernel<__nv_bfloat16, 8, true>"
        "(tensorrt_llm::kernels::AllReduceParams)",
        "communication", "trtllm", "bf16", None, None, {},
    ),
    (
        "void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<c10::BFloat16, 16, 2>"
        "(c10::BFloat16**, unsigned long, unsigned long, unsigned int**, unsigned long, "
        "unsigned long)",
        "communication", None, "bf16", None, None, {},
    ),
    # --- memcpy / memset pseudo-kernels ----------------------------------------------------------------------
    (
        "[CUDA memcpy Device-to-Device]",
        "copy", None, None, None, None, {"direction": "Device-to-Device"},
    ),
    ("[CUDA memset]", "memset", None, None, None, None, {}),
    ("Memcpy HtoD (Pageable -> Device)", "copy", None, None, None, None, {"direction": "HtoD"}),
    # --- other libraries and plain user kernels ---------------------------------------------------------------
    (
        "void cub::CUB_200200_800_NS::DeviceRadixSortOnesweepKernel<cub::CUB_200200_800_NS::"
        "DeviceRadixSortPolicy<float, long, unsigned int>::Policy800, false, float, long, "
        "unsigned int, int, cub::CUB_200200_800_NS::detail::identity_decomposer_t>(int*, int*)",
        "topk_sample", "cub", "fp32", "fp32", None, {},
    ),
    (
        "void cub::CUB_200200_800_NS::DeviceReduceKernel<cub::CUB_200200_800_NS::"
        "DeviceReducePolicy<float, int, cuda::std::plus<float> >::Policy600, float*, int, "
        "cuda::std::plus<float>, float, float>(float*, float*, int)",
        "reduce", "cub", "fp32", "fp32", None, {},
    ),
    (
        "void cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x128_4x1x1_"
        "kernel0_0()",
        "attention_prefill", "cudnn", "fp16", None, None, {"arch": "sm90", "direction": "fwd"},
    ),
    (
        "fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<"
        "cutlass::half_t, cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
        "attention_prefill", "pytorch", "fp16", "fp16", (64, 64), {"arch": "sm80"},
    ),
    (
        "void gemm_v0<float>(T1 *, T1 *, T1 *, int, int, int)",
        "gemm", None, "fp32", "fp32", None, {},
    ),
    (
        "void naive_attention_kernel<float>(float const*, float*)",
        "attention_naive", None, "fp32", "fp32", None, {},
    ),
    (
        "daxpy_kernel(int, double, double *, double *)",
        "elementwise", None, "fp64", "fp64", None, {"op": "axpy"},
    ),
    (
        "void saxpy(int, float, float*, float*)",
        "elementwise", None, "fp32", "fp32", None, {"op": "axpy"},
    ),
    (
        "void vectorAdd(float const*, float const*, float*, int)",
        "elementwise", None, "fp32", "fp32", None, {"op": "add"},
    ),
    ("void reduce0<int>(int*, int*, unsigned int)", "reduce", None, None, None, None, {}),
    (
        "void deep_gemm::fp8_gemm_kernel<7168u, 2048u, 128u, 160u, 128u, 0u, 64u, 9u, 4u, 128u, "
        "128u, 1u, true, (deep_gemm::GemmType)1>(__nv_bfloat16*, float*, int*, unsigned int)",
        "gemm", None, "fp8", "fp8", None, {},
    ),
]
# fmt: on


@pytest.mark.parametrize("case", CASES, ids=[c[0][:60] for c in CASES])
def test_example_names(case: Case) -> None:
    name, family, library, dtype, out_dtype, tile, details = case
    got = classify(name)
    assert got.family == family
    assert got.library == library
    assert got.dtype == dtype
    assert got.out_dtype == out_dtype
    assert got.tile == tile
    for key, value in details.items():
        assert key in got.details, f"{key} missing from {got.details}"
        assert got.details[key] == value, f"{key}: {got.details[key]!r} != {value!r}"


def test_every_result_uses_the_documented_vocabularies() -> None:
    for case in CASES:
        got = classify(case[0])
        assert got.family in FAMILIES
        assert got.library is None or got.library in LIBRARIES
        assert got.dtype is None or got.dtype in DTYPES
        assert got.out_dtype is None or got.out_dtype in DTYPES
        json.dumps(got.to_dict())


# ---------------------------------------------------------------------------
# The real samples: every distinct kernel name, with its family stated.
# ---------------------------------------------------------------------------

HAS_NCU_REPORT = importlib.util.find_spec("ncu_report") is not None

# file -> [(substring of the kernel name, family, library)]; every name in the
# file must match exactly one substring.
SAMPLE_FAMILIES: dict[str, list[tuple[str, str, str | None]]] = {
    "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv": [
        ("Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16", "gemm", "cutlass"),
    ],
    "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv": [
        ("randomInit<float>", "elementwise", None),
        ("gemm_v0<float>", "gemm", None),
    ],
    "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv": [
        # extern-C CuPy kernels: the names say nothing.
        ("kernel_A", "unknown", None),
        ("kernel_B", "unknown", None),
    ],
    "Lakoc__Nbody_CUDA__profile_1.out": [
        # N-body physics: no family describes it from the name.
        ("calculate_velocity", "unknown", None),
        ("centerOfMass", "unknown", None),
    ],
    "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep": [
        ("calculate_velocity", "unknown", None),
        ("centerOfMass", "unknown", None),
    ],
    "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep": [
        ("init_data_kernel", "memset", None),
        ("daxpy_kernel", "elementwise", None),
        # compares results: a read-and-check whose name gives no family.
        ("check_results_kernel", "unknown", None),
    ],
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_"
    "ncu_metrics_show_torch.txt": [
        (
            "index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl",
            "embedding",
            "pytorch",
        ),
        ("CatArrayBatchedCopy<float", "copy", "pytorch"),
        (
            "gpu_kernel_impl<at::native::(anonymous namespace)::direct_copy_kernel_cuda",
            "copy",
            "pytorch",
        ),
        ("ampere_sgemm_32x32_sliced1x4_tn", "gemm", "cublas"),
        ("batch_norm_calc_invstd", "elementwise", "pytorch"),
        ("batch_norm_transform_input_channels_last_kernel", "elementwise", "pytorch"),
        ("sigmoid_kernel_cuda", "elementwise", "pytorch"),
        (
            "elementwise_kernel<128, 2, at::native::gpu_kernel_impl<at::native::softplus_kernel",
            "elementwise",
            "pytorch",
        ),
        ("MulFunctor<float>", "elementwise", "pytorch"),
        ("sum_functor<float, float, float>", "reduce", "pytorch"),
        ("CUDAFunctor_add<float>", "elementwise", "pytorch"),
        ("vectorized_elementwise_kernel<4, at::native::softplus_kernel", "elementwise", "pytorch"),
    ],
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention_actual_"
    "parameter_analysis_data_5-9_bert_torch_nsight.csv": [
        ("distribution_elementwise_grid_stride_kernel", "elementwise", "pytorch"),
        ("FillFunctor<float>", "memset", "pytorch"),
        ("direct_copy_kernel_cuda", "copy", "pytorch"),
        ("ampere_sgemm_32x32_sliced1x4_tn", "gemm", "cublas"),
        (
            "splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float, (bool)1, (bool)0",
            "reduce",
            "cublas",
        ),
        (
            "splitKreduce_kernel<(int)32, (int)16, int, float, float, float, float, (bool)1, (bool)1",
            "reduce",
            "cublas",
        ),
        ("gpu_kernel_impl<at::native::CUDAFunctor_add<float>>", "elementwise", "pytorch"),
        (
            "BUnaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float>>",
            "elementwise",
            "pytorch",
        ),
        ("ampere_sgemm_128x128_tn", "gemm", "cublas"),
        ("softmax_warp_forward<float, float, float, (int)5", "softmax", "pytorch"),
        ("ampere_sgemm_128x128_nn", "gemm", "cublas"),
        ("reduce_kernel<(int)128, (int)4, at::native::ReduceOp<float", "reduce", "pytorch"),
    ],
    "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv": [
        ("void Kernel<Gemm<MmaPipelined<GemmShape<128, 256, 32>", "gemm", "cutlass"),
    ],
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_"
    "b128_ctx2k_p64.ncu.csv": [
        (
            "BatchDecodeWithPagedKVCacheKernel<0, 2, 1, 8, 16, 4, 2",
            "attention_decode",
            "flashinfer",
        ),
    ],
    "wangzy0327__cuda-roofline__src_output.csv": [
        ("InitializeMatrix_kernel<__half", "memset", None),
        ("InitializeMatrix_kernel<float", "memset", None),
        (
            "cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaPipelined",
            "gemm",
            "cutlass",
        ),
        ("cutlass::Kernel<cutlass_70_tensorop_s884gemm_f16_128x128_nn_align8>", "gemm", "cutlass"),
    ],
    "wangzy0327__cuda-roofline__src_output_A100.csv": [
        ("InitializeMatrix_kernel<__half", "memset", None),
        ("InitializeMatrix_kernel<float", "memset", None),
        (
            "cutlass::Kernel<cutlass::gemm::kernel::Gemm<cutlass::gemm::threadblock::MmaMultistage",
            "gemm",
            "cutlass",
        ),
        ("ampere_s16816gemm_fp16_256x128_ldg8_stages_64x3_nn", "gemm", "cublas"),
    ],
}

# The repository's simulated Llama-3-8B decode report (LLM kernel names).
SIMULATED_FAMILIES: list[tuple[str, str, str | None]] = [
    ("vllm::rms_norm_kernel", "rmsnorm", "vllm"),
    ("gemvx::kernel<int, int, __nv_bfloat16", "gemv", "cublas"),
    ("vllm::rotary_embedding_kernel", "rope", "vllm"),
    ("flash::flash_fwd_splitkv_kernel", "attention_decode", "flash-attn"),
    ("flash::flash_fwd_splitkv_combine_kernel", "attention_combine", "flash-attn"),
    ("vllm::fused_add_rms_norm_kernel", "add_rmsnorm", "vllm"),
    ("vllm::act_and_mul_kernel", "act_and_mul", "vllm"),
    ("ArgMaxOps<float>", "reduce", "pytorch"),
    ("gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda", "copy", "pytorch"),
    ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", "gemm", "cublasLt"),
]


def _check_names(names: list[str], expected: list[tuple[str, str, str | None]], label: str) -> None:
    assert names, f"{label}: no kernel names read"
    families = classify_names(names)
    used: set[str] = set()
    for name in names:
        hits = [e for e in expected if e[0] in name]
        assert len(hits) == 1, f"{label}: {name[:120]!r} matches {len(hits)} expectations"
        substring, family, library = hits[0]
        used.add(substring)
        got = families[name]
        assert (got.family, got.library) == (family, library), f"{label}: {name[:120]!r} -> {got}"
    assert used == {e[0] for e in expected}, f"{label}: expected names not in the file"


@pytest.mark.parametrize("file_name", sorted(SAMPLE_FAMILIES))
def test_real_sample_kernel_names(samples_dir: Path, file_name: str) -> None:
    if file_name.endswith(".ncu-rep") and not HAS_NCU_REPORT:
        pytest.skip("NVIDIA's optional ncu_report module is not installed")
    profile = load([samples_dir / file_name])
    names = [str(k) for k in profile.launches["kernel"].unique()]
    _check_names(names, SAMPLE_FAMILIES[file_name], file_name)


def test_simulated_llm_decode_kernel_names() -> None:
    path = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.details.csv"
    if not path.is_file():
        pytest.skip(f"simulated sample report not found at {path}")
    profile = load([path])
    names = [str(k) for k in profile.launches["kernel"].unique()]
    _check_names(names, SIMULATED_FAMILIES, path.name)
    fa = classify(next(n for n in names if "flash_fwd_splitkv_kernel" in n))
    assert fa.details["head_dim"] == 128
    assert fa.details["causal"] is False
    assert fa.dtype == "bf16"


def test_sample_template_names_give_tiles() -> None:
    """The 2,000-5,000-character CUTLASS template names still give the CTA tile."""
    lukas = (
        "void Kernel<Gemm<MmaPipelined<GemmShape<128, 256, 32>, PredicatedTileIterator<"
        "MatrixShape<128, 32>, half_t, RowMajor, 1, PitchLinearWarpRakedThreadMap<"
        "PitchLinearShape<32, 128>, 256, PitchLinearShape<4, 8>, 8>, 8, 0, NoPermute>, "
        "RegularTileIterator<MatrixShape<128, 32>, half_t, RowMajorVoltaTensorOpMultiplicand"
        "Crosswise<16, 32>, 0, PitchLinearWarpRakedThreadMap<PitchLinearShape<32, 128>, 256, "
        "PitchLinearShape<4, 8>, 8>, 16>, PredicatedTileIterator<MatrixShape<32, 256>, half_t, "
        "RowMajor, 0, PitchLinearWarpRakedThreadMap<PitchLinearShape<256, 32>, 256, "
        "PitchLinearShape<8, 4>, 8>, 8, 0, NoPermute>, float, RowMajor, MmaPolicy<"
        "MmaVoltaTensorOp<GemmShape<64, 64, 32>, half_t, RowMajor, float, RowMajor, "
        "MmaTensorOpPolicy<Mma<GemmShape<16, 16, 4>, 32, half_t, RowMajor, half_t, RowMajor, "
        "float, RowMajor, OpMultiplyAdd>, MatrixShape<1, 1>>, bool>>>, Epilogue<GemmShape<128, "
        "256, 32>, LinearCombination<float, 1, float, float, 0, 2, float>>>>(Params)"
    )
    got = classify(lukas)
    assert (got.family, got.library, got.dtype, got.out_dtype) == (
        "gemm",
        "cutlass",
        "fp16",
        "fp32",
    )
    assert got.tile == (128, 256, 32)
    assert got.details["warp_tile"] == (64, 64, 32)
    assert got.details["mma"] == "m16n16k4"
    assert got.details["stages"] == 2
    assert got.details["layout"] == "tt"


# ---------------------------------------------------------------------------
# API behaviour
# ---------------------------------------------------------------------------


def test_classify_names_parses_each_distinct_name_once() -> None:
    names = ["volta_sgemm_128x64_nn", "[CUDA memset]", "volta_sgemm_128x64_nn"] * 1000
    out = classify_names(iter(names))
    assert list(out) == ["volta_sgemm_128x64_nn", "[CUDA memset]"]
    assert out["volta_sgemm_128x64_nn"] is classify("volta_sgemm_128x64_nn")
    assert out["[CUDA memset]"].family == "memset"


def test_non_string_names_are_unknown() -> None:
    out = classify_names([float("nan"), None])  # type: ignore[list-item]
    assert [f.family for f in out.values()] == ["unknown", "unknown"]
    assert set(out) == {"nan", "None"}


def test_to_dict_is_plain_data() -> None:
    got = classify("nvjet_hsh_192x192_64x3_2x1_v_bz_coopB_NTN").to_dict()
    assert got["tile"] == [192, 192, 64]
    assert got["details"]["cluster"] == [2, 1]
    assert json.loads(json.dumps(got)) == got
    assert classify("").to_dict() == {
        "family": "unknown",
        "library": None,
        "dtype": None,
        "out_dtype": None,
        "tile": None,
        "details": {},
    }


def test_kernel_family_is_frozen_and_hashable() -> None:
    fam = KernelFamily("gemm", "cublas", "fp16", "fp16", (128, 128), {"layout": "nn"})
    with pytest.raises(AttributeError):
        fam.family = "gemv"  # type: ignore[misc]
    assert hash(fam) == hash(KernelFamily("gemm", "cublas", "fp16", "fp16", (128, 128), {}))


def test_families_vocabulary() -> None:
    assert len(set(FAMILIES)) == len(FAMILIES) == 25
    assert FAMILIES[-1] == "unknown"
    assert {"gemm", "attention_decode", "communication", "triton"} <= set(FAMILIES)


# ---------------------------------------------------------------------------
# Robustness: arbitrary text, and pathological template-heavy names
# ---------------------------------------------------------------------------

_TOKENS = st.sampled_from(
    [
        "<",
        ">",
        "(",
        ")",
        ",",
        " ",
        "::",
        "_",
        "x",
        "0",
        "1",
        "128",
        "(int)",
        "(bool)1",
        "void ",
        "cutlass_",
        "cutlass3x_sm90_",
        "tensorop",
        "gemm",
        "s16816",
        "f16",
        "bf16",
        "align8",
        "tn",
        "nvjet_",
        "hsh",
        "sm80_xmma_gemm_",
        "tilesize",
        "ampere_",
        "stages",
        "flash::",
        "flash_fwd_kernel",
        "Flash_fwd_kernel_traits<",
        "FlashAttnFwdSm90",
        "CollectiveMainloopFwdSm90<",
        "cute::tuple<",
        "cute::C<",
        "GemmShape<",
        "Marlin<",
        "at::native::",
        "elementwise_kernel",
        "reduce_kernel",
        "Functor",
        "CUDAFunctor_",
        "lambda(",
        "float",
        "c10::BFloat16",
        "__half",
        "triton_poi_fused_",
        "triton_red_",
        "ncclDevKernel_",
        "AllReduce",
        "vllm::",
        "paged_attention_v2_kernel",
        "fmha_v2_",
        "_S_",
        "kernel_mha",
        "BatchDecodeWithPagedKVCacheKernel",
        "[CUDA mem",
        "quant",
        "rms_norm",
        "gemv",
        "splitKreduce_kernel",
        "gemvx::kernel",
        "cudnn::",
        "cub::",
        "Sort",
        "0d1d",
        "{",
        "}",
        "&",
        "*",
        "-",
        "\u00e9",
        "\x00",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=400))
def test_classify_never_raises_on_arbitrary_text(text: str) -> None:
    got = classify(text)
    assert got.family in FAMILIES
    assert "parse_error" not in got.details
    assert classify(text) == got
    assert classify_names([text])[text] == got


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOKENS, max_size=60).map("".join))
def test_classify_never_raises_on_kernel_like_text(text: str) -> None:
    got = classify(text)
    assert got.family in FAMILIES
    assert "parse_error" not in got.details
    assert got.library is None or got.library in LIBRARIES
    assert got.dtype is None or got.dtype in DTYPES
    assert got == classify(text)


PATHOLOGICAL = {
    "letters": "a" * 20_000,
    "digit-underscores": "_1" * 10_000,
    "open-brackets": "f<" * 10_000,
    "close-brackets": "f" + ">" * 20_000,
    "repeated-cutlass": "cutlass_tensorop_" * 1_200,
    "cutlass-dtypes": "cutlass_80_tensorop_" + "f16_" * 5_000,
    "cutlass3-no-tile": "cutlass3x_sm90_tensorop_a_1x1x1_1x1x1_0_tnn_align8" * 400,
    "fa2-traits": "flash::flash_fwd_kernel<Flash_fwd_kernel_traits<" + "1, " * 6_000 + ">",
    "fa3-tuples": "flash::FlashAttnFwdSm90<CollectiveMainloopFwdSm90<2, "
    + "cute::tuple<cute::C<1>, " * 800,
    "functors": "at::native::elementwise_kernel<4, " + "aFunctor_" * 2_200 + ">",
    "lambdas": "at::native::elementwise_kernel<1, " + "lambda(a " * 2_200,
    "flashinfer": "Batch" + "Decode" * 3_300,
    "legacy": "ampere_" + "sgemm_" * 3_000,
    "nvjet": "nvjet_" + "hsh_1x1_" * 2_500,
    "signature": "k" + "_0d1d" * 4_000 + "x",
    "casts": "(unsigned " * 2_000,
    "multistage": "GemmShape<1,1,1> MmaMultistage" + ", 1, (a::" * 2_500,
    "nccl": "ncclKernel_" + "__nv_bfloat" * 1_800,
    "fmha": "fmha_v2_" + "1_2_S_" * 3_300,
}


@pytest.mark.parametrize("key", sorted(PATHOLOGICAL))
def test_pathological_long_names_classify(key: str) -> None:
    """20,000-character names finish (the patterns are linear) and give a result."""
    name = PATHOLOGICAL[key]
    assert len(name) >= 18_000
    got = classify(name)
    assert got.family in FAMILIES
    assert "parse_error" not in got.details


def test_namespace_stripped_flash_attention_3() -> None:
    """Some exports strip namespaces; FA3 is still recognised by its class name."""
    stripped = FA3_CAUSAL.replace("flash::", "").replace("cutlass::", "").replace("cute::", "")
    got = classify(stripped)
    assert (got.family, got.library, got.dtype, got.tile) == (
        "attention_prefill",
        "flash-attn",
        "bf16",
        (128, 128),
    )
    assert got.details["head_dim"] == 128
    assert got.details["causal"] is True
