"""Streaming vs non-streaming final messages: field differences and the first
divergent step (widget-free).

The streamed message is what a client gets by joining every SSE chunk; the
non-streaming one is ``parse`` on the whole text. A step *diverges* when the
joined stream stops being a prefix of the non-streaming field (or, at the end,
when it falls short of it). Values are shown as JSON (so ``null`` and ``""``
differ, and ``"\\n\\n"`` is visible), diffs are word by word.
"""

from __future__ import annotations

import difflib
import html
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.check import compare as check_compare
from workbench.core.messages import FINAL, Difference, Final
from workbench.core.rows import Row

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


_WORDS = re.compile(r"\w+|\\[nrt\"\\]|\s+|[^\w\s]")


def words(text: str) -> list[str]:
    """Words, JSON escapes, runs of whitespace and single punctuation marks."""
    return _WORDS.findall(text)


# the marks are tints of the theme's error and success colours: readable in Light and Dark
MARK_A = ("background:color-mix(in srgb, var(--jp-error-color1, #d32f2f) 30%, var(--jp-layout-color0, #fff));"
          "color:var(--jp-content-font-color1, #000)")
MARK_B = ("background:color-mix(in srgb, var(--jp-success-color1, #388e3c) 30%, var(--jp-layout-color0, #fff));"
          "color:var(--jp-content-font-color1, #000)")


def inline_diff_html(a: str, b: str) -> tuple[str, str]:
    """(a, b) as HTML with the differing words highlighted (never letters inside a word)."""
    wa, wb = words(a), words(b)
    sm = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        sa, sb = html.escape("".join(wa[i1:i2])), html.escape("".join(wb[j1:j2]))
        if op == "equal":
            out_a.append(sa)
            out_b.append(sb)
        else:
            if sa:
                out_a.append(f'<mark style="{MARK_A}">{sa}</mark>')
            if sb:
                out_b.append(f'<mark style="{MARK_B}">{sb}</mark>')
    return "".join(out_a), "".join(out_b)


@dataclass
class FinalView:
    """The end of a stream: what the client joined, the non-streaming answer, their
    field differences and the first divergent step; check findings once run."""

    stream: Final
    nonstream: Final
    diffs: list[Difference]
    first_step: int | None
    notes: list[str] = field(default_factory=list)
    findings: list[Difference] | None = None
    apis: list | None = None  # faces_view.ApiFinal per API, made when first shown


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
