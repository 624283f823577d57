"""The local process pool: N workers, one recording each at a time, results in the order
they finish.

Workers are forked from this process once vLLM is imported here (``preload``), so no
worker imports it again; where fork is unavailable they are spawned and each imports
it with its first recording. A worker keeps its vLLM, tokenizers, parser classes and
``--vllm`` lanes for every later recording. A worker that dies (a crash in native code,
the OOM killer) turns its recording into an error line and is replaced; the run goes
on. A worker's output (vLLM's warnings) goes to a log file, never into the terminal.

Nothing is left behind: a worker dies with the corpus process however that ends
(SIGTERM, SIGINT, ``kill -9``: Linux's ``PR_SET_PDEATHSIG``, else a watch on its parent)
and removes its temporary folder as it goes; the run's folder holds every worker's and
is removed when the run ends; a log is an unlinked file where workers are forked; and a
SIGTERM ends the run as an interrupt does.
"""

from __future__ import annotations

import ctypes
import importlib
import itertools
import multiprocessing as mp
import os
import shutil
import signal
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import wait

from workbench.corpus import task as task_mod
from workbench.corpus.spec import Spec

TASK = "workbench.corpus.task"


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
    import workbench.runs.on_spec  # noqa: F401
    from workbench.core.tokenizers import load_tokenizer
    from workbench.errors import WorkbenchError

    for name in tokenizers:
        try:
            load_tokenizer(name)
        except WorkbenchError:  # that recording's own error line will say why
            pass


PR_SET_PDEATHSIG = 1


def die_with(parent: int, folder: str) -> None:
    """End this process, its temporary ``folder`` removed, when ``parent`` ends, however it
    ends (``kill -9`` too): the kernel sends SIGTERM (``PR_SET_PDEATHSIG``), or a watch sees it."""
    def end(*_: object) -> None:
        shutil.rmtree(folder, ignore_errors=True)
        try:
            os.rmdir(os.path.dirname(folder))  # the run's folder, by the last worker out
        except OSError:
            pass
        os._exit(1)

    signal.signal(signal.SIGTERM, end)
    try:
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0:
            if os.getppid() != parent:  # it ended before the signal was asked for
                end()
            return
    except (OSError, AttributeError):  # not Linux
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True).start()


def _serve(conn, spec: dict, log: int | str, parent: int, run_dir: str, task: str = TASK) -> None:
    from workbench.lanes import warm_socket

    warm_socket.pin()  # the warm lanes' sockets stay the user's, shared with the run and every worker
    own = tempfile.mkdtemp(prefix="w", dir=run_dir)
    tempfile.tempdir = own  # the recording's bytes and files (task.py) go here
    die_with(parent, own)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a run stops
    run_task = importlib.import_module(task).run
    fd = log if isinstance(log, int) else os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
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
            conn.send(run_task(spec, *job))
    finally:
        import sys

        from workbench.lanes import lane

        lane.close_all()
        rust = sys.modules.get("workbench.rustfe.lane")  # os._exit follows: no atexit closes them
        if rust is not None:
            rust.close_all()
        shutil.rmtree(own, ignore_errors=True)


class _Log:
    """A worker's log: an unlinked file (forked workers inherit it), else a named one
    removed when the worker stops."""

    def __init__(self, forked: bool, folder: str) -> None:
        self.forked = forked
        self.file = tempfile.TemporaryFile(dir=folder) if forked else tempfile.NamedTemporaryFile(
            prefix="log-", suffix=".log", dir=folder, delete=False)
        self.target: int | str = self.file.fileno() if forked else self.file.name

    def last_line(self) -> str:
        try:
            size = os.fstat(self.file.fileno()).st_size
            tail = os.pread(self.file.fileno(), 64 << 10, max(0, size - (64 << 10)))
        except OSError:
            return ""
        lines = [ln.strip() for ln in tail.decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1] if lines else ""

    def close(self) -> None:
        self.file.close()
        if not self.forked:
            try:
                os.unlink(self.file.name)
            except OSError:
                pass


class _Worker:
    def __init__(self, ctx, spec: dict, forked: bool, run_dir: str, task: str = TASK) -> None:
        self.conn, child = ctx.Pipe()
        self.log = _Log(forked, run_dir)
        self.proc = ctx.Process(target=_serve, args=(child, spec, self.log.target, os.getpid(), run_dir, task),
                                daemon=True)
        self.proc.start()
        child.close()
        self.job: tuple | None = None

    def last_log_line(self) -> str:
        return self.log.last_line()

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
        self.log.close()


def run(spec: Spec, jobs: Iterable, workers: int, tokenizers: list[str] = (), task: str = TASK) -> Iterator[dict]:
    """Results lines for ``jobs`` as they finish: a job is (path, sha256, bytes), or a
    results line already made (a file that could not be read), passed straight on.
    ``tokenizers``: the ones to load before the workers start. ``task``: the module whose
    ``run(spec_dict, *job)`` a worker calls and whose ``error_line`` a dead worker's job gets
    (the corpus's; the matrix has its own)."""
    before, pending = until_first_job(jobs)
    yield from before
    if pending is None:  # nothing to run (all resumed, or unreadable): no workers, no vLLM import
        return
    forked = "fork" in mp.get_all_start_methods()
    ctx = mp.get_context("fork" if forked else "spawn")
    if forked:
        preload(list(tokenizers))
    d = spec.to_dict()
    run_dir = tempfile.mkdtemp(prefix="wb-corpus-run-")

    def new() -> _Worker:
        return _Worker(ctx, d, forked, run_dir, task)

    try:
        with terminated_as_interrupt():
            yield from _loop(new, spec, workers, pending, importlib.import_module(task))
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def _loop(new, spec: Spec, workers: int, pending: Iterator, task=task_mod) -> Iterator[dict]:
    ready: deque = deque()
    pool: list[_Worker] = []
    busy: dict = {}
    try:
        pool += [new() for _ in range(max(1, workers))]
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
                    line = _died(spec, w, task)
                    pool.remove(w)
                    w.stop()
                    w = new()
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


@contextmanager
def terminated_as_interrupt() -> Iterator[None]:
    """A SIGTERM while the pool runs ends it as Ctrl+C does: the workers stopped, nothing
    left behind (only the main thread can take a signal; elsewhere nothing changes)."""
    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        before = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def until_first_job(jobs: Iterable) -> tuple[list[dict], Iterator | None]:
    """(the ready lines before the first job, the jobs from it on, or None when there is none)."""
    before, it = [], iter(jobs)
    for job in it:
        if not isinstance(job, dict):
            return before, itertools.chain([job], it)
        before.append(job)
    return before, None


def _died(spec: Spec, w: _Worker, task=task_mod) -> dict:
    w.proc.join(timeout=5)
    path, sha, data = w.job
    last = w.last_log_line()
    return task.error_line(spec, path, sha, f"its worker died (exit code {w.proc.exitcode})"
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
