"""The one owner of the widget's state (widget-free): it runs each action as a transition
``(state, runtime) -> state``, keeps the state it returns and tells the views.

Every action goes through ``do``, the error boundary: a ``WorkbenchError`` becomes the
outcome's one line, anything else a one-line summary with its traceback behind a fold; the
state keeps every row made before the failure (a transition's checkpoint, ``Runtime.last``).

The Run button steps from the kernel's own event loop in short slices, drawing the new rows
after each and yielding to the loop in between, where the kernel hears the Stop click (a
button callback that looped would keep the kernel from reading it). Without a running loop
(plain Python, tests) a Run goes synchronously to the end. A lane's Run sends the deltas
left in one request and each slice shows the rows that came (``transitions.run_slice``).

One writer, even while running. JupyterLab sends widget messages over a kernel subshell,
which ipykernel handles on a thread of its own: a Run started there slices on that thread
while a Reset click is handled on the main one. So a Run is a task that owns the stream:
an action that arrives on another thread while it runs is queued onto this controller and
the task applies it between two slices (an action on the task's own thread is between two
slices already). Reset, Replay, a recording and Stop end the Run before they change the
state; a setting picked during it waits for Replay or Reset as it would after it. One lock
makes each transition whole, whichever thread runs it.
"""

from __future__ import annotations

import asyncio
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from workbench.core import logs
from workbench.errors import WorkbenchError
from workbench.ui import transitions as T
from workbench.ui.runtime import Runtime
from workbench.ui.state import Outcome, State

Listener = Callable[[State, State], None]


def failed(s: State, e: BaseException, action: str) -> State:
    """The state with the failure as its outcome (its rows stay)."""
    where = f"{action}: " if action else ""
    if isinstance(e, WorkbenchError):
        return replace(s, running=False, outcome=Outcome("error", f"{where}{e}", action))
    if isinstance(e, KeyboardInterrupt):
        return replace(s, running=False, outcome=Outcome("error", f"{where}interrupted (the rows so far are kept)",
                                                         action))
    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    if getattr(e, "worker_traceback", ""):  # a lane's bug (LaneFailed): where it really raised
        tb += "\nthe lane worker's traceback:\n" + e.worker_traceback
    first = str(e).splitlines()[0] if str(e) else ""
    return replace(s, running=False, outcome=Outcome("error", f"{where}unexpected {type(e).__name__}: {first}",
                                                     action, tb))


@dataclass
class Queued:
    """An action that came in while a Run ran on another thread; ``applied`` once the Run's
    task applied it (``error``: what it raised, for a caller that waits)."""

    action: str
    fn: Callable[..., Any]
    args: tuple
    ends_run: bool
    raise_errors: bool
    applied: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


class Controller:
    run_slice_s = 0.05  # work between two looks at the kernel's messages

    def __init__(self, state: State, runtime: Runtime | None = None) -> None:
        self.state = state
        self.rt = runtime or Runtime()
        self.listeners: list[Listener] = []
        self.progress: list[Callable[[str, float | None], None]] = []  # lines while an action works
        self.rt.status = self._progress
        self.task: asyncio.Task | None = None
        self.queued: deque[Queued] = deque()  # actions waiting for the Run's next turn
        self._lock = threading.RLock()  # one transition at a time (held through a slice)
        self._queue_lock = threading.Lock()  # the queue and the owner, taken briefly (never before _lock)
        self._owner: int | None = None  # the thread whose loop the Run's task slices on
        self._gen = 0  # the Run in progress; an action that replaces the stream starts another
        self.failed = False  # whether the last action failed

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _progress(self, message: str, fraction: float | None = None) -> None:
        for p in self.progress:
            p(message, fraction)

    def set(self, new: State) -> State:
        """The one write of the state: ``new`` with what the views read of the runtime
        (``transitions.seen``), then every view is told."""
        with self._lock:
            new = T.seen(new, self.rt)
            old, self.state = self.state, new
            for listener in self.listeners:
                listener(old, new)
            return new

    def do(self, action: str, fn: Callable[..., Any], *args: Any, raise_errors: bool = False,
           ends_run: bool = False) -> State:
        """``fn(state, runtime, *args) -> state`` behind the error boundary (``raise_errors``:
        the failure is shown and raised again, for a method called from a cell). While a Run
        slices on another thread it is queued for the Run's next turn (a caller that wants
        the failure raised waits for it); ``ends_run``: the Run ends first (a new stream)."""
        queued = None
        with self._queue_lock:
            if self._elsewhere():  # never waits for the slice in flight: queued, the Run applies it
                queued = Queued(action, fn, args, ends_run, raise_errors)
                self.queued.append(queued)
        if queued is None:
            with self._lock:
                self._drain()  # what came before it from another thread (this thread runs the Run)
                if ends_run:
                    self._end_run()
                try:
                    return self._apply(action, fn, args, raise_errors)
                finally:
                    self._drain()  # what came from another thread until the Run ended
        if raise_errors:
            queued.applied.wait()
            if queued.error is not None:
                raise queued.error
        return self.state

    def _elsewhere(self) -> bool:
        """Whether a Run's task owns the stream from another thread than this one."""
        return self._owner is not None and self._owner != threading.get_ident()

    def _apply(self, action: str, fn: Callable[..., Any], args: tuple, raise_errors: bool) -> State:
        self.rt.last = None
        self.failed = False
        before = self.state
        if before.running and self._owner is None:  # a Run just ended (_end_run): this draws it
            before = replace(before, running=False)
        if before.outcome.kind in ("error", "refused", "warning"):  # a new action: the last one's line goes
            before = replace(before, outcome=Outcome("ok", "", action))
        try:
            with logs.parsers_muted():  # each parser log line is on its row (the logs column)
                new = fn(before, self.rt, *args)
        except (Exception, KeyboardInterrupt) as e:
            base = self.rt.last if self.rt.last is not None else before
            self.failed = True
            self.set(failed(base, e, action))
            if raise_errors:
                raise
            return self.state
        with logs.parsers_muted():  # the final tab replays the stream for every API
            return self.set(new)

    def _drain(self, end: bool = False) -> bool:
        """Apply the queued actions in order (on the Run's thread, between two slices; ``end``:
        the Run's last turn, after which nothing is queued); whether one of them ended the Run."""
        ended = False
        while True:
            with self._queue_lock:
                if not self.queued:
                    if end:
                        self._owner = None
                    return ended
                q = self.queued.popleft()
            if q.ends_run and not ended and not end:
                self._end_run()
                ended = True
            try:
                self._apply(q.action, q.fn, q.args, q.raise_errors)
            except (Exception, KeyboardInterrupt) as e:  # shown already; raised in the caller's thread
                q.error = e
            finally:
                q.applied.set()

    def _end_run(self) -> None:
        """The Run's task stops where it is (it writes nothing more); the transition that
        follows starts from the state with no Run (``_apply``) and draws it."""
        self._gen += 1
        self.task = None
        with self._queue_lock:
            self._owner = None

    # -- Run and Stop ------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._owner is not None

    def run(self, every_s: float = 0.1, raise_errors: bool = False) -> State:
        """To the end of the stream, synchronously; the views see it every ``every_s``. A Run
        of the Run button stops first (this one finishes the stream)."""
        with self._lock, logs.parsers_muted():
            if self.running:
                self._drain()
                self._end_run()
                self._drain()
            s = self._apply("Run", T.begin, (), raise_errors)
            if self.failed:
                return s
            last = time.perf_counter()
            while not s.stream.done:  # a slice not drawn yet is kept here, drawn with the next
                try:
                    new = T.run_slice(s, self.rt, every_s)
                except (Exception, KeyboardInterrupt) as e:
                    self.set(failed(self.rt.last or s, e, "Run"))
                    if raise_errors:
                        raise
                    return self.state
                if time.perf_counter() - last >= every_s or new.stream.done:
                    new = self.set(new)
                    last = time.perf_counter()
                s = new
            return self.set(replace(s, outcome=Outcome("ok", "", "Run")))

    def run_button(self) -> None:
        """The Run button: sliced on the kernel's event loop so rows stream in and Stop is
        heard; synchronous where no loop runs. A click while a Run runs does nothing."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if not self.running:
                self.run()
            return
        if self.running:  # checked before the lock: the slice in flight holds it
            return
        with self._lock:
            if self.running:
                return
            s = self._apply("Run", T.begin, (), False)
            if self.failed or s.stream.done:
                return
            self._gen += 1
            with self._queue_lock:
                self._owner = threading.get_ident()
            self.set(replace(s, running=True))
            self.task = loop.create_task(self._sliced(self._gen))

    async def _sliced(self, gen: int) -> None:
        try:
            while True:
                with self._lock:
                    if gen != self._gen or self._drain() or gen != self._gen:
                        return  # ended by an action (it drew the state)
                    if self.state.stream.done:
                        return
                    self._apply("Run", T.run_slice, (self.run_slice_s,), False)
                    if self.failed:
                        return
                await asyncio.sleep(0.001)  # the kernel handles the messages on this thread here
        finally:
            with self._lock:
                if gen == self._gen:
                    self.task = None
                    if self.state.running:
                        self.set(replace(self.state, running=False))
                    self._drain(end=True)  # what came while the last slice ran; then no Run

    def stop(self) -> None:
        """Stop a Run after the row in progress (an engine step is not interrupted)."""
        if self.running:
            self.do("Stop", T.stop, ends_run=True)
            return
        with self._lock:
            if self.state.running:
                self.set(replace(self.state, running=False))
