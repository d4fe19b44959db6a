"""Profile comparison: matching, deltas, statuses, ranking, totals, context and figures.

The main candidate is the shipped sample rewritten in ``tmp_path`` with the
csv module: some kernels' ``gpu__time_duration.sum`` scaled, one kernel
dropped, one renamed, one launched with another grid, and the launches in
reverse order under new IDs.  Expected deltas are summed from the CSV
values themselves, not from the analysis.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis import Analysis
from ncu_roofline.analysis.compare import COMPARISON_FIELDS, Comparison, compare
from ncu_roofline.render.charts import MIN_ARROW_DECADES, STATUS_COLOURS, comparison_figures
from ncu_roofline.report.compare import comparison_context
from ncu_roofline.report.context import build_context
from tests.helpers import SAMPLE, XSS, analyse_rows, assert_plain, check_figure, fp32, hover_escaped

#: ncu's duration metric in a details export: the raw metric name when
#: collected with --metrics, the section label "Duration" otherwise.
DURATION = {"gpu__time_duration.sum", "Duration"}
NS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3}

# Full-name fragments of the sample's kernels (``rms_norm_kernel<`` alone
# would also hit ``fused_add_rms_norm_kernel<``).
FLASH = "flash::flash_fwd_splitkv_kernel<"
RMS = "vllm::rms_norm_kernel<"
ELEMENTWISE = "at::native::elementwise_kernel<"
GEMV = "gemvx::kernel<"
GEMV_GRID = "(32064, 1, 1)"
REDUCE = "at::native::reduce_kernel<"
ROTARY = "vllm::rotary_embedding_kernel<"
ROTARY_V2 = "vllm::rotary_embedding_kernel_v2<"
ACT = "vllm::act_and_mul_kernel<"

#: Duration factors of the candidate, by (name fragment, grid or None).
SCALE: dict[tuple[str, str | None], float] = {
    (FLASH, None): 1.5,
    (RMS, None): 0.8,
    (GEMV, GEMV_GRID): 1.2,
    (ELEMENTWISE, None): 0.9,
}


# --- the sample as CSV rows ----------------------------------------------------------


def read_details(path: Path) -> tuple[str, list[str], list[list[str]]]:
    """(text before the header, header, rows) of a details-page CSV export."""
    text = path.read_text()
    at = text.index('"ID",')
    rows = list(csv.reader(io.StringIO(text[at:])))
    return text[:at], rows[0], rows[1:]


def write_details(path: Path, preamble: str, header: list[str], rows: list[list[str]]) -> None:
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(preamble + out.getvalue())


class Columns:
    """Column positions of a details header."""

    def __init__(self, header: list[str]) -> None:
        self.id = header.index("ID")
        self.kernel = header.index("Kernel Name")
        self.grid = header.index("Grid Size")
        self.metric = header.index("Metric Name")
        self.unit = header.index("Metric Unit")
        self.value = header.index("Metric Value")


def durations(path: Path, where: Callable[[list[str], Columns], bool]) -> float:
    """Total duration in seconds of the launches whose rows satisfy ``where``."""
    _, header, rows = read_details(path)
    c = Columns(header)
    total = 0.0
    for r in rows:
        if r[c.metric] in DURATION and where(r, c):
            total += float(r[c.value]) * NS[r[c.unit]]
    return total


def named(fragment: str, grid: str | None = None) -> Callable[[list[str], Columns], bool]:
    return lambda r, c: fragment in r[c.kernel] and (grid is None or r[c.grid] == grid)


def everything(r: list[str], c: Columns) -> bool:
    return True


def make_candidate(tmp_path: Path) -> Path:
    """The sample with scaled durations, a dropped, a renamed and a re-gridded kernel, reordered."""
    preamble, header, rows = read_details(SAMPLE)
    c = Columns(header)
    assert {r[c.metric] for r in rows} & DURATION, "sample has no duration rows"
    out: list[list[str]] = []
    for r in rows:
        r = list(r)
        name = r[c.kernel]
        if REDUCE in name:
            continue  # removed
        if r[c.metric] in DURATION:
            for (fragment, grid), factor in SCALE.items():
                if fragment in name and (grid is None or r[c.grid] == grid):
                    r[c.value] = repr(float(r[c.value]) * factor)
        if ROTARY in name:
            r[c.kernel] = name.replace(ROTARY, ROTARY_V2)  # removed + added
        if ACT in name:
            r[c.grid] = "(2, 1, 1)"  # matched by name only
        out.append(r)
    # Launches in reverse order, renumbered from 0 in the new order.
    order = list(dict.fromkeys(r[c.id] for r in out))[::-1]
    blocks: dict[str, list[list[str]]] = {i: [] for i in order}
    for r in out:
        blocks[r[c.id]].append(r)
    reordered = []
    for new_id, old_id in enumerate(order):
        for r in blocks[old_id]:
            r[c.id] = str(new_id)
            reordered.append(r)
    path = tmp_path / "candidate.details.csv"
    write_details(path, preamble, header, reordered)
    return path


@cache
def _base() -> Analysis:
    return analyze(load([str(SAMPLE)]))


@pytest.fixture
def candidate_csv(tmp_path: Path) -> Path:
    return make_candidate(tmp_path)


@pytest.fixture
def sample_cmp(candidate_csv: Path) -> Comparison:
    return compare(_base(), analyze(load([str(candidate_csv)])))


def row(cmp: Comparison, fragment: str, grid: str | None = None) -> pd.Series:
    k = cmp.kernels
    hit = k["kernel"].str.contains(fragment, regex=False)
    if grid is not None:
        hit &= (k["candidate_grid"] == grid) | (k["base_grid"] == grid)
    found = k[hit]
    assert len(found) == 1, list(found["kernel_short"])
    first: pd.Series = found.iloc[0]
    return first


# --- the sample and its rewritten candidate --------------------------------------------


def test_candidate_rewrite_is_read_back(candidate_csv: Path) -> None:
    cand = analyze(load([str(candidate_csv)]))
    # 44 launches less the one reduce_kernel launch; act_and_mul under its new grid.
    assert int(cand.kernels["launches"].sum()) == 43
    assert not cand.kernels["kernel"].str.contains(REDUCE, regex=False).any()
    act = cand.kernels[cand.kernels["kernel"].str.contains(ACT, regex=False)]
    assert list(act["grid"]) == ["(2, 1, 1)"]
    # Reordered: the sample's last launch (the GEMM) comes first now.
    assert "sm90_xmma_gemm" in str(cand.launches["kernel"].iloc[0])


@pytest.mark.parametrize(("fragment", "grid"), list(SCALE))
def test_scaled_kernels_deltas_by_hand(
    sample_cmp: Comparison, candidate_csv: Path, fragment: str, grid: str | None
) -> None:
    factor = SCALE[(fragment, grid)]
    before = durations(SAMPLE, named(fragment, grid))
    after = durations(candidate_csv, named(fragment, grid))
    assert after == pytest.approx(before * factor, rel=1e-12)
    r = row(sample_cmp, fragment, grid)
    assert r["match"] == "exact"
    assert r["base_total_duration_s"] == pytest.approx(before, rel=1e-12)
    assert r["candidate_total_duration_s"] == pytest.approx(after, rel=1e-12)
    assert r["delta_s"] == pytest.approx(after - before, rel=1e-9)
    assert r["delta_pct"] == pytest.approx(factor - 1, rel=1e-9)
    n = int(r["base_launches"])
    assert int(r["candidate_launches"]) == n and r["delta_launches"] == 0
    assert r["delta_duration_s"] == pytest.approx((after - before) / n, rel=1e-9)
    assert r["delta_duration_pct"] == pytest.approx(factor - 1, rel=1e-9)
    # Same FLOPs and bytes in less or more time: intensity stays, FLOP/s scale by 1/factor.
    assert r["candidate_ai_dram"] == pytest.approx(r["base_ai_dram"], rel=1e-12)
    if r["base_achieved_flops_per_s"] > 0:
        assert r["candidate_achieved_flops_per_s"] == pytest.approx(
            r["base_achieved_flops_per_s"] / factor, rel=1e-9
        )
    assert r["status"] == ("regression" if factor > 1 else "improvement")
    assert r["delta_efficiency"] == pytest.approx(
        r["candidate_efficiency"] - r["base_efficiency"], rel=1e-12
    )


def test_untouched_kernels_unchanged(sample_cmp: Comparison) -> None:
    k = sample_cmp.kernels
    touched = k["status"].isin(["regression", "improvement", "added", "removed"])
    rest = k[~touched]
    assert len(rest) == 13 - 4 - 2  # the sample's groups less scaled and removed ones
    assert set(rest["status"]) == {"unchanged"}
    assert (rest["delta_s"].abs() < 1e-15).all()
    assert not rest["bound_changed"].any()


def test_ranking_by_absolute_delta(sample_cmp: Comparison) -> None:
    k = sample_cmp.kernels
    assert list(k["rank"]) == list(range(1, len(k) + 1))
    sizes = k["delta_s"].abs().tolist()
    assert sizes == sorted(sizes, reverse=True)
    ctx = comparison_context(sample_cmp)
    # GEMV +20% of 343 us beats flash +50% of 73 us; elementwise -10% of 136 us beats rms -20% of 10 us.
    assert [GEMV in r["kernel"] for r in ctx["regressions"]] == [True, False]
    assert FLASH in ctx["regressions"][1]["kernel"]
    assert [ELEMENTWISE in r["kernel"] for r in ctx["improvements"]] == [True, False]
    assert RMS in ctx["improvements"][1]["kernel"]
    for name in ("regressions", "improvements", "added", "removed"):
        d = [abs(r["delta_s"]) for r in ctx[name]]
        assert d == sorted(d, reverse=True), name


def test_added_and_removed(sample_cmp: Comparison, candidate_csv: Path) -> None:
    ctx = comparison_context(sample_cmp)
    (added,) = ctx["added"]
    assert ROTARY_V2 in added["kernel"] and added["match"] is None
    assert added["base_launches"] is None and added["candidate_launches"] == 4
    assert added["delta_s"] == pytest.approx(durations(candidate_csv, named(ROTARY_V2)), rel=1e-12)
    assert added["delta_pct"] is None and added["bound_changed"] is None
    removed = ctx["removed"]
    # rotary (4 launches, ~10 us) before reduce (1 launch, ~4 us).
    assert [ROTARY in r["kernel"] for r in removed] == [True, False]
    assert REDUCE in removed[1]["kernel"]
    for r in removed:
        fragment = ROTARY if ROTARY in r["kernel"] else REDUCE
        assert r["delta_s"] == pytest.approx(-durations(SAMPLE, named(fragment)), rel=1e-12)
        assert r["delta_pct"] == -1.0
        assert r["candidate_total_duration_s"] is None and r["candidate_launches"] is None
        assert r["delta_launches"] == -r["base_launches"]


def test_name_only_fallback(sample_cmp: Comparison) -> None:
    r = row(sample_cmp, ACT)
    assert r["match"] == "name only"
    assert (r["base_grid"], r["candidate_grid"]) == ("(1, 1, 1)", "(2, 1, 1)")
    assert r["base_block"] == r["candidate_block"] == "(1024, 1, 1)"
    assert r["status"] == "unchanged" and r["delta_s"] == pytest.approx(0.0, abs=1e-15)


def test_totals(sample_cmp: Comparison, candidate_csv: Path) -> None:
    t = sample_cmp.totals
    base_t = durations(SAMPLE, everything)
    cand_t = durations(candidate_csv, everything)
    assert t["base_total_duration_s"] == pytest.approx(base_t, rel=1e-12)
    assert t["candidate_total_duration_s"] == pytest.approx(cand_t, rel=1e-12)
    assert t["delta_s"] == pytest.approx(cand_t - base_t, rel=1e-9)
    assert t["delta_pct"] == pytest.approx((cand_t - base_t) / base_t, rel=1e-9)
    assert (t["base_launches"], t["candidate_launches"], t["delta_launches"]) == (44, 43, -1)
    assert (t["base_groups"], t["candidate_groups"]) == (13, 12)
    assert (t["matched"], t["matched_name_only"], t["added"], t["removed"]) == (11, 1, 1, 2)
    assert (t["regressions"], t["improvements"], t["unchanged"]) == (2, 2, 7)
    assert t["not_comparable"] == 0 and t["noise"] == 0.02
    # The rows' deltas add up to the total change.
    assert float(sample_cmp.kernels["delta_s"].sum()) == pytest.approx(t["delta_s"], rel=1e-9)
    assert t["matched_delta_s"] + t["added_s"] - t["removed_s"] == pytest.approx(
        t["delta_s"], rel=1e-9
    )
    json.dumps(t, allow_nan=False)


def test_swapped_sides_mirror(sample_cmp: Comparison) -> None:
    back = compare(sample_cmp.candidate, sample_cmp.base)
    assert back.totals["delta_s"] == pytest.approx(-sample_cmp.totals["delta_s"], rel=1e-9)
    assert (back.totals["added"], back.totals["removed"]) == (2, 1)
    fwd = row(sample_cmp, FLASH)
    rev = row(back, FLASH)
    assert rev["delta_s"] == pytest.approx(-fwd["delta_s"], rel=1e-9)
    assert rev["status"] == "improvement"


def test_identical_profiles_compare_unchanged() -> None:
    cmp = compare(_base(), _base())
    assert set(cmp.kernels["status"]) == {"unchanged"}
    assert set(cmp.kernels["match"]) == {"exact"}
    assert (cmp.kernels["delta_s"] == 0).all()
    # Per-side figures are the groups' own.
    k = _base().kernels.set_index(["kernel", "grid", "block"])
    c = cmp.kernels.set_index(["kernel", "base_grid", "base_block"]).reindex(k.index)
    for col in ("total_duration_s", "duration_s", "ai_dram", "achieved_flops_per_s", "efficiency"):
        assert (c[f"base_{col}"] == k[col]).all(), col
    assert (c["base_bound"] == k["bound"]).all()


def test_comparison_context_is_plain_json(sample_cmp: Comparison) -> None:
    ctx = comparison_context(sample_cmp)
    text = json.dumps(ctx, allow_nan=False)
    assert "NaN" not in text and "Infinity" not in text
    assert_plain(ctx, "context")
    assert ctx["schema_version"] == "1.0" and ctx["kind"] == "comparison"
    assert ctx["options"] == {"noise": 0.02}
    for side in ("base", "candidate"):
        assert set(ctx[side]) >= {"inputs", "summary"}
    assert ctx["base"]["summary"]["launches"] == 44
    assert ctx["candidate"]["inputs"][0]["path"].endswith("candidate.details.csv")
    assert ctx["totals"] == sample_cmp.totals
    assert len(ctx["kernels"]) == 14
    assert all(list(r) == list(COMPARISON_FIELDS) for r in ctx["kernels"])
    by_status = {s: [r for r in ctx["kernels"] if r["status"] == s] for s in ("added", "removed")}
    assert ctx["added"] == by_status["added"] and ctx["removed"] == by_status["removed"]
    # Missing values are None; ints stay ints.
    assert all(type(r["rank"]) is int for r in ctx["kernels"])
    elementwise = next(r for r in ctx["kernels"] if ELEMENTWISE in r["kernel"])
    assert elementwise["base_flops"] == 0.0  # a copy: known zero, not missing


def test_sample_comparison_figure(sample_cmp: Comparison) -> None:
    ctx = comparison_context(sample_cmp)
    base_ctx = build_context(sample_cmp.base)
    cand_ctx = build_context(sample_cmp.candidate)
    figures = comparison_figures(ctx, base_ctx, cand_ctx)
    assert len(figures) == 1
    entry = figures[0]
    check_figure(entry)
    assert entry["id"] == "comparison-0"
    assert entry["title"].startswith("Roofline comparison: ")
    assert entry["launches_plotted"] == 0
    fig = entry["figure"]
    assert "updatemenus" not in fig["layout"]
    # Both sides' ceilings, named by side and GPU; the base's dashed.
    cand_roofs = [t for t in fig["data"] if t.get("legendgroup") == "candidate memory roofs"]
    base_roofs = [t for t in fig["data"] if t.get("legendgroup") == "base memory roofs"]
    assert len(cand_roofs) == 1 == len(base_roofs)
    assert cand_roofs[0]["line"]["dash"] == "solid" and base_roofs[0]["line"]["dash"] == "dash"
    assert base_roofs[0]["name"].startswith("base: DRAM ")
    # The sample names no GPU, only its compute capability.
    assert base_roofs[0]["legendgrouptitle"]["text"] == "base roofs (CC 9.0)"
    assert fig["layout"]["meta"]["base_ceilings"] >= 2

    def ok(v: Any) -> bool:
        return v is not None and math.isfinite(v) and v > 0

    def point(r: dict[str, Any], side: str) -> tuple[float, float] | None:
        x, y = r[f"{side}_ai_dram"], r[f"{side}_achieved_flops_per_s"]
        if r[f"{side}_bound"] in {"memory", "compute", "latency"} and ok(x) and ok(y):
            return math.log10(x), math.log10(y)
        return None

    moved = {}
    for r in ctx["kernels"]:
        b, c = point(r, "base"), point(r, "candidate")
        if r["match"] and b and c and math.hypot(c[0] - b[0], c[1] - b[1]) >= MIN_ARROW_DECADES:
            moved[r["kernel_short"]] = (b, c, r["status"])
    # gemv, flash and rms moved; elementwise (no FLOPs: intensity 0) has no point.
    assert len(moved) == 3
    arrows = fig["layout"]["annotations"]
    assert len(arrows) == len(moved) == fig["layout"]["meta"]["arrows"]
    for a in arrows:
        assert (a["axref"], a["ayref"], a["xref"], a["yref"]) == ("x", "y", "x", "y")
        match = [
            v
            for v in moved.values()
            if v[0] == pytest.approx((a["ax"], a["ay"])) and v[1] == pytest.approx((a["x"], a["y"]))
        ]
        assert len(match) == 1
        assert a["arrowcolor"] == STATUS_COLOURS[match[0][2]]
    # Arrow heads and tails lie inside the axes.
    x_lo, x_hi = fig["layout"]["xaxis"]["range"]
    y_lo, y_hi = fig["layout"]["yaxis"]["range"]
    for a in arrows:
        assert x_lo < min(a["x"], a["ax"]) and max(a["x"], a["ax"]) < x_hi
        assert y_lo < min(a["y"], a["ay"]) and max(a["y"], a["ay"]) < y_hi

    names = {t["name"].split(" (")[0]: t for t in fig["data"] if "customdata" in t}
    assert set(names) >= {"base position", "removed", "regression", "improvement", "added"}
    assert names["regression"]["marker"]["color"] == STATUS_COLOURS["regression"]
    assert names["improvement"]["marker"]["color"] == STATUS_COLOURS["improvement"]
    assert names["base position"]["marker"]["symbol"] == "circle-open"
    assert len(names["regression"]["x"]) == 2 and len(names["added"]["x"]) == 1
    # One candidate marker per plotted group; elementwise is listed as not plotted.
    cand_markers = sum(len(t["x"]) for t in fig["data"] if t.get("legendgroup") == "candidate")
    removed_markers = len(names["removed"]["x"])
    assert entry["groups_plotted"] == cand_markers + removed_markers
    assert [n["kernel_short"] for n in entry["not_plotted"]] == ["elementwise_kernel"]
    hover = " ".join(cd[3] for cd in names["regression"]["customdata"])
    assert "+50.0%" in hover and "+20.0%" in hover


# --- synthetic profiles ------------------------------------------------------------------------


ROW_A = {**fp32(1e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3}
ROW_B = {**fp32(2e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 3e-3}


def test_several_inputs_aggregate_before_matching() -> None:
    # Base: kernel k in a.csv (2 launches like ROW_A) and b.csv (1 launch ROW_B).
    base = analyse_rows([ROW_A, ROW_A, ROW_B], source=["a.csv", "a.csv", "b.csv"])
    assert len(base.kernels) == 2
    cand = analyse_rows([ROW_A, ROW_A], source="c.csv")
    cmp = compare(base, cand)
    (r,) = cmp.kernels.to_dict("records")
    assert r["match"] == "exact" and r["base_groups"] == 2 and r["candidate_groups"] == 1
    assert r["base_launches"] == 3 and r["candidate_launches"] == 2
    assert r["base_total_duration_s"] == pytest.approx(5e-3)
    assert r["base_duration_s"] == pytest.approx(5e-3 / 3)
    assert r["base_flops"] == pytest.approx(4e8) and r["base_dram_bytes"] == pytest.approx(6e7)
    assert r["base_ai_dram"] == pytest.approx(4e8 / 6e7)
    assert r["base_achieved_flops_per_s"] == pytest.approx(4e8 / 5e-3)
    # Time-weighted efficiency: a at 1e11 of 5e11 (0.2) for 2 ms, b at 6.67e10 of 1e12 for 3 ms.
    assert r["base_efficiency"] == pytest.approx((0.2 * 2e-3 + (2e8 / 3e-3 / 1e12) * 3e-3) / 5e-3)
    assert r["delta_s"] == pytest.approx(-3e-3)
    assert r["delta_pct"] == pytest.approx(-0.6)
    assert r["delta_duration_s"] == pytest.approx(1e-3 - 5e-3 / 3)
    assert r["delta_duration_pct"] == pytest.approx(-0.4)
    assert r["delta_launches"] == -1
    assert r["status"] == "improvement"


def test_name_only_needs_one_unmatched_group_per_side() -> None:
    grids = ["(1, 1, 1)", "(2, 1, 1)", "(8, 1, 1)"]
    base = analyse_rows([ROW_A] * 3, kernel=["k", "k", "j"], grid=grids)
    # Both "k" groups change grid: two unmatched of that name on each side.
    cand = analyse_rows(
        [ROW_A] * 3, kernel=["k", "k", "j"], grid=["(3, 1, 1)", "(4, 1, 1)", "(9, 1, 1)"]
    )
    t = compare(base, cand).totals
    assert (t["matched"], t["matched_name_only"], t["added"], t["removed"]) == (1, 1, 2, 2)
    k = compare(base, cand).kernels
    (j,) = k[k["kernel"] == "j"].to_dict("records")
    assert j["match"] == "name only" and j["candidate_grid"] == "(9, 1, 1)"


def test_noise_threshold() -> None:
    base = analyse_rows([ROW_A], kernel="k")
    slower = analyse_rows([{**ROW_A, "gpu__time_duration.sum": 1.01e-3}], kernel="k")
    assert compare(base, slower).kernels["status"].item() == "unchanged"
    assert compare(base, slower, noise=0.005).kernels["status"].item() == "regression"
    assert compare(slower, base, noise=0.005).kernels["status"].item() == "improvement"
    with pytest.raises(ValueError, match="noise"):
        compare(base, slower, noise=-0.1)
    with pytest.raises(ValueError, match="noise"):
        compare(base, slower, noise=math.nan)


def test_untimed_group_is_not_comparable() -> None:
    base = analyse_rows([ROW_A], kernel="k")
    untimed = {k: v for k, v in ROW_A.items() if k != "gpu__time_duration.sum"}
    cand = analyse_rows([untimed], kernel="k")
    cmp = compare(base, cand)
    assert cmp.kernels["status"].item() == "not comparable"
    ctx = comparison_context(cmp)
    json.dumps(ctx, allow_nan=False)
    (r,) = ctx["kernels"]
    assert r["delta_s"] is None and r["candidate_total_duration_s"] is None
    assert ctx["totals"]["candidate_total_duration_s"] is None
    assert ctx["totals"]["delta_s"] is None


def test_empty_sides() -> None:
    base = analyse_rows([ROW_A], kernel="k")
    empty = analyse_rows([], kernel="k")
    cmp = compare(base, empty)
    assert list(cmp.kernels["status"]) == ["removed"]
    assert compare(empty, empty).kernels.empty
    json.dumps(comparison_context(compare(empty, base)), allow_nan=False)


def test_synthetic_figure_one_arrow_per_matched_plottable_group() -> None:
    names = [XSS, "k<float, 4>", "gone", "same & grid"]
    base_rows = [
        ROW_A,  # ai 5, 1e11 FLOP/s
        ROW_B,  # ai 10, 6.67e10 FLOP/s
        ROW_A,
        ROW_A,
    ]
    cand_rows = [
        # Twice the FLOPs in the same time and bytes: ai 10, 2e11 FLOP/s.
        {**fp32(2e8), "dram__bytes.sum": 2e7, "gpu__time_duration.sum": 1e-3},
        {**ROW_B, "gpu__time_duration.sum": 1.5e-3},  # twice as fast
        ROW_A,  # a new kernel "new" takes this one's place
        {**ROW_A, "gpu__time_duration.sum": 2e-3},  # half the FLOP/s, new grid
    ]
    base = analyse_rows(base_rows, kernel=names)
    cand = analyse_rows(
        cand_rows,
        kernel=[XSS, "k<float, 4>", "new", "same & grid"],
        grid=["(1, 1, 1)", "(1, 1, 1)", "(1, 1, 1)", "(5, 1, 1)"],
    )
    cmp = compare(base, cand)
    ctx = comparison_context(cmp)
    statuses = {r["status"] for r in ctx["kernels"]}
    assert statuses == {"regression", "improvement", "added", "removed"}
    (entry,) = comparison_figures(ctx, build_context(base), build_context(cand))
    check_figure(entry)
    layout = entry["figure"]["layout"]
    arrows = layout["annotations"]
    assert len(arrows) == 3 == ctx["totals"]["matched"]
    short = {r["kernel"]: hover_escaped(r["kernel_short"]) for r in ctx["kernels"]}
    by_text = {a["hovertext"].split(": ")[0]: a for a in arrows}
    assert set(by_text) == {short[XSS], short["k<float, 4>"], short["same & grid"]}
    xss = by_text[short[XSS]]
    assert (xss["ax"], xss["ay"]) == pytest.approx((math.log10(5), 11.0))
    assert (xss["x"], xss["y"]) == pytest.approx((1.0, math.log10(2e11)))
    # Same time, twice the work: delta 0 s, but a work change judged on time
    # per FLOP, which halved.
    assert xss["arrowcolor"] == STATUS_COLOURS["improvement"]
    k = by_text[short["k<float, 4>"]]
    assert (k["ax"], k["x"]) == pytest.approx((1.0, 1.0))
    assert k["y"] - k["ay"] == pytest.approx(math.log10(2))
    assert k["arrowcolor"] == STATUS_COLOURS["improvement"]
    grid = by_text[short["same & grid"]]
    assert grid["y"] - grid["ay"] == pytest.approx(-math.log10(2))
    assert grid["arrowcolor"] == STATUS_COLOURS["regression"]
    assert layout["meta"]["groups_plotted"] == 5 == entry["groups_plotted"]
    hover = json.dumps(entry["figure"])
    assert XSS not in hover
    assert "matched by name only" in hover


def test_figure_for_each_candidate_device_and_unplaceable_rows() -> None:
    rows = [ROW_A, ROW_A, {**fp32(1e8), "gpu__time_duration.sum": 1e-3}]
    base = analyse_rows(rows, kernel=["a", "b", "nobytes"])
    cand = analyse_rows(
        [{**r, "gpu__time_duration.sum": 2e-3} for r in rows],
        kernel=["a", "b", "nobytes"],
        device_name=["GPU A", "GPU B", "GPU A"],
    )
    ctx = comparison_context(compare(base, cand))
    figures = comparison_figures(ctx, build_context(base), build_context(cand))
    assert [f["id"] for f in figures] == ["comparison-0", "comparison-1"]
    for f in figures:
        check_figure(f)
        assert len(f["figure"]["layout"]["annotations"]) == 1
    assert "GPU A" in figures[0]["title"] and "GPU B" in figures[1]["title"]
    assert [n["kernel_short"] for n in figures[0]["not_plotted"]] == ["nobytes"]
    assert figures[0]["not_plotted"][0]["reason"].startswith("candidate: ")
    assert figures[1]["not_plotted"] == []
