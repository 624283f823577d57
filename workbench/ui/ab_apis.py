"""A/B over two APIs (widget-free): one stream, two clients (Chat Completions, Responses,
Anthropic Messages), each side through a session built for its API and its own parser
spec (vLLM hands the parser that API's own request object).

The comparison is ``core.diff.compare`` with each side's API face: a step differs when
what the two clients receive for it differs (``core.faces.visible``), the finals are
what each client ends with and each API's non-streaming body. This module only builds
the sides and says, per row, which events each side's API sent (the ``events`` column).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from workbench.core.rows import COLUMNS, LABEL, Column

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.core.diff import DiffResult
    from workbench.core.faces.face import Face
    from workbench.core.parsers import ParserSpec
    from workbench.core.session import Result, Session, Setup

EVENTS = Column("events", "events", "the SSE events this delta produced on this side's API",
                lambda r: None, LABEL, width=180, grow=3)
# a Responses or Messages side shows its events; the DeltaMessage columns are a click away (columns ▾);
# the grammar's view, vLLM's log lines and an exception's text are prose (no ␣ between words)
API_COLUMNS = tuple(replace(c, shown=False) if c.name in ("text", "reasoning", "content", "tool_calls", "sse")
                    else replace(c, kind=LABEL) if c.name in ("grammar", "logs", "error")
                    else c for c in COLUMNS) + (EVENTS,)


@dataclass
class Side:
    label: str
    api: str
    session: Session
    result: Result
    face: Face | None  # None for chat

    def events(self, index: int) -> list[dict]:
        return self.face.row_events(index) if self.face is not None else []


def side(setup: Setup, spec: ParserSpec, api: str, deltas: list[Delta], label: str,
         prompt_token_ids: list[int] | None) -> Side:
    from workbench.core import faces
    from workbench.core.session import Session

    s = Session(replace(setup, parser=spec, api=api, api_request=None, request=replace(setup.request)),
                prompt_token_ids=prompt_token_ids)
    result = s.replay(list(deltas))
    return Side(label, api, s, result, faces.run(s, result) if api != "chat" else None)


def compare(a: Side, b: Side) -> DiffResult:
    from workbench.core import diff

    return diff.compare(a.result, b.result, a.label, b.label, a.face, b.face)


def events_cell(events: list[dict]) -> str | None:
    from workbench.ui.faces_view import summary

    return " · ".join(summary(e) for e in events) or None


def label(text: str, spec) -> str:
    """What a spec is called in the A/B panel: "hermes+qwen3", "+qwen3", "hermes",
    "parsers/qwen3.toml" (as typed, relative to the repository), "editor config" or
    "editor plugin" (``spec`` None: the editor's plugin)."""
    if text == "editor":
        return "editor plugin" if spec is None else "editor config"
    if spec.config:
        from pathlib import Path

        from workbench.ui.inputs import REPO

        p = Path(spec.config)
        return str(p.relative_to(REPO)) if p.is_relative_to(REPO) else str(p)
    names = (spec.tool_parser or "", spec.reasoning_parser or "")
    return "+".join(names) if names[1] else names[0] or "no parser"
