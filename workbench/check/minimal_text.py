"""`check`'s minimal text: the fewest tokens of the stream that still show a finding.

A stream-vs-non-stream finding is re-checked on each shorter stream against that
stream's own non-streaming answer; a chunking finding keeps its grouping's boundaries
over the tokens kept. Delta debugging (``shrink.minimal_tokens``) under a time budget.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from workbench.check import compare, groupings as G, props, shrink
from workbench.core import chunking as C
from workbench.core.deltas import deltas_from_ids
from workbench.core.messages import CHUNKING, SEVERE, STREAM_VS_NONSTREAM, Difference

if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.check.suite import Checker


def _severe(diffs: list[Difference], field: str) -> bool:
    return any(d.field == field and d.severity == SEVERE for d in diffs)


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

    def fails(kept) -> bool:
        ts = token_stream(kept)
        if groups is None:
            r = self.session.replay(ts.token_deltas)
            got, reference = self.finals(r)
            return _severe(props.differences(compare.final_of(got), reference), target.field)
        sizes, run = [], None
        for i in kept:
            if groups[i] == run:
                sizes[-1] += 1
            else:
                sizes.append(1)
                run = groups[i]
        _, base = stream(self.session, ts.token_deltas)
        _, var = stream(self.session, ts.deltas(sizes))
        return _severe(props.differences(compare.final_of(var), compare.final_of(base)), target.field)

    if not fails(tuple(range(n))):  # the finding does not reproduce this way; nothing to shrink
        return
    res = shrink.minimal_tokens(fails, n, keep_last=tk.stop_terminated, budget_s=self.opt.text_budget_s)
    ts = token_stream(res.value)
    target.extra["minimal_text"] = {"text": ts.text, "tokens": len(res.value), "of_tokens": n,
                                    "token_positions": list(res.value), "complete": res.complete,
                                    "tests": res.tests, "seconds": round(res.seconds, 2)}
    self.timings["shrink_text"] = time.perf_counter() - t
