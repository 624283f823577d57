"""What the model wanted, and what the grammar allowed: each step's top candidates.

vLLM's logprobs are computed from logits the grammar has already masked (the model runner
applies the bitmask before its sampler), so they cannot show what the model wanted. The
probe reads the step's logits one moment earlier, as the model runner hands them to
``sample_tokens`` (core/vllm_compat: ``on_logits``), and keeps a copy of each watched
request's row. When the row's token arrives, ``take`` ranks it twice:

- before: the model's own distribution (softmax of its logits, temperature 1);
- after: the same logits with the grammar's bitmask for that position (grammar.py reads it
  from the engine's StructuredOutputManager) applied, renormalised: what sampling chose from
  before temperature, top-p and top-k.

Nothing changes what the engine does: the row is read, never written. A scripted request is
"forced" (its logits processor sets every logit but the script's to -inf after this point).
The cost is one copy of a vocabulary-sized row per watched request per step, and two top-k
(bench/real_model.py measures it).
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vllm.tokenizers import TokenizerLike
    from workbench.engine.grammar import MaskEntry

TOP_K = 5


class CandidatesProbe:
    """Installed once per engine; ``watch(request_id)`` per request whose tokens are sampled."""

    def __init__(self, llm: Any) -> None:
        self.rows: dict[str, deque[Any]] = {}  # internal request id -> logits rows (torch, float32)
        runner = compat.model_runner(llm)
        self.available = runner is not None
        if runner is not None:
            compat.on_logits(runner, self._on_logits)

    def _on_logits(self, logits: Any, request_ids: list[str]) -> None:
        if not self.rows:
            return
        for i, request_id in enumerate(request_ids[:logits.shape[0]]):
            rows = self.rows.get(request_id)
            if rows is not None:
                rows.append(logits[i].detach().float().cpu().clone())

    def watch(self, request_id: str) -> None:
        self.rows[request_id] = deque()

    def unwatch(self, request_id: str | None) -> None:
        self.rows.pop(request_id, None)

    def take(self, request_id: str, token_ids: Sequence[int], masks: Sequence[MaskEntry] | None,
             tokenizer: TokenizerLike) -> list[dict] | None:
        """One entry per token of an output: its candidates before and after the grammar."""
        rows = self.rows.get(request_id)
        if not rows or not token_ids:
            return None
        out = []
        for n, token in enumerate(token_ids):
            if not rows:
                break
            mask = masks[n] if masks is not None and n < len(masks) else None
            out.append(rank(rows.popleft(), token, mask, tokenizer))
        return out


def allowed_of(mask: MaskEntry | None, size: int) -> np.ndarray | None:
    """The grammar's allowed tokens as booleans, or None where no mask applies (no grammar,
    its gate still closed while reasoning, or the grammar already terminated)."""
    if mask is None or not mask.gate_open or mask.terminated:
        return None
    bits = np.unpackbits(mask.row.view(np.uint8), bitorder="little").astype(bool)
    allowed = np.zeros(size, dtype=bool)
    allowed[:min(size, bits.size)] = bits[:size]
    return allowed


def rank(row: Any, token: int, mask: MaskEntry | None, tokenizer: TokenizerLike, k: int = TOP_K) -> dict:
    """The row's top ``k`` before and after the mask, and where ``token`` stood in each."""
    import torch

    allowed = allowed_of(mask, row.shape[0])
    before = torch.softmax(row, dim=0)
    entry: dict[str, Any] = {"token": token, "before": _top(before, k, allowed, tokenizer),
                             "p_before": round(float(before[token]), 6) if 0 <= token < row.shape[0] else None,
                             "rank_before": _rank(row, token)}
    if allowed is None:
        entry.update(masked=False, after=entry["before"], p_after=entry["p_before"],
                     rank_after=entry["rank_before"])
        return entry
    keep = torch.from_numpy(allowed)
    masked_row = row.masked_fill(~keep, float("-inf"))
    after = torch.softmax(masked_row, dim=0)
    entry.update(masked=True, allowed=int(allowed.sum()), after=_top(after, k, None, tokenizer),
                 p_after=round(float(after[token]), 6) if bool(keep[token]) else 0.0,
                 rank_after=_rank(masked_row, token) if bool(keep[token]) else None)
    return entry


def _top(probs: Any, k: int, allowed: np.ndarray | None, tokenizer: TokenizerLike) -> list[dict]:
    import torch

    values, ids = torch.topk(probs, min(k, probs.shape[0]))
    out = []
    for p, i in zip(values.tolist(), ids.tolist()):
        if p <= 0.0:
            break
        item = {"id": i, "token": _piece(tokenizer, i), "p": round(p, 6)}
        if allowed is not None:
            item["masked"] = not bool(allowed[i])
        out.append(item)
    return out


def _rank(row: Any, token: int) -> int | None:
    """1 for the most likely token; ties share the better rank."""
    if not 0 <= token < row.shape[0]:
        return None
    return int((row > row[token]).sum()) + 1


def _piece(tokenizer: TokenizerLike, token_id: int) -> str:
    try:
        return tokenizer.decode([token_id])
    except Exception:  # an id past the tokenizer (a padded vocabulary row)
        return f"<{token_id}>"
