"""The user's own folder for warm processes' sockets, the code's stamp, a connection, whose
pid a pid file names: what a warm lane's client (lanes/warm.py) and the daemon's client
(cli/daemon.py) share. Standard
library only: a command answered by the daemon imports this much before it forwards."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import tempfile
import time
from pathlib import Path

from workbench.errors import WorkbenchError
from workbench.lanes import versions

OFF_ENV = "WORKBENCH_WARM_LANES"
_pinned: str | None = None  # the temporary folder as pin() found it


def pin() -> None:
    """Keep the sockets' folder where it is now, whatever this process's temporary folder
    becomes (a corpus pool worker takes its own: its lanes must still meet the user's
    warm servers, never start servers of their own that outlive the run)."""
    global _pinned
    _pinned = tempfile.gettempdir()


def runtime_dir() -> Path:
    """The user's own folder for warm lanes' and the daemon's sockets: created 0700, refused if anyone else owns it."""
    base = Path(os.environ.get("XDG_RUNTIME_DIR") or _pinned or tempfile.gettempdir())
    folder = base / f"workbench-lanes-{os.getuid()}"
    with contextlib.suppress(FileExistsError):
        folder.mkdir(mode=0o700)
    st = folder.lstat()
    if not folder.is_dir() or folder.is_symlink() or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise WorkbenchError(f"warm processes: {folder} is not a folder only you can open; remove it, or set "
                             f"{OFF_ENV}=0 and WORKBENCH_NO_DAEMON=1")
    return folder


def code_stamp() -> str:
    """Size and mtime of every workbench source file: an edit means another server."""
    root = versions.REPO_ROOT / "workbench"
    h = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(root)}:{st.st_size}:{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def connect(path: Path, wait: float = 0.0) -> socket.socket | None:
    deadline = time.monotonic() + wait
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(str(path))
            return s
        except (FileNotFoundError, ConnectionRefusedError):
            s.close()
        if time.monotonic() >= deadline:
            return None
        time.sleep(0.1)


def server_pid(pid_file: Path, server: str) -> int | None:
    """The pid ``pid_file`` records while that process runs ``server serve``, else None."""
    try:
        pid = int(pid_file.read_text(encoding="utf-8"))
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, ValueError):
        return None
    return pid if server.encode() in cmdline and b"serve" in cmdline else None
