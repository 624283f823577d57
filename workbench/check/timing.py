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


def bursts(rows: Sequence[Row], min_silent: int = MIN_SILENT, min_chars: int = MIN_CHARS) -> list[dict]:
    """Per call, its largest argument burst after at least ``min_silent`` silent deltas."""
    worst: dict[int, dict] = {}
    names: dict[int, str] = {}
    quiet = 0
    for row in rows:
        if _silent(row):
            quiet += 1
            continue
        for tc in row.tool_calls:
            i = tc.index
            if tc.name:
                names.setdefault(i, tc.name)
            size = len(tc.arguments or "")
            if quiet >= min_silent and size >= min_chars and (i not in worst or quiet > worst[i]["silent"]):
                worst[i] = {"index": i, "name": names.get(i), "step": row.step, "silent": quiet, "chars": size}
        quiet = 0
    return [worst[i] for i in sorted(worst, key=lambda k: (k is None, k))]


def findings(rows: Sequence[Row], chunking: str = "token") -> list[Difference]:
    out = []
    for b in bursts(rows):
        out.append(Difference(
            ARGUMENTS_BUFFERED, "tool_calls", b["step"], b["chars"], None, severity=WARNING, chunking=chunking,
            detail=f"call {b['index']} ({b['name']}): {b['chars']} characters of arguments arrive at step "
                   f"{b['step']} after {b['silent']} silent deltas (one token each): a client sees nothing "
                   "while the model writes them",
            extra={"silent_deltas": b["silent"], "chars": b["chars"], "call": b["index"]}))
    return out
