"""Workbench rows and replay vs a bare vLLM parse_delta loop over the same deltas, side by side.

hermes + qwen3 on the qwen3 tokenizer. Each round is one lockstep pass: a bare parser
(vLLM alone, as the server's loop calls it) and a ``StreamRun`` (what replay, the
widget and the engine feed) take the same deltas in turn, one delta each, the order
alternating, every call timed; the replay's tail (``Session.result_of``: the joined
stream and the non-streaming answer) is timed after the loop. So at every moment both
sides run on the same machine, and load moves both alike (whole runs, even interleaved,
swung 1.1-1.5x between rounds on a shared 2-core machine). The cyclic GC is paused over
the loop on both sides, as ``Session.replay`` pauses it over its feeds. Replay also
answers non-streaming (a fresh parser's ``parse`` on the whole text and its reasoning-token
count, vLLM's work): its bare side is the loop plus that answer made bare.

Streams: the 3,563-token tool stream (120 reasoning sentences, 40 tool calls): ``rows``
(goal <= 1.10) and ``replay`` (rows + its tail, goal <= 1.10); and a reasoning-then-content
stream (bench/recording_scale.py's) at 3,563 and at ``--long`` N deltas (default 100,000,
the stated limit; a few minutes), ``replay`` vs bare at both lengths (goal <= 1.20 at N, the
issue's 100,000-delta row), and the workbench's own microseconds a delta at both: flat with
length is the own cost staying put while vLLM's grows with the square. At 3,563 deltas vLLM's
content-phase ``parse_delta`` is cheap (~5-6 us a delta), so there the same ~1.5-2 us of the
workbench reads as 1.3x: the ratio printed, with no goal. ``--long 0`` skips it. ``whole`` gives whole runs interleaved as well (the
old measure, noisier). Prints the figures, then one JSON line (last) with ``ratio`` =
rows / bare on the tool stream, ``ratio_replay`` and ``ratio_long``.
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


def fresh_parser(session):
    return session.parser_cls(session.tokenizer, session.request.tools, chat_template_kwargs={})


def lockstep(session, deltas) -> dict[str, float]:
    """Seconds per side for one pass (module docstring): bare, rows, replay."""
    parser, run = fresh_parser(session), session.stream()  # both made outside the timing
    parse_delta, feed = parser.parse_delta, run.feed
    request, prompt = session.request, session.prompt_ids
    clock = time.perf_counter
    bare_s = rows_s = 0.0
    gc.disable()
    try:
        for i, d in enumerate(deltas):
            if i & 1:
                t0 = clock()
                feed(d)
                t1 = clock()
                parse_delta(d.text, list(d.token_ids), request, prompt_token_ids=prompt, finished=d.finished)
                t2 = clock()
                rows_s += t1 - t0
                bare_s += t2 - t1
            else:
                t0 = clock()
                parse_delta(d.text, list(d.token_ids), request, prompt_token_ids=prompt, finished=d.finished)
                t1 = clock()
                feed(d)
                t2 = clock()
                bare_s += t1 - t0
                rows_s += t2 - t1
    finally:
        gc.enable()
    text, ids = "".join(d.text for d in deltas), [t for d in deltas for t in d.token_ids]
    t0 = clock()
    answer = fresh_parser(session)  # vLLM's non-streaming answer, bare, as the server makes it
    answer.set_prompt_token_ids(list(prompt))
    answer.parse(text, request, enable_auto_tools=session.enable_auto_tools, model_output_token_ids=ids)
    answer.count_reasoning_tokens(ids)
    t1 = clock()
    session.result_of(run, deltas[-1].finish_reason or "stop")
    t2 = clock()
    return {"bare": bare_s, "rows": rows_s, "bare_replay": bare_s + t1 - t0, "replay": rows_s + t2 - t1}


def measure(session, deltas, rounds: int, warm: bool = True) -> dict[str, float]:
    """Median seconds per side, and ``ratio``/``ratio_replay``: the median of the rounds'
    own ratios."""
    if warm:
        lockstep(session, deltas)
    passes = []
    for _ in range(rounds):
        gc.collect()
        passes.append(lockstep(session, deltas))
    out = {side: statistics.median(p[side] for p in passes) for side in passes[0]}
    out["ratio"] = statistics.median(p["rows"] / p["bare"] for p in passes)
    out["ratio_replay"] = statistics.median(p["replay"] / p["bare_replay"] for p in passes)
    return out


def whole_runs(session, deltas, rounds: int) -> dict[str, float]:
    """The old measure: whole runs (bare loop, feed loop, Session.replay), interleaved."""
    def bare(d):
        parser = fresh_parser(session)
        t0 = time.perf_counter()
        for x in d:
            parser.parse_delta(x.text, list(x.token_ids), session.request,
                               prompt_token_ids=session.prompt_ids, finished=x.finished)
        return time.perf_counter() - t0

    def rows(d):
        run = session.stream()
        t0 = time.perf_counter()
        for x in d:
            run.feed(x)
        return time.perf_counter() - t0

    def replay(d):
        t0 = time.perf_counter()
        session.replay(d)
        return time.perf_counter() - t0

    sides = {"bare": bare, "rows": rows, "replay": replay}
    times: dict[str, list[float]] = {name: [] for name in sides}
    for n in range(rounds):
        for name in (list(sides) if n % 2 == 0 else list(sides)[::-1]):
            gc.collect()
            times[name].append(sides[name](deltas))
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--long", type=int, default=100_000, metavar="N",
                    help="the content stream at 3,563 and N deltas (0: skip; 100000: a few minutes)")
    ap.add_argument("--long-rounds", type=int, default=1)
    ap.add_argument("--whole", action="store_true", help="also whole runs, interleaved (noisier)")
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    deltas = session.deltas_from_text(long_text())
    n_tokens = sum(len(d.token_ids) for d in deltas)
    assert n_tokens >= 3000, n_tokens
    t = measure(session, deltas, args.rounds)
    per = lambda s, n: round(s / n * 1e6, 1)  # noqa: E731
    result = {"bench": "replay_overhead", "tokens": n_tokens, "deltas": len(deltas), "rounds": args.rounds,
              "bare_ms": round(t["bare"] * 1e3, 1), "workbench_ms": round(t["rows"] * 1e3, 1),
              "replay_ms": round(t["replay"] * 1e3, 1),
              "bare_us_per_delta": per(t["bare"], len(deltas)),
              "workbench_us_per_delta": per(t["rows"], len(deltas)),
              "ratio": round(t["ratio"], 3), "goal": GOAL_ROWS,
              "bare_replay_ms": round(t["bare_replay"] * 1e3, 1), "ratio_replay": round(t["ratio_replay"], 3)}
    lines = [f"tool stream: {n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} lockstep rounds",
             f"  bare parse_delta {result['bare_ms']} ms ({result['bare_us_per_delta']} us a delta); "
             f"rows {result['workbench_ms']} ms ({result['ratio']}x, goal <= {GOAL_ROWS}); "
             f"replay {result['replay_ms']} ms vs {result['bare_replay_ms']} ms ({result['ratio_replay']}x, goal <= {GOAL_ROWS})"]
    if args.whole:
        w = whole_runs(session, deltas, args.rounds)
        result["whole"] = {k: round(v / w["bare"], 3) for k, v in w.items() if k != "bare"}
        lines.append(f"  whole runs, interleaved: bare {w['bare'] * 1e3:.1f} ms; rows {result['whole']['rows']}x, "
                     f"replay {result['whole']['replay']}x")
    if args.long:
        plain = Session(Setup("qwen3", ParserSpec("hermes", "qwen3")), prompt_token_ids=[])
        result["long"] = []
        for n in (len(deltas), args.long):
            ds = content_deltas(plain.tokenizer, n)
            lt = measure(plain, ds, args.rounds if n < 10_000 else args.long_rounds, warm=n < 10_000)
            r = round(lt["ratio_replay"], 3)
            own = per(lt["replay"] - lt["bare_replay"], n)
            result["long"].append({"deltas": n, "bare_s": round(lt["bare_replay"], 3), "replay_s": round(lt["replay"], 3),
                                   "ratio": r, "ratio_rows": round(lt["ratio"], 3),
                                   "goal": GOAL_REPLAY if n == args.long else None,
                                   "bare_us_per_delta": per(lt["bare_replay"], n), "own_us_per_delta": own})
            lines.append(f"content stream, {n} deltas: bare {lt['bare_replay']:.3f} s, replay {lt['replay']:.3f} s "
                         f"({r}x{f', goal <= {GOAL_REPLAY}' if n == args.long else ''}; rows alone "
                         f"{lt['ratio']:.3f}x); the workbench's own "
                         f"{own} us a delta, vLLM's {per(lt['bare_replay'], n)}")
        result["ratio_long"] = result["long"][-1]["ratio"]
    result["load_avg_1min"] = round(os.getloadavg()[0], 2)
    if not args.json:
        print("\n".join(lines))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
