"""ncu's rules, the limiter's judgement and the findings read a table as they read a frame.

The analysis hands its stages the launches and the kernel groups as pandas
frames today and as :class:`~ncu_roofline.core.table.Table` objects next.
Every function here is called on the analysis' own frames and on
``Table.from_frame`` of them, for every real export beside the checkout and
the shipped simulated one (with no GPU and with ``--gpu h100_sxm5``; the
simulated one with model theory too), and for two profiles built here that
set off the rules no export does, and must give the same arrays (NaN and
None where the other has them) and the same findings.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis import Analysis, analyze
from ncu_roofline.analysis.catalogue import RULES as CATALOGUE_RULES
from ncu_roofline.analysis.findings import RULES, Evidence, collect_findings
from ncu_roofline.analysis.limiter.judge import (
    _approximate_tensor,
    _busiest,
    honest_recoverable,
    judge,
    utilisations,
)
from ncu_roofline.analysis.ncu_rules import combine, launch_rule_columns, rule_frame
from ncu_roofline.analysis.roofs.assign import commonest
from ncu_roofline.analysis.tensor_check import evidence_phrase
from ncu_roofline.core.frame import column, object_column
from ncu_roofline.core.model import Profile
from ncu_roofline.core.rules import RULE_FIELDS
from ncu_roofline.core.table import Table, present
from ncu_roofline.errors import NcuRooflineError
from ncu_roofline.readers import load
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import find_model
from tests.helpers import SAMPLE, SAMPLES, fp32, profile, spec


def _inputs() -> list[Path]:
    """The shipped exports (the simulated one first; the nsys traces beside it are
    refused, and skipped) and the real ones (every file but the index and notes)."""
    found = [SAMPLE, *sorted(p for p in SAMPLE.parent.glob("*.csv") if p != SAMPLE)]
    if SAMPLES.is_dir():
        found += sorted(p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix != ".md")
    return found


#: Each case: an input, the GPU asked for, and the theory that joins in (if any).
CASES: list[tuple[Path | str, str | None, str | None]] = [
    (path, gpu, None) for path in _inputs() for gpu in (None, "h100_sxm5")
]
CASES += [(SAMPLE, gpu, theory) for gpu in (None, "h100_sxm5") for theory in ("decode", "batch")]
# Profiles built here for the rules no export above sets off.
CASES += [("synthetic", None, None), ("synthetic-cc10", None, None)]
IDS = [f"{Path(p).name[:40]}-{gpu or 'export'}-{theory or 'no theory'}" for p, gpu, theory in CASES]


def _synthetic(cc: str) -> Profile:
    """Launches that set off the rules the exports do not: a point above its roofs, a
    collective, uncounted tensor work, a failed profile (one without a kernel name
    too), two L2 byte definitions; on CC 10.x, FP32 without the packed counters."""
    row = {
        **fp32(1e9),
        "dram__bytes.sum": 1e7,
        "lts__t_bytes.sum": 2e7,
        "gpu__time_duration.sum": 1e-3,
    }
    tensor = {**row, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active": 40.0}
    rows = [
        {
            **fp32(2e9),
            "dram__bytes.sum": 2e8,
            "lts__t_bytes.sum": 3e8,
            "gpu__time_duration.sum": 1e-3,
        },
        row,
        tensor,
        tensor,
        {"gpu__time_duration.sum": 1e-3},
        {"gpu__time_duration.sum": 2e-3},
        {
            **fp32(1e9),
            "dram__bytes.sum": 1e7,
            "lts__lts2xbar_cycles_active.sum": 1e6,
            "gpu__time_duration.sum": 1e-3,
        },
    ]
    kernels = [
        "k",
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096>)",
        "sm80_xmma_gemm_f16f16_f16f32_tensorop_kernel",
        "sm80_xmma_gemm_f16f16_f16f32_tensorop_kernel",
        None,
        "k",
        "other",
    ]
    return profile(rows, kernel=kernels, cc=cc, device_name=["A", "A", "A", None, "A", "A", "B"])


@cache
def _analysis(path: Path | str, gpu: str | None, theory: str | None) -> Analysis | None:
    """The analysis of one case; None where the readers refuse the input (nvprof, nsys)."""
    if path in ("synthetic", "synthetic-cc10"):
        return analyze(_synthetic("10.0" if path == "synthetic-cc10" else "8.0"), gpu=spec())
    try:
        loaded = load([path])
    except NcuRooflineError:
        return None
    config = None
    if theory == "decode":
        config = TheoryConfig(model=find_model("llama-3-8b"))
    elif theory == "batch":
        # A batch the simulated decode did not run: groups miss their model bytes.
        config = TheoryConfig(model=find_model("llama-3-8b"), batch=128, seq=2048)
    return analyze(loaded, gpu=gpu, theory=config)


def _case(path: Path | str, gpu: str | None, theory: str | None) -> Analysis:
    analysis = _analysis(path, gpu, theory)
    if analysis is None:
        pytest.skip(f"{Path(path).name} is no ncu export")
    return analysis


def _same_cells(got: Any, want: Any, what: str) -> None:
    """Two values alike: both missing (None, or NaN), or equal."""
    if isinstance(want, float) and math.isnan(want):
        assert isinstance(got, float) and math.isnan(got), what
    elif want is None:
        assert got is None, what
    else:
        assert got == want, what


def _same(got: Any, want: Any, what: str) -> None:
    """Two arrays alike: dtype, length, NaN and None where the other has them, values."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, what
    assert got.shape == want.shape, what
    if want.dtype == object:
        for i, (a, b) in enumerate(zip(got.tolist(), want.tolist(), strict=True)):
            _same_cells(a, b, f"{what}[{i}]")
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def _same_columns(got: dict[str, Any], want: dict[str, Any], what: str) -> None:
    assert list(got) == list(want), what
    for name in want:
        _same(got[name], want[name], f"{what}: {name}")


@pytest.mark.parametrize(("path", "gpu", "theory"), CASES, ids=IDS)
def test_ncu_rules_read_a_table_as_a_frame(
    path: Path | str, gpu: str | None, theory: str | None
) -> None:
    analysis = _case(path, gpu, theory)
    launches, sources = analysis.launches, analysis.profile.sources
    table = Table.from_frame(launches)
    want = combine(launches, sources)
    _same_columns(dict(combine(table, sources)), dict(want), "combine")
    # The rule rows, and each launch's rules from them as a frame holds them.
    rows = rule_frame(sources, launches)
    again = rule_frame(sources, table)
    assert rows.columns == again.columns == ["launch", *RULE_FIELDS]
    _same_columns({c: again[c] for c in again.columns}, {c: rows[c] for c in rows.columns}, "rows")
    frame = pd.DataFrame({c: pd.Series(rows[c], dtype=rows[c].dtype) for c in rows.columns})
    total = column(launches, "total_duration_s")
    _same_columns(
        dict(launch_rule_columns(frame, len(launches), total)),
        dict(launch_rule_columns(rows, len(launches), total)),
        "launch_rule_columns",
    )
    # The engine joined these very columns (before failed profiles cleared theirs).
    profiled = ~present(object_column(launches, "profiling_failed"))
    for name in ("ncu_rules", "ncu_speedup_pct", "ncu_recoverable_basis", "ncu_tail_pct"):
        _same(np.asarray(want[name])[profiled], _held(launches, name)[profiled], name)


def _held(frame: pd.DataFrame, name: str) -> np.ndarray:
    """A frame column as the rule columns hold it: numbers as float64, else objects."""
    if frame[name].dtype.kind == "f":
        return column(frame, name)
    return object_column(frame, name)


@pytest.mark.parametrize(("path", "gpu", "theory"), CASES, ids=IDS)
def test_the_judgement_reads_a_table_as_a_frame(
    path: Path | str, gpu: str | None, theory: str | None
) -> None:
    analysis = _case(path, gpu, theory)
    src = analysis.profile.table()
    placed = analysis.launches
    table = Table.from_frame(placed)
    want = utilisations(src, placed)
    got = utilisations(src, table)
    _same_columns(got.values, want.values, "utilisations")
    _same_columns(got.basis, want.basis, "utilisation bases")
    _same(got.has_sol, want.has_sol, "has_sol")
    _same(_approximate_tensor(table), _approximate_tensor(placed), "approximate tensor")
    busiest = _busiest(want, len(placed))
    eff = column(placed, "efficiency")
    for a, b in zip(
        honest_recoverable(table, eff, busiest),
        honest_recoverable(placed, eff, busiest),
        strict=True,
    ):
        _same(a, b, "honest_recoverable")
    sms = column(placed, "sm_count")
    _same_columns(
        judge(src, table, sms, analysis.thresholds),
        judge(src, placed, sms, analysis.thresholds),
        "judge",
    )


@pytest.mark.parametrize(("path", "gpu", "theory"), CASES, ids=IDS)
def test_findings_read_tables_as_frames(
    path: Path | str, gpu: str | None, theory: str | None
) -> None:
    analysis = _case(path, gpu, theory)
    launches, kernels = analysis.launches, analysis.kernels
    tables = Table.from_frame(launches), Table.from_frame(kernels)
    context = (analysis.roofs, analysis.theory, analysis.unmatched)
    for rule in RULES:
        want = rule(Evidence(launches, kernels, *context))
        got = rule(Evidence(*tables, *context))
        assert [f.to_dict() for f in got] == [f.to_dict() for f in want], rule.__name__
    want = collect_findings(launches, kernels, *context)
    got = collect_findings(*tables, *context)
    assert [f.to_dict() for f in got] == [f.to_dict() for f in want]
    # And the frames give what the analysis found.
    assert [f.to_dict() for f in want] == [f.to_dict() for f in analysis.findings]


@pytest.mark.parametrize(("path", "gpu", "theory"), CASES, ids=IDS)
def test_evidence_and_commonest_source_read_a_table_as_a_frame(
    path: Path | str, gpu: str | None, theory: str | None
) -> None:
    analysis = _case(path, gpu, theory)
    launches = analysis.launches
    table = Table.from_frame(launches)
    for name in ("tensor_uncounted_basis", "roof_source_dram", "flops_fp32_basis", "precision"):
        if name not in launches:
            continue
        phrase = evidence_phrase(launches[name])
        assert evidence_phrase(table[name]) == phrase, name
        assert evidence_phrase(object_column(launches, name)) == phrase, name
        held = launches[name].dropna()
        if len(held):
            want = str(held.value_counts().index[0])
            assert phrase == want, name
            assert commonest(object_column(launches, name)) == want, name
            assert commonest(table[name]) == want, name


def test_the_cases_set_off_every_rule() -> None:
    """Not vacuous: over the cases, every kind the analysis' rules report is found, and
    ncu's rule results are joined to launches."""
    if not SAMPLES.is_dir():
        pytest.skip("the real exports are not beside the checkout")
    kinds: set[str] = set()
    rules = 0
    for case in CASES:
        analysis = _analysis(*case)
        if analysis is None:
            continue
        kinds |= {f.kind for f in analysis.findings}
        rules += int(analysis.launches["ncu_rules"].notna().sum())
    assert rules > 0
    assert kinds == {kind for found in CATALOGUE_RULES.values() for kind in found}


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["profile", "table", "derived"]),
            st.none(),
            st.just(float("nan")),
            st.sampled_from([1, 2.0]),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_commonest_is_value_counts_first_with_missing_and_other_values(labels: list[Any]) -> None:
    """Where rows miss a label or hold numbers (once pandas' to count), the count skips
    the missing ones and ties go to the first seen, as value_counts orders them."""
    column_ = np.empty(len(labels), dtype=object)
    column_[:] = labels
    counts = pd.Series(column_, dtype=object).value_counts()
    if not len(counts):
        with pytest.raises(ValueError, match="no label"):
            commonest(column_)
        return
    assert commonest(column_) == str(counts.index[0])
