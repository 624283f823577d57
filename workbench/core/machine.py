"""Read-only views into a live vLLM Parser: its phase and its state machines.

The phase is the one ``DelegatingParser.parse_delta`` is in (reasoning, then
tool when a tool parser exists, else content; for Harmony, the channel and
recipient). Engine-based parsers also run ``StreamingParserEngine`` instances;
we expose their ``state`` and record the ``SemanticEvent``s each
``feed``/``finish`` returns, without changing them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any, NamedTuple, TYPE_CHECKING

from workbench.core import vllm_compat as compat

if TYPE_CHECKING:
    from vllm.parser.abstract_parser import Parser

    from workbench.core.prepare import Replayer

_TOOL_STATES = {"MESSAGE_HEADER", "TOOL_PREAMBLE", "TOOL_NAME", "TOOL_ARGS", "TOOL_BETWEEN"}


class Kind(str, Enum):
    """Which message field a phase's text goes to."""

    REASONING = "reasoning"
    CONTENT = "content"
    TOOL = "tool"
    OTHER = "other"  # none: Harmony's header between messages, a channel vLLM ignores


class Phase(str):
    """A phase: its label ('reasoning', 'content', 'tool', or a Harmony channel and recipient
    such as 'analysis', 'commentary to=functions.get_weather', 'final', 'header') and its
    ``kind``. It compares, hashes and prints as the label; ``Phase.of`` keeps one per label."""

    kind: Kind

    def __new__(cls, label: str, kind: Kind) -> Phase:
        obj = super().__new__(cls, label)
        obj.kind = kind
        return obj

    def __reduce__(self):
        return Phase.of, (str(self), self.kind.value)

    @staticmethod
    def of(label: str, kind: Kind | str | None = None) -> Phase:
        """The phase called ``label``; without ``kind``, one of Kind's own labels (else OTHER)."""
        if kind is None:
            kind = _LABELS.get(label, Kind.OTHER)
        # looked up before Kind(kind): a str kind finds its Kind's entry (Kind is a str
        # enum); a lane's client reads two phases a row this way
        phase = _PHASES.get((label, kind))
        if phase is None:
            kind = Kind(kind)
            phase = _PHASES[label, kind] = Phase(label, kind)
        return phase


_LABELS = {k.value: k for k in Kind}
_PHASES: dict[tuple[str, str], Phase] = {}  # (label, kind): a Kind is a str
REASONING, CONTENT, TOOL = (Phase.of(k.value) for k in (Kind.REASONING, Kind.CONTENT, Kind.TOOL))
HEADER = Phase.of("header", Kind.OTHER)


class Event(NamedTuple):
    """One SemanticEvent a state machine returned: which engine (its role), the EventType's
    name, its value and tool index (-1: none). A NamedTuple: one is made per event."""

    engine: str
    type: str
    value: object = None
    tool_index: int = -1

    def to_dict(self) -> dict:
        return {"engine": self.engine, "type": self.type, "value": self.value,
                "tool_index": self.tool_index}

    @classmethod
    def from_dict(cls, d: dict) -> Event:
        return cls(d["engine"], d["type"], d.get("value"), d.get("tool_index", -1))


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


def states_reader(engines_by_role: dict[str, Any]) -> Callable[[], dict[str, str]]:
    """``read() -> {role: state name}`` for these engines; the last dict again while no
    state changed (a stream asks after every delta; rows never change their states)."""
    items = list(engines_by_role.items())
    if not items:
        return dict
    last: list = [None, None]  # the states as members, their dict
    if len(items) == 1:
        role, engine = items[0]

        def read_one() -> dict[str, str]:
            member = engine.state
            if member is not last[0]:
                last[0], last[1] = member, {role: member.name}
            return last[1]
        return read_one

    def read() -> dict[str, str]:
        members = tuple(eng.state for _, eng in items)
        if members != last[0]:
            last[0], last[1] = members, {role: m.name for (role, _), m in zip(items, members)}
        return last[1]
    return read


def phase(parser: Parser | None, prompt_ids: Sequence[int] | None = None) -> Phase:
    """Where the next delta's text will go (``prompt_ids``: before the first delta)."""
    return phase_reader(parser)(prompt_ids)


def phase_reader(parser: Parser | None) -> Callable[..., Phase]:
    """``read(prompt_ids=None) -> Phase`` for this parser instance, its kind of parser
    decided once (a stream asks after every delta)."""
    if parser is None:
        return lambda prompt_ids=None: CONTENT
    if compat.is_harmony(parser):
        return lambda prompt_ids=None: harmony_phase(parser)
    if compat.is_parser_engine(parser):  # a single ParserEngine: its own machine decides
        # parse_delta feeds the engine without initialize_streaming, so its state is the truth.
        engine = compat.streaming_engine(parser)

        def read_engine(prompt_ids: Sequence[int] | None = None) -> Phase:
            name = engine.state.name
            return REASONING if name == "REASONING" else TOOL if name in _TOOL_STATES else CONTENT
        return read_engine
    has_reasoning, has_tool = parser.reasoning_parser is not None, parser.tool_parser is not None
    stream_state = compat.stream_state_reader(parser)

    def read(prompt_ids: Sequence[int] | None = None) -> Phase:
        state = stream_state()
        ended = state.reasoning_ended
        if not state.prompt_reasoning_checked and prompt_ids is not None:
            # parse_delta checks the prompt on its first call; show that outcome up front.
            ended = not has_reasoning or parser.is_reasoning_end(list(prompt_ids))
        if has_reasoning and not ended:
            return REASONING
        return TOOL if has_tool and ended else CONTENT
    return read


def harmony_phase(parser: Parser | None) -> Phase:
    """HarmonyParser reads channels at the token level (openai_harmony's StreamableParser):
    its current channel and recipient, e.g. 'analysis', 'commentary to=functions.f', 'final';
    'header' between messages (after <|end|>/<|start|>, before <|message|>). The kind is
    vLLM's own segment type for that channel and recipient."""
    sp = compat.harmony_streamable(parser)  # None until the first token: the prompt ends in <|start|>assistant
    if sp is None:
        return HEADER
    channel = sp.current_channel
    recipient = compat.harmony_recipient(parser, sp.current_recipient)
    if channel is None and recipient is None:
        return HEADER
    label = f"to={recipient}" if channel is None else channel if recipient is None \
        else f"{channel} to={recipient}"
    return Phase.of(label, _SEGMENT_KINDS[compat.harmony_segment(channel, recipient)])


_SEGMENT_KINDS = {"TOOL": Kind.TOOL, "REASONING": Kind.REASONING, "CONTENT": Kind.CONTENT,
                  "IGNORE": Kind.OTHER}


class EventRecorder:
    """Keeps the events each engine's feed/finish returns on this instance."""

    def __init__(self, engines_by_role: dict[str, object]) -> None:
        self.events: list[Event] = []
        for role, eng in engines_by_role.items():
            compat.record_events(eng, self._keeper(role))

    def _keeper(self, role: str):
        names = _EVENT_NAMES

        def keep(events: Sequence[Any]) -> None:
            out = self.events
            for ev in events:
                t = ev.type
                name = names.get(t)
                if name is None:
                    name = names[t] = t.name
                out.append(_new(Event, (role, name, ev.value, ev.tool_index)))
        return keep

    def take(self) -> list[Event]:
        if not self.events:
            return []
        out, self.events = self.events, []
        return out


_EVENT_NAMES: dict = {}  # EventType member -> its name (Enum.name is a slow property)
_new = tuple.__new__


def graph(config: Any, role: str) -> dict:
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


def machines_of(session: Replayer) -> list[dict]:
    """The graphs of every engine inside the session's parser (none for legacy parsers); a
    lane's session draws them from the engines in its worker."""
    return session.machines()
