"""One story in every format: the page, the Markdown and the terminal summary agree."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import ncu_roofline
from ncu_roofline.render.format import TABLE, TEXT
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.markdown_report import render_markdown
from ncu_roofline.render.page import build_page
from ncu_roofline.render.story import story
from ncu_roofline.render.terminal import _clip_words, render_summary
from ncu_roofline.report.context import build_context
from tests.helpers import fp32, profile, run, spec

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_reports" / "simulated_llama3_8b_decode_h100.details.csv"
SAMPLES = ROOT.parent / "shared" / "ncu-samples"
BERT = SAMPLES / (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
GEMM = SAMPLES / "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"


def _context(path: Path, **kwargs: Any) -> Any:
    if not path.exists():
        pytest.skip(f"{path.name} not here")
    return build_context(ncu_roofline.analyze(ncu_roofline.load(str(path)), **kwargs))


def _agree(context: Any) -> tuple[dict[str, Any], str, str]:
    page = build_page(context, plotly_js="cdn", generated_at="2026-01-01T00:00:00+00:00")
    md = render_markdown(context)
    text = render_summary(context, width=200)
    figures = story(context)
    s = page["summary"]
    # Total and recoverable time.
    assert s["total"] == TABLE.duration(figures["total_s"])
    assert TEXT.duration(figures["total_s"]) in md.split("**Summary:**")[1]
    assert text.splitlines()[1].startswith(TEXT.duration(figures["total_s"]) + " kernel time")
    rec = TEXT.recoverable_total(figures["recoverable_s"], figures["recoverable_unknown"])
    assert s["recoverable"] == TABLE.recoverable_total(
        figures["recoverable_s"], figures["recoverable_unknown"]
    )
    assert f"**{rec}** recoverable" in md
    assert f"{rec} recoverable" in text.splitlines()[1]
    # Latency only where the page has its card; the same figure everywhere.
    if s["latency"]:
        assert f"{TEXT.duration(figures['latency_s'])} latency" in text
        assert f"{TEXT.duration(figures['latency_s'])} latency-bound" in md
    else:
        assert " latency, " not in text.splitlines()[1]
        assert "latency-bound (no roof" not in md
    # The finding count, and the kinds add up to it.
    n = figures["findings"]
    assert s["findings"] == n == sum(c for _, c in s["finding_kinds"])
    word = "finding" if n == 1 else "findings"
    assert f"; {n} {word}" in md
    assert f"\n{n} {word}: " in text
    # The same first step.
    assert s["verdict"] in text.replace("\n", " ") or s["verdict"].split(":")[0] in text
    return page, md, text


def test_shipped_sample_tells_one_story() -> None:
    context = _context(SAMPLE, gpu="H100 SXM")
    page, md, text = _agree(context)
    first = story(context)["first"]
    assert first["kind"] == "kernel"
    short = next(
        k["kernel_short"] for k in context["kernels"] if k["kernel"] == first["kernels"][0]
    )
    assert page["summary"]["first_kernel"] == first["kernels"][0]
    assert page["summary"]["top"][0]["full"] == first["kernels"][0]
    verdict = md.split("**Verdict:**")[1].splitlines()[0]
    assert short[:20] in verdict
    assert f"first: look first at {short}" in text


def test_bert_without_gpu_says_what_to_do() -> None:
    context = _context(BERT)
    page, md, text = _agree(context)
    s = page["summary"]
    # Nothing placed: no latency card that the "not placeable" bar contradicts.
    assert s["latency"] is None
    assert [b["bound"] for b in s["by_bound_shown"]] == ["not placeable"]
    verdict = md.split("**Verdict:**")[1].splitlines()[0]
    assert "name the GPU with `--gpu NAME`" in verdict
    assert "collect these metrics: `ncu --metrics" in verdict
    assert "look first" not in verdict
    assert "--gpu NAME" in s["verdict"] and "--gpu NAME" in text
    # The device line says the device is not named.
    assert "**Device:** device not named in the export" in md
    assert "2 warnings, 2 info" in md


def test_gate_tripping_kernels_come_first() -> None:
    context = _context(SAMPLE, gpu="H100 SXM")
    last = context["kernels"][-1]
    context["gates"] = {
        "tripped": [{"rule": "efficiency<0.5", "kernel": last["kernel"], "message": "low"}]
    }
    page = build_page(context, plotly_js="cdn")
    md = render_markdown(context)
    text = render_summary(context, width=300)
    verdict = md.split("**Verdict:**")[1].splitlines()[0]
    short = last["kernel_short"] or last["kernel"]
    assert "fix the gate-tripping kernels first" in verdict
    assert short[:20] in verdict and "look first" not in verdict
    assert page["summary"]["first_kernel"] == last["kernel"]
    assert f"first: fix the gate-tripping kernels first: {short}" in text


def _one_launch() -> Any:
    rows = [{**fp32(1e9), "dram__bytes.sum": 1e8, "gpu__time_duration.sum": 1e-3}]
    return build_context(ncu_roofline.analyze(profile(rows), gpu=spec(), clocks="datasheet"))


def test_plurals_on_a_one_launch_export() -> None:
    context = _one_launch()
    page = build_page(context, plotly_js="cdn")
    html = render_html(page)
    md = render_markdown(context)
    text = render_summary(context)
    assert "1 kernel group, 1 launch" in text
    assert "(1 launch)" in md and "1 kernels" not in md
    assert "launch in 1 kernel group<" in html
    assert "1 launches" not in html + md + text
    assert "1 kernel groups" not in html + md + text
    n = len(context["findings"])
    if n == 1:
        assert "1 findings" not in html + md + text


def test_junit_suffix_is_a_format(tmp_path: Path) -> None:
    from ncu_roofline.cli.options import format_from_name

    assert format_from_name("r.junit") == "junit"
    assert format_from_name("r.junit.xml") == "junit"
    out = tmp_path / "r.junit"
    result = run("report", str(SAMPLE), "--gpu", "H100 SXM", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert out.read_text().lstrip().startswith("<?xml")


def test_terminal_words_are_not_cut_mid_word() -> None:
    assert _clip_words("tail effect, excess traffic", 20) == "tail effect, excess…"
    assert _clip_words("tail effect, excess traffic", 16) == "tail effect…"
    assert _clip_words("tail effect, excess traffic", 40) == "tail effect, excess traffic"
    assert not _clip_words("excess traffic", 10).endswith("traffi…")


def test_advice_once_per_page() -> None:
    context = _context(GEMM)
    html = render_html(build_page(context, plotly_js="cdn"))
    tries = re.findall(r'<p class="what"><strong>Try:</strong> (.*?)</p>', html, flags=re.S)
    assert len(tries) == len(set(tries))
