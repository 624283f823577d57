"""A lane's rows on the wire and the widget's Run over a lane: one request for every delta
left, its rows read as they come, Stop (a cancel) between two answer lines.

The wire and the worker's request reader are checked here without a lane; the rest
share the run's one 0.33.0 lane (as tests/lanes/test_lane.py does).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from tests.support.seed import WEATHER_TOOLS
from tests.support.widgets import run_then_stop
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Session, Setup

LANE = "0.33.0"
SETUP = Setup("qwen3", ParserSpec("hermes", "qwen3"), RequestSpec(tools=WEATHER_TOOLS))
# Long enough that a Run takes many answer lines (worker.FEED_BATCH rows each).
LONG = "<think>" + " ".join(f"Step {i}: the user wants the weather." for i in range(120)) + "</think>\n\nLet me check.\n" + "\n".join(
    f'<tool_call>{{"name": "get_weather", "arguments": {{"city": "City {i}"}}}}</tool_call>' for i in range(12))


@pytest.fixture(scope="session")
def lane():
    from workbench.cli.vllm_option import IN_LANE
    from workbench.lanes import lane as lanes

    return lanes.get(LANE, program=IN_LANE)


def view(r):
    """What must equal between two versions' rows (tool-call ids are drawn at random)."""
    return (r.step, r.token_ids, r.text, r.phase_before, r.phase, [r.phase_before.kind, r.phase.kind], r.sse,
            r.error, r.states_before, r.states, r.events, r.reasoning, r.content,
            [dataclasses.replace(c, id=None) for c in r.tool_calls], r.finish_reason)


def final_view(f):
    return f.reasoning, f.content, [(c.name, c.arguments) for c in f.tool_calls], f.finish_reason


# -- no lane ---------------------------------------------------------------------------------

def test_a_row_crosses_the_wire_unchanged():
    """wire.wire_row -> JSON -> session.lane_row gives back the Row itself, every field
    (delta, phases with their kinds, events, states), over a stream with reasoning, content
    and tool calls."""
    from workbench.core.rows import FIELDS
    from workbench.lanes import wire
    from workbench.lanes.lane_session import lane_row

    assert set(wire.WIRE) | set(wire.FROM_DELTA) == set(FIELDS) | {"phase_before_kind", "phase_kind"}
    session = Session(SETUP)
    deltas = session.deltas_from_text(LONG)
    rows = session.replay(deltas).rows
    assert all(any(getattr(r, f) for r in rows) for f in ("reasoning", "content", "tool_calls", "events"))
    line = json.dumps([wire.wire_row(r) for r in rows], ensure_ascii=False, default=str)
    back = [lane_row(v, d, None, None) for v, d in zip(json.loads(line), deltas)]
    fields = lambda r: tuple(getattr(r, f) for f in FIELDS)  # noqa: E731  (a LaneRow is not == a Row)
    assert len(back) == len(rows) and [fields(r) for r in back] == [fields(r) for r in rows]
    assert [(r.phase.kind, r.phase_before.kind) for r in back] == [(r.phase.kind, r.phase_before.kind) for r in rows]
    sent = [json.loads(json.dumps(wire.wire_delta(d))) for d in deltas]
    assert [(tuple(d[0]), d[1], d[2], d[3], d[4]) for d in sent] == \
        [(d.token_ids, d.text, d.finish_reason, d.engine_steps, d.extra) for d in deltas]


def test_the_workers_request_reader_sees_a_cancel_between_lines():
    from workbench.lanes.wire import Requests

    r, w = os.pipe()
    reader = Requests(r)
    big = json.dumps({"op": "feed", "deltas": ["x" * 100] * 3000})  # > one 64 KiB read
    writer = threading.Thread(target=os.write, args=(w, (big + "\n" + '{"op":"ping"}\n').encode()))
    writer.start()  # more than the pipe holds: written while it is read
    assert reader.readline() == big
    writer.join()
    assert not reader.cancelled()  # a ping waits: not a cancel, and it stays queued
    assert reader.readline() == '{"op":"ping"}'
    assert not reader.cancelled()  # nothing waits
    os.write(w, b'{"op":"cancel"}\n{"op":"ping"}\n')
    assert reader.cancelled() and reader.readline() == '{"op":"ping"}'
    os.close(w)
    assert reader.cancelled() and reader.readline() is None  # stdin ended: the stream stops too
    os.close(r)


# -- the lane --------------------------------------------------------------------------------

def controller(**inputs):
    """The widget's controller (widget-free) over a lane's stream of LONG, started."""
    from workbench.ui import transitions as T
    from workbench.ui.controller import Controller
    from workbench.ui.inputs import Inputs
    from workbench.ui.state import start

    ctl = Controller(start(Inputs(text=LONG, tools=WEATHER_TOOLS, vllm=LANE, **inputs)))
    ctl.do("Step", T.begin, raise_errors=True)
    return ctl


def test_the_widgets_run_sends_every_delta_left_in_one_request(lane, monkeypatch):
    from workbench.ui import transitions as T

    ctl = controller()
    rt = ctl.rt
    assert rt.source.streams
    feeds, stream = [], rt.stream_session.lane.stream

    def counting(op, **args):
        if op == "feed":
            feeds.append(len(args["deltas"]))
        return stream(op, **args)

    monkeypatch.setattr(rt.stream_session.lane, "stream", counting)
    ctl.do("Step", T.step, raise_errors=True)  # a Step click: one delta, one request
    ctl.run(raise_errors=True)  # Run: the rest in one request, its rows read in slices as they come
    rows = list(ctl.state.rows)
    total = len(rows)
    assert feeds == [1, total - 1] and total > 300
    here = Session(ctl.state.applied.setup())
    want = here.replay(here.deltas_from_text(LONG))
    assert [view(r) for r in rows] == [view(r) for r in want.rows]
    there = rt.stream_session.replay(rt.recorded())
    final = ctl.state.final
    assert final_view(final.stream) == final_view(there.stream_final) == final_view(want.stream_final)
    assert final_view(final.nonstream) == final_view(there.nonstream_final)


def test_a_stop_mid_run_leaves_rows_source_and_lane_consistent(lane):
    """Stop between two slices: the lane feeds no more, the rows it had made are kept, the
    source goes on from the first delta without a row, and every delta is fed once: the
    stream the Run ends with is the one a replay gives."""
    from workbench.ui import transitions as T

    ctl = controller()
    rt = ctl.rt
    total = len(rt.source.all)
    first = len(ctl.do("Run", T.run_slice, 0.0, raise_errors=True).rows)  # one slice: at least one answer line
    assert 0 < first < total and rt.source.run.sending
    s = ctl.do("Stop", T.stop, raise_errors=True)
    assert not rt.source.run.sending and s.final is None
    assert rt.source.pos == len(s.rows) >= first and len(s.rows) < total
    assert lane.call("ping") == {}  # the pipe is in step: the cancel's answer was read, none is left
    assert [r.step for r in s.rows] == list(range(1, len(s.rows) + 1))
    ctl.do("Step", T.step, raise_errors=True)  # Step goes on from there
    s = ctl.run(raise_errors=True)  # and Run to the end
    assert [r.step for r in s.rows] == list(range(1, total + 1))
    want = rt.stream_session.replay(rt.source.all)
    assert [view(r) for r in s.rows] == [view(r) for r in want.rows]
    assert final_view(s.final.stream) == final_view(want.stream_final)
    assert rt.source.run.text == "".join(d.text for d in rt.source.all)


def test_a_request_mid_run_is_answered_and_the_run_goes_on(lane):
    """A row's chunk asked for while a Run's request is open (a click on a row): the open
    request is cut short, the chunk answered, and the rest of the deltas sent again, once."""
    from workbench.lanes.lane_session import LaneSession

    session = LaneSession(SETUP, LANE)
    deltas = session.deltas_from_text(LONG)
    want = session.replay(deltas)
    run = session.stream()
    run.send(deltas)
    some = run.take(until=time.perf_counter())
    sent = next(r for r in some if r.sse)
    assert json.loads(sent.chunk)["object"] == "chat.completion.chunk"  # a request mid-Run
    run.take()
    assert [view(r) for r in run.rows] == [view(r) for r in want.rows]
    assert final_view(run.final()[0]) == final_view(want.stream_final)


def test_the_run_button_on_a_lane_shows_rows_as_they_come_and_stops(lane):
    from workbench import Workbench

    wb = Workbench(LONG, tools=WEATHER_TOOLS, vllm=LANE)
    wb.run_slice_s = 0.002
    wb.load()
    total = len(wb._ctl.rt.session.deltas_from_text(LONG))
    first_rows, first_shown = run_then_stop(wb)
    assert 0 < first_rows == first_shown < total  # shown while running
    stopped_at = len(wb.rows)
    assert stopped_at < total and len(wb.table.rows) == stopped_at and wb.banner.value == ""
    assert "stopped:" in wb.controls.status.value and not wb._ctl.rt.source.run.sending
    assert lane.call("ping") == {}
    wb.controls.run_button.click()  # no running loop here: synchronous, to the end
    assert [r.step for r in wb.rows] == list(range(1, total + 1)) and wb.state.final is not None


def test_a_lane_that_dies_mid_run_gives_error_rows_to_the_end(lane):
    from workbench.lanes.lane import Lane
    from workbench.ui import transitions as T

    ctl = controller()
    rt = ctl.rt
    ctl.do("Step", T.step, raise_errors=True)
    dying = Lane(LANE)  # the same protocol over a process that dies on its next request
    log = tempfile.TemporaryFile(mode="w+")
    dying.proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.readline(); print('worker crashed', file=sys.stderr);"
                               " sys.exit(3)"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    dying._log = log
    rt.stream_session.lane = dying
    s = ctl.run(raise_errors=True)
    rows = list(s.rows)
    assert rows[0].error is None and all(r.error for r in rows[1:]) and len(rows) == len(rt.source.all)
    assert "lane died" in rows[1].error and "exit code 3" in rows[1].error and "worker crashed" in rows[1].error
    assert s.final is not None and "died" in s.final.nonstream.error
    dying.close()
    assert lane.alive and lane.call("ping") == {}
