"""Data-type spellings in kernel names, normalised to :data:`~ncu_roofline.theory.families.DTYPES`.

C++ template arguments say ``cutlass::bfloat16_t`` or ``c10::Half``;
underscore names say ``bf16``, ``f16`` or ``e4m3``; xmma names pack pairs
(``bf16f32``).  Each spelling has one table here.
"""

from __future__ import annotations

import re

# C++ type spellings in template arguments and parameter lists.
_CXX_DTYPE = re.compile(
    r"(?<![\w:])(?:c10::|cutlass::|at::|std::)?"
    r"(__nv_bfloat16|__nv_half|__half|half_t|bfloat16_t|BFloat16|Half|bfloat16|float16|"
    r"float_e4m3_t|float_e5m2_t|Float8_e4m3fnuz|Float8_e4m3fn|Float8_e5m2fnuz|Float8_e5m2|"
    r"__nv_fp8_e4m3|__nv_fp8_e5m2|tfloat32_t|int4b_t|uint4b_t|int8_t|uint8_t|signed char|"
    r"half|float|double)(?!\w)"
)
_CXX_NORM: dict[str, str] = {
    "__nv_bfloat16": "bf16",
    "bfloat16_t": "bf16",
    "BFloat16": "bf16",
    "bfloat16": "bf16",
    "__nv_half": "fp16",
    "__half": "fp16",
    "half_t": "fp16",
    "Half": "fp16",
    "half": "fp16",
    "float16": "fp16",
    "float_e4m3_t": "fp8",
    "float_e5m2_t": "fp8",
    "Float8_e4m3fnuz": "fp8",
    "Float8_e4m3fn": "fp8",
    "Float8_e5m2fnuz": "fp8",
    "Float8_e5m2": "fp8",
    "__nv_fp8_e4m3": "fp8",
    "__nv_fp8_e5m2": "fp8",
    "tfloat32_t": "tf32",
    "int4b_t": "int4",
    "uint4b_t": "int4",
    "int8_t": "int8",
    "signed char": "int8",
    "uint8_t": "uint8",
    "float": "fp32",
    "double": "fp64",
}

# Short spellings inside underscore-separated names (xmma, CUTLASS, fmha_v2, ...).
SHORT_NORM: dict[str, str] = {
    "fp16": "fp16",
    "f16": "fp16",
    "half": "fp16",
    "bf16": "bf16",
    "fp32": "fp32",
    "f32": "fp32",
    "tf32": "tf32",
    "fp64": "fp64",
    "f64": "fp64",
    "fp8": "fp8",
    "f8": "fp8",
    "e4m3": "fp8",
    "e5m2": "fp8",
    "e4m3fn": "fp8",
    "int8": "int8",
    "i8": "int8",
    "s8": "int8",
    "u8": "uint8",
    "uint8": "uint8",
    "int4": "int4",
    "i4": "int4",
    "s4": "int4",
    "u4": "int4",
    "u4b8": "int4",
    "uint4b8": "int4",
    "int32": "int32",
    "i32": "int32",
    "s32": "int32",
    "fp4": "fp4",
    "nvfp4": "fp4",
    "e2m1": "fp4",
}

# Short dtype words standing alone in a name (``..._fp8_quant``, ``fp16_...``).
WORD_DTYPE = re.compile(
    r"(?<![A-Za-z0-9])(bf16|fp16|fp32|tf32|fp64|fp8|e4m3|e5m2|int8|int4|nvfp4|fp4|w4a16|w8a8|w4a8)"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_WORD_NORM = {"w4a16": "int4", "w8a8": "int8", "w4a8": "int4"}

# Packed dtype pairs of xmma names: ``bf16f32``, ``e4m3e4m3``, ``i8i32``.
PACKED = re.compile(r"bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8|s4|u4")
PACKED_FULL = re.compile(r"(?:bf16|tf32|f16|f32|f64|e4m3|e5m2|s8|i8|u8|s32|i32|f8|s4|u4)+")


def cxx_dtypes(text: str | None) -> list[str]:
    """Normalised C++ data types in ``text``, in order."""
    if not text:
        return []
    return [_CXX_NORM[m.group(1)] for m in _CXX_DTYPE.finditer(text)]


def cxx_dtype(text: str | None) -> str | None:
    """The first C++ data type in ``text``."""
    if not text:
        return None
    m = _CXX_DTYPE.search(text)
    return _CXX_NORM[m.group(1)] if m else None


def word_dtype(text: str) -> str | None:
    """A dtype word standing alone in an underscore name (``scaled_fp8_quant``)."""
    m = WORD_DTYPE.search(text)
    if not m:
        return None
    word = m.group(1).lower()
    return _WORD_NORM.get(word) or SHORT_NORM.get(word)


def fp8_format(text: str) -> str | None:
    """``e4m3`` / ``e5m2`` when the name says which fp8."""
    low = text.lower()
    if "e4m3" in low:
        return "e4m3"
    if "e5m2" in low:
        return "e5m2"
    return None
