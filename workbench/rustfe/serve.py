"""A Rust-frontend server of our own: vllm-rs on 127.0.0.1, every request answered with a script.

What ``VLLM_USE_RUST_FRONTEND=1 vllm serve`` puts on the network, with the scripted core
in place of the model: any client (``workbench capture``, an SDK, curl) talks to the real
frontend, which parses with its own Rust parsers; the core answers each engine request
with the same token ids, one engine output per group, as fast as the frontend reads them.
For tests and demos of what a capture from a Rust-frontend server holds.
"""

from __future__ import annotations

import select
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.rustfe import protocol

if TYPE_CHECKING:
    from workbench.rustfe.lane import Config
    from workbench.rustfe.process import Frontend


class ScriptedServer:
    """``with ScriptedServer(config, groups) as s: s.url``; ``s.requests``: what it was asked."""

    def __init__(self, config: Config, groups: Sequence[Sequence[int]], finish_reason: str = "stop") -> None:
        self.config, self.groups, self.finish_reason = config, [list(g) for g in groups], finish_reason
        self.frontend: Frontend | None = None
        self.requests: list[protocol.EngineRequest] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def url(self) -> str:
        assert self.frontend is not None and self.frontend.url is not None
        return self.frontend.url

    def start(self) -> ScriptedServer:
        from pathlib import Path

        from workbench.rustfe import binary
        from workbench.rustfe.process import Frontend

        fe = Frontend(binary.ensure(self.config.version), Path(self.config.model_dir), self.config.args(),
                      self.config.version, tcp=True)
        self.frontend = fe.start()
        self._thread = threading.Thread(target=self._answer, name="scripted-core", daemon=True)
        self._thread.start()
        return self

    def _answer(self) -> None:
        fe = self.frontend
        assert fe is not None and fe.dealer is not None and fe.push is not None
        last = len(self.groups) - 1
        while not self._stop.is_set():
            if not select.select([fe.dealer.sock], [], [], 0.2)[0]:
                continue
            try:
                frames = fe.dealer.recv(timeout=30)
            except (OSError, WorkbenchError):
                return  # the frontend is gone
            if not frames or frames[0] != protocol.ADD:
                continue  # an abort: nothing to answer
            req = protocol.decode_request(frames[1:])
            self.requests.append(req)
            for i, ids in enumerate(self.groups):
                fe.push.send([protocol.outputs(req.request_id, ids, self.finish_reason if i == last else None)])

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.frontend is not None:
            self.frontend.close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
