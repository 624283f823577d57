"""A lane's worker process and its protocol: one JSON request a line, answers read back.

``Lane(version).start()`` starts the worker (``worker.py``, or the program its caller
names) with the version's verified tree first on its path; ``call(op, **args)`` sends one
request and reads its answer; ``stream(op, **args)`` reads a long answer's lines as the
caller asks for them (``Stream``: the widget's Run reads a feed's rows between its
slices), and ``Stream.cancel()`` ends it early. A worker that dies raises ``LaneDied``
(a WorkbenchError, one line with the worker's last stderr line); one that raises anything
else raises ``LaneFailed`` here (errors.py), with its traceback kept on it. ``lane.py``
keeps one lane per version for a process; ``warm.py``'s lanes talk over a socket.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from typing import TYPE_CHECKING

from workbench.errors import LaneFailed, WorkbenchError
from workbench.lanes import tree, versions

if TYPE_CHECKING:
    from collections.abc import Callable

START_TIMEOUT_S = 120.0
WORKER = "workbench.lanes.worker"  # the program a lane runs unless its caller names another


def lane_env(version: str, root: object) -> dict[str, str]:
    """The environment a lane's worker runs in: ``root`` (its verified vLLM tree) first on the path."""
    env = dict(os.environ)
    # the worker's working folder is its own (worker.private_folder): a relative entry is this process's
    env["PYTHONPATH"] = os.pathsep.join(
        [str(root), str(versions.REPO_ROOT)]
        + [os.path.abspath(p) for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["VLLM_TARGET_DEVICE"] = "cpu"  # platform detection; a lane never runs a kernel
    env["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # only the tree's verified source runs (lanes/manifest.py)
    env[versions.LANE_ENV] = version  # a command run in the lane asks no other lane (versions.in_lane)
    return env


FOLDER_ENV = "WORKBENCH_LANE_FOLDER"  # the folder a worker's starter made for it (and removes if it dies)


def new_folder() -> str:
    """An empty folder only this user can open (0700): one worker's working folder."""
    return tempfile.mkdtemp(prefix="workbench-lane-")


def _remove_folder(folder: str, owner: int) -> None:
    """A worker's folder, removed by the process that started it: a forked child (lane.py
    drops its copy of the parent's lanes) must not remove the folder a live worker works in."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


def command(program: str, *args: str) -> list[str]:
    """``python -P -m program``: ``-P`` keeps the working folder off ``sys.path``; the worker
    then works in an empty private folder of its own (worker.private_folder), never the
    caller's folder or the project checkout (paths cross the wire absolute: lanes/carried.py)."""
    return [sys.executable, "-P", "-m", program, *args]


class LaneDied(WorkbenchError):
    """The worker process exited (or never answered)."""


class Lane:
    def __init__(self, version: str, program: str = WORKER) -> None:
        self.version = version
        self.program = program  # a module run with -m: lanes.worker, or a Worker subclass's
        self.proc: subprocess.Popen | None = None
        self.info: dict = {}
        self.start_s = 0.0
        self.verify_s = 0.0  # checking the tree's manifest (budget 0.3 s)
        self.warm = False  # a warm server's worker that was already running (lanes/warm.py)
        self._log = None
        self.folder: str | None = None  # the worker's private working folder, removed at close
        self._lock = threading.RLock()  # held by a request, or a Stream, until its answer ends
        self._open: Stream | None = None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    @property
    def started(self) -> bool:
        return self.proc is not None

    def start(self, progress: Callable[[str], None] | None = None) -> Lane:
        t0 = time.perf_counter()
        root = tree.ensure(self.version, progress)  # verified file by file, every start
        self.verify_s = time.perf_counter() - t0
        self._log = tempfile.TemporaryFile(mode="w+", prefix=f"lane-{self.version}-")
        t0 = time.perf_counter()
        self.folder = new_folder()  # the worker's working folder (worker.private_folder)
        # removed at close, or when this Lane is dropped unclosed (a worker that died cannot)
        self._remove_folder = weakref.finalize(self, _remove_folder, self.folder, os.getpid())
        self.proc = subprocess.Popen(
            command(self.program), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self._log, env=lane_env(self.version, root) | {FOLDER_ENV: self.folder},
            text=True, encoding="utf-8", cwd="/")
        hello = self._read(timeout=START_TIMEOUT_S, what="start")
        self.start_s = time.perf_counter() - t0
        return self._greeted(hello)

    def _greeted(self, hello: dict) -> Lane:
        """The worker's first line checked: its vLLM is this lane's, its rows are ours."""
        if hello.get("vllm") != self.version:
            self.close()
            raise WorkbenchError(f"vLLM lane {self.version}: the worker imported vLLM "
                                 f"{hello.get('vllm')} from {hello.get('file')}")
        from workbench.lanes.wire import row_fields

        if hello.get("row_fields") != row_fields():
            self.close()
            raise WorkbenchError(f"vLLM lane {self.version}: the worker's Row fields differ from this "
                                 f"process's (a different workbench on its sys.path?)")
        self.info = hello
        return self

    def last_stderr(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        lines = [ln.strip() for ln in self._log.read().splitlines() if ln.strip()]
        return lines[-1] if lines else ""

    def _died(self, what: str) -> LaneDied:
        code = self.proc.wait(timeout=5) if self.proc is not None else None
        last = self.last_stderr()
        return LaneDied(f"vLLM {self.version} lane died during {what} (exit code {code})"
                        + (f": {last}" if last else ""))

    def _readline(self, timeout: float | None) -> str:
        timer = None
        if timeout is not None:  # a worker stuck at start-up is killed, then reads EOF
            timer = threading.Timer(timeout, self.proc.kill)
            timer.start()
        try:
            return self.proc.stdout.readline()
        finally:
            if timer is not None:
                timer.cancel()

    def _write(self, text: str) -> None:
        self.proc.stdin.write(text)
        self.proc.stdin.flush()

    def _read(self, timeout: float | None = None, what: str = "a request") -> dict:
        line = self._readline(timeout)
        if not line:
            raise self._died(what)
        return json.loads(line)

    def call(self, op: str, **args) -> dict:
        """One request, one answer."""
        return list(self.answers(op, **args))[-1]

    def answers(self, op: str, **args):
        """One request; its answer lines as they arrive (``more: true`` on all but the last)."""
        stream = self.stream(op, **args)
        while (part := stream.next()) is not None:
            yield part

    def stream(self, op: str, **args) -> Stream:
        """Send one request now; read its answer lines with ``next()``. A stream still open
        on this lane is cancelled first (its owner reads what it had made: ``Stream.next``)."""
        self._lock.acquire()
        try:
            if self._open is not None:
                self._open.cancel()
            if not self.alive:
                raise self._died(op) if self.started else LaneDied(f"vLLM {self.version} lane is not started")
            self._send({"op": op, **args}, op)
        except BaseException:
            self._lock.release()
            raise
        self._open = Stream(self, op)
        return self._open

    def _send(self, msg: dict, what: str) -> None:
        try:
            self._write(json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n")
        except (BrokenPipeError, OSError):
            raise self._died(what) from None

    def _ended(self, stream: Stream) -> None:
        if self._open is stream:
            self._open = None
            self._lock.release()

    def close(self) -> None:
        if self._open is not None:
            self._open._end()
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        if self._log is not None:
            self._log.close()
            self._log = None
        if self.folder is not None:  # the worker removes it as it ends; one that died could not
            self._remove_folder()
            self.folder = None


class Stream:
    """One request's answer lines, read one at a time (``next``); ``cancel`` asks the worker
    to stop after the line it is writing and reads the rest, which ``next`` still returns.
    While it is open the lane serves no other request (one asked for cancels it first)."""

    def __init__(self, lane: Lane, op: str) -> None:
        self.lane, self.op = lane, op
        self.done = False
        self.cancelled = False  # the worker stopped early: the answer is short
        self._kept: list[dict] = []
        self._error: BaseException | None = None

    def next(self) -> dict | None:
        """The next answer line (``ok`` and ``more`` taken out), None after the last; a failed
        answer raises (LaneDied, WorkbenchError, LaneFailed)."""
        if self._kept:
            return self._kept.pop(0)
        if self._error is not None:
            error, self._error = self._error, None
            raise error
        if self.done:
            return None
        return self._read()

    def _read(self) -> dict:
        lane = self.lane
        try:
            answer = lane._read(what=self.op)
        except BaseException:
            self._end()
            raise
        if not answer.pop("ok"):
            self._end()
            if answer.get("kind") == "WorkbenchError":
                raise WorkbenchError(answer["error"])
            first = " ".join(str(answer.get("error")).split())[:500]
            raise LaneFailed(f"vLLM {lane.version} lane, op {self.op}: {first}",
                             str(answer.get("traceback") or ""))
        if not answer.pop("more", False):
            self.cancelled = bool(answer.pop("cancelled", False))
            self._end()
        return answer

    def _end(self) -> None:
        self.done = True
        self.lane._ended(self)

    def cancel(self) -> None:
        """Stop the worker between two answer lines; the lines already made are kept."""
        if self.done:
            return
        try:
            self.lane._send({"op": "cancel"}, self.op)
            while not self.done:
                self._kept.append(self._read())
        except Exception as e:  # the owner meets it at its next read
            self._error = e
            if not self.done:
                self._end()
