"""The doctor's configuration diagnoses: settings that make a right parser look wrong.

Tool calls that no mode extracts (no tool parser, tools off in the request, a parser
that does not match the text: the registered ones that do are tried and ranked; a chat
template that teaches another markup: chat_templates.py names the shipped one that teaches it),
thinking in content, the whole answer in reasoning, the renamed reasoning field, a
call cut by max_tokens. A fix is only offered when something tried does better.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from workbench.check import evidence as E
from workbench.diagnosis import rank
from workbench.check.contract import parser_markers
from workbench.diagnosis.report import NOTE, PROBLEM, Diagnosis

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vllm.tokenizers import TokenizerLike

    from workbench.core.deltas import Delta
    from workbench.core.parsers import ParserSpec
    from workbench.core.session import Result, Session, Setup

THINK_MARKERS = rank.THINK_MARKERS
ANY_TOOL = {"type": "function", "function": {"name": "any_tool", "parameters": {"type": "object"}}}


def _clip(value: object, width: int = 160) -> object:
    if not isinstance(value, str) or len(value) <= width:
        return value
    return value[: width - 1] + "…"


def _prompt_tail(tokenizer: TokenizerLike, prompt_ids: Sequence[int]) -> str:
    return tokenizer.decode(list(prompt_ids[-32:]), skip_special_tokens=False)


def _where_calls_went(result: Result, names: list[str]) -> str:
    """Which field carries the text the best parser turned into calls."""
    st, ns = result.stream_final, result.nonstream_final
    for field, values in (("content", (st.content, ns.content)), ("reasoning", (st.reasoning, ns.reasoning))):
        if any(v and any(n and n in v for n in names) for v in values):
            return field
    return ""


def current_entry(result: Result, session: Session, tool_names: set[str]) -> dict:
    markers = parser_markers(session).get("tool", [])
    return rank.tool_entry(session.setup.parser.tool_parser or "-", result, markers, tool_names, set())


@dataclass
class Found:
    """What the settings' diagnosis found: its diagnoses, in order, and the parsers it ranked."""

    diagnoses: list[Diagnosis] = field(default_factory=list)
    tool_parsers: list[dict] = field(default_factory=list)  # ranked, those that extract calls
    reasoning_parsers: list[dict] = field(default_factory=list)


def run(setup: Setup, session: Session, working: ParserSpec, result: Result, deltas: Sequence[Delta],
        tool_names: set[str], findings: Sequence, failures: list[dict]) -> Found:
    """The settings around the parser that make it look wrong, over check's ``findings``;
    ``failures`` gathers the parsers that could not be tried."""
    found = Found()
    tok = session.tokenizer
    stream, nonstream = result.stream_final, result.nonstream_final
    text = result.text

    # Tool calls that neither mode extracts.
    if not E.ok_calls(stream, tool_names) and not E.ok_calls(nonstream, tool_names):
        tools_off = not setup.request.tools or setup.request.tool_choice == "none"
        # With tools off vLLM parses no calls at all; rank as if the request had turned them on.
        # With "required" or a named function, a parser that supports them turns any JSON content
        # into a call (the serving path, not the parser's reading): rank what each reads itself.
        forced = setup.request.tool_choice not in (None, "auto", "none")
        ranking = replace(setup, request=replace(setup.request, tools=setup.request.tools or [ANY_TOOL],
                                                 tool_choice="auto")) if tools_off or forced else setup
        names = set() if tools_off else tool_names
        found.tool_parsers = rank.rank_tools(ranking, working.reasoning_parser, session.prompt_ids, deltas,
                                              text, failures, names)
        mine = current_entry(result, session, names)
        better = [r for r in found.tool_parsers if rank.tool_key(r) > rank.tool_key(mine)
                  and min(r["ok_calls"], r["ok_stream_calls"]) > 0]
        if better:
            best = better[0]
            went = _where_calls_went(result, best["names"])
            arrive = {"content": "tool calls arrive as plain content", "reasoning": "tool calls arrive as reasoning",
                      "": "tool calls reach the client in no field"}[went]
            if working.tool_parser is None:
                code, why = "no_tool_parser", "no tool parser is configured (no auto tool choice)"
                fix = f"start vLLM with --enable-auto-tool-choice --tool-call-parser {best['parser']}"
            elif tools_off:
                code, why = "tools_off_in_request", "the request has no tools or tool_choice \"none\""
                fix = "send the tools with the request, tool_choice \"auto\""
            else:
                others = f" (then {', '.join(r['parser'] for r in better[1:4])})" if len(better) > 1 else ""
                code = "wrong_tool_parser"
                why = (f"served with {working.tool_parser}; {best['parser']} reads it: use --tool-call-parser "
                       f"{best['parser']}{others}. The {working.tool_parser} parser extracts no well-formed call")
                fix = f"use --tool-call-parser {best['parser']}"
            found.diagnoses.append(Diagnosis(
                code, PROBLEM, f"{arrive}: {why}; {len(better)} registered tool parser(s) extract well-formed "
                f"calls from this text in both modes", fix,
                {"content": _clip(stream.content), "best": best, "current": mine,
                 "ranked": [r["parser"] for r in better]}))
        if not tools_off:  # the prompt taught a markup the text does not use (diagnosis/config/chat_templates.py)
            from workbench.diagnosis.config.chat_templates import wrong_template

            taught = wrong_template(session, text)
            if taught is not None:
                found.diagnoses.append(taught)

    # Calls extracted, yet text lost: another parser may read the same format whole.
    if working.tool_parser and not found.tool_parsers and any(f.kind == "text_dropped" for f in findings):
        kept = keeps_text(setup, session, working, deltas, text, tool_names,
                          min(len(E.ok_calls(stream, tool_names)), len(E.ok_calls(nonstream, tool_names))), failures)
        if kept is not None:
            found.tool_parsers = [kept.evidence["parser"]]
            found.diagnoses.append(kept)

    # Thinking in content, or the answer in reasoning.
    tail = _prompt_tail(tok, session.prompt_ids)
    opened = tail.rfind("<think>") > tail.rfind("</think>")
    if _thinking_markup(stream.content) or _thinking_markup(nonstream.content):
        found.reasoning_parsers = rank.rank_reasoning(setup, working.tool_parser, session.prompt_ids, deltas,
                                                       text, failures)
        best = found.reasoning_parsers[0]["parser"] if found.reasoning_parsers else None
        if working.reasoning_parser is None:
            found.diagnoses.append(Diagnosis(
                "no_reasoning_parser", PROBLEM, "thinking arrives as content: no reasoning parser is configured"
                + (" (and the prompt already opened <think>, so the output only closes it)" if opened else ""),
                f"start vLLM with --reasoning-parser {best}" if best else "start vLLM with the model's --reasoning-parser",
                {"content": _clip(stream.content)}))
        else:
            found.diagnoses.append(Diagnosis(
                "thinking_in_content", PROBLEM,
                f"thinking markup reaches the content although {working.reasoning_parser} is configured"
                + ("; the prompt already opened <think>" if opened else ""),
                "check the chat_template_kwargs (enable_thinking) and the reasoning parser"
                + (f" (served with {working.reasoning_parser}; {best} reads it: use --reasoning-parser {best})"
                   if best and best != working.reasoning_parser else ""),
                {"content": _clip(stream.content), "prompt_tail": tail}))
    else:
        all_reasoning = [name for name, m in (("stream", stream), ("non-stream", nonstream))
                         if m.reasoning and not (m.content or "").strip() and not m.tool_calls]
        # The model opened thinking itself, or max_tokens cut it mid-thought: no parser assumed anything.
        # Thinking on (the prompt opened it, the request asked): the model's output (diagnosis/thinking.py).
        from workbench.diagnosis.thinking import state

        on = working.reasoning_parser and (th := state(session, tail)) is not None and th.on(text)
        if (working.reasoning_parser and all_reasoning and "</think>" not in text and "<think>" not in text
                and deltas[-1].finish_reason != "length" and not on):
            closed = tail.rfind("</think>") > tail.rfind("<think>")
            off = setup.request.chat_template_kwargs.get("enable_thinking") is False
            if closed or off:  # the prompt says the model does not think; the parser assumes it does
                found.reasoning_parsers = rank.rank_reasoning(setup, working.tool_parser, session.prompt_ids,
                                                               deltas, text + tail, failures,
                                                               prefer_content=True)
            better = [r["parser"] for r in found.reasoning_parsers if r["parser"] != working.reasoning_parser]
            found.diagnoses.append(Diagnosis(
                "answer_in_reasoning", PROBLEM,
                f"the whole answer arrives as reasoning ({' and '.join(all_reasoning)}): the output never closes "
                f"thinking, and the {working.reasoning_parser} parser assumes it opened"
                + (" although the prompt closed it" if closed else "")
                + (" (enable_thinking is false)" if off else ""),
                (f"use --reasoning-parser {better[0]}, which reads the prompt's thinking state" if better else
                 'if the model did not think, pass chat_template_kwargs {"enable_thinking": false} and a reasoning '
                 "parser that honours it"),
                {"reasoning": _clip(stream.reasoning or nonstream.reasoning), "prompt_tail": tail,
                 "better": better}))

    # The old reasoning_content field (a chat client's).
    if stream.reasoning and getattr(session, "api", "chat") == "chat":
        chunk = next((r.chunk for r in result.rows if r.chunk and '"reasoning"' in r.chunk), None)
        found.diagnoses.append(Diagnosis(
            "reasoning_field", NOTE,
            "reasoning arrives in delta.reasoning / message.reasoning; a client that reads the old "
            "reasoning_content field sees none of it",
            "read `reasoning` (vLLM accepts `reasoning_content` only in request messages, renaming it)",
            {"chunk": chunk}))

    pairs = E.tool_marker_pairs(session)
    unclosed = E.unclosed_markup(text, pairs)
    if unclosed:
        found.diagnoses.append(Diagnosis(
            "unclosed_markup", NOTE, "the model broke the call's markup: " + "; ".join(unclosed[:3]),
            "the format is the model's to keep (its chat template, sampling); a parser cause named with it is how "
            "vLLM's parser reads the broken markup", {"unclosed": unclosed}))

    # A call cut off by max_tokens.
    if deltas[-1].finish_reason == "length":
        opened_call = E.open_at_end(text, pairs, (stream, nonstream), (), E.tool_starts(session, pairs))
        cut = [c for c in stream.tool_calls if not E.valid_json(c.arguments)]
        if cut or opened_call:
            found.diagnoses.append(Diagnosis(
                "cut_off_call", NOTE,
                "max_tokens cut the output inside a tool call (finish_reason \"length\"): "
                + (f"call {cut[0].index} has incomplete arguments {cut[0].arguments!r}" if cut else opened_call),
                f"raise max_tokens (now {setup.request.max_tokens or 'the default'}); clients must treat "
                "finish_reason \"length\" as an incomplete call",
                {"stream_tool_calls": result.stream["tool_calls"], "nonstream_content": _clip(nonstream.content)}))
    return found

def structural_begins(request: object) -> list[str]:
    """The call openers of the structural tag adjust_request set for a forced tool_choice."""
    import json

    so = getattr(request, "structured_outputs", None)
    tag = getattr(so, "structural_tag", None) if so is not None else None
    if not tag:
        return []
    try:
        spec = json.loads(tag) if isinstance(tag, str) else tag
    except ValueError:
        return []
    found: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if node.get("type") == "tag" and isinstance(node.get("begin"), str) and node["begin"].strip():
                found.append(node["begin"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(spec)
    return found if '"at_least_one": true' in json.dumps(spec) else []


def _thinking_markup(content: str | None) -> bool:
    """Content that carries thinking: it opens with the opener, or holds a closer. A lone
    opener inside prose is the model writing about the tag, not thinking."""
    text = (content or "").lstrip()
    return text.startswith(THINK_MARKERS[0]) or THINK_MARKERS[1] in text


def keeps_text(setup: Setup, session: Session, working: ParserSpec, deltas: Sequence[Delta], text: str,
               tool_names: set[str], mine_ok: int, failures: list[dict]) -> Diagnosis | None:
    """A note naming a registered tool parser that extracts as many calls in both modes and
    loses no text of this output (measured as check's text_dropped is)."""
    from workbench.check import coverage
    from workbench.check.contract import format_literals
    from workbench.core.parsers import ParserSpec

    ranked = rank.rank_tools(setup, working.reasoning_parser, session.prompt_ids, deltas, text, failures,
                             tool_names)
    for r in ranked:
        if r["parser"] == working.tool_parser or min(r["ok_calls"], r["ok_stream_calls"]) < max(mine_ok, 1):
            continue
        other, result, err = rank.run(setup, ParserSpec(r["parser"], working.reasoning_parser), session.prompt_ids,
                                      deltas)
        if err or other is None or result is None:
            continue
        markers = sorted({m for ms in parser_markers(other).values() for m in ms})
        finals = (result.nonstream_final, result.stream_final)
        if coverage.uncovered(result.text, format_literals(other, markers), finals, E.tool_marker_pairs(other)):
            continue
        return Diagnosis(
            "parser_keeps_text", NOTE,
            f"the {r['parser']} parser extracts {r['ok_calls']} call(s) from this text in both modes and loses none "
            f"of it, where {working.tool_parser} drops text",
            f"if the model writes {r['parser']}'s format, use --tool-call-parser {r['parser']}", {"parser": r})
    return None
