"""A kernel's two threads, as JupyterLab drives a widget (docs: shared note "widget clicks run
on two threads"): the main shell thread and a comm *subshell* thread, each with its own running
event loop. A click is handled on the thread its comm last sent from, so a Run started on the
subshell slices there while a Reset click arrives on the main thread.

``Kernel`` runs a click on either thread; ``Slices`` holds one of a Run's slices in flight (the
state read, its rows made, not yet written back) until the test lets it go, so a click lands
in the middle of it, as it does in a browser.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
import time
from collections.abc import Callable

WAIT_S = 60.0


class Kernel:
    """Two threads, each running an event loop ("main" and "subshell")."""

    def __init__(self) -> None:
        self.loops: dict[str, asyncio.AbstractEventLoop] = {}
        self.threads: list[threading.Thread] = []
        for name in ("main", "subshell"):
            loop = asyncio.new_event_loop()
            t = threading.Thread(target=loop.run_forever, name=f"kernel-{name}", daemon=True)
            t.start()
            self.loops[name], self.threads = loop, self.threads + [t]

    def call(self, on: str, fn: Callable[[], object]) -> object:
        """``fn()`` on thread ``on``, inside its running loop; waits for it and returns its value."""
        return self.post(on, fn).result(WAIT_S)

    def post(self, on: str, fn: Callable[[], object]) -> concurrent.futures.Future:
        """``fn()`` on thread ``on`` when its loop next gets to it (a message waiting on that
        thread while it is busy); does not wait: its value comes in the future returned (set
        as ``fn`` returns, before a task it started takes the thread)."""
        done: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                done.set_result(fn())
            except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
                done.set_exception(e)
        self.loops[on].call_soon_threadsafe(run)
        return done

    def flush(self) -> None:
        """Every callback posted so far has run on both threads."""
        for on in self.loops:
            self.call(on, lambda: None)

    def settle(self, wb) -> None:
        """No Run going and both threads idle (a Run that never ends fails the test)."""
        end = time.monotonic() + WAIT_S
        while True:
            self.flush()
            if not wb.running and not getattr(wb._ctl, "queued", ()):
                time.sleep(0.01)
                self.flush()
                if not wb.running and not getattr(wb._ctl, "queued", ()):
                    return
            if time.monotonic() > end:
                raise TimeoutError(f"the Run did not end: {wb.state.outcome}")
            time.sleep(0.005)

    def close(self) -> None:
        for loop in self.loops.values():
            loop.call_soon_threadsafe(loop.stop)
        for t in self.threads:
            t.join(WAIT_S)
        for loop in self.loops.values():
            loop.close()


@contextlib.contextmanager
def kernel():
    k = Kernel()
    try:
        yield k
    finally:
        k.close()


class Slices:
    """Holds a Run's slice number ``at`` in flight: ``when`` "before" (the state read, nothing
    made yet) or "after" (its rows made, not yet written back). ``inflight`` is set while it
    waits; ``release()`` lets it go."""

    def __init__(self, monkeypatch) -> None:
        from workbench.ui import transitions as T

        self.real = T.run_slice
        self.count = 0
        self.at: int | None = None
        self.when = "after"
        self.inflight = threading.Event()
        self.go = threading.Event()
        monkeypatch.setattr(T, "run_slice", self.slice)

    def hold(self, at: int, when: str = "after") -> None:
        self.count, self.at, self.when = 0, at, when
        self.inflight.clear()
        self.go.clear()

    def slice(self, s, rt, seconds: float = 0.05):
        self.count += 1
        held = self.count == self.at
        if held and self.when == "before":
            self._wait()
        new = self.real(s, rt, seconds)
        if held and self.when == "after":
            self._wait()
        return new

    def _wait(self) -> None:
        self.inflight.set()
        if not self.go.wait(WAIT_S):
            raise TimeoutError("the held slice was never released")

    def wait_inflight(self) -> None:
        if not self.inflight.wait(WAIT_S):
            raise TimeoutError("the Run never reached the held slice")

    def release(self) -> None:
        self.at = None
        self.go.set()
