"""Read-only views into a live vLLM Parser: its phase and its state machines.

The phase is the one ``DelegatingParser.parse_delta`` is in (reasoning, then
tool when a tool parser exists, else content). Engine-based parsers also run
``StreamingParserEngine`` instances; we expose their ``state`` and record the
``SemanticEvent``s each ``feed``/``finish`` returns, without changing them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TYPE_CHECKING

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from vllm.parser.abstract_parser import Parser
    from workbench.core.session import Session

_TOOL_STATES = {"MESSAGE_HEADER", "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"}


def engines(parser: Parser | None) -> dict[str, Any]:
    """role -> StreamingParserEngine for every declarative engine inside ``parser``."""
    if parser is None:
        return {}
    if compat.is_parser_engine(parser):
        return {"engine": compat.streaming_engine(parser)}
    found = {}
    for role, sub in compat.sub_parsers(parser).items():
        pe = compat.adapter_engine(sub)
        if pe is not None:
            found[role] = compat.streaming_engine(pe)
    return found


def states(parser: Parser | None) -> dict[str, str]:
    return {role: eng.state.name for role, eng in engines(parser).items()}


def phase(parser: Parser | None, prompt_ids: Sequence[int] | None = None) -> str:
    """'reasoning', 'tool' or 'content': where the next delta's text will go."""
    if parser is None:
        return "content"
    if compat.is_harmony(parser):
        return harmony_phase(parser)
    if compat.is_parser_engine(parser):  # a single ParserEngine: its own machine decides
        # parse_delta feeds the engine without initialize_streaming, so its state is the truth.
        name = compat.streaming_engine(parser).state.name
        return "reasoning" if name == "REASONING" else "tool" if name in _TOOL_STATES else "content"
    state = compat.stream_state(parser)
    ended = state.reasoning_ended
    if not state.prompt_reasoning_checked and prompt_ids is not None:
        # parse_delta checks the prompt on its first call; show that outcome up front.
        ended = parser.reasoning_parser is None or parser.is_reasoning_end(list(prompt_ids))
    if parser.reasoning_parser is not None and not ended:
        return "reasoning"
    if parser.tool_parser is not None and ended:
        return "tool"
    return "content"


def harmony_phase(parser: Parser | None) -> str:
    """HarmonyParser reads channels at the token level (openai_harmony's StreamableParser):
    its current channel and recipient, e.g. 'analysis', 'commentary to=functions.f', 'final';
    'header' between messages (after <|end|>/<|start|>, before <|message|>)."""
    sp = compat.harmony_streamable(parser)  # None until the first token: the prompt ends in <|start|>assistant
    if sp is None:
        return "header"
    channel = sp.current_channel
    recipient = compat.harmony_recipient(parser, sp.current_recipient)
    if channel is None:
        return "header" if recipient is None else f"to={recipient}"
    return channel if recipient is None else f"{channel} to={recipient}"


class EventRecorder:
    """Keeps the events each engine's feed/finish returns on this instance."""

    def __init__(self, engines_by_role: dict[str, object]) -> None:
        self.events: list[dict] = []
        for role, eng in engines_by_role.items():
            compat.record_events(eng, lambda events, role=role: self._keep(role, events))

    def _keep(self, role: str, events) -> None:
        for ev in events:
            self.events.append({"engine": role, "type": ev.type.name, "value": ev.value,
                                "tool_index": ev.tool_index})

    def take(self) -> list[dict]:
        if not self.events:
            return []
        out, self.events = self.events, []
        return out


def graph(config, role: str) -> dict:
    """One ParserEngineConfig as {role, name, initial, nodes, edges}: every state a
    transition names (and the initial state), every transition as an edge."""
    edges = []
    for (state, terminal), tr in config.transitions.items():
        edges.append({"from": state.name, "on": terminal, "to": tr.next_state.name,
                      "events": [e.name for e in tr.events], "literal": config.terminal_literal(terminal),
                      "token_id": terminal in config.token_id_terminals,
                      "skip_in_token_id_mode": tr.skip_in_token_id_mode})
    names = [config.initial_state.name] + [s for e in edges for s in (e["from"], e["to"])]
    content = {state.name: event.name for state, event in config.content_events.items()}
    nodes = [{"id": n, "content_event": content.get(n)} for n in dict.fromkeys(names)]
    return {"role": role, "name": config.name, "initial": config.initial_state.name,
            "nodes": nodes, "edges": edges}


def machines_of(session: Session) -> list[dict]:
    """The graphs of every engine inside the session's parser (none for legacy parsers)."""
    if hasattr(session, "machines"):  # a lane's session: drawn from the engines in its worker
        return session.machines()
    return [graph(eng.config, role) for role, eng in session.stream().engines.items()]
