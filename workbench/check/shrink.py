"""Shrink a failing case: the grouping first, then the text.

Both are delta debugging (Zeller's ddmin) under a time budget. A grouping is a
set of *merges* (token i shares a delta with token i+1); the one-token grouping
has none and is the reference, so it never fails. ``minimal_grouping`` returns
a grouping that still fails and where removing any one merge, or splitting any
multi-token delta into single tokens, makes it pass. ``minimal_tokens`` drops
tokens while the finding persists.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from workbench.check.groupings import from_merges, merges


@dataclass
class Shrunk:
    value: tuple  # sizes for a grouping, kept token positions for a text
    tests: int  # predicate calls (replays)
    complete: bool  # False when the budget ran out before a fixpoint
    seconds: float


class _Budget:
    def __init__(self, seconds: float) -> None:
        self.deadline = time.perf_counter() + seconds
        self.start = time.perf_counter()

    def left(self) -> bool:
        return time.perf_counter() < self.deadline


def ddmin(items: Sequence, fails: Callable[[tuple], bool], budget: _Budget) -> tuple[tuple, bool]:
    """A 1-minimal failing subset of ``items`` (``fails(tuple(items))`` must hold):
    (subset, whether it finished within the budget)."""
    current, gran = tuple(items), 2
    while len(current) >= 2:
        if not budget.left():
            return current, False
        gran = min(gran, len(current))
        size = len(current)
        chunks = [current[i * size // gran:(i + 1) * size // gran] for i in range(gran)]
        found = next((c for c in chunks if fails(c)), None)  # a chunk on its own
        if found is not None:
            current, gran = found, 2
            continue
        for chunk in chunks:  # everything but a chunk
            drop = set(chunk)
            rest = tuple(x for x in current if x not in drop)
            if fails(rest):
                found = rest
                break
        if found is not None:
            current, gran = found, max(gran - 1, 2)
        elif gran >= len(current):
            break
        else:
            gran = min(len(current), gran * 2)
    if len(current) == 1 and fails(()):
        current = ()
    return current, True


def minimal_grouping(fails_sizes: Callable[[tuple], bool], n: int, sizes: Sequence[int],
                     budget_s: float = 5.0) -> Shrunk:
    """Fewest merges (hence fewest multi-token deltas) that still fail."""
    budget, calls, cache = _Budget(budget_s), [0], {}

    def fails(merged: tuple) -> bool:
        key = frozenset(merged)
        if key not in cache:
            calls[0] += 1
            cache[key] = bool(merged) and fails_sizes(from_merges(n, key))
        return cache[key]

    current = tuple(sorted(merges(sizes)))
    complete = True
    while True:
        current, complete = ddmin(current, fails, budget)
        if not complete:
            break
        # ddmin removes merges one at a time; a whole multi-token delta may still go at once.
        groups = _groups(current)
        smaller = next((g for g in groups if len(g) > 1 and
                        fails(tuple(m for m in current if m not in g))), None)
        if smaller is None:
            break
        current = tuple(m for m in current if m not in smaller)
    return Shrunk(from_merges(n, set(current)), calls[0], complete,
                  time.perf_counter() - budget.start)


def _groups(merged: tuple) -> list[set[int]]:
    """Merges of the same multi-token delta (consecutive positions)."""
    groups: list[set[int]] = []
    for m in sorted(merged):
        if groups and m - 1 in groups[-1]:
            groups[-1].add(m)
        else:
            groups.append({m})
    return groups


def minimal_tokens(fails_kept: Callable[[tuple], bool], n: int, keep_last: bool,
                   budget_s: float = 5.0) -> Shrunk:
    """Token positions to keep (of ``n``) such that the finding persists."""
    budget, calls, cache = _Budget(budget_s), [0], {}
    fixed = (n - 1,) if keep_last else ()
    candidates = tuple(range(n - 1 if keep_last else n))

    def fails(kept: tuple) -> bool:
        key = tuple(sorted(kept)) + fixed
        if key not in cache:
            calls[0] += 1
            cache[key] = bool(kept) and fails_kept(key)
        return cache[key]

    kept, complete = ddmin(candidates, fails, budget)
    return Shrunk(tuple(sorted(kept)) + fixed, calls[0], complete, time.perf_counter() - budget.start)
