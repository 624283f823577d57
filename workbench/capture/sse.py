"""A saved SSE log (``curl -N ... > log.sse``) as a recording, without server token ids.

The chunks' visible text (reasoning + content) is taken as what the model wrote
and tokenised here; each token goes to the chunk its text ends in, so the log's
chunking survives. The header says "token ids reconstructed, chunking from SSE".
Exact only when the server ran without parsers (its content is the raw text).

The log comes through the reading door (a regular file, a cap per line and on its size),
each chunk is checked by ``chunks.parse``, and the whole is linear in its length (one
detokenizer pass places the tokens).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.capture import chunks, stream, tokcheck
from workbench.core import door, limits, secrets
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike

MARK = "token ids reconstructed, chunking from SSE"


@dataclass(frozen=True)
class Part:
    """What a recording keeps of one logged chunk."""

    raw: str
    text: str  # reasoning + content
    finish_reason: str | None
    role: bool  # the opening chunk's role delta
    has_choices: bool
    usage: bool
    prompt_token_ids: list[int] | None
    model: str | None


def log_lines(path: str | Path) -> Iterator[door.Line]:
    """A saved log's lines through the door (a regular file, a cap per line and on its size,
    CR, LF and CRLF). A log saved from a gzip or deflate answer (``curl`` without
    ``--compressed``) is read decompressed, in bounded steps, under the same caps."""
    p = Path(path)
    what = f"SSE log {p}"
    magic = door.head(p, "SSE log", 2, limits.MAX_RECORDING_BYTES)
    encoding = "gzip" if magic == b"\x1f\x8b" else "deflate" if magic[:1] == b"\x78" and magic[1:] in (
        b"\x01", b"\x9c", b"\xda") else None
    if encoding is None:
        lines = door.lines(p, "SSE log", max_bytes=limits.MAX_RECORDING_BYTES, max_line=stream.MAX_LINE_BYTES,
                           strip_cr=True)
    else:
        raw = io.BytesIO(door.read_bytes(p, "SSE log", limits.MAX_RECORDING_BYTES))
        blocks = _named(stream.decoded(raw.read, encoding, stream.MAX_STREAM_BYTES), f"{what} ({encoding})")
        lines = door.stream_lines(blocks, f"{what} ({encoding}, decompressed)", max_bytes=limits.MAX_RECORDING_BYTES,
                                  max_line=stream.MAX_LINE_BYTES, strip_cr=True)
    return stream.counted(lines, what)


def _named(blocks: Iterator[bytes], what: str) -> Iterator[bytes]:
    try:
        yield from blocks
    except WorkbenchError as e:  # decoded's words are a server's: say which file
        words = str(e).replace("the server's ", "its ").replace("the server sent", "it holds")
        raise WorkbenchError(f"{what}: {words}") from None


def read_chunks(path: str | Path) -> list[Part]:
    p = Path(path)
    what = f"SSE log {p}"
    parts: list[Part] = []
    for n, data in stream.events(log_lines(p)):
        if data == "[DONE]":
            continue
        c = chunks.parse(data, f"{what} line {n}")
        if c.error:
            raise WorkbenchError(f"{what} line {n}: the server streamed an error: {c.error}")
        d = c.delta
        model = c.obj.get("model")
        parts.append(Part(c.raw, (d.get("reasoning") or d.get("reasoning_content") or "")
                          + (d.get("content") or ""), c.finish_reason, bool(d.get("role")),
                          bool(c.choices), c.obj.get("usage") is not None, c.prompt_token_ids,
                          model if isinstance(model, str) else None))
        if len(parts) > limits.MAX_DELTAS:
            raise WorkbenchError(f"{what}: more than {limits.MAX_DELTAS:,} chunks, the most one "
                                 f"stream may have")
    if not any(c.has_choices for c in parts):
        raise WorkbenchError(f"{what}: no chat.completion.chunk with choices in it")
    return parts


def groups_for(tokenizer: TokenizerLike, pieces: list[str]) -> tuple[list[int], list[list[int]]]:
    """(ids of the joined text, one id group per piece: a token goes where its text ends).

    One pass of a tokenizers ``DecodeStream`` (the one vLLM's fast detokenizer steps; special
    tokens kept, as the text has them) gives each token's text; a token that completes no
    character yet (part of a multi-byte one) goes with the token that completes it."""
    from workbench.core.deltas import encode_text

    text = "".join(pieces)
    limits.check_text(text, "the SSE log's text")
    ids = encode_text(tokenizer, text)
    ends, at = [], 0
    for piece in pieces:
        at += len(piece)
        ends.append(at)
    groups: list[list[int]] = [[] for _ in pieces]
    k, done, waiting = 0, 0, []
    for t, piece in zip(ids, token_texts(tokenizer, ids)):
        waiting.append(t)
        if not piece:
            continue
        done += len(piece)
        while k < len(ends) - 1 and done > ends[k]:
            k += 1
        groups[k] += waiting
        waiting = []
    groups[k] += waiting
    return ids, groups


def token_texts(tokenizer: TokenizerLike, ids: list[int]):
    """Each token's text as an incremental detokenizer releases it, in linear time."""
    backend = getattr(tokenizer, "backend_tokenizer", None)  # a Hugging Face fast tokenizer's
    if backend is not None:
        from tokenizers.decoders import DecodeStream

        stream_ = DecodeStream(skip_special_tokens=False)
        return [stream_.step(backend, t) or "" for t in ids]
    from vllm.sampling_params import SamplingParams

    from workbench.core.deltas import deltas_from_ids

    params = SamplingParams(skip_special_tokens=False, spaces_between_special_tokens=False)
    return [d.text for d in deltas_from_ids(tokenizer, ids, [], params, [[t] for t in ids],
                                            stop_terminated=False)]


def from_sse(opts, log_path: str | Path):
    """Write ``opts.output`` from a saved SSE log; returns a ``capture.Captured``."""
    from workbench.capture.capture import (Captured, _session, check_template, header_for, refuse_existing,
                                           stream_body)
    from workbench.core import recording as rec
    from workbench.core.deltas import Delta, deltas_from_ids, eos_id

    out = refuse_existing(opts)
    check_template(opts)
    chunk_list = read_chunks(log_path)
    opening = next(c for c in chunk_list if c.has_choices)
    body = stream_body(opts.request, opts.request.get("model") or opening.model or "unknown")
    body.pop("return_token_ids")
    session = _session(opts, body, opening.prompt_token_ids or None)
    tokcheck.check(session.tokenizer, opts.tokenizer, session.prompt_ids, [], session.prompt_ids)
    parts = [c for c in chunk_list if c.has_choices]
    if parts[0].role:
        parts = parts[1:]  # the opening role chunk carries no model text
    if not parts:
        raise WorkbenchError(f"SSE log {log_path}: only an opening chunk, no deltas")
    if any(c.finish_reason for c in parts[:-1]):
        raise WorkbenchError(f"SSE log {log_path}: a chunk with choices after the finishing one")
    ids, groups = groups_for(session.tokenizer, [c.text for c in parts])
    finish = parts[-1].finish_reason or "stop"
    eos = eos_id(session.tokenizer)
    if finish == "stop" and eos is not None:
        groups[-1].append(eos)
        ids.append(eos)
    origin = {"kind": "capture", "url": None, "model": body["model"], "server_vllm_version": None,
              "token_ids": "reconstructed", "chunking": "sse", "note": MARK,
              "sse_log": str(log_path), "opening_chunk": opening.raw, "notes": [MARK]}
    header = header_for(session, body, origin, opts)
    made = deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params, groups,
                           finish_reason=finish, stop_terminated=finish == "stop" and eos is not None)
    usage = next((c.raw for c in chunk_list if not c.has_choices and c.usage), None)
    done = Captured(out, notes=[MARK], header=header)
    secrets.refuse_spelled([c.raw for c in chunk_list], f"SSE log {log_path}: the chunks")
    with rec.RecordingWriter(out, header, overwrite=opts.force) as w:
        for n, (m, c) in enumerate(zip(made, parts)):
            extra = {"chunk": c.raw}
            if usage and n == len(parts) - 1:
                extra["usage_chunk"] = usage
            w.append(Delta(m.token_ids, m.text, m.finish_reason, extra=extra))
            done.chunks += 1
            done.tokens += len(m.token_ids)
    return done


def from_api_sse(opts, api: str, log_path: str | Path):
    """``--api responses|messages --from-sse LOG``: a saved Responses or Anthropic SSE log
    (``curl -N ... > log.sse``) as a capture, read and written as a live one is."""
    from workbench.capture import api_capture
    from workbench.capture.capture import refuse_existing

    out = refuse_existing(opts)
    p = Path(log_path)
    what = f"SSE log {p}"
    source = ((name, data) for _, name, data in stream.named_events(log_lines(p)))
    got = api_capture.read(api, source, f"{what}: event")
    body = api_capture.stream_body(api, opts.request, opts.request.get("model") or _model_of(got) or "unknown",
                                   ask_ids=False)  # the log holds what the request asked, no more
    origin = {"kind": "capture", "api": api, "url": None, "model": body["model"], "server_vllm_version": None,
              "chunking": "token", "sse_log": str(log_path), "nonstream": None}
    return api_capture.write(api, got, body, origin, opts, out)


def _model_of(got) -> str | None:
    first = got.events[0].obj if got.events else {}
    model = (first.get("response") or first.get("message") or {}).get("model")
    return model if isinstance(model, str) else None
