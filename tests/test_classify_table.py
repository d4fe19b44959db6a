"""Classification, placement, rate points and advice read a table as they read a frame.

The analysis is moving its launch frame and kernel groups onto pandas-free
tables (:class:`~ncu_roofline.core.table.Table`).  Every public function of
``classify``, ``placement``, ``rate_point`` and ``advice`` must give, for
``Table.from_frame(frame)``, exactly what it gives for the frame: arrays
equal value for value (NaN and None where they were), frames equal with
their dtypes.  The launches are those of every real export, of the shipped
sample (with and without theory), and of a synthetic export whose launches
have rates but no duration; each analysed with the export's own roofs and
with an H100's.

A kernel group's dominant value (its bound, limiter, recoverable-time
bound) is the one holding the most time, ties to the value the group met
first: times are summed exactly, so equal times tie whatever their order.
"""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.advice import advice_ids, group_advice_ids
from ncu_roofline.analysis.classify import (
    Groups,
    Thresholds,
    _dominant,
    dominant_precision,
    group_kernel_table,
    group_kernels,
    place,
)
from ncu_roofline.analysis.engine import analyze
from ncu_roofline.analysis.placement import placement
from ncu_roofline.analysis.rate_point import (
    counts_or_rates,
    duration_weights,
    group_rates_without_duration,
    point_from_rates,
)
from ncu_roofline.core.table import Table
from ncu_roofline.readers import load
from ncu_roofline.theory import find_model
from ncu_roofline.theory.config import TheoryConfig
from tests.helpers import SAMPLE, SAMPLES, analyse_rows

_EXPORTS = (
    sorted(p for p in SAMPLES.glob("*") if p.is_file() and p.suffix != ".md")
    if SAMPLES.is_dir()
    else []
)
#: The cases: an export (or a named synthetic one) and the GPU whose roofs replace its own.
_CASES = [
    (str(path), gpu)
    for path in [*_EXPORTS, SAMPLE, "sample+theory", "rates only"]
    for gpu in (None, "h100_sxm5")
]


def _rates_only_row(x: float) -> dict[str, float]:
    """A launch with per-cycle FP32 rates, a clock and a DRAM rate: a point, no duration."""
    row = {
        f"smsp__sass_thread_inst_executed_op_f{op}_pred_on.sum.per_cycle_elapsed": x
        for op in ("add", "mul", "fma")
    }
    row["smsp__cycles_elapsed.avg.per_second"] = 1.1e9
    row["dram__bytes.sum.per_second"] = 1e10 * x
    return row


@cache
def _analysis(case: str, gpu: str | None) -> Analysis:
    if case == "sample+theory":
        theory = TheoryConfig(model=find_model("llama-3-8b"))
        return analyze(load([str(SAMPLE)]), gpu=gpu, theory=theory)
    if case == "rates only":
        rows = [_rates_only_row(x) for x in (0.1, 0.2, 0.3, 0.7, 1.3, 0.1)]
        return analyse_rows(rows, kernel=["a", "a", "b", "a", "b", "c"])
    try:
        profile = load([case])
    except Exception as exc:  # an export this installation cannot read (nvprof, .ncu-rep)
        pytest.skip(f"{Path(case).name}: {exc}")
    return analyze(profile, gpu=gpu)


def _same(got: Any, want: Any, where: str) -> None:
    """Equal as results: arrays of one dtype with equal values (NaN and None in place),
    frames with equal dtypes and values, dicts and lists member by member."""
    if isinstance(want, pd.DataFrame):
        assert isinstance(got, pd.DataFrame), where
        pd.testing.assert_frame_equal(got, want, check_exact=True, obj=where)
    elif isinstance(want, Table):
        assert isinstance(got, Table), where
        assert got.columns == want.columns, where
        assert len(got) == len(want), where
        for name in want.columns:
            _same(got[name], want[name], f"{where}[{name}]")
    elif isinstance(want, dict):
        assert isinstance(got, dict) and list(got) == list(want), where
        for key in want:
            _same(got[key], want[key], f"{where}[{key}]")
    elif isinstance(want, (list, tuple)):
        assert type(got) is type(want) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype, where
        if want.dtype == object:
            # repr tells None from NaN, 8 from 8.0 and True from 1.
            assert [repr(v) for v in got.tolist()] == [repr(v) for v in want.tolist()], where
        else:
            np.testing.assert_array_equal(got, want, err_msg=where, strict=True)
    else:
        assert got == want, where


@pytest.mark.parametrize(("case", "gpu"), _CASES, ids=[f"{Path(c).name}-{g}" for c, g in _CASES])
def test_launch_functions_read_a_table_as_the_frame(case: str, gpu: str | None) -> None:
    launches = _analysis(case, gpu).launches
    table = Table.from_frame(launches)
    thresholds = Thresholds()
    _same(place(table, thresholds), place(launches, thresholds), "place")
    _same(dominant_precision(table), dominant_precision(launches), "dominant_precision")
    _same(placement(table), placement(launches), "placement")
    _same(point_from_rates(table), point_from_rates(launches), "point_from_rates")
    keys = ["fp32", "fp64"]
    counts = [table.floats("flops_fp32"), table.floats("flops_fp64")]
    _same(counts_or_rates(table, keys, counts), counts_or_rates(launches, keys, counts), "counts")
    groups, from_table = Groups(launches), Groups(table)
    _same(from_table.gid, groups.gid, "gid")
    _same(from_table.first, groups.first, "first")
    _same(duration_weights(table, groups.gid), duration_weights(launches, groups.gid), "weights")
    for column in ("bound", "limiter"):
        if column in launches:
            tw = duration_weights(launches, groups.gid)
            _same(
                _dominant(table, column, groups, tw, "unknown"),
                _dominant(launches, column, groups, tw, "unknown"),
                column,
            )
    rates: dict[str, np.ndarray] = {"total_duration_s": np.full(groups.n, np.nan)}
    want = dict(rates)
    group_rates_without_duration(table, groups.gid, groups.n, rates)
    group_rates_without_duration(launches, groups.gid, groups.n, want)
    _same(rates, want, "group rates")


@pytest.mark.parametrize(("case", "gpu"), _CASES, ids=[f"{Path(c).name}-{g}" for c, g in _CASES])
def test_kernel_groups_of_a_table_are_those_of_the_frame(case: str, gpu: str | None) -> None:
    analysis = _analysis(case, gpu)
    launches = analysis.launches
    table = Table.from_frame(launches)
    thresholds = analysis.thresholds
    groups = group_kernel_table(launches, thresholds)
    _same(group_kernel_table(table, thresholds), groups, "group_kernel_table")
    frame = group_kernels(launches, thresholds)
    _same(group_kernels(table, thresholds), frame, "group_kernels")
    # The frame is the engine's kernel groups (less the advice it adds), and the table's values.
    _same(frame, analysis.kernels.drop(columns="advice"), "engine's groups")
    assert list(frame.columns) == groups.columns
    for name in groups.columns:
        values = groups[name]
        if values.dtype != object:
            _same(frame[name].to_numpy(), values, name)
    # A missing whole number is pandas' NA in the frame, as the launch frame's Int64 gave it.
    for name in ("device", "grid_blocks"):
        if name in groups:
            held = frame[name].tolist()
            for value, table_value in zip(held, groups[name].tolist(), strict=True):
                assert value is pd.NA if table_value is None else value == table_value, name
    # Advice reads the groups as a frame, as a table made from it, and as the table made here.
    advice = group_advice_ids(analysis.kernels)
    assert group_advice_ids(Table.from_frame(analysis.kernels)) == advice
    assert group_advice_ids(groups) == advice
    names = [*groups.objects("kernel").tolist()[:4], None, "no such kernel"]
    findings = [(f.kind, f.kernel) for f in analysis.findings]
    findings += [
        (kind, name)
        for kind in ("below-roof", "limiter-disagrees", "under-filled", "excess-traffic")
        for name in names
    ]
    want = advice_ids(findings, analysis.kernels)
    assert advice_ids(findings, Table.from_frame(analysis.kernels)) == want
    assert advice_ids(findings, groups) == want


def test_group_table_holds_numbers_counts_flags_and_objects() -> None:
    groups = group_kernel_table(_analysis(str(SAMPLE), None).launches, Thresholds())
    assert groups.columns[0] == "rank"
    assert groups["rank"].tolist() == list(range(1, len(groups) + 1))
    for name in ("rank", "launches", "failed_launches", "above_roof_launches"):
        assert groups[name].dtype == np.int64, name
    for name in ("under_filled", "ncu_disagrees"):
        assert groups[name].dtype == np.bool_, name
    for name in ("kernel", "bound", "precision", "device", "grid_blocks"):
        assert groups[name].dtype == object, name
        assert not any(isinstance(v, float) and v != v for v in groups[name].tolist()), name
    # Whole numbers stay integers, whether the launches were a frame or a table.
    assert all(type(v) is int for v in groups["device"].tolist() if v is not None)
    # Ranked: most recoverable time first, unknown last.
    rec = groups["recoverable_s"]
    known = rec[~np.isnan(rec)]
    assert (np.diff(known) <= 0).all()


# --- the dominant value: exact time sums, first appearance wins ties ----------------------


def _one_group(values: list[str | None]) -> tuple[Table, Groups]:
    n = len(values)
    table = Table(
        {
            "source": np.full(n, "s", dtype=object),
            "kernel": np.full(n, "k", dtype=object),
            "device_name": np.full(n, None, dtype=object),
            "grid": np.full(n, "(1, 1, 1)", dtype=object),
            "block": np.full(n, "(32, 1, 1)", dtype=object),
            "limiter": np.array(values, dtype=object),
        },
        n,
    )
    return table, Groups(table)


_TIMES = st.lists(
    st.sampled_from([0.1, 0.2, 0.3, 0.6, 1e-6, 3e-7, 1.0, 1e16, 2.5, 7.1e-5]),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(times=_TIMES, data=st.data())
def test_equal_times_in_any_order_tie_and_the_first_value_wins(
    times: list[float], data: st.DataObject
) -> None:
    """Two values whose launches took the same times, in different orders and
    interleaved: they tie, and the one a launch had first wins."""
    other = data.draw(st.permutations(times))
    labels = ["A"] * len(times) + ["B"] * len(other)
    order = data.draw(st.permutations(range(len(labels))))
    values = [labels[i] for i in order]
    t0 = np.array([[*times, *other][i] for i in order])
    table, groups = _one_group(values)
    value, first = _dominant(table, "limiter", groups, t0, "unknown")
    assert value.tolist() == [values[0]]
    assert first.tolist() == [0]


@settings(max_examples=200, deadline=None)
@given(times=_TIMES, extra=st.sampled_from([1e-9, 1e-3, 0.5]), data=st.data())
def test_more_time_wins_over_first_appearance(
    times: list[float], extra: float, data: st.DataObject
) -> None:
    """The value met second wins when its launches took more time, however little."""
    later = [*data.draw(st.permutations(times)), extra]
    values = ["A"] * len(times) + ["B"] * len(later)
    t0 = np.array([*times, *later])
    # More once rounded: 1e16 and 1e16 + 1e-9 are one float.
    assume(math.fsum(later) > math.fsum(times))
    table, groups = _one_group(values)
    value, first = _dominant(table, "limiter", groups, t0, "unknown")
    assert value.tolist() == ["B"]
    assert first.tolist() == [len(times)]


def test_missing_values_join_the_missing_word() -> None:
    table, groups = _one_group(["x", None, "unknown", None])
    value, first = _dominant(table, "limiter", groups, np.array([1.0, 0.5, 0.2, 0.5]), "unknown")
    assert value.tolist() == ["unknown"]
    assert first.tolist() == [1]


def test_advice_reads_groups_without_a_name_or_a_time() -> None:
    """A group without a kernel name is no kernel's (not one named "None" or "nan"); a
    name's longest group chooses its advice, an unknown time counting as the least."""
    kernels = pd.DataFrame(
        {
            "kernel": pd.array([None, "k", "k", "k"], dtype="str"),
            "total_duration_s": [5.0, np.nan, 2.0, 1.0],
            "bound": ["memory", "compute", "memory", "compute"],
            "limiter": ["l2", "issue", "l2", "issue"],
        }
    )
    findings: list[tuple[str, str | None]] = [
        ("below-roof", "None"),
        ("below-roof", "nan"),
        ("below-roof", "k"),
    ]
    want = ["below-roof", "below-roof", "below-roof/memory-l2"]
    assert advice_ids(findings, kernels) == want
    assert advice_ids(findings, Table.from_frame(kernels)) == want
    assert group_advice_ids(Table.from_frame(kernels)) == group_advice_ids(kernels)
