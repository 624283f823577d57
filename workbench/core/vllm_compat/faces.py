"""The API faces' view of vLLM's serving layers (Anthropic Messages, Responses) where a
version differs or nothing public says it."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from workbench.core.vllm_compat.seam import read

if TYPE_CHECKING:
    from typing import Any


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
