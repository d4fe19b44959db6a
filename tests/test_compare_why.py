"""Why a matched group changed: written-out variants of a real export, each reason with its figure."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ncu_roofline import analyze, load
from ncu_roofline.analysis.compare import WHY_REASONS, Comparison, compare
from ncu_roofline.render.compare_report import html_rows, render_compare_markdown
from ncu_roofline.render.compare_text import change_text, why_text
from ncu_roofline.report.compare import comparison_context
from tests.helpers import SAMPLES
from tests.test_compare import read_details, write_details

#: A real V100 export: CUTLASS GEMMs and matrix initialisers, bytes at every level.
REAL = SAMPLES / "wangzy0327__cuda-roofline__src_output.csv"
GEMM = "Kernel<cutlass::gemm::kernel::Gemm<"
INIT = "InitializeMatrix_kernel<float, "
#: A real A100 export (no grid or block columns) whose N-body kernel runs FFMAs.
NBODY = SAMPLES / "Lakoc__Nbody_CUDA__profile_1.out"
VELOCITY = "calculate_velocity("

pytestmark = pytest.mark.skipif(not REAL.exists(), reason="real export not available")


class Columns:
    """Column positions of a details header (the ones these edits touch)."""

    def __init__(self, header: list[str]) -> None:
        self.id = header.index("ID")
        self.kernel = header.index("Kernel Name")
        self.metric = header.index("Metric Name")
        self.value = header.index("Metric Value")


Edit = Callable[[list[list[str]], Columns], list[list[str]]]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _variant(tmp_path: Path, edit: Edit, real: Path = REAL) -> Path:
    preamble, header, rows = read_details(real)
    path = tmp_path / "candidate.csv"
    write_details(path, preamble, header, edit([list(r) for r in rows], Columns(header)))
    return path


def _scale(fragment: str, metric: str, factor: float) -> Edit:
    def edit(rows: list[list[str]], c: Columns) -> list[list[str]]:
        for r in rows:
            if fragment in r[c.kernel] and r[c.metric] == metric:
                r[c.value] = repr(_number(r[c.value]) * factor)
        return rows

    return edit


def _compare(tmp_path: Path, edit: Edit, real: Path = REAL) -> Comparison:
    candidate = _variant(tmp_path, edit, real)
    return compare(analyze(load([str(real)])), analyze(load([str(candidate)])))


def _why(cmp: Comparison, fragment: str) -> list[dict[str, Any]]:
    k = cmp.kernels
    hits = k[k["kernel"].str.contains(fragment, regex=False)]
    assert len(hits) == 1, hits["kernel"].tolist()
    out: list[dict[str, Any]] = hits["why"].iloc[0]
    return out


def _reason(why: list[dict[str, Any]], reason: str, **fields: str) -> dict[str, Any]:
    found = [
        w for w in why if w["reason"] == reason and all(w.get(k) == v for k, v in fields.items())
    ]
    assert len(found) == 1, why
    return found[0]


def test_vocabulary_is_fixed() -> None:
    assert len(set(WHY_REASONS)) == len(WHY_REASONS)
    assert {"fewer-bytes", "more-flops", "bottleneck-moved", "clock", "hardware"} <= set(
        WHY_REASONS
    )


def test_same_file_twice_has_no_reasons() -> None:
    a = analyze(load([str(REAL)]))
    cmp = compare(a, a)
    assert len(cmp.kernels)
    assert all(w == [] for w in cmp.kernels["why"])
    ctx = comparison_context(cmp)
    assert all(r["why"] == [] for r in ctx["kernels"])
    assert all(why_text(r) == "" for r in ctx["kernels"])


def test_dram_bytes_halved(tmp_path: Path) -> None:
    cmp = _compare(tmp_path, _scale(INIT, "dram__bytes.sum", 0.5))
    why = _why(cmp, INIT)
    w = _reason(why, "fewer-bytes", level="dram")
    assert w["change"] == pytest.approx(-0.5)
    assert w["candidate"] == pytest.approx(w["base"] * 0.5)
    assert not [x for x in why if x["reason"] in ("fewer-flops", "more-flops", "more-launches")]
    # The other levels did not change.
    assert not [x for x in why if x.get("level") in ("l2", "l1")]
    # Every other group: nothing.
    others = cmp.kernels[~cmp.kernels["kernel"].str.contains(INIT, regex=False)]
    assert all(not any(x["reason"].endswith("bytes") for x in w) for w in others["why"])


def test_ffma_doubled(tmp_path: Path) -> None:
    metric = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
    cmp = _compare(tmp_path, _scale(VELOCITY, metric, 2.0), NBODY)
    k = cmp.kernels
    row = k[k["kernel"].str.contains(VELOCITY, regex=False)].iloc[0]
    w = _reason(_why(cmp, VELOCITY), "more-flops")
    assert w["base"] == pytest.approx(row["base_flops"])
    assert w["candidate"] == pytest.approx(row["candidate_flops"])
    assert w["change"] == pytest.approx(row["candidate_flops"] / row["base_flops"] - 1)
    # 12,625,920 more FFMAs, two FLOPs each, on 92,379,136 FLOPs.
    assert w["change"] == pytest.approx(2 * 12_625_920 / 92_379_136)
    assert not [x for x in _why(cmp, VELOCITY) if x["reason"].endswith("bytes")]


def test_launches_doubled(tmp_path: Path) -> None:
    def edit(rows: list[list[str]], c: Columns) -> list[list[str]]:
        ids = sorted({int(r[c.id]) for r in rows if INIT in r[c.kernel]})
        new = max(int(r[c.id]) for r in rows) + 1
        copies = []
        for i, old in enumerate(ids):
            copies += [
                [*r[: c.id], str(new + i), *r[c.id + 1 :]] for r in rows if r[c.id] == str(old)
            ]
        return rows + copies

    cmp = _compare(tmp_path, edit)
    w = _reason(_why(cmp, INIT), "more-launches")
    assert (w["base"], w["candidate"], w["change"]) == (2.0, 4.0, 1.0)


def test_limiter_moved(tmp_path: Path) -> None:
    base = analyze(load([str(REAL)]))
    lim = base.kernels[base.kernels["kernel"].str.contains(GEMM, regex=False)]["limiter"].iloc[0]
    assert lim == "dram"
    cmp = _compare(tmp_path, _scale(GEMM, "dram__bytes.sum", 0.001))
    k = cmp.kernels
    after = k[k["kernel"].str.contains(GEMM, regex=False)]
    w = _reason(_why(cmp, GEMM), "bottleneck-moved")
    assert w["on"] == "limiter"
    assert w["base"] == "dram"
    assert w["candidate"] not in ("dram", None)
    assert after["why"].iloc[0]  # and the bytes say so too
    _reason(_why(cmp, GEMM), "fewer-bytes", level="dram")


def test_reasons_in_every_output(tmp_path: Path) -> None:
    cmp = _compare(tmp_path, _scale(INIT, "dram__bytes.sum", 0.5))
    ctx = comparison_context(cmp)
    rows = [r for r in ctx["kernels"] if INIT in r["kernel"]]
    assert "50.0% fewer DRAM bytes" in why_text(rows[0])
    assert "why: 50.0% fewer DRAM bytes" in change_text(rows[0])
    assert "50.0% fewer DRAM bytes" in render_compare_markdown(ctx)
    as_json = json.loads(json.dumps(ctx, default=str))
    (row,) = [r for r in as_json["kernels"] if INIT in r["kernel"]]
    assert row["why"][0]["reason"] == "fewer-bytes"

    (html,) = [h for h in html_rows(ctx["kernels"]) if INIT in h["full"]]
    assert html["why"].startswith("50.0% fewer DRAM bytes")


def test_clock_and_hardware() -> None:
    """V100 against A100 (the same program): every matched group names the clock and the GPUs."""
    a100 = SAMPLES / "wangzy0327__cuda-roofline__src_output_A100.csv"
    cmp = compare(analyze(load([str(REAL)])), analyze(load([str(a100)])), allow_cross_gpu=True)
    matched = cmp.kernels[cmp.kernels["match"].notna()]
    assert len(matched)
    for why in matched["why"]:
        clock = _reason(why, "clock", clock="sm_clock_hz")
        assert clock["change"] == pytest.approx(clock["candidate"] / clock["base"] - 1)
        hardware = _reason(why, "hardware")
        assert "V100" in hardware["base"] and "A100" in hardware["candidate"]
