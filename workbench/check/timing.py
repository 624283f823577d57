"""`arguments_buffered`: a call whose arguments reach the client in a burst after a
run of silent deltas, though the model was writing them all along.

Measured on one-token deltas, so the count is the parser's own (a server's
--stream-interval batches every stream alike). A delta is silent when the chunk it
sends (if any) carries no reasoning, content or tool-call text. A stream-timing
finding is a warning: the answer is right, only late.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.messages import WARNING, Difference

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.rows import Row

ARGUMENTS_BUFFERED = "arguments_buffered"
MIN_SILENT = 8  # one-token deltas in a row with nothing sent
MIN_CHARS = 16  # the burst that follows


def _silent(row: Row) -> bool:
    d = row.delta if row.sse and not row.error else None
    if d is None:
        return True
    if d.reasoning or d.content:
        return False
    return not any(tc.name or tc.arguments for tc in d.tool_calls)


class Bursts:
    """``bursts`` one row at a time (check keeps no rows: check/streams.py)."""

    def __init__(self, min_silent: int = MIN_SILENT, min_chars: int = MIN_CHARS) -> None:
        self.min_silent, self.min_chars = min_silent, min_chars
        self.worst: dict[int, dict] = {}
        self.names: dict[int, str] = {}
        self.quiet = 0

    def add(self, row: Row) -> None:
        if _silent(row):
            self.quiet += 1
            return
        for tc in row.tool_calls:
            i = tc.index
            if tc.name:
                self.names.setdefault(i, tc.name)
            size = len(tc.arguments or "")
            if self.quiet >= self.min_silent and size >= self.min_chars and (
                    i not in self.worst or self.quiet > self.worst[i]["silent"]):
                self.worst[i] = {"index": i, "name": self.names.get(i), "step": row.step, "silent": self.quiet,
                                 "chars": size, "bytes": len((tc.arguments or "").encode("utf-8"))}
        self.quiet = 0

    def result(self) -> list[dict]:
        return [self.worst[i] for i in sorted(self.worst, key=lambda k: (k is None, k))]


def bursts(rows: Sequence[Row], min_silent: int = MIN_SILENT, min_chars: int = MIN_CHARS) -> list[dict]:
    """Per call, its largest argument burst after at least ``min_silent`` silent deltas."""
    watch = Bursts(min_silent, min_chars)
    for row in rows:
        watch.add(row)
    return watch.result()


def findings(rows: Sequence[Row] | None, chunking: str = "token", found: list[dict] | None = None) -> list[Difference]:
    """``found``: the rows' ``bursts`` when the rows were not kept."""
    out = []
    for b in found if found is not None else bursts(rows or []):
        out.append(Difference(
            ARGUMENTS_BUFFERED, "tool_calls", b["step"], b["chars"], None, severity=WARNING, chunking=chunking,
            detail=f"call {b['index']} ({b['name']}): {b['chars']} characters of arguments arrive at step "
                   f"{b['step']} after {b['silent']} silent deltas (one token each): a client sees nothing "
                   "while the model writes them",
            extra={"silent_deltas": b["silent"], "chars": b["chars"], "bytes": b.get("bytes", b["chars"]),
                   "call": b["index"]}))
    return out
