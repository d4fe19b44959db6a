"""Theory on the command line: ``report --model / --theory`` and ``theory``.

The sample is SIMULATED (sample_reports/make_simulated.py): Llama-3-8B decode
at batch 1, context 2048, bf16, on an H100, four layers of ten launches
(rmsnorm, qkv GEMV, rotary, flash_fwd_splitkv, combine, o_proj GEMV,
fused_add_rmsnorm, gate_up GEMV, silu_and_mul, down GEMV), then the lm_head
GEMV, an argmax, a strided copy and one prefill-sized sm90 GEMM.  Its
flash_fwd_splitkv_kernel reads every KV head once per query head of its
group: 4x the minimal KV bytes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import SAMPLE, run

MODEL_ARGS = ("--model", "llama-3-8b", "--phase", "decode", "--batch", "1", "--seq", "2048")
LABEL = "model llama-3-8b decode b=1 seq=2048"

GEMV = "gemvx::kernel"
ATTN = "flash::flash_fwd_splitkv_kernel"
COMBINE = "flash::flash_fwd_splitkv_combine_kernel"
PREFILL_GEMM = "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n"

#: Fields the report adds to launch and kernel records when theory is given.
THEORY_FIELDS = (
    "theory_flops",
    "theory_bytes",
    "theory_ai",
    "byte_excess",
    "theory_source",
    "confidence",
)

# Minimal FLOPs and bytes of each projection at batch 1 (gemm M=1, bf16, 2 bytes):
# FLOPs = 2 N K; bytes = (K + N K + N) x 2 (activation, weight, output once each).
PROJECTIONS: dict[str, tuple[float, float]] = {
    # N = 4096 + 2 x 8 x 128 = 6144, K = 4096: 50,331,648; (4096 + 25,165,824 + 6144) x 2.
    "qkv_proj": (50_331_648.0, 50_352_128.0),
    # N = K = 4096: 33,554,432; (4096 + 16,777,216 + 4096) x 2.
    "o_proj": (33_554_432.0, 33_570_816.0),
    # N = 2 x 14336 = 28672, K = 4096: 234,881,024; (4096 + 117,440,512 + 28672) x 2.
    "gate_up_proj": (234_881_024.0, 234_946_560.0),
    # N = 4096, K = 14336: 117,440,512; (14336 + 58,720,256 + 4096) x 2.
    "down_proj": (117_440_512.0, 117_477_376.0),
    # N = 128256, K = 4096: 1,050,673,152; (4096 + 525,336,576 + 128,256) x 2.
    "lm_head": (1_050_673_152.0, 1_050_937_856.0),
}
#: Position of each GEMV within a layer of ten launches (make_simulated._layer_ops).
LAYER_GEMVS = {1: "qkv_proj", 5: "o_proj", 7: "gate_up_proj", 9: "down_proj"}

# Decode attention, context 2048, 32 query heads, 8 KV heads, head_dim 128, bf16:
# KV read once: 2 x 2048 x 8 x 128 x 2 = 8,388,608; q 32 x 128 x 2 = 8192; out 8192.
ATTN_THEORY_BYTES = 8_388_608.0 + 8192.0 + 8192.0  # 8,404,992
# QK^T and PV: 4 x 32 x 2048 x 128 = 33,554,432; softmax 5 x 32 x 2048 = 327,680.
ATTN_THEORY_FLOPS = 33_554_432.0 + 327_680.0  # 33,882,112
# What the simulated kernel moves (before the +-3% jitter of make_simulated):
# reads 4 x 8,388,608 + 8192 = 33,562,624; writes 16 splits x 32 x 128 x 4 (fp32
# partials) = 262,144; together 33,824,768.
ATTN_MEASURED_NOMINAL = 4 * 8_388_608.0 + 8192.0 + 262_144.0
ATTN_EXCESS_NOMINAL = ATTN_MEASURED_NOMINAL / ATTN_THEORY_BYTES  # 4.0244


def report(tmp_path: Path, *args: str) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    out = tmp_path / "out.json"
    proc = run("report", str(SAMPLE), *args, "-o", str(out), "--force")
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text(encoding="utf-8")), proc


@pytest.fixture(scope="module")
def model_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    data, proc = report(tmp_path_factory.mktemp("model"), *MODEL_ARGS)
    return data, proc.stderr


@pytest.fixture(scope="module")
def model_report(model_run: tuple[dict[str, Any], str]) -> dict[str, Any]:
    return model_run[0]


def launches_of(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [rec for rec in data["launches"] if name in rec["kernel"]]


def kernels_of(data: dict[str, Any], name: str) -> list[dict[str, Any]]:
    return [rec for rec in data["kernels"] if name in rec["kernel"]]


# --- report --model ------------------------------------------------------------------


def test_every_gemv_gets_its_projection(model_report: dict[str, Any]) -> None:
    gemvs = launches_of(model_report, GEMV)
    assert len(gemvs) == 17  # 4 layers x 4 projections + lm_head
    for rec in gemvs:
        launch_id = int(rec["id"])
        role = "lm_head" if launch_id == 40 else LAYER_GEMVS[launch_id % 10]
        flops, nbytes = PROJECTIONS[role]
        assert rec["theory_source"] == f"{LABEL}: {role}", launch_id
        assert rec["confidence"] == "high", launch_id
        assert rec["theory_op"] == "gemm"
        assert rec["family"] == "gemv"
        assert rec["theory_flops"] == flops
        assert rec["theory_bytes"] == nbytes
        assert rec["theory_ai"] == pytest.approx(flops / nbytes, rel=1e-12)
        assert rec["byte_excess"] == pytest.approx(rec["dram_bytes"] / nbytes, rel=1e-12)
        # The simulated GEMVs move their weights once (+-3% jitter).
        assert rec["byte_excess"] == pytest.approx(1.0, abs=0.05)
    # o_proj and down_proj share one launch configuration (grid 1024, block 128) but
    # were told apart per launch by their FLOPs.
    shared = {rec["grid"] for rec in gemvs if int(rec["id"]) < 40 and int(rec["id"]) % 10 in (5, 9)}
    assert shared == {"(1024, 1, 1)"}


def test_decode_attention_moves_four_times_its_minimal_bytes(
    model_run: tuple[dict[str, Any], str],
) -> None:
    data, stderr = model_run
    launches = launches_of(data, ATTN)
    assert len(launches) == 4
    for rec in launches:
        assert rec["theory_bytes"] == ATTN_THEORY_BYTES
        assert rec["theory_flops"] == ATTN_THEORY_FLOPS
        assert rec["theory_source"] == f"{LABEL}: attention"
        assert rec["family"] == "attention_decode"
        # 33,824,768 / 8,404,992 = 4.024, give or take the 3% jitter.
        assert rec["byte_excess"] == pytest.approx(ATTN_EXCESS_NOMINAL, rel=0.031)
    (group,) = kernels_of(data, ATTN)
    assert group["launches"] == 4
    assert group["theory_bytes"] == 4 * ATTN_THEORY_BYTES
    measured = sum(rec["dram_bytes"] for rec in launches)
    assert group["dram_bytes"] == pytest.approx(measured, rel=1e-12)
    assert group["byte_excess"] == pytest.approx(measured / (4 * ATTN_THEORY_BYTES), rel=1e-12)
    assert group["byte_excess"] == pytest.approx(ATTN_EXCESS_NOMINAL, rel=0.03)
    assert group["excess_bytes"] == pytest.approx(measured - 4 * ATTN_THEORY_BYTES, rel=1e-12)

    excess = [f for f in data["findings"] if f["kind"] == "excess-traffic"]
    assert [f["kernel"] for f in excess] == [group["kernel"]]
    finding = excess[0]
    assert finding["severity"] == "warning"
    assert finding["message"].startswith(
        f"flash_fwd_splitkv_kernel moves {group['byte_excess']:.1f}x the minimal DRAM bytes of "
        "attention_decode context=2048 heads_q=32 heads_kv=8 head_dim=128 bf16 ("
    )
    # 4 x 8,404,992 = 33.6 MB minimal; about 135 MB measured.
    assert "MB measured vs 33.6 MB over 4 launches" in finding["message"]
    assert (
        "Likely causes: paged attention reading each KV head once per query head (GQA)"
        in (finding["message"])
    )
    # Warnings are echoed on stderr.
    assert "flash_fwd_splitkv_kernel moves 4.0x the minimal DRAM bytes" in stderr


def test_plain_rmsnorm_kernel_gets_the_plain_rmsnorm_theory(model_report: dict[str, Any]) -> None:
    # vllm::rms_norm_kernel does no residual add: its minimal traffic is the rmsnorm
    # op's, x and weight read and the output written, 3 x 4096 x 2 = 24,576 bytes,
    # not add_rmsnorm's 40,960 (which also reads and writes the residual).  The
    # simulated kernel moves about 33 kB, so a 40,960-byte "minimum" would put it
    # below its own lower bound (byte_excess 0.8).
    launches = [
        rec
        for rec in launches_of(model_report, "vllm::rms_norm_kernel")
        if "fused" not in rec["kernel"]
    ]
    assert len(launches) == 4
    for rec in launches:
        assert rec["family"] == "rmsnorm"
        assert rec["theory_source"] == f"{LABEL}: rmsnorm"
        assert rec["theory_bytes"] == 24_576.0
        assert rec["byte_excess"] >= 1.0
    # The fused kernel is the add_rmsnorm op: reads x, residual, weight; writes x and
    # the residual: 5 x 4096 x 2 = 40,960 bytes.
    for rec in launches_of(model_report, "vllm::fused_add_rms_norm_kernel"):
        assert rec["theory_source"] == f"{LABEL}: add_rmsnorm"
        assert rec["theory_bytes"] == 40_960.0


def test_prefill_gemm_in_a_decode_profile_gets_no_theory(model_report: dict[str, Any]) -> None:
    # 2 x 4096^3 = 1.37e11 FLOPs: 131x the largest decode projection (lm_head).
    (rec,) = launches_of(model_report, PREFILL_GEMM)
    for field in THEORY_FIELDS:
        assert rec[field] is None, field
    (group,) = kernels_of(model_report, PREFILL_GEMM)
    for field in THEORY_FIELDS:
        assert group[field] is None, field
    theory = model_report["theory"]
    assert any(PREFILL_GEMM in name for name in theory["unmatched"])
    # The other kernels the model does not cover.
    assert len(theory["unmatched"]) == 4
    assert {n.split("<")[0].split("(")[0] for n in theory["unmatched"]} >= {
        "void flash::flash_fwd_splitkv_combine_kernel",
        "void at::native::reduce_kernel",
        "void at::native::elementwise_kernel",
    }
    no_theory = [f for f in model_report["findings"] if f["kind"] == "no-theory"]
    assert len(no_theory) == 1 and no_theory[0]["severity"] == "info"
    assert no_theory[0]["message"].startswith("4 kernel(s) matched no theory rule or model op")


def test_json_theory_fields(model_report: dict[str, Any]) -> None:
    theory = model_report["theory"]
    assert theory["file"] is None
    assert theory["excess_threshold"] == 2.0
    assert theory["min_time_share"] == 0.01
    assert theory["model"] == {
        "key": "llama-3-8b",
        "name": "Llama 3 8B",
        "source": theory["model"]["source"],
        "phase": "decode",
        "batch": 1,
        "seq": 2048,
        "dtype": "bf16",
        "kv_dtype": None,
        "tp": 1,
    }
    # 13 groups: 9 with theory, 4 unmatched.
    assert len(model_report["kernels"]) == 13
    assert theory["kernels_with_theory"] == 9
    for records in (model_report["launches"], model_report["kernels"]):
        for rec in records:
            assert set(rec) >= set(THEORY_FIELDS), rec["kernel"]
            if rec["theory_bytes"] is None:
                assert all(rec[f] is None for f in THEORY_FIELDS), rec["kernel"]
            else:
                assert isinstance(rec["theory_bytes"], float) and rec["theory_bytes"] > 0
                assert isinstance(rec["theory_flops"], float)
                assert isinstance(rec["theory_ai"], float)
                assert isinstance(rec["byte_excess"], float)
                assert rec["theory_source"].startswith(f"{LABEL}: ")
                assert rec["confidence"] in ("high", "medium", "low")
    with_theory = [k for k in model_report["kernels"] if k["theory_bytes"] is not None]
    assert len(with_theory) == 9
    # Launches: 44 in all; 4 x 10 + 1 = 41 model launches minus 4 combine kernels = 37.
    assert len(model_report["launches"]) == 44
    assert sum(rec["theory_bytes"] is not None for rec in model_report["launches"]) == 37


def test_report_without_theory_has_no_theory_fields(tmp_path: Path) -> None:
    data, _ = report(tmp_path)
    assert data["theory"] is None
    for rec in (*data["launches"], *data["kernels"]):
        assert not set(THEORY_FIELDS) & set(rec)
    assert not [f for f in data["findings"] if f["kind"] in ("excess-traffic", "no-theory")]


def test_excess_threshold_option(tmp_path: Path) -> None:
    data, _ = report(tmp_path, *MODEL_ARGS, "--excess-threshold", "5")
    assert data["theory"]["excess_threshold"] == 5.0
    # 4.02 < 5: no finding, but the ratio is still reported.
    assert not [f for f in data["findings"] if f["kind"] == "excess-traffic"]
    (group,) = kernels_of(data, ATTN)
    assert group["byte_excess"] == pytest.approx(ATTN_EXCESS_NOMINAL, rel=0.03)
    proc = run("report", str(SAMPLE), *MODEL_ARGS, "--excess-threshold", "0.5", "-o", "-")
    assert proc.returncode == 2  # must be at least 1


# --- report --theory FILE --------------------------------------------------------------

RULES = """\
[params]
CTX = 2048

[[kernel]]
id = "flash-mha"
match = "flash_fwd_splitkv_kernel"
op = "attention_decode"
context = "CTX"
heads_q = "grid.y"
heads_kv = "grid.y"
head_dim = 128
dtype = "bf16"

[[kernel]]
id = "combine"
match = "flash_fwd_splitkv_combine_kernel"
flops = "grid.x * 16 * 128"
bytes = "grid.x * 16 * 128 * 4 + grid.x * 128 * 2"
"""


def test_theory_file_rules_override_the_model(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    data, _ = report(tmp_path, *MODEL_ARGS, "--theory", str(rules))
    assert data["theory"]["file"] == str(rules)
    assert data["theory"]["model"]["key"] == "llama-3-8b"

    for rec in launches_of(data, ATTN):
        # grid (1, 32, 16): heads_q = heads_kv = 32 (no GQA sharing):
        # reads 2 x 2048 x 32 x 128 x 2 + 32 x 128 x 2 = 33,554,432 + 8192; writes 8192.
        assert rec["grid"] == "(1, 32, 16)"
        assert rec["theory_bytes"] == 33_554_432.0 + 8192.0 + 8192.0
        assert rec["confidence"] == "user"
        assert rec["theory_source"] == f"{rules}:4 (flash-mha)"
        # 33,824,768 / 33,570,816 = 1.0076 (+-3%).
        assert rec["byte_excess"] == pytest.approx(33_824_768 / 33_570_816, rel=0.031)
    for rec in launches_of(data, COMBINE):
        # grid (32, 1, 1): FLOPs 32 x 16 x 128 = 65,536; bytes 262,144 + 8192 = 270,336.
        assert rec["theory_flops"] == 65_536.0
        assert rec["theory_bytes"] == 270_336.0
        assert rec["confidence"] == "user"
        assert rec["theory_source"] == f"{rules}:14 (combine)"
    # The rules took the attention kernels; the model still covers the rest.
    for rec in launches_of(data, GEMV):
        assert rec["confidence"] == "high"
        assert rec["theory_source"].startswith(f"{LABEL}: ")
    # Under the rule the attention kernel is no longer excessive.
    assert not [f for f in data["findings"] if f["kind"] == "excess-traffic"]
    # The combine kernel is no longer unmatched.
    assert len(data["theory"]["unmatched"]) == 3
    assert not any(COMBINE in n for n in data["theory"]["unmatched"])


def test_theory_file_alone(tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(RULES, encoding="utf-8")
    data, _ = report(tmp_path, "--theory", str(rules))
    assert "model" not in data["theory"]
    assert data["theory"]["kernels_with_theory"] == 2
    # Every other kernel is unmatched, each name once: 10 names (the GEMV's four launch
    # configurations are one name) minus the two flash kernels = 8.
    assert len(data["theory"]["unmatched"]) == 8
    assert all(rec["theory_bytes"] is None for rec in launches_of(data, GEMV))


def test_bad_theory_file_exit_4_with_file_and_line(tmp_path: Path) -> None:
    rules = tmp_path / "bad.toml"
    rules.write_text('[[kernel]]\nmatch = "gemv"\nop = "gemmv"\nN = 4096\n', encoding="utf-8")
    out = tmp_path / "out.json"
    proc = run("report", str(SAMPLE), "--theory", str(rules), "-o", str(out))
    assert proc.returncode == 4, proc.stderr
    assert f"{rules}:3: [[kernel]] 'rule 1': op: unknown op 'gemmv'" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_missing_theory_file_exit_3(tmp_path: Path) -> None:
    proc = run("report", str(SAMPLE), "--theory", str(tmp_path / "nosuch.toml"), "-o", "-")
    assert proc.returncode == 7, proc.stderr
    assert "nosuch.toml: no such estimates file" in proc.stderr


def test_model_and_model_config_together_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text("{}", encoding="utf-8")
    proc = run(
        "report", str(SAMPLE), "--model", "llama-3-8b", "--model-config", str(config), "-o", "-"
    )
    assert proc.returncode == 2
    assert "give either --model or --model-config, not both" in proc.stderr


def test_unknown_model_exit_2_with_a_suggestion() -> None:
    proc = run("report", str(SAMPLE), "--model", "nosuch", "-o", "-")
    assert proc.returncode == 2
    assert "unknown model 'nosuch'" in proc.stderr
    assert "known models: " in proc.stderr and "llama-3-8b" in proc.stderr
    proc = run("report", str(SAMPLE), "--model", "lama-3-8b", "-o", "-")
    assert proc.returncode == 2
    assert "did you mean llama-3-8b" in proc.stderr


# --- the theory command ----------------------------------------------------------------


def theory_json(*args: str) -> dict[str, Any]:
    proc = run("theory", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def test_theory_square_gemm_on_h100() -> None:
    data = theory_json("--op", "gemm:M=4096,N=4096,K=4096,dtype=fp16", "--gpu", "h100_sxm5")
    assert data["model"] is None and data["totals"] is None
    (op,) = data["ops"]
    # FLOPs 2 x 4096^3 = 137,438,953,472; bytes 3 x 4096^2 x 2 = 100,663,296;
    # AI = 4096 / 3 = 1365.33.
    assert op["flops"] == 137_438_953_472.0
    assert op["bytes"] == 100_663_296.0
    assert op["ai"] == pytest.approx(1365.33, abs=0.005)
    assert op["precision"] == "tensor_fp16"
    h100 = op["gpus"]["h100_sxm5"]
    # Ridge 989.4e12 / 3.35e12 = 295.3 < 1365: compute-bound at the fp16 tensor roof.
    assert h100["bound"] == "compute"
    assert h100["peak_flops_per_s"] == 989.4e12
    assert h100["ridge"] == pytest.approx(989.4e12 / 3.35e12, rel=1e-12)
    assert h100["attainable_flops_per_s"] == 989.4e12
    # Floor = 137,438,953,472 / 989.4e12 = 138.9 us (bytes alone: 30 us).
    assert h100["time_floor_s"] == pytest.approx(137_438_953_472 / 989.4e12, rel=1e-12)
    assert h100["time_floor_s"] == pytest.approx(1.38911e-4, rel=1e-5)


PROJECTION_ROLES = ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head")


def test_theory_llama_decode_on_a100_and_h200() -> None:
    data = theory_json(*MODEL_ARGS, "--gpu", "a100_80gb_sxm", "--gpu", "h200_sxm")
    assert data["model"]["key"] == "llama-3-8b"
    assert [g["key"] for g in data["gpus"]] == ["a100_80gb_sxm", "h200_sxm"]
    ops = {op["name"]: op for op in data["ops"]}
    for role in PROJECTION_ROLES:
        flops, nbytes = PROJECTIONS[role]
        assert ops[role]["flops"] == flops and ops[role]["bytes"] == nbytes
        # AI ~ 1 FLOP/byte against ridges of 312/2.039 = 153 and 989.4/4.8 = 206.
        for gpu in ("a100_80gb_sxm", "h200_sxm"):
            assert ops[role]["gpus"][gpu]["bound"] == "memory", (role, gpu)
    # At batch 1 every op is under the ridge, so every floor is bytes / bandwidth and
    # the per-forward floors are total bytes over each GPU's bandwidth.
    assert all(g["bound"] == "memory" for op in data["ops"] for g in op["gpus"].values())
    total_bytes = sum(op["bytes"] * op["count"] for op in data["ops"])
    a100, h200 = data["totals"]["a100_80gb_sxm"], data["totals"]["h200_sxm"]
    for t, bandwidth in ((a100, 2039e9), (h200, 4800e9)):
        assert t["complete"] is True
        assert t["bytes"] == pytest.approx(total_bytes, rel=1e-12)
        assert t["time_floor_s"] == pytest.approx(total_bytes / bandwidth, rel=1e-9)
    # Weights dominate: 32 x (50.35 + 33.57 + 234.95 + 117.48) MB + 1050.9 MB = 15.02 GB of
    # the 15.29 GB per token, so the floor is about 7.5 ms on the A100, 3.19 ms on the H200.
    assert total_bytes == pytest.approx(15.29e9, rel=1e-3)
    assert a100["time_floor_s"] == pytest.approx(7.50e-3, rel=2e-3)
    assert h200["time_floor_s"] == pytest.approx(3.185e-3, rel=2e-3)
    # The H200 is faster by the bandwidth ratio: 2039 / 4800 = 0.4248.
    assert h200["time_floor_s"] < a100["time_floor_s"]
    assert h200["time_floor_s"] / a100["time_floor_s"] == pytest.approx(2039 / 4800, rel=0.02)


def test_theory_text_output() -> None:
    proc = run("theory", *MODEL_ARGS, "--gpu", "a100_80gb_sxm", "--gpu", "h200_sxm")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert text.startswith("Llama 3 8B decode, batch 1, seq 2048, bf16\n")
    assert "Per forward pass" in text
    assert "a100_80gb_sxm (A100 SXM4 80GB): 7.5 ms" in text
    assert "h200_sxm (H200 SXM 141GB): 3.19 ms" in text
    # Rows are "#  op  count ...": the op's name is each row's second column.
    names = [line.split()[1] for line in text.splitlines() if line[:3].strip().isdigit()]
    for role in PROJECTION_ROLES:
        assert role in names, role
    assert "at most 133 tokens/s" in text
    assert "at most 314 tokens/s, 2.35x the speed of a100_80gb_sxm" in text


def test_theory_without_gpu_uses_h100_with_a_warning() -> None:
    proc = run("theory", "--op", "gemv:N=4096,K=4096")
    assert proc.returncode == 0, proc.stderr
    assert "no --gpu given; using h100_sxm5" in proc.stderr
    assert "h100_sxm5 bound" in proc.stdout


def test_theory_writes_json_by_suffix(tmp_path: Path) -> None:
    out = tmp_path / "t.json"
    proc = run("theory", "--op", "gemm:M=1,N=2,K=3", "--gpu", "h100_sxm5", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    # 2 x 1 x 2 x 3 = 12 FLOPs; (3 + 6 + 2) x 2 = 22 bytes (bf16 default).
    assert (data["ops"][0]["flops"], data["ops"][0]["bytes"]) == (12.0, 22.0)
    assert f"wrote {out} (json): 1 ops on 1 GPU(s)" in proc.stderr


def test_list_ops_and_models() -> None:
    from ncu_roofline.theory import OPS, builtin_models

    proc = run("theory", "--list-ops")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for kind in OPS:
        assert any(line.startswith(f"{kind}: ") for line in lines), kind
    assert any(line.startswith("gemm: ") for line in lines)
    assert "M, N, K" in proc.stdout  # gemm's required parameters

    proc = run("theory", "--list-models")
    assert proc.returncode == 0, proc.stderr
    for key in builtin_models():
        assert any(line.startswith(f"{key}: ") for line in proc.stdout.splitlines()), key
    assert "llama-3-8b: Llama 3 8B (32 layers, hidden 4096)" in proc.stdout


def test_theory_usage_errors(tmp_path: Path) -> None:
    proc = run("theory")
    assert proc.returncode == 2
    assert "nothing to tabulate" in proc.stderr
    proc = run("theory", "--gpu", "h100_sxm5")
    assert proc.returncode == 2
    proc = run("theory", "--op", "gemm:M=1,N=2,K=3", "--theory", "rules.toml")
    assert proc.returncode == 2
    assert "--theory rules need a profile" in proc.stderr
    proc = run("theory", "--op", "gemm:M=1,N=2")
    assert proc.returncode == 2
    assert "missing required parameter K" in proc.stderr
    proc = run("theory", "--model", "llama-3-8b", "--model-config", "config.json")
    assert proc.returncode == 2


def test_theory_html_places_ops_on_each_gpu(tmp_path: Path) -> None:
    out = tmp_path / "t.html"
    proc = run(
        "theory",
        "--model",
        "llama-3-8b",
        "--gpu",
        "a100_80gb_sxm",
        "--gpu",
        "h200_sxm",
        "--plotly-js",
        "cdn",
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    html = out.read_text(encoding="utf-8")
    assert "Theory: Llama 3 8B decode, batch 1, seq 2048, bf16" in html
    # One chart with every GPU on it, and the ops table with a per-forward line each.
    assert 'id="roofline-0"' in html and 'id="roofline-1"' not in html
    assert "A100 SXM4 80GB" in html and "H200 SXM 141GB" in html
    assert "gate_up_proj" in html
    assert html.count("<script") == html.count("</script>")
    proc = run("theory", "--op", "gemm:M=1,N=2,K=3", "-o", str(out))
    assert proc.returncode == 5  # exists, no --force
