"""``/v1/messages`` (Anthropic): the events and the non-streaming body.

vLLM serves Anthropic Messages through its chat path: ``to_chat_completion_request``
converts the body (``bodies.parser_request``), the chat server streams its chunks
(with ``stream_options`` include_usage + continuous_usage_stats), and
``AnthropicServingMessages.message_stream_converter`` — an async generator over those
chunks — turns them into ``message_start`` ... ``message_stop``. Here that generator is
driven in-process over the chat face's own chunks (the rows' ``chunk``), one chunk at
a time, so each event is attributed to the row whose chunk produced it. The
non-streaming body is ``messages_full_converter`` over the chat non-streaming answer.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat
from workbench.core.faces import replayed
from workbench.core.faces.face import Face

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Iterator
    from typing import Any

    from workbench.core.faces.face import Replayed
    from workbench.core.rows import Row
    from workbench.core.session import Session


def model_name(session: Session) -> str:
    return (session.setup.api_request or {}).get("model") or "workbench"


def opening_chunk(session: Session, row: Row) -> str:
    """The chat face's opening chunk as the server sends it under continuous usage stats
    (the converter reads the prompt size of ``message_start`` from it)."""
    assert row.opening_chunk is not None  # a streamed row carries the opening chunk
    chunk = json.loads(row.opening_chunk)
    chunk["model"] = model_name(session)
    n = len(session.prompt_ids)
    chunk["usage"] = {"prompt_tokens": n, "total_tokens": n, "completion_tokens": 0}
    return json.dumps(chunk)


def chat_chunks(session: Session, result: Replayed) -> list[tuple[int, str]]:
    """(row index, chunk JSON) of the chat stream the converter reads, in order."""
    out = []
    for i, row in enumerate(result.rows):
        if row.opening_chunk is not None:
            out.append((i, opening_chunk(session, row)))
        if row.sse or row.finish_reason == "error":
            chunk = row.chunk
            if chunk is not None:
                out.append((i, chunk))
        if row.usage_chunk is not None:
            out.append((i, row.usage_chunk))
    return out


def _drive(agen: AsyncGenerator[Any, Any]) -> Iterator[Any]:
    """Step an async generator that never really waits (its input is a list) without an
    event loop: each ``__anext__()`` coroutine finishes on its first ``send``."""
    while True:
        step = agen.__anext__()
        try:
            step.send(None)
        except StopIteration as done:
            yield done.value
        except StopAsyncIteration:
            return
        else:  # it awaited something real: not a converter over a list
            step.close()
            raise RuntimeError("message_stream_converter awaited; cannot drive it in-process")


def face(session: Session, result: Replayed, nonstream: bool = True) -> Face:
    chunks = chat_chunks(session, result)
    current = [0]

    async def source():
        for index, item in compat.anthropic_stream_items(chunks):
            current[0] = index
            yield item

    from workbench.core import logs

    converter = compat.anthropic_serving().message_stream_converter(None, source())
    sse: list[str] = []
    owners: list[int] = []
    # The converter logs what it turns into an "error" event (logger.exception): a server
    # log line, shown as the face's note, not printed into the user's cell or terminal.
    with logs.capture() as logged, logs.muted():
        for text in _drive(converter):
            sse.append(text)
            owners.append(current[0])
    n = len(result.rows)
    spans, start = [], 0
    for i in range(n):
        end = start
        while end < len(owners) and (owners[end] <= i or i == n - 1):
            end += 1
        spans.append((start, end))
        start = end
    notes = [f"the server logs: {line.splitlines()[0]}{' …]' if chr(10) in line else ''}" for line in logged]
    return Face("messages", sse, spans, nonstream_body(session, result) if nonstream else None, notes)


def nonstream_body(session: Session, result: Replayed) -> dict:
    """``messages_full_converter`` over the chat non-streaming response; an error body as
    the router translates it when the chat answer failed or the converter raised."""
    from vllm.entrypoints.generate.base.protocol import FunctionCall, ToolCall
    from vllm.entrypoints.openai.chat_completion.protocol import (
        ChatCompletionResponse,
        ChatCompletionResponseChoice,
        ChatMessage,
    )
    from vllm.entrypoints.serve.engine.protocol import UsageInfo
    from vllm.utils import random_uuid

    final = getattr(result, "nonstream_final", None)
    if final is None:
        final = session.nonstream(result.text, result.token_ids, replayed.raw_finish(result.rows[-1]) or "stop")
    if final.error is not None or final.finish_reason == "error":
        return _error("Internal server error" if final.error is None else final.error)
    calls = [ToolCall(id=c.id, function=FunctionCall(name=c.name, arguments=c.arguments or ""))
             for c in final.tool_calls]
    message = ChatMessage(role="assistant", reasoning=final.reasoning, content=final.content, tool_calls=calls)
    prompt, output = len(session.prompt_ids), len(result.token_ids)
    answer = ChatCompletionResponse(
        id=f"chatcmpl-{random_uuid()}", model=model_name(session),
        choices=[ChatCompletionResponseChoice(index=0, message=message, logprobs=None,
                                              finish_reason=final.finish_reason, stop_reason=None)],
        usage=UsageInfo(prompt_tokens=prompt, completion_tokens=output, total_tokens=prompt + output))
    try:
        body = compat.anthropic_serving().messages_full_converter(None, answer)
    except Exception as e:  # e.g. json.loads of cut-off arguments: the router answers an error
        return _error(f"{type(e).__name__}: {e}")
    return body.model_dump(exclude_none=True)


def _error(message: str) -> dict:
    from vllm.entrypoints.anthropic.protocol import AnthropicError, AnthropicErrorResponse

    return AnthropicErrorResponse(error=AnthropicError(type="InternalServerError", message=message)).model_dump()
