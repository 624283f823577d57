"""A script: the exact token ids the engine is forced to emit, from a text or ids.

From a text: its ids as the tokenizer encodes it, then EOS. From ids: as given.
Either way the round trip through the tokenizer is checked, and a mismatch is a
note showing both sides (not an error: forcing odd ids is a legitimate test).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from workbench.core.deltas import encode_text, eos_id
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.tokenizers import TokenizerLike


# The last script made: Run again on the same text (the widget's usual loop, the
# benchmark's rounds) skips the encode and decode round trip (~1 ms for 160 tokens).
_last: list = [None, None, None]  # tokenizer, (text, token_ids, vocab_size), (ids, notes)


def script_ids(tokenizer: TokenizerLike, text: str | None, token_ids: Sequence[int] | None,
               vocab_size: int) -> tuple[list[int], list[str]]:
    """(ids, notes); ``text`` gets EOS appended, ``token_ids`` are used as they are."""
    key = (text, None if token_ids is None else tuple(token_ids), vocab_size)
    if _last[0] is not tokenizer or _last[1] != key:
        _last[:] = [tokenizer, key, _script_ids(tokenizer, text, token_ids, vocab_size)]
    ids, notes = _last[2]
    return list(ids), list(notes)


def _script_ids(tokenizer: TokenizerLike, text: str | None, token_ids: Sequence[int] | None,
                vocab_size: int) -> tuple[list[int], list[str]]:
    notes = []
    if token_ids is not None:
        ids = [int(t) for t in token_ids]
        body = ids[:-1] if ids and ids[-1] == eos_id(tokenizer) else ids
        decoded = tokenizer.decode(body, skip_special_tokens=False)
        again = encode_text(tokenizer, decoded)
        if again != body:
            notes.append(f"script: these ids are not how the tokenizer encodes their text "
                         f"{decoded!r}: given {body}, it encodes to {again}")
    else:
        eos = eos_id(tokenizer)
        if eos is None:
            raise WorkbenchError("the tokenizer has no eos token: a scripted text cannot end")
        ids = encode_text(tokenizer, text)
        back = tokenizer.decode(ids, skip_special_tokens=False)
        if back != text:
            notes.append(f"script: the text does not round-trip through the tokenizer: "
                         f"given {text!r}, its ids {ids} decode to {back!r}")
        ids.append(eos)
    if not ids:
        raise WorkbenchError("the script is empty: nothing to generate")
    bad = [t for t in ids if not 0 <= t < vocab_size]
    if bad:
        raise WorkbenchError(f"script token ids outside the model's vocabulary ({vocab_size}): {bad[:5]}")
    return ids, notes
