"""A capture replayed here: the server's chunks beside this vLLM's, first difference marked.

``deltas`` re-detokenizes the server's own id groups with the local session (so
the parser gets exactly the delta_text this vLLM would give it); ``compare``
lines up, per row, what the server sent with what the rows predict. Chunks are
compared as JSON without the fields that differ per request (id, created,
model, system_fingerprint, tool-call ids) and without null fields. ``likely_cause`` names the finding.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.capture import chunks
from workbench.capture.comparison import Comparison
from workbench.core.deltas import Delta, deltas_from_ids
from workbench.core.messages import SERVER, SEVERE, Difference
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any
    from workbench.core.recording import Recording
    from workbench.core.session import Session
    from workbench.core.session import Setup

VOLATILE = ("id", "created", "model", "system_fingerprint", "metrics")


def is_capture(header: dict) -> bool:
    return (header.get("origin") or {}).get("kind") == "capture"


def _str_or_none(v: Any) -> bool:
    return v is None or isinstance(v, str)


_ORIGIN = {  # what a capture's origin must hold before anything reads it (a header may be forged)
    "opening_chunk": (_str_or_none, "the opening chunk's JSON text or null"),
    "server_vllm_version": (_str_or_none, "a version string or null"),
    "server_frontend": (_str_or_none, 'the server\'s frontend ("python", "vllm-rs VERSION") or null'),
    "token_ids": (lambda v: v in ("server", "reconstructed"), '"server" or "reconstructed"'),
    "notes": (lambda v: v is None or (isinstance(v, list) and all(isinstance(n, str) for n in v)),
              "a list of strings"),
}


def checked(recording: Recording):
    """``recording`` once its capture origin and every stored chunk parse (one line if not)."""
    origin = recording.header.get("origin") or {}
    for key, (ok, what) in _ORIGIN.items():
        if not ok(origin.get(key)):
            raise WorkbenchError(f"capture header: origin.{key} must be {what}")
    if origin.get("api") is not None:  # a Responses or Anthropic capture: its events, not chunks
        from workbench.capture import api_compare

        if not api_compare.is_api_capture(recording.header):
            raise WorkbenchError("capture header: origin.api must be \"responses\" or \"messages\"")
        api_compare.stored(recording)
        return recording
    if origin.get("opening_chunk") is not None:
        chunks.parse(origin["opening_chunk"], "capture header: origin.opening_chunk")
    for step, d in enumerate(recording.deltas, 1):
        for key in ("chunk", "usage_chunk"):
            raw = d.extra.get(key)
            if raw is not None:
                if not isinstance(raw, str):
                    raise WorkbenchError(f"capture delta {step}: extra.{key} must be the chunk's JSON text")
                chunks.parse(raw, f"capture delta {step}: extra.{key}")
        if "capture_error" in d.extra and not isinstance(d.extra["capture_error"], str):
            raise WorkbenchError(f"capture delta {step}: extra.capture_error must be a string")
    return recording


def deltas(session: Session, recording: Recording) -> tuple[list[Delta], list[str]]:
    """(the server's chunking with the text this vLLM's detokenizer releases for it, the
    tokenizer check's notes); a tokenizer that is not the server's raises."""
    from workbench.capture import tokcheck
    from workbench.core import request as req

    origin = checked(recording).header.get("origin") or {}
    notes = list(origin.get("notes") or [])
    if origin.get("token_ids") == "server":
        notes = tokcheck.check(
            session.tokenizer, session.setup.tokenizer, session.prompt_ids, recording.token_ids,
            req.render_prompt(session.tokenizer, session.setup.request, session.setup.chat_template,
                              session.setup.trust_template))
    body = [d for d in recording.deltas if "capture_error" not in d.extra]
    if not body:
        return list(recording.deltas), notes
    ids = [t for d in body for t in d.token_ids]
    eos = getattr(session.tokenizer, "eos_token_id", None)
    finish = body[-1].finish_reason
    made = deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params,
                           [d.token_ids for d in body], finish_reason=finish or "stop",
                           stop_terminated=finish == "stop" and bool(ids) and ids[-1] == eos)
    out = [Delta(m.token_ids, m.text, d.finish_reason, d.engine_steps, d.extra)
           for m, d in zip(made, body)]
    return out + [d for d in recording.deltas if "capture_error" in d.extra], notes


def _no_nulls(value):
    """``"logprobs": null`` and no ``logprobs`` read alike to a client: Python's server writes
    the nulls, vllm-rs leaves them out."""
    if isinstance(value, dict):
        return {k: _no_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_no_nulls(v) for v in value]
    return value


def normal(chunk: str | None):
    """A chunk without the fields that differ per request (``chunks.parse`` checked its shape)
    and without null fields."""
    if chunk is None:
        return None
    obj = _no_nulls(chunks.parse(chunk).obj)
    for k in VOLATILE:
        obj.pop(k, None)
    for choice in obj.get("choices") or []:
        for tc in (choice.get("delta") or {}).get("tool_calls") or []:
            if tc.get("id"):
                tc["id"] = "(id)"
    return obj


def step(n: int, server: list[str], here: list[str]) -> Difference:
    """One step: the server's chunks (a) against the ones this vLLM's rows predict (b)."""
    same = [normal(c) for c in server] == [normal(c) for c in here]
    return Difference(SERVER, None, n, server, here, severity=None if same else SEVERE)


def server_chunks(recording: Recording, index: int) -> list[str]:
    d = recording.deltas[index]
    opening = recording.header["origin"].get("opening_chunk")
    out = [opening] if index == 0 and opening is not None else []
    out += [c for c in (d.extra.get("chunk"), d.extra.get("usage_chunk")) if c]
    return out


def compare(result, recording: Recording, here: str = "?", notes: list[str] | None = None) -> Comparison:
    """``here``: the local parser pair, e.g. "hermes+qwen3" (named in the cause); ``notes``:
    the tokenizer check's notes for this replay (from ``deltas``)."""
    checked(recording)
    if len(result.rows) != len(recording.deltas):
        raise WorkbenchError("a capture compares with the server only in its own chunking "
                             "(drop --chunking; `workbench check` fuzzes it)")
    origin = dict(recording.header.get("origin") or {})
    if notes is not None:
        origin["notes"] = notes
    steps = []
    for i, r in enumerate(result.rows):
        d = recording.deltas[i]
        cut = "capture_error" in d.extra and not d.extra.get("chunk")  # nothing came from the server
        steps.append(step(r.step, [] if cut else server_chunks(recording, i), [] if cut else r.chunks))
    first = next((s.step for s in steps if not s.same), None)
    cause = likely_cause(steps, first, origin, here) if first is not None else None
    return Comparison(steps, first, cause, origin.get("server_vllm_version"),
                      list(origin.get("notes") or []))


def _delta_of(raw_chunks: list[str]) -> dict:
    out: dict = {}
    for c in raw_chunks:
        for choice in chunks.parse(c).choices:
            for k, v in (choice.get("delta") or {}).items():
                if v not in (None, "", []) and k != "role":
                    out.setdefault(k, v)
    return out


def likely_cause(steps: list[Difference], first: int, origin: dict, here_parser: str) -> str:
    """The likeliest reason the server's chunks differ from this vLLM's rows."""
    from workbench.core.vllm_version import vllm_version

    server_v, here_v = origin.get("server_vllm_version"), vllm_version()
    notes = [n for n in origin.get("notes") or [] if n.startswith("chat-template")]
    at = next(s for s in steps if s.step == first)
    if any(c.startswith('{"error"') for c in at.a):
        return f"the server streamed an error at step {first}"
    # which fields each side ever sends, over the whole stream
    server = _delta_of([c for s in steps for c in s.a])
    here = _delta_of([c for s in steps for c in s.b])
    if "tool_calls" in server and "tool_calls" not in here and "content" in here:
        return ("server flag: the server parses tool calls here but this replay has no tool parser "
                "(the server runs --enable-auto-tool-choice --tool-call-parser; pass the same "
                "--tool-parser, or a --plugin)")
    if "tool_calls" in here and "tool_calls" not in server and "content" in server:
        return ("server flag: this replay parses tool calls the server left in content (the server "
                "runs without --enable-auto-tool-choice, another --tool-call-parser, or tool_choice none)")
    if ("reasoning" in server) != ("reasoning" in here):
        side = "the server" if "reasoning" in server else "this replay"
        return f"parser name: only {side} splits reasoning (a different --reasoning-parser)"
    if notes:
        return notes[0]
    if server_v and server_v != here_v:
        return f"version skew: the server runs vLLM {server_v}, this workbench {here_v}"
    return (f"parser difference at step {first}: the server's parser behaves otherwise than "
            f"{here_parser} here (another parser name, a plugin, or its options)")


def diagnosis(setup: Setup, recording: Recording):
    """doctor's finding for a capture: where and (likely) why the server differs, or None."""
    from workbench.diagnosis.report import PROBLEM, Diagnosis
    from workbench.core.session import Session

    session = Session(setup, prompt_token_ids=recording.prompt_token_ids or None)
    made, notes = deltas(session, recording)
    result = session.replay(made)
    here = f"{setup.parser.tool_parser}+{setup.parser.reasoning_parser}"
    if (recording.header.get("origin") or {}).get("api") is not None:
        from workbench.capture import api_compare
        from workbench.core import faces

        face = faces.run(session, result)
        if face is None:
            raise WorkbenchError(f"a {recording.header['origin']['api']} capture is compared on its own API "
                                 f"(drop --api chat)")
        cmp = api_compare.compare(face, result.rows, recording, here, notes)
    else:
        cmp = compare(result, recording, here, notes)
    if cmp.first_difference is None:
        return None
    return Diagnosis("server_differs", PROBLEM,
                     f"the server's {cmp.unit} "
                     f"differ from this vLLM's from step {cmp.first_difference}: "
                     f"{cmp.cause}",
                     fix="`workbench replay CAPTURE` shows both side by side",
                     evidence={"first_difference": cmp.first_difference,
                               "server_vllm_version": cmp.server_version})
