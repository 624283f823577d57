"""From evidence to causes: which part of the pipeline made the client see what it saw.

The classes (PROTOCOL.md): parser_streaming, parser_nonstreaming, serving,
configuration, model_output, truncation. The evidence, in order:

1. The configuration diagnoses (no tool parser, tools off, a parser that cannot start
   or does not match the text, a reasoning parser that ignores the prompt's thinking
   state, a text a forced tool_choice's grammar refuses: diagnosis/constraint.py):
   configuration.
2. The text itself: does it end inside a tool call (its markup never closed, or its
   JSON running to the end; a marker quoted in prose does not count)? With "stop" the
   model stopped mid-call (model_output). With "length" max_tokens cut it, which is a
   cause (truncation) when the two modes then disagree or the finish_reason hides the
   cut; a mode that says "tool_calls" over the cut call is the serving layer's relabel
   (diagnosis/finish.py), named right after it with advice for both kinds of client, and
   what each parser path made of the cut call follows as a warning. Thinking left open
   while thinking is on is the model's (diagnosis/thinking.py), or the cut's. Tool-call
   JSON the model wrote invalid, functions the request never offered: model_output.
3. Do streaming and non-streaming disagree (check's stream_vs_nonstream)? The client
   contract decides first (diagnosis/modes.py): a mode that sends invalid JSON, leaked
   markup or a call that never closes, next to a clean answer that carries the whole
   text, is the one at fault. Otherwise the mode that loses more of the text; when both
   do, the non-streaming path (the parser's reading of the format) and the streaming
   one after it; when both look right, the streaming one (the non-streaming answer is
   the reference). A finish_reason that differs while both modes agree on the calls, or
   "tool_calls" over no call, is the serving layer's.
4. Does parse raise (parser_nonstreaming) or parse_delta (parser_streaming)? That comes
   before the rest of this step: does the answer depend on the grouping (chunking findings,
   shrunk to a minimal grouping), does the stream break the client contract?
   parser_streaming.
5. Text that reaches no field in either mode (text_dropped): both parser paths, the
   non-streaming one first. parallel_tool_calls false with more than one call: serving.
6. Arguments buffered (a warning: the answer is right, only late): parser_streaming,
   with the silent deltas and the bytes that then arrive at once.

7. The silent drops (check/silent.py) join the cause that explains them; alone, call
   markup no mode reads or that reaches the client as text is the parser's.

The rules run in ``ORDER`` (data: each rule with what it looks at). Whitespace-only
(cosmetic) differences are no cause. The order the causes are shown in is
diagnosis/strength.py's rule: severity, then the kind of evidence behind each
(``Cause.ranked_by``), stable within a kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.check import evidence as E, silent as S
from workbench.check.coverage import TEXT_DROPPED
from workbench.check.timing import ARGUMENTS_BUFFERED
from workbench.core.messages import CHUNKING, CONTRACT, ERROR, SEVERE, STREAM_VS_NONSTREAM, WARNING
from workbench.diagnosis import finish as F, modes as M, strength
from workbench.diagnosis.facts import CALLS_OFF, CLASSES, PARSER, Cause, Facts  # noqa: F401  (C.Cause, C.PARSER)

if TYPE_CHECKING:
    from workbench.core.messages import Difference

def _key(f: Difference) -> dict:
    return {"kind": f.kind, "field": f.field}


def _role(facts: Facts, f: Difference) -> str:
    if f.field == "tool_calls":
        return "tool"
    if f.field == "reasoning":
        return "reasoning"
    phase = facts.phase_at.get(f.first_step) or ""
    return "reasoning" if phase.startswith(("reasoning", "analysis")) else "tool"


def step_of(facts: Facts, char: int) -> int:
    """The step whose delta carries character ``char`` of the text (1-based)."""
    import bisect

    return bisect.bisect_right(facts.step_ends, char) + 1


@dataclass
class _Scan:
    """``classify``'s working state: the facts, the causes found so far (a later rule reads
    them), and what one rule leaves for a later one."""

    facts: Facts
    where: Callable
    by_kind: dict[str, list]
    modes: list  # severe stream-vs-non-stream findings
    opened: str | None  # the call the text ends inside, if any
    cut: bool  # ... and max_tokens cut it there
    causes: list[Cause] = field(default_factory=list)
    invalid: Cause | None = None  # invalid JSON whose text the parser then dropped: named after the loss

    def found(self, kind: str) -> list:
        return self.by_kind.get(kind, [])


def classify(facts: Facts, where: Callable[[str | None, str], dict | None]) -> list[Cause]:
    """Causes, most likely first. ``where(role, mode, step=None)`` locates a parser method (the
    step at fault, where known, in the deltas as given). The rules run in ``ORDER``; a rule
    reads what the ones before it found."""
    by_kind: dict[str, list] = {}
    for f in facts.findings:
        by_kind.setdefault(f.kind, []).append(f)
    modes = [f for f in by_kind.get(STREAM_VS_NONSTREAM, []) if f.severity == SEVERE]
    opened = E.open_at_end(facts.text, facts.pairs, (facts.stream, facts.nonstream), facts.literals, facts.starts)
    cut = bool(opened) and facts.finish == "length" and bool(modes or F.relabelled_cut(facts))
    scan = _Scan(facts, where, by_kind, modes, opened, cut)
    for _, rule in ORDER:
        rule(scan)
    return _dedupe(scan.causes)


def _configuration(s: _Scan) -> None:
    for d in s.facts.diagnoses:
        s.causes.append(Cause("configuration", d.message, [f"{d.code}: {d.fix}" if d.fix else d.code],
                              ranked_by="configuration"))


def _ends_inside_a_call(s: _Scan) -> None:
    facts = s.facts
    if s.cut:
        s.causes.append(Cause("truncation", f"max_tokens cut the output inside a tool call: {s.opened}",
                              ['finish_reason "length": the call is incomplete', F.cut_answers(facts)],
                              ranked_by="markup"))
        s.causes += strength.by("markup", F.cut_causes(facts, Cause))
    elif s.opened and facts.finish == "stop":
        s.causes.append(Cause("model_output", f"the model stopped inside a tool call: {s.opened}",
                              ["finish_reason \"stop\" with the call's markup or arguments still open"],
                              ranked_by="markup"))


def _thinking(s: _Scan) -> None:
    s.causes += strength.by("markup", _thinking_left_open(s.facts))


def _model_wrote(s: _Scan) -> None:
    """JSON the model wrote invalid (after the loss, when the parser then dropped its text),
    functions the request never offered."""
    facts = s.facts
    finals = (facts.stream, facts.nonstream)
    invalid = E.invalid_written(facts.text, finals, facts.starts)
    if invalid:
        cause = Cause("model_output", "the model wrote tool-call JSON that is not valid: " + ", ".join(invalid),
                      ["as written in the text, not as parsed"], ranked_by="contract")
        if _dropped_after_invalid(facts, s.found(TEXT_DROPPED)):
            s.invalid = cause
        else:
            s.causes.append(cause)
    unknown = E.unknown_names(finals, facts.tool_names)
    if unknown:
        s.causes.append(Cause("model_output", "the model called function(s) the request does not offer: "
                              + ", ".join(map(repr, unknown)),
                              [f"tools offered: {', '.join(sorted(facts.tool_names))}"], ranked_by="contract"))


def _serving(s: _Scan) -> None:
    served = strength.by("contract", F.empty_tool_calls(s.facts, Cause))
    calls_differ = any(f.field == "tool_calls" for f in s.modes)
    named = any(c.cls == "serving" for c in s.causes) or served
    for f in s.modes:
        if f.field == "finish_reason" and not calls_differ and not named:
            s.causes.append(Cause("serving", f"the finish_reason differs: stream {f.stream!r}, non-stream "
                                  f"{f.nonstream!r}, while both modes agree on the calls",
                                  [f.detail], findings=[_key(f)], ranked_by="contract"))
    s.causes += served


def _modes(s: _Scan) -> None:
    parser_modes = [f for f in s.modes if f.field != "finish_reason"]
    if parser_modes:
        s.causes += _mode_causes(s.facts, parser_modes, s.where, s.opened, s.cut)


def _raises(s: _Scan) -> None:
    """A parser method that raises is a defect in that method; a stream that depends on the
    grouping can follow from it (the same broken split runs in both paths), never the reverse."""
    for f in s.found(ERROR):
        mode = "nonstreaming" if f.field == "parse" else "streaming"
        s.causes.append(Cause("parser_nonstreaming" if mode == "nonstreaming" else "parser_streaming",
                              f.detail, [f.headline()], where=s.where(_role(s.facts, f), mode), findings=[_key(f)],
                              ranked_by="contract"))


def _groupings(s: _Scan) -> None:
    chunked = [f for f in s.found(CHUNKING) if f.severity == SEVERE]
    if chunked:
        f = min(chunked, key=lambda f: f.first_step or 0)
        g = f.extra.get("minimal_grouping") or f.extra.get("grouping") or f.chunking
        s.causes.append(Cause("parser_streaming", f"the streamed {', '.join(sorted({x.field for x in chunked}))} "
                              f"depend(s) on how the tokens are grouped into deltas: minimal grouping "
                              f"--chunking {g}", [x.headline() for x in chunked],
                              where=s.where(_role(s.facts, f), "streaming"),
                              findings=[_key(x) for x in chunked], ranked_by="groupings"))


def _contract(s: _Scan) -> None:
    """The stream breaks the client contract; a configuration problem (no or the wrong parser,
    tools off) explains markup in content instead."""
    broken = [f for f in s.found(CONTRACT) if f.chunking != "nonstream"]
    if broken and not s.opened and not s.facts.diagnoses and not any(c.cls == "parser_streaming" for c in s.causes):
        f = broken[0]
        s.causes.append(Cause("parser_streaming", f"the stream breaks the client contract: {f.detail}",
                              [x.headline() for x in broken], where=s.where(_role(s.facts, f), "streaming"),
                              findings=[_key(x) for x in broken], ranked_by="contract"))


def _text_dropped(s: _Scan) -> None:
    """Text no mode carries: both parser paths, unless no parser, tools off or another format
    explains it (the parser reads nothing, by its configuration)."""
    explained = next((c for c in s.causes if c.cls == "configuration" and any(
        e.startswith(CALLS_OFF) for e in c.evidence)), None)
    for f in s.found(TEXT_DROPPED):
        if explained is not None:
            explained.evidence.append(f"{TEXT_DROPPED}: {f.detail}")
            continue
        role = _role(s.facts, f)
        s.causes.append(Cause("parser_nonstreaming", f"text of the model output is lost in both modes: {f.detail}",
                              [d["context"] for d in f.extra.get("dropped", [])][:3],
                              where=s.where(role, "nonstreaming"), findings=[_key(f)], ranked_by="markup"))
        s.causes.append(Cause("parser_streaming", "the streaming path loses the same text",
                              [f.headline()], where=s.where(role, "streaming"), findings=[_key(f)], ranked_by="markup"))


def _parallel(s: _Scan) -> None:
    if s.facts.parallel_tool_calls is False:
        for name, final in (("stream", s.facts.stream), ("non-stream", s.facts.nonstream)):
            if len(final.tool_calls) > 1:
                s.causes.append(Cause("serving", f"parallel_tool_calls is false, yet the {name} answer has "
                                      f"{len(final.tool_calls)} calls", ["vLLM's serving layer keeps call 0 only"],
                                      ranked_by="contract"))


def _invalid_then_dropped(s: _Scan) -> None:
    if s.invalid:  # the parser dropped the text of the body it could not read: that comes first
        s.invalid.evidence.append("the parser then drops that text in both modes (text_dropped)")
        s.invalid.ranked_by = "markup"
        s.causes.append(s.invalid)


def _broken_markup(s: _Scan) -> None:
    broken = E.broken_and_lost(s.facts.text, s.facts.pairs, (s.facts.stream, s.facts.nonstream))
    if broken and not any(c.cls in PARSER for c in s.causes):
        s.causes.append(Cause("model_output", "the model broke the call's markup: " + "; ".join(broken[:2]),
                              ["both modes read the broken markup alike; the format is the model's to keep"],
                              ranked_by="markup"))


def _buffered(s: _Scan) -> None:
    for f in s.found(ARGUMENTS_BUFFERED):
        x = f.extra
        s.causes.append(Cause("parser_streaming", f"arguments are buffered, not streamed: call {x.get('call')} "
                              f"sends nothing for {x.get('silent_deltas')} deltas, then {x.get('bytes')} bytes of "
                              f"arguments at once (step {f.first_step}): a streaming client sees no progress while "
                              f"the model writes them", [f.detail, "the answer is right, only late: a warning"],
                              severity=WARNING, where=s.where("tool", "streaming"), findings=[_key(f)],
                              ranked_by="timing"))


def _silent(s: _Scan) -> None:
    s.causes += S.causes(s.by_kind, s.causes, Cause, lambda f, mode: s.where(_role(s.facts, f), mode, f.first_step),
                         _key, bool(s.opened))


# The rules in the order they run (the evidence's order): a later rule reads what an earlier
# one found (a configuration cause explains lost text; a parser cause, broken markup).
ORDER: tuple[tuple[str, Callable[[_Scan], None]], ...] = (
    ("configuration: the settings diagnosed", _configuration),
    ("the text ends inside a call: truncation, or the model stopped", _ends_inside_a_call),
    ("thinking left open while thinking is on", _thinking),
    ("tool-call JSON written invalid, functions never offered", _model_wrote),
    ("the serving layer's finish_reason", _serving),
    ("stream vs non-stream: which parser path", _modes),
    ("a parser method that raises", _raises),
    ("an answer that depends on the grouping", _groupings),
    ("the stream's client contract", _contract),
    ("text that reaches no field", _text_dropped),
    ("parallel_tool_calls false with several calls", _parallel),
    ("invalid JSON whose text the parser dropped", _invalid_then_dropped),
    ("markup the model broke", _broken_markup),
    ("arguments buffered, not streamed", _buffered),
    ("the silent drops", _silent),
)


def _mode_causes(facts: Facts, parser_modes: list, where: Callable, opened: str | None, cut: bool) -> list[Cause]:
    """The parser path(s) a stream-vs-non-stream difference is blamed on (diagnosis/modes.py).
    After a cut, a difference that starts inside the cut call is what each path made of an
    incomplete call: named, a warning, after the truncation and the serving layer's relabel."""
    path, also, short, basis = M.paths(facts)
    first = min(parser_modes, key=lambda f: f.first_step or 0)
    role = _role(facts, first)
    fields = ", ".join(f.field for f in parser_modes)
    at_cut = E.open_start(facts.text, facts.pairs, facts.starts) if cut else None
    after_cut = at_cut is not None and all((f.first_step or 0) >= step_of(facts, at_cut) for f in parser_modes)
    out = []
    for n, cls in enumerate([path] + ([also] if also else [])):
        mode = "streaming" if cls == "parser_streaming" else "nonstreaming"
        summary = (f"streaming and non-streaming disagree on {fields} (from step {first.first_step}); the "
                   f"{mode.replace('non', 'non-')} answer {M.verdict(short)}" if n == 0 else
                   f"the {mode.replace('non', 'non-')} answer falls short of the text too")
        cause = Cause(cls, summary, [f.headline() for f in parser_modes], where=where(role, mode, first.first_step),
                      findings=[_key(f) for f in parser_modes], ranked_by=basis if n == 0 else "words")
        if after_cut:
            cause.severity = WARNING
            cause.summary = "inside the cut call: " + cause.summary
            cause.evidence.append("what this path makes of a call max_tokens cut; the truncation comes first")
        elif opened:  # inherent in a call that never closes: secondary
            cause.evidence.append("the text ends inside the call, so streaming had to send before it could know")
        out.append(cause)
    return out


def _thinking_left_open(facts: Facts) -> list[Cause]:
    """Thinking on, and the model never closed it: the model's output (thinking.py), or the cut's."""
    from workbench.diagnosis import thinking as T

    th = facts.thinking
    if th is None or not th.left_open(facts.text, facts.stream, facts.nonstream) or not th.on(facts.text):
        return []
    summary, evidence = T.summary(th, facts.text, facts.finish, facts.stream, facts.nonstream, facts.reasoning_deltas)
    return [Cause("truncation" if facts.finish == "length" else "model_output", summary, evidence)]


def _dropped_after_invalid(facts: Facts, dropped: list) -> bool:
    """Whether text the model wrote after an invalid tool-call JSON body reaches no field (the
    parser swallowed what it could not read, where a client would have got it as content)."""
    bodies = [i for i, state in E.json_after(facts.text, facts.starts) if state == "invalid"]
    spans = [d["start"] for f in dropped for d in f.extra.get("dropped", [])]
    return any(s > i for i in bodies for s in spans)


def _dedupe(causes: list[Cause]) -> list[Cause]:
    """One cause per (class, summary); a parser class already named keeps its first entry's
    place and gathers the later evidence."""
    out: list[Cause] = []
    for c in causes:
        same = next((o for o in out if o.cls == c.cls and o.cls in PARSER and o.severity == c.severity), None)
        if same is not None:
            same.evidence += [e for e in [c.summary] + c.evidence if e not in same.evidence]
            same.findings += [k for k in c.findings if k not in same.findings]
            continue
        out.append(c)
    return strength.ordered(out)
