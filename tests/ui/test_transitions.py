"""The widget's state and transitions without a widget (ui/state.py, transitions.py,
settings.py, controller.py): what is applied, what waits, a draft that is refused, a stream
replayed or made again, the selection kept to the stream, a failure that keeps its rows."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.errors import WorkbenchError
from workbench.ui import settings as S, transitions as T
from workbench.ui.controller import Controller
from workbench.ui.inputs import Inputs
from workbench.ui.state import start


@pytest.fixture
def ctl():
    return Controller(start(Inputs(text=SEED_TEXT, tools=WEATHER_TOOLS)))


def test_a_setting_waits_while_a_stream_is_on_screen_and_replay_applies_it(ctl):
    s = ctl.do("Step", T.step, 3, raise_errors=True)
    assert s.stream.started and s.pending == () and len(s.rows) == 3
    s = ctl.do("api", lambda st, rt: S.set_setting(st, "api", "messages"))
    assert s.pending == ("API",) and s.applied.api == "chat" and not s.stream_changed()
    s = ctl.do("Step", T.step, raise_errors=True)  # the stream goes on as it started
    assert len(s.rows) == 4 and s.applied.api == "chat"
    old = s.stream.rows.log
    s = ctl.do("Replay", T.replay, raise_errors=True)  # the same deltas, through the new API
    assert s.applied.api == "messages" and s.pending == () and s.stream.done and s.stream.rows.log is not old
    assert len(s.rows) == 26 and s.stream.origin == ""


def test_with_no_stream_a_setting_applies_at_once(ctl):
    s = ctl.do("tool parser", lambda st, rt: S.set_setting(st, "tool_parser", ""))
    assert s.settings.tool_parser is None and s.applied.tool_parser is None and s.pending == ()


def test_a_new_script_replays_as_a_new_stream_and_the_selection_stays_in_it(ctl):
    s = ctl.run(raise_errors=True)
    s = ctl.do("row", T.select, 20)
    assert s.row is s.rows[19]
    s = ctl.do("script", lambda st, rt: S.set_setting(st, "text", "<think>x</think>y"))
    assert s.stream_changed() and s.pending == ("script",)
    s = ctl.do("Replay", T.replay, raise_errors=True)
    assert "".join(r.text for r in s.rows).startswith("<think>x</think>y") and s.stream.changed == frozenset()
    assert s.selected is None and s.row is None  # step 20 is not in the new stream
    s = ctl.do("row", T.select, 99)
    assert s.selected == len(s.rows)  # clamped to the stream


def test_a_box_without_json_is_a_draft_and_refused_when_applied(ctl):
    s = ctl.do("tools", lambda st, rt: S.set_setting(st, "tools", '[{"type": '))
    assert s.settings.tools == WEATHER_TOOLS and "tools" in s.drafts and s.pending == ("tools",)
    with pytest.raises(WorkbenchError, match="tools: invalid JSON"):
        ctl.do("Step", T.step, raise_errors=True)
    assert ctl.state.outcome.kind == "error" and not ctl.state.stream.started
    s = ctl.do("tools", lambda st, rt: S.set_setting(st, "tools", "[]"))
    assert s.drafts == {} and s.settings.tools == [] and s.pending == ()


def test_a_failing_step_keeps_the_rows_it_made_before(ctl, monkeypatch):
    ctl.do("Step", T.step, raise_errors=True)
    src = ctl.rt.source
    calls = []
    original = src.step

    def twice_then_fail():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("boom")
        return original()

    monkeypatch.setattr(src, "step", twice_then_fail)
    s = ctl.do("Step", T.step, 5)
    assert s.outcome.kind == "error" and "unexpected RuntimeError: boom" in s.outcome.message and s.outcome.details
    assert len(s.rows) == 3 and src.pos == 3  # the source and the rows on screen agree


def test_a_refused_setting_changes_nothing(ctl, monkeypatch):
    from workbench.lanes import versions

    monkeypatch.setattr(versions, "is_installed", lambda v: v is None)
    s = ctl.do("source", lambda st, rt: S.set_setting(st, "source", "engine"))
    s = ctl.do("vLLM", lambda st, rt: S.set_setting(st, "vllm", "9.9.9"))
    assert s.outcome.kind == "refused" and "live stream runs on the installed vLLM" in s.outcome.message
    assert s.settings.vllm is None and s.settings.source == "engine"


def test_rows_share_one_log_and_an_older_state_keeps_its_own(ctl):
    a = ctl.do("Step", T.step, 2, raise_errors=True)
    b = ctl.do("Step", T.step, 2, raise_errors=True)
    assert a.rows.log is b.rows.log and (len(a.rows), len(b.rows)) == (2, 4)
    assert list(a.rows) == list(b.rows)[:2]
    c = T.took(replace(a, stream=a.stream), ctl.rt, [])  # nothing new: the same view
    assert len(c.rows) == 2


@pytest.mark.engine
def test_check_and_diagnose_run_a_stream_stepped_part_way_to_its_end(engine_stepper):
    """The tour's first widget, three engine steps in: its end (finish_reason) is not there
    yet, and held against the non-streaming answer as it was, it read as findings."""
    from workbench.ui import tools
    from workbench.ui.diagnose import diagnose

    for action, fn in (("Check", lambda st, rt: tools.check(st, rt, fuzz=2)),
                       ("Diagnose", lambda st, rt: diagnose(st, rt, versions=False, fuzz=2))):
        ctl = Controller(start(Inputs(text=SEED_TEXT, tools=WEATHER_TOOLS, source="engine")))
        s = ctl.do("Step", T.step, 3, raise_errors=True)
        assert len(s.rows) == 3 and not s.stream.done
        s = ctl.do(action, fn, raise_errors=True)
        assert s.stream.done and len(s.rows) == 26 and s.rows[-1].finish_reason == "tool_calls"
        assert s.outcome.message.startswith("ran the stream to its end (3 → 26 deltas), then "), s.outcome.message
        result = (s.check or s.doctor).value
        assert not any("finish_reason" in str(f.headline()) for f in result.findings), action
