"""Peak compute and memory roofs of NVIDIA GPUs: the built-in table and lookups in it.

The built-in table (``ncu_roofline/core/data/gpus.toml``) lists datasheet peaks for
common GPUs.  It is the fallback when an export lacks the metrics Nsight
Compute derives its own roofs from, and a cross-check when it has them.  Users
can supply their own roofs in a TOML file with the same schema
(:func:`load_roofs_file`, from :mod:`ncu_roofline.core.roofs_file`).

Figures are in SI units only (FLOP/s, OP/s for integer, bytes/s, Hz).  Every
tensor figure is a dense peak: 2:4 sparsity-doubled headline numbers never
enter the table.  The records and the roof vocabulary are in
:mod:`ncu_roofline.core.gpu_spec`; this module re-exports them.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ncu_roofline.core.architecture import architecture, builtin_gpu_data, normalise_cc
from ncu_roofline.core.gpu_spec import COMPUTE_KEYS, MEMORY_KEYS, ArchRates, GpuSpec
from ncu_roofline.core.roofs_file import (
    load_roofs_file,
    parse_arch_tables,
    parse_gpu_tables,
    show_value,
)
from ncu_roofline.errors import UsageError

__all__ = [
    "COMPUTE_KEYS",
    "MEMORY_KEYS",
    "ArchRates",
    "GpuLookup",
    "GpuSpec",
    "arch_rates",
    "builtin_gpus",
    "chosen_roofs",
    "find_gpu",
    "load_roofs_file",
    "match_device",
    "rates_for_cc",
    "refuse_theory_only",
    "resolve_gpu",
    "with_l1_roof",
]

BUILTIN_ORIGIN = "built-in"


@lru_cache(maxsize=1)
def _builtin_tables() -> tuple[tuple[GpuSpec, ...], tuple[ArchRates, ...]]:
    data, label = builtin_gpu_data()
    gpus = [with_l1_roof(spec) for spec in parse_gpu_tables(data, label, BUILTIN_ORIGIN)]
    return tuple(gpus), tuple(parse_arch_tables(data, label))


def with_l1_roof(spec: GpuSpec) -> GpuSpec:
    """``spec`` with an L1/shared-memory roof where it has none: L1 B/clk/SM x SMs x boost clock.

    The bytes per clock per SM are the architecture description's
    (:func:`~ncu_roofline.core.architecture.architecture`); the figure is
    marked ``derived`` (and ``unsure`` where the per-SM figure is) and its
    source is added to the GPU's.  Like the L2 figures it is a per-clock
    figure at the boost clock, so ``--clocks measured`` scales it to the SM
    clock the export measured.  Unchanged without a CC, SM count or boost
    clock, or where the architecture's L1 figure is not known.
    """
    arch = architecture(spec.cc)
    if (
        "l1" in spec.memory
        or arch is None
        or arch.l1_bytes_per_clk is None
        or not spec.sms
        or not spec.boost_hz
    ):
        return spec
    per_sm = arch.l1_bytes_per_clk
    unsure = spec.unsure
    if "l1_bytes_per_clk" in arch.unsure or "sms" in spec.unsure or "boost_hz" in spec.unsure:
        unsure = (*unsure, "l1")
    how = (
        f"L1/shared roof = {per_sm:g} B/clk/SM x {spec.sms} SMs x "
        f"{spec.boost_hz / 1e6:g} MHz boost clock ({arch.l1_source or 'CC ' + str(spec.cc)})"
    )
    return replace(
        spec,
        memory={**spec.memory, "l1": per_sm * spec.sms * spec.boost_hz},
        derived=(*spec.derived, "l1"),
        unsure=unsure,
        source=f"{spec.source}; {how}" if spec.source else how,
    )


def builtin_gpus() -> list[GpuSpec]:
    """Every GPU of the built-in table, in file order (parsed once, then cached)."""
    return list(_builtin_tables()[0])


def arch_rates() -> list[ArchRates]:
    """The built-in per-SM-per-clock rates, one entry per architecture variant."""
    return list(_builtin_tables()[1])


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def match_device(device_name: str | None, gpus: Sequence[GpuSpec] | None = None) -> GpuSpec | None:
    """The GPU whose ``match`` regexes hit ``device_name`` as ncu prints it.

    Searches ``gpus`` (default: the built-in table) in order and returns the
    first hit, or None when no entry matches.  A theory-only device (a TPU,
    an AMD GPU) is never a hit: ncu cannot have profiled it.
    """
    if device_name is None or not device_name.strip():
        return None
    name = device_name.strip()
    for spec in builtin_gpus() if gpus is None else gpus:
        if spec.theory_only:
            continue
        if any(_compiled(p).search(name) for p in spec.match):
            return spec
    return None


def _normalise(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


@dataclass(frozen=True)
class GpuLookup:
    """How a name given by a user (``--gpu``) resolved to a GPU.

    ``how`` is ``key``, ``name`` or ``device name`` for an exact match, and
    ``alias`` for a shorthand (a key prefix such as ``a100``, the key without
    separators, or words that all occur in the key or name, such as
    ``5090`` or ``a100 pcie``), and ``spec`` for a :class:`GpuSpec` given as
    it is; ``also`` lists the other keys an alias fits, of which the first in
    table order was taken; ``asked`` is the name as the user gave it.
    """

    spec: GpuSpec
    how: str
    also: tuple[str, ...] = ()
    asked: str = ""

    def describe(self, asked: str | None = None) -> str | None:
        """A sentence saying what an alias (``asked``, else the name looked up) resolved to.

        None for an exact match.
        """
        if self.how != "alias":
            return None
        asked = self.asked if asked is None else asked
        text = f"--gpu {show_value(asked)} is {self.spec.key} ({self.spec.name})"
        if self.also:
            text += (
                f", the first of the table's GPUs it fits; the others are {', '.join(self.also)}: "
                "name one to use it"
            )
        return text


def _words(text: str) -> set[str]:
    return {w for w in _normalise(text).split("_") if w}


def _aliases(spec: GpuSpec) -> list[str]:
    """Shorthands of a key: its prefixes at separators that contain a digit (``a100``, ``a100_40gb``)."""
    parts = _normalise(spec.key).split("_")
    prefixes = ["_".join(parts[: i + 1]) for i in range(len(parts) - 1)]
    return [p for p in prefixes if any(ch.isdigit() for ch in p)]


def resolve_gpu(name: str, gpus: Sequence[GpuSpec] | None = None) -> GpuLookup:
    """Look up a GPU as a user names it, and say how the name was read (:func:`_lookup`)."""
    return replace(_lookup(name, gpus), asked=name)


def _lookup(name: str, gpus: Sequence[GpuSpec] | None) -> GpuLookup:
    """Look up a GPU as a user names it, and say how the name was read.

    Tried in turn, case-insensitively, with spaces, dashes and underscores
    treated alike: the key (``h100_sxm5``), the name (``H100 SXM5 80GB``), a
    device name as ncu prints it (``NVIDIA H100 80GB HBM3``), then aliases:
    a key prefix (``h100``), the key without separators (``rtx5090``), and
    words that all occur in an entry's key or name (``5090``, ``a100 pcie``).
    Where an alias with a model number fits several entries the first in
    table order wins, because the table lists the common variant of a family
    first; without one (``rtx``) it is refused with the entries it fits, and
    a key prefix needs one (``t`` is no shorthand for ``t4``).  Raises
    UsageError with close matches (by difflib, over keys, names and key
    prefixes) when nothing fits.
    """
    candidates = builtin_gpus() if gpus is None else list(gpus)
    wanted = _normalise(name)
    if not wanted:
        raise UsageError("empty GPU name; give a key such as h100_sxm5")
    for spec in candidates:
        if _normalise(spec.key) == wanted:
            return GpuLookup(spec, "key")
    for spec in candidates:
        if _normalise(spec.name) == wanted:
            return GpuLookup(spec, "name")
    compact = wanted.replace("_", "")
    asked = _words(name)
    by_device = match_device(name, candidates)
    if by_device is not None:
        # A short name such as "gh200" can hit one entry's device regex and
        # fit its siblings' words too: then it is an alias like any other.
        others = [
            s.key
            for s in candidates
            if s is not by_device and asked <= _words(s.key) | _words(s.name)
        ]
        return GpuLookup(by_device, "alias" if others else "device name", tuple(others))
    # Aliases, in order: a key prefix, the key without separators, every word.
    # A shorthand names a model only with a model number in it: "t" or "rtx"
    # would pick whichever GPU the table happens to list first.
    numbered = any(ch.isdigit() for ch in wanted)
    for hits in (
        [s for s in candidates if numbered and _normalise(s.key).startswith(wanted)],
        [s for s in candidates if _normalise(s.key).replace("_", "") == compact],
        [s for s in candidates if asked <= _words(s.key) | _words(s.name)],
    ):
        if hits and (numbered or len(hits) == 1):
            return GpuLookup(hits[0], "alias", tuple(s.key for s in hits[1:]))
        if hits:
            keys = ", ".join(s.key for s in hits[:5]) + (", ..." if len(hits) > 5 else "")
            raise UsageError(
                f"GPU {show_value(name)} fits {len(hits)} GPUs; did you mean {keys}? name one"
            )

    words: dict[str, str] = {}
    for spec in candidates:
        words.setdefault(_normalise(spec.key), spec.key)
        words.setdefault(_normalise(spec.name), spec.key)
        for alias in _aliases(spec):
            words.setdefault(alias, spec.key)
    close = difflib.get_close_matches(wanted, list(words), n=8, cutoff=0.5)
    suggestions = list(dict.fromkeys(words[c] for c in close))[:5]
    if suggestions:
        hint = "did you mean " + ", ".join(suggestions) + "?"
    else:
        hint = "known GPUs: " + ", ".join(spec.key for spec in candidates)
    raise UsageError(f"unknown GPU {show_value(name)}; {hint}")


def find_gpu(name: str, gpus: Sequence[GpuSpec] | None = None) -> GpuSpec:
    """The GPU a user names (e.g. on ``--gpu``): :func:`resolve_gpu` without the how."""
    return resolve_gpu(name, gpus).spec


def refuse_theory_only(lookup: GpuLookup) -> GpuLookup:
    """``lookup`` unchanged, unless it names a theory-only device: then UsageError.

    A command that judges a profile against ``--gpu``'s roofs cannot use a
    device ncu cannot profile (a TPU, an AMD GPU); ``theory`` can.
    """
    spec = lookup.spec
    if spec.theory_only:
        raise UsageError(
            f"{spec.key} ({spec.name}) is a theory-only device: ncu cannot profile it; "
            "use it with `ncu-roofline theory`"
        )
    return lookup


#: The one refusal of a GPU and a roofs file together.
GPU_OR_ROOFS = "give either --gpu or --roofs, not both"


def chosen_roofs(
    gpu: str | GpuLookup | GpuSpec | None,
    roofs: str | os.PathLike[str] | Sequence[GpuSpec] | None,
) -> tuple[GpuLookup | None, list[GpuSpec] | None]:
    """The roofs a user chose (``--gpu`` or ``--roofs``), each resolved once.

    Returns the GPU's lookup (``None`` without a GPU) and the chosen specs
    (``None``: the export's own roofs).  A name is looked up here, a roofs
    file read here; a lookup or spec list passes through, so a caller that
    resolved them already pays nothing.  Both a GPU and roofs: UsageError;
    so is a GPU that is a theory-only device (:func:`refuse_theory_only`),
    since the roofs chosen here judge a profile.  A roofs file may hold any
    device: its entries are not refused.
    """
    if gpu is not None and roofs is not None:
        raise UsageError(GPU_OR_ROOFS)
    if isinstance(gpu, str):
        gpu = resolve_gpu(gpu)
    elif isinstance(gpu, GpuSpec):
        gpu = GpuLookup(gpu, "spec", asked=gpu.key)
    if gpu is not None:
        return refuse_theory_only(gpu), [gpu.spec]
    if roofs is None:
        return None, None
    if isinstance(roofs, (str, os.PathLike)):
        return None, load_roofs_file(roofs)
    return None, list(roofs)


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
    wanted = normalise_cc(cc)
    if wanted is None:
        return None
    matching = [rates for rates in arch_rates() if wanted in rates.cc]
    if not matching:
        return None
    geforce = device_name is not None and "geforce" in device_name.lower()
    preferred = [rates for rates in matching if rates.geforce == geforce]
    return (preferred or matching)[0]
