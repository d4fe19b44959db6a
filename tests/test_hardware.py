"""The built-in GPU table, device-name matching and user roofs files."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline import analyze, load
from ncu_roofline.core.hardware import (
    COMPUTE_KEYS,
    MEMORY_KEYS,
    GpuSpec,
    arch_rates,
    builtin_gpus,
    chosen_roofs,
    find_gpu,
    load_roofs_file,
    match_device,
    rates_for_cc,
    resolve_gpu,
)
from ncu_roofline.errors import InputFormatError, InputNotFoundError, UsageError
from tests.helpers import run

REQUIRED_KEYS = (
    "v100_sxm2_16gb",
    "v100_sxm2_32gb",
    "v100_pcie_16gb",
    "v100_pcie_32gb",
    "t4",
    "a10",
    "a30",
    "a40",
    "a100_40gb_sxm",
    "a100_80gb_sxm",
    "a100_40gb_pcie",
    "a100_80gb_pcie",
    "rtx_a6000",
    "l4",
    "l40",
    "l40s",
    "rtx_6000_ada",
    "rtx_3090",
    "rtx_4090",
    "rtx_5090",
    "rtx_5070",
    "rtx_3070",
    "a10g",
    "h100_sxm5",
    "h100_pcie",
    "h100_nvl",
    "h200_sxm",
    "h200_nvl",
    "h800_sxm",
    "h20",
    "gh200_96gb",
    "gh200_144gb",
    "b200",
    "b100",
    "gb200_per_gpu",
    "jetson_agx_orin_64gb",
)

# Device names as Nsight Compute prints them, with the entry each must select.
DEVICE_NAMES = {
    "NVIDIA H100 80GB HBM3": "h100_sxm5",
    "NVIDIA H100 PCIe": "h100_pcie",
    "NVIDIA H100 NVL": "h100_nvl",
    "NVIDIA H200": "h200_sxm",
    "NVIDIA H200 NVL": "h200_nvl",
    "NVIDIA H800": "h800_sxm",
    "NVIDIA H20": "h20",
    "NVIDIA GH200 480GB": "gh200_96gb",
    "NVIDIA GH200 144G HBM3e": "gh200_144gb",
    "NVIDIA B200": "b200",
    "NVIDIA B100": "b100",
    "NVIDIA GB200": "gb200_per_gpu",
    "NVIDIA A100-SXM4-40GB": "a100_40gb_sxm",
    "NVIDIA A100-SXM4-80GB": "a100_80gb_sxm",
    "NVIDIA A100-PCIE-40GB": "a100_40gb_pcie",
    "NVIDIA A100 80GB PCIe": "a100_80gb_pcie",
    "NVIDIA A10": "a10",
    "NVIDIA A30": "a30",
    "NVIDIA A40": "a40",
    "NVIDIA L4": "l4",
    "NVIDIA L40": "l40",
    "NVIDIA L40S": "l40s",
    "NVIDIA RTX A6000": "rtx_a6000",
    "NVIDIA RTX 6000 Ada Generation": "rtx_6000_ada",
    "NVIDIA GeForce RTX 3090": "rtx_3090",
    "NVIDIA GeForce RTX 4090": "rtx_4090",
    "NVIDIA GeForce RTX 5090": "rtx_5090",
    "NVIDIA GeForce RTX 5070": "rtx_5070",
    "NVIDIA GeForce RTX 3070": "rtx_3070",
    "NVIDIA A10G": "a10g",
    "Tesla V100-SXM2-16GB": "v100_sxm2_16gb",
    "Tesla V100-SXM2-32GB": "v100_sxm2_32gb",
    "Tesla V100-PCIE-16GB": "v100_pcie_16gb",
    "Tesla V100-PCIE-32GB": "v100_pcie_32gb",
    "Tesla T4": "t4",
    "Orin (nvgpu)": "jetson_agx_orin_64gb",
}

# Real GPUs that are not in the table (or are different SKUs of a listed
# name): matching them to a neighbour would draw the wrong roofs.
UNKNOWN_DEVICE_NAMES = (
    "NVIDIA GeForce GTX 1080",
    "NVIDIA GeForce RTX 3070 Ti",
    "NVIDIA GeForce RTX 5070 Ti",
    "NVIDIA GeForce RTX 3090 Ti",
    "NVIDIA GeForce RTX 4090 D",
    "NVIDIA GeForce RTX 5090 D",
    "NVIDIA RTX A4000",
    "NVIDIA T400",
    "Tesla V100S-PCIE-32GB",
    "NVIDIA H800 PCIe",
    "",
)

# Dense datasheet values (TFLOP/s), read from the research notes: each is
# half of the sparsity-doubled headline figure of the datasheet named.
DENSE_DATASHEET = [
    # NVIDIA H100 datasheet: FP16/BF16 1979*, FP8 3958*, TF32 989* (sparse).
    ("h100_sxm5", "tensor_fp16", 989.4),
    ("h100_sxm5", "tensor_bf16", 989.4),
    ("h100_sxm5", "tensor_fp8", 1978.9),
    ("h100_sxm5", "tensor_tf32", 494.7),
    ("h100_sxm5", "fp32", 66.9),
    ("h100_pcie", "tensor_fp16", 756),
    # H200 datasheet: compute identical to H100 SXM.
    ("h200_sxm", "tensor_bf16", 989.4),
    # NVIDIA A100 datasheet: BF16/FP16 624*, TF32 312*, INT8 1248*.
    ("a100_40gb_sxm", "tensor_bf16", 312),
    ("a100_80gb_sxm", "tensor_fp16", 312),
    ("a100_40gb_sxm", "tensor_tf32", 156),
    ("a100_40gb_sxm", "tensor_int8", 624),
    ("a100_40gb_sxm", "tensor_fp64", 19.5),
    # Later HGX B200 sheet: FP16/BF16 4.5 PF*, FP8 9 PF*, FP4 18 PF*.
    ("b200", "tensor_bf16", 2250),
    ("b200", "tensor_fp8", 4500),
    ("b200", "tensor_fp4", 9000),
    # Later GB200 NVL72 sheet, per GPU: FP16/BF16 5 PF*.
    ("gb200_per_gpu", "tensor_bf16", 2500),
    # L40S datasheet: FP8 1466*.
    ("l40s", "tensor_fp8", 733),
    # RTX A6000: "Tensor performance 309.7" is FP16 sparse.
    ("rtx_a6000", "tensor_fp16", 154.8),
    # Ada whitepaper: RTX 4090 FP16 with FP32 accumulate (GeForce half rate).
    ("rtx_4090", "tensor_fp16", 165.2),
    # V100 and T4 datasheets (no sparsity on those generations).
    ("v100_sxm2_16gb", "tensor_fp16", 125),
    ("t4", "tensor_fp16", 65),
]

# Sheet values that the SMs x clock x rate formula does not reproduce:
# export-controlled H800 has FP64 cut to ~1 TFLOP/s on a full GH100, and the
# HGX B200 sheet rounds TF32 to 2.2 PF sparse where its other tensor figures
# imply 2.25 (1100 vs 1125 dense, 2.2% apart).
FORMULA_EXEMPT = {
    ("h800_sxm", "fp64"),
    ("h800_sxm", "tensor_fp64"),
    ("b200", "tensor_tf32"),
}

MARK_VOCABULARY = (
    set(COMPUTE_KEYS)
    | set(MEMORY_KEYS)
    | {
        "sms",
        "boost_hz",
        "base_hz",
        "tensor_hz",
        "dram_bytes",
    }
)


def _by_key() -> dict[str, GpuSpec]:
    return {spec.key: spec for spec in builtin_gpus()}


def _formula(spec: GpuSpec, key: str) -> float | None:
    """SMs x clock x per-SM rate, or None where one of the three is unknown."""
    rates = rates_for_cc(spec.cc, spec.name)
    clock = spec.clock_for(key)
    if rates is None or clock is None or spec.sms is None:
        return None
    rate = rates.per_sm_per_clock.get(key)
    return None if rate is None else spec.sms * clock * rate


# --------------------------------------------------------------------------
# The built-in table
# --------------------------------------------------------------------------


def test_builtin_table_loads_with_unique_keys() -> None:
    gpus = builtin_gpus()
    keys = [spec.key for spec in gpus]
    assert len(keys) == len(set(keys))
    assert len({spec.name for spec in gpus}) == len(gpus)
    for spec in gpus:
        assert spec.origin == "built-in"
        assert spec.name
        # A theory-only device (TPU, AMD) is never matched to an ncu device name.
        assert bool(spec.match) != spec.theory_only, spec.key
        assert (spec.cc is None) == spec.theory_only, spec.key
        assert spec.compute or spec.memory, spec.key
        assert spec.source, spec.key
        assert set(spec.compute) <= set(COMPUTE_KEYS)
        assert set(spec.memory) <= set(MEMORY_KEYS)
        assert "dram" in spec.memory, spec.key
        assert set(spec.unsure + spec.derived + spec.disputed) <= MARK_VOCABULARY, spec.key


def test_every_required_gpu_is_present() -> None:
    missing = set(REQUIRED_KEYS) - set(_by_key())
    assert not missing


def test_builtin_list_is_a_copy() -> None:
    first = builtin_gpus()
    first.clear()
    assert len(builtin_gpus()) >= len(REQUIRED_KEYS)


def test_sources_name_documents_not_just_ids() -> None:
    for spec in builtin_gpus():
        # The research notes number their sources S1..S36; a bare id means
        # nothing to someone reading the shipped file.
        assert not re.search(r"\bS\d+\b", spec.source), spec.key
        assert len(spec.source) > 20, spec.key


def test_values_are_si() -> None:
    h100 = _by_key()["h100_sxm5"]
    assert h100.boost_hz == pytest.approx(1.98e9)
    assert h100.tensor_hz == pytest.approx(1.83e9)
    assert h100.memory["dram"] == pytest.approx(3350e9)
    assert h100.dram_bytes == pytest.approx(80e9)
    assert h100.sms == 132
    assert h100.cc == "9.0"


@pytest.mark.parametrize(("key", "roof", "tflops"), DENSE_DATASHEET)
def test_dense_datasheet_values(key: str, roof: str, tflops: float) -> None:
    assert _by_key()[key].compute[roof] == pytest.approx(tflops * 1e12, rel=1e-9)


def test_figures_match_sms_times_clock_times_rate() -> None:
    """Unmarked figures reproduce within 2% (catches typos and sparse doubling)."""
    checked: dict[str, set[str]] = {}
    failures = []
    for spec in builtin_gpus():
        for key, value in spec.compute.items():
            if key in spec.unsure or key in spec.disputed or (spec.key, key) in FORMULA_EXEMPT:
                continue
            expected = _formula(spec, key)
            if expected is None:
                continue
            checked.setdefault(key, set()).add(spec.key)
            if abs(value / expected - 1) > 0.02:
                failures.append(f"{spec.key} {key}: {value:.4g} vs formula {expected:.4g}")
    assert not failures
    # The check must not pass vacuously: FP32 and FP16/BF16 tensor figures
    # of most of the table are covered.
    assert len(checked["fp32"]) >= 20
    assert len(checked["tensor_fp16"]) >= 15
    assert len(checked["tensor_bf16"]) >= 12
    assert {"h100_sxm5", "a100_40gb_sxm", "b200", "rtx_4090", "v100_sxm2_16gb"} <= checked[
        "tensor_fp16"
    ]


def test_no_figure_is_sparsity_doubled() -> None:
    """Even unsure/disputed figures never exceed the dense formula by 1.5x."""
    for spec in builtin_gpus():
        for key, value in spec.compute.items():
            expected = _formula(spec, key)
            if expected is not None:
                assert value < 1.5 * expected, (spec.key, key, value, expected)


def test_formula_check_would_catch_a_sparse_value() -> None:
    h100 = _by_key()["h100_sxm5"]
    expected = _formula(h100, "tensor_fp16")
    assert expected is not None
    assert abs(1979e12 / expected - 1) > 0.02


def test_tensor_fp64_uses_boost_clock() -> None:
    h100 = _by_key()["h100_sxm5"]
    assert h100.clock_for("tensor_fp64") == h100.boost_hz
    assert h100.clock_for("tensor_fp16") == h100.tensor_hz
    assert h100.clock_for("fp32") == h100.boost_hz
    assert h100.clock_for("dram") is None
    a100 = _by_key()["a100_40gb_sxm"]
    assert a100.tensor_hz is None
    assert a100.clock_for("tensor_bf16") == a100.boost_hz == pytest.approx(1.41e9)
    with pytest.raises(ValueError, match="unknown roof key"):
        h100.clock_for("fp33")


def test_to_dict_is_json_and_si() -> None:
    for spec in builtin_gpus():
        data = json.loads(json.dumps(spec.to_dict()))
        assert data["key"] == spec.key
        assert data["compute"] == pytest.approx(spec.compute)
    h100 = _by_key()["h100_sxm5"].to_dict()
    assert h100["compute"]["tensor_fp16"] == pytest.approx(989.4e12)
    assert h100["memory"]["dram"] == pytest.approx(3.35e12)
    assert isinstance(h100["match"], list)


def test_l2_roofs_only_where_a_per_clock_figure_is_published() -> None:
    with_l2 = {spec.key for spec in builtin_gpus() if "l2" in spec.memory}
    assert with_l2 == {
        "v100_sxm2_16gb",
        "v100_sxm2_32gb",
        "v100_pcie_16gb",
        "v100_pcie_32gb",
        "a100_40gb_sxm",
        "a100_80gb_sxm",
        "a100_40gb_pcie",
        "a100_80gb_pcie",
    }
    a100 = _by_key()["a100_40gb_sxm"]
    # A100 whitepaper: 5120 B/clk of L2 read bandwidth.
    assert a100.memory["l2"] == pytest.approx(5120 * 1.41e9, rel=1e-3)
    assert "l2" in a100.derived


def test_a100_40gb_pcie_differs_from_sxm_only_in_memory_and_name() -> None:
    table = _by_key()
    pcie, sxm = table["a100_40gb_pcie"], table["a100_80gb_pcie"]
    assert pcie.compute == table["a100_40gb_sxm"].compute == sxm.compute
    assert pcie.memory["dram"] == pytest.approx(1555e9)
    assert "250 W" in pcie.notes


# --------------------------------------------------------------------------
# Per-architecture rates
# --------------------------------------------------------------------------


def test_arch_rates_cover_every_builtin_cc() -> None:
    known = {cc for rates in arch_rates() for cc in rates.cc}
    for spec in builtin_gpus():
        # A theory-only device (TPU, AMD) has no CUDA compute capability.
        assert spec.cc in known or (spec.theory_only and spec.cc is None), spec.key
    for rates in arch_rates():
        assert set(rates.per_sm_per_clock) <= set(COMPUTE_KEYS)
        assert set(rates.unsure) <= set(rates.per_sm_per_clock)
        assert rates.description


@pytest.mark.parametrize(
    ("cc", "device", "key"),
    [
        ("8.6", None, "sm_86"),
        ("8.6", "NVIDIA A40", "sm_86"),
        ("8.6", "NVIDIA GeForce RTX 3070", "sm_86_geforce"),
        ("8,9", "NVIDIA L40S", "sm_89"),
        ("8.9", "NVIDIA GeForce RTX 4090", "sm_89_geforce"),
        ("7.5", "Tesla T4", "sm_75"),
        ("7.5", "NVIDIA GeForce RTX 2080 Ti", "sm_75_geforce"),
        ("9.0", "NVIDIA H100 80GB HBM3", "sm_90"),
        ("sm_90", None, "sm_90"),
        ("8.0", "NVIDIA GeForce something", "sm_80"),
        ("10.0", "NVIDIA B200", "sm_100"),
        ("12.0", "NVIDIA GeForce RTX 5090", "sm_120_geforce"),
        # Only a GeForce table exists for 12.0: still the best estimate.
        ("12.0", None, "sm_120_geforce"),
    ],
)
def test_rates_for_cc(cc: str, device: str | None, key: str) -> None:
    rates = rates_for_cc(cc, device)
    assert rates is not None
    assert rates.key == key


def test_rates_for_unknown_cc() -> None:
    assert rates_for_cc(None) is None
    assert rates_for_cc("7.2") is None
    assert rates_for_cc("n/a") is None


def test_arch_rate_values() -> None:
    by_key = {rates.key: rates for rates in arch_rates()}
    assert by_key["sm_90"].per_sm_per_clock["tensor_fp16"] == 4096
    assert by_key["sm_90"].per_sm_per_clock["fp32"] == 256
    assert by_key["sm_80"].per_sm_per_clock["tensor_bf16"] == 2048
    assert by_key["sm_70"].per_sm_per_clock["fp32"] == 128
    assert by_key["sm_100"].per_sm_per_clock["tensor_fp4"] == 32768
    # GeForce runs FP32-accumulate FP16 at half the professional rate.
    for cc in ("sm_75", "sm_86", "sm_89"):
        pro = by_key[cc].per_sm_per_clock["tensor_fp16"]
        assert by_key[cc + "_geforce"].per_sm_per_clock["tensor_fp16"] == pro / 2
        assert by_key[cc + "_geforce"].geforce and not by_key[cc].geforce


# --------------------------------------------------------------------------
# Device names and --gpu lookups
# --------------------------------------------------------------------------


@pytest.mark.parametrize(("device", "key"), sorted(DEVICE_NAMES.items()))
def test_match_device(device: str, key: str) -> None:
    spec = match_device(device)
    assert spec is not None
    assert spec.key == key
    # Unambiguous: no other entry matches, so file order never decides.
    hits = [
        other.key
        for other in builtin_gpus()
        if any(re.search(p, device, re.IGNORECASE) for p in other.match)
    ]
    assert hits == [key]


def test_match_device_is_case_insensitive() -> None:
    spec = match_device("nvidia a100-sxm4-80gb")
    assert spec is not None and spec.key == "a100_80gb_sxm"


@pytest.mark.parametrize("device", UNKNOWN_DEVICE_NAMES)
def test_match_device_unknown(device: str) -> None:
    assert match_device(device) is None


def test_match_device_none_and_custom_list(tmp_path: Path) -> None:
    assert match_device(None) is None
    path = tmp_path / "roofs.toml"
    path.write_text(
        "[gpu.first]\nname = 'First'\nmatch = ['RTX 3070']\nfp32_tflops = 20.3\n"
        "[gpu.second]\nname = 'Second'\nmatch = ['3070']\nfp32_tflops = 1\n",
        encoding="utf-8",
    )
    mine = load_roofs_file(path)
    spec = match_device("NVIDIA GeForce RTX 3070", mine)
    # Several entries match: the first in file order wins.
    assert spec is not None and spec.key == "first"
    assert match_device("NVIDIA H100 80GB HBM3", mine) is None


@pytest.mark.parametrize(
    ("query", "key"),
    [
        ("h100", "h100_sxm5"),
        ("H100 SXM5 80GB", "h100_sxm5"),
        ("h100_sxm5", "h100_sxm5"),
        ("H100-SXM5", "h100_sxm5"),
        ("NVIDIA H100 80GB HBM3", "h100_sxm5"),
        ("h100_pcie", "h100_pcie"),
        ("a100", "a100_40gb_sxm"),
        ("A10", "a10"),
        ("l40", "l40"),
        ("L40S", "l40s"),
        ("rtx 4090", "rtx_4090"),
        ("GeForce RTX 4090", "rtx_4090"),
        ("NVIDIA A100-SXM4-80GB", "a100_80gb_sxm"),
    ],
)
def test_find_gpu(query: str, key: str) -> None:
    assert find_gpu(query).key == key


def test_find_gpu_by_every_key_and_name() -> None:
    for spec in builtin_gpus():
        assert find_gpu(spec.key) == spec
        assert find_gpu(spec.key.upper()) == spec
        assert find_gpu(spec.name) == spec


def test_find_gpu_unknown_suggests_close_matches() -> None:
    with pytest.raises(UsageError) as info:
        find_gpu("h1000")
    message = str(info.value)
    assert '"h1000"' in message
    assert "did you mean" in message
    assert "h100_sxm5" in message
    assert "\n" not in message


def test_find_gpu_unknown_without_close_match_lists_keys() -> None:
    with pytest.raises(UsageError, match=r"known GPUs: .*h100_sxm5"):
        find_gpu("zzzz")
    with pytest.raises(UsageError):
        find_gpu("  ")


def test_find_gpu_in_user_list(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_text("[gpu.lab_card]\nname = 'Lab card'\ndram_gbps = 500\n", encoding="utf-8")
    mine = load_roofs_file(path) + builtin_gpus()
    assert find_gpu("lab card", mine).key == "lab_card"
    assert find_gpu("h100", mine).key == "h100_sxm5"


# --------------------------------------------------------------------------
# User roofs files
# --------------------------------------------------------------------------

VALID = """\
# A lab's own measured roofs
[gpu.mygpu]
name = "My GPU"
match = ['My GPU \\d+', '^Lab Card$']
arch = "Ampere GA100"
cc = "8.0"
sms = 108
boost_mhz = 1410
base_mhz = 1095
tensor_mhz = 1300
fp64_tflops = 9.7
fp32_tflops = 19.5
fp16_tc_tflops = 312
int8_tc_tops = 624
dram_gbps = 1555
l2_gbps = 5000
l1_gbps = 19000
dram_gb = 40
unsure = ["l2_gbps", "tensor_mhz"]
derived = ["l1_gbps"]
disputed = ["tensor_fp16"]
source = "measured"
notes = "lab"

[gpu.other]
name = "Other"
dram_gbps = 100.5
"""


def test_load_valid_file_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_text(VALID, encoding="utf-8")
    first, second = load_roofs_file(path)
    assert first.key == "mygpu"
    assert first.name == "My GPU"
    assert first.origin == str(path)
    assert first.arch == "Ampere GA100"
    assert first.cc == "8.0"
    assert first.sms == 108
    assert first.boost_hz == pytest.approx(1410e6)
    assert first.base_hz == pytest.approx(1095e6)
    assert first.tensor_hz == pytest.approx(1300e6)
    assert first.compute == pytest.approx(
        {"fp64": 9.7e12, "fp32": 19.5e12, "tensor_fp16": 312e12, "tensor_int8": 624e12}
    )
    assert first.memory == pytest.approx({"dram": 1555e9, "l2": 5000e9, "l1": 19000e9})
    assert first.dram_bytes == pytest.approx(40e9)
    assert first.match == (r"My GPU \d+", "^Lab Card$")
    assert first.unsure == ("l2", "tensor_hz")
    assert first.derived == ("l1",)
    assert first.disputed == ("tensor_fp16",)
    assert (first.source, first.notes) == ("measured", "lab")
    assert first.clock_for("tensor_fp16") == pytest.approx(1300e6)
    assert second.key == "other"
    assert second.compute == {}
    assert second.memory == pytest.approx({"dram": 100.5e9})
    assert second.match == ()
    assert second.sms is None and second.cc is None
    assert match_device("my gpu 7", [first, second]) == first


def test_load_single_top_level_table(tmp_path: Path) -> None:
    path = tmp_path / "rtx3070.toml"
    path.write_text(
        "name = 'RTX 3070'\nmatch = 'RTX 3070$'\ncc = 8.6\nfp32_tflops = 20.3\n",
        encoding="utf-8",
    )
    (spec,) = load_roofs_file(path)
    assert spec.key == "rtx3070"
    assert spec.match == ("RTX 3070$",)
    assert spec.cc == "8.6"
    assert spec.compute == pytest.approx({"fp32": 20.3e12})


def _error(tmp_path: Path, content: str, name: str = "roofs.toml") -> str:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputFormatError) as info:
        load_roofs_file(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(f"{path}: "), message
    return message


HEAD = "[gpu.mygpu]\nname = 'Mine'\n"


@pytest.mark.parametrize(
    ("body", "key", "fragment"),
    [
        ("fp32_tflop = 1\n", "fp32_tflop", "did you mean fp32_tflops?"),
        ("speed = 1\n", "speed", "allowed keys: name, match,"),
        ('fp32_tflops = "fast"\n', "fp32_tflops", 'expected a positive number, got "fast"'),
        ("fp32_tflops = 0\n", "fp32_tflops", "expected a positive number, got 0"),
        ("dram_gbps = -1.5\n", "dram_gbps", "got -1.5"),
        ("fp64_tflops = nan\n", "fp64_tflops", "positive number"),
        ("fp64_tflops = inf\n", "fp64_tflops", "positive number"),
        ("fp32_tflops = true\n", "fp32_tflops", "got true"),
        ("fp32_tflops = [1]\n", "fp32_tflops", "got an array"),
        ("fp32_tflops = 1\nsms = 1.5\n", "sms", "positive integer"),
        ("fp32_tflops = 1\nboost_mhz = 0\n", "boost_mhz", "positive number"),
        ("fp32_tflops = 1\nmatch = ['(']\n", "match", "bad regular expression"),
        ("fp32_tflops = 1\nmatch = ['']\n", "match", "empty regular expression"),
        ("fp32_tflops = 1\nmatch = [1]\n", "match", "expected an array of strings"),
        ("fp32_tflops = 1\ncc = 'nine'\n", "cc", "compute capability"),
        ("fp32_tflops = 1\narch = 3\n", "arch", "expected a string, got 3"),
        ("fp32_tflops = 1\nunsure = ['speed']\n", "unsure", '"speed" is not a numeric key'),
        ("fp32_tflops = 1\nderived = 'sms'\n", "derived", "expected an array of strings"),
    ],
)
def test_invalid_values_name_file_table_and_key(
    tmp_path: Path, body: str, key: str, fragment: str
) -> None:
    message = _error(tmp_path, HEAD + body)
    assert f"[gpu.mygpu] {key}: " in message
    assert fragment in message


def test_error_message_format(tmp_path: Path) -> None:
    message = _error(tmp_path, HEAD + 'fp32_tflops = "fast"\n')
    path = tmp_path / "roofs.toml"
    assert message == f'{path}: [gpu.mygpu] fp32_tflops: expected a positive number, got "fast"'


def test_missing_name(tmp_path: Path) -> None:
    message = _error(tmp_path, "[gpu.mygpu]\nfp32_tflops = 1\n")
    assert "[gpu.mygpu] name: missing" in message
    message = _error(tmp_path, "[gpu.mygpu]\nname = ' '\nfp32_tflops = 1\n")
    assert "[gpu.mygpu] name: must not be empty" in message


def test_table_without_roofs(tmp_path: Path) -> None:
    message = _error(tmp_path, HEAD + "sms = 10\nboost_mhz = 1000\n")
    assert "[gpu.mygpu]: no roof" in message
    assert "fp32_tflops" in message and "dram_gbps" in message


def test_error_in_second_table_names_it(tmp_path: Path) -> None:
    message = _error(tmp_path, HEAD + "fp32_tflops = 1\n[gpu.b]\nname = 'B'\nl2_gbps = 'x'\n")
    assert "[gpu.b] l2_gbps: " in message


def test_error_in_single_table_file(tmp_path: Path) -> None:
    message = _error(tmp_path, "name = 'x'\nfp32_tflops = -2\n", name="card.toml")
    assert "top-level table fp32_tflops: expected a positive number, got -2" in message


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ("", "empty file"),
        ("# only a comment\n", "empty file"),
        ("[gpu]\n", "no [gpu.<key>] tables"),
        ("gpu = 3\n", "[gpu]: expected [gpu.<key>] tables, got 3"),
        ("gpu = {a = 1}\n", "[gpu.a]: expected a table, got 1"),
        (HEAD + "fp32_tflops = 1\n[extra]\nx = 1\n", "top level extra: unknown key"),
        ("[gpu.x\n", "not valid TOML"),
        ("name = 'x'\nname = 'y'\n", "not valid TOML"),
    ],
)
def test_malformed_files(tmp_path: Path, content: str, fragment: str) -> None:
    assert fragment in _error(tmp_path, content)


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "roofs.toml"
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(InputFormatError, match=r"roofs\.toml"):
        load_roofs_file(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputNotFoundError, match=r"nope\.toml: no such roofs file"):
        load_roofs_file(tmp_path / "nope.toml")
    with pytest.raises(InputNotFoundError, match="is a directory"):
        load_roofs_file(tmp_path)
    with pytest.raises(InputNotFoundError):
        load_roofs_file(str(tmp_path / "nope.toml"))


def test_builtin_file_is_package_data() -> None:
    import ncu_roofline

    data = Path(ncu_roofline.__file__).parent / "core" / "data" / "gpus.toml"
    assert data.is_file()
    assert "[gpu.h100_sxm5]" in data.read_text(encoding="utf-8")


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

positive = st.floats(min_value=1e-6, max_value=1e7, allow_nan=False, allow_infinity=False)
#: Bandwidths up to the roofs file's bound, 1e6 GB/s (1e15 B/s).
bandwidth = st.floats(min_value=1e-6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(fp32=positive, dram=bandwidth, sms=st.integers(min_value=1, max_value=10_000))
def test_round_trip_any_positive_values(
    tmp_path_factory: pytest.TempPathFactory, fp32: float, dram: float, sms: int
) -> None:
    path = tmp_path_factory.mktemp("roofs") / "roofs.toml"
    path.write_text(
        f"[gpu.g]\nname = 'g'\nsms = {sms}\nfp32_tflops = {fp32!r}\ndram_gbps = {dram!r}\n",
        encoding="utf-8",
    )
    (spec,) = load_roofs_file(path)
    assert spec.sms == sms
    assert math.isclose(spec.compute["fp32"], fp32 * 1e12, rel_tol=1e-12)
    assert math.isclose(spec.memory["dram"], dram * 1e12 / 1e3, rel_tol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_match_device_never_raises(device: str) -> None:
    spec = match_device(device)
    if spec is not None:
        assert any(re.search(p, device.strip(), re.IGNORECASE) for p in spec.match)


# --------------------------------------------------------------------------
# --gpu shorthands: what they resolved to, and "did you mean"
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "key", "also"),
    [
        # A key prefix: the first of the family in table order.
        ("a100", "a100_40gb_sxm", ("a100_80gb_sxm", "a100_40gb_pcie", "a100_80gb_pcie")),
        ("h100", "h100_sxm5", ("h100_pcie", "h100_nvl")),
        # The key without separators, and words that all occur in one entry.
        ("rtx5090", "rtx_5090", ()),
        ("5090", "rtx_5090", ()),
        ("geforce 5090", "rtx_5090", ()),
        ("a100 pcie", "a100_40gb_pcie", ("a100_80gb_pcie",)),
        # A device regex hit by a family name whose sibling fits it too.
        ("gh200", "gh200_96gb", ("gh200_144gb",)),
    ],
)
def test_aliases_say_what_they_resolved_to(query: str, key: str, also: tuple[str, ...]) -> None:
    lookup = resolve_gpu(query)
    assert (lookup.spec.key, lookup.how, lookup.also) == (key, "alias", also)
    said = lookup.describe(query)
    assert said is not None and said.startswith(f'--gpu "{query}" is {key} ({lookup.spec.name})')
    if also:
        assert f"the others are {', '.join(also)}: name one to use it" in said


@pytest.mark.parametrize(
    ("query", "how"),
    [("h100_sxm5", "key"), ("H100 SXM5 80GB", "name"), ("NVIDIA H100 80GB HBM3", "device name")],
)
def test_exact_names_say_nothing(query: str, how: str) -> None:
    lookup = resolve_gpu(query)
    assert lookup.how == how and lookup.describe(query) is None


@pytest.mark.parametrize(
    ("query", "first"),
    [("509O", "rtx_5090"), ("a1000", "a100_40gb_sxm"), ("a100_40gb_pice", "a100_40gb_pcie")],
)
def test_unknown_names_suggest_keys_through_aliases(query: str, first: str) -> None:
    # "a1000" is closest to the alias "a100", which stands for a100_40gb_sxm.
    with pytest.raises(UsageError, match=rf'unknown GPU "{query}"; did you mean {first}\b'):
        resolve_gpu(query)


def test_cli_notes_an_alias_and_the_analysis_records_it(samples_dir: Path) -> None:
    path = samples_dir / "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv"
    proc = run("summary", str(path), "--gpu", "5090")
    assert proc.returncode == 0, proc.stderr
    assert 'ncu-roofline: note: --gpu "5090" is rtx_5090 (GeForce RTX 5090)' in proc.stderr
    bad = run("summary", str(path), "--gpu", "rtx509O")
    assert bad.returncode == 2
    assert 'unknown GPU "rtx509O"; did you mean rtx_5090' in bad.stderr
    (dev,) = analyze(load([str(path)]), gpu="5090").roofs
    assert '--gpu "5090" is rtx_5090 (GeForce RTX 5090)' in dev.notes


def test_chosen_roofs_resolves_a_name_once_and_passes_a_lookup_through() -> None:
    lookup, specs = chosen_roofs("a100", None)
    assert lookup is not None and lookup.asked == "a100" and specs == [lookup.spec]
    assert lookup.describe() == lookup.describe("a100")
    again, same = chosen_roofs(lookup, None)
    assert again is lookup and same == [lookup.spec]
    spec = find_gpu("h100_sxm5")
    as_spec, _ = chosen_roofs(spec, None)
    assert as_spec is not None and as_spec.spec == spec and as_spec.describe() is None
    assert chosen_roofs(None, None) == (None, None)


def test_a_gpu_and_roofs_are_refused_with_one_message() -> None:
    with pytest.raises(UsageError, match=r"^give either --gpu or --roofs, not both$"):
        chosen_roofs("a100", [find_gpu("h100_sxm5")])
