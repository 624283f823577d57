"""Force exact token ids through a v1 logits processor (the "script").

A request whose ``SamplingParams.extra_args[SCRIPT_KEY]`` holds token ids gets,
at output position n, every logit set to -inf except ``script[n]``; after the
script the model is free again (scripts end with EOS, so it stops). Requests
without a script are untouched. Forcing with a regex would give the right text
with the wrong token ids, which token-id-based parsers notice.

The engine applies the grammar bitmask before logits processors, so a scripted
token the grammar forbids is still emitted; the engine's grammar then rejects it
and finishes the request with finish_reason "error" — reported, not raised.
"""

from __future__ import annotations

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

SCRIPT_KEY = "workbench_script"


class ScriptedTokensLogitsProcessor(LogitsProcessor):
    def __init__(self, vllm_config, device, is_pin_memory: bool) -> None:
        # batch index -> (script, live reference to the request's output token ids)
        self.state: dict[int, tuple[list[int], list[int]]] = {}

    @classmethod
    def validate_params(cls, params) -> None:
        script = (params.extra_args or {}).get(SCRIPT_KEY)
        if script is not None and not (isinstance(script, list)
                                       and all(isinstance(t, int) for t in script)):
            raise ValueError(f"extra_args[{SCRIPT_KEY!r}] must be a list of token ids")

    def is_argmax_invariant(self) -> bool:
        return False

    def update_state(self, batch_update: BatchUpdate | None) -> None:
        if not batch_update:
            return
        for index in batch_update.removed:
            self.state.pop(index, None)
        for index, params, _prompt_ids, output_ids in batch_update.added:
            script = (params.extra_args or {}).get(SCRIPT_KEY) if params else None
            if script:
                self.state[index] = (list(script), output_ids)
            else:
                self.state.pop(index, None)
        for a, b, direction in batch_update.moved:
            sa, sb = self.state.pop(a, None), self.state.pop(b, None)
            if sa is not None:
                self.state[b] = sa
            if direction == MoveDirectionality.SWAP and sb is not None:
                self.state[a] = sb

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        for index, (script, out_ids) in self.state.items():
            n = len(out_ids)
            if n < len(script):
                logits[index].fill_(float("-inf"))
                logits[index, script[n]] = 0.0
        return logits
