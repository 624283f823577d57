"""The daemon's client: `replay`, `check`, `doctor`, `diff` and `export` answered by a warm process.

A cold command spends most of its time importing vLLM (6 s on a quiet machine, 17-33 s on a
loaded one). The first of these commands starts the daemon (cli/daemon_server.py: vLLM, the
parsers and the tokenizers imported once) and waits for it; each command then connects to
its Unix socket and hands over its argv, its working folder, its environment, its umask and
its own stdin, stdout and stderr (the file descriptors themselves, SCM_RIGHTS). A forked
child of the daemon runs the command there exactly as `workbench` would, writing to those
descriptors, and sends back the exit code: the output is the cold run's, byte for byte.

Never stale: the socket's name is a fingerprint of every workbench source file and shipped
parser file (size, mtime), vLLM's installed version files, the interpreter and the
environment variables read at import; another fingerprint is another daemon, and starting
it stops the others of the same checkout (another checkout's daemons are left alone). One user only: the socket (0600) lives in the user's 0700 folder
(lanes/warm_socket.py, shared with the warm lanes) and the daemon checks each peer's uid; no TCP.

``--no-daemon`` or ``WORKBENCH_NO_DAEMON=1`` runs the command in its own process (the
tests do so unless they test this); ``WORKBENCH_DAEMON_IDLE_S`` (default 600) is how long
an unused daemon stays. Ctrl+C interrupts the command, never the daemon. A daemon that
cannot answer means a cold run, after one note line.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

SERVED = ("replay", "check", "doctor", "diff", "export")
OFF_ENV, IDLE_ENV, FLAG = "WORKBENCH_NO_DAEMON", "WORKBENCH_DAEMON_IDLE_S", "--no-daemon"
IDLE_S = 600.0
SERVER = "workbench.cli.daemon_server"
START_TIMEOUT_S = 120.0  # as a lane's: vLLM imported on a loaded machine
HELLO_WAIT_S = 10.0  # a daemon busy past this (a full backlog, stopping): the command runs cold
# read when vLLM, transformers or the workbench are imported: another value is another daemon
ENV_PREFIXES = ("VLLM_", "HF_", "TRANSFORMERS_", "TOKENIZERS_", "WORKBENCH_", "PYTHON", "LC_", "HOME", "LANG",
                "XDG_CACHE_HOME", "TMPDIR")
NOT_FINGERPRINTED = (OFF_ENV, IDLE_ENV, "PYTHONINSPECT")

serving = False  # true in the daemon's child that runs a command: it never forwards again
_answered = None  # the child's hook: called with the exit code before a forced exit (cli._leave_stray_threads)


def wanted(argv: list[str]) -> bool:
    return (not serving and bool(argv) and argv[0] in SERVED and FLAG not in argv
            and os.environ.get(OFF_ENV, "0") in ("", "0", "false", "no", "off"))


def fingerprint() -> str:
    """The code, the installed vLLM, the interpreter and the import-time environment."""
    import importlib.util

    from workbench.lanes import versions, warm_socket

    h = hashlib.sha256()
    h.update(f"{sys.executable}\n{sys.version}\n{versions.REPO_ROOT}\n{warm_socket.code_stamp()}\n".encode())
    shipped = versions.REPO_ROOT / "parsers"
    for pattern in ("*.toml", "plugins/*.py"):
        for path in sorted(shipped.glob(pattern)):
            st = path.stat()
            h.update(f"{path.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    spec = importlib.util.find_spec("vllm")
    if spec is not None and spec.origin:
        for name in ("__init__.py", "_version.py"):
            with contextlib.suppress(OSError):
                st = (Path(spec.origin).parent / name).stat()
                h.update(f"vllm/{name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    for k, v in sorted(os.environ.items()):
        if k.startswith(ENV_PREFIXES) and k not in NOT_FINGERPRINTED:
            h.update(f"{k}={v}\n".encode())
    return h.hexdigest()[:16]


def checkout() -> str:
    """``daemon-<this checkout and interpreter>-``: the name every daemon of this install starts with."""
    from workbench.lanes import versions

    return "daemon-" + hashlib.sha256(f"{sys.executable}\n{versions.REPO_ROOT}".encode()).hexdigest()[:8] + "-"


def socket_path() -> Path:
    from workbench.lanes import warm_socket

    return warm_socket.runtime_dir() / f"{checkout()}{fingerprint()}.sock"


def forward(argv: list[str]) -> int | None:
    """The command's exit code once the daemon ran it; None: run it here (cold)."""
    if not wanted(argv):
        return None
    try:
        return _forward(argv)
    except KeyboardInterrupt:  # before the command began (the daemon starting): as a cold run says it
        from workbench.core.writing import terminal

        terminal.say("workbench {}: interrupted", argv[0], err=True)
        return 130


def _forward(argv: list[str]) -> int | None:
    from workbench.errors import WorkbenchError
    from workbench.lanes.warm_socket import connect

    try:
        path = socket_path()
    except WorkbenchError as e:  # a runtime folder not the user's own: said, and never used
        return _cold(str(e))
    sock = connect(path)
    if sock is None:
        try:
            spawn(path)
        except OSError as e:
            return _cold(f"it could not start: {e}")
        sock = connect(path, wait=START_TIMEOUT_S)
    if sock is None:
        return _cold(f"it did not start (its log: {path.with_suffix('.log')})")
    with sock:
        return _run(sock, argv)


def _run(sock: socket.socket, argv: list[str]) -> int | None:
    umask = os.umask(0)
    os.umask(umask)
    request = {"argv": sys.argv[:1] + argv, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask}
    data = json.dumps(request).encode() + b"\n"
    try:
        sent = socket.send_fds(sock, [data], [0, 1, 2])
        if sent < len(data):  # a large environment: the rest after the descriptors' first part
            sock.sendall(data[sent:])  # (never an empty send: on a peer already gone that is EPIPE)
    except OSError as e:
        return _cold(f"it refused the command ({e})")
    answers = sock.makefile("r", encoding="utf-8")
    sock.settimeout(HELLO_WAIT_S)
    try:
        hello = answers.readline()
    except OSError:
        hello = ""
    if not hello:
        return _cold("it did not answer")
    sock.settimeout(None)
    while True:
        try:
            line = answers.readline()
            break
        except KeyboardInterrupt:  # the command's, not the daemon's: its child stops as a cold run would
            with contextlib.suppress(OSError):
                sock.sendall(b"i")
    try:
        return int(json.loads(line)["rc"])
    except (ValueError, KeyError, TypeError):
        return _cold("its process for this command ended without an exit code")


def _cold(why: str) -> None:
    from workbench.core.writing import terminal

    terminal.say("workbench: note: the warm process could not run this command ({}); running it cold", why,
                 err=True)
    return None


def spawn(path: Path) -> None:
    """Start the daemon for ``path`` in the background unless one is starting or listening;
    the daemons of other fingerprints (stale code, another vLLM) are stopped."""
    import fcntl

    from workbench.lanes.warm_socket import connect

    with open(path.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        s = connect(path)
        if s is not None:
            s.close()
            return
        if server_pid(path.with_suffix(".pid")) is not None:  # starting: it binds within the start timeout
            return
        stop(keep=path, prefix=checkout())
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        idle = os.environ.get(IDLE_ENV, str(IDLE_S))
        with open(path.with_suffix(".log"), "w") as log:
            proc = subprocess.Popen([sys.executable, "-P", "-m", SERVER, "serve", str(path), idle],
                                    env=_server_env(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=log, start_new_session=True, cwd="/")
        path.with_suffix(".pid").write_text(str(proc.pid), encoding="utf-8")


def _server_env() -> dict[str, str]:
    """This environment, with the folder this workbench was imported from first on the path
    (the daemon starts in "/"; each command's child works in its caller's folder)."""
    from workbench.lanes import versions

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(versions.REPO_ROOT)] + [
        os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def server_pid(pid_file: Path) -> int | None:
    """The recorded daemon's pid while that process runs the daemon, else None."""
    from workbench.lanes import warm_socket

    return warm_socket.server_pid(pid_file, SERVER)


def stop(keep: Path | None = None, wait_s: float = 15.0, prefix: str = "daemon-") -> list[int]:
    """Stop this user's daemons whose name starts with ``prefix`` (but ``keep``'s), waiting for
    them to exit: the pids signalled. A command one is running finishes; no new one is taken."""
    import signal

    from workbench.lanes.warm_socket import runtime_dir

    stopped = []
    for pid_file in sorted(runtime_dir().glob(f"{prefix}*.pid")):
        pid = server_pid(pid_file)
        if pid is not None and (keep is None or pid_file != keep.with_suffix(".pid")):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                stopped.append((pid_file, pid))
    deadline = time.monotonic() + wait_s
    while any(server_pid(f) for f, _ in stopped) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for _, pid in stopped]


def main(argv: list[str]) -> int:
    """python -m workbench.cli.daemon stop | status"""
    from workbench.core.writing import terminal
    from workbench.lanes.warm_socket import runtime_dir

    if argv == ["stop"]:
        terminal.say("{}", json.dumps({"stopped": stop()}))
        return 0
    if argv == ["status"]:
        running = {p.name: server_pid(p) for p in sorted(runtime_dir().glob("daemon-*.pid"))}
        terminal.say("{}", json.dumps({"running": {n: pid for n, pid in running.items() if pid},
                                       "current": socket_path().with_suffix(".pid").name}))
        return 0
    terminal.say("usage: python -m workbench.cli.daemon stop | status", err=True)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
