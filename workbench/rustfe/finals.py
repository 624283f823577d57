"""What a client holds at the end of a Rust-lane exchange: the non-streaming body's message,
and for Responses (and Messages) the API face over the frontend's own events.

Read from the frontend's JSON only (``door.parse_json``); the Responses body is read by
``core.faces.finals`` exactly as the Python face's is, so the two compare field by field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.messages import Final, ToolCall

if TYPE_CHECKING:
    from workbench.core.faces.face import Face
    from workbench.rustfe.core import Exchange
    from workbench.rustfe.lane import RustResult


def _json(body: bytes) -> Any:
    from workbench.core import door
    from workbench.errors import WorkbenchError

    try:
        return door.parse_json(body.decode("utf-8", "replace"), "vllm-rs's answer")
    except WorkbenchError as e:
        return {"error": {"message": str(e)}}


def error_of(obj: Any, status: int) -> str | None:
    if status == 200 and not (isinstance(obj, dict) and obj.get("error") is not None and "choices" not in obj
                              and "output" not in obj):
        return None
    err = obj.get("error") if isinstance(obj, dict) else obj
    message = err.get("message") if isinstance(err, dict) else err
    return f"HTTP {status}: {message}"


def nonstream_final(api: str, ex: Exchange) -> Final:
    """The non-streaming body as a ``Final`` (the HTTP error as its ``error``)."""
    obj = _json(ex.body)
    error = error_of(obj, ex.status)
    if error is not None:
        return Final(error=error)
    if api != "chat":
        from workbench.core.faces import finals

        return finals.final_of(api, obj)
    choice = (obj.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    calls = tuple(ToolCall(i, tc.get("id"), (tc.get("function") or {}).get("name"),
                           (tc.get("function") or {}).get("arguments"))
                  for i, tc in enumerate(msg.get("tool_calls") or ()))
    return Final(msg.get("reasoning", msg.get("reasoning_content")), msg.get("content"), calls,
                 choice.get("finish_reason"), usage=obj.get("usage"))


def face(result: RustResult) -> Face:
    """The Responses / Messages face of the stream: the frontend's events (spans per row),
    its non-streaming body, and what the official SDK makes of the stream's bytes."""
    from workbench.core.faces import clients
    from workbench.core.faces.face import Face
    from workbench.rustfe import sse

    events: list[str] = []
    spans = []
    for row in result.rows:
        start = len(events)
        events += [e.raw for e in map(sse.parse_event, row.raw) if e.json]
        spans.append((start, len(events)))
    response = _json(result.nonstream_exchange.body) if result.nonstream_exchange is not None else None
    f = Face(result.api, events, spans, response, notes=list(result.notes))
    tools = (result.exchange.request.get("tools") or [])
    ex = result.exchange
    if ex.status != 200:  # the SDK raises on the status; it never reads a stream
        refused = {"error": error_of(_json(ex.body), ex.status)}
        f.client_source = lambda: refused
    else:
        f.client_source = lambda: clients.of_sse(result.api, ex.body, [t for t in tools if isinstance(t, dict)])
    return f
