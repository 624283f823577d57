"""Run a stream from the Run button so that its rows show as they arrive and Stop works.

A button callback runs inside the kernel's handler for that click: while it
loops, the kernel reads no other message, so a Stop click would wait until the
run is over. ``SlicedRun`` therefore steps from the kernel's own event loop in
short slices (``slice_s``), showing the new rows after each and yielding to the
loop in between, where the kernel handles the Stop click. One thread does all
the work, so the engine, the model and the widgets need no locks (a worker
thread would need one around the shared engine and every widget update).
Without a running event loop (plain Python, tests) ``start`` returns False and
the caller runs synchronously.

A source whose deltas go to a lane (another vLLM's worker process) streams: the
Run's first slice sends every delta left in one request, and each slice shows the
rows that came during it (``step_for``) while the lane makes the next ones. Stop
cancels the request (``pause``): the lane feeds no more deltas, the rows it had made
are shown, and Step or Run goes on from there.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


class SlicedRun:
    def __init__(self, step: Callable[[], object], done: Callable[[], bool],
                 show: Callable[[], None], failed: Callable[[BaseException], None],
                 finished: Callable[[bool], None], slice_s: float = 0.05,
                 step_for: Callable[[float], object] | None = None,
                 pause: Callable[[], object] | None = None) -> None:
        self.step, self.done, self.show, self.failed = step, done, show, failed
        self.finished = finished  # called with stopped=True/False at the end, error or not
        self.slice_s = slice_s
        self.step_for, self.pause = step_for, pause  # a streaming source's (a lane's)
        self.task: asyncio.Task | None = None
        self.stopped = False

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    def start(self) -> bool:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self.stopped = False
        self.task = loop.create_task(self._main())
        return True

    def stop(self) -> None:
        """Stop after the row in progress (an engine step is not interrupted)."""
        self.stopped = True

    async def _main(self) -> None:
        try:
            while not self.stopped and not self.done():
                if self.step_for is not None:
                    self.step_for(self.slice_s)
                else:
                    end = time.perf_counter() + self.slice_s
                    while not self.stopped and not self.done() and time.perf_counter() < end:
                        self.step()
                self.show()
                await asyncio.sleep(0.001)  # the kernel handles waiting messages (Stop) here
        except Exception as e:  # the task has no caller: the widget's banner shows it
            self.failed(e)
        finally:
            self._pause()
            self.finished(self.stopped)

    def _pause(self) -> None:
        """A streaming source's request ends with the Run, stopped or failed: its rows made
        so far are shown, and no delta is fed that no row shows."""
        if self.pause is None:
            return
        try:
            if self.pause():
                self.show()
        except Exception as e:
            self.failed(e)


class RunActions:
    """The Workbench's Run button, Stop and the mid-stream settings check (mixed into
    ``Workbench``)."""

    run_slice_s = 0.05  # work between two looks at the kernel's messages

    def _run_clicked(self) -> None:
        """The Run button: sliced on the kernel's event loop (``running.SlicedRun``) so
        rows stream in and Stop is heard; synchronous where no loop runs."""
        self._begin()
        m = self.model
        run = SlicedRun(m.step, lambda: m.done, self._sync, lambda e: self._failed(e, "Run"),
                        self._run_ended, self.run_slice_s, step_for=m.step_for if m.streams else None,
                        pause=m.pause if m.streams else None)
        if not run.start():
            self.run()
            return
        self._run = run
        c = self.controls
        with c.hold_sync():
            c.step_button.disabled = c.run_button.disabled = c.replay_button.disabled = True
            c.stop_button.disabled = False

    def _run_ended(self, stopped: bool) -> None:
        shown, self._run = self._run is not None, None
        c = self.controls
        with c.hold_sync():
            c.step_button.disabled = c.run_button.disabled = c.replay_button.disabled = False
            c.stop_button.disabled = True
        if stopped and shown:
            self._status(f"stopped: {self._summary()}; Step or Run goes on")

    @property
    def running(self) -> bool:
        return self._run is not None and self._run.running

    def stop(self, quiet: bool = False) -> None:
        """Stop a Run started with the button, after the row in progress (``quiet``: an
        action that replaces the stream stops it, and says what it did itself)."""
        if self._run is not None:
            self._run.stop()
            if quiet:
                self._run = None

    def _settings(self) -> list:
        return [w.value for w in self.controls.values]

    def _warn_if_changed(self) -> None:
        """A settings change while a stream is in progress does not change that stream: say so."""
        if self.controls.writing or self._started_with is None or self.model.source is None \
                or self.model.done:
            return
        changed = [w.description for w, old in zip(self.controls.values, self._started_with)
                   if w.value != old]
        if changed:
            self.banner.show("warning", f"{', '.join(changed)} changed while this stream is in "
                             "progress; it goes on with the settings it started with. Reset starts "
                             "over with the new ones, Replay runs its deltas through them.")
