"""The message model: a delta the client receives, the message it ends up with, and
how one thing the workbench compares differs from another.

``MessageDelta`` is vLLM's ``DeltaMessage`` as a client sees it (reasoning, content,
tool-call deltas); ``Final`` is a whole message, streamed (every sent delta joined by
``Accumulator``) or not (``parse`` on the whole text). Stream and non-stream tool
calls have one shape: ``{"index", "id", "name", "arguments"}``. ``to_dict()`` is the
JSON the CLI prints, recordings and exported tests hold; ``None`` from vLLM stays
None. ``Difference`` is every comparison result: a check finding, a final-message
field, an A/B step.

Standard library only: `workbench export` pastes this file into every exported
pytest file, so the exported test joins and compares exactly as `check` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

FIELDS = ("reasoning", "content", "tool_calls", "finish_reason")  # a final message's fields
MESSAGE_FIELDS = FIELDS[:3]  # what the parser decides; finish_reason is the serving layer's
TEXT_FIELDS = FIELDS[:2]  # joined by concatenation


# Not frozen (nothing assigns to one; unsafe_hash keeps it hashable): one is made per
# tool-call delta, and a frozen dataclass's __init__ costs 6x a plain one's. Not a
# NamedTuple: its field "index" would hide tuple.index.
@dataclass(slots=True, unsafe_hash=True)
class ToolCallDelta:
    index: int
    id: str | None = None
    type: str | None = None
    name: str | None = None
    arguments: str | None = None

    def to_dict(self) -> dict:
        return {"index": self.index, "id": self.id, "type": self.type, "name": self.name,
                "arguments": self.arguments}


class MessageDelta(NamedTuple):
    """Immutable and cheap: one is made per delta (a NamedTuple builds in a third of a
    frozen dataclass's time)."""

    reasoning: str | None = None
    content: str | None = None
    tool_calls: tuple[ToolCallDelta, ...] = ()

    @classmethod
    def from_vllm(cls, msg: Any) -> MessageDelta | None:
        """vLLM's DeltaMessage (read by attribute, so this file needs no vLLM import)."""
        if msg is None:
            return None
        if not msg.tool_calls:
            return _new(cls, (msg.reasoning, msg.content, ()))
        calls = []
        for tc in msg.tool_calls:
            fn = tc.function
            calls.append(ToolCallDelta(tc.index, tc.id, tc.type, fn.name if fn else None,
                                       fn.arguments if fn else None))
        return _new(cls, (msg.reasoning, msg.content, tuple(calls)))

    @classmethod
    def of(cls, value: Any) -> MessageDelta | None:
        """``value`` itself (any object with these fields), None, or one from its JSON."""
        if value is None or not isinstance(value, dict):
            return value
        return cls(value.get("reasoning"), value.get("content"), tuple(
            ToolCallDelta(tc.get("index", 0), tc.get("id"), tc.get("type"), tc.get("name"),
                          tc.get("arguments")) for tc in value.get("tool_calls") or ()))

    def to_dict(self) -> dict:
        return {"reasoning": self.reasoning, "content": self.content,
                "tool_calls": [tc.to_dict() for tc in self.tool_calls]}


_new = tuple.__new__  # a NamedTuple from its values, without the generated __new__'s defaults


@dataclass(frozen=True, slots=True)
class ToolCall:
    index: int
    id: str | None
    name: str | None
    arguments: str | None

    def to_dict(self) -> dict:
        return {"index": self.index, "id": self.id, "name": self.name, "arguments": self.arguments}


@dataclass(frozen=True)
class Final:
    """A whole message. The optional fields appear in ``to_dict()`` only when set: the
    non-streaming answer carries reasoning_tokens and logs, and error when parse raised."""

    reasoning: str | None = None
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: str | None = None
    reasoning_tokens: int | None = None
    usage: dict | None = None
    error: str | None = None
    logs: tuple[str, ...] | None = None

    @classmethod
    def of(cls, value: Any) -> Final:
        """``value`` itself, or a Final from its JSON (``to_dict()``'s shape)."""
        if isinstance(value, Final):
            return value
        calls = tuple(ToolCall(c.get("index", i), c.get("id"), c.get("name"), c.get("arguments"))
                      for i, c in enumerate(value.get("tool_calls") or ()))
        logs = value.get("logs")
        return cls(value.get("reasoning"), value.get("content"), calls, value.get("finish_reason"),
                   value.get("reasoning_tokens"), value.get("usage"), value.get("error"),
                   None if logs is None else tuple(logs))

    def to_dict(self) -> dict:
        d: dict[str, Any] = {"reasoning": self.reasoning, "content": self.content,
                             "tool_calls": [c.to_dict() for c in self.tool_calls],
                             "finish_reason": self.finish_reason}
        for key in ("reasoning_tokens", "usage", "error"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.logs is not None:
            d["logs"] = list(self.logs)
        return d


def as_json(value: Any) -> Any:
    """A Final or MessageDelta as its JSON; JSON (or None) as it is."""
    return value.to_dict() if isinstance(value, (Final, MessageDelta)) else value


class Accumulator:
    """Joins sent deltas as an OpenAI streaming client does (tool calls keyed by index).

    The text arrives in parts and is joined when asked for (``final()``): adding to one
    growing string copied the whole text so far on every delta."""

    def __init__(self) -> None:
        self.finish_reason: str | None = None
        self._reasoning: list[str] | None = None  # None: no delta carried the field yet
        self._content: list[str] | None = None
        self._calls: dict[int, list] = {}  # index -> [id, name, argument parts]

    def add(self, delta: MessageDelta | dict | None) -> None:
        """One sent delta: a MessageDelta, its JSON, or None (nothing sent)."""
        if isinstance(delta, dict):
            delta = MessageDelta.of(delta)
        if delta is None:
            return
        self._text(delta.reasoning, delta.content)
        for tc in delta.tool_calls:
            self._call(tc.index, tc.id, tc.name, tc.arguments)

    def add_vllm(self, msg: Any) -> None:
        """One sent vLLM DeltaMessage, read by attribute: ``add`` without making the
        MessageDelta first (a stream run's rows make theirs only when asked)."""
        self._text(msg.reasoning, msg.content)
        for tc in msg.tool_calls or ():
            fn = tc.function
            self._call(tc.index, tc.id, fn.name if fn else None, fn.arguments if fn else None)

    def _text(self, reasoning: str | None, content: str | None) -> None:
        if reasoning is not None:
            if self._reasoning is None:
                self._reasoning = []
            self._reasoning.append(reasoning)
        if content is not None:
            if self._content is None:
                self._content = []
            self._content.append(content)

    def _call(self, index: int, id: str | None, name: str | None, arguments: str | None) -> None:
        slot = self._calls.get(index)
        if slot is None:
            slot = self._calls[index] = [None, None, []]
        if id and not slot[0]:
            slot[0] = id
        if name:
            slot[1] = (slot[1] or "") + name
        if arguments:
            slot[2].append(arguments)

    def final(self) -> Final:
        join = lambda parts: None if parts is None else "".join(parts)  # noqa: E731
        return Final(join(self._reasoning), join(self._content),
                     tuple(ToolCall(i, c[0], c[1], "".join(c[2])) for i, c in self._calls.items()),
                     self.finish_reason)

    def to_dict(self) -> dict:
        return self.final().to_dict()


# -- differences -------------------------------------------------------------------
# kind: what was compared
STREAM_VS_NONSTREAM = "stream_vs_nonstream"  # accumulated stream vs the non-streaming answer
CHUNKING = "chunking"  # another grouping of the same tokens vs one-token deltas
CONTRACT = "contract"  # a client-contract rule broken by the chunks themselves
ERROR = "error"  # the parser raised
FINAL = "final"  # one field of the streamed vs the non-streaming message, for display
STEP = "step"  # one step of an A/B run: side a's row vs side b's
SERVER = "server"  # one step of a capture: the server's SSE chunks (a) vs this vLLM's (b)

# severity: "error" fails `check`; "warning" (stream timing: right, but late) and "cosmetic"
# (whitespace, None vs "") only with --strict
SEVERE = "error"
WARNING = "warning"
COSMETIC = "cosmetic"


@dataclass(frozen=True)
class Difference:
    """``a`` (the stream, side A) against ``b`` (the reference: the non-streaming answer,
    the one-token stream, side B). ``severity`` None: they agree."""

    kind: str
    field: str | None  # tool_calls, content, reasoning, finish_reason, parse...; None for a step
    first_step: int | None  # 1-based step from which ``a`` can no longer match (a step: its number)
    a: object
    b: object
    severity: str | None = SEVERE
    detail: str = ""
    chunking: str = ""  # the grouping it was seen with: token, whole, split:K, random:SEED#I, ...
    normalised: dict | None = None  # {"stream", "nonstream"} when the normalised view differs
    fields: tuple[str, ...] = ()  # a step: the output fields that differ
    machine: bool = False  # a step: the state machines differ
    # mypy reads the ``field`` attribute above here, not dataclasses.field
    extra: dict = field(default_factory=dict)  # type: ignore[operator,misc]  # e.g. minimal grouping / text

    stream = property(lambda self: self.a)
    nonstream = property(lambda self: self.b)
    step = property(lambda self: self.first_step)
    output = property(lambda self: list(self.fields))

    @property
    def cosmetic(self) -> bool:
        return self.severity == COSMETIC

    @property
    def severe(self) -> bool:
        return self.severity == SEVERE

    @property
    def equal(self) -> bool:
        return self.severity is None

    same = equal

    def to_dict(self) -> dict:
        if self.kind == STEP:
            return {"step": self.first_step, "a": self.a, "b": self.b, "output": list(self.fields),
                    "machine": self.machine, "same": self.same}
        if self.kind == SERVER:
            return {"step": self.first_step, "same": self.same, "server": self.a, "here": self.b}
        d = {"kind": self.kind, "field": self.field, "first_step": self.first_step,
             "chunking": self.chunking, "stream": self.a, "nonstream": self.b,
             "severity": self.severity, "detail": self.detail}
        if self.normalised is not None:
            d["normalised"] = self.normalised
        d.update(self.extra)
        return d

    def headline(self) -> str:
        step = f" from step {self.first_step}" if self.first_step else ""
        return f"[{self.severity}] {self.kind} {self.field} ({self.chunking}{step}): {self.detail}"
