"""A Rust-frontend exchange as the workbench's rows: one per delta, its SSE events as sent.

A row holds the events the frontend wrote while it dealt with that delta's engine output
(``raw``, byte for byte: the rows' events joined are the body); the head (before the
first output) goes with the first row, the tail (after the last) with the last, as a
Python row carries the opening and usage chunks. What the row says of the message
(``delta``: reasoning, content, tool-call deltas; ``finish_reason``) is read from those
events' JSON and from nothing else: a Chat Completions chunk's ``delta``, a Responses
event's text or arguments delta. A delta with no event has none (``sse`` False).

The frontend's parser state is not visible from outside the binary, so a row's phase is
blank; its ``parser_us`` is the frontend's whole time for that engine output.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from workbench.core.machine import Kind, Phase
from workbench.core.messages import MessageDelta, ToolCallDelta
from workbench.core.rows import Row
from workbench.rustfe import sse

if TYPE_CHECKING:
    from workbench.core.deltas import Delta
    from workbench.rustfe.core import Exchange

UNSEEN = Phase.of("", Kind.OTHER)  # the binary's parser state: not observable


@dataclass(slots=True)
class RustRow(Row):
    raw: list[str] = field(default_factory=list)  # the SSE events, exactly as written

    @property
    def chunks(self) -> list[str]:  # type: ignore[override]
        """Every event's data (JSON text) for this delta, in order ([DONE] left out)."""
        return [e.data for e in map(sse.parse_event, self.raw) if e.json and e.data is not None]

    @property
    def chunk(self) -> str | None:  # type: ignore[override]
        """This delta's own chunk; several as one JSON array (the frontend splits a parser
        step into one chunk per event)."""
        own = [c for c in self.chunks if not _opening(c)]
        if not own:
            return None
        return own[0] if len(own) == 1 else "[" + ",".join(own) + "]"

    def to_dict(self, chunk: bool = True) -> dict:
        d = Row.to_dict(self, chunk)
        d["raw"] = list(self.raw)
        return d


def _load(data: str) -> Any:
    from workbench.core import door

    return door.parse_json(data, "a vllm-rs SSE event")


def _opening(data: str) -> bool:
    return _is_opening(_load(data))


def _is_opening(obj: Any) -> bool:
    """The chat stream's first chunk: the assistant role and nothing else."""
    choices = obj.get("choices") if isinstance(obj, dict) else None
    if not choices or not isinstance(choices[0], dict):
        return False
    delta = choices[0].get("delta") or {}
    return set(delta) == {"role"}


def _chat_delta(objs: list[dict]) -> tuple[MessageDelta | None, str | None, str | None]:
    """(the merged delta, finish_reason, error) of one step's chat chunks."""
    reasoning: list[str] | None = None
    content: list[str] | None = None
    calls: list[ToolCallDelta] = []
    finish = error = None
    seen = False
    for obj in objs:
        if "error" in obj:
            err = obj["error"]
            error = str(err.get("message") if isinstance(err, dict) else err)
            continue
        for choice in obj.get("choices") or ():
            delta = choice.get("delta") or {}
            finish = choice.get("finish_reason") or finish
            if set(delta) == {"role"} and choice.get("finish_reason") is None:
                continue
            seen = True
            r = delta.get("reasoning", delta.get("reasoning_content"))
            if r is not None:
                reasoning = (reasoning or []) + [r]
            if delta.get("content") is not None:
                content = (content or []) + [delta["content"]]
            for tc in delta.get("tool_calls") or ():
                fn = tc.get("function") or {}
                calls.append(ToolCallDelta(tc.get("index", 0), tc.get("id"), tc.get("type"),
                                           fn.get("name"), fn.get("arguments")))
    if not seen:
        return None, finish, error
    join = lambda parts: None if parts is None else "".join(parts)  # noqa: E731
    return MessageDelta(join(reasoning), join(content), tuple(calls)), finish, error


RESPONSES_TEXT = {"response.reasoning_text.delta": "reasoning", "response.output_text.delta": "content"}


def _responses_delta(objs: list[dict], numbers: dict | None = None
                     ) -> tuple[MessageDelta | None, str | None, str | None]:
    """The same for Responses events: text deltas, and function calls numbered in the order
    their items opened (``numbers``: output index -> call number, kept across the rows), as
    a chat client numbers them."""
    numbers = {} if numbers is None else numbers
    parts: dict[str, list[str]] = {}
    calls: list[ToolCallDelta] = []
    finish = error = None
    seen = False
    for obj in objs:
        kind = obj.get("type")
        if kind in RESPONSES_TEXT and isinstance(obj.get("delta"), str):
            parts.setdefault(RESPONSES_TEXT[kind], []).append(obj["delta"])
            seen = True
        elif kind == "response.output_item.added" and (obj.get("item") or {}).get("type") == "function_call":
            item = obj["item"]
            number = numbers.setdefault(obj.get("output_index", 0), len(numbers))
            calls.append(ToolCallDelta(number, item.get("call_id"), "function",
                                       item.get("name"), item.get("arguments") or None))
            seen = True
        elif kind == "response.function_call_arguments.delta":
            number = numbers.setdefault(obj.get("output_index", 0), len(numbers))
            calls.append(ToolCallDelta(number, None, None, None, obj.get("delta")))
            seen = True
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            status = (obj.get("response") or {}).get("status")
            finish = {"completed": "stop", "incomplete": "length"}.get(status, status)
        elif kind == "error" or "error" in obj and kind is None:
            err = obj.get("error") or obj
            error = str(err.get("message") if isinstance(err, dict) else err)
    if not seen:
        return None, finish, error
    return MessageDelta("".join(parts["reasoning"]) if "reasoning" in parts else None,
                        "".join(parts["content"]) if "content" in parts else None, tuple(calls)), finish, error


def rows_of(ex: Exchange, deltas: Sequence[Delta], api: str,
            token_texts: Any = None) -> tuple[list[RustRow], list[str]]:
    """(one row per delta, notes) for a streamed exchange; ``token_texts(ids)`` names the
    tokens (the tokenizer's)."""
    from workbench.rustfe.finals import body_json, error_of

    if ex.status != 200:  # refused: its JSON error body, no stream
        refused = error_of(body_json(ex.body), ex.status) or f"HTTP {ex.status}"
        return [RustRow(step=i + 1, token_ids=list(d.token_ids),
                        tokens=token_texts(list(d.token_ids)) if token_texts else [], text=d.text,
                        phase_before=UNSEEN, phase=UNSEEN, delta=None, sse=False,
                        error=refused if i == 0 else None,
                        raw=[ex.body.decode("utf-8", "replace")] if i == 0 else [])
                for i, d in enumerate(deltas)], [f"vllm-rs refused the request: {refused}"]
    split = sse.per_step(ex)
    notes = list(split.notes)
    numbers: dict = {}
    read = (lambda objs: _responses_delta(objs, numbers)) if api == "responses" else _chat_delta
    rows = []
    last = len(ex.steps) - 1
    for i, (step, d) in enumerate(zip(ex.steps, deltas)):
        events = (split.head if i == 0 else []) + split.steps[i] + (split.tail if i == last else [])
        objs = {id(e): _load(e.data) for e in events if e.json and e.data is not None}
        own = [objs[id(e)] for e in split.steps[i] if id(e) in objs]
        delta, finish, error = read([o for o in objs.values() if isinstance(o, dict)])
        rows.append(RustRow(
            step=i + 1, token_ids=list(step.token_ids),
            tokens=token_texts(list(step.token_ids)) if token_texts else [],
            text=d.text, phase_before=UNSEEN, phase=UNSEEN, delta=delta,
            sse=any(not _is_opening(o) for o in own) if api == "chat" else bool(own),
            finish_reason=finish, error=error, parser_us=step.seconds * 1e6,
            raw=[e.raw for e in events]))
    unsent = sum(1 for s in ex.steps if not s.sent)
    if unsent:
        notes.append(f"the frontend closed the response before the last {unsent} engine output(s)")
    return rows, notes
