"""The silent drops: HTTP 200, and the client is left without what the model wrote.

- ``tool_call_dropped``: the text holds the parser's call markup, and neither mode
  returns a call;
- ``tool_markup_in_content`` / ``tool_markup_in_reasoning``: that markup reaches the client
  as text;
- ``all_output_lost``: the client gets nothing (no reasoning, content or call) of a
  non-empty output.

The names are Dynamo's (PR#10569); TRT-LLM warns of the first (``warn_if_tool_call_unparsed``).
The markup is the configured tool parser's own: the openers of its ``X_start_token`` /
``X_end_token`` pairs and its other tool markers (a legacy class's attributes), or its
engine config's ``X_START`` / ``X_END`` terminals (check/evidence.py), never a list kept here.
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import TYPE_CHECKING

from workbench.check import evidence as E
from workbench.core.messages import SEVERE, Difference, Final

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from workbench.core.session import Session

TOOL_CALL_DROPPED = "tool_call_dropped"
TOOL_MARKUP_IN_CONTENT = "tool_markup_in_content"
TOOL_MARKUP_IN_REASONING = "tool_markup_in_reasoning"
ALL_OUTPUT_LOST = "all_output_lost"
KINDS = (TOOL_CALL_DROPPED, TOOL_MARKUP_IN_CONTENT, TOOL_MARKUP_IN_REASONING, ALL_OUTPUT_LOST)
_IN_FIELD = {"content": TOOL_MARKUP_IN_CONTENT, "reasoning": TOOL_MARKUP_IN_REASONING}


def call_markers(session: Session) -> dict[str, str | None]:
    """The markers that open the configured tool parser's call markup, each with the marker
    that closes it (None: it closes nothing, as [TOOL_CALLS]); none without a tool parser."""
    if session.parser_cls is None:
        return {}
    pairs = E.tool_marker_pairs(session) + _class_constants(session)
    ends = dict(pairs)
    starts = list(dict.fromkeys(E.tool_starts(session, pairs) + [s for s, _ in pairs]))
    return {m: ends.get(m) for m in starts if len(m.strip()) > 1}


_CONSTANT = re.compile(r"^(?P<stem>[A-Z][A-Z0-9_]*?)_(?P<side>BEGIN|START|END)$")


def _class_constants(session: Session) -> list[tuple[str, str]]:
    """(start, end) of a legacy tool parser's class constants (step3's ``TOOL_CALLS_BEGIN`` /
    ``TOOL_CALLS_END``), which the ``x_start_token`` attributes evidence.py reads do not cover."""
    from workbench.core import vllm_compat as compat
    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    sub = compat.sub_parsers(parser).get("tool") if parser is not None and not compat.is_parser_engine(parser) else None
    if sub is None:
        return []
    sides: dict[str, dict[str, str]] = {}
    for k in type(sub).__mro__:
        for name, value in vars(k).items():
            m = _CONSTANT.match(name)
            if m and isinstance(value, str) and len(value.strip()) > 1 and "THINK" not in name and "REASON" not in name:
                sides.setdefault(m["stem"], {}).setdefault("close" if m["side"] == "END" else "open", value)
    return [(v["open"], v["close"]) for v in sides.values() if "open" in v and "close" in v]


def holds_call(text: str, at: int, start: str, end: str | None) -> bool:
    """Whether the markup opened at ``at`` holds something (an empty block is no call)."""
    i = at + len(start)
    j = text.find(end, i) if end else -1
    return bool(re.search(r"\w", text[i:j if j >= 0 else len(text)]))


def _steps(lengths: Sequence[int]) -> list[int]:
    return list(itertools.accumulate(lengths))


def findings(session: Session, source: object, chunking: str, markers: dict[str, str | None] | None = None,
             lengths: Sequence[int] | None = None) -> list[Difference]:
    """The silent drops of one replay (``source``: its ``text``, ``stream_final``,
    ``nonstream_final``, and ``rows`` or check's ``lengths``)."""
    text = getattr(source, "text", "") or ""
    if not text.strip():
        return []
    if lengths is None:
        rows = getattr(source, "rows", None)
        lengths = [len(r.text) for r in rows] if rows is not None else getattr(source, "lengths", [])
    ends = _steps(lengths)

    def step_at(char: int) -> int | None:
        return min(bisect.bisect_right(ends, char) + 1, len(ends)) if ends else None

    markers = call_markers(session) if markers is None else markers
    given = [("stream", getattr(source, "stream_final", None)), ("non-stream", getattr(source, "nonstream_final", None))]
    finals = [(name, Final.of(f)) for name, f in given if f is not None]
    finals = [(name, f) for name, f in finals if not f.error]
    out: list[Difference] = []
    found = sorted((at, m) for m, end in markers.items() if (at := text.find(m)) >= 0 and holds_call(text, at, m, end))
    if found and finals and not any(f.tool_calls for _, f in finals):
        at, m = found[0]
        out.append(Difference(TOOL_CALL_DROPPED, "tool_calls", step_at(at), None, None, SEVERE,
                              f"the text holds the parser's call markup {m!r} (char {at}) and neither "
                              f"{' nor '.join(n for n, _ in finals)} returns a tool call",
                              chunking=chunking, extra={"marker": m, "char": at}))
    for field, kind in _IN_FIELD.items():
        where = {name: sorted(m for m in markers if m in (getattr(f, field) or "")) for name, f in finals}
        where = {name: ms for name, ms in where.items() if ms}
        if where:
            m = next(iter(where.values()))[0]
            at = text.find(m)
            out.append(Difference(kind, field, step_at(at) if at >= 0 else None,
                                  where.get("stream"), where.get("non-stream"), SEVERE,
                                  f"the parser's call markup {m!r} reaches the client as {field} "
                                  f"({' and '.join(where)})", chunking=chunking,
                                  extra={"marker": m, "modes": list(where)}))
    lost = [name for name, f in finals if not (f.content or "").strip() and not (f.reasoning or "").strip()
            and not f.tool_calls]
    if lost:
        out.append(Difference(ALL_OUTPUT_LOST, "content", len(ends) or None, None, None, SEVERE,
                              f"the model wrote {len(text):,} characters and the {' and the '.join(lost)} answer "
                              "gives the client nothing of them: no reasoning, content or tool call",
                              chunking=chunking, extra={"modes": lost}))
    return out


def causes(by_kind: dict, found: list, Cause: type, where: Callable, key: Callable, cut: bool = False) -> list:
    """The silent drops as the doctor names them: each joins the first cause already found
    (a configuration diagnosis, the model's broken markup, a parser path), or, alone, is
    the parser's: call markup no mode reads, or that one mode hands over as text. ``cut``:
    the text ends inside a call, which no parser can return (the cut's, not the parser's)."""
    out: list = []
    if cut and not found:
        return out
    for kind in KINDS:
        for f in by_kind.get(kind, []):
            if found:  # evidence only: its findings key the cause's "fixed in" across versions
                found[0].evidence.append(f"{kind}: {f.detail}")
                continue
            modes = f.extra.get("modes") or ["stream", "non-stream"]
            mode = "streaming" if modes == ["stream"] else "nonstreaming"
            cls = "parser_" + mode
            what = {TOOL_CALL_DROPPED: "the parser reads no call from its own markup",
                    ALL_OUTPUT_LOST: "the client gets nothing of the output"}.get(kind, "its call markup reaches the "
                                                                                   "client as text")
            out.append(Cause(cls, f"{kind}: {what}: {f.detail}", [f.headline()], where=where(f, mode),
                             findings=[key(f)], ranked_by="markup"))
            found = found or out
    return out


def warning(found: Sequence[Difference]) -> str | None:
    """One line for a person (as TRT-LLM's warn_if_tool_call_unparsed), or None."""
    by_kind = {f.kind: f for f in found if f.kind in KINDS}
    if not by_kind:
        return None
    first = next(by_kind[k] for k in KINDS if k in by_kind)
    more = [k for k in KINDS if k in by_kind and k != first.kind]
    return f"{first.kind}: {first.detail}" + (f" (also {', '.join(more)})" if more else "")
