"""Loading a 100,000-delta recording through the reading door vs the loader before it.

In one process, best of 6 rounds each (every round runs the three back to back, the order
rotating), over the same file (hermes + qwen3, one token per delta):

- ``bare``: ``for line in f: json.loads(line)``, the floor of any JSONL reader;
- ``before``: the loader as it was before core/door.py (binary line iteration, UTF-8
  decode, ``json.loads``, the same header and delta checks);
- ``door``: ``core.recording.load`` today (door.lines -> door.json_lines -> the checks);
- ``ids``: the ids-are-the-truth check on top (vLLM's detokenizer over every delta),
  as ``open_recording`` does it, reported on its own.

The last JSON line's ``ratio`` is door / before (goal <= 1.2).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import workbench.core.env  # noqa: E402,F401
from bench.recording_scale import write_recording  # noqa: E402


def before(path: Path) -> int:
    from workbench.core import recording as rec

    header, deltas = None, []
    with path.open("rb") as f:
        for n, raw in enumerate(f, 1):
            where = f"recording {path} line {n}"  # as the old loader named every line
            line = raw.decode("utf-8")
            if not line.strip():
                continue
            obj = json.loads(line)
            if header is None:
                header = rec._check_header(obj, where)
                continue
            deltas.append(rec._check_delta(obj, where))
    return len(deltas)


def bare(path: Path) -> int:
    n = 0
    with path.open("rb") as f:
        for raw in f:
            json.loads(raw)
            n += 1
    return n


def best(fn, *args, runs: int = 3) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def interleaved(sides: dict, path: Path, rounds: int) -> dict[str, float]:
    """Each side's best time over ``rounds`` rounds, every round running all sides back to
    back in a rotating order, so that load moves them alike. This thread's CPU time: what
    other processes take of a shared machine does not count (reading a file from the page
    cache is CPU work too)."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    names = list(sides)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t0 = time.thread_time()
            sides[name](path)
            times[name].append(time.thread_time() - t0)
    return {name: min(t) for name, t in times.items()}


def main() -> None:
    import gc

    from workbench.core import recording as rec, truth
    from workbench.core.open_recording import Given, _ids_session

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rec.jsonl"
        write_recording(path, n)
        gc.disable()
        rec.load(path)  # warm-up
        figures = {"deltas": n, "bytes": path.stat().st_size,
                   **interleaved({"bare_s": bare, "before_s": before, "door_s": rec.load}, path, rounds=6)}
        r = rec.load(path)
        session = _ids_session(r, "qwen3", None, Given())
        figures["ids_s"] = best(truth.text_of_ids, session, r.deltas, runs=1)
        gc.enable()
    figures["ratio"] = round(figures["door_s"] / figures["before_s"], 3)
    figures["door_vs_bare"] = round(figures["door_s"] / figures["bare_s"], 3)
    for k in ("bare_s", "before_s", "door_s", "ids_s"):
        figures[k] = round(figures[k], 3)
    print(f"{n:,} deltas: bare {figures['bare_s']} s, before {figures['before_s']} s, door {figures['door_s']} s "
          f"(ratio {figures['ratio']}), ids check {figures['ids_s']} s", file=sys.stderr)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
