"""The one owner of the widget's state (widget-free): it runs each action as a transition
``(state, runtime) -> state``, keeps the state it returns and tells the views.

Every action goes through ``do``, the error boundary: a ``WorkbenchError`` becomes the
outcome's one line, anything else a one-line summary with its traceback behind a fold; the
state keeps every row made before the failure (a transition's checkpoint, ``Runtime.last``).

The Run button steps from the kernel's own event loop in short slices, drawing the new rows
after each and yielding to the loop in between, where the kernel hears the Stop click (a
button callback that looped would keep the kernel from reading it). One thread does all
the work, so the engine, the state and the widgets need no locks. Without a running loop
(plain Python, tests) a Run goes synchronously to the end. A lane's Run sends the deltas
left in one request and each slice shows the rows that came (``transitions.run_slice``).
"""

from __future__ import annotations

import asyncio
import time
import traceback
from collections.abc import Callable
from dataclasses import replace
from typing import Any

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


class Controller:
    run_slice_s = 0.05  # work between two looks at the kernel's messages

    def __init__(self, state: State, runtime: Runtime | None = None) -> None:
        self.state = state
        self.rt = runtime or Runtime()
        self.listeners: list[Listener] = []
        self.progress: list[Callable[[str, float | None], None]] = []  # lines while an action works
        self.rt.status = self._progress
        self.task: asyncio.Task | None = None
        self._stop = False
        self._gen = 0  # the Run in progress; an action that replaces the stream starts another
        self.failed = False  # whether the last action failed

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    def _progress(self, message: str, fraction: float | None = None) -> None:
        for p in self.progress:
            p(message, fraction)

    def set(self, new: State) -> None:
        old, self.state = self.state, new
        for listener in self.listeners:
            listener(old, new)

    def do(self, action: str, fn: Callable[..., Any], *args: Any, raise_errors: bool = False) -> State:
        """``fn(state, runtime, *args) -> state`` behind the error boundary (``raise_errors``:
        the failure is shown and raised again, for a method called from a cell)."""
        self.rt.last = None
        self.failed = False
        before = self.state
        if before.outcome.kind in ("error", "refused", "warning"):  # a new action: the last one's line goes
            before = replace(before, outcome=Outcome("ok", "", action))
        try:
            new = fn(before, self.rt, *args)
        except (Exception, KeyboardInterrupt) as e:
            base = self.rt.last if self.rt.last is not None else before
            self.failed = True
            self.set(failed(base, e, action))
            if raise_errors:
                raise
            return self.state
        self.set(new)
        return new

    # -- Run and Stop ------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def run(self, every_s: float = 0.1, raise_errors: bool = False) -> State:
        """To the end of the stream, synchronously; the views see it every ``every_s``."""
        s = self.do("Run", T.begin, raise_errors=raise_errors)
        if self.failed:
            return s
        last = time.perf_counter()
        while not self.state.stream.done:
            try:
                new = T.run_slice(self.state, self.rt, every_s)
            except (Exception, KeyboardInterrupt) as e:
                self.set(failed(self.rt.last or self.state, e, "Run"))
                if raise_errors:
                    raise
                return self.state
            if time.perf_counter() - last >= every_s or new.stream.done:
                self.set(new)
                last = time.perf_counter()
            else:
                self.state = new  # drawn with the next slice
        self.set(replace(self.state, outcome=Outcome("ok", "", "Run")))
        return self.state

    def run_button(self) -> None:
        """The Run button: sliced on the kernel's event loop so rows stream in and Stop is
        heard; synchronous where no loop runs."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.run()
            return
        s = self.do("Run", T.begin)
        if self.failed or s.stream.done:
            return
        self._stop = False
        self._gen += 1
        self.set(replace(s, running=True))
        self.task = loop.create_task(self._sliced(self._gen))

    async def _sliced(self, gen: int) -> None:
        try:
            while gen == self._gen and not self._stop and not self.state.stream.done:
                self.do("Run", T.run_slice, self.run_slice_s)
                if self.failed:
                    return
                await asyncio.sleep(0.001)  # the kernel handles waiting messages (Stop) here
        finally:
            if gen == self._gen and (self._stop or self.state.running):
                s = self.state
                if self._stop and s.outcome.kind != "error":
                    self.do("Stop", T.stop)
                elif s.running:
                    self.set(replace(s, running=False))

    def stop(self) -> None:
        """Stop a Run after the row in progress (an engine step is not interrupted)."""
        if self.running:
            self._stop = True
        elif self.state.running:
            self.set(replace(self.state, running=False))

    def halt(self) -> None:
        """An action that replaces the stream stops a Run first, quietly."""
        self._gen += 1
        self.task = None
        if self.state.running:
            self.state = replace(self.state, running=False)
