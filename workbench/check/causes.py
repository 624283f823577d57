"""From evidence to causes: which part of the pipeline made the client see what it saw.

The classes (PROTOCOL.md): parser_streaming, parser_nonstreaming, serving,
configuration, model_output, truncation. The evidence, in order:

1. The configuration diagnoses (no tool parser, tools off, a parser that cannot start
   or does not match the text, a reasoning parser that ignores the prompt's thinking
   state): configuration.
2. The text itself: does it end inside a tool call (its markup never closed, or its
   JSON running to the end; a marker quoted in prose does not count)? With "stop" the
   model stopped mid-call (model_output). With "length" max_tokens cut it, which is a
   cause (truncation) only when the two modes then disagree: a cut that both modes
   present alike is vLLM working as documented (finish_reason "length"). Tool-call JSON
   the model wrote invalid, functions the request never offered: model_output.
3. Do streaming and non-streaming disagree (check's stream_vs_nonstream)? A mode is
   right when it falls short of the text in nothing (no malformed call, no parser
   markup in content, no well-formed call or word the other mode has). The mode that
   is not right is the cause; when neither is, the non-streaming path (the parser's
   reading of the format) and the streaming one after it; when both look right, the
   streaming one (the non-streaming answer is the reference). A finish_reason that
   differs while both modes agree on the calls is the serving layer's.
4. Does parse raise (parser_nonstreaming) or parse_delta (parser_streaming)? That comes
   before the rest of this step: does the answer depend on the grouping (chunking findings,
   shrunk to a minimal grouping), does the stream break the client contract?
   parser_streaming.
5. Text that reaches no field in either mode (text_dropped): both parser paths, the
   non-streaming one first. parallel_tool_calls false with more than one call: serving.
6. Arguments buffered (a warning): parser_streaming.

Whitespace-only (cosmetic) differences are no cause.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from workbench.check import evidence as E
from workbench.check.coverage import TEXT_DROPPED
from workbench.check.timing import ARGUMENTS_BUFFERED
from workbench.core.messages import CHUNKING, CONTRACT, COSMETIC, ERROR, SEVERE, STREAM_VS_NONSTREAM, WARNING

if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.core.messages import Difference

CLASSES = ("parser_streaming", "parser_nonstreaming", "serving", "configuration", "model_output", "truncation")
PARSER = ("parser_streaming", "parser_nonstreaming")


@dataclass
class Cause:
    cls: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    severity: str = SEVERE  # error | warning | cosmetic
    where: dict | None = None
    findings: list[dict] = field(default_factory=list)  # {"kind", "field"} of check findings behind it
    versions: dict | None = None  # {"checked": [...], "verdict": "fixed in 0.33.0", per version: "present"/"gone"}

    def to_dict(self) -> dict:
        return {"class": self.cls, "summary": self.summary, "severity": self.severity,
                "evidence": self.evidence, "where": self.where, "findings": self.findings,
                "versions": self.versions}


@dataclass
class Facts:
    """What the doctor gathered: check's findings, the two answers, the text."""

    text: str
    finish: str  # how the stream ended (stop, length...)
    stream: object  # Final
    nonstream: object  # Final
    findings: list  # check's Differences
    diagnoses: list  # doctor's configuration Diagnoses (problems)
    markers: list[str]
    literals: list[str]
    pairs: list[tuple[str, str]]
    tool_names: set[str]
    starts: list[str] = field(default_factory=list)  # markers that open tool-call markup
    parallel_tool_calls: bool | None = None
    phase_at: dict = field(default_factory=dict)  # step -> phase of the row
    prompt_ended_reasoning: bool = False  # the parser's is_reasoning_end(prompt ids), as streaming asks it
    reads: Callable | None = None  # coverage.reader: does Parser.parse read these words (syntax, not loss)?
    stream_reads: Callable | None = None  # coverage.stream_reader: the same asked of the streaming path


def _key(f: Difference) -> dict:
    return {"kind": f.kind, "field": f.field}


def _role(facts: Facts, f: Difference) -> str:
    if f.field == "tool_calls":
        return "tool"
    if f.field == "reasoning":
        return "reasoning"
    phase = facts.phase_at.get(f.first_step) or ""
    return "reasoning" if phase.startswith(("reasoning", "analysis")) else "tool"


def _paths(facts: Facts) -> tuple[str, str | None, dict]:
    """(the path at fault, a second path also at fault or None, the first one's shortfall).
    A mode is right when it falls short of the text in nothing; when only one is right the
    other is at fault; when neither is, the non-streaming path (the parser's reading of the
    format) and then streaming; when both look right but differ, streaming (the non-streaming
    answer is the reference)."""
    s = E.badness(facts.stream, facts.nonstream, facts.text, facts.markers, facts.literals, facts.tool_names,
                  facts.prompt_ended_reasoning, facts.stream_reads)
    n = E.badness(facts.nonstream, facts.stream, facts.text, facts.markers, facts.literals, facts.tool_names,
                  facts.prompt_ended_reasoning, facts.reads)
    right_s, right_n = E.score(s) == 0, E.score(n) == 0
    if right_s and not right_n:
        return "parser_nonstreaming", None, n
    if not right_s and not right_n:
        return "parser_nonstreaming", "parser_streaming", n
    return "parser_streaming", None, s


def _shortfall(b: dict) -> str:
    parts = []
    if b["bad_calls"]:
        parts.append(f"{b['bad_calls']} call(s) without a name or with arguments that are not valid JSON")
    if b["leaked"]:
        parts.append("parser markup in the text fields: " + ", ".join(map(repr, b["leaked"])))
    if b["missing_calls"]:
        parts.append(f"{b['missing_calls']} well-formed call(s) fewer than the other mode")
    if b["lost_words"]:
        shown = f" ({', '.join(map(repr, b['lost']))})" if b.get("lost") else ""
        parts.append(f"{b['lost_words']} word(s) of the text fewer than the other mode{shown}")
    if b.get("reasoning_after_prompt"):
        parts.append("reasoning although the prompt already closed thinking (the parser's is_reasoning_end on the "
                     "prompt ids, which the streaming path asks and Parser.parse never does)")
    return "; ".join(parts) or "it differs from the non-streaming answer, which is the reference"


def classify(facts: Facts, where: Callable[[str | None, str], dict | None]) -> list[Cause]:
    """Causes, most likely first. ``where(role, mode, step=None)`` locates a parser method (the
    step at fault, where known, in the deltas as given)."""
    causes: list[Cause] = []
    by_kind: dict[str, list] = {}
    for f in facts.findings:
        by_kind.setdefault(f.kind, []).append(f)
    modes = [f for f in by_kind.get(STREAM_VS_NONSTREAM, []) if f.severity == SEVERE]

    for d in facts.diagnoses:
        causes.append(Cause("configuration", d.message, [f"{d.code}: {d.fix}" if d.fix else d.code]))

    finals = (facts.stream, facts.nonstream)
    opened = E.open_at_end(facts.text, facts.pairs, finals, facts.literals, facts.starts)
    if opened and facts.finish == "length" and modes:
        causes.append(Cause("truncation", f"max_tokens cut the output inside a tool call: {opened}",
                            ['finish_reason "length": the call is incomplete; what each mode makes of the cut call '
                             "differs (clients must treat length as an incomplete call; raise max_tokens)"]))
    elif opened and facts.finish == "stop":
        causes.append(Cause("model_output", f"the model stopped inside a tool call: {opened}",
                            ["finish_reason \"stop\" with the call's markup or arguments still open"]))
    invalid = E.invalid_written(facts.text, finals, facts.starts)
    invalid_cause = Cause("model_output", "the model wrote tool-call JSON that is not valid: " + ", ".join(invalid),
                          ["as written in the text, not as parsed"]) if invalid else None
    if invalid_cause and not _dropped_after_invalid(facts, by_kind.get(TEXT_DROPPED, [])):
        causes.append(invalid_cause)
        invalid_cause = None
    unknown = E.unknown_names(finals, facts.tool_names)
    if unknown:
        causes.append(Cause("model_output", "the model called function(s) the request does not offer: "
                            + ", ".join(map(repr, unknown)),
                            [f"tools offered: {', '.join(sorted(facts.tool_names))}"]))

    calls_differ = any(f.field == "tool_calls" for f in modes)
    for f in modes:
        if f.field == "finish_reason" and not calls_differ:
            causes.append(Cause("serving", f"the finish_reason differs: stream {f.stream!r}, non-stream "
                                f"{f.nonstream!r}, while both modes agree on the calls",
                                [f.detail], findings=[_key(f)]))
    parser_modes = [f for f in modes if f.field != "finish_reason"]
    if parser_modes:
        path, also, short = _paths(facts)
        first = min(parser_modes, key=lambda f: f.first_step or 0)
        role = _role(facts, first)
        fields = ", ".join(f.field for f in parser_modes)
        for n, cls in enumerate([path] + ([also] if also else [])):
            mode = "streaming" if cls == "parser_streaming" else "nonstreaming"
            summary = (f"streaming and non-streaming disagree on {fields} (from step {first.first_step}); the "
                       f"{mode.replace('non', 'non-')} answer falls short: {_shortfall(short)}" if n == 0 else
                       "the streaming answer falls short of the text too")
            cause = Cause(cls, summary, [f.headline() for f in parser_modes], where=where(role, mode, first.first_step),
                          findings=[_key(f) for f in parser_modes])
            if opened:  # inherent in a call that never closes: secondary
                cause.evidence.append("the text ends inside the call, so streaming had to send before it could know")
            causes.append(cause)

    # A parser method that raises is a defect in that method; a stream that depends on the
    # grouping can follow from it (the same broken split runs in both paths), never the reverse.
    for f in by_kind.get(ERROR, []):
        mode = "nonstreaming" if f.field == "parse" else "streaming"
        causes.append(Cause("parser_nonstreaming" if mode == "nonstreaming" else "parser_streaming",
                            f.detail, [f.headline()], where=where(_role(facts, f), mode), findings=[_key(f)]))
    chunked = [f for f in by_kind.get(CHUNKING, []) if f.severity == SEVERE]
    if chunked:
        f = min(chunked, key=lambda f: f.first_step or 0)
        g = f.extra.get("minimal_grouping") or f.extra.get("grouping") or f.chunking
        causes.append(Cause("parser_streaming", f"the streamed {', '.join(sorted({x.field for x in chunked}))} "
                            f"depend(s) on how the tokens are grouped into deltas: minimal grouping "
                            f"--chunking {g}", [x.headline() for x in chunked], where=where(_role(facts, f), "streaming"),
                            findings=[_key(x) for x in chunked]))
    stream_contract = [f for f in by_kind.get(CONTRACT, []) if f.chunking != "nonstream"]
    # A configuration problem (no or the wrong parser, tools off) explains markup in content.
    if stream_contract and not opened and not facts.diagnoses and not any(c.cls == "parser_streaming" for c in causes):
        f = stream_contract[0]
        causes.append(Cause("parser_streaming", f"the stream breaks the client contract: {f.detail}",
                            [x.headline() for x in stream_contract], where=where(_role(facts, f), "streaming"),
                            findings=[_key(x) for x in stream_contract]))
    for f in by_kind.get(TEXT_DROPPED, []):
        role = _role(facts, f)
        causes.append(Cause("parser_nonstreaming", f"text of the model output is lost in both modes: {f.detail}",
                            [d["context"] for d in f.extra.get("dropped", [])][:3],
                            where=where(role, "nonstreaming"), findings=[_key(f)]))
        causes.append(Cause("parser_streaming", "the streaming path loses the same text",
                            [f.headline()], where=where(role, "streaming"), findings=[_key(f)]))
    if facts.parallel_tool_calls is False:
        for name, final in (("stream", facts.stream), ("non-stream", facts.nonstream)):
            if len(final.tool_calls) > 1:
                causes.append(Cause("serving", f"parallel_tool_calls is false, yet the {name} answer has "
                                    f"{len(final.tool_calls)} calls", ["vLLM's serving layer keeps call 0 only"]))
    if invalid_cause:  # the parser dropped the text of the body it could not read: that comes first
        invalid_cause.evidence.append("the parser then drops that text in both modes (text_dropped)")
        causes.append(invalid_cause)
    broken = E.broken_and_lost(facts.text, facts.pairs, finals)
    if broken and not any(c.cls in PARSER for c in causes):
        causes.append(Cause("model_output", "the model broke the call's markup: " + "; ".join(broken[:2]),
                            ["both modes read the broken markup alike; the format is the model's to keep"]))
    for f in by_kind.get(ARGUMENTS_BUFFERED, []):
        causes.append(Cause("parser_streaming", f"arguments are buffered, not streamed: {f.detail}", [f.headline()],
                            severity=WARNING, where=where("tool", "streaming"), findings=[_key(f)]))
    return _dedupe(causes)


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
    rank = {SEVERE: 0, WARNING: 1, COSMETIC: 2}
    return sorted(out, key=lambda c: rank.get(c.severity, 3))
