"""The warm lane server (lanes/warm.py starts it): imports once, forks a worker per connection.

Run as ``python -m workbench.cli.warm_server serve VERSION SOCKET IDLE_S`` in a lane's
environment (its verified tree first on the path). It imports vLLM, every registered
parser's module and the built-in tokenizers, binds the Unix socket (0600, in the user's
0700 folder), and for each connection whose peer is this user forks a worker that runs
the lane program (``cli/in_lane.py``) over the connection. It exits after IDLE_S seconds
with no connection and no worker, or on SIGTERM (``python -m workbench.lanes.warm stop``).
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import socket
import sys
import time

from workbench.core.writing import terminal
from workbench.lanes.warm import SERVED


def _worker_class(module: object) -> type:
    from workbench.lanes.worker import Worker

    found = [c for c in vars(module).values() if isinstance(c, type) and issubclass(c, Worker)
             and c.__module__ == getattr(module, "__name__", None)]
    return found[0] if found else Worker


def _preload() -> None:
    """What commands in a lane import or load first, done once in the server so that every
    forked worker starts with it: vLLM, every registered parser's module, the built-in
    tokenizers (each worker's own load would cost it seconds)."""
    import workbench.core.env  # noqa: F401  (offline defaults before vLLM loads)
    import vllm  # noqa: F401
    from workbench.diagnosis import diagnose  # noqa: F401
    from workbench.cli import main  # noqa: F401
    from workbench.core.parsers import parser_table
    from workbench.core.tokenizers import list_tokenizers, load_tokenizer

    parser_table()  # imports every registered tool and reasoning parser's module
    for info in list_tokenizers():
        with contextlib.suppress(Exception):  # a tokenizer this tree cannot load is the command's to report
            load_tokenizer(info.name)


def serve(version: str, path: str, idle_s: float) -> int:
    from workbench.lanes.worker import private_folder

    with private_folder():  # never the project checkout: each worker then makes its own
        return _serve(version, path, idle_s)


def _serve(version: str, path: str, idle_s: float) -> int:
    module = importlib.import_module(SERVED)
    worker_cls = _worker_class(module)
    _preload()
    return accept_loop(path, idle_s, f"warm vLLM {version} lane",
                       lambda conn, folder: _serve_connection(conn, worker_cls, folder))


def accept_loop(path: str, idle_s: float, what: str, answer) -> int:
    """Bind ``path`` (0600) and fork ``answer(conn, folder)`` (it never returns) for each
    connection whose peer is this user, ``folder`` a new private folder removed when that
    child is reaped; until ``idle_s`` seconds pass with no connection and no child, or SIGTERM.
    The daemon (cli/daemon_server.py) serves whole commands with it."""
    import gc
    import select
    import shutil

    from workbench.lanes.process import new_folder

    gc.freeze()  # as the lane worker does: vLLM's objects never walked by a collection mid-feed
    old = os.umask(0o177)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(16)
    bound = os.stat(path).st_ino  # removed at the end only if it is still this server's socket
    children: dict[int, str] = {}  # pid -> its private folder, removed when it is reaped
    last = time.monotonic()
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    terminal.say("{} listening on {} (pid {})", what, path, os.getpid(), err=True)
    try:
        while not stopping:
            while children:
                pid, _ = os.waitpid(-1, os.WNOHANG)
                if not pid:
                    break
                if pid in children:  # a worker that died (killed, os._exit) could not remove its folder
                    shutil.rmtree(children.pop(pid), ignore_errors=True)
                last = time.monotonic()
            if not children and time.monotonic() - last > idle_s:
                break
            if not select.select([listener], [], [], 1.0)[0]:
                continue
            conn, _ = listener.accept()
            uid = _peer_uid(conn)
            if uid != os.getuid():
                terminal.say("refused a connection from uid {}", uid, err=True)
                conn.close()
                continue
            folder = new_folder()
            pid = os.fork()
            if pid == 0:
                try:
                    listener.close()
                    answer(conn, folder)
                finally:
                    os._exit(1)  # never back into this loop (nor its cleanup): a second server in a child
            children[pid] = folder
            conn.close()
            last = time.monotonic()
    finally:
        with contextlib.suppress(FileNotFoundError):
            if os.stat(path).st_ino == bound:
                os.unlink(path)
        listener.close()
    return 0


def _peer_uid(conn: socket.socket) -> int:
    import struct

    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _serve_connection(conn: socket.socket, worker_cls: type, folder: str) -> None:
    """A forked worker: the connection becomes its stdin and its protocol pipe (worker.main)."""
    from workbench.lanes import worker

    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    code = 1
    try:
        os.dup2(conn.fileno(), 0)
        os.dup2(conn.fileno(), 1)
        conn.close()
        code = worker.main(worker_cls, folder)
    except BaseException as e:  # a crash of this connection's worker: logged, the server goes on
        terminal.say("worker: {}: {}", type(e).__name__, e, err=True)
    finally:
        sys.stderr.flush()
        os._exit(code)




def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"] and len(argv) == 4:
        return serve(argv[1], argv[2], float(argv[3]))
    terminal.say("usage: python -m workbench.cli.warm_server serve VERSION SOCKET IDLE_S", err=True)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
