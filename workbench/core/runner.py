"""Drive one vLLM Parser over a stream of deltas, the way the server does.

``StreamRun`` is one streaming choice: a fresh parser instance fed with
``parse_delta(delta_text, delta_ids, request, prompt_ids, finished=...)`` per
delta, producing one ``Row`` each. ``nonstream`` is the non-streaming answer:
another fresh instance, ``set_prompt_token_ids`` then ``parse`` on the whole text.
"""

from __future__ import annotations

import time
import traceback
from typing import TYPE_CHECKING
from workbench.core import logs, machine, serving
from workbench.core.deltas import Delta
from workbench.core.messages import Accumulator, Final, MessageDelta, ToolCall
from workbench.core.rows import Row

if TYPE_CHECKING:
    from collections.abc import Sequence
    from vllm.parser.abstract_parser import Parser
    from vllm.tokenizers import TokenizerLike


def make_parser(parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request, chat_template_kwargs: dict):
    """A fresh instance, as ``OpenAIServingChat._make_parser`` builds one."""
    if parser_cls is None:
        return None
    return parser_cls(tokenizer, request.tools, chat_template_kwargs=chat_template_kwargs,
                      model_config=None)


class StreamRun:
    """One stream through one fresh parser instance; ``feed`` returns its row."""

    def __init__(self, parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request, prompt_ids: Sequence[int], chat_template_kwargs: dict):
        self.tokenizer = tokenizer
        self.request = request
        self.prompt_ids = list(prompt_ids)
        self.parser = make_parser(parser_cls, tokenizer, request, chat_template_kwargs)
        self.engines = machine.engines(self.parser)
        self.recorder = machine.EventRecorder(self.engines)
        self.result = Accumulator()  # what a streaming client joins from the sent chunks
        self.rows: list[Row] = []
        self.tools_streamed = False
        self.num_tokens = 0
        self._texts: list[str] = []
        self.token_ids: list[int] = []
        self._tokens: dict[int, str] = {}

    @property
    def text(self) -> str:
        """The output text so far (what a non-streaming response would carry)."""
        return "".join(self._texts)

    def _token(self, token_id: int) -> str:
        tok = self._tokens.get(token_id)
        if tok is None:
            tok = self._tokens[token_id] = self.tokenizer.convert_ids_to_tokens([token_id])[0]
        return tok

    def feed(self, delta: Delta) -> Row:
        ids = list(delta.token_ids)
        tokens = [self._token(t) for t in ids]
        phase_before = machine.phase(self.parser, self.prompt_ids)
        states_before = {role: eng.state.name for role, eng in self.engines.items()}
        self._texts.append(delta.text)
        self.token_ids += ids
        extra = dict(delta.extra) if delta.extra else {}
        opening = None
        if not self.rows:  # the server's first iteration: the role chunk, content ""
            opening = serving.opening_chunk_json(self.request, self.prompt_ids)
            self.result.add(MessageDelta(content=""))
        if delta.finish_reason == "error":
            # The server raises GenerationError before parsing: an error chunk, then [DONE].
            self.result.finish_reason = "error"
            row = Row(len(self.rows) + 1, ids, tokens, delta.text, phase_before, phase_before, None,
                      True, finish_reason="error", engine_steps=delta.engine_steps,
                      logs=["finish_reason error: the server sends an error chunk, no parse_delta"],
                      states_before=states_before, states=states_before, extra=extra,
                      opening_chunk=opening, _chunk=serving.error_chunk_json())
            self.rows.append(row)
            return row
        if not delta.text and not ids and not self.num_tokens:
            row = Row(len(self.rows) + 1, ids, tokens, delta.text, phase_before, phase_before, None,
                      False, logs=["skipped: nothing generated yet (the server sends no chunk)"],
                      engine_steps=delta.engine_steps, states_before=states_before,
                      states=states_before, extra=extra, opening_chunk=opening)
            self.rows.append(row)
            return row
        self.num_tokens += len(ids)
        msg = error = None
        with logs.capture() as lines:
            t0 = time.perf_counter()
            try:
                if self.parser is None:
                    from vllm.entrypoints.generate.base.protocol import DeltaMessage

                    msg = DeltaMessage(content=delta.text)
                else:
                    msg = self.parser.parse_delta(
                        delta_text=delta.text, delta_token_ids=list(ids),
                        request=self.request, prompt_token_ids=self.prompt_ids,
                        finished=delta.finished)
            except Exception as e:
                error = f"{type(e).__name__}: {e}"
                extra["traceback"] = traceback.format_exc()
            parser_us = (time.perf_counter() - t0) * 1e6
        if msg is not None and msg.tool_calls:
            self.tools_streamed = True
        finish = serving.stream_finish_reason(self.request, delta.finish_reason, self.tools_streamed)
        sse, sent, sent_dict = False, None, None
        has_parser = self.parser is not None
        if error is None:
            sse, sent = serving.stream_delta(self.request, msg, delta.finish_reason, has_parser)
            sent_msg = MessageDelta.from_vllm(sent if sent is not None else msg)
            sent_dict = sent_msg.to_dict() if sent_msg is not None else None
            if sse:
                self.result.add(sent_dict)
        if finish:
            self.result.finish_reason = finish
        usage = self._usage_chunk() if delta.finished and serving.include_usage(self.request) else None
        row = Row(len(self.rows) + 1, ids, tokens, delta.text, phase_before, machine.phase(self.parser),
                  sent_dict, sse, finish_reason=finish, error=error, logs=lines, parser_us=parser_us,
                  engine_steps=delta.engine_steps, states_before=states_before,
                  states={role: eng.state.name for role, eng in self.engines.items()},
                  events=self.recorder.take(), extra=extra, opening_chunk=opening,
                  usage_chunk=usage, _sent=sent,
                  _chunk_ids=serving.chunk_token_ids(self.request, has_parser, ids))
        self.rows.append(row)
        return row

    def _usage_chunk(self) -> str:
        reasoning = None
        if getattr(self.parser, "reasoning_parser_cls", None) is not None:
            reasoning = self.parser.count_reasoning_tokens(tuple(self.token_ids))
        return serving.usage_chunk_json(len(self.prompt_ids), self.num_tokens, reasoning)


def nonstream(parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request, prompt_ids: Sequence[int], chat_template_kwargs: dict,
              text: str, token_ids: Sequence[int], enable_auto_tools: bool, finish_reason: str = "stop") -> Final:
    """The non-streaming response's message (``error`` set, fields empty, if parse raised)."""
    parser = make_parser(parser_cls, tokenizer, request, chat_template_kwargs)
    error = None
    with logs.capture() as lines:
        try:
            if parser is None:
                reasoning, content, calls = None, text, None
            else:
                parser.set_prompt_token_ids(list(prompt_ids))
                reasoning, content, calls = parser.parse(
                    text, request, enable_auto_tools=enable_auto_tools,
                    model_output_token_ids=list(token_ids))
            msg, finish = serving.full_message(request, parser_cls, enable_auto_tools,
                                               reasoning, content, calls, finish_reason)
        except Exception as e:
            error = f"{type(e).__name__}: {e}"
    reasoning_tokens = parser.count_reasoning_tokens(list(token_ids)) if parser is not None else 0
    if error is not None:
        return Final(reasoning_tokens=reasoning_tokens, error=error, logs=tuple(lines))
    return Final(msg.reasoning, msg.content,
                 tuple(ToolCall(i, tc.id, tc.function.name, tc.function.arguments)
                       for i, tc in enumerate(msg.tool_calls or [])),
                 finish, reasoning_tokens=reasoning_tokens, logs=tuple(lines))
