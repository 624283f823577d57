"""What the faces read of a replay: per row, the DeltaMessage the parser returned (as
the chat face sent it) and the engine's finish reason; the non-streaming parse.

The one place that knows the row's shape, so the faces stay a layer over the rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from workbench.core.faces.face import Replayed
    from workbench.core.rows import Row
    from workbench.core.session import Session


def sent(row: Row) -> Any:
    """The row's ``DeltaMessage`` after the parallel-tool-call filter, as the chat face
    sent it; None when ``parse_delta`` returned None and nothing was sent. Responses and
    Anthropic start from the same message (``if not delta_message: continue``): an empty
    DeltaMessage the chat face sends with the finish reason opens no event there."""
    return row._sent


def raw_finish(row: Row) -> str | None:
    """The engine's finish reason (the chat face turns "stop" into "tool_calls")."""
    finish = row.finish_reason
    return "stop" if finish == "tool_calls" else finish


def parse(session: Session, result: Replayed) -> tuple[Any, Any, Any] | str | None:
    """(reasoning, content, tool calls) of ``parse`` on the whole text with a fresh parser,
    as the non-streaming generators run it; None without a parser; the error as a string
    when parse raised (the server answers 500)."""
    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return None
    try:
        parser.set_prompt_token_ids(list(session.prompt_ids))
        return parser.parse(result.text, session.request, enable_auto_tools=session.enable_auto_tools,
                            model_output_token_ids=list(result.token_ids))
    except Exception as e:  # the server's 500; shown as the body's error
        return f"{type(e).__name__}: {e}"


def reasoning_tokens(session: Session, token_ids: Sequence[int]) -> int:
    """``count_reasoning_tokens`` over the output, as the Responses usage counts it."""
    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None or getattr(parser, "reasoning_parser_cls", None) is None:
        return 0
    return parser.count_reasoning_tokens(list(token_ids))
