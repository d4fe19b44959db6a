"""Which of a finding kind's advice fits the kernel it is about.

The catalogue holds, per finding kind, a default piece of advice and
variants for particular evidence (:attr:`FindingKind.variants`).  This
module chooses among them from what the export says about the kernel
group: its kernel-name family (a GEMM, decode attention, a streaming
elementwise or normalisation kernel, ...; the theory's family where theory
assigned one, else the name's), its bound class, its limiter and its
precision.  A GEMM benchmark so never gets KV-cache advice, an N-body
kernel never gets "use the tensor cores", and an L1-limited kernel gets
L1 advice wherever its point sits.

A finding's advice is named by an id, ``kind`` for the default or
``kind/variant``; renderers show each id's text once, with the findings
that share it listed under it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, cast

import numpy as np

from ncu_roofline.analysis.catalogue import CATALOGUE
from ncu_roofline.core.frame import Columns, floats, object_column, objects
from ncu_roofline.core.table import ObjArray
from ncu_roofline.theory.families import classify

if TYPE_CHECKING:
    import pandas as pd

#: Kernel-name families whose work is matrix-shaped (GEMM-like).
GEMM_FAMILIES = frozenset({"gemm", "gemv", "grouped_gemm", "conv"})
#: Attention families other than decode.
ATTENTION_FAMILIES = frozenset({"attention_prefill", "attention_combine", "attention_naive"})
#: One pass over the data, nothing to reuse: their bytes are their time.
STREAMING_FAMILIES = frozenset(
    {
        "rmsnorm",
        "add_rmsnorm",
        "layernorm",
        "act_and_mul",
        "rope",
        "kv_append",
        "softmax",
        "elementwise",
        "reduce",
        "embedding",
        "topk_sample",
        "copy",
        "memset",
        "quantize",
    }
)
#: Families with one block per row by the usual design.
ROWWISE_FAMILIES = frozenset({"rmsnorm", "add_rmsnorm", "layernorm", "softmax", "reduce"})

#: The L1 path: the L1/TEX cache and the load/store pipe that feeds it.
_L1_UNITS = ("l1", "lsu-pipe")
_FP_PIPES = ("fma-pipe", "fp64-pipe", "tensor-pipe")


#: A kernel group's row: a frame row, or the same fields as a plain mapping.
GroupRow: TypeAlias = "pd.Series | Mapping[str, Any]"


def family_of(group: GroupRow) -> str:
    """The group's kernel family: the theory's where it assigned one, else the name's."""
    family = group.get("family")
    if isinstance(family, str) and family:
        return family
    name = group.get("kernel")
    return classify(str(name)).family if isinstance(name, str) else "unknown"


def _text(group: GroupRow, key: str) -> str:
    value = group.get(key)
    return value if isinstance(value, str) else ""


def _below_roof(group: GroupRow) -> str | None:
    bound, limiter, family = _text(group, "bound"), _text(group, "limiter"), family_of(group)
    precision = _text(group, "precision")
    if bound == "latency":
        short = _text(group, "bound_reason").startswith("shorter than")
        return "latency-short" if short else "latency"
    if bound == "memory":
        if limiter in _L1_UNITS:
            return "memory-l1"
        if limiter == "l2":
            return "memory-l2"
        if family in GEMM_FAMILIES:
            return "memory-gemm"
        if family == "attention_decode":
            return "memory-attention-decode"
        return "memory-streaming" if family in STREAMING_FAMILIES else None
    if bound != "compute":
        return None
    if precision.startswith("tensor"):
        return "compute-tensor"
    if precision == "fp64":
        return "compute-fp64"
    if limiter == "alu-pipe":
        return "compute-alu"
    if limiter == "issue":
        return "compute-issue"
    if family in GEMM_FAMILIES | ATTENTION_FAMILIES | {"attention_decode"}:
        return "compute-tensor-gemm"
    return "compute-fma" if limiter == "fma-pipe" else "compute"


def _limiter_disagrees(group: GroupRow) -> str | None:
    limiter = _text(group, "limiter")
    if limiter in _L1_UNITS:
        return "l1"
    if limiter in _FP_PIPES:
        return "fp"
    by_limiter = {"l2": "l2", "alu-pipe": "alu", "issue": "issue", "dram": "dram"}
    return by_limiter.get(limiter)


def _under_filled(group: GroupRow) -> str | None:
    family = family_of(group)
    if family in GEMM_FAMILIES:
        return "gemm"
    if family == "attention_decode":
        return "attention-decode"
    return "reduction" if family in ROWWISE_FAMILIES else None


def _excess_traffic(group: GroupRow) -> str | None:
    family = family_of(group)
    if family == "attention_decode":
        return "attention-decode"
    if family in ATTENTION_FAMILIES:
        return "attention"
    if family in GEMM_FAMILIES:
        return "gemm"
    return "streaming" if family in STREAMING_FAMILIES else None


#: The variant chooser of each kind that has variants.
_CHOOSERS: dict[str, Callable[[GroupRow], str | None]] = {
    "below-roof": _below_roof,
    "limiter-disagrees": _limiter_disagrees,
    "under-filled": _under_filled,
    "excess-traffic": _excess_traffic,
}
#: Variants of findings about many kernels at once (``kernel`` None).
_PROFILE_VARIANTS = {"under-filled": "many"}


def _group_rows(kernels: Columns) -> dict[str, int]:
    """Each kernel name's longest group, by row position (findings name kernels, not groups).

    Groups without a name are left out.
    """
    if len(kernels) == 0 or "kernel" not in kernels:
        return {}
    time = floats(kernels["total_duration_s"])
    order = np.argsort(-np.nan_to_num(time, nan=-1.0), kind="stable")
    names = objects(kernels["kernel"])[order]
    first: dict[str, int] = {}
    for row, name in zip(order.tolist(), names.tolist(), strict=True):  # one per group
        if name is not None:
            first.setdefault(str(name), row)
    return first


class GroupEvidence(TypedDict, total=False):
    """The fields of a kernel group that the choice of its advice reads, those the groups
    have (a text, or None where missing; a hand-made frame may hold other values)."""

    kernel: Any
    family: Any
    bound: Any
    bound_reason: Any
    limiter: Any
    precision: Any


def _row(fields: dict[str, ObjArray], row: int) -> GroupEvidence:
    """Row ``row`` of the groups as the evidence of ``fields``' columns (None where missing)."""
    return cast(GroupEvidence, {name: values[row] for name, values in fields.items()})


def _advice_fields(kernels: Columns) -> dict[str, ObjArray]:
    """The columns the choice of advice reads that the groups have, as objects."""
    return {f: object_column(kernels, f) for f in _ADVICE_FIELDS if f in kernels}


def advice_ids(findings: Sequence[tuple[str, str | None]], kernels: Columns) -> list[str]:
    """The advice id of each ``(kind, kernel)`` finding, from its kernel group's evidence.

    ``kernels`` are the analysed groups; a finding about a kernel the groups
    do not hold, or about the whole profile, gets its kind's profile-wide
    variant or default.
    """
    rows = _group_rows(kernels)
    fields = _advice_fields(kernels) if rows else {}
    out: list[str] = []
    for kind, kernel in findings:
        entry = CATALOGUE.get(kind)
        variant: str | None = None
        if kernel is None:
            variant = _PROFILE_VARIANTS.get(kind)
        elif kernel in rows and kind in _CHOOSERS:
            variant = _CHOOSERS[kind](_row(fields, rows[kernel]))
        if entry is None or variant not in entry.variants:
            variant = None
        out.append(f"{kind}/{variant}" if variant else kind)
    return out


# --- Advice for every kernel group: by bound class and limiter -------------
#
# Findings name advice only for kernels with a problem worth a finding; the
# top table wants a "Try" line for every group.  Each (bound class, limiter)
# pair maps to one advice id of the catalogue, the limiter first (the unit
# that is busy is what a change must relieve), then the family and the
# precision, and a limiter this module does not know (a pipe added later)
# falls back to a generic pipe advice or to the bound class's.

#: Limiters that name the load/store path, L2, and instruction overheads.
_LIMITER_VARIANTS: dict[str, str] = {
    "l1": "below-roof/memory-l1",
    "lsu-pipe": "below-roof/memory-l1",
    "l2": "below-roof/memory-l2",
    "alu-pipe": "below-roof/compute-alu",
    "issue": "below-roof/compute-issue",
    "fp64-pipe": "below-roof/compute-fp64",
}
#: Matrix-shaped families, which the tensor cores serve.
_MATRIX_FAMILIES = GEMM_FAMILIES | ATTENTION_FAMILIES | {"attention_decode"}


def _memory_advice(family: str) -> str:
    """A memory-bound group's advice by its family (the default: cut and speed up the bytes)."""
    if family in GEMM_FAMILIES:
        return "below-roof/memory-gemm"
    if family == "attention_decode":
        return "below-roof/memory-attention-decode"
    return "below-roof/memory-streaming" if family in STREAMING_FAMILIES else "below-roof"


def _compute_advice(group: GroupRow, family: str) -> str:
    """A compute-bound group's advice by its precision and family."""
    precision = _text(group, "precision")
    if precision.startswith("tensor"):
        return "below-roof/compute-tensor"
    if precision == "fp64":
        return "below-roof/compute-fp64"
    if family in _MATRIX_FAMILIES:
        return "below-roof/compute-tensor-gemm"
    return "below-roof/compute"


def _pipe_advice(group: GroupRow, limiter: str, family: str) -> str:
    """Advice for a group limited by an execution pipe."""
    if limiter == "fma-pipe":
        fp32_matrix = family in _MATRIX_FAMILIES and _text(group, "precision") in ("fp32", "")
        return "below-roof/compute-tensor-gemm" if fp32_matrix else "below-roof/compute-fma"
    if limiter == "tensor-pipe":
        return "below-roof/compute-tensor"
    return "below-roof/pipe"


def _placed_advice(group: GroupRow) -> str:
    """The advice of a memory-, compute- or latency-class group."""
    bound, limiter, family = _text(group, "bound"), _text(group, "limiter"), family_of(group)
    if limiter == "under-filled":
        variant = _under_filled(group)
        return f"under-filled/{variant}" if variant else "under-filled"
    if bound == "latency" or limiter == "latency":
        short = _text(group, "bound_reason").startswith("shorter than")
        return "below-roof/latency-short" if short else "below-roof/latency"
    if limiter in _LIMITER_VARIANTS:
        return _LIMITER_VARIANTS[limiter]
    if limiter == "dram":
        return "limiter-disagrees/dram" if bound == "compute" else _memory_advice(family)
    if limiter.endswith("-pipe"):
        if bound == "memory" and limiter in _FP_PIPES:
            return "limiter-disagrees/fp"
        return _pipe_advice(group, limiter, family)
    # sm, memory, unknown and any limiter added later: the bound class decides.
    return _memory_advice(family) if bound == "memory" else _compute_advice(group, family)


def group_advice(group: GroupRow) -> str:
    """The advice id that fits one kernel group, whatever its evidence: never empty."""
    bound = _text(group, "bound")
    if bound == "not placeable":
        failed = _text(group, "bound_reason").startswith("profiling failed")
        return "profiling-failed" if failed else "not-placeable"
    if bound == "communication":
        return "communication"
    return _placed_advice(group)


#: The fields the choice of a group's advice reads.
_ADVICE_FIELDS = tuple(GroupEvidence.__annotations__)


def group_advice_ids(kernels: Columns) -> list[str]:
    """:func:`group_advice` of every kernel group, in row order (one call per group).

    Rows are read as plain dicts of the few fields the choice needs, and a
    name's family is classified once however many groups share the name.
    """
    fields = _advice_fields(kernels)
    families: dict[str, str] = {}
    out: list[str] = []
    for i in range(len(kernels)):  # one per group
        row = _row(fields, i)
        if not (isinstance(row.get("family"), str) and row["family"]):
            name = str(row.get("kernel"))
            if name not in families:
                families[name] = family_of({"kernel": name})
            row["family"] = families[name]
        out.append(group_advice(row))
    return out
