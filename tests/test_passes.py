"""Inputs that are passes of one run, found and joined per launch (``--merge``).

Real passes: Giotyp/GPU-Roofline-Python's ``multi_kernels`` ran ncu three
times on one program (``--print-summary per-kernel``): ``timing.csv`` holds
``gpu__time_active.avg``, ``metrics.csv`` DRAM, L2 and L1 sector counts,
``events.csv`` instruction counts.  By hand, for ``kernel_B`` (100
invocations): DRAM read 402,339.36 sectors x 32 B = 12,874,859.5 B per
launch (writes 0), in an average 93,188.16 ns: 138.16 GB/s.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ncu_roofline import load
from tests.helpers import run

DATA = Path(__file__).parent / "data" / "passes"
TIMING = DATA / "Giotyp__GPU-Roofline-Python__multi_kernels_timing.csv"
EVENTS = DATA / "Giotyp__GPU-Roofline-Python__multi_kernels_events.csv"
METRICS = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"
DETAILS = "wangzy0327__cuda-roofline__src_output.csv"


@pytest.fixture()
def metrics(samples_dir: Path) -> Path:
    return samples_dir / METRICS


def test_passes_without_merge_are_named_in_a_hint(metrics: Path) -> None:
    profile = load([str(TIMING), str(metrics)])
    assert len(profile.sources) == 2
    for info in profile.sources:
        hint = [w for w in info.warnings if "look like passes of one run" in w]
        assert hint == [
            f"{TIMING}, {metrics} look like passes of one run (the same launches, different "
            "metrics): give --merge to join them per launch"
        ]


def test_merged_passes_by_hand(metrics: Path) -> None:
    profile = load([str(TIMING), str(metrics), str(EVENTS)], merge=True)
    (info,) = profile.sources
    assert info.path == f"{TIMING} + {metrics} + {EVENTS}"
    assert [p["path"] for p in info.passes] == [str(TIMING), str(metrics), str(EVENTS)]
    assert info.passes[0]["metrics"] == ["gpu__time_active.avg"]
    df = profile.launches.set_index("kernel")
    assert list(df.index) == ["kernel_B", "kernel_A"]
    b = df.loc["kernel_B"]
    assert b["invocations"] == 100
    assert b["duration_s"] == pytest.approx(93_188.16e-9, rel=1e-12)
    assert b["duration_basis"] == "gpu__time_active"
    assert b["dram__sectors_read.sum"] == pytest.approx(402_339.36, rel=1e-12)
    assert df.loc["kernel_A", "duration_s"] == pytest.approx(76_952.96e-9, rel=1e-12)


def test_merged_report_has_bandwidths_where_each_pass_alone_has_none(
    metrics: Path, tmp_path: Path
) -> None:
    def kernels(*args: str) -> dict[str, dict[str, Any]]:
        proc = run("report", *args, "--gpu", "a100_40gb_pcie", "--format", "json")
        assert proc.returncode == 0, proc.stderr
        return {k["kernel"]: k for k in json.loads(proc.stdout)["kernels"]}

    apart = kernels(str(TIMING), str(metrics))
    assert all(k["dram_bytes_per_s"] is None for k in apart.values())
    merged = kernels("--merge", str(TIMING), str(metrics))
    assert len(merged) == 2
    b = merged["kernel_B"]
    assert b["dram_bytes"] == pytest.approx(100 * 402_339.36 * 32, rel=1e-12)
    assert b["dram_bytes_per_s"] == pytest.approx(402_339.36 * 32 / 93_188.16e-9, rel=1e-9)
    assert b["dram_bytes_per_s"] == pytest.approx(138.16e9, rel=1e-4)
    # 138 GB/s of the A100 PCIe's 1,555 GB/s.
    assert b["dram_utilization"] == pytest.approx(138.16e9 / 1555e9, rel=1e-3)
    assert b["l2_bytes"] is not None and b["limiter"] is not None


def test_inspect_names_each_pass(metrics: Path) -> None:
    proc = run("inspect", "--merge", str(TIMING), str(metrics), str(EVENTS))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"  passes    {TIMING} (duration) + {metrics} (dram_bytes, l2_bytes) + "
        f"{EVENTS} (nothing for the roofline)"
    ) in proc.stdout
    assert "  present   duration, dram_bytes, l2_bytes" in proc.stdout
    data = json.loads(run("inspect", "--merge", "--json", str(TIMING), str(metrics)).stdout)
    (item,) = data["inputs"]
    assert [p["present"] for p in item["passes"]] == [["duration"], ["dram_bytes", "l2_bytes"]]


def _split_details(src: Path, out: Path, keep: set[str] | None) -> Path:
    """The export's table, with only the metric rows in ``keep`` (``None``: the others)."""
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    body = lines[start + 1 :]
    names = [row[12] for row in csv.reader(io.StringIO("".join(body)))]
    chosen = sorted(set(names))[: len(set(names)) // 2]
    wanted = set(chosen) if keep is None else keep
    kept = [line for line, name in zip(body, names, strict=True) if name in wanted]
    rest = [line for line, name in zip(body, names, strict=True) if name not in wanted]
    out.with_suffix(".rest.csv").write_text(lines[start] + "".join(rest), encoding="utf-8")
    out.write_text(lines[start] + "".join(kept), encoding="utf-8")
    return out


def test_details_split_in_two_passes_merge_back_to_the_export(
    samples_dir: Path, tmp_path: Path
) -> None:
    src = samples_dir / DETAILS
    first = _split_details(src, tmp_path / "a.csv", None)
    second = first.with_suffix(".rest.csv")
    whole = load(str(src)).launches
    merged = load([str(first), str(second)], merge=True)
    assert len(merged.sources) == 1 and len(merged.sources[0].passes) == 2
    got = merged.launches
    assert len(got) == len(whole) == 11
    assert list(got["id"]) == list(whole["id"]) and list(got["kernel"]) == list(whole["kernel"])
    cols = [c for c in whole.columns if "__" in c]
    assert cols and sorted(c for c in got.columns if "__" in c) == sorted(cols)
    for c in cols:
        np.testing.assert_allclose(
            got[c].to_numpy(dtype=np.float64), whole[c].to_numpy(dtype=np.float64), rtol=0
        )
    np.testing.assert_allclose(got["duration_s"], whole["duration_s"], rtol=0, equal_nan=True)


def test_same_metrics_twice_are_not_passes(samples_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "again.csv"
    copy.write_bytes((samples_dir / DETAILS).read_bytes())
    profile = load([str(samples_dir / DETAILS), str(copy)])
    assert len(profile.sources) == 2
    assert not any("passes" in w for info in profile.sources for w in info.warnings)
    merged = load([str(samples_dir / DETAILS), str(copy)], merge=True)
    assert len(merged.sources) == 2  # nothing to join: --merge leaves them apart


def test_passes_that_disagree_are_warned_about(samples_dir: Path, tmp_path: Path) -> None:
    src = samples_dir / DETAILS
    lines = src.read_text(encoding="utf-8").splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("".join(lines[start:]))))
    header, body = rows[0], rows[1:]
    cycles = "sm__cycles_elapsed.avg.per_second"
    # Pass 1: every metric; pass 2: the SM clock 50% higher, and one metric more.
    out = io.StringIO()
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(header)
    for r in body:
        if r[12] == cycles:
            w.writerow([*r[:14], str(float(r[14].replace(",", "")) * 1.5)])
            w.writerow([*r[:12], "gpu__time_duration.sum", "nsecond", "1000"])
    second = tmp_path / "b.csv"
    second.write_text(out.getvalue(), encoding="utf-8")
    profile = load([str(src), str(second)], merge=True)
    (info,) = profile.sources
    assert any(
        w.startswith(f"{cycles} differs between the passes {src} and {second} by a median 33%")
        for w in info.warnings
    ), info.warnings
    # The first pass's clock is kept; the metric only the second has is joined.
    whole = load(str(src)).launches
    np.testing.assert_allclose(profile.launches[cycles], whole[cycles], rtol=0)
    np.testing.assert_allclose(profile.launches["gpu__time_duration.sum"], 1e-6, rtol=1e-12)
    # ... and the duration is recomputed from it (ncu's duration before cycles/clock).
    assert (profile.launches["duration_basis"] == "gpu__time_duration").all()
