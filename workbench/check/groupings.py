"""Other groupings of the same tokens into deltas, as engines produce them.

A grouping is a tuple of delta sizes in tokens. ``TokenStream`` holds the
one-token deltas of a stream as vLLM's incremental detokenizer produced them
(computed once) and builds any grouping from them: vLLM's detokenizer decodes
token by token whatever the step size, so a group's text is the concatenation
of its tokens' texts as long as no stop string holds text back (then every
grouping goes through vLLM's detokenizer again). ``tests/check/test_suite.py``
asserts that equivalence against ``deltas_from_ids``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core import chunking as C
from workbench.core.chunking import MAX_CHUNK, at_label, from_merges, merge_label, merges  # noqa: F401
from workbench.core.deltas import Delta, deltas_from_ids, hold_back, split

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from workbench.core.session import Session

VLLM_SEED = 20260902  # tests/tool_parsers/common_tests.py's split-invariance seed
MTP_BATCHES = (2, 3, 4, 8)
# Every two-chunk split of a stream of up to ALL_SPLITS tokens is checked; a longer
# stream gets a sample of its n - 1 splits, drawn with the groupings' seed: SAMPLED_SPLITS,
# or as many as replay SPLIT_TOKENS tokens in all (at least MIN_SPLITS). Each split
# replays the whole text, so all of them cost the square of the length (30,000 tokens:
# 29,999 splits of 30,000 tokens each; at the 100,000-delta limit 256 splits alone ran
# past a minute), where the sample's cost stays within a constant.
ALL_SPLITS = 1024
SAMPLED_SPLITS = 256
SPLIT_TOKENS = 4_000_000
MIN_SPLITS = 16


def sampled_splits(n: int) -> int:
    """How many two-chunk splits a stream of ``n`` tokens over ``ALL_SPLITS`` gets."""
    return min(n - 1, SAMPLED_SPLITS, max(MIN_SPLITS, SPLIT_TOKENS // max(n, 1)))


@dataclass
class Variant:
    """One grouping. Its deltas are built when a probe reads them, not when the list of
    groupings is made: a stream of n tokens has n - 1 two-chunk splits, each holding
    the whole text (30,000 tokens held 7 GB that way)."""

    label: str
    given: list[Delta] | None  # deltas that are no regrouping of the tokens (holdback, the source's)
    sizes: tuple[int, ...] | None  # None when text and ids are not aligned (holdback)
    stream: TokenStream | None = None

    @property
    def deltas(self) -> list[Delta]:
        if self.given is not None:
            return self.given
        assert self.stream is not None and self.sizes is not None
        return self.stream.deltas(self.sizes)


class TokenStream:
    """The one-token deltas of a stream, and every regrouping of them."""

    def __init__(self, session: Session, token_deltas: list[Delta]) -> None:
        self.session = session
        self.token_deltas = token_deltas
        self.ids = [d.token_ids[0] for d in token_deltas]
        self.texts = [d.text for d in token_deltas]
        self.finish_reason = token_deltas[-1].finish_reason or "stop"
        eos = getattr(session.tokenizer, "eos_token_id", None)
        self.stop_terminated = bool(self.ids) and self.ids[-1] == eos
        # Stop strings make vLLM hold text back between steps; then regroup for real.
        self.exact_concat = not session.params.stop

    @classmethod
    def from_deltas(cls, session: Session, deltas: list[Delta]) -> TokenStream:
        if all(len(d.token_ids) == 1 for d in deltas):
            return cls(session, list(deltas))
        return cls(session, session.regroup(deltas, "token"))

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def text(self) -> str:
        return "".join(self.texts)

    def deltas(self, sizes: Sequence[int]) -> list[Delta]:
        if not self.exact_concat:
            return self.detokenized(sizes)
        out, i, last = [], 0, len(sizes) - 1
        for n, s in enumerate(sizes):
            out.append(Delta(tuple(self.ids[i:i + s]), "".join(self.texts[i:i + s]),
                             self.finish_reason if n == last else None))
            i += s
        return out

    def detokenized(self, sizes: Sequence[int]) -> list[Delta]:
        """The same grouping through vLLM's IncrementalDetokenizer (the reference)."""
        s = self.session
        return list(deltas_from_ids(s.tokenizer, self.ids, s.prompt_ids, s.params, split(self.ids, sizes),
                                    finish_reason=self.finish_reason,
                                    stop_terminated=self.stop_terminated))

    def holdback(self, delay: int = 1) -> list[Delta]:
        """One token per delta, its text ``delay`` deltas late (``core/deltas.hold_back``)."""
        return hold_back(self.token_deltas, delay)

    def named(self, label: str) -> list[Delta]:
        """The deltas of any ``--chunking`` name (``core/chunking.py``) over these tokens."""
        delay = C.hold_back_delay(label)
        return self.holdback(delay) if delay is not None else self.deltas(C.sizes(label, len(self)))

    def variant(self, label: str, sizes: Sequence[int]) -> Variant:
        return Variant(label, None, tuple(sizes), self)


def whole(n: int) -> list[tuple[str, tuple]]:
    return [("whole", (n,))] if n > 1 else []


def split_positions(n: int, seed: int = VLLM_SEED, at: set[int] | None = None) -> list[int]:
    """Where the two-chunk splits of an n-token stream cut: the positions ``at``, or all of
    1..n-1 up to ``ALL_SPLITS`` tokens, else ``sampled_splits(n)`` of them drawn with ``seed``."""
    if at is not None:
        return sorted(i for i in at if 0 < i < n)
    if n <= ALL_SPLITS:
        return list(range(1, n))
    return sorted(random.Random(seed).sample(range(1, n), sampled_splits(n)))


def two_chunk(n: int, at: set[int] | None = None, seed: int = VLLM_SEED) -> list[tuple[str, tuple]]:
    """The two-chunk splits at ``split_positions``."""
    return [(f"split:{i}", (i, n - i)) for i in split_positions(n, seed, at)]


def splits_checked(n: int, seed: int = VLLM_SEED, at: set[int] | None = None) -> dict:
    """What ``checked`` says of the two-chunk splits."""
    which = ("next to the format's markers, and every 16th" if at is not None else "every one" if n <= ALL_SPLITS
             else f"a sample drawn with seed {seed} (streams over {ALL_SPLITS:,} tokens)")
    return {"checked": len(split_positions(n, seed, at)), "of": max(n - 1, 0), "which": which}


def marker_positions(texts: list[str], markers: Iterable[str], every: int = 16, reach: int = 2) -> set[int]:
    """Split positions within ``reach`` tokens of a marker in the text, plus every
    ``every``-th: where a delta boundary can fall inside or beside the format's markup."""
    starts, at = [], 0
    for t in texts:
        starts.append(at)
        at += len(t)
    text = "".join(texts)
    hot: set[int] = set()
    for m in markers:
        i = text.find(m)
        while i >= 0:
            first = next((k for k in range(len(texts)) if starts[k] + len(texts[k]) > i), len(texts) - 1)
            last = next((k for k in range(first, len(texts)) if starts[k] + len(texts[k]) >= i + len(m)), first)
            hot.update(range(first - reach + 1, last + reach + 1))
            i = text.find(m, i + 1)
    n = len(texts)
    return {k for k in hot if 0 < k < n} | set(range(every, n, every))


def random_groupings(n: int, count: int, seed: int = VLLM_SEED,
                     max_chunk: int = MAX_CHUNK) -> list[tuple[str, tuple]]:
    """Drawn as vLLM's ``random_groupings`` draws them (one RNG for all ``count``); each
    label (``random:SEED[:MAX]#I``) names its grouping for ``--chunking``."""
    rng = random.Random(seed)
    return [(C.random_label(seed, j, max_chunk), C.random_sizes(n, rng, max_chunk)) for j in range(count)]


def k_batches(n: int, ks: Sequence[int] = MTP_BATCHES) -> list[tuple[str, tuple]]:
    return [(f"k:{k}", tuple(min(k, n - i) for i in range(0, n, k))) for k in ks if k < n]


def standard(n: int, fuzz: int, seed: int = VLLM_SEED, max_chunk: int = MAX_CHUNK,
             ks: Sequence[int] = MTP_BATCHES, split_at: set[int] | None = None) -> list[tuple[str, tuple]]:
    """whole, k-token batches, N random groupings, the two-chunk splits (``split_positions``:
    those at ``split_at`` if given); no duplicates and never the one-token grouping itself."""
    seen, out = set(), []
    for label, sizes in (whole(n) + k_batches(n, ks) + random_groupings(n, fuzz, seed, max_chunk)
                         + two_chunk(n, split_at, seed)):
        if sizes in seen or all(s == 1 for s in sizes):
            continue
        seen.add(sizes)
        out.append((label, sizes))
    return out


def parse_merge_label(label: str, n: int) -> tuple[int, ...]:
    return C.sizes(label, n)
