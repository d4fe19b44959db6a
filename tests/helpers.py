"""What several test modules share: paths, the CLI runner, synthetic profiles, figure checks.

Test modules import from here (or use the fixtures of ``conftest.py``) and
never from one another, so a test module can be moved, split or deleted
without breaking the others.

* Paths: the checkout, its test data, the shipped simulated sample and the
  folder of real ncu exports that lives beside the checkout.
* :func:`run`: the command line exactly as a user runs it, in a subprocess.
* :func:`foreground_signals`: SIGINT, SIGTERM and SIGHUP at their defaults, as
  a terminal's foreground job has them, for the tests that send signals
  (``preexec_fn`` of a child, or in process), however pytest was started.
* :func:`slower_candidate`: the shipped sample with one kernel 50% slower,
  the candidate side of the comparison tests.
* The input read by hand: :func:`details_metrics` and :func:`sample_launches`
  read a details-page export with the csv module alone, so tests derive
  expected values from the input rather than from the tool.
* Synthetic profiles: launch frames built from metric dictionaries through
  :func:`ncu_roofline.core.model.finalize_launches`, as the readers build
  them, analysed against :func:`spec`'s GPU (1 TFLOP/s FP32, 100 GB/s DRAM,
  ridge 10 FLOP/byte).
* Figure checks: a Plotly figure is valid, plain JSON, and carries no markup
  but the chart module's own tags; :func:`hover_escaped` is how hover text
  must carry a name.
"""

from __future__ import annotations

import csv
import html
import io
import json
import math
import re
import shutil
import signal
import statistics
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import plotly.graph_objects as go

from ncu_roofline import analyze
from ncu_roofline.analysis import Analysis
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.core.model import Profile, SourceInfo, finalize_launches

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
#: The real ncu exports; they live outside the repository, beside the checkout.
SAMPLES = REPO.parent / "shared" / "ncu-samples"
#: The real exports beside the checkout (every file but the index), sorted; none without them.
SAMPLE_EXPORTS: list[Path] = (
    sorted(p for p in SAMPLES.glob("*") if p.is_file() and p.suffix != ".md")
    if SAMPLES.is_dir()
    else []
)
#: The shipped simulated export (sample_reports/make_simulated.py).
SAMPLE = REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.details.csv"

#: Seconds one command-line run may take on a busy machine.
CLI_TIMEOUT = 180


# --- the command line ----------------------------------------------------------------


def run(
    *args: str,
    cwd: Path | None = None,
    stdin: bytes | None = None,
    timeout: float = CLI_TIMEOUT,
) -> subprocess.CompletedProcess[str]:
    """``ncu-roofline ARGS`` in a subprocess, from ``cwd`` (default: the checkout).

    stdin is empty unless given, so a command that reads ``-`` never waits on
    the terminal; output is decoded as UTF-8 with replacement, so a test can
    assert on any bytes the command printed.
    """
    proc = subprocess.run(
        [sys.executable, "-m", "ncu_roofline", *args],
        input=stdin if stdin is not None else b"",
        capture_output=True,
        cwd=cwd or REPO,
        timeout=timeout,
        check=False,
    )
    return subprocess.CompletedProcess(
        proc.args,
        proc.returncode,
        proc.stdout.decode("utf-8", errors="replace"),
        proc.stderr.decode("utf-8", errors="replace"),
    )


#: The signals the tool ends a run on, where the platform has them.
FOREGROUND_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def foreground_signals() -> None:
    """Set SIGINT, SIGTERM and SIGHUP to their defaults, as a foreground terminal job has them.

    A process inherits ignored signals: pytest started as a background job
    (``pytest &``) ignores SIGINT, under ``nohup`` SIGHUP, and so does every
    child it starts; the tool rightly keeps an ignored signal ignored, so a
    test that sends one would see nothing happen.  Pass this as the
    ``preexec_fn`` of a child the test signals (it runs in the child before
    exec), or call it in process after saving the handlers to restore.
    """
    for sig in FOREGROUND_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


#: The headless browsers the page tests drive, in order of preference.
BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    """The first of :data:`BROWSERS` on PATH, or None (the browser tests then skip)."""
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def parse_one(text: str | None, decimal: str = ".") -> float | None:
    """One ncu-printed number through the reader's parser
    (:func:`~ncu_roofline.core.units.parse_numbers_checked`); ``None`` where it
    is missing, malformed or not a number."""
    import pyarrow as pa

    from ncu_roofline.core.units import parse_numbers_checked

    value = float(parse_numbers_checked(pa.array([text], type=pa.string()), decimal)[0][0])
    return None if math.isnan(value) else value


def slower_candidate(path: Path) -> None:
    """Write the shipped sample with flash_fwd_splitkv_kernel 50% slower to ``path``."""
    out = io.StringIO()
    for line in SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True):
        if "flash_fwd_splitkv_kernel" in line and '"gpu__time_duration.sum"' in line:
            row = next(csv.reader([line]))
            i = row.index("gpu__time_duration.sum")
            row[i + 2] = repr(float(row[i + 2].replace(",", "")) * 1.5)
            csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerow(row)
        else:
            out.write(line)
    path.write_text(out.getvalue(), encoding="utf-8")


def details_rows(path: Path) -> list[dict[str, str]]:
    """The rows of a details-page export after its header, read with the csv module alone."""
    text = path.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith('"ID",'))
    return list(csv.DictReader(text[start:]))


def details_metrics(path: Path, launch_id: int) -> dict[str, tuple[str, float]]:
    """Metric name -> (unit, value) of one launch of a details-page export.

    Independent of the package's readers, so tests can derive expected values
    from the input itself; thousands separators are dropped, non-numeric
    values (``n/a``) left out.
    """
    found: dict[str, tuple[str, float]] = {}
    for row in details_rows(path):
        if row["ID"] == str(launch_id) and row["Metric Name"]:
            try:
                value = float(row["Metric Value"].replace(",", ""))
            except ValueError:
                continue
            found[row["Metric Name"]] = (row["Metric Unit"], value)
    return found


@dataclass(frozen=True)
class SampleLaunch:
    """One launch of the shipped sample, worked out from its CSV rows by hand.

    FP32 FLOPs = fadd + fmul + 2 x ffma; tensor FLOPs = the
    ``sm__ops_path_tensor_src_bf16_dst_fp32`` count; DRAM bytes = read +
    write; each roof = its ``.peak_sustained`` per cycle x the launch's
    clock (FFMA x 2 FLOPs x SM clock, bytes/cycle x DRAM clock).
    """

    id: int
    kernel: str
    grid: str
    duration_s: float
    fp32_flops: float
    tensor_flops: float
    dram_bytes: float
    sm_clock_hz: float
    peak_fp32: float
    peak_tensor: float
    peak_dram: float

    @property
    def flops(self) -> float:
        """All FLOPs (the sample has no FP64 or FP16 work)."""
        return self.fp32_flops + self.tensor_flops

    @property
    def efficiency(self) -> float:
        """Achieved over attainable: min(the roof of its main precision, AI x DRAM)."""
        peak = self.peak_tensor if self.tensor_flops > self.fp32_flops else self.peak_fp32
        attainable = min(peak, self.flops / self.dram_bytes * self.peak_dram)
        return self.flops / self.duration_s / attainable


def sample_launches() -> list[SampleLaunch]:
    """Every launch of the shipped sample, in file order (see :class:`SampleLaunch`)."""
    names = {r["ID"]: (r["Kernel Name"], r["Grid Size"]) for r in details_rows(SAMPLE)}
    launches = []
    for key, (kernel, grid) in names.items():
        m = {name: value for name, (_, value) in details_metrics(SAMPLE, int(key)).items()}
        assert details_metrics(SAMPLE, int(key))["gpu__time_duration.sum"][0] == "ns"
        tensor = "sm__ops_path_tensor_src_bf16_dst_fp32.sum"
        clock = m["sm__cycles_elapsed.avg.per_second"]
        launches.append(
            SampleLaunch(
                id=int(key),
                kernel=kernel,
                grid=grid,
                duration_s=m["gpu__time_duration.sum"] * 1e-9,
                fp32_flops=m[sass("fadd")] + m[sass("fmul")] + 2 * m[sass("ffma")],
                tensor_flops=m[tensor],
                dram_bytes=m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"],
                sm_clock_hz=clock,
                peak_fp32=m[sass("ffma") + ".peak_sustained"] * 2 * clock,
                peak_tensor=m[tensor + ".peak_sustained"] * clock,
                peak_dram=m["dram__bytes.sum.peak_sustained"]
                * m["dram__cycles_elapsed.avg.per_second"],
            )
        )
    return launches


def sample_roofs() -> dict[str, float]:
    """The sample device's roofs: the median over its launches of each launch's roof.

    (The peaks per cycle are the same in every launch; the clocks jitter.)
    """
    launches = sample_launches()
    return {
        "fp32": statistics.median(x.peak_fp32 for x in launches),
        "tensor_bf16": statistics.median(x.peak_tensor for x in launches),
        "dram": statistics.median(x.peak_dram for x in launches),
    }


def time_weighted_efficiency(launches: list[SampleLaunch]) -> float:
    """A group's efficiency: its launches' efficiencies weighted by their time."""
    total = sum(x.duration_s for x in launches)
    return sum(x.efficiency * x.duration_s for x in launches) / total


# --- synthetic profiles --------------------------------------------------------------

FP = {"fp64": "d", "fp32": "f", "fp16": "h"}


def sass(op: str, prefix: str = "sm") -> str:
    """``sass("ffma")`` -> ``sm__sass_thread_inst_executed_op_ffma_pred_on.sum``."""
    return f"{prefix}__sass_thread_inst_executed_op_{op}_pred_on.sum"


def counts(
    precision: str, add: float, mul: float, fma: float, prefix: str = "sm"
) -> dict[str, float]:
    """The add, mul and fma instruction counters of one precision."""
    letter = FP[precision]
    return {
        sass(f"{letter}add", prefix): add,
        sass(f"{letter}mul", prefix): mul,
        sass(f"{letter}fma", prefix): fma,
    }


def fp32(flops: float) -> dict[str, float]:
    """``flops`` FP32 FLOPs as FFMA instructions (2 FLOPs each, the mix the FP32 roof assumes)."""
    return counts("fp32", 0.0, 0.0, flops / 2.0)


def profile(rows: list[dict[str, float]], **identity: Any) -> Profile:
    """A profile with one launch per row; identity values are scalars or lists."""
    n = len(rows)
    names = list(dict.fromkeys(k for r in rows for k in r))
    metrics = {k: [float(r.get(k, math.nan)) for r in rows] for k in names}
    ident: dict[str, Any] = {
        "source": "synthetic.csv",
        "id": list(range(n)),
        "kernel": "k",
        "grid": "(1, 1, 1)",
        "block": "(128, 1, 1)",
    }
    ident.update(identity)
    ident = {k: v if isinstance(v, list) else [v] * n for k, v in ident.items()}
    return Profile(
        launches=finalize_launches(ident, metrics, n),
        sources=[SourceInfo(path="synthetic.csv", layout="details")],
    )


def spec(
    compute: dict[str, float] | None = None,
    dram: float = 1e11,
    name: str = "Synthetic GPU",
    boost_hz: float | None = None,
) -> GpuSpec:
    """The synthetic GPU: 1 TFLOP/s FP32 and 100 GB/s DRAM unless told otherwise."""
    return GpuSpec(
        key="synthetic",
        name=name,
        arch=None,
        cc="8.0",
        sms=None,
        boost_hz=boost_hz,
        base_hz=None,
        tensor_hz=None,
        compute={"fp32": 1e12} if compute is None else compute,
        memory={"dram": dram},
        match=(),
        source="test",
        notes="",
        unsure=(),
        derived=(),
        disputed=(),
        origin="test",
    )


def analyse_rows(
    rows: list[dict[str, float]], gpu: GpuSpec | None = None, **identity: Any
) -> Analysis:
    """The analysis of a synthetic profile on ``gpu`` (default: :func:`spec`)."""
    return analyze(profile(rows, **identity), gpu=gpu or spec(), clocks="datasheet")


def col(a: Analysis, name: str) -> list[Any]:
    """One column of the launch frame, failing clearly when it is missing."""
    assert name in a.launches.columns, f"{name} missing; columns: {list(a.launches.columns)}"
    return list(a.launches[name])


def num(a: Analysis, name: str, i: int = 0) -> float:
    """One launch's value of a column, as a float."""
    return float(col(a, name)[i])


# --- figure checks -------------------------------------------------------------------

XSS = "</script><img src=x onerror=alert(1)>"

# Tags the chart module itself writes into hover templates; nothing else may
# look like markup.
OWN_TAGS = re.compile(r"</?(?:b|br|extra)>")
_ENTITY = re.compile(r"&(?:amp|lt|gt|#34|#39);")


def hover_escaped(text: str) -> str:
    """``text`` as plotly hover text must carry it: :func:`html.escape`, quotes as numeric refs.

    plotly.js decodes numeric character references and ``&amp; &lt; &gt;`` in
    hover text, but not ``&quot;``.
    """
    return html.escape(text, quote=False).replace('"', "&#34;").replace("'", "&#39;")


def strings(obj: Any) -> Iterator[str]:
    """Every string anywhere in a JSON-like value, dict keys included."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def assert_plain(obj: Any, where: str = "figure") -> None:
    """Only JSON's own Python types (no numpy scalars, no tuples), no NaN/inf."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            assert type(k) is str, where
            assert_plain(v, f"{where}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            assert_plain(v, f"{where}[{i}]")
    elif isinstance(obj, float):
        assert type(obj) is float and math.isfinite(obj), where
    else:
        assert obj is None or type(obj) in (str, int, bool), f"{where}: {type(obj)}"


def assert_no_markup_injection(figure: dict[str, Any]) -> None:
    """Outside the chart module's own tags, no string holds ``<``, ``>`` or a bare ``&``."""
    for s in strings(figure):
        bare = OWN_TAGS.sub("", s)
        assert "<" not in bare and ">" not in bare, s
        assert "&" not in _ENTITY.sub("", bare), s


def check_figure(entry: dict[str, Any]) -> None:
    """Valid for plotly, JSON-serialisable without NaN, plain types, no injected markup."""
    fig = entry["figure"]
    go.Figure(fig)  # plotly's own validator: raises on any unknown property
    json.dumps(fig, allow_nan=False)
    assert_plain(fig)
    assert_no_markup_injection(fig)
