"""One description per GPU architecture (compute capability), read from the GPU data file.

The ``[architecture."<cc>"]`` tables of ``ncu_roofline/core/data/gpus.toml``
say, per compute capability, which dense ``sm__ops_path_tensor_<variant>``
counters ncu has for the chip, the FLOPs of one warp-level tensor
instruction where one shape dominates (Volta to Ada), whether the chip runs
packed FP32 (``FADD2``/``FMUL2``/``FFMA2``, CC 10.x) and its L1/shared-memory
bytes per clock per SM.  :func:`architecture` is the one way in: the readers'
metric lists, the collector (``profile``, ``inspect`` advice) and the
analysis all read these facts through it.

The file is parsed on first use only, so that commands which never need a
chip's description (most of ``inspect``) do not pay for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ncu_roofline.core.files import load_builtin_toml
from ncu_roofline.core.gpu_spec import CC_PATTERN
from ncu_roofline.errors import InputFormatError

__all__ = [
    "PACKED_FP32_OPS",
    "Architecture",
    "architecture",
    "architectures",
    "builtin_gpu_data",
    "normalise_cc",
]

#: Packed FP32 thread instructions and the FLOPs of each, as ncu's FP
#: roofline counts them: two lanes of an add, a mul or an FMA.
PACKED_FP32_OPS: tuple[tuple[str, float], ...] = (("fadd2", 2.0), ("fmul2", 2.0), ("ffma2", 4.0))

_KEYS = frozenset(
    {
        "chip",
        "tensor_ops",
        "tensor_inst_flops",
        "tensor_inst_shape",
        "packed_fp32",
        "l1_bytes_per_clk",
        "l1_source",
        "unsure",
    }
)


@dataclass(frozen=True)
class Architecture:
    """What the tool knows about one compute capability.

    ``tensor_ops`` are ``sm__ops_path_tensor_<variant>`` variants without the
    prefix and the ``.sum`` suffix; empty where ncu has none (Volta).
    ``tensor_inst_flops`` is None from Hopper on, where tensor instructions
    have no one shape.  ``l1_bytes_per_clk`` is the L1/shared bandwidth per
    SM per SM clock, ``l1_source`` where it comes from; ``unsure`` names the
    keys not verified in a stored source.
    """

    cc: str
    chip: str
    tensor_ops: tuple[str, ...]
    tensor_inst_flops: float | None
    tensor_inst_shape: str | None
    packed_fp32: bool
    l1_bytes_per_clk: float | None
    l1_source: str | None
    unsure: tuple[str, ...] = ()

    def tensor_metrics(self) -> tuple[str, ...]:
        """The ``.sum`` counters that count tensor work on this chip (``--metrics`` names)."""
        return tuple(f"sm__ops_path_tensor_{v}.sum" for v in self.tensor_ops)

    def packed_fp32_metrics(self) -> tuple[str, ...]:
        """The packed FP32 instruction counters, where the chip has packed FP32."""
        if not self.packed_fp32:
            return ()
        return tuple(
            f"sm__sass_thread_inst_executed_op_{op}_pred_on.sum" for op, _ in PACKED_FP32_OPS
        )


def normalise_cc(cc: str | None) -> str | None:
    """``"9.0"`` from ``"9.0"``, ``"9"``, ``"sm_90"``, ``"90"`` or ``"9,0"``; None otherwise."""
    if cc is None:
        return None
    text = str(cc).strip().lower().replace(",", ".").removeprefix("sm_").removeprefix("sm")
    if CC_PATTERN.match(text):
        major, minor = text.split(".")
        return f"{int(major)}.{int(minor)}"
    if text.isdigit():
        # "90" / "120": the last digit is the minor version; "9" is "9.0".
        return f"{int(text[:-1])}.{text[-1]}" if len(text) >= 2 else f"{int(text)}.0"
    return None


@lru_cache(maxsize=1)
def builtin_gpu_data() -> tuple[dict[str, Any], str]:
    """The built-in GPU data file, parsed once, and its label for messages."""
    return load_builtin_toml("ncu_roofline.core", "gpus.toml")


def _fail(label: str, cc: str, message: str) -> InputFormatError:
    return InputFormatError(f'{label}: [architecture."{cc}"]: {message}')


def _parse(cc: str, body: Any, label: str) -> Architecture:
    if not isinstance(body, dict):
        raise _fail(label, cc, "expected a table")
    unknown = sorted(set(body) - _KEYS)
    if unknown:
        raise _fail(label, cc, f"unknown key {unknown[0]}")
    ops = body.get("tensor_ops", [])
    if not isinstance(ops, list) or not all(isinstance(v, str) and v for v in ops):
        raise _fail(label, cc, "tensor_ops: expected a list of variant names")
    flops = body.get("tensor_inst_flops")
    l1 = body.get("l1_bytes_per_clk")
    for key, value in (("tensor_inst_flops", flops), ("l1_bytes_per_clk", l1)):
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0
        ):
            raise _fail(label, cc, f"{key}: expected a positive number")
    packed = body.get("packed_fp32", False)
    if not isinstance(packed, bool):
        raise _fail(label, cc, "packed_fp32: expected true or false")
    unsure = body.get("unsure", [])
    if not isinstance(unsure, list) or not set(unsure) <= _KEYS:
        raise _fail(label, cc, "unsure: expected a list of this table's keys")
    return Architecture(
        cc=cc,
        chip=str(body.get("chip", "")),
        tensor_ops=tuple(ops),
        tensor_inst_flops=None if flops is None else float(flops),
        tensor_inst_shape=body.get("tensor_inst_shape"),
        packed_fp32=packed,
        l1_bytes_per_clk=None if l1 is None else float(l1),
        l1_source=body.get("l1_source"),
        unsure=tuple(unsure),
    )


@lru_cache(maxsize=1)
def architectures() -> dict[str, Architecture]:
    """Every described compute capability (``"9.0"`` -> its description)."""
    data, label = builtin_gpu_data()
    tables = data.get("architecture", {})
    if not isinstance(tables, dict):
        raise InputFormatError(f'{label}: [architecture]: expected [architecture."<cc>"] tables')
    out: dict[str, Architecture] = {}
    for cc, body in tables.items():
        key = normalise_cc(cc)
        if key is None or key != cc:
            raise _fail(label, cc, 'expected a compute capability such as "9.0"')
        out[key] = _parse(key, body, label)
    return out


def architecture(cc: str | None) -> Architecture | None:
    """The description of compute capability ``cc`` (``"9.0"``, ``"sm_90"``), or None if unknown."""
    key = normalise_cc(cc)
    return None if key is None else architectures().get(key)
