"""``workbench.faces(wb)``: a Workbench's stream read through Chat Completions, the Responses
API and Anthropic Messages, as tables (notebook 06).

Each API's session is the widget's own (``faces_view.Faces.session``: the chat request
written in that API's shape, then vLLM's own conversion); it replays the widget's deltas,
and the API face (``core/faces``) gives its events per row. ``finals()`` is the widget's
final tab (``api_finals``) as one frame. Widget-free: pandas frames only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core import door
from workbench.core.faces import check_api
from workbench.core.faces.face import event_summary
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.core.faces.face import Face
    from workbench.core.session import Result


class ApiFrames:
    """``events(api)``, ``finals()``, ``face(api)`` of one Workbench's stream."""

    def __init__(self, wb) -> None:
        self.model = wb.model
        if self.model.faces is None:
            raise WorkbenchError("workbench.faces needs the installed vLLM (a lane's stream has no API faces here)")
        self._runs: dict[str, tuple[Result, Face | None]] = {}

    def run(self, api: str) -> tuple[Result, Face | None]:
        """(this API's replay of the stream, its face; None on chat)."""
        from workbench.core import faces

        api = check_api(api)
        if api not in self._runs:
            session = self.model.faces.session(api)
            result = session.replay(self.model.recorded())
            self._runs[api] = (result, faces.run(session, result))
        return self._runs[api]

    def face(self, api: str) -> Face | None:
        return self.run(api)[1]

    def events(self, api: str):
        """One line per event the server sends, in order: the step (delta) that made it, the
        delta's text, the event's type and payload. Chat: its SSE chunks."""
        import pandas as pd

        result, face = self.run(api)
        out = []
        for i, row in enumerate(result.rows):
            if face is None:
                items = [("chat.completion.chunk", _chunk_summary(door.parse_json(c, "a chat chunk")))
                         for c in row.chunks]
            else:
                items = [(e.get("type"), event_summary(e)) for e in face.row_events(i)]
            out += [{"step": row.step, "text": row.text, "event": kind, "payload": payload} for kind, payload in items]
        return pd.DataFrame(out, columns=["step", "text", "event", "payload"])

    def finals(self):
        """Per API: what its client holds at the end of the stream (``stream``) and the
        non-streaming answer (``nonstream``), as one vocabulary (reasoning, content / text,
        tool calls, finish), with where a client would show an empty-looking bubble."""
        import pandas as pd

        apis = self.model.api_finals()
        if apis is None:
            raise WorkbenchError("the stream has not ended: run it first (wb.run())")
        out = []
        for f in apis:
            for mode, final, side in (("stream", f.client_final, "client"), ("nonstream", f.body_final, "body")):
                out.append({"api": f.api, "mode": mode, "reasoning": final.reasoning, "content": final.content,
                            "tool_calls": [(c.name, c.arguments) for c in final.tool_calls],
                            "finish": final.finish_reason, "whitespace_only_text": side in f.whitespace_only})
        return pd.DataFrame(out)


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
