"""The one seam onto vLLM's internals: every private attribute the workbench reads,
every vLLM method it wraps, and what it knows about vLLM versions.

vLLM has no public API for these views (a parser's state machines and stream
state, the engine core's grammar bitmask and its reasoning gate), so they are read
here and nowhere else. ``PRIVATE`` and ``WRAPPED`` list them;
tests/test_vllm_compat.py reads each one on real vLLM objects. When a vLLM version
no longer has one, the read raises ``CompatError`` naming the attribute and the
version, never a silent None.

Versions (the workbench calls only what 0.32 and 0.33 share):
- ``ParserManager.get_parser(tool_strict_level=)`` defaults to "auto" in 0.32 and to
  None in 0.33, so ``TOOL_STRICT_LEVEL`` is always passed explicitly;
- ``LLMEngine.add_request`` (0.32) takes no ``reasoning_ended`` /
  ``reasoning_parser_kwargs``, so ``prepare_request`` sets those two fields on the
  ``EngineCoreRequest`` as ``AsyncLLM.add_request`` does (for engine/stepper.py).
Other versions run in lanes (workbench/lanes/); tests/test_vllm_compat.py runs there too.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from workbench.core.versions import vllm_version
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from vllm.parser.abstract_parser import Parser
    from vllm.sampling_params import SamplingParams
    from vllm.v1.engine.llm_engine import LLMEngine
    from vllm.v1.structured_output import StructuredOutputManager

TOOL_STRICT_LEVEL = "auto"  # 0.32's default, passed explicitly (0.33's default is None)

# "Class.attribute" -> what the workbench reads it for (vLLM file that defines it)
PRIVATE = {
    "ParserEngine._engine": "the StreamingParserEngine of a declarative parser: its state and "
                            "events (vllm/parser/engine/parser_engine.py)",
    "ParserEngineReasoningAdapter._parser_engine": "the ParserEngine behind an engine-based reasoning "
                                                   "parser (vllm/parser/engine/adapters.py)",
    "ParserEngineToolAdapter._parser_engine": "the ParserEngine behind an engine-based tool parser "
                                              "(vllm/parser/engine/adapters.py)",
    "ParserEngineReasoningAdapter._parser_engine_cls": "which engine family a registered reasoning "
                                                       "parser adapts (vllm/parser/engine/adapters.py)",
    "ParserEngineToolAdapter._parser_engine_cls": "which engine family a registered tool parser adapts "
                                                  "(vllm/parser/engine/adapters.py)",
    "HarmonyParser._parser": "the openai_harmony StreamableParser: its current channel and recipient "
                             "(vllm/parser/harmony.py)",
    "HarmonyParser._normalize_recipient": "the recipient as HarmonyParser names it (vllm/parser/harmony.py)",
    "harmony._SegmentType": "which message field a Harmony channel and recipient go to: a phase's "
                            "kind (vllm/parser/harmony.py)",
    "Parser._stream_state": "the phase parse_delta is in: reasoning_ended, prompt_reasoning_checked "
                            "(vllm/parser/abstract_parser.py)",
    "StructuredOutputManager._get_constraint_bounds": "whether the grammar gate is open for a request "
                                                      "(vllm/v1/structured_output/__init__.py)",
    "StructuredOutputManager._get_reasoner": "building each request's grammar gate from its own "
                                             "reasoning parser (vllm/v1/structured_output/__init__.py)",
}
# Methods wrapped on one instance (the wrapper calls the original and returns its result).
WRAPPED = {
    "StreamingParserEngine.feed": "keep the SemanticEvents of each delta",
    "StreamingParserEngine.finish": "keep the SemanticEvents of the end of the stream",
    "StructuredOutputManager.grammar_bitmask": "keep the engine's grammar mask per step",
    "StructuredOutputManager._get_reasoner": "build a request's gate from that request's reasoning parser",
}
# Engine-core state swapped per request (the chat server sets it once, from --reasoning-parser).
SET = {
    "StructuredOutputManager.reasoner_cls": "the reasoning parser class that gates the grammar",
}
# The in-process LLMEngine's parts the engine stepper drives (engine/stepper.py, router.py) to
# add one request as AsyncLLM.add_request does and to see which requests the engine still holds.
ENGINE = {
    "LLMEngine.input_processor": "building a request's EngineCoreRequest (vllm/v1/engine/llm_engine.py)",
    "LLMEngine.output_processor": "registering a request's outputs and the requests still held "
                                  "(vllm/v1/engine/llm_engine.py)",
    "LLMEngine.engine_core": "handing a request to the engine core, shutting it down "
                             "(vllm/v1/engine/llm_engine.py)",
    "InputProcessor.process_inputs": "a request's EngineCoreRequest (vllm/v1/engine/input_processor.py)",
    "InputProcessor.assign_request_id": "its internal request id (vllm/v1/engine/input_processor.py)",
    "OutputProcessor.add_request": "registering the request's outputs (vllm/v1/engine/output_processor.py)",
    "OutputProcessor.request_states": "the requests the engine still holds (vllm/v1/engine/output_processor.py)",
    "EngineCoreRequest.reasoning_ended": "the chat server's reasoning_ended, set as AsyncLLM.add_request "
                                         "does (vllm/v1/engine/__init__.py)",
    "EngineCoreRequest.reasoning_parser_kwargs": "the request's chat_template_kwargs for its reasoning "
                                                 "parser, as AsyncLLM.add_request sets them "
                                                 "(vllm/v1/engine/__init__.py)",
}


# Not vLLM's, but read for it: the ``regex`` module's compiled-pattern cache size.
REGEX_CACHE = 8192


def size_regex_cache() -> None:
    """vLLM's StreamingParserEngine compiles one ``regex`` pattern per special token for
    every parser instance (``_build_drop_info``); ``regex`` caches 500 patterns, and
    Tekken has 1,000 special tokens (gpt_oss 1,091, deepseek_v4 1,283), so each instance
    recompiled them all (0.45 s on Tekken). A larger cache returns the same compiled
    patterns; nothing else changes."""
    import regex._main as rx

    rx._MAXCACHE = max(rx._MAXCACHE, REGEX_CACHE)


class CompatError(WorkbenchError):
    """The installed vLLM lacks an internal the workbench reads."""


def _gone(owner: str, attr: str) -> CompatError:
    key = f"{owner}.{attr}"
    why = PRIVATE.get(key) or WRAPPED.get(key) or SET.get(key) or ENGINE.get(key, "")
    return CompatError(f"vLLM {vllm_version()} has no {owner}.{attr} (the workbench reads it for "
                       f"{why.split(' (')[0]}; see workbench/core/vllm_compat.py)")


def read(obj: Any, owner: str, attr: str) -> Any:
    """``obj.attr`` for an attribute listed in PRIVATE; loud when vLLM dropped it."""
    try:
        return getattr(obj, attr)
    except AttributeError:
        raise _gone(owner, attr) from None


# -- parsers ------------------------------------------------------------------------
@cache
def _classes():
    from vllm.parser.abstract_parser import Parser
    from vllm.parser.engine.adapters import ParserEngineReasoningAdapter, ParserEngineToolAdapter
    from vllm.parser.engine.parser_engine import ParserEngine

    return Parser, ParserEngine, (ParserEngineReasoningAdapter, ParserEngineToolAdapter)


def is_parser_engine(parser: Parser | None) -> bool:
    """Whether ``parser`` is one declarative ParserEngine (both roles in one machine)."""
    return parser is not None and isinstance(parser, _classes()[1])


def streaming_engine(parser_engine: Any) -> Any:
    """The StreamingParserEngine a ParserEngine feeds."""
    return read(parser_engine, "ParserEngine", "_engine")


def adapter_engine(sub_parser: Any) -> Any:
    """The ParserEngine behind an engine-based reasoning/tool parser; None for a legacy one."""
    for base in _classes()[2]:
        if isinstance(sub_parser, base):
            return read(sub_parser, base.__name__, "_parser_engine")
    return None


def adapter_engine_cls(parser_cls: type[Parser] | None) -> type | None:
    """The ParserEngine class a registered engine-based parser class adapts; None otherwise."""
    adapters = _classes()[2]
    for base in adapters:
        if isinstance(parser_cls, type) and issubclass(parser_cls, base):
            return read(parser_cls, base.__name__, "_parser_engine_cls")
    return None


def sub_parsers(parser: Parser | None) -> dict:
    """role -> the reasoning / tool parser inside a composed Parser (public properties)."""
    if parser is None or is_parser_engine(parser):
        return {}
    return {"reasoning": parser.reasoning_parser, "tool": parser.tool_parser}


@cache
def _harmony_class(cls: type) -> bool:
    return any(c.__name__ == "HarmonyParser" and c.__module__ == "vllm.parser.harmony" for c in cls.__mro__)


def is_harmony_class(parser_cls: type[Parser] | None) -> bool:
    return isinstance(parser_cls, type) and _harmony_class(parser_cls)  # type: ignore[arg-type]  # hashable


def is_harmony(parser: Parser | None) -> bool:
    """Whether ``parser`` is vLLM's HarmonyParser (gpt-oss), without importing openai_harmony."""
    return parser is not None and _harmony_class(type(parser))  # type: ignore[arg-type]  # a class is hashable


def harmony_streamable(parser: Parser | None) -> Any:
    """HarmonyParser's StreamableParser; None until its first token."""
    return read(parser, "HarmonyParser", "_parser")


def harmony_recipient(parser: Parser | None, recipient: str | None) -> str | None:
    return read(type(parser), "HarmonyParser", "_normalize_recipient")(recipient)


def harmony_segment(channel: str | None, recipient: str | None) -> str:
    """HarmonyParser's segment type for a channel and (normalised) recipient: TOOL,
    REASONING, CONTENT or IGNORE."""
    return _segment_type().from_channel_and_recipient(channel, recipient).name


@cache
def _segment_type():
    from vllm.parser import harmony

    return read(harmony, "harmony", "_SegmentType")


def stream_state(parser: Parser | None) -> Any:
    """The Parser's StreamState (reasoning_ended, prompt_reasoning_checked, ...)."""
    return read(parser, "Parser", "_stream_state")


def _method(obj: Any, owner: str, method: str):
    """The class's own ``method`` bound to ``obj`` (so wrapping twice replaces, never stacks)."""
    try:
        return getattr(type(obj), method).__get__(obj)
    except AttributeError:
        raise _gone(owner, method) from None


def wrap(obj: Any, owner: str, method: str, after: Callable[..., Any]) -> None:
    """Wrap ``obj.method`` on this instance only: ``after(result, *args)`` sees each result."""
    original = _method(obj, owner, method)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        after(out, *args)
        return out

    setattr(obj, method, wrapped)


def record_events(engine: Any, on_events: Callable[..., Any]) -> None:
    """``on_events(events)`` after each feed/finish of a StreamingParserEngine that returned
    any (``wrap`` made lean: this runs inside every parse_delta of an engine parser)."""
    for method in ("feed", "finish"):
        original = _method(engine, "StreamingParserEngine", method)

        def wrapped(*args: Any, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            out = _original(*args, **kwargs)
            if out:
                on_events(out)
            return out

        setattr(engine, method, wrapped)


# -- the engine core's structured-output manager ---------------------------------------
def structured_output_manager(llm: LLMEngine) -> StructuredOutputManager | None:
    """The in-process engine core's StructuredOutputManager; None when the engine core runs
    in another process (``LLMEngine.engine_core`` is then not an InprocClient)."""
    core = getattr(getattr(llm, "engine_core", None), "engine_core", None)
    if core is None:
        return None
    sched = getattr(core, "scheduler", None)
    som = getattr(sched, "structured_output_manager", None) or getattr(core, "structured_output_manager", None)
    if som is None:
        raise CompatError(f"vLLM {vllm_version()}: the in-process EngineCore has no "
                          "scheduler.structured_output_manager (see workbench/core/vllm_compat.py)")
    read(som, "StructuredOutputManager", "_get_constraint_bounds")  # loud at start-up, not per step
    return som


def wrap_grammar_bitmask(som: StructuredOutputManager, on_mask: Callable[..., Any]) -> None:
    """``on_mask(mask, requests, request_ids, spec_tokens)`` after each grammar_bitmask call."""
    wrap(som, "StructuredOutputManager", "grammar_bitmask", on_mask)


def gate_open(som: StructuredOutputManager, request: Any) -> bool:
    """The call grammar_bitmask makes to decide whether the mask applies (constraint_start 0:
    reasoning has ended, or there is no reasoning gate at all)."""
    bounds = read(som, "StructuredOutputManager", "_get_constraint_bounds")
    return bounds(request, ()).constraint_start == 0


def reasoner_per_request(som: StructuredOutputManager, reasoners: dict) -> None:
    """vLLM's own ``_get_reasoner`` builds the gate of a request listed in ``reasoners``
    (internal request id -> reasoning parser class, or None for no gate) from that class
    instead of the engine's ``--reasoning-parser`` class."""
    get_reasoner = _method(som, "StructuredOutputManager", "_get_reasoner")
    if not hasattr(som, "reasoner_cls"):
        raise _gone("StructuredOutputManager", "reasoner_cls")

    def _get_reasoner(request: Any) -> Any:
        if request.request_id not in reasoners:
            return get_reasoner(request)
        engine_cls, som.reasoner_cls = som.reasoner_cls, reasoners[request.request_id]
        try:
            return get_reasoner(request)
        finally:
            som.reasoner_cls = engine_cls

    som._get_reasoner = _get_reasoner


# -- the API faces ----------------------------------------------------------------------
def anthropic_serving() -> Any:
    from vllm.entrypoints.anthropic.serving import AnthropicServingMessages

    return AnthropicServingMessages


def anthropic_merges_inline_system(chat_template: str | None) -> bool:
    """The server's probe: does this template need inline system messages merged first?"""
    return read(anthropic_serving(), "AnthropicServingMessages", "_detect_merge_inline_system")(chat_template)


def anthropic_to_chat(request: Any, merge_inline_system: bool, disabled_thinking_effort: str) -> Any:
    """``AnthropicServingMessages.to_chat_completion_request`` (a classmethod)."""
    return anthropic_serving().to_chat_completion_request(
        request, merge_inline_system=merge_inline_system, disabled_thinking_effort=disabled_thinking_effort)


def responses_close(processor: Any, finish_reason: str | None) -> list:
    """The simple path's final ``close_current``: 0.33 passes the item status
    (``response_item_status``: "incomplete" when max_tokens cut it), 0.32 takes none."""
    try:
        from vllm.entrypoints.openai.responses.utils import response_item_status
    except ImportError:
        return processor.close_current()
    return processor.close_current(response_item_status(finish_reason))


@cache
def _converter_reads_strings() -> bool:
    import inspect

    hint = inspect.signature(anthropic_serving().message_stream_converter).parameters["generator"].annotation
    return "ChatCompletionStreamResponse" not in str(hint)


def anthropic_stream_items(chunks: list[tuple[int, str]]) -> list[tuple[int, object]]:
    """What ``message_stream_converter`` reads of the chat stream, per (row, chunk JSON):
    0.32 reads the SSE strings (``data: ...``, then ``data: [DONE]``), 0.33 the chunk
    objects (an ``ErrorResponse`` for an error chunk) and ends with the generator."""
    if _converter_reads_strings():
        last = chunks[-1][0] if chunks else 0
        lines: list[tuple[int, object]] = [(i, f"data: {c}\n\n") for i, c in chunks]
        return lines + [(last, "data: [DONE]\n\n")]
    import json

    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionStreamResponse
    from vllm.entrypoints.serve.engine.protocol import ErrorResponse

    return [(i, ErrorResponse.model_validate(json.loads(c)) if c.startswith('{"error"')
             else ChatCompletionStreamResponse.model_validate_json(c)) for i, c in chunks]


# -- the in-process LLMEngine ------------------------------------------------------------
def prepare_request(llm: LLMEngine, request_id: str, prompt_ids: list[int], params: SamplingParams, reasoning_ended: bool | None,
                    reasoning_parser_kwargs: dict | None) -> Any:
    """The EngineCoreRequest ``LLMEngine.add_request`` builds for ``prompt_ids``, with the
    two fields only ``AsyncLLM.add_request`` takes (0.32's LLMEngine has neither), and its
    internal request id assigned. ValueError (VLLMValidationError) when vLLM refuses it."""
    from vllm.inputs.engine import tokens_input

    processor = read(llm, "LLMEngine", "input_processor")
    req = processor.process_inputs(request_id, tokens_input(list(prompt_ids)), params,
                                   supported_tasks=llm.get_supported_tasks())
    req.reasoning_ended = reasoning_ended
    req.reasoning_parser_kwargs = reasoning_parser_kwargs
    processor.assign_request_id(req)
    return req


def submit_request(llm: LLMEngine, req: Any) -> None:
    """The rest of ``LLMEngine.add_request``: outputs registered, then the engine core."""
    read(llm, "LLMEngine", "output_processor").add_request(req, None, None, 0)
    read(llm, "LLMEngine", "engine_core").add_request(req)


def held_requests(llm: LLMEngine) -> Any:
    """The internal ids of the requests the engine still holds (a live mapping)."""
    return read(llm, "LLMEngine", "output_processor").request_states


def shutdown_engine_core(llm: LLMEngine) -> None:
    read(llm, "LLMEngine", "engine_core").shutdown()
