"""A run as data: what every front end translates its own inputs into (``core.prepare``
makes it ready). Plain values only, so it travels: ``to_dict()`` / ``from_dict()`` are what
the lane wire and the corpus results carry."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from workbench.core.parsers import ParserSpec
from workbench.errors import WorkbenchError

# The RequestSpec fields a run may set over the recording's (or the default) request.
REQUEST_FIELDS = ("messages", "tools", "tool_choice", "chat_template_kwargs", "parallel_tool_calls", "max_tokens",
                  "temperature", "top_p", "top_k", "seed")
FLAGS = {"parallel_tool_calls": "--no-parallel-tool-calls"}  # a field whose flag is not --its-name


@dataclass(frozen=True)
class RunSpec:
    """What to run, as plain data. Exactly one source: ``text``, ``recording`` (a path) or
    ``deltas`` (texts or token-id lists, each one delta; with ``text`` they must join to it).
    ``None`` leaves a setting to the recording (or the default)."""

    text: str | None = None
    recording: str | None = None
    deltas: tuple[Any, ...] | None = None
    tokenizer: str | None = None  # a built-in name or a folder; None: the recording's, else qwen3
    parser: ParserSpec | None = None  # None: the recording's own (a text: no parser)
    request: dict[str, Any] = field(default_factory=dict)  # REQUEST_FIELDS this run sets
    request_body: dict[str, Any] | None = None  # a whole request in ``api``'s shape (--request)
    api: str | None = None  # chat, responses, messages; None: the recording's, else chat
    plugins: tuple[str, ...] = ()
    allow_callables: tuple[str, ...] = ()
    chat_template: str | None = None  # a --chat-template FILE's text
    chat_template_file: str | None = None  # its path (the header keeps its name and sha256)
    trust_template: bool = False
    chunking: str | None = None  # a --chunking name; None: the recording's deltas, a text's tokens
    finish_reason: str | None = None  # how a text ends (stop by default)
    force: bool = False  # another tokenizer, or text its ids disown: a note, not a refusal
    vllm: str | None = None  # a lane's version; None: the installed vLLM

    def __post_init__(self) -> None:
        given = [n for n in ("text", "recording") if getattr(self, n) is not None]
        if len(given) > 1:
            raise WorkbenchError("give a recording or --text/--text-file, not both")
        if self.recording is not None and self.deltas is not None:
            raise WorkbenchError("give a recording or --deltas, not both")
        if self.deltas is not None and self.chunking:
            raise WorkbenchError("--deltas gives the grouping itself: drop --chunking")
        unknown = set(self.request) - set(REQUEST_FIELDS)
        if unknown:
            raise WorkbenchError(f"run spec: unknown request field(s) {', '.join(sorted(unknown))}")

    @property
    def source(self) -> str:
        """'recording', 'deltas', 'text' or '' (nothing to run)."""
        return ("recording" if self.recording is not None else "deltas" if self.deltas is not None
                else "text" if self.text is not None else "")

    def to_dict(self) -> dict:
        """JSON-safe; ``from_dict`` gives back an equal spec."""
        d = asdict(self)
        d["parser"] = self.parser.to_dict() if self.parser is not None else None
        for name in ("deltas", "plugins", "allow_callables"):
            if d[name] is not None:
                d[name] = [list(v) if isinstance(v, (list, tuple)) else v for v in d[name]]
        return d

    @classmethod
    def from_dict(cls, data: dict) -> RunSpec:
        if not isinstance(data, dict):
            raise WorkbenchError("run spec: expected a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise WorkbenchError(f"run spec: unknown field(s) {', '.join(sorted(unknown))}")
        kw = dict(data)
        if kw.get("parser") is not None:
            kw["parser"] = ParserSpec(**kw["parser"])
        if kw.get("deltas") is not None:
            kw["deltas"] = tuple(tuple(d) if isinstance(d, list) else d for d in kw["deltas"])
        for name in ("plugins", "allow_callables"):
            kw[name] = tuple(kw.get(name) or ())
        kw["request"] = dict(kw.get("request") or {})
        return cls(**kw)

    def with_(self, **changes: Any) -> RunSpec:
        return replace(self, **changes)
