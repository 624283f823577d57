"""Spread independent replays over CPU cores with ``fork``.

Each grouping replays through fresh parser instances, so groupings are
independent; almost all the time is vLLM's parser code, which holds the GIL.
Forked children inherit the loaded tokenizer, parser classes and session as
they are (no pickling of those); only the small per-item results travel back.
Where fork is unavailable, or for one job, everything runs in this process.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import traceback
from collections.abc import Callable, Sequence

MAX_JOBS = 4


def default_jobs() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except AttributeError:
        n = os.cpu_count() or 1
    return max(1, min(MAX_JOBS, n))


def _child(fn, items, conn) -> None:
    try:
        out = ("ok", [fn(x) for x in items])
    except BaseException:  # noqa: BLE001  (reported in the parent with its traceback)
        out = ("error", traceback.format_exc())
    conn.send_bytes(pickle.dumps(out))
    conn.close()


def map_items(fn: Callable, items: Sequence, jobs: int = 0) -> list:
    """``[fn(x) for x in items]``, in order, over ``jobs`` processes (0: one per core)."""
    jobs = jobs or default_jobs()
    if jobs <= 1 or len(items) < 2 * jobs or "fork" not in mp.get_all_start_methods():
        return [fn(x) for x in items]
    ctx = mp.get_context("fork")
    # Round-robin shares: neighbouring items cost alike (two-chunk splits, random groupings).
    shares = [list(range(j, len(items), jobs)) for j in range(jobs)]
    children = []
    for share in shares[1:]:
        recv, send = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_child, args=(fn, [items[i] for i in share], send), daemon=True)
        p.start()
        send.close()
        children.append((p, recv, share))
    results: list = [None] * len(items)
    for i in shares[0]:
        results[i] = fn(items[i])
    for p, recv, share in children:
        try:
            status, payload = pickle.loads(recv.recv_bytes())
        except EOFError:
            p.join()
            raise RuntimeError(f"a check worker died (exit code {p.exitcode})") from None
        p.join()
        if status != "ok":
            raise RuntimeError(f"a check worker failed:\n{payload}")
        for i, r in zip(share, payload):
            results[i] = r
    return results
