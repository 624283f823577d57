"""The daemon (cli/daemon.py starts it): imports once, forks a child per command.

Run as ``python -m workbench.cli.daemon_server serve SOCKET IDLE_S``. It imports what a
warm lane server imports (vLLM, every registered parser's module, the built-in tokenizers)
and every served command's module, then listens as a warm lane server does
(warm_server.accept_loop: 0600 socket, peer uid checked, idle exit, SIGTERM). Each child
takes its caller's stdin, stdout and stderr, folder, environment and umask, and runs
`workbench` there (cli.main) as a process of its own would; then it sends the exit code.
A ``b"i"`` from the caller (its Ctrl+C), or the caller gone, interrupts the command.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import sys
import threading
import traceback

MAX_REQUEST = 1 << 22
_imports_set: dict[str, str] = {}  # what importing vLLM and the rest put in os.environ: a cold run's has it too


def _preload() -> None:
    from workbench.cli import build_parser, warm_server

    warm_server._preload()
    build_parser()  # every command's module and options


def _receive(conn: socket.socket) -> tuple[dict, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, MAX_REQUEST, 3)
    while not data.endswith(b"\n"):
        more = conn.recv(MAX_REQUEST)
        if not more:
            raise EOFError("the caller left before its request ended")
        data += more
    return json.loads(data), fds


def _watch(conn: socket.socket) -> None:
    """The caller's Ctrl+C (b"i"), or the caller gone: KeyboardInterrupt in the command."""
    while True:
        try:
            got = conn.recv(1)
        except OSError:
            got = b""
        os.kill(os.getpid(), signal.SIGINT)
        if not got:
            return


def answer(conn: socket.socket, folder: str) -> None:
    """A forked child: one command, run as `workbench` runs it, in the caller's place."""
    from workbench.cli import daemon, main

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.rmdir(folder)  # the caller's folder is this command's: the one made for a lane worker is not used
    code = 1
    sent = []
    log = os.dup(2)  # the daemon's log: fd 2 becomes the caller's stderr

    def send(rc: int) -> None:
        if not sent:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(json.dumps({"rc": rc}).encode() + b"\n")
            sent.append(rc)

    try:
        request, fds = _receive(conn)
        for fd, std in zip(fds, (0, 1, 2)):
            os.dup2(fd, std)
            os.close(fd)
        os.chdir(request["cwd"])
        os.umask(int(request["umask"]))
        os.environ.clear()
        os.environ.update(request["env"])
        for k, v in _imports_set.items():
            os.environ.setdefault(k, v)
        sys.argv = list(request["argv"])
        sys.stdout.reconfigure(line_buffering=os.isatty(1))  # as a new process sets it up
        conn.sendall(json.dumps({"pid": os.getpid()}).encode() + b"\n")
        threading.Thread(target=_watch, args=(conn,), daemon=True).start()
        daemon.serving = True
        daemon._answered = send  # a forced exit (a plugin's thread left running) after the exit handlers
        try:
            code = main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # what an uncaught exception prints in a process of its own
            traceback.print_exc()
            code = 1
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # done: the caller leaving interrupts nothing now
        atexit._run_exitfuncs()  # lanes and vllm-rs stopped, as at a process's exit
        send(code)
    except BaseException as e:  # this command's child only: the caller runs it cold
        os.write(log, f"a command's child failed: {type(e).__name__}: {e}\n".encode(errors="replace"))
    finally:
        os._exit(code if isinstance(code, int) else 1)


def serve(path: str, idle_s: float) -> int:
    from workbench.cli import warm_server
    from workbench.lanes.worker import private_folder

    before = dict(os.environ)
    with private_folder():  # never the project checkout; each command works in its caller's folder
        _preload()
        _imports_set.update({k: v for k, v in os.environ.items() if before.get(k) != v})
        return warm_server.accept_loop(path, idle_s, "workbench daemon", answer)


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) == 3:
        return serve(argv[1], float(argv[2]))
    from workbench.core.writing import terminal

    terminal.say("usage: python -m workbench.cli.daemon_server serve SOCKET IDLE_S", err=True)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
