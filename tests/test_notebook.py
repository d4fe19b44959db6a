"""The notebook API: what ``load``, ``analyze`` and ``compare`` return shows itself.

Every object of the public API has a one-line ``repr`` and a summary card
(``_repr_html_``); an analysis and a comparison draw the report page's
roofline as a Plotly figure (``figure()``), and ``report_html`` is the page
``ncu-roofline report`` writes.  The figures are checked against what the
page itself embeds (its JSON data element, decoded), and the page against
the command's file, byte for byte but for the time it was generated.

Most tests read a tiny export this module writes (so a fresh clone runs
them): three kernels on an H100, one named ``<script>alert(1)</script>``
and one carrying a terminal escape, with FP32 counters and DRAM, L2 and L1
bytes so that all three views of the chart exist.  The real samples check
the same on a real export, and skip like every test on them when absent.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import markupsafe
import numpy as np
import plotly.graph_objects as go
import pytest

import ncu_roofline
from ncu_roofline.core.model import Profile, SourceInfo, finalize_launches
from ncu_roofline.errors import NcuRooflineError, UsageError
from ncu_roofline.notebook import NotebookAnalysis, NotebookComparison, NotebookProfile
from tests.helpers import REPO, SAMPLE, run, sass, slower_candidate

#: A V100 export of the real samples with FLOPs and DRAM, L2 and L1 bytes.
V100 = "wangzy0327__cuda-roofline__src_output.csv"
GPU = "NVIDIA H100 80GB HBM3"
SCRIPT = "<script>alert(1)</script>"
ESCAPE = "colour_kernel\x1b[31m"
#: The views of the chart and the page's button for each.
BUTTONS = {"groups": "Kernel groups", "levels": "Memory levels", "launches": "Every launch"}
#: An ISO 8601 time to the second with its UTC offset: the page's "generated" time.
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d")

_HEADER = [
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
]


def _launch(flops: float, dram: float, ns: float) -> dict[str, tuple[str, str]]:
    """One launch's metrics: FP32 FLOPs as FFMAs, DRAM bytes, twice that at L2, four times at L1."""
    return {
        "device__attribute_display_name": ("", GPU),
        sass("fadd"): ("inst", "0"),
        sass("fmul"): ("inst", "0"),
        sass("ffma"): ("inst", repr(flops / 2)),
        "dram__bytes_read.sum": ("byte", repr(dram / 2)),
        "dram__bytes_write.sum": ("byte", repr(dram / 2)),
        "lts__t_bytes.sum": ("byte", repr(2 * dram)),
        "l1tex__t_bytes.sum": ("byte", repr(4 * dram)),
        "gpu__time_duration.sum": ("nsecond", repr(ns)),
    }


#: (kernel name, grid, metrics) per launch: the hostile kernels take the most time
#: far under their roofs, so they lead the table of recoverable time.
LAUNCHES = [
    # 4e8 bytes in 300 µs: 1.3 TB/s, 40% of the H100's DRAM roof.
    (SCRIPT, "(1024, 1, 1)", _launch(1e9, 4e8, 3e5)),
    (SCRIPT, "(1024, 1, 1)", _launch(1e9, 4e8, 3e5)),
    # 2e8 bytes in 200 µs: 30% of it.
    (ESCAPE, "(512, 1, 1)", _launch(5e8, 2e8, 2e5)),
    # 5e8 FLOPs in 10 µs at 50 FLOP/byte: 50 TFLOP/s, near the FP32 roof.
    ("void gemm_kernel<float>(float *)", "(64, 1, 1)", _launch(5e8, 1e7, 1e4)),
]


def write_export(path: Path, launches: list[tuple[str, str, dict[str, tuple[str, str]]]]) -> Path:
    """A ``--page details`` export (metrics only, the newer header) of ``launches``."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(_HEADER)
    for i, (kernel, grid, metrics) in enumerate(launches):
        ident = [str(i), "4242", "app", "host", kernel, "1", "7", "(128, 1, 1)", grid, "0", "9.0"]
        for name, (unit, value) in metrics.items():
            writer.writerow([*ident, "Command line profiler metrics", name, unit, value])
    path.write_bytes(("==PROF== Disconnected from process 4242\n" + out.getvalue()).encode())
    return path


@pytest.fixture
def export(tmp_path: Path) -> Path:
    """The module's tiny export (see the module docstring)."""
    return write_export(tmp_path / "tiny.csv", LAUNCHES)


def page_data(page: str) -> dict[str, Any]:
    """The data a report page embeds for its scripts, decoded."""
    m = re.search(r'<script type="application/json" id="ncu-roofline-data">(.*?)</script>', page)
    assert m, "no data element in the page"
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def as_shown(chart: dict[str, Any], view: str) -> dict[str, Any]:
    """The page's chart after a click on the view's button, done here as plotly.js does it."""
    data = [dict(t) for t in chart["data"]]
    layout = dict(chart["layout"])
    menus = layout.get("updatemenus")
    if not menus:
        assert view == "groups"
        return {"data": data, "layout": layout}
    labels = [b["label"] for b in menus[0]["buttons"]]
    active = labels.index(BUTTONS[view])
    layout["updatemenus"] = [{**menus[0], "active": active}, *menus[1:]]
    restyle, relayout = menus[0]["buttons"][active]["args"]
    for trace, visible in zip(data, restyle["visible"], strict=True):
        trace["visible"] = visible
    annotations = [dict(a) for a in layout["annotations"]]
    for key, value in relayout.items():
        annotations[int(re.fullmatch(r"annotations\[(\d+)\]\.visible", key)[1])]["visible"] = value
    layout["annotations"] = annotations
    return {"data": data, "layout": layout}


def plain(fig: go.Figure) -> dict[str, Any]:
    """A Plotly figure as the JSON it sends to plotly.js."""
    out: dict[str, Any] = json.loads(fig.to_json())
    return out


def assert_same_chart(fig: go.Figure, chart: dict[str, Any], view: str) -> None:
    """``fig`` draws the page's ``chart`` in ``view``: every trace, point and axis.

    The figure keeps its in-chart title, which the page leaves to its
    heading (with the room above the plot it takes); its template is the
    notebook's.  Plotly leaves out an empty list of annotations.
    """
    assert isinstance(fig, go.Figure)
    expected = as_shown(chart, view)
    got = plain(fig)
    assert got["data"] == expected["data"]
    skip = ("title", "margin", "template")
    mine = {k: v for k, v in got["layout"].items() if k not in skip}
    page = {k: v for k, v in expected["layout"].items() if k not in skip and v != []}
    assert mine == page
    assert got["layout"]["title"]["text"].startswith("Roofline: ")


# --- figures ---------------------------------------------------------------------------


@pytest.mark.parametrize("view", list(BUTTONS))
def test_figure_draws_the_pages_chart_in_each_view(export: Path, view: str) -> None:
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    page = page_data(ncu_roofline.report_html(analysis))
    assert list(page["charts"]) == ["roofline-0"]
    fig = analysis.figure(view)
    assert_same_chart(fig, page["charts"]["roofline-0"], view)
    # The view's own points are the ones shown: the groups, their memory levels, the launches.
    shown = [t for t in fig.data if t.visible is None or t.visible is True]
    groups = {t.legendgroup for t in shown}
    assert ("kernel groups" in groups) == (view != "launches")
    assert ("memory levels" in groups) == (view == "levels")
    assert ("launches" in groups) == (view == "launches")
    if view == "launches":
        (launches,) = [t for t in shown if t.legendgroup == "launches"]
        assert len(launches.x) == len(LAUNCHES)
    menu = fig.layout.updatemenus[0]
    assert menu.buttons[menu.active].label == BUTTONS[view]


def test_an_unknown_view_is_refused_naming_the_views(export: Path) -> None:
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    with pytest.raises(
        UsageError, match="unknown view 'roofline'; expected one of groups, levels, launches"
    ):
        analysis.figure("roofline")
    with pytest.raises(UsageError, match=r"device must be a chart's number, not 1 \(0: Roofline: "):
        analysis.figure(device=1)


def test_a_view_the_chart_lacks_is_refused_naming_those_it_has(tmp_path: Path) -> None:
    # No L2 or L1 bytes: no memory-level view.
    bare = {k: v for k, v in _launch(1e9, 4e8, 2e6).items() if not k.startswith(("lts", "l1tex"))}
    path = write_export(tmp_path / "bare.csv", [("k", "(1, 1, 1)", bare)])
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(path)))
    with pytest.raises(UsageError, match=r"no 'levels' view .* it has: groups, launches"):
        analysis.figure("levels")
    assert isinstance(analysis.figure("launches"), go.Figure)


def test_no_chart_says_what_the_export_lacks(tmp_path: Path) -> None:
    # A duration and nothing else: no group can be placed, the page draws no chart.
    only_time = {"gpu__time_duration.sum": ("nsecond", "1000")}
    path = write_export(tmp_path / "time.csv", [("k", "(1, 1, 1)", only_time)])
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(path)), gpu="h100_sxm5")
    assert page_data(ncu_roofline.report_html(analysis))["charts"] == {}
    with pytest.raises(NcuRooflineError, match=r"no roofline chart: .*FLOP"):
        analysis.figure()


def test_comparison_figure_draws_the_compare_pages_chart(tmp_path: Path) -> None:
    candidate = tmp_path / "candidate.csv"
    slower_candidate(candidate)
    out = tmp_path / "cmp.html"
    proc = run("compare", str(SAMPLE), str(candidate), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    cmp = ncu_roofline.compare(
        ncu_roofline.analyze(ncu_roofline.load(str(SAMPLE))),
        ncu_roofline.analyze(ncu_roofline.load(str(candidate))),
    )
    assert isinstance(cmp, NotebookComparison)
    fig = cmp.figure()
    assert isinstance(fig, go.Figure)
    (chart,) = page_data(out.read_text(encoding="utf-8"))["charts"].values()
    got = plain(fig)
    assert got["data"] == chart["data"]
    assert any(t.get("name", "").startswith("regression") for t in got["data"])


# --- cards and lines -------------------------------------------------------------------


def test_the_analysis_card_names_the_gpu_and_the_top_kernels_escaped(export: Path) -> None:
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    card = analysis._repr_html_()
    assert GPU in card
    assert "<script" not in card.lower()
    # Both hostile kernels are in the table, as text: the tag escaped, ESC as \x1b.
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card
    assert "\x1b" not in card
    assert "colour_kernel\\x1b[31m" in card
    top = analysis.kernels["kernel"].iloc[0]
    assert top == SCRIPT
    assert "Most recoverable time" in card and "Kernel groups" in card


def test_the_profile_card_lists_kernels_by_time_escaped(export: Path) -> None:
    profile = ncu_roofline.load(str(export))
    assert isinstance(profile, NotebookProfile)
    card = profile._repr_html_()
    assert "<script" not in card.lower() and "\x1b" not in card
    rows = re.findall(r'<span title="([^"]*)">', card)
    # 600 µs, 200 µs and 10 µs of kernel time, most first.
    assert rows == [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "colour_kernel\\x1b[31m",
        "void gemm_kernel&lt;float&gt;(float *)",
    ]
    assert "810 µs" in card and "tiny.csv" in card


def test_the_comparison_card_and_line(tmp_path: Path, export: Path) -> None:
    base = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    slower = [(k, g, {**m, "gpu__time_duration.sum": ("nsecond", "3e6")}) for k, g, m in LAUNCHES]
    cand = ncu_roofline.analyze(ncu_roofline.load(str(write_export(tmp_path / "b.csv", slower))))
    cmp = ncu_roofline.compare(base, cand)
    card = cmp._repr_html_()
    assert "<script" not in card.lower() and "\x1b" not in card
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in card and "regression" in card
    line = repr(cmp)
    assert line.startswith("<Comparison: kernel time +") and "3 regression(s)" in line
    assert "\n" not in line


def test_lines_are_short_and_safe_on_a_big_profile() -> None:
    n = 20_000
    hostile_gpu = "GPU\x1b]0;owned\x07 " + "x" * 500
    kernel = np.array([f"kernel_{i % 250}<float>" for i in range(n)], dtype=object)
    profile = Profile(
        finalize_launches(
            {
                "source": ["run" + "/very" * 100 + "/long.csv"] * n,
                "id": np.arange(n),
                "kernel": kernel,
                "device_name": [hostile_gpu] * n,
            },
            {
                sass("ffma"): np.full(n, 1e9),
                sass("fadd"): np.zeros(n),
                sass("fmul"): np.zeros(n),
                "dram__bytes.sum": np.full(n, 1e8),
                "gpu__time_duration.sum": np.full(n, 1e-4),
            },
            n,
        ),
        [SourceInfo(path="run" + "/very" * 100 + "/long.csv", layout="details")],
    )
    analysis = ncu_roofline.analyze(profile, gpu="h100_sxm5")
    shown = NotebookProfile.of(profile)
    for obj in (shown, analysis, ncu_roofline.compare(analysis, analysis)):
        line = repr(obj)
        assert len(line) < 200 and "\n" not in line, line
        assert not re.search(r"[\x00-\x1f\x7f]", line), line
    assert repr(analysis).startswith("<Analysis: 20,000 launches, 250 kernel groups on GPU\\x1b]")
    assert repr(shown).startswith("<Profile: 20,000 launches, 250 kernels, 2 s, from long.csv")
    # The engine's own objects never print a frame either.
    assert repr(ncu_roofline.analysis.analyze(profile, gpu="h100_sxm5")) == (
        f"Analysis(20000 launch rows, 250 kernel groups, {len(analysis.findings)} findings)"
    )


def test_the_card_reads_the_groups_not_the_launches(
    export: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On 100,000 launches a card stays fast: it never builds the report context
    (a record per launch) and turns only the card's rows into records."""
    import ncu_roofline.report.card as card_module
    from ncu_roofline.report.records import LaunchRecords

    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    seen: list[int] = []
    real = card_module.records

    def counting(frame: Any, fields: tuple[str, ...]) -> list[dict[str, Any]]:
        seen.append(len(frame))
        return real(frame, fields)

    def refuse(*_: Any) -> None:
        raise AssertionError("the card built the launch records of a report context")

    monkeypatch.setattr(card_module, "records", counting)
    monkeypatch.setattr(LaunchRecords, "__init__", refuse)
    assert "Most recoverable time" in analysis._repr_html_()
    assert seen == [3]
    analysis.kernels = analysis.kernels.iloc[[0, 1, 2, 0, 1, 2, 0, 1]].reset_index(drop=True)
    analysis._repr_html_()
    assert seen[-1] == 5


# --- the page ----------------------------------------------------------------------------


@pytest.mark.parametrize("options", [(), ("--gpu", "h100_sxm5", "--clocks", "datasheet")])
def test_report_html_is_the_commands_page(
    export: Path, tmp_path: Path, options: tuple[str, ...]
) -> None:
    out = tmp_path / "page.html"
    proc = run("report", str(export), *options, "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    kwargs = dict(zip([o.lstrip("-") for o in options[::2]], options[1::2], strict=True))
    page = ncu_roofline.report_html(str(export), **kwargs)
    # The one thing that differs: the second each page was generated at.
    written = out.read_bytes()
    assert len(TIMESTAMP.findall(written.decode("utf-8"))) == 1
    assert TIMESTAMP.sub("T", page).encode("utf-8") == TIMESTAMP.sub(
        "T", written.decode("utf-8")
    ).encode("utf-8")
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)), **kwargs)
    assert TIMESTAMP.sub("T", ncu_roofline.report_html(analysis)) == TIMESTAMP.sub("T", page)


def test_report_html_refuses_analysis_options_with_an_analysis(export: Path) -> None:
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(export)))
    with pytest.raises(UsageError, match="give them to analyze"):
        ncu_roofline.report_html(analysis, gpu="h100_sxm5")


def test_report_html_survives_the_report_subpackage_being_imported(export: Path) -> None:
    """``ncu_roofline.report`` is the stage's subpackage; the page's function has its own name."""
    import ncu_roofline.report.context

    assert callable(ncu_roofline.report_html)
    assert not callable(ncu_roofline.report)


# --- the real samples ------------------------------------------------------------------


@pytest.mark.parametrize("view", list(BUTTONS))
def test_real_export_figure_and_card(samples_dir: Path, view: str) -> None:
    analysis = ncu_roofline.analyze(ncu_roofline.load(str(samples_dir / V100)))
    assert isinstance(analysis, NotebookAnalysis)
    page = page_data(ncu_roofline.report_html(analysis))
    (chart,) = page["charts"].values()
    assert_same_chart(analysis.figure(view), chart, view)
    card = analysis._repr_html_()
    device = analysis.roofs[0]
    assert (device.device_name or device.gpu.name) in card
    top = analysis.kernels["kernel_short"].iloc[0]
    assert str(markupsafe.escape(top)) in card
    assert "<script" not in card.lower()


# --- the README's example ----------------------------------------------------------------


#: The README's "Notebook" example, as proposed for it; the test below runs it on
#: the shipped sample (``run.csv``) and a copy with one kernel slower (``base.csv``).
def _readme_notebook() -> str:
    """The README's notebook snippet: the first Python block under "### Notebook"."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text[text.index("\n### Notebook\n") :]
    start = section.index("```python\n") + len("```python\n")
    return section[start : section.index("```\n", start)]


def test_the_readme_notebook_example_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "run.csv").write_bytes(SAMPLE.read_bytes())
    slower_candidate(tmp_path / "base.csv")
    monkeypatch.chdir(tmp_path)
    scope: dict[str, Any] = {}
    exec(compile(_readme_notebook(), "README.md", "exec"), scope)
    assert capsys.readouterr().out.startswith("<Analysis: 44 launches, 13 kernel groups on ")
    assert isinstance(scope["change"], NotebookComparison)
    # The base is the slower copy: the run improved on it.
    assert "1 improvement(s)" in repr(scope["change"])
    assert '<td style="text-align: left">improvement</td>' in scope["change"]._repr_html_()
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "--gpu h100_sxm5" in page


# --- start-up ------------------------------------------------------------------------------

_IMPORTS = """
import json, sys
import ncu_roofline
light = sorted(m for m in ("jinja2", "numpy", "pandas", "plotly", "pyarrow") if m in sys.modules)
for name in ("load", "analyze", "compare", "report_html"):
    getattr(ncu_roofline, name)
shown = sorted(m for m in ("jinja2", "plotly") if m in sys.modules)
print(json.dumps([light, shown]))
"""


def test_importing_the_package_and_its_entry_points_stays_light() -> None:
    """``import ncu_roofline`` loads no data library; the entry points load no writer."""
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTS],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        env={
            "PYTHONPATH": str(REPO),
            "PATH": "/usr/bin:/bin",
            "HOME": str(REPO),
            # The test's own cache folder (conftest): nothing written under HOME.
            "NCU_ROOFLINE_CACHE_DIR": os.environ["NCU_ROOFLINE_CACHE_DIR"],
        },
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [[], []]
