"""One row per delta: everything the workbench shows about it, and the one column schema
every view of the rows draws from (``to_frame``, the CLI table, the widget's table).

A ``Row`` is typed: the ``MessageDelta`` the client got (or None), the phase before and
after (``machine.Phase``), the engines' states and their ``machine.Event``s. JSON is
made only at the edges (``to_dict``: --json, the lane wire, the widget's comm).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any

from workbench.core.machine import Event, Phase
from workbench.core.messages import MessageDelta, ToolCallDelta


@dataclass(slots=True)
class Row:
    step: int
    token_ids: list[int]
    tokens: list[str]
    text: str
    phase_before: Phase
    phase: Phase
    delta: MessageDelta | None  # what the client receives; None when parse_delta returned None
    sse: bool  # whether the serving layer would send an SSE chunk for it
    finish_reason: str | None = None
    error: str | None = None
    logs: list[str] = field(default_factory=list)
    parser_us: float = 0.0
    engine_steps: int = 1
    states_before: dict[str, str] = field(default_factory=dict)
    states: dict[str, str] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    extra: dict = field(default_factory=dict)  # e.g. the grammar view of an engine step
    # The stream's other SSE chunks: the server's opening chunk goes out with the
    # first delta, before its own chunk; the usage chunk after the last one.
    opening_chunk: str | None = None
    usage_chunk: str | None = None
    # The sent DeltaMessage; its chunk JSON is serialised on first access (``chunk``),
    # so replaying thousands of deltas does not pay for JSON nobody looks at.
    _sent: object = field(default=None, repr=False, compare=False)
    _chunk: str | None = field(default=None, repr=False, compare=False)
    _chunk_ids: list[int] | None = field(default=None, repr=False, compare=False)

    @property
    def chunk(self) -> str | None:
        if self._chunk is None and self.sse and self._sent is not None:
            from workbench.core.serving import chunk_json

            self._chunk = chunk_json(self._sent, self.finish_reason, self._chunk_ids)
        return self._chunk

    @property
    def chunks(self) -> list[str]:
        """Every SSE chunk the server sends for this delta, in order."""
        return [c for c in (self.opening_chunk, self.chunk, self.usage_chunk) if c is not None]

    @property
    def reasoning(self) -> str | None:
        return self.delta.reasoning if self.delta is not None else None

    @property
    def content(self) -> str | None:
        return self.delta.content if self.delta is not None else None

    @property
    def tool_calls(self) -> tuple[ToolCallDelta, ...]:
        return self.delta.tool_calls if self.delta is not None else ()

    @property
    def state_changed(self) -> bool:
        return self.phase_before != self.phase or (bool(self.states) and self.states_before != self.states)

    def to_dict(self, chunk: bool = True) -> dict:
        """The row's JSON (`--json`, the lane wire): typed values as their JSON; ``chunk``:
        with the SSE chunk's JSON (serialised now if it was not yet)."""
        d = {f: getattr(self, f) for f in FIELDS}
        d["phase_before"], d["phase"] = str(self.phase_before), str(self.phase)
        d["delta"] = self.delta.to_dict() if self.delta is not None else None
        d["events"] = [e.to_dict() for e in self.events]
        if chunk:
            d["chunk"] = self.chunk
        return d


FIELDS = [f.name for f in fields(Row) if not f.name.startswith("_")]

@dataclass(slots=True)
class StreamRow(Row):
    """A row of a stream run (``runner.StreamRun.feed``, the hot path). Its ``delta`` and
    ``tokens`` are made on first access, from the sent DeltaMessage (``_sent``) and the
    run's token texts, as ``chunk`` is: a replay of thousands of deltas makes none that
    nobody reads (the run's accumulator reads ``_sent`` itself). Until then their slots are
    empty, so reading one falls through to ``__getattr__``, once; a property would cost
    every read and every ``__init__``."""

    delta: MessageDelta | None = field(init=False)
    tokens: list[str] = field(init=False)
    _token_texts: Callable[[list[int]], list[str]] | None = field(default=None, repr=False, compare=False)

    def __getattr__(self, name: str) -> Any:
        if name == "delta":
            value: Any = MessageDelta.from_vllm(self._sent)
        elif name == "tokens" and self._token_texts is not None:
            value = self._token_texts(self.token_ids)
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        setattr(self, name, value)
        return value


def typed(d: dict, kinds: tuple[str, str] | None = None) -> dict:
    """``to_dict()``'s fields back as Row's types (``kinds``: the two phases' kinds, which
    the JSON leaves out; without them a phase's kind is read from its label)."""
    out = {f: d[f] for f in FIELDS if f in d}
    kb, ka = kinds or (None, None)
    out["phase_before"], out["phase"] = Phase.of(d["phase_before"], kb), Phase.of(d["phase"], ka)
    out["delta"] = MessageDelta.of(d.get("delta"))
    out["events"] = [Event.from_dict(e) for e in d.get("events") or ()]
    return out


def format_tool_calls(calls: Iterable[ToolCallDelta | dict], ids: bool = True) -> str:
    """Tool-call deltas (typed or their JSON) in one line: ``#0 id=… name=… args+='…'``
    (``ids``: with the call ids, which a server draws at random per call)."""
    parts = []
    for c in calls:
        c = c.to_dict() if isinstance(c, ToolCallDelta) else c
        head = f"#{c['index']}"
        if c.get("id") and ids:
            head += f" id={c['id']}"
        if c.get("name"):
            head += f" name={c['name']}"
        if c.get("arguments"):
            head += f" args+={c['arguments']!r}"
        parts.append(head)
    return "; ".join(parts)


def grammar_of(row: Row) -> str | None:
    """The constraint's view of this step, when an engine run recorded one."""
    g = row.extra.get("grammar")
    if g is None:
        return None
    if isinstance(g, dict) and "allowed" in g:
        parts = []
        for gate, allowed, ok in zip(g.get("gate_open") or [], g["allowed"],
                                     g.get("emitted_allowed") or [None] * len(g["allowed"])):
            text = f"{'open' if gate else 'closed' if gate is False else '?'} {allowed} allowed"
            if ok is not None:
                text += " ✓" if ok else " ✗ emitted token not allowed"
            parts.append(text)
        return "; ".join(parts)
    return g if isinstance(g, str) else json.dumps(g, ensure_ascii=False, default=str)


# -- the column schema -------------------------------------------------------------
# How a table draws a cell (the front end knows these four):
TEXT = "text"  # a string whose whitespace matters: shown as ␣ ⏎ ⇥, None blank, "" as ""
TOKENS = "tokens"  # a list of token texts, one pill each
LABEL = "label"  # a short name or flag, as it is
NUMBER = "number"  # right-aligned


@dataclass(frozen=True)
class Column:
    """One column of a table of records: ``value(record)`` is its data (None when missing:
    a frame's cell), ``display(record)`` what a table shows (JSON-able; default: the value)
    and ``kind`` how it is drawn; ``shown`` whether it shows by default (``"auto"``: when
    some row has a value); ``width`` its default width in px, ``grow`` its share of the
    spare width (0: fixed); ``fit``: px up to which it widens to its longest value (0:
    never); ``field``: the message field its value is (reasoning, content, tool), which a
    table colours where it has a value."""

    name: str
    title: str
    description: str  # one line: the header's tooltip
    value: Callable
    kind: str = TEXT
    shown: bool | str = True
    width: int = 72
    grow: float = 1.0
    display: Callable | None = None
    fit: int = 0
    field: str | None = None

    def shown_value(self, record: Row) -> Any:
        return (self.display or self.value)(record)

    def spec(self) -> dict:
        """What a front end needs to draw it (the widget's comm)."""
        return {"name": self.name, "title": self.title, "description": self.description,
                "kind": self.kind, "width": self.width, "grow": self.grow, "shown": self.shown,
                "fit": self.fit, "field": self.field}


def phase_shown(row: Row) -> str:
    return str(row.phase) if row.phase == row.phase_before else f"{row.phase_before}→{row.phase}"


COLUMNS: tuple[Column, ...] = (
    Column("step", "step", "the delta's number in the stream (1-based)", lambda r: r.step, NUMBER,
           width=40, grow=0, fit=64),
    Column("token_ids", "ids", "the token ids of this delta", lambda r: list(r.token_ids), LABEL,
           shown=False, width=72, grow=0.6),
    Column("tokens", "tokens", "the tokens of this delta, each as its text", lambda r: list(r.tokens),
           TOKENS, width=64, grow=1.2),
    Column("text", "text", "the text vLLM's detokenizer released for these tokens (delta_text)",
           lambda r: r.text, width=56, grow=1),
    Column("phase_before", "before", "where the parser was before this delta", lambda r: str(r.phase_before),
           LABEL, shown=False, width=64, grow=0, fit=280),
    Column("phase", "phase", "where the parser sends the text: reasoning, content, tool (or a "
           "Harmony channel); before→after at a change", lambda r: str(r.phase), LABEL, width=56,
           grow=0, display=phase_shown, fit=340),
    Column("reasoning", "reasoning", "the DeltaMessage's reasoning (blank: None)", lambda r: r.reasoning,
           width=64, grow=1.2, field="reasoning"),
    Column("content", "content", "the DeltaMessage's content (blank: None)", lambda r: r.content,
           width=64, grow=1.2, field="content"),
    Column("tool_calls", "tool_calls", "the DeltaMessage's tool-call deltas: #index, name=, args+= "
           "(the call ids: the widget's row detail, --json)", lambda r: format_tool_calls(r.tool_calls) or None,
           width=150, grow=2.4, field="tool", display=lambda r: format_tool_calls(r.tool_calls, ids=False) or None),
    Column("sse", "SSE", "whether the server sends an SSE chunk for this delta", lambda r: r.sse, LABEL,
           width=40, grow=0, display=lambda r: "chunk" if r.sse else "none", fit=56),
    Column("finish_reason", "finish", "the finish_reason the client sees on this chunk",
           lambda r: r.finish_reason, LABEL, width=48, grow=0, fit=96),
    Column("grammar", "grammar", "the engine's grammar: gate open or closed, tokens allowed",
           grammar_of, shown="auto", width=110, grow=1.3),
    Column("error", "error", "what parse_delta raised", lambda r: r.error, shown="auto", width=90, grow=1.2),
    Column("logs", "logs", "vLLM's log lines during this delta", lambda r: "\n".join(r.logs) or None,
           shown="auto", width=90, grow=1),
    Column("parser_us", "µs", "the parser's time for this delta, in µs", lambda r: round(r.parser_us, 1),
           NUMBER, shown=False, width=48, grow=0, fit=72),
)
BY_NAME = {c.name: c for c in COLUMNS}


def shown_columns(rows: list[Row], columns: tuple[Column, ...] = COLUMNS) -> list[Column]:
    """The columns a table shows by default for these rows ("auto" ones when some row has a value)."""
    return [c for c in columns if c.shown is True
            or (c.shown == "auto" and any(c.value(r) is not None for r in rows))]


def to_frame(rows: list[Row], columns: tuple[Column, ...] = COLUMNS) -> Any:
    """A pandas DataFrame, one row per delta and one column per schema column (its value).
    Numbers are never missing; every other column is of objects, so a missing value is
    None everywhere (never NaN)."""
    import pandas as pd

    return pd.DataFrame({c.name: pd.Series([c.value(r) for r in rows], dtype=None if c.kind == NUMBER
                                           else object) for c in columns},
                        columns=[c.name for c in columns])
