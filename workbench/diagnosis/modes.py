"""Which parser path a stream-vs-non-stream difference is blamed on: the client contract
first, then what is lost.

A mode breaks the client contract when its answer is one a client cannot use as sent: a
call without a name or with arguments that are not valid JSON (a call that never closes
reads the same), parser markup in a text field or in arguments the other mode does not
have. A mode that breaks it is the suspect before any count of words (diagnosis/strength.py):
a stream that sends ``, "arguments": {...}`` or arguments that never join to valid JSON is
at fault even when the non-streaming answer, clean, carries words fewer. Only where the
model broke the call's markup itself (a ``<parameter=`` not closed before ``</function>``)
must the clean answer also carry every word the model wrote to decide alone: broken JSON
is then what the stream makes of broken markup. Otherwise (both modes break it, neither
does) the one that loses more of the text (calls, words) is blamed first: when both fall
short, the non-streaming path (the parser's reading of the format) and the streaming one
after it; when neither does, the streaming path (the non-streaming answer is the reference).

Each decision says its evidence: "contract", "markup" (the other mode carries every word
of the text, the blamed one does not), or "words".
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from workbench.check import coverage, evidence as E

if TYPE_CHECKING:
    from collections.abc import Callable

    from workbench.diagnosis.facts import Facts

STREAMING, NONSTREAMING = "parser_streaming", "parser_nonstreaming"


def contract(b: dict) -> int:
    """How many ways an answer breaks the client contract (evidence.badness's dict)."""
    return b["bad_calls"] + len(b["leaked"])


def loss(b: dict) -> int:
    """How much of the text an answer loses next to the other mode."""
    return b["missing_calls"] + (1 if b["lost_words"] else 0) + (1 if b.get("reasoning_after_prompt") else 0)


def shortfalls(facts: Facts) -> tuple[dict, dict]:
    """(the stream's, the non-streaming answer's) evidence.badness against each other."""
    s = E.badness(facts.stream, facts.nonstream, facts.text, facts.markers, facts.literals, facts.tool_names,
                  facts.prompt_ended_reasoning, facts.stream_reads)
    n = E.badness(facts.nonstream, facts.stream, facts.text, facts.markers, facts.literals, facts.tool_names,
                  facts.prompt_ended_reasoning, facts.reads)
    return s, n


def paths(facts: Facts) -> tuple[str, str | None, dict, str]:
    """(the path at fault, a second path also at fault or None, the first one's shortfall,
    the kind of evidence that decided it)."""
    s, n = shortfalls(facts)
    s_breaks, n_breaks = contract(s) > 0, contract(n) > 0
    clean = facts.nonstream if s_breaks else facts.stream
    clean_reads = facts.reads if s_breaks else facts.stream_reads
    if s_breaks != n_breaks and (not E.unclosed_markup(facts.text, facts.pairs)
                                 or complete(facts, clean, clean_reads)):
        first, second, other = (STREAMING, NONSTREAMING, n) if s_breaks else (NONSTREAMING, STREAMING, s)
        return first, second if loss(other) else None, s if s_breaks else n, "contract"
    right_s, right_n = E.score(s) == 0, E.score(n) == 0
    if right_s and not right_n:
        return NONSTREAMING, None, n, "markup" if complete(facts, facts.stream, _either(facts)) else "words"
    if not right_s and not right_n:
        return NONSTREAMING, STREAMING, n, "words"
    return STREAMING, None, s, "markup" if complete(facts, facts.nonstream, _either(facts)) else "words"


def _either(facts: Facts) -> Callable | None:
    """Syntax to either parser path (a word one path reads as the format's is no lost word)."""
    readers = [r for r in (facts.reads, facts.stream_reads) if r is not None]
    return (lambda ms: any(r(ms) for r in readers)) if readers else None


def complete(facts: Facts, final: object, reads: Callable | None) -> bool:
    """Whether ``final`` carries every word of the text (its format's syntax aside, asked of
    the parser with ``reads``): a clean answer that also drops text the model wrote (a value
    lost in both modes) is no reference, and the contract does not decide alone."""
    missed = coverage.uncovered(facts.text, facts.literals, (final,))
    if not missed:
        return True
    by_word: dict[str, list] = {}
    for m in missed:
        by_word.setdefault(m.group(), []).append(m)
    if reads is None or len(by_word) > coverage.MAX_PROBES:
        return False
    return all(reads(ms) for ms in by_word.values())


def shortfall(b: dict) -> str:
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


def verdict(b: dict) -> str:
    """How the blamed answer falls short, in the words a client would use."""
    return ("breaks the client contract: " if contract(b) else "falls short: ") + shortfall(b)
