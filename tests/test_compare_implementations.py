"""Compare: a removed and a new group that are one template's two instantiations.

``Kernel<Gemm<MmaPipelined<…>>>`` on the V100 and ``Kernel<Gemm<MmaMultistage<…>>>``
on the A100, same grid, block and launches: one group whose implementation
changed, judged like a matched group, not a removal and an addition.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.compare import MATCH_IMPLEMENTATION, compare
from ncu_roofline.core.names import without_template_args
from ncu_roofline.render.compare_report import html_rows, render_compare_markdown
from ncu_roofline.render.junit_report import comparison_suite
from ncu_roofline.report.compare import comparison_context
from ncu_roofline.report.context import build_context
from ncu_roofline.report.gates import evaluate_comparison, parse_gates
from tests.helpers import analyse_rows, fp32, run

V100 = "wangzy0327__cuda-roofline__src_output.csv"
A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
GEMM_GRID = "(160, 160, 1)"

ROW = {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3}
SLOW = {**ROW, "gpu__time_duration.sum": 2e-3}


@cache
def _analysis(path: str) -> Analysis:
    return analyze(load([path]))


@pytest.fixture
def sides(samples_dir: Path) -> tuple[Analysis, Analysis]:
    return _analysis(str(samples_dir / V100)), _analysis(str(samples_dir / A100))


def test_stem_drops_every_template_argument_list() -> None:
    assert without_template_args("void ns::K<A<1>, B>(ns::P<A<1>>::Params)") == (
        "void ns::K(ns::P::Params)"
    )
    assert without_template_args("plain_kernel") == "plain_kernel"
    assert without_template_args("f<a>>g") == "f>g"  # a stray closer stays


def test_cutlass_gemm_pair_is_one_implementation_change(
    sides: tuple[Analysis, Analysis],
) -> None:
    cmp = compare(*sides, allow_cross_gpu=True)
    k = cmp.kernels
    (r,) = k[k["match"] == MATCH_IMPLEMENTATION].to_dict("records")
    assert "MmaPipelined" in r["base_kernel"] and "MmaPipelined" not in r["candidate_kernel"]
    assert "MmaMultistage" in r["candidate_kernel"] and r["kernel"] == r["candidate_kernel"]
    assert r["base_grid"] == r["candidate_grid"] == GEMM_GRID
    assert r["base_launches"] == r["candidate_launches"] == 6
    assert "MmaPipelined" in r["kernel_short"] and "MmaMultistage" in r["kernel_short"]
    assert " → " in r["kernel_short"]
    # Judged like a matched group: its change, its status, its judged measure.
    assert r["status"] == "improvement" and r["judged_on"] == "cycles per byte"
    assert r["delta_s"] == pytest.approx(
        r["candidate_total_duration_s"] - r["base_total_duration_s"]
    )
    assert r["delta_pct"] == pytest.approx(r["delta_s"] / r["base_total_duration_s"])
    t = cmp.totals
    assert (t["matched"], t["matched_implementation"], t["added"], t["removed"]) == (3, 1, 1, 1)
    # The other CUTLASS kernel (another grid) and the cuBLAS one stay removed and new.
    gone = k[k["status"].isin(["added", "removed"])]
    assert not gone["kernel"].str.contains("MmaPipelined|MmaMultistage").any()
    # The rows' time changes still add up to the total's.
    assert k["delta_s"].sum() == pytest.approx(t["delta_s"])


def test_pairing_off_leaves_removed_and_new(sides: tuple[Analysis, Analysis]) -> None:
    cmp = compare(*sides, allow_cross_gpu=True, pair_implementations=False)
    k = cmp.kernels
    assert MATCH_IMPLEMENTATION not in set(k["match"])
    gemm = k[k["kernel"].str.contains("MmaPipelined|MmaMultistage")]
    assert sorted(gemm["status"]) == ["added", "removed"]
    assert cmp.totals["matched_implementation"] == 0
    assert (cmp.totals["added"], cmp.totals["removed"]) == (2, 2)


def test_every_output_shows_both_names(sides: tuple[Analysis, Analysis]) -> None:
    cmp = compare(*sides, allow_cross_gpu=True)
    ctx = comparison_context(cmp)
    (r,) = [r for r in ctx["kernels"] if r["match"] == "implementation"]
    md = render_compare_markdown(ctx)
    assert "**Implementation changed**" in md and md.count(str(r["kernel_short"])) >= 2
    (row,) = [h for h in html_rows(ctx["kernels"]) if h["match"] and "template" in h["match"]]
    assert row["full"] == f"{r['base_kernel']} → {r['candidate_kernel']}"
    suite = comparison_suite(ctx, build_context(cmp.candidate))
    (case,) = [c for c in suite["cases"] if c["kernel_short"] == r["kernel_short"]]
    assert "implementation changed" in str(case["bound_reason"])


def test_regression_gate_trips_on_an_implementation_change() -> None:
    base = analyse_rows([ROW, ROW], kernel="void k<Old>(P)", grid="(4, 1, 1)")
    cand = analyse_rows([SLOW, SLOW], kernel="void k<New>(P)", grid="(4, 1, 1)")
    ctx = comparison_context(compare(base, cand))
    (r,) = ctx["kernels"]
    assert (r["match"], r["status"]) == ("implementation", "regression")
    assert r["base_kernel"] == "void k<Old>(P)" and r["candidate_kernel"] == "void k<New>(P)"
    report = build_context(cand)
    tripped = evaluate_comparison(parse_gates(["regression>5%"], True), ctx, report)
    assert [g["kernel"] for g in tripped] == [None, "void k<New>(P)"]  # the total, the group
    assert "k<Old> → k<New>" in tripped[1]["message"]
    # A new-kernel gate sees no new kernel: the group was paired.
    assert not evaluate_comparison(parse_gates(["new-kernel"], True), ctx, report)


@pytest.mark.parametrize(
    ("base_names", "cand_names", "cand_launches"),
    [
        # Two removed instantiations, one new: which one it replaced is unknown.
        (["k<A>", "k<B>"], ["k<C>"], 1),
        # One removed, two new.
        (["k<A>"], ["k<B>", "k<C>"], 1),
        # Names that differ outside the template arguments.
        (["k<A>"], ["k2<B>"], 1),
        (["ns1::k<A>"], ["ns2::k<B>"], 1),
        # Another launch count.
        (["k<A>"], ["k<B>"], 2),
    ],
    ids=["two-removed", "two-new", "other-name", "other-scope", "other-launches"],
)
def test_not_paired(base_names: list[str], cand_names: list[str], cand_launches: int) -> None:
    # Every group has the default grid and block; each base name is launched once.
    base = analyse_rows([ROW] * len(base_names), kernel=base_names)
    cand_rows = [name for name in cand_names for _ in range(cand_launches)]
    cand = analyse_rows([ROW] * len(cand_rows), kernel=cand_rows)
    k = compare(base, cand).kernels
    assert MATCH_IMPLEMENTATION not in set(k["match"])
    assert sorted(k["status"]) == sorted(
        ["removed"] * len(base_names) + ["added"] * len(cand_names)
    )


def test_other_grid_not_paired() -> None:
    base = analyse_rows([ROW], kernel="k<A>", grid="(1, 1, 1)")
    cand = analyse_rows([ROW], kernel="k<B>", grid="(2, 1, 1)")
    assert set(compare(base, cand).kernels["status"]) == {"added", "removed"}


def test_cli_option_turns_pairing_off(samples_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "d.json"
    args = ("compare", str(samples_dir / V100), str(samples_dir / A100), "--allow-cross-gpu")
    proc = run(*args, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "implementation changed (names differ only in template arguments)" in proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["matched_implementation"] == 1
    (r,) = [r for r in data["kernels"] if r["match"] == "implementation"]
    assert r["base_kernel"] != r["candidate_kernel"]
    proc = run(*args, "-o", str(out), "--force", "--no-pair-implementations")
    assert proc.returncode == 0, proc.stderr
    assert "implementation changed" not in proc.stderr
    data = json.loads(out.read_text())
    assert data["totals"]["matched_implementation"] == 0
    assert (len(data["added"]), len(data["removed"])) == (2, 2)
    # A setting turns it off too; the command line wins over it.
    config = tmp_path / "roofline.toml"
    config.write_text("[tool.ncu-roofline]\npair-implementations = false\n")
    proc = run(*args, "-o", str(out), "--force", "--config", str(config))
    assert json.loads(out.read_text())["totals"]["matched_implementation"] == 0, proc.stderr
    proc = run(*args, "-o", str(out), "--force", "--config", str(config), "--pair-implementations")
    assert json.loads(out.read_text())["totals"]["matched_implementation"] == 1, proc.stderr
