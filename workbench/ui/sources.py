"""Where a widget's rows come from (widget-free adapters).

Every source has the same small shape: ``step() -> list[Row]`` (one delta, or
one engine step), ``done``, ``deltas`` (what was streamed so far: the recording
in progress), ``final() -> (stream, nonstream)`` (two ``Final``) once done, and ``close()``
when the widget drops it. The widget never knows which one it drives.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from workbench.core.deltas import Delta
from workbench.core.messages import Final
from workbench.core.rows import Row
from workbench.errors import WorkbenchError

if TYPE_CHECKING:
    from workbench.engine.stepper import EngineStepper


class ReplaySource:
    """Recorded (or text-made) deltas through a fresh ``StreamRun``, one per step."""

    kind = "replay"

    def __init__(self, session, deltas: list[Delta]) -> None:
        if not deltas:
            raise WorkbenchError("no deltas to replay")
        self.session = session
        self.all = list(deltas)
        self.run = session.stream()
        self.pos = 0
        # a lane's run feeds many deltas in one request: Run sends the rest at once and
        # reads the rows as they come (step_for), Stop cancels the request (pause)
        self.streams = self.run.batched

    @property
    def done(self) -> bool:
        return self.pos >= len(self.all)

    @property
    def total(self) -> int | None:
        return len(self.all)

    @property
    def deltas(self) -> list[Delta]:
        return self.all[:self.pos]

    def step(self) -> list[Row]:
        """The next delta's row (after the rows of a Run's request cut short, on a lane)."""
        rows = self.pause()
        if self.done:
            return rows
        delta = self.all[self.pos]
        self.pos += 1
        return rows + [self.run.feed(delta)]

    def step_for(self, seconds: float) -> list[Row]:
        """A lane's Run: the first call sends every delta left in one request; each returns
        the rows that came within ``seconds`` (at least one answer line of them)."""
        if self.done:
            return []
        if not self.run.sending:
            self.run.send(self.all[self.pos:])
        rows = self.run.take(until=time.perf_counter() + seconds)
        self.pos += len(rows)
        return rows

    def pause(self) -> list[Row]:
        """Stop a lane's Run: it feeds no more; the rows it had made come back."""
        if not self.streams:
            return []
        rows = self.run.cancel()
        self.pos += len(rows)
        return rows

    def close(self) -> None:
        self.pause()

    def final(self) -> tuple[Final, Final]:
        finish = (self.all[self.pos - 1].finish_reason if self.pos else None) or "stop"
        return self.run.result.final(), self.session.nonstream(self.run.text, self.run.token_ids, finish)


class EngineSource:
    """An ``EngineStepper`` (workbench.engine). A step runs the engine until it emits
    output, so every Step click shows a row; empty engine steps are counted in it."""

    kind = "engine"

    def __init__(self, stepper: EngineStepper) -> None:
        self.stepper = stepper
        self.request_id = stepper.request_id  # its own request: the widget's stepper makes the next one
        self.notes: list[str] = []

    @property
    def done(self) -> bool:
        return self.stepper.done

    @property
    def total(self) -> int | None:
        return None

    @property
    def deltas(self) -> list[Delta]:
        return list(self.stepper.deltas)

    @property
    def constraint(self):
        return self.stepper.constraint

    def step(self) -> list[Row]:
        if self.done:
            return []
        return list(self.stepper.step(until_output=True))

    def close(self) -> None:
        """Abort the widget's request (only its own) if it still runs. A Replay that starts a
        new request (another tool choice) has it on the same stepper before the old source
        closes: that one is not this source's to abort."""
        if self.stepper.request_id == self.request_id:
            self.stepper.reset()

    def origin(self) -> dict:
        return self.stepper.origin()

    def final(self) -> tuple[Final, Final]:
        result = self.stepper.result()
        self.notes = list(result.notes)
        return result.stream_final, result.nonstream_final
