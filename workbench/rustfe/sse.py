"""The frontend's SSE body, split into events exactly as written, and per engine step.

An event is the text up to and including its blank line (``data: {...}\\n\\n``, or with an
``event:`` line for Responses); its ``raw`` is kept byte for byte, so the events of every
step joined are the body. An event the frontend had not finished writing when a step
ended (never seen on 0.34.0) is carried into the next step, and said so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.rustfe.core import Exchange

DONE = "[DONE]"


@dataclass(frozen=True)
class Event:
    raw: str  # as written, its blank line included
    event: str | None  # the "event:" field
    data: str | None  # the data lines joined; None for a comment (": keep-alive")

    @property
    def json(self) -> bool:
        return self.data is not None and self.data != DONE


def parse_event(raw: str) -> Event:
    name, data = None, []
    for line in raw.split("\n"):
        if not line or line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)
    return Event(raw, name, "\n".join(data) if data else None)


def split(body: bytes, carry: bytes = b"") -> tuple[list[Event], bytes]:
    """(the complete events of ``carry + body``, the bytes of an unfinished one)."""
    data = carry + body
    out = []
    start = 0
    while True:
        end = data.find(b"\n\n", start)
        if end < 0:
            break
        out.append(parse_event(_text(data[start:end + 2])))
        start = end + 2
    return out, data[start:]


def _text(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise WorkbenchError(f"vllm-rs wrote an SSE event that is not UTF-8 ({e.reason} at byte {e.start})") from None


@dataclass
class Split:
    head: list[Event]  # before the first engine output
    steps: list[list[Event]]  # per engine output
    tail: list[Event]  # after the last, until the close
    notes: list[str]


def per_step(ex: Exchange) -> Split:
    notes = []
    head, carry = split(ex.head)
    steps = []
    for n, step in enumerate(ex.steps, 1):
        if carry:
            notes.append(f"step {n}: an SSE event begun at step {n - 1} ended here")
        events, carry = split(step.body, carry)
        steps.append(events)
    tail, carry = split(ex.tail, carry)
    if carry:
        tail.append(parse_event(_text(carry)))
        notes.append("the body ended inside an SSE event (no blank line after it)")
    return Split(head, steps, tail, notes)
