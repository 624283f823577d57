"""One writer while a Run runs (issue 44, item 1): clicks that arrive while a Run's slice is in
flight, on the kernel's other thread, as JupyterLab sends them (a comm subshell: the Run slices
on one thread, a Reset click is handled on the main one; tests/support/kernel_threads.py).

After each, the state, the table, the detail and the status line agree, and the rows are what
vLLM's own classes give for the applied settings (a direct Session).
"""

from __future__ import annotations

import re

import pytest

from tests.support.kernel_threads import Slices, kernel
from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

LONG = SEED_TEXT * 6  # 150 deltas: a Run of many slices


@pytest.fixture
def k():
    with kernel() as k:
        yield k


@pytest.fixture
def slices(monkeypatch):
    return Slices(monkeypatch)


def text_of(value: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", value))


def direct(wb) -> list:
    """The applied settings' rows from vLLM's own classes, for the text source."""
    from workbench.core.session import Session

    a = wb.state.stream.applied
    session = Session(a.setup())
    return session.replay(list(session.deltas_from_text(a.text, a.chunking))).rows


def seen(r) -> tuple:
    return (tuple(r.token_ids), r.text, r.reasoning, r.content,
            tuple((c.index, c.name, c.arguments) for c in r.tool_calls), r.sse, r.finish_reason, r.error)


def agree(wb) -> None:
    """The state, the table, the detail, the buttons and the status line say the same."""
    s = wb.state
    rows = list(s.stream.rows)
    status = text_of(wb.controls.status.value)
    assert "wb-error" not in wb.banner.value, text_of(wb.banner.value)
    assert not s.running and not wb.running
    assert wb.controls.stop_button.disabled and not wb.controls.run_button.disabled
    assert [r["step"] for r in wb.table.records] == [r.step for r in rows] == list(range(1, len(rows) + 1))
    assert wb.detail.step.max == len(rows)
    if rows:
        assert re.search(rf"(^|: | · ){len(rows)}/\d+ deltas", status), status
        assert [seen(r) for r in rows] == [seen(r) for r in direct(wb)[:len(rows)]]
    if s.stream.started:
        assert text_of(wb.controls.truth.value).startswith("runs: ")


def started(k, slices, wb, at: int = 2, when: str = "after") -> None:
    """A Run clicked on the subshell thread, its slice ``at`` held in flight."""
    wb.run_slice_s = 0.001
    slices.hold(at, when)
    k.call("subshell", wb.controls.run_button.click)
    slices.wait_inflight()


def workbench():
    from workbench import Workbench

    return Workbench(LONG, tools=WEATHER_TOOLS)


@pytest.mark.parametrize("when", ["before", "after"])
def test_reset_on_the_main_thread_during_a_slice_resets(k, slices, when):
    """The Reset wins: no rows, no Run, the status says reset, and the next Step starts over
    (today's code: the slice wrote its rows back over the Reset, or failed on the source the
    Reset had closed)."""
    wb = workbench()
    started(k, slices, wb, when=when)
    k.call("main", wb.controls.reset_button.click)
    slices.release()
    k.settle(wb)
    agree(wb)
    assert not wb.state.stream.started and wb.rows == [] and wb.table.records == []
    assert text_of(wb.controls.status.value).startswith("reset: "), wb.controls.status.value
    k.call("main", wb.controls.step_button.click)
    agree(wb)
    assert len(wb.rows) == 1


def test_a_pick_during_a_slice_keeps_the_pick_and_waits(k, slices):
    """The tool parser picked mid-Run on the other thread stays picked (no snapping back),
    waits for Replay or Reset (the status line says so), and the Run ends on hermes."""
    wb = workbench()
    started(k, slices, wb)
    k.call("main", lambda: setattr(wb.controls.tool_parser, "value", ""))
    slices.release()
    k.settle(wb)
    agree(wb)
    s = wb.state
    assert s.settings.tool_parser is None and wb.controls.tool_parser.value == ""
    assert s.stream.applied.tool_parser == "hermes" and s.pending == ("tool parser",)
    assert s.stream.done and len(wb.rows) == len(direct(wb))
    truth = text_of(wb.controls.truth.value)
    assert "changed, not applied yet: tool parser (Replay or Reset applies them)" in truth, truth
    k.call("main", wb.controls.replay_button.click)
    agree(wb)
    assert wb.state.stream.applied.tool_parser is None and wb.state.pending == ()


def test_a_pick_on_the_runs_own_thread_says_it_waits(k, slices):
    """Picked on the Run's thread (between two slices): the status line says it applies on
    Replay or Reset while the Run goes on."""
    wb = workbench()
    started(k, slices, wb)
    k.post("subshell", lambda: setattr(wb.controls.api, "value", "messages"))
    said = k.post("subshell", lambda: (wb.running, text_of(wb.controls.status.value)))
    slices.release()
    running, status = said.result(60)
    assert running and status.startswith("running: ") and status.endswith(" · API applies on Replay or Reset")
    k.settle(wb)
    agree(wb)
    assert wb.controls.api.value == "messages" and wb.state.pending == ("API",)


def test_run_clicked_again_during_a_slice_is_one_run(k, slices):
    """A second Run click (on the main thread) while one runs: one Run, every row once."""
    wb = workbench()
    started(k, slices, wb)
    k.call("main", wb.controls.run_button.click)
    slices.release()
    k.settle(wb)
    agree(wb)
    assert wb.state.stream.done and len(wb.rows) == len(direct(wb))


def test_stop_on_the_main_thread_during_a_slice_stops_after_it(k, slices):
    wb = workbench()
    started(k, slices, wb)
    k.call("main", wb.controls.stop_button.click)
    slices.release()
    k.settle(wb)
    agree(wb)
    n = len(wb.rows)
    assert 0 < n < len(direct(wb)) and text_of(wb.controls.status.value).startswith("stopped: ")
    k.call("subshell", wb.controls.step_button.click)
    agree(wb)
    assert len(wb.rows) == n + 1


def test_hermes_expected_error_lines_stay_on_their_rows_not_the_console():
    """Issue 44: Hermes logs ERROR for a truncated call's non-streaming parse; in a kernel
    vLLM's console handler prints it (JupyterLab's log console shows an error badge). The
    widget keeps it where it belongs: the final answer's logs."""
    import io
    import logging

    from workbench import Workbench
    from workbench.core import logs

    logs.install()
    printed = io.StringIO()
    console = logging.StreamHandler(printed)  # vLLM's console handler, as it configures one in a kernel
    logging.getLogger("vllm").addHandler(console)
    try:
        wb = Workbench(recording="parsers/recordings/hermes/truncated_arguments.jsonl")
        wb.run_button.click()
    finally:
        logging.getLogger("vllm").removeHandler(console)
    assert "Error in extracting tool call" not in printed.getvalue()
    assert any("Error in extracting tool call" in line for line in wb.state.final.nonstream.logs)
