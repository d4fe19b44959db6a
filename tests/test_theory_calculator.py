"""The ``theory`` page's calculator: its JavaScript agrees with the Python library.

One headless Chromium launch evaluates ``window.ncuRoofline.theory`` over a
grid of models, phases, batches, sequence lengths, dtypes, tensor-parallel
ranks and GPUs; every figure must equal what ``theory --format json``
reports (the same :func:`build_theory_table` the command calls) to a relative
1e-9.  Shapes the library refuses (tp that does not divide the heads) must
be refused by the page too.

Ridge crossing by hand, Llama-3-8B decode at seq 128, bf16, on an H100 SXM5:
the ridge is 989.4 TFLOP/s / 3.35 TB/s = 295.34 FLOP/B.  A decode step at
batch B reads the weights once, W = 2 bytes x (32 x (4096 x 6144 + 4096 x
4096 + 4096 x 28672 + 14336 x 4096) + 4096 x 128256) = 15.01 GB, plus per
sequence its KV cache, 2 x 128 x 8 x 128 x 2 B x 32 layers = 16.8 MB, and
about 4.9 MB of activations; it does about 2 x 7.5e9 = 15.0 GFLOP per
sequence.  Intensity 15.0e9 B / (15.01e9 + 21.7e6 B) reaches 295.34 at
B = 295.34 x 15.01e9 / (15.0e9 - 295.34 x 21.7e6) = 4.43e12 / 8.6e9, about
515 to 700 depending on the exact per-token bytes; the library's exact sum
gives 661.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from ncu_roofline.analysis.theory_ridge import pass_intensity, ridge_crossing
from ncu_roofline.analysis.theory_table import rows_from_model
from ncu_roofline.core.hardware import find_gpu
from ncu_roofline.errors import UsageError
from ncu_roofline.report.theory import build_theory_table
from ncu_roofline.theory import expand_model, find_model
from tests.helpers import run
from tests.test_report_browser import TIMEOUT, chromium_args, find_browser

MODELS = ("llama-3-8b", "mixtral-8x7b", "mistral-7b", "qwen2.5-7b")
GPUS = ("h100_sxm5", "a100_80gb_sxm", "v100_sxm2_16gb")
DTYPES = (("bf16", ""), ("fp8", ""), ("bf16", "fp8"), ("fp16", "e4m3"))


def grid() -> list[dict[str, Any]]:
    points = []
    full = itertools.product(
        MODELS, ("decode", "prefill"), (1, 7, 256), (128, 4096, 131072), DTYPES, (1, 2, 8)
    )
    for i, (model, phase, batch, seq, (dt, kv), tp) in enumerate(full):
        if i % 5:
            continue
        gpu = GPUS[(i // 5) % len(GPUS)]
        points.append(
            {"model": model, "gpu": gpu, "phase": phase, "batch": batch, "seq": seq,
             "dtype": dt, "kvDtype": kv, "tp": tp}
        )  # fmt: skip
    return points


def python_figures(p: dict[str, Any]) -> dict[str, Any] | None:
    """What ``theory --format json`` reports for one point and GPU; None where refused."""
    cfg = find_model(p["model"])
    kv = p["kvDtype"] or None
    try:
        ops = expand_model(cfg, p["phase"], p["batch"], p["seq"], p["dtype"], kv, p["tp"])
    except UsageError:
        return None
    model = {"key": cfg.key, "name": cfg.name, "source": cfg.source, "phase": p["phase"],
             "batch": p["batch"], "seq": p["seq"], "dtype": p["dtype"], "kv_dtype": kv,
             "tp": p["tp"]}  # fmt: skip
    table = build_theory_table(rows_from_model(ops), [find_gpu(p["gpu"])], model, cfg)  # type: ignore[arg-type]
    return dict(table)


_PROBE = """<script>
(function () {
  var out = [];
  GRID.forEach(function (p) {
    try { out.push(window.ncuRoofline.theory(p)); } catch (e) { out.push({ error: String(e.message || e) }); }
  });
  var changed = {};
  try {
    var before = document.querySelector(".gpu-card .big").textContent;
    var batch = document.getElementById("calc-batch");
    batch.value = "64";
    batch.dispatchEvent(new Event("input", { bubbles: true }));
    var phase = document.getElementById("calc-phase");
    changed.before = before;
    changed.batch64 = document.querySelector(".gpu-card .big").textContent;
    phase.value = "prefill";
    phase.dispatchEvent(new Event("change", { bubbles: true }));
    changed.prefill = document.querySelector(".gpu-card .big").textContent;
    changed.rows = document.querySelectorAll("#kernel-table tbody tr").length;
    changed.ridge = document.getElementById("calc-ridge").textContent;
    changed.expected = window.ncuRoofline.theory({ model: "llama-3-8b", gpu: "a100_80gb_sxm",
      phase: "prefill", batch: 64, seq: 2048, dtype: "bf16", kvDtype: "", tp: 1 }).time_floor_s;
  } catch (e) { changed.error = String(e.message || e); }
  var pre = document.createElement("pre");
  pre.id = "probe-out";
  pre.textContent = JSON.stringify({ results: out, changed: changed });
  document.body.appendChild(pre);
})();
</script></body>"""


@pytest.fixture(scope="module")
def browser_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    browser = find_browser()
    if browser is None:
        pytest.skip("no headless browser found")
    tmp = tmp_path_factory.mktemp("calc")
    page = tmp / "theory.html"
    args = ("--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "2048")
    proc = run("theory", *args, "--gpu", "a100_80gb_sxm", "--gpu", "h200_sxm", "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    probe = tmp / "probe.html"
    script = _PROBE.replace("GRID", json.dumps(grid()))
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", script), "utf-8")
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=tmp))
    proc2 = subprocess.run(
        [*chromium_args(browser, profile), "--dump-dom", probe.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc2.returncode == 0, proc2.stderr[-4000:]
    tree = lxml.html.document_fromstring(proc2.stdout)
    assert tree.body.get("data-errors") == "", tree.body.attrib
    out: dict[str, Any] = json.loads(tree.get_element_by_id("probe-out").text_content())
    return out


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return bool(a == pytest.approx(b, rel=1e-9, abs=0.0))


def test_page_formulas_equal_the_library_over_a_grid(browser_run: dict[str, Any]) -> None:
    points = grid()
    results = browser_run["results"]
    assert len(results) == len(points) > 100
    refused = 0
    for p, js in zip(points, results, strict=True):
        py = python_figures(p)
        if py is None:
            refused += 1
            assert "error" in js, (p, js)
            continue
        assert "error" not in js, (p, js)
        gpu = p["gpu"]
        totals = py["totals"][gpu]
        for key in ("flops", "bytes", "time_floor_s", "tokens_per_s", "ai"):
            assert _close(js[key], totals[key]), (p, key, js[key], totals[key])
        assert js["complete"] == totals["complete"], p
        assert js["collectives_not_included"] == totals["collectives_not_included"], p
        assert js["ridge_crossing"]["value"] == totals["ridge_crossing"]["value"], p
        assert _close(js["ridge_crossing"]["ridge"], totals["ridge_crossing"]["ridge"]), p
        assert js["ridge_crossing"]["precision"] == totals["ridge_crossing"]["precision"], p
        assert [q["key"] for q in js["peaks_used"]] == [
            q["key"] for q in py["gpus"][0]["peaks_used"]
        ], p
        assert len(js["ops"]) == len(py["ops"]), p
        for jo, po in zip(js["ops"], py["ops"], strict=True):
            placed = po["gpus"][gpu]
            assert (jo["name"], jo["op"], jo["count"]) == (po["name"], po["op"], po["count"]), p
            assert jo["precision"] == po["precision"], (p, po["name"])
            assert (jo["bound"], jo["peak_precision"]) == (placed["bound"], placed["precision"])
            for key in ("flops", "bytes", "ai"):
                assert _close(jo[key], po[key]), (p, po["name"], key)
            for key in ("time_floor_s", "pass_time_s", "share", "peak_flops_per_s"):
                assert _close(jo[key], placed[key]), (p, po["name"], key)
            assert jo["peak_clock_hz"] == placed["peak_clock_hz"], (p, po["name"])
    assert 0 < refused < len(points) // 2


def test_changing_a_control_updates_the_headline(browser_run: dict[str, Any]) -> None:
    changed = browser_run["changed"]
    assert "error" not in changed, changed
    assert changed["before"] == "7.5 ms"
    assert changed["batch64"] != changed["before"]
    assert changed["prefill"] not in (changed["before"], changed["batch64"])
    # The headline's first card is the A100's: 64 x 2048-token prefill.
    secs = changed["expected"]
    assert changed["prefill"].endswith(" s") and float(changed["prefill"][:-2]) == pytest.approx(
        secs, rel=5e-3
    )
    assert changed["rows"] == 15
    assert "compute-bound from seq" in changed["ridge"]


def test_cli_json_carries_the_same_figures() -> None:
    proc = run(
        "theory", "--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "128",
        "--gpu", "h100_sxm5", "--format", "json",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)
    py = python_figures(
        {"model": "llama-3-8b", "gpu": "h100_sxm5", "phase": "decode", "batch": 1, "seq": 128,
         "dtype": "bf16", "kvDtype": "", "tp": 1}
    )  # fmt: skip
    assert py is not None
    assert table["totals"] == json.loads(json.dumps(py["totals"]))
    gpu = table["gpus"][0]
    assert gpu["sparsity"] == "dense"
    peaks = {p["key"]: p for p in gpu["peaks_used"]}
    assert peaks["tensor_bf16"]["clock"] == "tensor" and peaks["tensor_bf16"]["clock_hz"] == 1830e6
    assert peaks["fp16"]["clock"] == "boost" and peaks["fp16"]["clock_hz"] == 1980e6
    text = run("theory", "--model", "llama-3-8b", "--seq", "128", "--gpu", "h100_sxm5").stdout
    assert "compute-bound from batch 661" in text
    assert "dense (2:4 sparsity not counted)" in text and "1.83 GHz tensor clock" in text


def test_ridge_crossing_by_hand() -> None:
    cfg, h100 = find_model("llama-3-8b"), find_gpu("h100_sxm5")
    rc = ridge_crossing(cfg, h100, "decode", 1, 128)
    ridge = 989.4e12 / 3.35e12
    assert rc["ridge"] == pytest.approx(ridge, rel=1e-12) and rc["over"] == "batch"
    assert rc["precision"] == "tensor_bf16"
    # The module docstring's estimate: weights 15.01 GB, 21.7 MB per sequence.
    weights = 2 * (32 * (4096 * 6144 + 4096 * 4096 + 4096 * 28672 + 14336 * 4096) + 4096 * 128256)
    assert weights == pytest.approx(15.01e9, rel=1e-3)
    assert 515 <= rc["value"] <= 700
    assert rc["value"] == 661
    assert (
        pass_intensity(cfg, "decode", 660, 128) < ridge <= pass_intensity(cfg, "decode", 661, 128)
    )
    # At a 2048-token context the KV cache grows as fast as the FLOPs: never compute-bound.
    assert ridge_crossing(cfg, h100, "decode", 1, 2048)["value"] is None
    # Prefill turns compute-bound at a few hundred prompt tokens.
    prefill = ridge_crossing(cfg, h100, "prefill", 1, 2048)
    assert prefill["over"] == "seq" and prefill["value"] == 409
