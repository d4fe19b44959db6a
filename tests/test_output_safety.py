"""What writing an output may and may not do to the path it is given.

The rules (README, "Output guarantees"; ``ncu_roofline/render/output.py``):
nothing at the path is ever touched without ``--force``, a dangling link
included; with it a regular file is replaced keeping its mode, a symbolic
link is followed and never replaced, a FIFO, the null device or this
terminal is written through, anything else is refused.  A new file's mode is
0o666 less the umask; of two runs racing for one new name exactly one wins;
a signal during the write leaves no temporary file; standard output that
cannot be written is exit 5, a closed pipe a quiet exit 141.  The signal
tests start their children with the signals at their defaults
(:func:`tests.helpers.foreground_signals`), so they mean the same under
``nohup`` or as a background job, which start pytest with them ignored.

Device nodes are made with ``mknod`` in the test's folder when running as
root (a regression must never replace the machine's own ``/dev/null``); as
another user the real ``/dev/null`` and ``/dev/full`` are used, which that
user could not replace anyway.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ncu_roofline import interrupts
from ncu_roofline.errors import OutputError
from ncu_roofline.render import output
from ncu_roofline.render.output import refuse_existing, write_atomic, write_output
from tests.helpers import CLI_TIMEOUT, REPO, SAMPLE, foreground_signals, run

ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds and signals")
pytestmark = posix_only

#: Seconds a subprocess of these tests may take before the test fails.
TIMEOUT = 60


def _temps(folder: Path) -> list[str]:
    """Hidden temporary files the writer left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and ".tmp" in p.name)


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def _device(tmp_path: Path, name: str, real: str) -> Path:
    """A character device like ``real``: a copy made in ``tmp_path`` as root, else ``real``."""
    if not os.path.exists(real) or not stat.S_ISCHR(os.stat(real).st_mode):
        pytest.skip(f"{real} is not a character device on this system")
    if not ROOT:
        return Path(real)
    node = tmp_path / name
    os.mknod(node, stat.S_IFCHR | 0o666, os.stat(real).st_rdev)
    try:
        os.close(os.open(node, os.O_WRONLY))
    except OSError as exc:  # a nodev mount: device nodes cannot be opened here
        pytest.skip(f"cannot open a device node in {tmp_path}: {exc.strerror}")
    return node


def _same(path: Path, before: os.stat_result) -> bool:
    after = os.lstat(path)
    return (after.st_ino, after.st_mode, after.st_rdev) == (
        before.st_ino,
        before.st_mode,
        before.st_rdev,
    )


# --- without --force nothing there is touched ---------------------------------------


def _make(kind: str, path: Path, tmp_path: Path) -> None:
    if kind == "file":
        path.write_text("old\n")
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "dangling link":
        path.symlink_to(tmp_path / "nowhere.md")
    elif kind == "link to a file":
        (tmp_path / "real.md").write_text("old\n")
        path.symlink_to(tmp_path / "real.md")


@pytest.mark.parametrize("kind", ["file", "directory", "fifo", "dangling link", "link to a file"])
def test_anything_there_is_refused_without_force(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "out.md"
    _make(kind, target, tmp_path)
    before = os.lstat(target)
    with pytest.raises(OutputError, match="already exists"):
        refuse_existing(str(target), force=False)
    with pytest.raises(OutputError, match="already exists"):
        write_output("new\n", str(target))
    assert _same(target, before)
    assert not (tmp_path / "nowhere.md").exists()
    assert _temps(tmp_path) == []


def test_a_dangling_link_is_followed_with_force_and_stays_a_link(tmp_path: Path) -> None:
    link = tmp_path / "out.md"
    link.symlink_to("made.md")
    assert write_atomic(link, "new\n", force=True) == tmp_path / "made.md"
    assert link.is_symlink() and os.readlink(link) == "made.md"
    assert (tmp_path / "made.md").read_text() == "new\n"


# --- with --force: links followed, modes kept, devices written through ---------------


def test_a_link_to_a_file_replaces_that_file_in_its_own_folder(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    real = there / "report.md"
    real.write_text("old\n")
    real.chmod(0o640)
    link = here / "out.md"
    link.symlink_to(real)
    assert write_atomic(link, "new\n", force=True) == real
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "new\n"
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert _temps(here) == [] and _temps(there) == []


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc/self/fd")
def test_a_link_to_this_process_pipe_is_written_through(tmp_path: Path) -> None:
    # ``-o link-to-/proc/self/fd/1 --force`` with stdout a pipe: the pipe gets
    # the document and the link stays (it used to be replaced by a file).
    read_end, write_end = os.pipe()
    try:
        link = tmp_path / "out.md"
        link.symlink_to(f"/proc/self/fd/{write_end}")
        write_atomic(link, "through the pipe\n", force=True)
        os.set_blocking(read_end, False)  # nothing written must fail, not hang
        assert os.read(read_end, 100) == b"through the pipe\n"
        assert link.is_symlink()
    finally:
        os.close(read_end)
        os.close(write_end)


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664], ids=["0600", "0640", "0664"])
def test_force_keeps_the_replaced_file_mode(tmp_path: Path, mode: int) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n")
    target.chmod(mode)
    with _umask(0o022):
        write_atomic(target, "new\n", force=True)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == mode


@pytest.mark.skipif(not ROOT, reason="changing a file's owner needs root")
def test_force_keeps_the_replaced_file_owner_and_group(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n")
    os.chown(target, 12345, 23456)
    write_atomic(target, "new\n", force=True)
    found = target.stat()
    assert (found.st_uid, found.st_gid) == (12345, 23456)


@pytest.mark.parametrize(
    ("mask", "mode"),
    [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)],
    ids=["umask-022", "umask-027", "umask-002"],
)
def test_a_new_file_mode_is_0666_less_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    target = tmp_path / "report.md"
    with _umask(mask):
        write_atomic(target, "new\n")
    assert stat.S_IMODE(target.stat().st_mode) == mode


def test_the_null_device_is_written_through(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", os.devnull)
    before = os.lstat(null)
    assert write_output("nothing to see\n", str(null), force=True) is True
    assert _same(null, before) and stat.S_ISCHR(os.lstat(null).st_mode)
    if null.parent == tmp_path:
        assert _temps(tmp_path) == []


def test_other_character_devices_are_refused(tmp_path: Path) -> None:
    # /dev/full stands for every device that is not a document's place: a
    # serial port, a flash chip, a SCSI generic node.
    full = _device(tmp_path, "full", "/dev/full")
    before = os.lstat(full)
    with pytest.raises(OutputError, match="is a character device"):
        refuse_existing(str(full), force=True)
    with pytest.raises(OutputError, match="is a character device"):
        write_atomic(full, "x", force=True)
    assert _same(full, before)


@pytest.mark.skipif(not ROOT, reason="mknod of a block device needs root")
def test_a_block_device_is_refused(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    os.mknod(disk, stat.S_IFBLK | 0o600, os.makedev(7, 0))
    before = os.lstat(disk)
    with pytest.raises(OutputError, match="is a block device"):
        write_atomic(disk, "x", force=True)
    assert _same(disk, before)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        before = os.lstat(path)
        with pytest.raises(OutputError, match="is a socket"):
            write_atomic(path, "x", force=True)
        assert _same(path, before)


def test_a_fifo_with_a_waiting_reader_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    payload = b"x" * 300_000  # several pipe buffers: the reader must keep up
    got = bytearray()
    # The reader is there (its end open) before the write starts; a read
    # before the writer comes, or between its writes, finds nothing yet.
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)

    def read_all() -> None:
        deadline = time.monotonic() + 10
        try:
            while len(got) < len(payload) and time.monotonic() < deadline:
                try:
                    chunk = os.read(fd, 1 << 16)
                except BlockingIOError:
                    chunk = b""
                got.extend(chunk)
                if not chunk:
                    time.sleep(0.001)
        finally:
            os.close(fd)

    reader = threading.Thread(target=read_all)
    reader.start()
    write_atomic(fifo, payload, force=True)
    reader.join(timeout=10)
    assert bytes(got) == payload
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_fifo_without_a_reader_is_refused_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(OutputError, match="FIFO with no reader"):
        write_atomic(fifo, "x", force=True)
    assert time.monotonic() - started < 2
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# --- the last step is exclusive -------------------------------------------------------


def _other_run_writes(target: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While this run writes its temporary file, another run puts its report at ``target``."""
    fsync = os.fsync

    def and_another_run(fd: int) -> None:
        fsync(fd)
        if not target.exists():
            target.write_text("the other run\n")

    monkeypatch.setattr(output.os, "fsync", and_another_run)


def test_a_name_taken_while_writing_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.md"
    refuse_existing(str(target), force=False)  # free when the run starts
    _other_run_writes(target, monkeypatch)
    with pytest.raises(OutputError, match="already exists"):
        write_atomic(target, "this run\n")
    assert target.read_text() == "the other run\n"
    assert _temps(tmp_path) == []


def _no_hard_links(monkeypatch: pytest.MonkeyPatch) -> None:
    def link(src: str, dst: str) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(output.os, "link", link)


def test_without_hard_links_a_new_file_is_still_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_hard_links(monkeypatch)
    target = tmp_path / "report.md"
    with _umask(0o027):
        write_atomic(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert _temps(tmp_path) == []


def test_without_hard_links_a_name_taken_meanwhile_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_hard_links(monkeypatch)
    target = tmp_path / "report.md"
    _other_run_writes(target, monkeypatch)
    with pytest.raises(OutputError, match="already exists"):
        write_atomic(target, "this run\n")
    assert target.read_text() == "the other run\n"
    assert _temps(tmp_path) == []


def test_of_racing_writers_exactly_one_wins(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    start = threading.Barrier(8)
    won: list[int] = []
    lost: list[str] = []

    def write(i: int) -> None:
        payload = f"run {i}\n" * 20_000
        start.wait()
        try:
            write_atomic(target, payload)
            won.append(i)
        except OutputError as exc:
            lost.append(str(exc))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert len(won) == 1 and len(lost) == 7
    assert all("already exists" in message for message in lost)
    assert target.read_text() == f"run {won[0]}\n" * 20_000
    assert _temps(tmp_path) == []


def test_two_command_lines_racing_for_one_name_one_wins(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    cmd = [sys.executable, "-m", "ncu_roofline", "report", str(SAMPLE), "-o", str(out)]
    procs = [
        subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=TIMEOUT), p.communicate()[1].decode()) for p in procs]
    assert sorted(code for code, _ in results) == [0, 5]
    loser = next(err for code, err in results if code == 5)
    assert "already exists" in loser and "Traceback" not in loser
    assert out.read_text(encoding="utf-8").rstrip().endswith("</html>")
    assert _temps(tmp_path) == []


# --- interrupted writes ----------------------------------------------------------------


def test_a_keyboard_interrupt_mid_write_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.md"
    target.write_text("old\n")

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, "new\n", force=True)
    assert target.read_text() == "old\n"
    assert _temps(tmp_path) == []


def test_a_signal_inside_a_deferred_block_is_raised_at_its_end() -> None:
    saved = {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS}
    try:
        # As in a foreground terminal: under nohup SIGHUP would stay ignored.
        foreground_signals()
        interrupts.install()
        reached = []
        with pytest.raises(interrupts.Interrupted) as caught, interrupts.deferred():
            signal.raise_signal(signal.SIGTERM)
            reached.append("after the signal")
        assert reached == ["after the signal"]
        assert caught.value.exit_code == 128 + signal.SIGTERM == 143
        with pytest.raises(interrupts.Interrupted):
            signal.raise_signal(signal.SIGHUP)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_a_signal_ignored_before_the_run_stays_ignored() -> None:
    """``nohup`` and a background job's SIGINT: the handlers leave an ignored signal ignored."""
    saved = {sig: signal.getsignal(sig) for sig in interrupts.SIGNALS}
    try:
        foreground_signals()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        interrupts.install()
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        signal.raise_signal(signal.SIGHUP)  # nothing happens
        with pytest.raises(interrupts.Interrupted):
            signal.raise_signal(signal.SIGTERM)
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


#: A run of the command line whose write stops (after its temporary file is
#: written, before the rename) until a signal arrives.
_STALLED_WRITE = """
import os, sys, time
def stall(fd):
    print("writing", flush=True)
    time.sleep(30)
os.fsync = stall
sys.argv = ["ncu-roofline", "report", sys.argv[1], "-o", sys.argv[2], "--force"]
from ncu_roofline.__main__ import main
main()
"""


@pytest.mark.parametrize(
    ("sig", "code", "said"),
    [
        (signal.SIGTERM, 143, "ncu-roofline: terminated (SIGTERM)"),
        (signal.SIGHUP, 129, "ncu-roofline: terminated (SIGHUP)"),
        (signal.SIGINT, 130, "ncu-roofline: interrupted"),
    ],
    ids=["SIGTERM", "SIGHUP", "SIGINT"],
)
def test_a_signal_during_the_write_removes_the_temporary_file(
    tmp_path: Path, sig: signal.Signals, code: int, said: str
) -> None:
    out = tmp_path / "report.html"
    out.write_text("the previous report\n")
    proc = subprocess.Popen(
        [sys.executable, "-c", _STALLED_WRITE, str(SAMPLE), str(out)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=foreground_signals,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"writing\n"
    assert len(_temps(tmp_path)) == 1  # the stall is mid-write
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == code
    assert err.decode().splitlines() == [said]
    assert _temps(tmp_path) == []
    assert out.read_text() == "the previous report\n"


def test_ctrl_c_during_the_imports_says_one_line_and_exits_130(tmp_path: Path) -> None:
    # -X importtime reports each import as it ends: once numpy's is seen, the
    # handlers are in place and pandas is still loading.
    proc = subprocess.Popen(
        [sys.executable, "-X", "importtime", "-m", "ncu_roofline", "report", str(SAMPLE)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=foreground_signals,
    )
    assert proc.stderr is not None
    for line in proc.stderr:
        if line.split(b"|")[-1].strip() == b"numpy":
            break
    else:
        pytest.fail("numpy was never imported")
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=TIMEOUT)
    said = [ln for ln in rest.decode().splitlines() if not ln.startswith("import time:")]
    assert proc.returncode == 130
    assert said == ["ncu-roofline: interrupted"]
    assert list(tmp_path.iterdir()) == []


# --- standard output ---------------------------------------------------------------------


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_stdout_is_an_output_error() -> None:
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "ncu_roofline", "report", str(SAMPLE), "--format", "md"],
            cwd=REPO,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 5, err
    assert err.splitlines() == [
        "ncu-roofline: error: standard output: cannot write (No space left on device)"
    ]


def test_a_closed_stdout_pipe_ends_quietly_with_141() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ncu_roofline", "report", str(SAMPLE), "-o", "-"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(1) == b"<"  # the HTML (megabytes) has begun
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=TIMEOUT) == 141
    assert err == ""


def test_dev_null_needs_force_and_is_then_written_through(tmp_path: Path) -> None:
    null = _device(tmp_path, "null", os.devnull)
    before = os.lstat(null)
    refused = run("report", str(SAMPLE), "--format", "md", "-o", str(null))
    assert refused.returncode == 5 and "already exists" in refused.stderr
    forced = run("report", str(SAMPLE), "--format", "md", "-o", str(null), "--force")
    assert forced.returncode == 0, forced.stderr
    assert f"wrote {null}" in forced.stderr
    assert _same(null, before)


@pytest.mark.parametrize("args", [["--help"], ["report", "--help"], ["--version"]])
def test_help_and_version_into_a_full_stdout_are_output_errors(args: list[str]) -> None:
    """click's own text into a full device: exit 5 with the reason, not an internal error."""
    with open("/dev/full", "wb") as full:
        proc = subprocess.run(
            [sys.executable, "-m", "ncu_roofline", *args],
            cwd=REPO,
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            check=False,
        )
    err = proc.stderr.decode()
    assert proc.returncode == 5, err
    assert "standard output: cannot write (No space left on device)" in err
    assert "internal error" not in err


def test_a_link_to_the_file_stdout_appends_to_is_written_through(tmp_path: Path) -> None:
    """``-o /dev/stdout --force >> log``: the report goes where stdout goes (appended),
    the file under it is not replaced."""
    log = tmp_path / "log.txt"
    log.write_text("hello\n", encoding="utf-8")
    inode = log.stat().st_ino
    with open(log, "ab") as out:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "ncu_roofline",
                "report",
                str(SAMPLE),
                "--format",
                "md",
                "-o",
                "/dev/stdout",
                "--force",
            ],
            cwd=REPO,
            stdout=out,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            check=False,
        )
    assert proc.returncode == 0, proc.stderr.decode()
    assert log.stat().st_ino == inode
    text = log.read_text(encoding="utf-8")
    assert text.startswith("hello\n") and "## ncu-roofline report" in text


def _without_stdout(*args: str) -> subprocess.CompletedProcess[bytes]:
    """``ncu-roofline ARGS`` started with descriptor 1 closed, as after ``>&-``."""
    return subprocess.run(
        [sys.executable, "-m", "ncu_roofline", *args],
        stdin=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: os.close(1),
        cwd=REPO,
        timeout=CLI_TIMEOUT,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("--version",),
        ("gpus",),
        ("inspect", str(SAMPLE)),
        ("summary", str(SAMPLE)),
        ("report", str(SAMPLE), "--format", "json", "-o", "-"),
    ],
    ids=["version", "gpus", "inspect", "summary", "report-json"],
)
def test_a_closed_stdout_is_an_output_error(args: tuple[str, ...]) -> None:
    """Started with descriptor 1 closed (``>&-``), Python's stdout is None and every
    write would vanish: the command must say so and exit 5, not 0."""
    proc = _without_stdout(*args)
    assert proc.returncode == 5, proc.stderr
    assert b"standard output: cannot write (it is closed)" in proc.stderr
    assert b"Traceback" not in proc.stderr


def test_a_closed_stdout_does_not_matter_when_nothing_goes_to_it(tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    proc = _without_stdout("report", str(SAMPLE), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 0
