"""Deltas exactly as vLLM's output processor would hand them to the serving layer.

A ``Delta`` is one ``RequestOutput`` of a streaming request: the new token ids of
one engine step (0..k of them), the text vLLM's incremental detokenizer released
for them, and a finish reason on the last one. ``deltas_from_ids`` produces them
with vLLM's own ``IncrementalDetokenizer`` (the ``DecodeStream`` fast path), so
zero-text deltas (a token ending mid UTF-8 character, a skipped special token,
the final EOS) appear exactly where the server would produce them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, TYPE_CHECKING

from workbench.core import chunking as chunking_mod, limits
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from vllm.sampling_params import SamplingParams
    from vllm.tokenizers import TokenizerLike


# Not frozen (nothing assigns to one): one is made per engine step, and a frozen
# dataclass's __init__ costs 4x a plain one's.
@dataclass(slots=True)
class Delta:
    token_ids: tuple[int, ...]
    text: str
    finish_reason: str | None = None
    # Engine runs fill these; replay leaves them empty.
    engine_steps: int = 1  # engine steps folded into this delta (empty steps included)
    extra: dict = field(default_factory=dict)  # e.g. the grammar view of the step

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"token_ids": list(self.token_ids), "text": self.text,
                             "finish_reason": self.finish_reason}
        if self.engine_steps != 1:
            d["engine_steps"] = self.engine_steps
        if self.extra:
            d["extra"] = self.extra
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Delta:
        return cls(tuple(d["token_ids"]), d["text"], d.get("finish_reason"),
                   d.get("engine_steps", 1), d.get("extra") or {})


def parse_chunking(text: str) -> str:
    """Validate a grouping name (``core/chunking.py``); returns it unchanged."""
    return chunking_mod.parse(text)


def group_sizes(n_tokens: int, chunking: str) -> list[int]:
    """How many tokens each delta carries (``core/chunking.py``; holdback: one each)."""
    sizes = chunking_mod.sizes(chunking, n_tokens)
    return list(sizes) if sizes is not None else [1] * n_tokens


def split(ids: Sequence[int], sizes: Sequence[int]) -> list[list[int]]:
    out, i = [], 0
    for s in sizes:
        out.append(list(ids[i:i + s]))
        i += s
    return out


def encode_text(tokenizer: TokenizerLike, text: str) -> list[int]:
    if getattr(tokenizer, "IS_MISTRAL_TOKENIZER", False):
        return _mistral_encode(tokenizer, text)
    return list(tokenizer.encode(text, add_special_tokens=False))


_MISTRAL_SPECIALS: dict[int, tuple[re.Pattern, dict[str, int]]] = {}


def _mistral_encode(tokenizer: TokenizerLike, text: str) -> list[int]:
    """mistral_common encodes text as text only (a model *emits* [TOOL_CALLS] as one
    control token); so control-token names in the text become those tokens, as a
    Hugging Face tokenizer would split its added tokens out."""
    if id(tokenizer) not in _MISTRAL_SPECIALS:
        vocab = tokenizer.get_vocab()
        specials = {t: vocab[t] for t in tokenizer.all_special_tokens if t in vocab}
        pattern = re.compile("(" + "|".join(map(re.escape, sorted(specials, key=len, reverse=True))) + ")")
        _MISTRAL_SPECIALS[id(tokenizer)] = pattern, specials
    pattern, specials = _MISTRAL_SPECIALS[id(tokenizer)]
    ids: list[int] = []
    for i, part in enumerate(pattern.split(text)):
        if i % 2:
            ids.append(specials[part])
        elif part:
            ids += tokenizer.encode(part, add_special_tokens=False)
    return ids


def eos_id(tokenizer: TokenizerLike) -> int | None:
    return getattr(tokenizer, "eos_token_id", None)


def deltas_from_ids(
    tokenizer: TokenizerLike,
    output_ids: Sequence[int],
    prompt_ids: Sequence[int],
    params: SamplingParams,
    groups: Sequence[Sequence[int]],
    finish_reason: str = "stop",
    stop_terminated: bool = True,
) -> Iterator[Delta]:
    """Run vLLM's incremental detokenizer over ``groups`` (one engine step each).

    ``params`` is the request's ``SamplingParams`` (skip_special_tokens, stop
    strings...). ``stop_terminated``: the last token is the EOS that stopped the
    request, so vLLM leaves it out of the text.
    """
    from vllm.v1.engine.detokenizer import IncrementalDetokenizer

    # prompt_embeds: read by the slow (non-fast-tokenizer, e.g. Mistral) detokenizer.
    fake_request = SimpleNamespace(request_id="workbench", sampling_params=params,
                                   prompt_token_ids=list(prompt_ids), prompt_embeds=None)
    detok = IncrementalDetokenizer.from_new_request(tokenizer, fake_request)
    for n, group in enumerate(groups):
        last = n == len(groups) - 1
        detok.update(list(group), stop_terminated=last and stop_terminated)
        text = detok.get_next_output_text(finished=last, delta=True)
        yield Delta(tuple(group), text, finish_reason if last else None)


def grouped(tokenizer: TokenizerLike, ids: Sequence[int], prompt_ids: Sequence[int], params: SamplingParams,
            chunking: str,
            finish_reason: str = "stop", stop_terminated: bool = True) -> list[Delta]:
    """``ids`` as the deltas of ``chunking`` (any name of ``core/chunking.py``)."""
    delay = chunking_mod.hold_back_delay(chunking)
    groups = split(ids, group_sizes(len(ids), chunking))
    out = list(deltas_from_ids(tokenizer, ids, prompt_ids, params, groups, finish_reason=finish_reason,
                               stop_terminated=stop_terminated))
    return hold_back(out, delay) if delay is not None else out


def hold_back(token_deltas: Sequence[Delta], delay: int) -> list[Delta]:
    """One token per delta, its text ``delay`` deltas late; the last delta flushes the
    rest (vLLM's ``replay_with_text_holdback``)."""
    out, held, last = [], [], len(token_deltas) - 1
    for i, d in enumerate(token_deltas):
        held.append(d.text)
        if i == last:
            chunk, held = "".join(held), []
        elif len(held) > delay:
            chunk = held.pop(0)
        else:
            chunk = ""
        out.append(Delta(d.token_ids, chunk, d.finish_reason if i == last else None))
    return out


def cut(ids: list[int], eos: int | None, max_tokens: int | None, finish_reason: str) -> tuple[list[int], str]:
    """The ids the engine emits for a text's ``ids`` (then ``eos`` if it stops) under
    ``max_tokens``, and how it ends: vLLM checks the stop token before the length
    (vllm/v1/core/sched/utils.py ``check_stop``), so an EOS that is token max_tokens stops."""
    if eos is not None:
        ids = ids + [eos]
    if max_tokens is None or len(ids) <= max_tokens:
        return ids, finish_reason
    return ids[:max_tokens], "length"


def deltas_from_text(tokenizer: TokenizerLike, text: str, prompt_ids: Sequence[int], params: SamplingParams,
                     chunking: str = "token", add_eos: bool = True,
                     finish_reason: str = "stop", max_tokens: int | None = None) -> list[Delta]:
    """The deltas a server would stream if the model wrote ``text`` then EOS (with
    ``finish_reason`` other than stop: the text alone, ending that way). ``max_tokens``
    cuts the output as the engine would (finish_reason "length")."""
    from workbench.core.tokenizers import stop_token_ids

    limits.check_text(text)
    ids = encode_text(tokenizer, text)
    limits.check_deltas(len(ids), "the text")
    # Text that already ends on a stop token (gpt-oss's <|call|>) stopped there.
    stopped = finish_reason == "stop" and bool(ids) and ids[-1] in stop_token_ids(tokenizer)
    eos = eos_id(tokenizer) if add_eos and finish_reason == "stop" and not stopped else None
    ids, finish = cut(ids, eos, max_tokens, finish_reason)
    if not ids:
        raise WorkbenchError("the text is empty: nothing to stream")
    stop_terminated = finish == "stop" and (eos is not None or stopped)
    return grouped(tokenizer, ids, prompt_ids, params, chunking, finish, stop_terminated)
