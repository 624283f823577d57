"""A vLLM lane's cost, side by side in one run: start-up, and rows per delta vs in-process.

Start: a lane (worker process over .cache/vllm/<version>/) is started several
times; the first may read a cold disk, the later ones are "warm" (goal <= 10 s).
Each start first checks the tree's manifest (every file's sha256, ``verify_s``, goal <=
0.3 s). Each start is paired with a fresh interpreter importing the installed vLLM the
same way: the floor any vLLM process pays (most of it is torch and vLLM's config).
Per delta: the same 3,000+-token hermes + qwen3 stream (bench/replay_overhead.py's)
through the in-process runner and through the lane, interleaved rounds, three ways:
``replay`` (all deltas in one request, as replay/diff/check do), ``run`` (the widget's
Run button, ``widget_run``: its SlicedRun on an event loop over the lane's ReplaySource,
one request whose rows come as they are made, vs the in-process source stepped delta by
delta; the two Runs back to back in each round, the order alternating; goal <= 1.5) and
``step`` (one request per delta, a Step click each); every ratio is the median of the
rounds' own ratios; ``run_cpu_ratio``: CPU seconds, this process and the worker. Then one
lane Run stopped after three slices (Stop to the Run's end, the rows kept). Prints the
figures, then one JSON line with ``ratio`` = lane replay / in-process (goal <= 1.5) and
``run_ratio``.
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


def cpu_s(session) -> float:
    """CPU seconds so far of this process and, for a lane, of its worker (/proc; 10 ms ticks)."""
    total = time.process_time()
    lane = getattr(session, "lane", None)
    if lane is not None:
        with open(f"/proc/{lane.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def widget_run(session, deltas, stop_after: int | None = None) -> dict:
    """The widget's Run button on this session's stream: its controller driving a
    ReplaySource in slices on an event loop, 50 ms each, the widgets left out (the same on
    both sides). In-process: one delta after another within each slice; a lane: one request
    for every delta, its rows read as they come (step_for), the request cancelled at the end
    (pause). ``stop_after``: Stop after that many slices. Seconds: ``s`` (the whole Run),
    ``first_s`` (the first slice's rows shown), ``stop_s`` (Stop to the Run's end)."""
    import asyncio
    from dataclasses import replace

    from workbench.ui.controller import Controller
    from workbench.ui.inputs import Inputs
    from workbench.ui.sources import ReplaySource
    from workbench.ui.state import Stream, start

    ctl = Controller(start(Inputs(text="")))
    sid = ctl.rt.use(ReplaySource(session, deltas), session)
    ctl.state = replace(ctl.state, stream=Stream(applied=ctl.state.settings, id=sid, total=len(deltas)))
    seen = {}

    def show(old, new):
        if new.rows and not old.rows:
            seen.setdefault("first_s", time.perf_counter() - t0)
        if new.outcome.action == "Run" and new.rows is not old.rows:
            seen["slices"] = seen.get("slices", 0) + 1
            if stop_after is not None and seen["slices"] == stop_after:
                seen["stop_at"] = time.perf_counter()
                ctl.stop()
        if old.running and not new.running:
            seen.setdefault("end", time.perf_counter())

    ctl.subscribe(show)

    async def main():
        ctl.run_button()
        await ctl.task
        seen.setdefault("end", time.perf_counter())

    c0, t0 = cpu_s(session), time.perf_counter()
    asyncio.run(main())
    out = {"s": time.perf_counter() - t0, "first_s": seen.get("first_s", 0.0), "rows": len(ctl.state.rows),
           "cpu_s": cpu_s(session) - c0}
    if "stop_at" in seen:
        out["stop_s"] = seen["end"] - seen["stop_at"]
    return out


def lane_step(session, deltas) -> float:
    t0 = time.perf_counter()
    run = session.stream()
    for d in deltas:
        run.feed(d)
    return time.perf_counter() - t0


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
    load_start = os.getloadavg()[0]

    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup
    from workbench.lanes import lane as lanes, tree
    from workbench.lanes.lane_session import LaneSession

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
    # This process keeps its cyclic GC as a kernel does, but each timed call starts after a
    # collection: a full pass over vLLM's and torch's ~640,000 objects (0.2-0.4 s) that the
    # one before it left due landed in whichever side went first in a round (rounds 0.4-4.8x).
    t_here, t_replay, t_step, t_run_here, t_run, run_ratios, firsts = [], [], [], [], [], [], []
    cpu_here, cpu_lane = [], []
    replay_ratios, step_ratios = [], []

    def clean(fn):  # the garbage of the one before is not collected in this one's time
        def timed(*a, **k):
            gc.collect()
            return fn(*a, **k)
        return timed

    in_process_, lane_replay_, lane_step_, widget_run_ = map(clean, (in_process, lane_replay, lane_step,
                                                                      widget_run))
    for i in range(args.rounds):  # each round's pairs back to back, the order alternating
        if i % 2:
            t_replay.append(lane_replay_(there, deltas))
            t_here.append(in_process_(here, deltas))
        else:
            t_here.append(in_process_(here, deltas))
            t_replay.append(lane_replay_(there, deltas))
        t_step.append(lane_step_(there, deltas))
        replay_ratios.append(t_replay[-1] / t_here[-1])
        step_ratios.append(t_step[-1] / t_here[-1])
        pair = [(here, t_run_here), (there, t_run)]
        for s, out in (pair if i % 2 == 0 else pair[::-1]):
            r = widget_run_(s, deltas)
            assert r["rows"] == len(deltas), r
            out.append(r["s"])
            (cpu_lane if s is there else cpu_here).append(r["cpu_s"])
            if s is there:
                firsts.append(r["first_s"])
        run_ratios.append(t_run[-1] / t_run_here[-1])
    # Stop after the first slice, on a stream long enough that the lane is still sending
    # (the 3,563-delta Run took 0.2 s on a quiet machine: Stop after 3 slices came too late)
    longer = here.deltas_from_text(long_text() * 4)
    stopped = widget_run(there, longer, stop_after=1)
    assert 0 < stopped["rows"] < len(longer), stopped
    h, r, s, rh, rl = (statistics.median(x) for x in (t_here, t_replay, t_step, t_run_here, t_run))
    per = lambda t: round(t / len(deltas) * 1e6, 1)  # noqa: E731
    warm = min(starts[1:] or starts)
    result = {"bench": "lane_cost", "version": args.version, "tokens": n_tokens, "deltas": len(deltas),
              "rounds": args.rounds, "start_s": [round(x, 2) for x in starts], "warm_start_s": round(warm, 2),
              "start_goal_s": 10, "verify_s": [round(x, 3) for x in verifies], "verify_goal_s": 0.3,
              "installed_import_s": [round(x, 2) for x in floors],
              "start_vs_installed_import": round(statistics.median(starts) / statistics.median(floors), 3),
              "in_process_us_per_delta": per(h), "lane_replay_us_per_delta": per(r),
              "lane_step_us_per_delta": per(s), "ratio": round(statistics.median(replay_ratios), 3),
              "step_ratio": round(statistics.median(step_ratios), 3),
              "widget_run_us_per_delta": per(rh), "lane_widget_run_us_per_delta": per(rl),
              "run_ratio": round(statistics.median(run_ratios), 3),
              "run_ratios": [round(x, 3) for x in run_ratios],
              "run_cpu_ratio": round(statistics.median(cpu_lane) / statistics.median(cpu_here), 3),
              "run_first_rows_ms": round(
                  statistics.median(firsts) * 1e3, 1), "run_stop_ms": round(stopped["stop_s"] * 1e3, 1),
              "run_stopped_rows": stopped["rows"], "goal": 1.5, "load_avg_start": round(load_start, 2),
              "load_avg": round(os.getloadavg()[0], 2)}
    if not args.json:
        print(f"lane starts: {', '.join(f'{x:.2f} s' for x in starts)} (warm: {warm:.2f} s, goal <= 10 s); "
              f"a fresh interpreter importing the installed vLLM: {', '.join(f'{x:.2f} s' for x in floors)}")
        print(f"{n_tokens} tokens, {len(deltas)} deltas, median of {args.rounds} interleaved rounds: "
              f"in-process {per(h)} us/delta, lane replay {per(r)} us/delta ({result['ratio']:.2f}x, "
              f"rounds {', '.join(f'{x:.2f}' for x in replay_ratios)}), "
              f"lane one request per delta {per(s)} us/delta ({result['step_ratio']:.2f}x)")
        print(f"the widget's Run: in-process {per(rh)} us/delta, lane (one request, rows read as they come) "
              f"{per(rl)} us/delta ({statistics.median(run_ratios):.2f}x, rounds "
              f"{', '.join(f'{x:.2f}' for x in run_ratios)}; goal <= 1.5; CPU, both processes: "
              f"{result['run_cpu_ratio']:.2f}x); a lane Run's first rows shown "
              f"after {result['run_first_rows_ms']} ms, Stop to its end {result['run_stop_ms']} ms "
              f"({stopped['rows']} rows kept); load {load_start:.2f} at the start, {result['load_avg']} at the end")
    print(json.dumps(result))
    lanes.close_all()


if __name__ == "__main__":
    main()
