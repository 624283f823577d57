"""Which other registered parser would read this text better: tried, never guessed.

Only parsers whose own markers occur in the text run (a parser whose markers are not
in the vocabulary cannot even start; one whose markers are absent finds nothing), plus
those that have no markers at all (pythonic, JSON-only formats). Each candidate runs
through vLLM as the configured one does, and its result is scored by what it gives
a client: well-formed calls in both modes, the modes agreeing, nothing left broken.
A parser is recommended only when it scores better than the configured one.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from workbench.check import evidence as E, props
from workbench.check.compare import final_of
from workbench.check.contract import instance_markers
from workbench.core.messages import MESSAGE_FIELDS
from workbench.core.parsers import ParserSpec, registered_names

if TYPE_CHECKING:
    from collections.abc import Sequence

    from vllm.tokenizers import TokenizerLike

    from workbench.core.deltas import Delta
    from workbench.core.session import Result, Session, Setup

THINK_MARKERS = ("<think>", "</think>")


def error_line(e: BaseException) -> str:
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"


def _hinted(tokenizer_name: str) -> set[str]:
    """Parser names the workbench lists for a built-in tokenizer (a tie-breaker only)."""
    from workbench.core.tokenizers import DESCRIPTIONS

    return set(re.findall(r"[a-z0-9_]+", DESCRIPTIONS.get(tokenizer_name, "")))


def raw_text(tokenizer: TokenizerLike, deltas: Sequence[Delta]) -> str:
    """The output with its special tokens: the markers a parser that keeps them would see."""
    return tokenizer.decode([t for d in deltas for t in d.token_ids], skip_special_tokens=False)


def agrees(result: Result) -> bool:
    """Whether stream and non-stream agree on the message (cosmetic differences allowed)."""
    diffs = props.differences(final_of(result.stream_final), result.nonstream_final, MESSAGE_FIELDS)
    return not any(d.severe for d in diffs)


def candidate_markers(spec: ParserSpec, tokenizer: TokenizerLike, role: str) -> tuple[list[str] | None, str | None]:
    """(the parser's markers for ``role``, None) or (None, why it cannot start)."""
    from workbench.core import parsers
    from workbench.core.runner import make_parser

    try:
        cls = parsers.compose(spec, tokenizer)
        from workbench.core.request import RequestSpec, build_request

        parser = make_parser(cls, tokenizer, build_request(RequestSpec()), {})
    except Exception as e:  # noqa: BLE001  (vLLM's start-up refusal: a finding of the ranking)
        return None, error_line(e)
    return instance_markers(parser).get(role, []), None


def run(setup: Setup, spec: ParserSpec, prompt_ids: Sequence[int], deltas: Sequence[Delta]
        ) -> tuple[Session | None, Result | None, str | None]:
    """(session, Result, None) or (None, None, error) for one parser combination."""
    from workbench.core.session import Session

    try:
        session = Session(replace(setup, parser=spec), prompt_token_ids=prompt_ids)
        # The same ids as this parser's server would detokenize them: its adjust_request may
        # keep special tokens (its markers) that the configured one's stripped.
        result = session.replay(session.deltas_from_groups([list(d.token_ids) for d in deltas],
                                                           deltas[-1].finish_reason or "stop"))
    except Exception as e:  # noqa: BLE001  (listed as that parser's failure)
        return None, None, error_line(e)
    if result.nonstream_final.error:
        return None, None, result.nonstream_final.error
    if result.errors:
        return None, None, f"parse_delta raised at step {result.errors[0].step}: {result.errors[0].error}"
    return session, result, None


def tool_entry(name: str, result: Result, markers: list[str], tool_names: set[str], hinted: set[str]) -> dict:
    ns, st = result.nonstream_final, result.stream_final
    ok_ns, ok_st = E.ok_calls(ns, tool_names), E.ok_calls(st, tool_names)
    both = ns.tool_calls or st.tool_calls
    return {"parser": name, "calls": len(ns.tool_calls), "stream_calls": len(st.tool_calls),
            "ok_calls": len(ok_ns), "ok_stream_calls": len(ok_st),
            "names": [c.name for c in both],
            "known_names": all(c.name in tool_names for c in both) if tool_names else None,
            "valid_json": all(E.valid_json(c.arguments) for c in both),
            "stream_agrees": agrees(result), "content_left": ns.content,
            "markers_found": _share(markers, result.text), "hinted": name in hinted}


def _share(markers: list[str], text: str) -> float:
    """Share of the parser's own markers that occur in the text."""
    return round(sum(m in text for m in markers) / len(markers), 2) if markers else 0.0


def tool_key(r: dict) -> tuple:
    """Larger is better: well-formed calls in both modes first, then agreement, then tidiness."""
    return (min(r["ok_calls"], r["ok_stream_calls"]), r["stream_agrees"], r["ok_calls"] + r["ok_stream_calls"],
            r["valid_json"], r["known_names"] is not False, -len((r["content_left"] or "").strip()),
            r["markers_found"], r["hinted"])


def rank_tools(setup: Setup, reasoning: str | None, prompt_ids: Sequence[int], deltas: Sequence[Delta], text: str,
               failures: list, tool_names: set[str]) -> list[dict]:
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer(setup.tokenizer)
    hinted = _hinted(setup.tokenizer)
    text = raw_text(tok, deltas) + text
    ranked = []
    for name in registered_names()["tool"]:
        markers, err = candidate_markers(ParserSpec(name), tok, "tool")
        if err is not None or (markers and not any(m in text for m in markers)):
            if err is not None and _mentions_text(err, text):
                failures.append({"kind": "tool", "parser": name, "error": err})
            continue
        _, result, err = run(setup, ParserSpec(name, reasoning), prompt_ids, deltas)
        if err:
            # A parser with no markers of its own (pythonic, JSON, a stub) is tried on every
            # text: its failure says nothing about this one unless it names what is in it.
            if markers or _mentions_text(err, text):
                failures.append({"kind": "tool", "parser": name, "error": err})
            continue
        entry = tool_entry(name, result, markers, tool_names, hinted)
        if entry["ok_calls"] or entry["ok_stream_calls"]:
            ranked.append(entry)
    ranked.sort(key=lambda r: r["parser"])
    ranked.sort(key=tool_key, reverse=True)
    return ranked


def _mentions_text(error: str, text: str) -> bool:
    """Whether a start-up refusal names a marker that is in the text (worth listing)."""
    return any(len(q) > 1 and q in text for q in re.findall(r"['\"]([^'\"]{2,40})['\"]", error))


def reasoning_entry(name: str, result: Result, markers: list[str], hinted: set[str]) -> dict | None:
    r, st = result.nonstream_final.reasoning, result.stream_final
    seen = (st.content or "") + (st.reasoning or "") + r if r else ""
    if not r or any(m in seen for m in THINK_MARKERS + tuple(markers)):
        return None  # nothing extracted, or the markup is still there
    return {"parser": name, "reasoning_chars": len(r), "stream_agrees": agrees(result),
            "content_left": result.nonstream_final.content,
            "markers_found": _share(markers, result.text), "hinted": name in hinted}


def content_entry(name: str, result: Result, hinted: set[str]) -> dict | None:
    """For an output without thinking: both modes give content and no reasoning, and agree."""
    st, ns = result.stream_final, result.nonstream_final
    if st.reasoning or ns.reasoning or not (ns.content or "").strip() or not agrees(result):
        return None
    return {"parser": name, "reasoning_chars": 0, "stream_agrees": True, "content_left": ns.content,
            "markers_found": 0, "hinted": name in hinted}


def rank_reasoning(setup: Setup, tool: str | None, prompt_ids: Sequence[int], deltas: Sequence[Delta], text: str,
                   failures: list,
                   prefer_content: bool = False) -> list[dict]:
    """Reasoning parsers whose markers occur in ``text`` (the output, and the prompt's tail
    when it may hold them), ranked. ``prefer_content``: the model did not think, so a parser
    is better when both modes put the answer in content (and agree)."""
    from workbench.core.tokenizers import load_tokenizer

    tok = load_tokenizer(setup.tokenizer)
    hinted = _hinted(setup.tokenizer)
    text = raw_text(tok, deltas) + text
    ranked = []
    for name in registered_names()["reasoning"]:
        markers, err = candidate_markers(ParserSpec(None, name), tok, "reasoning")
        if err is not None or not markers or not any(m in text for m in markers):
            if err is not None and _mentions_text(err, text):
                failures.append({"kind": "reasoning", "parser": name, "error": err})
            continue
        _, result, err = run(setup, ParserSpec(tool, name), prompt_ids, deltas)
        if err:
            failures.append({"kind": "reasoning", "parser": name, "error": err})
            continue
        entry = (content_entry(name, result, hinted) if prefer_content
                 else reasoning_entry(name, result, markers, hinted))
        if entry is not None:
            ranked.append(entry)
    ranked.sort(key=lambda r: (not r["stream_agrees"], -r["markers_found"], not r["hinted"],
                               -r["reasoning_chars"], r["parser"]))
    return ranked
