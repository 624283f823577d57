"""The seam's lists (every vLLM internal the workbench reads, wraps, sets or drives) and
the one way to read one: ``read`` / ``wrap``, loud (``CompatError``) when vLLM dropped it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.core.vllm_version import vllm_version
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

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
    "StreamingParserEngine._on_terminal": "which terminal fired in which state (a config's findings, "
                                          "diagnosis/config/where.py; vllm/parser/engine/streaming_parser_engine.py)",
    "StructuredOutputManager.grammar_bitmask": "keep the engine's grammar mask per step",
    "StructuredOutputManager._get_reasoner": "build a request's gate from that request's reasoning parser",
    "GPUModelRunner.sample_tokens": "the logits of each step before the grammar mask (the candidates view, "
                                    "engine/candidates.py; vllm/v1/worker/gpu_model_runner.py)",
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
    "EngineCore.model_executor": "the in-process executor, to reach its model runner (vllm/v1/engine/core.py)",
    "UniProcExecutor.driver_worker": "the one worker of an in-process executor "
                                     "(vllm/v1/executor/uniproc_executor.py)",
    "GPUModelRunner.execute_model_state": "the step's logits, between execute_model and sample_tokens "
                                          "(vllm/v1/worker/gpu_model_runner.py)",
    "GPUModelRunner.input_batch": "which row of the logits is which request (vllm/v1/worker/gpu_input_batch.py)",
}

# Read only by the in-process engine (engine/candidates.py), which runs on the installed vLLM
# alone: lanes are parse-only, and 0.34 moved its model runner (vllm/v1/worker/gpu/).
INSTALLED_ONLY = frozenset({"EngineCore.model_executor", "UniProcExecutor.driver_worker",
                            "GPUModelRunner.sample_tokens", "GPUModelRunner.execute_model_state",
                            "GPUModelRunner.input_batch"})


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
                       f"{why.split(' (')[0]}; see workbench/core/vllm_compat/)")


def read(obj: Any, owner: str, attr: str) -> Any:
    """``obj.attr`` for an attribute listed in PRIVATE; loud when vLLM dropped it."""
    try:
        return getattr(obj, attr)
    except AttributeError:
        raise _gone(owner, attr) from None


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
