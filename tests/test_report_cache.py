"""The report cache (:mod:`ncu_roofline.report.context_cache`): hits, misses, damage, races, bounds.

A report served from the cache must be the report made without it, byte
for byte and stderr line for line, in every format.  Every test has a cache
folder of its own (the autouse fixture in ``tests/conftest.py``); here the
size threshold is lowered so that the small sample files are cached, and
inputs have their modification time set back (a file modified within
:data:`~ncu_roofline.core.user_cache.RACY_NS` is not cached).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ncu_roofline.cli.analyse as cli_analyse
import ncu_roofline.core.user_cache as user_cache
from ncu_roofline.cli import cli, main
from ncu_roofline.report import context_cache
from tests.helpers import REPO, SAMPLES

DETAILS = "wangzy0327__cuda-roofline__src_output.csv"
RULES = (
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__"
    "gqa_bf16_b128_ctx2k_p64.ncu.csv"
)
RAW = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
SUMMARY = "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv"
NSYS_NCU = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
NSYS = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_nsys_per-stage_decode_nsys_summary_cuda_gpu_kern_sum.csv"
NSYS_SAMPLES = SAMPLES.parent / "nsys-samples"

#: A time well before any test ran (2020-01-01), in ns.
OLD_NS = 1_577_836_800 * 10**9

#: The page's generation time: the one thing two runs of one report write differently.
_GENERATED = re.compile(rb"generated \d{4}-\d\d-\d\dT[\d:]+\+00:00")


@pytest.fixture
def folder(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's cache folder, every input cached whatever its size."""
    monkeypatch.setenv(user_cache.MIN_VARIABLE, "0")
    return Path(os.environ[user_cache.DIR_VARIABLE])


def _copy(src: Path, dest: Path, mtime_ns: int = OLD_NS) -> Path:
    if not src.is_file():
        pytest.skip(f"real sample {src.name} not found in {src.parent}")
    shutil.copyfile(src, dest)
    os.utime(dest, ns=(mtime_ns, mtime_ns))
    return dest


def _reports(folder: Path) -> list[Path]:
    """The report cache's files (the parse cache's share the folder and the ending)."""
    return sorted(
        p for p in folder.glob(f"*{user_cache.SUFFIX}") if p.read_bytes()[:8] == context_cache.MAGIC
    )


class Analyses:
    """Counts the analyses :func:`ncu_roofline.cli.analyse.analyse` makes; may forbid them."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.forbidden = False
        real = cli_analyse.analyse

        def counted(*args: Any, **kwargs: Any) -> Any:
            assert not self.forbidden, "analysed although the report was cached"
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(cli_analyse, "analyse", counted)


@pytest.fixture
def analyses(monkeypatch: pytest.MonkeyPatch) -> Analyses:
    return Analyses(monkeypatch)


def _run(args: list[str], out: Path | None = None, fmt: str = "json") -> tuple[bytes, str]:
    """The document a report command writes and its stderr (exit code 0 asserted)."""
    runner = CliRunner()
    command = [*args]
    if out is not None:
        command += ["--format", fmt, "-o", str(out), "--force"]
    result = runner.invoke(cli, command, catch_exceptions=False)
    assert result.exit_code == 0, result.output + result.stderr
    document = out.read_bytes() if out is not None else result.stdout_bytes
    return _GENERATED.sub(b"generated T", document), result.stderr


# -- hits ------------------------------------------------------------------------


@pytest.mark.parametrize("sample", [DETAILS, RULES, RAW, SUMMARY])
def test_a_cached_report_is_the_report_made_without_the_cache(
    sample: str, folder: Path, tmp_path: Path, analyses: Analyses
) -> None:
    path = _copy(SAMPLES / sample, tmp_path / "p.csv")
    formats = ("json", "html", "md", "junit")
    plain = {f: _run(["report", str(path), "--no-cache"], tmp_path / f"o.{f}", f) for f in formats}
    assert _reports(folder) == []
    assert _run(["report", str(path)], tmp_path / "o.json") == plain["json"]
    assert len(_reports(folder)) == 1
    analyses.forbidden = True
    for fmt in formats:
        assert _run(["report", str(path)], tmp_path / f"o.{fmt}", fmt) == plain[fmt]
    analyses.forbidden = False
    assert analyses.count == len(formats) + 1
    text = _run(["summary", str(path)])
    analyses.forbidden = True
    assert _run(["summary", str(path)]) == text


def test_the_launch_table_is_kept_compressed(folder: Path, tmp_path: Path) -> None:
    """The launch table is written LZ4-compressed: a hit reads back the same report
    from a file smaller than the table's uncompressed IPC bytes."""
    import pyarrow as pa
    import pyarrow.ipc

    if not pa.Codec.is_available("lz4_frame"):
        pytest.skip("this pyarrow has no LZ4 codec")
    path = _copy(SAMPLES / RAW, tmp_path / "p.csv")
    made = _run(["report", str(path)], tmp_path / "o.json")
    (file,) = _reports(folder)
    data = file.read_bytes()
    arrow = data.index(b"ARROW1")
    table = pyarrow.ipc.open_file(pa.py_buffer(data[arrow:-8])).read_all()
    plain = pa.BufferOutputStream()
    with pyarrow.ipc.new_file(plain, table.schema) as writer:
        writer.write_table(table)
    assert len(data) - 8 - arrow < 0.9 * plain.getvalue().size
    assert _run(["report", str(path)], tmp_path / "o.json") == made


def test_theory_timeline_gpu_and_projection_are_cached_too(
    folder: Path, tmp_path: Path, analyses: Analyses
) -> None:
    path = _copy(SAMPLES / NSYS_NCU, tmp_path / "p.csv")
    nsys = _copy(NSYS_SAMPLES / NSYS, tmp_path / "t.csv")
    args = [
        "report",
        str(path),
        "--gpu",
        "h100",
        "--model",
        "llama-3-8b",
        "--nsys",
        str(nsys),
        "--project-to",
        "a100",
    ]
    plain = _run([*args, "--no-cache"], tmp_path / "o.json")
    first = _run(args, tmp_path / "o.json")
    analyses.forbidden = True
    again = _run(args, tmp_path / "o.json")
    assert first == plain == again
    # The notes the analysis said (what --gpu h100 resolved to) are said again.
    assert "note:" in again[1]


@pytest.mark.parametrize("command", ["report", "summary"])
def test_the_report_cache_is_read_without_pandas_or_the_readers(
    command: str, folder: Path, tmp_path: Path
) -> None:
    """A hit loads neither pandas nor the input readers (their parsers, metric tables and
    regular expressions): only what reads the cache file and writes the output."""
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.html"
    _run(["report", str(path)], out, "html")
    assert len(_reports(folder)) == 1
    args = [command, str(path)] + (["-o", str(out), "--force"] if command == "report" else [])
    code = (
        "import sys\n"
        "from ncu_roofline.cli import main\n"
        f"sys.argv = ['ncu-roofline', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print(sorted(m for m in ('pandas', 'ncu_roofline.readers') if m in sys.modules))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


# -- misses ----------------------------------------------------------------------


def test_a_changed_input_option_or_file_is_a_miss(
    folder: Path, tmp_path: Path, analyses: Analyses
) -> None:
    path = _copy(SAMPLES / DETAILS, tmp_path / "p.csv")
    roofs = tmp_path / "roofs.toml"
    roofs.write_text('[gpu.mine]\nname = "Mine"\nfp32_tflops = 20\ndram_gbps = 1000\n')
    os.utime(roofs, ns=(OLD_NS, OLD_NS))
    out = tmp_path / "o.json"
    runs = [
        ["report", str(path)],
        ["report", str(path), "--gpu", "a100"],
        ["report", str(path), "--gpu", "h100"],
        ["report", str(path), "--clocks", "datasheet"],
        ["report", str(path), "--excess-threshold", "3"],
        ["report", str(path), "--roofs", str(roofs)],
    ]
    for args in runs:
        _run(args, out)
    assert analyses.count == len(runs)
    assert len(_reports(folder)) == len(runs)
    analyses.forbidden = True
    for args in runs:
        _run(args, out)
    analyses.forbidden = False
    # The roofs file changes: a miss (its entry is written over).
    roofs.write_text('[gpu.mine]\nname = "Mine"\nfp32_tflops = 30\ndram_gbps = 1000\n')
    os.utime(roofs, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    _run(runs[-1], out)
    assert analyses.count == len(runs) + 1
    # The input changes: a miss.
    os.utime(path, ns=(OLD_NS + 10**9, OLD_NS + 10**9))
    _run(runs[0], out)
    assert analyses.count == len(runs) + 2
    assert len(_reports(folder)) == len(runs)


def test_another_tool_version_or_code_is_a_miss(
    folder: Path, tmp_path: Path, analyses: Analyses, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(SAMPLES / DETAILS, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    _run(["report", str(path)], out)
    monkeypatch.setattr(context_cache, "__version__", "0.0.0-other")
    _run(["report", str(path)], out)
    monkeypatch.setattr(context_cache, "code_stamp", lambda: "edited")
    _run(["report", str(path)], out)
    monkeypatch.setattr(context_cache, "FORMAT", context_cache.FORMAT + 1)
    _run(["report", str(path)], out)
    assert analyses.count == 4


def test_the_code_stamp_follows_the_package_files() -> None:
    stamp = user_cache.code_stamp()
    assert re.fullmatch(r"[0-9a-f]{32}", stamp)
    user_cache.code_stamp.cache_clear()
    assert user_cache.code_stamp() == stamp


def test_not_cached_when_off_small_recent_or_stdin(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(SAMPLES / DETAILS, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    _run(["report", str(path), "--no-cache"], out)
    monkeypatch.setenv(user_cache.OFF_VARIABLE, "1")
    _run(["report", str(path)], out)
    monkeypatch.delenv(user_cache.OFF_VARIABLE)
    monkeypatch.setenv(user_cache.MIN_VARIABLE, str(path.stat().st_size + 1))
    _run(["report", str(path)], out)
    monkeypatch.setenv(user_cache.MIN_VARIABLE, "0")
    fresh = shutil.copyfile(path, tmp_path / "fresh.csv")  # modified just now: racy
    _run(["report", str(fresh)], out)
    assert _reports(folder) == []
    runner = CliRunner()
    result = runner.invoke(
        cli, ["report", "-", "--format", "json", "-o", str(out), "--force"], input=path.read_bytes()
    )
    assert result.exit_code == 0, result.stderr
    assert _reports(folder) == []
    assert context_cache.lookup(["-"], [], {}) is None


# -- damage and races ----------------------------------------------------------------


@pytest.mark.parametrize(
    "damage", ["garbage", "truncated", "header", "empty", "flipped", "json bit", "table bit"]
)
def test_a_damaged_cache_file_is_ignored_with_a_note(
    damage: str, folder: Path, tmp_path: Path, analyses: Analyses
) -> None:
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    made = _run(["report", str(path)], out)
    (file,) = _reports(folder)
    data = bytearray(file.read_bytes())
    if damage == "garbage":
        data = bytearray(b"not a cache file at all" * 10)
    elif damage == "truncated":
        data = data[: len(data) - 100]
    elif damage == "header":
        data[20:30] = b"}}}}}}}}}}"
    elif damage == "empty":
        data = bytearray()
    elif damage == "flipped":
        data[-40] ^= 0xFF  # inside the Arrow file's footer
    elif damage == "json bit":
        # One bit of a number in the header's JSON: still JSON, another value.
        at = bytes(data).index(b'"kernels":') + 40
        while not chr(data[at]).isdigit():
            at += 1
        data[at] ^= 0x01
    else:
        data[len(data) * 3 // 4] ^= 0x04  # one bit inside the launch table's values
    file.write_bytes(bytes(data))
    document, stderr = _run(["report", str(path)], out)
    assert document == made[0]
    assert analyses.count == 2
    assert "unreadable report cache file" in stderr
    # Stored again, whole: the next run is a hit.
    analyses.forbidden = True
    assert _run(["report", str(path)], out)[0] == made[0]


def test_concurrent_writers_leave_one_whole_file(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    entries: list[context_cache.ReportEntry] = []
    stores: list[tuple[Any, Any]] = []
    real_lookup = context_cache.lookup

    def lookup(*args: Any, **kwargs: Any) -> context_cache.ReportEntry | None:
        entry = real_lookup(*args, **kwargs)
        assert entry is not None
        entries.append(entry)
        return entry

    def keep(self: context_cache.ReportEntry, context: Any, said: Any) -> Callable[[], bool]:
        stores.append((context, said))
        return lambda: False

    real_store = context_cache.ReportEntry.store_behind
    monkeypatch.setattr(context_cache, "lookup", lookup)
    monkeypatch.setattr(context_cache.ReportEntry, "store_behind", keep)
    made = _run(["report", str(path)], out)
    # Put back one by one: undo() would also undo the test's cache folder.
    monkeypatch.setattr(context_cache, "lookup", real_lookup)
    monkeypatch.setattr(context_cache.ReportEntry, "store_behind", real_store)
    (entry,) = entries
    ((context, said),) = stores
    assert _reports(folder) == []
    barrier = threading.Barrier(4)
    results: list[bool] = []

    def write() -> None:
        barrier.wait()
        results.append(entry.store(context, said))

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [True] * 4
    assert _reports(folder) == [entry.file]
    assert [p.name for p in folder.iterdir() if p.name.startswith(user_cache.TEMP_PREFIX)] == []
    got = entry.load()
    assert got is not None and got[1] == said
    assert _run(["report", str(path)], out)[0] == made[0]


def test_the_folder_stays_within_its_bound(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    _run(["report", str(path)], out)
    (first,) = _reports(folder)
    size = first.stat().st_size
    # Room for about one report file: the older one goes when another is written.
    monkeypatch.setenv(user_cache.LIMIT_VARIABLE, "0")
    monkeypatch.setattr(context_cache, "limit_bytes", lambda: size + size // 2)
    os.utime(first, ns=(OLD_NS, OLD_NS))  # least recently used
    _run(["report", str(path), "--gpu", "a100"], out)
    assert not first.exists()
    assert len(_reports(folder)) == 1
    assert sum(p.stat().st_size for p in folder.glob(f"*{user_cache.SUFFIX}")) <= size + size // 2


def test_every_hit_says_the_gates_warning_of_its_own_gates(folder: Path, tmp_path: Path) -> None:
    """The analysis' lines are replayed in order; the gates warning is each run's own."""
    path = _copy(SAMPLES / DETAILS, tmp_path / "p.csv")
    args = ["report", str(path), "--gpu", "a100"]
    gated = [*args, "--fail-on", "excess-traffic"]
    plain = _run([*gated, "--no-cache"], tmp_path / "o.json")
    first = _run(gated, tmp_path / "o.json")
    again = _run(gated, tmp_path / "o.json")
    assert first == again == plain
    lines = plain[1].splitlines()
    alias = next(i for i, line in enumerate(lines) if "a100" in line and "note:" in line)
    gate = next(i for i, line in enumerate(lines) if "excess-traffic" in line)
    assert alias < gate  # the order the analysis says them in
    # The same cached entry, other gates: no gates warning now.
    ungated = _run(args, tmp_path / "o.json")
    assert "excess-traffic" not in ungated[1]
    assert ungated[1] == _run([*args, "--no-cache"], tmp_path / "o.json")[1]


def test_an_invalid_jobs_variable_is_refused_cached_or_not(
    folder: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = _copy(SAMPLES / DETAILS, tmp_path / "p.csv")
    _run(["report", str(path)], tmp_path / "o.json")
    assert len(_reports(folder)) == 1
    monkeypatch.setenv("NCU_ROOFLINE_JOBS", "0")
    with pytest.raises(SystemExit) as exited:
        main(["report", str(path), "--format", "json", "-o", str(tmp_path / "o.json"), "--force"])
    assert exited.value.code == 2
    assert "NCU_ROOFLINE_JOBS" in capsys.readouterr().err


def test_programs_that_read_binary_inputs_are_in_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An .nsys-rep input rests on the nsys found on the PATH; none found, nothing cached."""
    capture = tmp_path / "run.nsys-rep"
    capture.write_bytes(b"not read here")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert cli_analyse._tool_files([], [str(capture)]) is None
    tools = tmp_path / "bin"
    tools.mkdir()
    nsys = tools / "nsys"
    nsys.write_text("#!/bin/sh\nexit 1\n")
    nsys.chmod(0o755)
    monkeypatch.setenv("PATH", str(tools))
    assert cli_analyse._tool_files([], [str(capture)]) == [os.path.realpath(nsys)]
    assert cli_analyse._tool_files([], [str(tmp_path / "t.csv")]) == []
    # A binary ncu report rests on the ncu_report module.
    report = tmp_path / "r.ncu-rep"
    report.write_bytes(b"NVR\x00" + b"\0" * 16)
    real = importlib.util.find_spec

    def without_ncu_report(name: str, package: str | None = None) -> Any:
        return None if name == "ncu_report" else real(name, package)

    monkeypatch.setattr(importlib.util, "find_spec", without_ncu_report)
    assert cli_analyse._tool_files([str(report)], []) is None
    assert cli_analyse._tool_files([str(tmp_path / "t.csv")], []) == []


def test_a_cache_file_is_written_behind_the_caller(tmp_path: Path) -> None:
    """write_behind returns before the write ends; finishing waits for it, then ``then``."""
    file = tmp_path / f"x{user_cache.SUFFIX}"
    started, go = threading.Event(), threading.Event()
    order: list[str] = []

    def write(fh: Any) -> None:
        started.set()
        assert go.wait(60)  # held until the caller has gone on
        fh.write(b"kept")
        order.append("written")

    finish = user_cache.write_behind(file, write, lambda: order.append("then"))
    assert started.wait(60)
    assert not file.exists()  # still being written: the caller went on
    order.append("caller")
    go.set()
    assert finish() is True
    assert file.read_bytes() == b"kept"
    assert order == ["caller", "written", "then"]


def test_a_cache_file_that_fails_behind_is_not_kept(tmp_path: Path) -> None:
    file = tmp_path / f"x{user_cache.SUFFIX}"
    then: list[int] = []

    def write(fh: Any) -> None:
        fh.write(b"part")
        raise OSError("disk full")

    assert user_cache.write_behind(file, write, lambda: then.append(1))() is False
    assert list(tmp_path.iterdir()) == []  # neither the file nor its temporary one
    assert then == []


def test_a_cache_file_is_written_at_once_when_no_thread_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    file = tmp_path / f"x{user_cache.SUFFIX}"
    finish = user_cache.write_behind(file, lambda fh: fh.write(b"kept"), lambda: None)
    assert file.read_bytes() == b"kept"  # before finishing: nothing was left to wait for
    assert finish() is True


def test_a_report_command_ends_after_its_cache_file_is_written(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command waits for the write it left behind, which outlasts its output."""
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    real = user_cache.write_atomic
    held_until_output: list[bool] = []

    def held(file: Path, write: Any) -> bool:
        # Written only once the report is: a command that did not wait
        # would return with no cache file yet.
        tick = threading.Event()
        for _ in range(6000):
            if out.exists():
                break
            tick.wait(0.01)
        held_until_output.append(out.exists())
        return real(file, write)

    monkeypatch.setattr(user_cache, "write_atomic", held)
    _run(["report", str(path)], out)
    assert held_until_output == [True]
    assert len(_reports(folder)) == 1


class _HeaderOnly(io.BytesIO):
    """A cache file whose bytes past its header must not be read."""

    def __init__(self, data: bytes, header_end: int) -> None:
        super().__init__(data)
        self.header_end = header_end

    def read(self, size: int | None = -1) -> bytes:
        end = self.tell() + (size if size is not None and size >= 0 else 1 << 62)
        assert end <= self.header_end, "read past the header"
        return super().read(size)


def test_a_stored_key_is_read_from_the_header_alone() -> None:
    header = json.dumps({"key": {"size": 7}, "more": [1, 2]}).encode()
    start = b"".join(user_cache.header_bytes(context_cache.MAGIC, header))
    data = start + b"\xff" * 1000  # a body never to be read
    fh = _HeaderOnly(data, 16 + len(header))
    assert user_cache.stored_key(fh, context_cache.MAGIC, json.loads) == {"size": 7}
    # Not a whole header: the file is for the whole read to judge.
    for bad in (b"", start[:12], b"XXXXXXXX" + start[8:], start[: 16 + len(header) - 1]):
        got = user_cache.stored_key(io.BytesIO(bad), context_cache.MAGIC, json.loads)
        assert got is user_cache.UNREADABLE
    broken = start[:16] + b"{" + header[1:-1] + b"!"
    assert user_cache.stored_key(io.BytesIO(broken), context_cache.MAGIC) is user_cache.UNREADABLE
    # A length past any file, and a header nested past the decoder's depth.
    huge = start[:8] + (2**63).to_bytes(8, "little") + start[16:]
    assert user_cache.stored_key(io.BytesIO(huge), context_cache.MAGIC) is user_cache.UNREADABLE
    deep = b"[" * 100_000 + b"]" * 100_000
    nested = b"".join(user_cache.header_bytes(context_cache.MAGIC, deep))
    assert user_cache.stored_key(io.BytesIO(nested), context_cache.MAGIC) is user_cache.UNREADABLE


def test_a_stale_entry_is_a_quiet_miss_whatever_follows_its_header(
    folder: Path, tmp_path: Path, analyses: Analyses
) -> None:
    """An export profiled again under its name: its old entry is told stale by its key,
    the rest of it never read (here: cut short after the header, which a whole read
    would call damaged)."""
    path = _copy(SAMPLES / RULES, tmp_path / "p.csv")
    out = tmp_path / "o.json"
    first = _run(["report", str(path)], out)
    (file,) = _reports(folder)
    data = file.read_bytes()
    size = int.from_bytes(data[8:16], "little")
    file.write_bytes(data[: 16 + size])
    os.utime(path, ns=(OLD_NS + 10**9, OLD_NS + 10**9))  # the input "changed"
    again = _run(["report", str(path)], out)
    assert again[0] == first[0]
    assert "unreadable" not in again[1]
    assert analyses.count == 2


def test_no_writer_thread_under_an_address_space_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under ``ulimit -v`` a thread's start can abort the process: the cache file and a
    report's pieces are written by the caller instead."""
    from ncu_roofline.render import output

    def no_thread(self: threading.Thread) -> None:
        raise AssertionError("a thread was started")

    monkeypatch.setattr(threading.Thread, "start", no_thread)
    monkeypatch.setattr(user_cache, "address_space_limited", lambda: True)
    monkeypatch.setattr(output, "address_space_limited", lambda: True)
    file = tmp_path / f"x{user_cache.SUFFIX}"
    then: list[int] = []
    finish = user_cache.write_behind(file, lambda fh: fh.write(b"kept"), lambda: then.append(1))
    assert file.read_bytes() == b"kept"
    assert then == [1]
    assert finish() is True
    sink = io.BytesIO()
    output._write_behind(sink, iter([b"a", b"b", b"c"]))
    assert sink.getvalue() == b"abc"


def test_the_report_cache_is_written_and_read_under_an_address_space_limit(
    folder: Path, tmp_path: Path
) -> None:
    """Under ``ulimit -v`` a thread that cannot start aborts the process: the cache's
    compressed launch table is written and read on the calling thread, never on Arrow's
    pool (32 threads asked for, as on a large host), and a report runs as without a limit."""
    import resource

    path = _copy(SAMPLES / RAW, tmp_path / "p.csv")
    plain = _run(["report", str(path), "--no-cache"], tmp_path / "plain.json")[0]
    limit = 800 << 20

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": "32"}
    for run in ("written", "read"):
        out = tmp_path / f"{run}.json"
        done = subprocess.run(
            [sys.executable, "-m", "ncu_roofline", "report", str(path), "-o", str(out)],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
            preexec_fn=limited,
        )
        assert done.returncode == 0, (run, done.returncode, done.stderr)
        assert "unreadable" not in done.stderr
        assert out.read_bytes() == plain
        assert len(_reports(folder)) == 1, run
