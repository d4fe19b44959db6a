"""The report's first screen, and legends that tell groups apart.

In headless Chromium: at 1440x900 the roofline chart starts on the first
screen, with the list of the groups with the most recoverable time beside or
under it; at a phone's width (390 px, in an iframe: headless Chromium makes
no narrower window) that list fits the screen, nothing scrolls sideways, and
each item shows the kernel, its bound and limiter, its time and its
recoverable time.  A probe script, added to a copy of the page, writes the
boxes' edges onto ``<body>``; ``--dump-dom`` reads them back.

Without a browser: groups whose legend names collide carry their grid, and
the history page gives twenty groups twenty colours.
"""

from __future__ import annotations

import html
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from ncu_roofline.render.charts.groups import GroupPoint, legend_names
from ncu_roofline.render.charts.history import group_colour, group_names
from tests.test_report_browser import (
    SAMPLE,
    TIMEOUT,
    chromium_args,
    cli_report,
    find_browser,
)

DESKTOP = (1440, 900)
PHONE = (390, 844)

#: Writes the first chart's and the top list's edges onto <body>, after
#: report.js ran and the charts were drawn.
_PROBE = """<script>
setTimeout(function () {
  var b = document.body;
  var chart = document.querySelector("#roofline .chart");
  var list = document.querySelector("ol.top-kernels");
  if (chart) { b.setAttribute("data-chart-top", String(chart.getBoundingClientRect().top)); }
  if (list) {
    var r = list.getBoundingClientRect();
    b.setAttribute("data-list-top", String(r.top));
    b.setAttribute("data-list-left", String(r.left));
    b.setAttribute("data-list-right", String(r.right));
  }
  if (chart && list) {
    b.setAttribute("data-chart-bottom", String(chart.getBoundingClientRect().bottom));
    b.setAttribute("data-chart-right", String(chart.getBoundingClientRect().right));
  }
  b.setAttribute("data-probe", "1");
}, 1000);
</script></body>"""

_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="{src}" width="{w}" height="{h}" style="border:0"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  setTimeout(function () {{
    var d = document.getElementById("f").contentDocument;
    ["data-ready", "data-errors", "data-chart-top", "data-list-top", "data-list-right",
     "data-probe"].forEach(function (k) {{
      document.body.setAttribute(k, d.body.getAttribute(k) || "");
    }});
    document.body.setAttribute("data-scroll-width", String(d.scrollingElement.scrollWidth));
    var right = 0;
    d.querySelectorAll("ol.top-kernels li, ol.top-kernels li *").forEach(function (e) {{
      right = Math.max(right, e.getBoundingClientRect().right);
    }});
    document.body.setAttribute("data-items-right", String(right));
    var items = [];
    d.querySelectorAll("ol.top-kernels li").forEach(function (li) {{ items.push(li.innerText); }});
    document.body.setAttribute("data-items", items.join("\\n@@\\n"));
  }}, 2500);
}});
</script></body></html>
"""


@pytest.fixture(scope="module")
def browser() -> str:
    path = find_browser()
    if path is None:
        pytest.skip("no headless browser found")
    return path


@pytest.fixture(scope="module")
def probed_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample's report with the probe added (a copy; the report stays as written)."""
    out = tmp_path_factory.mktemp("first-screen")
    page = out / "sample.html"
    cli_report(str(SAMPLE), "-o", str(page), "--model", "llama-3-8b")
    probed = out / "probed.html"
    text = page.read_text(encoding="utf-8")
    probed.write_text(text.replace("</body>", _PROBE), encoding="utf-8")
    return probed


def _dump(browser: str, url: str, workdir: Path, *extra: str) -> dict[str, str]:
    profile = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    proc = subprocess.run(
        [*chromium_args(browser, profile), *extra, "--dump-dom", url],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(lxml.html.document_fromstring(proc.stdout).body.attrib)


def test_desktop_first_screen_has_the_chart_and_the_top_list(
    browser: str, probed_sample: Path
) -> None:
    body = _dump(
        browser,
        probed_sample.resolve().as_uri(),
        probed_sample.parent,
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
    )
    assert body.get("data-probe") == "1" and body.get("data-errors") == "", body
    # The chart starts on the first screen, with room to show most of it.
    assert 0 < float(body["data-chart-top"]) < DESKTOP[1] - 400, body
    # The top list is beside the chart (same band, to its right) or under it.
    beside = float(body["data-list-left"]) >= float(body["data-chart-right"]) and float(
        body["data-list-top"]
    ) < float(body["data-chart-bottom"])
    under = float(body["data-list-top"]) >= float(body["data-chart-bottom"])
    assert beside or under, body
    assert float(body["data-list-right"]) <= DESKTOP[0], body


def test_phone_shows_summary_chart_then_top_list_without_sideways_scroll(
    browser: str, probed_sample: Path
) -> None:
    frame = probed_sample.with_name("frame.html")
    frame.write_text(
        _FRAME.format(src=probed_sample.name, w=PHONE[0], h=PHONE[1]), encoding="utf-8"
    )
    body = _dump(
        browser,
        frame.resolve().as_uri(),
        probed_sample.parent,
        "--allow-file-access-from-files",
        "--window-size=800,900",
    )
    assert body.get("data-ready") == "1" and body.get("data-errors") == "", body
    assert body.get("data-probe") == "1", body
    assert int(body["data-scroll-width"]) <= PHONE[0], body
    assert 0 < float(body["data-items-right"]) <= PHONE[0], body
    assert 0 < float(body["data-list-right"]) <= PHONE[0], body
    # Summary, then the chart, then the list.
    assert float(body["data-chart-top"]) < float(body["data-list-top"]), body
    items = body["data-items"].split("\n@@\n")
    assert len(items) == 5, items
    for item in items:
        assert item.startswith("#"), item
        assert "time" in item and "recoverable" in item, item
        assert any(b in item for b in ("memory", "compute")), item
        assert "limiter:" in item, item


def test_top_list_reads_as_a_list_with_the_numbers(probed_sample: Path) -> None:
    tree = lxml.html.document_fromstring(probed_sample.read_text(encoding="utf-8"))
    (section,) = tree.xpath('//section[@id="roofline"]')
    items = section.xpath('.//ol[contains(@class, "top-kernels")]/li')
    assert len(items) == 5
    assert not tree.xpath('//table[contains(@class, "top-kernels")]')
    first = items[0]
    assert first.get("data-rank") == first.xpath('.//span[@class="rank"]')[0].text[1:]
    assert first.xpath('.//span[@class="time"]')[0].text_content().startswith("time ")
    # The summary comes first, then the chart and its list, then the bound classes.
    ids = [s.get("id") for s in tree.xpath("//main/section")]
    assert ids[:3] == ["summary", "roofline", "bounds"], ids


# --------------------------------------------------------------------------- legends


def _point(rank: int, short: str, grid: str) -> GroupPoint:
    record: dict[str, Any] = {"rank": rank, "kernel_short": short, "kernel": short, "grid": grid}
    return GroupPoint(record=record, x=1.0, y=1.0, bound="memory", finding=[])


def test_colliding_legend_names_carry_number_and_grid() -> None:
    gemv = "gemvx::kernel<cublasGemvParamsEx<int, float>>"
    points = [
        _point(4, gemv, "(128, 1, 1)"),
        _point(5, gemv + " other tail", "(64, 1, 1)"),  # the same once cut at 32
        _point(6, "flash_fwd_splitkv_kernel", "(8, 32, 1)"),
    ]
    names = [html.unescape(n) for n in legend_names(points)]
    assert names[0].startswith("4 · gemvx::kernel<cublasGemvParams") and names[0].endswith(
        " · grid (128, 1, 1)"
    ), names
    assert names[1].startswith("5 · ") and names[1].endswith(" · grid (64, 1, 1)"), names
    assert names[0] != names[1]
    # A name of its own keeps its entry short.
    assert names[2] == "6 · flash_fwd_splitkv_kernel", names


def test_history_legend_names_collide_only_with_the_grid() -> None:
    groups: list[Any] = [
        {"number": 1, "kernel_short": "gemv", "grid": "(1, 1, 1)"},
        {"number": 2, "kernel_short": "gemv", "grid": "(2, 1, 1)"},
        {"number": 3, "kernel_short": "gemm", "grid": "(3, 1, 1)"},
    ]
    assert group_names(groups) == [
        "#1 gemv · grid (1, 1, 1)",
        "#2 gemv · grid (2, 1, 1)",
        "#3 gemm",
    ]


def test_history_palette_does_not_repeat_for_twenty_groups() -> None:
    colours = [group_colour(i) for i in range(20)]
    assert len(set(colours)) == 20, colours
    many = [group_colour(i) for i in range(200)]
    assert len(set(many)) == 200


def test_history_legend_cuts_long_names_before_comparing() -> None:
    long = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize"
    groups: list[Any] = [
        {"number": 1, "kernel_short": long + "_a", "grid": "(1, 1, 1)"},
        {"number": 2, "kernel_short": long + "_b", "grid": "(2, 1, 1)"},
    ]
    names = group_names(groups)
    assert names[0] != names[1] and all(" · grid (" in n for n in names), names
    assert all(len(n.split(" · ")[0]) <= 4 + 32 for n in names), names
