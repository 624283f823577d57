"""``Face``: one API's view of a replayed stream (events per row, bodies, client)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from workbench.core.rows import Row


class Replayed(Protocol):
    """What a face is made from: a replay's rows, text and token ids (a session.Result,
    or the same three from a stream run)."""

    rows: list[Row]
    text: str
    token_ids: list[int]


class Face:
    """One API's view of a replayed stream.

    ``sse`` holds each event exactly as the server writes it (``event: T`` /
    ``data: JSON``); ``events`` are those ``data:`` objects, in order, from the first
    (``response.created`` / ``message_start``) to the last, parsed when first read.
    ``spans[i]`` is the (start, end) slice of ``events`` that row ``i`` produced (the
    opening events go with the first row, the closing ones with the last, as the chat
    face's opening and usage chunks do). ``response`` is the API's non-streaming body;
    ``client`` the object the official SDK ends with after reading ``sse`` (run when
    first read: the SDKs' accumulators cost more than the face itself). Ids and
    timestamps are kept as made; ``mask.masked`` hides them for comparisons."""

    def __init__(self, api: str, sse: list[str], spans: list[tuple[int, int]], response: dict | None,
                 notes: list[str] | None = None, events: list[dict] | None = None,
                 client: dict | None = None) -> None:
        self.api, self.sse, self.spans, self.response = api, sse, spans, response
        self.notes = list(notes or ())
        self._events = events
        self._client = client
        self.client_source: Callable[[], dict] | None = None
        # gpt-oss on Responses: per row, the Harmony channels (and recipients) it was on
        self.channels: list[list[str]] | None = None

    @property
    def events(self) -> list[dict]:
        if self._events is None:
            # one parse of them all as a JSON array: a json.loads per event costs ~3x more
            self._events = json.loads("[" + ",".join(s.split("data: ", 1)[1] for s in self.sse) + "]")
        return self._events

    @property
    def client(self) -> dict | None:
        if self._client is None and self.client_source is not None:
            self._client = self.client_source()
        return self._client

    def with_events(self, events: list[dict], spans: list[tuple[int, int]]) -> Face:
        """Another face over other events (a test's broken stream); no client, no SSE."""
        return Face(self.api, [], spans, self.response, self.notes, events=events)

    def row_events(self, index: int) -> list[dict]:
        start, end = self.spans[index]
        return self.events[start:end]

    def to_dict(self) -> dict:
        return {"api": self.api, "events": self.events, "response": self.response,
                "client": self.client, "notes": self.notes}


def event_summary(e: dict) -> str:
    """One short line of an event's payload: its delta, or the item / block it opens."""
    for key in ("delta", "text", "arguments"):
        v = e.get(key)
        if isinstance(v, str):
            return repr(v)
        if isinstance(v, dict):  # an Anthropic delta / message_delta
            inner = {k: x for k, x in v.items() if k != "type" and x is not None}
            return f"{v.get('type') or ''} {', '.join(f'{k}={x!r}' for k, x in inner.items())}".strip()
    item = e.get("item") or e.get("content_block") or e.get("part")
    if isinstance(item, dict):
        name = item.get("name")
        return f"{item.get('type')}{f' {name}' if name else ''}"
    if e.get("type", "").startswith(("response.created", "response.in_progress", "response.completed")):
        r = e.get("response") or {}
        return f"status={r.get('status')}"
    return ""
