"""``workbench.faces(wb)``: a Workbench's stream read through Chat Completions, the Responses
API and Anthropic Messages, as tables (notebook 06).

Each API's session is the widget's own (``faces_view.Faces.session``: the chat request
written in that API's shape, then vLLM's own conversion); it replays the widget's deltas,
and the API face (``core/faces``) gives its events per row. ``finals()`` is the widget's
final tab (``api_finals``) as one frame.

One column schema each (``EVENT_COLUMNS``, ``FINAL_COLUMNS``: ``core.rows.Column``) makes
both the frame (``events``, ``finals``: ``core.rows.to_frame``) and the widget's table
component (``table``, ``finals_table``: ``ui.table.RecordTable``), as the rows' schema makes
``wb.frame()`` and the main table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import json

from workbench.core import door
from workbench.core.faces import check_api
from workbench.core.faces.face import event_summary
from workbench.core.rows import LABEL, NUMBER, TEXT, Column, to_frame
from workbench.errors import WorkbenchError
from workbench.ui.runtime import recorded

if TYPE_CHECKING:
    from workbench.core.faces.face import Face
    from workbench.core.session import Result
    from workbench.ui.table import RecordTable

EVENT_COLUMNS: tuple[Column, ...] = (
    Column("n", "#", "the event's place in the stream (1-based)", lambda e: e["n"], NUMBER, shown=False,
           width=40, grow=0, fit=72),
    Column("step", "step", "the delta (step) that made this event", lambda e: e["step"], NUMBER,
           width=40, grow=0, fit=64),
    Column("text", "text", "the delta's text (delta_text)", lambda e: e["text"], TEXT, width=80, grow=1),
    Column("event", "event", "the event's type (chat: its SSE chunk)", lambda e: e["event"], LABEL,
           width=120, grow=0, fit=320),
    Column("payload", "payload", "what the event carries, in a line", lambda e: e["payload"], LABEL,
           width=200, grow=3, display=lambda e: e["payload"] or None),
)


def _calls(calls) -> str | None:
    return json.dumps([list(c) for c in calls], ensure_ascii=False) if calls else "[]"


FINAL_COLUMNS: tuple[Column, ...] = (
    Column("api", "api", "the API: chat, responses or messages", lambda f: f["api"], LABEL, width=80, grow=0,
           fit=96),
    Column("mode", "mode", "stream: what the API's client holds at the end; nonstream: the stream: false body",
           lambda f: f["mode"], LABEL, width=80, grow=0, fit=96),
    # reasoning and finish are in "as the API has it" too: the table shows them on a click (columns ▾)
    Column("reasoning", "reasoning", "the reasoning text (blank: None)", lambda f: f["reasoning"], width=100,
           grow=1.5, field="reasoning", shown=False),
    Column("content", "content", "the content / text (blank: None)", lambda f: f["content"], width=80, grow=1,
           field="content"),
    Column("tool_calls", "tool_calls", "(name, arguments) of each tool call", lambda f: f["tool_calls"],
           LABEL, width=150, grow=1, field="tool", display=lambda f: _calls(f["tool_calls"])),
    Column("finish", "finish", "the finish reason (a stop_reason / status in the API's words)",
           lambda f: f["finish"], LABEL, width=60, grow=0, fit=96, shown=False),
    Column("whitespace_only_text", "whitespace only", "a text block of only whitespace: a client shows an "
           "empty-looking bubble", lambda f: f["whitespace_only_text"], LABEL, width=80, grow=0,
           display=lambda f: "⚠ only whitespace" if f["whitespace_only_text"] else "no", fit=136),
    Column("blocks", "as the API has it", "the API's own object, block by block (chat: its fields)",
           lambda f: f["blocks"], LABEL, width=240, grow=3),
    Column("verdict", "verdict", "whether the client's object holds what the non-streaming body does "
           "(call ids and JSON spacing aside)", lambda f: f["verdict"], LABEL, width=120, grow=0, fit=240),
)
CLIENTS = {"chat": "a Chat Completions client (joined SSE chunks)",
           "responses": "the openai SDK's ResponseStream (Codex, the Agents SDK)",
           "messages": "the anthropic SDK's MessageStream (Claude Code)"}


def blocks_line(api: str, obj: dict | None) -> str:
    """An API's object in one line: its blocks (chat: its fields) and its finish."""
    from workbench.core.faces import finals

    if obj is None:
        return "none"
    if api == "chat":
        return " · ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in obj.items()
                          if k in ("reasoning", "content", "tool_calls", "finish_reason"))
    if "error" in obj and "output" not in obj and obj.get("type") != "message":
        return f"error: {json.dumps(obj['error'], ensure_ascii=False)}"
    out = []
    for b in finals.blocks(api, obj):
        name = f" {b['name']}" if b.get("name") else ""
        empty = " ⚠ only whitespace: an empty bubble" if b["kind"] == "text" and not (b["text"] or "").strip() else ""
        out.append(f"{b['kind']}{name}: {json.dumps(b['text'], ensure_ascii=False)}{empty}")
    key = "status" if api == "responses" else "stop_reason"
    out.append(f"{key}: {json.dumps(finals.finish(api, obj))}")
    return " · ".join(out)


def final_items(apis) -> list[dict]:
    """``apis`` (faces_view.ApiFinal per API) as FINAL_COLUMNS' items: per API, what its
    client holds (``stream``) and its non-streaming body (``nonstream``)."""
    out = []
    for f in apis:
        differs = f.differs
        # a text field only whitespace apart (\n\n against null) is cosmetic, as `check` and the
        # field table above say: ≈, not ✗
        blank = [d for d in differs if d in ("reasoning", "content")
                 and (getattr(f.client_final, d) or "").strip() == (getattr(f.body_final, d) or "").strip()]
        real = [d for d in differs if d not in blank]
        verdict = ("✓ the client holds the body" if not differs else f"✗ differ: {', '.join(real)}" if real
                   else f"≈ whitespace only: {', '.join(blank)}")
        notes = f.notes + (['content "" is the opening role chunk\'s, not the parser\'s'] if f.role_chunk else [])
        if notes:
            verdict += " · " + " · ".join(notes)
        for mode, final, side, obj in (("stream", f.client_final, "client", f.client),
                                       ("nonstream", f.body_final, "body", f.body)):
            out.append({"api": f.api, "mode": mode, "reasoning": final.reasoning, "content": final.content,
                        "tool_calls": [(c.name, c.arguments) for c in final.tool_calls],
                        "finish": final.finish_reason, "whitespace_only_text": side in f.whitespace_only,
                        "blocks": blocks_line(f.api, obj), "verdict": verdict,
                        "who": CLIENTS.get(f.api, f.api) if mode == "stream" else "the stream: false body"})
    return out


def record_table(columns: tuple[Column, ...], items: list[dict], role: str, key: str) -> RecordTable:
    """``items`` under ``columns`` in the widget's table component."""
    from workbench.ui.table import RecordTable

    table = RecordTable(columns, height=300, role=role, key=key, follow=False, flow=True)  # long values wrap
    table.set_records([{key: i, **table.cells(item)} for i, item in enumerate(items, 1)])
    return table


class ApiFrames:
    """``events(api)``, ``finals()``, ``face(api)`` of one Workbench's stream."""

    def __init__(self, wb) -> None:
        self.wb = wb
        self.state = wb.state
        if not self.state.stream.started:
            raise WorkbenchError("workbench.faces(wb): the workbench has no stream yet: run it first (wb.run())")
        self.faces = self.state.made.faces
        if self.faces is None:
            raise WorkbenchError("workbench.faces needs the installed vLLM (a lane's stream has no API faces here)")
        self._runs: dict[str, tuple[Result, Face | None]] = {}

    def run(self, api: str) -> tuple[Result, Face | None]:
        """(this API's replay of the stream, its face; None on chat)."""
        from workbench.core import faces

        api = check_api(api)
        if api not in self._runs:
            session = self.faces.session(api)
            result = session.replay(recorded(self.state.made.source))
            self._runs[api] = (result, faces.run(session, result))
        return self._runs[api]

    def face(self, api: str) -> Face | None:
        return self.run(api)[1]

    def event_items(self, api: str) -> list[dict]:
        """The events of ``api``'s stream, one dict each (``EVENT_COLUMNS`` read them)."""
        result, face = self.run(api)
        out: list[dict] = []
        for i, row in enumerate(result.rows):
            if face is None:
                items = [("chat.completion.chunk", _chunk_summary(door.parse_json(c, "a chat chunk")))
                         for c in row.chunks]
            else:
                items = [(e.get("type"), event_summary(e)) for e in face.row_events(i)]
            out += [{"n": len(out) + j, "step": row.step, "text": row.text, "event": kind, "payload": payload}
                    for j, (kind, payload) in enumerate(items, 1)]
        return out

    def events(self, api: str):
        """One line per event the server sends, in order: the step (delta) that made it, the
        delta's text, the event's type and payload. Chat: its SSE chunks."""
        return to_frame(self.event_items(api), EVENT_COLUMNS)

    def table(self, api: str) -> RecordTable:
        """``events(api)`` in the widget's table (resizable columns, j/k, Ctrl+C)."""
        return record_table(EVENT_COLUMNS, self.event_items(api), f"faces-{check_api(api)}", "n")

    def finals(self):
        """Per API: what its client holds at the end of the stream (``stream``) and the
        non-streaming answer (``nonstream``), as one vocabulary (reasoning, content / text,
        tool calls, finish), with where a client would show an empty-looking bubble."""
        return to_frame(self.final_items(), FINAL_COLUMNS)

    def finals_table(self) -> RecordTable:
        """``finals()`` in the widget's table."""
        return record_table(FINAL_COLUMNS, self.final_items(), "faces-finals", "n")

    def final_items(self) -> list[dict]:
        from workbench.ui.transitions import api_finals

        apis = api_finals(self.state, force=True)[0] if self.state.stream.done else None
        if apis is None:
            raise WorkbenchError("the stream has not ended: run it first (wb.run())")
        return final_items(apis)


def _chunk_summary(chunk: dict) -> str:
    choices = chunk.get("choices") or []
    if not choices:
        return "usage" if chunk.get("usage") else ""
    c = choices[0]
    delta = {k: v for k, v in (c.get("delta") or {}).items() if v not in (None, [], "")}
    parts = [", ".join(f"{k}={v!r}" for k, v in delta.items())]
    if c.get("finish_reason"):
        parts.append(f"finish_reason={c['finish_reason']!r}")
    return " ".join(p for p in parts if p)


def faces(wb) -> ApiFrames:
    """``wb``'s stream (a Workbench, stepped or run) on every API."""
    return ApiFrames(wb)
