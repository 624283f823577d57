"""What a client holds at the end of a Rust-lane exchange: the non-streaming body's message
(``RustResult.face``, lane.py, is the Responses / Messages face over the frontend's events).

Read from the frontend's JSON only (``door.parse_json``); the Responses body is read by
``core.faces.finals`` exactly as the Python face's is, so the two compare field by field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from workbench.core.messages import Final, ToolCall

if TYPE_CHECKING:
    from workbench.rustfe.core import Exchange


def body_json(body: bytes) -> Any:
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
    obj = body_json(ex.body)
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
