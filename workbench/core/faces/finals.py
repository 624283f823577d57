"""What a client holds at the end, per API, as the workbench's ``Final`` (reasoning,
content, tool calls, finish) and as a list of blocks for display and checks.

The same reading serves the SDK's accumulated object and the non-streaming body, so
``check`` compares them field by field exactly as it compares chat messages. A
Responses ``status`` and an Anthropic ``stop_reason`` stand in the finish_reason field.
"""

from __future__ import annotations

import json

from workbench.core.messages import Final, ToolCall


def blocks(api: str, obj: dict | None) -> list[dict]:
    """[{"kind": reasoning|text|tool, "text": ..., "name", "id"}] in the object's order."""
    out: list[dict] = []
    if not obj:
        return out
    if api == "responses":
        for item in obj.get("output") or []:
            kind = item.get("type")
            if kind == "reasoning":
                text = "".join(c.get("text") or "" for c in item.get("content") or [])
                out.append({"kind": "reasoning", "text": text})
            elif kind == "message":
                text = "".join(c.get("text") or "" for c in item.get("content") or [])
                out.append({"kind": "text", "text": text})
            elif kind == "function_call":
                out.append({"kind": "tool", "name": item.get("name"), "id": item.get("call_id"),
                            "text": item.get("arguments")})
        return out
    for block in obj.get("content") or []:
        kind = block.get("type")
        if kind == "thinking":
            out.append({"kind": "reasoning", "text": block.get("thinking") or ""})
        elif kind == "text":
            out.append({"kind": "text", "text": block.get("text") or ""})
        elif kind == "tool_use":
            out.append({"kind": "tool", "name": block.get("name"), "id": block.get("id"),
                        "text": json.dumps(block.get("input"), ensure_ascii=False)})
    return out


def finish(api: str, obj: dict | None) -> str | None:
    if not obj:
        return None
    return obj.get("status") if api == "responses" else obj.get("stop_reason")


def final_of(api: str, obj: dict | None) -> Final:
    """The object (SDK final, non-streaming body) as a Final; an error body as Final.error."""
    if obj is None:
        return Final(error="no object")
    if "error" in obj and obj.get("type") != "message" and "output" not in obj:
        err = obj["error"]
        return Final(error=err.get("message") if isinstance(err, dict) else str(err))
    bs = blocks(api, obj)

    def joined(kind: str) -> str | None:
        parts = [b["text"] for b in bs if b["kind"] == kind]
        return "".join(parts) if parts else None

    calls = tuple(ToolCall(i, b["id"], b["name"], b["text"]) for i, b in enumerate(b for b in bs if b["kind"] == "tool"))
    return Final(joined("reasoning"), joined("text"), calls, finish(api, obj))


def whitespace_blocks(api: str, obj: dict | None) -> list[int]:
    """Positions of text blocks / message items holding only whitespace."""
    return [i for i, b in enumerate(blocks(api, obj)) if b["kind"] == "text" and not b["text"].strip()]
