"""`check`'s minimal text: the fewest tokens of the stream that still show a finding.

A stream-vs-non-stream finding is re-checked on each shorter stream against that
stream's own non-streaming answer; a chunking finding keeps its grouping's boundaries
over the tokens kept. Delta debugging (``shrink.minimal_tokens``) under a time budget.

A shorter stream counts only when it shows the same bug: the same kind and field, and the
same ``mode`` (which side breaks the client contract, which side has fewer calls or less
text). A shorter text that turns a streamed truncation into a non-streaming JSON error is
another bug; when no shorter text keeps this one, the whole text is the minimal one.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from workbench.check import compare, evidence as E, groupings as G, props, shrink
from workbench.core import chunking as C
from workbench.core.deltas import deltas_from_ids
from workbench.core.messages import CHUNKING, SEVERE, STREAM_VS_NONSTREAM, Difference, Final

if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.check.suite import Checker


def _severe(diffs: list[Difference], field: str) -> bool:
    return any(d.field == field and d.severity == SEVERE for d in diffs)


def _sign(n: int) -> int:
    return (n > 0) - (n < 0)


def mode(got: Final, reference: Final, field: str, tool_names: set[str]) -> tuple:
    """The side a difference in ``field`` is on. Tool calls: whether each side has a call a
    client cannot use (no name, a tool the request lacks, arguments that are not a JSON
    object) and which has more calls; a text field: which side is longer."""
    if field == "tool_calls":
        return (len(got.tool_calls) - len(E.ok_calls(got, tool_names)) > 0,
                len(reference.tool_calls) - len(E.ok_calls(reference, tool_names)) > 0,
                _sign(len(got.tool_calls) - len(reference.tool_calls)))
    a, b = (getattr(x, field, None) or "" for x in (got, reference))
    return (_sign(len("".join(a.split())) - len("".join(b.split()))),)


def shrink_text(self: Checker, found: list[Difference], stream: Callable) -> None:
    """Shrink the first severe finding's text (tool calls first) to the fewest tokens that
    still show it; ``stream(session, deltas)`` is check's (the API's face included)."""
    order = {"tool_calls": 0, "reasoning": 1, "content": 2}
    candidates = [f for f in found if f.severity == SEVERE and (
        (f.kind == STREAM_VS_NONSTREAM and f.chunking == "token")
        or (f.kind == CHUNKING and f.chunking.startswith(("merge:", "whole", "split:", "random:", "k:"))))]
    if not candidates:
        return
    target = min(candidates, key=lambda f: order.get(f.field, 3))
    t = time.perf_counter()
    tk = self.tokens
    n = len(tk)
    groups = None
    if target.kind == CHUNKING:
        sizes = C.sizes(target.chunking, n)
        if sizes is None:
            return
        groups = [g for g, s in enumerate(sizes) for _ in range(s)]

    def token_stream(kept) -> G.TokenStream:
        ids = [tk.ids[i] for i in kept]
        s = self.session
        ds = list(deltas_from_ids(s.tokenizer, ids, s.prompt_ids, s.params, [[i] for i in ids],
                                  finish_reason=tk.finish_reason, stop_terminated=tk.stop_terminated))
        return G.TokenStream(s, ds)

    tools = {t["function"]["name"] for t in self.session.setup.request.tools or [] if "function" in t}

    def shown(kept) -> tuple | None:
        """The bug ``kept`` shows in the target's field (its ``mode``), or None."""
        ts = token_stream(kept)
        if groups is None:
            r = self.session.replay(ts.token_deltas)
            got, reference = self.finals(r)
            got, reference = compare.final_of(got), compare.final_of(reference)
        else:
            sizes, run = [], None
            for i in kept:
                if groups[i] == run:
                    sizes[-1] += 1
                else:
                    sizes.append(1)
                    run = groups[i]
            _, base = stream(self.session, ts.token_deltas)
            _, var = stream(self.session, ts.deltas(sizes))
            got, reference = compare.final_of(var), compare.final_of(base)
        if not _severe(props.differences(got, reference), target.field):
            return None
        return mode(got, reference, target.field, tools)

    bug = shown(tuple(range(n)))
    if bug is None:  # the finding does not reproduce this way; nothing to shrink
        return

    def fails(kept) -> bool:
        return shown(kept) == bug

    res = shrink.minimal_tokens(fails, n, keep_last=tk.stop_terminated, budget_s=self.opt.text_budget_s)
    ts = token_stream(res.value)
    target.extra["minimal_text"] = {"text": ts.text, "tokens": len(res.value), "of_tokens": n,
                                    "token_positions": list(res.value), "complete": res.complete,
                                    "tests": res.tests, "seconds": round(res.seconds, 2), "mode": list(bug)}
    self.timings["shrink_text"] = time.perf_counter() - t
