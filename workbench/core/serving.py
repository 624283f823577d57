"""What vLLM's chat serving layer does around the parser, per delta and at the end.

These mirror ``OpenAIServingChat.chat_completion_stream_generator`` and
``chat_completion_full_generator`` (vllm/entrypoints/openai/chat_completion/
serving.py): when a chunk is sent, which finish_reason the client sees, how the
final message is assembled. They are inline in vLLM's async generators, so they
are restated here; the objects (DeltaMessage, chunks, ToolCall) are vLLM's own.
"""

from __future__ import annotations


def is_named(request) -> bool:
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionNamedToolChoiceParam

    return type(request.tool_choice) is ChatCompletionNamedToolChoiceParam


def stream_finish_reason(request, raw: str | None, tools_streamed: bool) -> str | None:
    if raw is None:
        return None
    if tools_streamed and not is_named(request) and raw == "stop":
        return "tool_calls"
    return raw or "stop"


def stream_delta(request, delta_message, raw_finish: str | None):
    """(send?, the DeltaMessage the client actually receives)."""
    if delta_message is None:
        # No logprobs / return_token_ids in the workbench's requests, so only the
        # final chunk is forced out.
        if raw_finish is None:
            return False, None
        from vllm.entrypoints.generate.base.protocol import DeltaMessage

        delta_message = DeltaMessage()
    if request.parallel_tool_calls is False:
        from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls

        delta_message = maybe_filter_parallel_tool_calls(delta_message, request)
    return True, delta_message


def chunk_json(delta_message, finish_reason: str | None) -> str:
    """The SSE chunk's JSON, serialised as the server does (exclude_unset)."""
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionResponseStreamChoice,
        ChatCompletionStreamResponse,
    )

    choice = ChatCompletionResponseStreamChoice(index=0, delta=delta_message, logprobs=None,
                                                finish_reason=finish_reason)
    chunk = ChatCompletionStreamResponse(id="chatcmpl-workbench", object="chat.completion.chunk",
                                         created=0, choices=[choice], model="workbench")
    return chunk.model_dump_json(exclude_unset=True)


def full_message(request, parser_cls, enable_auto_tools: bool, reasoning, content, tool_calls,
                 raw_finish: str):
    """(message dict, finish_reason) as chat_completion_full_generator builds them."""
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionResponseChoice, ChatMessage
    from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls
    from vllm.entrypoints.generate.base.protocol import ToolCall
    from vllm.renderers.chat_utils import make_tool_call_id

    if not request.include_reasoning:
        reasoning = None
    tool_parser_cls = parser_cls.tool_parser_cls if parser_cls is not None else None
    named, required = is_named(request), request.tool_choice == "required"
    auto_called = False

    def calls():
        return [ToolCall(id=tc.id or make_tool_call_id(), function=tc) for tc in (tool_calls or [])]

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
    choice = ChatCompletionResponseChoice(index=0, message=msg, logprobs=None, finish_reason=finish)
    choice = maybe_filter_parallel_tool_calls(choice, request)
    return choice.message, choice.finish_reason


def incomplete_call_notes(finish_reason: str | None, stream: dict, text: str, tool_parser_cls) -> list[str]:
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
    for call in stream.get("tool_calls") or []:
        try:
            json.loads(call.get("arguments") or "")
        except ValueError:
            notes.append(f"max_tokens cut tool call #{call['index']} ({call.get('name')}): "
                         f"its arguments are incomplete: {call.get('arguments')!r}")
    start = getattr(tool_parser_cls, "tool_call_start_token", None)
    end = getattr(tool_parser_cls, "tool_call_end_token", None)
    if not notes and isinstance(start, str) and isinstance(end, str) and start and end:
        if text.count(start) > text.count(end):
            notes.append(f"max_tokens cut the output inside a tool call (after {start!r}, no "
                         f"{end!r}): its name/arguments are incomplete")
    return notes
