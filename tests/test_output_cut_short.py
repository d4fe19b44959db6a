"""Writes cut short: a temporary file left by a killed run, a document cut on standard output.

A run killed outright (SIGKILL) while writing a file leaves its hidden
temporary file; the next write of the same target removes it once the
process that made it is gone, and never touches one of a live process, of
another host, of another target, or one changed within the last minute.
A document that fails part-way on standard output cannot be taken back:
the error says how many bytes went out, so a consumer knows it is cut.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ncu_roofline.errors import OutputError
from ncu_roofline.render import output
from ncu_roofline.render.output import STALE_TEMP_AGE_S, write_atomic, write_output
from tests.helpers import CLI_TIMEOUT, REPO, SAMPLE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX processes and signals")


def _dead_pid() -> int:
    """The id of a process that has ended and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", ""])
    proc.wait(timeout=CLI_TIMEOUT)
    return proc.pid


def _temp(
    folder: Path, target: str, pid: int, host: str | None = None, tag: str = "0a1b2c3d"
) -> Path:
    path = folder / f".{target}.{host or output._host_tag()}-{pid}.{tag}.tmp"
    path.write_bytes(b"half a report")
    return path


def _age(path: Path, seconds: float = 10 * STALE_TEMP_AGE_S) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then), follow_symlinks=False)


def test_a_killed_writers_temporary_file_goes_with_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    # A run that dies by SIGKILL after its first piece, in its temporary file.
    script = (
        "import os, signal, sys\n"
        "from ncu_roofline.render.output import write_atomic\n"
        "def pieces():\n"
        "    yield 'the first half\\n'\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "    yield 'never'\n"
        "write_atomic(sys.argv[1], pieces())\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(target)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.wait(timeout=CLI_TIMEOUT) == -signal.SIGKILL
    (left,) = tmp_path.iterdir()
    assert left.name.startswith(".report.md.") and left.name.endswith(".tmp")
    assert f"-{proc.pid}." in left.name
    # Changed just now: left alone, in case its process id lives on elsewhere.
    write_atomic(tmp_path / "other.md", "x\n")
    write_atomic(target, "first\n")
    assert left.exists()
    _age(left)
    write_atomic(target, "second\n", force=True)
    assert not left.exists()
    assert target.read_text() == "second\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.md", "report.md"]


def test_only_stale_temporary_files_of_this_target_are_removed(tmp_path: Path) -> None:
    dead = _dead_pid()
    stale = _temp(tmp_path, "report.md", dead)
    kept = [
        _temp(tmp_path, "report.md", os.getpid(), tag="11111111"),  # a live process: this one
        _temp(
            tmp_path,
            "report.md",
            dead,
            host="ffffffff" if output._host_tag() != "ffffffff" else "00000000",
        ),
        _temp(tmp_path, "other.md", dead),  # another target
        _temp(tmp_path, "report.md.x", dead),  # another target, sharing the prefix
        tmp_path / ".report.md.0a1b2c3d.tmp",  # an older version's name, without a process id
    ]
    kept[-1].write_bytes(b"old")
    link = tmp_path / f".report.md.{output._host_tag()}-{dead}.22222222.tmp"
    link.symlink_to(stale)  # not a regular file
    fresh = _temp(tmp_path, "report.md", dead, tag="33333333")
    for path in (stale, *kept, link):
        _age(path)
    write_atomic(tmp_path / "report.md", "new\n")
    assert not stale.exists()
    for path in (*kept, fresh):
        assert path.exists(), path.name
    assert link.is_symlink()
    assert (tmp_path / "report.md").read_text() == "new\n"


def test_a_write_cut_by_a_full_file_says_how_much_went_out(tmp_path: Path) -> None:
    """``-o -`` into a file that may not grow past 4096 bytes (ulimit -f): exit 5, and the
    error gives the byte count, which is what the file holds."""
    import resource

    limit = 4096
    sink = tmp_path / "stdout.json"

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    with sink.open("wb") as fh:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "ncu_roofline",
                "report",
                str(SAMPLE),
                "--format",
                "json",
                "-o",
                "-",
            ],
            cwd=REPO,
            stdout=fh,
            stderr=subprocess.PIPE,
            preexec_fn=limited,
            timeout=CLI_TIMEOUT,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 5, err
    assert sink.stat().st_size == limit
    assert err.splitlines() == [
        "ncu-roofline: error: standard output: cannot write (File too large); "
        "the output on standard output is incomplete: 4,096 bytes were written before the error"
    ]


def _failing_after(n: int) -> Iterator[bytes]:
    yield b"x" * n
    raise RuntimeError("encoder failed mid-stream")


def test_a_document_failing_after_some_bytes_says_so_on_stderr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "stdout"
    with target.open("w", encoding="utf-8") as fh:
        monkeypatch.setattr(sys, "stdout", fh)
        with pytest.raises(RuntimeError, match="mid-stream"):
            write_output(_failing_after(1234), "-")
    assert target.read_bytes() == b"x" * 1234
    assert capsys.readouterr().err == (
        "ncu-roofline: warning: the output on standard output is incomplete: "
        "1,234 bytes were written before the error\n"
    )


def test_a_captured_stdout_counts_too_and_nothing_is_said_before_any_byte(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    with pytest.raises(RuntimeError):
        write_output(_failing_after(1), None)
    assert "incomplete: 1 byte was written" in capsys.readouterr().err
    with pytest.raises(RuntimeError):
        write_output(_failing_after(0), None)
    assert capsys.readouterr().err == ""


def test_a_fifo_write_cut_short_says_how_much_went_out(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        with pytest.raises(RuntimeError):
            write_output(_failing_after(10), str(fifo), force=True)
        assert os.read(reader, 100) == b"x" * 10
    finally:
        os.close(reader)
    # With the reader gone, the write fails at once: nothing went out, nothing said.
    with pytest.raises(OutputError) as exc:
        write_output(_failing_after(10), str(fifo), force=True)
    assert "incomplete" not in str(exc.value)
