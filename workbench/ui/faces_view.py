"""The API faces for the widget (widget-free): a row's events on the picked API, and what
each API's client ends with beside that API's non-streaming body.

The faces are ``core.faces`` over the rows of a session built for that API (vLLM hands
the parser that API's own request object). A replayed stream's rows already come from
the picked API's session; a live stream (the engine, a server) steps on chat, as
``workbench record`` does, and its deltas are replayed through the API's session.
A row's events are those of the stream so far: for the last row of a stream that has
not ended, the closing events are the ones the server sends if it ended there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import TYPE_CHECKING

from workbench.core.faces import APIS, finals

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.messages import Final
    from workbench.core.rows import Row
    from workbench.core.session import Session

MOST_FINAL_DELTAS = 20_000  # above this the three APIs' finals wait for a click (three replays)


def prefix(rows: list[Row]):
    """What a face reads of a replay (its rows, text and ids), for the rows so far."""
    return SimpleNamespace(rows=rows, text="".join(r.text for r in rows),
                           token_ids=[t for r in rows for t in r.token_ids])


def summary(e: dict) -> str:
    """One event in a line: its type (without ``response.`` / ``content_``), and its delta
    or what it opens (a thinking signature shortened: it is random per request)."""
    kind = str(e.get("type", "?")).removeprefix("response.")
    if kind == "content_block_delta":
        d = e.get("delta") or {}
        value = next((d[k] for k in ("thinking", "text", "partial_json", "signature") if k in d), "")
        if "signature" in d and isinstance(value, str):
            value = value[:8] + "…"
        return f"{d.get('type', '?')} {value!r}"
    if kind in ("content_block_start", "content_block_stop"):
        block = e.get("content_block") or {}
        name = f" {block['name']}" if block.get("name") else ""
        return kind.removeprefix("content_") + (f" {block.get('type')}{name}" if block else "")
    for key in ("delta", "text", "arguments"):
        v = e.get(key)
        if isinstance(v, str):
            return f"{kind} {v!r}"
        if isinstance(v, dict):  # message_delta
            inner = {k: x for k, x in v.items() if k != "type" and x is not None}
            return f"{kind} {', '.join(f'{k}={x!r}' for k, x in inner.items())}".strip()
    item = e.get("item") or e.get("part")
    if isinstance(item, dict):
        return f"{kind} {item.get('type')}{' ' + item['name'] if item.get('name') else ''}"
    return kind


@dataclass
class ApiFinal:
    """One API at the end of the stream: what its client holds, its non-streaming body,
    both as that API's objects and as ``Final``s; notes (an SDK that refused the stream)."""

    api: str
    client: dict | None
    body: dict | None
    client_final: Final
    body_final: Final
    notes: list[str]

    @property
    def differs(self) -> list[str]:
        """The fields in which the client's object and the body differ (call ids, made up
        per request, and the arguments' JSON spacing aside; content "" against null is the
        server's opening role chunk, no finding, as ``workbench check`` judges it)."""
        from workbench.check.compare import role_chunk_only

        def calls(f: Final) -> list:
            return [(c.name, parsed_arguments(c.arguments)) for c in f.tool_calls]
        a, b = self.client_final, self.body_final
        out = [name for name in ("reasoning", "content", "finish_reason", "error")
               if getattr(a, name) != getattr(b, name) and not role_chunk_only(name, getattr(a, name), getattr(b, name))]
        return out + (["tool_calls"] if calls(a) != calls(b) else [])

    @property
    def role_chunk(self) -> bool:
        """The client holds content "" where the body has null: only the role chunk's."""
        from workbench.check.compare import role_chunk_only

        return role_chunk_only("content", self.client_final.content, self.body_final.content)

    @property
    def whitespace_only(self) -> list[str]:
        """Where a client shows an empty-looking bubble: a text block of only whitespace."""
        out = []
        for side, obj in (("client", self.client), ("body", self.body)):
            if self.api != "chat" and finals.whitespace_blocks(self.api, obj):
                out.append(side)
        return out


class Faces:
    """The faces of one widget's stream. ``main``: the session the rows came from;
    ``live``: whether they were stepped live (engine, server) on chat."""

    def __init__(self, main: Session, live: bool) -> None:
        self.main, self.live = main, live
        self._sessions: dict[str, Session] = {}
        self._face: tuple | None = None  # (api, rows seen) -> the face

    def session(self, api: str) -> Session:
        if api == self.main.api and not (self.live and api != "chat"):
            return self.main
        if api not in self._sessions:
            from workbench.core.session import Session

            setup = replace(self.main.setup, api=api, api_request=None,
                            request=replace(self.main.setup.request))
            self._sessions[api] = Session(setup)
        return self._sessions[api]

    def _rows(self, api: str, rows: list[Row], deltas: list[Delta]) -> list[Row]:
        session = self.session(api)
        if session is self.main:
            return rows
        return session.replay(list(deltas)).rows

    def row_events(self, api: str, rows: list[Row], deltas: list[Delta], index: int) -> list[dict]:
        """Row ``index``'s events on ``api`` (a prefix of the stream: ``rows``/``deltas`` so far)."""
        from workbench.core import faces

        key = (api, len(rows), id(rows[-1]) if rows else None)
        if self._face is None or self._face[0] != key:
            session = self.session(api)
            face = faces.run(session, prefix(self._rows(api, rows, deltas)), client=False, nonstream=False)
            self._face = (key, face)
        return self._face[1].row_events(index)

    def finals(self, rows: list[Row], deltas: list[Delta], chat: tuple[Final, Final]) -> list[ApiFinal]:
        """Every API's client object and body at the end of the stream (chat: the joined
        stream and the non-streaming message, ``chat``)."""
        from workbench.core import faces

        out = [ApiFinal("chat", chat[0].to_dict(), chat[1].to_dict(), chat[0], chat[1], [])]
        for api in APIS[1:]:
            session = self.session(api)
            result = session.replay(list(deltas)) if session is not self.main else None
            face = faces.run(session, result or self._main_result(rows, deltas))
            client = face.client or {}
            obj = client.get("object")
            notes = list(face.notes) + ([f"the SDK refused the stream: {client['error']}"]
                                        if "error" in client else [])
            out.append(ApiFinal(api, obj, face.response, finals.final_of(api, obj),
                                finals.final_of(api, face.response), notes))
        return out

    def _main_result(self, rows: list[Row], deltas: list[Delta]):
        return self.main.replay(list(deltas)) if len(rows) != len(deltas) else prefix(rows)


def parsed_arguments(arguments):
    """A tool call's arguments as parsed JSON when they parse (spacing aside), else as they are."""
    import json

    try:
        return json.loads(arguments) if isinstance(arguments, str) else arguments
    except ValueError:
        return arguments
