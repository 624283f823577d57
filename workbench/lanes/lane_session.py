"""A Session whose parser runs in a lane: same shape as core.session.Session.

``session_for(setup, version)`` is the one switch: the installed version gives the
in-process ``Session``, any other listed version a ``LaneSession`` over its lane.
Rows come back as the same ``Row`` objects, made in the lane by the same runner.
If the lane dies mid-stream, each delta it did not answer becomes an error row
and the caller goes on (the next use of that version starts a fresh lane).
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import TYPE_CHECKING

from workbench.core.deltas import Delta
from workbench.core.machine import Event, Phase
from workbench.core.messages import Accumulator, Final, MessageDelta, ToolCallDelta
from workbench.core.rows import Row
from workbench.core.session import Result, Setup
from workbench.lanes import lane as lanes, versions
from workbench.lanes.wire import wire_delta

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from workbench.core.chunking import GivenDeltas
    from workbench.core.prepare import Prepared, RunSpec

_IDS = itertools.count(1)


def prepare(spec: RunSpec, progress: Callable[[str, float | None], None] | None = None, **kw) -> Prepared:
    """``core.prepare.prepare`` whose session runs in ``spec.vllm``'s lane (the installed
    vLLM: in this process); ``progress(message, fraction)`` hears the lane start."""
    from workbench.core.prepare import prepare as prepare_here

    if versions.is_installed(spec.vllm):
        return prepare_here(spec, **kw)
    version = versions.check(spec.vllm)
    return prepare_in(lanes.get(version, progress=progress) if progress else lanes.get(version), spec, **kw)


def prepare_in(lane: lanes.Lane, spec: RunSpec, **kw) -> Prepared:
    """``core.prepare.prepare`` whose session runs in ``lane`` (one the caller started and
    closes: `replay --vllm` whose lane died runs again in a fresh one)."""
    from workbench.core.prepare import prepare as prepare_here

    return prepare_here(spec, sessions=lambda setup, ids: LaneSession(setup, lane.version, ids, lane=lane), **kw)


def session_for(setup: Setup, version: str | None = None, prompt_token_ids: Sequence[int] | None = None):
    if versions.is_installed(version):
        from workbench.core.session import Session

        return Session(setup, prompt_token_ids=prompt_token_ids)
    return LaneSession(setup, version, prompt_token_ids)


class LaneRow(Row):
    """A Row made in a lane; its SSE chunk JSON is serialised there on first access,
    by the lane's vLLM (as Row.chunk is lazy in-process)."""

    __slots__ = ("_lane", "_run")

    @property
    def chunk(self) -> str | None:
        if self._chunk is None and self.sse and self._lane is not None:
            self._chunk = self._lane.call("chunk", run=self._run, step=self.step)["chunk"]
        return self._chunk


_new = tuple.__new__  # a NamedTuple from its values, without the generated __new__


def lane_row(values: list, delta: Delta, lane: lanes.Lane | None, run: str | None) -> LaneRow:
    """A row from a feed answer (``values`` in wire.WIRE order) and the delta it was fed."""
    (step, tokens, before, before_kind, phase, kind, msg, sse, finish, error, logs, us, states_before,
     states, events, extra, opening, usage) = values
    if msg is not None:
        msg = _new(MessageDelta, (msg[0], msg[1], tuple(ToolCallDelta(*c) for c in msg[2])))
    row = LaneRow(step, list(delta.token_ids), tokens, delta.text, Phase.of(before, before_kind),
                  Phase.of(phase, kind), msg, sse, finish, error, logs, us, delta.engine_steps,
                  states_before, states, [_new(Event, e) for e in events], extra, opening, usage)
    row._lane, row._run = lane, run
    return row


def error_row(step: int, delta: Delta, error: str) -> Row:
    unknown = Phase.of("?")
    return Row(step, list(delta.token_ids), [], delta.text, unknown, unknown, None, False,
               finish_reason=delta.finish_reason, error=error, engine_steps=delta.engine_steps)


def setup_dict(setup: Setup) -> dict:
    """Setup as JSON-able data (worker.setup_from_dict reverses it), every path absolute
    (lanes/carried.py: the lane works in a folder of its own)."""
    from workbench.lanes import carried

    return carried.setup(dataclasses.asdict(setup))


class LaneSession:
    def __init__(self, setup: Setup, version: str, prompt_token_ids: Sequence[int] | None = None, lane=None) -> None:
        self.setup = setup
        self.version = version
        self.lane = lane or lanes.get(version)  # ``lane``: one of the caller's own
        self.sid = f"s{next(_IDS)}"
        info = self.lane.call("setup", sid=self.sid, setup=setup_dict(setup),
                              prompt_token_ids=list(prompt_token_ids) if prompt_token_ids is not None else None)
        self.parser_info = info["parser"] | {"vllm": version}
        self.prompt_ids = info["prompt_token_ids"]
        self.enable_auto_tools = info["enable_auto_tools"]
        self._request_view = info["request_view"]
        self._tokenizer = None

    def request_view(self) -> dict:
        return dict(self._request_view)

    @property
    def tokenizer(self):
        """The same tokenizer files loaded here, for display (token strips); parsing uses the lane's."""
        if self._tokenizer is None:
            from workbench.core.tokenizers import load_tokenizer

            self._tokenizer = load_tokenizer(self.setup.tokenizer)
        return self._tokenizer

    def deltas_from_text(self, text: str, chunking: str | None = None, finish_reason: str = "stop") -> list[Delta]:
        out = self.lane.call("deltas_from_text", sid=self.sid, text=text, chunking=chunking,
                             finish_reason=finish_reason)
        return [Delta.from_dict(d) for d in out["deltas"]]

    def deltas_from_given(self, given: GivenDeltas, finish_reason: str = "stop") -> tuple[list[Delta], list[str]]:
        out = self.lane.call("deltas_from_given", sid=self.sid, texts=given.texts, ids=given.ids,
                             finish_reason=finish_reason)
        return [Delta.from_dict(d) for d in out["deltas"]], out["notes"]

    def regroup(self, deltas: list[Delta], chunking: str) -> list[Delta]:
        out = self.lane.call("regroup", sid=self.sid, deltas=[d.to_dict() for d in deltas], chunking=chunking)
        return [Delta.from_dict(d) for d in out["deltas"]]

    def machines(self) -> list[dict]:
        """The state-machine graphs of the parser's engines, read in the lane (ui/diagram.py)."""
        return self.lane.call("machines", sid=self.sid)["machines"]

    def stream(self) -> LaneStreamRun:
        return LaneStreamRun(self)

    def nonstream(self, text: str, token_ids: Sequence[int], finish_reason: str = "stop") -> Final:
        try:
            out = self.lane.call("nonstream", sid=self.sid, text=text, token_ids=list(token_ids),
                                 finish_reason=finish_reason)
        except lanes.LaneDied as e:
            return Final.of(_dead_answer(str(e)))
        return Final.of(out["nonstream"])

    def replay(self, deltas: list[Delta]) -> Result:
        run = self.stream()
        run.feed_many(deltas)
        stream, nonstream = run.final(deltas[-1].finish_reason or "stop" if deltas else "stop")
        return Result(rows=run.rows, stream_final=stream, nonstream_final=nonstream,
                      parser=self.parser_info,
                      text=run.text, token_ids=run.token_ids)


class LaneStreamRun:
    """Like core.runner.StreamRun: ``feed(delta) -> Row``; ``rows``, ``text``, ``token_ids``.
    ``send(deltas)`` feeds many in one request, whose rows ``take`` reads as they come (the
    widget's Run, between its slices) and ``cancel`` stops (its Stop). A request the lane
    cut short for another (a row's chunk asked for mid-Run) is sent again from where it
    stopped, so the worker is fed each delta once, in order."""

    batched = True  # send / take / cancel: many deltas in one request (the widget's Run and Stop)

    def __init__(self, session: LaneSession) -> None:
        self.session = session
        self.rows: list[Row] = []
        self.dead: str | None = None
        self._texts: list[str] = []
        self.token_ids: list[int] = []
        self.run_id: str | None = None
        self._sent: list[Delta] = []  # sent (or to send again), rows not yet read: from _next on
        self._next = 0
        self._stream: lanes.Stream | None = None
        try:
            self.run_id = session.lane.call("start", sid=session.sid)["run"]
        except lanes.LaneDied as e:
            self.dead = str(e)

    @property
    def text(self) -> str:
        return "".join(self._texts)

    @property
    def sending(self) -> bool:
        """Whether deltas sent still wait for their rows."""
        return self._next < len(self._sent)

    def feed(self, delta: Delta) -> Row:
        return self.feed_many([delta])[-1]

    def feed_many(self, deltas: list[Delta]) -> list[Row]:
        """Rows of ``deltas`` (after those of deltas sent before and not read yet)."""
        start = len(self.rows)
        self.send(deltas)
        self.take()
        return self.rows[start:]

    def send(self, deltas: list[Delta]) -> None:
        """Feed ``deltas`` after those sent before, in one request."""
        if self._stream is not None and not self._stream.done:
            self._stream.cancel()  # its lines made so far are read first; the rest goes again
        self._sent = self._sent[self._next:] + list(deltas)
        self._next = 0

    def take(self, until: float | None = None) -> list[Row]:
        """The rows of the deltas sent: all of them, or (``until``, a perf_counter time) those
        that came by then, at least one."""
        start = len(self.rows)
        lane = self.session.lane
        try:
            while self.sending and self.dead is None:
                if self._stream is None:
                    self._stream = lane.stream("feed", sid=self.session.sid,
                                               deltas=[wire_delta(d) for d in self._sent[self._next:]])
                part = self._stream.next()
                if part is None:  # cut short for another request: the rest goes again
                    self._stream = None
                    continue
                self._add(part["rows"])
                if until is not None and len(self.rows) > start and time.perf_counter() >= until:
                    break
        except lanes.LaneDied as e:
            self.dead = str(e)
        except BaseException:
            self._sent, self._next, self._stream = [], 0, None
            raise
        if self.dead is not None and self.sending:  # the deltas the lane did not answer
            for d in self._sent[self._next:]:
                self._texts.append(d.text)
                self.token_ids += d.token_ids
                self.rows.append(error_row(len(self.rows) + 1, d, self.dead))
            self._sent, self._next, self._stream = [], 0, None
        return self.rows[start:]

    def _add(self, values: list) -> None:
        lane, run, at = self.session.lane, self.run_id, self._next
        deltas = self._sent[at:at + len(values)]
        self._next += len(values)
        for v, d in zip(values, deltas):
            self._texts.append(d.text)
            self.token_ids += d.token_ids
            self.rows.append(lane_row(v, d, lane, run))
        if not self.sending:
            self._sent, self._next, self._stream = [], 0, None

    def cancel(self) -> list[Row]:
        """Stop: the lane feeds no more of the deltas sent. Returns the rows it had made; the
        deltas it did not feed are dropped (``send`` them again to go on)."""
        start = len(self.rows)
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.cancel()
            try:
                while (part := stream.next()) is not None:
                    self._add(part["rows"])
            except lanes.LaneDied as e:
                self.dead = str(e)
        self._sent, self._next = [], 0
        return self.rows[start:]

    @property
    def result(self):
        """What a streaming client joined so far (a messages.Accumulator), rebuilt from the rows."""
        joined = Accumulator()
        for r in self.rows:
            if r.sse and not r.error:
                joined.add(r.delta)
            if r.finish_reason:
                joined.finish_reason = r.finish_reason
        return joined

    def final(self, finish_reason: str = "stop") -> tuple[Final, Final]:
        """(what the stream joined to, the non-streaming answer)."""
        if self.dead is None:
            try:
                out = self.session.lane.call("finish", sid=self.session.sid, finish_reason=finish_reason)
                return Final.of(out["stream"]), Final.of(out["nonstream"])
            except lanes.LaneDied as e:
                self.dead = str(e)
        return self.result.final(), Final.of(_dead_answer(self.dead))


def _dead_answer(error: str) -> dict:
    return {"reasoning": None, "content": None, "tool_calls": [], "finish_reason": None, "error": error}
