"""A real model on the CPU (SmolLM2-135M-Instruct, `smollm2`): the workbench against bare vLLM,
side by side in one process.

- Stepping: the same seeded, sampled request (hermes, tool_choice auto) run three ways,
  interleaved round by round: ``bare`` (``LLMEngine.add_request`` + ``step()``), ``served`` (the
  bare loop plus vLLM's own ``parse_delta`` per output, what ``vllm serve`` runs) and
  ``workbench`` (``EngineStepper``: rows, the grammar view and the candidates). The same seed
  gives the same tokens on every side (checked). ``ratio`` is workbench / bare in own time
  (engine_overhead.py's measure: step k's engine time, its median over every run, plus each
  side's median CPU time outside ``engine.step``); goal <= 1.03.
- The candidates' cost: the CPU time inside the probe (the logits row copied each step, the
  two top-k when a row is taken), per step, and as a share of a step.
- Start, until the engine has run its first forward pass: ``instance.acquire`` (what the widget
  and ``record`` do: the model folder hash-checked against the lock, EngineArgs, the engine, a
  one-token smoke test, the probes) against ``LLMEngine.from_engine_args`` with the same
  EngineArgs and the same one-token request, alternating; ``start_ratio`` goal <= 1.05.
  ``hash_s`` is hashing every file (269 MB of weights), what a changed folder costs once;
  ``check_s`` the lock check a fresh process pays (the stamp vouches for unchanged files).

JSON last, with the machine's load.
"""

from __future__ import annotations

import argparse
import copy
import gc
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import workbench.core.env  # noqa: E402,F401
from engine_overhead import Timed, bare, engine_time, served, timed_run  # noqa: E402


def candidates_clock(probe) -> dict:
    """Wraps the probe's two methods; returns the running CPU seconds spent in them."""
    spent = {"s": 0.0}
    for name in ("_on_logits", "take"):
        inner = getattr(probe, name)

        def timed(*args, _inner=inner, **kwargs):
            c0 = time.thread_time()
            try:
                return _inner(*args, **kwargs)
            finally:
                spent["s"] += time.thread_time() - c0

        setattr(probe, name, timed)
    return spent


def start_times(rounds: int, session) -> dict:
    from vllm.engine.arg_utils import EngineArgs
    from vllm.v1.engine.llm_engine import LLMEngine

    from workbench.core import models, vllm_compat as compat
    from workbench.core.tokenizers import wheels
    from workbench.engine import EngineSpec, instance

    spec = EngineSpec(model="smollm2")
    engine = instance.acquire(spec, "smollm2", session.tokenizer, None)
    args = {**engine.engine_args, "logits_processors": [instance.SCRIPT_PROCESSOR]}
    instance.release()
    times: dict[str, list[float]] = {"bare": [], "workbench": []}
    for n in range(rounds):
        for side in ("bare", "workbench") if n % 2 == 0 else ("workbench", "bare"):
            gc.collect()
            t0 = time.perf_counter()
            if side == "bare":
                llm = LLMEngine.from_engine_args(EngineArgs(**args))
                instance._smoke_test(llm)  # the same one token: the first forward pass
                times[side].append(time.perf_counter() - t0)
                compat.shutdown_engine_core(llm)
                del llm
            else:
                # resolve the folder and hash-check its files, as a fresh process does
                instance._resolved.clear()
                wheels._HASHED.clear()
                instance.acquire(spec, "smollm2", session.tokenizer, None)
                times[side].append(time.perf_counter() - t0)
                instance.release()
    wheels._HASHED.clear()
    t0 = time.perf_counter()
    models.verify("smollm2", models.folder_of("smollm2"))
    check_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for file in models.folder_of("smollm2").iterdir():
        wheels.sha256_file(file)
    hash_s = time.perf_counter() - t0
    return {side: statistics.median(t) for side, t in times.items()} | {"all": times, "hash_s": hash_s,
                                                                         "check_s": check_s}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--start-rounds", type=int, default=7)
    ap.add_argument("--tokens", type=int, default=24)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.engine import EngineSpec, EngineStepper

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}}}}]
    session = Session(Setup("smollm2", ParserSpec("hermes", None), RequestSpec(
        tools=tools, temperature=0.8, seed=11, max_tokens=args.tokens)))
    load_before = os.getloadavg()[0]
    starts = start_times(args.start_rounds, session)

    stepper = EngineStepper(EngineSpec(model="smollm2"))
    stepper.start(session)
    llm, params = stepper.engine.llm, stepper.params
    stepper.run()
    expected = stepper.result().token_ids
    spent = candidates_clock(stepper.engine.candidates)

    def workbench_side(n: int) -> int:
        stepper.start(session)
        while not stepper.done:
            stepper.step()
        assert stepper.result().token_ids == expected, "the seed did not give the same tokens"
        return stepper.engine_steps

    timed = Timed(llm)
    sides = {"bare": lambda n: bare(llm, n, session.prompt_ids, copy.deepcopy(params)),
             "served": lambda n: served(llm, n, session.prompt_ids, copy.deepcopy(params), session),
             "workbench": workbench_side}
    runs: dict[str, list[dict]] = {side: [] for side in sides}
    spent_s = []
    for n in range(args.rounds):
        for side in ("bare", "workbench", "served") if n % 2 == 0 else ("served", "workbench", "bare"):
            before = spent["s"]
            runs[side].append(timed_run(timed, lambda: sides[side](n)))
            if side == "workbench":
                spent_s.append(spent["s"] - before)
    steps = runs["workbench"][-1]["steps"]
    e = engine_time([r for rs in runs.values() for r in rs])
    own = {side: e + statistics.median(r["outside_cpu"] for r in rs) for side, rs in runs.items()}
    candidates_us = statistics.median(spent_s) / steps * 1e6
    result = {"bench": "real_model", "model": "smollm2", "tokens": len(expected), "steps": steps,
              "rounds": args.rounds, "engine_ms_per_step": round(e / steps * 1e3, 2),
              "tokens_per_s": round(len(expected) / e, 2),
              "ratio": round(own["workbench"] / own["bare"], 4), "goal": 1.03,
              "ratio_vs_served": round(own["workbench"] / own["served"], 4),
              "served_ratio_own": round(own["served"] / own["bare"], 4),
              "candidates_us_per_step": round(candidates_us, 1),
              "candidates_share_of_step": round(candidates_us / (e / steps * 1e6), 4),
              "start_s": {"bare": round(starts["bare"], 2), "workbench": round(starts["workbench"], 2)},
              "start_ratio": round(starts["workbench"] / starts["bare"], 4), "start_goal": 1.05,
              "hash_s": round(starts["hash_s"], 2), "check_s": round(starts["check_s"], 3),
              "start_rounds": args.start_rounds,
              "load_avg_1min": [round(load_before, 2), round(os.getloadavg()[0], 2)], "cpus": os.cpu_count()}
    if not args.json:
        print(f"smollm2: {len(expected)} sampled tokens, {result['engine_ms_per_step']} ms a step "
              f"({result['tokens_per_s']} tokens/s); median of {args.rounds} interleaved rounds")
        print(f"workbench / bare {result['ratio']} (goal <= 1.03); workbench / served {result['ratio_vs_served']}; "
              f"candidates {result['candidates_us_per_step']} µs a step ({result['candidates_share_of_step']:.2%})")
        print(f"start: workbench {result['start_s']['workbench']} s, bare {result['start_s']['bare']} s, "
              f"ratio {result['start_ratio']} (goal <= 1.05); load {result['load_avg_1min']}")
    stepper.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
