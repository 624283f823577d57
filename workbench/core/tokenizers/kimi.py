"""Kimi K2's ``tokenizer.json``, rebuilt from its own ``tiktoken.model``.

Moonshot publishes Kimi K2's vocabulary as a tiktoken rank file (``tiktoken.model``,
sha256 b6c497a7…5103, 163,584 ranks; Kimi K2 Base/Instruct/Thinking, K2.5, K2.6 and
Kimi-Linear share it byte for byte) read by ``tokenization_kimi.py`` with a split
pattern of its own and 256 reserved special ids above the ranks. The tml-renderers
wheel (Apache-2.0, already pinned for gpt_oss) embeds a gzip copy of that exact file
and the special-token tables of each Kimi release in its library; both are read here
as data, the library is never loaded. The ranks become a byte-level BPE as for Qwen3
(``qwen.vocab_and_merges``). Kimi's files are under Moonshot's Modified MIT licence.
"""

from __future__ import annotations

import hashlib
import json
import zlib

from workbench.core.tokenizers.qwen import bpe_tokenizer_json, parse_ranks, vocab_and_merges

TML_LIBRARY = "tml_renderers/_tml_renderers.abi3.so"
RANKS_SHA256 = "b6c497a7469b33ced9c38afb1ad6e47f03f5e5dc05f15930799210ec050c5103"
RANKS_BYTES = 2_795_286
N_RANKS = 163_584
N_SPECIAL = 256  # tokenization_kimi.py: num_reserved_special_tokens
VARIANT = "k2_thinking"  # the table with <think>/</think> (K2 Base and Instruct lack them)
SPECIALS_AT = b'{"bos_token":"[BOS]","eos_token":"[EOS]","variants":'

# tokenization_kimi.py's pat_str: Han runs split from other letters (regex class intersection).
_UPPER = r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]"
_LOWER = r"[\p{Ll}\p{Lm}\p{Lo}\p{M}&&[^\p{Han}]]"
_CONTRACTION = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)?"
KIMI_PATTERN = "|".join([
    r"[\p{Han}]+",
    rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}*{_LOWER}+{_CONTRACTION}",
    rf"[^\r\n\p{{L}}\p{{N}}]?{_UPPER}+{_LOWER}*{_CONTRACTION}",
    r"\p{N}{1,3}",
    r" ?[^\s\p{L}\p{N}]+[\r\n]*",
    r"\s*[\r\n]+",
    r"\s+(?!\S)",
    r"\s+",
])


def embedded_ranks(library: bytes) -> bytes:
    """The gzip member of the library that decompresses to Kimi's tiktoken.model."""
    start = library.find(b"\x1f\x8b\x08")
    while start >= 0:
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            data = stream.decompress(library[start:start + 4 * RANKS_BYTES], RANKS_BYTES + 1)
        except zlib.error:
            data = b""
        if len(data) == RANKS_BYTES and hashlib.sha256(data).hexdigest() == RANKS_SHA256:
            return data
        start = library.find(b"\x1f\x8b\x08", start + 1)
    raise ValueError(f"{TML_LIBRARY}: no embedded Kimi tiktoken.model (sha256 {RANKS_SHA256[:12]}…)")


def special_tokens(library: bytes) -> dict[int, str]:
    """Id -> name for the 256 special ids; an unnamed one is <|reserved_token_K|>, K counted
    from the first special id (the spelling tml-renderers gives Kimi's reserved ids)."""
    at = library.find(SPECIALS_AT)
    if at < 0:
        raise ValueError(f"{TML_LIBRARY}: no embedded Kimi special-token table")
    table, _ = json.JSONDecoder().raw_decode(library[at:at + 65536].decode("utf-8", "replace"))
    named = {int(i): name for i, name in table["variants"][VARIANT].items()}
    return {i: named.get(i, f"<|reserved_token_{i - N_RANKS}|>") for i in range(N_RANKS, N_RANKS + N_SPECIAL)}


def added_tokens(specials: dict[int, str]) -> list[dict]:
    return [{"id": i, "content": name, "single_word": False, "lstrip": False, "rstrip": False,
             "normalized": False, "special": True} for i, name in sorted(specials.items())]


def kimi_tokenizer_json(library: bytes) -> tuple[bytes, dict[int, str]]:
    ranks = parse_ranks(embedded_ranks(library))
    if len(ranks) != N_RANKS:
        raise ValueError(f"Kimi tiktoken.model: expected {N_RANKS} ranks, got {len(ranks)}")
    specials = special_tokens(library)
    vocab, merges = vocab_and_merges(ranks)
    # tiktoken takes a pre-token that is itself a rank whole, as ignore_merges does.
    return bpe_tokenizer_json(vocab, merges, added_tokens(specials), KIMI_PATTERN,
                              normalizer=None, ignore_merges=True), specials
