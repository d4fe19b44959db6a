"""The keyword table: families of kernels no library-specific recogniser claimed.

User kernels (``gemm_v0``, ``rms_norm_kernel``, ``fused_add_rmsnorm``) say
what they do in words; the first matching row of :data:`_KEYWORDS` wins, so
the more specific words come first.
"""

from __future__ import annotations

import re

from ncu_roofline.theory.families.anatomy import Name
from ncu_roofline.theory.families.dtypes import cxx_dtype, cxx_dtypes, fp8_format, word_dtype
from ncu_roofline.theory.families.gemm import weight_bits
from ncu_roofline.theory.families.kinds import Details, KernelFamily
from ncu_roofline.theory.families.libraries import library_of
from ncu_roofline.theory.families.pytorch import op_name

# --- the keyword table ---------------------------------------------------------------------------

# (pattern searched in the leaf, family, op or None for "the matched word")
_KEYWORDS: tuple[tuple[re.Pattern[str], str, str | None], ...] = tuple(
    (re.compile(p), fam, op)
    for p, fam, op in (
        (
            r"(?i:fused_add_rms_?norm|add_rms_?norm|rms_?norm_?add|residual_?rms_?norm|"
            r"skip_?rms_?norm|add_?rmsnorm)",
            "add_rmsnorm",
            "add_rmsnorm",
        ),
        (r"(?i:rms_?norm)", "rmsnorm", "rmsnorm"),
        (
            r"(?i:layer_?norm|ln_fwd|ln_bwd|rowwisemoments|group_?norm|instance_?norm)",
            "layernorm",
            None,
        ),
        (
            r"(?i:batch_?norm_?collect|batch_?norm_?reduce|batch_?norm_?stat)",
            "reduce",
            "batch_norm_stats",
        ),
        (r"(?i:batch_?norm|bn_fw|bn_bw)", "elementwise", "batch_norm"),
        (
            r"(?i:act_and_mul|silu_and_mul|gelu_and_mul|gelu_tanh_and_mul|gelu_new_and_mul|"
            r"swiglu|geglu|silu_?mul|act_?mul|and_mul_kernel|siluandmul|geluandmul)",
            "act_and_mul",
            None,
        ),
        (
            r"(?i:reshape_and_cache|concat_and_cache|append_?paged_?kv|paged_?kv_?append|"
            r"update_?kv_?cache|kv_?cache_?(?:append|write|update|store)|store_?kv_?cache|"
            r"write_?to_?kv_?cache|set_?kv_?buffer|copy_?to_?kv_?cache)",
            "kv_append",
            None,
        ),
        (r"(?i:rotary)|(?<![a-z])(?i:rope)(?![a-z])|Rope|RoPE|ROPE|(?i:pos_?enc)", "rope", "rope"),
        (r"(?i:moe_align|align_block_size|moe_sum|count_and_sort)", "reduce", None),
        (
            r"(?i:topk_?gating|gating_?softmax|grouped_?topk|moe_?topk|topk_?softmax|routing)",
            "topk_sample",
            "moe_gating",
        ),
        (
            r"(?i:moe_?permute|moe_?unpermute|expand_and_permute|finalize_moe|moe_?scatter|"
            r"moe_?gather|shuffle_rows)",
            "copy",
            None,
        ),
        (
            r"(?i:fused_moe|moe_?gemm|moe_?fc|grouped_?gemm|gemm_?grouped|group_?gemm|"
            r"fused_experts|moe_mlp|ptr_?array|experts_?gemm|moe_wna16|marlin_moe|moe_kernel)",
            "grouped_gemm",
            None,
        ),
        (r"(?i:attention|attn|mha|sdpa|fmha|flash_?decod)", "attention", None),
        (r"(?i:im2col|col2im|vol2col|col2vol)", "copy", None),
        (
            r"(?i:convol|conv_?[123]d|conv_?depthwise|depthwise_?conv|winograd|fft\dd_[rc]2[rc]|"
            r"implicit_?conv)|(?<![a-z])(?i:conv)(?![a-z])|Conv(?![a-z])",
            "conv",
            None,
        ),
        (r"(?i:gemv)", "gemv", "gemv"),
        (
            r"(?i:gemm|matmul|mat_?mul|matrix_?mul|wgmma|addmm|baddbmm)|"
            r"(?<![a-z])(?i:b?mm)(?![a-z])|MatMul|MatrixMul",
            "gemm",
            None,
        ),
        (r"(?<![a-z])(?i:dot)(?![a-z])|Dot(?![a-z])", "gemv", "dot"),
        (
            r"(?i:quant|fp8_?cast|cvt_?fp8|to_?fp8|scale_?and_?cast|nvfp4|mxfp|cast_?to_?fp8|"
            r"cast_?to_?int8)",
            "quantize",
            None,
        ),
        (r"(?i:softmax)", "softmax", "softmax"),
        (
            r"(?i:topk|top_k|top_?p|sort|multinomial|gumbel|sampling|radix_?select|find_?kth|kth_?value)|"
            r"(?<![a-z])(?i:sampl)",
            "topk_sample",
            None,
        ),
        (r"(?i:embedding|embed|index_?select|gather|take_along|lookup)", "embedding", None),
        (
            r"(?i:copy|catarray|concat|transpose|permute|nchwto|nhwcto|to_?nhwc|to_?nchw|memcpy|"
            r"contiguous|clone|repack|interleave|layout_?transform)|(?<![a-z])(?i:cat|pad)(?![a-z])",
            "copy",
            None,
        ),
        (
            r"(?<![a-z])(?i:rand)|Rand|(?i:random|philox|curand|dropout|bernoulli)",
            "elementwise",
            "random",
        ),
        (r"(?i:memset|fill|init|clear)|(?<![a-z])(?i:zero|reset)", "memset", None),
        (
            r"(?i:reduc|argmax|argmin|cumsum|cumprod|prefix_?sum|histogram|statistics|moments|"
            r"nonzero|l2_?norm)|(?<![a-z])(?i:sum|mean|amax|max|min|scan|norm|var|count)(?![a-z])|"
            r"Sum(?![a-z])|Max(?![a-z])|Min(?![a-z])|Mean(?![a-z])",
            "reduce",
            None,
        ),
        (
            r"(?i:elementwise|element_?wise|pointwise|axpy|vec_?add|vector_?add)|"
            r"(?<![a-z])(?i:add|sub|mul|div|relu|gelu|silu|sigmoid|tanh|exp|log|sqrt|rsqrt|abs|neg|"
            r"pow|clamp|where|cast|bias|scale|scal|activation|act|swish|mish|hardswish|elu|softplus|"
            r"sin|cos|fma|saxpy|daxpy)(?![a-z])|"
            r"Add(?![a-z])|Mul(?![a-z])|Sub(?![a-z])|Div(?![a-z])|Relu|Gelu|Silu|Sigmoid|Tanh",
            "elementwise",
            None,
        ),
    )
)

_ATTN_COMBINE = re.compile(r"(?i:merge|combine|reduce|stage2)")
_ATTN_DECODE = re.compile(
    r"(?i:decode|decoding|forgen|generation|single_?query|paged|splitkv|split_kv|stage1|mmha)"
)
_ATTN_NAIVE = re.compile(r"(?i:naive|simple|basic|unfused|baseline|reference|math)")
_ATTN_PREFILL = re.compile(
    r"(?i:prefill|context|extend|fwd|forward|flash|varlen|bwd|backward|fmha|sdpa)"
)
_ACT_WORD = re.compile(r"(?i:gelu_tanh|gelu_new|gelu|silu|swiglu|geglu|relu|swish)")
_VLLM_ACT = re.compile(r"&\s*(?:vllm::)?(\w+?)_kernel\s*<")
_BLAS_PREFIX = {"s": "fp32", "d": "fp64", "h": "fp16", "c": "fp32", "z": "fp64"}


def _attention_family(leaf: str) -> tuple[str, str | None]:
    if _ATTN_COMBINE.search(leaf):
        return "attention_combine", None
    if _ATTN_DECODE.search(leaf):
        return "attention_decode", None
    if _ATTN_NAIVE.search(leaf):
        return "attention_naive", None
    if _ATTN_PREFILL.search(leaf):
        return "attention_prefill", None
    return "attention_naive", "generic attention kernel; algorithm unknown from the name"


def keywords(n: Name) -> KernelFamily | None:
    """The first row of the keyword table whose words the leaf contains."""
    leaf = n.leaf
    for pattern, family, op in _KEYWORDS:
        m = pattern.search(leaf)
        if not m:
            continue
        library = library_of(n)
        details: Details = {}
        word = m.group(0)
        note: str | None = None
        if family == "attention":
            family, note = _attention_family(leaf)
            if note:
                details["note"] = note
        else:
            details["op"] = op or op_name(word.strip("_"))
        dtype = cxx_dtype(n.targs) or word_dtype(leaf) or cxx_dtype(n.params)
        out = dtype
        if family == "act_and_mul":
            act = _VLLM_ACT.search(n.targs or "")
            a = act.group(1) if act else None
            if a is None:
                aw = _ACT_WORD.search(leaf)
                a = aw.group(0).lower() if aw else None
            if a:
                details["act"] = a
        elif family == "quantize":
            out = word_dtype(leaf)
            in_dt = cxx_dtype(n.targs) or cxx_dtype(n.params)
            if out is not None and in_dt == out:
                cxx = cxx_dtypes(n.targs)
                in_dt = next((d for d in cxx if d != out), in_dt)
            dtype = in_dt
            fp8 = fp8_format(leaf) or fp8_format(n.targs or "")
            if fp8:
                details["fp8_format"] = fp8
            if "dequant" in leaf.lower():
                details["op"] = "dequantize"
        elif family in ("rmsnorm", "add_rmsnorm") and "quant" in leaf.lower():
            details["fused_quant"] = True
        elif family in ("gemm", "gemv", "grouped_gemm"):
            bits = weight_bits(leaf)
            if bits is not None:
                details["weight_bits"] = bits
            if leaf == "fused_moe_kernel":
                library = "vllm"
                details["backend"] = "triton"
        elif family == "elementwise" and details.get("op") in ("axpy", "saxpy", "daxpy"):
            pre = re.match(r"([sdhcz])axpy", leaf)
            if pre and dtype is None:
                dtype = out = _BLAS_PREFIX[pre.group(1)]
            details["op"] = "axpy"
        if "backward" in leaf.lower() or "_bwd" in leaf.lower():
            details["direction"] = "bwd"
        return KernelFamily(family, library, dtype, out, details=details)
    return None
