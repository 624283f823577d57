"""A server's Responses or Anthropic Messages event, checked once before anything reads it.

``parse(api, name, data)`` is the one place that trusts an event's shape, as
``chunks.parse`` is for chat chunks: capture, ``--from-sse`` and the replay of a stored
capture all read events through it. An event is kept exactly as sent (``sse``: its
``event:`` and ``data:`` lines); what the workbench reads of it (type, the text of a
delta, the ids of a Responses ``response.completed`` asked with
``enable_response_messages``, the finish) is checked here, so a hostile or forged event
is one line naming what is wrong, never a traceback and never a recording its loader
refuses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.capture.chunks import is_ids, loads, snippet
from workbench.core import limits, secrets
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from typing import Any

TERMINAL = {"responses": ("response.completed", "response.incomplete", "response.failed", "error"),
            "messages": ("message_stop", "error")}
# Where each API's events carry text and the fields whose types the workbench reads.
TEXT_KEYS = ("delta", "text", "arguments", "thinking", "partial_json", "signature", "name", "call_id")
INT_KEYS = ("sequence_number", "output_index", "content_index", "index")
# The text a client shows, by event (Responses) or delta type (Anthropic): reasoning or content.
VISIBLE = {"response.reasoning_text.delta": "reasoning", "response.output_text.delta": "content",
           "thinking_delta": "reasoning", "text_delta": "content"}
FINISH = {"responses": {"completed": "stop", "incomplete": "length", "failed": "error"},
          "messages": {"end_turn": "stop", "tool_use": "stop", "stop_sequence": "stop", "pause_turn": "stop",
                       "refusal": "stop", "max_tokens": "length"}}


@dataclass(frozen=True)
class Event:
    name: str | None  # the ``event:`` line (None when the server sent none)
    data: str  # the ``data:`` payload exactly as sent
    obj: dict
    type: str

    @property
    def sse(self) -> str:
        """The event as the server wrote it (vLLM writes ``event: T`` then ``data: JSON``)."""
        head = f"event: {self.name}\n" if self.name is not None else ""
        return f"{head}data: {self.data}\n\n"

    @property
    def error(self) -> str | None:
        if self.type != "error" and "error" not in self.obj:
            return None
        err = self.obj.get("error", self.obj)
        msg = err.get("message") if isinstance(err, dict) else err
        return " ".join(secrets.scrub(str(msg if msg is not None else err)).split())[:300]

    def visible(self) -> tuple[str, str] | None:
        """("reasoning" | "content", text) when the event adds text a client shows."""
        if self.type in VISIBLE:
            return VISIBLE[self.type], self.obj.get("delta") or ""
        delta = self.obj.get("delta")
        if self.type == "content_block_delta" and isinstance(delta, dict) and delta.get("type") in VISIBLE:
            return VISIBLE[delta["type"]], delta.get(delta["type"].removesuffix("_delta")) or ""
        return None


def _check_fields(obj: dict, what: str, depth: int = 0) -> None:
    """The fields the workbench reads have the types it reads them as, at any depth."""
    for k, v in obj.items():
        if k in TEXT_KEYS and v is not None and not isinstance(v, (str, dict)):
            raise WorkbenchError(f"{what}: {k} must be a string, got {snippet(repr(v), 40)}")
        if k in INT_KEYS and v is not None and type(v) is not int:
            raise WorkbenchError(f"{what}: {k} must be an integer, got {snippet(repr(v), 40)}")
        if isinstance(v, dict):
            _check_fields(v, what, depth + 1)
        elif isinstance(v, list):
            for x in v:
                if isinstance(x, dict):
                    _check_fields(x, what, depth + 1)


def parse(api: str, name: str | None, data: str, what: str = "the server's event") -> Event:
    obj = loads(data, what)
    if not isinstance(obj, dict):
        raise WorkbenchError(f"{what} is not a JSON object: {snippet(data)}")
    kind = obj.get("type")
    if not isinstance(kind, str) or not kind:
        raise WorkbenchError(f"{what} has no type: {snippet(data)}")
    if name is not None and name != kind and kind != "error":
        raise WorkbenchError(f"{what}: its event line says {snippet(name, 40)} but its data is a "
                             f"{snippet(kind, 40)}")
    prefix = "response." if api == "responses" else ("message_", "content_block_", "ping")
    if kind != "error" and not kind.startswith(prefix):
        raise WorkbenchError(f"{what}: {snippet(kind, 40)} is not a{' Responses' if api == 'responses' else 'n Anthropic'}"
                             f" event (is the server's endpoint the --api one?)")
    _check_fields(obj, what)
    objects = ("response", "item", "part") if api == "responses" else ("message", "content_block", "delta", "usage")
    for key in objects:
        if obj.get(key) is not None and not isinstance(obj[key], dict):
            raise WorkbenchError(f"{what}: {key} must be an object")
    return Event(name, data, obj, kind)


def finish(api: str, terminal: Event | None) -> str:
    """The engine's finish reason behind the stream's last event ("error" for a cut)."""
    if terminal is None or terminal.error is not None:
        return "error"
    if api == "responses":
        status = (terminal.obj.get("response") or {}).get("status")
        return FINISH["responses"].get(status, "stop") if isinstance(status, str) else "stop"
    return "stop"


def stop_reason(events: list[Event]) -> str:
    """messages: the finish behind ``message_delta``'s stop_reason."""
    for e in reversed(events):
        if e.type == "message_delta":
            reason = (e.obj.get("delta") or {}).get("stop_reason")
            return FINISH["messages"].get(reason, "stop") if isinstance(reason, str) else "stop"
    return "stop"


def raw_tokens(terminal: Event | None) -> tuple[list[int] | None, list[int] | None]:
    """(prompt ids, output ids) of a Responses ``response.completed`` asked with
    ``enable_response_messages`` (the simple path: one raw message each); None when absent."""
    response = (terminal.obj.get("response") or {}) if terminal is not None else {}

    def tokens(key: str, cap: int) -> list[int] | None:
        messages = response.get(key)
        if not isinstance(messages, list) or len(messages) != 1 or not isinstance(messages[0], dict):
            return None
        ids = messages[0].get("tokens")
        if ids is None:
            return None
        if not (is_ids(ids) and len(ids) <= cap):
            raise WorkbenchError(f"the server's response.completed: {key}[0].tokens must be a list of at "
                                 f"most {cap:,} token ids (ints >= 0)")
        return list(ids)

    return tokens("input_messages", limits.MAX_PROMPT_IDS), tokens("output_messages", limits.MAX_DELTAS)


def visible_text(events: list[Event]) -> str:
    return "".join(v[1] for e in events if (v := e.visible()) is not None)


def kept(value: Any) -> Any:
    """What a recording keeps of events: their SSE text, in order."""
    return [e.sse for e in value]
