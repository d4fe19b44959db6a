"""Markdown (PR comment), JUnit XML and terminal summary renderers."""

from __future__ import annotations

import copy
import html
import re
from typing import Any

import pytest
from lxml import etree

import ncu_roofline
from ncu_roofline.render.junit_report import render_junit
from ncu_roofline.render.markdown_report import MAX_MARKDOWN_CHARS, render_markdown
from ncu_roofline.render.terminal import render_summary
from ncu_roofline.report.context import build_context
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import find_model
from tests.helpers import SAMPLE, SampleLaunch, sample_launches, sample_roofs

HOSTILE = [
    "</details><script>x</script>",
    "a|b||c",
    "tick`s``and```more",
    "`edge`",
    "back\\|slash",
    "*b* _i_ [l](http://x) ![i](y) <img src=x onerror=alert(1)>",
    "&amp; &lt; $x$ ~~s~~ @someone #1",
    "line\nbreak\r\x00\x1b[31m",
    "<!-- open comment",
    "<details>",
    " spaced ",
]


def _gated(context: Any, tripped: list[Any]) -> Any:
    """The context with a gates record: its rules and those tripped (the renderers' one channel)."""
    return {**context, "gates": {"rules": sorted({g["rule"] for g in tripped}), "tripped": tripped}}


def _as_shown(name: str) -> str:
    """A HOSTILE name as the documents show it: breaks as spaces, controls as their escapes."""
    for raw, shown in (("\n", " "), ("\r", " "), ("\x00", "\\x00"), ("\x1b", "\\x1b")):
        name = name.replace(raw, shown)
    return name


@pytest.fixture(scope="module")
def sample() -> dict[str, Any]:
    """The report context of the simulated Llama 3 8B decode sample, with theory."""
    config = TheoryConfig(model=find_model("llama-3-8b"))
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]), theory=config)
    return build_context(analysis)


@pytest.fixture
def context(sample: dict[str, Any]) -> dict[str, Any]:
    """A copy of the sample context a test may change."""
    return copy.deepcopy(sample)


#: Kernels of the sample the analysis finds memory-bound (name fragments).
MEMORY_BOUND = r"gemvx::kernel<|flash_fwd_splitkv_kernel<|elementwise_kernel<"


def _csv_gemm() -> SampleLaunch:
    """The sm90 GEMM's one launch, from the input CSV."""
    (gemm,) = [x for x in sample_launches() if x.kernel.startswith("sm90_xmma_gemm")]
    return gemm


def _csv_flash() -> list[SampleLaunch]:
    """The split-KV attention kernel's 4 launches, from the input CSV."""
    return [x for x in sample_launches() if "flash_fwd_splitkv_kernel<" in x.kernel]


def _gemm(ctx: dict[str, Any]) -> dict[str, Any]:
    return next(k for k in ctx["kernels"] if k["kernel_short"].startswith("sm90_xmma_gemm"))


def _hostile(ctx: dict[str, Any]) -> dict[str, Any]:
    """The context with its kernels, findings, roofs and inputs renamed to hostile strings."""
    for k, name in zip(ctx["kernels"], HOSTILE, strict=False):
        k["kernel_short"] = name
        k["kernel"] = f"void {name}(int)"
    ctx["kernels"][0]["grid"] = "<b>|(1, 1, 1)"
    ctx["findings"].append(
        {
            "kind": "below-roof</details>",
            "kernel": None,
            "severity": "warning",
            "message": "msg </details><script>alert(1)</script> | ` x\n## heading",
        }
    )
    ctx["roofs"][0]["ceilings"][0]["source"] = "</summary><script>y</script>|"
    ctx["inputs"][0]["path"] = "dir/<script>`x`|.csv"
    return ctx


# --- a small reader of the GitHub table and code-span rules ------------------


def _cells(row: str) -> list[str]:
    """A table row's cells as GitHub splits them (``\\x`` pairs never split)."""
    body = row.strip()
    assert body.startswith("|") and body.endswith("|"), row
    cells, cell, i = [], "", 1
    while i < len(body) - 1:
        if body[i] == "\\":
            cell += body[i : i + 2]
            i += 2
        elif body[i] == "|":
            cells.append(cell)
            cell = ""
            i += 1
        else:
            cell += body[i]
            i += 1
    cells.append(cell)
    # GitHub removes the backslash of every escaped pipe before parsing a cell.
    return [c.replace("\\|", "|").strip() for c in cells]


def _split_code(text: str) -> tuple[list[str], str]:
    """The contents of the code spans in ``text`` and the text outside them."""
    spans: list[str] = []
    outside = ""
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            outside += text[i : i + 2]
            i += 2
            continue
        if text[i] == "`":
            n = len(re.match(r"`+", text[i:]).group())  # type: ignore[union-attr]
            close = re.compile(rf"(?<!`)`{{{n}}}(?!`)").search(text, i + n)
            if close is None:
                outside += "`" * n
                i += n
                continue
            content = text[i + n : close.start()]
            if len(content) > 1 and content[0] == content[-1] == " " and content.strip():
                content = content[1:-1]
            spans.append(content)
            i = close.end()
            continue
        outside += text[i]
        i += 1
    return spans, outside


def _plain(text: str) -> str:
    """Escaped Markdown text back to what it shows."""
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


def _shown(cell: str) -> str:
    """What a cell holding one code span or escaped text shows."""
    spans, outside = _split_code(cell)
    return spans[0] if spans and not outside.strip() else _plain(outside)


def _assert_inert(md: str) -> None:
    """No HTML reaches the document except the report's own details/summary tags."""
    opened = closed = 0
    for line in md.splitlines():
        if line in ("<details>", "</details>"):
            opened += line == "<details>"
            closed += line == "</details>"
            continue
        own = re.fullmatch(r"<summary>([^<>&`]*)</summary>", line)
        if own:
            continue
        assert not line.startswith("<"), line
        _, outside = _split_code(line)
        assert "<" not in outside and ">" not in outside, line
        assert re.fullmatch(r"(?:[^&]|&(?:amp|lt|gt);)*", outside), line
    assert opened == closed


# --- Markdown -----------------------------------------------------------------


def test_markdown_top_row_is_the_gemm_with_its_recoverable_time(context: dict[str, Any]) -> None:
    md = render_markdown(context, html_url="https://ci.example/report.html")
    lines = md.splitlines()
    assert lines[0] == "## ncu-roofline report: `simulated_llama3_8b_decode_h100.details.csv`"
    head = lines.index("### Top 10 kernels by recoverable time")
    header, rule, first = lines[head + 2], lines[head + 3], lines[head + 4]
    assert _cells(header) == [
        "#",
        "Kernel",
        "Bound",
        "At roof",
        "Time",
        "Recoverable",
        "Bytes/min",
        "Try",
    ]
    assert len(_cells(rule)) == 8
    gemm = _gemm(context)
    cells = _cells(first)
    # Cut to 50 characters in the middle: the tile and library suffix survive.
    assert _shown(cells[1]) == "sm90_xmma_gemm_bf16bf16_b…_k_off_kernel__5x_cublas"
    assert gemm["kernel_short"].startswith("sm90_xmma_gemm_bf16bf16_b")
    assert gemm["kernel_short"].endswith("_k_off_kernel__5x_cublas")
    assert cells[2] == "compute"
    # From the CSV: 137,438,953,472 tensor FLOPs in 224,751 ns against 540,672 FLOP/cycle
    # x its 1.5916 GHz SM clock is 71.0% of the roof, which would leave 225 µs x 0.290 =
    # 65.1 µs; but ncu's SM throughput is 76.60%, so at most 224,751 ns x (1 - 0.7660)
    # = 52.6 µs can be recovered.
    g = _csv_gemm()
    assert (g.duration_s, round(100 * g.efficiency, 1)) == (224_751e-9, 71.0)
    assert g.duration_s * (1 - g.efficiency) == pytest.approx(65.1e-6, abs=0.05e-6)
    assert g.duration_s * (1 - 0.7660) == pytest.approx(52.6e-6, abs=0.05e-6)
    assert cells[3:6] == ["71.0%", "225 µs", "52.6 µs"]
    # Theory: the split-KV attention kernel moves 4x its minimal bytes: 135,471,616
    # bytes read and written by its 4 launches (CSV) over 4 x 8,404,992 (KV read once,
    # q and out: see test_theory_report.py) = 4.0295.
    measured = sum(x.dram_bytes for x in _csv_flash())
    assert measured / (4 * 8_404_992) == pytest.approx(4.03, abs=0.005)
    flash = next(_cells(x) for x in lines if "`flash_fwd_splitkv_kernel`" in x)
    assert flash[-2] == "4.03×"
    # Repeated short names say which grid they are.
    assert any("`gemvx::kernel<cublasGemvParamsEx>` grid (7168, 1, 1)" in x for x in lines)
    assert lines[-1] == "[Full HTML report](https://ci.example/report.html)"
    _assert_inert(md)


def test_markdown_verdict_bound_table_findings_and_details(context: dict[str, Any]) -> None:
    md = render_markdown(context)
    summary = context["summary"]
    verdict = next(x for x in md.splitlines() if x.startswith("**Summary:**"))
    # The GEMM has the most recoverable time (52.6 µs, see above): look there first.
    assert md.splitlines()[4] == (
        "**Verdict:** no gates set; look first at "
        "`sm90_xmma_gemm_bf16bf16_b…_k_off_kernel__5x_cublas` (52.6 µs recoverable, compute)."
    )
    assert md.splitlines()[2] == "**Device:** CC 9.0, SM clock 1.59 GHz"
    # The 44 launches' durations in the CSV sum to 1,437,532 ns.
    launches = sample_launches()
    assert sum(x.duration_s for x in launches) == pytest.approx(1_437_532e-9, rel=1e-12)
    assert "**1.44 ms** kernel time" in verdict
    # The kernel groups' recoverable times, summed.
    recoverable = sum(k["recoverable_s"] or 0.0 for k in context["kernels"])
    assert recoverable == pytest.approx(summary["recoverable_s"], rel=1e-9)
    # Each group's bounded by ncu's busiest unit as well as by its roof (the
    # GEMM alone: 65.1 -> 52.6 µs), so well under the roofs' 318 µs.
    assert recoverable == pytest.approx(206e-6, abs=0.5e-6)
    assert "**206 µs** recoverable" in verdict
    assert "13 kernels (44 launches)" in verdict
    # The split-KV combine kernel is latency-class: no roof finding promises its time.
    assert "3 findings (1 warning, 2 info)" in verdict
    assert "gate" not in verdict
    # Memory-bound: the GEMVs (4 grids, 17 launches), the split-KV attention kernel
    # (4 launches) and the strided copy (1): 6 groups, 22 launches, 1,136,812 ns of
    # 1,437,532 = 79.1%.  Compute-bound: the sm90 GEMM, 224,751 ns = 15.6%.
    memory = [x for x in launches if re.search(MEMORY_BOUND, x.kernel)]
    assert (len(memory), len({(x.kernel, x.grid) for x in memory})) == (22, 6)
    assert sum(x.duration_s for x in memory) == pytest.approx(1_136_812e-9, rel=1e-12)
    total = sum(x.duration_s for x in launches)
    assert sum(x.duration_s for x in memory) / total == pytest.approx(0.791, abs=0.0005)
    assert _csv_gemm().duration_s / total == pytest.approx(0.156, abs=0.0005)
    assert "| memory | 6 | 22 | 1.14 ms | 79.1% |" in md
    assert "| compute | 1 | 1 | 225 µs | 15.6% |" in md
    assert "communication" not in md.split("### Top")[0]  # empty classes are left out
    findings = [x for x in md.splitlines() if x.startswith("- **")]
    assert [x.split("**")[1] for x in findings] == ["warning", "info", "info"]
    # Split-KV decode attention gets the decode-attention advice once, its
    # finding listed under it.
    assert findings[0].startswith("- **warning** (excess-traffic): *Try:* Read each KV head once")
    after = md.splitlines()[md.splitlines().index(findings[0]) + 1]
    assert after.startswith("  - flash\\_fwd\\_splitkv\\_kernel moves 4.0x")
    assert "<summary>All kernels (13)</summary>" in md
    assert "<summary>Roofs</summary>" in md
    # 540,672 FLOP/cycle x the median SM clock of the 44 launches, 1.5932 GHz.
    assert sample_roofs()["tensor_bf16"] == pytest.approx(861e12, abs=0.5e12)
    assert (
        "| `tensor_bf16` | compute | 861 TFLOP/s | profile: ncu peak metrics x measured clock |"
        in md
    )
    assert "Full HTML report" not in md
    assert len(re.findall(r"^\| \d+ \| `", md, re.MULTILINE)) == 10 + 13


def test_markdown_gates_section_and_verdict(context: dict[str, Any]) -> None:
    gemm = _gemm(context)
    gates = [
        {"rule": "regression>5%", "kernel": gemm["kernel"], "message": "225 µs, +7% vs base"},
        {"rule": "warnings>0", "kernel": None, "message": "1 warning"},
    ]
    md = render_markdown(_gated(context, gates))
    assert "**2 gates tripped**" in md
    section = md.split("### Gates\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert section == [
        "- **regression&gt;5%**, `sm90_xmma_gemm_bf16bf16_b…_k_off_kernel__5x_cublas`: "
        "225 µs, +7% vs base",
        "- **warnings&gt;0**, whole profile: 1 warning",
    ]
    clean = render_markdown(_gated(context, []))
    assert "**Verdict:** gates passed; look first at" in clean
    assert "### Gates" not in clean


def test_markdown_escapes_hostile_names(context: dict[str, Any]) -> None:
    ctx = _hostile(context)
    gates = [{"rule": "<rule>|", "kernel": ctx["kernels"][0]["kernel"], "message": "</details>|"}]
    md = render_markdown(_gated(ctx, gates), html_url="javascript:alert(1)")
    _assert_inert(md)
    lines = md.splitlines()
    assert lines.count("<details>") == lines.count("</details>") == 2
    # Every row of the full table has its 13 cells and shows the name exactly.
    start = next(i for i, x in enumerate(lines) if x.startswith("<summary>All kernels"))
    table = lines[start : lines.index("</details>", start)]
    rows = [x for x in table if x.startswith("| ") and not x.startswith("| -")][1:]
    assert len(rows) == len(ctx["kernels"])
    for row, k in zip(rows, ctx["kernels"], strict=True):
        cells = _cells(row)
        assert len(cells) == 13, row
        # The collapsed table shows the full name.
        assert _shown(cells[1]) == _as_shown(k["kernel"]), row
    assert _plain(_cells(rows[0])[2]) == "<b>|(1, 1, 1)"
    # A javascript: address is shown, never linked.
    assert "](javascript" not in md
    assert md.rstrip().endswith("Full HTML report: `javascript:alert(1)`")
    # The message's newline cannot start a heading.
    assert "\n## heading" not in md


def test_markdown_escapes_titles_gates_and_roof_sources(context: dict[str, Any]) -> None:
    ctx = _hostile(context)
    gates = [{"rule": "<rule>", "kernel": "`x`</details>", "message": "<b>bold</b>"}]
    md = render_markdown(_gated(ctx, gates))
    _assert_inert(md)
    spans, _ = _split_code(md.splitlines()[0])
    assert spans == ["<script>`x`|.csv"]
    assert "&lt;/summary&gt;&lt;script&gt;y&lt;/script&gt;\\|" in md
    assert "- **&lt;rule&gt;**, `` `x`</details> ``: &lt;b&gt;bold&lt;/b&gt;" in md


def _many(ctx: dict[str, Any], n: int) -> dict[str, Any]:
    """The sample context with n kernel groups with long names."""
    base = ctx["kernels"][2]
    kernels = []
    for i in range(n):
        k = copy.deepcopy(base)
        k.update(
            rank=i + 1,
            kernel=f"void kernel_{i}<{'T' * 300}>(Params)",
            kernel_short=f"kernel_{i}_{'y' * 80}",
            recoverable_s=1e-3 / (i + 1),
        )
        kernels.append(k)
    ctx["kernels"] = kernels
    return ctx


def test_markdown_fits_a_comment_with_5000_kernels(context: dict[str, Any]) -> None:
    ctx = _many(context, 5000)
    md = render_markdown(ctx, html_url="https://ci.example/r.html", top=10)
    assert len(md) <= MAX_MARKDOWN_CHARS
    # The details table keeps as many rows as fit, and says so.
    match = re.search(r"<summary>All kernels \(([\d,]+) of 5,000, the rest do not fit", md)
    assert match
    shown = int(match.group(1).replace(",", ""))
    assert 100 < shown < 5000
    assert len(re.findall(r"^\| \d+ \| `kernel_", md, re.MULTILINE)) == 10
    assert len(re.findall(r"^\| \d+ \| `void kernel_", md, re.MULTILINE)) == shown
    # The small roofs section stays: the full table gave up rows for it.
    assert "<summary>Roofs</summary>" in md
    assert "### Top 10 kernels by recoverable time" in md
    assert md.rstrip().endswith("[Full HTML report](https://ci.example/r.html)")
    _assert_inert(md)


def test_markdown_shrinks_findings_gates_and_top_when_needed(context: dict[str, Any]) -> None:
    ctx = _many(context, 5000)
    ctx["findings"] = [
        {"kind": "below-roof", "kernel": k["kernel"], "severity": "info", "message": "m " * 1500}
        for k in ctx["kernels"][:400]
    ]
    gates = [
        {"rule": "regression>5%", "kernel": k["kernel"], "message": "slower " * 400}
        for k in ctx["kernels"][:300]
    ]
    md = render_markdown(_gated(ctx, gates), top=500)
    assert len(md) <= MAX_MARKDOWN_CHARS
    assert "<details>" not in md
    assert "**300 gates tripped**" in md
    assert "more gate(s)" in md
    assert "more finding(s) in the full report" in md
    assert re.search(r"### Top (\d+) kernels", md)
    _assert_inert(md)


def test_markdown_with_missing_values() -> None:
    ctx: dict[str, Any] = {
        "summary": {"total_duration_s": None, "recoverable_s": None, "kernels": 1},
        "kernels": [
            {"rank": 1, "kernel": "k", "kernel_short": "k", "bound": "not placeable"},
        ],
        "findings": [],
        "roofs": [],
        "inputs": [],
        "theory": None,
    }
    md = render_markdown(ctx)
    assert "**n/a** kernel time" in md
    assert "No kernel has a known recoverable time" in md
    # No launch shape: no Grid and Block columns, said once under the table.
    assert "| 1 | `k` | n/a | not placeable | n/a |" in md
    assert "Grid and block: launch shape not exported." in md
    # "?" marks only the unknown recoverable time: the summary and the last column.
    assert "**?** recoverable at the roofs" in md
    assert "| n/a | ? |" in md
    assert "?" not in md.replace("**?** recoverable", "").replace("| n/a | ? |", "")


# --- JUnit ----------------------------------------------------------------------


def _suite(xml: bytes) -> Any:
    assert xml.startswith(b"<?xml version='1.0' encoding='UTF-8'?>\n")
    root = etree.fromstring(xml)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    return suite


def test_junit_one_testcase_per_group(context: dict[str, Any]) -> None:
    suite = _suite(render_junit(context))
    cases = suite.findall("testcase")
    assert len(cases) == len(context["kernels"]) == 13
    assert suite.get("tests") == "13"
    assert (suite.get("failures"), suite.get("errors"), suite.get("skipped")) == ("0", "0", "0")
    assert float(suite.get("time")) == pytest.approx(context["summary"]["total_duration_s"])
    gemm = _gemm(context)
    first = cases[0]
    assert first.get("classname") == "ncu-roofline.simulated_llama3_8b_decode_h100.details"
    assert first.get("name") == f"{gemm['kernel_short']} grid (16, 32, 1) block (384, 1, 1)"
    assert float(first.get("time")) == pytest.approx(gemm["total_duration_s"])
    out = first.findtext("system-out")
    assert "bound: compute (intensity at or above the ridge point)" in out
    assert "efficiency: 71.0% of its roof" in out
    assert "recoverable: 52.6 µs of 225 µs over 1 launch " in out  # see the Markdown test
    assert f"kernel: {gemm['kernel']}" in out
    assert "e-" not in "".join(c.get("time") for c in cases)  # decimal, no exponent


def test_junit_failures_attach_to_their_kernels(context: dict[str, Any]) -> None:
    gemm = _gemm(context)
    gemv = next(k for k in context["kernels"] if k["kernel_short"].startswith("gemvx"))
    gates = [
        {"rule": "regression>5%", "kernel": gemm["kernel"], "message": "slower by 7%"},
        {"rule": "efficiency<50%", "kernel": gemm["kernel"], "message": "below half"},
        {"rule": "regression>5%", "kernel": gemv["kernel"], "message": "gemv slower"},
        {"rule": "warnings>0", "kernel": None, "message": "1 warning"},
        {"rule": "regression>5%", "kernel": "gone_kernel", "message": "missing"},
    ]
    suite = _suite(render_junit(_gated(context, gates), suite_name="perf"))
    assert suite.get("name") == "perf"
    cases = suite.findall("testcase")
    assert suite.get("tests") == str(len(context["kernels"]) + 1)
    by_name = {c.get("name"): c for c in cases}
    gemm_case = by_name[f"{gemm['kernel_short']} grid {gemm['grid']} block {gemm['block']}"]
    assert [(f.get("type"), f.get("message")) for f in gemm_case.findall("failure")] == [
        ("regression>5%", "slower by 7%"),
        ("efficiency<50%", "below half"),
    ]
    # One full name, four launch configurations: each group fails.
    gemv_cases = [c for c in cases if c.get("name").startswith("gemvx")]
    assert len(gemv_cases) == 4
    assert all(len(c.findall("failure")) == 1 for c in gemv_cases)
    profile = by_name["profile"]
    assert [f.get("message") for f in profile.findall("failure")] == [
        "1 warning",
        "kernel not in the profile: gone_kernel: missing",
    ]
    assert suite.get("failures") == str(1 + 4 + 1)
    failing = {c.get("name") for c in cases if c.find("failure") is not None}
    assert len(failing) == 6


def test_junit_skips_unplaceable_groups(context: dict[str, Any]) -> None:
    context["kernels"][1].update(bound="not placeable", bound_reason="no DRAM bytes")
    suite = _suite(render_junit(context))
    skipped = [c for c in suite.findall("testcase") if c.find("skipped") is not None]
    assert [c.find("skipped").get("message") for c in skipped] == ["no DRAM bytes"]
    assert suite.get("skipped") == "1"


def test_junit_shows_controls_and_strips_characters_xml_cannot_hold(
    context: dict[str, Any],
) -> None:
    k = context["kernels"][0]
    k["kernel_short"] = "bad\x00name\x1b[31m</testcase>&"
    k["kernel"] = "void bad\x00name\x1b[31m\ufffe(int)"
    gates = [{"rule": "r\x07ule", "kernel": k["kernel"], "message": "m\x00sg\x1b"}]
    xml = render_junit(_gated(context, gates), suite_name="s\x0cuite")
    suite = _suite(xml)
    case = suite.findall("testcase")[0]
    # Controls are shown as their escapes; U+FFFE, which XML cannot hold, is dropped.
    assert case.get("name").startswith("bad\\x00name\\x1b[31m</testcase>& grid ")
    assert "kernel: void bad\\x00name\\x1b[31m(int)" in case.findtext("system-out")
    failure = case.find("failure")
    assert (failure.get("type"), failure.get("message")) == ("r\\x07ule", "m\\x00sg\\x1b")
    assert suite.get("name") == "s\\x0cuite"
    assert b"\x00" not in xml and b"\x1b" not in xml


# --- terminal summary -------------------------------------------------------------


@pytest.mark.parametrize("width", [80, 100, 60, 132])
def test_summary_fits_the_width(context: dict[str, Any], width: int) -> None:
    text = render_summary(context, width=width)
    lines = text.splitlines()
    assert all(len(x) <= width for x in lines), [x for x in lines if len(x) > width]
    assert lines[0] == "ncu-roofline: simulated_llama3_8b_decode_h100.details.csv"
    assert "\x1b" not in text
    gemm_row = next(x for x in lines if x.lstrip().startswith("1 "))
    # Cut in the middle: the head and the "_cublas" tail both survive.
    assert "sm90_xm" in gemm_row and "…" in gemm_row and "_cublas" in gemm_row
    assert "71.0%" in gemm_row
    assert (
        "52.6 µs" in gemm_row
    )  # recoverable, see test_markdown_top_row_is_the_gemm_with_its_recoverable_time
    # The findings by severity, then the first step: the page's and the Markdown's.
    assert lines[-2] == "3 findings: 0 errors, 1 warning, 2 info"
    assert lines[-1].startswith("first: look first at sm90_xm")


def test_summary_columns_and_finding_kinds(context: dict[str, Any]) -> None:
    lines = render_summary(context, width=100, top=5).splitlines()
    assert lines[1].startswith("1.44 ms kernel time, ")  # 1,437,532 ns in the CSV
    assert lines[3].split() == [
        "#",
        "kernel",
        "grid",
        "bound",
        "roof%",
        "time",
        "share",
        "recov.",
        "findings",
    ]
    flash = next(x for x in lines if "flash_fwd_splitkv_kernel" in x)
    # The grid as the CSV prints it, (1, 32, 16), without brackets and spaces.
    assert " 1,32,16 " in flash
    # Finding kinds in words, the findings column cut to what the name leaves.
    assert flash.endswith("excess traffic…")
    assert "… 8 more kernel groups not shown" in lines


def test_summary_removes_control_characters_and_long_names(context: dict[str, Any]) -> None:
    context["kernels"][0]["kernel_short"] = "evil\x1b[2J\x1b]0;title\x07" + "z" * 500
    context["inputs"][0]["path"] = "/" + "d" * 300 + "/in\x1b[31m.csv"
    for width in (80, 100, 40):
        text = render_summary(context, width=width)
        assert all(len(x) <= width for x in text.splitlines())
        assert not re.search(r"[\x00-\x1f\x7f]", text.replace("\n", ""))


def test_summary_shows_theory_efficiency_where_no_roof_applies() -> None:
    # A kernel with no roof (efficiency n/a) but a theory floor of 0.5 µs over its
    # 2 µs: 25% of the floor, marked "th" and explained once under the table.
    ctx: dict[str, Any] = {
        "summary": {"total_duration_s": 2e-6, "recoverable_s": None, "launches": 1},
        "kernels": [
            {"rank": 1, "kernel": "k", "kernel_short": "k", "bound": "not placeable",
             "efficiency": None, "theory_efficiency": 0.25, "total_duration_s": 2e-6},
        ],
        "findings": [{"kind": "not-placeable", "kernel": "k", "severity": "info"}],
        "inputs": [],
    }  # fmt: skip
    lines = render_summary(ctx, width=100).splitlines()
    row = next(x for x in lines if x.startswith("1 "))
    assert row.split()[:5] == ["1", "k", "not", "placeable", "25.0%"]
    assert row.split()[5] == "th" and row.endswith("not placeable")
    assert "th: share of the theory floor, for kernels with no roof" in lines
    assert "grid and block: launch shape not exported" in lines
