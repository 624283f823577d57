"""A saved SSE log (``curl -N ... > log.sse``) as a recording, without server token ids.

The chunks' visible text (reasoning + content) is taken as what the model wrote
and tokenised here; each token goes to the chunk its text ends in, so the log's
chunking survives. The header says "token ids reconstructed, chunking from SSE".
Exact only when the server ran without parsers (its content is the raw text).
"""

from __future__ import annotations

import json
from pathlib import Path

from workbench.errors import WorkbenchError

MARK = "token ids reconstructed, chunking from SSE"


def read_chunks(path: str | Path) -> list[dict]:
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise WorkbenchError(f"SSE log {p}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise WorkbenchError(f"SSE log {p}: not UTF-8 text") from None
    chunks = []
    for n, line in enumerate(lines, 1):
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            obj = json.loads(line[5:])
        except ValueError as e:
            raise WorkbenchError(f"SSE log {p} line {n}: invalid JSON ({e})") from None
        if not isinstance(obj, dict):
            raise WorkbenchError(f"SSE log {p} line {n}: expected a JSON object")
        obj["_raw"] = line[5:].strip()
        chunks.append(obj)
    if not any(c.get("choices") for c in chunks):
        raise WorkbenchError(f"SSE log {p}: no chat.completion.chunk with choices in it")
    return chunks


def visible_text(choice: dict) -> str:
    d = choice.get("delta") or {}
    return (d.get("reasoning") or d.get("reasoning_content") or "") + (d.get("content") or "")


def groups_for(tokenizer, pieces: list[str]) -> tuple[list[int], list[list[int]]]:
    """(ids of the joined text, one id group per piece: a token goes where its text ends)."""
    text = "".join(pieces)
    ids = list(tokenizer.encode(text, add_special_tokens=False))
    ends, at = [], 0
    for piece in pieces:
        at += len(piece)
        ends.append(at)
    groups: list[list[int]] = [[] for _ in pieces]
    k, done = 0, 0
    for i, t in enumerate(ids):
        done = len(tokenizer.decode(ids[:i + 1], skip_special_tokens=False))
        while k < len(ends) - 1 and done > ends[k]:
            k += 1
        groups[k].append(t)
    return ids, groups


def from_sse(opts, log_path: str | Path):
    """Write ``opts.output`` from a saved SSE log; returns a ``capture.Captured``."""
    from workbench.capture.capture import Captured, _session, header_for, raw_finish, stream_body
    from workbench.core import recording as rec
    from workbench.core.deltas import Delta, deltas_from_ids, eos_id

    out = Path(opts.output)
    if out.exists() and not opts.force:
        raise WorkbenchError(f"{out} exists: give another name, or --force to overwrite it")
    chunks = read_chunks(log_path)
    opening = next((c for c in chunks if c.get("choices")), {})
    body = stream_body(opts.request, opts.request.get("model") or opening.get("model") or "unknown")
    body.pop("return_token_ids")
    session = _session(opts, body, opening.get("prompt_token_ids") or None)
    parts = [c for c in chunks if c.get("choices")]
    if parts and parts[0]["choices"][0].get("delta", {}).get("role"):
        parts = parts[1:]  # the opening role chunk carries no model text
    if not parts:
        raise WorkbenchError(f"SSE log {log_path}: only an opening chunk, no deltas")
    pieces = [visible_text(c["choices"][0]) for c in parts]
    ids, groups = groups_for(session.tokenizer, pieces)
    finish = raw_finish(parts[-1]["choices"][0].get("finish_reason")) or "stop"
    eos = eos_id(session.tokenizer)
    if finish == "stop" and eos is not None:
        groups[-1].append(eos)
        ids.append(eos)
    origin = {"kind": "capture", "url": None, "model": body["model"], "server_vllm_version": None,
              "token_ids": "reconstructed", "chunking": "sse", "note": MARK,
              "sse_log": str(log_path), "opening_chunk": opening.get("_raw"), "notes": [MARK]}
    header = header_for(session, body, origin, opts)
    made = deltas_from_ids(session.tokenizer, ids, session.prompt_ids, session.params, groups,
                           finish_reason=finish, stop_terminated=finish == "stop" and eos is not None)
    usage = next((c["_raw"] for c in chunks if not c.get("choices") and c.get("usage")), None)
    done = Captured(out, notes=[MARK], header=header)
    with rec.RecordingWriter(out, header, overwrite=opts.force) as w:
        for n, (m, c) in enumerate(zip(made, parts)):
            extra = {"chunk": c["_raw"]}
            if usage and n == len(parts) - 1:
                extra["usage_chunk"] = usage
            w.append(Delta(m.token_ids, m.text, m.finish_reason, extra=extra))
            done.chunks += 1
            done.tokens += len(m.token_ids)
    return done
