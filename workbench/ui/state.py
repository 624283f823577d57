"""The widget's one state (widget-free): every line on screen is drawn from it alone.

``State`` is immutable. Each action of the widget (a button, a picker, a method called
from a cell) is a transition ``state -> state`` (``ui/transitions.py`` and its siblings),
run by one ``Controller`` (``ui/controller.py``); the ipywidgets layer only sends actions
and draws the state it gets back (``ui/views.py`` says what each line reads).

What a frozen object cannot hold lives in the controller's ``Runtime`` (``ui/runtime.py``):
the composed parser's session and the source that makes rows (a ``StreamRun``, an engine
request), keyed by the stream's id. What of it a view reads, the controller puts in the
state after each transition (``State.made``): the views read the state alone.
A stream's rows are an append-only log that the states
of one stream share, each seeing its first ``n`` (a Step at 100,000 rows copies nothing).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, overload

from workbench.ui.inputs import SAMPLING_FIELDS, Inputs

if TYPE_CHECKING:
    from workbench.core.rows import Row
    from workbench.ui.final import FinalView

# Inputs fields a user sets in the controls, as the controls name them
NAMES = {"tokenizer": "tokenizer", "tool_parser": "tool parser", "reasoning_parser": "reasoning",
         "config": "config", "tool_choice": "tool_choice", "messages": "messages", "tools": "tools",
         "text": "script", "recording": "recording", "source": "source", "chunking": "chunking",
         "model": "model", "server_url": "server", "server_request": "request", "vllm": "vLLM",
         "api": "API", "temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
         "max_tokens": "max_tokens", "seed": "seed", "engine": "engine", "config_text": "the config editor", "plugin_text": "the Python editor"}
# the settings that make the deltas of each source (the others only say how they are parsed)
STREAM_FIELDS = {"text": ("tokenizer", "text", "chunking"),
                 "recording": ("tokenizer", "recording", "chunking"),
                 "engine": ("tokenizer", "text", "model", "messages", "tools", "tool_choice", "engine", *SAMPLING_FIELDS),
                 "server": ("server_url", "server_request", "messages", "tools", "tool_choice")}
# What a recording's header sets (recordings.inputs_from): a recording keeps its own, the
# other sources share theirs.
REQUEST = ("tokenizer", "messages", "tools", "tool_choice", "prompt_token_ids")


class Rows(Sequence["Row"]):
    """The first ``n`` rows of a stream's log (the log only grows; a replay starts another)."""

    __slots__ = ("log", "n")

    def __init__(self, log: list[Row] | None = None, n: int | None = None) -> None:
        self.log = [] if log is None else log
        self.n = len(self.log) if n is None else n

    def __len__(self) -> int:
        return self.n

    @overload
    def __getitem__(self, i: int) -> Row: ...
    @overload
    def __getitem__(self, i: slice) -> list[Row]: ...

    def __getitem__(self, i: int | slice) -> Row | list[Row]:
        if isinstance(i, slice):
            return self.log[slice(*i.indices(self.n))]
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.log[i]

    def __iter__(self) -> Iterator[Row]:
        return iter(self.log[:self.n]) if self.n != len(self.log) else iter(self.log)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rows) and other.log is self.log and other.n == self.n

    def __hash__(self) -> int:
        return hash((id(self.log), self.n))

    def grown(self, new: list[Row]) -> Rows:
        """These rows and ``new`` after them (the log is extended in place: an older state
        of the same stream still sees its own first ``n``)."""
        if self.n != len(self.log):  # an older state's view grew: a log of its own
            log = self.log[:self.n]
        else:
            log = self.log
        log.extend(new)
        return Rows(log)


@dataclass(frozen=True)
class Stream:
    """The rows on screen and what made them. ``id`` 0: no stream yet (or after Reset); its
    ``applied`` are then the settings the next Step starts with."""

    applied: Inputs
    id: int = 0
    parser: str | None = None  # the composed class as the session describes it (truth.parser_of)
    origin: str = ""  # "" (the settings' source), "recorded" (a live stream replayed), a grouping's name
    rows: Rows = field(default_factory=Rows)
    total: int | None = None
    done: bool = False
    final: FinalView | None = None
    changed: frozenset[int] = frozenset()
    errors: int = 0  # rows whose parse_delta raised

    @property
    def started(self) -> bool:
        return self.id != 0


@dataclass(frozen=True)
class Outcome:
    """What the last action did, in one line: ``kind`` ok, refused (a setting that cannot
    apply: nothing changed), warning, error (a traceback in ``details`` when it was a bug)."""

    kind: str = "idle"
    message: str = "idle: nothing loaded yet (Step loads vLLM)"
    action: str = ""
    details: str | None = None
    progress: float | None = None  # a Run's share done (the progress bar)


@dataclass(frozen=True)
class Editor:
    """The parser editor: its ``text`` in its ``language`` ("toml": a parser config, "python":
    a parser plugin), the file it shows (None: typed), and the problems of the last text tried
    (the last good one is ``settings.config_text`` or ``settings.plugin_text``: the parser
    when on). ``kept``: the other language's text and file, shown again when it is picked."""

    text: str = ""
    file: str | None = None
    problems: tuple = ()
    note: str = ""  # what it last did ("replayed 26 deltas, 3 rows changed")
    language: str = "toml"
    kept: Mapping[str, tuple[str, str | None]] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class Result:
    """A tool's answer (check, A/B, doctor) and the stream it is about."""

    stream: int
    value: Any
    rows: int = 0  # how many rows that stream had then
    extra: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True)
class ABSpecs:
    a: str = ""
    b: str = ""
    api_a: str = "chat"
    api_b: str = "chat"


@dataclass(frozen=True)
class Made:
    """What the runtime made that the views read, put here by the controller after every
    transition (``transitions.seen``), so that drawing reads the state alone and writes
    nothing. ``session``: the last session built (the pickers list its vLLM's names), ``key``
    the settings it was built for (``runtime.key_of``); ``stream_session`` and ``source``:
    those of the rows on screen; ``decoder``: their tokenizer's ``table.TokenText``;
    ``faces``: the stream's API faces (``faces_view.Faces``; None on a lane)."""

    session: Any = None
    key: str | None = None
    stream_session: Any = None
    source: Any = None
    decoder: Any = None
    faces: Any = None


@dataclass(frozen=True)
class State:
    settings: Inputs  # what the controls say
    stream: Stream  # the rows on screen, and the settings they were made with
    selected: int | None = None  # a step of ``stream``
    selection: tuple[int, ...] = ()  # every selected step (shift/ctrl-click), the focused one included
    outcome: Outcome = Outcome()
    drafts: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # boxes not valid JSON yet
    editor: Editor = Editor()
    running: bool = False  # the Run button's run is going
    check: Result | None = None
    ab: Result | None = None
    doctor: Result | None = None
    ab_specs: ABSpecs = ABSpecs()
    fuzz: int = 100
    notes: tuple[str, ...] = ()  # the banner's warnings (a recording's notes, a change mid-stream)
    kept: Mapping[str, Mapping[str, Any]] = field(default_factory=lambda: MappingProxyType({}))  # switched
    made: Made = field(default=Made(), compare=False, repr=False)

    @property
    def applied(self) -> Inputs:
        """What the rows on screen were made with (no stream: what the next Step starts)."""
        return self.stream.applied

    @property
    def rows(self) -> Rows:
        return self.stream.rows

    @property
    def final(self) -> FinalView | None:
        return self.stream.final

    @property
    def row(self) -> Row | None:
        """The selected row of the current stream."""
        s = self.selected
        return self.stream.rows[s - 1] if s is not None and 1 <= s <= len(self.stream.rows) else None

    @property
    def pending(self) -> tuple[str, ...]:
        """The settings that differ from the applied ones (Replay or Reset applies them), and
        the boxes whose text is not valid JSON yet."""
        now, applied = self.settings, self.stream.applied
        names = [NAMES[f.name] for f in fields(Inputs) if f.name in NAMES
                 and getattr(now, f.name) != getattr(applied, f.name)]
        return tuple(names + [NAMES[k] for k in self.drafts if NAMES[k] not in names])

    def stream_changed(self) -> bool:
        """Whether the settings make other deltas than the stream on screen (another
        source, script, recording, tokenizer, grouping, engine request)."""
        now, applied = self.settings, self.stream.applied
        if now.source != applied.source:
            return True
        return any(getattr(now, name) != getattr(applied, name) for name in STREAM_FIELDS.get(now.source, ()))

    def fresh(self, result: Result | None) -> bool:
        """Whether a tool's result is about the rows on screen."""
        return result is not None and result.stream == self.stream.id and self.stream.started


def start(settings: Inputs) -> State:
    """The first state: the script given is the text's and the engine's."""
    script = frozen({"text": settings.text})
    return State(settings=settings, stream=Stream(applied=settings),
                 kept=frozen({"text": script, "engine": script}))


def _slot(source: str, name: str) -> str | None:
    """Whose ``name`` it is while ``source`` is picked: the text's and the engine's scripts
    are their own (a recording and a server have none); a recording's request is its own."""
    if name == "text":
        return source if source in ("text", "engine") else None
    return "recording" if source == "recording" else "request"


def switched(s: State, source: str) -> State:
    """``s`` with ``source`` picked: the inputs of its own that the old source had are kept
    (``State.kept``) and the new source's come back, so that each source keeps its own
    script and request (a recording's header does not become the engine's)."""
    i = s.settings
    kept = {k: dict(v) for k, v in s.kept.items()}
    back = {}
    for name in ("text", *REQUEST):
        was, now = _slot(i.source, name), _slot(source, name)
        if was == now:
            continue
        if was is not None:
            kept.setdefault(was, {})[name] = getattr(i, name)
        if now is not None and name in kept.get(now, {}):
            back[name] = kept[now][name]
    return replace(s, settings=replace(i, source=source, **back),
                   kept=frozen({k: frozen(v) for k, v in kept.items()}))


def frozen(mapping: Mapping[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping))


def with_outcome(state: State, kind: str, message: str, action: str = "", details: str | None = None,
                 progress: float | None = None) -> State:
    return replace(state, outcome=Outcome(kind, message, action, details, progress))
