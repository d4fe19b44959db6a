"""A large table parsed in stretches on several threads gives what one parse gives.

Tables above the stream threshold are cut into stretches of whole lines
(:func:`~ncu_roofline.readers.table._parse_stretches`), each parsed on its own
thread with its own rule-row handler, then joined.  Here the stretches are a
few hundred bytes, so launches, rule rows, blank lines and stray program
lines fall across stretch boundaries at many points of real exports; the
launch frame, its warnings (line numbers included) and the rule results must
match the one-thread read exactly.
"""

from __future__ import annotations

import mmap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.readers import read_source
from ncu_roofline.readers import table as table_mod
from ncu_roofline.readers.locate import non_blank_lines
from tests.helpers import SAMPLES
from tests.test_stream import LONG_SAMPLES, _ragged_export

pytestmark = pytest.mark.skipif(
    not SAMPLES.is_dir(), reason=f"the real ncu exports are not there: {SAMPLES}"
)


def _read(path: Path, stretch: int | None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    """The source read on one thread (``stretch`` None) or in stretches of about ``stretch`` bytes."""
    calls = [0]
    real = table_mod._parse_stretches

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return real(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(table_mod, "_parse_stretches", counted)
        m.setattr(table_mod, "STREAM_BYTES", 0)
        m.setattr(table_mod, "BATCH_BYTES", 1 << 20)
        m.delenv("NCU_ROOFLINE_STREAM_BYTES", raising=False)
        if stretch is None:
            m.setenv("NCU_ROOFLINE_PARSE_THREADS", "1")
        else:
            m.setenv("NCU_ROOFLINE_PARSE_THREADS", "3")
            m.setattr(table_mod, "STRETCH_BYTES", stretch)
        frame, info = read_source(str(path), progress=False)
    # Every table read batch by batch is read in stretches, with rule rows or without.
    if stretch is not None:
        assert calls[0] == 1
    return frame, info


def _assert_same(one: tuple[Any, Any], split: tuple[Any, Any]) -> None:
    frame_a, info_a = one
    frame_b, info_b = split
    pd.testing.assert_frame_equal(frame_a, frame_b, check_exact=True)
    assert info_b.warnings == info_a.warnings
    assert info_b.metric_units == info_a.metric_units
    for attr in ("layout", "units", "ncu_version", "launches", "kernels", "devices"):
        assert getattr(info_b, attr) == getattr(info_a, attr), attr
    ra, rb = info_a.rules, info_b.rules
    for name in ("process_id", "launch_id", "name", "type", "section", "message"):
        assert getattr(rb, name) == getattr(ra, name), name
    assert [p if p == p else None for p in rb.speedup_pct] == [
        p if p == p else None for p in ra.speedup_pct
    ]


def _stretches_made(path: Path, stretch: int) -> int:
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        return len(table_mod._stretch_ends(buf, 0, len(buf), stretch))


@pytest.mark.parametrize("name", LONG_SAMPLES)
def test_stretches_match_one_parse_on_real_exports(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = SAMPLES / name
    # Lines of these exports run to a few kilobytes: dozens of stretches each.
    assert _stretches_made(path, 2048) >= max(2, path.stat().st_size // 8192)
    _assert_same(_read(path, None, monkeypatch), _read(path, 2048, monkeypatch))


@pytest.mark.parametrize("stretch", [300, 1500, 9000])
def test_stray_line_numbered_across_stretches(
    tmp_path: Path, stretch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A stray line after launch 20, blank lines after launches 5 and 30.
    path = _ragged_export(tmp_path, 40, blank_after=(5, 30))
    one = _read(path, None, monkeypatch)
    split = _read(path, stretch, monkeypatch)
    _assert_same(one, split)
    frame, info = split
    assert frame["id"].tolist() == list(range(40))
    # After the ==PROF== line, the header, launches 0-20 (48 lines each) and
    # the two blank lines after launch 5: line 1,013.
    assert [w for w in info.warnings if w.startswith("skipped")] == [
        "skipped 1 line(s) inside the table that are not table rows (line 1,013), "
        "e.g. 'step 17: loss 0.25'"
    ]
    assert len(info.rules) == 160
    assert sorted(set(info.rules.launch_id)) == list(range(40))


@settings(max_examples=15, deadline=None)
@given(stretch=st.integers(min_value=200, max_value=60_000))
def test_any_stretch_size_gives_the_same_launches(stretch: int) -> None:
    path = SAMPLES / LONG_SAMPLES[4]
    with pytest.MonkeyPatch.context() as monkeypatch:
        one = _read(path, None, monkeypatch)
        split = _read(path, stretch, monkeypatch)
    assert len(split[0]) == 26
    _assert_same(one, split)


def test_non_blank_lines_by_hand(tmp_path: Path) -> None:
    # Lines: "a", "", "\r" (blank to Arrow), "b", "" -> two rows.
    path = tmp_path / "lines.txt"
    path.write_bytes(b"a\n\n\r\nb\n\n")
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        assert non_blank_lines(buf, 0, len(buf)) == 2
        assert non_blank_lines(buf, 2, len(buf)) == 1  # from the first blank line on


def test_stretches_end_after_newlines(tmp_path: Path) -> None:
    path = tmp_path / "rows.csv"
    path.write_bytes(b"".join(b'"%d","x"\n' % i for i in range(1000)))
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        ends = table_mod._stretch_ends(buf, 0, len(buf), 500)
        assert ends[-1] == len(buf)
        assert all(buf[e - 1 : e] == b"\n" for e in ends)
        sizes = [b - a for a, b in zip([0, *ends[:-1]], ends, strict=True)]
        # Each at least the size asked for, the last at most half as long again.
        assert min(sizes[:-1]) >= 500
        assert sizes[-1] <= 500 + 250 + 16


def test_parse_threads_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NCU_ROOFLINE_PARSE_THREADS", "1")
    assert table_mod.parse_threads() == 1
    monkeypatch.setenv("NCU_ROOFLINE_PARSE_THREADS", "6")
    assert table_mod.parse_threads() == 6
    monkeypatch.setenv("NCU_ROOFLINE_PARSE_THREADS", "many")
    assert 1 <= table_mod.parse_threads() <= table_mod.MAX_PARSE_THREADS


def test_an_error_while_joining_cancels_the_stretches_not_begun(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An interrupt (or any error) while a stretch joins the first must not
    # wait for the rest of the file to be read: the stretches not yet begun
    # are cancelled.
    path = SAMPLES / LONG_SAMPLES[4]
    made = _stretches_made(path, 300)
    begun = [0]
    real = table_mod.compact_parts

    def counted(*args: Any, **kwargs: Any) -> Any:
        begun[0] += 1
        return real(*args, **kwargs)

    def interrupted(self: Any, later: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(table_mod, "compact_parts", counted)
    monkeypatch.setattr(table_mod.CompactParts, "absorb", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _read(path, 300, monkeypatch)
    # Two threads, the first two stretches and at most a few queued behind them.
    assert made > 50
    assert begun[0] < made // 2


#: Raw pages (one row per launch, a units row under the header).
RAW_PAGES = (
    SAMPLES
    / "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_b128_ctx2k_p64.ncu.csv",
    Path(__file__).parent / "data" / "raw_page.csv",
    Path(__file__).parent / "data" / "raw_old_kt.csv",
)


@pytest.mark.parametrize("path", RAW_PAGES, ids=lambda p: p.name[:30])
@pytest.mark.parametrize("stretch", [300, 5000])
def test_raw_pages_in_stretches_match_one_parse(
    path: Path, stretch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A large raw page is read in stretches too (a whole-table read holds every block in
    flight: 557 against 424 MB on a 524 MB page); its units row is skipped once."""
    one = _read(path, None, monkeypatch)
    split = _read(path, stretch, monkeypatch)
    assert one[1].layout == "raw"
    _assert_same(one, split)


@pytest.mark.parametrize("stretch", [300, 2500])
def test_a_cut_off_raw_page_in_stretches_matches_one_parse(
    tmp_path: Path, stretch: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The raw sample's launches repeated (IDs renumbered) and its last row cut inside
    its metric fields: the rows before the cut, and the cut row's fields, read alike."""
    lines = RAW_PAGES[0].read_bytes().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith(b'"ID",'))
    prelude, header, units, rows = lines[:at], lines[at], lines[at + 1], lines[at + 2 :]
    out = [*prelude, header, units]
    for copy in range(3):
        for k, row in enumerate(rows):
            rest = row.split(b",", 1)[1]
            out.append(b'"%d",' % (copy * len(rows) + k) + rest)
    last = out.pop()
    out.append(last[: len(last) * 2 // 3])
    path = tmp_path / "raw_cut.csv"
    path.write_bytes(b"".join(out))
    one = _read(path, None, monkeypatch)
    split = _read(path, stretch, monkeypatch)
    assert len(one[0]) == 3 * len(rows)
    assert any("ends mid-row" in w for w in one[1].warnings)
    _assert_same(one, split)


@pytest.mark.parametrize("strays", [2, 20])
@pytest.mark.parametrize("stretch", [None, 300, 5000])
def test_a_blank_line_among_a_raw_pages_header_rows(
    tmp_path: Path, strays: int, stretch: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A blank line between the header and the units row: Arrow counts it among the rows
    it skips, so the units row is skipped as a line of its own (not read as a launch) and
    the stray lines are named by their own lines, found by text (2) or numbered (20),
    in one parse or in stretches; the launches are those of the page without it."""
    lines = RAW_PAGES[0].read_bytes().splitlines(keepends=True)
    at = next(i for i, ln in enumerate(lines) if ln.startswith(b'"ID",'))
    rows = lines[at + 2 :]
    body: list[bytes] = []
    stray_lines: list[int] = []
    first_row_line = at + 4  # 1-based: the prelude, header, blank line, units row
    for k, row in enumerate(rows):
        body.append(row)
        if k < strays:
            stray_lines.append(first_row_line + len(body))
            body.append(b"stray %d\n" % k)
    plain = tmp_path / "plain.csv"
    plain.write_bytes(b"".join([*lines[: at + 2], *body]))
    blank = tmp_path / "blank.csv"
    blank.write_bytes(b"".join([*lines[: at + 1], b"\n", lines[at + 1], *body]))
    frame, info = _read(blank, stretch, monkeypatch)
    want, _ = _read(plain, None, monkeypatch)
    pd.testing.assert_frame_equal(frame.drop(columns="source"), want.drop(columns="source"))
    assert not any("left out" in w for w in info.warnings)
    (skipped,) = [w for w in info.warnings if w.startswith("skipped")]
    shown = ", ".join(f"{n:,}" for n in stray_lines[:3])
    assert f"lines {shown}" in skipped
