"""`text_dropped`: model output that reaches no field of the answer, in either mode.

Every word of the model's text (runs of letters and digits, in any script) should
reach reasoning, content, a call's name or its arguments, unless it is part of the
format itself: a parser marker (`<tool_call>`, `<|channel|>`, an engine terminal
such as `<function=`) or syntax the parser reads (`"name":` in Hermes JSON, the
`commentary` of a Harmony header). Markers are known; syntax is found by asking the
parser: each word that no field carries is replaced by a filler of the same length
and the text parsed again. If the answer changes, the parser read the word (syntax);
if nothing changes, the word was dropped (``stream_reader`` asks the streaming path the same). A word no field carries and whose
replacement changes nothing is what this finding reports, with where it is.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workbench.core.messages import MESSAGE_FIELDS, Difference, Final, as_json

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from workbench.core.session import Result, Session

TEXT_DROPPED = "text_dropped"
MAX_PROBES = 12  # distinct words re-parsed; more are reported unprobed in the detail
_WORD = re.compile(r"\w+")


@dataclass
class Span:
    start: int
    end: int
    text: str
    step: int | None  # the delta that carried its last character


def _words(text: str | None) -> list[str]:
    return _WORD.findall(text or "")


def _arg_words(arguments: str | None) -> list[str]:
    try:
        value = json.loads(arguments or "")
    except (ValueError, RecursionError):
        return _words(arguments)
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                out.extend(_words(k))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            out.extend(_words(v))
        else:
            out.extend(_words(json.dumps(v)))
    walk(value)
    return out


def field_words(final: Final | dict) -> list[list[str]]:
    """The words of each field of a message (reasoning, content, the calls in order)."""
    d = as_json(final)
    calls = []
    for c in d.get("tool_calls") or []:
        calls += _words(c.get("name")) + _arg_words(c.get("arguments"))
    return [_words(d.get("reasoning")), _words(d.get("content")), calls]


def names_in(text: str, names: Iterable[str]) -> bool:
    """Whether a call's name is in ``text`` as a whole word (a one-letter name is in every `</function>`)."""
    return any(re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) for n in names if n)


def masked(text: str, literals: Iterable[str], pairs: Sequence[tuple[str, str]] = (),
           finals: Sequence[Final] = ()) -> str:
    """``text`` with its format literals blanked, a literal cut at the very end, and the markup
    of each call (a start/end marker pair around a call's name): same length, so offsets hold."""
    out = list(text)

    def blank(i: int, j: int) -> None:
        out[i:j] = " " * (j - i)

    names = {c.name for f in finals for c in Final.of(f).tool_calls if c.name}
    for start, end in pairs:
        i = text.find(start)
        while i >= 0:
            j = text.find(end, i + len(start))
            stop = j + len(end) if j >= 0 else len(text)
            if names_in(text[i:stop], names):
                blank(i, stop)
            i = text.find(start, stop)
    lits = sorted((x for x in literals if x and x.strip()), key=len, reverse=True)
    for lit in lits:
        i = text.find(lit)
        while i >= 0:
            blank(i, i + len(lit))
            i = text.find(lit, i + len(lit))
    tail = len(text.rstrip())
    for lit in lits:
        k = next((k for k in range(min(len(lit) - 1, tail), 1, -1) if lit.startswith(text[tail - k:tail])), 0)
        if k:
            blank(tail - k, tail)
            break
    return "".join(out)


def uncovered(text: str, literals: Iterable[str], finals: Sequence[Final],
              pairs: Sequence[tuple[str, str]] = ()) -> list[re.Match]:
    """The word matches of ``text`` (markers and calls' markup blanked) that no field of
    ``finals`` carries."""
    found = list(_WORD.finditer(masked(text, literals, pairs, finals)))
    words = [m.group() for m in found]
    covered: set[int] = set()
    for final in finals:
        for seq in field_words(final):
            if not seq:
                continue
            sm = difflib.SequenceMatcher(None, words, seq, autojunk=False)
            for block in sm.get_matching_blocks():
                covered.update(range(block.a, block.a + block.size))
    return [m for i, m in enumerate(found) if i not in covered]


def _filler(word: str) -> str:
    return ("q" if set(word) <= {"x"} else "x") * len(word)


def _same(a: Final, b: Final) -> bool:
    da, db = a.to_dict(), b.to_dict()
    for field in MESSAGE_FIELDS:
        if field == "tool_calls":
            if [(c["name"], c["arguments"]) for c in da[field]] != [(c["name"], c["arguments"]) for c in db[field]]:
                return False
        elif (da[field] or "") != (db[field] or ""):
            return False
    return True


def _spans(text: str, dropped: list[re.Match], steps: list[int | None]) -> list[Span]:
    """Adjacent dropped words (only spaces or punctuation between them) as one span."""
    out: list[Span] = []
    for m in dropped:
        if out and not _WORD.search(text[out[-1].end:m.start()]) and "\n\n" not in text[out[-1].end:m.start()]:
            out[-1] = Span(out[-1].start, m.end(), text[out[-1].start:m.end()], steps[m.end() - 1])
        else:
            out.append(Span(m.start(), m.end(), m.group(), steps[m.end() - 1]))
    return out


def parsed(session: Session, text: str, ids: Sequence[int] | None = None) -> Final | None:
    """What the parser's ``parse`` returns for ``text`` (with ``ids``, or its ids as the
    tokenizer encodes it), before the serving layer; None when it raises (no fair probe)."""
    from workbench.core.deltas import encode_text
    from workbench.core.messages import ToolCall
    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    if parser is None:
        return Final(content=text)
    try:
        parser.set_prompt_token_ids(list(session.prompt_ids))
        ids = list(ids) if ids is not None else encode_text(session.tokenizer, text)
        reasoning, content, calls = parser.parse(text, session.request, enable_auto_tools=session.enable_auto_tools,
                                                 model_output_token_ids=ids)
    except Exception:  # noqa: BLE001  (a parse that raises is check's own finding)
        return None
    return Final(reasoning, content, tuple(ToolCall(i, None, c.name, c.arguments) for i, c in enumerate(calls or [])))


def fair_base(session: Session, result: Result) -> Final | None:
    """What ``parse`` makes of the text re-encoded, or None where probing it is unfair: the text
    re-encoded does not parse as the stream's ids do (Harmony reads ids), or parse failed."""
    base = parsed(session, result.text)
    exact = parsed(session, result.text, result.token_ids) if base is not None else None
    if exact is None or result.nonstream_final.error or not _same(base, exact):
        return None
    return base


def reader(session: Session, text: str, base: Final | None = None) -> Callable[[Sequence[re.Match]], bool]:
    """``read(matches)``: does ``Parser.parse`` read these words of ``text`` (all one word)?
    Each is replaced by a filler of the same length and the text parsed again: an answer that
    changes (or a parse that raises) means the parser read it, as syntax (`"name"` in Hermes
    JSON) or content; the same answer means it drops the word."""
    base = base if base is not None else parsed(session, text)
    seen: dict[str, bool] = {}

    def read(matches: Sequence[re.Match]) -> bool:
        word = matches[0].group()
        if word not in seen:
            probe = list(text)
            for m in matches:
                probe[m.start():m.end()] = _filler(word)
            again = parsed(session, "".join(probe))
            seen[word] = base is None or again is None or not _same(again, base)
        return seen[word]
    return read


def streamed(session: Session, text: str, finish_reason: str = "stop") -> Final:
    """What a streaming client joins for ``text`` re-encoded, grouped as the setup says."""
    run = session.stream(keep_rows=False)
    for d in session.deltas_from_text(text, finish_reason=finish_reason):
        run.feed(d)
    return run.result.final()


def stream_reader(session: Session, result: Result, finish_reason: str = "stop") -> Callable[[Sequence[re.Match]], bool]:
    """``reader`` for the streaming path: does the stream read these words? Each is replaced by
    a filler and the text streamed again; an answer that changes means the streaming parser read
    it. Where the text re-encoded does not stream as given (a recording's own grouping, Harmony's
    ids), no word is read (every one counts). The base stream runs on the first question only."""
    seen: dict[str, bool] = {}
    base: list[Final | None] = []

    def read(matches: Sequence[re.Match]) -> bool:
        if not base:
            again = streamed(session, result.text, finish_reason)
            base.append(again if _same(again, result.stream_final) else None)
        word = matches[0].group()
        if base[0] is None:
            return False
        if word not in seen:
            probe = list(result.text)
            for m in matches:
                probe[m.start():m.end()] = _filler(word)
            seen[word] = not _same(streamed(session, "".join(probe), finish_reason), base[0])
        return seen[word]
    return read


def findings(session: Session, result: Result, literals: Iterable[str], chunking: str,
             pairs: Sequence[tuple[str, str]] = ()) -> list[Difference]:
    """A text_dropped finding when words of the model output reach neither mode's answer."""
    text = result.text
    base = fair_base(session, result)
    if base is None:
        return []
    candidates = uncovered(text, literals, (result.stream_final, base), pairs)
    if not candidates:
        return []
    by_word: dict[str, list[re.Match]] = {}
    for m in candidates:
        by_word.setdefault(m.group(), []).append(m)
    read = reader(session, text, base)
    dropped = [m for word, ms in list(by_word.items())[:MAX_PROBES] if not read(ms) for m in ms]
    if not dropped:
        return []
    rows = getattr(result, "rows", None)  # a replay's rows, or check's lengths (check/streams.Seen)
    lengths = [len(r.text) for r in rows] if rows is not None else result.lengths
    steps = []
    for step, k in enumerate(lengths, 1):
        steps += [step] * k
    steps += [len(lengths) or None] * (len(text) - len(steps))
    spans = _spans(text, sorted(dropped, key=lambda m: m.start()), steps)
    unprobed = max(len(by_word) - MAX_PROBES, 0)
    shown = "; ".join(f"{s.text!r} (chars {s.start}-{s.end}, step {s.step})" for s in spans[:3])
    more = f" and {len(spans) - 3} more" if len(spans) > 3 else ""
    return [Difference(TEXT_DROPPED, "text", spans[0].step, [s.text for s in spans], None,
                       detail=f"{sum(len(s.text) for s in spans)} character(s) of the model output reach "
                              f"neither reasoning, content nor a tool call, streamed or not: {shown}{more}"
                              + (f" ({unprobed} other word(s) not probed)" if unprobed else ""),
                       chunking=chunking,
                       extra={"dropped": [{"start": s.start, "end": s.end, "text": s.text, "step": s.step,
                                           "context": context(text, s)} for s in spans]})]


def context(text: str, span: Span, width: int = 30) -> str:
    """The span in brackets with ``width`` characters on each side."""
    a, b = max(span.start - width, 0), min(span.end + width, len(text))
    return ("…" if a else "") + text[a:span.start] + "[" + text[span.start:span.end] + "]" + \
        text[span.end:b] + ("…" if b < len(text) else "")
