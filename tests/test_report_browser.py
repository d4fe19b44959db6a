"""The HTML report opened in a real browser (headless Chromium).

Reports are generated with the CLI, as a user generates them, and loaded with
``chromium --headless --dump-dom``; ``report.js`` records its state on
``<body>`` (``data-ready``, ``data-errors``, ``data-points``,
``data-drawn-points``, ``data-rows``), so the DOM after the scripts ran says
whether the charts were drawn and the table was set up without errors.

Covered: the shipped sample (no JS errors, every plottable kernel group drawn,
one table row per group, a screenshot); kernel names carrying markup,
template syntax and C++ templates through the whole pipeline (nothing runs,
no element is injected, the names read as text); the CDN build; a profile
without roofs; the sort keys and filter controls of the kernel table.

The browser tests skip when no Chromium binary is found.  Tests that only read
the generated HTML run everywhere.
"""

from __future__ import annotations

import csv
import json
import math
import re
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lxml.html
import pytest

from tests.helpers import BROWSERS, SAMPLE, find_browser, run

NBODY = "Lakoc__Nbody_CUDA__profile_1.out"
TIMEOUT = 120
#: Bound classes that have no point on the chart.
UNPLOTTED_BOUNDS = ("not placeable", "communication")
BOUND_CLASSES = ("memory", "compute", "latency", "communication", "not placeable")

#: Hostile kernel names, one per kernel of the synthetic profile.
PWN = "</script><img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
TEMPLATE_SYNTAX = "{{7*7}}"
BOLD = "<b onmouseover=alert(1)>bold</b>"
CPP = "void k<float, 4>(float*) & more"
HOSTILE_NAMES = (PWN, TEMPLATE_SYNTAX, BOLD, CPP)


# --------------------------------------------------------------------------- helpers


@pytest.fixture(scope="module")
def browser() -> str:
    path = find_browser()
    if path is None:
        pytest.skip(f"no headless browser found (looked for {', '.join(BROWSERS)} on PATH)")
    return path


def cli_report(*args: str) -> subprocess.CompletedProcess[str]:
    """``ncu-roofline report ARGS --force``; fails the test on a non-zero exit."""
    proc = run("report", *args, "--force", timeout=TIMEOUT)
    assert proc.returncode == 0, f"report {' '.join(args)} failed:\n{proc.stderr}"
    return proc


def chromium_args(browser: str, profile_dir: Path) -> list[str]:
    return [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile_dir}",
        "--virtual-time-budget=10000",
        "--enable-logging=stderr",
        "--v=0",
    ]


@dataclass
class Loaded:
    """A page after its scripts ran."""

    page: Path
    dom: str
    tree: Any  # lxml.html.HtmlElement
    body: dict[str, str]
    console: list[str]  # CONSOLE / Uncaught lines of Chromium's log

    def console_problems(self) -> list[str]:
        """Uncaught exceptions anywhere, and console messages from the page mentioning an error."""
        url = self.page.resolve().as_uri()
        return [
            line
            for line in self.console
            if "Uncaught" in line
            or (url in line and "error" in line.split(", source: ")[0].lower())
        ]

    def kernel_rows(self) -> list[Any]:
        return self.tree.xpath('//table[@id="kernel-table"]/tbody/tr')


def load_in_browser(browser: str, page: Path, workdir: Path) -> Loaded:
    """The DOM of ``page`` after its scripts ran, and the console lines."""
    profile_dir = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    proc = subprocess.run(
        [*chromium_args(browser, profile_dir), "--dump-dom", page.resolve().as_uri()],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, f"chromium failed on {page}:\n{proc.stderr[-4000:]}"
    assert "<body" in proc.stdout, f"chromium printed no DOM for {page}:\n{proc.stderr[-4000:]}"
    tree = lxml.html.document_fromstring(proc.stdout)
    console = [ln for ln in proc.stderr.splitlines() if "CONSOLE" in ln or "Uncaught" in ln]
    return Loaded(page, proc.stdout, tree, dict(tree.body.attrib), console)


def screenshot(browser: str, page: Path, png: Path, workdir: Path) -> None:
    profile_dir = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    subprocess.run(
        [
            *chromium_args(browser, profile_dir),
            f"--screenshot={png}",
            "--window-size=1400,2400",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@dataclass
class Image:
    """A decoded 8-bit RGB or RGBA PNG: one bytes object per row."""

    width: int
    height: int
    channels: int
    rows: list[bytes]

    def colours(self, y0: int, y1: int, x0: int, x1: int) -> Counter[bytes]:
        """How many pixels of each RGB colour lie in rows y0..y1, columns x0..x1."""
        n = self.channels
        return Counter(row[x * n : x * n + 3] for row in self.rows[y0:y1] for x in range(x0, x1))


def _unfilter(kind: int, line: bytearray, prev: bytes, bpp: int) -> bytearray:
    """Undo one scanline's PNG filter (PNG spec, section 9)."""
    if kind == 1:  # Sub
        for i in range(bpp, len(line)):
            line[i] = (line[i] + line[i - bpp]) & 0xFF
    elif kind == 2:  # Up
        line = bytearray((a + b) & 0xFF for a, b in zip(line, prev, strict=True))
    elif kind == 3:  # Average
        for i in range(len(line)):
            left = line[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + (left + prev[i]) // 2) & 0xFF
    elif kind == 4:  # Paeth
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return line


def decode_png(data: bytes) -> Image:
    """Decode a non-interlaced 8-bit RGB(A) PNG with zlib alone."""
    pos, idat = 8, []
    header: tuple[int, ...] = ()
    while pos < len(data):
        (size,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour_type, _, _, interlace = header
    assert depth == 8 and colour_type in (2, 6) and interlace == 0, header
    channels = 3 if colour_type == 2 else 4
    stride = width * channels
    raw = zlib.decompress(b"".join(idat))
    rows: list[bytes] = []
    prev = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), prev, channels)
        prev = bytes(line)
        rows.append(prev)
    return Image(width, height, channels, rows)


def saturated_hues(colours: Counter[bytes]) -> Counter[tuple[int, int, int]]:
    """Pixels of clearly coloured (not grey) colours, by coarse RGB bucket (64 levels)."""
    hues: Counter[tuple[int, int, int]] = Counter()
    for rgb, n in colours.items():
        if max(rgb) - min(rgb) > 80:
            hues[rgb[0] // 64, rgb[1] // 64, rgb[2] // 64] += n
    return hues


def plottable(kernel: dict[str, Any]) -> bool:
    """A kernel group the chart must show: one placed by bandwidth (no FLOPs) or from
    theory, or a measured one with positive intensity and rate in a placeable class."""
    if kernel.get("placement") in ("bandwidth", "theory"):
        return True

    def positive(v: Any) -> bool:
        return (
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
        )

    return (
        positive(kernel.get("ai_dram"))
        and positive(kernel.get("achieved_flops_per_s"))
        and kernel.get("bound") not in UNPLOTTED_BOUNDS
    )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name!r} in the embedded data")


def embedded_json(raw: str) -> Any:
    m = re.search(
        r'<script type="application/json" id="ncu-roofline-data">(.*?)</script>', raw, re.S
    )
    assert m, "no <script type=application/json id=ncu-roofline-data> element"
    return json.loads(m.group(1), parse_constant=_reject_constant)


def _quote(field: str) -> str:
    return '"' + field.replace('"', '""') + '"'


def _csv_line(fields: list[str], trailing_comma: bool, ending: str) -> str:
    """A row the way ncu writes it: every field quoted; metric rows end with a bare comma."""
    if trailing_comma:
        return ",".join(_quote(f) for f in fields[:-1]) + "," + ending
    return ",".join(_quote(f) for f in fields) + ending


def hostile_export(path: Path) -> dict[str, str]:
    """A details export shaped like the shipped sample, with hostile kernel names.

    The first four kernels (gemv kernels excluded: several groups share that
    name) are renamed to :data:`HOSTILE_NAMES`; only their launches are kept.
    Every row is re-written field by field, and an untouched row is checked to
    come out byte for byte as in the sample, so the shape (prelude, header,
    ragged rows, trailing commas) is the sample's own.  Returns old -> new name.
    """
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    header = next(i for i, ln in enumerate(lines) if ln.startswith('"ID",'))
    out = lines[: header + 1]
    renamed: dict[str, str] = {}
    for line in lines[header + 1 :]:
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        fields = next(csv.reader([body]))
        trailing = body.endswith(",") and fields[-1] == ""
        assert _csv_line(fields, trailing, ending) == line, f"cannot re-write {line!r}"
        kernel = fields[4]
        if kernel not in renamed and len(renamed) < len(HOSTILE_NAMES) and "gemvx" not in kernel:
            renamed[kernel] = HOSTILE_NAMES[len(renamed)]
        if kernel in renamed:
            fields[4] = renamed[kernel]
            out.append(_csv_line(fields, trailing, ending))
    assert len(renamed) == len(HOSTILE_NAMES)
    path.write_text("".join(out), encoding="utf-8")
    return renamed


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def sample_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The sample's HTML report and its JSON report (same options)."""
    out = tmp_path_factory.mktemp("sample")
    page = out / "sample.html"
    cli_report(str(SAMPLE), "-o", str(page), "--model", "llama-3-8b")
    cli_report(str(SAMPLE), "-o", str(out / "sample.json"), "--model", "llama-3-8b")
    report = json.loads((out / "sample.json").read_text(encoding="utf-8"))
    return page, report


@pytest.fixture(scope="module")
def sample_loaded(browser: str, sample_files: tuple[Path, dict[str, Any]]) -> Loaded:
    page, _ = sample_files
    return load_in_browser(browser, page, page.parent)


@pytest.fixture(scope="module")
def hostile_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hostile")
    export = out / "hostile.details.csv"
    hostile_export(export)
    page = out / "hostile.html"
    cli_report(str(export), "-o", str(page), "--plotly-js", "inline")
    return page


@pytest.fixture(scope="module")
def hostile_loaded(browser: str, hostile_page: Path) -> Loaded:
    return load_in_browser(browser, hostile_page, hostile_page.parent)


# --------------------------------------------------------------------------- 1. the sample


def test_sample_page_runs_without_errors(sample_loaded: Loaded) -> None:
    body = sample_loaded.body
    assert body.get("data-ready") == "1", body
    assert body.get("data-errors") == "", f"JS errors: {body.get('data-errors')}"
    assert not sample_loaded.console_problems(), "\n".join(sample_loaded.console_problems())


def test_sample_page_draws_every_plottable_group(
    sample_loaded: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    expected = sum(1 for k in report["kernels"] if plottable(k))
    assert expected > 0
    body = sample_loaded.body
    assert int(body["data-points"]) == expected, body
    assert int(body["data-drawn-points"]) >= expected, body
    charts = sample_loaded.tree.xpath('//div[contains(concat(" ", @class, " "), " chart ")]')
    assert charts, "no chart div"
    for div in charts:
        assert re.fullmatch(r"roofline-\d+", div.get("id", "")), div.get("id")
        assert div.xpath('.//*[contains(@class, "main-svg")]'), f"{div.get('id')}: not drawn"


def test_sample_table_has_one_row_per_group(
    sample_loaded: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    groups = len(report["kernels"])
    assert groups == report["summary"]["kernels"] == 13
    assert len(sample_loaded.kernel_rows()) == groups
    assert sample_loaded.body["data-rows"] == str(groups)


def test_sample_screenshot(
    browser: str, sample_files: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    page, _ = sample_files
    png = tmp_path / "sample.png"
    screenshot(browser, page, png, tmp_path)
    assert png.is_file(), f"no screenshot at {png}"
    data = png.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n"), f"{png} is not a PNG"
    image = decode_png(data)
    assert (image.width, image.height) == (1400, 2400)
    page = image.colours(0, image.height, 0, image.width)
    background, count = page.most_common(1)[0]
    assert count < 0.95 * image.width * image.height, f"{png}: the page is all {background!r}"
    assert len(page) > 100, f"{png}: only {len(page)} colours, the page looks blank"
    # The roofline chart sits in this band of the sample page (below the summary
    # tables, above the findings).  Drawn, it holds the coloured roofs and markers;
    # without it the band is grey text on white.
    chart = image.colours(int(0.42 * image.height), int(0.65 * image.height), 42, 1358)
    hues = saturated_hues(chart)
    assert len([n for n in hues.values() if n >= 100]) >= 5, f"{png}: chart band hues {hues}"


# --------------------------------------------------------------------------- 2. hostile names


def test_hostile_names_run_no_script(hostile_loaded: Loaded) -> None:
    body = hostile_loaded.body
    assert body.get("data-ready") == "1", body
    assert "data-pwned" not in body, "a kernel name's onerror handler ran"
    assert body.get("data-errors") == "", f"JS errors: {body.get('data-errors')}"
    assert not hostile_loaded.console_problems(), "\n".join(hostile_loaded.console_problems())


def test_hostile_names_inject_no_elements(hostile_loaded: Loaded) -> None:
    tree = hostile_loaded.tree
    assert not tree.xpath('//img[@src="x"]'), "an <img src=x> from a kernel name is in the DOM"
    assert not tree.xpath("//b[@onmouseover]"), "a <b onmouseover> from a kernel name is in the DOM"
    assert not tree.xpath("//*[@onerror or @onmouseover]")


def test_hostile_names_read_as_text(hostile_loaded: Loaded) -> None:
    rows = hostile_loaded.kernel_rows()
    assert len(rows) == len(HOSTILE_NAMES)
    full = [" ".join(r.xpath(".//code[@class='full']")[0].text_content().split()) for r in rows]
    for name in HOSTILE_NAMES:
        assert name in full, f"{name!r} is not shown as text; full names shown: {full}"


def test_template_syntax_is_not_evaluated(hostile_loaded: Loaded) -> None:
    rows = hostile_loaded.kernel_rows()
    names = [r.xpath("./td")[1].text_content() for r in rows]
    assert any(TEMPLATE_SYNTAX in n for n in names), names
    assert not any("49" in n for n in names), names


def test_cpp_name_is_escaped_in_serialised_dom(hostile_loaded: Loaded) -> None:
    rows = hostile_loaded.kernel_rows()
    cells = [lxml.html.tostring(r.xpath("./td")[1], encoding="unicode") for r in rows]
    assert any("k&lt;float, 4&gt;(float*) &amp; more" in c for c in cells), cells


def test_raw_html_closes_each_script_once(hostile_page: Path) -> None:
    raw = hostile_page.read_text(encoding="utf-8")
    opens = len(re.findall(r"<script\b", raw, re.I))
    closes = len(re.findall(r"</script", raw, re.I))
    # The JSON data, plotly.js (inline) and report.js.
    assert opens == 3, f"{opens} <script tags"
    assert closes == opens, f"{closes} '</script' for {opens} script elements"


def test_embedded_json_is_strict(hostile_page: Path) -> None:
    data = embedded_json(hostile_page.read_text(encoding="utf-8"))
    assert set(data) >= {"charts", "counts"}
    assert data["counts"]["groups"] == len(HOSTILE_NAMES)


# --------------------------------------------------------------------------- 3. CDN build


def test_cdn_page_is_small(tmp_path: Path) -> None:
    page = tmp_path / "cdn.html"
    cli_report(str(SAMPLE), "-o", str(page), "--plotly-js", "cdn")
    raw = page.read_text(encoding="utf-8")
    assert page.stat().st_size < 1_000_000, f"{page.stat().st_size} bytes"
    assert re.search(r'<script src="https://cdn\.plot\.ly/plotly-[0-9][^"]*\.js"></script>', raw)
    embedded_json(raw)


# --------------------------------------------------------------------------- 4. no roofs


def test_profile_without_roofs(browser: str, samples_dir: Path, tmp_path: Path) -> None:
    export = samples_dir / NBODY
    page = tmp_path / "nbody.html"
    cli_report(str(export), "-o", str(page))
    cli_report(str(export), "-o", str(tmp_path / "nbody.json"))
    report = json.loads((tmp_path / "nbody.json").read_text(encoding="utf-8"))
    groups = len(report["kernels"])
    assert groups > 0

    loaded = load_in_browser(browser, page, tmp_path)
    body = loaded.body
    assert body.get("data-ready") == "1", body
    assert body.get("data-errors") == "", f"JS errors: {body.get('data-errors')}"
    assert not loaded.console_problems(), "\n".join(loaded.console_problems())
    section = loaded.tree.get_element_by_id("roofline")
    assert "no chart" in section.text_content()
    assert not section.xpath('.//div[contains(concat(" ", @class, " "), " chart ")]')
    assert body["data-points"] == "0"
    assert len(loaded.kernel_rows()) == groups
    assert body["data-rows"] == str(groups)


# --------------------------------------------------------------------------- 5. sort and filter


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def test_table_rows_carry_sort_keys(
    sample_loaded: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    table = sample_loaded.tree.get_element_by_id("kernel-table")
    headers = table.xpath("./thead/tr/th")
    keys = [th.get("data-key") for th in headers]
    assert keys[:3] == ["rank", "name", "bound"], keys
    numeric = [i for i, th in enumerate(headers) if "num" in (th.get("class") or "").split()]
    assert len(numeric) >= 8, keys
    by_rank = {k["rank"]: k for k in report["kernels"]}
    for row in sample_loaded.kernel_rows():
        cells = row.xpath("./td")
        assert len(cells) == len(headers)
        for i in numeric:
            sort = cells[i].get("data-sort")
            assert sort is not None, f"{keys[i]} cell without data-sort"
            assert sort == "" or _is_number(sort), f"{keys[i]}: data-sort={sort!r}"
        for i in (0, 1, 2):  # rank, name, bound are never missing
            assert cells[i].get("data-sort"), f"{keys[i]}: empty data-sort"
        kernel = by_rank[int(float(cells[0].get("data-sort")))]
        assert row.get("data-bound") == kernel["bound"]
        assert cells[2].get("data-sort") == kernel["bound"]
        assert float(cells[keys.index("launches")].get("data-sort")) == kernel["launches"]
        assert float(cells[keys.index("time")].get("data-sort")) == pytest.approx(
            kernel["total_duration_s"]
        )
        # The filter searches the row's text, which holds the short name.
        assert (kernel["kernel_short"] or kernel["kernel"]) in "".join(cells[1].itertext())


def test_filter_controls_exist(sample_loaded: Loaded) -> None:
    tree = sample_loaded.tree
    text = tree.xpath('//input[@id="kernel-filter"]')
    assert text and text[0].get("type") == "search"
    select = tree.xpath('//select[@id="bound-filter"]')
    assert select
    values = [o.get("value") for o in select[0].xpath("./option")]
    assert values == ["", *BOUND_CLASSES], values
    count = tree.get_element_by_id("row-count").text_content()
    assert count == "13 of 13 kernel groups", count


# --------------------------------------------------------------------------- 6. chart and table linked

#: Run in a copy of the sample page once report.js is done: read the chart's
#: labels, click the first table row, then press "Memory levels" and count
#: the points it adds.
_PROBE = """<script>
(function () {
  var body = document.body;
  function points(div) { return div.querySelectorAll(".scatterlayer .trace .points path.point").length; }
  function run() {
    if (body.getAttribute("data-ready") !== "1") { setTimeout(run, 50); return; }
    var div = document.getElementById("roofline-0");
    var labels = Array.prototype.map.call(
      div.querySelectorAll(".scatterlayer .textpoint text"), function (t) { return t.textContent; });
    body.setAttribute("data-labels", labels.filter(Boolean).join("|"));
    var row = document.querySelector("#kernel-table tbody tr");
    row.cells[0].click();
    var picked = div.data.filter(function (t) { return t.meta && t.meta.role === "groups"; })
      .map(function (t) { return JSON.stringify(t.selectedpoints); });
    body.setAttribute("data-picked", picked.join("|"));
    body.setAttribute("data-row-class", row.className);
    var before = points(div);
    var legend = Array.prototype.map.call(
      div.querySelectorAll(".legend .traces .legendtext"), function (t) { return t.textContent; });
    body.setAttribute("data-legend", legend.join("|"));
    var button = document.querySelectorAll(".views button")[1];
    button.click();
    setTimeout(function () {
      body.setAttribute("data-level-points", String(points(div) - before));
      body.setAttribute("data-probe", "1");
    }, 500);
  }
  run();
})();
</script></body>"""


@pytest.fixture(scope="module")
def probed(browser: str, sample_files: tuple[Path, dict[str, Any]]) -> Loaded:
    page, _ = sample_files
    copy = page.with_name("probed.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE), encoding="utf-8")
    return load_in_browser(browser, copy, page.parent)


def test_chart_labels_are_the_table_numbers(
    probed: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    body = probed.body
    assert body.get("data-probe") == "1" and body.get("data-errors") == "", body
    labels = body["data-labels"].split("|")
    numbers = sorted(int(n) for label in labels for n in label.split(","))
    top = sorted(
        (k for k in report["kernels"] if plottable(k)), key=lambda k: -k["total_duration_s"]
    )[:10]
    assert numbers == sorted(k["rank"] for k in top)
    # The four GEMV groups share one label.
    assert any({"4", "5", "6", "7"} <= set(label.split(",")) for label in labels), labels
    table = [row.xpath("./td")[0].text_content().strip() for row in probed.kernel_rows()]
    assert {str(n) for n in numbers} <= set(table)


def test_a_table_row_picks_its_point(
    probed: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    body = probed.body
    first = probed.kernel_rows()[0]
    rank = first.xpath("./td")[0].text_content().strip()
    assert rank == "1" and body["data-selected"] == rank
    assert "selected" in body["data-row-class"].split()
    # Each of the 13 placed groups is a trace of its own: group 1's has its
    # point selected, the others none.  (13 since groups without FLOPs are
    # drawn on the bandwidth strip: the sample's #2, elementwise_kernel, had
    # no point before and now has one, and a trace like every other group.)
    placed = sum(1 for k in report["kernels"] if plottable(k))
    assert placed == 13
    picked = body["data-picked"].split("|")
    assert sorted(picked) == ["[0]"] + ["[]"] * (placed - 1), picked


def test_legend_entries_carry_the_chart_and_table_numbers(
    probed: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    legend = probed.body["data-legend"].split("|")
    groups = [t for t in legend if " · " in t]
    by_rank = {k["rank"]: k for k in report["kernels"]}
    numbers = [int(t.split(" · ")[0]) for t in groups]
    # Every placed group, in the table's order, named as in the table.
    assert numbers == sorted(k["rank"] for k in report["kernels"] if plottable(k))
    for n, text in zip(numbers, groups, strict=True):
        name = text.split(" · ")[1].removesuffix("…")
        assert by_rank[n]["kernel_short"].startswith(name), (n, text)
    # Each chart label's numbers are legend numbers and table numbers.
    labels = {int(x) for label in probed.body["data-labels"].split("|") for x in label.split(",")}
    table = {int(r.xpath("./td")[0].text_content()) for r in probed.kernel_rows()}
    assert labels <= set(numbers) <= table


def test_memory_levels_button_draws_three_points_per_group(
    probed: Loaded, sample_files: tuple[Path, dict[str, Any]]
) -> None:
    _, report = sample_files
    groups = [k for k in report["kernels"] if plottable(k)]
    assert len(groups) == 13
    # The levels are intensities at L1, L2 and DRAM, which only a group placed
    # by its measured FLOPs and bytes has: the group on the bandwidth strip
    # (#2, no FLOPs, zero intensity everywhere) keeps its marker alone.
    measured = [k for k in groups if k.get("placement") == "measured"]
    assert len(measured) == 12
    assert int(probed.body["data-level-points"]) == 3 * len(measured)


# --------------------------------------------------------------------------- 6. first screen, phone

BERT = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
#: An export with a duration but no FLOP counters: nothing can be placed.
NO_FLOPS = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
#: A phone's viewport: headless Chromium will not make a window under 500 px,
#: so the page is loaded in an iframe this size.
PHONE = (390, 844)

_FRAME = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="{src}" width="{w}" height="{h}" style="border:0"></iframe>
<script>
document.getElementById("f").addEventListener("load", function () {{
  setTimeout(function () {{
    var d = document.getElementById("f").contentDocument;
    ["data-ready", "data-errors", "data-view-width"].forEach(function (k) {{
      document.body.setAttribute(k, d.body.getAttribute(k) || "");
    }});
    document.body.setAttribute("data-scroll-width", String(d.documentElement.scrollWidth));
    document.body.setAttribute("data-inner-width", String(d.defaultView.innerWidth));
    // The view buttons' right edge, and whether the modebar covers them or the plot.
    var right = 0;
    d.querySelectorAll(".views button").forEach(function (b) {{
      right = Math.max(right, b.getBoundingClientRect().right);
    }});
    document.body.setAttribute("data-buttons-right", String(right));
    var bar = d.querySelector(".modebar");
    var plot = d.querySelector(".chart .nsewdrag");
    var views = d.querySelector(".views");
    if (bar && plot) {{
      var b = bar.getBoundingClientRect();
      document.body.setAttribute("data-modebar-over-plot",
        String(b.bottom > plot.getBoundingClientRect().top + 1));
      document.body.setAttribute("data-modebar-over-buttons",
        String(views ? b.top < views.getBoundingClientRect().bottom : false));
    }}
  }}, 1500);
}});
</script></body></html>
"""


def load_on_phone(browser: str, page: Path, workdir: Path) -> dict[str, str]:
    """``<body>`` attributes of ``page`` loaded in a 390x844 frame, with its scroll width."""
    frame = page.with_name(page.stem + ".phone.html")
    frame.write_text(_FRAME.format(src=page.name, w=PHONE[0], h=PHONE[1]), encoding="utf-8")
    profile_dir = Path(tempfile.mkdtemp(prefix="chromium-", dir=workdir))
    proc = subprocess.run(
        [
            *chromium_args(browser, profile_dir),
            "--allow-file-access-from-files",
            "--window-size=800,900",
            "--dump-dom",
            frame.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return dict(lxml.html.document_fromstring(proc.stdout).body.attrib)


def _phone_page(kind: str, samples: Path, out: Path) -> Path:
    page = out / f"{kind}.html"
    if kind == "sample":
        cli_report(str(SAMPLE), "-o", str(page), "--model", "llama-3-8b")
    elif kind == "bert-a100":
        cli_report(str(samples / BERT), "-o", str(page), "--gpu", "a100_40gb_pcie")
    elif kind == "bert":
        cli_report(str(samples / BERT), "-o", str(page))
    elif kind == "no-flops":
        cli_report(str(samples / NO_FLOPS), "-o", str(page))
    else:
        proc = run(
            "compare",
            str(samples / "wangzy0327__cuda-roofline__src_output.csv"),
            str(samples / "wangzy0327__cuda-roofline__src_output_A100.csv"),
            "-o",
            str(page),
            "--force",
            timeout=TIMEOUT,
        )
        assert page.is_file(), proc.stderr
    return page


@pytest.mark.parametrize("kind", ["sample", "bert-a100", "bert", "no-flops", "compare"])
def test_phone_page_does_not_scroll_sideways(
    browser: str, samples_dir: Path, tmp_path: Path, kind: str
) -> None:
    page = _phone_page(kind, samples_dir, tmp_path)
    body = load_on_phone(browser, page, tmp_path)
    assert body.get("data-ready") == "1", body
    assert body.get("data-errors") == "", body
    assert body["data-inner-width"] == str(PHONE[0]), body
    assert int(body["data-scroll-width"]) <= PHONE[0], f"{kind}: page scrolls sideways: {body}"
    if kind in ("sample", "bert-a100"):
        # The chart view buttons wrap inside the page; the modebar stays off
        # them and off the plot area.
        assert 0 < float(body["data-buttons-right"]) <= PHONE[0], body
        assert body["data-modebar-over-plot"] == "false", body
        assert body["data-modebar-over-buttons"] == "false", body


def test_top_list_has_time_and_share(sample_files: tuple[Path, dict[str, Any]]) -> None:
    page, report = sample_files
    tree = lxml.html.document_fromstring(page.read_text(encoding="utf-8"))
    items = tree.xpath('//ol[contains(@class, "top-kernels")]/li')
    assert items, "no top list"

    def text(li: Any, cls: str) -> str:
        found = li.xpath(f'.//*[contains(concat(" ", @class, " "), " {cls} ")]')
        return " ".join(found[0].text_content().split()) if found else ""

    first = items[0]
    # The first item is the group with the most recoverable time.
    top = max(report["kernels"], key=lambda k: k["recoverable_s"] or 0)
    assert first.get("data-rank") == str(top["rank"])
    assert text(first, "time") == f"time 225 µs ({100 * top['time_share']:.1f}%)"
    assert top["total_duration_s"] == pytest.approx(225e-6, rel=0.01)
    assert text(first, "recoverable").startswith("recoverable ")
    # Two GEMV groups of one kernel name read apart by number and launch shape.
    gemv = [li for li in items if text(li, "kname").startswith("gemvx::kernel")]
    assert len(gemv) == 2 and gemv[0].get("data-rank") != gemv[1].get("data-rank")
    shapes = [text(li, "shape") for li in gemv]
    assert all(s.startswith("grid (") for s in shapes) and shapes[0] != shapes[1]


def test_bound_table_hides_empty_classes(sample_files: tuple[Path, dict[str, Any]]) -> None:
    page, _ = sample_files
    tree = lxml.html.document_fromstring(page.read_text(encoding="utf-8"))
    rows = tree.xpath('//table[contains(@class, "bounds")]/tbody/tr')
    # The sample has memory, compute and latency groups; no collective, none unplaced.
    assert [r.xpath("./td")[0].text_content() for r in rows] == ["memory", "compute", "latency"]


def test_nothing_placeable_shows_the_ncu_command(
    browser: str, samples_dir: Path, tmp_path: Path
) -> None:
    page = _phone_page("no-flops", samples_dir, tmp_path)
    loaded = load_in_browser(browser, page, tmp_path)
    assert loaded.body.get("data-errors") == "", loaded.body
    section = loaded.tree.get_element_by_id("roofline")
    assert not section.xpath('.//div[contains(concat(" ", @class, " "), " chart ")]')
    box = section.xpath('.//div[@class="collect"]')
    assert box, "no collect box"
    assert "No FLOP counters in the export" in box[0].text_content()
    command = box[0].xpath(".//pre[@class='command']")[0].text_content()
    # What `inspect` prints for the same export: FLOP counters first, base units, raw page.
    inspect = run("inspect", str(samples_dir / NO_FLOPS), timeout=TIMEOUT).stdout
    assert command in " ".join(inspect.split()), command
    assert command.startswith("ncu --metrics sm__sass_thread_inst_executed_op_dadd_pred_on.sum,")
    assert command.endswith("--print-units base --csv --page raw <app>")


def test_bert_legend_labels_and_table_agree(
    browser: str, samples_dir: Path, tmp_path: Path
) -> None:
    page = _phone_page("bert-a100", samples_dir, tmp_path)
    cli_report(
        str(samples_dir / BERT), "-o", str(tmp_path / "bert.json"), "--gpu", "a100_40gb_pcie"
    )
    report = json.loads((tmp_path / "bert.json").read_text(encoding="utf-8"))
    copy = page.with_name("bert-probed.html")
    copy.write_text(page.read_text(encoding="utf-8").replace("</body>", _PROBE), encoding="utf-8")
    loaded = load_in_browser(browser, copy, tmp_path)
    body = loaded.body
    assert body.get("data-probe") == "1" and body.get("data-errors") == "", body
    legend = [t for t in body["data-legend"].split("|") if " · " in t]
    numbers = [int(t.split(" · ")[0]) for t in legend]
    by_rank = {k["rank"]: k for k in report["kernels"]}
    placed = [k for k in report["kernels"] if plottable(k)]
    assert numbers == sorted(k["rank"] for k in placed)
    # Every one of the 12 groups is placed (two without FLOPs, #3 and #10, on
    # the bandwidth strip, which earlier versions left off the chart): up to
    # 20 groups, each has a legend entry of its own (README), so 12 entries.
    assert len(numbers) == 12, legend
    assert [k["rank"] for k in placed if k["placement"] == "bandwidth"] == [3, 10]
    for n, text in zip(numbers, legend, strict=True):
        assert by_rank[n]["kernel_short"].startswith(text.split(" · ")[1].removesuffix("…"))
    # Only the ten groups with the most time are numbered on the chart.
    labels = {int(x) for label in body["data-labels"].split("|") for x in label.split(",")}
    top = sorted(placed, key=lambda k: -k["total_duration_s"])[:10]
    assert labels == {k["rank"] for k in top}, body["data-labels"]
    table = {int(r.xpath("./td")[0].text_content()) for r in loaded.kernel_rows()}
    assert labels <= set(numbers) <= table and len(table) == 12
