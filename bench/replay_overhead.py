"""Workbench rows vs a bare vLLM parse_delta loop over the same deltas, side by side.

hermes + qwen3 on the qwen3 tokenizer. Two streams:
- the 3,563-token tool stream (120 reasoning sentences, 40 tool calls): ``rows`` (a
  ``StreamRun`` fed delta by delta, what the widget and the engine do; goal <= 1.10) and
  ``replay`` (``Session.replay``: rows, the joined stream and the non-streaming answer);
- with ``--long N`` also a reasoning-then-content stream (bench/recording_scale.py's) at
  3,563 and at N tokens (100,000: the stated limit; ~2 minutes here), ``replay`` vs bare
  at both lengths (goal <= 1.20, flat with length).
Runs are interleaved so machine noise hits both sides. Prints the figures, then one JSON
line (last) with ``ratio`` = rows / bare on the tool stream.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "day": {"type": "integer"}}}}}]
GOAL_ROWS, GOAL_REPLAY = 1.10, 1.20


def long_text() -> str:
    thinking = " ".join(f"Step {i}: the user wants the weather, so I consider city number {i}."
                        for i in range(120))
    calls = "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}", '
                      f'"day": {i}}}}}</tool_call>' for i in range(40))
    return f"<think>{thinking}</think>\n\n{calls}"


def content_deltas(tok, n: int):
    """``n`` one-token deltas: a short reasoning, then content (bench/recording_scale.py's)."""
    from workbench.core.deltas import Delta

    words = tok.encode(" the weather in Paris is mild today and so the user may go out", add_special_tokens=False)
    think = (tok.encode("<think>", add_special_tokens=False) + words * 3
             + tok.encode("</think>", add_special_tokens=False))
    ids = (think + words * (n // len(words) + 1))[:n]
    texts = {i: tok.decode([i]) for i in set(ids)}
    return [Delta((i,), texts[i], "stop" if k == n - 1 else None) for k, i in enumerate(ids)]


def bare(session, deltas) -> float:
    """vLLM alone: one fresh parser, parse_delta per delta, as the server's loop calls it."""
    parser = session.parser_cls(session.tokenizer, session.request.tools, chat_template_kwargs={})
    request, prompt = session.request, session.prompt_ids
    t0 = time.perf_counter()
    for d in deltas:
        parser.parse_delta(d.text, list(d.token_ids), request, prompt_token_ids=prompt, finished=d.finished)
    return time.perf_counter() - t0


def rows(session, deltas) -> float:
    run = session.stream()  # a fresh parser, as bare makes one (outside the timing on both sides)
    t0 = time.perf_counter()
    for d in deltas:
        run.feed(d)
    return time.perf_counter() - t0


def replay(session, deltas) -> float:
    t0 = time.perf_counter()
    session.replay(deltas)
    return time.perf_counter() - t0


def measure(session, deltas, sides, rounds: int) -> dict:
    """Median seconds per side over interleaved rounds (the order alternates each round)."""
    for side in sides.values():  # warm-up
        side(session, deltas)
    times: dict[str, list[float]] = {name: [] for name in sides}
    for n in range(rounds):
        for name in (list(sides) if n % 2 == 0 else list(sides)[::-1]):
            gc.collect()
            times[name].append(sides[name](session, deltas))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--long", type=int, default=0, metavar="N",
                    help="also the content stream at 3,563 and N deltas (100000: ~2 minutes)")
    ap.add_argument("--long-rounds", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    deltas = session.deltas_from_text(long_text())
    n_tokens = sum(len(d.token_ids) for d in deltas)
    assert n_tokens >= 3000, n_tokens
    t = measure(session, deltas, {"bare": bare, "rows": rows, "replay": replay}, args.rounds)
    per = lambda s, n: round(s / n * 1e6, 1)  # noqa: E731
    result = {"bench": "replay_overhead", "tokens": n_tokens, "deltas": len(deltas), "rounds": args.rounds,
              "bare_ms": round(t["bare"] * 1e3, 1), "workbench_ms": round(t["rows"] * 1e3, 1),
              "replay_ms": round(t["replay"] * 1e3, 1),
              "bare_us_per_delta": per(t["bare"], len(deltas)),
              "workbench_us_per_delta": per(t["rows"], len(deltas)),
              "ratio": round(t["rows"] / t["bare"], 3), "goal": GOAL_ROWS,
              "ratio_replay": round(t["replay"] / t["bare"], 3)}
    lines = [f"tool stream: {n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} interleaved rounds",
             f"  bare parse_delta loop {result['bare_ms']} ms; rows {result['workbench_ms']} ms "
             f"({result['ratio']}x, goal <= {GOAL_ROWS}); replay {result['replay_ms']} ms ({result['ratio_replay']}x)"]
    if args.long:
        plain = Session(Setup("qwen3", ParserSpec("hermes", "qwen3")), prompt_token_ids=[])
        result["long"] = []
        for n in (len(deltas), args.long):
            ds = content_deltas(plain.tokenizer, n)
            lt = measure(plain, ds, {"bare": bare, "replay": replay},
                         args.rounds if n < 10_000 else args.long_rounds)
            r = round(lt["replay"] / lt["bare"], 3)
            result["long"].append({"deltas": n, "bare_s": round(lt["bare"], 2), "replay_s": round(lt["replay"], 2),
                                   "ratio": r, "goal": GOAL_REPLAY})
            lines.append(f"content stream, {n} deltas: bare {lt['bare']:.2f} s, replay {lt['replay']:.2f} s "
                         f"({r}x, goal <= {GOAL_REPLAY})")
        result["ratio_long"] = result["long"][-1]["ratio"]
    result["load_avg_1min"] = round(os.getloadavg()[0], 2)
    if not args.json:
        print("\n".join(lines))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
