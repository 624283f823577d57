"""Workbench engine stepping (rows) vs a bare ``LLMEngine.step`` loop, same scripted request.

One in-process engine (the embedded tiny qwen3 model). Each round runs the same
request twice, interleaved (alternating which goes first) so machine noise hits both: once added with
``LLMEngine.add_request`` and stepped until done with nothing else, once through
``EngineStepper.start`` + ``step()`` (hermes + qwen3 parse_delta, a Row per
output). The SamplingParams, prompt and script are identical. Prints the
figures, then one JSON line (last) with ``ratio`` = workbench / bare (goal <= 1.03), each
side taken step by step: step k's ``engine.step`` time is its median over the rounds, for
every k, plus the median time outside ``engine.step`` (``per_step_median``). On a busy machine
single engine steps vary many-fold, and a whole run's ratio swung 0.96-1.48 between runs;
the step-by-step median drops the steps that lost the CPU and keeps everything else. The
line also gives ``ratio_paired`` (the median of the per-round ratios, the old figure),
``ratio_own_time``: (fastest bare run + the workbench's own time outside ``engine.step``)
/ fastest bare run, and the 1-minute load average.

A third side, ``served``: the bare loop plus vLLM's own ``parse_delta`` (a fresh parser
of the same class) on each output, what ``vllm serve`` runs per step before it writes a
chunk. ``ratio_vs_served`` = workbench / served, step by step as ``ratio``: the cost of the
workbench beyond vLLM's engine and parser. (vLLM's parser right after an engine step runs
~4x slower than in a replay loop, its caches cold from the forward pass: a cost the
server pays too, and the bare loop does not.)
"""

from __future__ import annotations

import argparse
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


def script_text() -> str:
    thinking = " ".join(f"Step {i}: the user wants the weather, so I consider city {i}." for i in range(6))
    calls = "\n".join(f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}", '
                      f'"day": {i}}}}}</tool_call>' for i in range(2))
    return f"<think>{thinking}</think>\n\n{calls}"


class Timed:
    """Wraps ``llm.step`` on both paths and keeps each call's time, so the workbench's own
    cost per step can be told apart from (noisy) engine time, and step k of one run set
    beside step k of another."""

    def __init__(self, llm) -> None:
        self.inner, self.times = llm.step, []
        llm.step = self

    def __call__(self):
        t0 = time.perf_counter()
        try:
            return self.inner()
        finally:
            self.times.append(time.perf_counter() - t0)


def per_step_median(runs: list[tuple[list[float], float]]) -> float:
    """Seconds for one run, each part the median over the rounds: step k's engine time for
    every k, plus the time outside ``engine.step``. A step that lost the CPU to another
    process in one round does not count; every step and all the rest still do."""
    longest = max(len(steps) for steps, _ in runs)
    engine = sum(statistics.median(steps[k] for steps, _ in runs if k < len(steps)) for k in range(longest))
    return engine + statistics.median(outside for _, outside in runs)


def bare(llm, n: int, prompt_ids, params) -> tuple[float, int]:
    from vllm.inputs.engine import tokens_input

    t0 = time.perf_counter()
    llm.add_request(f"bare-{n}", tokens_input(list(prompt_ids)), params)
    steps = 0
    while llm.has_unfinished_requests():
        llm.step()
        steps += 1
    return time.perf_counter() - t0, steps


def served(llm, n: int, prompt_ids, params, session) -> tuple[float, int]:
    from vllm.inputs.engine import tokens_input

    from workbench.core.runner import make_parser

    parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                         session.setup.request.chat_template_kwargs)
    t0 = time.perf_counter()
    llm.add_request(f"served-{n}", tokens_input(list(prompt_ids)), params)
    steps = 0
    while llm.has_unfinished_requests():
        for out in llm.step():
            c = out.outputs[0]
            parser.parse_delta(delta_text=c.text, delta_token_ids=list(c.token_ids), request=session.request,
                               prompt_token_ids=list(prompt_ids), finished=out.finished)
        steps += 1
    return time.perf_counter() - t0, steps


def workbench_run(stepper, session, text) -> tuple[float, int, int]:
    t0 = time.perf_counter()
    stepper.start(session, text)
    rows = 0
    while not stepper.done:
        rows += len(stepper.step())
    return time.perf_counter() - t0, stepper.engine_steps, rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.engine import EngineStepper

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    text = script_text()
    stepper = EngineStepper()
    stepper.start(session, text)  # starts the engine; the script's params are reused for bare
    start_s = stepper.engine.start_s
    llm, params = stepper.engine.llm, stepper.params
    stepper.reset()
    bare(llm, -1, session.prompt_ids, params)  # warm-up both paths
    workbench_run(stepper, session, text)
    timed = Timed(llm)
    bare_s, wb_s, outside = [], [], []
    bare_runs, wb_runs, served_runs = [], [], []  # (each step's engine time, the rest)
    served(llm, -1, session.prompt_ids, params, session)
    for n in range(args.rounds):
        for side in ("bare", "workbench", "served") if n % 2 == 0 else ("served", "workbench", "bare"):
            timed.times = []
            if side == "served":
                v, _ = served(llm, n, session.prompt_ids, params, session)
                served_runs.append((timed.times, v - sum(timed.times)))
            elif side == "bare":
                b, b_steps = bare(llm, n, session.prompt_ids, params)
                bare_s.append(b)
                bare_runs.append((timed.times, b - sum(timed.times)))
            else:
                w, w_steps, rows = workbench_run(stepper, session, text)
                outside.append(w - sum(timed.times))  # start() + rows: everything but engine.step()
                wb_s.append(w)
                wb_runs.append((timed.times, outside[-1]))
    assert stepper.result().token_ids == stepper.script, "the script was not followed"
    b, w = statistics.median(bare_s), statistics.median(wb_s)
    paired = statistics.median(x / y for x, y in zip(wb_s, bare_s))
    result = {"bench": "engine_overhead", "engine_start_s": round(start_s, 2),
              "script_tokens": len(stepper.script), "bare_steps": b_steps, "workbench_steps": w_steps,
              "rows": rows, "rounds": args.rounds,
              "bare_ms": round(b * 1e3, 1), "workbench_ms": round(w * 1e3, 1),
              "bare_ms_per_step": round(b / b_steps * 1e3, 3),
              "workbench_ms_per_step": round(w / w_steps * 1e3, 3),
              "workbench_own_ms_per_step": round(statistics.median(outside) / w_steps * 1e3, 3),
              # step by step: each step's median over the rounds (per_step_median)
              "ratio": round(per_step_median(wb_runs) / per_step_median(bare_runs), 3), "goal": 1.03,
              "ratio_vs_served": round(per_step_median(wb_runs) / per_step_median(served_runs), 3),
              "served_ratio": round(per_step_median(served_runs) / per_step_median(bare_runs), 3),
              # median over rounds of (workbench / bare), each pair run back to back
              "ratio_paired": round(paired, 3),
              "ratio_of_medians": round(w / b, 3),
              "ratio_min_of_rounds": round(min(wb_s) / min(bare_s), 3),
              "load_avg_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count(),
              # the fastest bare run (closest to an idle machine) plus the workbench's own
              # time outside engine.step: what the ratio is when noise is taken out
              "ratio_own_time": round((min(bare_s) + statistics.median(outside)) / min(bare_s), 3)}
    if not args.json:
        print(f"engine start {result['engine_start_s']} s; {result['script_tokens']} scripted tokens, "
              f"{rows} rows; median of {args.rounds} interleaved rounds")
        print(f"bare LLMEngine.step loop: {result['bare_ms']} ms ({result['bare_ms_per_step']} ms/step); "
              f"workbench rows: {result['workbench_ms']} ms ({result['workbench_ms_per_step']} ms/step, "
              f"of which outside engine.step: {result['workbench_own_ms_per_step']} ms/step)")
    stepper.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
