"""Synthetic ncu exports in the exact layouts of real ones, written by the tests.

The real exports in ``../shared/ncu-samples/`` live outside the repository,
so a fresh clone without them would not test the readers on any real
layout.  This module writes one small export per layout ncu produces, byte
for byte in the shape of a real file of that layout (the model is named on
each writer): the same header row, every field quoted, the same units row,
the same ``==PROF==`` and program-output lines before the table, the same
trailing comma on metric rows of pages with rule columns, the same section
and metric names, the same thousands separators and number formats.

Every export holds the same run: three launches of two kernels on an A100
SXM4 40GB (108 SMs, CC 8.0, SM clock locked to its 1,095 MHz base), with
DRAM bytes, FP32 instruction counters, the duration, the SM clock and the
device name, so that the analysis places each launch on the roofline and
gives it a verdict: ``vector_add`` is memory bound (0.08 FLOP/byte at 85%
of the DRAM roof), ``sgemm_tiled`` compute bound (255 FLOP/byte).

:data:`LAYOUTS` lists them; :func:`write` writes one into a folder.  The
expected quantities are :class:`Launch`'s properties, worked out from the
same numbers the writers print, independently of the package.  How
faithful the layouts are is itself tested against the real files
(``tests/test_synthetic_exports.py``).
"""

from __future__ import annotations

import csv
import dataclasses
import gzip
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

#: The device, as ``device__attribute_display_name`` spells it.
GPU_NAME = "NVIDIA A100-SXM4-40GB"
CC = "8.0"
SMS = 108
PID = 31337
PROCESS = "roofline_bench"
HOST = "127.0.0.1"
COMMAND = "/home/user/bench/roofline_bench"
#: The program's own output, which ncu interleaves with its ``==PROF==`` lines.
PROGRAM_OUTPUT = (
    "Detected GPU: NVIDIA A100-SXM4-40GB (SM 8.0)",
    "vector_add: n = 16777216",
    "sgemm_tiled: 2048 x 2048 x 2048, 12.00 TFLOP/s",
    "Passed.",
)


@dataclass(frozen=True)
class Kernel:
    """A kernel as ncu names it: the demangled signature and the short function name."""

    name: str
    function: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    #: The verdict the analysis must give its launches.
    bound: str

    @property
    def grid_text(self) -> str:
        return "({}, {}, {})".format(*self.grid)

    @property
    def block_text(self) -> str:
        return "({}, {}, {})".format(*self.block)


VECTOR_ADD = Kernel(
    "void vector_add<float>(const T1 *, const T1 *, T1 *, int)",
    "vector_add",
    (65536, 1, 1),
    (256, 1, 1),
    "memory",
)
SGEMM = Kernel(
    "void sgemm_tiled<128, 128, 8>(const float *, const float *, float *, int, int, int)",
    "sgemm_tiled",
    (16, 16, 1),
    (256, 1, 1),
    "compute",
)


@dataclass(frozen=True)
class Launch:
    """One profiled launch: its counters in base units (byte, inst, nanosecond, Hz)."""

    id: int
    kernel: Kernel
    dram_read: int
    dram_write: int
    l2_bytes: int
    fadd: int
    fmul: int
    ffma: int
    duration_ns: int
    sm_hz: float
    dram_hz: float
    time: str
    #: Speed-of-light percentages (DRAM, SM) and elapsed SM cycles, for the rule pages.
    dram_pct: float
    sm_pct: float

    @property
    def bound(self) -> str:
        """The verdict: memory for vector_add, compute for sgemm_tiled."""
        return self.kernel.bound

    @property
    def flops(self) -> float:
        """FP32 FLOPs: add + mul + 2 x fma (no FP64 or FP16 work)."""
        return float(self.fadd + self.fmul + 2 * self.ffma)

    @property
    def dram_bytes(self) -> float:
        return float(self.dram_read + self.dram_write)

    @property
    def duration_s(self) -> float:
        return self.duration_ns * 1e-9

    @property
    def elapsed_cycles(self) -> int:
        return round(self.duration_ns * 1e-9 * self.sm_hz)


LAUNCHES: tuple[Launch, ...] = (
    Launch(
        0,
        VECTOR_ADD,
        dram_read=134_221_824,
        dram_write=67_110_912,
        l2_bytes=201_345_024,
        fadd=16_777_216,
        fmul=0,
        ffma=0,
        duration_ns=152_320,
        sm_hz=1_094_117_647.06,
        dram_hz=1_214_532_018.25,
        time="2022-Nov-10 15:48:11",
        dram_pct=85.01,
        sm_pct=9.87,
    ),
    Launch(
        1,
        SGEMM,
        dram_read=50_593_792,
        dram_write=16_777_216,
        l2_bytes=1_140_850_688,
        fadd=0,
        fmul=4_194_304,
        ffma=8_589_934_592,
        duration_ns=1_431_655,
        sm_hz=1_095_312_500.00,
        dram_hz=1_215_107_913.67,
        time="2022-Nov-10 15:48:12",
        dram_pct=3.03,
        sm_pct=80.37,
    ),
    Launch(
        2,
        VECTOR_ADD,
        dram_read=134_219_776,
        dram_write=67_112_960,
        l2_bytes=201_342_976,
        fadd=16_777_216,
        fmul=0,
        ffma=0,
        duration_ns=151_904,
        sm_hz=1_094_890_510.95,
        dram_hz=1_214_705_882.35,
        time="2022-Nov-10 15:48:12",
        dram_pct=85.24,
        sm_pct=9.91,
    ),
)


def many_launches(n: int) -> tuple[Launch, ...]:
    """``n`` launches: :data:`LAUNCHES` over and over, numbered 0 to n-1 (for readers
    that treat the first rows of a table differently from the rest)."""
    return tuple(dataclasses.replace(LAUNCHES[i % len(LAUNCHES)], id=i) for i in range(n))


#: The FP instruction counters, in ncu's (alphabetical) order.
_SASS = tuple(
    f"sm__sass_thread_inst_executed_op_{p}{op}_pred_on.sum"
    for p in ("d", "f", "h")
    for op in ("add", "fma", "mul")
)


def _metrics(launch: Launch) -> list[tuple[str, str, float | int | str]]:
    """(metric, base unit, value) of a launch's ``--metrics`` list, sorted as ncu prints them."""
    rows: list[tuple[str, str, float | int | str]] = [
        ("device__attribute_display_name", "", GPU_NAME),
        ("dram__bytes_read.sum", "byte", launch.dram_read),
        ("dram__bytes_write.sum", "byte", launch.dram_write),
        ("dram__cycles_elapsed.avg.per_second", "cycle/second", launch.dram_hz),
        ("gpu__time_duration.sum", "nsecond", launch.duration_ns),
        ("lts__t_bytes.sum", "byte", launch.l2_bytes),
        ("sm__cycles_elapsed.avg.per_second", "cycle/second", launch.sm_hz),
    ]
    fp = {"fadd": launch.fadd, "ffma": launch.ffma, "fmul": launch.fmul}
    for name in _SASS:
        op = name.removeprefix("sm__sass_thread_inst_executed_op_").removesuffix("_pred_on.sum")
        rows.append((name, "inst", fp.get(op, 0)))
    return sorted(rows, key=lambda r: r[0])


def _grouped(value: float | int | str) -> str:
    """A value as ncu prints it in base units: thousands separators, two decimals on fractions."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:,.2f}"


def _plain(value: float | int | str) -> str:
    """A value as the raw page of ncu 2025 prints it: no separators."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return f"{value:.2f}"


def _sol(launch: Launch) -> list[tuple[str, str, str]]:
    """The "GPU Speed Of Light Throughput" section in base units (as in the DD2360 text
    output of tests/data/ncu-text/: frequencies in cycle/second, the duration in nsecond)."""
    return [
        ("DRAM Frequency", "cycle/second", _grouped(launch.dram_hz)),
        ("SM Frequency", "cycle/second", _grouped(launch.sm_hz)),
        ("Elapsed Cycles", "cycle", f"{launch.elapsed_cycles:,}"),
        ("Memory Throughput", "%", f"{launch.dram_pct:.2f}"),
        ("DRAM Throughput", "%", f"{launch.dram_pct:.2f}"),
        ("Duration", "nsecond", f"{launch.duration_ns:,}"),
        ("L1/TEX Cache Throughput", "%", f"{launch.sm_pct / 2:.2f}"),
        ("L2 Cache Throughput", "%", f"{launch.dram_pct / 2:.2f}"),
        ("SM Active Cycles", "cycle", f"{launch.elapsed_cycles * 0.97:,.2f}"),
        ("Compute (SM) Throughput", "%", f"{launch.sm_pct:.2f}"),
    ]


#: The SpeedOfLight rule's advice as ncu's text output wraps it (the memory one
#: verbatim from tests/data/ncu-text/heat_eq_ncu_output.txt; the compute one
#: shares its first two lines with that file's "greater than 80.0%" paragraph).
ADVICE: dict[str, tuple[str, tuple[str, ...]]] = {
    "memory": (
        "OPT",
        (
            "Memory is more heavily utilized than Compute: Look at the Memory Workload Analysis section to identify the",
            "DRAM bottleneck. Check memory replay (coalescing) metrics to make sure you're efficiently utilizing the",
            "bytes transferred. Also consider whether it is possible to do more work per memory access (kernel fusion) or",
            "whether there are values you can (re)compute.",
        ),
    ),
    "compute": (
        "INF",
        (
            "The kernel is utilizing greater than 80.0% of the available compute or memory performance of the device. To",
            "further improve performance, work will likely need to be shifted from the most utilized to another unit.",
            "Start by analyzing workloads in the Compute Workload Analysis section.",
        ),
    ),
}  # fmt: skip


def _advice(launch: Launch) -> tuple[str, tuple[str, ...]]:
    """The rule type and wrapped text of a launch's SpeedOfLight advice."""
    return ADVICE["memory" if launch.dram_pct > launch.sm_pct else "compute"]


def _sol_rule(launch: Launch) -> tuple[str, str, str]:
    """The SpeedOfLight rule's result (name, type, text) as the CSV pages hold it."""
    kind, lines = _advice(launch)
    return "SOLBottleneck", kind, " ".join(lines)


def _csv_line(fields: Sequence[str], trailing_comma: bool = False) -> str:
    """One row as ncu writes it: every field quoted, ``""`` for a quote, LF ending."""
    quoted = ",".join('"' + f.replace('"', '""') + '"' for f in fields)
    return quoted + ("," if trailing_comma else "") + "\n"


def _prelude(program_output: bool = True) -> str:
    lines = [f"==PROF== Connected to process {PID} ({COMMAND})"]
    if program_output:
        lines += PROGRAM_OUTPUT
    lines.append(f"==PROF== Disconnected from process {PID}")
    return "".join(line + "\n" for line in lines)


# --- the layouts -----------------------------------------------------------------------

BGDC_HEADER = [
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
    "Block Size", "Grid Size", "Device", "CC", "Section Name", "Metric Name", "Metric Unit",
    "Metric Value",
]  # fmt: skip
KT_HEADER = [
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context",
    "Stream", "Section Name", "Metric Name", "Metric Unit", "Metric Value",
]  # fmt: skip
RULES_3 = ["Rule Name", "Rule Type", "Rule Description"]
RULES_5 = [*RULES_3, "Estimated Speedup Type", "Estimated Speedup"]
METRICS_SECTION = "Command line profiler metrics"


def _ident(launch: Launch, kt: bool) -> list[str]:
    k = launch.kernel
    head = [str(launch.id), str(PID), PROCESS, HOST, k.name]
    if kt:
        return [*head, launch.time, "1", "7"]
    return [*head, "1", "7", k.block_text, k.grid_text, "0", CC]


def details_bgdc(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """``--csv --page details --print-units base --metrics ...`` of ncu 2023.x and later:
    the 15-column header with ``Block Size``/``Grid Size``/``Device``/``CC``, no rule
    columns (modelled on wangzy0327's ``src/output_A100.csv``: ``==PROF==`` lines around
    the program's output, then one row per launch and metric)."""
    out = [_prelude(), _csv_line(BGDC_HEADER)]
    for launch in launches:
        for metric, unit, value in _metrics(launch):
            out.append(
                _csv_line(
                    [*_ident(launch, kt=False), METRICS_SECTION, metric, unit, _grouped(value)]
                )
            )
    return "".join(out).encode("utf-8")


def details_bgdc_rules(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """The same page with sections and ncu 2023.x's five rule columns (modelled on
    CodeGandee's ``ncu.details.csv`` and the shipped sample): metric rows end in a
    trailing comma (the empty rule fields are omitted), rule rows leave the metric
    fields empty and fill all five rule fields."""
    out = [_prelude(), _csv_line([*BGDC_HEADER, *RULES_5])]
    for launch in launches:
        ident = _ident(launch, kt=False)
        for metric, unit, value in _metrics(launch):
            out.append(_csv_line([*ident, METRICS_SECTION, metric, unit, _grouped(value)], True))
        for name, unit, value in _sol(launch):
            out.append(
                _csv_line([*ident, "GPU Speed Of Light Throughput", name, unit, value], True)
            )
        rule, kind, text = _sol_rule(launch)
        out.append(_csv_line([*ident, "SpeedOfLight", "", "", "", rule, kind, text, "", ""]))
    return "".join(out).encode("utf-8")


def details_kt_rules(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """ncu 2021.x's details page: the ``Kernel Time`` header (a time stamp, no launch
    shape, no device or CC columns) with three rule columns (modelled on leleucas's
    ``bert_torch_nsight.csv``): metric rows end in a trailing comma, rule rows carry
    the section's short name."""
    out = [_prelude(program_output=False), _csv_line([*KT_HEADER, *RULES_3])]
    for launch in launches:
        ident = _ident(launch, kt=True)
        for metric, unit, value in _metrics(launch):
            out.append(_csv_line([*ident, METRICS_SECTION, metric, unit, _grouped(value)], True))
        for name, unit, value in _sol(launch):
            out.append(
                _csv_line([*ident, "GPU Speed Of Light Throughput", name, unit, value], True)
            )
        rule, kind, text = _sol_rule(launch)
        out.append(_csv_line([*ident, "SpeedOfLight", "", "", "", rule, kind, text]))
    return "".join(out).encode("utf-8")


#: The raw page's columns after the identity ones: (metric, ncu 2025's base unit).
RAW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("device__attribute_clock_rate", ""),
    ("device__attribute_compute_capability_major", ""),
    ("device__attribute_compute_capability_minor", ""),
    ("device__attribute_display_name", ""),
    ("device__attribute_multiprocessor_count", ""),
    ("dram__bytes_read.sum", "byte"),
    ("dram__bytes_write.sum", "byte"),
    ("dram__cycles_elapsed.avg.per_second", "Hz"),
    ("gpu__time_duration.sum", "ns"),
    ("launch__block_size", ""),
    ("launch__grid_size", ""),
    ("launch__registers_per_thread", "register/thread"),
    ("launch__sm_count", "SM"),
    ("launch__waves_per_multiprocessor", ""),
    ("lts__t_bytes.sum", "byte"),
    ("sm__cycles_elapsed.avg.per_second", "Hz"),
    *((name, "inst") for name in _SASS),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"),
    # Last: a cut a few bytes before a row's end falls inside this value.
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "%"),
)


def _raw_values(launch: Launch) -> dict[str, str]:
    k = launch.kernel
    threads = k.block[0] * k.block[1] * k.block[2]
    blocks = k.grid[0] * k.grid[1] * k.grid[2]
    values: dict[str, str] = {
        "device__attribute_clock_rate": "1410000",
        "device__attribute_compute_capability_major": "8",
        "device__attribute_compute_capability_minor": "0",
        "device__attribute_multiprocessor_count": str(SMS),
        "launch__block_size": str(threads),
        "launch__grid_size": str(blocks),
        "launch__registers_per_thread": "32" if k is VECTOR_ADD else "128",
        "launch__sm_count": str(SMS),
        "launch__waves_per_multiprocessor": f"{blocks / (SMS * (2048 // threads)):.2f}",
    }
    for metric, _unit, value in _metrics(launch):
        values[metric] = _plain(value)
    values["sm__throughput.avg.pct_of_peak_sustained_elapsed"] = f"{launch.sm_pct:.2f}"
    values["sm__warps_active.avg.pct_of_peak_sustained_active"] = (
        "87.45" if launch.kernel is VECTOR_ADD else "24.93"
    )
    return values


def raw(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """``--csv --page raw`` of ncu 2025.x (modelled on meinie0826's decode export): two
    ``==PROF==`` lines, the identity columns then one column per metric in
    alphabetical order, a units row (empty under identity and unitless columns), one
    row per launch, numbers without separators."""
    names = [name for name, _ in RAW_COLUMNS]
    out = [
        _prelude(program_output=False),
        _csv_line([*BGDC_HEADER[:11], *names]),
        _csv_line([""] * 11 + [unit for _, unit in RAW_COLUMNS]),
    ]
    for launch in launches:
        values = _raw_values(launch)
        out.append(_csv_line([*_ident(launch, kt=False), *(values[n] for n in names)]))
    return "".join(out).encode("utf-8")


SUMMARY_HEADER = [
    "Process ID", "Process Name", "Host Name", "Kernel Name", "Block Size", "Grid Size",
    "Device", "CC", "Invocations", "Section Name", "Metric Name", "Metric Unit", "Minimum",
    "Maximum", "Average",
]  # fmt: skip


def _kernels(launches: Sequence[Launch]) -> list[list[Launch]]:
    """Launches grouped by kernel (name and launch shape), in order of first launch."""
    groups: dict[Kernel, list[Launch]] = {}
    for launch in launches:
        groups.setdefault(launch.kernel, []).append(launch)
    return list(groups.values())


def summary(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """``--csv --print-summary per-kernel`` (modelled on Giotyp's ``metrics.csv``): no
    ``ID`` column, one row per kernel and metric with its ``Invocations`` and the
    ``Minimum``/``Maximum``/``Average`` over them, every number with two decimals.
    It names no device (a summary's values are numbers to aggregate): the SM count
    and the clock locked to the A100 SXM4 40GB's base say which GPU it is."""
    out = [_csv_line(SUMMARY_HEADER)]
    for group in _kernels(launches):
        k = group[0].kernel
        ident = [str(PID), PROCESS, HOST, k.name, k.block_text, k.grid_text, "0", CC]
        per_metric: dict[tuple[str, str], list[float]] = {}
        for launch in group:
            for metric, unit, value in _metrics(launch):
                if not isinstance(value, str):
                    per_metric.setdefault((metric, unit), []).append(float(value))
            per_metric.setdefault(("device__attribute_multiprocessor_count", ""), []).append(SMS)
        for (metric, unit), values in sorted(per_metric.items()):
            stats = (min(values), max(values), sum(values) / len(values))
            out.append(
                _csv_line(
                    [
                        *ident,
                        str(len(group)),
                        METRICS_SECTION,
                        metric,
                        unit,
                        *(f"{v:,.2f}" for v in stats),
                    ]
                )
            )
    return "".join(out).encode("utf-8")


def _text_block(section: str, rows: Sequence[tuple[str, str, str]]) -> list[str]:
    """One section's table as ncu's text output draws it: the name left-aligned, unit
    and value right-aligned, each column as wide as its widest cell or heading, a
    dashed rule above and below the headings and under the last row."""
    headings = ("Metric Name", "Metric Unit", "Metric Value")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headings)]
    rule = "    " + " ".join("-" * w for w in widths)

    def line(name: str, unit: str, value: str) -> str:
        return f"    {name:<{widths[0]}} {unit:>{widths[1]}} {value:>{widths[2]}}"

    body = [line(*row) for row in rows]
    return [f"    Section: {section}", rule, line(*headings), rule, *body, rule, ""]


def text(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """ncu's human-readable output (``ncu --print-units base --section SpeedOfLight
    --metrics ... ./app > profile.txt``; modelled on the heat_eq and pfac outputs in
    tests/data/ncu-text/): ``==PROF==`` progress lines among the program's output,
    ``[pid] process@host``, then per launch its header line and one table per
    section, an advice paragraph after the speed-of-light table."""
    lines = [f"==PROF== Connected to process {PID} ({COMMAND})"]
    for launch in launches:
        lines.append(
            f'==PROF== Profiling "{launch.kernel.function}" - {launch.id}: '
            "0%....50%....100% - 9 passes"
        )
    lines += [*PROGRAM_OUTPUT, f"==PROF== Disconnected from process {PID}"]
    lines.append(f"[{PID}] {PROCESS}@{HOST}")
    for launch in launches:
        k = launch.kernel
        lines.append(
            f"  {k.name} {k.grid_text}x{k.block_text}, Context 1, Stream 7, Device 0, CC {CC}"
        )
        lines += _text_block("GPU Speed Of Light Throughput", _sol(launch))
        lines += _paragraph(*_advice(launch))
        metric_rows = [(m, u, _grouped(v)) for m, u, v in _metrics(launch)]
        lines += _text_block(METRICS_SECTION, metric_rows)
    return "".join(line + "\n" for line in lines).encode("utf-8")


def _paragraph(kind: str, lines: Sequence[str]) -> list[str]:
    """An advice paragraph: the type, then the wrapped text, each line padded to 120."""
    first = f"    {kind:<5} {lines[0]:<110}"
    return [first, *(f"          {line:<110}" for line in lines[1:]), ""]


def gzipped(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """The details page compressed (``ncu ... | gzip > profile.csv.gz``)."""
    return gzip.compress(details_bgdc(launches), mtime=0)


def utf16(launches: Sequence[Launch] = LAUNCHES) -> bytes:
    """The details page as Windows PowerShell 5's ``>`` writes it: UTF-16 LE with a
    byte-order mark and CRLF line endings."""
    body = details_bgdc(launches).decode("utf-8").replace("\n", "\r\n")
    return body.encode("utf-16")  # BOM, then little-endian on every platform CI runs on


# --- the catalogue ---------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """One synthetic export: its file name, writer, and the reader's layout name."""

    key: str
    filename: str
    writer: Callable[[Sequence[Launch]], bytes]
    layout: str
    #: Whether the export has one row per launch (the summary has one per kernel).
    per_launch: bool = True

    @property
    def rows(self) -> int:
        """Launch rows the reader makes of it: one per launch, or one per kernel."""
        return len(LAUNCHES) if self.per_launch else len(_kernels(LAUNCHES))


LAYOUTS: dict[str, Layout] = {
    layout.key: layout
    for layout in (
        Layout("details", "synthetic_details.csv", details_bgdc, "details"),
        Layout("details-rules", "synthetic_details_rules.csv", details_bgdc_rules, "details"),
        Layout("details-kt-rules", "synthetic_details_kt.csv", details_kt_rules, "details"),
        Layout("raw", "synthetic_raw.csv", raw, "raw"),
        Layout("summary", "synthetic_summary.csv", summary, "summary", per_launch=False),
        Layout("text", "synthetic_profile.txt", text, "text"),
        Layout("gzip", "synthetic_details.csv.gz", gzipped, "details"),
        Layout("utf16", "synthetic_details_utf16.csv", utf16, "details"),
    )
}


def write(key: str, folder: Path, launches: Sequence[Launch] = LAUNCHES) -> Path:
    """Write the synthetic export ``key`` of :data:`LAYOUTS` into ``folder``; its path."""
    layout = LAYOUTS[key]
    path = folder / layout.filename
    path.write_bytes(layout.writer(launches))
    return path


def csv_rows(data: bytes) -> list[list[str]]:
    """The CSV rows of an export's table (the lines from its header on), parsed by csv."""
    text_ = data.decode("utf-8")
    start = next(i for i, ln in enumerate(text_.splitlines()) if ln.startswith('"'))
    return list(csv.reader(io.StringIO("\n".join(text_.splitlines()[start:]))))
