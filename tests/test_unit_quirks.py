"""Rates ncu prints with an amount unit are read by their name, without a warning.

``derived__lts__lts2xbar_bytes.sum.per_second`` is printed as ``byte`` in
``--set full`` Hopper reports; its name says bytes per second.  Each case
writes the metric as ncu prints it and works the SI value out by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ncu_roofline import load
from ncu_roofline.core.metrics import RATE_UNIT_QUIRKS, rate_unit_quirk, unit_for

_IDENTITY = ["ID", "Kernel Name", "Block Size", "Grid Size", "Device", "CC"]
L2X = "derived__lts__lts2xbar_bytes.sum.per_second"


def test_every_recorded_quirk_follows_the_rule() -> None:
    for metric, printed in RATE_UNIT_QUIRKS.items():
        assert rate_unit_quirk(metric, printed) == f"{printed}/second"


@pytest.mark.parametrize(
    ("metric", "printed", "meant"),
    [
        (L2X, "byte", "byte/second"),
        (L2X, "Kbyte", "Kbyte/second"),
        (L2X, "Gbyte", "Gbyte/second"),
        ("dram__bytes.sum.per_second", "Mbyte", "Mbyte/second"),
        ("lts__t_sectors.sum.per_second", "sector", "sector/second"),
        # Printed right already: no quirk.
        (L2X, "byte/second", None),
        (L2X, "Gbyte/second", None),
        # A name that counts bytes printed as sectors, or a time: ambiguous, as printed.
        (L2X, "sector", None),
        (L2X, "msecond", None),
        (L2X, "%", None),
        # Not a rate, or a rate whose name counts no amount (cycles per second).
        ("dram__bytes.sum", "byte", None),
        ("sm__cycles_elapsed.avg.per_second", "cycle", None),
        # Two counted things in one name: unclear which the unit is.
        ("lts__t_sectors_bytes.sum.per_second", "byte", None),
    ],
)
def test_rate_unit_quirk_only_where_the_name_is_unambiguous(
    metric: str, printed: str, meant: str | None
) -> None:
    assert rate_unit_quirk(metric, printed) == meant
    assert unit_for(metric, printed) == (meant or printed)


def _raw(path: Path, unit: str, values: list[str]) -> Path:
    names = ["gpu__time_duration.sum", L2X]
    units = {"gpu__time_duration.sum": "nsecond", L2X: unit}
    lines = [
        ",".join(f'"{c}"' for c in [*_IDENTITY, *names]),
        ",".join(['""'] * len(_IDENTITY) + [f'"{units[m]}"' for m in names]),
    ]
    for i, v in enumerate(values):
        ident = [str(i), f"kernel_{i}", "(256, 1, 1)", "(1024, 1, 1)", "0", "9.0"]
        lines.append(",".join(f'"{x}"' for x in [*ident, "1000", v]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_raw_page_reads_a_byte_rate_printed_as_byte(tmp_path: Path) -> None:
    # 1,500,000,000 printed in "byte" is 1.5e9 bytes per second.
    profile = load(_raw(tmp_path / "raw.csv", "byte", ["1500000000", "3000000000"]))
    assert list(profile.launches[L2X]) == [1.5e9, 3.0e9]
    assert profile.sources[0].metric_units[L2X] == "byte/s"
    assert not [w for w in profile.sources[0].warnings if "lts2xbar" in w]


def test_raw_page_scaled_byte_rate(tmp_path: Path) -> None:
    # 1.50 Gbyte (auto units) is 1.5e9 bytes per second.
    profile = load(_raw(tmp_path / "raw.csv", "Gbyte", ["1.50", "3.00"]))
    assert list(profile.launches[L2X]) == [1.5e9, 3.0e9]


def test_details_page_reads_a_byte_rate_printed_as_byte(tmp_path: Path) -> None:
    head = '"ID","Kernel Name","Block Size","Grid Size","Device","CC","Section Name",'
    head += '"Metric Name","Metric Unit","Metric Value"'
    rows = [head]
    for i, (t, rate) in enumerate([("1000", "2000000000"), ("2000", "500000000")]):
        ident = f'"{i}","k","(256, 1, 1)","(1024, 1, 1)","0","9.0","Command line profiler metrics"'
        rows.append(f'{ident},"gpu__time_duration.sum","nsecond","{t}"')
        rows.append(f'{ident},"{L2X}","byte","{rate}"')
        rows.append(f'{ident},"dram__bytes.sum.per_second","byte/second","{rate}"')
    path = tmp_path / "details.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    profile = load(path)
    # 2,000,000,000 "byte" = 2e9 B/s; the correctly printed metric beside it agrees.
    assert list(profile.launches[L2X]) == [2.0e9, 5.0e8]
    assert list(profile.launches["dram__bytes.sum.per_second"]) == [2.0e9, 5.0e8]
    assert not [w for w in profile.sources[0].warnings if "lts2xbar" in w or "rate" in w]
