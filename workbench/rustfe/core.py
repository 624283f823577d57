"""The scripted engine core: one HTTP request to the frontend, answered with given deltas.

The request goes to the frontend over HTTP; the frontend renders it and sends the
engine an ``EngineCoreRequest`` (ADD); the core answers with one ``EngineCoreOutputs``
per delta (its token ids; the finish reason on the last), as an engine step would. A
streaming request is answered in lock step: each output is sent, the frontend is left
to finish with it (``quiesce``), and the body bytes it wrote meanwhile are that step's.
A non-streaming one gets every output at once and answers with one body.

The core never looks inside the body: what comes back is bytes, split by step.
"""

from __future__ import annotations

import selectors
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError
from workbench.rustfe import conn, protocol

if TYPE_CHECKING:
    from workbench.rustfe.process import Frontend

TIMEOUT_S = 30.0


@dataclass
class Step:
    """One engine output and the body bytes the frontend wrote while it dealt with it."""

    token_ids: list[int]
    finish_reason: str | None
    body: bytes = b""
    sent: bool = True  # False: the frontend had already closed the response
    seconds: float = 0.0  # from the send until the frontend was quiet again


@dataclass
class Exchange:
    """A request and everything the frontend answered, in the order it came."""

    endpoint: str
    request: dict
    status: int = 0
    headers: dict = field(default_factory=dict)
    engine_request: protocol.EngineRequest | None = None  # None: answered without the engine
    head: bytes = b""  # body bytes before the first output
    steps: list[Step] = field(default_factory=list)
    tail: bytes = b""  # body bytes after the last output's, until the close
    stream: bool = True

    @property
    def body(self) -> bytes:
        """The whole body, exactly as the frontend wrote it."""
        return self.head + b"".join(s.body for s in self.steps) + self.tail


def exchange(frontend: Frontend, endpoint: str, request: dict,
             deltas: Sequence[tuple[Sequence[int], str | None]], timeout: float = TIMEOUT_S) -> Exchange:
    """``request`` (a JSON body) to ``endpoint``; its engine request answered with ``deltas``
    ((token ids, finish reason) per engine step)."""
    if frontend.dealer is None or frontend.push is None or frontend.quiet is None or not frontend.alive:
        raise WorkbenchError("vllm-rs frontend is not running")
    stream = bool(request.get("stream"))
    out = Exchange(endpoint, request, stream=stream)
    _drain_engine_messages(frontend)
    ex = conn.Exchange(frontend.http, "POST", endpoint, request, timeout)
    try:
        out.engine_request, early = _await_request(frontend, ex, timeout)
        if out.engine_request is None:
            out.head = early + ex.rest(timeout)
            out.steps = [Step(list(ids), finish, sent=False) for ids, finish in deltas]
        else:
            rid = out.engine_request.request_id
            if stream:
                _lock_step(frontend, ex, rid, deltas, out, early, timeout)
            else:
                for ids, finish in deltas:
                    frontend.push.send([protocol.outputs(rid, list(ids), finish)])
                    out.steps.append(Step(list(ids), finish))
                out.head = early
            out.tail = ex.rest(timeout) if not (stream and deltas and deltas[-1][1] is None) else ex.available()
        out.status, out.headers = ex.status() or (0, {})
    except WorkbenchError as e:
        raise WorkbenchError(f"{e} ({frontend.last_log_line()})") from None
    finally:
        ex.close()
    return out


def _lock_step(frontend: Frontend, ex: conn.Exchange, rid: str,
               deltas: Sequence[tuple[Sequence[int], str | None]], out: Exchange, early: bytes,
               timeout: float) -> None:
    assert frontend.push is not None and frontend.quiet is not None
    frontend.quiet.wait(timeout)
    out.head = early + ex.available()
    for ids, finish in deltas:
        if ex.eof:
            out.steps.append(Step(list(ids), finish, sent=False))
            continue
        t0 = time.perf_counter()
        frontend.push.send([protocol.outputs(rid, list(ids), finish)])
        frontend.quiet.wait(timeout)
        body = ex.available()
        while body and not ex.eof:
            # our socket may have been full: the frontend waits to write the rest
            frontend.quiet.wait(timeout)
            more = ex.available()
            if not more:
                break
            body += more
        out.steps.append(Step(list(ids), finish, body, seconds=time.perf_counter() - t0))


def _await_request(frontend: Frontend, ex: conn.Exchange,
                   timeout: float) -> tuple[protocol.EngineRequest | None, bytes]:
    """(the engine request, body bytes that came before it); (None, ...) when the frontend
    answered by itself (a refusal) and closed the response."""
    assert frontend.dealer is not None
    early = b""
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as sel:
        sel.register(frontend.dealer.sock, selectors.EVENT_READ, "engine")
        sel.register(ex.sock, selectors.EVENT_READ, "http")
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not frontend.alive:
                raise WorkbenchError("vllm-rs neither asked the engine nor answered "
                                     f"{'(it exited)' if not frontend.alive else f'within {timeout:g} s'}")
            for key, _ in sel.select(left):
                if key.data == "engine":
                    frames = frontend.dealer.recv(timeout)
                    if frames and frames[0] == protocol.ADD:
                        return protocol.decode_request(frames[1:]), early
                else:
                    early += ex.available()
                    if ex.eof:
                        return None, early


def _drain_engine_messages(frontend: Frontend) -> None:
    """Aborts of earlier requests (a client that left): nothing to answer."""
    assert frontend.dealer is not None
    with selectors.DefaultSelector() as sel:
        sel.register(frontend.dealer.sock, selectors.EVENT_READ)
        while sel.select(0):
            frontend.dealer.recv(TIMEOUT_S)
