"""A live server stream as a widget row source: one server chunk per Step.

Same shape as ``workbench.ui.sources``' sources (``step() -> list[Row]``, ``done``,
``deltas``, ``total``, ``final()``). The first Step opens the stream (stream: true,
return_token_ids: true) and reads the opening chunk, whose prompt ids the rows use;
every later Step reads one chunk and runs this vLLM's parser on its ids, with the
server's chunk kept in the row (``extra.chunk``) beside the one predicted here. A
failure ends the stream with one error row (finish_reason "error", ``extra.capture_error``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.capture import chunks, client, stream, tokcheck
from workbench.capture.capture import TextOfIds, opening, stream_body
from workbench.core.deltas import Delta
from workbench.core.rows import Row
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.session import Session


class ServerSource:
    kind = "server"

    def __init__(self, session: Session, url: str, request: dict, api_key_env: str | None = None,
                 timeout: float = stream.DEFAULT_TIMEOUT_S, deadline: float = stream.DEFAULT_DEADLINE_S) -> None:
        self.setup = session.setup
        self.session = session
        self.server = client.Server(url, client.api_key(api_key_env), timeout, deadline)
        self.request = request
        self._chunks = None
        self._held: dict | None = None
        self.run = None
        self.texts = None
        self.all: list[Delta] = []
        self.notes: list[str] = []
        self.done = False
        self.header: dict = {}

    @property
    def total(self) -> int | None:
        return None

    @property
    def deltas(self) -> list[Delta]:
        return list(self.all)

    def _open(self) -> None:
        from workbench.core import request as req
        from workbench.core.request import RequestSpec
        from workbench.core.session import Session

        models = self.server.models()
        model = self.request.get("model") or (models[0] if models else "")
        body = stream_body(self.request, model)
        self._chunks = self.server.stream_chat(body)
        first = opening(self._chunks)
        prompt = first.prompt_token_ids
        self.setup.request = RequestSpec.from_dict(body)
        self.session = Session(self.setup, prompt_token_ids=prompt)
        local = req.render_prompt(self.session.tokenizer, self.setup.request, self.setup.chat_template,
                                  self.setup.trust_template)
        self.notes = tokcheck.check(self.session.tokenizer, self.setup.tokenizer, prompt, [], local)
        self.header = {"url": self.server.url, "model": model, "opening_chunk": first.obj,
                       "server_vllm_version": self.server.version(), "server_frontend": self.server.frontend()}
        self.run = self.session.stream()
        self.texts = TextOfIds(self.session.tokenizer, prompt, self.session.params)

    def step(self) -> list[Row]:
        if self.done:
            return []
        try:
            if self._chunks is None:
                self._open()
            delta = self._next()
        except WorkbenchError as e:
            if self.run is None:
                self.done = True
                raise
            delta = Delta((), "", "error", extra={"capture_error": str(e)})
        if delta is None:
            self.done = True
            return []
        self.all.append(delta)
        if delta.finish_reason is not None:
            self.done = True
            self.server.close()
        return [self.run.feed(delta)]

    def close(self) -> None:
        """The widget dropped this source (Reset, Replay, another source): hang up."""
        if self._chunks is not None:
            self._chunks.close()
        self.server.close()

    def _next(self) -> Delta | None:
        for raw in self._chunks:
            c = chunks.parse(raw)
            if c.error and not c.choices:
                return Delta((), "", "error", extra={"chunk": c.raw, "capture_error": c.error})
            if not c.choices:
                continue
            tokcheck.check(self.session.tokenizer, self.setup.tokenizer, [], c.token_ids, [])
            return Delta(tuple(c.token_ids), self.texts.text(c.token_ids, c.finish_reason),
                         c.finish_reason, extra={"chunk": c.raw})
        return None

    def final(self):
        """(the joined stream, the non-streaming answer): two messages.Final."""
        finish = (self.all[-1].finish_reason if self.all else None) or "stop"
        return self.run.result.final(), self.session.nonstream(self.run.text, self.run.token_ids, finish)
