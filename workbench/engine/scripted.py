"""Force exact token ids through a v1 logits processor (the "script").

A request whose ``SamplingParams.extra_args[SCRIPT_KEY]`` holds token ids gets,
at output position n, every logit set to -inf except ``script[n]``; after the
script the model is free again (scripts end with EOS, so it stops). Requests
without a script are untouched. Forcing with a regex would give the right text
with the wrong token ids, which token-id-based parsers notice.

``extra_args[PACE_KEY]`` (milliseconds) paces a scripted request: each engine step
that holds one waits that long, so a server's output collector never has two outputs
to merge into one (tests/capture/test_serve_parity.py compares Responses / Anthropic events,
which carry no token ids to tell a merged delta apart).

The engine applies the grammar bitmask before logits processors, so a scripted
token the grammar forbids is still emitted; the engine's grammar then rejects it
and finishes the request with finish_reason "error" — reported, not raised.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import torch
from vllm.v1.sample.logits_processor import BatchUpdate, LogitsProcessor, MoveDirectionality

if TYPE_CHECKING:
    from vllm.sampling_params import SamplingParams

SCRIPT_KEY = "workbench_script"
PACE_KEY = "workbench_pace_ms"


class ScriptedTokensLogitsProcessor(LogitsProcessor):
    def __init__(self, vllm_config, device, is_pin_memory: bool) -> None:
        # batch index -> (script, live reference to the request's output token ids)
        self.state: dict[int, tuple[list[int], list[int]]] = {}
        self.pace: dict[int, float] = {}  # batch index -> seconds per step

    @classmethod
    def validate_params(cls, params: SamplingParams) -> None:
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
            self.pace.pop(index, None)
        for index, params, _prompt_ids, output_ids in batch_update.added:
            extra = (params.extra_args or {}) if params else {}
            script, pace = extra.get(SCRIPT_KEY), extra.get(PACE_KEY)
            if script:
                self.state[index] = (list(script), output_ids)
            else:
                self.state.pop(index, None)
            if isinstance(pace, (int, float)) and pace > 0:
                self.pace[index] = min(float(pace), 1000.0) / 1000
            else:
                self.pace.pop(index, None)
        for table in (self.state, self.pace):
            for a, b, direction in batch_update.moved:
                sa, sb = table.pop(a, None), table.pop(b, None)
                if sa is not None:
                    table[b] = sa
                if direction == MoveDirectionality.SWAP and sb is not None:
                    table[a] = sb

    def apply(self, logits: torch.Tensor) -> torch.Tensor:
        if self.pace:
            time.sleep(max(self.pace.values()))
        for index, (script, out_ids) in self.state.items():
            n = len(out_ids)
            if n < len(script):
                logits[index].fill_(float("-inf"))
                logits[index, script[n]] = 0.0
        return logits
