"""`check --api responses|messages`: the client contract of that API, over its events.

Responses: a ``function_call`` item is added with ``call_id`` and ``name``; its argument
deltas join to the ``.done`` arguments, which parse as JSON unless max_tokens cut the
stream; output indexes run in order, each event on the item that is open; the stream
ends with ``response.completed`` (never aborted).
Messages: ``message_start`` first, ``message_stop`` last; every block starts, gets its
deltas and stops, in index order; ``tool_use`` has ``id`` and ``name``; the
``input_json_delta``s join to the input the SDK ends with; ``stop_reason`` agrees with
the blocks; no empty delta.
Both: a text block / message item holding only whitespace is a warning (a client shows
an empty bubble); the SDK must accept the stream; the stream and the non-streaming body
agree (``finals.final_of`` on both, compared as chat messages are). The chunking fuzz
compares these finals (``stream``) against one-token deltas.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import TYPE_CHECKING

from workbench.check import compare
from workbench.core import faces
from workbench.core.faces import finals
from workbench.core.messages import CONTRACT, COSMETIC, SEVERE, STREAM_VS_NONSTREAM, Difference, Final

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.faces.face import Face
    from workbench.core.rows import Row
    from workbench.core.session import Session


def stream(session: Session, run) -> tuple[Final, object]:
    """(what the SDK ends with, as a Final; the face) for a StreamRun's rows."""
    replay = SimpleNamespace(rows=run.rows, token_ids=run.token_ids, text=run.text)
    face = faces.run(session, replay, nonstream=False)
    client = face.client or {}
    if "object" not in client:
        return Final(error=client.get("error") or "no client object"), face
    return finals.final_of(face.api, client["object"]), face


def _step(face: Face, rows: Sequence[Row], event_index: int) -> int | None:
    for i, (start, end) in enumerate(face.spans):
        if start <= event_index < end:
            return rows[i].step
    return None


def _finding(face: Face, rows: Sequence[Row], where: int | None, field: str, detail: str, label: str, severity=SEVERE,
             a=None, b=None) -> Difference:
    step = _step(face, rows, where) if where is not None else None
    return Difference(CONTRACT, field, step, a, b, severity=severity, chunking=label,
                      detail=f"{face.api}: {detail}")


def responses_rules(face: Face, rows: Sequence[Row], label: str, cut: bool) -> list[Difference]:
    out, open_items, next_index, args = [], {}, 0, {}
    events = face.events
    for n, e in enumerate(events):
        kind = e.get("type", "")
        if kind == "error":
            out.append(_finding(face, rows, n, "events", f"the stream sent an error event: {e.get('error') or e}",
                                label))
        if kind == "response.output_item.added":
            item = e.get("item") or {}
            if e.get("output_index") != next_index:
                out.append(_finding(face, rows, n, "events", f"output_index {e.get('output_index')} added where "
                                                             f"{next_index} comes next", label))
            next_index = (e.get("output_index") or 0) + 1
            open_items[e.get("output_index")] = item.get("id")
            if item.get("type") == "function_call":
                args[item.get("id")] = []
                if not item.get("call_id") or not item.get("name"):
                    out.append(_finding(face, rows, n, "tool_calls", f"function_call item added without "
                                        f"call_id/name ({item.get('call_id')!r}, {item.get('name')!r})", label))
        elif "item_id" in e and open_items.get(e.get("output_index")) != e["item_id"]:
            out.append(_finding(face, rows, n, "events", f"{kind} for item {e['item_id']!r}, which is not the open "
                                                         f"item at output_index {e.get('output_index')}", label))
        if kind == "response.function_call_arguments.delta":
            args.setdefault(e.get("item_id"), []).append(e.get("delta") or "")
        if kind == "response.function_call_arguments.done":
            joined, done = "".join(args.get(e.get("item_id"), [])), e.get("arguments") or ""
            if joined != done:
                out.append(_finding(face, rows, n, "tool_calls", f"argument deltas join to {joined!r}, "
                                    f".done says {done!r}", label, a=joined, b=done))
            if not cut and not _is_json(done):
                out.append(_finding(face, rows, n, "tool_calls", f"{e.get('name')} arguments are not JSON: "
                                                                 f"{done!r}", label, a=done))
        if kind == "response.output_item.done":
            open_items.pop(e.get("output_index"), None)
    if not events or events[-1].get("type") != "response.completed":
        last = events[-1].get("type") if events else None
        out.append(_finding(face, rows, len(events) - 1 if events else None, "events",
                            f"the stream was aborted: it ends with {last!r}, not response.completed", label))
    return out


def messages_rules(face: Face, rows: Sequence[Row], label: str, client: dict | None) -> list[Difference]:
    out, started, stopped, partial, kinds = [], [], set(), {}, {}
    events = face.events
    if not events or events[0].get("type") != "message_start":
        out.append(_finding(face, rows, 0 if events else None, "events", "the stream does not open with "
                                                                        "message_start", label))
    for n, e in enumerate(events):
        kind, index = e.get("type", ""), e.get("index")
        if kind == "error":
            out.append(_finding(face, rows, n, "events", f"the stream sent an error event: {e.get('error')}", label))
        elif kind == "content_block_start":
            block = e.get("content_block") or {}
            if index != len(started) or (started and started[-1] not in stopped):
                out.append(_finding(face, rows, n, "events", f"block {index} starts out of order", label))
            started.append(index)
            kinds[index] = block.get("type")
            if block.get("type") == "tool_use":
                partial[index] = []
                if not block.get("id") or not block.get("name"):
                    out.append(_finding(face, rows, n, "tool_calls", f"tool_use block without id/name "
                                        f"({block.get('id')!r}, {block.get('name')!r})", label))
        elif kind == "content_block_delta":
            delta = e.get("delta") or {}
            if index not in started or index in stopped:
                out.append(_finding(face, rows, n, "events", f"a delta for block {index}, which is not open", label))
            value = delta.get("text", delta.get("partial_json", delta.get("thinking")))
            if value == "":
                out.append(_finding(face, rows, n, "events", f"an empty {delta.get('type')} (proxies and clients "
                                                             f"may choke on it)", label, severity=COSMETIC))
            if delta.get("type") == "input_json_delta":
                partial.setdefault(index, []).append(delta.get("partial_json") or "")
        elif kind == "content_block_stop":
            stopped.add(index)
        elif kind in ("message_delta", "message_stop"):
            unclosed = [i for i in started if i not in stopped]
            if unclosed:
                out.append(_finding(face, rows, n, "events", f"{kind} while block(s) {unclosed} are open", label))
    if not events or events[-1].get("type") != "message_stop":
        out.append(_finding(face, rows, len(events) - 1 if events else None, "events",
                            "the stream was aborted: it does not end with message_stop", label))
    stop = next((e.get("delta", {}).get("stop_reason") for e in events if e.get("type") == "message_delta"), None)
    has_tool = "tool_use" in kinds.values()
    if stop not in ("max_tokens", "stop_sequence", None) and (stop == "tool_use") != has_tool:
        out.append(_finding(face, rows, len(events) - 1, "finish_reason", f"stop_reason {stop!r} but "
                            f"{'a' if has_tool else 'no'} tool_use block", label, a=stop))
    final_inputs = [b.get("input") for b in (client or {}).get("content") or [] if b.get("type") == "tool_use"]
    for n, (index, parts) in enumerate(sorted(partial.items())):
        joined = "".join(parts)
        if stop == "max_tokens" and not _is_json(joined):
            continue
        sdk = final_inputs[n] if n < len(final_inputs) else None
        if not _is_json(joined) or json.loads(joined or "{}") != sdk:
            out.append(_finding(face, rows, None, "tool_calls", f"block {index}'s input_json_deltas join to "
                                f"{joined!r}; the SDK's input is {sdk!r}", label, a=joined, b=sdk))
    return out


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def findings(session: Session, result, face: Face, label: str) -> list[Difference]:
    """The API's contract over one stream, and its stream against its non-streaming body."""
    client = face.client or {}
    obj = client.get("object")
    out = contract(face, result.rows, label)
    if obj is None:
        out.append(_finding(face, result.rows, len(face.events) - 1, "events",
                            f"the SDK refused the stream: {client.get('error')}", label))
    for where in finals.whitespace_blocks(face.api, obj):
        block = finals.blocks(face.api, obj)[where]
        what = "message item" if face.api == "responses" else "text block"
        out.append(_finding(face, result.rows, _text_event(face, where), "content",
                            f"a {what} holding only whitespace ({block['text']!r}): the client shows an empty "
                            f"bubble", label, severity=COSMETIC, a=block["text"]))
    body = finals.final_of(face.api, face.response)
    if body.error is not None:
        out.append(Difference(CONTRACT, "response", None, None, body.error, chunking="nonstream",
                              detail=f"{face.api}: the non-streaming request fails: {body.error}"))
    elif obj is not None:
        out += compare.against(result.rows, finals.final_of(face.api, obj), body, STREAM_VS_NONSTREAM, label,
                               "non-stream body")
    return out


def _text_event(face: Face, block: int) -> int | None:
    """The event that opened the ``block``-th output item / content block."""
    opened = [n for n, e in enumerate(face.events)
              if e.get("type") in ("response.output_item.added", "content_block_start")]
    return opened[block] if block < len(opened) else None


def contract(face: Face, rows: Sequence[Row], label: str) -> list[Difference]:
    """The event rules alone (what the chunking fuzz re-checks per grouping)."""
    cut = any(r.finish_reason == "length" for r in rows[-1:])
    if face.api == "responses":
        return responses_rules(face, rows, label, cut)
    return messages_rules(face, rows, label, (face.client or {}).get("object"))
