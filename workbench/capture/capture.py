"""`workbench capture`: one streamed chat completion from a real server -> a recording.

The request gets ``stream: true`` and ``return_token_ids: true``, so every
engine output is one chunk carrying its token ids. Each chunk becomes one delta:
its ids, the text vLLM's detokenizer releases for them here, and the chunk
exactly as the server sent it (``extra.chunk``). The header has the server's
prompt ids, model, vLLM version, opening chunk and the request without secrets.

The server is not trusted: every chunk is checked (``chunks.parse``) before a delta is
made of it, the recording writer checks each line by the loader's own rules and limits,
and the client holds the time and byte limits (``client``, ``stream``). Deltas are
flushed as they arrive; anything that stops the capture (a bad chunk, a limit, a cut,
the server's error) adds one error delta (finish_reason "error", ``extra.capture_error``)
and is then reported: what was captured stays, and always loads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

from workbench.capture import chunks, client, stream, tokcheck
from workbench.core import secrets
from workbench.core.deltas import Delta
from workbench.core.parsers import ParserSpec
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from vllm.tokenizers import TokenizerLike
    from workbench.core.session import Session

MAX_KEPT_ERROR_CHUNK = 16 << 10  # an error chunk bigger than this is not kept in its row


@dataclass
class Options:
    url: str
    request: dict
    output: str
    tokenizer: str = "qwen3"
    parser: ParserSpec = field(default_factory=lambda: ParserSpec(None, None))
    api_key_env: str | None = None
    timeout: float = stream.DEFAULT_TIMEOUT_S  # the longest wait for the next answer or chunk
    deadline: float = stream.DEFAULT_DEADLINE_S  # the whole capture
    nonstream: bool = False
    progress: bool = True
    plugins: tuple[str, ...] = ()
    allow_callables: tuple[str, ...] = ()  # module:attr a --config's callables may use (--allow-callable)
    force: bool = False  # overwrite an existing output file
    chat_template: str | None = None  # --chat-template FILE's text: the prompt rendered here to compare
    chat_template_file: str | None = None
    trust_template: bool = False  # --trust-template: the request's own template renders (boxed)


@dataclass
class Captured:
    path: Path
    chunks: int = 0
    tokens: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    header: dict = field(default_factory=dict)


class TextOfIds:
    """vLLM's incremental detokenizer over the server's chunks (the parser's delta_text).

    Ids whose text spells a secret (a server echoing the key through its tokens) stop the
    stream: scrubbing such text would leave a delta whose text is not its ids'."""

    def __init__(self, tokenizer: TokenizerLike, prompt_ids: Sequence[int], params) -> None:
        from vllm.v1.engine.detokenizer import IncrementalDetokenizer

        request = SimpleNamespace(request_id="capture", sampling_params=params,
                                  prompt_token_ids=list(prompt_ids), prompt_embeds=None)
        self._detok = IncrementalDetokenizer.from_new_request(tokenizer, request)
        self._eos = getattr(tokenizer, "eos_token_id", None)
        self._tail = ""

    def text(self, ids: list[int], finish: str | None) -> str:
        stop_eos = finish == "stop" and bool(ids) and ids[-1] == self._eos
        self._detok.update(list(ids), stop_terminated=stop_eos)
        text = self._detok.get_next_output_text(finished=finish is not None, delta=True)
        if secrets.active():
            seen = self._tail + text
            if secrets.spelled_in(seen):
                raise WorkbenchError("the server's token ids spell a secret (its API key or URL "
                                     "password): the capture stops before that chunk")
            self._tail = seen[-secrets.longest():]
        return text


def stream_body(request: dict, model: str) -> dict:
    if not isinstance(request.get("messages"), list):
        raise WorkbenchError("the request has no messages list (an OpenAI chat request is needed)")
    if (request.get("n") or 1) != 1:
        raise WorkbenchError("capture handles one choice: remove n from the request")
    if not isinstance(model, str) or not model:
        raise WorkbenchError("the request's model must be a model name (a string)")
    body = {k: v for k, v in request.items() if not k.startswith("workbench_")}
    body.setdefault("model", model)
    body.update(stream=True, return_token_ids=True)
    return body


def refuse_existing(opts: Options) -> Path:
    out = Path(opts.output)
    if out.exists() and not opts.force:
        raise WorkbenchError(f"{out} exists: give another name, or --force to overwrite it")
    return out


def check_template(opts: Options) -> None:
    """A template the request carries is refused before the server is asked (core/templates.py)."""
    from workbench.core import templates
    from workbench.core.request import RequestSpec

    spec = RequestSpec.from_dict(opts.request)
    templates.choose(spec.chat_template, spec.chat_template_kwargs, opts.chat_template, opts.trust_template)


def served_model(server: client.Server, request: dict) -> tuple[str, str | None]:
    """The model the request names, else the server's first; and the server's vLLM version."""
    models = server.models()
    model = request.get("model") or (models[0] if models else None)
    if not model:
        raise WorkbenchError("the server lists no model and the request names none")
    return model, server.version()


def server_origin(server: client.Server, model: str, version: str | None) -> dict:
    """What a capture's header says of the server: its URL, model, vLLM version and frontend."""
    return {"kind": "capture", "url": server.url, "model": model, "server_vllm_version": version,
            "server_frontend": server.frontend()}


def capture(opts: Options) -> Captured:
    out = refuse_existing(opts)
    check_template(opts)
    key = client.api_key(opts.api_key_env)
    with client.Server(opts.url, key, opts.timeout, opts.deadline) as server:
        model, version = served_model(server, opts.request)
        body = stream_body(opts.request, model)
        nonstream = None
        if opts.nonstream or opts.request.get("workbench_nonstream"):
            plain = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            nonstream = server.post_chat({**plain, "stream": False})
        origin = server_origin(server, model, version) | {"token_ids": "server", "chunking": "server",
                                                            "nonstream": nonstream}
        return _write(server.stream_chat(body), client.scrub(body), origin, opts, out)


def _session(opts: Options, body: dict, prompt_ids: list[int]):
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    setup = Setup(tokenizer=opts.tokenizer, parser=opts.parser, request=RequestSpec.from_dict(body),
                  plugins=opts.plugins, allow_callables=opts.allow_callables, chat_template=opts.chat_template,
                  chat_template_file=opts.chat_template_file, trust_template=opts.trust_template)
    return Session(setup, prompt_token_ids=prompt_ids)


def header_for(session: Session, body: dict, origin: dict, opts: Options) -> dict:
    from workbench.core import recording as rec, templates, trust
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    return rec.make_header(opts.tokenizer, tokenizer_sha256(ensure_tokenizer(opts.tokenizer)), body,
                           session.prompt_ids, origin, trust.provenance(opts.parser, opts.plugins)
                           ) | templates.provenance(opts.chat_template, opts.chat_template_file)


def opening(events) -> chunks.Chunk:
    first = next(events, None)
    if first is None:
        raise WorkbenchError("the server's stream ended before its first chunk")
    c = chunks.parse(first, "the server's first chunk")
    if c.error:
        raise WorkbenchError(f"the server streamed an error: {c.error}")
    if c.prompt_token_ids is None:
        raise WorkbenchError("the server's first chunk has no prompt_token_ids: not a vLLM server "
                             "with return_token_ids (save its SSE and use --from-sse)")
    return c


def _write(events, body: dict, origin: dict, opts: Options, out: Path) -> Captured:
    from workbench.core import recording as rec
    from workbench.core import request as req

    it = iter(events)
    first = opening(it)
    session = _session(opts, body, first.prompt_token_ids)
    local = req.render_prompt(session.tokenizer, session.setup.request, opts.chat_template, opts.trust_template)
    notes = tokcheck.check(session.tokenizer, opts.tokenizer, session.prompt_ids, [], local)
    origin = {**origin, "opening_chunk": first.raw, "notes": notes}
    header = header_for(session, body, origin, opts)
    done = Captured(out, notes=notes, header=header)
    got, stopped = chunks.read_all(it, chunks.Progress(opts.progress))
    secrets.refuse_spelled([first.raw, *(c.raw for c in got)], "the server's chunks")
    with rec.RecordingWriter(out, header, overwrite=opts.force) as w:
        rows = Rows(w, session, opts.tokenizer, done)
        try:
            for c in got:
                if not rows.add(c):
                    break
            if stopped is not None:
                raise WorkbenchError(stopped)
            rows.end()
        except WorkbenchError as e:
            rows.fail(str(e))
    return done


class Rows:
    """Chunks -> deltas in the writer; the finishing delta waits (``held``) for the usage
    chunk. Nothing may follow a finishing delta: a failure after it is kept on it."""

    def __init__(self, writer, session: Session, tokenizer_name: str, done: Captured) -> None:
        self.w, self.session, self.name, self.done = writer, session, tokenizer_name, done
        self.texts = TextOfIds(session.tokenizer, session.prompt_ids, session.params)
        self.held: Delta | None = None

    def add(self, c: chunks.Chunk) -> bool:
        """False once the stream should be read no further (the server's error)."""
        if c.error and not c.choices:
            if self.held is not None:
                raise WorkbenchError(f"the server streamed an error after the finishing chunk: {c.error}")
            chunk = {"chunk": c.raw} if len(c.raw) <= MAX_KEPT_ERROR_CHUNK else {}
            self.w.append(Delta((), "", "error", extra={**chunk,
                                                        "capture_error": f"server error chunk: {c.error}"}))
            self.done.error = f"the server streamed an error: {c.error}"
            return False
        if not c.choices:
            if self.held is not None:
                self.held = Delta(self.held.token_ids, self.held.text, self.held.finish_reason,
                                  extra={**self.held.extra, "usage_chunk": c.raw})
            return True
        if self.held is not None:
            raise WorkbenchError("the server sent a chunk with choices after the finishing one")
        tokcheck.check(self.session.tokenizer, self.name, [], c.token_ids, [])
        delta = Delta(tuple(c.token_ids), self.texts.text(c.token_ids, c.finish_reason),
                      c.finish_reason, extra={"chunk": c.raw})
        if c.finish_reason is None:
            self._append(delta)
        else:
            self.held = delta
        return True

    def _append(self, delta: Delta) -> None:
        self.w.append(delta)
        self.done.chunks += 1
        self.done.tokens += len(delta.token_ids)

    def end(self) -> None:
        if self.held is not None:
            held, self.held = self.held, None
            self._append(held)
        if not self.w.deltas:  # a recording needs one delta: this one says why there is none
            raise WorkbenchError("the server sent no chunk after the opening one")

    def fail(self, message: str) -> None:
        """The last delta says why the capture stopped: an error row, or (when the stream had
        already finished) the finishing delta with ``extra.error_after_finish``."""
        from workbench.core.recording import RecordingFull

        self.done.error = message
        held, self.held = self.held, None
        if held is not None:
            try:
                return self._append(Delta(held.token_ids, held.text, held.finish_reason,
                                          extra={**held.extra, "error_after_finish": message[:2000]}))
            except RecordingFull:
                message += " (the finishing chunk did not fit in the recording)"
        if not self.w.finished:
            self.w.append(Delta((), "", "error", extra={"capture_error": message[:2000]}))
