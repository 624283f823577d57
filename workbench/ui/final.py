"""Streaming vs non-streaming final messages: field differences and the first
divergent step (widget-free).

The streamed message is what a client gets by joining every SSE chunk; the
non-streaming one is ``parse`` on the whole text. A step *diverges* when the
joined stream stops being a prefix of the non-streaming field (or, at the end,
when it falls short of it).
"""

from __future__ import annotations

import difflib
import html
import json
from dataclasses import dataclass

from workbench.core.rows import Row

FIELDS = ("reasoning", "content", "tool_calls", "finish_reason")


@dataclass
class FieldDiff:
    field: str
    stream: str
    nonstream: str
    equal: bool
    first_step: int | None = None  # the first step whose chunk made them differ


def _calls_text(calls: list[dict]) -> str:
    return "\n".join(f"#{i} {c.get('name')}({c.get('arguments') or ''})" for i, c in enumerate(calls))


def _same_json(a: str | None, b: str | None) -> bool:
    try:
        return json.loads(a or "null") == json.loads(b or "null")
    except (TypeError, ValueError):
        return (a or "") == (b or "")


def _calls_equal(s: list[dict], n: list[dict]) -> bool:
    return len(s) == len(n) and all(
        a.get("name") == b.get("name") and _same_json(a.get("arguments"), b.get("arguments"))
        for a, b in zip(s, n))


def _text_divergence(rows: list[Row], field: str, target: str) -> int | None:
    acc, last = "", None
    for r in rows:
        if not r.sse or not r.delta:
            continue
        piece = r.delta.get(field) or ""
        if piece:
            acc += piece
            last = r.step
            if not target.startswith(acc):
                return r.step
    if acc != target:
        return rows[-1].step if rows else None
    return None


def _calls_divergence(rows: list[Row], target: list[dict]) -> int | None:
    acc: dict[int, dict] = {}
    for r in rows:
        if not r.sse:
            continue
        for tc in r.tool_calls:
            i = tc["index"]
            slot = acc.setdefault(i, {"name": "", "arguments": ""})
            slot["name"] += tc.get("name") or ""
            slot["arguments"] += tc.get("arguments") or ""
            want = target[i] if i < len(target) else None
            if want is None or not (want.get("name") or "").startswith(slot["name"]):
                return r.step
            if not (want.get("arguments") or "").startswith(slot["arguments"]) and \
                    not _same_json(want.get("arguments"), slot["arguments"]):
                return r.step
    streamed = [acc[i] for i in sorted(acc)]
    if not _calls_equal(streamed, target):
        return rows[-1].step if rows else None
    return None


def compare(rows: list[Row], stream: dict, nonstream: dict) -> list[FieldDiff]:
    """One FieldDiff per message field (tool arguments compared as JSON)."""
    out = []
    for f in FIELDS:
        s, n = stream.get(f), nonstream.get(f)
        if f == "tool_calls":
            s, n = s or [], n or []
            equal = _calls_equal(s, n)
            first = None if equal else _calls_divergence(rows, n)
            out.append(FieldDiff(f, _calls_text(s), _calls_text(n), equal, first))
        elif f == "finish_reason":
            out.append(FieldDiff(f, str(s), str(n), s == n, None if s == n else
                                 (rows[-1].step if rows else None)))
        else:
            equal = (s or "") == (n or "")
            first = None if equal else _text_divergence(rows, f, n or "")
            out.append(FieldDiff(f, "" if s is None else s, "" if n is None else n, equal, first))
    return out


def first_divergent_step(diffs: list[FieldDiff]) -> int | None:
    steps = [d.first_step for d in diffs if d.first_step is not None]
    return min(steps) if steps else None


def inline_diff_html(a: str, b: str) -> tuple[str, str]:
    """(a, b) as HTML with the differing spans highlighted."""
    sm = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        sa, sb = html.escape(a[i1:i2]), html.escape(b[j1:j2])
        if op == "equal":
            out_a.append(sa)
            out_b.append(sb)
        else:
            if sa:
                out_a.append(f'<mark style="background:#ffab91">{sa}</mark>')
            if sb:
                out_b.append(f'<mark style="background:#a5d6a7">{sb}</mark>')
    return "".join(out_a), "".join(out_b)
