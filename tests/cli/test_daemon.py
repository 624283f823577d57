"""The warm daemon (cli/daemon.py, cli/daemon_server.py): a command it answers is a cold run's.

The module starts one daemon of its own (XDG_RUNTIME_DIR under tmp_path, so the user's are
never touched) by running `workbench replay` as a process, the way a user's first command
does. Each of replay, check, doctor, diff and export then runs as a process answered by that
daemon, in a folder of its own with the recording named relative to it, and its exit code,
stdout and stderr are compared byte for byte with the same command run cold: in this process
(the fast suite; replay also as a process of its own) and as a `--no-daemon` process each
(slow). Also: the socket and its folder are the user's only, an edited workbench replaces
the daemon, a daemon that dies mid-command means a cold run after one note, and (slow) an
idle daemon exits.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from workbench.cli import daemon, daemon_server, warm_server
from workbench.lanes import warm

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "parsers" / "recordings" / "hermes" / "seed_weather.jsonl"
COMMANDS = {
    "replay": ["replay", "seed_weather.jsonl"],
    "check": ["check", "seed_weather.jsonl", "--fuzz", "3", "--no-cost"],  # a cost is a timing: never twice the same
    "doctor": ["doctor", "seed_weather.jsonl"],
    "diff": ["diff", "seed_weather.jsonl", "--a", "hermes", "--b", "qwen3_xml"],
    "export": ["export", "seed_weather.jsonl", "-o", "test_seed.py", "--fuzz", "3"],
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("XDG_RUNTIME_DIR", str(tmp_path_factory.mktemp("run")))
    mp.delenv(daemon.OFF_ENV, raising=False)
    mp.setenv(daemon.IDLE_ENV, "300")
    first = _folder(tmp_path_factory.mktemp("first"))
    done = _workbench(COMMANDS["replay"], first)  # the first command starts the daemon and waits for it
    assert done.returncode == 0, done.stderr
    yield daemon.socket_path()
    daemon.stop()
    mp.undo()


def _folder(at: Path) -> Path:
    shutil.copy(SEED, at / "seed_weather.jsonl")
    return at


def _workbench(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workbench", *argv], cwd=cwd, capture_output=True, timeout=600)


def _pid(path: Path) -> int | None:
    return daemon.server_pid(path.with_suffix(".pid"))


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_served_command_prints_what_a_cold_run_prints(served, name, tmp_path, monkeypatch, run_cli):
    argv = COMMANDS[name]
    pid = _pid(served)
    (tmp_path / "warm").mkdir()
    (tmp_path / "cold").mkdir()
    warm_run = _workbench(argv, _folder(tmp_path / "warm"))
    assert _pid(served) == pid is not None  # answered by the running daemon, not a new one
    monkeypatch.chdir(_folder(tmp_path / "cold"))
    rc, out, err = run_cli(*argv, "--no-daemon")
    assert (warm_run.returncode, warm_run.stdout.decode(), warm_run.stderr.decode()) == (rc, out, err)
    assert (out + err).strip() and rc in (0, 1)
    if name == "export":  # the file the command names, relative to the caller's folder, written there
        assert (tmp_path / "warm" / "test_seed.py").read_text() == (tmp_path / "cold" / "test_seed.py").read_text()


def test_replay_served_equals_a_cold_process(served, tmp_path):
    warm_run = _workbench(COMMANDS["replay"], _folder(tmp_path))
    cold = _workbench([*COMMANDS["replay"], "--no-daemon"], tmp_path)
    assert (warm_run.returncode, warm_run.stdout, warm_run.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    assert b"get_weather" in cold.stdout


@pytest.mark.slow  # a cold process per command (vLLM imported each time)
@pytest.mark.parametrize("name", [n for n in COMMANDS if n != "replay"])
def test_each_served_command_equals_a_cold_process(served, name, tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "c").mkdir()
    warm_run = _workbench(COMMANDS[name], _folder(tmp_path / "w"))
    cold = _workbench([*COMMANDS[name], "--no-daemon"], _folder(tmp_path / "c"))
    assert (warm_run.returncode, warm_run.stdout, warm_run.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_a_bad_input_is_the_same_one_line_and_exit_code(served, tmp_path, monkeypatch, run_cli):
    warm_run = _workbench(["check", "missing.jsonl"], tmp_path)
    monkeypatch.chdir(tmp_path)
    rc, out, err = run_cli("check", "missing.jsonl", "--no-daemon")
    assert (warm_run.returncode, warm_run.stdout.decode(), warm_run.stderr.decode()) == (rc, out, err)
    assert rc == 2 and len(err.strip().splitlines()) == 1


def test_the_socket_is_the_users_only(served):
    folder = warm.runtime_dir()
    assert served.parent == folder
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700 and folder.stat().st_uid == os.getuid()
    assert stat.S_ISSOCK(served.stat().st_mode) and stat.S_IMODE(served.stat().st_mode) == 0o600
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(served))
        assert warm_server._peer_uid(s) == os.getuid()  # what the daemon compares each peer with


def test_a_daemon_child_that_dies_means_a_cold_run_and_one_note(capfd):
    """The daemon side of a socket pair takes the request, says hello, and dies."""
    ours, theirs = socket.socketpair()

    def dying() -> None:
        request, fds = daemon_server._receive(theirs)
        got.append((request["argv"][1:], request["cwd"], len(fds)))
        for fd in fds:
            os.close(fd)
        theirs.sendall(b'{"pid": 1}\n')
        theirs.close()

    got = []
    t = threading.Thread(target=dying)
    t.start()
    assert daemon._run(ours, ["replay", "x.jsonl"]) is None  # the CLI then runs it here
    t.join()
    assert got == [(["replay", "x.jsonl"], os.getcwd(), 3)]
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "ended without an exit code" in err and "running it cold" in err


def test_off_by_flag_or_environment(monkeypatch):
    monkeypatch.delenv(daemon.OFF_ENV, raising=False)
    assert daemon.wanted(["doctor", "r.jsonl"]) and not daemon.wanted(["doctor", "r.jsonl", "--no-daemon"])
    assert not daemon.wanted(["corpus", "x"]) and not daemon.wanted([])
    monkeypatch.setenv(daemon.OFF_ENV, "1")
    assert not daemon.wanted(["doctor", "r.jsonl"])


def test_an_edited_workbench_replaces_the_daemon(served):
    """Last of the fast ones: it stops the module's daemon."""
    old = _pid(served)
    assert old is not None
    path = Path(daemon.__file__)
    st = path.stat()
    try:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
        edited = daemon.socket_path()
        assert edited != served
        daemon.spawn(edited)  # what the next command does when no daemon answers at its socket
        assert _pid(served) is None and not served.exists()
        deadline = time.monotonic() + 10
        while _pid(edited) is None and time.monotonic() < deadline:  # its exec under way
            time.sleep(0.1)
        assert _pid(edited) not in (None, old)
    finally:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        daemon.stop()
    assert daemon.socket_path() == served


@pytest.mark.slow  # a second daemon start (30 s or more)
def test_an_idle_daemon_exits_and_removes_its_socket(served, tmp_path, monkeypatch):
    daemon.stop()
    monkeypatch.setenv(daemon.IDLE_ENV, "2")
    done = _workbench(COMMANDS["replay"], _folder(tmp_path))
    assert done.returncode == 0
    deadline = time.monotonic() + 30
    while (served.exists() or _pid(served)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not served.exists() and _pid(served) is None


def test_a_new_daemon_stops_only_its_own_checkouts_others():
    from workbench.lanes.warm_socket import runtime_dir

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", daemon.SERVER, "serve"])
    pid_file = runtime_dir() / "daemon-0therc0e-0123456789abcdef.pid"
    try:
        pid_file.write_text(str(other.pid), encoding="utf-8")
        deadline = time.monotonic() + 10
        while daemon.server_pid(pid_file) is None and time.monotonic() < deadline:  # its exec under way
            time.sleep(0.05)
        assert daemon.server_pid(pid_file) == other.pid  # it reads as a daemon
        assert daemon.stop(prefix=daemon.checkout(), wait_s=0) == []
        assert other.poll() is None
        assert daemon.stop(prefix="daemon-0therc0e-", wait_s=5) == [other.pid]
        assert other.wait(5) is not None
    finally:
        other.kill()
        pid_file.unlink(missing_ok=True)
