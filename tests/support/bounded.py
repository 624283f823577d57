"""One `workbench` command in a forked child with its own memory and time bounds.

Issue 16's goal: no input takes more than 2 GB or more than 60 s (unless vLLM itself
would take that long on it). ``run(argv)`` forks this (test) process, where vLLM is
already imported, so the command starts warm; the child gets RLIMIT_AS of its address
space at the fork plus ``memory`` (an allocation past it fails there), runs the CLI
in-process with stdout and stderr in files, and reports its exit code and how far its
peak RSS rose above the RSS it started with. The parent kills it at ``seconds``. The
child never returns into the caller's code.
"""

from __future__ import annotations

import io
import json
import os
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

GB = 1 << 30
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Outcome:
    code: int | None  # the CLI's exit code; None when the child raised, died or was killed
    out: str
    err: str
    grew: int  # bytes: the child's peak RSS over its RSS at the fork
    seconds: float
    died: str | None = None  # "ran past N s", "signal N", "raised"

    @property
    def grew_gb(self) -> float:
        return self.grew / GB


def _statm() -> tuple[int, int]:
    """(address space, resident) of this process, in bytes."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        size, resident = os.read(fd, 256).split()[:2]
    finally:
        os.close(fd)
    return int(size) * PAGE, int(resident) * PAGE


def _child(argv, memory: int, report: int, out_fd: int, err_fd: int) -> None:
    space, resident = _statm()
    limit = space + memory
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    os.dup2(out_fd, 1)
    os.dup2(err_fd, 2)
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True)
    status: dict = {}
    t0 = time.perf_counter()
    try:
        from workbench.cli import main

        status["code"] = main([str(a) for a in argv])
    except SystemExit as e:
        status["code"] = e.code if isinstance(e.code, int) else 2
    except BaseException:  # noqa: BLE001  (the test reads it: a traceback fails the property)
        sys.stderr.write(traceback.format_exc())
        status["died"] = "raised"
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError):
            pass
    status["seconds"] = time.perf_counter() - t0
    status["grew"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - resident
    os.write(report, json.dumps(status).encode())


def run(argv, memory: int = 2 * GB, seconds: float = 60.0) -> Outcome:
    """``workbench ARGV`` in a fork bounded by ``memory`` more bytes and ``seconds``."""
    read, write = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                _child(argv, memory, write, out.fileno(), err.fileno())
            finally:
                os._exit(0)
        os.close(write)
        t0 = time.perf_counter()
        died = None
        try:
            ready, _, _ = select.select([read], [], [], seconds)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                died = f"ran past {seconds:g} s"
            data = os.read(read, 1 << 16) if ready else b""
        finally:
            os.close(read)
            _, status = os.waitpid(pid, 0)
        took = time.perf_counter() - t0
        if died is None and os.WIFSIGNALED(status):
            died = f"signal {os.WTERMSIG(status)}"
        result = json.loads(data) if data else {}
        if died is None and not result:
            died = "no report"
        out.seek(0)
        err.seek(0)
        return Outcome(result.get("code"), out.read().decode("utf-8", "replace"),
                       err.read().decode("utf-8", "replace"), int(result.get("grew", 0)),
                       result.get("seconds", took), died or result.get("died"))
