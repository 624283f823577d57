"""One way to number: the step a finding names, as the tokens it covers and the token texts
around it. Steps and tokens both count from 1; under one-token deltas step k is token k, and
every grouping name (merge:A-B, at:I, split:K) counts its tokens the same way
(core/chunking.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.core.deltas import Delta
    from workbench.core.session import Session

AROUND = 2  # token texts shown on each side


def at(session: Session, deltas: Sequence[Delta], grouping: str | None, step: int | None) -> dict | None:
    """{"step", "grouping", "tokens": [first, last], "around": [[token, text, in the step]]} for
    ``step`` of ``deltas`` regrouped as ``grouping`` (None / "source": as they are); None when
    the step is not one of that grouping's."""
    from workbench.check.groupings import TokenStream
    from workbench.core import chunking as C

    if not step:
        return None
    tokens = TokenStream.from_deltas(session, list(deltas))
    n = len(tokens)
    if grouping in (None, "source", "nonstream"):
        sizes: Sequence[int] | None = [len(d.token_ids) for d in deltas]
        grouping = "token" if all(s == 1 for s in sizes) else "source"
    else:
        try:
            sizes = C.sizes(grouping, n)
        except WorkbenchError:
            return None
    sizes = sizes or (1,) * n  # holdback:D: one token a step, its text late
    if not 1 <= step <= len(sizes):
        return None
    start = sum(sizes[:step - 1])
    end = start + sizes[step - 1]
    shared, i = [], 0
    for size in sizes if grouping.startswith("merge:") else ():
        if size > 1:
            shared.append([[t + 1, tokens.texts[t]] for t in range(i, i + size)])
        i += size
    return {"step": step, "grouping": grouping, "tokens": [start + 1, end],
            "around": [[i + 1, tokens.texts[i], start <= i < end]
                       for i in range(max(start - AROUND, 0), min(end + AROUND, n))],
            "shared": shared[:4]}


def describe(a: dict) -> str:
    """'step 18 of merge:6-7 is token 19: 17 '<<' 18 'call' [19 ' get'] 20 '_weather''."""
    first, last = a["tokens"]
    which = f"token {first}" if first == last else f"tokens {first}-{last}"
    texts = " ".join(f"[{n} {t!r}]" if inside else f"{n} {t!r}" for n, t, inside in a["around"])
    shared = "; ".join(" ".join(f"{n} {t!r}" for n, t in span) for span in a.get("shared", []))
    return (f"step {a['step']} of {a['grouping']} is {which}: {texts}"
            + (f" ({a['grouping']} puts {shared} in one delta)" if shared else ""))
