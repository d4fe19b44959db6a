"""The clock note says what the clocks were: steady (a lock) or varying."""

from __future__ import annotations

from ncu_roofline import analyze
from tests.helpers import fp32, profile, spec


def _notes(clocks_hz: list[float]) -> list[str]:
    rows = [
        {
            **fp32(1e9),
            "dram__bytes.sum": 1e9,
            "gpu__time_duration.sum": 1e-3,
            "sm__cycles_elapsed.avg.per_second": c,
        }
        for c in clocks_hz
    ]
    a = analyze(profile(rows), gpu=spec(boost_hz=1.5e9))
    return [n for d in a.roofs for n in d.notes if "GHz SM clock" in n]


def test_varying_clocks_are_not_called_a_lock() -> None:
    # 0.81, 0.95 and 1.08 GHz: max / min = 1.33, far beyond a locked clock;
    # median 0.95 GHz is 37% below the 1.5 GHz boost clock.
    (note,) = _notes([0.81e9, 0.95e9, 1.08e9])
    assert note.startswith("kernels ran at 0.95 GHz SM clock, 37% below the 1.50 GHz boost")
    assert "clocks varied from 0.81 to 1.08 GHz across launches, so they were not locked" in note
    assert "locks clocks to base" not in note


def test_a_steady_clock_is_explained_by_ncu_s_default_lock() -> None:
    # 1.09 GHz on every launch: 27% below 1.5 GHz, the clock ncu's default lock gives.
    (note,) = _notes([1.09e9, 1.09e9, 1.0905e9])
    assert note.startswith("kernels ran at 1.09 GHz SM clock, 27% below the 1.50 GHz boost")
    assert "(ncu locks clocks to base by default, --clock-control base)" in note


def test_clocks_near_boost_give_no_note() -> None:
    assert _notes([1.45e9, 1.46e9]) == []
