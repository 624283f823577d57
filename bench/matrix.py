"""`workbench matrix` throughput, side by side in one run: the shipped cases of a few parsers
(default hermes and qwen3) on the installed vLLM, Python, over --api and --chunking, three ways:

- the pool, 1 worker (forked from this process once vLLM is loaded);
- the pool, 2 workers;
- Ray `auto` at 2 CPUs (what `--ray auto` runs), after one warm-up run on its actors.

Each task is one (case, version, frontend) with every API x grouping inside it. Prints the
figures in cells per second, then one JSON line (``ratio``: the 2-worker pool's rate over
1 worker's; ``ray_vs_pool``: Ray's time over the 2-worker pool's). The load average is printed
beside every figure: on a shared machine the rates move.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401


def load() -> float:
    return os.getloadavg()[0]


def timed(cases, opt) -> tuple[float, int]:
    from workbench.conformance import run as run_mod

    t0 = time.perf_counter()
    got = run_mod.run(cases, opt)
    return time.perf_counter() - t0, len(got.cells)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parsers", default="hermes,qwen3",
                    help="case folders under parsers/cases, or all (every folder: fixed costs, Ray's start "
                         "and its actors' vLLM import, weigh less)")
    ap.add_argument("--api", default="chat,responses")
    ap.add_argument("--chunking", default="whole,token")
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    from workbench.conformance import run as run_mod
    from workbench.conformance.cases import CASES_DIR, load_cases

    cases = load_cases([str(CASES_DIR)] if args.parsers == "all" else
                       [str(CASES_DIR / p) for p in args.parsers.split(",")])

    def options(**kw):
        return run_mod.Options(apis=args.api.split(","), groupings=args.chunking.split(","), **kw)

    print(f"{len(cases)} cases ({args.parsers}), api {args.api}, chunking {args.chunking} (load {load():.1f})")
    timed(cases[:2], options(workers=1))  # warm: vLLM, tokenizers, parser modules in this process
    s1, n = timed(cases, options(workers=1))
    print(f"pool, 1 worker:  {s1:6.1f} s  {n / s1:5.1f} cells/s  (load {load():.1f})")
    s2, _ = timed(cases, options(workers=2))
    print(f"pool, 2 workers: {s2:6.1f} s  {n / s2:5.1f} cells/s  (load {load():.1f})  {s1 / s2:.2f}x 1 worker")
    result = {"bench": "matrix", "cases": len(cases), "cells": n, "pool1_s": round(s1, 2), "pool2_s": round(s2, 2),
              "pool1_cells_per_s": round(n / s1, 2), "pool2_cells_per_s": round(n / s2, 2),
              "ratio": round(s1 / s2, 3), "load": round(load(), 1)}
    if not args.no_ray:
        from workbench.errors import WorkbenchError

        try:
            timed(cases[:2], options(ray="auto", workers=2))  # Ray's start and its actors' vLLM import
            sr, _ = timed(cases, options(ray="auto", workers=2))
        except WorkbenchError as e:  # Ray's agents can miss their start on a loaded machine
            print(f"ray: {e} (load {load():.1f})")
            result["ray_error"] = str(e)
        else:
            print(f"ray auto, 2 CPUs: {sr:6.1f} s  {n / sr:5.1f} cells/s  (load {load():.1f})  "
                  f"{sr / s2:.2f}x the pool's time (its start included)")
            result.update(ray_s=round(sr, 2), ray_cells_per_s=round(n / sr, 2), ray_vs_pool=round(sr / s2, 3))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
