"""Several requests on one LLMEngine, each output routed to its owner by request id.

``LLMEngine.step()`` advances every running request at once and returns the
outputs of all of them. Each ``EngineStepper`` owns one request (one mailbox
here); whichever stepper makes the engine step, the outputs of the other
requests wait in their owners' mailboxes, in order, until those owners read
them. Nothing is dropped, and no stepper aborts another's request.
"""

from __future__ import annotations

import weakref
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from workbench.core import logs, vllm_compat as compat
from workbench.engine.instance import STEP_MUTE

if TYPE_CHECKING:
    from vllm.v1.engine.llm_engine import LLMEngine
    from workbench.engine.instance import Engine

_SHOWN_LEVELS = ("WARNING", "ERROR", "CRITICAL")
_new = tuple.__new__


class Arrival(NamedTuple):  # one per engine step: a NamedTuple builds in a third of a dataclass's time
    output: object  # vllm.outputs.RequestOutput (RequestOutputKind.DELTA)
    engine_steps: int  # engine steps since this request's previous output
    logs: tuple[str, ...]  # vLLM's warnings and errors logged during those steps


@dataclass
class Mailbox:
    request_id: str  # external: what RequestOutput.request_id carries
    internal_id: str  # what the engine core and the grammar probe know
    owner: object  # a weakref to the stepper; a dead owner's request is aborted
    queue: deque = field(default_factory=deque)
    steps: int = 0  # engine steps since the last output
    logs: tuple[str, ...] = ()
    finished: bool = False  # its finished output arrived
    lost: bool = False  # the engine no longer knows it (and it never finished)


class OutputRouter:
    """One per engine (``router_of``)."""

    def __init__(self, llm: LLMEngine) -> None:
        self.llm = llm
        self.boxes: dict[str, Mailbox] = {}
        self.total_steps = 0
        self._orphans: list[str] = []  # requests whose stepper is gone (weakref callbacks)

    def open(self, request_id: str, internal_id: str, owner: object) -> Mailbox:
        # The callback only notes the id: it may run inside the GC; the next step aborts it.
        box = Mailbox(request_id, internal_id, weakref.ref(owner, lambda _, r=request_id: self._orphans.append(r)))
        self.boxes[request_id] = box
        return box

    def close(self, request_id: str) -> None:
        """Abort this request (only this one) if it still runs, and forget it."""
        box = self.boxes.pop(request_id, None)
        if box is not None and not box.finished:
            self._abort(box)

    def _abort(self, box: Mailbox) -> None:
        if box.internal_id in compat.held_requests(self.llm):
            self.llm.abort_request([box.internal_id], internal=True)

    def next(self, request_id: str) -> Arrival | None:
        """The owner's next output: a waiting one, else one engine step (None when
        that step had nothing for it)."""
        box = self.boxes[request_id]
        if not box.queue and not box.lost:
            self.step()
        return box.queue.popleft() if box.queue else None

    def done(self, request_id: str) -> bool:
        box = self.boxes.get(request_id)
        return box is None or (not box.queue and (box.finished or box.lost))

    def step(self) -> None:
        """One ``llm.step()``; its outputs go to their owners' mailboxes."""
        boxes = self.boxes
        while self._orphans:  # its widget is gone: free the engine of it
            self.close(self._orphans.pop())
        with logs.capture() as lines:
            STEP_MUTE.active = True
            try:
                outputs = self.llm.step()
            finally:
                STEP_MUTE.active = False
        self.total_steps += 1
        shown = [ln for ln in lines if ln.startswith(_SHOWN_LEVELS)] if lines else None
        running = [b for b in boxes.values() if not (b.finished or b.lost)]
        for box in running:
            box.steps += 1
            if shown:
                box.logs += tuple(shown)
        silent = len(running)  # running boxes this step gave no output
        for out in outputs:
            box = boxes.get(out.request_id)
            if box is None:  # not a stepper's request (it was closed meanwhile)
                continue
            if not (box.finished or box.lost):
                silent -= 1
            box.queue.append(_new(Arrival, (out, box.steps, box.logs)))
            box.steps, box.logs = 0, ()
            box.finished = box.finished or out.finished
        if silent > 0:
            # An unfinished request that just gave an output is still held; only a silent
            # one can have been dropped by the engine.
            states = compat.held_requests(self.llm)
            for box in running:
                if not box.finished and box.internal_id not in states:
                    box.lost = True


def router_of(engine: Engine) -> OutputRouter:
    if engine.router is None:
        engine.router = OutputRouter(engine.llm)
    return engine.router
