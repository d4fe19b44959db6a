"""The ``theory`` command's per-pass figures, its one chart and its HTML page.

Hand-worked values for Llama-3-8B decode at batch 1 (seq 2048, bf16) on an
A100 SXM4 80GB (2,039 GB/s) and an H200 SXM (4,800 GB/s): every op is under
its ridge, so each floor is its minimal bytes over the GPU's bandwidth.
The gate/up projection (a GEMV of N = 2 x 14,336, K = 4,096) reads
28,672 x 4,096 x 2 = 234,881,024 weight bytes plus 8,192 input and 57,344
output bytes: 234,946,560 B, a floor of 115.23 us on the A100, 3.687 ms for
its 32 layers, 49.17% of the 7.499 ms pass.
"""

from __future__ import annotations

import json
import math
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from ncu_roofline.analysis.theory_table import TheoryRow, rows_from_model
from ncu_roofline.core.hardware import find_gpu
from ncu_roofline.render.charts.theory_page import theory_figure
from ncu_roofline.report.theory import build_theory_table, theory_chart_context
from ncu_roofline.theory import expand_model, find_model, parse_op_spec
from tests.helpers import assert_plain, run
from tests.test_report_browser import (
    PHONE,
    TIMEOUT,
    chromium_args,
    find_browser,
    load_on_phone,
)

A100, H200 = "a100_80gb_sxm", "h200_sxm"
A100_BW, H200_BW = 2039e9, 4800e9
GATE_UP_BYTES = 234_946_560.0


def model_table(
    phase: str = "decode", batch: int = 1, seq: int = 2048, gpus: tuple[str, ...] = (A100, H200)
) -> dict[str, Any]:
    cfg = find_model("llama-3-8b")
    rows = rows_from_model(expand_model(cfg, phase, batch, seq))
    model = {"name": cfg.name, "phase": phase, "batch": batch, "seq": seq, "dtype": "bf16", "tp": 1}
    return dict(build_theory_table(rows, [find_gpu(g) for g in gpus], model=model))


@pytest.fixture(scope="module")
def decode() -> dict[str, Any]:
    return model_table()


def test_floor_times_count_and_share_by_hand(decode: dict[str, Any]) -> None:
    ops = [op for op in decode["ops"] if op["name"] == "gate_up_proj"]
    assert len(ops) == 1
    op = ops[0]
    assert op["number"] == 10 and op["count"] == 32 and op["bytes"] == GATE_UP_BYTES
    a100 = op["gpus"][A100]
    assert a100["time_floor_s"] == pytest.approx(GATE_UP_BYTES / A100_BW, rel=1e-12)
    assert a100["time_floor_s"] == pytest.approx(115.23e-6, rel=1e-4)
    assert a100["pass_time_s"] == pytest.approx(32 * GATE_UP_BYTES / A100_BW, rel=1e-12)
    assert a100["pass_time_s"] == pytest.approx(3.687e-3, rel=1e-3)
    total = decode["totals"][A100]["time_floor_s"]
    assert total == pytest.approx(7.4987e-3, rel=1e-4)
    assert a100["share"] == pytest.approx(0.4917, abs=1e-4)
    # Every op is memory-bound on both GPUs: its share is the same on each.
    assert op["gpus"][H200]["share"] == pytest.approx(a100["share"], rel=1e-12)
    shares = [o["gpus"][A100]["share"] for o in decode["ops"]]
    assert math.fsum(shares) == pytest.approx(1.0, rel=1e-12)
    assert max(shares) == a100["share"]


def test_tokens_per_second_and_speedup_by_hand(decode: dict[str, Any]) -> None:
    a100, h200 = decode["totals"][A100], decode["totals"][H200]
    assert a100["tokens"] == h200["tokens"] == 1
    # 1 token / 7.4987 ms = 133.36 tokens/s; 1 / 3.1854 ms = 313.9 tokens/s.
    assert a100["tokens_per_s"] == pytest.approx(1 / a100["time_floor_s"], rel=1e-12)
    assert a100["tokens_per_s"] == pytest.approx(133.36, rel=1e-4)
    assert h200["tokens_per_s"] == pytest.approx(313.9, rel=1e-3)
    # All memory-bound: the speedup is the bandwidth ratio 4,800 / 2,039.
    assert a100["speedup_vs_first"] == 1.0
    assert h200["speedup_vs_first"] == pytest.approx(H200_BW / A100_BW, rel=1e-9)


def test_prefill_counts_every_prompt_token() -> None:
    table = model_table("prefill", batch=2, seq=512, gpus=(H200,))
    t = table["totals"][H200]
    assert t["tokens"] == 1024
    assert t["tokens_per_s"] == pytest.approx(1024 / t["time_floor_s"], rel=1e-12)
    assert t["speedup_vs_first"] == 1.0


def test_op_rows_alone_share_the_table_and_have_no_totals() -> None:
    specs = ["gemm:M=4096,N=4096,K=4096,dtype=fp16", "gemv:N=4096,K=4096"]
    rows = [TheoryRow(name=s, estimate=parse_op_spec(s)) for s in specs]
    table = build_theory_table(rows, [find_gpu("h100_sxm5")])
    assert table["totals"] is None
    gemm, gemv = (op["gpus"]["h100_sxm5"] for op in table["ops"])
    # GEMM: 137,438,953,472 FLOP / 989.4 TFLOP/s = 138.91 us; GEMV:
    # (4096 x 4096 + 4096 + 4096) x 2 = 33,570,816 B / 3.35 TB/s = 10.02 us.
    assert gemm["pass_time_s"] == pytest.approx(137_438_953_472 / 989.4e12, rel=1e-12)
    assert gemv["pass_time_s"] == pytest.approx(33_570_816 / 3.35e12, rel=1e-12)
    total = gemm["pass_time_s"] + gemv["pass_time_s"]
    assert gemm["share"] == pytest.approx(gemm["pass_time_s"] / total, rel=1e-12)
    assert gemm["share"] + gemv["share"] == pytest.approx(1.0, rel=1e-12)


def test_op_rows_beside_a_model_are_not_in_its_pass() -> None:
    cfg = find_model("llama-3-8b")
    extra = TheoryRow(name="gemv", estimate=parse_op_spec("gemv:N=4096,K=4096"))
    rows = [extra, *rows_from_model(expand_model(cfg, "decode", 1, 2048))]
    model = {"name": cfg.name, "phase": "decode", "batch": 1, "seq": 2048}
    table = build_theory_table(rows, [find_gpu(A100)], model=model)
    first = table["ops"][0]
    assert first["in_model"] is False and first["gpus"][A100]["share"] is None
    assert first["gpus"][A100]["pass_time_s"] is not None
    in_model = [op["gpus"][A100]["share"] for op in table["ops"][1:]]
    assert math.fsum(in_model) == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------- the chart


def _traces(fig: dict[str, Any], group: str) -> list[dict[str, Any]]:
    return [t for t in fig["figure"]["data"] if t.get("legendgroup") == group]


def test_one_chart_holds_every_gpu_and_labelled_ops(decode: dict[str, Any]) -> None:
    fig = theory_figure(theory_chart_context(decode))  # type: ignore[arg-type]
    assert fig is not None
    assert_plain(fig["figure"])
    json.dumps(fig["figure"], allow_nan=False)
    ops = _traces(fig, "kernel groups")
    assert [t["meta"]["gpu"] for t in ops] == [A100, H200]
    plotted = [op for op in decode["ops"] if op["flops"] > 0]
    for trace in ops:
        # Every op with FLOPs has a point; its number links it to the table row.
        assert trace["meta"]["ranks"] == [op["number"] for op in plotted]
        labels = [n for text in trace["text"] if text for n in text.split(",")]
        assert "10" in labels  # gate_up_proj, the largest op
        assert len(labels) == len(set(labels))
    a100_ops, h200_ops = ops
    # Same intensity on both GPUs; the H200's rate at the floor is 4800/2039 higher.
    assert a100_ops["x"] == h200_ops["x"]
    for ya, yh in zip(a100_ops["y"], h200_ops["y"], strict=True):
        assert yh / ya == pytest.approx(H200_BW / A100_BW, rel=1e-9)
    assert a100_ops["marker"]["symbol"] != h200_ops["marker"]["symbol"]
    assert a100_ops["marker"]["color"] != h200_ops["marker"]["color"]
    not_plotted = {n["kernel_short"] for n in fig["not_plotted"]}
    assert not_plotted == {"#1 embedding", "#6 kv_append"}  # no FLOPs


def test_each_gpu_draws_its_used_roofs_once(decode: dict[str, Any]) -> None:
    fig = theory_figure(theory_chart_context(decode))  # type: ignore[arg-type]
    assert fig is not None
    for index in (0, 1):
        roofs = [t for t in _traces(fig, f"gpu-{index}") if "lines" in t["mode"]]
        shown = [t for t in roofs if t.get("visible", True) is True]
        # DRAM plus the ceilings of the precisions the ops use; no two shown
        # ceilings at one value (equal ones are merged into one line).
        keys = [k for t in shown for k in t["meta"]["keys"]]
        assert "dram" in keys and "tensor_bf16" in keys
        assert "tensor_int8" not in keys and "l2" not in keys
        flat = [t["y"][0] for t in shown if t["y"][0] == t["y"][-1]]
        assert len(flat) == len(set(flat))
        hidden = [t for t in roofs if t.get("visible") == "legendonly"]
        assert any("tensor_int8" in t["meta"]["keys"] for t in hidden)


# --------------------------------------------------------------------------- the page


def _page(tmp: Path) -> Path:
    out = tmp / "theory.html"
    args = ("--model", "llama-3-8b", "--phase", "decode", "--batch", "1")
    proc = run("theory", *args, "--gpu", A100, "--gpu", H200, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _page(tmp_path_factory.mktemp("theory-page"))


def test_page_headline_and_sortable_table(page: Path) -> None:
    tree = lxml.html.fromstring(page.read_bytes())
    cards = [c.text_content() for c in tree.xpath('//div[contains(@class, "gpu-card")]')]
    assert len(cards) == 2
    assert "7.5 ms" in cards[0] and "at most 133 tokens/s" in " ".join(cards[0].split())
    assert "2.35× the speed of A100 SXM4 80GB" in cards[1]
    assert "#10 gate_up_proj, 49.2% of the pass" in " ".join(cards[1].split())
    rows = tree.xpath('//table[@id="kernel-table"]/tbody/tr')
    assert len(rows) == 15
    gate_up = rows[9].xpath("./td")
    assert gate_up[0].text_content() == "10" and "gate_up_proj" in gate_up[1].text_content()
    # Per GPU: bound, floor, x count, share after #, op and four op columns.
    cells = [c.text_content().strip() for c in gate_up]
    assert cells[6:10] == ["memory", "115 µs", "3.69 ms", "49.2%"]
    assert float(gate_up[9].get("data-sort")) == pytest.approx(0.4917, abs=1e-4)
    assert cells[3] == "235 MFLOP"
    # Units on every figure: FLOPs and bytes print with theirs.
    assert all(r.xpath("./td")[3].text_content().endswith("FLOP") for r in rows)


_PROBE = """<script>
(function () {
  var body = document.body;
  function run() {
    if (body.getAttribute("data-ready") !== "1") { setTimeout(run, 50); return; }
    var div = document.getElementById("roofline-0");
    var labels = Array.prototype.map.call(
      div.querySelectorAll(".scatterlayer .textpoint text, .annotation-text"),
      function (t) { return t.textContent; });
    body.setAttribute("data-labels", labels.filter(Boolean).join("|"));
    var share = document.querySelector('#kernel-table th[data-key="share-1"]');
    share.click();
    var first = document.querySelector("#kernel-table tbody tr");
    body.setAttribute("data-first", first.cells[0].textContent);
    first.cells[0].click();
    var picked = div.data.filter(function (t) { return t.meta && t.meta.role === "groups"; })
      .map(function (t) { return JSON.stringify(t.selectedpoints); });
    body.setAttribute("data-picked", picked.join("|"));
    body.setAttribute("data-probe", "1");
  }
  run();
})();
</script></body>"""


def test_page_in_a_browser_sorts_and_links_rows_to_points(page: Path, tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser found")
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE), "utf-8")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=tmp_path))
    proc = subprocess.run(
        [*chromium_args(browser, profile), "--dump-dom", probe.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    body = dict(lxml.html.document_fromstring(proc.stdout).body.attrib)
    assert body.get("data-probe") == "1" and body.get("data-errors") == "", body
    # Both GPUs' op markers are drawn (13 ops with FLOPs each).
    assert body["data-points"] == "26"
    # The drawn text: roof names (annotations), and the op numbers ("4,8,10").
    texts = body["data-labels"].split("|")
    assert "DRAM 2.04 TB/s" in texts and "DRAM 4.8 TB/s" in texts
    labels = {n for t in texts if t.replace(",", "").isdigit() for n in t.split(",")}
    assert "10" in labels and labels <= {str(n) for n in range(1, 16)}, labels
    # Sorting by the A100's share (descending) puts gate_up_proj first; its row
    # selects its point on both GPUs' traces: ops 1 and 6 have no FLOPs and
    # no point, so op 10 is point 7 (from 0) of each trace.
    assert body["data-first"] == "10"
    assert body["data-selected"] == "10"
    assert body["data-picked"].split("|") == ["[7]", "[7]"]


def test_page_on_a_phone_does_not_scroll_sideways(page: Path, tmp_path: Path) -> None:
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser found")
    body = load_on_phone(browser, page, tmp_path)
    assert body.get("data-ready") == "1" and body.get("data-errors") == "", body
    assert body["data-inner-width"] == str(PHONE[0]), body
    assert int(body["data-scroll-width"]) <= PHONE[0], body


def test_equal_roofs_of_two_gpus_do_not_hide_each_other() -> None:
    # The H100 SXM5 and the H200 share their compute ceilings (989 TFLOP/s
    # tensor BF16, 134 FP16, 66.9 FP32) and differ in DRAM (3.35 vs 4.8 TB/s).
    table = model_table(gpus=("h100_sxm5", H200))
    fig = theory_figure(theory_chart_context(table))  # type: ignore[arg-type]
    assert fig is not None
    shown = [
        t for t in fig["figure"]["data"] if "lines" in t["mode"] and t.get("visible", True) is True
    ]
    h100 = [t for t in shown if t["legendgroup"] == "gpu-0"]
    h200 = [t for t in shown if t["legendgroup"] == "gpu-1"]
    flat_h100 = {t["y"][0] for t in h100 if t["y"][0] == t["y"][-1]}
    for t in h200:
        if t["y"][0] == t["y"][-1]:
            # Same value as an H100 roof: dashed over it, its name not printed twice.
            assert t["y"][0] in flat_h100
            assert t["line"]["dash"] == "dash" and "label" not in t["meta"]
        else:
            assert t["line"]["dash"] == "solid" and t["meta"]["label"] == "DRAM 4.8 TB/s"
    # The names are the layout's annotations, broken into lines to fit a phone.
    names = [a["text"].replace("<br>", " ") for a in fig["figure"]["layout"]["annotations"]]
    assert "Tensor BF16, Tensor FP16 989 TFLOP/s (also H200 SXM 141GB)" in names
    assert "DRAM 3.35 TB/s" in names
