"""``Face``: one API's view of a replayed stream (events per row, bodies, client)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Face:
    """One API's view of a replayed stream.

    ``events`` are the JSON objects the server sends in ``data:``, in order, from the
    first (``response.created`` / ``message_start``) to the last; ``spans[i]`` is the
    (start, end) slice of ``events`` that row ``i`` produced (the opening events go
    with the first row, the closing ones with the last, as the chat face's opening and
    usage chunks do). ``response`` is the non-streaming body of the API, ``client``
    the object the official SDK ends with after reading ``events``. Ids and
    timestamps are kept as made; ``mask.masked`` hides them for comparisons."""

    api: str
    events: list[dict]
    spans: list[tuple[int, int]]
    response: dict | None
    client: dict | None = None
    sse: list[str] = field(default_factory=list)  # each event as the server writes it
    notes: list[str] = field(default_factory=list)

    def row_events(self, index: int) -> list[dict]:
        start, end = self.spans[index]
        return self.events[start:end]

    def to_dict(self) -> dict:
        return {"api": self.api, "events": self.events, "response": self.response,
                "client": self.client, "notes": self.notes}
