"""Read-only views into a live vLLM Parser: its phase and its state machines.

The phase is the one ``DelegatingParser.parse_delta`` is in (reasoning, then
tool when a tool parser exists, else content). Engine-based parsers also run
``StreamingParserEngine`` instances; we expose their ``state`` and record the
``SemanticEvent``s each ``feed``/``finish`` returns, without changing them.
"""

from __future__ import annotations

from collections.abc import Sequence

_TOOL_STATES = {"MESSAGE_HEADER", "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"}


def engines(parser) -> dict[str, object]:
    """role -> StreamingParserEngine for every declarative engine inside ``parser``."""
    if parser is None:
        return {}
    found = {}
    if hasattr(parser, "_engine") and hasattr(parser, "parser_engine_config"):
        found["engine"] = parser._engine
    for role in ("reasoning", "tool"):
        sub = getattr(parser, f"_{role}_parser", None)
        pe = getattr(sub, "_parser_engine", None)
        if pe is not None and hasattr(pe, "_engine"):
            found[role] = pe._engine
    return found


def states(parser) -> dict[str, str]:
    return {role: eng.state.name for role, eng in engines(parser).items()}


def phase(parser, prompt_ids: Sequence[int] | None = None) -> str:
    """'reasoning', 'tool' or 'content': where the next delta's text will go."""
    if parser is None:
        return "content"
    if hasattr(type(parser), "_harmony_parser"):
        return harmony_phase(parser)
    state = getattr(parser, "_stream_state", None)
    if hasattr(parser, "parser_engine_config"):  # a single ParserEngine: its own machine decides
        # parse_delta feeds the engine without initialize_streaming, so its state is the truth.
        name = parser._engine.state.name
        return "reasoning" if name == "REASONING" else "tool" if name in _TOOL_STATES else "content"
    if state is None:
        return "content"
    ended = state.reasoning_ended
    if not state.prompt_reasoning_checked and prompt_ids is not None:
        # parse_delta checks the prompt on its first call; show that outcome up front.
        ended = parser._reasoning_parser is None or parser.is_reasoning_end(list(prompt_ids))
    if parser._reasoning_parser is not None and not ended:
        return "reasoning"
    if parser._tool_parser is not None and ended:
        return "tool"
    return "content"


def harmony_phase(parser) -> str:
    """HarmonyParser reads channels at the token level (openai_harmony's StreamableParser):
    its current channel and recipient, e.g. 'analysis', 'commentary to=functions.f', 'final';
    'header' between messages (after <|end|>/<|start|>, before <|message|>)."""
    sp = parser._parser  # None until the first token: the prompt ends in <|start|>assistant
    if sp is None:
        return "header"
    channel = sp.current_channel
    recipient = parser._normalize_recipient(sp.current_recipient)
    if channel is None:
        return "header" if recipient is None else f"to={recipient}"
    return channel if recipient is None else f"{channel} to={recipient}"


class EventRecorder:
    """Wraps each engine's feed/finish on this instance to keep their events."""

    def __init__(self, engines_by_role: dict[str, object]) -> None:
        self.events: list[dict] = []
        for role, eng in engines_by_role.items():
            self._wrap(role, eng, "feed")
            self._wrap(role, eng, "finish")

    def _wrap(self, role: str, eng, method: str) -> None:
        original = getattr(eng, method)

        def recorded(*args, **kwargs):
            out = original(*args, **kwargs)
            for ev in out or ():
                self.events.append({"engine": role, "type": ev.type.name, "value": ev.value,
                                    "tool_index": ev.tool_index})
            return out

        setattr(eng, method, recorded)

    def take(self) -> list[dict]:
        if not self.events:
            return []
        out, self.events = self.events, []
        return out
