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
from typing import TYPE_CHECKING

from workbench.check import compare as check_compare
from workbench.core.messages import FINAL, Difference
from workbench.core.rows import Row

if TYPE_CHECKING:
    from typing import Any


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def shown(d: Difference) -> tuple[str, str]:
    """(stream, non-stream) of one field as display text: JSON values; tool calls one JSON
    object per call and line, name and arguments (ids are random per run)."""
    if d.field == "tool_calls":
        return tuple("\n".join(as_json(c) for c in side) for side in (d.a, d.b))
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
                out_a.append(f'<mark style="background:#ffab91">{sa}</mark>')
            if sb:
                out_b.append(f'<mark style="background:#a5d6a7">{sb}</mark>')
    return "".join(out_a), "".join(out_b)
