"""Peak compute and memory roofs of NVIDIA GPUs: the built-in table and user files.

The built-in table (``ncu_roofline/core/data/gpus.toml``) lists datasheet peaks for
common GPUs.  It is the fallback when an export lacks the metrics Nsight
Compute derives its own roofs from, and a cross-check when it has them.  Users
can supply their own roofs in a TOML file with the same schema.

The file states figures in the units datasheets use (TFLOP/s, GB/s, MHz); this
module hands out SI units only (FLOP/s, OP/s for integer, bytes/s, Hz) so that
nothing downstream has to remember a prefix.  Every tensor figure is a dense
peak: 2:4 sparsity-doubled headline numbers never enter the table.

Each ``[gpu.<key>]`` table accepts these keys (all optional except ``name``,
and at least one roof is required)::

    name, match, arch, cc, sms, boost_mhz, base_mhz, tensor_mhz,
    fp64_tflops, fp32_tflops, fp16_tflops, fp64_tc_tflops, tf32_tc_tflops,
    fp16_tc_tflops, bf16_tc_tflops, fp8_tc_tflops, int8_tc_tops,
    fp4_tc_tflops, dram_gbps, l2_gbps, l1_gbps, dram_gb,
    source, notes, unsure, derived, disputed
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, NoReturn

from ncu_roofline.core.files import load_builtin_toml, parse_toml, read_user_text
from ncu_roofline.errors import InputFormatError, UsageError

__all__ = [
    "COMPUTE_KEYS",
    "MEMORY_KEYS",
    "ArchRates",
    "GpuSpec",
    "arch_rates",
    "builtin_gpus",
    "find_gpu",
    "load_roofs_file",
    "match_device",
    "rates_for_cc",
]

COMPUTE_KEYS: tuple[str, ...] = (
    "fp64",
    "fp32",
    "fp16",
    "tensor_fp64",
    "tensor_tf32",
    "tensor_fp16",
    "tensor_bf16",
    "tensor_fp8",
    "tensor_int8",
    "tensor_fp4",
)
MEMORY_KEYS: tuple[str, ...] = ("dram", "l2", "l1")

BUILTIN_ORIGIN = "built-in"

# File key -> (vocabulary key, factor to SI).  The file keeps datasheet units
# so that its numbers can be compared with a datasheet by eye.
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

_TEXT_KEYS = ("name", "arch", "cc", "source", "notes")
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

_CC_PATTERN = re.compile(r"^\d+\.\d+$")


@dataclass(frozen=True)
class GpuSpec:
    """Peak roofs of one GPU, in SI units.

    ``compute`` maps keys of :data:`COMPUTE_KEYS` to FLOP/s (``tensor_int8``:
    OP/s) and ``memory`` maps keys of :data:`MEMORY_KEYS` to bytes/s; a key is
    present only where the figure is known.  ``unsure``, ``derived`` and
    ``disputed`` use the same keys, plus the field names ``sms``,
    ``boost_hz``, ``base_hz``, ``tensor_hz`` and ``dram_bytes``.
    """

    key: str
    name: str
    arch: str | None
    cc: str | None
    sms: int | None
    boost_hz: float | None
    base_hz: float | None
    tensor_hz: float | None
    compute: dict[str, float] = field(hash=False)
    memory: dict[str, float] = field(hash=False)
    match: tuple[str, ...]
    source: str
    notes: str
    unsure: tuple[str, ...]
    derived: tuple[str, ...]
    disputed: tuple[str, ...]
    origin: str
    # DRAM capacity as marketed (GB x 1e9): a label for reports, not a roof.
    dram_bytes: float | None = None

    def clock_for(self, key: str) -> float | None:
        """The clock (Hz) that the figure under ``key`` assumes, if known.

        Tensor figures assume ``tensor_hz`` where the vendor quotes a lower
        tensor clock, else ``boost_hz``.  FP64 tensor (DMMA) figures are the
        exception: on Hopper and Blackwell they reproduce at the boost clock,
        not at the lower clock of the other tensor figures.  DRAM bandwidth
        does not depend on the SM clock, so ``dram`` gives None; ``l2`` and
        ``l1`` are per-clock figures taken at the boost clock.
        """
        if key in COMPUTE_KEYS:
            if key.startswith("tensor_") and key != "tensor_fp64":
                return self.tensor_hz if self.tensor_hz is not None else self.boost_hz
            return self.boost_hz
        if key == "dram":
            return None
        if key in MEMORY_KEYS:
            return self.boost_hz
        raise ValueError(
            f"unknown roof key {key!r}; expected one of {', '.join(COMPUTE_KEYS + MEMORY_KEYS)}"
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data: SI units, lists instead of tuples."""
        return {
            "key": self.key,
            "name": self.name,
            "arch": self.arch,
            "cc": self.cc,
            "sms": self.sms,
            "boost_hz": self.boost_hz,
            "base_hz": self.base_hz,
            "tensor_hz": self.tensor_hz,
            "compute": dict(self.compute),
            "memory": dict(self.memory),
            "dram_bytes": self.dram_bytes,
            "match": list(self.match),
            "source": self.source,
            "notes": self.notes,
            "unsure": list(self.unsure),
            "derived": list(self.derived),
            "disputed": list(self.disputed),
            "origin": self.origin,
        }


@dataclass(frozen=True)
class ArchRates:
    """Dense peak throughput per SM per clock of one architecture variant.

    ``per_sm_per_clock`` uses the :data:`COMPUTE_KEYS` vocabulary (FLOP per
    clock per SM; ``tensor_int8``: OP).  ``geforce`` marks the consumer
    variant whose FP32-accumulate tensor rates are halved.
    """

    key: str
    cc: tuple[str, ...]
    geforce: bool
    description: str
    per_sm_per_clock: dict[str, float] = field(hash=False)
    # Keys (COMPUTE_KEYS vocabulary) whose rate is inferred, not verified.
    unsure: tuple[str, ...] = ()


# --------------------------------------------------------------------------
# Parsing and validation
# --------------------------------------------------------------------------


def _show(value: Any) -> str:
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
            self.fail(key, f"expected a string, got {_show(value)}")
        return value

    def positive(self, key: str) -> float | None:
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
            self.fail(key, f"expected a positive number, got {_show(value)}")
        return float(value)

    def positive_int(self, key: str) -> int | None:
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            self.fail(key, f"expected a positive integer, got {_show(value)}")
        return value

    def string_list(self, key: str, *, allow_single: bool = False) -> list[str]:
        value = self.data.get(key)
        if value is None:
            return []
        if allow_single and isinstance(value, str):
            return [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(key, f"expected an array of strings, got {_show(value)}")
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
            self.fail(key, f'expected a compute capability such as "9.0", got {_show(value)}')
        if not _CC_PATTERN.match(text):
            self.fail(key, f'expected a compute capability such as "9.0", got {_show(value)}')
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
            table.fail("match", f"bad regular expression {_show(pattern)}: {exc}")

    compute: dict[str, float] = {}
    for file_key, vocab_key in _COMPUTE_FILE_KEYS.items():
        value = table.positive(file_key)
        if value is not None:
            compute[vocab_key] = value * _TERA
    memory: dict[str, float] = {}
    for file_key, vocab_key in _MEMORY_FILE_KEYS.items():
        value = table.positive(file_key)
        if value is not None:
            memory[vocab_key] = value * _GIGA
    if not compute and not memory:
        table.fail(
            None,
            "no roof: give at least one of " + ", ".join([*_COMPUTE_FILE_KEYS, *_MEMORY_FILE_KEYS]),
        )

    clocks: dict[str, float | None] = {}
    for file_key, field_name in _CLOCK_FILE_KEYS.items():
        value = table.positive(file_key)
        clocks[field_name] = None if value is None else value * _MEGA
    dram_gb = table.positive("dram_gb")

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
                    f"{_show(item)} is not a numeric key; expected one of "
                    + ", ".join(_MARK_VOCABULARY),
                )
        marks[mark_key] = tuple(dict.fromkeys(mapped))

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
    )


def _parse_gpu_tables(data: Mapping[str, Any], file_label: str, origin: str) -> list[GpuSpec]:
    gpus = data.get("gpu")
    if not isinstance(gpus, dict):
        raise InputFormatError(
            f"{file_label}: [gpu]: expected [gpu.<key>] tables, got {_show(gpus)}"
        )
    if not gpus:
        raise InputFormatError(f"{file_label}: [gpu]: no [gpu.<key>] tables")
    specs = []
    for key, body in gpus.items():
        label = f"[gpu.{key}]"
        if not isinstance(body, dict):
            raise InputFormatError(f"{file_label}: {label}: expected a table, got {_show(body)}")
        specs.append(_parse_gpu(key, _Table(file_label, label, body), origin))
    return specs


def _parse_arch(key: str, table: _Table) -> ArchRates:
    table.check_keys(_ARCH_KEYS)
    ccs = table.string_list("cc")
    if not ccs:
        table.fail("cc", "expected a non-empty array of compute capabilities")
    for cc in ccs:
        if not _CC_PATTERN.match(cc):
            table.fail("cc", f'expected compute capabilities such as "9.0", got {_show(cc)}')
    geforce = table.data.get("geforce", False)
    if not isinstance(geforce, bool):
        table.fail("geforce", f"expected true or false, got {_show(geforce)}")
    rates: dict[str, float] = {}
    for file_key, vocab_key in _ARCH_FILE_KEYS.items():
        value = table.positive(file_key)
        if value is not None:
            rates[vocab_key] = value
    unsure: list[str] = []
    for item in table.string_list("unsure"):
        if item not in _ARCH_FILE_KEYS:
            table.fail("unsure", f"{_show(item)} is not a rate key")
        unsure.append(_ARCH_FILE_KEYS[item])
    return ArchRates(
        key=key,
        cc=tuple(ccs),
        geforce=geforce,
        description=table.text("description") or "",
        per_sm_per_clock=rates,
        unsure=tuple(unsure),
    )


@lru_cache(maxsize=1)
def _builtin_tables() -> tuple[tuple[GpuSpec, ...], tuple[ArchRates, ...]]:
    data, label = load_builtin_toml("ncu_roofline.core", "gpus.toml")
    gpus = _parse_gpu_tables(data, label, BUILTIN_ORIGIN)
    arch_tables = data.get("arch", {})
    if not isinstance(arch_tables, dict):
        raise InputFormatError(f"{label}: [arch]: expected [arch.<key>] tables")
    archs = []
    for key, body in arch_tables.items():
        if not isinstance(body, dict):
            raise InputFormatError(f"{label}: [arch.{key}]: expected a table")
        archs.append(_parse_arch(key, _Table(label, f"[arch.{key}]", body)))
    return tuple(gpus), tuple(archs)


# --------------------------------------------------------------------------
# Public interface
# --------------------------------------------------------------------------


def builtin_gpus() -> list[GpuSpec]:
    """Every GPU of the built-in table, in file order (parsed once, then cached)."""
    return list(_builtin_tables()[0])


def arch_rates() -> list[ArchRates]:
    """The built-in per-SM-per-clock rates, one entry per architecture variant."""
    return list(_builtin_tables()[1])


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
        return _parse_gpu_tables(data, label, label)
    key = Path(path).stem
    return [_parse_gpu(key, _Table(label, "top-level table", data), label)]


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def match_device(device_name: str | None, gpus: Sequence[GpuSpec] | None = None) -> GpuSpec | None:
    """The GPU whose ``match`` regexes hit ``device_name`` as ncu prints it.

    Searches ``gpus`` (default: the built-in table) in order and returns the
    first hit, or None when no entry matches.
    """
    if device_name is None or not device_name.strip():
        return None
    name = device_name.strip()
    for spec in builtin_gpus() if gpus is None else gpus:
        if any(_compiled(p).search(name) for p in spec.match):
            return spec
    return None


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def find_gpu(name: str, gpus: Sequence[GpuSpec] | None = None) -> GpuSpec:
    """Look up a GPU as a user names it (e.g. on ``--gpu``).

    Tried in turn, case-insensitively, with spaces, dashes and underscores
    treated alike: the key (``h100_sxm5``), the name (``H100 SXM5 80GB``), a
    device name as ncu prints it (``NVIDIA H100 80GB HBM3``), and finally a
    key prefix (``h100``), where the first entry in table order wins because
    the table lists the common variant of a family first.  Raises UsageError
    with close matches when nothing fits.
    """
    candidates = builtin_gpus() if gpus is None else list(gpus)
    wanted = _normalise(name)
    if not wanted:
        raise UsageError("empty GPU name; give a key such as h100_sxm5")
    for spec in candidates:
        if _normalise(spec.key) == wanted:
            return spec
    for spec in candidates:
        if _normalise(spec.name) == wanted:
            return spec
    by_device = match_device(name, candidates)
    if by_device is not None:
        return by_device
    for spec in candidates:
        if _normalise(spec.key).startswith(wanted):
            return spec

    words: dict[str, str] = {}
    for spec in candidates:
        words.setdefault(_normalise(spec.key), spec.key)
        words.setdefault(_normalise(spec.name), spec.key)
    close = difflib.get_close_matches(wanted, list(words), n=8, cutoff=0.5)
    suggestions = list(dict.fromkeys(words[c] for c in close))[:5]
    if suggestions:
        hint = "did you mean " + ", ".join(suggestions) + "?"
    else:
        hint = "known GPUs: " + ", ".join(spec.key for spec in candidates)
    raise UsageError(f"unknown GPU {_show(name)}; {hint}")


def _parse_cc(cc: str) -> str | None:
    text = cc.strip().lower().replace(",", ".")
    if _CC_PATTERN.match(text):
        major, minor = text.split(".")
        return f"{int(major)}.{int(minor)}"
    # "sm_86" / "sm86" / "86": the last digit is the minor version.
    digits = re.fullmatch(r"(?:sm_?)?(\d{2,3})", text)
    if digits:
        value = digits.group(1)
        return f"{int(value[:-1])}.{value[-1]}"
    if text.isdigit():
        return f"{int(text)}.0"
    return None


def rates_for_cc(cc: str | None, device_name: str | None = None) -> ArchRates | None:
    """Per-SM-per-clock rates for a compute capability such as ``"8.6"``.

    Where the table has a data-center/professional and a GeForce variant of
    the same compute capability, a device name containing "GeForce" picks the
    GeForce one and anything else (no name included) the other.  When only
    one kind exists it is returned whatever the name says: the FP32 and
    vector rates are shared, and the caller can read ``geforce`` and
    ``description``.  None for an unknown compute capability.
    """
    if cc is None:
        return None
    wanted = _parse_cc(cc)
    if wanted is None:
        return None
    matching = [rates for rates in arch_rates() if wanted in rates.cc]
    if not matching:
        return None
    geforce = device_name is not None and "geforce" in device_name.lower()
    preferred = [rates for rates in matching if rates.geforce == geforce]
    return (preferred or matching)[0]
