"""The compare's four-question story: written-out variants of a real export, each figure by hand.

Each variant edits a real V100 export (``wangzy0327``: CUTLASS GEMMs and
matrix initialisers, bytes at every level, time from elapsed cycles over the
SM clock) and the expected figures are worked out here from the file's own
values: less DRAM traffic, more launches, a moved bottleneck, a pair on
different GPUs, and the file against itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis.compare import DEFAULT_NOISE, Comparison, compare
from ncu_roofline.render import render_document
from ncu_roofline.render.compare_report import render_compare_html, render_compare_markdown
from ncu_roofline.render.compare_text import story_text
from ncu_roofline.report.compare import comparison_context, comparison_document
from tests.helpers import SAMPLES, run
from tests.test_compare import read_details, write_details

REAL = SAMPLES / "wangzy0327__cuda-roofline__src_output.csv"
A100 = SAMPLES / "wangzy0327__cuda-roofline__src_output_A100.csv"
GEMM = "Kernel<cutlass::gemm::kernel::Gemm<"
INIT = "InitializeMatrix_kernel<"
DRAM = "dram__bytes.sum"
CYCLES = "sm__cycles_elapsed.avg"
RATE = "sm__cycles_elapsed.avg.per_second"

pytestmark = pytest.mark.skipif(not REAL.exists(), reason="real export not available")

Rows = list[list[str]]


class Columns:
    """Column positions of the details header (the ones these edits read)."""

    def __init__(self, header: list[str]) -> None:
        self.id = header.index("ID")
        self.kernel = header.index("Kernel Name")
        self.metric = header.index("Metric Name")
        self.value = header.index("Metric Value")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _real() -> tuple[str, list[str], Rows, Columns]:
    preamble, header, rows = read_details(REAL)
    return preamble, header, [list(r) for r in rows], Columns(header)


def _metric(rows: Rows, c: Columns, metric: str, fragment: str = "") -> dict[str, float]:
    """``metric`` per launch id, for the launches whose kernel name holds ``fragment``."""
    return {
        r[c.id]: _number(r[c.value])
        for r in rows
        if r[c.metric] == metric and fragment in r[c.kernel]
    }


def _seconds(rows: Rows, c: Columns, fragment: str = "") -> float:
    """Kernel time of the launches holding ``fragment``: elapsed cycles over the SM clock."""
    cycles, rate = _metric(rows, c, CYCLES, fragment), _metric(rows, c, RATE, fragment)
    return sum(cycles[i] / rate[i] for i in cycles)


def _scaled(rows: Rows, c: Columns, fragment: str, metric: str, factor: float) -> Rows:
    out = [list(r) for r in rows]
    for r in out:
        if fragment in r[c.kernel] and r[c.metric] == metric:
            r[c.value] = repr(_number(r[c.value]) * factor)
    return out


def _compare(
    tmp_path: Path, edit: Callable[[Rows, Columns], Rows], noise: float = DEFAULT_NOISE
) -> Comparison:
    preamble, header, rows, c = _real()
    path = tmp_path / "candidate.csv"
    write_details(path, preamble, header, edit(rows, c))
    return compare(analyze(load([str(REAL)])), analyze(load([str(path)])), noise=noise)


def _short(cmp: Comparison, fragment: str) -> str:
    k = cmp.kernels
    (short,) = k[k["kernel"].str.contains(fragment, regex=False)]["kernel_short"]
    return str(short)


def test_fewer_dram_bytes(tmp_path: Path) -> None:
    """The GEMMs move half the DRAM bytes in half the time: the story says so, and where."""

    def edit(rows: Rows, c: Columns) -> Rows:
        return _scaled(_scaled(rows, c, GEMM, DRAM, 0.5), c, GEMM, CYCLES, 0.5)

    cmp = _compare(tmp_path, edit)
    s = cmp.story
    assert s is not None
    _, _, rows, c = _real()
    dram_all, dram_gemm = _metric(rows, c, DRAM), _metric(rows, c, DRAM, GEMM)
    t_all, t_gemm = _seconds(rows, c), _seconds(rows, c, GEMM)

    # Question 1: half the GEMMs' bytes, over every group's bytes; one group moved them.
    d = s["dram_bytes"]
    assert d["base"] == pytest.approx(sum(dram_all.values()))
    assert d["candidate"] == pytest.approx(sum(dram_all.values()) - 0.5 * sum(dram_gemm.values()))
    assert d["change"] == pytest.approx(-0.5 * sum(dram_gemm.values()) / sum(dram_all.values()))
    assert (d["fewer"], d["more"]) == (1, 0)
    assert s["launches"]["change"] == 0.0 and s["flops"]["change"] == 0.0
    # The whole change: half the GEMMs' time.
    assert s["delta_pct"] == pytest.approx(-0.5 * t_gemm / t_all)
    assert s["changed"] is True
    # Question 2: the GEMM group carries all of it.
    (carrier,) = s["carriers"]
    assert GEMM in carrier["kernel"]
    assert carrier["delta_s"] == pytest.approx(-0.5 * t_gemm)
    assert carrier["share"] == pytest.approx(1.0)
    assert {"reason": "fewer-bytes", "level": "dram"}.items() <= carrier["why"][0].items()

    text = story_text(comparison_context(cmp))
    size = 100 * 0.5 * sum(dram_gemm.values()) / sum(dram_all.values())
    assert text.startswith(f"{-50 * t_gemm / t_all:+.1f}% kernel time")
    assert f"{size:.0f}% fewer DRAM bytes in 1 group" in text
    assert "same FLOPs and launches" in text
    assert f"carried by {_short(cmp, GEMM)}" in text


def test_more_launches(tmp_path: Path) -> None:
    """Every initialiser launched twice: more launches, in the two initialiser groups."""

    def edit(rows: Rows, c: Columns) -> Rows:
        ids = sorted({int(r[c.id]) for r in rows if INIT in r[c.kernel]})
        new = max(int(r[c.id]) for r in rows) + 1
        copies = []
        for i, old in enumerate(ids):
            copies += [
                [*r[: c.id], str(new + i), *r[c.id + 1 :]] for r in rows if r[c.id] == str(old)
            ]
        return rows + copies

    _, _, rows, c = _real()
    launches = len({r[c.id] for r in rows})
    init = len({r[c.id] for r in rows if INIT in r[c.kernel]})
    t_all, t_init = _seconds(rows, c), _seconds(rows, c, INIT)

    # Within the default noise the time did not change: no speed-up, the launches still told.
    cmp = _compare(tmp_path, edit)
    s = cmp.story
    assert s is not None
    w = s["launches"]
    assert (w["base"], w["candidate"]) == (launches, launches + init)
    assert w["change"] == pytest.approx(init / launches)
    assert (w["fewer"], w["more"]) == (0, 2)  # InitializeMatrix_kernel<float> and <__half>
    assert s["delta_pct"] == pytest.approx(t_init / t_all)
    assert abs(s["delta_pct"] or 0) < cmp.noise and s["changed"] is False
    text = story_text(comparison_context(cmp))
    assert text.startswith("No change beyond the noise")
    assert f"{100 * init / launches:.0f}% more launches in 2 groups" in text

    # With a finer noise the same time change is claimed, and the initialisers carry it.
    fine = _compare(tmp_path, edit, noise=0.001)
    s = fine.story
    assert s is not None and s["changed"] is True
    assert {INIT in c["kernel"] for c in s["carriers"]} == {True}
    assert len(s["carriers"]) == 2
    assert sum(c["delta_s"] for c in s["carriers"]) == pytest.approx(t_init)
    assert s["carried_share"] == pytest.approx(1.0)


def test_bottleneck_moved(tmp_path: Path) -> None:
    """The GEMMs' DRAM traffic all but gone: their limiter moves off DRAM, and the story says where."""

    def edit(rows: Rows, c: Columns) -> Rows:
        return _scaled(_scaled(rows, c, GEMM, DRAM, 0.001), c, GEMM, CYCLES, 0.5)

    cmp = _compare(tmp_path, edit)
    s = cmp.story
    assert s is not None
    k = cmp.candidate.kernels
    after = str(k[k["kernel"].str.contains(GEMM, regex=False)]["limiter"].iloc[0])
    assert after != "dram"
    assert s["moves"] == [
        {"kernel_short": _short(cmp, GEMM), "on": "limiter", "base": "dram", "candidate": after}
    ]
    text = story_text(comparison_context(cmp))
    assert f"bottleneck moved in {_short(cmp, GEMM)} (limiter dram → {after})" in text


def _bound_share(cmp: Comparison) -> dict[str, float]:
    k = cmp.base.kernels
    total = float(k["total_duration_s"].sum())
    return {
        str(b): float(t) / total for b, t in k.groupby("bound")["total_duration_s"].sum().items()
    }


def test_not_comparable_claims_nothing() -> None:
    """V100 against A100: not comparable, so no change, carrier or move is claimed."""
    cmp = compare(analyze(load([str(REAL)])), analyze(load([str(A100)])))
    assert cmp.totals["comparable"] is False
    s = cmp.story
    assert s is not None
    assert s["comparable"] is False and s["not_comparable_reason"] == "different GPUs"
    assert s["changed"] is None
    assert s["carriers"] == [] and s["moves"] == [] and s["carried_share"] is None
    # Question 3 is a fact of the base alone, told anyway.
    assert s["base_bound_share"] == pytest.approx(_bound_share(cmp))
    text = story_text(comparison_context(cmp))
    assert text.startswith("No speed-up is claimed: the pair is not comparable (different GPUs)")
    for claim in ("kernel time", "fewer", "more", "carried by", "bottleneck"):
        assert claim not in text
    share = _bound_share(cmp)
    assert f"{100 * share['memory']:.0f}% memory-bound" in text


def test_missing_work_is_none_not_zero() -> None:
    """The A100 export counts no FLOPs: the FLOP sums are unknown, not 0."""
    cmp = compare(analyze(load([str(REAL)])), analyze(load([str(A100)])), allow_cross_gpu=True)
    s = cmp.story
    assert s is not None
    assert s["flops"] == {
        "base": None,
        "candidate": None,
        "change": None,
        "known": 0,
        "fewer": 0,
        "more": 0,
    }
    assert "FLOPs not measured" in story_text(comparison_context(cmp))


def test_same_file_twice_claims_no_change() -> None:
    a = analyze(load([str(REAL)]))
    cmp = compare(a, a)
    s = cmp.story
    assert s is not None
    assert s["changed"] is False and s["delta_pct"] == 0.0
    assert s["carriers"] == [] and s["moves"] == []
    _, _, rows, c = _real()
    d = s["dram_bytes"]
    assert d["base"] == d["candidate"] == pytest.approx(sum(_metric(rows, c, DRAM).values()))
    assert (d["change"], d["fewer"], d["more"]) == (0.0, 0, 0)
    assert s["launches"]["base"] == len({r[c.id] for r in rows})
    assert s["efficiency"]["higher"] == s["efficiency"]["lower"] == 0
    assert s["base_bound_share"] == pytest.approx(_bound_share(cmp))
    text = story_text(comparison_context(cmp))
    assert text.startswith("No change beyond the noise (±2.0%): +0.0% kernel time")
    assert "same FLOPs, DRAM bytes and launches, efficiency unchanged" in text


def test_story_in_every_output(tmp_path: Path) -> None:
    """The one sentence in Markdown (under the verdict), HTML (escaped), JSON and the terminal."""

    def edit(rows: Rows, c: Columns) -> Rows:
        return _scaled(_scaled(rows, c, GEMM, DRAM, 0.5), c, GEMM, CYCLES, 0.5)

    cmp = _compare(tmp_path, edit)
    ctx = comparison_context(cmp)
    text = story_text(ctx)

    md = render_compare_markdown(ctx).splitlines()
    verdict = next(i for i, line in enumerate(md) if line.startswith("**Kernel time"))
    # Markdown escapes the kernel name's brackets; the words are the same.
    assert md[verdict + 2].startswith(text.split(":")[0])
    assert "fewer DRAM bytes in 1 group" in md[verdict + 2]

    html = render_compare_html(ctx, [], plotly_js="cdn")
    assert '<p class="story">' in html
    assert text.replace("<", "&lt;").replace(">", "&gt;") in html.replace("&#39;", "'")

    doc = json.loads(str(render_document("comparison", "json", comparison_document(cmp))))
    assert doc["story"]["text"] == text
    assert doc["story"]["dram_bytes"]["fewer"] == 1
    assert "text" not in ctx["story"]  # the JSON output adds it, the context is left alone

    candidate = tmp_path / "candidate.csv"
    proc = run("compare", str(REAL), str(candidate), "-o", str(tmp_path / "out.md"))
    assert proc.returncode == 0, proc.stderr
    assert f"note: {text.split(';')[0]}" in proc.stderr
