"""``vllm-rs frontend`` as ``vllm serve`` starts it, with the scripted core as its engine.

``RustFrontendProcessManager`` (vllm/v1/utils.py, 0.34) hands the binary three listening
sockets it inherits: HTTP, the engine input ROUTER, the engine output PULL; and the
serve arguments as JSON (``--args-json``). Here all three are Unix sockets in a private
folder. The engine core's start-up is then what ``EngineCoreProc`` does: connect a
DEALER (identity: its engine index) and a PUSH, and send an ``EngineCoreReadyResponse``
on the DEALER. The frontend is up once ``/health`` answers.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.rustfe import conn, protocol, zmtp

if TYPE_CHECKING:
    from workbench.rustfe.quiesce import Quiet

START_TIMEOUT_S = 60.0
MAX_MODEL_LEN = 1 << 20  # what the core says it holds: no recording is cut for length here


def _listener(path: str) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.listen(64)
    return s


def _die_with_parent() -> None:  # runs in the child before exec
    import ctypes

    ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: no orphan if we are killed


class Frontend:
    """One running ``vllm-rs frontend`` (one model folder, one set of serve arguments)."""

    def __init__(self, binary: Path, model_dir: Path, args: dict, version: str, tcp: bool = False) -> None:
        self.binary, self.model_dir, self.version = binary, model_dir, version
        self.tcp = tcp  # HTTP on 127.0.0.1 (``url``) for clients of our own; else a Unix socket only
        self.url: str | None = None
        self.args = {"model_tag": str(model_dir), **args,
                     # what RustFrontendProcessManager forwards from vLLM's environment
                     "engine_ready_timeout_secs": int(START_TIMEOUT_S), "http_timeout_keep_alive": 5}
        self.folder = Path(tempfile.mkdtemp(prefix="workbench-vllm-rs-"))
        self.http: str | tuple[str, int] = str(self.folder / "http")
        self.log_path = self.folder / "frontend.log"
        self.proc: subprocess.Popen | None = None
        self.dealer: zmtp.Peer | None = None
        self.push: zmtp.Peer | None = None
        self.quiet: Quiet | None = None
        self.start_s = 0.0

    def start(self) -> Frontend:
        from workbench.rustfe.quiesce import Quiet

        t0 = time.perf_counter()
        inputs, outputs = str(self.folder / "input"), str(self.folder / "output")
        listeners = [_listener(str(self.http)), _listener(inputs), _listener(outputs)]
        if self.tcp:  # the frontend serves one HTTP listener: this one, and our own requests go to it too
            listeners[0].close()
            listeners[0] = socket.create_server(("127.0.0.1", 0))
            port = listeners[0].getsockname()[1]
            self.url, self.http = f"http://127.0.0.1:{port}/v1", ("127.0.0.1", port)
        fds = [s.fileno() for s in listeners]
        cmd = [str(self.binary), "frontend", "--listen-fd", str(fds[0]), "--input-listener-fd", str(fds[1]),
               "--output-listener-fd", str(fds[2]), "--engine-start-index", "0", "--engine-count", "1",
               "--data-parallel-size", "1", "--args-json", json.dumps(self.args, sort_keys=True)]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VLLM_", "RUST_"))}
        env.update(NO_COLOR="1", HF_HUB_OFFLINE="1", RUST_BACKTRACE="0")
        try:
            with open(self.log_path, "wb") as log:
                self.proc = subprocess.Popen(cmd, pass_fds=fds, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT, env=env, cwd=self.folder,
                                             preexec_fn=_die_with_parent)
        except OSError as e:
            raise WorkbenchError(f"vllm-rs: cannot start {self.binary}: {e}") from None
        finally:
            for s in listeners:  # the frontend holds them now
                s.close()
        self.quiet = Quiet(self.proc.pid)
        try:
            self.dealer = zmtp.Peer(inputs, b"DEALER", identity=(0).to_bytes(2, "little"))
            self.push = zmtp.Peer(outputs, b"PUSH")
            self.dealer.send([protocol.ready_response(self.version, MAX_MODEL_LEN)])
            self._wait_healthy()
        except WorkbenchError as e:
            why = self.last_log_line()
            self.close()
            raise WorkbenchError(f"{e} ({why})") from None
        self.start_s = time.perf_counter() - t0
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if self.proc is None or self.proc.poll() is not None:
                raise WorkbenchError("vllm-rs frontend exited at start-up")
            try:
                if conn.request(self.http, "GET", "/health", timeout=5).status == 200:
                    return
            except WorkbenchError:
                pass
            if time.monotonic() > deadline:
                raise WorkbenchError(f"vllm-rs frontend was not up after {START_TIMEOUT_S:g} s")
            time.sleep(0.02)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_text(self) -> str:
        from workbench.core import door

        try:
            return door.read_text(self.log_path, "vllm-rs log", max_bytes=64 << 20)
        except door.InputError:
            return ""

    def last_log_line(self) -> str:
        """The frontend's last error line (else its last line), without its log prefix."""
        lines = [ln.strip() for ln in self.log_text().splitlines() if ln.strip()]
        errors = [ln for ln in lines if " ERROR " in ln or ln.startswith(("Caused by", "error"))]
        pick = lines[-1] if lines else "no log"
        for i, ln in enumerate(lines):
            if ln.startswith("Caused by") and i + 1 < len(lines):
                pick = lines[i + 1]
        if not any(ln.startswith("Caused by") for ln in lines) and errors:
            pick = errors[-1]
        return "vllm-rs: " + pick.split("] ", 1)[-1][:300]

    def close(self) -> None:
        if self.quiet is not None:
            self.quiet.close()
        for peer in (self.dealer, self.push):
            if peer is not None:
                peer.close()
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> Frontend:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
