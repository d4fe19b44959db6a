"""One description per GPU architecture, and the packed FP32 of Blackwell data-center chips.

Every per-chip fact (tensor counters, instruction factor, packed FP32, L1
bytes per clock) is read through ``core.architecture.architecture``: the
tables the collector, the metric list and the measures used to keep are
gone, and what they ask ncu for is what the description lists.

Packed FP32 is tested on raw pages written out here (a header row, a units
row and one row per launch, as ``ncu --page raw --csv`` prints them; see
tests/data/raw_page.csv) for a B200 (CC 10.0).  Expected values are worked
out by hand in each test from the counts written into the page.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ncu_roofline
import ncu_roofline.analysis.measures as measures
import ncu_roofline.core.collect as collect
import ncu_roofline.core.metrics as metrics
from ncu_roofline.analysis.tensor_check import collect_advice
from ncu_roofline.core.architecture import architecture, architectures
from ncu_roofline.core.collect import profile_metrics
from ncu_roofline.core.metrics import collect_metrics, tensor_metrics_to_collect
from tests.helpers import run

_IDENTITY = ["ID", "Kernel Name", "Device", "CC", "device__attribute_display_name"]


def _raw_page(
    path: Path,
    metrics: dict[str, tuple[str, list[str]]],
    cc: str = "10.0",
    device: str = "NVIDIA B200",
) -> Path:
    """A raw page of len(values) launches of one kernel on ``device`` ("" for none)."""
    names = list(metrics)
    n = len(next(iter(metrics.values()))[1])
    header = [*_IDENTITY, *names]
    units = ["", "", "", "", "", *(metrics[m][0] for m in names)]
    lines = [header, units]
    for i in range(n):
        lines.append([str(i), "gemm_kernel", "0", cc, device, *(metrics[m][1][i] for m in names)])
    path.write_text(
        "\n".join(",".join(f'"{v}"' for v in row) for row in lines) + "\n", encoding="utf-8"
    )
    return path


def _sass(op: str, prefix: str = "sm", suffix: str = "") -> str:
    return f"{prefix}__sass_thread_inst_executed_op_{op}_pred_on.sum{suffix}"


# --- one description, one way in ---------------------------------------------


def test_the_per_chip_tables_are_gone() -> None:
    assert not hasattr(metrics, "TENSOR_OPS_VARIANTS")
    assert not hasattr(collect, "TENSOR_VARIANTS")
    assert not hasattr(measures, "TENSOR_INST_FLOPS")


@pytest.mark.parametrize("cc", ["9.0", "10.0", "12.0"])
def test_profile_asks_for_exactly_the_described_tensor_counters(cc: str) -> None:
    arch = architecture(cc)
    assert arch is not None and arch.tensor_ops
    asked = profile_metrics(cc)
    tensor = [m for m in asked if m.startswith("sm__ops_path_tensor_")]
    counts = [m for m in tensor if m.endswith(".sum")]
    assert counts == [f"sm__ops_path_tensor_{v}.sum" for v in arch.tensor_ops]
    assert sorted(tensor) == sorted([*counts, *(f"{m}.peak_sustained" for m in counts)])
    # From Hopper on a tensor instruction has no one shape: its count is useless.
    assert not any("inst_executed_pipe_tensor" in m for m in asked)
    assert tensor_metrics_to_collect(cc) == arch.tensor_metrics()
    # The tensor-uncounted finding's advice names the same counters.
    advice = collect_advice(cc)
    assert "sm__inst_executed_pipe_tensor" not in advice
    assert all(m in advice for m in arch.tensor_metrics())


def test_the_descriptions_reconcile_the_old_tables() -> None:
    # GB100 (10.0): the aggregate one old table lacked (docs/ncu-format.md 5.1).
    b200 = architecture("10.0")
    assert b200 is not None and "src_fp4_fp6_fp8_dst_fp16" in b200.tensor_ops
    # GB20x (12.0): the fp4/fp6/fp8 aggregates, dense.
    gb20x = architecture("sm_120")
    assert gb20x is not None
    assert "src_fp8_dst_fp16_sparsity_off" in gb20x.tensor_ops
    assert "src_fp4_fp6_dst_fp32_sparsity_off" in gb20x.tensor_ops
    # Never a sparse or per-instruction counter: they double count or are not dense.
    for arch in architectures().values():
        assert not any("sparsity_on" in v or v.startswith("op_") for v in arch.tensor_ops)
    # Volta: no ops_path block; HMMA.884 instructions of 512 FLOPs each.
    volta = architecture("7.0")
    assert volta is not None and volta.tensor_ops == () and volta.tensor_inst_flops == 512
    assert tensor_metrics_to_collect("7.0") == ("sm__inst_executed_pipe_tensor.sum",)
    hopper = architecture("9.0")
    assert hopper is not None and hopper.tensor_inst_flops is None
    assert architecture("13.0") is None and architecture(None) is None


def test_packed_fp32_is_asked_for_where_the_chip_has_it() -> None:
    packed = {_sass(op) for op in ("fadd2", "fmul2", "ffma2")}
    assert packed <= set(profile_metrics("10.0"))
    assert packed <= set(collect_metrics(cc="10.0"))
    assert not packed & set(profile_metrics("9.0"))
    assert not packed & set(profile_metrics("12.0"))
    assert not packed & set(collect_metrics())


def test_b200collect_advice_names_the_ops_path_counters(tmp_path: Path) -> None:
    # A B200 export with FFMA counts and a duration only: tensor work is missing.
    page = _raw_page(
        tmp_path / "b200.csv",
        {
            "gpu__time_duration.sum": ("ns", ["1000000"]),
            _sass("fadd"): ("inst", ["0"]),
            _sass("fmul"): ("inst", ["0"]),
            _sass("ffma"): ("inst", ["1000000000"]),
        },
    )
    proc = run("inspect", str(page), "--json")
    assert proc.returncode == 0, proc.stderr
    (entry,) = json.loads(proc.stdout)["inputs"]
    assert "flops_tensor" in entry["missing"]
    options = " ".join(entry["ncu_options"])
    assert "sm__inst_executed_pipe_tensor" not in options
    b200 = architecture("10.0")
    assert b200 is not None
    for metric in b200.tensor_metrics():
        assert metric in options
    # The FP32 counts are there, so the packed ones are not advised here (the
    # analysis warns of them); an export lacking FP32 counts is told of both.
    bare = _raw_page(tmp_path / "bare.csv", {"gpu__time_duration.sum": ("ns", ["1000000"])})
    proc = run("inspect", str(bare), "--json")
    (entry,) = json.loads(proc.stdout)["inputs"]
    options = " ".join(entry["ncu_options"])
    assert "sm__inst_executed_pipe_tensor" not in options
    for op in ("ffma", "fadd2", "fmul2", "ffma2"):
        assert _sass(op) in options


# --- packed FP32 counted ------------------------------------------------------


def test_packed_fp32_counts_two_two_and_four_flops(tmp_path: Path) -> None:
    page = _raw_page(
        tmp_path / "packed.csv",
        {
            "gpu__time_duration.sum": ("ns", ["1000000", "1000000"]),
            _sass("fadd"): ("inst", ["100000000", "0"]),
            _sass("fmul"): ("inst", ["0", "0"]),
            _sass("ffma"): ("inst", ["1000000000", "1000000000"]),
            _sass("fadd2", "smsp"): ("inst", ["300000000", "0"]),
            _sass("fmul2", "smsp"): ("inst", ["200000000", "0"]),
            _sass("ffma2", "smsp"): ("inst", ["1000000000", "1000000000"]),
        },
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    flops = a.launches["flops_fp32"].to_numpy(dtype=float)
    # Launch 1: 1e9 FFMA x 2 + 1e9 FFMA2 x 4 = 6e9 (ncu's formula; unpacked only: 2e9).
    # Launch 0 adds 1e8 FADD x 1 + 3e8 FADD2 x 2 + 2e8 FMUL2 x 2 = 1e8 + 6e8 + 4e8:
    # 6e9 + 1.1e9 = 7.1e9.
    assert flops == pytest.approx([7.1e9, 6e9])
    # 1 ms each: the rate is the count / 1e-3 s.
    assert a.launches["fp32_flops_per_s"].to_numpy(dtype=float) == pytest.approx([7.1e12, 6e12])
    assert list(a.launches["flops_fp32_basis"]) == ["sm__sass counts with packed FP32"] * 2
    # The mix reaches the FP32 roof in lanes: launch 0 does 7.1e9 FLOPs in
    # 1e8 + 1e9 + 2 x (3e8 + 2e8 + 1e9) = 4.1e9 lanes, of 2 FLOPs each at the roof.
    share = a.launches["mix_share"].to_numpy(dtype=float)
    assert share[0] == pytest.approx(7.1e9 / (2 * 4.1e9))
    # Launch 1: FFMA and FFMA2 only, every lane an FMA: the whole roof.
    assert share[1] == pytest.approx(1.0)
    assert not [f for f in a.findings if f.kind == "fp32-packed-uncounted"]


def test_packed_fp32_per_cycle_rates(tmp_path: Path) -> None:
    # ncu's roofline section form: per-cycle rates and the SM clock.
    page = _raw_page(
        tmp_path / "rates.csv",
        {
            "gpu__time_duration.sum": ("ns", ["1000000"]),
            "sm__cycles_elapsed.avg.per_second": ("hz", ["2000000000"]),
            "sm__cycles_elapsed.avg": ("cycle", ["2000000"]),
            _sass("fadd", "sm", ".per_cycle_elapsed"): ("inst/cycle", ["0"]),
            _sass("fmul", "sm", ".per_cycle_elapsed"): ("inst/cycle", ["0"]),
            _sass("ffma", "sm", ".per_cycle_elapsed"): ("inst/cycle", ["500"]),
            _sass("ffma2", "sm", ".per_cycle_elapsed"): ("inst/cycle", ["500"]),
        },
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    # Per cycle: 500 FFMA x 2 + 500 FFMA2 x 4 = 3000 FLOP; x 2e6 cycles = 6e9 FLOPs,
    # x 2e9 cycles/s = 6e12 FLOP/s.
    assert float(a.launches["flops_fp32"].iloc[0]) == pytest.approx(6e9)
    assert float(a.launches["fp32_flops_per_s"].iloc[0]) == pytest.approx(6e12)


def test_a_b200_export_without_packed_counters_warns_once(tmp_path: Path) -> None:
    page = _raw_page(
        tmp_path / "unpacked.csv",
        {
            "gpu__time_duration.sum": ("ns", ["1000000", "2000000", "1000000"]),
            _sass("fadd"): ("inst", ["0", "0", "0"]),
            _sass("fmul"): ("inst", ["0", "0", "0"]),
            _sass("ffma"): ("inst", ["1000000000", "1000000000", "5"]),
        },
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    # 1e9 FFMA x 2: what the export can say, marked as possibly short.
    assert float(a.launches["flops_fp32"].iloc[0]) == pytest.approx(2e9)
    assert all("FP32 work may be undercounted" in b for b in a.launches["flops_fp32_basis"])
    (finding,) = [f for f in a.findings if f.kind == "fp32-packed-uncounted"]
    assert finding.severity == "warning"
    assert "FP32 work may be undercounted" in finding.message
    assert "3 launch(es)" in finding.message


def test_other_chips_without_packed_counters_do_not_warn(tmp_path: Path) -> None:
    for cc in ("9.0", "12.0"):
        page = _raw_page(
            tmp_path / f"cc{cc}.csv",
            {
                "gpu__time_duration.sum": ("ns", ["1000000"]),
                _sass("fadd"): ("inst", ["0"]),
                _sass("fmul"): ("inst", ["0"]),
                _sass("ffma"): ("inst", ["1000000000"]),
            },
            cc=cc,
        )
        a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
        assert not [f for f in a.findings if f.kind == "fp32-packed-uncounted"]
        assert np.isclose(float(a.launches["flops_fp32"].iloc[0]), 2e9)


# --- L1/shared roofs for table GPUs -------------------------------------------

A100_EXPORT = "wangzy0327__cuda-roofline__src_output_A100.csv"


def test_every_table_gpu_of_a_described_chip_has_an_l1_roof() -> None:
    from ncu_roofline.core.hardware import builtin_gpus

    for spec in builtin_gpus():
        arch = architecture(spec.cc)
        if arch is None or arch.l1_bytes_per_clk is None or not spec.sms or not spec.boost_hz:
            continue
        assert spec.memory["l1"] == pytest.approx(arch.l1_bytes_per_clk * spec.sms * spec.boost_hz)
        assert "l1" in spec.derived
        assert "B/clk/SM" in spec.source
    a100 = next(s for s in builtin_gpus() if s.key == "a100_40gb_pcie")
    # 128 B/clk/SM x 108 SMs x 1410 MHz = 19.49 TB/s (docs/hardware.md section 5: 19.5).
    assert a100.memory["l1"] == pytest.approx(128 * 108 * 1.41e9)
    assert "l1" not in a100.unsure


def test_a100_l1_utilisation_from_the_table_roof(samples_dir: Path) -> None:
    a = ncu_roofline.analyze(ncu_roofline.load(str(samples_dir / A100_EXPORT)))
    (dev,) = a.roofs
    (l1,) = [c for c in dev.ceilings if c.key == "l1"]
    assert l1.source.startswith("table: A100 PCIe 40GB")
    launches = a.launches
    # Launch 4 (a CUTLASS GEMM) in the file: l1tex__t_bytes.sum 270,113,177,600,
    # sm__cycles_elapsed.avg 100,747,804.11 at 764,999,418.90 cycles/s, no
    # duration metric (duration = cycles / clock).  L1 bytes per cycle =
    # 270113177600 / 100747804.11 = 2681.1; the roof at the measured clock is
    # 108 SMs x 128 B = 13824 B per cycle, so the clock cancels:
    # 2681.1 / 13824 = 0.19394.
    row = launches[launches["id"] == 4].iloc[0]
    assert float(row["peak_l1_bytes_per_s"]) == pytest.approx(108 * 128 * 764_999_418.90)
    assert float(row["l1_utilization"]) == pytest.approx(
        270_113_177_600 / 100_747_804.11 / (108 * 128), rel=1e-9
    )
    assert float(row["l1_utilization"]) == pytest.approx(0.19394, abs=1e-5)
    # Recoverable time is bounded by the L1 roof: the kernel cannot run faster
    # than its L1 traffic allows.
    for _, launch in launches.iterrows():
        util, rec = float(launch["l1_utilization"]), float(launch["recoverable_s"])
        if np.isfinite(rec):
            assert rec <= float(launch["duration_s"]) * (1 - util) + 1e-12


# --- the GPU table: SM counts rule GPUs out -------------------------------------

#: 1e9 DRAM bytes in 1 ms = 1e12 B/s, at 55.80357% of ncu's DRAM peak: an
#: implied peak of 1e12 / 0.5580357 = 1.792e12 B/s, the RTX 5090's bandwidth.
_DRAM_LIKE_5090 = {
    "gpu__time_duration.sum": ("ns", ["1000000"]),
    "dram__bytes.sum": ("byte", ["1000000000"]),
    "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed": ("%", ["55.80357"]),
    "device__attribute_multiprocessor_count": ("", ["48"]),
}


def test_a_48_sm_cc_12_export_is_never_said_to_fit_the_5090(tmp_path: Path) -> None:
    # Named RTX 5070: its table roofs (672 GB/s) disagree with the implied
    # 1.792 TB/s, and the only CC 12.0 GPU with that bandwidth has 170 SMs.
    page = _raw_page(
        tmp_path / "named.csv", _DRAM_LIKE_5090, cc="12.0", device="NVIDIA GeForce RTX 5070"
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "rtx_5070" and dev.export_sms == 48
    (mismatch,) = [f for f in a.findings if f.kind == "roof-mismatch"]
    assert "rtx_5090" not in mismatch.message
    assert "No built-in GPU of CC 12.0 with 48 SMs has that DRAM bandwidth" in mismatch.message
    # Unnamed, with the 5090's bandwidth: the SM count rules the 5090 out and
    # the bandwidth the 5070, so no GPU is a fit or a candidate.
    page = _raw_page(tmp_path / "unnamed.csv", _DRAM_LIKE_5090, cc="12.0", device="")
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    (dev,) = a.roofs
    assert dev.gpu is None and dev.candidates == ()
    assert any("no GPU of the table fits its evidence (CC 12.0, 48 SMs" in n for n in dev.notes)
    assert not any("rtx_5090" in text for text in [*dev.notes, *(f.message for f in a.findings)])
    # Unnamed, SM count only: 48 SMs point to the RTX 5070; the 5090 is ruled out.
    sms_only = {k: v for k, v in _DRAM_LIKE_5090.items() if "dram" not in k}
    page = _raw_page(tmp_path / "sms.csv", sms_only, cc="12.0", device="")
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    (dev,) = a.roofs
    assert dev.gpu is not None and dev.gpu.key == "rtx_5070" and dev.candidates == ()
    (note,) = [n for n in dev.notes if "inferred" in n]
    assert "CC 12.0, 48 SMs" in note and "ruled out: rtx_5090 (170 SMs)" in note


def test_a_gpu_the_table_lacks_gets_an_l1_roof_from_its_architecture(tmp_path: Path) -> None:
    # An RTX A4000 (CC 8.6, 48 SMs) is in no table entry and no CC 8.6 entry
    # has 48 SMs: its L1 roof is 128 B/clk/SM x 48 SMs x the 1.5 GHz measured
    # = 9.216e12 B/s; 4.608e9 L1 bytes in 1 ms = 4.608e12 B/s, half of it.
    page = _raw_page(
        tmp_path / "a4000.csv",
        {
            "gpu__time_duration.sum": ("ns", ["1000000"]),
            "sm__cycles_elapsed.avg.per_second": ("hz", ["1500000000"]),
            "l1tex__t_bytes.sum": ("byte", ["4608000000"]),
            "device__attribute_multiprocessor_count": ("", ["48"]),
        },
        cc="8.6",
        device="NVIDIA RTX A4000",
    )
    a = ncu_roofline.analyze(ncu_roofline.load(str(page)))
    (dev,) = a.roofs
    assert dev.gpu is None
    (l1,) = [c for c in dev.ceilings if c.key == "l1"]
    assert l1.value == pytest.approx(128 * 48 * 1.5e9)
    assert l1.source.startswith("derived: CC 8.6 L1 128 B/clk/SM x SM count x measured clock")
    assert float(a.launches["l1_utilization"].iloc[0]) == pytest.approx(0.5)


def test_every_consumer_reads_the_one_description(monkeypatch: pytest.MonkeyPatch) -> None:
    # Replace the description of CC 9.0 with a made-up chip: the collector,
    # the metric list, the tensor-instruction factor, the packed FP32 check
    # and the L1 roof all follow it, so no second table remains anywhere.
    import dataclasses

    import pandas as pd

    import ncu_roofline.core.architecture as arch_module
    from ncu_roofline.core.hardware import builtin_gpus, with_l1_roof

    real = arch_module.architectures()
    fake = dataclasses.replace(
        real["9.0"],
        tensor_ops=("src_made_up",),
        tensor_inst_flops=1234.0,
        tensor_inst_shape="made-up MMA",
        packed_fp32=True,
        l1_bytes_per_clk=7.0,
    )
    monkeypatch.setattr(arch_module, "architectures", lambda: {**real, "9.0": fake})
    asked = profile_metrics("9.0")
    assert "sm__ops_path_tensor_src_made_up.sum" in asked
    assert "sm__ops_path_tensor_src_made_up.sum.peak_sustained" in asked
    assert _sass("ffma2") in asked
    assert tensor_metrics_to_collect("9.0") == ("sm__ops_path_tensor_src_made_up.sum",)
    frame = pd.DataFrame(
        {
            "duration_s": [1e-3],
            "cc": ["9.0"],
            "kernel": ["k"],
            "sm__inst_executed_pipe_tensor.sum": [10.0],
            _sass("fadd"): [0.0],
            _sass("fmul"): [0.0],
            _sass("ffma"): [5.0],
        }
    )
    out = measures.measure(frame).columns
    assert float(out["flops_tensor"][0]) == pytest.approx(12340.0)
    assert str(out["flops_fp32_basis"][0]).endswith(measures.PACKED_FP32_MISSING)
    h100 = next(s for s in builtin_gpus() if s.key == "h100_sxm5")
    no_l1 = dataclasses.replace(h100, memory={k: v for k, v in h100.memory.items() if k != "l1"})
    assert with_l1_roof(no_l1).memory["l1"] == pytest.approx(7.0 * 132 * 1.98e9)
