"""`workbench doctor`: the usual "why does my client see this?" causes, diagnosed.

Every answer comes from running vLLM: the configured parsers on the stream, and,
when tool calls arrive as plain content, every registered tool parser on the
same text (ranked by what they extract). A parser that cannot start, or raises,
is a finding of the diagnosis, so it is caught per parser and listed.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING

from workbench.check import props
from workbench.check.compare import final_of
from workbench.check.contract import parser_markers
from workbench.core.messages import MESSAGE_FIELDS
from workbench.core.parsers import ParserSpec, registered_names

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any
    from vllm.tokenizers import TokenizerLike
    from workbench.core.deltas import Delta
    from workbench.core.session import Session
    from workbench.core.session import Setup

PROBLEM, NOTE = "problem", "note"
THINK_MARKERS = ("<think>", "</think>")
ANY_TOOL = {"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}


@dataclass
class Diagnosis:
    code: str
    severity: str  # problem | note
    message: str
    fix: str = ""
    evidence: dict = field(default_factory=dict)


@dataclass
class DoctorReport:
    setup: dict
    diagnoses: list[Diagnosis] = field(default_factory=list)
    tool_parsers: list[dict] = field(default_factory=list)  # ranked, those that extract calls
    reasoning_parsers: list[dict] = field(default_factory=list)
    failures: list[dict] = field(default_factory=list)  # {"kind", "parser", "error"}

    @property
    def ok(self) -> bool:
        return not any(d.severity == PROBLEM for d in self.diagnoses)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "setup": self.setup, "diagnoses": [asdict(d) for d in self.diagnoses],
                "tool_parsers": self.tool_parsers, "reasoning_parsers": self.reasoning_parsers,
                "failures": self.failures}


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def start_error(spec: ParserSpec, tokenizer: TokenizerLike) -> str | None:
    """Why vLLM cannot compose this parser for this tokenizer, or None."""
    from workbench.core import parsers

    try:
        parsers.compose(spec, tokenizer)
    except Exception as e:  # noqa: BLE001  (WorkbenchError from vLLM's TypeError, ImportError...)
        return _error(e)
    return None


def _session(setup: Setup, spec: ParserSpec, prompt_ids: Sequence[int]):
    from workbench.core.session import Session

    return Session(replace(setup, parser=spec), prompt_token_ids=prompt_ids)


def _run(setup: Setup, spec: ParserSpec, prompt_ids: Sequence[int], deltas: Sequence[Delta]):
    """(session, Result, None) or (None, None, error) for one parser combination on the stream."""
    try:
        session = _session(setup, spec, prompt_ids)
        result = session.replay(deltas)
    except Exception as e:  # noqa: BLE001  (listed as that parser's failure)
        return None, None, _error(e)
    if result.nonstream_final.error:
        return None, None, result.nonstream_final.error
    if result.errors:
        return None, None, f"parse_delta raised at step {result.errors[0].step}: {result.errors[0].error}"
    return session, result, None


def _marker_match(session: Session, role: str, text: str) -> float:
    """Share of the parser's own markers for ``role`` that occur in the text."""
    marks = parser_markers(session).get(role) or []
    return sum(m in text for m in marks) / len(marks) if marks else 0.0


def _hinted(tokenizer_name: str) -> set[str]:
    """Parser names the workbench lists for a built-in tokenizer (a tie-breaker only)."""
    from workbench.core.tokenizers import DESCRIPTIONS

    return set(re.findall(r"[a-z0-9_]+", DESCRIPTIONS.get(tokenizer_name, "")))


def _agrees(result) -> bool:
    """Whether stream and non-stream agree on the message (cosmetic differences allowed)."""
    diffs = props.differences(final_of(result.stream_final), result.nonstream_final, MESSAGE_FIELDS)
    return all(d.cosmetic for d in diffs)


def rank_tool_parsers(setup: Setup, reasoning, prompt_ids: Sequence[int], deltas: Sequence[Delta], report: DoctorReport) -> list[dict]:
    names = {t["function"]["name"] for t in setup.request.tools or [] if "function" in t}
    hinted = _hinted(setup.tokenizer)
    ranked = []
    for name in registered_names()["tool"]:
        session, result, err = _run(setup, ParserSpec(name, reasoning), prompt_ids, deltas)
        if err:
            report.failures.append({"kind": "tool", "parser": name, "error": err})
            continue
        calls = result.nonstream_final.tool_calls
        streamed = result.stream_final.tool_calls
        if not calls and not streamed:
            continue
        both = calls or streamed
        ranked.append({
            "parser": name, "calls": len(calls), "stream_calls": len(streamed),
            "names": [c.name for c in both],
            "known_names": all(c.name in names for c in both) if names else None,
            "valid_json": all(_valid_json(c.arguments) for c in both),
            "stream_agrees": _agrees(result),
            "content_left": result.nonstream_final.content,
            "markers_found": round(_marker_match(session, "tool", result.text), 2),
            "hinted": name in hinted})
    ranked.sort(key=lambda r: (not r["stream_agrees"], -min(r["calls"], r["stream_calls"]),
                               not r["valid_json"], r["known_names"] is False,
                               len((r["content_left"] or "").strip()), -r["markers_found"], not r["hinted"],
                               r["parser"]))
    return ranked


def rank_reasoning_parsers(setup: Setup, tool, prompt_ids: Sequence[int], deltas: Sequence[Delta], report: DoctorReport) -> list[dict]:
    hinted = _hinted(setup.tokenizer)
    ranked = []
    for name in registered_names()["reasoning"]:
        session, result, err = _run(setup, ParserSpec(tool, name), prompt_ids, deltas)
        if err:
            report.failures.append({"kind": "reasoning", "parser": name, "error": err})
            continue
        r, st = result.nonstream_final.reasoning, result.stream_final
        seen = (st.content or "") + (st.reasoning or "") + r if r else ""
        if not r or any(m in seen for m in THINK_MARKERS):
            continue  # nothing extracted, or the markup is still there
        ranked.append({"parser": name, "reasoning_chars": len(r),
                       "stream_agrees": _agrees(result),
                       "content_left": result.nonstream_final.content,
                       "markers_found": round(_marker_match(session, "reasoning", result.text), 2),
                       "hinted": name in hinted})
    ranked.sort(key=lambda r: (not r["stream_agrees"], -r["markers_found"], not r["hinted"],
                               -r["reasoning_chars"], r["parser"]))
    return ranked


def _valid_json(text: str) -> bool:
    try:
        json.loads(text or "")  # the model's own text, as a client would test it
    except (ValueError, RecursionError):
        return False
    return True


def _prompt_tail(tokenizer: TokenizerLike, prompt_ids: Sequence[int]) -> str:
    return tokenizer.decode(list(prompt_ids[-32:]), skip_special_tokens=False)


def diagnose(setup: Setup, deltas: Sequence[Delta] | None = None, text: str | None = None, prompt_ids: Sequence[int] | None = None,
             finish_reason: str = "stop") -> DoctorReport:
    """Diagnose a recording's ``deltas`` or a ``text`` under ``setup``."""
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer(setup.tokenizer)
    spec = setup.parser
    report = DoctorReport(setup={"tokenizer": setup.tokenizer, "parser": spec.to_dict(),
                                 "tool_choice": setup.request.tool_choice,
                                 "tools": len(setup.request.tools or [])})
    working = spec
    if spec.tool_parser or spec.reasoning_parser or spec.config:
        err = start_error(spec, tok)
        if err:
            parts = [("tool", ParserSpec(spec.tool_parser)), ("reasoning", ParserSpec(None, spec.reasoning_parser))]
            broken = [kind for kind, s in parts if (s.tool_parser or s.reasoning_parser) and start_error(s, tok)]
            report.diagnoses.append(Diagnosis(
                "parser_cannot_start", PROBLEM,
                f"vLLM refuses {spec.label()} with the {setup.tokenizer} tokenizer (its markers are not in "
                f"the vocabulary): {err}",
                "use the model's own tokenizer, or a parser that matches this one (see the rankings)",
                {"error": err, "broken": broken or ["combination"]}))
            working = ParserSpec(None if "tool" in broken or not broken else spec.tool_parser,
                                 None if "reasoning" in broken or not broken else spec.reasoning_parser)
    session = _session(setup, working, prompt_ids)  # the working parts start: checked above
    if deltas is None:
        deltas = session.deltas_from_text(text, finish_reason=finish_reason)
    result = session.replay(deltas)
    stream, nonstream = result.stream_final, result.nonstream_final
    content = (stream.content or "") + (nonstream.content or "")
    report.setup["finish_reason"] = deltas[-1].finish_reason

    # Tool calls arriving as plain content.
    if not stream.tool_calls and not nonstream.tool_calls:
        tools_off = not setup.request.tools or setup.request.tool_choice == "none"
        # With tools off vLLM parses no calls at all; rank as if the request had turned them on.
        ranking = replace(setup, request=replace(setup.request, tools=setup.request.tools or [ANY_TOOL],
                                                 tool_choice="auto")) if tools_off else setup
        report.tool_parsers = rank_tool_parsers(ranking, working.reasoning_parser, session.prompt_ids, deltas,
                                                report)
        if report.tool_parsers:
            best = report.tool_parsers[0]["parser"]
            if working.tool_parser is None:
                code, why = "no_tool_parser", "no tool parser is configured (no auto tool choice)"
                fix = f"start vLLM with --enable-auto-tool-choice --tool-call-parser {best}"
            elif tools_off:
                code, why = "tools_off_in_request", "the request has no tools or tool_choice \"none\""
                fix = "send the tools with the request, tool_choice \"auto\""
            else:
                code, why = "wrong_tool_parser", f"the {working.tool_parser} parser extracts no call from it"
                fix = f"use --tool-call-parser {best}"
            report.diagnoses.append(Diagnosis(
                code, PROBLEM, f"tool calls arrive as plain content: {why}; "
                f"{len(report.tool_parsers)} registered tool parser(s) extract calls from this text", fix,
                {"content": _clip(stream.content), "best": report.tool_parsers[0]}))

    # Thinking in content, or the answer in reasoning.
    tail = _prompt_tail(tok, session.prompt_ids)
    opened = tail.rfind("<think>") > tail.rfind("</think>")
    if any(m in content for m in THINK_MARKERS):
        report.reasoning_parsers = rank_reasoning_parsers(setup, working.tool_parser, session.prompt_ids, deltas,
                                                          report)
        best = report.reasoning_parsers[0]["parser"] if report.reasoning_parsers else "qwen3"
        if working.reasoning_parser is None:
            report.diagnoses.append(Diagnosis(
                "no_reasoning_parser", PROBLEM, "thinking arrives as content: no reasoning parser is configured"
                + (" (and the prompt already opened <think>, so the output only closes it)" if opened else ""),
                f"start vLLM with --reasoning-parser {best}", {"content": _clip(stream.content)}))
        else:
            report.diagnoses.append(Diagnosis(
                "thinking_in_content", PROBLEM,
                f"thinking markup reaches the content although {working.reasoning_parser} is configured"
                + ("; the prompt already opened <think>" if opened else ""),
                "check the chat_template_kwargs (enable_thinking) and the reasoning parser",
                {"content": _clip(stream.content), "prompt_tail": tail}))
    elif working.reasoning_parser and stream.reasoning and not stream.content \
            and not stream.tool_calls and "</think>" not in result.text:
        report.diagnoses.append(Diagnosis(
            "answer_in_reasoning", PROBLEM,
            "the whole answer arrives as reasoning: the output never closes thinking, and the "
            f"{working.reasoning_parser} parser assumes it opened"
            + (" (the prompt closed it already)" if tail.rfind("</think>") > tail.rfind("<think>") else ""),
            'if the model did not think, pass chat_template_kwargs {"enable_thinking": false}',
            {"reasoning": _clip(stream.reasoning), "prompt_tail": tail}))

    # The old reasoning_content field.
    if stream.reasoning:
        chunk = next((r.chunk for r in result.rows if r.chunk and '"reasoning"' in r.chunk), None)
        report.diagnoses.append(Diagnosis(
            "reasoning_field", NOTE,
            "reasoning arrives in delta.reasoning / message.reasoning; a client that reads the old "
            "reasoning_content field sees none of it",
            "read `reasoning` (vLLM accepts `reasoning_content` only in request messages, renaming it)",
            {"chunk": chunk}))

    # A call cut off by max_tokens.
    if deltas[-1].finish_reason == "length":
        marks = parser_markers(session).get("tool", [])
        starts = [m for m in marks if "/" not in m and m in result.text]
        cut = [c for c in stream.tool_calls if not _valid_json(c.arguments)]
        open_markup = any(result.text.count(s) > result.text.count(s.replace("<", "</", 1)) for s in starts)
        if cut or open_markup:
            report.diagnoses.append(Diagnosis(
                "cut_off_call", PROBLEM,
                "max_tokens cut the output inside a tool call (finish_reason \"length\"): "
                + (f"call {cut[0].index} has incomplete arguments {cut[0].arguments!r}" if cut
                   else "the call markup is never closed"),
                f"raise max_tokens (now {setup.request.max_tokens or 'the default'}); clients must treat "
                "finish_reason \"length\" as an incomplete call",
                {"stream_tool_calls": result.stream["tool_calls"], "nonstream_content": _clip(nonstream.content)}))
    return report


def _clip(value: Any, width: int = 160):
    if not isinstance(value, str) or len(value) <= width:
        return value
    return value[: width - 1] + "…"
