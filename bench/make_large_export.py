"""Build a large ``ncu --csv --page details`` export by replicating a real one.

The template is a real one-launch export (20-column header with the five rule
columns; metric rows are ragged and end with a trailing comma, rule rows carry
all 20 fields).  Its body is written again and again with the ``ID`` field
renumbered ``0..N-1`` and the kernel name cycling through a handful of
variants, until the output holds at least ``--size-mb`` megabytes (10^6 bytes)
*and* at least ``--launches`` launches.  The file is written streaming, a batch
of launches at a time, to a temporary name that is renamed when complete.

Usage::

    .venv/bin/python bench/make_large_export.py                  # 500 MB, 50,000 launches
    .venv/bin/python bench/make_large_export.py --size-mb 50 --launches 1000 -o small.csv
    .venv/bin/python bench/make_large_export.py --layout raw --size-mb 1 --launches 100000

``--layout raw`` writes a ``--page raw`` export instead (one row per launch,
a units row under the header) by replicating a real raw export's launch rows
with ``ID`` renumbered ``0..N-1``.
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
TEMPLATE_NAME = (
    "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
)
DEFAULT_SAMPLES = REPO_ROOT.parent / "shared" / "ncu-samples"
DEFAULT_OUTPUT = REPO_ROOT / "bench" / "out" / "large_details.csv"
#: The real ``--page raw`` export ``--layout raw`` replicates (64 launches, 475 columns).
RAW_TEMPLATE_NAME = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
DEFAULT_RAW_OUTPUT = REPO_ROOT / "bench" / "out" / "large_raw.csv"

#: Kernel names the copies cycle through; the first is the template's own.
#: One carries commas inside the quoted field, as templated PyTorch names do.
KERNEL_VARIANTS: tuple[str, ...] = (
    "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)",
    "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x128_64x3_tn_align8>(Params)",
    "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_128x256_32x3_nn_align8>(Params)",
    "void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl"
    "(at::TensorIteratorBase &, at::native::GeluType)::[lambda() (instance 1)]::operator ()() "
    "const::[lambda() (instance 4)]::operator ()() const::[lambda(c10::BFloat16) (instance 1)], "
    "std::array<char *, 2>>(int, T2, T3)",
    "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, "
    "cutlass::bfloat16_t>, false, true, false, false, false, true, false, false>(Flash_fwd_params)",
    "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn",
)

#: What a real ``ncu --csv`` run prints before the table.
PROF_PRELUDE = (
    b"==PROF== Connected to process 1742833 (/usr/bin/python3.12)\n"
    b'==PROF== Profiling "Kernel2" - 0: 0%....50%....100% - 9 passes\n'
    b'==PROF== Profiling "Kernel2" - 1: 0%....50%....100% - 9 passes\n'
    b"==PROF== Disconnected from process 1742833\n"
)

_BATCH_LAUNCHES = 256
_KERNEL_FIELD = 4  # 0-based index of "Kernel Name" in every row


def _quote(field: str) -> str:
    return '"' + field.replace('"', '""') + '"'


def load_template(path: Path) -> tuple[bytes, list[tuple[bytes, bytes]]]:
    """The header line and, per body row, its bytes after the ID and kernel fields.

    Each row is split as ``"ID","pid","proc","host","kernel",<rest>``; ``rest``
    is kept byte for byte (ragged width, trailing comma, line end).  The first
    four fields are checked to be plain quoted values so that the split is
    exact.
    """
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    header_idx = next(i for i, ln in enumerate(lines) if ln.startswith(b'"ID",'))
    header = lines[header_idx]
    rows: list[tuple[bytes, bytes]] = []
    for line in lines[header_idx + 1 :]:
        if not line.startswith(b'"'):
            continue
        fields = next(csv.reader([line.decode("utf-8").rstrip("\r\n")]))
        prefix = ",".join(_quote(f) for f in fields[: _KERNEL_FIELD + 1]) + ","
        if not line.decode("utf-8").startswith(prefix):
            raise SystemExit(f"{path}: row does not start with plain quoted fields: {line[:80]!r}")
        middle = ",".join(_quote(f) for f in fields[1:_KERNEL_FIELD]).encode() + b","
        rest = line[len(prefix.encode()) :]
        rows.append((middle, rest))
    if not rows:
        raise SystemExit(f"{path}: no table rows after the header")
    return header, rows


def launch_parts(rows: list[tuple[bytes, bytes]], kernel: str) -> list[bytes]:
    """One launch's bytes split at every ID field: ``b'"7"'.join(parts)`` is launch 7."""
    kq = _quote(kernel).encode()
    # parts[0] is empty, so the join puts an ID at the start of every row.
    return [b""] + [b"," + middle + kq + b"," + rest for middle, rest in rows]


def write_export(
    output: Path,
    template: Path,
    min_bytes: int,
    min_launches: int,
    variants: int,
    prelude: bool,
) -> tuple[int, int]:
    """Write the export; return (bytes written, launches written)."""
    header, rows = load_template(template)
    kernels = KERNEL_VARIANTS[: max(1, min(variants, len(KERNEL_VARIANTS)))]
    per_kernel = [launch_parts(rows, k) for k in kernels]
    return _write_repeated(
        output,
        header,
        min_bytes,
        min_launches,
        prelude,
        lambda i: (b'"%d"' % i).join(per_kernel[i % len(per_kernel)]),
    )


def load_raw_template(path: Path) -> tuple[bytes, list[bytes]]:
    """A raw export's header and units rows, and per launch row its bytes after the ID field."""
    lines = path.read_bytes().splitlines(keepends=True)
    header_idx = next(i for i, ln in enumerate(lines) if ln.startswith(b'"ID",'))
    head = lines[header_idx] + lines[header_idx + 1]
    rests: list[bytes] = []
    for line in lines[header_idx + 2 :]:
        if not line.startswith(b'"'):
            continue
        end = line.index(b'",') + 1
        if not line[1 : end - 1].isdigit():
            raise SystemExit(f"{path}: row does not start with a quoted ID: {line[:80]!r}")
        rests.append(line[end:])
    if not rests:
        raise SystemExit(f"{path}: no launch rows under the units row")
    return head, rests


def write_raw_export(
    output: Path, template: Path, min_bytes: int, min_launches: int, prelude: bool
) -> tuple[int, int]:
    """A ``--page raw`` export: the template's rows again and again, IDs ``0..N-1``."""
    head, rests = load_raw_template(template)
    return _write_repeated(
        output,
        head,
        min_bytes,
        min_launches,
        prelude,
        lambda i: b'"%d"' % i + rests[i % len(rests)],
    )


def _write_repeated(
    output: Path,
    head: bytes,
    min_bytes: int,
    min_launches: int,
    prelude: bool,
    launch: Callable[[int], bytes],
) -> tuple[int, int]:
    """``head`` then launch ``0, 1, ...`` until both minimums are met; (bytes, launches)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    written = 0
    launches = 0
    with open(tmp, "wb", buffering=1 << 20) as fh:
        if prelude:
            fh.write(PROF_PRELUDE)
            written += len(PROF_PRELUDE)
        fh.write(head)
        written += len(head)
        while written < min_bytes or launches < min_launches:
            # Whole batches while launches are short, then one at a time, so
            # that the file is the smallest one that meets both minimums.
            short = min_launches - launches
            count = min(_BATCH_LAUNCHES, short) if short > 0 else 1
            first = launches
            launches += count
            chunk = b"".join(launch(i) for i in range(first, launches))
            fh.write(chunk)
            written += len(chunk)
    os.replace(tmp, output)
    return written, launches


# --------------------------------------------------------------------------
# --layout replica: whole real exports, again and again.

#: Default templates of ``--layout replica`` per ``--page``: real exports in
#: ``../shared/ncu-samples``.  ``details`` is the details export with the most
#: launches, ``details-many`` the one with the most launches per MB.
REPLICA_TEMPLATES: dict[str, tuple[str, ...]] = {
    # 26 launches, 12 kernel names, 1,611 rows (1,560 metric rows, 51 rule rows),
    # KT-header + 3 rule columns; 795 KB: 32.7 launches per MB.
    "details": (
        "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention_"
        "actual_parameter_analysis_data_5-9_bert_torch_nsight.csv",
    ),
    # 14 launches, 12 kernel names (PyTorch GCN), 140 metric rows, KT-header + 2
    # NVTX columns, no rule columns; 95.5 KB: 146.6 launches per MB.
    "details-many": (
        "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_"
        "TorchRes_ncu_metrics_show_torch.txt",
    ),
    "raw": (RAW_TEMPLATE_NAME,),
    # 2 kernel names x 100 invocations, 15 columns.
    "summary": ("Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv",),
}
PAGES = tuple(REPLICA_TEMPLATES)
DEFAULT_REPLICA_OUTPUT = {
    page: REPO_ROOT / "bench" / "out" / f"replica_{page}.csv" for page in PAGES
}

_HEADER_STARTS = (b'"ID",', b'\xef\xbb\xbf"ID",', b'"Process ID",', b'\xef\xbb\xbf"Process ID",')


@dataclass
class Replica:
    """One template cut for copying.

    ``prelude`` is what comes before the header (``==PROF==`` and program
    output), ``head`` the header line (plus the units row of a raw page).
    Each of ``rows`` is ``(rank, rest)``: ``rest`` is the row's bytes after
    its first field, byte for byte, and ``rank`` the 0-based order in which
    the row's ``ID`` first appears (details and raw pages) or, for a summary
    page, the row's ``Process ID`` as an integer.
    """

    path: Path
    page: str
    prelude: bytes
    head: bytes
    rows: list[tuple[int, bytes]]
    launches: int
    dropped: int


def load_replica(path: Path) -> Replica:
    """Cut a real export into prelude, head and first-field-split rows."""
    lines = path.read_bytes().splitlines(keepends=True)
    try:
        idx = next(i for i, ln in enumerate(lines) if ln.startswith(_HEADER_STARTS))
    except StopIteration:
        raise SystemExit(f'{path}: no header line starting with "ID" or "Process ID"') from None
    header = lines[idx]
    summary = header.lstrip(b"\xef\xbb\xbf").startswith(b'"Process ID",')
    raw = not summary and b'"Metric Value"' not in header
    page = "summary" if summary else "raw" if raw else "details"
    head_end = idx + (2 if raw else 1)  # a raw page's units row stays in the head
    eol = b"\r\n" if header.endswith(b"\r\n") else b"\n"
    head = b"".join(ln if ln.endswith(b"\n") else ln + eol for ln in lines[idx:head_end])
    ranks: dict[bytes, int] = {}
    groups: set[tuple[str, ...]] = set()  # a summary's (process, kernel, launch shape)
    rows: list[tuple[int, bytes]] = []
    dropped = 0
    for line in lines[head_end:]:
        if not line.startswith(b'"'):
            dropped += 1  # log lines or blank lines after the table
            continue
        if not line.endswith(b"\n"):
            line += eol  # the file's last row without a line end
        end = line.index(b'",')
        first = line[1:end]
        if not first.isdigit():
            raise SystemExit(f"{path}: a row's first field is no whole number: {line[:80]!r}")
        rank = int(first) if summary else ranks.setdefault(first, len(ranks))
        rows.append((rank, line[end + 1 :]))
        if summary:
            groups.add(tuple(next(csv.reader([line.decode("utf-8", "replace")]))[:8]))
    if not rows:
        raise SystemExit(f"{path}: no table rows after the header")
    launches = len(groups) if summary else len(ranks)
    return Replica(path, page, b"".join(lines[:idx]), head, rows, launches, dropped)


def replica_copy(rep: Replica, base: int) -> bytes:
    """One copy of ``rep``'s rows: IDs ``base + rank`` (a summary: Process ID + ``base``)."""
    return b"".join(b'"%d"' % (base + rank) + rest for rank, rest in rep.rows)


def write_replica(
    output: Path, templates: list[Path], min_bytes: int, min_launches: int
) -> tuple[int, int, int, list[Replica]]:
    """Whole templates again and again until both minimums are met.

    Returns (bytes written, launches written, copies written, the templates).
    Details and raw pages: each copy's launches get the next consecutive IDs
    (the first copy's are ``0..n-1``), everything else in the row is the
    template's bytes.  Summary page: copy ``k`` (from 0) adds ``k`` times the
    copy stride to every ``Process ID``, so each copy's kernels are new
    (process, kernel) groups; launches counts the template's rows' groups.
    The prelude of the first template is written once, at the top.
    """
    reps = [load_replica(t) for t in templates]
    first = reps[0]
    for rep in reps[1:]:
        if rep.head != first.head:
            raise SystemExit(
                f"{rep.path}: its header differs from {first.path}'s; "
                "templates of one replica must share the header"
            )
    summary = first.page == "summary"
    # Process IDs of a summary copy: far enough apart that copies never collide.
    stride = max(rank for rep in reps for rank, _ in rep.rows) + 1 if summary else 0
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(output.name + ".part")
    written = launches = copies = 0
    with open(tmp, "wb", buffering=1 << 20) as fh:
        for part in (first.prelude, first.head):
            fh.write(part)
            written += len(part)
        while written < min_bytes or launches < min_launches:
            rep = reps[copies % len(reps)]
            chunk = replica_copy(rep, copies * stride if summary else launches)
            fh.write(chunk)
            written += len(chunk)
            launches += rep.launches
            copies += 1
    os.replace(tmp, output)
    return written, launches, copies, reps


def _main_replica(args: argparse.Namespace) -> int:
    templates = args.template or [args.samples / n for n in REPLICA_TEMPLATES[args.page]]
    for t in templates:
        if not t.is_file():
            print(f"make_large_export: template not found: {t}", file=sys.stderr)
            return 2
    page = load_replica(templates[0]).page
    output = args.output or DEFAULT_REPLICA_OUTPUT[args.page if not args.template else page]
    t0 = time.perf_counter()
    size, launches, copies, reps = write_replica(
        output, templates, int(args.size_mb * 1e6), args.launches or 1
    )
    elapsed = time.perf_counter() - t0
    what = "(process, kernel) groups" if page == "summary" else "launches"
    print(
        f"wrote {output}: {page} page, {size / 1e6:,.1f} MB, {copies:,} copies, "
        f"{launches:,} {what} ({launches / (size / 1e6):,.1f} per MB) in {elapsed:.1f} s"
    )
    for rep in reps:
        print(
            f"  template {rep.path.name}: {rep.launches} {what}, {len(rep.rows):,} rows"
            + (f", {rep.dropped} non-table lines after the header dropped" if rep.dropped else "")
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        help=f"default: {DEFAULT_OUTPUT} ({DEFAULT_RAW_OUTPUT} with --layout raw)",
    )
    parser.add_argument(
        "--layout",
        choices=("details", "raw", "replica"),
        default="details",
        help="details (one row per metric; default), raw (one row per launch, "
        f"replicating {RAW_TEMPLATE_NAME}) or replica (whole real exports again and again, "
        "IDs renumbered; see --page)",
    )
    parser.add_argument(
        "--size-mb", type=float, default=500.0, help="minimum size in MB (10^6 bytes); default 500"
    )
    parser.add_argument(
        "--launches",
        type=int,
        default=None,
        help="minimum number of launches; default 50,000 (1 with --layout replica)",
    )
    parser.add_argument(
        "--kernels",
        type=int,
        default=len(KERNEL_VARIANTS),
        help=f"distinct kernel names to cycle through (1-{len(KERNEL_VARIANTS)}); default all",
    )
    parser.add_argument(
        "--samples",
        type=Path,
        default=DEFAULT_SAMPLES,
        help=f"folder holding the template export; default {DEFAULT_SAMPLES}",
    )
    parser.add_argument(
        "--template",
        type=Path,
        action="append",
        default=None,
        help="template export (overrides --samples); with --layout replica it may be given "
        "several times (their headers must match)",
    )
    parser.add_argument(
        "--page",
        choices=PAGES,
        default="details",
        help="with --layout replica and no --template: which real exports to replicate "
        "(details: the one with the most launches; details-many: the most launches per MB; "
        "raw; summary)",
    )
    parser.add_argument(
        "--no-prelude", action="store_true", help="do not prepend ==PROF== log lines"
    )
    args = parser.parse_args(argv)
    if args.layout == "replica":
        return _main_replica(args)
    raw = args.layout == "raw"
    if args.template and len(args.template) > 1:
        parser.error("several --template files need --layout replica")
    template = (
        args.template[0]
        if args.template
        else args.samples / (RAW_TEMPLATE_NAME if raw else TEMPLATE_NAME)
    )
    output = args.output or (DEFAULT_RAW_OUTPUT if raw else DEFAULT_OUTPUT)
    if args.launches is None:
        args.launches = 50_000
    if not template.is_file():
        print(f"make_large_export: template not found: {template}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    if raw:
        size, launches = write_raw_export(
            output,
            template,
            min_bytes=int(args.size_mb * 1e6),
            min_launches=args.launches,
            prelude=not args.no_prelude,
        )
        kernels = "the template's"
    else:
        size, launches = write_export(
            output,
            template,
            min_bytes=int(args.size_mb * 1e6),
            min_launches=args.launches,
            variants=args.kernels,
            prelude=not args.no_prelude,
        )
        kernels = str(min(args.kernels, len(KERNEL_VARIANTS)))
    elapsed = time.perf_counter() - t0
    print(
        f"wrote {output}: {size / 1e6:,.1f} MB, {launches:,} launches, "
        f"{kernels} kernels in {elapsed:.1f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
