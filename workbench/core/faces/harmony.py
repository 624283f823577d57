"""``/v1/responses`` for gpt-oss: vLLM's Harmony path, with its channels.

For a gpt-oss model the server neither renders a chat template nor calls
``parse_delta``: ``OnlineRenderer._render_responses_with_harmony`` builds Harmony
messages (``build_harmony_preamble``, ``response_input_to_harmony``) and
``render_for_completion`` gives the prompt; each engine output goes into a
``HarmonyContext`` (``append_output`` -> ``HarmonyParser.process_chunk`` -> segments),
and ``_process_harmony_streaming_events`` turns each segment into events with
``emit_content_delta_events`` / ``emit_previous_item_done_events`` /
``emit_tool_action_events``. The loops and the render are inline in vLLM's async
methods, so they are restated here; the context, the parser and every emitter are
vLLM's own, fed with real ``RequestOutput``s built from the replay's deltas. Each row
also names the Harmony channel (and recipient) its segments were on.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from workbench.core.faces import replayed, responses
from workbench.core.faces.face import Face

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.core.faces.face import Replayed
    from workbench.core.rows import Row
    from workbench.core.session import Session


def harmony_messages(request: Any) -> list:
    """The prompt's Harmony messages (``_render_responses_with_harmony``, no previous
    response, no tool server)."""
    from vllm.entrypoints.openai.parser.harmony_utils import (
        build_harmony_preamble,
        extract_instructions_from_messages,
        get_user_message,
        has_custom_tools,
    )
    from vllm.entrypoints.openai.responses.harmony import (
        construct_harmony_previous_input_messages,
        response_input_to_harmony,
    )
    from vllm.entrypoints.openai.responses.utils import extract_tool_types
    from openai.types.responses import ResponseFunctionToolCall

    with_custom_tools = has_custom_tools(extract_tool_types(request.tools))
    instructions, request_input = request.instructions, request.input
    if instructions is None and isinstance(request_input, list):
        instructions, request_input = extract_instructions_from_messages(request_input)
    messages = list(build_harmony_preamble(
        instructions=instructions, tools=request.tools if with_custom_tools else None,
        reasoning_effort=request.reasoning.effort if request.reasoning else None,
        with_custom_tools=with_custom_tools))
    messages += construct_harmony_previous_input_messages(request)
    if isinstance(request_input, str):
        if request_input or not request.previous_input_messages:
            messages.append(get_user_message(request_input))
    else:
        previous: list = []
        for item in request_input:
            message = response_input_to_harmony(item, previous)
            if message is not None:
                messages.append(message)
            if isinstance(item, ResponseFunctionToolCall):
                previous.append(item)
    return messages


def prompt_ids(request: Any) -> list[int]:
    from vllm.entrypoints.openai.parser.harmony_utils import render_for_completion

    from workbench.errors import WorkbenchError

    try:
        return list(render_for_completion(harmony_messages(request)))
    except Exception as e:  # bad input items, Harmony render errors (the server answers 400)
        raise WorkbenchError(f"harmony prompt failed: {type(e).__name__}: {e}") from None


def _context(session: Session):
    from vllm.entrypoints.openai.responses.context import HarmonyContext
    from vllm.entrypoints.openai.responses.utils import extract_function_tool_names

    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    assert parser is not None, "the Harmony face runs only with a HarmonyParser"
    parser.set_prompt_token_ids(list(session.prompt_ids))
    return HarmonyContext(harmony_messages(session.request), [],
                          extract_function_tool_names(session.request.tools),
                          response_parser=parser, request=session.request)


def _output(session: Session, ids: Sequence[int], text: str, finish: str | None):
    from vllm.outputs import CompletionOutput, RequestOutput

    return RequestOutput("workbench", None, list(session.prompt_ids), None,
                         [CompletionOutput(0, text, list(ids), None, None, finish_reason=finish)],
                         finish is not None, num_cached_tokens=0)


def _usage(ctx: Any) -> Any:
    from vllm.entrypoints.openai.responses.protocol import InputTokensDetails, OutputTokensDetails, ResponseUsage

    turns = ctx.all_turn_metrics
    return ResponseUsage(
        input_tokens=ctx.num_prompt_tokens, output_tokens=ctx.num_output_tokens,
        total_tokens=ctx.num_prompt_tokens + ctx.num_output_tokens,
        input_tokens_details=InputTokensDetails(
            cache_write_tokens=ctx.num_cache_creation_tokens, cached_tokens=ctx.num_cached_tokens,
            input_tokens_per_turn=[t.input_tokens for t in turns],
            cached_tokens_per_turn=[t.cached_input_tokens for t in turns]),
        output_tokens_details=OutputTokensDetails(
            reasoning_tokens=ctx.num_reasoning_tokens, tool_output_tokens=ctx.num_tool_output_tokens,
            output_tokens_per_turn=[t.output_tokens for t in turns],
            tool_output_tokens_per_turn=[t.tool_output_tokens for t in turns]))


def _response(session: Session, ctx: Any, created: int, streamed: bool) -> Any:
    """``responses_full_generator``'s Harmony branch: one or more items per message."""
    from vllm.entrypoints.openai.responses.harmony import harmony_to_response_output
    from vllm.entrypoints.openai.responses.utils import reuse_streamed_item_ids

    output = []
    messages = ctx.messages[ctx.num_init_messages:]
    pending = iter(ctx.streamed_items_by_message if streamed else ())
    nxt = next(pending, None)
    for i, msg in enumerate(messages):
        items = harmony_to_response_output(msg, ctx.function_tool_names,
                                           incomplete=i == len(messages) - 1 and ctx.last_append_flush_status)
        if nxt is not None and nxt[0] is msg:
            reuse_streamed_item_ids(items, nxt[1])
            nxt = next(pending, None)
        output.extend(items)
    if not output or ctx.finish_reason == "length":
        status = "incomplete"
    elif ctx.finish_reason == "abort":
        status = "cancelled"
    else:
        status = "completed"
    return responses.response_of(session, None, output, status, created, _usage(ctx))


def _events(session: Session, result: Replayed, out: responses.Numbered, spans: list, channels: list, notes: list) -> str | None:
    """The restated ``_process_harmony_streaming_events`` over the replay's deltas."""
    ctx, state, created = _context(session), None, int(time.time())
    from vllm.entrypoints.openai.responses.streaming_events import StreamingState

    state = StreamingState()
    out.extend(responses.opening(session, result, created))
    rows = result.rows
    for i, row in enumerate(rows):
        start = 0 if i == 0 else len(out.sse)
        here: list[str] = []
        try:
            _row(session, ctx, state, row, out, here, created, last=i == len(rows) - 1)
        except Exception as e:  # raised inside the server's generator: its SSE stream ends here
            notes.append(f"step {row.step}: {type(e).__name__}: {e}; the server's SSE stream aborts "
                         f"without response.completed")
            spans.append((start, len(out.sse)))
            channels.append(here)
            spans += [(len(out.sse), len(out.sse))] * (len(rows) - i - 1)
            channels += [[] for _ in range(len(rows) - i - 1)]
            return ctx.finish_reason
        spans.append((start, len(out.sse)))
        channels.append(here)
        if ctx.finish_reason == "error":
            break
    return ctx.finish_reason


def _row(session: Session, ctx: Any, state: Any, row: Row, out: responses.Numbered, here: list, created: int, last: bool) -> None:
    from openai.types.responses import ResponseOutputItemDoneEvent
    from vllm.entrypoints.openai.responses.protocol import ResponseCompletedEvent
    from vllm.entrypoints.openai.responses.streaming_events import (
        emit_content_delta_events,
        emit_previous_item_done_events,
        emit_tool_action_events,
    )

    ctx.append_output(_output(session, row.token_ids, row.text, replayed.raw_finish(row)))
    if ctx.finish_reason == "error":
        out.add(responses.error_event())
        return
    for segment in ctx.last_append_segments:
        if segment.channel is not None:
            label = segment.channel + (f" to={segment.recipient}" if segment.recipient else "")
            if label not in here:
                here.append(label)
        if segment.delta:
            out.extend(emit_content_delta_events(segment, state, ctx.function_tool_names))
        elif (done := segment.completed_message) is not None:
            items = []
            for event in (emit_previous_item_done_events(done, state, ctx.function_tool_names)
                          + emit_tool_action_events(done, state, None)):
                if isinstance(event, ResponseOutputItemDoneEvent):
                    items.append(event.item)
                out.add(event)
            ctx.streamed_items_by_message.append((done, items))
            state.reset_for_new_item()
    if last:
        out.add(ResponseCompletedEvent(type="response.completed", sequence_number=-1,
                                       response=_response(session, ctx, created, streamed=True)))


def nonstream_body(session: Session, result: Replayed, finish: str | None) -> dict:
    if finish == "error":
        return {"error": responses.ERROR}
    ctx = _context(session)
    try:
        ctx.append_output(_output(session, result.token_ids, result.text, finish or "stop"))
        body = _response(session, ctx, int(time.time()), streamed=False)
    except Exception as e:  # the server answers 500
        return {"error": {**responses.ERROR, "message": f"{type(e).__name__}: {e}"}}
    return body.model_dump(mode="json", by_alias=True)


def face(session: Session, result: Replayed, nonstream: bool = True) -> Face:
    out = responses.Numbered()
    spans: list = []
    channels: list = []
    notes: list[str] = []
    finish = _events(session, result, out, spans, channels, notes)
    body = nonstream_body(session, result, finish) if nonstream else None
    face = Face("responses", out.sse, spans, body, notes)
    face.channels = channels
    return face
