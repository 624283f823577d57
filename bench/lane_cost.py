"""A vLLM lane's cost, side by side in one run: start-up, and rows per delta vs in-process.

Start: a lane (worker process over .cache/vllm/<version>/) is started several
times; the first may read a cold disk, the later ones are "warm" (goal <= 10 s).
Each start first checks the tree's manifest (every file's sha256, ``verify_s``, goal <=
0.3 s). Each start is paired with a fresh interpreter importing the installed vLLM the
same way: the floor any vLLM process pays (most of it is torch and vLLM's config).
Per delta: the same 3,000+-token hermes + qwen3 stream (bench/replay_overhead.py's)
through the in-process runner and through the lane, interleaved rounds, three ways:
``replay`` (all deltas in one request, as replay/diff/check do), ``run`` (the widget's
Run: its ReplaySource stepped in growing batches, one request each, vs the in-process
source stepped delta by delta, the two in lockstep batch by batch; goal <= 1.5) and ``step`` (one request per delta, a
Step click each). Prints the figures, then one JSON line with ``ratio`` = lane replay
/ in-process (goal <= 1.5) and ``run_ratio``.
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
from replay_overhead import TOOLS, long_text  # noqa: E402


def in_process(session, deltas) -> float:
    t0 = time.perf_counter()
    run = session.stream()
    for d in deltas:
        run.feed(d)
    return time.perf_counter() - t0


def lane_replay(session, deltas) -> float:
    t0 = time.perf_counter()
    session.stream().feed_many(deltas)
    return time.perf_counter() - t0


def widget_run(session, deltas) -> float:
    """What the widget's Run does with this session's stream (model.run / SlicedRun)."""
    from workbench.ui.running import Batches
    from workbench.ui.sources import ReplaySource

    t0 = time.perf_counter()
    source = ReplaySource(session, deltas)
    batches = Batches(0.05) if source.batches else None
    while not source.done:
        t = time.perf_counter()
        source.step(batches.n if batches else 1)
        if batches:
            batches.took(time.perf_counter() - t)
    return time.perf_counter() - t0


def lane_step(session, deltas) -> float:
    t0 = time.perf_counter()
    run = session.stream()
    for d in deltas:
        run.feed(d)
    return time.perf_counter() - t0


def widget_runs_lockstep(here, there, deltas) -> tuple[float, float]:
    """The widget's Run on both sources at once: each lane batch (its size from the lane's own
    timings, as the widget sizes it) is set beside the same deltas stepped in-process one by
    one, the order alternating, so load hits both alike (whole Runs one after the other
    swung 0.5-2x on a loaded machine). Seconds (in-process, lane)."""
    from workbench.ui.running import Batches
    from workbench.ui.sources import ReplaySource

    mine, lane = ReplaySource(here, deltas), ReplaySource(there, deltas)
    batches = Batches(0.05)
    t_mine = t_lane = 0.0
    first = True
    while not lane.done:
        n = batches.n
        for side in (("mine", "lane") if first else ("lane", "mine")):
            t = time.perf_counter()
            if side == "lane":
                lane.step(n)
                took = time.perf_counter() - t
                t_lane += took
                batches.took(took)
            else:
                for _ in range(n):
                    if not mine.done:
                        mine.step(1)
                t_mine += time.perf_counter() - t
        first = not first
    return t_mine, t_lane


def installed_import_s() -> float:
    """The floor: a fresh interpreter importing the *installed* vLLM's parser registries."""
    import subprocess

    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import workbench.core.env, vllm; from workbench.core.parsers "
                    "import registered_names; registered_names()"], check=True)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", default="0.33.0")
    ap.add_argument("--starts", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--json", action="store_true", help="print only the JSON line")
    args = ap.parse_args()

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.lanes import lane as lanes, tree
    from workbench.lanes.session import LaneSession

    tree.ensure(args.version)
    starts, floors, verifies = [], [], []
    for _ in range(args.starts):  # interleaved with the floor, so load hits both alike
        lane = lanes.Lane(args.version).start()
        starts.append(lane.start_s)
        verifies.append(lane.verify_s)
        lane.close()
        floors.append(installed_import_s())
    setup = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=TOOLS))
    here = Session(setup)
    there = LaneSession(setup, args.version)
    deltas = here.deltas_from_text(long_text())
    n_tokens = sum(len(d.token_ids) for d in deltas)
    assert n_tokens >= 3000, n_tokens
    for fn, s in ((in_process, here), (lane_replay, there), (lane_step, there), (widget_run, here),
                  (widget_run, there)):  # warm-up
        fn(s, deltas)
    t_here, t_replay, t_step, t_run_here, t_run, run_ratios = [], [], [], [], [], []
    for _ in range(args.rounds):
        t_here.append(in_process(here, deltas))
        t_replay.append(lane_replay(there, deltas))
        t_step.append(lane_step(there, deltas))
        mine, theirs = widget_runs_lockstep(here, there, deltas)
        t_run_here.append(mine)
        t_run.append(theirs)
        run_ratios.append(theirs / mine)
    h, r, s, rh, rl = (statistics.median(x) for x in (t_here, t_replay, t_step, t_run_here, t_run))
    per = lambda t: round(t / len(deltas) * 1e6, 1)  # noqa: E731
    warm = min(starts[1:] or starts)
    result = {"bench": "lane_cost", "version": args.version, "tokens": n_tokens, "deltas": len(deltas),
              "rounds": args.rounds, "start_s": [round(x, 2) for x in starts], "warm_start_s": round(warm, 2),
              "start_goal_s": 10, "verify_s": [round(x, 3) for x in verifies], "verify_goal_s": 0.3,
              "installed_import_s": [round(x, 2) for x in floors],
              "start_vs_installed_import": round(statistics.median(starts) / statistics.median(floors), 3),
              "in_process_us_per_delta": per(h), "lane_replay_us_per_delta": per(r),
              "lane_step_us_per_delta": per(s), "ratio": round(r / h, 3), "step_ratio": round(s / h, 3),
              "widget_run_us_per_delta": per(rh), "lane_widget_run_us_per_delta": per(rl),
              "run_ratio": round(statistics.median(run_ratios), 3), "goal": 1.5, "load_avg": round(os.getloadavg()[0], 2)}
    if not args.json:
        print(f"lane starts: {', '.join(f'{x:.2f} s' for x in starts)} (warm: {warm:.2f} s, goal <= 10 s); "
              f"a fresh interpreter importing the installed vLLM: {', '.join(f'{x:.2f} s' for x in floors)}")
        print(f"{n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} interleaved rounds: "
              f"in-process {per(h)} us/delta, lane replay {per(r)} us/delta ({r / h:.2f}x), "
              f"lane one request per delta {per(s)} us/delta ({s / h:.2f}x)")
        print(f"the widget's Run: in-process {per(rh)} us/delta, lane (batched requests) {per(rl)} us/delta "
              f"({statistics.median(run_ratios):.2f}x in lockstep, goal <= 1.5)")
    print(json.dumps(result))
    lanes.close_all()


if __name__ == "__main__":
    main()
