"""A parser instance's internals: its declarative state machines (ParserEngine and the
adapters), HarmonyParser's channels, the stream state, and the engines' events."""

from __future__ import annotations

from functools import cache, partial
from operator import attrgetter
from typing import TYPE_CHECKING

from workbench.core.class_cache import class_cache
from workbench.core.vllm_compat.seam import _method, read

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any
    from vllm.parser.abstract_parser import Parser


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


@class_cache
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


def stream_state_reader(parser: Parser) -> Callable[[], Any]:
    """``read() -> StreamState`` for this parser (checked once here; the phase reader asks
    after every delta, so the read itself is one C call)."""
    read(parser, "Parser", "_stream_state")
    return partial(attrgetter("_stream_state"), parser)


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


def record_terminals(engine: Any, on_terminal: Callable[..., Any]) -> None:
    """``on_terminal(state_before, terminal, value, state_after, events)`` for each terminal
    the lexer or the token-id scanner hands this StreamingParserEngine (a diagnosis, never
    the hot path)."""
    original = _method(engine, "StreamingParserEngine", "_on_terminal")

    def wrapped(terminal: str, value: str, *args: Any, **kwargs: Any) -> Any:
        before = engine.state
        out = original(terminal, value, *args, **kwargs)
        on_terminal(before, terminal, value, engine.state, out)
        return out

    setattr(engine, "_on_terminal", wrapped)
