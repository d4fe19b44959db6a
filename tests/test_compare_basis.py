"""A compare to gate a pull request on: clocks, GPUs and work never mistaken for a code change.

The N-body export (an A100 at 1.09 GHz, durations from elapsed cycles over
the SM clock) is rewritten in ``tmp_path`` by generators that transform the
real file faithfully: :func:`scale_clock` divides every clock rate by 1.2
(and multiplies any duration by 1.2), keeping the cycle counters, which is
the same work on a GPU clocked 1.2x lower; :func:`scale_work` multiplies one
kernel's instruction, byte and cycle counters.  Expected values are worked
out from the CSV values themselves.

Thresholds are pinned on both sides of every boundary (just under, at,
just over) with binary fractions, so "at" is exact in floating point.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ncu_roofline.analysis.compare import compare
from ncu_roofline.analysis.compare.basis import resolve_basis
from ncu_roofline.analysis.compare.context import beyond
from ncu_roofline.render.compare_report import render_compare_markdown
from ncu_roofline.render.compare_text import at_roof
from ncu_roofline.report.compare import comparison_context
from ncu_roofline.report.gates import evaluate_comparison, parse_gates
from tests.helpers import analyse_rows, fp32, run
from tests.test_compare import read_details, write_details

NBODY = "Lakoc__Nbody_CUDA__profile_1.out"
VELOCITY = "calculate_velocity"
CLOCKS = ("cycles_elapsed.avg.per_second",)
DURATIONS = ("gpu__time_duration.sum", "gpu__time_active.sum")
#: Counters that grow with the work a kernel does.
WORK = ("inst_executed", "bytes.sum", "cycles_elapsed.avg")


class _Cols:
    """Column positions of a details header (the N-body export has no launch shape)."""

    def __init__(self, header: list[str]) -> None:
        self.kernel = header.index("Kernel Name")
        self.metric = header.index("Metric Name")
        self.value = header.index("Metric Value")


def _value(text: str) -> float:
    return float(text.replace(",", ""))


def scale_clock(src: Path, dst: Path, factor: float) -> None:
    """``src`` as if run ``factor``x slower-clocked: clocks / factor, durations x factor, cycles kept."""
    pre, header, rows = read_details(src)
    c = _Cols(header)
    for r in rows:
        name = r[c.metric]
        if name.endswith(CLOCKS):
            r[c.value] = repr(_value(r[c.value]) / factor)
        elif name in DURATIONS:
            r[c.value] = repr(_value(r[c.value]) * factor)
    write_details(dst, pre, header, rows)


def scale_work(src: Path, dst: Path, kernel: str, work: float, cycles: float) -> None:
    """``kernel``'s FLOP instructions and bytes times ``work``, its elapsed cycles times ``cycles``."""
    pre, header, rows = read_details(src)
    c = _Cols(header)
    for r in rows:
        name = r[c.metric]
        if not r[c.kernel].startswith(kernel) or name.endswith(CLOCKS):
            continue
        if name == "sm__cycles_elapsed.avg":
            r[c.value] = repr(_value(r[c.value]) * cycles)
        elif any(w in name for w in WORK):
            r[c.value] = repr(_value(r[c.value]) * work)
    write_details(dst, pre, header, rows)


def _velocity(data: dict[str, object]) -> dict[str, object]:
    (row,) = [r for r in data["kernels"] if r["kernel_short"] == VELOCITY]  # type: ignore[attr-defined, index]
    return row  # type: ignore[no-any-return]


# --- the N-body file at another clock ------------------------------------------------


def test_clock_scaled_copy_is_judged_on_cycles(samples_dir: Path, tmp_path: Path) -> None:
    base = samples_dir / NBODY
    slow = tmp_path / "slow_clock.out"
    scale_clock(base, slow, 1.2)
    out = tmp_path / "d.json"
    gate = ("--fail-on", "regression>5%")
    proc = run("compare", str(base), str(slow), "--gpu", "a100_40gb_sxm", "-o", str(out), *gate)
    assert proc.returncode == 0, proc.stderr
    # The clock difference is named first, on stderr and in the JSON.
    assert "SM clock differs: base 1.09 GHz, candidate 0.91 GHz (x0.833)" in proc.stderr
    assert "judged on elapsed SM cycles (auto: the SM clocks differ beyond noise)" in proc.stderr
    data = json.loads(out.read_text())
    (clock,) = data["context"]["differences"]
    assert clock["kind"] == "clock" and clock["ratio"] == pytest.approx(1 / 1.2)
    # Median SM clock of the three launches (1,092,120,938.48 Hz) over 1.2.
    assert data["context"]["base"]["sm_clock_hz"] == pytest.approx(1_092_120_938.48)
    assert data["context"]["candidate"]["sm_clock_hz"] == pytest.approx(1_092_120_938.48 / 1.2)
    t = data["totals"]
    assert t["basis"] == "cycles" and t["basis_requested"] == "auto"
    assert t["delta_pct"] == pytest.approx(0.2) and t["delta_cycles_pct"] == pytest.approx(0.0)
    assert t["judged_on"] == "cycles" and t["judged_pct"] == pytest.approx(0.0)
    v = _velocity(data)
    # 419,843.85 cycles at 1,094,803,101.67 Hz: 383.49 us, then 460.19 us.
    assert v["base_total_duration_s"] == pytest.approx(419_843.85 / 1_094_803_101.67)
    assert v["candidate_total_duration_s"] == pytest.approx(1.2 * 419_843.85 / 1_094_803_101.67)
    assert v["base_cycles"] == pytest.approx(419_843.85) == v["candidate_cycles"]
    assert v["delta_pct"] == pytest.approx(0.2) and v["delta_cycles_pct"] == pytest.approx(0.0)
    assert v["status"] == "unchanged" and v["judged_on"] == "cycles"
    assert data["regressions"] == [] and data["gates"]["tripped"] == []
    # Judged on time, the same pair trips the gate: the basis is what saves it.
    proc = run(
        "compare", str(base), str(slow), "--gpu", "a100_40gb_sxm", "-o", str(out), "--force",
        "--basis", "time", *gate,
    )  # fmt: skip
    assert proc.returncode == 3, proc.stderr
    assert len(json.loads(out.read_text())["regressions"]) == 2


def test_clock_difference_stated_in_every_header(samples_dir: Path, tmp_path: Path) -> None:
    base = samples_dir / NBODY
    slow = tmp_path / "slow_clock.out"
    scale_clock(base, slow, 1.2)
    for fmt in ("md", "html", "junit"):
        proc = run("compare", str(base), str(slow), "--format", fmt, "-o", "-")
        assert proc.returncode == 0, proc.stderr
        text = proc.stdout
        first = text.index("SM clock differs")
        # Stated before any kernel group.
        assert first < text.index(VELOCITY), fmt
        assert "Judged on elapsed SM cycles" in text
        assert "launch shape not exported" in text and "grid ?" not in text
    md = run("compare", str(base), str(slow), "--format", "md", "-o", "-").stdout
    assert "| +20.0% | +0.0% |" in md  # time and cycle deltas side by side
    junit = run("compare", str(base), str(slow), "--format", "junit", "-o", "-").stdout
    assert "recoverable: n/a" not in junit


# --- different GPUs ------------------------------------------------------------------


def test_different_gpus_are_not_comparable(samples_dir: Path, tmp_path: Path) -> None:
    # The same CUTLASS app on an A100 (base) and a V100 (candidate): slower in
    # time and in cycles, but on another GPU.
    a100 = samples_dir / "wangzy0327__cuda-roofline__src_output_A100.csv"
    v100 = samples_dir / "wangzy0327__cuda-roofline__src_output.csv"
    out = tmp_path / "d.json"
    gate = ("--fail-on", "regression>5%")
    proc = run("compare", str(a100), str(v100), "-o", str(out), *gate)
    assert proc.returncode == 0, proc.stderr
    # The exports name no GPU; the ones inferred from them are named.
    assert (
        "different GPUs: base A100 PCIe 40GB (CC 8.0), candidate Tesla V100 PCIe 16GB (CC 7.0)"
        in (proc.stderr)
    )
    assert "regression gates: not comparable: different GPUs" in proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["comparable"] is False
    assert data["context"]["not_comparable_reason"] == "different GPUs"
    kinds = [d["kind"] for d in data["context"]["differences"]]
    assert kinds[:2] == ["gpu", "clock"]
    matched = [r for r in data["kernels"] if r["match"]]
    assert matched and all(r["status"] == "not comparable" for r in matched)
    assert data["gates"]["tripped"] == []
    proc = run(
        "compare", str(a100), str(v100), "-o", str(out), "--force", "--allow-cross-gpu", *gate
    )
    assert proc.returncode == 3, proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["basis"] == "cycles"  # 0.765 GHz against 1.23 GHz
    # The CUTLASS GEMM's two instantiations (MmaMultistage on the A100,
    # MmaPipelined on the V100) are one group whose implementation changed.
    assert {r["kernel_short"] for r in data["regressions"] if r["match"] == "exact"} == {
        "InitializeMatrix_kernel<__half>",
        "InitializeMatrix_kernel<float>",
    }
    assert [r["match"] for r in data["regressions"]].count("implementation") == 1
    md = run("compare", str(a100), str(v100), "--format", "md", "-o", "-").stdout
    assert md.index("Not comparable: different GPUs") < md.index("InitializeMatrix")


# --- work changes --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cycles", "tripped"),
    [(2.0, False), (2.5, True)],
    ids=["same-efficiency", "worse-efficiency"],
)
def test_work_change_judged_on_efficiency(
    samples_dir: Path, tmp_path: Path, cycles: float, tripped: bool
) -> None:
    base = samples_dir / NBODY
    bigger = tmp_path / "bigger.out"
    scale_work(base, bigger, VELOCITY, 2.0, cycles)
    out = tmp_path / "d.json"
    proc = run("compare", str(base), str(bigger), "-o", str(out), "--fail-on", "regression>5%")
    assert proc.returncode == (3 if tripped else 0), proc.stderr
    data = json.loads(out.read_text())
    v = _velocity(data)
    assert v["work_changed"] is True and v["work_unit"] == "FLOP"
    assert v["delta_work_pct"] == pytest.approx(1.0)
    assert v["delta_pct"] == pytest.approx(cycles - 1)
    assert v["judged_on"] == "time per FLOP"
    assert v["judged_pct"] == pytest.approx(cycles / 2 - 1)
    assert v["candidate_time_per_work"] == pytest.approx(
        v["base_time_per_work"] * cycles / 2  # type: ignore[operator]
    )
    assert v["status"] == ("regression" if tripped else "unchanged")
    messages = [t["message"] for t in data["gates"]["tripped"]]
    if tripped:
        assert any("+25.0% time per FLOP (work change +100.0%)" in m for m in messages)
    # calculate_velocity is nearly all of the FLOPs: the whole profile's work changed.
    assert "the whole profile's work changed" in proc.stderr
    md = run("compare", str(base), str(bigger), "--format", "md", "-o", "-").stdout
    assert "work change +100.0%" in md


# --- thresholds on both sides of each boundary --------------------------------------

NOISE = 0.125  # binary fractions: the boundary is exact
EPS = 2.0**-30


def _pair(base_s: float, cand_s: float, flops: float = 1e8, cand_flops: float | None = None):  # type: ignore[no-untyped-def]
    base = analyse_rows([{**fp32(flops), "dram__bytes.sum": 1e6, "gpu__time_duration.sum": base_s}])
    cand = analyse_rows(
        [
            {
                **fp32(flops if cand_flops is None else cand_flops),
                "dram__bytes.sum": 1e6,
                "gpu__time_duration.sum": cand_s,
            }
        ]
    )
    return base, cand


@pytest.mark.parametrize(
    ("cand_s", "status"),
    [
        (1.125 - EPS, "unchanged"),
        (1.125, "unchanged"),
        (1.125 + EPS, "regression"),
        (0.875 + EPS, "unchanged"),
        (0.875, "unchanged"),
        (0.875 - EPS, "improvement"),
    ],
    ids=["under", "at", "over", "under-faster", "at-faster", "over-faster"],
)
def test_noise_boundary(cand_s: float, status: str) -> None:
    base, cand = _pair(1.0, cand_s)
    (row,) = compare(base, cand, noise=NOISE).kernels.to_dict("records")
    assert row["status"] == status


@pytest.mark.parametrize(
    ("cand_s", "trips"),
    [(1.125 - EPS, False), (1.125, False), (1.125 + EPS, True)],
    ids=["under", "at", "over"],
)
def test_regression_gate_boundary(cand_s: float, trips: bool) -> None:
    base, cand = _pair(1.0, cand_s)
    ctx = comparison_context(compare(base, cand, noise=0.0))
    tripped = evaluate_comparison(parse_gates(["regression>12.5%"], True), ctx, {})  # type: ignore[arg-type]
    # The total and the one group change alike.
    assert [t["kernel"] for t in tripped] == (([None, "k"]) if trips else [])


@pytest.mark.parametrize(
    ("eff", "share", "trips"),
    [
        (0.25 - EPS, 0.5, True),
        (0.25, 0.5, False),
        (0.25 + EPS, 0.5, False),
        (0.1, 0.01 - EPS, False),
        (0.1, 0.01, True),
        (0.1, 0.01 + EPS, True),
    ],
    ids=["eff-under", "eff-at", "eff-over", "share-under", "share-at", "share-over"],
)
def test_efficiency_gate_boundary(eff: float, share: float, trips: bool) -> None:
    kernels = [{"kernel": "k", "kernel_short": "k", "efficiency": eff, "time_share": share}]
    cand = {"kernels": kernels, "findings": []}
    cmp = {"totals": {}, "kernels": [], "added": []}
    tripped = evaluate_comparison(parse_gates(["efficiency<25%"], True), cmp, cand)  # type: ignore[arg-type]
    assert bool(tripped) is trips


@pytest.mark.parametrize(
    ("ratio", "differs"),
    [
        (1.125 - EPS, False),
        (1.125, False),
        (1.125 + EPS, True),
        (0.875, False),
        (0.875 - EPS, True),
    ],
    ids=["under", "at", "over", "at-lower", "over-lower"],
)
def test_clock_noise_boundary(ratio: float, differs: bool) -> None:
    assert beyond(ratio, NOISE) is differs
    assert resolve_basis("auto", beyond(ratio, NOISE), True)[0] == ("cycles" if differs else "time")


@pytest.mark.parametrize(
    ("work", "changed"),
    [(1.125 - EPS, False), (1.125, False), (1.125 + EPS, True)],
    ids=["under", "at", "over"],
)
def test_work_change_boundary(work: float, changed: bool) -> None:
    base, cand = _pair(1.0, 1.0, flops=1e8, cand_flops=1e8 * work)
    (row,) = compare(base, cand, noise=NOISE).kernels.to_dict("records")
    assert row["work_changed"] is changed
    assert row["judged_on"] == ("time per FLOP" if changed else "time")


@pytest.mark.parametrize(
    ("share", "text"),
    [(0.022, "2.2%"), (0.016, "1.6%"), (0.1 - EPS, "10.0%"), (0.1, "10%"), (0.65, "65%")],
)
def test_at_roof_keeps_a_decimal_below_ten_percent(share: float, text: str) -> None:
    assert at_roof(share) == text


def test_no_match_says_so_instead_of_an_empty_table() -> None:
    base = analyse_rows([{**fp32(1e8), "gpu__time_duration.sum": 1e-3}], kernel="old")
    cand = analyse_rows([{**fp32(1e8), "gpu__time_duration.sum": 1e-3}], kernel="new")
    md = render_compare_markdown(comparison_context(compare(base, cand)))
    assert "No kernel group matched between base and candidate" in md
    assert "Every matched kernel group" not in md and "| Kernel |" not in md
