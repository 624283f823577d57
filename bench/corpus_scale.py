"""`workbench corpus` at scale, side by side in one run: N synthetic hermes + qwen3
recordings (`--synth`, seeded), `check --fuzz 5` on each, five ways:

- check loop: `workbench check REC --json` on every file, one after the other, in this
  long-lived process (vLLM imported once): the floor the corpus command is measured on;
- pool, 1 worker and 2 workers (forked from this process once vLLM is loaded);
- Ray `auto` at 2 CPUs (ray_runner.Fleet, what `--ray` runs): its start, the run on fresh
  Ray actors (each loads vLLM as it starts), then --rounds pairs of (the pool, the same run
  on the warm actors) back to back: the ratio is the median pair's;
- Ray's per-call cost alone: no-op actor calls carrying a recording's bytes.

Goals: 2 workers >= 1.7x the 1-worker rate on a 2-core machine; Ray (warm) <= 1.15x the
pool's time; a worker's first task carries the vLLM import once, not once per recording.
The load average is printed beside every figure: on a shared machine the rates move.
Prints the figures, then one JSON line (``ratio``: 1 worker's time / 2 workers').
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench.core.env  # noqa: E402,F401

FUZZ = ["--fuzz", "5"]


def load() -> float:
    return os.getloadavg()[0]


def check_loop(files: list[Path]) -> float:
    from workbench.cli import main

    t0 = time.perf_counter()
    for f in files:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            main(["check", str(f), *FUZZ, "--jobs", "1", "--no-cost", "--json"])
    return time.perf_counter() - t0


def spec():
    from workbench.cli import build_parser
    from workbench.cli.corpus_cmd import build_spec

    return build_spec(build_parser().parse_args(["corpus", "x", *FUZZ]))


def jobs(files: list[Path]):
    from workbench.corpus import files as files_mod

    for f in files:
        data, sha = files_mod.read(f)
        yield str(f), sha, data


def pool_run(files: list[Path], workers: int) -> tuple[float, list[dict]]:
    from workbench.corpus import pool

    t0 = time.perf_counter()
    lines = list(pool.run(spec(), jobs(files), workers, ["qwen3"]))
    return time.perf_counter() - t0, lines


def first_task_extra(lines: list[dict]) -> dict:
    """Per worker process: its first task's seconds minus the median of its later ones."""
    by: dict[str, list[float]] = {}
    for ln in lines:  # in completion order: each worker's first line is its first task
        by.setdefault(ln["worker"], []).append(ln["seconds"])
    return {w: round(s[0] - statistics.median(s[1:]), 2) for w, s in by.items() if len(s) > 1}


def ray_cpu() -> float:
    """CPU seconds of this process's children alive now (Ray's servers and actors)."""
    import psutil

    total = 0.0
    for c in psutil.Process().children(recursive=True):
        try:
            t = c.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def own_cpu() -> float:
    """CPU seconds of this process and its children that have been waited for (the pool's)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def ray_runs(files: list[Path], cpus: int, rounds: int) -> dict:
    """`--ray auto`'s own runner (ray_runner.Fleet: an actor per CPU, one call per recording,
    two in flight each) on the same actors: fresh (each loads vLLM and the tokenizer as it
    starts), then ``rounds`` pairs of (the pool, Ray warm) back to back, so that each ratio
    compares two runs a few seconds apart (the load moves on a shared machine)."""
    import ray

    from workbench.corpus import ray_runner

    out: dict = {"pairs": []}
    t0 = time.perf_counter()
    ray_runner.start("auto", cpus)
    out["start_s"] = time.perf_counter() - t0
    try:
        t0 = time.perf_counter()
        fleet = ray_runner.Fleet(ray, spec(), ["qwen3"])
        out["cold_lines"] = list(fleet.run(jobs(files)))
        out["cold_s"], out["cold_load"] = time.perf_counter() - t0, load()
        for _ in range(rounds):
            idle, own = ray_cpu(), own_cpu()
            pool_s, _ = pool_run(files, cpus)
            idle, pool_cpu = ray_cpu() - idle, own_cpu() - own  # Ray idle; this process + the pool's workers
            ray0, own = ray_cpu(), own_cpu()
            t0 = time.perf_counter()
            lines = list(fleet.run(jobs(files)))
            out["pairs"].append({"pool_s": pool_s, "ray_s": time.perf_counter() - t0, "load": load(),
                                 "ray_idle_cpu_s": idle, "pool_cpu_s": pool_cpu,
                                 "ray_cpu_s": ray_cpu() - ray0 + own_cpu() - own})
        out["warm_lines"] = lines
        fleet.close()

        @ray.remote(num_cpus=1)
        class Noop:
            def run(self, path, sha, data):
                return len(data)

        actors = [Noop.remote() for _ in range(cpus)]
        payload = list(jobs(files))
        ray.get([a.run.remote(*payload[0]) for a in actors])
        t0 = time.perf_counter()
        ray.get([actors[i % cpus].run.remote(*j) for i, j in enumerate(payload)])
        out["noop_task_ms"] = (time.perf_counter() - t0) / len(payload) * 1000 * cpus
    finally:
        ray.shutdown()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--rounds", type=int, default=3, help="pairs of (pool, Ray warm) run back to back")
    args = ap.parse_args()
    from workbench.corpus import synth

    tmp = Path(tempfile.mkdtemp(prefix="wb-corpus-bench-"))
    files = synth.write(tmp / "synth", args.n, seed=20260902, families=["hermes"])
    print(f"{len(files)} synthetic hermes + qwen3 recordings, check --fuzz 5 (load {load():.1f})")
    check_loop(files[:8])  # warm: tokenizer, parser modules, templates
    loop_s = check_loop(files)
    print(f"check loop, one process:   {loop_s:6.1f} s  {len(files) / loop_s:5.1f} rec/s  (load {load():.1f})")
    p1, lines1 = pool_run(files, 1)
    print(f"pool, 1 worker:            {p1:6.1f} s  {len(files) / p1:5.1f} rec/s  (load {load():.1f})"
          f"  {p1 / loop_s:.2f}x the check loop; first task extra {first_task_extra(lines1)}")
    p2, lines2 = pool_run(files, 2)
    print(f"pool, 2 workers:           {p2:6.1f} s  {len(files) / p2:5.1f} rec/s  (load {load():.1f})"
          f"  {p1 / p2:.2f}x the 1-worker rate (goal >= 1.7)")
    task_s = statistics.median(ln["seconds"] for ln in lines2)
    result = {"bench": "corpus_scale", "n": len(files), "check_loop_s": round(loop_s, 2), "pool1_s": round(p1, 2),
              "pool2_s": round(p2, 2), "ratio": round(p1 / p2, 3), "pool1_vs_loop": round(p1 / loop_s, 3),
              "task_median_s": round(task_s, 4), "load": round(load(), 1)}
    r = None
    if not args.no_ray:
        from workbench.errors import WorkbenchError

        try:
            r = ray_runs(files, 2, args.rounds)
        except WorkbenchError as e:  # Ray's raylet gives its agents 15 s: a loaded machine can miss it
            print(f"ray: {e} (load {load():.1f})")
            result["ray_error"] = str(e)
    if r is not None:
        pairs = r["pairs"]
        ratios = [pr["ray_s"] / pr["pool_s"] for pr in pairs]
        ratio = statistics.median(ratios)
        warm_s = statistics.median(pr["ray_s"] for pr in pairs)
        pool_s = statistics.median(pr["pool_s"] for pr in pairs)
        once = r["cold_s"] - warm_s
        print(f"ray auto, start:           {r['start_s']:6.1f} s")
        print(f"ray, 2 CPUs, fresh actors: {r['cold_s']:6.1f} s  {len(files) / r['cold_s']:5.1f} rec/s  "
              f"(load {r['cold_load']:.1f})  their start (vLLM, tokenizer) +{once:.1f} s once; "
              f"first call extra {first_task_extra(r['cold_lines'])}")
        for i, pr in enumerate(pairs):
            print(f"round {i + 1}: pool, 2 workers {pr['pool_s']:5.1f} s | ray, warm actors {pr['ray_s']:5.1f} s "
                  f"{len(files) / pr['ray_s']:5.1f} rec/s | {pr['ray_s'] / pr['pool_s']:.2f}x the pool  "
                  f"(load {pr['load']:.1f}); CPU {pr['pool_cpu_s']:.1f} s vs {pr['ray_cpu_s']:.1f} s, "
                  f"{pr['ray_cpu_s'] / pr['pool_cpu_s']:.2f}x (idle Ray took {pr['ray_idle_cpu_s']:.2f} s "
                  "during the pool's run)")
        cpu_ratio = statistics.median(pr["ray_cpu_s"] / pr["pool_cpu_s"] for pr in pairs)
        print(f"ray warm / pool, median of {len(pairs)} pairs: {ratio:.2f}x the time (goal <= 1.15), "
              f"{cpu_ratio:.2f}x the CPU seconds (driver, Ray's servers, actors vs driver and workers)")
        per_task = (warm_s - pool_s) / len(files) * 2 * 1000
        print(f"ray per-call overhead:     {per_task:6.1f} ms (median warm run vs median pool, per CPU); "
              f"no-op actor call with a recording's bytes {r['noop_task_ms']:.1f} ms")
        result.update(ray_start_s=round(r["start_s"], 2), ray_cold_s=round(r["cold_s"], 2),
                      ray_warm_s=round(warm_s, 2), ray_vs_pool=round(ratio, 3),
                      ray_vs_pool_rounds=[round(x, 3) for x in ratios], ray_vs_pool_cpu=round(cpu_ratio, 3),
                      ray_loads=[round(pr["load"], 1) for pr in pairs],
                      ray_task_overhead_ms=round(per_task, 2), ray_noop_task_ms=round(r["noop_task_ms"], 2),
                      ray_actor_start_s=round(once, 2))
        # Calculated, not run: 100,000 recordings on 32 nodes, from the per-recording cost here.
        per_rec = task_s + max(per_task, r["noop_task_ms"]) / 1000
        for cores in (2, 16):
            secs = r["start_s"] + once + 100_000 * per_rec / (32 * cores)
            print(f"calculated: 100,000 recordings on 32 nodes x {cores} cores ~ {secs:.0f} s "
                  f"({per_rec * 1000:.0f} ms per recording per core)")
        result["calc_100k_32x2_min"] = round((r["start_s"] + once + 100_000 * per_rec / 64) / 60, 1)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
