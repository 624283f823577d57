"""`workbench capture`: one streamed chat completion from a real server -> a recording.

The request gets ``stream: true`` and ``return_token_ids: true``, so every
engine output is one chunk carrying its token ids. Each chunk becomes one delta:
its ids, the text vLLM's detokenizer releases for them here, and the chunk
exactly as the server sent it (``extra.chunk``). The header has the server's
prompt ids, model, vLLM version, opening chunk and the request without secrets.
Deltas are flushed as they arrive; a failure mid-stream adds an error delta
(finish_reason "error", ``extra.capture_error``) and is then reported.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from workbench.capture import client, tokcheck
from workbench.core.deltas import Delta
from workbench.core.parsers import ParserSpec
from workbench.errors import WorkbenchError


@dataclass
class Options:
    url: str
    request: dict
    output: str
    tokenizer: str = "qwen3"
    parser: ParserSpec = field(default_factory=lambda: ParserSpec(None, None))
    api_key_env: str | None = None
    timeout: float = 60.0
    nonstream: bool = False
    progress: bool = True
    plugins: tuple[str, ...] = ()
    force: bool = False  # overwrite an existing output file


@dataclass
class Captured:
    path: Path
    chunks: int = 0
    tokens: int = 0
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    header: dict = field(default_factory=dict)


def raw_finish(finish: str | None) -> str | None:
    """The engine's finish reason behind the client's ("tool_calls" is the server's "stop")."""
    return "stop" if finish == "tool_calls" else finish


class TextOfIds:
    """vLLM's incremental detokenizer over the server's chunks (the parser's delta_text)."""

    def __init__(self, tokenizer, prompt_ids, params) -> None:
        from vllm.v1.engine.detokenizer import IncrementalDetokenizer

        request = SimpleNamespace(request_id="capture", sampling_params=params,
                                  prompt_token_ids=list(prompt_ids))
        self._detok = IncrementalDetokenizer.from_new_request(tokenizer, request)
        self._eos = getattr(tokenizer, "eos_token_id", None)

    def text(self, ids: list[int], finish: str | None) -> str:
        stop_eos = finish == "stop" and bool(ids) and ids[-1] == self._eos
        self._detok.update(list(ids), stop_terminated=stop_eos)
        return self._detok.get_next_output_text(finished=finish is not None, delta=True)


def stream_body(request: dict, model: str) -> dict:
    if not isinstance(request.get("messages"), list):
        raise WorkbenchError("the request has no messages list (an OpenAI chat request is needed)")
    if (request.get("n") or 1) != 1:
        raise WorkbenchError("capture handles one choice: remove n from the request")
    body = {k: v for k, v in request.items() if not k.startswith("workbench_")}
    body.setdefault("model", model)
    body.update(stream=True, return_token_ids=True)
    return body


def capture(opts: Options) -> Captured:
    out = Path(opts.output)
    if out.exists() and not opts.force:
        raise WorkbenchError(f"{out} exists: give another name, or --force to overwrite it")
    key = client.api_key(opts.api_key_env)
    with client.Server(opts.url, key, opts.timeout) as server:
        models = server.models()
        model = opts.request.get("model") or (models[0] if models else None)
        if not model:
            raise WorkbenchError("the server lists no model and the request names none")
        version = server.version()
        body = stream_body(opts.request, model)
        nonstream = None
        if opts.nonstream or opts.request.get("workbench_nonstream"):
            plain = {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
            nonstream = server.post_chat({**plain, "stream": False})
        origin = {"kind": "capture", "url": server.url, "model": model,
                  "server_vllm_version": version, "token_ids": "server", "chunking": "server",
                  "nonstream": nonstream}
        return _write(server.stream_chat(body), client.scrub(body, key), origin, opts, out)


def _session(opts: Options, body: dict, prompt_ids: list[int]):
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    setup = Setup(tokenizer=opts.tokenizer, parser=opts.parser, request=RequestSpec.from_dict(body),
                  plugins=opts.plugins)
    return Session(setup, prompt_token_ids=prompt_ids)


def header_for(session, body: dict, origin: dict, opts: Options) -> dict:
    from workbench.core import recording as rec, trust
    from workbench.core.tokenizers import ensure_tokenizer, tokenizer_sha256

    return rec.make_header(opts.tokenizer, tokenizer_sha256(ensure_tokenizer(opts.tokenizer)), body,
                           session.prompt_ids, origin, trust.provenance(opts.parser, opts.plugins))


def _write(chunks, body: dict, origin: dict, opts: Options, out: Path) -> Captured:
    from workbench.core import recording as rec
    from workbench.core import request as req

    it = iter(chunks)
    first = next(it, None)
    opening = _json(first) if first is not None else None
    if opening is None or not isinstance(opening.get("prompt_token_ids"), list):
        raise WorkbenchError("the server's first chunk has no prompt_token_ids: not a vLLM server "
                             "with return_token_ids (save its SSE and use --from-sse)")
    session = _session(opts, body, opening["prompt_token_ids"])
    local = req.render_prompt(session.tokenizer, session.setup.request)
    notes = tokcheck.check(session.tokenizer, opts.tokenizer, session.prompt_ids, [], local)
    origin = {**origin, "opening_chunk": first, "notes": notes}
    header = header_for(session, body, origin, opts)
    texts = TextOfIds(session.tokenizer, session.prompt_ids, session.params)
    done = Captured(out, notes=notes, header=header)
    progress = Progress(opts.progress)
    held: Delta | None = None  # the finishing delta waits for the usage chunk
    with rec.RecordingWriter(out, header, overwrite=opts.force) as w:
        try:
            for raw in it:
                obj = _json(raw)
                if "error" in obj and not obj.get("choices"):
                    held = _flush(w, held)
                    message = (obj["error"] or {}).get("message") if isinstance(obj["error"], dict) else obj["error"]
                    w.append(Delta((), "", "error", extra={"chunk": raw,
                                                           "capture_error": f"server error chunk: {message}"}))
                    done.error = f"the server streamed an error: {message}"
                    continue
                choices = obj.get("choices") or []
                if not choices:
                    if held is not None:
                        held = Delta(held.token_ids, held.text, held.finish_reason,
                                     extra={**held.extra, "usage_chunk": raw})
                    continue
                choice = choices[0]
                ids = choice.get("token_ids") or []
                tokcheck.check(session.tokenizer, opts.tokenizer, [], ids, [])
                finish = raw_finish(choice.get("finish_reason"))
                delta = Delta(tuple(ids), texts.text(ids, finish), finish, extra={"chunk": raw})
                held = _flush(w, held)
                if finish is None:
                    w.append(delta)
                else:
                    held = delta
                done.chunks += 1
                done.tokens += len(ids)
                progress.show(done)
            _flush(w, held)
        except WorkbenchError as e:
            _flush(w, held)
            done.error = str(e)
            w.append(Delta((), "", "error", extra={"capture_error": str(e)}))
        finally:
            progress.end(done)
    return done


def _flush(writer, held: Delta | None) -> None:
    if held is not None:
        writer.append(held)
    return None


def _json(raw: str) -> dict:
    try:
        obj = json.loads(raw)
    except ValueError:
        raise WorkbenchError(f"the server sent a chunk that is not JSON: {raw[:80]!r}") from None
    if not isinstance(obj, dict):
        raise WorkbenchError(f"the server sent a chunk that is not a JSON object: {raw[:80]!r}")
    return obj


class Progress:
    """One self-overwriting line on stderr while the stream runs."""

    def __init__(self, on: bool) -> None:
        self.on, self.t0, self.last = on, time.perf_counter(), 0.0

    def show(self, c: Captured) -> None:
        now = time.perf_counter()
        if self.on and now - self.last >= 0.2:
            self.last = now
            sys.stderr.write(f"\rcapture: {c.chunks} chunks, {c.tokens} tokens, {now - self.t0:.1f} s")
            sys.stderr.flush()

    def end(self, c: Captured) -> None:
        if self.on and self.last:
            sys.stderr.write(f"\rcapture: {c.chunks} chunks, {c.tokens} tokens, "
                             f"{time.perf_counter() - self.t0:.1f} s\n")
            sys.stderr.flush()
