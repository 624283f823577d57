"""`workbench check` chunking throughput and shrinking time on a ~300-token stream.

hermes + qwen3 on the qwen3 tokenizer. The stream drafts a tool call inside its
thinking ("wrap each call in a <tool_call> tag"), which splits the pinned vLLM's
streaming and non-streaming answers (the reasoning -> tool handoff class, vLLM
#39056) and makes some groupings fail, so the shrinker has work to do.

Figures: the chunking pass (whole + every two-chunk split + 100 seeded random
groupings, each replayed through fresh parser instances and compared with the
one-token stream; goal <= 2 s), grouping shrinking (goal <= 5 s), and, for
scale, one vLLM re-detokenization of every grouping (what the per-token text
cache avoids). Prints one JSON line, last.
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
    "type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}}}}]


def text() -> str:
    thinking = ("The user asks for the weather in nine French cities. I could answer from memory "
                "but the data would be stale, so I will call the weather tool once per city, and wrap "
                "each call in a <tool_call> tag as the system prompt says. Celsius suits France. ")
    calls = "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "{c}", '
                      f'"unit": "celsius"}}}}</tool_call>'
                      for c in ("Paris", "Lyon", "Nice", "Marseille", "Toulouse", "Bordeaux",
                                "Lille", "Nantes", "Rennes"))
    return f"<think>{thinking}</think>\n\n{calls}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    ap.add_argument("--jobs", type=int, default=0, help="processes (0: one per core, as check does)")
    args = ap.parse_args()

    from workbench.check import compare, groupings as G, parallel, props
    from workbench.check.streams import stream
    from workbench.check.suite import Checker, Options
    from workbench.core.messages import SEVERE
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    deltas = session.deltas_from_text(text())
    n = len(deltas)
    opts = Options(fuzz=100, holdback=0, text_budget_s=0, cost=False, jobs=args.jobs)

    tokens = G.TokenStream.from_deltas(session, deltas)

    def chunking_pass():
        t0 = time.perf_counter()
        _, st = stream(session, deltas)
        base = compare.final_of(st)
        variants = G.whole(n) + G.two_chunk(n) + G.random_groupings(n, 100)

        def probe(item):
            _, st = stream(session, tokens.deltas(item[1]))
            return props.differences(compare.final_of(st), base)

        results = parallel.map_items(probe, variants, args.jobs)
        failing = [v for v, diffs in zip(variants, results) if any(d.severity == SEVERE for d in diffs)]
        return time.perf_counter() - t0, len(variants), failing

    chunking_pass()  # warm-up: regex caches, first-call imports
    chunk_s, failing = [], []
    for _ in range(args.rounds):
        s, count, failing = chunking_pass()
        chunk_s.append(s)

    # Shrinking, as `check` runs it: the failing grouping with the fewest merges.
    shrink_s, shrink_info = [], {}
    for _ in range(args.rounds):
        checker = Checker(session, deltas, opts)
        t0 = time.perf_counter()
        report = checker.run()
        total = time.perf_counter() - t0
        shrink_s.append(checker.timings.get("shrink_grouping", 0.0))
        f = next((f for f in report.findings if f.extra.get("minimal_grouping")), None)
        shrink_info = {"minimal_grouping": f.extra["minimal_grouping"], "field": f.field,
                       **f.extra["shrink"]} if f else {}
        check_total = total

    t0 = time.perf_counter()
    for label, sizes in G.whole(n) + G.two_chunk(n) + G.random_groupings(n, 100):
        tokens.detokenized(sizes)
    detok_s = time.perf_counter() - t0

    result = {"bench": "check_throughput", "tokens": n, "groupings": count,
              "failing_groupings": len(failing),
              "chunking_s": round(statistics.median(chunk_s), 3), "chunking_goal_s": 2.0,
              "shrink_s": round(statistics.median(shrink_s), 3), "shrink_goal_s": 5.0,
              "shrink": shrink_info, "check_total_s": round(check_total, 3),
              "redetokenize_all_s": round(detok_s, 3), "rounds": args.rounds,
              "ratio": round(statistics.median(chunk_s) / 2.0, 3)}
    if not args.json:
        print(f"{n} tokens; {count} groupings (whole + {n - 1} two-chunk splits + 100 random), "
              f"{len(failing)} differ from one-token deltas")
        print(f"chunking pass: {result['chunking_s']} s (goal <= 2 s); shrinking: {result['shrink_s']} s "
              f"(goal <= 5 s) -> {shrink_info.get('minimal_grouping')}")
        print(f"full `check` (incl. k-batches, holdback off, no text shrink): {result['check_total_s']} s; "
              f"re-detokenizing every grouping through vLLM would add {result['redetokenize_all_s']} s")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
