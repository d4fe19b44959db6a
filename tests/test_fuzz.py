"""A seeded fuzz suite over every export layout: damaged inputs never lose data silently.

The inputs are the synthetic exports of ``tests/synthetic_exports.py`` (one
per layout ncu writes: details pages with and without rule columns, the raw
page, the per-kernel summary, the text output, gzip and UTF-16 copies),
written by the tests so that a fresh clone fuzzes every reader, and every
real file of ``../shared/ncu-samples/`` when that folder is there.  Each is
mutated the ways real files get damaged: cut at arbitrary offsets and on line boundaries, bytes flipped,
lines deleted or duplicated, two exports concatenated or one run appended
to itself, re-encoded (UTF-16 from a PowerShell redirect, a Latin-1 kernel
name), a field of 200,000 characters, hostile kernel names, gzip with
trailing garbage.  For every case the command line must:

* end with a documented exit code, never an internal error or a traceback;
* report no more launches than the input holds (a doubled line adds none);
* never report a launch whose counters were cut as complete: a launch of a
  cut or line-deleted file that is also in the intact file has, for each
  quantity, either the intact file's value or none;
* leave its output complete or absent (no partial file, no temp file);
* keep terminal escapes and bidi overrides of kernel names off stderr, and
  markup out of the HTML.

A raw page is also cut at every row boundary and a few bytes either side:
the launches whose rows are whole are kept with their values, a cut row is
dropped or kept with its cut values missing, and nothing more appears.

The cases are drawn from a fixed seed (``NCU_ROOFLINE_FUZZ_SEED`` picks
another) and sized to about a minute and a half (a synthetic export, being
small and regular, gets a third of a real one's random cases); ``NCU_ROOFLINE_FUZZ_SCALE=10`` runs
ten times as many.  A failing case prints its seed, mutation and offsets so
it can be replayed.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import random
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
import numpy as np
import pandas as pd
import pytest

from ncu_roofline.cli import cli
from ncu_roofline.errors import EXIT_CODES, NcuRooflineError
from ncu_roofline.readers import read_source
from tests import synthetic_exports as synthetic
from tests.helpers import SAMPLES, run

SEED = int(os.environ.get("NCU_ROOFLINE_FUZZ_SEED", "20261202"))
SCALE = max(1, int(os.environ.get("NCU_ROOFLINE_FUZZ_SCALE", "1")))

#: The exit codes a run may end with; ``internal`` (a bug) is not one.
ALLOWED_EXITS = {code for name, code in EXIT_CODES.items() if name != "internal"}

#: Launch quantities that must never be a partial sum of cut counters.
QUANTITIES = ("flops", "dram_bytes", "l2_bytes", "l1_bytes")
#: A duration is one metric, never a sum; a cut launch may fall back from
#: ``gpu__time_duration.sum`` to its speed-of-light "Duration" row, which
#: ncu prints rounded (547.32 us for 547.84 us on a real export).
DURATION_TOLERANCE = 0.01
#: Two metric bases of one count agree within this (ncu's auto units keep 4 digits).
BASIS_TOLERANCE = 1e-3

HOSTILE = (
    "</script><img src=x onerror=alert(1)>\x1b]0;owned\x07\x1b[2J\b\u202eevil\u2028"
    "| *md* [x](javascript:alert(1))"
)
#: What must never reach stderr from a kernel name.
TERMINAL_CONTROLS = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f\x80-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]"
)


def _samples() -> list[Path]:
    if not SAMPLES.is_dir():
        return []
    files = [p for p in sorted(SAMPLES.rglob("*")) if p.is_file() and p.suffix != ".md"]
    return files


@dataclass(frozen=True)
class Export:
    """One input of the suite: a real sample (``path``) or a synthetic layout (``layout``)."""

    id: str
    path: Path | None = None
    layout: str | None = None

    @property
    def name(self) -> str:
        """The file name the cases are written under (the reader looks at the suffix)."""
        if self.path is not None:
            return self.path.name
        return synthetic.LAYOUTS[str(self.layout)].filename

    @property
    def key(self) -> str:
        """Unique among the exports (two real samples may share an ``id``)."""
        return str(self.path) if self.path is not None else f"synthetic:{self.layout}"

    @property
    def cases_share(self) -> float:
        """The share of a real export's random cases this export gets."""
        return 1.0 if self.path is not None else 1 / 3

    def data(self) -> bytes:
        """The intact export's bytes."""
        if self.path is not None:
            return self.path.read_bytes()
        return synthetic.LAYOUTS[str(self.layout)].writer(synthetic.LAUNCHES)


def _real(p: Path) -> Export:
    return Export(p.name.split("__")[0][:24], path=p)


def _synthetic(key: str) -> Export:
    return Export(f"synthetic-{key}", layout=key)


#: Synthetic layouts whose bytes are UTF-8 text (the gzip and UTF-16 ones are not).
_PLAIN_LAYOUTS = [k for k in synthetic.LAYOUTS if k not in ("gzip", "utf16")]
#: One synthetic export per reader (details, raw, summary, text) for the costlier cases.
_READER_LAYOUTS = ["details-rules", "raw", "summary", "text"]


@dataclass
class Outcome:
    """What one run did."""

    code: int
    stderr: str
    report: dict[str, Any] | None
    error: str | None


def _invoke(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str | None]:
    """Run the command line in process; an exception outside the hierarchy is a bug."""
    capsys.readouterr()
    error = None
    try:
        code = cli.main(args=args, prog_name="ncu-roofline", standalone_mode=False)
        code = code if isinstance(code, int) else 0
    except NcuRooflineError as exc:
        code = exc.exit_code
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        code = 2 if exc.exit_code == 2 else exc.exit_code
    except Exception as exc:
        code = EXIT_CODES["internal"]
        error = "".join(traceback.format_exception(exc))
    return code, capsys.readouterr().err, error


def _run(data: bytes, name: str, tmp: Path, capsys: pytest.CaptureFixture[str]) -> Outcome:
    """``report`` on ``data`` written as ``name``; its JSON report if it wrote one."""
    case = tmp / f"case{len(list(tmp.iterdir()))}"
    case.mkdir()
    src = case / name
    src.write_bytes(data)
    out = case / "out" / "report.json"
    out.parent.mkdir()
    code, err, error = _invoke(["report", str(src), "--format", "json", "-o", str(out)], capsys)
    leftovers = [p.name for p in out.parent.iterdir() if p != out]
    assert not leftovers, f"temp files left behind: {leftovers}"
    report = None
    if out.exists():
        text = out.read_text(encoding="utf-8")
        report = json.loads(text)  # complete or absent: never a partial document
    return Outcome(code, err, report, error)


def _baseline(export: Export, tmp: Path, capsys: pytest.CaptureFixture[str]) -> Outcome:
    return _run(export.data(), export.name, tmp, capsys)


def _launches(outcome: Outcome) -> list[dict[str, Any]]:
    return list(outcome.report["launches"]) if outcome.report else []


def _check(outcome: Outcome, bound: int, what: str) -> None:
    """The invariants every case must keep."""
    assert outcome.error is None, f"{what}: internal error\n{outcome.error}"
    assert outcome.code in ALLOWED_EXITS, f"{what}: exit {outcome.code}\n{outcome.stderr}"
    assert "Traceback" not in outcome.stderr, f"{what}: {outcome.stderr}"
    if outcome.code == 0:
        assert outcome.report is not None, f"{what}: exit 0 without a report"
    n = len(_launches(outcome))
    assert n <= bound, f"{what}: {n} launches from an input holding at most {bound}"


def _same(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None or b is None
    # Another metric basis of the same quantity (sectors x 32 for ncu's
    # two-decimal "17.50 Mbyte") agrees within ncu's rounding.
    return math.isclose(float(a), float(b), rel_tol=BASIS_TOLERANCE, abs_tol=0.0)


def _check_no_partial(outcome: Outcome, intact: Outcome, what: str) -> None:
    """Every quantity of a surviving launch is the intact file's (or another basis
    of it, within ncu's rounding) or missing.

    A file left with one launch is not checked: with nothing to compare
    with, a cut on a line boundary cannot be told from a complete export.
    """
    launches = _launches(outcome)
    if len(launches) < 2:
        return
    original = {(x.get("id"), x.get("kernel")): x for x in _launches(intact)}
    for launch in launches:
        before = original.get((launch.get("id"), launch.get("kernel")))
        if before is None:
            continue
        duration = launch.get("duration_s")
        if duration is not None and before.get("duration_s") is not None:
            assert math.isclose(duration, before["duration_s"], rel_tol=DURATION_TOLERANCE), (
                f"{what}: launch {launch.get('id')} duration {duration} vs {before['duration_s']}"
            )
        for q in QUANTITIES:
            value = launch.get(q)
            if value is None:
                continue
            assert _same(value, before.get(q)), (
                f"{what}: launch {launch.get('id')} reports {q}={value}, the intact file "
                f"{before.get(q)}: a partial value reported as complete"
            )


# --- mutations ------------------------------------------------------------------------

Mutation = Callable[[bytes, random.Random], tuple[bytes, str]]


def _line_starts(data: bytes) -> list[int]:
    return [0] + [m.end() for m in re.finditer(rb"\n", data) if m.end() < len(data)]


def cut_anywhere(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    at = rng.randrange(1, len(data))
    return data[:at], f"cut at byte {at}"


def cut_on_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    starts = _line_starts(data)
    at = rng.choice(starts[1:]) if len(starts) > 1 else len(data) // 2
    return data[:at], f"cut at line boundary {at}"


def delete_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    starts = [*_line_starts(data), len(data)]
    i = rng.randrange(len(starts) - 1)
    return data[: starts[i]] + data[starts[i + 1] :], f"deleted line {i + 1}"


def duplicate_line(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    starts = [*_line_starts(data), len(data)]
    i = rng.randrange(len(starts) - 1)
    line = data[starts[i] : starts[i + 1]]
    line = line if line.endswith(b"\n") else line + b"\n"
    return data[: starts[i + 1]] + line + data[starts[i + 1] :], f"duplicated line {i + 1}"


def flip_bytes(data: bytes, rng: random.Random) -> tuple[bytes, str]:
    buf = bytearray(data)
    where = sorted(rng.randrange(len(buf)) for _ in range(rng.randint(1, 4)))
    for at in where:
        buf[at] = rng.randrange(256)
    return bytes(buf), f"flipped bytes at {where}"


#: Mutation, whether it only removes data (so no value may change), and cases per file.
MUTATIONS: dict[str, tuple[Mutation, bool, int]] = {
    "cut-anywhere": (cut_anywhere, True, 6),
    "cut-on-line": (cut_on_line, True, 4),
    "delete-line": (delete_line, True, 4),
    "duplicate-line": (duplicate_line, False, 3),
    "flip-bytes": (flip_bytes, False, 5),
}

_TEXT_SAMPLES = [p for p in _samples() if p.suffix != ".ncu-rep"]
_BINARY_SAMPLES = [p for p in _samples() if p.suffix == ".ncu-rep"]

#: Every text export: the synthetic layouts, then the real samples.
_TEXT_EXPORTS = [*map(_synthetic, synthetic.LAYOUTS), *map(_real, _TEXT_SAMPLES)]
#: Those that are UTF-8 text, to append to another.
_PLAIN_EXPORTS = [*map(_synthetic, _PLAIN_LAYOUTS), *map(_real, _TEXT_SAMPLES)]
#: One per reader and the real samples, for the re-encoding, name and gzip cases.
_READER_EXPORTS = [*map(_synthetic, _READER_LAYOUTS), *map(_real, _TEXT_SAMPLES)]
#: The raw pages, cut at every row boundary.
_RAW_EXPORTS = [
    _synthetic("raw"),
    *(_real(p) for p in _TEXT_SAMPLES if p.name.endswith(".ncu.csv")),
]


def _id(p: Path) -> str:
    return p.name.split("__")[0][:24]


def _export_id(export: Export) -> str:
    return export.id


@pytest.fixture(scope="module")
def baselines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    """Each export's report, intact; filled lazily by the tests."""
    return {}


def _intact(
    export: Export,
    baselines: dict[str, Outcome],
    tmp: Path,
    capsys: pytest.CaptureFixture[str],
) -> Outcome:
    if export.key not in baselines:
        baselines[export.key] = _baseline(export, tmp, capsys)
    return baselines[export.key]


@pytest.mark.parametrize("export", [_synthetic(k) for k in synthetic.LAYOUTS], ids=_export_id)
def test_synthetic_exports_report_whole(
    export: Export,
    baselines: dict[str, Outcome],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each synthetic export, intact, reports every launch on the roofline with a verdict:
    the suite damages exports the tool reads whole."""
    intact = _intact(export, baselines, tmp_path, capsys)
    layout = synthetic.LAYOUTS[str(export.layout)]
    assert intact.code == 0, intact.stderr
    launches = _launches(intact)
    assert len(launches) == layout.rows
    expected = {x.kernel.name: x for x in synthetic.LAUNCHES}
    for launch in launches:
        assert launch["bound"] == expected[launch["kernel"]].bound, launch
        assert launch["flops"] == pytest.approx(expected[launch["kernel"]].flops, rel=1e-9)


def _case_count(export: Export, n: int) -> int:
    """How many random cases of a kind ``export`` gets (at least one)."""
    return max(1, round(n * export.cases_share)) * SCALE


@pytest.mark.parametrize("export", _TEXT_EXPORTS, ids=_export_id)
@pytest.mark.parametrize("kind", list(MUTATIONS))
def test_mutated_exports(
    export: Export,
    kind: str,
    baselines: dict[str, Outcome],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Cut, deleted, duplicated and flipped bytes of every text export keep the invariants."""
    mutate, removes_only, n = MUTATIONS[kind]
    intact = _intact(export, baselines, tmp_path, capsys)
    data = export.data()
    held = len(_launches(intact))
    for i in range(_case_count(export, n)):
        rng = random.Random(f"{SEED}:{export.name}:{kind}:{i}")
        mutated, how = mutate(data, rng)
        what = f"{export.name}: {how} (seed {SEED}, case {kind}:{i})"
        # A flipped byte may make a launch of its own; a doubled line never
        # does (a repeated row is left out, not read as a second run).
        extra = 0 if removes_only or kind == "duplicate-line" else (how.count(",") + 1)
        outcome = _run(mutated, export.name, tmp_path, capsys)
        _check(outcome, held + extra, what)
        if removes_only:
            _check_no_partial(outcome, intact, what)


@pytest.mark.parametrize("export", _TEXT_EXPORTS, ids=_export_id)
def test_concatenated_and_appended(
    export: Export,
    baselines: dict[str, Outcome],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An export appended to itself (a second run in one log) and to another export:
    no launch is lost to the other's header, none is invented."""
    intact = _intact(export, baselines, tmp_path, capsys)
    data = export.data()
    held = len(_launches(intact))
    twice = _run(
        data + (b"" if data.endswith(b"\n") else b"\n") + data, export.name, tmp_path, capsys
    )
    _check(twice, 2 * held, f"{export.name} appended to itself")
    others = [x for x in _PLAIN_EXPORTS if x != export]
    other = random.Random(f"{SEED}:{export.name}:concat").choice(others)
    other_held = len(_launches(_intact(other, baselines, tmp_path, capsys)))
    both = _run(data + b"\n" + other.data(), export.name, tmp_path, capsys)
    _check(both, held + other_held, f"{export.name} followed by {other.name}")
    if intact.code == 0 and held:
        assert len(_launches(both)) >= held, (
            f"{export.name} followed by {other.name}: the first export's launches were lost"
        )


def _kernel_name(outcome: Outcome) -> str | None:
    names = [str(x["kernel"]) for x in _launches(outcome) if x.get("kernel")]
    return names[0] if names else None


@pytest.mark.parametrize("export", _READER_EXPORTS, ids=_export_id)
def test_encodings_huge_fields_and_hostile_names(
    export: Export,
    baselines: dict[str, Outcome],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Re-encoded files, a 200,000-character name and hostile names keep the invariants;
    a UTF-16 export reads as the UTF-8 one does."""
    intact = _intact(export, baselines, tmp_path, capsys)
    data = export.data()
    held = len(_launches(intact))
    text = data.decode("utf-8", errors="surrogateescape")
    utf16 = _run(text.encode("utf-16", errors="surrogateescape"), export.name, tmp_path, capsys)
    _check(utf16, held, f"{export.name} as UTF-16")
    if intact.code == 0:
        assert len(_launches(utf16)) == held, f"{export.name} as UTF-16 lost launches"
    name = _kernel_name(intact)
    if name is None or name not in text:
        return
    latin = data.replace(name.encode(), (name + "\u00e9").encode("latin-1", errors="replace"))
    _check(_run(latin, export.name, tmp_path, capsys), held, f"{export.name} with a Latin-1 name")
    huge = text.replace(name, name + "x" * 200_000).encode("utf-8", errors="surrogateescape")
    _check(_run(huge, export.name, tmp_path, capsys), held, f"{export.name} with a 200k name")
    hostile = text.replace(name, HOSTILE).encode("utf-8", errors="surrogateescape")
    outcome = _run(hostile, export.name, tmp_path, capsys)
    _check(outcome, held, f"{export.name} with hostile names")
    assert not TERMINAL_CONTROLS.search(outcome.stderr), repr(outcome.stderr[:500])
    src = tmp_path / "hostile" / export.name
    src.parent.mkdir()
    src.write_bytes(hostile)
    html = tmp_path / "hostile" / "report.html"
    code, _err, error = _invoke(["report", str(src), "-o", str(html)], capsys)
    assert error is None, error
    assert code in ALLOWED_EXITS
    if html.exists():
        page = html.read_text(encoding="utf-8")
        assert "<img src=x" not in page
        assert page.rstrip().endswith("</html>")


#: The exports gzipped: one synthetic export per reader and four real ones.
_GZIP_EXPORTS = [*map(_synthetic, _READER_LAYOUTS), *map(_real, _TEXT_SAMPLES[:4])]


@pytest.mark.parametrize("export", _GZIP_EXPORTS, ids=_export_id)
def test_gzip_with_garbage_and_cut_streams(
    export: Export,
    baselines: dict[str, Outcome],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A gzip stream with trailing garbage keeps every launch; a cut one keeps the invariants."""
    intact = _intact(export, baselines, tmp_path, capsys)
    held = len(_launches(intact))
    packed = gzip.compress(export.data(), mtime=0)
    gz = export.name + ".gz"
    garbage = _run(packed + b"\x00garbage\xff" * 3, gz, tmp_path, capsys)
    _check(garbage, held, f"{gz} with trailing garbage")
    if intact.code == 0:
        assert len(_launches(garbage)) == held, f"{gz} with garbage lost launches"
    for i in range(_case_count(export, 3)):
        rng = random.Random(f"{SEED}:{export.name}:gzcut:{i}")
        at = rng.randrange(20, len(packed))
        what = f"{gz} cut at byte {at}"
        outcome = _run(packed[:at], gz, tmp_path, capsys)
        _check(outcome, held, what)
        _check_no_partial(outcome, intact, what)


# --- a raw page cut at every row boundary ----------------------------------------------

#: Where a raw page is cut around each line start: 3 bytes before it (inside the last
#: value), 1 before (the newline gone), on it, and 2 after (inside the next ID).
RAW_CUT_OFFSETS = (-3, -1, 0, 2)


def _read_cut(src: Path) -> tuple[int, pd.DataFrame | None, str | None]:
    """The reader on ``src`` in process: the exit code its outcome maps to, the launches
    (exit 0), and a traceback for an exception outside the hierarchy (exit 1, a bug)."""
    try:
        frame, _info = read_source(str(src))
    except NcuRooflineError as exc:
        return exc.exit_code, None, None
    except Exception as exc:
        return EXIT_CODES["internal"], None, "".join(traceback.format_exception(exc))
    return 0, frame.reset_index(drop=True), None


def _missing(value: Any) -> bool:
    return value is None or bool(pd.isna(value))


def _same_cells(got: pd.Series, want: pd.Series, or_missing: bool) -> bool:
    """Equal cells (missing equal to missing); with ``or_missing``, a missing cell is fine too."""
    for a, b in zip(got.tolist(), want.tolist(), strict=True):
        if _missing(a) and (or_missing or _missing(b)):
            continue
        if _missing(b) or a != b:
            return False
    return True


def _check_rows(frame: pd.DataFrame, intact: pd.DataFrame, whole: int, what: str) -> None:
    """The first ``whole`` launches are the intact file's, value for value; a launch
    after them (its row cut) has each value intact or missing."""
    assert list(frame["id"][:whole]) == list(intact["id"][:whole]), f"{what}: launches lost"
    columns = frame.columns.drop("source")  # the path read, not a value
    unknown = sorted(set(columns) - set(intact.columns))
    assert not unknown, f"{what}: columns the intact file has not: {unknown}"
    want_frame = intact.iloc[: len(frame)]
    floats = [c for c in columns if frame[c].dtype.kind == "f" and intact[c].dtype.kind == "f"]
    got = frame[floats].to_numpy(dtype=float)
    want = want_frame[floats].to_numpy(dtype=float)
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    bad = [floats[j] for j in np.nonzero(~same[:whole].all(axis=0))[0]]
    assert not bad, f"{what}: values of whole rows changed: {bad[:5]}"
    bad = [floats[j] for j in np.nonzero(~(same | np.isnan(got))[whole:].all(axis=0))[0]]
    assert not bad, f"{what}: values of the cut row neither intact nor missing: {bad[:5]}"
    for column in (c for c in columns if c not in floats):
        got_c, want_c = frame[column], want_frame[column]
        assert _same_cells(got_c[:whole], want_c[:whole], or_missing=False), (
            f"{what}: {column} of a whole row"
        )
        assert _same_cells(got_c[whole:], want_c[whole:], or_missing=True), (
            f"{what}: {column} of the cut row"
        )


@pytest.mark.parametrize("export", _RAW_EXPORTS, ids=_export_id)
def test_raw_page_cut_around_every_row_boundary(
    export: Export, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A raw page cut around each line start (:data:`RAW_CUT_OFFSETS`): exit 0 or 4 (no
    table left), never a traceback; the launches whose rows are whole are all kept, with
    the intact file's values; a cut row is dropped or keeps only values it holds whole;
    never more launches than rows begun.  The reader runs in process; on the synthetic
    page the command line (``inspect``) runs on every cut too and must agree."""
    data = export.data()
    intact_path = tmp_path / export.name
    intact_path.write_bytes(data)
    code, intact, error = _read_cut(intact_path)
    assert code == 0 and intact is not None, error
    starts = [*_line_starts(data), len(data)]
    header = next(i for i, at in enumerate(starts) if data.startswith(b'"ID",', at))
    first_row = header + 2  # under the units row
    assert len(starts) - 1 - first_row == len(intact), "one launch per row under the units row"
    src = tmp_path / "cut" / export.name
    src.parent.mkdir()
    cuts = sorted({at + d for at in starts for d in RAW_CUT_OFFSETS if 0 < at + d < len(data)})
    for at in cuts:
        what = f"{export.name} cut at byte {at}"
        src.write_bytes(data[:at])
        code, frame, error = _read_cut(src)
        assert error is None, f"{what}: internal error\n{error}"
        assert code in (0, 4), f"{what}: exit {code}"
        if export.path is None:
            cli_code, err, cli_error = _invoke(["inspect", str(src)], capsys)
            assert cli_error is None and "Traceback" not in err, f"{what}: {cli_error or err}"
            assert cli_code == code, f"{what}: inspect exits {cli_code}, the reader {code}"
        whole = sum(end <= at for end in starts[first_row + 1 :])
        begun = sum(start < at for start in starts[first_row:-1])
        if whole:
            assert code == 0, f"{what}: {whole} whole rows, exit {code}"
        if frame is not None:
            assert len(frame) <= begun, f"{what}: {len(frame)} launches from {begun} rows"
            _check_rows(frame, intact, whole, what)


@pytest.mark.parametrize("path", _BINARY_SAMPLES, ids=_id)
def test_damaged_ncu_rep(path: Path, tmp_path: Path) -> None:
    """Cut and flipped ``.ncu-rep`` reports, in a subprocess (the reader is native code):
    a documented exit code, no traceback, no more launches than the intact report."""
    pytest.importorskip("ncu_report")
    out = tmp_path / "intact.json"
    proc = run("report", str(path), "--format", "json", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    held = len(json.loads(out.read_text(encoding="utf-8"))["launches"])
    data = path.read_bytes()
    for i in range(3 * SCALE):
        rng = random.Random(f"{SEED}:{path.name}:rep:{i}")
        mutated, how = (cut_anywhere if i % 2 == 0 else flip_bytes)(data, rng)
        src = tmp_path / f"case{i}.ncu-rep"
        src.write_bytes(mutated)
        target = tmp_path / f"case{i}.json"
        proc = run("report", str(src), "--format", "json", "-o", str(target))
        what = f"{path.name}: {how} (seed {SEED})"
        assert proc.returncode in ALLOWED_EXITS, f"{what}: exit {proc.returncode}\n{proc.stderr}"
        assert "Traceback" not in proc.stderr, f"{what}: {proc.stderr}"
        if target.exists():
            launches = json.loads(target.read_text(encoding="utf-8"))["launches"]
            assert len(launches) <= held, what
            assert all(x.get("kernel") for x in launches), f"{what}: a launch without a name"
