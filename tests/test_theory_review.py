"""Theory fixes from review: each case once gave a wrong or invented theory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ncu_roofline
from ncu_roofline.analysis.theory_table import TheoryRow, place, rows_from_model
from ncu_roofline.core.hardware import find_gpu
from ncu_roofline.errors import InputFormatError
from ncu_roofline.report.context import build_context
from ncu_roofline.report.theory import build_theory_table, theory_chart_context
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.models import expand_model, find_model, load_model_config
from ncu_roofline.theory.ops import OpEstimate, estimate
from tests.helpers import SAMPLE, run


def _analysis(**theory: object) -> ncu_roofline.Analysis:
    config = TheoryConfig(model=find_model("llama-3-8b"), **theory)  # type: ignore[arg-type]
    return ncu_roofline.analyze(ncu_roofline.load([str(SAMPLE)]), theory=config)


def test_wrong_batch_leaves_gemvs_without_theory_and_warns() -> None:
    # At --batch 8 every projection's theory FLOPs are 8x the measured batch-1
    # GEMVs (ratio 0.125 < 0.8): no projection fits, so none is invented, and
    # the norms/rope/act moving under half their minimal bytes raise a warning.
    a = _analysis(batch=8, seq=8192)
    gemv = a.kernels[a.kernels["kernel_short"].str.startswith("gemvx")]
    assert gemv["theory_bytes"].isna().all()
    kinds = [f.kind for f in a.findings]
    assert "theory-mismatch" in kinds
    assert "excess-traffic" not in kinds


def test_right_batch_assigns_every_gemv_with_high_confidence() -> None:
    a = _analysis(batch=1, seq=2048)
    gemv = a.launches[a.launches["kernel_short"].str.startswith("gemvx")]
    assert len(gemv) == 17
    assert (gemv["confidence"] == "high").all()
    # byte_excess within the sample's jitter of 1 (weights read once).
    assert gemv["byte_excess"].between(0.95, 1.05).all()


def test_group_label_names_every_op_it_ran() -> None:
    # grid (1024, 1, 1) serves o_proj (N=K=4096) and down_proj (K=14336), 4 each.
    a = _analysis()
    labels = a.kernels.loc[a.kernels["grid"] == "(1024, 1, 1)", "theory_label"].tolist()
    assert labels == ["gemm M=1 N=4096 K=4096 bf16 ×4; gemm M=1 N=4096 K=14336 bf16 ×4"]


def test_tp_totals_say_collectives_are_not_included() -> None:
    ops = expand_model(find_model("llama-3-8b"), phase="decode", batch=1, seq=2048, tp=2)
    table = build_theory_table(rows_from_model(ops), [find_gpu("h100_sxm5")], model={"name": "x"})
    total = table["totals"]["h100_sxm5"]
    # one all-reduce after the embedding, then after o_proj and down_proj in 32 layers
    assert total["collectives_not_included"] == 1 + 2 * 32
    assert total["complete"] is False


def test_adhoc_ops_are_not_added_to_the_model_total() -> None:
    ops = rows_from_model(expand_model(find_model("llama-3-8b"), "decode", 1, 2048))
    gpu = find_gpu("h100_sxm5")
    base = build_theory_table(ops, [gpu], model={"name": "x"})["totals"]["h100_sxm5"]
    extra = TheoryRow("gemm", estimate("gemm", M=4096, N=4096, K=4096, dtype="fp16"))
    more = build_theory_table([extra, *ops], [gpu], model={"name": "x"})["totals"]["h100_sxm5"]
    assert more["time_floor_s"] == pytest.approx(base["time_floor_s"])


def test_no_roof_for_types_the_gpu_lacks() -> None:
    fp8 = TheoryRow("fp8", estimate("gemm_fp8", M=4096, N=4096, K=4096))
    bf16 = TheoryRow("bf16", estimate("gemm", M=4096, N=4096, K=4096, dtype="bf16"))
    table = build_theory_table([fp8, bf16], [find_gpu("a100_40gb_sxm"), find_gpu("v100_sxm2_16gb")])
    a100 = [op["gpus"]["a100_40gb_sxm"] for op in table["ops"]]
    v100 = [op["gpus"]["v100_sxm2_16gb"] for op in table["ops"]]
    assert a100[0]["time_floor_s"] is None  # no FP8 on Ampere
    assert a100[1]["time_floor_s"] == pytest.approx(2 * 4096**3 / 312e12)  # BF16 tensor roof
    assert v100[1]["time_floor_s"] is None  # no BF16 on Volta


def test_unmodelled_architectures_are_refused(tmp_path: Path) -> None:
    cfg = {
        "hidden_size": 2048,
        "num_attention_heads": 16,
        "intermediate_size": 10944,
        "num_hidden_layers": 27,
        "vocab_size": 102400,
        "kv_lora_rank": 512,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    with pytest.raises(InputFormatError, match="multi-head latent attention"):
        load_model_config(path)


def test_sliding_window_caps_decode_context(tmp_path: Path) -> None:
    cfg = {
        "hidden_size": 4096,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "num_hidden_layers": 32,
        "vocab_size": 32000,
        "sliding_window": 4096,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    model = load_model_config(path)
    ops = {op.role: op for op in expand_model(model, "decode", batch=1, seq=8192)}
    # KV read = 2 (K and V) x 4096 tokens x 8 heads x 128 x 2 bytes = 16.8 MB,
    # not the 33.6 MB of an 8192-token context.
    assert ops["attention"].estimate.params["context"] == 4096


def test_compute_bound_excess_traffic_promises_no_time(tmp_path: Path) -> None:
    # A rule giving the sm90 prefill GEMM a 4096^3 theory: it moves more than
    # 1.2x the minimal bytes but is compute-bound at 71% of its roof.
    rules = tmp_path / "g.toml"
    rules.write_text(
        '[[kernel]]\nmatch = "sm90_xmma_gemm"\nop = "gemm"\nM = 4096\nN = 4096\nK = 4096\n'
        'dtype = "bf16"\n'
    )
    out = tmp_path / "r.json"
    proc = run(
        "report", str(SAMPLE), "--theory", str(rules), "--excess-threshold", "1.2", "-o", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    found = [f for f in json.loads(out.read_text())["findings"] if f["kind"] == "excess-traffic"]
    gemm = [f for f in found if "sm90_xmma_gemm" in f["kernel"]]
    assert len(gemm) == 1
    assert gemm[0]["severity"] == "info"
    assert "no time gain while the kernel stays compute-bound" in gemm[0]["message"]


def test_report_context_keeps_confidence_vocabulary() -> None:
    context = build_context(_analysis())
    values = {k["confidence"] for k in context["kernels"]}
    assert values <= {None, "low", "medium", "high", "user"}


def test_rule_precision_overrides_the_ops(tmp_path: Path) -> None:
    from ncu_roofline.theory.estimates import load_theory_file

    rules = tmp_path / "r.toml"
    rules.write_text(
        '[[kernel]]\nmatch = "sgemm"\nop = "gemm"\nM = 64\nN = 64\nK = 64\ndtype = "fp32"\n'
        'precision = "tensor_tf32"\n'
    )
    found = load_theory_file(rules).find("ampere_sgemm_32x32", None, None, None)
    assert found is not None
    _rule, est = found
    assert est.precision == "tensor_tf32"
    assert est.flops == 2 * 64**3


def test_theory_floor_places_kernels_without_counters(samples_dir: Path) -> None:
    # The B200 FlashInfer decode export has durations only.  Llama-3-8B
    # decode at batch 128, context 2048: minimal bytes per launch = KV
    # 2 x 128 x 2048 x 8 x 128 x 2 = 1,073,741,824 + q and o
    # 128 x 32 x 128 x (2 + 2) = 2,097,152 -> 1,075,838,976 B; at the B200's
    # 7.7 TB/s that is a 139.7 us floor (the FLOP part is ~2 us).
    path = samples_dir / (
        "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode"
        "__gqa_bf16_b128_ctx2k_p64.ncu.csv"
    )
    config = TheoryConfig(model=find_model("llama-3-8b"), batch=128, seq=2048)
    a = ncu_roofline.analyze(ncu_roofline.load([str(path)]), theory=config)
    (group,) = a.kernels.to_dict("records")
    assert group["bound"] == "not placeable"
    floor = 1_075_838_976 / 7.7e12
    assert group["theory_floor_s"] == pytest.approx(floor * group["launches"], rel=0.02)
    assert group["theory_efficiency"] == pytest.approx(floor / group["duration_s"], rel=0.02)


def test_theory_chart_points_sit_on_the_roof() -> None:
    # Each op's chart rate (FLOPs over its floor) is its attainable rate, and
    # its time share is its part of the summed floors on that GPU.
    ops = rows_from_model(expand_model(find_model("llama-3-8b"), "decode", 1, 2048))
    gpus = [find_gpu("h100_sxm5"), find_gpu("a100_80gb_sxm")]
    table = build_theory_table(ops, gpus, model={"name": "x"})
    chart = theory_chart_context(table)
    assert [g["roofs"]["source"] for g in chart["gpus"]] == ["h100_sxm5", "a100_80gb_sxm"]
    assert [len(g["points"]) for g in chart["gpus"]] == [len(ops)] * len(gpus)
    checked = 0
    for g, entry in zip(gpus, chart["gpus"], strict=True):
        points = entry["points"]
        assert sum(p["share"] or 0.0 for p in points) == pytest.approx(1.0)
        for point, op in zip(points, table["ops"], strict=True):
            reach = op["gpus"][g.key]["attainable_flops_per_s"]
            if reach is not None and point["flops_per_s"] is not None:
                assert point["flops_per_s"] == pytest.approx(reach)
                checked += 1
    assert checked == 2 * 13  # every op with FLOPs, on both GPUs


def test_placement_of_ops_without_bytes_or_flops() -> None:
    h100 = find_gpu("h100_sxm5")
    no_bytes = OpEstimate("gemm", "x", 1e9, 0.0, 0.0, 0.0, "tensor_bf16")
    placed = place(no_bytes, h100)
    # Infinite intensity: compute-bound, with no finite attainable rate.
    assert (placed.bound, placed.attainable_flops_per_s) == ("compute", None)
    nothing = OpEstimate("gemm", "x", 0.0, 0.0, 0.0, 0.0, "tensor_bf16")
    assert place(nothing, h100).bound == "memory"
    no_fp8 = OpEstimate("gemm", "x", 0.0, 1e6, 1e6, 0.0, "tensor_fp8")
    assert place(no_fp8, find_gpu("a100_80gb_sxm")).bound == "memory"
