"""Workbench replay vs a bare vLLM parse_delta loop over the same >=3,000-token stream.

Both sides use hermes + qwen3 on the qwen3 tokenizer and the same deltas; runs
are interleaved so machine noise hits both. Prints the figures, then one JSON
line (last) with ``ratio`` = workbench / bare (goal <= 1.25).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "day": {"type": "integer"}}}}}]


def long_text() -> str:
    thinking = " ".join(f"Step {i}: the user wants the weather, so I consider city number {i}."
                        for i in range(120))
    calls = "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}", '
                      f'"day": {i}}}}}</tool_call>' for i in range(40))
    return f"<think>{thinking}</think>\n\n{calls}"


def bare(parser_cls, tok, request, prompt_ids, deltas):
    parser = parser_cls(tok, request.tools, chat_template_kwargs={})
    t0 = time.perf_counter()
    for d in deltas:
        parser.parse_delta(d.text, list(d.token_ids), request, prompt_token_ids=prompt_ids,
                           finished=d.finished)
    return time.perf_counter() - t0


def workbench_run(session, deltas):
    t0 = time.perf_counter()
    run = session.stream()
    for d in deltas:
        run.feed(d)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    deltas = session.deltas_from_text(long_text())
    n_tokens = sum(len(d.token_ids) for d in deltas)
    assert n_tokens >= 3000, n_tokens
    bare_s, wb_s = [], []
    bare(session.parser_cls, session.tokenizer, session.request, session.prompt_ids, deltas)  # warm-up
    workbench_run(session, deltas)
    for _ in range(args.rounds):
        bare_s.append(bare(session.parser_cls, session.tokenizer, session.request,
                           session.prompt_ids, deltas))
        wb_s.append(workbench_run(session, deltas))
    b, w = statistics.median(bare_s), statistics.median(wb_s)
    result = {"bench": "replay_overhead", "tokens": n_tokens, "deltas": len(deltas),
              "rounds": args.rounds, "bare_ms": round(b * 1e3, 1), "workbench_ms": round(w * 1e3, 1),
              "bare_us_per_delta": round(b / len(deltas) * 1e6, 1),
              "workbench_us_per_delta": round(w / len(deltas) * 1e6, 1),
              "ratio": round(w / b, 3), "goal": 1.25}
    if not args.json:
        print(f"{n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} interleaved rounds")
        print(f"bare parse_delta loop: {result['bare_ms']} ms; workbench rows: {result['workbench_ms']} ms")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
