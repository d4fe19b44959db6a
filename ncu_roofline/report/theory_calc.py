"""The data the ``theory`` page's calculator computes with, in the page.

Design: the page repeats :func:`~ncu_roofline.theory.models.expand_model`,
the op formulas it uses, the placement on a GPU's roofs
(:func:`~ncu_roofline.analysis.theory_table.place`) and the ridge crossing
(:func:`~ncu_roofline.analysis.theory_ridge.ridge_crossing`) in JavaScript
(``templates/assets/theory.js``).  Every figure that arithmetic reads comes
from here, taken from the Python library itself: the model table, the GPU
table, element sizes, the precision each dtype is judged at, the same-rate
ceilings, the op parameters' defaults and the activations' FLOPs.  Only the
formulas are written twice; ``tests/test_theory_calculator.py`` holds the
two to equality over a grid of models, phases, shapes, dtypes, ranks and GPUs.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any, TypedDict

from ncu_roofline.analysis.floor import FIRST_CC, SAME_RATE
from ncu_roofline.analysis.theory_ridge import SEARCH_LIMIT
from ncu_roofline.core.hardware import GpuSpec, builtin_gpus
from ncu_roofline.report.schema import TheoryGpuRecord, TheoryTable
from ncu_roofline.report.theory import clock_name
from ncu_roofline.theory.models import activation_of, builtin_models
from ncu_roofline.theory.ops import OPS, canonical_dtype, estimate
from ncu_roofline.theory.ops.dtypes import DTYPE_BYTES, matmul_precision, vector_precision
from ncu_roofline.theory.phases import PHASES

__all__ = [
    "DTYPE_CHOICES",
    "CalculatorData",
    "CalculatorGpu",
    "CalculatorInitial",
    "calculator_data",
]

#: The data types the page offers for weights/activations and the KV cache.
DTYPE_CHOICES: tuple[str, ...] = ("bf16", "fp16", "fp32", "fp8", "e4m3", "e5m2", "int8", "fp4")


class CalculatorGpu(TypedDict):
    """A GPU as the calculator computes with it: its peaks, DRAM bandwidth and clocks."""

    key: str
    name: str
    #: The compute capability as a number (the same-rate rules compare it); None if unknown.
    cc: float | None
    compute: dict[str, float]
    dram: float | None
    boost_hz: float | None
    base_hz: float | None
    tensor_hz: float | None
    #: Per compute key: the clock its peak is quoted at, and that clock's name.
    clocks: dict[str, list[Any]]


class CalculatorInitial(TypedDict):
    """The controls' values when the page opens: the command line's."""

    model: str
    gpus: list[str]
    phase: str
    batch: int
    seq: int
    dtype: str
    #: Named as the page's JavaScript names it.
    kvDtype: str
    tp: int


class CalculatorData(TypedDict):
    """Everything the page's calculator reads (embedded as JSON)."""

    #: Model key -> its configuration's fields (as ``theory.models.ModelConfig``) and ``act``.
    models: dict[str, dict[str, Any]]
    gpus: list[CalculatorGpu]
    phases: list[str]
    dtypes: list[str]
    dtype_bytes: dict[str, float]
    aliases: dict[str, str]
    tensor_key: dict[str, str]
    vector_key: dict[str, str]
    same_rate: dict[str, list[str]]
    first_cc: dict[str, float]
    act_flops: dict[str, float]
    defaults: dict[str, Any]
    search_limit: int
    initial: CalculatorInitial


def _default(kind: str, param: str) -> Any:
    spec = OPS[kind].param(param)
    assert spec is not None, (kind, param)
    return spec.default


def _cc(spec: GpuSpec) -> float | None:
    try:
        return float(spec.cc) if spec.cc is not None else None
    except ValueError:
        return None


def _gpu(spec: GpuSpec) -> CalculatorGpu:
    return {
        "key": spec.key,
        "name": spec.name,
        "cc": _cc(spec),
        "compute": dict(spec.compute),
        "dram": spec.memory.get("dram"),
        "boost_hz": spec.boost_hz,
        "base_hz": spec.base_hz,
        "tensor_hz": spec.tensor_hz,
        "clocks": {key: [spec.clock_for(key), clock_name(spec, key)] for key in spec.compute},
    }


def _model(data: dict[str, Any]) -> dict[str, Any]:
    return {**data, "act": activation_of(str(data["hidden_act"]))}


def _record_gpu(g: TheoryGpuRecord) -> CalculatorGpu:
    """A table GPU that is not in the built-in table, from its record (no compute capability)."""
    clocks: dict[str, list[Any]] = {}
    for p in g["peaks_used"]:
        clocks[p["key"]] = [p["clock_hz"], p["clock"]]
    return {
        "key": g["key"],
        "name": g["name"],
        "cc": None,
        "compute": dict(g["compute"]),
        "dram": g["memory"].get("dram"),
        "boost_hz": g["boost_hz"],
        "base_hz": g["base_hz"],
        "tensor_hz": g["tensor_hz"],
        "clocks": clocks,
    }


def calculator_data(table: TheoryTable) -> CalculatorData | None:
    """Everything the page's calculator needs; None for a table without a model's shapes.

    The calculator offers every GPU of the built-in table (whatever it holds
    when the page is made) and the table's own GPUs.
    """
    model, config = table["model"], table["model_config"]
    if model is None or config is None:
        return None
    models = {key: _model(asdict(cfg)) for key, cfg in builtin_models().items()}
    key = config["key"]
    if key in models and models[key] != _model(dict(config)):
        key = f"{key} ({config['source'] or 'config'})"
    models[key] = _model({**config, "key": key})
    builtin = builtin_gpus()
    known = {g.key for g in builtin}
    gpu_data = [_gpu(g) for g in builtin]
    gpu_data += [_record_gpu(g) for g in table["gpus"] if g["key"] not in known]
    canonical = sorted({canonical_dtype(d) for d in DTYPE_BYTES}, key=str)
    acts = OPS["act_and_mul"].param("act")
    assert acts is not None
    return {
        "models": models,
        "gpus": gpu_data,
        "phases": list(PHASES),
        "dtypes": list(DTYPE_CHOICES),
        "dtype_bytes": {d: DTYPE_BYTES[d] for d in canonical},
        "aliases": {a: canonical_dtype(a) for a in DTYPE_BYTES},
        "tensor_key": {d: matmul_precision(d, d) for d in canonical},
        "vector_key": {d: vector_precision(d) for d in canonical},
        "same_rate": {k: list(v) for k, v in SAME_RATE.items()},
        "first_cc": dict(FIRST_CC),
        "act_flops": {
            a: estimate("act_and_mul", tokens=1, intermediate=1, act=a).flops for a in acts.choices
        },
        "defaults": {
            "index_bytes": _default("embedding", "index_bytes"),
            "pos_bytes": _default("rope", "pos_bytes"),
            "slot_bytes": _default("kv_append", "slot_bytes"),
            "sampling_dtype": _default("sampling", "dtype"),
            "prefill_lse": _default("attention_prefill", "lse"),
            "prefill_softmax_flops": _default("attention_prefill", "softmax_flops"),
            "decode_softmax_flops": _default("attention_decode", "softmax_flops"),
            "decode_q_tokens": _default("attention_decode", "q_tokens"),
            "decode_page_size": _default("attention_decode", "page_size"),
        },
        "search_limit": SEARCH_LIMIT,
        "initial": {
            "model": key,
            "gpus": [g["key"] for g in table["gpus"]],
            "phase": model["phase"],
            "batch": model["batch"],
            "seq": model["seq"],
            "dtype": canonical_dtype(model["dtype"]),
            "kvDtype": canonical_dtype(model["kv_dtype"]) if model["kv_dtype"] else "",
            "tp": model["tp"],
        },
    }
