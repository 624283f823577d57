"""Streaming vs non-streaming final messages: field differences and the first
divergent step, and the schema of the final tab's field-by-field table (widget-free).

The streamed message is what a client gets by joining every SSE chunk; the
non-streaming one is ``parse`` on the whole text. A step *diverges* when the
joined stream stops being a prefix of the non-streaming field (or, at the end,
when it falls short of it). Values are shown as JSON (so ``null`` and ``""``
differ, and ``"\\n\\n"`` is visible).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.check import compare as check_compare
from workbench.core.messages import FINAL, Difference, Final
from workbench.core.rows import LABEL, Column, Row

if TYPE_CHECKING:
    from typing import Any


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def shown(d: Difference) -> tuple[str, str]:
    """(stream, non-stream) of one field as display text: JSON values; tool calls one JSON
    object per call and line, name and arguments (ids are random per run)."""
    if d.field == "tool_calls":
        return tuple("\n".join(as_json(c) for c in side) if side else "[]" for side in (d.a, d.b))
    return as_json(d.a), as_json(d.b)


def compare(rows, stream, nonstream) -> list[Difference]:
    """One Difference per message field (kind "final", equal ones included), judged as
    `workbench check` judges them (tool arguments compared as parsed JSON; whitespace-only
    differences are cosmetic)."""
    return check_compare.against(rows, stream, nonstream, FINAL, "", "non-stream", equal=True)


def content_note(rows: list[Row], stream: dict | object) -> str | None:
    """Where the joined stream's content differs from a bare parse_delta loop's: the server's
    opening role chunk carries content "", so a client holds "" where the parser sent none."""
    from workbench.check.compare import parser_loop_content

    content = (stream.get("content") if isinstance(stream, dict) else getattr(stream, "content", None))
    if content == "" and parser_loop_content(rows) is None:
        return ('streaming content "" is the server\'s opening role chunk (role "assistant", content ""); '
                "the parser itself sent no content (a bare parse_delta loop ends with null)")
    return None


def first_divergent_step(diffs: list[Difference]) -> int | None:
    steps = [d.first_step for d in diffs if d.first_step is not None]
    return min(steps) if steps else None


def verdict(d: Difference) -> str:
    """One field's verdict: equal, only whitespace apart (as `check` calls it: cosmetic, no
    finding), or how it differs and from which step."""
    if d.equal:
        return "✓ equal"
    if d.severity == "cosmetic":
        return "≈ whitespace only (cosmetic)"
    return "✗ differs" + (f" from step {d.first_step}" if d.first_step else "")


def _json(side: int) -> Callable[[Difference], str]:
    return lambda d: shown(d)[side]


# the final tab's field-by-field table (the table component: ui.final_panel)
FIELD_COLUMNS: tuple[Column, ...] = (
    Column("field", "field", "the message field", lambda d: d.field, LABEL, width=80, grow=0, fit=120),
    Column("stream", "streaming (joined SSE chunks)", "what a client holds after joining every SSE chunk, "
           "as JSON (null: none; tool calls: one per line, ids aside)", _json(0), LABEL, width=160, grow=1),
    Column("nonstream", "non-streaming (whole-text parse)", "the parser's parse() on the whole "
           "text, as JSON", _json(1), LABEL, width=160, grow=1),
    Column("verdict", "verdict", "equal, or differs (cosmetic: whitespace only) from the first divergent step",
           verdict, LABEL, width=80, grow=0, fit=240),
)


def field_records(diffs: list[Difference]) -> list[dict]:
    """FIELD_COLUMNS' records (``key`` "n"): a differing field's row is marked ``changed``."""
    return [{"n": i, **{c.name: c.shown_value(d) for c in FIELD_COLUMNS}, "_c": "" if d.equal else "changed"}
            for i, d in enumerate(diffs, 1)]


@dataclass(frozen=True)
class FinalView:
    """The end of a stream: what the client joined, the non-streaming answer, their
    field differences and the first divergent step; every API's finals once made (by the
    controller, ``transitions.seen``, or a click on a long stream: ``transitions.every_api``),
    or why they failed."""

    stream: Final
    nonstream: Final
    diffs: list[Difference]
    first_step: int | None
    notes: list[str] = field(default_factory=list)
    apis: list | None = None  # faces_view.ApiFinal per API
    apis_failed: BaseException | None = None


def rows_changed(old: list[Row], new: list[Row]) -> set[int]:
    """Steps whose visible outcome differs between two runs of one stream (the random
    tool-call ids each run draws anew are not a difference)."""
    from workbench.core.diff import normalise

    def key(r: Row):
        delta = normalise(r.delta.to_dict()) if r.delta is not None else None
        return (r.phase_before, r.phase, delta, r.sse, r.finish_reason, r.error)
    changed = {n.step for o, n in zip(old, new) if key(o) != key(n)}
    longer = old if len(old) > len(new) else new
    changed.update(r.step for r in longer[min(len(old), len(new)):])
    return changed
