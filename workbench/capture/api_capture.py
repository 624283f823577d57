"""`workbench capture --api responses|messages`: one streamed /v1/responses or /v1/messages
request from a real server (or its saved SSE log) -> a recording.

Every event is kept exactly as sent (its ``event:`` and ``data:`` lines, ``extra.events``
of the deltas) after ``events.parse`` checked it. Token ids come from the server where
the API gives them: a Responses request gets ``enable_response_messages: true``, and
vLLM's ``response.completed`` then carries the prompt's and the output's token ids
(the simple path; gpt-oss's Harmony path gives messages, not ids). The Anthropic API
carries none: the text its events show (thinking and text deltas) is tokenised here
instead, and the header says so (``token_ids: "reconstructed"``), as ``--from-sse``
does; the markup the parsers read (``<think>``, a tool call's) is not in that text.

Neither API says which token produced which event, so the deltas are one token each
(what a server without speculative decoding sends when no outputs merge), and the
server's events are laid over them in order: each delta holds the server's events
at the positions this workbench's parsers give it (the last one the rest), so that
the capture's events, joined, are the server's exactly. Replaying the capture
(``api_compare``) compares them position by position and marks the first difference.

The server is not trusted (``client``, ``stream``: the deadline, the caps); the stream
is read into memory within those caps before any line is written, then written
through the recording writer, which checks and scrubs each line. A stream that
stops early (a bad event, a limit, a cut, the server's error event) keeps what came,
then one error delta saying why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.capture import client, events as ev, tokcheck
from workbench.core import limits, secrets
from workbench.core.deltas import Delta
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from workbench.capture.capture import Captured, Options
    from workbench.core.session import Session

PATHS = {"responses": "/responses", "messages": "/messages"}
MAX_EVENTS = 4 * limits.MAX_DELTAS  # a delta opens, streams and closes an item at most
RECONSTRUCTED = ("token ids reconstructed from the events' text (the API carries none; the markup "
                 "the parsers read is not in it), one token per delta")
ONE_PER_TOKEN = "token ids from the server (response.completed, enable_response_messages), one token per delta"


@dataclass
class Read:
    """What came of one stream: every event checked, the last (terminal) one, why it stopped early."""

    events: list[ev.Event] = field(default_factory=list)
    terminal: ev.Event | None = None
    error: str | None = None


def stream_body(api: str, request: dict, model: str, ask_ids: bool = True) -> dict:
    if not isinstance(request, dict) or (api == "responses" and "input" not in request):
        raise WorkbenchError("the request has no input (a Responses request is needed)")
    if api == "messages" and not isinstance(request.get("messages"), list):
        raise WorkbenchError("the request has no messages list (an Anthropic Messages request is needed)")
    if not isinstance(model, str) or not model:
        raise WorkbenchError("the request's model must be a model name (a string)")
    body = {k: v for k, v in request.items() if not k.startswith("workbench_")}
    body.setdefault("model", model)
    body["stream"] = True
    if api == "responses" and ask_ids:
        body.setdefault("enable_response_messages", True)  # the token ids, in response.completed
    return body


def read(api: str, source: Iterator[tuple[str | None, str]], what: str) -> Read:
    got = Read()
    try:
        for n, (name, data) in enumerate(source, 1):
            e = ev.parse(api, name, data, f"{what} {n}")
            got.events.append(e)
            if len(got.events) > MAX_EVENTS:
                raise WorkbenchError(f"{what}s: more than {MAX_EVENTS:,}, more than a stream of "
                                     f"{limits.MAX_DELTAS:,} tokens has")
            if e.type in ev.TERMINAL[api]:
                got.terminal = e
                break
    except WorkbenchError as e:
        got.error = str(e)
        return got
    if got.terminal is None:
        got.error = f"stream cut: the stream ended before {' or '.join(ev.TERMINAL[api])}"
    elif got.terminal.error is not None:
        got.error = f"the server streamed an error: {got.terminal.error}"
    return got


def capture(opts: Options, api: str) -> Captured:
    from workbench.capture.capture import check_template, refuse_existing, served_model, server_origin

    out = refuse_existing(opts)
    check_template(opts)
    key = client.api_key(opts.api_key_env)
    with client.Server(opts.url, key, opts.timeout, opts.deadline) as server:
        model, version = served_model(server, opts.request)
        body = stream_body(api, opts.request, model)
        nonstream = None
        if opts.nonstream or opts.request.get("workbench_nonstream"):
            nonstream = server.post_api(PATHS[api], {**body, "stream": False})
        got = read(api, server.stream_events(PATHS[api], body), "the server's event")
        origin = server_origin(server, model, version) | {"api": api, "chunking": "token", "nonstream": nonstream}
        return write(api, got, client.scrub(body), origin, opts, out)


def _session(api: str, opts: Options, body: dict, prompt_ids: list[int] | None) -> Session:
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    plain = {k: v for k, v in body.items() if k != "stream"}
    setup = Setup(tokenizer=opts.tokenizer, parser=opts.parser, request=RequestSpec(), api=api,
                  api_request=plain, plugins=opts.plugins, chat_template=opts.chat_template,
                  chat_template_file=opts.chat_template_file, trust_template=opts.trust_template)
    return Session(setup, prompt_token_ids=prompt_ids)


def token_ids(api: str, got: Read, session: Session) -> tuple[list[int], str, str]:
    """(output ids, "server" | "reconstructed", the finish reason)."""
    from workbench.core.deltas import encode_text, eos_id

    finish = ev.finish(api, got.terminal) if got.error is None else "error"
    if api == "messages" and finish == "stop":
        finish = ev.stop_reason(got.events)
    _, ids = ev.raw_tokens(got.terminal) if api == "responses" else (None, None)
    if ids is not None:
        return ids, "server", finish
    text = ev.visible_text(got.events)
    limits.check_text(text, "the events' text")
    if secrets.active() and secrets.spelled_in(text):
        raise WorkbenchError("the server's events spell a secret (its API key or URL password): "
                             "the capture keeps nothing of them")
    ids = encode_text(session.tokenizer, text)
    eos = eos_id(session.tokenizer)
    if finish == "stop" and eos is not None:
        ids.append(eos)
    return ids, "reconstructed", finish


def write(api: str, got: Read, body: dict, origin: dict, opts: Options, out: Path) -> Captured:
    from workbench.capture.capture import Captured, header_for
    from workbench.core import faces, recording as rec, request as req
    from workbench.core.deltas import deltas_from_ids, eos_id

    if not got.events:
        raise WorkbenchError(got.error or "the server sent no event")
    secrets.refuse_spelled([e.data for e in got.events], "the server's events")
    prompt, _ = ev.raw_tokens(got.terminal) if api == "responses" else (None, None)
    session = _session(api, opts, body, prompt)
    ids, source, finish = token_ids(api, got, session)
    notes = [ONE_PER_TOKEN if source == "server" else RECONSTRUCTED]
    if prompt is not None:
        local = (list(session.prompt_ids) if _harmony(session) else  # Harmony renders no chat template
                 req.render_prompt(session.tokenizer, session.setup.request, opts.chat_template, opts.trust_template))
        notes += tokcheck.check(session.tokenizer, opts.tokenizer, prompt, ids, local)
    notes += _prompt_size_note(api, got.events, session)
    tokcheck.check(session.tokenizer, opts.tokenizer, [], ids, [])
    eos = eos_id(session.tokenizer)
    made = list(deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params, [[t] for t in ids],
                                finish_reason=None if finish == "error" else finish,
                                stop_terminated=finish == "stop" and bool(ids) and ids[-1] == eos))
    spans = faces.run(session, session.replay(made), client=False, nonstream=False).spans if made else []
    origin = {**origin, "token_ids": source, "note": notes[0], "notes": notes}
    header = header_for(session, body, origin, opts) | {"api": api, "api_request": session.setup.api_request}
    header["request"] = session.setup.request.to_dict()
    done = Captured(out, notes=notes, header=header, error=got.error)
    kept = [e.sse for e in got.events]
    with rec.RecordingWriter(out, header, overwrite=opts.force) as w:
        for n, d in enumerate(made):
            start, end = spans[n]
            mine = kept[start:] if n == len(made) - 1 and got.error is None else kept[start:end]
            w.append(Delta(d.token_ids, d.text, d.finish_reason, extra={"events": mine}))
            done.chunks += 1
            done.tokens += len(d.token_ids)
        if got.error is not None:
            rest = kept[spans[-1][1]:] if made else kept
            w.append(Delta((), "", "error", extra={"events": rest, "capture_error": got.error[:2000]}))
    return done


def _harmony(session: Session) -> bool:
    from workbench.core import vllm_compat as compat

    return compat.is_harmony_class(session.parser_cls)


def _prompt_size_note(api: str, events: list[ev.Event], session: Session) -> list[str]:
    """The server's count of prompt tokens against the prompt rendered here."""
    first = events[0].obj
    usage = ((first.get("message") or {}).get("usage") if api == "messages"
             else None) or {}
    n = usage.get("input_tokens")
    if isinstance(n, int) and n != len(session.prompt_ids):
        return [f"chat-template difference: the server counted {n} prompt tokens, the prompt rendered "
                f"here has {len(session.prompt_ids)}"]
    return []
