"""Metric spellings some ncu versions and GPUs export instead of the usual ones.

Each case is a two-launch raw-page export (header, units row, values) whose
expected figures are worked out by hand from the values written here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ncu_roofline import analyze, load
from ncu_roofline.core.metrics import requirement_status
from tests.helpers import spec

_IDENTITY = ["ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC"]


def _raw(path: Path, metrics: dict[str, tuple[str, list[str]]]) -> Path:
    """A raw-page export: identity columns, then ``metric -> (unit, values)``."""
    names = list(metrics)
    lines = [
        ",".join(f'"{c}"' for c in [*_IDENTITY, *names]),
        ",".join(['""'] * len(_IDENTITY) + [f'"{metrics[m][0]}"' for m in names]),
    ]
    for i in range(2):
        ident = [str(i), f"kernel_{i}", "(256, 1, 1)", "(1024, 1, 1)", "0", "6.0"]
        lines.append(",".join(f'"{v}"' for v in [*ident, *(metrics[m][1][i] for m in names)]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def pascal_export(tmp_path: Path) -> Path:
    return _raw(
        tmp_path / "pascal.csv",
        {
            "gpu__time_active.sum": ("nsecond", ["2000", "5000"]),
            "dram__read_bytes.sum": ("byte", ["3000000", "1000000"]),
            "dram__write_bytes.sum": ("byte", ["1000000", "500000"]),
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": ("inst", ["1000000", "0"]),
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": ("inst", ["0", "0"]),
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": ("inst", ["0", "0"]),
        },
    )


def test_gpu_time_active_is_a_duration(pascal_export: Path) -> None:
    launches = load(pascal_export).launches
    # 2000 ns and 5000 ns: the time the GPU was active with each launch.
    assert list(launches["duration_s"]) == pytest.approx([2.0e-6, 5.0e-6])
    assert list(launches["duration_basis"]) == ["gpu__time_active", "gpu__time_active"]


def test_pascal_dram_read_and_write_bytes_add_up(pascal_export: Path) -> None:
    a = analyze(load(pascal_export), gpu=spec(), clocks="datasheet")
    # launch 0: 3,000,000 + 1,000,000 = 4e6 B read and written; launch 1: 1.5e6 B.
    assert list(a.launches["dram_bytes"]) == pytest.approx([4.0e6, 1.5e6])
    # 4e6 B over 2 us = 2e12 B/s; 1.5e6 B over 5 us = 3e11 B/s.
    assert list(a.launches["dram_bytes_per_s"]) == pytest.approx([2.0e12, 3.0e11])
    # FP32: 2 x 1,000,000 FFMA = 2e6 FLOP over 4e6 B = 0.5 FLOP/B.
    assert float(a.launches["ai_dram"].iloc[0]) == pytest.approx(0.5)


def test_inspect_counts_the_spellings_as_present(pascal_export: Path) -> None:
    present, _missing = requirement_status(set(load(pascal_export).metric_columns))
    assert "duration" in present
    assert "dram_bytes" in present


def test_gpu_time_duration_still_wins(tmp_path: Path) -> None:
    both = _raw(
        tmp_path / "both.csv",
        {
            "gpu__time_duration.sum": ("nsecond", ["3000", "4000"]),
            "gpu__time_active.sum": ("nsecond", ["2000", "5000"]),
        },
    )
    launches = load(both).launches
    assert list(launches["duration_s"]) == pytest.approx([3.0e-6, 4.0e-6])
    assert list(launches["duration_basis"]) == ["gpu__time_duration", "gpu__time_duration"]
