"""Row and element-wise ops: softmax, LayerNorm, RMSNorm, element-wise, gated activation, reduce.

All are memory-bound: each input read once, each output written once,
with nominal FLOP counts per element.
"""

from __future__ import annotations

from ncu_roofline.theory.ops.dtypes import vector_precision
from ncu_roofline.theory.ops.params import (
    Values,
    bool_param,
    choice_param,
    dtype_param,
    float_param,
    int_param,
    io_dtype_params,
    same_as,
)
from ncu_roofline.theory.ops.registry import OpSpec, Result, register

_NORM = (
    int_param("tokens", None, "rows", aliases=("T",)),
    int_param("hidden", None, "row length", aliases=("H",)),
)


# Nominal FLOPs per output element: the activation plus the multiply by "up".
_ACT_FLOPS = {"silu": 5.0, "gelu": 8.0, "gelu_tanh": 10.0}


@register(
    OpSpec(
        "softmax",
        "row softmax",
        (
            int_param("rows", None, "rows"),
            int_param("cols", None, "row length"),
            *io_dtype_params(),
        ),
    ),
)
def _softmax(p: Values) -> Result:
    n = p.whole("rows") * p.whole("cols")
    return Result(
        5.0 * n,
        n * p.size("dtype"),
        n * p.size("out"),
        vector_precision(p.text("dtype")),
        ["5 FLOPs per element (max, subtract, exp, sum, divide); one pass over each row"],
    )


@register(
    OpSpec(
        "layernorm",
        "LayerNorm over rows",
        (
            *_NORM,
            *io_dtype_params(),
            dtype_param(
                "w", same_as("dtype"), "weight (gamma, beta) data type", aliases=("weight",)
            ),
            bool_param("bias", True, "beta is read"),
            bool_param("save_stats", False, "mean and rstd written (training)"),
        ),
        ("layer_norm",),
    ),
)
def _layernorm(p: Values) -> Result:
    tokens, hidden = p.whole("tokens"), p.whole("hidden")
    params_read = 2 if p.flag("bias") else 1
    reads = tokens * hidden * p.size("dtype") + params_read * hidden * p.size("w")
    writes = tokens * hidden * p.size("out")
    notes = ["8 FLOPs per element (nominal)"]
    if p.flag("save_stats"):
        writes += tokens * 8
        notes.append("fp32 mean and rstd per row written")
    return Result(8.0 * tokens * hidden, reads, writes, vector_precision(p.text("dtype")), notes)


@register(
    OpSpec(
        "rmsnorm",
        "RMSNorm over rows, optionally fused with the residual add",
        (
            *_NORM,
            bool_param("residual", False, "fused residual add (residual updated in place)"),
            *io_dtype_params(),
            dtype_param("w", same_as("dtype"), "weight data type", aliases=("weight",)),
        ),
        ("rms_norm",),
    ),
    OpSpec(
        "add_rmsnorm",
        "residual add fused with RMSNorm (rmsnorm with residual=true)",
        (
            *_NORM,
            bool_param("residual", True, "fused residual add (residual updated in place)"),
            *io_dtype_params(),
            dtype_param("w", same_as("dtype"), "weight data type", aliases=("weight",)),
        ),
        ("fused_add_rmsnorm", "fused_add_rms_norm", "add_rms_norm"),
    ),
)
def _rmsnorm(p: Values) -> Result:
    th = p.whole("tokens") * p.whole("hidden")
    a, out = p.size("dtype"), p.size("out")
    weight = p.whole("hidden") * p.size("w")
    if p.flag("residual"):
        # x + residual, then the sum both written back as the new residual and normalised.
        reads = 2 * th * a + weight
        writes = th * a + th * out
        notes = ["fused residual add: reads x and residual, writes residual and output"]
        flops = 5.0 * th
    else:
        reads = th * a + weight
        writes = th * out
        notes = []
        flops = 4.0 * th
    notes.append(
        "4 FLOPs per element for the norm (square, sum, scale, weight), rsqrt per row nominal"
    )
    return Result(flops, reads, writes, vector_precision(p.text("dtype")), notes)


@register(
    OpSpec(
        "elementwise",
        "element-wise op over n elements",
        (
            int_param("n", None, "elements per tensor"),
            int_param("inputs", 1, "full-size input tensors", zero=True),
            int_param("outputs", 1, "output tensors"),
            float_param("flops_per_element", 1, "FLOPs per element (0 for casts)", zero=True),
            *io_dtype_params(),
        ),
        ("pointwise", "eltwise", "unary", "binary"),
    ),
)
def _elementwise(p: Values) -> Result:
    n = p.whole("n")
    inputs, outputs = p.whole("inputs"), p.whole("outputs")
    return Result(
        p.num("flops_per_element") * n,
        n * inputs * p.size("dtype"),
        n * outputs * p.size("out"),
        vector_precision(p.text("dtype")),
        [f"{inputs} full-size input(s), {outputs} output(s)"],
    )


@register(
    OpSpec(
        "act_and_mul",
        "gated activation act(gate)·up from [T, 2I] to [T, I]",
        (
            int_param("tokens", None, "rows", aliases=("T",)),
            int_param("intermediate", None, "output width I (input is 2I)", aliases=("I",)),
            choice_param("act", "silu", "activation", tuple(_ACT_FLOPS)),
            *io_dtype_params(),
        ),
        ("swiglu", "silu_and_mul", "act_mul"),
    ),
)
def _act_and_mul(p: Values) -> Result:
    ti = p.whole("tokens") * p.whole("intermediate")
    act = p.text("act")
    return Result(
        _ACT_FLOPS[act] * ti,
        2 * ti * p.size("dtype"),
        ti * p.size("out"),
        vector_precision(p.text("dtype")),
        [f"{act}(gate)·up: {_ACT_FLOPS[act]:g} FLOPs per output element (nominal)"],
    )


@register(
    OpSpec(
        "reduce",
        "reduction of n elements to m",
        (
            int_param("n", None, "input elements"),
            int_param("m", 1, "output elements"),
            *io_dtype_params(),
            bool_param("index", False, "int64 index written per output (argmax)"),
        ),
        ("reduction", "sum"),
    ),
)
def _reduce(p: Values) -> Result:
    n, m = p.whole("n"), p.whole("m")
    if m > n:
        raise p.fail(f"parameter m: {m} outputs from {n} inputs is not a reduction")
    writes = m * p.size("out")
    notes = []
    if p.flag("index"):
        writes += m * 8
        notes.append("int64 index per output written (argmax/argmin)")
    return Result(float(n), n * p.size("dtype"), writes, vector_precision(p.text("dtype")), notes)
