"""Gold files: the text outputs, byte for byte, on the shipped sample and real exports.

Each case runs the command line as a user runs it and compares what it
printed with ``tests/gold/<format>/<case>``: the Markdown report (PR
comment), JUnit XML, the terminal ``summary``, the ``theory`` table and the
comparison's Markdown.  The inputs are the shipped simulated sample (and a
copy of it with one kernel 50% slower, for the comparison) and real ncu
exports from ``../shared/ncu-samples/``; the cases on real exports skip, as
every test on them does, when that folder is absent.

Before comparing, only what legitimately varies between machines and
releases is replaced by a placeholder (:func:`normalise`): the package
version, ISO timestamps, and the absolute paths of the checkout, the samples
folder and the test's temporary folder (also in their Markdown-escaped form).
Everything else, every number and every space, must match.

To accept a deliberate change of output, regenerate the files and review the
diff before committing it::

    NCU_ROOFLINE_REGEN_GOLD=1 python -m pytest tests/test_gold.py

(see ``tests/gold/README.md``).  On a mismatch the test prints a unified diff
and leaves the normalised output beside a copy of the gold file in its
temporary folder.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from ncu_roofline.version import __version__
from tests.helpers import REPO, SAMPLE, SAMPLES, run, slower_candidate

GOLD = REPO / "tests" / "gold"
REGEN = "NCU_ROOFLINE_REGEN_GOLD"

NBODY = "Lakoc__Nbody_CUDA__profile_1.out"  # A100 SXM4 40GB, full NERSC metric set
WANGZY_V100 = "wangzy0327__cuda-roofline__src_output.csv"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
# Sibling kernels whose short names must differ: two elementwise_kernel
# instances differing inside a lambda, no launch shape exported.
BERT = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
# One CUTLASS Kernel2<...> with a long tile suffix.
CUTLASS = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
# The nsys summaries of that run's decode stage (report --nsys), and kiln's four summaries.
NSYS = "{samples}/../nsys-samples"
DECODE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_nsys_per-stage_decode_nsys_summary_cuda_gpu_kern_sum.csv"
KILN = tuple(
    f"{NSYS}/ericflo__kiln__docs_phase-c52_{name}.csv"
    for name in ("cuda_api_sum_cuda_api_sum", "cuda_gpu_kern_sum_cuda_gpu_kern_sum",
                 "nvtx_gpu_proj_sum_nvtx_gpu_proj_sum", "nvtx_kern_sum_nvtx_kern_sum")
)  # fmt: skip
MODEL = ("--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "2048")
HTML_URL = "https://ci.example/run/1/report.html"


@dataclass(frozen=True)
class Case:
    """One command and the gold file its standard output must match.

    ``args`` may name ``{sample}`` (the shipped sample), ``{samples}`` (the
    real exports' folder) and ``{candidate}`` (the sample, flash kernel 50%
    slower, written to the test's temporary folder).
    """

    gold: str
    args: tuple[str, ...]
    exit_code: int = 0

    @property
    def real(self) -> bool:
        """Whether the case reads the real exports."""
        return any("{samples}" in a for a in self.args)


CASES = [
    Case("markdown/sample_model.md",
         ("report", "{sample}", *MODEL, "--format", "md", "-o", "-", "--html-url", HTML_URL)),
    Case("markdown/nbody_a100.md",
         ("report", f"{{samples}}/{NBODY}", "--gpu", "a100_40gb_sxm", "--format", "md", "-o", "-")),
    Case("junit/sample_model_gated.xml",
         ("report", "{sample}", *MODEL, "--format", "junit", "-o", "-",
          "--fail-on", "efficiency<0.5", "--fail-on", "excess-traffic"), exit_code=3),
    Case("junit/nbody_a100.xml",
         ("report", f"{{samples}}/{NBODY}", "--gpu", "a100_40gb_sxm", "--format", "junit",
          "-o", "-")),
    Case("markdown/wangzy_v100_gated.md",
         ("report", f"{{samples}}/{WANGZY_V100}", "--format", "md", "-o", "-",
          "--fail-on", "efficiency<0.5"), exit_code=3),
    Case("markdown/bert_a100.md",
         ("report", f"{{samples}}/{BERT}", "--gpu", "a100_40gb_sxm", "--format", "md", "-o", "-")),
    Case("markdown/cutlass_nsys_decode.md",
         ("report", f"{{samples}}/{CUTLASS}", "--nsys", f"{NSYS}/{DECODE}", "--format", "md",
          "-o", "-")),
    Case("summary/timeline_kiln.txt", ("timeline", *KILN, "--width", "100")),
    Case("summary/sample.txt", ("summary", "{sample}", "--width", "100")),
    Case("summary/wangzy_v100.txt",
         ("summary", f"{{samples}}/{WANGZY_V100}", "--width", "100")),
    Case("summary/bert_a100.txt",
         ("summary", f"{{samples}}/{BERT}", "--gpu", "a100_40gb_sxm", "--width", "100")),
    Case("summary/cutlass_datasheet.txt",
         ("summary", f"{{samples}}/{CUTLASS}", "--clocks", "datasheet", "--width", "80")),
    Case("summary/sample_model_narrow.txt",
         ("summary", "{sample}", *MODEL, "--width", "60", "--top", "5")),
    Case("summary/nbody_a100.txt",
         ("summary", f"{{samples}}/{NBODY}", "--gpu", "a100_40gb_sxm", "--width", "100")),
    Case("theory/llama3_8b_decode.txt",
         ("theory", *MODEL, "--gpu", "h100_sxm5", "--gpu", "a100_80gb_sxm")),
    Case("theory/ops.txt",
         ("theory", "--op", "gemm:M=4096,N=4096,K=4096,dtype=fp16",
          "--op", "gemm:M=1,N=4096,K=4096,dtype=bf16", "--gpu", "h100_sxm5")),
    Case("compare/sample_slower.md",
         ("compare", "{sample}", "{candidate}", "--format", "md", "--html-url", HTML_URL)),
    Case("compare/wangzy_v100_a100.md",
         ("compare", f"{{samples}}/{WANGZY_V100}", f"{{samples}}/{WANGZY_A100}",
          "--format", "md")),
]  # fmt: skip

_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")


def _path_pattern(path: Path) -> re.Pattern[str]:
    """``path`` as printed, raw or with Markdown's backslash before any punctuation."""
    parts = (re.escape(c) if c.isalnum() else r"\\?" + re.escape(c) for c in str(path))
    return re.compile("".join(parts))


def normalise(text: str, tmp: Path) -> str:
    """``text`` with the version, timestamps and machine paths replaced by placeholders."""
    # Longest first: the temporary folder may lie inside the checkout.
    paths = sorted([(tmp, "{TMP}"), (SAMPLES, "{SAMPLES}"), (REPO, "{REPO}")],
                   key=lambda p: -len(str(p[0])))  # fmt: skip
    for path, placeholder in paths:
        text = _path_pattern(path).sub(placeholder, text)
    text = _TIMESTAMP.sub("{TIMESTAMP}", text)
    return re.sub(rf"(?<![\w.]){re.escape(__version__)}(?![\w.])", "{VERSION}", text)


def check_gold(actual: str, gold: Path, tmp: Path) -> None:
    """``actual`` equals the gold file; with NCU_ROOFLINE_REGEN_GOLD set, becomes it."""
    if os.environ.get(REGEN, "") not in ("", "0"):
        gold.parent.mkdir(parents=True, exist_ok=True)
        gold.write_text(actual, encoding="utf-8", newline="")
        return
    assert gold.is_file(), f"no gold file {gold}; make it with {REGEN}=1 (tests/gold/README.md)"
    expected = gold.read_text(encoding="utf-8")
    if actual == expected:
        return
    (tmp / "actual").write_text(actual, encoding="utf-8", newline="")
    (tmp / "gold").write_text(expected, encoding="utf-8", newline="")
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            fromfile=str(gold.relative_to(REPO)),
            tofile="actual",
        )
    )
    pytest.fail(
        f"output differs from {gold.relative_to(REPO)} (both saved in {tmp}); "
        f"if the change is intended, regenerate with {REGEN}=1 and review the diff:\n{diff}",
        pytrace=False,
    )


@pytest.mark.parametrize("case", CASES, ids=[c.gold for c in CASES])
def test_gold(case: Case, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    samples = request.getfixturevalue("samples_dir") if case.real else SAMPLES
    candidate = tmp_path / "candidate.csv"
    if any("{candidate}" in a for a in case.args):
        slower_candidate(candidate)
    args = [a.format(sample=SAMPLE, samples=samples, candidate=candidate) for a in case.args]
    proc = run(*args, cwd=tmp_path)
    assert proc.returncode == case.exit_code, proc.stderr
    assert "Traceback" not in proc.stderr
    check_gold(normalise(proc.stdout, tmp_path), GOLD / case.gold, tmp_path)


def test_every_gold_file_has_a_case() -> None:
    files = {p.relative_to(GOLD).as_posix() for p in GOLD.rglob("*") if p.is_file()}
    assert files - {"README.md"} == {c.gold for c in CASES}


def test_normalise_replaces_only_what_varies(tmp_path: Path) -> None:
    escaped = str(SAMPLES).replace("_", r"\_").replace("-", r"\-")
    text = (
        f"ncu-roofline {__version__} at 2026-01-02T03:04:05+00:00 read {SAMPLES}/a.csv, "
        f"{escaped}/b.csv, {REPO}/sample_reports/x.csv and {tmp_path}/c.csv; "
        f"1{__version__} and 2022-Nov-10 15:48:11 stay"
    )
    assert normalise(text, tmp_path) == (
        "ncu-roofline {VERSION} at {TIMESTAMP} read {SAMPLES}/a.csv, {SAMPLES}/b.csv, "
        "{REPO}/sample_reports/x.csv and {TMP}/c.csv; "
        f"1{__version__} and 2022-Nov-10 15:48:11 stay"
    )
