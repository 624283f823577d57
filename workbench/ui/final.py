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

from workbench.check import props
from workbench.check.compare import final_of, steps_of
from workbench.core.messages import FIELDS, FINAL, Difference
from workbench.core.rows import Row

if TYPE_CHECKING:
    from typing import Any


def as_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _calls_text(calls: list[dict]) -> str:
    """One JSON object per call and line: name and arguments (ids are random per run)."""
    return "\n".join(as_json({"name": c.get("name"), "arguments": c.get("arguments")}) for c in calls)


def compare(rows: list[Row], stream, nonstream) -> list[Difference]:
    """One Difference per message field (kind "final": a and b as display text), judged by
    the same properties as `workbench check` (tool arguments compared as parsed JSON;
    whitespace-only differences are cosmetic, severity None: equal)."""
    final, reference = final_of(stream).to_dict(), final_of(nonstream).to_dict()
    diffs = props.differences(final, reference)
    steps = steps_of(rows)
    out = []
    for f in FIELDS:
        severity = diffs.get(f)
        first = None
        if severity is not None:
            first = (rows[-1].step if rows else None) if f == "finish_reason" else \
                props.first_step(steps, reference, f, raw=severity == "cosmetic")
        if f == "tool_calls":
            s, n = _calls_text(final[f]), _calls_text(reference[f])
        else:
            s, n = as_json(final.get(f)), as_json(reference.get(f))
        out.append(Difference(FINAL, f, first, s, n, severity))
    return out


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
