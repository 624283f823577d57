"""The Rust lane: a session's deltas through ``vllm-rs``'s own parsers.

A ``Session`` says what the Python side runs (tokenizer, parser names, the request in its
API's shape); ``run`` sends the same request to a ``vllm-rs frontend`` started with the
same tokenizer and parser names, answers its engine request with the same token ids in
the same groups, and reads back the stream (and, with ``nonstream``, the non-streaming
body of a second request). One frontend runs per (version, tokenizer, parser names) and
is kept for the process (a start costs 2-5 s: it loads the tokenizer), or until
``keep_only`` closes it for others.
"""

from __future__ import annotations

import atexit
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from workbench.core.messages import Accumulator, Final
from workbench.errors import WorkbenchError
from workbench.rustfe import core, finals, rows as rust_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.deltas import Delta
    from workbench.core.faces.face import Face
    from workbench.core.session import Session
    from workbench.rustfe.process import Frontend

MODEL = "workbench"  # --served-model-name: the "model" of every request and answer
ENDPOINTS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "messages": "/v1/messages"}


@dataclass(frozen=True)
class Config:
    """What one frontend process is started with."""

    version: str
    model_dir: str
    tool_parser: str | None
    reasoning_parser: str | None

    def args(self) -> dict:
        """``vllm serve``'s arguments as RustFrontendProcessManager passes them (non-default only)."""
        out: dict = {"served_model_name": [MODEL]}
        if self.tool_parser:
            out["tool_call_parser"] = self.tool_parser
        if self.reasoning_parser:
            out["reasoning_parser"] = self.reasoning_parser
        return out

    def label(self) -> str:
        return f"vllm-rs {self.version} {self.tool_parser or '-'}+{self.reasoning_parser or '-'}"


_RUNNING: dict[Config, Frontend] = {}


def frontend(config: Config) -> Frontend:
    """The running frontend for ``config``, started on first use (again if it died)."""
    from pathlib import Path

    from workbench.rustfe import binary
    from workbench.rustfe.process import Frontend

    running = _RUNNING.get(config)
    if running is not None and running.alive:
        return running
    if running is not None:
        running.close()
    if not _RUNNING:
        atexit.register(close_all)
    fe = Frontend(binary.ensure(config.version), Path(config.model_dir), config.args(), config.version)
    _RUNNING[config] = fe.start()
    return fe


def close_all() -> None:
    while _RUNNING:
        _RUNNING.popitem()[1].close()


def keep_only(config: Config, most: int = 3) -> None:
    """Before ``config``'s frontend is asked for: keep at most ``most`` of its version's
    running, ``config``'s among them, the longest unused closed first (a matrix run meets
    dozens of parser names; each frontend holds its tokenizer)."""
    running = _RUNNING.pop(config, None)
    same = [c for c in _RUNNING if c.version == config.version]
    for c in same[:max(0, len(same) - most + 1)]:
        _RUNNING.pop(c).close()
    if running is not None:
        _RUNNING[config] = running  # the most recently used last


def default_version() -> str:
    """The running vLLM's version when its wheel is locked (a lane's own), else the newest locked."""
    from workbench.lanes import versions
    from workbench.rustfe import binary

    here = versions.installed()
    return here if here in versions.locked() else binary.default_version()


def config_of(session: Session, version: str | None = None) -> Config:
    from workbench.rustfe.model_dir import model_dir

    spec = session.setup.parser
    if spec.config or session.setup.plugins:
        raise WorkbenchError("the Rust frontend runs its own parsers, chosen by name: a parser config "
                             "or plugin has no Rust counterpart (name --tool-parser / --reasoning-parser)")
    return Config(version or default_version(), str(model_dir(session.setup.tokenizer, session.tokenizer)),
                  spec.tool_parser, spec.reasoning_parser)


def body(session: Session, stream: bool) -> dict:
    """The request as the session's API client POSTs it."""
    from workbench.core.faces import bodies

    if session.api == "chat":
        out = bodies.body_of("chat", session.setup.request)
        if not stream:
            out.pop("stream_options", None)
    else:
        out = dict(session.setup.api_request or bodies.body_of(session.api, session.setup.request))
    return {**out, "model": MODEL, "stream": stream}


@dataclass
class RustResult:
    """The Rust lane's answer, in a ``session.Result``'s shape (rows, finals, text, ids)."""

    rows: list[rust_rows.RustRow]
    stream_final: Final  # what a client joins from the rows' chunks or events
    nonstream_final: Final  # the non-streaming body's message
    parser: dict
    text: str
    token_ids: list[int]
    exchange: core.Exchange  # the stream, as the frontend wrote it
    nonstream_exchange: core.Exchange | None = None
    notes: list[str] = field(default_factory=list)
    api: str = "chat"

    @cached_property
    def stream(self) -> dict:
        return self.stream_final.to_dict()

    @cached_property
    def nonstream(self) -> dict:
        return self.nonstream_final.to_dict()

    @property
    def errors(self) -> list[rust_rows.RustRow]:
        return [r for r in self.rows if r.error]

    @cached_property
    def face(self) -> Face | None:
        """The Responses / Messages face of the stream: the frontend's events (spans per row),
        its non-streaming body, and what the official SDK makes of the stream's bytes."""
        if self.api == "chat":
            return None
        from workbench.core.faces import clients
        from workbench.core.faces.face import Face
        from workbench.rustfe import sse

        events: list[str] = []
        spans = []
        for row in self.rows:
            start = len(events)
            events += [e.raw for e in map(sse.parse_event, row.raw) if e.json]
            spans.append((start, len(events)))
        nonstream = self.nonstream_exchange
        response = finals.body_json(nonstream.body) if nonstream is not None else None
        f = Face(self.api, events, spans, response, notes=list(self.notes))
        tools = (self.exchange.request.get("tools") or [])
        ex, api = self.exchange, self.api
        if ex.status != 200:  # the SDK raises on the status; it never reads a stream
            refused = {"error": finals.error_of(finals.body_json(ex.body), ex.status)}
            f.client_source = lambda: refused
        else:
            f.client_source = lambda: clients.of_sse(api, ex.body, [t for t in tools if isinstance(t, dict)])
        return f

    def to_dict(self) -> dict:
        return {"parser": self.parser, "stream": self.stream, "nonstream": self.nonstream,
                "text": self.text, "rows": [r.to_dict() for r in self.rows], "notes": self.notes,
                "status": self.exchange.status}


def run(session: Session, deltas: Sequence[Delta], version: str | None = None,
        nonstream: bool = True) -> RustResult:
    if not deltas:
        raise WorkbenchError("no deltas to replay")
    config = config_of(session, version)
    fe = frontend(config)
    script = [(list(d.token_ids), d.finish_reason) for d in deltas]
    if script[-1][1] is None:
        script[-1] = (script[-1][0], "stop")
    endpoint = ENDPOINTS[session.api]
    ex = core.exchange(fe, endpoint, body(session, True), script)
    texts = session.tokenizer.convert_ids_to_tokens
    rows, notes = rust_rows.rows_of(ex, deltas, session.api, lambda ids: list(texts(ids)))
    acc = Accumulator()
    for r in rows:
        acc.add(r.delta)
        acc.finish_reason = r.finish_reason or acc.finish_reason
    ns_ex = core.exchange(fe, endpoint, body(session, False), script) if nonstream else None
    ns_final = finals.nonstream_final(session.api, ns_ex) if ns_ex is not None else Final()
    ids = [t for d in deltas for t in d.token_ids]
    prompt = ex.engine_request.prompt_token_ids if ex.engine_request else None
    if prompt is not None and list(session.prompt_ids) != prompt:
        notes.append(f"vllm-rs rendered another prompt ({len(prompt)} ids) than the Python side "
                     f"({len(session.prompt_ids)} ids): its chat template renderer differs")
    parser = {"frontend": "vllm-rs", "version": config.version, "tool_parser": config.tool_parser,
              "reasoning_parser": config.reasoning_parser, "label": config.label(), "kind": "vllm-rs",
              "class": f"the Rust parsers {config.tool_parser or '-'}+{config.reasoning_parser or '-'}"}
    return RustResult(rows, acc.final(), ns_final, parser, "".join(d.text for d in deltas), ids, ex, ns_ex,
                      notes, session.api)
