"""The local process pool: N workers, one recording each at a time, results in the order
they finish.

Workers are forked from this process once vLLM is imported here (``preload``), so no
worker imports it again; where fork is unavailable they are spawned and each imports
it with its first recording. A worker keeps its vLLM, tokenizers, parser classes and
``--vllm`` lanes for every later recording. A worker that dies (a crash in native code,
the OOM killer) turns its recording into an error line and is replaced; the run goes
on. A worker's output (vLLM's warnings) goes to a log file, never into the terminal.
"""

from __future__ import annotations

import itertools
import multiprocessing as mp
import os
import shutil
import signal
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from multiprocessing.connection import wait

from workbench.corpus import task as task_mod
from workbench.corpus.spec import Spec


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


def preload(tokenizers: list[str]) -> None:
    """What every worker needs, loaded once here so forked workers share it: vLLM, the
    workbench, and the tokenizers the recordings name (a tokenizer loads in 3-13 s)."""
    import vllm  # noqa: F401

    import workbench.check.suite  # noqa: F401
    import workbench.cli  # noqa: F401
    from workbench.core.tokenizers import load_tokenizer
    from workbench.errors import WorkbenchError

    for name in tokenizers:
        try:
            load_tokenizer(name)
        except WorkbenchError:  # that recording's own error line will say why
            pass


def _serve(conn, spec: dict, log: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a run stops
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        while True:
            try:
                job = conn.recv()
            except EOFError:
                break
            if job is None:
                break
            conn.send(task_mod.run(spec, *job))
    finally:
        from workbench.lanes import lane

        lane.close_all()


class _Worker:
    def __init__(self, ctx, spec: dict, log: str) -> None:
        self.conn, child = ctx.Pipe()
        self.log = log
        self.proc = ctx.Process(target=_serve, args=(child, spec, log), daemon=True)
        self.proc.start()
        child.close()
        self.job: tuple | None = None

    def last_log_line(self) -> str:
        try:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                lines = [ln.strip() for ln in f.read().splitlines()[-50:] if ln.strip()]
        except OSError:
            return ""
        return lines[-1] if lines else ""

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def run(spec: Spec, jobs: Iterable, workers: int, tokenizers: list[str] = ()) -> Iterator[dict]:
    """Results lines for ``jobs`` as they finish: a job is (path, sha256, bytes), or a
    results line already made (a file that could not be read), passed straight on.
    ``tokenizers``: the ones to load before the workers start."""
    before, pending = until_first_job(jobs)
    yield from before
    if pending is None:  # nothing to run (all resumed, or unreadable): no workers, no vLLM import
        return
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else "spawn")
    if "fork" in methods:
        preload(list(tokenizers))
    d = spec.to_dict()
    logs = tempfile.mkdtemp(prefix="wb-corpus-logs-")
    ready: deque = deque()
    pool = [_Worker(ctx, d, os.path.join(logs, f"worker-{i}.log")) for i in range(max(1, workers))]
    busy: dict = {}
    try:
        for w in pool:
            _give(w, pending, busy, ready)
        while busy or ready:
            while ready:
                yield ready.popleft()
            for conn in wait(list(busy)) if busy else ():
                w = busy.pop(conn)
                try:
                    line = conn.recv()
                except (EOFError, OSError):
                    line = _died(spec, w)
                    pool.remove(w)
                    w.conn.close()
                    w = _Worker(ctx, d, w.log)
                    pool.append(w)
                yield line
                _give(w, pending, busy, ready)
    except BaseException:  # interrupted: what is in flight is not waited for
        for w in pool:
            w.proc.kill()
        raise
    finally:
        for w in pool:
            w.stop()
        shutil.rmtree(logs, ignore_errors=True)


def until_first_job(jobs: Iterable) -> tuple[list[dict], Iterator | None]:
    """(the ready lines before the first job, the jobs from it on, or None when there is none)."""
    before, it = [], iter(jobs)
    for job in it:
        if not isinstance(job, dict):
            return before, itertools.chain([job], it)
        before.append(job)
    return before, None


def _died(spec: Spec, w: _Worker) -> dict:
    w.proc.join(timeout=5)
    path, sha, data = w.job
    last = w.last_log_line()
    return task_mod.error_line(spec, path, sha, f"its worker died (exit code {w.proc.exitcode})"
                               + (f": {last}" if last else ""), "worker", data)


def _give(w: _Worker, pending: Iterator, busy: dict, ready: deque) -> None:
    for job in pending:
        if isinstance(job, dict):
            ready.append(job)
            continue
        w.job = job
        w.conn.send(job)
        busy[w.conn] = w
        return
