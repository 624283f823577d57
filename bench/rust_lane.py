"""The Rust lane's cost beside the Python lane's, in one run: start-up, and time per delta.

Start: vllm-rs frontend (its binary's manifest checked, ``verify_s``; the process, the
scripted core's handshake, until /health answers) and a Python lane worker of the same
vLLM version (lanes.lane.Lane: its tree's manifest, vLLM's parser registries imported),
interleaved, ``--starts`` times each. Per delta: bench/replay_overhead.py's 3,000+-token
hermes + qwen3 stream, one token a delta, through the Python lane (all deltas in one
request, as replay/diff/check send them), through the installed vLLM in-process, and
through the Rust lane in lock step (one engine output, then the wait until the frontend
is quiet, then its bytes), rounds interleaved. The Rust figure is the whole lane as used:
the frontend's detokenizer and parsers, its SSE, our socket reads and the quiet checks;
``frontend_us`` is the part from a send until the frontend was quiet. Prints the figures,
then one JSON line with ``ratio`` = Rust lane / Python lane per delta and ``start_ratio``.
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
from replay_overhead import TOOLS, long_text  # noqa: E402


def rust_start(config) -> tuple[float, float, object]:
    """(verify_s, start_s, the frontend) for a fresh vllm-rs frontend."""
    from workbench.rustfe import binary
    from workbench.rustfe.process import Frontend

    t0 = time.perf_counter()
    path = binary.ensure(config.version, progress=lambda m: None)
    verify = time.perf_counter() - t0
    fe = Frontend(path, Path(config.model_dir), config.args(), config.version).start()
    return verify, fe.start_s, fe


def timed(fn, *a) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn(*a)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--version", default="0.34.0", help="the locked vLLM whose vllm-rs and Python lane run")
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.lanes import lane as lanes
    from workbench.lanes.lane_session import LaneSession
    from workbench.rustfe import core, lane

    setup = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS))
    here = Session(setup)
    config = lane.config_of(here, args.version)
    rust_starts, verifies, lane_starts, lane_verifies = [], [], [], []
    for _ in range(args.starts):  # interleaved, so load hits both alike
        verify, start, fe = rust_start(config)
        rust_starts.append(start)
        verifies.append(verify)
        fe.close()
        py = lanes.Lane(args.version).start(progress=lambda m: None)
        lane_starts.append(py.start_s)
        lane_verifies.append(py.verify_s)
        py.close()

    deltas = here.deltas_from_text(long_text())
    n = len(deltas)
    assert sum(len(d.token_ids) for d in deltas) >= 3000
    there = LaneSession(setup, args.version)
    fe = lane.frontend(config)
    body = lane.body(here, True)
    script = [(list(d.token_ids), d.finish_reason) for d in deltas]

    def python_lane():
        there.stream().feed_many(deltas)

    def in_process():
        run = here.stream()
        for d in deltas:
            run.feed(d)

    steps: list[float] = []

    def rust():
        ex = core.exchange(fe, "/v1/chat/completions", body, script)
        steps.extend(s.seconds for s in ex.steps)

    for fn in (python_lane, in_process, rust):  # warm-up
        fn()
    t_lane, t_here, t_rust, ratios = [], [], [], []
    looks0 = fe.quiet.looks
    for i in range(args.rounds):
        order = [(python_lane, t_lane), (rust, t_rust), (in_process, t_here)]
        for fn, out in (order if i % 2 == 0 else order[::-1]):
            out.append(timed(fn))
        ratios.append(t_rust[-1] / t_lane[-1])
    steps = steps[n:]  # the warm-up's out
    us = lambda s: round(s / n * 1e6, 1)  # noqa: E731
    load = os.getloadavg()[0]
    figures = {
        "version": args.version, "deltas": n, "load": round(load, 2),
        "rust_start_s": round(statistics.median(rust_starts), 2), "rust_verify_s": round(statistics.median(verifies), 3),
        "python_lane_start_s": round(statistics.median(lane_starts), 2),
        "python_lane_verify_s": round(statistics.median(lane_verifies), 3),
        "rust_us_per_delta": us(statistics.median(t_rust)), "python_lane_us_per_delta": us(statistics.median(t_lane)),
        "in_process_us_per_delta": us(statistics.median(t_here)),
        "frontend_us_per_delta": round(statistics.median(steps) * 1e6, 1),
        "quiet_looks_per_delta": round((fe.quiet.looks - looks0) / (n * args.rounds), 2),
    }
    print(f"start (median of {args.starts}, load {load:.1f}): vllm-rs frontend {figures['rust_start_s']} s "
          f"(binary checked in {figures['rust_verify_s']} s); Python lane {figures['python_lane_start_s']} s "
          f"(tree checked in {figures['python_lane_verify_s']} s)")
    print(f"per delta ({n} one-token deltas, median of {args.rounds} rounds): Rust lane "
          f"{figures['rust_us_per_delta']} µs (the frontend's own {figures['frontend_us_per_delta']} µs), Python "
          f"lane {figures['python_lane_us_per_delta']} µs, in-process {figures['in_process_us_per_delta']} µs")
    lane.close_all()
    lanes.close_all()
    print(json.dumps({"bench": "rust_lane", **figures, "ratio": round(statistics.median(ratios), 2),
                      "start_ratio": round(figures["rust_start_s"] / figures["python_lane_start_s"], 2)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
