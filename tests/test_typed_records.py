"""The typed records of the report: one field list per record, and mypy holds renderers to it.

The launch and kernel-group records are TypedDicts (``report/schema.py``)
whose keys must be the column registry's field lists (``core/columns.py``),
in the registry's order; a report built from a profile has exactly those
keys (plus the profile's ``flops_tensor_<dtype>``); and a renderer reading a
renamed field fails mypy, not a run in one output format.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

import ncu_roofline
from ncu_roofline.analysis.compare import COMPARISON_FIELDS, compare
from ncu_roofline.core.columns import (
    KERNEL_FIELDS,
    LAUNCH_FIELDS,
    PROJECTION_FIELDS,
    THEORY_FIELDS,
    TIMELINE_FIELDS,
)
from ncu_roofline.report import schema
from ncu_roofline.report.compare import comparison_context
from ncu_roofline.report.context import build_context
from ncu_roofline.report.gates import evaluate_report, parse_gate
from ncu_roofline.report.schema import (
    ComparisonFacts,
    ComparisonRecord,
    ComparisonTotals,
    GateRecord,
    GpuRecord,
    KernelRecord,
    LaunchRecord,
    SideFacts,
    TheoryFields,
    TimelineFields,
    tensor_flops,
    tripped_gates,
)
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import find_model
from tests.helpers import SAMPLE

REPO = Path(ncu_roofline.__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("record", "fields", "optional"),
    [
        (LaunchRecord, LAUNCH_FIELDS, (*THEORY_FIELDS, *PROJECTION_FIELDS)),
        # A kernel group also has the fields an nsys timeline adds.
        (KernelRecord, KERNEL_FIELDS, (*THEORY_FIELDS, *TIMELINE_FIELDS, *PROJECTION_FIELDS)),
    ],
)
def test_record_keys_are_the_registry_fields_in_order(
    record: Any, fields: tuple[str, ...], optional: tuple[str, ...]
) -> None:
    assert list(record.__annotations__) == [*fields, *optional]
    assert record.__required_keys__ == frozenset(fields)
    assert record.__optional_keys__ == frozenset(optional)
    assert list(TheoryFields.__annotations__) == list(THEORY_FIELDS)
    assert list(TimelineFields.__annotations__) == list(TIMELINE_FIELDS)


@pytest.fixture(scope="module")
def sample() -> Any:
    config = TheoryConfig(model=find_model("llama-3-8b"))
    return build_context(ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]), theory=config))


def _declared(record: Any) -> set[str]:
    return set(record.__annotations__)


def test_built_records_have_exactly_the_typed_keys(sample: Any) -> None:
    for records, typed in ((sample["kernels"], KernelRecord), (sample["launches"], LaunchRecord)):
        keys = set(records[0])
        tensor = {k for k in keys if k.startswith("flops_tensor_") and k != "flops_tensor_basis"}
        assert tensor, "the sample counts tensor FLOPs of some datatype"
        # No nsys timeline was joined, no projection asked for: their fields are absent.
        assert keys - tensor == _declared(typed) - set(TIMELINE_FIELDS) - set(PROJECTION_FIELDS)
    k = sample["kernels"][0]
    dtype = sorted(x for x in k if x.startswith("flops_tensor_") and x != "flops_tensor_basis")[0]
    assert tensor_flops(k, dtype.removeprefix("flops_tensor_")) == k[dtype]
    assert tensor_flops(k, "no-such-type") is None


def test_every_record_of_a_built_report_has_its_typed_keys(sample: Any) -> None:
    """Besides launches and groups: the context, inputs, totals, roofs, findings, advice."""

    def keys(record: Any, typed: Any) -> None:
        assert list(record) == [k for k in typed.__annotations__ if k in record]
        assert set(typed.__required_keys__) <= set(record)

    keys(sample, schema.ReportContext)
    # gates when gates were asked for, budget when an nsys timeline was joined.
    assert set(sample) | {"gates", "budget", "projection"} == set(
        schema.ReportContext.__annotations__
    )
    keys(sample["inputs"][0], schema.InputRecord)
    keys(sample["summary"], schema.Summary)
    for totals in sample["summary"]["by_bound"].values():
        keys(totals, schema.BoundTotals)
    keys(sample["summary"]["profiling_failed"], schema.FailedTotals)
    for roofs in sample["roofs"]:
        keys(roofs, schema.DeviceRoofsRecord)
        for ceiling in roofs["ceilings"]:
            keys(ceiling, schema.CeilingRecord)
    for finding in sample["findings"]:
        keys(finding, schema.FindingRecord)
    for text in sample["advice"].values():
        keys(text, schema.AdviceRecord)
    keys(sample["collect"][0], schema.CollectRecord)
    keys(sample["theory"], schema.TheorySummary)
    keys(sample["theory"]["model"], schema.ModelRecord)
    keys(sample["options"], schema.ReportOptions)
    keys(sample["options"]["theory"], schema.TheorySummary)


def test_tripped_gates_have_the_typed_keys_and_travel_in_the_context(sample: Any) -> None:
    tripped = evaluate_report([parse_gate("efficiency<100%")], sample)
    assert tripped
    assert {frozenset(t) for t in tripped} == {frozenset(GateRecord.__annotations__)}
    assert set(GateRecord.__required_keys__) == {"rule", "kernel", "message"}
    assert tripped_gates(sample) is None  # no gates asked for
    assert tripped_gates({"gates": {"rules": ["efficiency<100%"], "tripped": tripped}}) == tripped


def test_comparison_records_have_the_comparison_fields() -> None:
    assert list(ComparisonRecord.__annotations__) == list(COMPARISON_FIELDS)
    assert ComparisonRecord.__required_keys__ == frozenset(COMPARISON_FIELDS)
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]))
    cmp = comparison_context(compare(analysis, analysis))
    assert cmp["kernels"]
    assert {tuple(r) for r in cmp["kernels"]} == {COMPARISON_FIELDS}
    assert list(cmp["totals"]) == list(ComparisonTotals.__annotations__)
    assert list(cmp["options"]) == list(schema.ComparisonOptions.__annotations__)
    assert list(cmp["context"]) == list(ComparisonFacts.__annotations__)
    for side in ("base", "candidate"):
        assert list(cmp["context"][side]) == list(SideFacts.__annotations__)


def test_gpu_records_are_the_gpu_table_entries() -> None:
    from ncu_roofline.core.hardware import builtin_gpus

    assert all(list(g.to_dict()) == list(GpuRecord.__annotations__) for g in builtin_gpus())


#: Keys renderers ``.get`` that are not record fields: plotly.js's own schema,
#: a theory model's optional entries, a GPU's per-precision peaks, the page's
#: view models and the JUnit context's header.
NOT_RECORD_KEYS = frozenset(
    {
        # plotly.js traces and layouts
        "annotations", "data", "legendgroup", "line", "margin", "marker", "meta",
        "mode", "symbol", "text", "updatemenus", "visible",
        # a GPU's peaks by precision and memory level
        "dram", "fp32", "fp64", "tensor_bf16", "tensor_fp16",
        # view models and page assets
        "header", "not_plotted", "plotly_js", "reasons",
        # a theory model's optional shape
        "kv_dtype", "tp",
    }
)  # fmt: skip


def _typed_keys() -> set[str]:
    from ncu_roofline.render.charts import types as chart_types

    keys: set[str] = set()
    for module in (schema, chart_types):
        for value in vars(module).values():
            if isinstance(value, type) and hasattr(value, "__required_keys__"):
                keys |= set(value.__annotations__)
    return keys


def test_renderers_get_only_record_fields() -> None:
    """mypy lets ``record.get("renamed")`` pass (it is an ``object``): this catches it."""
    import ast

    sources = [*(REPO / "ncu_roofline" / "render").rglob("*.py")]
    sources.append(REPO / "ncu_roofline" / "report" / "gates.py")
    known = _typed_keys() | NOT_RECORD_KEYS
    unknown: dict[str, list[str]] = {}
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "get"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value not in known
                and ast.unparse(node.func.value) != "os.environ"
            ):
                unknown.setdefault(node.args[0].value, []).append(f"{path.name}:{node.lineno}")
    assert not unknown, unknown


def _mypy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str) -> tuple[str, int]:
    """mypy (strict) on one module that imports the package, checking that file alone."""
    api = pytest.importorskip("mypy.api")
    module = tmp_path / "renderer_like.py"
    module.write_text(textwrap.dedent(body))
    monkeypatch.setenv("MYPYPATH", str(REPO))
    stdout, stderr, status = api.run(
        [
            "--strict",
            "--follow-imports=silent",
            "--python-version=3.10",
            "--no-incremental",
            "--config-file=",
            str(module),
        ]
    )
    return stdout + stderr, status


RENDERER = """
    from ncu_roofline.report.schema import GateRecord, KernelRecord, LaunchRecord

    def cells(k: KernelRecord, launch: LaunchRecord, gate: GateRecord) -> list[str]:
        # .get of an unknown key is an ``object``: caught where the value is used as a type.
        rate: float | None = k.get("{get_field}")
        return [
            str(k["{kernel_field}"]),
            str(k.get("theory_floor_s")),
            str(launch["{launch_field}"]),
            gate["{gate_field}"],
            f"{{rate}}",
        ]
"""


def test_a_renamed_field_fails_mypy_in_a_renderer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = RENDERER.format(
        kernel_field="recoverable_s", launch_field="nvtx", gate_field="rule", get_field="efficiency"
    )
    out, status = _mypy(tmp_path, monkeypatch, good)
    assert status == 0, out
    renamed = RENDERER.format(
        kernel_field="recoverable_seconds",
        launch_field="nvtx_range",
        gate_field="gate",
        get_field="efficiency_pct",
    )
    out, status = _mypy(tmp_path, monkeypatch, renamed)
    assert status == 1, out
    assert '"KernelRecord" has no key "recoverable_seconds"' in out
    assert '"LaunchRecord" has no key "nvtx_range"' in out
    assert '"GateRecord" has no key "gate"' in out
    assert 'incompatible types in assignment (expression has type "object"' in out.lower()


def test_a_report_with_a_timeline_has_the_timeline_keys() -> None:
    trace = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.nsys_cuda_gpu_trace.csv"
    nvtx = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.nsys_nvtx_gpu_proj_trace.csv"
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]), nsys=[trace, nvtx])
    context = build_context(analysis)
    k = context["kernels"][0]
    tensor = {x for x in k if x.startswith("flops_tensor_") and x != "flops_tensor_basis"}
    assert set(k) - tensor == _declared(KernelRecord) - set(THEORY_FIELDS) - set(PROJECTION_FIELDS)
    budget = context["budget"]
    assert list(budget) == list(schema.BudgetRecord.__annotations__)
    assert list(budget["steps"][0]) == list(schema.StepRecord.__annotations__)
    assert list(budget["ranges"][0]) == list(schema.RangeBudgetRecord.__annotations__)
    assert list(budget["graphs"]) == list(schema.GraphRecord.__annotations__)
