"""Repeated runs as trials: medians, the noise estimate, the interval, and the CI goals.

The statistics are checked against hand-worked values and by simulation
(the false-regression and power goals); the command line on trials written
out from a real export, its elapsed cycles scaled by known factors.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis.compare import compare
from ncu_roofline.analysis.compare.judge import judge
from ncu_roofline.analysis.compare.trials import (
    CONFIDENCE,
    SideTrials,
    interval,
    median_variance,
    split_trials,
    t_quantile,
)
from tests.helpers import SAMPLES, run
from tests.test_compare import read_details, write_details

#: A real V100 export: CUTLASS GEMMs and matrix initialisers; its time is
#: elapsed cycles over the SM clock, so scaling the cycles scales the time.
REAL = SAMPLES / "wangzy0327__cuda-roofline__src_output.csv"
GEMM = "Kernel<cutlass::gemm::kernel::Gemm<"
CYCLES = "sm__cycles_elapsed.avg"

pytestmark = pytest.mark.skipif(not REAL.exists(), reason="real export not available")


# --- the statistics, by hand -------------------------------------------------


@pytest.mark.parametrize(
    ("p", "df", "exact", "tol"),
    [
        # Textbook values of Student's t.
        (0.975, 1, 12.706, 1e-3),
        (0.99, 2, 6.965, 1e-3),
        (0.99, 3, 4.541, 5e-3),
        (0.975, 4, 2.776, 2e-3),
        (0.99, 4, 3.747, 2e-3),
        (0.99, 8, 2.896, 1e-3),
        (0.99, 20, 2.528, 1e-3),
        (0.99, 100, 2.364, 1e-3),
    ],
)
def test_t_quantile_matches_tables(p: float, df: int, exact: float, tol: float) -> None:
    assert t_quantile(p, df) == pytest.approx(exact, rel=tol)


def test_median_variance() -> None:
    rng = np.random.default_rng(3)
    for n in (1, 2, 3, 5):
        draws = np.median(rng.normal(size=(400_000, n)), axis=1)
        assert median_variance(n) == pytest.approx(draws.var(), rel=0.01)
    # Large n: the asymptote pi / (2n).
    assert median_variance(101) == pytest.approx(math.pi / 202)
    with pytest.raises(ValueError):
        median_variance(0)


def test_interval_one_row_by_hand() -> None:
    base = [1.00, 1.02, 0.99]
    cand = [1.10, 1.13, 1.08]
    lb, lc = np.log(base), np.log(cand)
    ss = ((lb - lb.mean()) ** 2).sum() + ((lc - lc.mean()) ** 2).sum()
    var = ss / 4  # 2 + 2 degrees of freedom; one row: nothing to pool with
    center = math.log(np.median(cand) / np.median(base))
    # Student's t at 99% (one tail of the 98% interval), 4 degrees of freedom.
    half = 3.747 * math.sqrt(var * (0.4487 + 0.4487))
    low, high, noise = interval(lb.reshape(1, -1), lc.reshape(1, -1), np.array([center]))
    # In log space the interval is the centre plus and minus the half-width
    # (the quantile is within 0.2% of the table's).
    assert center - math.log1p(low[0]) == pytest.approx(half, rel=2e-3)
    assert math.log1p(high[0]) - center == pytest.approx(half, rel=2e-3)
    assert noise[0] == pytest.approx(math.sqrt(var), rel=1e-12)


def test_interval_needs_a_degree_of_freedom() -> None:
    low, high, noise = interval(np.log([[1.0]]), np.log([[1.2]]), np.array([math.log(1.2)]))
    assert math.isnan(low[0]) and math.isnan(high[0]) and math.isnan(noise[0])


def test_noisy_row_keeps_its_own_noise() -> None:
    # Nineteen quiet rows and one noisy one: pooling never makes the noisy row quieter.
    rng = np.random.default_rng(5)
    quiet = rng.normal(0, 0.01, size=(19, 6))
    noisy = np.array([[0.0, 0.2, -0.2, 0.1, -0.1, 0.0]])
    logs = np.vstack([quiet, noisy])
    _, _, noise = interval(logs[:, :3], logs[:, 3:], np.zeros(20))
    own = math.sqrt(
        (
            ((noisy[0, :3] - noisy[0, :3].mean()) ** 2).sum()
            + ((noisy[0, 3:] - noisy[0, 3:].mean()) ** 2).sum()
        )
        / 4
    )
    assert noise[-1] >= own - 1e-12
    # A quiet row borrows from the others: its estimate lies between its own and the pool.
    assert noise[:-1].max() < own


# --- the CI goals, by simulation ----------------------------------------------

GROUPS = 20


def _frame(base: np.ndarray, cand: np.ndarray) -> pd.DataFrame:
    g = len(base)
    frame: pd.DataFrame = pd.DataFrame(
        {
            "match": ["exact"] * g,
            "base_groups": 1.0,
            "candidate_groups": 1.0,
            "base_total_duration_s": np.median(base, axis=1),
            "candidate_total_duration_s": np.median(cand, axis=1),
            "base_launches": 1.0,
            "candidate_launches": 1.0,
            "base_row": np.arange(g, dtype=float),
            "candidate_row": np.arange(g, dtype=float),
        }
    )
    return frame


def _side(times: np.ndarray) -> SideTrials:
    nan = np.full_like(times, np.nan)
    return SideTrials(
        times.shape[1],
        {
            "total_duration_s": times,
            "launches": np.ones_like(times),
            "cycles": nan,
            "flops": nan,
            "dram_bytes": nan,
        },
    )


def _rates(shift: float, noise: float, kind: str, reps: int, seed: int) -> tuple[float, float]:
    """Fraction of groups judged a regression, and of true changes inside the interval."""
    rng = np.random.default_rng(seed)
    truth = rng.uniform(1e-5, 1e-3, GROUPS)
    hits = covered = 0

    def draw() -> np.ndarray:
        if kind == "normal":
            return rng.normal(0.0, noise, (GROUPS, 3))
        return rng.uniform(-noise, noise, (GROUPS, 3))

    for _ in range(reps):
        base = truth[:, None] * (1 + draw())
        cand = truth[:, None] * (1 + shift) * (1 + draw())
        out = judge(_frame(base, cand), "time", 0.02, True, (_side(base), _side(cand)))
        hits += int((out["status"] == "regression").sum())
        covered += int(((out["change_low"] <= shift) & (shift <= out["change_high"])).sum())
    return hits / (reps * GROUPS), covered / (reps * GROUPS)


@pytest.mark.parametrize(("kind", "noise"), [("normal", 0.02), ("uniform", 0.02)])
def test_aa_false_regressions_below_one_percent(kind: str, noise: float) -> None:
    false, covered = _rates(0.0, noise, kind, reps=1000, seed=11)
    assert false < 0.01
    # The interval holds the true change about as often as it says.
    assert covered >= CONFIDENCE - 0.01


@pytest.mark.parametrize(("kind", "noise"), [("uniform", 0.02), ("normal", 0.01)])
def test_true_five_percent_caught(kind: str, noise: float) -> None:
    caught, covered = _rates(0.05, noise, kind, reps=500, seed=12)
    assert caught >= 0.90
    assert covered >= CONFIDENCE - 0.01


def test_one_run_a_side_is_unchanged_behaviour(tmp_path: Path) -> None:
    single = compare(analyze(load([str(REAL)])), analyze(load([str(REAL)])))
    assert single.totals["base_trials"] == single.totals["candidate_trials"] == 1
    assert single.totals["confidence"] is None
    assert single.kernels["change_low"].isna().all()


# --- trials written out from a real export ------------------------------------


def _trial(tmp_path: Path, name: str, factor: float, gemm: float = 1.0) -> Path:
    """The real export with every launch's elapsed cycles times ``factor`` (GEMMs also ``gemm``)."""
    preamble, header, rows = read_details(REAL)
    kernel, metric, value = (
        header.index(c) for c in ("Kernel Name", "Metric Name", "Metric Value")
    )
    out = []
    for r in rows:
        r = list(r)
        if r[metric] == CYCLES:
            scale = factor * (gemm if GEMM in r[kernel] else 1.0)
            r[value] = repr(float(r[value].replace(",", "")) * scale)
        out.append(r)
    path = tmp_path / f"{name}.csv"
    write_details(path, preamble, header, out)
    return path


def _sides(base: list[Path], cand: list[Path]) -> list[str]:
    args = []
    for p in base:
        args += ["--base", str(p)]
    for p in cand:
        args += ["--candidate", str(p)]
    return args


def _json(tmp_path: Path, *args: str) -> tuple[dict, str, int]:  # type: ignore[type-arg]
    out = tmp_path / "cmp.json"
    proc = run("compare", *args, "--format", "json", "-o", str(out), "--force")
    doc = json.loads(out.read_text()) if out.exists() else {}
    return doc, proc.stderr, proc.returncode


def test_aa_three_copies_no_change(tmp_path: Path) -> None:
    base = [_trial(tmp_path, f"b{i}", 1.0) for i in range(3)]
    cand = [_trial(tmp_path, f"c{i}", 1.0) for i in range(3)]
    doc, err, rc = _json(tmp_path, *_sides(base, cand), "--fail-on", "regression>1%")
    assert rc == 0, err
    t = doc["totals"]
    assert (t["base_trials"], t["candidate_trials"]) == (3, 3)
    assert t["confidence"] == CONFIDENCE
    assert t["regressions"] == t["improvements"] == 0
    # One run's launches, not three runs' concatenated.
    single = analyze(load([str(REAL)]))
    assert t["base_launches"] == int(single.kernels["launches"].sum())
    assert {k["status"] for k in doc["kernels"]} == {"unchanged"}
    assert all(k["change_low"] == k["change_high"] == 0 for k in doc["kernels"])
    assert [i["path"] for i in doc["base"]["inputs"]] == [str(p) for p in base]
    assert "3 inputs read as trials" in err


def test_trials_catch_a_real_regression_with_its_interval(tmp_path: Path) -> None:
    base_f, cand_f = [1.00, 1.01, 0.99], [1.005, 0.995, 1.0]
    base = [_trial(tmp_path, f"b{i}", f) for i, f in enumerate(base_f)]
    cand = [_trial(tmp_path, f"c{i}", f, gemm=1.10) for i, f in enumerate(cand_f)]
    doc, err, rc = _json(tmp_path, *_sides(base, cand), "--fail-on", "regression>5%")
    assert rc == 3, err
    # Each group's noise: the pooled spread of the log factors, alike in every group.
    lb, lc = np.log(base_f), np.log(cand_f)
    own = math.sqrt((((lb - lb.mean()) ** 2).sum() + ((lc - lc.mean()) ** 2).sum()) / 4)
    gemms = [k for k in doc["kernels"] if GEMM in k["kernel"]]
    others = [k for k in doc["kernels"] if GEMM not in k["kernel"]]
    assert gemms and others
    for k in gemms:
        # The medians' change: 1.10 * median(cand) / median(base) - 1.
        assert k["judged_pct"] == pytest.approx(1.10 * 1.0 / 1.0 - 1, rel=1e-9)
        assert k["status"] == "regression"
        assert 0 < k["change_low"] < 0.10 < k["change_high"]
        # Symmetric around the change in log space.
        mid = (math.log1p(k["change_low"]) + math.log1p(k["change_high"])) / 2
        assert mid == pytest.approx(math.log(1.10), rel=1e-9)
        assert k["trial_noise"] == pytest.approx(own, rel=1e-6)
    assert all(k["status"] == "unchanged" for k in others)
    gate = doc["gates"]["tripped"]
    # The GEMMs, and the total they carry (kernel None); no initialiser.
    assert any(g["kernel"] for g in gate)
    assert all(g["kernel"] is None or GEMM in g["kernel"] for g in gate)
    total = doc["totals"]
    assert total["change_low"] > 0 and total["judged_pct"] > 0.05


def test_change_inside_the_noise_trips_no_gate(tmp_path: Path) -> None:
    # +6% on the GEMMs, but runs that differ by 8%: beyond the gate, inside the noise.
    factors = [0.92, 1.00, 1.08]
    base = [_trial(tmp_path, f"b{i}", f) for i, f in enumerate(factors)]
    cand = [_trial(tmp_path, f"c{i}", f, gemm=1.06) for i, f in enumerate(factors[::-1])]
    doc, err, rc = _json(tmp_path, *_sides(base, cand), "--fail-on", "regression>5%")
    assert rc == 0, err
    for k in doc["kernels"]:
        if GEMM in k["kernel"]:
            assert k["judged_pct"] == pytest.approx(0.06, rel=1e-9)
            assert k["status"] == "unchanged"
            assert k["change_low"] < 0 < k["change_high"]
    # The story claims no change: the total's interval holds zero too.
    total = doc["totals"]
    assert total["judged_pct"] > 0.02 and total["change_low"] < 0 < total["change_high"]
    assert doc["story"]["changed"] is False
    assert doc["story"]["text"].startswith("No change beyond the noise (±2.0%, 98% interval")
    # The same +6% from one run a side trips the gate: the noise is what spared it.
    _, err, rc = _json(tmp_path, *_sides(base[1:2], cand[1:2]), "--fail-on", "regression>5%")
    assert rc == 3, err


def test_trials_on_one_side_only(tmp_path: Path) -> None:
    base = [_trial(tmp_path, f"b{i}", f) for i, f in enumerate([1.0, 1.01, 0.99])]
    cand = [_trial(tmp_path, "c", 1.0, gemm=1.2)]
    doc, err, rc = _json(tmp_path, *_sides(base, cand))
    assert rc == 0, err
    assert (doc["totals"]["base_trials"], doc["totals"]["candidate_trials"]) == (3, 1)
    gemms = [k for k in doc["kernels"] if GEMM in k["kernel"]]
    assert all(k["status"] == "regression" and k["change_low"] > 0 for k in gemms)


def _without(tmp_path: Path, name: str, drop: str, metric: bool = False) -> Path:
    """The real export without the rows of kernels naming ``drop`` (or of metric ``drop``)."""
    preamble, header, rows = read_details(REAL)
    col = header.index("Metric Name" if metric else "Kernel Name")
    kept = [r for r in rows if not (r[col] == drop if metric else drop in r[col])]
    path = tmp_path / f"{name}.csv"
    write_details(path, preamble, header, kept)
    return path


def test_inputs_with_different_kernels_are_joined_and_said(tmp_path: Path) -> None:
    other = _without(tmp_path, "no_gemm", GEMM)
    copy = _trial(tmp_path, "copy", 1.0)
    doc, err, rc = _json(tmp_path, *_sides([copy, other], [copy]))
    assert rc == 0, err
    assert doc["totals"]["base_trials"] == 1
    assert "hold different kernels" in err and "--trials" in err
    # --trials: read as trials anyway, the groups some trial lacks named, none dropped.
    doc, err, rc = _json(tmp_path, "--trials", *_sides([copy, other], [copy]))
    assert rc == 0, err
    assert doc["totals"]["base_trials"] == 2
    assert "missing from some trials" in err and "no_gemm.csv" in err
    assert {k["kernel"] for k in doc["kernels"]} == {
        str(k) for k in analyze(load([str(REAL)])).kernels["kernel"]
    }
    assert all(k["status"] not in ("added", "removed") for k in doc["kernels"])


def test_trial_missing_a_metric_is_said(tmp_path: Path) -> None:
    lacking = _without(tmp_path, "no_dram", "dram__bytes.sum", metric=True)
    copy = _trial(tmp_path, "copy", 1.0)
    doc, err, rc = _json(tmp_path, *_sides([copy, lacking], [copy]))
    assert rc == 0, err
    assert doc["totals"]["base_trials"] == 2
    assert "no_dram.csv lacks 1 metric(s)" in err and "dram__bytes.sum" in err
    # The median of the trials that measured DRAM bytes: the real value, not half of it.
    single = analyze(load([str(REAL)]))
    assert sum(k["base_dram_bytes"] for k in doc["kernels"]) == pytest.approx(
        float(single.kernels["dram_bytes"].sum()), rel=1e-9
    )


def test_a_trial_with_no_launches_is_an_input_error(tmp_path: Path) -> None:
    preamble, header, _ = read_details(REAL)
    empty = tmp_path / "empty.csv"
    write_details(empty, preamble, header, [])
    _, err, rc = _json(tmp_path, "--trials", *_sides([REAL, empty], [REAL]))
    assert rc == 4
    assert "empty.csv" in err and "no launches" in err and "Traceback" not in err


def test_split_trials_decisions() -> None:
    profile = load([str(REAL)])
    assert split_trials(profile).trials is False
    assert split_trials(profile, True).reason == "one input"


def test_markdown_shows_trials_and_intervals(tmp_path: Path) -> None:
    base = [_trial(tmp_path, f"b{i}", f) for i, f in enumerate([1.00, 1.01, 0.99])]
    cand = [_trial(tmp_path, f"c{i}", f, gemm=1.10) for i, f in enumerate([1.005, 0.995, 1.0])]
    out = tmp_path / "cmp.md"
    proc = run("compare", *_sides(base, cand), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "Trials: base 3 run(s), candidate 3 run(s)" in text
    assert "98% interval" in text
    # The GEMM row's judged change carries its interval and noise.
    assert "time +10.0% (+" in text and "noise" in text
