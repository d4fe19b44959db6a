"""Hardware identity from evidence: a clock change is not mistaken for a GPU, nor a GPU for a clock.

Each side's hardware is what its export holds (device name, compute
capability, SM count, DRAM peak) or what the user said (``--gpu``,
``--base-gpu/--candidate-gpu``, ``--same-gpu``); the clocks alone identify
nothing.  Sides whose identity facts differ are different hardware; sides
with no identity fact in common whose SM clocks differ are *undecided*, and
neither is judged (nor gated) unless the user says which it is.

The shared samples hold the N-body program's export from an A100 only
(``Lakoc__Nbody_CUDA__profile_1.out``, 1.09 GHz).  :func:`v100_nbody` writes
the issue's V100 counterpart in ``tmp_path`` from it: the same export with
the SM clock at 1.31 GHz (x1.2) and 1/1.173 of the elapsed cycles, which is
what the issue reported ("+17.3% cycles", 1.31 against 1.09 GHz).  The
wangzy0327 CUTLASS pair (a real V100 and A100) is copied with its ``CC``
column removed, and with an SM count added, by :func:`without_cc`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ncu_roofline.analysis.compare.context import hardware_verdict
from ncu_roofline.analysis.compare.records import HardwareRecord
from tests.helpers import run
from tests.test_compare import read_details, write_details

NBODY = "Lakoc__Nbody_CUDA__profile_1.out"
A100_CUTLASS = "wangzy0327__cuda-roofline__src_output_A100.csv"
V100_CUTLASS = "wangzy0327__cuda-roofline__src_output.csv"
GATE = ("--fail-on", "regression>5%")
SM_COUNT = "device__attribute_multiprocessor_count"


def v100_nbody(src: Path, dst: Path) -> None:
    """The N-body export as the issue's V100 run: SM clock x1.2, elapsed cycles / 1.173."""
    pre, header, rows = read_details(src)
    metric, value = header.index("Metric Name"), header.index("Metric Value")
    for r in rows:
        v = float(r[value].replace(",", ""))
        if r[metric].endswith("cycles_elapsed.avg.per_second"):
            r[value] = repr(v * 1.2)
        elif r[metric] == "sm__cycles_elapsed.avg":
            r[value] = repr(v / 1.173)
    write_details(dst, pre, header, rows)


def with_sm_count(src: Path, dst: Path, sms: int, drop_cc: bool = False) -> None:
    """``src`` with an SM-count metric row per launch (and without its ``CC`` column)."""
    pre, header, rows = read_details(src)
    metric, unit, value = (header.index(c) for c in ("Metric Name", "Metric Unit", "Metric Value"))
    seen: set[str] = set()
    out: list[list[str]] = []
    for r in rows:
        out.append(r)
        if r[0] not in seen:
            seen.add(r[0])
            extra = list(r)
            extra[metric], extra[unit], extra[value] = SM_COUNT, "", str(sms)
            out.append(extra)
    write_details(dst, pre, header, out)
    if drop_cc:
        without_cc(dst, dst)


def without_cc(src: Path, dst: Path) -> None:
    """``src`` with its ``CC`` column removed."""
    pre, header, rows = read_details(src)
    cc = header.index("CC")
    write_details(dst, pre, header[:cc] + header[cc + 1 :], [r[:cc] + r[cc + 1 :] for r in rows])


def _compare(base: Path, cand: Path, out: Path, *args: str) -> tuple[int, str, dict]:  # type: ignore[type-arg]
    proc = run("compare", str(base), str(cand), "-o", str(out), "--force", *GATE, *args)
    return proc.returncode, proc.stderr, json.loads(out.read_text())


@pytest.fixture
def nbody_pair(samples_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    """(V100 N-body, A100 N-body): no device name, CC or SM count on either side."""
    v100 = tmp_path / "v100_nbody.out"
    v100_nbody(samples_dir / NBODY, v100)
    return v100, samples_dir / NBODY


def test_unidentified_pair_with_other_clocks_is_undecided(
    nbody_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    v100, a100 = nbody_pair
    rc, err, data = _compare(v100, a100, tmp_path / "d.json")
    assert rc == 0, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "undecided"
    assert ctx["different_gpus"] is None and ctx["comparable"] is False
    assert data["totals"]["comparable"] is False
    assert ctx["not_comparable_reason"] == "hardware undecided"
    assert "cannot tell a clock change from a different GPU" in ctx["comparable_reason"]
    assert "base 1.31 GHz, candidate 1.09 GHz" in ctx["comparable_reason"]
    for side in ("base", "candidate"):
        hw = ctx[side]["hardware"]
        assert hw["identified"] is False and hw["gpu_how"] == "none"
        assert hw["sm_count"] is None and hw["dram_peak_bytes_s"] is None
    # Cycles still read +17.3%, but nothing is judged and the gate does not trip.
    assert data["totals"]["delta_cycles_pct"] == pytest.approx(0.173)
    assert data["gates"]["tripped"] == [] and data["regressions"] == []
    matched = [r for r in data["kernels"] if r["match"]]
    assert matched and all(r["status"] == "not comparable" for r in matched)
    assert "cannot tell a clock change from a different GPU" in err
    assert "regression gates: not comparable: hardware undecided" in err
    assert "--same-gpu" in err


def test_undecided_pages_lead_with_the_reason(
    nbody_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    v100, a100 = nbody_pair
    md = run("compare", str(v100), str(a100), "--format", "md", "-o", "-").stdout
    verdict = next(line for line in md.splitlines() if line.startswith("**"))
    assert verdict.startswith("**Not comparable: neither export identifies its GPU")
    assert "(not judged)" in verdict and "judged on cycles" not in verdict
    html = run("compare", str(v100), str(a100), "--format", "html", "-o", "-").stdout
    assert '<div class="big">Undecided</div>' in html
    assert '<div class="big">+40.8%</div>' not in html
    text = run("compare", str(v100), str(a100), "-o", str(tmp_path / "d.json")).stderr
    assert "not comparable: hardware undecided; kernel time" in text


def test_same_gpu_restores_the_cycles_judgement(
    nbody_pair: tuple[Path, Path], tmp_path: Path
) -> None:
    v100, a100 = nbody_pair
    rc, err, data = _compare(v100, a100, tmp_path / "d.json", "--same-gpu")
    assert rc == 3, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "same" and ctx["same_gpu"] is True
    assert ctx["comparable"] is True and ctx["different_gpus"] is False
    assert ctx["comparable_reason"] == "comparable: the same GPU, as the user said (--same-gpu)"
    assert data["totals"]["basis"] == "cycles"
    assert [d["kind"] for d in ctx["differences"]] == ["clock"]
    assert "total cycles +17.3% (over 5%)" in err


def test_named_gpus_are_different(nbody_pair: tuple[Path, Path], tmp_path: Path) -> None:
    v100, a100 = nbody_pair
    rc, err, data = _compare(
        v100, a100, tmp_path / "d.json", "--base-gpu", "v100_sxm2_16gb",
        "--candidate-gpu", "a100_40gb_sxm",
    )  # fmt: skip
    assert rc == 0, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "different" and ctx["different_gpus"] is True
    assert ctx["not_comparable_reason"] == "different GPUs"
    assert ctx["base"]["hardware"]["gpu_how"] == "chosen"
    assert "v100_sxm2_16gb vs a100_40gb_sxm" in ctx["comparable_reason"]


def test_same_file_twice_is_comparable(samples_dir: Path, tmp_path: Path) -> None:
    a100 = samples_dir / NBODY
    rc, err, data = _compare(a100, a100, tmp_path / "d.json")
    assert rc == 0, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "unknown" and ctx["comparable"] is True
    assert ctx["different_gpus"] is False and ctx["not_comparable_reason"] is None
    assert ctx["comparable_reason"].startswith("comparable: neither side identifies")
    assert data["totals"]["basis"] == "time" and ctx["differences"] == []


def test_identified_equal_hardware_keeps_the_cycles_basis(
    samples_dir: Path, tmp_path: Path
) -> None:
    # The same SM count on both sides identifies the hardware as equal: a
    # clock change on it is judged on cycles, as before.
    base, slow = tmp_path / "base.out", tmp_path / "v100.out"
    with_sm_count(samples_dir / NBODY, base, 108)
    v100_nbody(base, slow)
    rc, err, data = _compare(slow, base, tmp_path / "d.json")
    assert rc == 3, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "same" and ctx["comparable"] is True
    assert ctx["comparable_reason"] == "comparable: the same hardware: 108 SMs"
    assert data["totals"]["basis"] == "cycles"


def test_cutlass_pair_without_cc_is_undecided(samples_dir: Path, tmp_path: Path) -> None:
    # The real V100/A100 CUTLASS exports name no device; without their CC
    # column nothing identifies either GPU (they hold no SM count or peak).
    a100, v100 = tmp_path / "a100.csv", tmp_path / "v100.csv"
    without_cc(samples_dir / A100_CUTLASS, a100)
    without_cc(samples_dir / V100_CUTLASS, v100)
    rc, err, data = _compare(a100, v100, tmp_path / "d.json")
    assert rc == 0, err
    ctx = data["context"]
    assert ctx["base"]["hardware"]["ccs"] == [] and ctx["candidate"]["hardware"]["ccs"] == []
    assert ctx["hardware_verdict"] == "undecided" and ctx["comparable"] is False
    assert data["gates"]["tripped"] == []
    # With the CC column (the real files) the GPUs differ by CC.
    out = tmp_path / "real.json"
    rc, err, data = _compare(samples_dir / A100_CUTLASS, samples_dir / V100_CUTLASS, out)
    assert rc == 0, err
    assert (
        data["context"]["comparable_reason"] == "not comparable: different hardware: CC 8.0 vs 7.0"
    )


def test_cutlass_pair_without_cc_differs_by_sm_count(samples_dir: Path, tmp_path: Path) -> None:
    a100, v100 = tmp_path / "a100.csv", tmp_path / "v100.csv"
    with_sm_count(samples_dir / A100_CUTLASS, a100, 108, drop_cc=True)
    with_sm_count(samples_dir / V100_CUTLASS, v100, 80, drop_cc=True)
    rc, err, data = _compare(a100, v100, tmp_path / "d.json")
    assert rc == 0, err
    ctx = data["context"]
    assert ctx["hardware_verdict"] == "different" and ctx["different_gpus"] is True
    assert ctx["not_comparable_reason"] == "different hardware"
    assert ctx["comparable_reason"] == "not comparable: different hardware: 108 vs 80 SMs"
    assert ctx["differences"][0]["kind"] == "gpu"
    assert data["gates"]["tripped"] == []
    md = run("compare", str(a100), str(v100), "--format", "md", "-o", "-").stdout
    assert "**Not comparable: different hardware (108 vs 80 SMs)" in md
    # Judged anyway when the user allows it.
    rc, err, data = _compare(a100, v100, tmp_path / "d.json", "--allow-cross-gpu")
    assert rc == 3, err
    assert data["context"]["comparable_reason"].startswith("judged anyway (--allow-cross-gpu)")


def _hw(**facts: object) -> HardwareRecord:
    hw: HardwareRecord = {
        "names": [],
        "gpu": None,
        "gpu_how": "none",
        "ccs": [],
        "sm_count": None,
        "sm_clock_hz": 1e9,
        "memory_clock_hz": None,
        "dram_peak_bytes_s": None,
        "dram_peak_how": None,
        "identified": False,
    }
    hw.update(facts)  # type: ignore[typeddict-item]
    return hw


@pytest.mark.parametrize(
    ("base", "cand", "clocks_differ", "verdict"),
    [
        (_hw(dram_peak_bytes_s=1.555e12), _hw(dram_peak_bytes_s=0.9e12), False, "different"),
        (_hw(dram_peak_bytes_s=1.555e12), _hw(dram_peak_bytes_s=1.5e12), True, "same"),
        (_hw(sm_count=108), _hw(), True, "undecided"),
        (_hw(sm_count=108), _hw(), False, "unknown"),
        (_hw(ccs=["8.0"], sm_count=108), _hw(ccs=["8.0"], sm_count=80), False, "different"),
    ],
    ids=["dram-peak-differs", "dram-peak-within-10%", "one-side-only", "clocks-agree", "sms"],
)
def test_hardware_verdict(
    base: HardwareRecord, cand: HardwareRecord, clocks_differ: bool, verdict: str
) -> None:
    assert hardware_verdict(base, cand, clocks_differ)[0] == verdict
