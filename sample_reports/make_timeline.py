"""A SIMULATED Nsight Systems timeline of the sample's decode steps, and its budget picture.

The shipped ncu sample (``make_simulated.py``) is one Llama-3-8B decode step
on an H100, profiled: each launch's work and time.  This script writes what
``nsys stats --format csv`` would print for eight such steps run eagerly, so
that ``report --nsys`` has a timeline to join:

* ``simulated_llama3_8b_decode_h100.nsys_cuda_gpu_trace.csv``: every kernel
  of each step (the sample's launches, in order, their time jittered by up
  to +-3%), the small elementwise kernels an eager decode runs between them
  (residual adds, rotary embedding; the ncu profile does not hold them), the
  step's argmax and its 4-byte copy of the token to the host;
* ``simulated_llama3_8b_decode_h100.nsys_nvtx_gpu_proj_trace.csv``: one
  ``decode_step`` NVTX range per step, projected onto the GPU.

Timing model, stated so nobody mistakes it for a measurement: the host
issues a kernel every 6 us (an eager framework's launch cost); a kernel
starts when it has been issued and the previous one has finished, so short
kernels leave the GPU idle; after each step the host waits 60 us for the
token (synchronisation, sampling) before issuing the next.

Run ``python sample_reports/make_timeline.py``; with Chromium at hand it also
writes ``simulated_llama3_8b_decode_h100.budget.png``, the report's
"Where the step's time goes" section, for the README.  A test checks that
the committed CSVs match this script's output.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
SAMPLE = "sample_reports/simulated_llama3_8b_decode_h100.details.csv"
STEM = "simulated_llama3_8b_decode_h100"
TRACE = f"{STEM}.nsys_cuda_gpu_trace.csv"
NVTX = f"{STEM}.nsys_nvtx_gpu_proj_trace.csv"

STEPS = 8
#: The host's cost of one kernel launch in an eager framework, ns.
ISSUE_NS = 6_000
#: Host time between steps (wait for the token, sample, prepare the next), ns.
STEP_GAP_NS = 60_000
DEVICE = "NVIDIA H100 80GB HBM3 (0)"
#: Small elementwise kernels an eager decode runs after each profiled launch:
#: (name, grid, block, duration ns).  The ncu sample does not hold them.
ELEMENTWISE = (
    (
        "void at::native::vectorized_elementwise_kernel<(int)4, "
        "at::native::CUDAFunctor_add<c10::BFloat16>, std::array<char *, (unsigned long)3>>"
        "(int, T2, T3)",
        (8, 1, 1),
        (128, 1, 1),
        2_300,
    ),
    (
        "void at::native::elementwise_kernel<(int)128, (int)2, "
        "void at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, "
        "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>>"
        "(at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)]>(int, T3)",
        (16, 1, 1),
        (128, 1, 1),
        1_900,
    ),
)
ARGMAX = (
    "void at::native::reduce_kernel<(int)512, (int)1, at::native::ReduceOp<c10::BFloat16, "
    "at::native::ArgMaxOps<c10::BFloat16>, unsigned int, long, (int)4>>"
    "(T3)",
    (1, 1, 1),
    (512, 1, 1),
    9_800,
)
#: The header lines exactly as nsys prints them.
TRACE_HEADER = (
    "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
    "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name"
)
NVTX_HEADER = (
    "Name,Projected Start (ns),Projected Duration (ns),Orig Start (ns),Orig Duration (ns),"
    "Style,PID,TID,NumGPUOps,Lvl,NumChild,RangeId,ParentId,RangeStack"
)


def _dims(text: str) -> tuple[int, int, int]:
    x, y, z = (int(p) for p in text.strip("()").split(","))
    return x, y, z


def _jitter(i: int) -> float:
    """A fixed factor in [0.97, 1.03] for the i-th kernel (no randomness: stable files)."""
    return 0.97 + 0.06 * ((i * 2654435761) % 1000) / 999


def _launches() -> list[tuple[str, tuple[int, int, int], tuple[int, int, int], int]]:
    """The sample's launches in order: name, grid, block, duration ns."""
    sys.path.insert(0, str(REPO))
    from ncu_roofline import load

    frame = load([str(REPO / SAMPLE)]).launches
    return [
        (str(k), _dims(str(g)), _dims(str(b)), round(float(d) * 1e9))
        for k, g, b, d in zip(
            frame["kernel"], frame["grid"], frame["block"], frame["duration_s"], strict=True
        )
    ]


def render() -> dict[str, str]:
    """The two CSV files, as text."""
    launches = _launches()
    trace: list[list[object]] = []
    ranges: list[list[object]] = []
    host = 1_000_000_000  # the capture starts 1 s into the process
    gpu_free = host
    corr = 1000
    n = 0
    for step in range(STEPS):
        work = []
        for launch in launches:
            work.append(launch)
            work.extend(ELEMENTWISE)
        work.append(ARGMAX)
        first = None
        for name, grid, block, duration in work:
            host += ISSUE_NS
            start = max(host, gpu_free)
            length = round(duration * _jitter(n))
            n += 1
            # Registers, shared memory; no bytes (a kernel); device, context, green context, stream.
            identity = [32, 0, 0, "", "", "", "", DEVICE, 1, "", 7]
            trace.append([start, length, corr, *grid, *block, *identity, name])
            corr += 1
            first = start if first is None else first
            gpu_free = start + length
        host += ISSUE_NS
        start = max(host, gpu_free)
        trace.append(
            [start, 1_400, corr, "", "", "", "", "", "", "", "", "", 0.000004, 2.857,
             "Device", "Pageable", DEVICE, 1, "", 7, "[CUDA memcpy Device-to-Host]"]
        )  # fmt: skip
        corr += 1
        gpu_free = start + 1_400
        assert first is not None
        ranges.append(
            [":decode_step", first, gpu_free - first, first - 4_000, gpu_free - first,
             "PushPop", 4242, 4242, len(work) + 1, 0, 0, step + 1, "", f":{step + 1}"]
        )  # fmt: skip
        host = gpu_free + STEP_GAP_NS
    return {TRACE: _csv(TRACE_HEADER, trace), NVTX: _csv(NVTX_HEADER, ranges)}


def _csv(header: str, rows: list[list[object]]) -> str:
    out = io.StringIO()
    out.write(header + "\n")
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def _budget_page(html: str) -> str:
    """The report page showing only its budget section (for the README picture)."""
    hide = "<style>header, main > section:not(#budget) { display: none; }</style>"
    return html.replace("</head>", f"{hide}</head>", 1)


def screenshot() -> bool:
    """The budget section's picture, when Chromium is at hand; False when it is not."""
    browser = next(
        (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
    )
    if browser is None:
        return False
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        subprocess.run(
            [sys.executable, "-m", "ncu_roofline", "report", SAMPLE, "--nsys",
             f"sample_reports/{TRACE}", "--nsys", f"sample_reports/{NVTX}", "-o", str(page)],
            cwd=REPO, check=True, env={**os.environ, "PYTHONPATH": str(REPO)},
            capture_output=True,
        )  # fmt: skip
        page.write_text(_budget_page(page.read_text(encoding="utf-8")), encoding="utf-8")
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--user-data-dir={tmp}/profile", f"--screenshot={HERE / f'{STEM}.budget.png'}",
             "--window-size=1200,760", page.as_uri()],
            check=True, capture_output=True,
        )  # fmt: skip
    return True


def main() -> None:
    """Write the CSV files, then the picture."""
    for name, text in render().items():
        (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {name}")
    if screenshot():
        print(f"wrote {STEM}.budget.png")


if __name__ == "__main__":
    main()
