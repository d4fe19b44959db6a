"""Data types of the op library: element sizes, canonical names, compute ceilings."""

from __future__ import annotations

from ncu_roofline.theory.ops.errors import TheoryError

#: Bytes per element of every known data type name, aliases included.
DTYPE_BYTES: dict[str, float] = {
    "fp64": 8,
    "fp32": 4,
    "tf32": 4,
    "fp16": 2,
    "bf16": 2,
    "fp8": 1,
    "e4m3": 1,
    "e5m2": 1,
    "int8": 1,
    "uint8": 1,
    "int4": 0.5,
    "fp4": 0.5,
    "int32": 4,
    "int64": 8,
}


# Alias -> canonical name.  Aliases are also keys of DTYPE_BYTES so that a
# caller that only needs a size can index the table directly.
_DTYPE_ALIASES: dict[str, str] = {
    "double": "fp64",
    "float64": "fp64",
    "f64": "fp64",
    "float": "fp32",
    "float32": "fp32",
    "f32": "fp32",
    "single": "fp32",
    "half": "fp16",
    "float16": "fp16",
    "f16": "fp16",
    "bfloat16": "bf16",
    "float8": "fp8",
    "f8": "fp8",
    "fp8_e4m3": "e4m3",
    "fp8e4m3": "e4m3",
    "e4m3fn": "e4m3",
    "float8_e4m3fn": "e4m3",
    "float8_e4m3": "e4m3",
    "fp8_e5m2": "e5m2",
    "fp8e5m2": "e5m2",
    "float8_e5m2": "e5m2",
    "i8": "int8",
    "s8": "int8",
    "u8": "uint8",
    "i4": "int4",
    "s4": "int4",
    "u4": "int4",
    "uint4": "int4",
    "nvfp4": "fp4",
    "mxfp4": "fp4",
    "e2m1": "fp4",
    "float4_e2m1fn": "fp4",
    "i32": "int32",
    "int": "int32",
    "i64": "int64",
    "long": "int64",
}
DTYPE_BYTES.update({alias: DTYPE_BYTES[name] for alias, name in _DTYPE_ALIASES.items()})

# Ceiling for matrix math (tensor cores) and for vector math, per canonical
# dtype, in the vocabulary of ncu_roofline.core.hardware.COMPUTE_KEYS.
_TENSOR_KEY: dict[str, str] = {
    "fp64": "tensor_fp64",
    "fp32": "fp32",
    "tf32": "tensor_tf32",
    "fp16": "tensor_fp16",
    "bf16": "tensor_bf16",
    "fp8": "tensor_fp8",
    "e4m3": "tensor_fp8",
    "e5m2": "tensor_fp8",
    "int8": "tensor_int8",
    "uint8": "tensor_int8",
    "int4": "tensor_int8",
    "fp4": "tensor_fp4",
    "int32": "fp32",
    "int64": "fp32",
}


_VECTOR_KEY: dict[str, str] = {"fp64": "fp64", "fp16": "fp16", "bf16": "fp16"}


def canonical_dtype(name: str) -> str:
    """The canonical name of a data type (``"Half"`` -> ``"fp16"``).

    Case-insensitive; a ``torch.`` prefix and dashes are accepted.  Raises
    TheoryError for an unknown name.
    """
    text = str(name).strip().lower().replace("-", "_")
    text = text.removeprefix("torch.")
    if text in _DTYPE_ALIASES:
        return _DTYPE_ALIASES[text]
    if text in DTYPE_BYTES:
        return text
    known = ", ".join(k for k in DTYPE_BYTES if k not in _DTYPE_ALIASES)
    raise TheoryError(f"unknown data type {name!r}; known: {known}")


def dtype_bytes(name: str) -> float:
    """Bytes per element of a data type given by any accepted name."""
    return DTYPE_BYTES[canonical_dtype(name)]


def matmul_precision(a: str, w: str) -> str:
    """Ceiling of a matrix product of dtypes ``a`` and ``w``.

    The math runs in the wider of the two (W4A16 dequantises to fp16), so the
    wider dtype picks the ceiling; on a tie the activation's wins.  fp32 uses
    tensor cores only when tf32 is asked for explicitly.
    """
    if "tf32" in (a, w) and {a, w} <= {"tf32", "fp32"}:
        return "tensor_tf32"
    wider = w if DTYPE_BYTES[w] > DTYPE_BYTES[a] else a
    return _TENSOR_KEY[wider]


def vector_precision(dtype: str) -> str:
    """Ceiling of element-wise math on ``dtype`` (CUDA cores)."""
    return _VECTOR_KEY.get(dtype, "fp32")
