"""What vLLM's chat serving layer does around the parser, per delta and at the end.

These mirror ``OpenAIServingChat.chat_completion_stream_generator`` and
``chat_completion_full_generator`` (vllm/entrypoints/openai/chat_completion/
serving.py): when a chunk is sent, which finish_reason the client sees, how the
final message is assembled. They are inline in vLLM's async generators, so they
are restated here; the objects (DeltaMessage, chunks, ToolCall) are vLLM's own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence
    from vllm.parser.abstract_parser import Parser

    from workbench.core.messages import Final

Request = Any  # vLLM's ChatCompletionRequest (or a Responses/Messages one the faces convert)


def is_named(request: Request) -> bool:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionNamedToolChoiceParam

    return type(request.tool_choice) is ChatCompletionNamedToolChoiceParam


def hide_stream_metadata(request: Request, has_parser: bool) -> bool:
    """Hidden reasoning also hides per-chunk token ids (they would leak it)."""
    return not request.include_reasoning and has_parser


def chunk_token_ids(request: Request, has_parser: bool, ids: Sequence[int]) -> list[int] | None:
    """The ids a chunk carries: only with ``return_token_ids`` (and reasoning shown)."""
    # getattr: a Responses request (the faces replay it through the same runner) has neither field
    if getattr(request, "return_token_ids", False) and not hide_stream_metadata(request, has_parser):
        return list(ids)
    return None


class StreamPolicy:
    """What the server decides per streamed delta, for one request (its switches read
    once: a stream asks after every delta)."""

    def __init__(self, request: Request, has_parser: bool) -> None:
        self.request = request
        self.named = is_named(request)
        self.ids_in_chunks = chunk_token_ids(request, has_parser, ()) is not None
        self.filter_parallel = request.parallel_tool_calls is False
        self.usage = include_usage(request)

    def finish_reason(self, raw: str | None, tools_streamed: bool) -> str | None:
        """The finish_reason the client sees: "tool_calls" once calls streamed (auto/required)."""
        if raw is None:
            return None
        if tools_streamed and not self.named and raw == "stop":
            return "tool_calls"
        return raw or "stop"

    def delta(self, delta_message: Any, raw_finish: str | None) -> tuple[bool, Any]:
        """(send?, the DeltaMessage the client actually receives)."""
        if delta_message is None:
            # No logprobs in the workbench's requests: only the final chunk, or every
            # chunk under return_token_ids (so no token goes missing), is forced out.
            if raw_finish is None and not self.ids_in_chunks:
                return False, None
            from vllm.entrypoints.generate.base.protocol import DeltaMessage

            delta_message = DeltaMessage()
        if self.filter_parallel:
            from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls

            delta_message = maybe_filter_parallel_tool_calls(delta_message, self.request)
        return True, delta_message


def chunk_json(delta_message: Any, finish_reason: str | None, token_ids: list[int] | None = None) -> str:
    """The SSE chunk's JSON, serialised as the server does (exclude_unset)."""
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionResponseStreamChoice,
        ChatCompletionStreamResponse,
    )

    # The server sets stop_reason only on the finishing chunk, and token_ids always.
    end = {} if finish_reason is None else {"stop_reason": None}
    choice = ChatCompletionResponseStreamChoice(index=0, delta=delta_message, logprobs=None,
                                                finish_reason=finish_reason, token_ids=token_ids,
                                                **end)
    chunk = ChatCompletionStreamResponse(id="chatcmpl-workbench", object="chat.completion.chunk",
                                         created=0, choices=[choice], model="workbench")
    return chunk.model_dump_json(exclude_unset=True)


def opening_chunk_json(request: Request, prompt_ids: Sequence[int]) -> str:
    """The first chunk of every stream: the role, content "" (and the prompt ids if asked)."""
    from vllm.entrypoints.generate.base.protocol import DeltaMessage
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionResponseStreamChoice,
        ChatCompletionStreamResponse,
    )

    choice = ChatCompletionResponseStreamChoice(index=0, delta=DeltaMessage(role="assistant", content=""),
                                                logprobs=None, finish_reason=None)
    chunk = ChatCompletionStreamResponse(
        id="chatcmpl-workbench", object="chat.completion.chunk", created=0, choices=[choice],
        model="workbench", prompt_token_ids=list(prompt_ids) if getattr(request, "return_token_ids", False) else None,
        prompt_text=None)
    return chunk.model_dump_json(exclude_unset=True)


def error_chunk_json() -> str:
    """What the server streams when the engine finishes a request with "error": the
    ``GenerationError`` its ``_raise_if_error`` raises, as the generator's catch sends it."""
    from vllm.exceptions import GenerationError

    return streaming_error_chunk_json(GenerationError())


def streaming_error_chunk_json(e: Exception) -> str:
    """What the server streams when its generator catches ``e`` (a parser's exception, or the
    engine's ``GenerationError``): vLLM's own ``create_error_response`` (type, code, sanitised
    message)."""
    import json

    from vllm.entrypoints.serve.exception_handling.error_response import create_error_response

    return json.dumps(create_error_response(e).model_dump())


def include_usage(request: Request) -> bool:
    """``stream_options.include_usage`` (the server's --enable-force-include-usage is not modelled)."""
    options = getattr(request, "stream_options", None)
    return bool(options and options.include_usage)


def usage_chunk_json(prompt_tokens: int, completion_tokens: int, reasoning_tokens: int | None) -> str:
    """The trailing usage chunk (no choices); reasoning_tokens is None without a reasoning parser."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionStreamResponse
    from vllm.entrypoints.serve.engine.protocol import CompletionTokenUsageInfo, UsageInfo

    details = None if reasoning_tokens is None else CompletionTokenUsageInfo(
        reasoning_tokens=reasoning_tokens)
    usage = UsageInfo(prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      total_tokens=prompt_tokens + completion_tokens,
                      completion_tokens_details=details)
    chunk = ChatCompletionStreamResponse(id="chatcmpl-workbench", object="chat.completion.chunk",
                                         created=0, choices=[], model="workbench", usage=usage)
    return chunk.model_dump_json(exclude_unset=True, exclude_none=True)


def full_message(request: Request, parser_cls: type[Parser] | None, enable_auto_tools: bool,
                 reasoning: str | None, content: str | None, tool_calls: list[Any] | None,
                 raw_finish: str) -> tuple[Any, str]:
    """(ChatMessage, finish_reason) as chat_completion_full_generator builds them."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatMessage
    from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls
    from vllm.entrypoints.generate.base.protocol import ToolCall
    from vllm.renderers.chat_utils import make_tool_call_id

    if not request.include_reasoning:
        reasoning = None
    tool_parser_cls = parser_cls.tool_parser_cls if parser_cls is not None else None
    named, required = is_named(request), request.tool_choice == "required"
    auto_called = False

    def calls() -> list[Any]:
        # the list, not the choice, is filtered: 0.33 dropped the choice case (0.32 took both)
        kept = maybe_filter_parallel_tool_calls(list(tool_calls or []), request)
        return [ToolCall(id=tc.id or make_tool_call_id(), function=tc) for tc in kept]

    if (not enable_auto_tools or not tool_parser_cls) and not named and not required:
        msg = ChatMessage(role="assistant", reasoning=reasoning, content=content)
    elif named or required:
        msg = ChatMessage(role="assistant", reasoning=reasoning, content=content or "", tool_calls=calls())
    elif not request.tool_choice or request.tool_choice == "none":
        msg = ChatMessage(role="assistant", reasoning=reasoning, content=content)
    elif request.tools and request.tool_choice in ("auto", None) and enable_auto_tools and tool_parser_cls:
        auto_called = bool(tool_calls)
        msg = ChatMessage(role="assistant", reasoning=reasoning, content=content,
                          **({"tool_calls": calls()} if tool_calls else {}))
    else:
        msg = ChatMessage(role="assistant", reasoning=reasoning, content=content)
    tool_finish = auto_called or (required and raw_finish == "stop")
    finish = "tool_calls" if tool_finish else raw_finish or "stop"
    return msg, finish


def incomplete_call_notes(finish_reason: str | None, stream: Final, text: str,
                          tool_parser_cls: type | None) -> list[str]:
    """What a client should be told when max_tokens cut the output inside a tool call.

    The server just reports finish_reason "length"; this says which streamed call's
    arguments are not complete JSON, or that the text stopped after a tool-call start
    marker (``tool_call_start_token`` / ``tool_call_end_token``, as most of vLLM's
    tool parsers name them) before any call was streamed.
    """
    import json

    if finish_reason != "length":
        return []
    notes = []
    for call in stream.tool_calls:  # a messages.Final
        try:
            json.loads(call.arguments or "")  # the model's own text, as a client would test it
        except (ValueError, RecursionError):
            notes.append(f"max_tokens cut tool call #{call.index} ({call.name}): "
                         f"its arguments are incomplete: {call.arguments!r}")
    start = getattr(tool_parser_cls, "tool_call_start_token", None)
    end = getattr(tool_parser_cls, "tool_call_end_token", None)
    if not notes and isinstance(start, str) and isinstance(end, str) and start and end:
        if text.count(start) > text.count(end):
            notes.append(f"max_tokens cut the output inside a tool call (after {start!r}, no "
                         f"{end!r}): its name/arguments are incomplete")
    return notes
