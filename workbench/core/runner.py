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
from workbench.core.rows import Row, StreamRow

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from vllm.parser.abstract_parser import Parser
    from vllm.tokenizers import TokenizerLike


def make_parser(parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request: Any,
                chat_template_kwargs: dict) -> Parser | None:
    """A fresh instance, as ``OpenAIServingChat._make_parser`` builds one."""
    if parser_cls is None:
        return None
    return parser_cls(tokenizer, request.tools, chat_template_kwargs=chat_template_kwargs,
                      model_config=None)


class StreamRun:
    """One stream through one fresh parser instance; ``feed`` returns its row.

    ``feed`` is the per-delta hot path (bench/replay_overhead.py): what does not change
    within a stream is decided here once (the parser's kind of phase, the serving
    switches), and a row's "before" is the previous row's "after" (nothing touches the
    parser between two deltas).

    ``keep_rows=False``: ``rows`` stays empty (a caller that reads each row as it comes,
    as `check` does, holds no row of a long stream)."""

    batched = False  # a lane's run (LaneStreamRun) takes many deltas in one request

    def __init__(self, parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request: Any, prompt_ids: Sequence[int],
                 chat_template_kwargs: dict, keep_rows: bool = True) -> None:
        self.tokenizer = tokenizer
        self.request = request
        self.prompt_ids = list(prompt_ids)
        self.parser = make_parser(parser_cls, tokenizer, request, chat_template_kwargs)
        self.engines = machine.engines(self.parser)
        self.recorder = machine.EventRecorder(self.engines)
        self.serving = serving.StreamPolicy(request, self.parser is not None)
        self.result = Accumulator()  # what a streaming client joins from the sent chunks
        self.rows: list[Row] = []
        self.keep_rows = keep_rows
        self.steps = 0  # deltas fed
        self.tools_streamed = False
        self.ended_at: int | None = None  # the step whose parse_delta raised: the server's stream ended there
        self.num_tokens = 0
        self._texts: list[str] = []
        self.token_ids: list[int] = []
        self._tokens: dict[int, str] = {}
        self._read_phase = machine.phase_reader(self.parser)
        self._phase: machine.Phase | None = None  # where the next delta starts (read at the first feed, with the prompt)
        self._read_states = machine.states_reader(self.engines)
        self._states = self._read_states()

    @property
    def text(self) -> str:
        """The output text so far (what a non-streaming response would carry)."""
        return "".join(self._texts)

    def _token_texts(self, ids: list[int]) -> list[str]:
        known = self._tokens
        if len(ids) == 1:  # the usual delta
            text = known.get(ids[0])
            if text is not None:
                return [text]
        missing = [t for t in ids if t not in known]
        if missing:
            for t, text in zip(missing, self.tokenizer.convert_ids_to_tokens(missing)):
                known[t] = text
        return [known[t] for t in ids]

    def feed(self, delta: Delta) -> Row:
        ids = list(delta.token_ids)
        step = self.steps = self.steps + 1
        before = self._phase
        if before is None:
            before = self._read_phase(self.prompt_ids)
        states_before = self._states
        self._texts.append(delta.text)
        self.token_ids += ids
        extra = dict(delta.extra) if delta.extra else {}
        opening = None
        if step == 1:  # the server's first iteration: the role chunk, content ""
            opening = serving.opening_chunk_json(self.request, self.prompt_ids)
            self.result.add(_OPENING)
        if delta.finish_reason == "error":
            # The server raises GenerationError before parsing: an error chunk, then [DONE].
            self.result.finish_reason = "error"
            row = Row(step, ids, self._token_texts(ids), delta.text, before, before, None, True, "error", None,
                      ["finish_reason error: the server sends an error chunk, no parse_delta"], 0.0,
                      delta.engine_steps, states_before, states_before, [], extra, opening, None,
                      None, serving.error_chunk_json())
            if self.keep_rows:
                self.rows.append(row)
            return row
        if not delta.text and not ids and not self.num_tokens:
            row = Row(step, ids, self._token_texts(ids), delta.text, before, before, None, False, None, None,
                      ["skipped: nothing generated yet (the server sends no chunk)"], 0.0,
                      delta.engine_steps, states_before, states_before, [], extra, opening)
            if self.keep_rows:
                self.rows.append(row)
            return row
        self.num_tokens += len(ids)
        msg = error = failure = None
        parser = self.parser
        lines: list[str] = []
        collector = logs.collector()  # logs.capture, inline: this runs per delta
        outer, collector.lines = collector.lines, lines
        t0 = time.perf_counter()
        try:
            if parser is None:
                from vllm.entrypoints.generate.base.protocol import DeltaMessage

                msg = DeltaMessage(content=delta.text)
            else:
                msg = parser.parse_delta(
                    delta_text=delta.text, delta_token_ids=list(ids),
                    request=self.request, prompt_token_ids=self.prompt_ids,
                    finished=delta.finish_reason is not None)
        except Exception as e:
            error, failure = f"{type(e).__name__}: {e}", e
            extra["traceback"] = traceback.format_exc()
        finally:
            parser_us = (time.perf_counter() - t0) * 1e6
            collector.lines = outer
        if outer is not None:
            outer.extend(lines)
        if msg is not None and msg.tool_calls:
            self.tools_streamed = True
        policy = self.serving
        finish = policy.finish_reason(delta.finish_reason, self.tools_streamed)
        sse, sent, error_chunk = False, None, None
        if self.ended_at is not None:
            extra["not_sent"] = f"the server's stream ended at step {self.ended_at}, where parse_delta raised"
        elif failure is not None:
            # The server's generator catches it: one error chunk, then [DONE]; nothing after.
            error_chunk = serving.streaming_error_chunk_json(failure)
            self.ended_at = step
        else:
            sse, sent = policy.delta(msg, delta.finish_reason)  # sent is None unless sse
            if sse:
                self.result.add_vllm(sent)
        if finish:
            self.result.finish_reason = finish
        usage = self._usage_chunk() if finish and policy.usage and self.ended_at is None else None
        after = self._read_phase()
        # parse_delta checks the prompt first thing; if it raised before that, the next
        # delta still starts from the prompt's phase (as a fresh read would say)
        self._phase = after if error is None else None
        states = self._states = self._read_states()
        row = StreamRow(step, ids, delta.text, before, after, sse, finish, error, lines, parser_us,
                        delta.engine_steps, states_before, states, self.recorder.take(), extra, opening,
                        usage, sent, error_chunk, ids if policy.ids_in_chunks else None, self._token_texts)
        if self.keep_rows:
            self.rows.append(row)
        return row

    def _usage_chunk(self) -> str:
        reasoning = None
        parser = self.parser
        if parser is not None and getattr(parser, "reasoning_parser_cls", None) is not None:
            reasoning = parser.count_reasoning_tokens(tuple(self.token_ids))
        return serving.usage_chunk_json(len(self.prompt_ids), self.num_tokens, reasoning)


_OPENING = MessageDelta(content="")


def nonstream(parser_cls: type[Parser] | None, tokenizer: TokenizerLike, request: Any, prompt_ids: Sequence[int], chat_template_kwargs: dict,
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
