"""Theory-only accelerators: Google TPUs and AMD Instinct GPUs in the GPU table.

They carry ``theory_only = true``: ``theory`` places ops on them, ``gpus``
lists them marked, and every command that judges an ncu profile (report,
summary, compare) refuses them, since ncu cannot profile them.  No device
name an export gives ever selects one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import SAMPLE, SAMPLES, run

from ncu_roofline.analysis.theory_table import peak_for, place
from ncu_roofline.core.hardware import (
    builtin_gpus,
    chosen_roofs,
    find_gpu,
    load_roofs_file,
    match_device,
    resolve_gpu,
)
from ncu_roofline.errors import InputFormatError, NcuRooflineError, UsageError
from ncu_roofline.theory.ops import parse_op_spec

THEORY_ONLY = {"tpu_v4": "google", "tpu_v5e": "google", "mi300x": "amd", "mi325x": "amd"}
REFUSAL = "is a theory-only device: ncu cannot profile it; use it with `ncu-roofline theory`"


# --- the table -------------------------------------------------------------------


def test_theory_only_entries_parse_with_sources_and_vendor() -> None:
    table = {s.key: s for s in builtin_gpus()}
    for key, vendor in THEORY_ONLY.items():
        spec = table[key]
        assert spec.theory_only, key
        assert spec.vendor == vendor
        assert spec.cc is None and spec.sms is None
        assert spec.match == ()  # nothing an ncu export names can select it
        assert spec.origin == "built-in"
        assert "dram" in spec.memory and "tensor_bf16" in spec.compute
        assert "per chip" in spec.notes.lower() or "per oam module" in spec.notes.lower()
        assert "not profilable with ncu" in spec.notes.lower()
    # Every NVIDIA entry stays profilable, with a compute capability and patterns.
    for spec in builtin_gpus():
        if spec.key not in THEORY_ONLY:
            assert spec.vendor == "nvidia" and not spec.theory_only, spec.key
    # Sources name the vendor documents.
    assert "cloud.google.com/tpu/docs/v4" in table["tpu_v4"].source
    assert "cloud.google.com/tpu/docs/v5e" in table["tpu_v5e"].source
    assert "amd.com" in table["mi300x"].source and "mi300x" in table["mi300x"].source
    assert "amd.com" in table["mi325x"].source and "mi325x" in table["mi325x"].source


@pytest.mark.parametrize(
    ("key", "roof", "value"),
    [
        ("tpu_v4", "tensor_bf16", 275e12),
        ("tpu_v4", "tensor_int8", 275e12),
        ("tpu_v4", "dram", 1.2e12),
        ("tpu_v5e", "tensor_bf16", 197e12),
        ("tpu_v5e", "tensor_int8", 394e12),
        ("tpu_v5e", "dram", 819e9),
        ("mi300x", "tensor_fp16", 1307.4e12),
        ("mi300x", "tensor_bf16", 1307.4e12),
        ("mi300x", "tensor_fp8", 2614.9e12),
        ("mi300x", "tensor_int8", 2614.9e12),
        ("mi300x", "tensor_tf32", 653.7e12),
        ("mi300x", "fp32", 163.4e12),
        ("mi300x", "fp64", 81.7e12),
        ("mi300x", "tensor_fp64", 163.4e12),
        ("mi300x", "dram", 5.3e12),
        ("mi325x", "tensor_bf16", 1307.4e12),
        ("mi325x", "dram", 6e12),
    ],
)
def test_datasheet_figures_dense_in_si(key: str, roof: str, value: float) -> None:
    spec = find_gpu(key)
    got = spec.memory[roof] if roof == "dram" else spec.compute[roof]
    assert got == pytest.approx(value, rel=1e-9)


def test_amd_figures_follow_cus_times_clock_and_are_dense() -> None:
    # 304 CUs x 2100 MHz x dense FLOP/clk/CU: 2048 FP16 matrix, 256 FP32, 128 FP64 vector.
    for key in ("mi300x", "mi325x"):
        spec = find_gpu(key)
        assert spec.boost_hz == pytest.approx(2.1e9)
        assert spec.compute["tensor_fp16"] == pytest.approx(304 * 2.1e9 * 2048, rel=1e-3)
        assert spec.compute["fp32"] == pytest.approx(304 * 2.1e9 * 256, rel=1e-3)
        assert spec.compute["fp64"] == pytest.approx(304 * 2.1e9 * 128, rel=1e-3)
        # AMD's sparse headline (2614.9 FP16) never enters the table.
        assert spec.compute["tensor_fp16"] < 2000e12
    mi300x, mi325x = find_gpu("mi300x"), find_gpu("mi325x")
    assert mi300x.compute == mi325x.compute
    assert mi300x.dram_bytes == pytest.approx(192e9)
    assert mi325x.dram_bytes == pytest.approx(256e9)


def test_gpu_records_carry_vendor_and_theory_only() -> None:
    record = find_gpu("tpu_v4").to_dict()
    assert record["vendor"] == "google" and record["theory_only"] is True
    assert find_gpu("h100_sxm5").to_dict()["theory_only"] is False


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("tpu v4", "tpu_v4"),
        ("v5e", "tpu_v5e"),
        ("MI300X", "mi300x"),
        ("AMD Instinct MI325X", "mi325x"),
    ],
)
def test_names_resolve(name: str, key: str) -> None:
    assert resolve_gpu(name).spec.key == key


def test_roofs_file_validates_theory_only(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_text(
        '[gpu.npu]\nname = "My NPU"\nvendor = "Acme"\ntheory_only = true\n'
        "bf16_tc_tflops = 100\ndram_gbps = 500\n",
        encoding="utf-8",
    )
    (spec,) = load_roofs_file(path)
    assert spec.theory_only and spec.vendor == "acme"
    for extra, key in (("match = ['NPU']", "match"), ('cc = "9.0"', "cc")):
        path.write_text(
            f'[gpu.npu]\nname = "My NPU"\ntheory_only = true\n{extra}\ndram_gbps = 500\n',
            encoding="utf-8",
        )
        with pytest.raises(InputFormatError, match=f"\\[gpu.npu\\] {key}: .*theory-only"):
            load_roofs_file(path)
    path.write_text('[gpu.g]\nname = "g"\ntheory_only = "yes"\ndram_gbps = 1\n', encoding="utf-8")
    with pytest.raises(InputFormatError, match="theory_only: expected true or false"):
        load_roofs_file(path)


# --- device-name matching never picks them ------------------------------------------


#: Device names as ncu prints them, NVIDIA's and (were one ever seen) AMD's.
DEVICE_NAMES = (
    "NVIDIA H100 80GB HBM3",
    "NVIDIA H100 NVL",
    "NVIDIA A100-SXM4-80GB",
    "NVIDIA A100-PCIE-40GB",
    "Tesla V100-PCIE-32GB",
    "Tesla T4",
    "NVIDIA GeForce RTX 5090",
    "NVIDIA H200",
    "NVIDIA B200",
    "AMD Instinct MI300X",
    "AMD Instinct MI325X",
    "TPU v4",
    "Google TPU v5e",
)


@pytest.mark.parametrize("name", DEVICE_NAMES)
def test_match_device_never_picks_a_theory_only_device(name: str) -> None:
    spec = match_device(name)
    assert spec is None or not spec.theory_only


def _export_device_names() -> set[str]:
    from ncu_roofline.readers import load

    names: set[str] = set()
    for path in sorted(SAMPLES.glob("*")):
        if not path.is_file() or path.suffix == ".md":
            continue
        try:
            profile = load([path])
        except NcuRooflineError:  # an input the readers refuse names no device
            continue
        names.update(str(n) for n in profile.launches["device_name"].dropna().unique())
    return names


def test_real_exports_never_match_a_theory_only_device() -> None:
    if not SAMPLES.is_dir():
        pytest.skip("the real ncu exports are not beside the checkout")
    names = _export_device_names()
    # The ncu-rep and CSV exports that name their device: A100, RTX 3070, B200.
    assert len(names) >= 3, names
    for name in names:
        spec = match_device(name)
        assert spec is None or not spec.theory_only, (name, spec)


# --- theory ----------------------------------------------------------------------


def test_tpu_v4_ridge_and_gemm_floor_by_hand() -> None:
    # A 4096^3 BF16 GEMM: 2 x 4096^3 FLOP over 3 x 4096^2 x 2 B is 1365 FLOP/B, past
    # TPU v4's ridge 275e12 / 1.2e12 = 229.2 FLOP/B: compute-bound, 2 x 4096^3 / 275e12 s.
    tpu = find_gpu("tpu_v4")
    placed = place(parse_op_spec("gemm:M=4096,N=4096,K=4096,dtype=bf16"), tpu)
    assert placed.precision == "tensor_bf16"
    assert placed.ridge == pytest.approx(275e12 / 1.2e12) == pytest.approx(229.17, abs=0.01)
    assert placed.bound == "compute"
    assert placed.time_floor_s == pytest.approx(2 * 4096**3 / 275e12)  # 499.8 us
    # The H100 beside it: ridge ~295 FLOP/B (989.4e12 / 3.35e12).
    h100 = place(parse_op_spec("gemm:M=4096,N=4096,K=4096,dtype=bf16"), find_gpu("h100_sxm5"))
    assert h100.ridge == pytest.approx(295.3, abs=0.1)


def test_theory_only_devices_borrow_no_stand_in_rate() -> None:
    # NVIDIA's same-rate pairs (FP8 ~ INT8, FP16 ~ BF16) do not lend a TPU a datatype.
    tpu = find_gpu("tpu_v5e")
    assert peak_for(tpu, "tensor_fp8") == (None, None)
    assert peak_for(tpu, "tensor_fp16") == (None, None)
    assert peak_for(tpu, "tensor_int8") == (394e12, "tensor_int8")
    assert peak_for(find_gpu("mi300x"), "tensor_fp8") == (2614.9e12, "tensor_fp8")


def test_theory_cli_decode_on_tpu_v4() -> None:
    proc = run(
        "theory",
        "--model",
        "llama-3-8b",
        "--phase",
        "decode",
        "--gpu",
        "tpu_v4",
        "--gpu",
        "h100_sxm5",
        "--format",
        "json",
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert [g["key"] for g in doc["gpus"]] == ["tpu_v4", "h100_sxm5"]
    ops = {op["name"]: op for op in doc["ops"]}
    qkv = ops["qkv_proj"]
    on_tpu = qkv["gpus"]["tpu_v4"]
    assert on_tpu["ridge"] == pytest.approx(275e12 / 1.2e12)
    assert on_tpu["bound"] == "memory"
    # Decode at batch 1 streams the weights: bytes / 1.2 TB/s, by hand from its bytes.
    assert on_tpu["time_floor_s"] == pytest.approx(qkv["bytes"] / 1.2e12)
    assert qkv["gpus"]["h100_sxm5"]["ridge"] == pytest.approx(989.4e12 / 3.35e12)
    text = run("theory", "--model", "llama-3-8b", "--phase", "decode", "--gpu", "tpu_v4")
    assert text.returncode == 0, text.stderr
    assert "tpu_v4 (Google TPU v4)" in text.stdout


# --- gpus ------------------------------------------------------------------------


def test_gpus_lists_them_marked() -> None:
    proc = run("gpus")
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    for key in THEORY_ONLY:
        assert rows[key].endswith("[theory only]"), rows[key]
    assert "[theory only]" not in rows["h100_sxm5"]
    assert "ncu cannot profile" in proc.stdout
    specs = {s["key"]: s for s in json.loads(run("gpus", "--json").stdout)}
    assert {k for k, s in specs.items() if s["theory_only"]} == set(THEORY_ONLY)
    assert specs["mi300x"]["vendor"] == "amd"


# --- refused where a profile is judged ----------------------------------------------


@pytest.mark.parametrize("key", sorted(THEORY_ONLY))
def test_chosen_roofs_refuses_them(key: str) -> None:
    with pytest.raises(UsageError, match=f"^{key} \\(.*\\) {REFUSAL}"):
        chosen_roofs(key, None)
    with pytest.raises(UsageError, match=REFUSAL):
        chosen_roofs(find_gpu(key), None)
    # A roofs file may hold any device: not refused.
    assert chosen_roofs(None, [find_gpu(key)])[1] == [find_gpu(key)]


@pytest.mark.parametrize(
    "args",
    [
        ("report", str(SAMPLE), "--gpu", "tpu_v4", "-o", "{tmp}/r.html"),
        ("summary", str(SAMPLE), "--gpu", "mi300x"),
        ("compare", str(SAMPLE), str(SAMPLE), "--gpu", "tpu_v5e", "-o", "{tmp}/c.html"),
        ("compare", str(SAMPLE), str(SAMPLE), "--base-gpu", "mi325x", "-o", "{tmp}/c.html"),
        ("compare", str(SAMPLE), str(SAMPLE), "--candidate-gpu", "tpu v4", "-o", "{tmp}/c.html"),
    ],
    ids=["report", "summary", "compare-gpu", "compare-base-gpu", "compare-candidate-gpu"],
)
def test_profile_commands_refuse_them(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = run(*(a.format(tmp=tmp_path) for a in args))
    assert proc.returncode == 2, proc.stderr
    assert REFUSAL in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(tmp_path.iterdir())
