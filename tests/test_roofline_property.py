"""Property tests of the roofline arithmetic and of the engine's sanity checks.

``ncu_roofline.analysis.roofs.arithmetic`` is checked against the definitions of the
roofline model: the attainable performance above a point of intensity ``ai``
is ``min(peak, ai x bandwidth)``, the ridge point is ``peak / bandwidth``,
points left of it are memory-bound and points on or right of it compute-bound,
and reaching the roof would save ``duration x (1 - efficiency)``.

The engine (:func:`ncu_roofline.analyze`) is then run on one-launch synthetic
profiles whose roofs are set, through an explicit :class:`GpuSpec`, relative
to the achieved rates the counters imply: below them the point must sit under
its roof with an efficiency in [0, 1] and no ``above_roof`` finding; more
than 2 % over them it must be flagged (column and warning) and not clipped.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from ncu_roofline import analyze
from ncu_roofline.analysis.roofs import arithmetic as roofline
from ncu_roofline.core.model import Profile, SourceInfo, finalize_launches
from tests.helpers import spec

SLACK = 1e-12  # relative float slack for min(peak, ai x bw) comparisons

# Positive, finite magnitudes spanning what real exports hold, far enough from
# the float limits that a product of two never overflows.
intensity = st.floats(min_value=0.0, max_value=1e6, allow_nan=False, allow_infinity=False)
peaks = st.floats(min_value=1e6, max_value=1e18, allow_nan=False, allow_infinity=False)
bandwidths = st.floats(min_value=1e6, max_value=1e15, allow_nan=False, allow_infinity=False)
durations = st.floats(min_value=1e-7, max_value=10.0, allow_nan=False, allow_infinity=False)
fractions = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)


def one(x: float) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.array([x], dtype=np.float64)


# --- attainable ------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(ai=intensity, peak=peaks, bw=bandwidths)
def test_attainable_is_the_lower_roof(ai: float, peak: float, bw: float) -> None:
    got = float(roofline.attainable(one(ai), one(peak), one(bw))[0])
    mem = ai * bw
    assert got <= peak * (1 + SLACK)
    assert got <= mem * (1 + SLACK)
    # It is one of the two roofs, not something in between.
    assert got in (peak, mem)
    assert got == min(peak, mem)


@settings(max_examples=200, deadline=None)
@given(a=intensity, b=intensity, peak=peaks, bw=bandwidths)
def test_attainable_is_monotone_in_intensity(a: float, b: float, peak: float, bw: float) -> None:
    lo, hi = sorted((a, b))
    att = roofline.attainable(np.array([lo, hi]), peak, bw)
    assert att[0] <= att[1]


def test_attainable_known_values() -> None:
    # Ridge at 1e12 / 1e11 = 10 FLOP/byte: 5 FLOP/byte -> 5e11, 20 -> 1e12.
    got = roofline.attainable(np.array([5.0, 10.0, 20.0]), 1e12, 1e11)
    assert list(got) == [5e11, 1e12, 1e12]


# --- ridge point and side --------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(peak=peaks, bw=bandwidths)
def test_side_flips_exactly_at_the_ridge(peak: float, bw: float) -> None:
    ridge = float(roofline.ridge_point(one(peak), one(bw))[0])
    assert ridge == peak / bw
    below = np.nextafter(ridge, 0.0)
    ai = np.array([below, ridge, np.nextafter(ridge, np.inf)])
    labels = roofline.side(ai, np.full(3, peak), np.full(3, bw))
    assert list(labels) == ["memory", "compute", "compute"]


@settings(max_examples=200, deadline=None)
@given(ai=intensity, peak=peaks, bw=bandwidths)
def test_side_matches_the_binding_roof(ai: float, peak: float, bw: float) -> None:
    label = roofline.side(one(ai), one(peak), one(bw))[0]
    assert label == ("memory" if ai < peak / bw else "compute")


def test_scalar_inputs_accepted() -> None:
    # The module promises "scalars or equal-length arrays".  Ridge at
    # 10 / 2 = 5 FLOP/byte; 1 FLOP/byte is left of it.
    assert float(roofline.ridge_point(10.0, 2.0)) == 5.0
    assert list(np.atleast_1d(roofline.side(1.0, 10.0, 2.0))) == ["memory"]
    assert list(np.atleast_1d(roofline.side(5.0, 10.0, 2.0))) == ["compute"]
    # Scalar roofs broadcast against an array of intensities.
    assert list(roofline.side(np.array([1.0, 5.0]), 10.0, 2.0)) == ["memory", "compute"]


@pytest.mark.parametrize("peak,bw", [(1e12, 0.0), (math.inf, 1e11)])
def test_ridge_without_finite_roofs_is_nan(peak: float, bw: float) -> None:
    assert np.isnan(roofline.ridge_point(one(peak), one(bw))[0])
    assert roofline.side(one(1.0), one(peak), one(bw))[0] is None


# --- NaN never turns into a number ------------------------------------------


@settings(max_examples=100, deadline=None)
@given(ai=intensity, peak=peaks, bw=bandwidths, which=st.integers(0, 2))
def test_nan_input_gives_nan(ai: float, peak: float, bw: float, which: int) -> None:
    args = [ai, peak, bw]
    args[which] = math.nan
    a, p, b = (one(x) for x in args)
    assert np.isnan(roofline.attainable(a, p, b)[0])
    assert roofline.side(a, p, b)[0] is None
    if which != 0:
        assert np.isnan(roofline.ridge_point(p, b)[0])


@settings(max_examples=100, deadline=None)
@given(num=st.floats(min_value=-1e30, max_value=1e30, allow_nan=False), den=bandwidths)
def test_ratio(num: float, den: float) -> None:
    assert float(roofline.ratio(one(num), one(den))[0]) == num / den
    assert np.isnan(roofline.ratio(one(num), one(0.0))[0])
    assert np.isnan(roofline.ratio(one(num), one(math.nan))[0])
    assert np.isnan(roofline.ratio(one(math.nan), one(den))[0])


@settings(max_examples=100, deadline=None)
@given(d=durations, e=fractions)
def test_recoverable_in_range(d: float, e: float) -> None:
    got = float(roofline.recoverable(one(d), one(e))[0])
    assert 0.0 <= got <= d
    assert got == pytest.approx(d * (1 - e), rel=1e-12, abs=0.0)


@settings(max_examples=100, deadline=None)
@given(d=durations, e=st.floats(min_value=1.0, max_value=100.0))
def test_recoverable_above_roof_is_zero(d: float, e: float) -> None:
    # Points above their roof recover nothing (and are flagged elsewhere).
    assert float(roofline.recoverable(one(d), one(e))[0]) == 0.0


@settings(max_examples=50, deadline=None)
@given(d=durations, e=fractions)
def test_recoverable_nan(d: float, e: float) -> None:
    assert np.isnan(roofline.recoverable(one(math.nan), one(e))[0])
    assert np.isnan(roofline.recoverable(one(d), one(math.nan))[0])


# --- the engine on synthetic launches ---------------------------------------

KERNEL = "void saxpy_kernel<float>(int, float, float const*, float*)"
# SASS letter and (add, mul, fma) FLOP weights of each precision (ncu's
# counting: FP16 counters count packed half2 instructions).
PRECISIONS = {"fp64": ("d", (1, 1, 2)), "fp32": ("f", (1, 1, 2)), "fp16": ("h", (2, 2, 4))}

counts = st.integers(min_value=1, max_value=10**12)

# Each engine example runs the whole analysis (~20 ms); shrinking a failure
# would take minutes, and any failing example already shows the fault.
engine_settings = settings(
    max_examples=50, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate)
)
byte_counts = st.integers(min_value=32, max_value=10**12)


def one_launch(precision: str, add: int, mul: int, fma: int, dram: int, duration: float) -> Profile:
    letter, _ = PRECISIONS[precision]
    metrics = {
        f"sm__sass_thread_inst_executed_op_{letter}add_pred_on.sum": [float(add)],
        f"sm__sass_thread_inst_executed_op_{letter}mul_pred_on.sum": [float(mul)],
        f"sm__sass_thread_inst_executed_op_{letter}fma_pred_on.sum": [float(fma)],
        "dram__bytes.sum": [float(dram)],
        "gpu__time_duration.sum": [duration],
    }
    identity = {
        "source": ["synthetic.csv"],
        "id": [0],
        "kernel": [KERNEL],
        "grid": ["(1024, 1, 1)"],
        "block": ["(256, 1, 1)"],
    }
    return Profile(
        launches=finalize_launches(identity, metrics, 1),
        sources=[SourceInfo(path="synthetic.csv", layout="details")],
    )


def expected_flops(precision: str, add: int, mul: int, fma: int) -> float:
    _, (wa, wm, wf) = PRECISIONS[precision]
    return float(wa * add + wm * mul + wf * fma)


def above_findings(analysis: Any) -> list[Any]:
    return [f for f in analysis.findings if f.kind == "above-roof"]


@engine_settings
@given(
    precision=st.sampled_from(sorted(PRECISIONS)),
    add=counts,
    mul=counts,
    fma=counts,
    dram=byte_counts,
    duration=durations,
    compute_use=st.floats(min_value=1e-3, max_value=1.0),
    dram_use=st.floats(min_value=1e-3, max_value=1.0),
)
def test_consistent_launch_sits_under_its_roof(
    precision: str,
    add: int,
    mul: int,
    fma: int,
    dram: int,
    duration: float,
    compute_use: float,
    dram_use: float,
) -> None:
    flops = expected_flops(precision, add, mul, fma)
    achieved = flops / duration
    bytes_per_s = dram / duration
    # Roofs at or above what the launch reached: achieved <= peak and
    # bytes/s <= bandwidth, so achieved = ai x bytes/s <= ai x bandwidth too.
    peak = achieved / compute_use
    bw = bytes_per_s / dram_use
    gpu = spec({precision: peak}, bw)
    a = analyze(one_launch(precision, add, mul, fma, dram, duration), gpu=gpu, clocks="datasheet")
    row = a.launches.iloc[0]
    assert row["flops"] == pytest.approx(flops, rel=1e-12)
    assert row["precision"] == precision
    eff = float(row["efficiency"])
    assert not math.isnan(eff)
    assert 0.0 <= eff <= 1.0 + 1e-9
    assert float(row["efficiency"]) == pytest.approx(
        achieved / min(peak, flops / dram * bw), rel=1e-9
    )
    assert pd.isna(row["above_roof"])
    assert above_findings(a) == []
    rec = float(row["recoverable_s"])
    if row["limiter"] == "unknown":
        # Far under every roof with no speed-of-light metrics: what limits it
        # is not measured; under 1% of both roofs no time is promised at all.
        assert max(compute_use, dram_use) < 0.1
        if max(compute_use, dram_use) < 0.01:
            assert math.isnan(rec)
        else:
            assert 0.0 <= rec <= duration
    elif math.isnan(rec):
        # Every unit the export counts is under the far-below cut and no
        # speed-of-light metric covers the rest: nothing bounds the gain.
        assert float(row["max_utilization"]) < a.thresholds.far_below
        assert str(row["recoverable_basis"]).startswith("unknown")
    else:
        # No unit can work faster than at 100%: the busiest one bounds the gain.
        assert 0.0 <= rec <= duration * max(0.0, 1 - float(row["max_utilization"])) + 1e-12


@engine_settings
@given(
    precision=st.sampled_from(sorted(PRECISIONS)),
    add=counts,
    mul=counts,
    fma=counts,
    dram=byte_counts,
    duration=durations,
    over=st.floats(min_value=1.03, max_value=50.0),
    dram_use=st.floats(min_value=1e-3, max_value=1.0),
)
def test_above_compute_roof_is_flagged_not_clipped(
    precision: str,
    add: int,
    mul: int,
    fma: int,
    dram: int,
    duration: float,
    over: float,
    dram_use: float,
) -> None:
    flops = expected_flops(precision, add, mul, fma)
    achieved = flops / duration
    peak = achieved / over  # the launch claims `over` x the peak
    gpu = spec({precision: peak}, dram / duration / dram_use)
    a = analyze(one_launch(precision, add, mul, fma, dram, duration), gpu=gpu, clocks="datasheet")
    row = a.launches.iloc[0]
    assert row["above_roof"] == "compute"
    assert float(row["achieved_flops_per_s"]) == pytest.approx(achieved, rel=1e-12)
    assert float(row["compute_utilization"]) == pytest.approx(over, rel=1e-9)
    found = above_findings(a)
    assert len(found) == 1
    assert found[0].severity == "warning"
    assert found[0].kernel == KERNEL
    assert "compute" in found[0].message
    assert int(a.kernels.iloc[0]["above_roof_launches"]) == 1


@engine_settings
@given(
    precision=st.sampled_from(sorted(PRECISIONS)),
    add=counts,
    mul=counts,
    fma=counts,
    dram=byte_counts,
    duration=durations,
    over=st.floats(min_value=1.03, max_value=50.0),
    compute_use=st.floats(min_value=1e-3, max_value=1.0),
)
def test_above_dram_roof_is_flagged_not_clipped(
    precision: str,
    add: int,
    mul: int,
    fma: int,
    dram: int,
    duration: float,
    over: float,
    compute_use: float,
) -> None:
    flops = expected_flops(precision, add, mul, fma)
    achieved = flops / duration
    bytes_per_s = dram / duration
    gpu = spec({precision: achieved / compute_use}, bytes_per_s / over)
    a = analyze(one_launch(precision, add, mul, fma, dram, duration), gpu=gpu, clocks="datasheet")
    row = a.launches.iloc[0]
    assert row["above_roof"] == "DRAM bandwidth"
    assert float(row["achieved_flops_per_s"]) == pytest.approx(achieved, rel=1e-12)
    assert float(row["dram_bytes_per_s"]) == pytest.approx(bytes_per_s, rel=1e-12)
    assert float(row["dram_utilization"]) == pytest.approx(over, rel=1e-9)
    found = above_findings(a)
    assert len(found) == 1
    assert found[0].severity == "warning"
    assert found[0].kernel == KERNEL
    assert "DRAM" in found[0].message


@engine_settings
@given(
    add=counts,
    dram=byte_counts,
    duration=durations,
    over=st.floats(min_value=1.0, max_value=1.019),
)
def test_within_tolerance_is_not_flagged(add: int, dram: int, duration: float, over: float) -> None:
    # Up to 2 % over the roof is clock jitter, not an error.
    flops = float(add)
    gpu = spec({"fp32": flops / duration / over}, dram / duration / over)
    a = analyze(one_launch("fp32", add, 0, 0, dram, duration), gpu=gpu, clocks="datasheet")
    assert float(a.launches.iloc[0]["compute_utilization"]) == pytest.approx(over, rel=1e-9)
    assert pd.isna(a.launches.iloc[0]["above_roof"])
    assert above_findings(a) == []
