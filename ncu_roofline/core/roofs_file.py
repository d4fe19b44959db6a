"""Roofs files: the TOML schema of GPU roofs, its validation, and user roofs files.

The built-in table (``ncu_roofline/core/data/gpus.toml``) and a user's
``--roofs`` file share one schema.  A file states figures in the units
datasheets use (TFLOP/s, GB/s, MHz) so that its numbers can be compared with
a datasheet by eye; the records come back in SI units only (FLOP/s, OP/s for
integer, bytes/s, Hz) so that nothing downstream has to remember a prefix.
Every error names the file, the table and the key.

Each ``[gpu.<key>]`` table accepts these keys (all optional except ``name``,
and at least one roof is required)::

    name, match, arch, cc, sms, boost_mhz, base_mhz, tensor_mhz,
    fp64_tflops, fp32_tflops, fp16_tflops, fp64_tc_tflops, tf32_tc_tflops,
    fp16_tc_tflops, bf16_tc_tflops, fp8_tc_tflops, int8_tc_tops,
    fp4_tc_tflops, dram_gbps, l2_gbps, l1_gbps, dram_gb,
    source, notes, unsure, derived, disputed, vendor, theory_only

``theory_only = true`` marks a device ncu cannot profile (a TPU, an AMD
GPU): usable with ``theory`` only, so it may give neither ``cc`` nor
``match``.  ``vendor`` (default ``"nvidia"``) names its maker.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from ncu_roofline.core.files import parse_toml, read_user_text
from ncu_roofline.core.gpu_spec import CC_PATTERN, ArchRates, GpuSpec
from ncu_roofline.errors import InputFormatError

# File key -> vocabulary key; the factor to SI goes with the file unit
# (TFLOP/s, GB/s, MHz).
_COMPUTE_FILE_KEYS: dict[str, str] = {
    "fp64_tflops": "fp64",
    "fp32_tflops": "fp32",
    "fp16_tflops": "fp16",
    "fp64_tc_tflops": "tensor_fp64",
    "tf32_tc_tflops": "tensor_tf32",
    "fp16_tc_tflops": "tensor_fp16",
    "bf16_tc_tflops": "tensor_bf16",
    "fp8_tc_tflops": "tensor_fp8",
    "int8_tc_tops": "tensor_int8",
    "fp4_tc_tflops": "tensor_fp4",
}
_MEMORY_FILE_KEYS: dict[str, str] = {"dram_gbps": "dram", "l2_gbps": "l2", "l1_gbps": "l1"}
_CLOCK_FILE_KEYS: dict[str, str] = {
    "boost_mhz": "boost_hz",
    "base_mhz": "base_hz",
    "tensor_mhz": "tensor_hz",
}
_TERA = 1e12
_GIGA = 1e9
_MEGA = 1e6
#: Largest roofs a file may give, far beyond any GPU (the fastest tensor
#: peaks are about 1e16 FLOP/s, HBM about 1e13 B/s, clocks about 3e9 Hz):
#: a larger value is a slip (``1e308``), and would overflow or place nothing.
MAX_COMPUTE = 1e19
MAX_BANDWIDTH = 1e15
MAX_CLOCK = 1e11
MAX_PER_SM_PER_CLOCK = 1e7
MAX_MEMORY_GB = 1e6

_MARK_KEYS = ("unsure", "derived", "disputed")

# Order of the keys in error messages: the order a table is usually written in.
_GPU_FILE_KEYS: tuple[str, ...] = (
    "name",
    "match",
    "arch",
    "cc",
    "sms",
    *_CLOCK_FILE_KEYS,
    *_COMPUTE_FILE_KEYS,
    *_MEMORY_FILE_KEYS,
    "dram_gb",
    "source",
    "notes",
    *_MARK_KEYS,
    "vendor",
    "theory_only",
)

# Markings name the numeric keys of the file; GpuSpec reports them in the
# vocabulary of its own fields so that callers can test ``key in spec.unsure``
# with the same key they index ``spec.compute`` or ``spec.memory`` with.
_MARK_VOCABULARY: dict[str, str] = {
    **_COMPUTE_FILE_KEYS,
    **_MEMORY_FILE_KEYS,
    **_CLOCK_FILE_KEYS,
    "sms": "sms",
    "dram_gb": "dram_bytes",
}

_ARCH_FILE_KEYS: dict[str, str] = {
    "fp64": "fp64",
    "fp32": "fp32",
    "fp16": "fp16",
    "fp64_tc": "tensor_fp64",
    "tf32_tc": "tensor_tf32",
    "fp16_tc": "tensor_fp16",
    "bf16_tc": "tensor_bf16",
    "fp8_tc": "tensor_fp8",
    "int8_tc": "tensor_int8",
    "fp4_tc": "tensor_fp4",
}
_ARCH_KEYS: tuple[str, ...] = ("description", "cc", "geforce", *_ARCH_FILE_KEYS, "unsure")


def show_value(value: Any) -> str:
    """A value as the user wrote it, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return f"{value!s} ({type(value).__name__})"


class _Table:
    """Reads one TOML table, raising one-line errors that name file, table and key."""

    def __init__(self, file_label: str, table_label: str, data: Mapping[str, Any]) -> None:
        self.file_label = file_label
        self.table_label = table_label
        self.data = data

    def fail(self, key: str | None, message: str) -> NoReturn:
        where = f"{self.file_label}: {self.table_label}"
        if key is not None:
            where += f" {key}"
        raise InputFormatError(f"{where}: {message}")

    def check_keys(self, allowed: Sequence[str]) -> None:
        for key in self.data:
            if key not in allowed:
                hint = difflib.get_close_matches(key, allowed, n=1)
                did_you_mean = f" (did you mean {hint[0]}?)" if hint else ""
                self.fail(key, f"unknown key{did_you_mean}; allowed keys: {', '.join(allowed)}")

    def text(self, key: str) -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, str):
            self.fail(key, f"expected a string, got {show_value(value)}")
        return value

    def positive(self, key: str, scale: float = 1.0, limit: float | None = None) -> float | None:
        """``key``'s value times ``scale``; refused unless positive, finite and at most ``limit``."""
        value = self.data.get(key)
        if value is None:
            return None
        # bool is an int subclass, and TOML allows nan and inf: none is a roof.
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or not math.isfinite(value)
            or value <= 0
        ):
            self.fail(key, f"expected a positive number, got {show_value(value)}")
        scaled = float(value) * scale
        if limit is not None and not scaled <= limit:
            self.fail(
                key,
                f"{show_value(value)} is beyond any GPU (at most {limit / scale:g}); "
                "check the unit of the key",
            )
        return scaled

    def positive_int(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.fail(key, f"expected a positive integer, got {show_value(value)}")
        return value

    def string_list(self, key: str, *, allow_single: bool = False) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if allow_single and isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"expected an array of strings, got {show_value(value)}")
        return list(value)

    def cc(self, key: str = "cc") -> str | None:
        value = self.data.get(key)
        if value is None:
            return None
        # A bare number (cc = 9.0) is an easy slip in TOML; accept it.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            text = f"{value}.0" if isinstance(value, int) else repr(float(value))
        elif isinstance(value, str):
            text = value.strip()
        else:
            self.fail(key, f'expected a compute capability such as "9.0", got {show_value(value)}')
        if not CC_PATTERN.match(text):
            self.fail(key, f'expected a compute capability such as "9.0", got {show_value(value)}')
        return text


def _parse_gpu(key: str, table: _Table, origin: str) -> GpuSpec:
    table.check_keys(_GPU_FILE_KEYS)

    name = table.text("name")
    if name is None:
        table.fail("name", "missing; every GPU needs a name")
    if not name.strip():
        table.fail("name", "must not be empty")

    patterns = table.string_list("match", allow_single=True)
    for pattern in patterns:
        if not pattern:
            # An empty pattern matches every device name.
            table.fail("match", "empty regular expression")
        try:
            re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            table.fail("match", f"bad regular expression {show_value(pattern)}: {exc}")

    compute: dict[str, float] = {}
    for file_key, vocab_key in _COMPUTE_FILE_KEYS.items():
        value = table.positive(file_key, _TERA, MAX_COMPUTE)
        if value is not None:
            compute[vocab_key] = value
    memory: dict[str, float] = {}
    for file_key, vocab_key in _MEMORY_FILE_KEYS.items():
        value = table.positive(file_key, _GIGA, MAX_BANDWIDTH)
        if value is not None:
            memory[vocab_key] = value
    if not compute and not memory:
        table.fail(
            None,
            "no roof: give at least one of " + ", ".join([*_COMPUTE_FILE_KEYS, *_MEMORY_FILE_KEYS]),
        )

    clocks: dict[str, float | None] = {}
    for file_key, field_name in _CLOCK_FILE_KEYS.items():
        clocks[field_name] = table.positive(file_key, _MEGA, MAX_CLOCK)
    dram_gb = table.positive("dram_gb", 1.0, MAX_MEMORY_GB)

    marks: dict[str, tuple[str, ...]] = {}
    for mark_key in _MARK_KEYS:
        mapped: list[str] = []
        for item in table.string_list(mark_key):
            if item in _MARK_VOCABULARY:
                mapped.append(_MARK_VOCABULARY[item])
            elif item in _MARK_VOCABULARY.values():
                mapped.append(item)
            else:
                table.fail(
                    mark_key,
                    f"{show_value(item)} is not a numeric key; expected one of "
                    + ", ".join(_MARK_VOCABULARY),
                )
        marks[mark_key] = tuple(dict.fromkeys(mapped))

    vendor = (table.text("vendor") or "nvidia").strip().lower()
    if not vendor:
        table.fail("vendor", "must not be empty")
    theory_only = table.data.get("theory_only", False)
    if not isinstance(theory_only, bool):
        table.fail("theory_only", f"expected true or false, got {show_value(theory_only)}")
    if theory_only and patterns:
        # ncu never profiles the device: a pattern could only catch another's name.
        table.fail("match", "a theory-only device is never matched to a device ncu names")
    if theory_only and table.data.get("cc") is not None:
        table.fail("cc", "a theory-only device has no CUDA compute capability")

    return GpuSpec(
        key=key,
        name=name.strip(),
        arch=table.text("arch"),
        cc=table.cc(),
        sms=table.positive_int("sms"),
        boost_hz=clocks["boost_hz"],
        base_hz=clocks["base_hz"],
        tensor_hz=clocks["tensor_hz"],
        compute=compute,
        memory=memory,
        match=tuple(patterns),
        source=table.text("source") or "",
        notes=table.text("notes") or "",
        unsure=marks["unsure"],
        derived=marks["derived"],
        disputed=marks["disputed"],
        origin=origin,
        dram_bytes=None if dram_gb is None else dram_gb * _GIGA,
        vendor=vendor,
        theory_only=theory_only,
    )


def parse_gpu_tables(data: Mapping[str, Any], file_label: str, origin: str) -> list[GpuSpec]:
    """The ``[gpu.<key>]`` tables of a parsed file, validated, in file order."""
    gpus = data.get("gpu")
    if not isinstance(gpus, dict):
        raise InputFormatError(
            f"{file_label}: [gpu]: expected [gpu.<key>] tables, got {show_value(gpus)}"
        )
    if not gpus:
        raise InputFormatError(f"{file_label}: [gpu]: no [gpu.<key>] tables")
    specs = []
    for key, body in gpus.items():
        label = f"[gpu.{key}]"
        if not isinstance(body, dict):
            raise InputFormatError(
                f"{file_label}: {label}: expected a table, got {show_value(body)}"
            )
        specs.append(_parse_gpu(key, _Table(file_label, label, body), origin))
    return specs


def _parse_arch(key: str, table: _Table) -> ArchRates:
    table.check_keys(_ARCH_KEYS)
    ccs = table.string_list("cc")
    if not ccs:
        table.fail("cc", "expected a non-empty array of compute capabilities")
    for cc in ccs:
        if not CC_PATTERN.match(cc):
            table.fail("cc", f'expected compute capabilities such as "9.0", got {show_value(cc)}')
    geforce = table.data.get("geforce", False)
    if not isinstance(geforce, bool):
        table.fail("geforce", f"expected true or false, got {show_value(geforce)}")
    rates: dict[str, float] = {}
    for file_key, vocab_key in _ARCH_FILE_KEYS.items():
        value = table.positive(file_key, 1.0, MAX_PER_SM_PER_CLOCK)
        if value is not None:
            rates[vocab_key] = value
    unsure: list[str] = []
    for item in table.string_list("unsure"):
        if item not in _ARCH_FILE_KEYS:
            table.fail("unsure", f"{show_value(item)} is not a rate key")
        unsure.append(_ARCH_FILE_KEYS[item])
    return ArchRates(
        key=key,
        cc=tuple(ccs),
        geforce=geforce,
        description=table.text("description") or "",
        per_sm_per_clock=rates,
        unsure=tuple(unsure),
    )


def parse_arch_tables(data: Mapping[str, Any], file_label: str) -> list[ArchRates]:
    """The ``[arch.<key>]`` tables of a parsed file (none when it has no ``[arch]``)."""
    arch_tables = data.get("arch", {})
    if not isinstance(arch_tables, dict):
        raise InputFormatError(f"{file_label}: [arch]: expected [arch.<key>] tables")
    archs = []
    for key, body in arch_tables.items():
        if not isinstance(body, dict):
            raise InputFormatError(f"{file_label}: [arch.{key}]: expected a table")
        archs.append(_parse_arch(key, _Table(file_label, f"[arch.{key}]", body)))
    return archs


def load_roofs_file(path: str | os.PathLike[str]) -> list[GpuSpec]:
    """Read a user roofs file: ``[gpu.<key>]`` tables in the built-in schema.

    A file whose top level is a single GPU table (no ``[gpu.*]`` header) is
    accepted too; its key is the file name without extension.  Figures come
    back in SI units.  Raises InputNotFoundError when the file cannot be read
    and InputFormatError, naming file, table and key, when its content is
    wrong.
    """
    label = os.fspath(path)
    text = read_user_text(path, "roofs file")
    data = parse_toml(text, label)

    if not data:
        raise InputFormatError(f"{label}: empty file; expected [gpu.<key>] tables of roofs")
    if "gpu" in data:
        extra = [k for k in data if k != "gpu"]
        if extra:
            raise InputFormatError(
                f"{label}: top level {extra[0]}: unknown key next to the [gpu.*] tables; "
                "put every GPU in its own [gpu.<key>] table"
            )
        return parse_gpu_tables(data, label, label)
    key = Path(path).stem
    return [_parse_gpu(key, _Table(label, "top-level table", data), label)]
