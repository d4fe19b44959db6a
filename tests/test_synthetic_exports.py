"""The readers on synthetic exports of every layout, and those exports against real ones.

``tests/synthetic_exports.py`` writes one export per layout ncu produces
(details pages with and without rule columns, raw page, per-kernel summary,
text output, gzip and UTF-16 copies), all of one run: three launches of two
kernels on an A100 SXM4 40GB.  Here each is read and analysed, and every
number is checked against the values the writer printed, worked out by hand
below (FP32 FLOPs = fadd + fmul + 2 x ffma; DRAM bytes = read + write; the
roofs of the built-in table's A100 SXM4 40GB, 19.5 TFLOP/s FP32 at its
1,410 MHz boost scaled to the measured SM clock, and 1,555 GB/s DRAM).
These tests need nothing outside the repository.

That the synthetic exports are faithful is checked against real files: the
text tables and advice paragraphs against the ncu text outputs kept in
``tests/data/ncu-text/`` (always), the CSV headers, quoting, trailing commas,
units rows and number formats against the exports in
``../shared/ncu-samples/`` (skipped where that folder is absent).
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

import pytest

from ncu_roofline import analyze, load
from ncu_roofline.readers import read_source
from tests import synthetic_exports as synthetic
from tests.helpers import DATA
from tests.synthetic_exports import GPU_NAME, LAUNCHES, LAYOUTS, SGEMM, VECTOR_ADD, Launch

#: The built-in table's A100 SXM4 40GB: FP32 at the boost clock, DRAM.
A100_FP32 = 19.5e12
A100_BOOST_HZ = 1.41e9
A100_DRAM = 1555e9

#: vector_add's FP32 FLOPs (FADD only; both its launches did the same work).
VECTOR_ADD_FLOPS = 16_777_216.0

#: Warnings a layout is expected to give (every other layout gives none).
EXPECTED_WARNINGS = {
    "utf16": ["the file is UTF-16 text"],
    "summary": ["per-kernel summary: one row per kernel and launch shape"],
}


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("synthetic")
    return {key: synthetic.write(key, folder) for key in LAYOUTS}


def _rows(key: str) -> list[Launch | list[Launch]]:
    """What each row of the layout stands for: a launch, or a summary's kernel's launches."""
    if LAYOUTS[key].per_launch:
        return list(LAUNCHES)
    groups: dict[str, list[Launch]] = {}
    for launch in LAUNCHES:
        groups.setdefault(launch.kernel.name, []).append(launch)
    return list(groups.values())


def _mean(row: Launch | list[Launch], value: str) -> float:
    launches = row if isinstance(row, list) else [row]
    return sum(float(getattr(x, value)) for x in launches) / len(launches)


# --- reading ----------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(LAYOUTS))
def test_each_layout_reads_to_its_launches(key: str, exports: dict[str, Path]) -> None:
    frame, info = read_source(str(exports[key]))
    layout = LAYOUTS[key]
    assert info.layout == layout.layout
    assert info.launches == len(LAUNCHES) == 3
    assert len(frame) == layout.rows
    assert info.kernels == 2
    assert info.units == "base"
    expected = EXPECTED_WARNINGS.get(key, [])
    assert len(info.warnings) == len(expected), info.warnings
    for warning, start in zip(info.warnings, expected, strict=True):
        assert warning.startswith(start), warning
    assert list(frame["kernel"]) == [
        (row[0] if isinstance(row, list) else row).kernel.name for row in _rows(key)
    ]


@pytest.mark.parametrize("key", list(LAYOUTS))
def test_each_layout_places_every_launch_with_its_verdict(
    key: str, exports: dict[str, Path]
) -> None:
    """Every launch gets the FLOPs, bytes and time the writer printed, a point on the
    A100's roofline and its verdict: vector_add memory bound, sgemm_tiled compute bound."""
    analysis = analyze(load(str(exports[key])))
    got = analysis.launches
    rows = _rows(key)
    assert len(got) == len(rows)
    for i, row in enumerate(rows):
        first = row[0] if isinstance(row, list) else row
        launch = got.iloc[i]
        what = f"{key} row {i}"
        assert launch["kernel"] == first.kernel.name, what
        assert launch["kernel_short"] == first.kernel.function, what
        assert launch["invocations"] == (len(row) if isinstance(row, list) else 1), what
        flops, dram, seconds = (
            _mean(row, "flops"),
            _mean(row, "dram_bytes"),
            _mean(row, "duration_s"),
        )
        assert launch["flops"] == pytest.approx(flops, rel=1e-12), what
        assert launch["dram_bytes"] == pytest.approx(dram, rel=1e-12), what
        assert launch["duration_s"] == pytest.approx(seconds, rel=1e-12), what
        assert launch["ai_dram"] == pytest.approx(flops / dram, rel=1e-12), what
        assert launch["placement"] == "measured", what
        assert launch["bound"] == first.bound, what
        if first.bound == "memory":
            efficiency = dram / seconds / A100_DRAM
        else:
            sm_hz = _mean(row, "sm_hz")
            efficiency = flops / seconds / (A100_FP32 * sm_hz / A100_BOOST_HZ)
        # The summary's SM clock is the average ncu printed with two decimals.
        assert launch["efficiency"] == pytest.approx(efficiency, rel=1e-9), what
        assert 0.5 < launch["efficiency"] < 1.0, what
        if key == "details-kt-rules":
            assert launch["grid"] is None and launch["block"] is None, what
        else:
            assert launch["grid"] == first.kernel.grid_text, what
            assert launch["block"] == first.kernel.block_text, what
        if LAYOUTS[key].per_launch:
            assert launch["id"] == first.id, what
            assert launch["device_name"] == GPU_NAME, what


def test_the_kernels_are_one_memory_and_one_compute_bound() -> None:
    """The two kernels sit on either side of the A100's ridge point (12.5 FLOP/byte at
    the boost clock): their verdicts are not a matter of rounding."""
    ridge = A100_FP32 / A100_DRAM
    for launch in LAUNCHES:
        ai = launch.flops / launch.dram_bytes
        assert (ai < ridge / 10) if launch.kernel is VECTOR_ADD else (ai > ridge * 10)
    assert {x.kernel for x in LAUNCHES} == {VECTOR_ADD, SGEMM}


# --- faithful to ncu's text output --------------------------------------------------------

_RULE = re.compile(r"^    -+(?: -+){2}$")


def _text_tables(path: Path) -> list[tuple[list[str], list[tuple[str, str, str]]]]:
    """Each ``Section:`` table of an ncu text output: its lines as printed (section line
    to closing rule) and its rows, cut at the column widths the rule gives."""
    lines = path.read_text(encoding="utf-8").splitlines()
    tables = []
    for i, line in enumerate(lines[:-2]):
        if not line.startswith("    Section: ") or not _RULE.match(lines[i + 1]):
            continue
        widths = [len(part) for part in lines[i + 1].split()]
        end = next(j for j in range(i + 4, len(lines)) if _RULE.match(lines[j]))
        rows = []
        for row in lines[i + 4 : end]:
            name = row[4 : 4 + widths[0]].rstrip()
            unit = row[5 + widths[0] : 5 + widths[0] + widths[1]].strip()
            value = row[6 + widths[0] + widths[1] :].strip()
            rows.append((name, unit, value))
        tables.append((lines[i : end + 1], rows))
    return tables


@pytest.mark.parametrize("name", ["heat_eq_ncu_output.txt", "dd2360_ncu_report.txt"])
def test_text_tables_are_drawn_as_ncu_draws_them(name: str) -> None:
    """Every table of a real text output, redrawn by the writer, is the same bytes."""
    tables = _text_tables(DATA / "ncu-text" / name)
    assert len(tables) >= 5
    for printed, rows in tables:
        drawn = synthetic._text_block(printed[0].removeprefix("    Section: "), rows)
        assert drawn == [*printed, ""], "\n".join(printed)


def test_advice_paragraphs_are_ncu_verbatim() -> None:
    text = (DATA / "ncu-text" / "heat_eq_ncu_output.txt").read_text(encoding="utf-8")
    memory = "\n".join(synthetic._paragraph(*synthetic.ADVICE["memory"]))
    assert "\n" + memory in text
    kind, lines = synthetic.ADVICE["compute"]
    start = "\n".join(synthetic._paragraph(kind, lines)[:2])
    assert "\n" + start + "\n" in text


def test_text_output_launch_headers_match_the_readers_pattern(exports: dict[str, Path]) -> None:
    """The launch header line has the real outputs' shape: ``  name (grid)x(block),
    Context C, Stream S, Device D, CC X.Y``, after a ``[pid] process@host`` line."""
    real = (DATA / "ncu-text" / "heat_eq_ncu_output.txt").read_text(encoding="utf-8")
    ours = exports["text"].read_text(encoding="utf-8")
    shape = re.compile(
        r"^  \S.* \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Context \d+, Stream \d+, "
        r"Device \d+, CC \d+\.\d+$",
        re.M,
    )
    assert len(shape.findall(real)) == 241
    assert len(shape.findall(ours)) == len(LAUNCHES)
    process = re.compile(r"^\[\d+\] \S+@127\.0\.0\.1$", re.M)
    assert len(process.findall(real)) == len(process.findall(ours)) == 1


# --- faithful to the real CSV exports -----------------------------------------------------

WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
LELEUCAS = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention"
    "_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
MEINIE_RAW = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
    "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
GIOTYP = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"

#: Synthetic layout -> the real export it is modelled on.
MODELS = {
    "details": WANGZY_A100,
    "details-rules": CODEGANDEE,
    "details-kt-rules": LELEUCAS,
    "raw": MEINIE_RAW,
    "summary": GIOTYP,
}


def _table_lines(data: bytes) -> list[str]:
    """The lines of an export from its header on (ncu writes LF endings)."""
    lines = data.decode("utf-8").split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith('"'))
    return [line for line in lines[start:] if line]


def _fields(line: str) -> list[str]:
    return next(csv.reader(io.StringIO(line)))


def _check_quoting(lines: list[str], header: list[str]) -> None:
    """Every row is written as the writer writes it: all fields quoted; on a page with
    rule columns a metric row stops after its value with a trailing comma."""
    value_at = header.index("Metric Value") if "Metric Value" in header else None
    rules = "Rule Name" in header
    for line in lines:
        fields = _fields(line)
        trailing = rules and value_at is not None and len(fields) == value_at + 2
        if trailing:
            assert fields[-1] == "" and fields[header.index("Metric Name")], line[:200]
            fields = fields[:-1]
        else:
            assert len(fields) == len(header), line[:200]
        assert synthetic._csv_line(fields, trailing) == line + "\n", line[:200]


def _numbers(lines: list[str], header: list[str], columns: list[str]) -> list[str]:
    at = [header.index(c) for c in columns]
    values = []
    for line in lines[1:]:
        fields = _fields(line)
        values += [fields[i] for i in at if i < len(fields) and re.fullmatch(r"[\d,.]+", fields[i])]
    return values


def _round_trips(text: str, formatter: str) -> bool:
    """``text`` is what ``synthetic._grouped`` (or ``_plain``) prints for its value."""
    number = text.replace(",", "")
    value: float | int = float(number) if "." in number else int(number)
    return bool(getattr(synthetic, formatter)(value) == text)


@pytest.mark.parametrize("key", list(MODELS))
def test_csv_layouts_match_the_real_exports(
    key: str, exports: dict[str, Path], samples_dir: Path
) -> None:
    """The synthetic export has its model's header; every line of both is quoted the
    one way ncu quotes (the writer redraws the real lines byte for byte); the real
    values print as the writer prints numbers; a raw page's units row matches the real
    one's for every column the two share."""
    real = _table_lines((samples_dir / MODELS[key]).read_bytes())
    ours = _table_lines(exports[key].read_bytes())
    header = _fields(real[0])
    if key == "raw":
        # The identity columns, then metric columns in alphabetical order.
        assert _fields(ours[0])[:11] == header[:11]
        metrics = _fields(ours[0])[11:]
        assert metrics == sorted(metrics)
        real_units = dict(zip(header, _fields(real[1]), strict=True))
        our_units = dict(zip(_fields(ours[0]), _fields(ours[1]), strict=True))
        shared = real_units.keys() & our_units.keys()
        assert len(shared) >= 20
        assert {c: our_units[c] for c in shared} == {c: real_units[c] for c in shared}
        numbers = _numbers(real[2:], header, header[11:])
        assert len(numbers) > 1000
        assert all(_round_trips(n, "_plain") for n in numbers), numbers[:10]
    else:
        assert _fields(ours[0]) == header
        value_columns = ["Minimum", "Maximum", "Average"] if key == "summary" else ["Metric Value"]
        numbers = _numbers(real, header, value_columns)
        assert len(numbers) > 20
        if key in ("details", "summary"):  # base units, as the writer prints
            assert all(_round_trips(n, "_grouped") for n in numbers), numbers[:10]
    _check_quoting(real, header)
    _check_quoting(ours, _fields(ours[0]))
    if key == "details":
        # ``==PROF==`` lines open and close the program's output before the table.
        for data in ((samples_dir / MODELS[key]).read_bytes(), exports[key].read_bytes()):
            lines = data.decode("utf-8").splitlines()
            prelude = lines[: next(i for i, x in enumerate(lines) if x.startswith('"ID"'))]
            assert re.fullmatch(r"==PROF== Connected to process \d+ \(/\S+\)", prelude[0])
            assert re.fullmatch(r"==PROF== Disconnected from process \d+", prelude[-1])
            assert len(prelude) > 2
            assert not any(line.startswith("==") for line in prelude[1:-1])


# --- damage the readers must not turn into partial sums -----------------------------------


def _without_line(data: bytes, *needles: str) -> bytes:
    """``data`` without the first line holding all of ``needles``."""
    lines = data.decode("utf-8").splitlines(keepends=True)
    i = next(i for i, line in enumerate(lines) if all(n in line for n in needles))
    return "".join(lines[:i] + lines[i + 1 :]).encode("utf-8")


def test_a_summary_kernel_without_a_counter_row_gets_no_partial_flops(tmp_path: Path) -> None:
    """A summary's sgemm_tiled without its FFMA row (the file cut there, a line lost):
    its FLOPs are missing, not the FADD + FMUL rest; vector_add keeps its own."""
    path = tmp_path / "summary.csv"
    ffma = "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"
    path.write_bytes(_without_line(synthetic.summary(), "sgemm_tiled", ffma))
    _frame, info = read_source(str(path))
    assert (
        "1 kernel(s) lack some of the FLOP counts counters the other kernels have, or a value "
        "of them was left out (first: kernel sgemm_tiled): their FLOP counts left missing, "
        "never a partial sum"
    ) in info.warnings
    got = analyze(load(str(path))).launches
    assert math.isnan(got["flops"][1])
    assert got["flops"][0] == pytest.approx(VECTOR_ADD_FLOPS, rel=1e-12)
    assert got["dram_bytes"][1] == pytest.approx(LAUNCHES[1].dram_bytes, rel=1e-12)


def test_a_summary_kernel_without_its_sm_count_is_analysed(tmp_path: Path) -> None:
    """One kernel without the SM-count row: its SMs come from the GPU's table entry."""
    path = tmp_path / "summary.csv"
    path.write_bytes(
        _without_line(synthetic.summary(), "sgemm_tiled", "device__attribute_multiprocessor_count")
    )
    got = analyze(load(str(path))).launches
    assert list(got["sm_count"]) == [synthetic.SMS, synthetic.SMS]
    assert list(got["bound"]) == ["memory", "compute"]
