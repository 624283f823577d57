"""The grammar view: what the engine's own structured-output manager allowed.

vLLM has no public API for the grammar bitmask, so ``GrammarProbe`` wraps
``StructuredOutputManager.grammar_bitmask`` on the in-process engine core
(``LLMEngine.engine_core.engine_core.structured_output_manager``, the object the
scheduler calls each step). For each watched request (one per stepper; several
run at once on one engine) it keeps, per scheduled position, whether the grammar gate was open (reasoning ended, so the mask
applies), how many tokens the mask allowed, and a copy of the mask row, so the
token the step emitted can be checked against it. Nothing is recomputed: the
numbers are the engine's.

The engine core has one reasoning-parser class (``--reasoning-parser``), but
requests on this engine may each use another: ``watch(id, reasoner_cls)`` makes
vLLM's own ``_get_reasoner`` build that request's gate from its class. The wrapping
and the private reads are in core/vllm_compat/.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from collections.abc import Sequence
    from vllm.sampling_params import SamplingParams
    from vllm.v1.engine.llm_engine import LLMEngine

SOURCE = "engine"  # read from vLLM's StructuredOutputManager in process (not recomputed)
WRAPPED = "StructuredOutputManager.grammar_bitmask"


@dataclass
class MaskEntry:
    gate_open: bool
    terminated: bool
    allowed: int
    row: np.ndarray  # uint32 words, a copy (vLLM reuses its buffer every step)

    def allows(self, token_id: int) -> bool:
        if token_id < 0 or (token_id >> 5) >= len(self.row):
            return False
        return bool((int(self.row[token_id >> 5]) >> (token_id & 31)) & 1)


def structured_output_manager(llm: LLMEngine):
    """The engine core's StructuredOutputManager, or None (e.g. a multiprocess engine)."""
    return compat.structured_output_manager(llm)


class GrammarProbe:
    """Installed once per engine; ``watch(request_id, reasoner_cls)`` per request."""

    def __init__(self, llm: LLMEngine) -> None:
        self.som = structured_output_manager(llm)
        self.available = self.som is not None
        self.groups: dict[str, deque[list[MaskEntry]]] = {}  # internal request id -> masks
        self.reasoners: dict[str, type | None] = {}
        if not self.available:
            return
        self.vocab_size = self.som.vllm_config.model_config.get_vocab_size()
        self._tail = np.uint32((1 << (self.vocab_size % 32)) - 1) if self.vocab_size % 32 else None
        compat.wrap_grammar_bitmask(self.som, self._on_mask)
        compat.reasoner_per_request(self.som, self.reasoners)

    def _on_mask(self, out, requests, structured_output_request_ids, scheduled_spec_decode_tokens) -> None:
        if out is not None and self.groups:
            self._record(out, requests, structured_output_request_ids, scheduled_spec_decode_tokens)

    def watch(self, request_id: str, reasoner_cls: type | None = None) -> None:
        self.groups[request_id] = deque()
        self.reasoners[request_id] = reasoner_cls

    def unwatch(self, request_id: str | None) -> None:
        self.groups.pop(request_id, None)
        self.reasoners.pop(request_id, None)

    def _record(self, out, requests, ids: Sequence[int], spec_tokens) -> None:
        row = 0
        for req_id in ids:
            n = 1 + len(spec_tokens.get(req_id, ()))
            if req_id in self.groups:
                request = requests[req_id]
                gate = self._gate(request)
                grammar = request.structured_output_request.grammar
                terminated = bool(grammar.is_terminated()) if hasattr(grammar, "is_terminated") else False
                group = []
                for i in range(n):
                    words = np.array(out[row + i], dtype=np.int32).view(np.uint32)
                    group.append(MaskEntry(gate, terminated, self._count(words), words))
                self.groups[req_id].append(group)
            row += n

    def _gate(self, request) -> bool:
        return compat.gate_open(self.som, request)

    def _count(self, words: np.ndarray) -> int:
        full = len(words) if self._tail is None else len(words) - 1
        n = int(np.bitwise_count(words[:full]).sum())
        if self._tail is not None:
            n += int(np.bitwise_count(words[-1] & self._tail))
        return n

    def pop(self, request_id: str, token_ids: Sequence[int]) -> list[MaskEntry] | None:
        """The masks of one output of a request (one per token), or None when no mask was built."""
        groups = self.groups.get(request_id)
        if not groups or not token_ids:
            return None
        return groups.popleft()[:len(token_ids)]


def view(entries: list[MaskEntry] | None, token_ids: Sequence[int]) -> dict | None:
    """The grammar view of one output (its tokens and their masks), or None without masks."""
    if entries is None:
        return None
    view = {"source": SOURCE,
            "gate_open": [e.gate_open for e in entries],
            "allowed": [e.allowed for e in entries],
            "emitted_allowed": [e.allows(t) if (e.gate_open and not e.terminated) else None
                                for e, t in zip(entries, token_ids)]}
    if any(e.terminated for e in entries):
        view["terminated"] = [e.terminated for e in entries]
    return view


def constraint_of(params: SamplingParams) -> dict | None:
    """The request's structured-output constraint as vLLM holds it: kind + spec."""
    so = getattr(params, "structured_outputs", None)
    if so is None:
        return None
    for kind in ("structural_tag", "json", "regex", "choice", "grammar", "json_object"):
        value = getattr(so, kind, None)
        if value not in (None, False):
            return {"kind": kind, "spec": value}
    return None


def loose_arguments(constraint: dict | None, tools: list[dict] | None) -> list[str]:
    """A note when the engine's constraint pins each call's shape but not its arguments: vLLM
    writes ``"json_schema": true`` into the structural tag for a tool that is not strict."""
    if constraint is None or constraint["kind"] != "structural_tag" or not tools:
        return []
    spec = constraint["spec"]
    try:
        tag = json.loads(spec) if isinstance(spec, str) else spec
    except ValueError:
        return []
    if not any(node.get("json_schema") is True for node in _dicts(tag)):
        return []
    loose = [t["function"]["name"] for t in tools
             if isinstance(t.get("function"), dict) and not t["function"].get("strict")]
    if not loose:
        return []
    return [f"the grammar pins each call's shape, not its arguments: {', '.join(loose)} "
            f"{'is' if len(loose) == 1 else 'are'} not strict (a tool with \"strict\": true gets its "
            f"parameters' schema in vLLM's structural tag; without it any JSON value is allowed)"]


def _dicts(value: object) -> list[dict]:
    if isinstance(value, dict):
        return [value] + [d for v in value.values() for d in _dicts(v)]
    if isinstance(value, list):
        return [d for v in value for d in _dicts(v)]
    return []
