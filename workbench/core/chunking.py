"""How a stream's tokens are grouped into deltas: one name for every grouping.

A grouping is a tuple of delta sizes in tokens. Every name `check` prints is one a
``--chunking`` option accepts, and each names exactly one grouping of n tokens. Tokens are
numbered from 1, as the steps of one-token deltas count them (token 5 is step 5 there):

    token              one token per delta (the reference)
    whole              all tokens in one delta
    k:N                N tokens per delta (MTP, --stream-interval N)
    random:SEED[:MAX]  sizes drawn 1..MAX (default 4) from random.Random(SEED)
    random:SEED[:MAX]#I  the I-th grouping drawn from that one RNG (vLLM's random_groupings)
    split:K            two deltas: tokens 1..K and K+1..n
    merge:A-B,C-D      one token per delta, except tokens A..B (inclusive) share one
    at:I,J             a delta ends after token I and after token J (1 <= I < J < n)
    holdback:D         one token per delta, its text D deltas late (vLLM's detokenizer holdback)

``holdback`` is no grouping of sizes (text and ids are not aligned): ``sizes`` returns
None for it and ``core.deltas.hold_back`` builds its deltas from the one-token ones.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workbench.core import limits
from workbench.errors import WorkbenchError

MAX_CHUNK = 4  # vLLM's random_groupings default
_NAME = re.compile(r"^(token|whole|k:(?P<k>\d+)|random:(?P<seed>\d+)(?::(?P<max>\d+))?(?:#(?P<index>\d+))?"
                   r"|split:(?P<split>\d+)|merge:(?P<merge>\d+-\d+(?:,\d+-\d+)*)|at:(?P<at>\d+(?:,\d+)*)"
                   r"|holdback:(?P<hold>\d+))$")
USAGE = "token, whole, k:N, random:SEED[:MAX][#I], split:K, merge:A-B,..., at:I,J,... or holdback:D"


def _match(text: str) -> re.Match:
    m = _NAME.match(text or "")
    if m is None:
        raise WorkbenchError(f"bad --chunking {text[:80]!r}: use {USAGE}")
    if any(len(n) > limits.MAX_INT_DIGITS for n in re.findall(r"\d+", text)):
        raise WorkbenchError(f"bad --chunking {text[:80]!r}: a number of over {limits.MAX_INT_DIGITS} digits")
    if m["index"] is not None and int(m["index"]) >= limits.MAX_FUZZ:  # the I-th draw replays I+1 draws
        raise WorkbenchError(f"bad --chunking {text!r}: random:SEED#I needs I below {limits.MAX_FUZZ:,} "
                             f"(check's most random groupings)")
    if (m["k"] is not None and int(m["k"]) < 1) or (m["max"] is not None and int(m["max"]) < 1):
        raise WorkbenchError(f"bad --chunking {text!r}: k:N needs N >= 1, random:SEED:MAX needs MAX >= 1")
    return m


def parse(text: str) -> str:
    """Validate a grouping name (its syntax; positions are checked against the stream by
    ``sizes``); returns it unchanged."""
    _match(text)
    return text


def random_sizes(n: int, rng: random.Random, max_chunk: int = MAX_CHUNK) -> tuple[int, ...]:
    sizes, left = [], n
    while left > 0:
        s = min(rng.randint(1, max_chunk), left)
        sizes.append(s)
        left -= s
    return tuple(sizes)


def random_label(seed: int, index: int, max_chunk: int = MAX_CHUNK) -> str:
    return f"random:{seed}{'' if max_chunk == MAX_CHUNK else f':{max_chunk}'}#{index}"


def hold_back_delay(text: str) -> int | None:
    """D for ``holdback:D``, else None."""
    m = _match(text)
    return int(m["hold"]) if m["hold"] is not None else None


def sizes(text: str, n: int) -> tuple[int, ...] | None:
    """The delta sizes ``text`` names for ``n`` tokens (None for holdback:D)."""
    m = _match(text)
    if m["hold"] is not None:
        return None
    if text == "token" or n == 0:
        return (1,) * n
    if text == "whole":
        return (n,)
    if m["k"] is not None:
        k = int(m["k"])
        return tuple(min(k, n - i) for i in range(0, n, k))
    if m["seed"] is not None:
        rng = random.Random(int(m["seed"]))
        hi = int(m["max"] or MAX_CHUNK)
        out: tuple[int, ...] = ()
        for _ in range(int(m["index"] or 0) + 1):
            out = random_sizes(n, rng, hi)
        return out
    if m["split"] is not None:
        k = int(m["split"])
        if not 0 < k < n:
            raise WorkbenchError(f"--chunking {text}: K must be between 1 and {n - 1} (the stream has {n} tokens)")
        return (k, n - k)
    if m["at"] is not None:
        ends = [int(x) for x in m["at"].split(",")]
        if ends != sorted(set(ends)) or ends[0] < 1 or ends[-1] >= n:
            raise WorkbenchError(f"--chunking {text}: offsets must increase, each between 1 and {n - 1} "
                                 f"(the stream has {n} tokens)")
        bounds = [0, *ends, n]
        return tuple(b - a for a, b in zip(bounds, bounds[1:]))
    merged: set[int] = set()
    last = 0
    for span in m["merge"].split(","):
        a, b = (int(x) for x in span.split("-"))
        if not last < a < b <= n:
            raise WorkbenchError(f"--chunking {text}: spans A-B need A < B, in order, without overlap, "
                                 f"between 1 and {n} (the stream has {n} tokens, numbered from 1)")
        merged.update(range(a - 1, b - 1))
        last = b
    return from_merges(n, merged)


def merges(sizes_: Sequence[int]) -> set[int]:
    """Token positions i whose token shares a delta with token i+1."""
    out: set[int] = set()
    i = 0
    for s in sizes_:
        out.update(range(i, i + s - 1))
        i += s
    return out


def from_merges(n: int, merged: Iterable[int]) -> tuple[int, ...]:
    out, run = [], 1
    for i in range(n - 1):
        if i in merged:
            run += 1
        else:
            out.append(run)
            run = 1
    out.append(run)
    return tuple(out)


def merge_label(sizes_: Sequence[int]) -> str:
    """'token', or 'merge:4-6,42-43': the token spans (numbered from 1) sharing one delta."""
    spans, i = [], 0
    for s in sizes_:
        if s > 1:
            spans.append(f"{i + 1}-{i + s}")
        i += s
    return "merge:" + ",".join(spans) if spans else "token"


def at_label(sizes_: Sequence[int]) -> str:
    """'token', 'whole', or 'at:I,J': the token (numbered from 1) each delta but the last ends with."""
    if all(s == 1 for s in sizes_):
        return "token"
    if len(sizes_) == 1:
        return "whole"
    ends, i = [], 0
    for s in sizes_[:-1]:
        i += s
        ends.append(str(i))
    return "at:" + ",".join(ends)


@dataclass(frozen=True)
class GivenDeltas:
    """A stream given delta by delta (``--deltas FILE.json``): texts, or token-id lists."""

    texts: list[str] | None = None
    ids: list[list[int]] | None = None


def given(value: object, where: str) -> GivenDeltas:
    """A JSON list of delta texts, or of token-id lists, checked; one line naming the
    first bad entry otherwise."""
    if not isinstance(value, list) or not value:
        raise WorkbenchError(f"{where}: expected a non-empty JSON list of delta texts or of token-id lists")
    limits.check_deltas(len(value), where)
    if all(isinstance(x, str) for x in value):
        return GivenDeltas(texts=list(value))
    for i, x in enumerate(value):
        if not isinstance(x, list) or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in x):
            raise WorkbenchError(f"{where}: entry {i} is {type(x).__name__}; give all texts (strings) or all "
                                 "token-id lists (lists of integers >= 0)")
    if not any(value):
        raise WorkbenchError(f"{where}: every token-id list is empty")
    limits.check_tokens(sum(map(len, value)), where)
    return GivenDeltas(ids=[list(x) for x in value])


def read_deltas(path: str, text: str | None = None) -> GivenDeltas:
    """``--deltas FILE.json`` through the reading door; its texts must join to ``text`` if given."""
    from workbench.core import door

    out = given(door.read_json(path, "deltas file"), f"deltas file {path}")
    if text is not None and out.texts is not None and "".join(out.texts) != text:
        raise WorkbenchError(f"deltas file {path}: its texts do not join to the --text/--text-file text")
    return out
