"""What the model's text itself says, for the doctor: is a call left open at the end,
did the model write valid JSON arguments, which answer (streamed or not) is worse.

These read the text with the configured parser's own markers: start/end pairs from
a legacy parser's ``X_start_token`` / ``X_end_token`` attributes and from an engine
config's ``X_START`` / ``X_END`` (``PREFIX`` / ``CLOSE``) terminals.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from workbench.check import coverage
from workbench.check.written import invalid_written, json_after, valid_json, written_json
from workbench.core import vllm_compat as compat
from workbench.core.messages import Final
from workbench.core.runner import make_parser

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from workbench.core.session import Session

_ATTR = re.compile(r"^(?P<stem>\w*?)_?(?P<side>start|end|begin)_(?:token|str|tag)$")
_TERMINAL = re.compile(r"^(?P<stem>\w*?)_?(?P<side>START|PREFIX|BEGIN|OPEN|END|CLOSE)$")
_OPEN = {"start", "begin", "START", "PREFIX", "BEGIN", "OPEN"}


def _pair(named: dict[str, str], pattern: re.Pattern) -> list[tuple[str, str]]:
    sides: dict[str, dict[str, str]] = {}
    for name, value in named.items():
        m = pattern.match(name)
        if m and isinstance(value, str) and value.strip():
            sides.setdefault(m["stem"].lower(), {})["open" if m["side"] in _OPEN else "close"] = value
    return [(s["open"], s["close"]) for stem, s in sorted(sides.items())
            if "open" in s and "close" in s and "think" not in stem and "reason" not in stem]


def tool_starts(session: Session, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Markers that open tool-call markup: each pair's start, and the tool parser's other
    markers that close nothing ([TOOL_CALLS])."""
    from workbench.check.contract import parser_markers

    ends = {e for _, e in pairs}
    return list(dict.fromkeys([s for s, _ in pairs] + [m for m in parser_markers(session).get("tool", [])
                                                       if m not in ends]))


def tool_marker_pairs(session: Session) -> list[tuple[str, str]]:
    """(start, end) spellings of the tool parser's markup, outermost first as declared."""
    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return []
    subs = [parser] if compat.is_parser_engine(parser) else [compat.sub_parsers(parser).get("tool")]
    out: list[tuple[str, str]] = []
    for sub in subs:
        if sub is None:
            continue
        pe = sub if compat.is_parser_engine(sub) else compat.adapter_engine(sub)
        config = getattr(pe, "parser_engine_config", None)
        if config is not None:
            first = {k: (v if isinstance(v, str) else v[0]) for k, v in config.terminals.items()}
            out += _pair(first, _TERMINAL)
        else:
            attrs = {}
            for name in dir(sub):
                if _ATTR.match(name):
                    try:
                        attrs[name] = getattr(sub, name)
                    except Exception:  # a property needing state the instance lacks
                        continue
            out += _pair(attrs, _ATTR)
    return list(dict.fromkeys(out))


def open_at_end(text: str, pairs: Sequence[tuple[str, str]], finals: Sequence[Final], literals: Iterable[str] = (),
                starts: Iterable[str] = ()) -> str | None:
    """Why the text ends inside a tool call, or None: its last start marker is never closed and
    what follows it is a call (a name either mode found) or markup only (not a marker quoted in
    prose), or the last streamed call's arguments run to the end unfinished."""
    finals = [Final.of(f) for f in finals]
    names = {c.name for f in finals for c in f.tool_calls if c.name}
    still_open = {at for _, at in _walk(text, pairs)[1]}
    for start, end in pairs:
        i = text.rfind(start)
        # markup the text closed around it (a <parameter= before </function>) does not end the text open
        nested = start != end and i not in still_open
        if i >= 0 and text.rfind(end) < i and not nested:
            region = text[i:]
            if coverage.names_in(region, names) or not re.search(r"\w", coverage.masked(region, literals)):
                return f"{start!r} is never closed by {end!r}"
    calls = finals[0].tool_calls if finals else ()
    if calls and not valid_json(calls[-1].arguments) and written_json(text, calls[-1].arguments) == "unfinished":
        return f"call {calls[-1].index}'s arguments run to the end of the text unfinished"
    bodies = json_after(text, starts)
    if bodies and bodies[-1][1] == "unfinished":
        return "the JSON after the last tool-call marker runs to the end of the text unfinished"
    return None


def open_start(text: str, pairs: Sequence[tuple[str, str]], starts: Iterable[str] = ()) -> int | None:
    """Where the call that is still open at the end of the text starts: the last start marker
    no end marker follows (a start without an end, such as [TOOL_CALLS], counts as open)."""
    ends = {s: e for s, e in pairs}
    found = [i for m in dict.fromkeys([s for s, _ in pairs] + list(starts)) if m
             and (i := text.rfind(m)) >= 0 and (m not in ends or text.rfind(ends[m]) < i)]
    return max(found, default=None)


_Broken = tuple[str, int, int]  # (what the model broke, the text it holds: start, end)


def _walk(text: str, pairs: Sequence[tuple[str, str]]) -> tuple[list[_Broken], list[tuple[str, int]]]:
    """The text's tool-call markup as nested pairs: (what the model broke before the markup
    around it went on: a start not closed, an end inside a call that closes nothing; the starts
    still open at the end of the text)."""
    pairs = [(a, b) for a, b in pairs if a and b and a != b]
    marks = sorted({m for pair in pairs for m in pair}, key=len, reverse=True)
    if not marks:
        return [], []
    opens = {a: b for a, b in pairs}
    closes = {b: a for a, b in pairs}
    stack: list[tuple[str, int]] = []
    broken: list[_Broken] = []
    last = 0  # where the previous marker ended
    for m in re.finditer("|".join(map(re.escape, marks)), text):
        mark = m.group()
        if mark in opens:
            if stack and stack[-1][0] == mark:
                broken.append((f"{mark!r} at char {stack[-1][1]} is not closed by {opens[mark]!r} before the next "
                               f"{mark!r}", stack[-1][1] + len(mark), m.start()))
                stack.pop()
            stack.append((mark, m.start()))
        elif any(start == closes.get(mark) for start, _ in stack):
            while stack[-1][0] != closes[mark]:
                start, at = stack.pop()
                broken.append((f"{start!r} at char {at} is not closed by {opens[start]!r} before {mark!r}",
                               at + len(start), m.start()))
            stack.pop()
        elif stack and mark in closes:
            broken.append((f"{mark!r} at char {m.start()} closes no {closes[mark]!r}", last, m.start()))
        last = m.end()
    return broken, stack


def unclosed_markup(text: str, pairs: Sequence[tuple[str, str]]) -> list[str]:
    """Tool-call markup the model opened and never closed before the markup around it went
    on: a start marker followed by its own start again, or by the end of a marker opened
    before it (``<parameter=`` then ``</function>``). What is still open at the end of the
    text is open_at_end's. An end marker inside a call that closes nothing is broken too."""
    return [what for what, _, _ in _walk(text, pairs)[0]]


def broken_and_lost(text: str, pairs: Sequence[tuple[str, str]], finals: Sequence[Final]) -> list[str]:
    """Markup the model broke whose text reaches no field in either mode (every word of it): the
    format the model did not keep is where its words went (glm47's value after a missing
    <arg_value>)."""
    carried = {w for f in finals for seq in coverage.field_words(Final.of(f)) for w in seq}
    out = []
    for what, a, b in _walk(text, pairs)[0]:
        words = re.findall(r"\w+", text[a:b])
        if words and not carried & set(words):
            out.append(f"{what}, and what it holds ({text[a:b].strip()[:60]!r}) reaches no field")
    return out


def _cut_at_end(value: str, marker: str) -> int:
    """How many characters of ``marker`` (a proper prefix, at least 3, bracketed) ``value`` ends with."""
    for k in range(len(marker) - 1, 2, -1):
        if value.endswith(marker[:k]) and set(marker[:k]) & set("<[|｜"):
            return k
    return 0


def _fragments(value: str, marker: str) -> set[str]:
    """``marker`` or the longest bracketed piece of it (half of it at least) in ``value``."""
    if marker in value:
        return {marker}
    for k in range(len(marker) - 1, max(len(marker) // 2, 4) - 1, -1):
        for piece in (marker[:k], marker[-k:]):
            if set(piece) & set("<[|｜") and piece in value:
                return {piece}
    return set()


def _in_arguments(final: Final, other: Final, markers: Iterable[str]) -> list[str]:
    """Parser markup (a marker, or a piece of one) in this answer's arguments that the other
    mode's arguments do not carry: markup a parser path sent as argument text."""
    mine = "".join(c.arguments or "" for c in final.tool_calls)
    theirs = "".join(c.arguments or "" for c in other.tool_calls)
    out = set()
    for m in markers:
        out |= {x for x in _fragments(mine, m) if not _fragments(theirs, m) & {x}}
    return sorted(out)


def ok_calls(final: Final, tool_names: set[str]) -> list:
    return [c for c in final.tool_calls if c.name and valid_json(c.arguments)
            and isinstance(json.loads(c.arguments), dict) and (not tool_names or c.name in tool_names)]


def bad_calls(final: Final) -> list:
    return [c for c in final.tool_calls if not c.name or not valid_json(c.arguments)]


def badness(final: Final, other: Final, text: str, markers: list[str], literals: Iterable[str],
            tool_names: set[str], prompt_ended_reasoning: bool = False,
            reads: Callable[[Sequence[re.Match]], bool] | None = None) -> dict:
    """How far one answer falls short of the text, next to the other mode's answer.
    ``prompt_ended_reasoning``: the parser's ``is_reasoning_end`` says the prompt already
    closed thinking (what vLLM's streaming path asks; ``parse`` never sees the prompt), so
    reasoning the other mode does not have is a shortfall. ``reads`` (coverage.reader for the
    non-streaming answer, coverage.stream_reader for the stream): a word only the other mode
    carries that this mode's path reads is the format's syntax, not a lost word (a broken
    stream can carry `"name"` in arguments, a broken parse can leave it in content)."""
    leaks = sorted({m for m in markers for v in (final.content, final.reasoning) if v and m in v}
                   | {f"{v.rstrip()[-k:]} (cut {m})" for m in markers for v in (final.content, final.reasoning)
                      if v and (k := _cut_at_end(v.rstrip(), m))}
                   | {f"{x} (in arguments)" for x in _in_arguments(final, other, markers)})
    missed = coverage.uncovered(text, literals, (final,))
    theirs_missed = coverage.uncovered(text, literals, (other,))
    their_gaps = {m.start() for m in theirs_missed}
    only_theirs: dict[str, list[re.Match]] = {}  # words the other mode carries and this one misses
    for m in missed:
        if m.start() not in their_gaps:
            only_theirs.setdefault(m.group(), []).append(m)
    if reads is not None:
        syntax = {w for w, ms in list(only_theirs.items())[:coverage.MAX_PROBES] if reads(ms)}
        missed = [m for m in missed if m.start() in their_gaps or m.group() not in syntax]
        only_theirs = {w: ms for w, ms in only_theirs.items() if w not in syntax}
    mine, theirs = len(missed), len(theirs_missed)
    return {"bad_calls": len(bad_calls(final)), "leaked": leaks,
            "missing_calls": max(len(ok_calls(other, tool_names)) - len(ok_calls(final, tool_names)), 0),
            "lost_words": max(mine - theirs, 0), "lost": list(only_theirs)[:5],
            "reasoning_after_prompt": bool(prompt_ended_reasoning and final.reasoning and not other.reasoning)}


def score(b: dict) -> int:
    """0: nothing short of the text; more: further short."""
    return (b["bad_calls"] + len(b["leaked"]) + b["missing_calls"] + (1 if b["lost_words"] else 0)
            + (1 if b.get("reasoning_after_prompt") else 0))


def unknown_names(finals: Sequence[Final], tool_names: set[str]) -> list[str]:
    if not tool_names:
        return []
    return sorted({c.name for f in finals for c in f.tool_calls if c.name and c.name not in tool_names})
