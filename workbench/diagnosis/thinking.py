"""Is thinking on for this request, and did the model close it? The doctor's reading of an
answer that never leaves reasoning.

Thinking is on when the model opened it itself (the reasoning parser's start marker in
the output), when the rendered prompt ends inside it (a template that writes ``<think>``
for the model, as DeepSeek V4's does), or when the request asks for it
(``chat_template_kwargs`` ``enable_thinking`` / ``thinking`` true). Under thinking on, an
output whose reasoning never reaches the parser's end marker is the model's (it stopped,
or max_tokens cut it, before it answered): no setting would have made the answer
appear. Thinking that was never on is the configuration's (the parser assumed it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from workbench.core.session import Session

_START, _END = ("THINK_START", "REASONING_START"), ("THINK_END", "REASONING_END")


@dataclass(frozen=True)
class Thinking:
    start: str | None  # the reasoning parser's markers
    end: str | None
    prompt_open: bool  # the prompt ends inside thinking
    prompt_closed: bool  # the prompt closed thinking (or wrote an empty block)
    asked: bool | None  # enable_thinking / thinking in chat_template_kwargs, None when not given

    def on(self, text: str) -> bool:
        """Whether thinking was on for ``text``: the model opened it, the prompt did, or the request asked."""
        return (bool(self.start) and self.start in text and not self.prompt_closed) or self.prompt_open \
            or self.asked is True

    def left_open(self, text: str, stream: object, nonstream: object) -> bool:
        """Both answers are reasoning only and the text never reaches the end marker."""
        if not self.end or self.end in text:
            return False
        return all(getattr(f, "reasoning", None) and not (getattr(f, "content", None) or "").strip()
                   and not getattr(f, "tool_calls", ()) for f in (stream, nonstream))


def markers(session: Session) -> tuple[str | None, str | None]:
    """(start, end) of the reasoning parser: an engine config's terminals, or a legacy parser's
    ``start_token`` / ``end_token``."""
    from workbench.core.runner import make_parser

    if session.parser_cls is None or session.parser_cls.reasoning_parser_cls is None:
        return None, None
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    sub = parser if compat.is_parser_engine(parser) else compat.sub_parsers(parser).get("reasoning")
    engine = sub if compat.is_parser_engine(sub) else compat.adapter_engine(sub)
    config = getattr(engine, "parser_engine_config", None)
    if config is not None:
        first = {k: (v if isinstance(v, str) else v[0]) for k, v in config.terminals.items()}
        return (next((first[k] for k in _START if first.get(k)), None),
                next((first[k] for k in _END if first.get(k)), None))
    pick = [getattr(sub, name, None) for name in ("start_token", "end_token")]
    return tuple(v if isinstance(v, str) and v.strip() else None for v in pick)  # type: ignore[return-value]


def state(session: Session, prompt_tail: str) -> Thinking | None:
    """The thinking state of ``session``'s request; None without a reasoning parser."""
    start, end = markers(session)
    if not start and not end:
        return None
    last_start = prompt_tail.rfind(start) if start else -1
    last_end = prompt_tail.rfind(end) if end else -1
    kwargs = session.setup.request.chat_template_kwargs or {}
    asked = next((bool(kwargs[k]) for k in ("enable_thinking", "thinking") if isinstance(kwargs.get(k), bool)), None)
    return Thinking(start, end, last_start > last_end, last_end >= 0 and last_end > last_start, asked)


def summary(thinking: Thinking, text: str, finish: str, stream: object, nonstream: object,
            reasoning_deltas: int) -> tuple[str, list[str]]:
    """(the cause's summary, its evidence): what happened, and what each mode returns."""
    chars = len(getattr(nonstream, "reasoning", "") or "")
    why = ("max_tokens cut the output while the model was still thinking" if finish == "length" else
           f"the model never closed its thinking: the output ends without {thinking.end!r} (finish_reason "
           f"{finish!r}), so it never reached an answer")
    how = ("the prompt opened thinking" if thinking.prompt_open else
           f"the model opened thinking itself with {thinking.start!r}" if thinking.start and thinking.start in text
           else "the request's chat_template_kwargs asked for thinking")
    return why, [
        f"thinking was on ({how}); no setting makes an answer appear that the model did not write",
        f"stream: {reasoning_deltas} reasoning chunk(s), then finish_reason {stream.finish_reason!r}, no content",
        f"non-stream: message.reasoning ({chars} characters), content {nonstream.content!r}",
        "a client that reads only content sees an empty answer; "
        + ("raise max_tokens or set a thinking budget" if finish == "length" else
           "retry, or bound thinking (a thinking budget) so the model answers"),
    ]
