"""Advice chosen by kernel family and evidence, and shown once per advice.

The real exports: an N-body kernel (no tensor-core advice), a CUTLASS GEMM
limited by L1 (L1 advice, no KV-cache advice), a naive FP32 GEMM (tensor
cores are the advice), BERT's many latency-class kernels (one card for
all of them).  Then every chooser branch on synthetic evidence, and a
property over families, bounds, limiters and precisions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.analysis.advice import (
    ATTENTION_FAMILIES,
    GEMM_FAMILIES,
    advice_ids,
)
from ncu_roofline.analysis.catalogue import CATALOGUE, advice
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.markdown_report import render_markdown
from ncu_roofline.render.page import build_page
from ncu_roofline.report.context import build_context
from ncu_roofline.theory.families import FAMILIES

NBODY = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
WANGZY_A100 = "wangzy0327__cuda-roofline__src_output_A100.csv"
LUKAS = "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
NAIVE_GEMM = "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv"
BERT = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)


def _context(samples_dir: Path, name: str, gpu: str | None = None) -> Any:
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]), gpu=gpu)
    return build_context(analysis)


def _advice_of(ctx: Any, kind: str) -> str:
    return next(str(f["advice"]) for f in ctx["findings"] if f["kind"] == kind)


def _all_text(ctx: Any) -> str:
    return " ".join(a["why"] + " " + a["what_to_try"] for a in ctx["advice"].values())


def test_nbody_gets_fp_pipe_advice_not_tensor_cores(samples_dir: Path) -> None:
    """calculate_velocity: a compute-bound FP32 kernel of no matrix family whose
    busiest unit is the issue stage (sm__issue_active 68.296% of elapsed
    cycles, ncu's SM throughput 68.296%; the FMA pipe is next at
    sm__pipe_fma_cycles_active 65.12% of elapsed), so the issue advice, not
    "use the tensor cores" (the advice this N-body kernel used to get)."""
    ctx = _context(samples_dir, NBODY)
    assert _advice_of(ctx, "below-roof") == "below-roof/compute-issue"
    assert "tensor" not in _all_text(ctx).lower()
    # 108 blocks on 108 SMs (0.33 and 0.25 waves): every SM has a block, so
    # the grid is not under-filled (how many warps each SM holds is occupancy).
    assert not [f for f in ctx["findings"] if f["kind"] == "under-filled"]
    for advice_id, text in ctx["advice"].items():
        assert (text["why"], text["what_to_try"]) == advice(advice_id)


def test_l1_limited_gemm_gets_l1_advice_and_no_kv_cache(samples_dir: Path) -> None:
    """The RTX 5060 Ti CUTLASS GEMM is left of the ridge with L1/TEX 55% busy
    against DRAM's 22%: both its findings advise on the L1 path."""
    ctx = _context(samples_dir, LUKAS)
    assert _advice_of(ctx, "below-roof") == "below-roof/memory-l1"
    assert _advice_of(ctx, "limiter-disagrees") == "limiter-disagrees/l1"
    text = _all_text(ctx)
    assert "bank conflicts" in text
    assert not re.search(r"\bKV\b", text)


def test_naive_fp32_gemm_is_told_to_use_tensor_cores(samples_dir: Path) -> None:
    """gemm_v0<float> runs its matrix product on the FP32 FMA pipes: tensor
    cores (TF32, BF16) are the advice."""
    ctx = _context(samples_dir, NAIVE_GEMM)
    assert _advice_of(ctx, "below-roof") == "below-roof/compute-tensor-gemm"
    assert "TF32" in ctx["advice"]["below-roof/compute-tensor-gemm"]["what_to_try"]


def test_bert_latency_kernels_share_one_card(samples_dir: Path) -> None:
    """BERT on an A100: the many under-filled latency-class kernels are one
    finding with the launch advice, and the HTML shows one card per advice."""
    ctx = _context(samples_dir, BERT, gpu="a100_40gb_pcie")
    assert _advice_of(ctx, "under-filled") == "under-filled/many"
    page = build_page(ctx)
    cards = page["findings"]
    assert [c["advice"] for c in cards] == list(dict.fromkeys(f["advice"] for f in ctx["findings"]))
    assert sum(len(c["items"]) for c in cards) == len(ctx["findings"])
    texts = [c["what"] for c in cards if c["what"]]
    assert len(texts) == len(set(texts))


def test_markdown_says_each_advice_once(samples_dir: Path) -> None:
    """In the Markdown, each advice id's "Try" appears once, its findings nested under it.

    The A100 GEMM export: the clock finding, and two not-placeable findings
    (an approximate tensor estimate; no FLOP counters) sharing one advice.
    """
    ctx = _context(samples_dir, WANGZY_A100)
    md = render_markdown(ctx)
    section = md.split("### Findings", 1)[1].split("<details>", 1)[0]
    headers = [line for line in section.splitlines() if line.startswith("- **")]
    items = [line for line in section.splitlines() if line.startswith("  - ")]
    named = {f["advice"] for f in ctx["findings"]}
    assert len(headers) == len(named) == 2
    # The groups' own advice (a Try line for every top kernel) is listed too.
    assert named <= set(ctx["advice"])
    assert len(items) == len(ctx["findings"]) == 3
    assert "(not-placeable, 2 findings): *Try:* Collect the missing metrics" in section


def test_html_card_lists_the_findings_that_share_advice(samples_dir: Path) -> None:
    """The rendered page: one article per advice, the not-placeable one listing two findings."""
    ctx = _context(samples_dir, WANGZY_A100)
    html = render_html(build_page(ctx))
    articles = re.findall(r'<article class="finding (\w+)" data-advice="([^"]+)"[^>]*>', html)
    named = list(dict.fromkeys(f["advice"] for f in ctx["findings"]))
    assert [a for _, a in articles] == named
    # The groups' own advice that no finding shares has a card of its own.
    extra = re.findall(r'<article class="finding info advice" data-advice="([^"]+)"', html)
    assert named + extra == list(ctx["advice"])
    card = html.split('data-advice="not-placeable"', 1)[1].split("</article>", 1)[0]
    assert card.count('<li class="message">') == 2
    assert card.count("Collect the missing metrics") == 1


def _group(**fields: Any) -> pd.DataFrame:
    base = {
        "kernel": "k",
        "total_duration_s": 1e-3,
        "bound": "memory",
        "bound_reason": "left of the ridge",
        "limiter": "dram",
        "precision": "fp32",
        "family": None,
    }
    return pd.DataFrame([{**base, **fields}])


@pytest.mark.parametrize(
    ("kind", "fields", "expected"),
    [
        ("below-roof", {"family": "gemv"}, "below-roof/memory-gemm"),
        ("below-roof", {"family": "attention_decode"}, "below-roof/memory-attention-decode"),
        ("below-roof", {"family": "rmsnorm"}, "below-roof/memory-streaming"),
        ("below-roof", {"family": "gemm", "limiter": "lsu-pipe"}, "below-roof/memory-l1"),
        ("below-roof", {"limiter": "l2"}, "below-roof/memory-l2"),
        ("below-roof", {"family": "unknown"}, "below-roof"),
        (
            "below-roof",
            {"bound": "compute", "precision": "tensor_fp16"},
            "below-roof/compute-tensor",
        ),
        ("below-roof", {"bound": "compute", "precision": "fp64"}, "below-roof/compute-fp64"),
        ("below-roof", {"bound": "compute", "limiter": "alu-pipe"}, "below-roof/compute-alu"),
        ("below-roof", {"bound": "compute", "limiter": "issue"}, "below-roof/compute-issue"),
        ("below-roof", {"bound": "compute", "family": "conv"}, "below-roof/compute-tensor-gemm"),
        ("below-roof", {"bound": "compute", "limiter": "fma-pipe"}, "below-roof/compute-fma"),
        ("below-roof", {"bound": "compute", "limiter": "sm"}, "below-roof/compute"),
        (
            "below-roof",
            {"bound": "latency", "bound_reason": "shorter than 5 us: launch overhead dominates"},
            "below-roof/latency-short",
        ),
        ("below-roof", {"bound": "latency"}, "below-roof/latency"),
        ("limiter-disagrees", {"limiter": "l1"}, "limiter-disagrees/l1"),
        ("limiter-disagrees", {"limiter": "tensor-pipe"}, "limiter-disagrees/fp"),
        ("limiter-disagrees", {"limiter": "alu-pipe"}, "limiter-disagrees/alu"),
        ("limiter-disagrees", {"limiter": "sm"}, "limiter-disagrees"),
        ("under-filled", {"family": "grouped_gemm"}, "under-filled/gemm"),
        ("under-filled", {"family": "attention_decode"}, "under-filled/attention-decode"),
        ("under-filled", {"family": "softmax"}, "under-filled/reduction"),
        ("under-filled", {"family": "elementwise"}, "under-filled"),
        ("excess-traffic", {"family": "attention_prefill"}, "excess-traffic/attention"),
        ("excess-traffic", {"family": "gemm"}, "excess-traffic/gemm"),
        ("excess-traffic", {"family": "copy"}, "excess-traffic/streaming"),
        ("not-placeable", {}, "not-placeable"),
    ],
)
def test_advice_follows_the_evidence(kind: str, fields: dict[str, Any], expected: str) -> None:
    """Each evidence pattern selects its variant; every chosen id is in the catalogue."""
    (chosen,) = advice_ids([(kind, "k")], _group(**fields))
    assert chosen == expected
    assert chosen in CATALOGUE[kind].advice_ids()


def test_family_comes_from_the_name_without_theory() -> None:
    """Without theory the kernel name gives the family: a cuBLAS GEMV is a GEMM-like kernel."""
    name = "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4>"
    (chosen,) = advice_ids([("below-roof", name)], _group(kernel=name))
    assert chosen == "below-roof/memory-gemm"


def test_profile_wide_and_unknown_findings_get_defaults() -> None:
    """A finding about many kernels gets the profile-wide variant; one about a
    kernel the groups do not hold, the kind's default."""
    assert advice_ids([("under-filled", None), ("below-roof", "other")], _group()) == [
        "under-filled/many",
        "below-roof",
    ]


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(["below-roof", "limiter-disagrees", "under-filled", "excess-traffic"]),
    family=st.sampled_from(FAMILIES),
    bound=st.sampled_from(["memory", "compute", "latency", "communication", "not placeable"]),
    limiter=st.sampled_from(
        [
            "dram",
            "l2",
            "l1",
            "lsu-pipe",
            "fma-pipe",
            "alu-pipe",
            "fp64-pipe",
            "issue",
            "sm",
            "tensor-pipe",
            "latency",
            "under-filled",
            "unknown",
        ]
    ),
    precision=st.sampled_from(["fp32", "fp64", "fp16", "tensor_fp16", "tensor_bf16", None]),
)
def test_advice_never_misfits_the_family(
    kind: str, family: str, bound: str, limiter: str, precision: str | None
) -> None:
    """KV-cache advice only for attention; tensor-core advice only for matrix
    families or kernels that already use the tensor cores."""
    group = _group(family=family, bound=bound, limiter=limiter, precision=precision)
    (chosen,) = advice_ids([(kind, "k")], group)
    why, what = advice(chosen)
    text = f"{why} {what}"
    if family not in ATTENTION_FAMILIES | {"attention_decode"}:
        assert not re.search(r"\bKV\b", text), chosen
    matrix = family in GEMM_FAMILIES | ATTENTION_FAMILIES | {"attention_decode"}
    if not matrix and not (precision or "").startswith("tensor") and limiter != "tensor-pipe":
        assert "tensor core" not in text.lower(), chosen
