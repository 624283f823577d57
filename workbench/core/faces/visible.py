"""What each API's client receives per row, in one shape, so two APIs over one stream compare.

A chat row sends its DeltaMessage; a Responses row its ``*.delta`` events and the
function-call items it opens; an Anthropic row its ``content_block_delta``s and the
``tool_use`` blocks it starts. Each becomes ``{"reasoning", "content", "tool_calls":
[{"index", "name", "arguments"}]}``: the text the row added to what the client shows,
tool calls numbered in the order the API opened them (ids are made up, so left out).
``outcome`` names what the client concludes at the end in one vocabulary (a chat
``finish_reason``, a Responses ``status``, an Anthropic ``stop_reason``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from workbench.core.faces.face import Face
    from workbench.core.messages import Final
    from workbench.core.rows import Row


def _empty() -> dict:
    return {"reasoning": None, "content": None, "tool_calls": []}


def _add(out: dict, key: str, text: object) -> None:
    if isinstance(text, str):
        out[key] = (out[key] or "") + text


def _call(out: dict, index: int, name: str | None = None, arguments: str | None = None) -> None:
    calls = out["tool_calls"]
    if calls and calls[-1]["index"] == index:
        if name:
            calls[-1]["name"] = name
        if arguments:
            calls[-1]["arguments"] = (calls[-1]["arguments"] or "") + arguments
    else:
        calls.append({"index": index, "name": name, "arguments": arguments or None})


def chat_rows(rows: Sequence[Row]) -> list[dict]:
    out = []
    for r in rows:
        v = _empty()
        if r.sse and r.delta:
            _add(v, "reasoning", r.delta.reasoning)
            _add(v, "content", r.delta.content)
            for tc in r.delta.tool_calls:
                _call(v, tc.index, tc.name, tc.arguments)
        out.append(v)
    return out


def face_rows(face: Face) -> list[dict]:
    """Per row of ``face`` (a Responses or Anthropic face), what its events delivered."""
    calls: dict = {}  # output_index / block index -> tool call number
    out = []
    for i in range(len(face.spans)):
        v = _empty()
        for e in face.row_events(i):
            _event(face.api, e, v, calls)
        out.append(v)
    return out


def _event(api: str, e: dict, v: dict, calls: dict) -> None:
    kind = e.get("type")
    if api == "responses":
        if kind == "response.reasoning_text.delta":
            _add(v, "reasoning", e.get("delta"))
        elif kind == "response.output_text.delta":
            _add(v, "content", e.get("delta"))
        elif kind == "response.output_item.added" and (e.get("item") or {}).get("type") == "function_call":
            calls[e.get("output_index")] = n = len(calls)
            _call(v, n, e["item"].get("name"))
        elif kind == "response.function_call_arguments.delta" and e.get("output_index") in calls:
            _call(v, calls[e["output_index"]], arguments=e.get("delta"))
        return
    if kind == "content_block_start" and (e.get("content_block") or {}).get("type") == "tool_use":
        calls[e.get("index")] = n = len(calls)
        _call(v, n, e["content_block"].get("name"))
    elif kind == "content_block_delta":
        d = e.get("delta") or {}
        if d.get("type") == "thinking_delta":
            _add(v, "reasoning", d.get("thinking"))
        elif d.get("type") == "text_delta":
            _add(v, "content", d.get("text"))
        elif d.get("type") == "input_json_delta" and e.get("index") in calls:
            _call(v, calls[e["index"]], arguments=d.get("partial_json"))


OUTCOMES = {"chat": {"stop": "stop", "tool_calls": "tool_call", "length": "length", "error": "error"},
            "messages": {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_call",
                         "max_tokens": "length"},
            "responses": {"incomplete": "length", "failed": "error", "cancelled": "error"}}


def outcome(api: str, final: Final) -> str | None:
    """stop | tool_call | length | error (or the API's own word when it has no match)."""
    if final.error is not None:
        return "error"
    finish = final.finish_reason
    if api == "responses" and finish == "completed":
        return "tool_call" if final.tool_calls else "stop"
    return OUTCOMES[api].get(finish, finish) if finish is not None else None
