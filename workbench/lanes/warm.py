"""Warm lanes: one lane server per vLLM version, kept for a while and shared by commands.

Starting a lane imports vLLM and torch in a fresh interpreter (10-20 s); a command that
asks two lanes (doctor's "fixed in") paid that twice each time. A warm lane is a server
process per (version, workbench code): it imports everything once, listens on a Unix
socket in a folder only its user can open (0700, and each peer's uid is checked), and
forks one worker per connection, so each command gets a worker with every module
already imported, its own state, and a crash of its own. It exits after
``WORKBENCH_LANE_IDLE_S`` seconds (default 600) without a connection, or with
``python -m workbench.lanes.warm stop``. ``WORKBENCH_WARM_LANES=0`` turns it off (every
command starts its own lane, as before; the tests do so unless they test this).

The socket's name is a hash of the version, the worker program, the interpreter, the
repository and every workbench source file's size and mtime: a server runs the code it
was started with, and an edited workbench starts a new one. The lane's tree is verified
file by file on every connection, as on every lane start (lanes/manifest.py).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.core.writing import terminal
from workbench.errors import WorkbenchError
from workbench.lanes import process as lanes, tree, versions
from workbench.lanes.warm_socket import OFF_ENV, code_stamp, connect as _connect, runtime_dir, server_pid

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

IDLE_ENV = "WORKBENCH_LANE_IDLE_S"
IDLE_S = 600.0
SERVED = "workbench.cli.in_lane"  # every warm lane serves the CLI's program: a superset of the worker's ops
SERVER = "workbench.cli.warm_server"  # the server's program (`python -m`): it imports the CLI
HELLO_WAIT_S = 5.0  # a server busy past this (a full backlog): the command starts its own lane


def enabled() -> bool:
    return os.environ.get(OFF_ENV, "1") not in ("0", "false", "no", "off")


def key(version: str) -> str:
    marker = tree.tree_path(version) / tree.MARKER
    parts = [version, SERVED, sys.executable, str(versions.REPO_ROOT), code_stamp(),
             marker.read_text(encoding="utf-8") if marker.is_file() else "",
             os.environ.get("WORKBENCH_CACHE", "")]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def socket_path(version: str) -> Path:
    return runtime_dir() / f"lane-{version}-{key(version)}.sock"


# -- the client side ------------------------------------------------------------------

class WarmLane(lanes.Lane):
    """A lane whose worker is a warm server's forked child, over its Unix socket."""

    def __init__(self, version: str) -> None:
        super().__init__(version, SERVED)
        self.sock: socket.socket | None = None
        self._rf = self._wf = None
        self.spawned = False  # this call started the server (a cold start)

    @property
    def alive(self) -> bool:
        return self.sock is not None and self._rf is not None

    @property
    def started(self) -> bool:
        return self.sock is not None or self.spawned

    def start(self, progress: Callable[[str], None] | None = None) -> WarmLane:
        t0 = time.perf_counter()
        tree.ensure(self.version, progress)  # verified file by file, every connection
        self.verify_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        path = socket_path(self.version)
        self.sock = _connect(path)
        if self.sock is None:
            self.spawned = spawn(self.version, path, progress)
            self.sock = _connect(path, wait=lanes.START_TIMEOUT_S)
        if self.sock is None:
            raise lanes.LaneDied(f"vLLM {self.version} warm lane did not start (its log: {_log_path(path)})")
        self._rf = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self._wf = self.sock.makefile("w", encoding="utf-8", newline="\n")
        hello = self._read(timeout=lanes.START_TIMEOUT_S if self.spawned else HELLO_WAIT_S, what="start")
        self.start_s = time.perf_counter() - t0
        self.warm = not self.spawned
        return self._greeted(hello)

    def _readline(self, timeout: float | None) -> str:
        self.sock.settimeout(timeout)
        try:
            return self._rf.readline()
        except (TimeoutError, OSError):
            return ""
        finally:
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)

    def _write(self, text: str) -> None:
        self._wf.write(text)
        self._wf.flush()

    def _died(self, what: str) -> lanes.LaneDied:
        self._drop()
        last = self.last_stderr()
        return lanes.LaneDied(f"vLLM {self.version} lane died during {what} (its worker closed the connection)"
                              + (f": {last}" if last else ""))

    def last_stderr(self) -> str:
        with contextlib.suppress(OSError):
            lines = [ln.strip() for ln in _log_path(socket_path(self.version)).read_text(
                encoding="utf-8", errors="replace").splitlines()[-50:] if ln.strip()]
            return lines[-1] if lines else ""
        return ""

    def _drop(self) -> None:
        for f in (self._rf, self._wf, self.sock):
            with contextlib.suppress(OSError):
                if f is not None:
                    f.close()
        self._rf = self._wf = None

    def close(self) -> None:
        if self._open is not None:
            self._open._end()
        self._drop()  # the worker sees the end of its requests and exits; the server stays warm


def _log_path(path: Path) -> Path:
    return path.with_suffix(".log")


def spawn(version: str, path: Path, progress: Callable[[str], None] | None = None) -> bool:
    """Start the server for ``path`` in the background unless one is starting or listening:
    whether this call started it. A stale socket (a server that died) is removed first."""
    import fcntl

    root = tree.ensure(version, progress)
    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        s = _connect(path)
        if s is not None:
            s.close()
            return False
        pid_file = path.with_suffix(".pid")
        if _server_pid(pid_file) is not None:  # starting: it binds within the start timeout
            return False
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        from workbench.core.writing import terminal

        tell = progress or (lambda msg: terminal.say("{}", msg, err=True))
        idle = os.environ.get(IDLE_ENV, str(IDLE_S))
        tell(f"starting a warm vLLM {version} lane (kept {float(idle):g} s after its last use; about 10 s)…")
        with open(_log_path(path), "w") as log:
            proc = subprocess.Popen(lanes.command(SERVER, "serve", version, str(path), idle),
                                    env=lanes.lane_env(version, root), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=log, start_new_session=True,
                                    cwd="/")  # the server works in a private folder (warm_server.serve)
        pid_file.write_text(str(proc.pid), encoding="utf-8")
    return True


def prestart(wanted: Iterable[str]) -> None:
    """Start the warm servers of ``wanted`` versions in the background, waiting for none (a
    command about to ask them starts its own work meanwhile)."""
    if not enabled():
        return
    for v in wanted:
        # a tree not extracted yet is fetched by the command that needs it, with its progress lines
        if versions.is_installed(v) or not (tree.tree_path(v) / tree.MARKER).is_file():
            continue
        with contextlib.suppress(WorkbenchError, OSError):
            path = socket_path(v)
            if _server_pid(path.with_suffix(".pid")) is not None:  # warm or starting: its tree is checked on use
                continue
            spawn(v, path, progress=lambda msg: None)


def _server_pid(pid_file: Path) -> int | None:
    """The recorded server's pid while that process runs this module, else None."""
    return server_pid(pid_file, SERVER)


def stop(version: str | None = None, wait_s: float = 15.0) -> list[int]:
    """Stop this user's warm servers (of ``version``, else all), waiting for them to exit:
    the pids signalled. A worker serving a command finishes it; new ones are refused."""
    pid_files = sorted(runtime_dir().glob(f"lane-{version or '*'}-*.pid"))
    stopped = []
    for pid_file in pid_files:
        pid = _server_pid(pid_file)
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                stopped.append(pid_file)
    deadline = time.monotonic() + wait_s
    while any(_server_pid(p) for p in stopped) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [int(p.read_text(encoding="utf-8")) for p in stopped]


def main(argv: list[str]) -> int:
    """python -m workbench.lanes.warm stop [VERSION] | status"""
    if argv[:1] == ["stop"]:
        terminal.say("{}", json.dumps({"stopped": stop(argv[1] if len(argv) > 1 else None)}))
        return 0
    if argv[:1] == ["status"]:
        running = {p.name: _server_pid(p) for p in sorted(runtime_dir().glob("lane-*.pid"))}
        terminal.say("{}", json.dumps({name: pid for name, pid in running.items() if pid}))
        return 0
    terminal.say("usage: python -m workbench.lanes.warm stop [VERSION] | status", err=True)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
