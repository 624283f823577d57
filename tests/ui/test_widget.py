"""The notebook widget, headless: built from the public API, driven with .click().

Rows are checked against a direct Session.replay (vLLM's own parser calls), the
table's records against the column schema, and the banner against raised errors.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from workbench.errors import WorkbenchError

ROOT = Path(__file__).resolve().parents[2]
TRUNCATED = ROOT / "parsers/recordings/hermes/truncated_arguments.jsonl"


def shown_steps(wb) -> list[int]:
    """The steps the table has sent to the front end."""
    return wb.table.shown_steps()


def banner(wb) -> str:
    """The banner's visible text (tags stripped, entities decoded)."""
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", wb.banner.value))


def row_cells(wb, step: int) -> dict:
    """The record the front end shows for one step."""
    found = [r for r in wb.table.records if r["step"] == step]
    assert found, f"row {step} not shown"
    return found[0]


@pytest.fixture
def wb():
    from workbench import Workbench

    return Workbench(SEED_TEXT, tools=WEATHER_TOOLS, tool_parser="hermes", reasoning_parser="qwen3")


@pytest.fixture(scope="module")
def direct():
    """The same stream through Session.replay, no widget involved."""
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    s = Session(Setup(parser=ParserSpec("hermes", "qwen3"), request=RequestSpec(tools=WEATHER_TOOLS)))
    return s.replay(s.deltas_from_text(SEED_TEXT))


def test_public_api_is_lazy_and_exported():
    import workbench

    assert workbench.Workbench is workbench.ui.Workbench
    assert callable(workbench.show)


def test_the_widget_has_the_surface_that_screen_wiring_and_takeaway_use(wb):
    from workbench.ui.surface import Surface

    assert isinstance(wb, Surface)  # every panel and action they name is there
    assert not isinstance(object(), Surface)


def test_step_appends_one_row_then_run_finishes(wb, direct):
    wb.step_button.click()
    assert wb.banner.value == ""
    assert len(wb.rows) == 1 and shown_steps(wb) == [1]
    for _ in range(4):
        wb.step_button.click()
    assert shown_steps(wb) == [1, 2, 3, 4, 5]
    assert "5/26 deltas" in wb.controls.status.value
    wb.run_button.click()
    assert len(wb.rows) == len(direct.rows) == 26
    assert shown_steps(wb) == list(range(1, 27))
    for got, want in zip(wb.rows, direct.rows):
        assert (got.token_ids, got.text, got.phase_before, got.phase, got.sse, got.finish_reason) == \
               (want.token_ids, want.text, want.phase_before, want.phase, want.sse, want.finish_reason)
        assert (got.reasoning, got.content) == (want.reasoning, want.content)
    assert wb.state.final.stream.tool_calls[0].name == "get_weather"
    wb.step_button.click()  # past the end: nothing new, no error
    assert len(wb.rows) == 26 and wb.banner.value == ""


def test_table_records_phase_chunk_and_state_change(wb, direct):
    wb.run_button.click()
    think, reasoning, end, content = (row_cells(wb, s) for s in (1, 2, 6, 7))
    assert (think["phase"], think["sse"], think["_c"]) == ("reasoning", "none", "k-reasoning no-sse")  # <think>
    assert (reasoning["phase"], reasoning["sse"], reasoning["reasoning"]) == ("reasoning", "chunk", "Weather")
    assert reasoning["_sse"] and reasoning["_k"] == "reasoning" and reasoning["_us"] > 0
    assert (end["phase"], end["_sc"], end["_c"]) == ("reasoning→tool", True, "k-tool no-sse sc")
    # colours go by field: the "\n\n" row is in the tool phase, but its text went to content
    assert content["_c"].startswith("k-tool") and content["_k"] == "content"
    assert "_sc" not in reasoning
    # None stays out of the record ("blank"), "" would be kept: content "\n\n" is a value
    assert "content" not in end and content["content"] == "\n\n" == direct.rows[6].content
    # tokens are decoded text; the byte-level form stays on the Row (the detail shows both)
    assert wb.rows[6].tokens == ["ĊĊ"] and content["tokens"] == ["\n\n"]
    assert think["tokens"] == ["<think>"] and think["_sp"] == [0]
    wb.select(7)
    # the detail's tokens are the table component: the decoded text beside vLLM's byte-level token
    assert wb.detail.tables["tokens"].records == [{"n": 1, "id": wb.rows[6].token_ids[0], "text": "\n\n",
                                                   "token": "ĊĊ"}]
    assert "<span class='wb-ws wb-nl'>\\n\\n</span>" in wb.detail.html.value and "ĊĊ" not in wb.detail.value  # legible
    wb.select(6)  # </think>: qwen3's machine leaves its reasoning state, one event
    states = wb.detail.tables["states"].records
    assert states and any(s["change"] == "→" and s["before"] != s["after"] for s in states)
    assert [e["type"] for e in wb.detail.tables["events"].records] == [e.type for e in wb.rows[5].events] != []
    # the front end draws the schema's columns, titles and tooltips
    from workbench.core.rows import BY_NAME

    assert wb.table.shown() == ["step", "tokens", "text", "phase", "reasoning", "content", "tool_calls", "sse",
                                "finish_reason"]
    phase = next(c for c in wb.table.columns if c["name"] == "phase")
    assert phase == BY_NAME["phase"].spec() and phase["description"] and phase["fit"]
    frame = wb.frame()
    assert list(frame.columns) == list(BY_NAME) and frame["phase"][5] == "tool"
    assert frame["content"][0] is None and frame["error"].isna().all() and not frame.isin([float("nan")]).any().any()


def test_error_row_is_red_and_the_stream_goes_on(wb):
    wb.step(2)
    parser = wb._ctl.rt.source.run.parser

    def boom(**kwargs):
        raise ValueError("parser exploded")

    parser.parse_delta = boom  # this instance only
    wb.step_button.click()
    assert wb.rows[-1].error == "ValueError: parser exploded"
    assert row_cells(wb, 3)["error"] == "ValueError: parser exploded" and "error" in wb.table.shown()
    assert row_cells(wb, 3)["_k"] == "error" and "error" not in row_cells(wb, 2)
    assert "1 error rows" in wb.controls.status.value
    assert wb.banner.value == ""  # a parser error is a row, not a widget failure
    wb.select(3)
    assert "parser exploded" in wb.detail.value and "traceback" in wb.detail.value


def test_callback_that_raises_shows_in_banner_and_keeps_rows(wb, monkeypatch):
    wb.step(3)

    def broken(*a, **k):
        raise RuntimeError("widget bug\nsecond line")

    monkeypatch.setattr(wb._ctl.rt.source, "step", broken)
    wb.step_button.click()  # must not raise
    assert "Step: unexpected RuntimeError: widget bug" in banner(wb)
    assert "second line" not in wb.banner.value.split("<details>")[0]
    assert "<details><summary>traceback</summary>" in wb.banner.value
    assert len(wb.rows) == 3 and shown_steps(wb) == [1, 2, 3]
    assert len(wb._ctl.rt.recorded()) == 26  # the stream is kept


def test_bad_input_is_one_line_in_banner(wb):
    wb.controls.messages.value = '[{"role": "user", "content": '
    wb.controls.reset_button.click()
    assert "Reset: messages: invalid JSON at line 1" in banner(wb)
    assert "<details>" not in wb.banner.value
    wb.controls.messages.value = '[{"role": "user", "content": "hi"}]'
    wb.controls.reset_button.click()
    assert wb.banner.value == ""
    wb.controls.chunking.value = "k:0"
    wb.controls.step_button.click()
    assert "Step: bad --chunking 'k:0'" in banner(wb) and wb.rows == []


def test_replay_marks_changed_rows(wb):
    wb.run_button.click()
    wb.controls.tool_parser.value = ""  # hermes -> "(none)": no tool parser: tool text becomes content
    wb.controls.replay_button.click()
    assert wb.banner.value == ""
    assert wb.table.changed and min(wb.table.changed) == 6  # </think>: reasoning→content now
    assert "changed" in row_cells(wb, 8)["_c"].split()
    assert "changed" not in row_cells(wb, 2)
    assert "rows changed" in wb.controls.status.value
    assert wb.state.final.stream.tool_calls == ()


def test_final_panel_highlights_and_links_the_first_divergent_step():
    from workbench import Workbench

    wb = Workbench(recording=str(TRUNCATED))
    assert wb.controls.tool_parser.value == "hermes" and wb.state.settings.tools
    wb.run_button.click()
    fields = {r["field"]: r for r in wb.final.fields.records}  # the table component, a row a field
    args = fields["tool_calls"]
    assert args["verdict"] == f"✗ differs from step {wb.final.first_step}" and args["_c"] == "changed"
    assert [r["field"] for r in wb.final.fields.records] == [d.field for d in wb.state.final.diffs]
    for d in wb.state.final.diffs:  # an equal field is unmarked, a differing one marked
        assert (fields[d.field]["verdict"] == "✓ equal") == d.equal == (fields[d.field]["_c"] == "")
    assert any(d.equal for d in wb.state.final.diffs)
    assert wb.final.goto.disabled is False
    wb.final.goto.click()
    assert wb.state.selected == wb.final.first_step
    assert wb.detail.step.value == wb.final.first_step
    assert "SSE chunk" in wb.detail.value


def test_selection_both_ways_between_python_and_the_front_end(wb):
    wb.run_button.click()
    wb.select(2)  # Python -> the front end's synced trait
    assert wb.table.selected == 2 and ">2</td>" in wb.detail.html.value and wb.table.selection == [2]
    wb.table.selected = 8  # a click or j/k in the front end sets the trait
    assert wb.state.selected == 8 and wb.detail.step.value == 8
    assert "tool_call" in wb.detail.html.value
    wb.detail.step.value = 3  # the step box jumps too
    assert wb.table.selected == 3 and wb.state.selected == 3
    wb.controls.reset_button.click()
    assert wb.table.selected == 0 and shown_steps(wb) == []


def test_show_displays_and_runs(monkeypatch):
    import IPython.display

    import workbench

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    wb = workbench.show(SEED_TEXT, tools=WEATHER_TOOLS, run=True)
    assert shown == [wb] and len(wb.rows) == 26


class RecordingComm:
    """A comm that keeps every message the kernel would send, JSON-encoded."""

    sent: list[dict] = []

    def __init__(self, **kwargs) -> None:
        self.comm_id, self.kernel = kwargs.get("comm_id") or "test", "test"

    def open(self, *a, **k) -> None:
        pass

    def on_msg(self, *a, **k) -> None:
        pass

    def close(self, *a, **k) -> None:
        pass

    def send(self, data=None, buffers=None, **kwargs) -> None:
        import json

        RecordingComm.sent.append({"comm": self.comm_id, "bytes": len(json.dumps(data)), "data": data})


def test_step_sends_only_the_new_row(monkeypatch):
    import comm

    from workbench import Workbench

    monkeypatch.setattr(comm, "create_comm", RecordingComm)
    RecordingComm.sent = []
    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    wb.step(20)
    for step in (21, 22):
        before = len(RecordingComm.sent)
        wb.step_button.click()
        sent = RecordingComm.sent[before:]
        custom = [m["data"]["content"] for m in sent if m["data"].get("method") == "custom"]
        assert custom == [{"kind": "rows", "start": step - 1, "rows": [wb.table.records[-1]]}]
        row_bytes = len(__import__("json").dumps(wb.table.records[-1]))
        assert sum(m["bytes"] for m in sent) <= 2048 + row_bytes
    # a new view says hello and gets the whole stream again (one reset)
    before = len(RecordingComm.sent)
    wb.table._on_msg(wb.table, {"kind": "hello"}, [])
    (reset,) = [m["data"]["content"] for m in RecordingComm.sent[before:]]
    assert reset["kind"] == "reset" and [r["step"] for r in reset["rows"]] == list(range(1, 23))


def test_config_editor_problems_keep_the_last_good_config():
    from workbench import Workbench

    text = SEED_TEXT.replace("\n\n", "Sure.")
    wb = Workbench(text, tools=WEATHER_TOOLS, config="parsers/teaching.toml")
    assert "name = \"teaching\"" in wb.editor.text.value
    wb.run_button.click()
    good_final = wb.state.final.stream
    assert good_final.tool_calls[0].name == "get_weather"
    end = '{ from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] },'
    assert end in wb.editor.text.value
    typo = wb.editor.text.value.replace(end, end.replace('"CONTENT"', '"CONTNT"'))
    wb.editor.text.value = typo  # reload on change
    assert "transitions[1].to: unknown state 'CONTNT'" in banner_of(wb.editor.problems)
    assert "last good config stays active" in banner_of(wb.editor.problems)
    assert wb.state.final.stream == good_final and wb.banner.value == ""
    # break one transition for real: </think> no longer ends the reasoning
    broken = wb.editor.text.value.replace('to = "CONTNT",   emit = ["REASONING_END"]',
                                          'to = "REASONING", emit = []')
    assert wb.reload_config(broken) == []
    assert wb.editor.problems.value == ""
    assert 7 in wb.table.changed and "changed" in row_cells(wb, 7)["_c"].split()
    assert wb.state.final.stream.tool_calls == ()
    assert "</tool_call>" in wb.state.final.stream.reasoning
    wb.controls.config.value = "parsers/qwen3.toml"  # a picker takes over again
    assert wb.state.settings.config_text is None and 'name = "qwen3"' in wb.editor.text.value


def test_ab_compares_two_specs_on_the_same_stream():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS)
    res = wb.compare("hermes+qwen3", "+qwen3")
    assert res.first_step == 8  # <tool_call>: a tool call for A, content for B
    assert "first step whose client-visible output differs: <b>8</b>" in wb.ab.summary.value
    # the same front-end table on both sides, every differing step marked on both
    differing = {s.step for s in res.steps if not s.same}
    for side, rows in ((wb.ab.left, res.a.rows), (wb.ab.right, res.b.rows)):
        assert [r["step"] for r in side.records] == [r.step for r in rows]
        assert {r["step"] for r in side.records if "changed" in r["_c"].split()} == differing
        assert side.features == ["strip"] and side.selected == 8
    assert 8 in differing and "content" not in wb.ab.left.records[7]  # hermes holds the marker back
    assert wb.ab.right.records[7]["content"] == "<tool_call>" and wb.ab.right.records[7]["_k"] == "content"
    wb.ab.left.selected = 9  # a pick on one side picks the same step on the other
    assert wb.ab.right.selected == 9
    # both tables open at their top unless a step is picked (the browser: tests/ui/test_browser.py)
    assert not wb.ab.left.follow and not wb.ab.right.follow and wb.table.follow
    same = wb.compare("hermes+qwen3", "hermes+qwen3")  # no step differs: nothing picked
    assert same.same and wb.ab.left.selected == wb.ab.right.selected == 0
    assert wb.ab.left.selection == [] and len(wb.ab.left.records) == len(same.a.rows)
    wb.ab.spec_b.value = ""
    wb.ab.compare_button.click()
    assert "A/B: give two parser specs, e.g. hermes+qwen3 and +qwen3 (B is empty)" in banner(wb)
    assert "A/B: A/B" not in banner(wb)  # the action names itself once


def banner_of(widget) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", widget.value))


def test_check_shrink_and_export_from_the_panel(tmp_path):
    from workbench import Workbench

    wb = Workbench(recording=str(TRUNCATED))
    wb.run_button.click()
    wb.checks.fuzz.value = 5
    wb.checks.check_button.click()
    assert wb.banner.value == ""
    found = banner_of(wb.checks.findings)
    assert "INCONSISTENT" in found and "stream_vs_nonstream tool_calls" in found
    assert "minimal text" in found  # the first severe finding, shrunk
    assert "stream_vs_nonstream tool_calls" in banner_of(wb.final.findings)
    wb.checks.export_path.value = str(tmp_path / "test_truncated.py")
    wb.checks.export_button.click()
    assert (tmp_path / "test_truncated.py").is_file()
    assert "it fails now" in banner_of(wb.checks.exported)
    wb.checks.export_path.value = str(tmp_path / "not-a-name.py")
    wb.checks.export_button.click()
    assert "Export: not-a-name.py: the test file name must be a Python identifier" in banner(wb)


REQUIRED = ('<think>Weather is needed.</think><tool_call>\n{"name": "get_weather", '
            '"arguments": {"city": "Paris"}}\n</tool_call>')


@pytest.mark.engine
def test_engine_source_grammar_column_and_the_recording_survives_errors(engine_stepper, tmp_path):
    from workbench import Workbench
    from workbench.core import recording as rec

    wb = Workbench(REQUIRED, tools=WEATHER_TOOLS, source="engine", tool_choice="required")
    wb.step_button.click()
    assert wb.banner.value == "" and len(wb.rows) == 1
    assert wb.describe()["request"]["structured_outputs"]["structural_tag"]
    wb.step(2)
    assert "grammar" in wb.table.shown() and "closed" in row_cells(wb, 1)["grammar"]

    def engine_failure(*a, **k):
        raise RuntimeError("engine went away")

    original, wb._ctl.rt.source.step = wb._ctl.rt.source.step, engine_failure
    wb.step_button.click()
    assert "Step: unexpected RuntimeError: engine went away" in banner(wb)
    assert len(wb.rows) == 3
    assert wb.save_recording(tmp_path / "partial.jsonl") == 3  # nothing streamed is lost
    assert len(rec.load(tmp_path / "partial.jsonl").deltas) == 3
    before = (tmp_path / "partial.jsonl").read_bytes()
    with pytest.raises(WorkbenchError, match="partial.jsonl exists"):  # refused, as the CLI's -o
        wb.save_recording(tmp_path / "partial.jsonl")
    assert (tmp_path / "partial.jsonl").read_bytes() == before
    wb._ctl.rt.source.step = original
    wb.run_button.click()
    assert wb.banner.value == "" and wb.rows[-1].finish_reason == "tool_calls"
    opened = [r for r in wb.rows if r.extra.get("grammar", {}).get("gate_open") == [True]]
    assert opened and all(r.extra["grammar"]["emitted_allowed"] == [True] for r in opened)
    assert "open" in row_cells(wb, opened[0].step)["grammar"] and "allowed" in row_cells(wb, opened[0].step)["grammar"]
    wb.save_recording(tmp_path / "full.jsonl")
    again = Workbench(recording=str(tmp_path / "full.jsonl"))
    again.run()
    def seen(rows):
        return [(r.token_ids, r.text, r.phase, r.sse, r.finish_reason, r.reasoning, r.content) for r in rows]

    assert seen(again.rows) == seen(wb.rows)


@pytest.mark.engine
def test_two_engine_workbenches_each_own_their_stream(engine_stepper, tmp_path):
    """Stepped in turn on the one engine: each widget's rows, final answer, check,
    save and replay are about its own request; a reset of one leaves the other be."""
    from workbench import Workbench
    from workbench.core import recording as rec
    from workbench.engine import instance

    CALL = REQUIRED.split("</think>")[1]
    a = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, source="engine")
    b = Workbench(CALL, tools=WEATHER_TOOLS, source="engine", reasoning_parser=None)
    for _ in range(4):
        a.step_button.click()
        b.step_button.click()
    assert a.banner.value == b.banner.value == ""
    assert a._ctl.rt.stepper is not b._ctl.rt.stepper
    assert a._ctl.rt.stepper.engine is b._ctl.rt.stepper.engine is instance.current()
    a_ids, b_ids = a._ctl.rt.stepper.script, b._ctl.rt.stepper.script
    assert [t for r in a.rows for t in r.token_ids] == a_ids[:4]
    assert [t for r in b.rows for t in r.token_ids] == b_ids[:4]
    b.controls.reset_button.click()  # drops b's request only
    assert list(instance.current().llm.output_processor.request_states) == [a._ctl.rt.stepper._internal_id]
    a.run_button.click()
    b.run_button.click()
    assert [t for r in a.rows for t in r.token_ids] == a_ids and len(a.rows) == 26
    assert [t for r in b.rows for t in r.token_ids] == b_ids
    assert a.state.final.stream.reasoning == "Weather is needed."
    assert b.state.final.stream.reasoning is None
    assert len(a._ctl.rt.recorded()) == len(a.rows) and len(b._ctl.rt.recorded()) == len(b.rows)
    assert a.check(fuzz=0, shrink_budget_s=0, text_budget_s=0).checked["tokens"] == len(a_ids)
    assert a.save_recording(tmp_path / "a.jsonl") == 26
    assert [t for d in rec.load(tmp_path / "a.jsonl").deltas for t in d.token_ids] == a_ids
    assert a.replay() == set() and len(a.rows) == 26
    a.select(3)  # the tiny model's tokens come from the script: the detail says so, no chart
    assert "forced (the script sets every other logit to -inf)" in a.detail.value
    assert "the model wanted" not in a.detail.value and "candidates" not in a.rows[2].extra
