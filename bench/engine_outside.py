"""The workbench's time outside ``engine.step`` per step vs ``served`` (bare + vLLM's parse_delta).

Same engine, request and script as bench/engine_overhead.py, the two sides interleaved, each
figure a median over the rounds. Taken as wall time and as this thread's CPU time
(``thread_time``): time lost to other processes on a shared machine does not count, so the
figure holds under a load where engine_overhead.py's step-by-step ratio swings. The GC's time
per step comes from ``gc.callbacks``. JSON last: ``ratio`` = workbench / served, outside
``engine.step``, CPU time; ``beyond_served_cpu_us`` what the workbench adds per step.
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
from bench.engine_overhead import TOOLS, script_text  # noqa: E402

WALL, CPU = time.perf_counter_ns, time.thread_time_ns


class Clock:
    """``llm.step``'s wall and CPU time, and the GC's wall time, since ``clear()``."""

    def __init__(self, llm) -> None:
        self.inner = llm.step
        llm.step = self
        gc.callbacks.append(self._gc)
        self.clear()

    def clear(self) -> None:
        self.engine_wall = self.engine_cpu = self.gc_wall = self._gc_start = 0

    def __call__(self):
        w, c = WALL(), CPU()
        try:
            return self.inner()
        finally:
            self.engine_wall += WALL() - w
            self.engine_cpu += CPU() - c

    def _gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._gc_start = WALL()
        else:
            self.gc_wall += WALL() - self._gc_start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args()

    from vllm.inputs.engine import tokens_input

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.runner import make_parser
    from workbench.core.session import Session, Setup
    from workbench.engine import EngineStepper

    session = Session(Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS)))
    text = script_text()
    stepper = EngineStepper()
    stepper.start(session, text)
    llm, params = stepper.engine.llm, stepper.params
    stepper.reset()

    def served(n: int) -> int:
        parser = make_parser(session.parser_cls, session.tokenizer, session.request,
                             session.setup.request.chat_template_kwargs)
        llm.add_request(f"outside-{n}", tokens_input(list(session.prompt_ids)), params)
        steps = 0
        while llm.has_unfinished_requests():
            for out in llm.step():
                c = out.outputs[0]
                parser.parse_delta(delta_text=c.text, delta_token_ids=list(c.token_ids),
                                   request=session.request, prompt_token_ids=list(session.prompt_ids),
                                   finished=out.finished)
            steps += 1
        return steps

    def workbench(n: int) -> int:
        stepper.start(session, text)
        while not stepper.done:
            stepper.step()
        return stepper.engine_steps

    sides = {"workbench": workbench, "served": served}
    for n in range(2):  # warm-up
        workbench(-1 - n)
        served(-1 - n)
    clock = Clock(llm)
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    for n in range(args.rounds):
        for side in ("workbench", "served") if n % 2 == 0 else ("served", "workbench"):
            clock.clear()
            w, c = WALL(), CPU()
            steps = sides[side](n)
            w, c = WALL() - w, CPU() - c
            runs[side].append({"outside_wall_us": (w - clock.engine_wall) / steps / 1e3,
                               "outside_cpu_us": (c - clock.engine_cpu) / steps / 1e3,
                               "engine_ms": clock.engine_wall / steps / 1e6,
                               "gc_us": clock.gc_wall / steps / 1e3})
    stepper.close()
    med = {side: {k: round(statistics.median(r[k] for r in rs), 3 if k == "engine_ms" else 1)
                  for k in rs[0]} for side, rs in runs.items()}
    wb, sv = med["workbench"], med["served"]
    result = {"bench": "engine_outside", "rounds": args.rounds, "workbench": wb, "served": sv,
              "beyond_served_wall_us": round(wb["outside_wall_us"] - sv["outside_wall_us"], 1),
              "beyond_served_cpu_us": round(wb["outside_cpu_us"] - sv["outside_cpu_us"], 1),
              "ratio": round(wb["outside_cpu_us"] / sv["outside_cpu_us"], 3),
              "load_avg_1min": round(os.getloadavg()[0], 2), "cpus": os.cpu_count()}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
