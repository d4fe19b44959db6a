"""The parse cache (:mod:`ncu_roofline.readers.cache`): hits, misses, damage, races, bounds.

Every test has a cache folder of its own (the autouse fixture in
``tests/conftest.py``); here the size threshold is lowered so that the small
sample files are cached.  An input is only cached once its modification time
is :data:`~ncu_roofline.readers.cache.RACY_NS` old, so inputs written by a
test have their time set back.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import ncu_roofline.core.user_cache as user_cache
import ncu_roofline.readers as readers
from ncu_roofline.cli import cli
from ncu_roofline.readers import cache as parse_cache
from tests.helpers import REPO, SAMPLES

#: Real samples of each layout: details, details with rules, raw, summary.
CACHED_SAMPLES = [
    "wangzy0327__cuda-roofline__src_output.csv",
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv",
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv",
    "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv",
]

#: A time well before any test ran (2020-01-01), in ns.
OLD_NS = 1_577_836_800 * 10**9


@pytest.fixture
def cache_dir(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's cache folder, with every input cached whatever its size."""
    monkeypatch.setenv(parse_cache.MIN_VARIABLE, "0")
    return Path(os.environ[parse_cache.DIR_VARIABLE])


def _sample(name: str) -> Path:
    path = SAMPLES / name
    if not path.is_file():
        pytest.skip(f"real ncu sample {name} not found in {SAMPLES}")
    return path


def _copy(name: str, dest: Path, mtime_ns: int = OLD_NS) -> Path:
    """A sample copied to ``dest`` with its modification time set back."""
    shutil.copyfile(_sample(name), dest)
    os.utime(dest, ns=(mtime_ns, mtime_ns))
    return dest


def _cached(folder: Path) -> list[Path]:
    """The parse cache's files (the report cache's share the folder and the ending)."""
    return sorted(
        p
        for p in folder.glob(f"*{parse_cache.SUFFIX}")
        if p.read_bytes()[: len(parse_cache.MAGIC)] == parse_cache.MAGIC
    )


class Parses:
    """Counts the parses of :func:`ncu_roofline.readers._parse_columns`; may forbid them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.forbidden = False
        real = readers._parse_columns

        def counted(*args: object) -> object:
            if self.forbidden:
                raise AssertionError("parsed although cached")
            self.count += 1
            return real(*args)  # type: ignore[arg-type]

        monkeypatch.setattr(readers, "_parse_columns", counted)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Parses:
    return Parses(monkeypatch)


def _same(a: readers.LaunchColumns, b: readers.LaunchColumns) -> None:
    fa, fb = a.to_frame(), b.to_frame()
    assert list(fa.columns) == list(fb.columns)
    assert list(fa.dtypes) == list(fb.dtypes)
    assert fa.equals(fb)


def _info_same(a: readers.SourceInfo, b: readers.SourceInfo) -> None:
    assert a.to_dict() == b.to_dict()
    assert a.metric_units == b.metric_units
    assert repr(a.rules) == repr(b.rules)


# -- hits and misses ---------------------------------------------------------------


def test_second_read_is_a_hit_without_parsing(
    cache_dir: Path, parses: Parses, tmp_path: Path
) -> None:
    path = _copy(CACHED_SAMPLES[1], tmp_path / "rules.csv")
    cold, cold_info = readers._read_columns(str(path), progress=False)
    assert parses.count == 1
    assert len(_cached(cache_dir)) == 1
    parses.forbidden = True
    warm, warm_info = readers._read_columns(str(path), progress=False)
    _same(cold, warm)
    _info_same(cold_info, warm_info)
    assert len(warm_info.rules) > 0
    # The library entry point too, and the frame reader.
    profile = readers.load(str(path))
    assert len(profile.launches) == len(cold)
    frame, _ = readers.read_source(str(path))
    assert frame.equals(cold.to_frame())


def test_every_sample_reads_back_the_same(cache_dir: Path, parses: Parses) -> None:
    names = [p.name for p in sorted(SAMPLES.glob("*.*")) if p.suffix in (".csv", ".out", ".txt")]
    if not names:
        pytest.skip(f"real ncu samples not found in {SAMPLES}")
    for name in names:
        path = str(SAMPLES / name)
        parses.forbidden = False
        cold, cold_info = readers._read_columns(path, progress=False)
        parses.forbidden = True
        warm, warm_info = readers._read_columns(path, progress=False)
        _same(cold, warm)
        _info_same(cold_info, warm_info)
        assert warm_info.warnings == cold_info.warnings


def test_an_input_of_several_tables_keeps_its_parts(
    cache_dir: Path, parses: Parses, tmp_path: Path
) -> None:
    a = _sample("wangzy0327__cuda-roofline__src_output.csv").read_bytes()
    b = _sample("wangzy0327__cuda-roofline__src_output_A100.csv").read_bytes()
    path = tmp_path / "two.csv"
    path.write_bytes(a + b)
    os.utime(path, ns=(OLD_NS, OLD_NS))
    cold, cold_info = readers._read_columns(str(path), progress=False)
    assert len(cold.parts()) == 2
    parses.forbidden = True
    warm, warm_info = readers._read_columns(str(path), progress=False)
    assert [p.n for p in warm.parts()] == [p.n for p in cold.parts()]
    _same(cold, warm)
    _info_same(cold_info, warm_info)


def test_gzip_inputs_are_cached_by_the_gz_file(
    cache_dir: Path, parses: Parses, tmp_path: Path
) -> None:
    path = tmp_path / "p.csv.gz"
    path.write_bytes(gzip.compress(_sample(CACHED_SAMPLES[0]).read_bytes()))
    os.utime(path, ns=(OLD_NS, OLD_NS))
    cold, _ = readers._read_columns(str(path), progress=False)
    parses.forbidden = True
    warm, _ = readers._read_columns(str(path), progress=False)
    _same(cold, warm)


@pytest.mark.parametrize("change", ["size", "mtime", "path", "version", "format", "replaced"])
def test_any_change_of_the_key_is_a_miss(
    change: str,
    cache_dir: Path,
    parses: Parses,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    readers._read_columns(str(path), progress=False)
    readers._read_columns(str(path), progress=False)
    assert parses.count == 1
    if change == "size":
        with open(path, "ab") as fh:
            fh.write(b"\n")
        os.utime(path, ns=(OLD_NS, OLD_NS))
    elif change == "mtime":
        os.utime(path, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    elif change == "path":
        path = _copy(CACHED_SAMPLES[0], tmp_path / "q.csv")
    elif change == "version":
        monkeypatch.setattr(parse_cache, "__version__", "0.0.0-other")
    elif change == "format":
        monkeypatch.setattr(parse_cache, "FORMAT", parse_cache.FORMAT + 1)
    elif change == "replaced":
        # Another file put in its place with the same size and time (cp -p).
        other = _copy(CACHED_SAMPLES[0], tmp_path / "other.csv")
        os.replace(other, path)
    readers._read_columns(str(path), progress=False)
    assert parses.count == 2


def test_a_cache_file_holding_another_key_is_not_used(
    cache_dir: Path, parses: Parses, tmp_path: Path
) -> None:
    a = _copy(CACHED_SAMPLES[0], tmp_path / "a.csv")
    b = _copy(CACHED_SAMPLES[3], tmp_path / "b.csv")
    readers._read_columns(str(a), progress=False)
    entry_a, entry_b = parse_cache.lookup(str(a)), parse_cache.lookup(str(b))
    assert entry_a is not None and entry_b is not None
    # a's cache file under b's name: found by name, refused by its key.
    shutil.copyfile(entry_a.file, entry_b.file)
    columns, info = readers._read_columns(str(b), progress=False)
    assert parses.count == 2
    assert info.path == str(b)
    assert len(columns) == len(readers._parse_columns(str(b), False, None)[0])


def test_a_freshly_written_input_is_not_cached(cache_dir: Path, tmp_path: Path) -> None:
    # Its time stamp may not change on a rewrite of the same size within one tick.
    path = tmp_path / "new.csv"
    shutil.copyfile(_sample(CACHED_SAMPLES[0]), path)
    readers._read_columns(str(path), progress=False)
    assert _cached(cache_dir) == []


def test_small_inputs_and_stdin_are_not_cached(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    folder = Path(os.environ[parse_cache.DIR_VARIABLE])
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    assert path.stat().st_size < parse_cache.MIN_BYTES
    readers._read_columns(str(path), progress=False)
    assert _cached(folder) == []
    monkeypatch.setattr(user_cache, "MIN_BYTES", 0)
    assert parse_cache.lookup("-") is None
    readers._read_columns(str(path), progress=False)
    assert len(_cached(folder)) == 1


# -- damage ------------------------------------------------------------------------


@pytest.mark.parametrize("damage", ["garbage", "truncated", "header", "empty", "flipped"])
def test_a_damaged_cache_file_is_ignored_with_a_note(
    damage: str,
    cache_dir: Path,
    parses: Parses,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _copy(CACHED_SAMPLES[1], tmp_path / "p.csv")
    cold, cold_info = readers._read_columns(str(path), progress=False)
    (file,) = _cached(cache_dir)
    data = file.read_bytes()
    if damage == "garbage":
        file.write_bytes(b"not a cache file at all" * 10)
    elif damage == "truncated":
        file.write_bytes(data[: len(data) // 2])
    elif damage == "header":
        file.write_bytes(data[:16] + b"x" + data[17:])
    elif damage == "empty":
        file.write_bytes(b"")
    else:
        # The same length, the Arrow part spoilt.
        body = bytearray(data)
        body[-200:] = b"\xff" * 200
        file.write_bytes(bytes(body))
    capsys.readouterr()
    warm, warm_info = readers._read_columns(str(path), progress=False)
    assert parses.count == 2
    _same(cold, warm)
    _info_same(cold_info, warm_info)
    err = capsys.readouterr().err
    assert "ignoring the unreadable parse cache file" in err
    assert str(file) in err
    # Written again whole: the next read is a hit.
    parses.forbidden = True
    again, _ = readers._read_columns(str(path), progress=False)
    _same(cold, again)


def test_an_unwritable_cache_folder_turns_the_cache_off(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    monkeypatch.setenv(parse_cache.DIR_VARIABLE, str(blocker / "cache"))
    monkeypatch.setenv(parse_cache.MIN_VARIABLE, "0")
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    columns, _ = readers._read_columns(str(path), progress=False)
    assert len(columns) > 0
    assert parse_cache.lookup(str(path)) is None


# -- writers at once ---------------------------------------------------------------


@pytest.mark.parametrize("error", [MemoryError, OSError])
def test_a_write_failing_midway_leaves_no_file_and_never_raises(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: type
) -> None:
    # The Arrow files are written straight into the cache file: whatever
    # their writer raises part way (ArrowMemoryError is a MemoryError) is a
    # file not cached, never a failed read, and no temporary file is left.
    path = _copy(CACHED_SAMPLES[1], tmp_path / "rules.csv")

    def failing(self: object, fh: object) -> None:
        fh.write(b"partial")  # type: ignore[attr-defined]
        raise error("failed part way")

    monkeypatch.setattr(parse_cache._Leaf, "write_to", failing)
    cold, _ = readers._read_columns(str(path), progress=False)
    assert len(cold) > 0
    assert list(cache_dir.iterdir()) == []


def test_threads_writing_the_same_key_at_once(cache_dir: Path, tmp_path: Path) -> None:
    path = _copy(CACHED_SAMPLES[1], tmp_path / "p.csv")
    columns, info = readers._parse_columns(str(path), False, None)
    entry = parse_cache.lookup(str(path))
    assert entry is not None
    writers = 4
    start = threading.Barrier(writers)
    results: list[bool] = []

    def write() -> None:
        start.wait()
        for _ in range(5):
            results.append(entry.store(columns, info))

    threads = [threading.Thread(target=write) for _ in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * writers * 5
    assert [p.name for p in cache_dir.iterdir()] == [entry.file.name]
    hit = entry.load()
    assert hit is not None
    _same(columns, hit[0])
    _info_same(info, hit[1])


def test_processes_writing_the_same_key_at_once(cache_dir: Path, tmp_path: Path) -> None:
    path = _copy(CACHED_SAMPLES[1], tmp_path / "p.csv")
    command = [sys.executable, "-m", "ncu_roofline", "inspect", "--json", str(path)]
    procs = [
        subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0]
    assert len({out for out, _ in outs}) == 1
    assert all(b"parse cache" not in err for _, err in outs)
    assert [p.name for p in cache_dir.iterdir()] == [_cached(cache_dir)[0].name]
    entry = parse_cache.lookup(str(path))
    assert entry is not None and entry.load() is not None


# -- the bound ---------------------------------------------------------------------


def test_the_oldest_files_go_first(cache_dir: Path, tmp_path: Path) -> None:
    paths = [_copy(name, tmp_path / f"{i}.csv") for i, name in enumerate(CACHED_SAMPLES)]
    entries = []
    for i, path in enumerate(paths):
        readers._read_columns(str(path), progress=False)
        entry = parse_cache.lookup(str(path))
        assert entry is not None and entry.file.is_file()
        # Last used in the order read, one minute apart.
        os.utime(entry.file, ns=(OLD_NS + i * 60 * 10**9,) * 2)
        entries.append(entry)
    sizes = [e.file.stat().st_size for e in entries]
    # A hit on the oldest makes it the newest.
    assert entries[0].load() is not None
    parse_cache.trim(cache_dir, sum(sizes) - 1)
    assert [e.file.exists() for e in entries] == [True, False, True, True]
    parse_cache.trim(cache_dir, sizes[0] + sizes[3])
    assert [e.file.exists() for e in entries] == [True, False, False, True]
    parse_cache.trim(cache_dir, 0)
    assert _cached(cache_dir) == []


def test_each_write_keeps_the_folder_within_its_bound(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = _copy(CACHED_SAMPLES[0], tmp_path / "a.csv")
    b = _copy(CACHED_SAMPLES[3], tmp_path / "b.csv")
    readers._read_columns(str(a), progress=False)
    (first,) = _cached(cache_dir)
    os.utime(first, ns=(OLD_NS, OLD_NS))
    # Room for one file: the write of b removes a's.
    monkeypatch.setattr(parse_cache, "limit_bytes", lambda: first.stat().st_size + 1)
    readers._read_columns(str(b), progress=False)
    (left,) = _cached(cache_dir)
    entry = parse_cache.lookup(str(b))
    assert entry is not None and left == entry.file


def test_the_bound_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert parse_cache.limit_bytes() == parse_cache.DEFAULT_LIMIT_MB << 20
    monkeypatch.setenv(parse_cache.LIMIT_VARIABLE, "5")
    assert parse_cache.limit_bytes() == 5 << 20


def test_the_cache_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(parse_cache.DIR_VARIABLE, str(tmp_path / "own"))
    assert parse_cache.cache_dir() == tmp_path / "own"
    monkeypatch.delenv(parse_cache.DIR_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert parse_cache.cache_dir() == tmp_path / "xdg" / "ncu-roofline"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert parse_cache.cache_dir() == tmp_path / "home" / ".cache" / "ncu-roofline"


# -- turning it off ----------------------------------------------------------------


def test_load_with_cache_false(cache_dir: Path, tmp_path: Path) -> None:
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    readers.load(str(path), cache=False)
    assert _cached(cache_dir) == []
    readers.load(str(path))
    assert len(_cached(cache_dir)) == 1


@pytest.mark.parametrize(
    "command", [["inspect"], ["summary"], ["report", "--format", "json", "-o", "-"]]
)
def test_no_cache_flag_and_variable(
    command: list[str], cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    runner = CliRunner()
    result = runner.invoke(cli, [*command, "--no-cache", str(path)])
    assert result.exit_code == 0, result.output
    assert _cached(cache_dir) == []
    monkeypatch.setenv(parse_cache.OFF_VARIABLE, "1")
    result = runner.invoke(cli, [*command, str(path)])
    assert result.exit_code == 0, result.output
    assert _cached(cache_dir) == []
    monkeypatch.setenv(parse_cache.OFF_VARIABLE, "0")
    result = runner.invoke(cli, [*command, str(path)])
    assert result.exit_code == 0, result.output
    assert len(_cached(cache_dir)) == 1


@pytest.mark.parametrize("command", ["compare", "export"])
def test_every_command_that_reads_exports_has_no_cache(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert "--no-cache" in result.output


# -- the same outputs ------------------------------------------------------------


@pytest.mark.parametrize("name", CACHED_SAMPLES)
def test_reports_are_byte_identical_cold_and_warm(
    name: str,
    cache_dir: Path,
    parses: Parses,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ncu_roofline.render.page as page

    # The page's one clock reading, held still.
    monkeypatch.setattr(page, "generated_at_text", lambda at=None: "2026-01-01T00:00:00+00:00")
    path = _copy(name, tmp_path / Path(name).name)
    runner = CliRunner()
    outputs: dict[str, list[bytes]] = {}
    for run in ("no-cache", "cold", "warm"):
        parses.forbidden = run == "warm"
        for fmt in ("json", "md", "html"):
            out = tmp_path / f"{run}.{fmt}"
            args = ["report", "--format", fmt, "-o", str(out), str(path)]
            if run == "no-cache":
                args.insert(1, "--no-cache")
            result = runner.invoke(cli, args)
            assert result.exit_code == 0, result.output
            assert "parse cache" not in result.output
            outputs.setdefault(fmt, []).append(out.read_bytes())
        if run == "no-cache":
            assert _cached(cache_dir) == []
        else:
            assert len(_cached(cache_dir)) == 1
    # Three parses without the cache, one for the three reports with it.
    assert parses.count == 4
    for fmt, (no_cache, cold, warm) in outputs.items():
        assert no_cache == cold == warm, fmt
    inspected = []
    for flag in (["--no-cache"], []):
        parses.forbidden = not flag
        result = runner.invoke(cli, ["inspect", "--json", *flag, str(path)])
        assert result.exit_code == 0, result.output
        inspected.append(result.output)
    assert inspected[0] == inspected[1]


def test_columns_read_back_are_writable(cache_dir: Path, tmp_path: Path) -> None:
    path = _copy(CACHED_SAMPLES[2], tmp_path / "p.csv")
    readers._read_columns(str(path), progress=False)
    warm, _ = readers._read_columns(str(path), progress=False)
    for values in warm.metrics.values():
        assert values.flags.writeable
    values, missing = warm.integer("id")
    assert values.flags.writeable and missing.dtype == np.bool_


def _entry(tmp_path: Path) -> parse_cache.Entry:
    path = _copy(CACHED_SAMPLES[0], tmp_path / "p.csv")
    entry = parse_cache.lookup(str(path))
    assert entry is not None
    return entry


def test_odd_columns_read_back_as_they_were(cache_dir: Path, tmp_path: Path) -> None:
    from ncu_roofline.core.launches import Coded, LaunchColumns
    from ncu_roofline.core.model import SourceInfo
    from ncu_roofline.core.rules import RuleTable

    n = 4
    texts = {
        "kernel": Coded(np.array([0, 1, -1, 1]), ["k", ""]),
        # A value none of the codes point to, one that is None, duplicates, non-ASCII.
        "cc": Coded(np.array([2, 2, -1, 3]), [None, "unused", "8.6", "ü—名"]),
        "nvtx": Coded(np.array([0, 1, 0, 1]), ["a", "a"]),
    }
    ints = {
        "id": (np.array([1, 2, 3, 99]), np.array([False, False, False, True])),
    }
    metrics = {
        "a.sum": np.array([1.5, np.nan, -0.0, np.inf]),
        "text": np.array(["x", None, "", "ÿ"], dtype=object),
        "count": np.array([1, 2, 3, 4], dtype=np.int32),
        "flag": np.array([True, False, True, False]),
    }
    columns = LaunchColumns(n, texts, ints, {"duration_s": np.arange(n, dtype=float)}, metrics)
    rules = RuleTable()
    rules.add(1, 2, "Rule", "OPT", None, "msg", "global", 12.5)
    rules.add(-1, 3, None, None, "sec", "msg", None, float("nan"))
    info = SourceInfo(
        path="p.csv", layout="raw", warnings=["w"], metric_units={"a.sum": "byte"}, rules=rules
    )
    entry = _entry(tmp_path)
    assert entry.store(columns, info)
    hit = entry.load()
    assert hit is not None
    back, back_info = hit
    assert back.n == n
    for name, coded in texts.items():
        assert back._texts[name].codes.tolist() == coded.codes.tolist()
        assert back._texts[name].values == coded.values
    assert back._ints["id"][0].tolist() == [1, 2, 3, 99]
    assert back._ints["id"][1].tolist() == [False, False, False, True]
    assert list(back.metrics) == list(metrics)
    for name, values in metrics.items():
        assert back.metrics[name].dtype == values.dtype
        if values.dtype == object:
            assert back.metrics[name].tolist() == values.tolist()
        else:
            np.testing.assert_array_equal(back.metrics[name], values)
    assert np.signbit(back.metrics["a.sum"][2])
    assert back_info.rules.name == ["Rule", None]
    assert back_info.rules.section == [None, "sec"]
    assert back_info.rules.process_id == [1, -1]
    assert back_info.rules.speedup_pct[0] == 12.5
    assert np.isnan(back_info.rules.speedup_pct[1])
    assert back_info.warnings == ["w"] and back_info.metric_units == {"a.sum": "byte"}


def test_what_the_cache_cannot_hold_is_not_cached(cache_dir: Path, tmp_path: Path) -> None:
    from ncu_roofline.core.launches import Coded, LaunchColumns
    from ncu_roofline.core.model import SourceInfo

    mixed = np.array(["x", 1.5], dtype=object)
    columns = LaunchColumns(2, {"kernel": Coded(np.array([0, 0]), ["k"])}, {}, {}, {"m": mixed})
    entry = _entry(tmp_path)
    assert not entry.store(columns, SourceInfo(path="p.csv", layout="raw"))
    ok = LaunchColumns(2, {"kernel": Coded(np.array([0, 0]), ["k"])}, {}, {}, {})
    odd_info = SourceInfo(path="p.csv", layout="raw", passes=[{"path": ("a", "b")}])
    assert not entry.store(ok, odd_info)
    assert _cached(cache_dir) == []


def test_a_cached_read_imports_no_pandas(cache_dir: Path, tmp_path: Path) -> None:
    path = _copy(CACHED_SAMPLES[2], tmp_path / "p.csv")
    script = (
        "import sys\n"
        "from ncu_roofline.readers import _read_columns\n"
        f"_read_columns({str(path)!r})\n"
        f"columns, info = _read_columns({str(path)!r})\n"
        "assert len(columns) > 0\n"
        "print('pandas' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, check=True
    )
    assert proc.stdout.strip() == "False"
    assert len(_cached(cache_dir)) == 1
