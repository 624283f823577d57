"""A server's chunk, checked once before anything reads it.

``parse(raw)`` is the one place that trusts a chat.completion.chunk's shape: capture,
the widget's server source, ``--from-sse`` and replay's comparison of a stored capture
all read chunks through it, so a hostile or forged chunk (``choices: ["x"]``,
``token_ids: "abc"``, float ids, an unknown finish_reason, NaN) is one line naming what
is wrong, never a traceback and never a recording its loader refuses. ``read_all`` reads a
capture's chunks through it (with a ``Progress`` line), all before any is written.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core import door, limits, secrets
from workbench.core.recording import FINISH_REASONS
from workbench.core.writing import terminal
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

TEXT_FIELDS = ("role", "content", "reasoning", "reasoning_content", "refusal")


def snippet(text: str, n: int = 80) -> str:
    """Server text quoted in a message: secrets out before it is cut (half a key is a leak)."""
    return repr(secrets.scrub(str(text))[:n])


def loads(text: str, what: str):
    """The reading door's strict JSON (no NaN, depth and digits capped), one line on failure."""
    return door.parse_json(text, what)


def is_ids(v: Any) -> bool:
    return isinstance(v, list) and all(type(i) is int and i >= 0 for i in v)


@dataclass(frozen=True)
class Chunk:
    raw: str
    obj: dict
    choices: list[dict]
    token_ids: list[int]  # choices[0].token_ids ([] when absent)
    finish_reason: str | None  # the engine's (the client's "tool_calls" is "stop")
    error: str | None  # an error chunk's message
    prompt_token_ids: list[int] | None

    @property
    def delta(self) -> dict:
        return (self.choices[0].get("delta") or {}) if self.choices else {}


def engine_finish(finish: str | None) -> str | None:
    """The engine's finish reason behind the client's ("tool_calls" is the server's "stop")."""
    return "stop" if finish == "tool_calls" else finish


def parse(raw: str, what: str = "the server's chunk") -> Chunk:
    obj = loads(raw, what)
    if not isinstance(obj, dict):
        raise WorkbenchError(f"{what} is not a JSON object: {snippet(raw)}")
    error = obj.get("error")
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        error = " ".join(secrets.scrub(str(message if message is not None else error)).split())[:300]
    choices = obj.get("choices")
    choices = [] if choices is None else choices
    if not isinstance(choices, list) or not all(isinstance(c, dict) for c in choices):
        raise WorkbenchError(f"{what}: choices must be a list of objects: {snippet(raw)}")
    if len(choices) > 1:
        raise WorkbenchError(f"{what} has {len(choices)} choices; capture handles one (n=1)")
    ids, finish = [], None
    if choices:
        ids, finish = _choice(choices[0], what, raw)
    prompt = obj.get("prompt_token_ids")
    if prompt is not None and not (is_ids(prompt) and len(prompt) <= limits.MAX_PROMPT_IDS):
        raise WorkbenchError(f"{what}: prompt_token_ids must be a list of at most "
                             f"{limits.MAX_PROMPT_IDS:,} token ids (ints >= 0)")
    if obj.get("usage") is not None and not isinstance(obj["usage"], dict):
        raise WorkbenchError(f"{what}: usage must be an object")
    return Chunk(raw, obj, choices, ids, finish, error, prompt)


def _choice(choice: dict, what: str, raw: str) -> tuple[list[int], str | None]:
    index = choice.get("index", 0)
    if index != 0 or isinstance(index, bool):  # another choice's chunk read as this one's: silently wrong
        raise WorkbenchError(f"{what}: choices[0].index is {json.dumps(index)[:20]}: capture reads one "
                             "choice (n=1), index 0")
    delta = choice.get("delta")
    if delta is not None:
        if not isinstance(delta, dict):
            raise WorkbenchError(f"{what}: choices[0].delta must be an object: {snippet(raw)}")
        for k in TEXT_FIELDS:
            if delta.get(k) is not None and not isinstance(delta[k], str):
                raise WorkbenchError(f"{what}: delta.{k} must be a string or null")
        calls = delta.get("tool_calls")
        if calls is not None and not (isinstance(calls, list) and all(
                isinstance(c, dict) and isinstance(c.get("function") or {}, dict) for c in calls)):
            raise WorkbenchError(f"{what}: delta.tool_calls must be a list of objects")
    ids = choice.get("token_ids")
    ids = [] if ids is None else ids
    if not is_ids(ids):
        raise WorkbenchError(f"{what}: token_ids must be a list of token ids (ints >= 0), got "
                             f"{snippet(json.dumps(choice.get('token_ids')), 40)}")
    finish = choice.get("finish_reason")
    if finish is not None and engine_finish(finish) not in FINISH_REASONS:
        raise WorkbenchError(f"{what}: finish_reason {snippet(str(finish), 40)} is not one of vLLM's "
                             f"({', '.join(FINISH_REASONS)}, tool_calls)")
    return ids, engine_finish(finish)


def read_all(it: Iterator[str], progress: Progress) -> tuple[list[Chunk], str | None]:
    """The chunks after the opening one, each checked, within the stream's caps and clock;
    and why the stream stopped early (None when it ended). All of it is read before a line
    is written: a secret spelled over several chunks is only seen joined."""
    got: list[Chunk] = []
    tokens = 0
    try:
        for n, raw in enumerate(it, 2):
            got.append(parse(raw, f"the server's chunk {n}"))
            tokens += len(got[-1].token_ids)
            progress.show(len(got), tokens)
            if got[-1].error and not got[-1].choices:
                break  # the server's error: nothing after it is read
    except WorkbenchError as e:
        return got, str(e)
    finally:
        progress.end(len(got), tokens)
    return got, None


class Progress:
    """One self-overwriting line on stderr while the stream runs, on a terminal only (in a
    log it would be one more line beside the one a failure prints)."""

    def __init__(self, on: bool) -> None:
        self.on = on and sys.stderr.isatty()
        self.t0, self.last = time.perf_counter(), 0.0

    def show(self, n: int, tokens: int) -> None:
        now = time.perf_counter()
        if self.on and now - self.last >= 0.2:
            self.last = now
            terminal.progress(sys.stderr, "capture: {} chunks, {} tokens, {:.1f} s", n, tokens, now - self.t0)

    def end(self, n: int, tokens: int) -> None:
        if self.on and self.last:
            terminal.progress(sys.stderr, "capture: {} chunks, {} tokens, {:.1f} s", n, tokens,
                              time.perf_counter() - self.t0)
            terminal.progress_end(sys.stderr)
