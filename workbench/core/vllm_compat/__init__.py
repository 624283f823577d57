"""The one seam onto vLLM's internals: every private attribute the workbench reads,
every vLLM method it wraps, and what it knows about vLLM versions.

vLLM has no public API for these views (a parser's state machines and stream
state, the engine core's grammar bitmask and its reasoning gate), so they are read
here (this package) and nowhere else. ``PRIVATE`` and ``WRAPPED`` list them;
tests/core/test_vllm_compat.py reads each one on real vLLM objects. When a vLLM version
no longer has one, the read raises ``CompatError`` naming the attribute and the
version, never a silent None.

Versions (the workbench calls only what 0.32 and 0.33 share):
- ``ParserManager.get_parser(tool_strict_level=)`` defaults to "auto" in 0.32 and to
  None in 0.33, so ``TOOL_STRICT_LEVEL`` is always passed explicitly;
- ``LLMEngine.add_request`` (0.32) takes no ``reasoning_ended`` /
  ``reasoning_parser_kwargs``, so ``prepare_request`` sets those two fields on the
  ``EngineCoreRequest`` as ``AsyncLLM.add_request`` does (for engine/stepper.py).
Other versions run in lanes (workbench/lanes/); tests/core/test_vllm_compat.py runs there too.

By concept: ``seam`` (the lists, ``read``, ``wrap``, ``CompatError``), ``parser_state`` (a
parser instance's machines, Harmony channels and stream state), ``engine`` (the engine
core's structured-output manager and the in-process LLMEngine's parts), ``faces`` (the
API faces' serving layers). Callers import this package (``compat.X``), never a part.

    seam.py      the lists (PRIVATE, WRAPPED, SET, ENGINE), read / wrap, CompatError
    parser_state.py  a parser instance's machines, Harmony channels and stream state
    engine.py    the engine core's structured-output manager; the LLMEngine's parts for one request
    faces.py     the API faces' serving layers where a version differs
"""

from __future__ import annotations

from workbench.core.vllm_compat.seam import (  # noqa: F401
    TOOL_STRICT_LEVEL, PRIVATE, WRAPPED, SET, ENGINE, INSTALLED_ONLY, REGEX_CACHE, size_regex_cache,
    CompatError, read, wrap,
)
from workbench.core.vllm_compat.parser_state import (  # noqa: F401
    is_parser_engine, streaming_engine, adapter_engine, adapter_engine_cls, sub_parsers,
    is_harmony_class, is_harmony, harmony_streamable, harmony_recipient, harmony_segment,
    stream_state, stream_state_reader, record_events, record_terminals,
)
from workbench.core.vllm_compat.engine import (  # noqa: F401
    structured_output_manager, wrap_grammar_bitmask, gate_open, reasoner_per_request,
    prepare_request, submit_request, held_requests, shutdown_engine_core, model_runner, on_logits,
)
from workbench.core.vllm_compat.faces import (  # noqa: F401
    anthropic_serving, anthropic_merges_inline_system, anthropic_to_chat, responses_close,
    anthropic_stream_items,
)
