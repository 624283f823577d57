"""The lane wire: a feed's rows in one compact order, and the worker's request reader.

A row crosses as a list in ``WIRE`` order, its values as JSON writes them (``wire_row``;
``session.lane_row`` reads it back into the same Row), without the fields the client
already has. ``row_fields`` is what a lane and its client check at start. ``Requests``
reads the worker's stdin itself, so that a cancel can be seen between two answer lines.
"""

from __future__ import annotations

import json
import os
import select
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.rows import Row


class Requests:
    """stdin's request lines, read from the fd itself (not sys.stdin's buffer), so that a
    waiting cancel can be seen between two answer lines without blocking."""

    def __init__(self, fd: int = 0) -> None:
        self.fd, self.buf, self.eof, self._seen = fd, bytearray(), False, 0

    def _read(self, block: bool) -> bool:
        if self.eof or (not block and not select.select([self.fd], [], [], 0)[0]):
            return False
        data = os.read(self.fd, 1 << 16)
        self.eof = not data
        self.buf += data
        return bool(data)

    def _line_end(self) -> int:
        i = self.buf.find(b"\n", self._seen)
        self._seen = len(self.buf) if i < 0 else 0
        return i

    def _take(self, end: int) -> str:
        line = bytes(self.buf[:end]).decode("utf-8")
        del self.buf[:end + 1]
        self._seen = 0
        return line

    def readline(self) -> str | None:
        """The next line (blocking); None at the end of stdin."""
        while (end := self._line_end()) < 0:
            if not self._read(block=True):
                return self._take(len(self.buf)) if self.buf else None
        return self._take(end)

    def cancelled(self) -> bool:
        """Whether a cancel line waits (it is taken), or stdin has ended."""
        while self._read(block=False):
            pass
        end = self._line_end()
        if end >= 0 and json.loads(self.buf[:end]).get("op") == "cancel":
            self._take(end)
            return True
        return self.eof and end < 0


# A feed's rows on the wire: one list per row, its values as JSON in this order. The
# fields the client has (it sent the delta they are copied from) stay out; each phase is
# its label and its kind.
FROM_DELTA = ("token_ids", "text", "engine_steps")
WIRE = ("step", "tokens", "phase_before", "phase_before_kind", "phase", "phase_kind", "delta", "sse",
        "finish_reason", "error", "logs", "parser_us", "states_before", "states", "events", "extra",
        "opening_chunk", "usage_chunk")


def row_fields() -> list[str]:
    """What a lane and its client must agree on: Row's fields and the wire's order (checked
    at the lane's start)."""
    from workbench.core.rows import FIELDS

    return list(FIELDS) + ["|"] + list(WIRE)


def wire_row(row: Row) -> list:
    """A row in ``WIRE`` order, values JSON can write as they are: a Phase is a str, an Event
    a tuple, a MessageDelta [reasoning, content, [[index, id, type, name, arguments], ...]]."""
    d = row.delta
    return [row.step, row.tokens, row.phase_before, row.phase_before.kind.value, row.phase,
            row.phase.kind.value,
            None if d is None else [d.reasoning, d.content,
                                    [[c.index, c.id, c.type, c.name, c.arguments] for c in d.tool_calls]],
            row.sse, row.finish_reason, row.error, row.logs, row.parser_us, row.states_before, row.states,
            row.events, row.extra, row.opening_chunk, row.usage_chunk]


def wire_delta(delta: Delta) -> list:
    """A delta in a feed request: [token_ids, text, finish_reason, engine_steps, extra]."""
    return [delta.token_ids, delta.text, delta.finish_reason, delta.engine_steps, delta.extra]
