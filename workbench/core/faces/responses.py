"""``/v1/responses``, the simple (non-Harmony) path: the events and the bodies.

vLLM's ``OpenAIServingResponses._process_simple_streaming_events`` runs one
``parse_delta`` per engine output, then ``maybe_filter_parallel_tool_calls`` and
``split_delta``, and passes each part through a ``SimpleStreamingEventProcessor``
(``resolve_target_state`` -> ``needs_transition`` -> ``close_current`` / ``open`` ->
``emit_delta``), with a final ``close_current``. ``responses_stream_generator`` wraps
that in ``response.created`` / ``response.in_progress`` ... ``response.completed``
and numbers the events. Those loops are inline in async generators, so they are
restated here (``_events``); every object they call is vLLM's own. The parser's
``DeltaMessage`` of each row is the one the chat face sent (``rows.sent``): the same
``parse_delta`` call, the same parallel-tool-call filter.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat
from workbench.core.faces import replayed
from workbench.core.faces.face import Face

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    from workbench.core.faces.face import Replayed
    from workbench.core.session import Session

# The modelled server's --max-model-len (the tiny model's, capture/serve.py's): the
# server's default max_output_tokens is what is left of it after the prompt.
SERVER_MAX_MODEL_LEN = 4096
ERROR = {"message": "Internal server error", "type": "InternalServerError", "param": None, "code": 500}


class Numbered:
    """``_increment_sequence_number_and_return``: each event gets the next number, and is
    written as the router writes it (``event: T``, ``model_dump_json(indent=None, by_alias=True)``)."""

    def __init__(self) -> None:
        self.sse: list[str] = []

    def add(self, event: Any) -> None:
        if hasattr(event, "sequence_number"):
            event.sequence_number = len(self.sse)
        data = event.model_dump_json(indent=None, by_alias=True)
        self.sse.append(f"event: {getattr(event, 'type', 'unknown')}\ndata: {data}\n\n")

    def extend(self, events: Iterable[Any]) -> None:
        for e in events:
            self.add(e)


def sampling_params(session: Session) -> Any:
    """The server's SamplingParams: ``get_max_tokens`` over the modelled max_model_len."""
    from vllm.entrypoints.serve.utils.api_utils import get_max_tokens

    r = session.request
    limit = max(SERVER_MAX_MODEL_LEN, len(session.prompt_ids) + 1)
    default = get_max_tokens(limit, r.max_output_tokens, len(session.prompt_ids), {},
                             truncate_prompt_tokens=-1 if r.truncation != "disabled" else None)
    return r.to_sampling_params(default, {})


def model_name(session: Session) -> str:
    return (session.setup.api_request or {}).get("model") or "workbench"


def usage(session: Session, result: Replayed) -> Any:
    from vllm.entrypoints.openai.responses.protocol import InputTokensDetails, OutputTokensDetails, ResponseUsage

    prompt, output = len(session.prompt_ids), len(result.token_ids)
    # Cache counts are the server's prefix-cache state, which a replay has none of.
    return ResponseUsage(
        input_tokens=prompt, output_tokens=output, total_tokens=prompt + output,
        input_tokens_details=InputTokensDetails(cache_write_tokens=0, cached_tokens=0,
                                                input_tokens_per_turn=[], cached_tokens_per_turn=[]),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=replayed.reasoning_tokens(session, result.token_ids),
                                                  tool_output_tokens=0, output_tokens_per_turn=[],
                                                  tool_output_tokens_per_turn=[]))


def response_of(session: Session, result: Replayed | None, output: list, status: str, created: int,
                usage_: Any = None, messages: tuple[Any, Any] = (None, None)) -> Any:
    """``messages``: (input_messages, output_messages) for ``enable_response_messages``."""
    from vllm.entrypoints.openai.responses.protocol import ResponsesResponse

    return ResponsesResponse.from_request(session.request, sampling_params(session),
                                          model_name=model_name(session), created_time=created,
                                          output=output, status=status, usage=usage_,
                                          input_messages=messages[0], output_messages=messages[1])


def raw_messages(session: Session, result: Replayed) -> tuple:
    """``enable_response_messages`` on the simple path: SimpleContext's one raw message for the
    prompt (its text and ids) and one for the whole output; (None, None) when not asked."""
    from vllm.entrypoints.openai.responses.protocol import ResponseRawMessageAndToken

    if not session.request.enable_response_messages or result is None:
        return None, None
    prompt = list(session.prompt_ids)
    # the rendered prompt's text (RequestOutput.prompt); decoding its ids gives it back
    inputs = [ResponseRawMessageAndToken(message=session.tokenizer.decode(prompt), tokens=prompt)]
    outputs = ([ResponseRawMessageAndToken(message=result.text, tokens=list(result.token_ids))]
               if result.text or result.token_ids else [])
    return inputs, outputs


def status_of(finish: str | None) -> str:
    return "incomplete" if finish == "length" else "completed"


def opening(session: Session, result: Replayed, created: int) -> list:
    from vllm.entrypoints.openai.responses.protocol import ResponseCreatedEvent, ResponseInProgressEvent

    initial = response_of(session, result, [], "in_progress", created).model_dump(mode="json", by_alias=True)
    return [ResponseCreatedEvent(type="response.created", sequence_number=-1, response=initial),
            ResponseInProgressEvent(type="response.in_progress", sequence_number=-1, response=initial)]


def completed(session: Session, result: Replayed, output: list, finish: str | None, created: int) -> Any:
    from vllm.entrypoints.openai.responses.protocol import ResponseCompletedEvent

    final = response_of(session, result, output, status_of(finish), created, usage(session, result),
                        raw_messages(session, result))
    return ResponseCompletedEvent(type="response.completed", sequence_number=-1, response=final)


def error_event() -> Any:
    """What ``responses_stream_generator`` yields for a GenerationError (finish "error")."""
    from pydantic import TypeAdapter
    from vllm.entrypoints.openai.responses.protocol import StreamingResponsesResponse

    return TypeAdapter(StreamingResponsesResponse).validate_json(json.dumps({"error": ERROR}))


def _events(session: Session, result: Replayed, out: Numbered, spans: list, notes: list) -> str | None:
    """The restated streaming loop; returns the raw finish reason."""
    from vllm.entrypoints.openai.responses.streaming_events import SimpleStreamingEventProcessor, split_delta

    request = session.request
    processor = SimpleStreamingEventProcessor(tools=request.tools)
    created = int(time.time())
    out.extend(opening(session, result, created))
    finish = None
    rows = result.rows
    for i, row in enumerate(rows):
        start = 0 if i == 0 else len(out.sse)
        finish = replayed.raw_finish(row) or finish
        if finish == "error":
            from pydantic import ValidationError

            try:
                out.add(error_event())
            except ValidationError:
                # vLLM 0.32's generator validates {"error": ...} as a stream event, which no
                # event type accepts: it raises there too, and the SSE stream just stops.
                notes.append(f"step {row.step}: finish \"error\": vLLM's responses_stream_generator "
                             f"fails to build its error event (pydantic ValidationError), so the SSE "
                             f"stream aborts without an error event or response.completed")
            spans.append((start, len(out.sse)))
            spans += [(len(out.sse), len(out.sse))] * (len(rows) - i - 1)
            return finish
        if row.error:  # parse_delta raised inside the server's generator: the stream ends here
            notes.append(f"step {row.step}: parse_delta raised ({row.error}); the server's SSE stream "
                         f"aborts without response.completed")
            spans.append((start, len(out.sse)))
            spans += [(len(out.sse), len(out.sse))] * (len(rows) - i - 1)
            return finish
        dm = replayed.sent(row)
        for part in split_delta(dm) if dm is not None else ():
            target, call = processor.resolve_target_state(part)
            if target.name == "NONE":
                continue
            if processor.needs_transition(target, call):
                out.extend(processor.close_current())
                out.extend(processor.open(target, call))
            out.extend(processor.emit_delta(part, None, None))
        if i == len(rows) - 1:
            out.extend(compat.responses_close(processor, finish))
            out.add(completed(session, result, processor.output_items, finish, created))
        spans.append((start, len(out.sse)))
    return finish


def nonstream_body(session: Session, result: Replayed, finish: str | None) -> dict:
    """``responses_full_generator`` with a SimpleContext: ``_make_response_output_items``
    (``parse`` on the whole text, then ``build_response_output_items``)."""
    from vllm.entrypoints.openai.responses.utils import build_response_output_items
    from vllm.entrypoints.serve.utils.tool_calls_utils import maybe_filter_parallel_tool_calls

    if finish == "error":
        return {"error": ERROR}
    request = session.request
    parsed = replayed.parse(session, result)
    if isinstance(parsed, str):
        return {"error": {**ERROR, "message": parsed}}
    if parsed is None:
        items = [_plain_message(result.text)]
    else:
        reasoning, content, calls = parsed
        if not request.include_reasoning:
            reasoning = None
        items = build_response_output_items(reasoning, content,
                                            maybe_filter_parallel_tool_calls(calls or [], request),
                                            None, request.tools)
    return response_of(session, result, items, status_of(finish), int(time.time()),
                       usage(session, result), raw_messages(session, result)).model_dump(mode="json", by_alias=True)


def face(session: Session, result: Replayed, nonstream: bool = True) -> Face:
    out = Numbered()
    spans: list = []
    notes: list[str] = []
    finish = _events(session, result, out, spans, notes)
    body = nonstream_body(session, result, finish) if nonstream else None
    return Face("responses", out.sse, spans, body, notes)


def _plain_message(text: str):
    """The server's fallback item when no parser is configured."""
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText
    from vllm.utils import random_uuid

    return ResponseOutputMessage(
        id=f"msg_{random_uuid()}", role="assistant", status="completed", type="message",
        content=[ResponseOutputText(text=text, annotations=[], type="output_text", logprobs=None)] if text else [])
