"""A file's pieces are written on a thread while the next piece is made.

The file must still hold every piece in order, a failing write must end the
run with that write's error (after the write in flight has ended, so no
thread touches a closed file), and a process that cannot start a thread
must still write everything.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.errors import OutputError
from ncu_roofline.render import output
from ncu_roofline.render.output import write_atomic
from tests.helpers import CLI_TIMEOUT, REPO, SAMPLE


@settings(max_examples=100, deadline=None)
@given(pieces=st.lists(st.binary(max_size=64), max_size=20))
def test_the_file_holds_every_piece_in_order(pieces: list[bytes]) -> None:
    sink = io.BytesIO()
    output._write_behind(sink, iter(pieces))
    assert sink.getvalue() == b"".join(pieces)


class _FailingFile(io.BytesIO):
    """A file whose ``fail_at``-th write (from 0) fails as a full disk does."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.writes = 0
        self.threads: set[str] = set()

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.threads.add(threading.current_thread().name)
        at = self.writes
        self.writes += 1
        if at == self.fail_at:
            raise OSError(28, "No space left on device")
        return super().write(data)


def _counted(n: int, made: list[int]) -> Iterator[bytes]:
    for i in range(n):
        made.append(i)
        yield b"%d;" % i


def test_a_failing_write_is_raised_and_stops_the_pieces() -> None:
    sink = _FailingFile(fail_at=2)
    made: list[int] = []
    with pytest.raises(OSError, match="No space left"):
        output._write_behind(sink, _counted(10, made))
    # The failure is seen before the piece after the next one is asked for.
    assert made == [0, 1, 2, 3]
    assert sink.getvalue() == b"0;1;"
    # The later pieces went out on the writing thread, not the caller's.
    assert threading.current_thread().name not in sink.threads


def test_a_failing_last_write_is_raised_too() -> None:
    sink = _FailingFile(fail_at=3)
    with pytest.raises(OSError, match="No space left"):
        output._write_behind(sink, _counted(4, []))
    assert sink.getvalue() == b"0;1;2;"


def test_without_threads_the_pieces_are_written_here(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_room(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", no_room)
    sink = _FailingFile(fail_at=-1)
    output._write_behind(sink, _counted(5, []))
    assert sink.getvalue() == b"0;1;2;3;4;"
    assert sink.threads == {threading.current_thread().name}


def test_a_failing_write_leaves_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the whole atomic write: the error is an OutputError, the target keeps its old
    bytes and no temporary file is left."""
    target = tmp_path / "r.json"
    target.write_bytes(b"old report\n")

    class Filling(io.FileIO):
        """The temporary file, full after two writes."""

        writes = 0

        def write(self, data: object) -> int:
            Filling.writes += 1
            if Filling.writes == 3:
                raise OSError(28, "No space left on device")
            return super().write(data)  # type: ignore[arg-type]

    def failing_fdopen(fd: int, mode: str = "r") -> io.BufferedWriter:
        assert mode == "wb"
        return io.BufferedWriter(Filling(fd, "wb"))

    monkeypatch.setattr(output.os, "fdopen", failing_fdopen)
    with pytest.raises(OutputError, match="No space left on device"):
        write_atomic(target, iter([b"a" * 100_000] * 6), force=True)
    assert target.read_bytes() == b"old report\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX resource limits")
def test_a_report_file_past_the_size_limit_fails_cleanly(tmp_path: Path) -> None:
    """``-o FILE`` under ``ulimit -f``: exit 5 with the write's error, and nothing left."""
    import resource

    limit = 4096

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = tmp_path / "r.json"
    env = {**os.environ, "NCU_ROOFLINE_CACHE_DIR": str(tmp_path / "cache")}
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
            str(out),
            "--no-cache",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        preexec_fn=limited,
        timeout=CLI_TIMEOUT,
        check=False,
    )
    err = proc.stderr.decode()
    assert proc.returncode == 5, err
    assert "File too large" in err
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name != "cache"] == []


def test_a_failed_write_wins_over_a_failure_making_the_next_piece() -> None:
    """A write fails while the next piece is made, and making it fails too: the write's
    error is the one raised, as when the pieces were written one after the other."""
    sink = _FailingFile(fail_at=1)

    def pieces() -> Iterator[bytes]:
        yield b"0;"
        yield b"1;"
        raise ValueError("could not make piece 2")

    with pytest.raises(OSError, match="No space left"):
        output._write_behind(sink, pieces())
    assert sink.getvalue() == b"0;"
