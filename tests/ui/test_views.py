"""The widget's smaller promises, headless: what styled() shows, replays that do not
lie about random ids, banners, pickers, A/B labels, final values as JSON with word
diffs, Run streaming with Stop, quiet engine starts, settings changed mid-stream."""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import sys
import warnings
from pathlib import Path

import pytest

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS
from tests.support.widgets import run_then_stop

ROOT = Path(__file__).resolve().parents[2]
TRUNCATED = "parsers/recordings/hermes/truncated_arguments.jsonl"


def text_of(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value))


@pytest.fixture
def wb():
    from workbench import Workbench

    return Workbench(SEED_TEXT, tools=WEATHER_TOOLS, tool_parser="hermes", reasoning_parser="qwen3")


def test_frame_and_records_keep_none_apart_from_empty_and_never_nan(wb):
    wb.run()
    frame = wb.frame()
    for name in frame.columns:  # a missing value is None in every column, never NaN
        values = list(frame[name])
        assert not any(isinstance(v, float) and v != v for v in values), name
    assert frame["reasoning"][0] is None and frame["content"][6] == "\n\n" and frame["finish_reason"][0] is None
    assert frame["sse"].tolist() == [r.sse for r in wb.rows] and frame["logs"].tolist() == [None] * len(wb.rows)
    records = wb.table.records  # markers travel as text: the front end escapes them
    assert records[0]["tokens"] == ["<think>"] and "reasoning" not in records[0]
    assert records[6]["content"] == "\n\n"  # "" and "\n\n" are values, None is left out


def test_replay_with_nothing_changed_changes_no_rows_despite_random_ids(wb):
    wb.run()
    ids = [c.id for r in wb.rows for c in r.tool_calls if c.id]
    assert ids and ids[0].startswith("chatcmpl-tool-")
    assert wb.replay() == set()
    again = [c.id for r in wb.rows for c in r.tool_calls if c.id]
    assert again != ids  # a new random id, and still no row counted as changed
    assert "0 rows changed" in wb.controls.status.value
    res = wb.compare("hermes+qwen3", "hermes+qwen3")
    assert res.same and "agree" in wb.ab.summary.value


def test_a_stale_banner_clears_on_the_next_success(wb):
    wb.controls.chunking.value = "k:0"
    wb.controls.step_button.click()
    assert "bad --chunking" in text_of(wb.banner.value)
    wb.controls.chunking.value = "token"
    wb.run()  # from notebook code, not a button: the old error still goes
    assert wb.banner.value == "" and len(wb.rows) == 26
    wb.controls.chunking.value = "k:0"
    wb.controls.reset_button.click()
    wb.controls.step_button.click()
    assert wb.banner.value
    wb.controls.recording.value = TRUNCATED  # an observer, not a button
    assert wb.banner.value == ""


def test_one_dropdown_entry_per_recording_and_the_script_box_stays(wb):
    from workbench.core import recording as rec

    options = list(wb.controls.recording.options)
    assert TRUNCATED in [v for _, v in options]
    wb.controls.recording.value = TRUNCATED
    assert list(wb.controls.recording.options) == options
    wb.load_recording(str(ROOT / TRUNCATED))  # the same file, spelt absolute
    assert list(wb.controls.recording.options) == options
    assert wb.controls.recording.value == TRUNCATED
    text = "".join(d.text for d in rec.load(ROOT / TRUNCATED).deltas)
    assert wb.controls.text.value == SEED_TEXT != text  # the text's and the engine's script, not the recording's
    assert "on the recording truncated_arguments.jsonl" in text_of(wb.controls.truth.value)


def test_empty_pickers_show_none_and_read_as_none():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tool_parser=None)
    c = wb.controls
    assert (c.tool_parser.label, c.config.label) == ("(none)", "(none)")
    assert c.reasoning_parser.label == "qwen3"
    i = wb.state.settings
    assert (i.tool_parser, i.config, i.reasoning_parser) == (None, None, "qwen3")
    wb.run()
    assert wb.state.final.stream.tool_calls == ()


def test_ab_labels_and_final_values_as_json(wb):
    wb.run()
    assert wb.ab.spec_a.value == "hermes+qwen3"
    res = wb.compare("hermes+qwen3", "+qwen3")
    assert (res.label_a, res.label_b) == ("hermes+qwen3", "+qwen3")
    assert "A: hermes+qwen3" in text_of(wb.ab.label_a.value) and "B: +qwen3" in text_of(wb.ab.label_b.value)
    table = wb.ab.final  # the table component: a row per field of each answer, A's and B's JSON
    assert [c["title"] for c in table.columns] == ["answer", "field", "A: hermes+qwen3", "B: +qwen3", "verdict"]
    rows = {(r["answer"], r["field"]): r for r in table.records}
    finish = rows[("stream", "finish_reason")]
    assert (finish["a"], finish["b"], finish["same"], finish["_c"]) == ('"tool_calls"', '"stop"', "✗ differs", "changed")
    assert rows[("stream", "tool_calls")]["b"] == "[]" and rows[("stream", "reasoning")]["_c"] == ""
    assert "'" not in "".join(r["a"] + r["b"] for r in table.records)  # JSON, no Python reprs
    res = wb.compare("hermes+qwen3", str(ROOT / "parsers/qwen3.toml"))
    assert res.label_b == "parsers/qwen3.toml"
    wb.reload_config((ROOT / "parsers/qwen3.toml").read_text())
    assert wb.compare("editor", "hermes+qwen3").label_a == "editor config"


def test_final_message_values_are_json_in_their_own_cells(wb):
    from workbench.ui.final import shown

    wb.run()
    content = next(d for d in wb.state.final.diffs if d.field == "content")
    assert (content.a, content.b) == ("\n\n", None) and shown(content) == ('"\\n\\n"', "null")
    fields = {r["field"]: r for r in wb.final.fields.records}
    assert (fields["content"]["stream"], fields["content"]["nonstream"]) == ('"\\n\\n"', "null")
    # whitespace only: `check` calls it cosmetic (no finding), and so does every line on screen
    assert fields["content"]["verdict"] == "≈ whitespace only (cosmetic)" and fields["content"]["_c"] == "changed"
    assert "streaming ≈ non-streaming (whitespace only: content)" in wb.controls.status.value
    assert wb.final.goto.description.startswith("verdict: streaming ≈ non-streaming")
    from workbench import Workbench

    broken = Workbench(recording=TRUNCATED)
    broken.run()
    calls = {r["field"]: r for r in broken.final.fields.records}["tool_calls"]
    # one JSON object per call, name and arguments, in the streaming and non-streaming cells
    a, b = ([json.loads(line) for line in calls[side].splitlines()] for side in ("stream", "nonstream"))
    assert a and b and a != b and {"name", "arguments"} <= set(a[0])
    assert calls["verdict"].startswith("✗ differs from step")


def long_text(n: int = 60) -> str:
    return "<think>" + " ".join(f"step {i} of the plan." for i in range(n)) * 4 + "</think>done"


def test_run_button_streams_rows_and_stop_stops_it():
    """The Run button steps from the running event loop in slices (the kernel's own
    loop in Jupyter): rows show after each slice, and a Stop click between slices is
    heard. Without a running loop it runs synchronously."""
    from workbench import Workbench

    wb = Workbench(long_text(), tools=WEATHER_TOOLS)
    wb.run_slice_s = 0.002  # a fast machine replays the whole stream in one 50 ms slice
    wb.load()
    total = len(wb._ctl.rt.session.deltas_from_text(long_text()))
    first_rows, first_shown = run_then_stop(wb)
    stopped_at = len(wb.rows)
    assert 0 < first_rows == first_shown < total  # shown while running, not at the end
    assert stopped_at < total and wb.banner.value == ""
    assert wb.controls.stop_button.disabled and not wb.controls.step_button.disabled
    assert "stopped:" in wb.controls.status.value
    wb.controls.run_button.click()  # no running loop here: synchronous, to the end
    assert len(wb.rows) == total and [r.step for r in wb.rows] == list(range(1, total + 1))


def test_an_error_during_a_button_run_goes_to_the_banner(wb, monkeypatch):
    calls = []

    def failing():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("boom in a slice")
        return original()

    wb.load()
    wb.step()
    source = wb._ctl.rt.source
    original = source.step
    monkeypatch.setattr(source, "step", failing)

    async def scenario():
        wb.controls.run_button.click()
        while wb.running:
            await asyncio.sleep(0.001)

    asyncio.run(scenario())
    assert "Run: unexpected RuntimeError: boom in a slice" in text_of(wb.banner.value)
    assert len(wb.rows) == 3 and not wb.controls.run_button.disabled  # the Step's and the two before it failed


def test_engine_start_noise_stays_out_of_the_cell(capsys, tmp_path, monkeypatch):
    """What an engine start prints through every route lands in the log file."""
    from workbench.engine import quiet

    monkeypatch.setattr(quiet, "log_path", lambda: tmp_path / "start.log")
    noisy = logging.getLogger("workbench-test-noise")
    handler = logging.StreamHandler(sys.stderr)  # holds the stream, as torch's does
    noisy.addHandler(handler)
    try:
        with quiet.quiet():
            noisy.warning("Triton not available")
            warnings.warn("torch.distributed.reduce_op is deprecated", FutureWarning)
            print("INFO engine starting")
            print("to stderr", file=sys.stderr)
    finally:
        noisy.removeHandler(handler)
    out = capsys.readouterr()
    assert out.out == out.err == ""
    log = (tmp_path / "start.log").read_text()
    for line in ("Triton not available", "reduce_op is deprecated", "INFO engine starting", "to stderr"):
        assert line in log
    assert handler.stream is sys.stderr


def test_controls_collapse_after_the_first_step(wb):
    assert wb.controls.settings.selected_index == 0
    wb.controls.step_button.click()
    assert wb.controls.settings.selected_index is None
    assert "hermes+qwen3 on qwen3 · vLLM 0.32.0 (installed) · API chat · text" in wb.controls.settings.get_title(0)


def test_changing_the_source_mid_stream_is_said_not_ignored(wb):
    wb.step(2)
    wb.controls.source.value = "engine"
    warning = text_of(wb.banner.value)
    assert "source changed while this stream is in progress" in warning and "Reset" in warning
    wb.controls.step_button.click()  # the stream goes on as it started, and still says so
    assert len(wb.rows) == 3 and wb._ctl.rt.source.kind == "replay"
    assert "source changed" in text_of(wb.banner.value)
    wb.controls.source.value = "text"
    wb.controls.text.value = "<think>other</think>"
    assert "script changed" in text_of(wb.banner.value)
    wb.controls.reset_button.click()
    wb.controls.step_button.click()
    assert wb.banner.value == "" and wb.rows[0].text == "<think>"
    wb.run()
    assert wb.state.final.stream.reasoning == "other"


def test_swallowed_errors_go_to_the_banner(monkeypatch):
    from workbench import Workbench
    from workbench.ui import controls

    def broken():
        raise OSError("tokenizers.lock.toml unreadable")

    monkeypatch.setattr(controls, "tokenizer_names", broken)
    wb = Workbench(SEED_TEXT)
    shown = text_of(wb.banner.value)
    assert "tokenizer list could not be read (OSError: tokenizers.lock.toml unreadable)" in shown
    assert list(wb.controls.tokenizer.options) == ["qwen3"]
    monkeypatch.undo()

    def step_fails(*a, **k):
        raise RuntimeError("step failed")

    def sync_fails(*a, **k):
        raise ValueError("redraw failed")

    wb.step()
    monkeypatch.setattr(wb._ctl.rt.source, "step", step_fails)
    monkeypatch.setattr(wb.table, "append", sync_fails)
    wb.controls.step_button.click()
    shown = text_of(wb.banner.value)
    assert "Step: unexpected RuntimeError: step failed" in shown
    assert "redrawing the widget then failed too: ValueError: redraw failed" in shown


def test_stop_reaches_a_real_kernel_while_the_run_button_runs():
    """In a real ipykernel, messages that arrive while a Run goes (here execute
    requests, in JupyterLab the Stop click's comm message) are handled between slices."""
    import nbformat
    from nbclient import NotebookClient

    cells = [
        f"import asyncio, workbench\nTEXT = {long_text(200)!r}\n"
        "wb = workbench.Workbench(TEXT)\nwb.run_slice_s = 0.002\nwb.load()\n"
        "total = len(wb._ctl.rt.session.deltas_from_text(TEXT))\n"
        "wb.controls.run_button.click()\nstarted = wb.running",
        "wb.controls.stop_button.click()\nat = len(wb.rows)",
        "await asyncio.sleep(0.5)\nprint(started, at, len(wb.rows), total, wb.running)",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    started, at, after, total, running = nb.cells[2].outputs[0].text.split()
    assert started == "True" and running == "False"
    assert 0 < int(at) == int(after) < int(total)  # rows came, then nothing after the Stop


def test_the_minimal_case_streams_in_a_widget_of_its_own():
    from workbench import Workbench

    wb = Workbench(recording=TRUNCATED)
    wb.run()
    rows = list(wb.rows)
    wb.check(fuzz=0)
    small = wb.minimal_workbench()
    assert wb.rows == rows and wb.state.settings.source == "recording"  # this one keeps its stream
    assert small is not wb and small.state.settings.text == wb.minimal_text()
    assert (small.state.settings.tool_parser, small.state.settings.tools) == ("hermes", wb.state.settings.tools)
    assert 0 < len(small.rows) < len(rows) and small.state.final.first_step is not None


def test_every_source_is_closed_when_the_widget_drops_it():
    """Reset (or a new stream) closes the old source: an engine request is aborted
    (test_widget), a live server stream hangs up."""
    from workbench.capture.server_source import ServerSource
    from workbench.ui import transitions as T
    from workbench.ui.inputs import Inputs
    from workbench.ui.runtime import Runtime
    from workbench.ui.state import start

    rt = Runtime()
    i = Inputs(text=SEED_TEXT)
    source = ServerSource(rt.session_for(i), "http://127.0.0.1:9/v1", {"messages": []})
    rt.use(source, rt.session)
    T.reset(start(i), rt)
    assert rt.source is None and source.server.closed


def test_a_recording_picked_waits_and_the_script_stays_the_scripts(wb):
    """Issue 44, item 2: the recording picker waits for Replay or Reset like the others (the rows
    on screen stay), the script box keeps its script, and back on the text source that script
    runs; the truth line names which script; the seed is one click away."""
    wb.run()
    wb.controls.source.value = "recording"
    wb.controls.recording.value = TRUNCATED
    assert len(wb.rows) == 26 and wb.controls.text.value == SEED_TEXT
    truth = text_of(wb.controls.truth.value)
    assert truth.startswith("runs: ") and "on the script text (the seed script)" in truth, truth
    assert {"source", "recording"} <= set(wb.state.pending), wb.state.pending
    wb.controls.reset_button.click()
    wb.run()
    assert "on the recording truncated_arguments.jsonl" in text_of(wb.controls.truth.value)
    assert "".join(r.text for r in wb.rows) != SEED_TEXT
    wb.controls.source.value = "text"
    wb.controls.text.value = "<think>Rain in Oslo?</think>Let me check."
    wb.controls.reset_button.click()
    wb.run()
    truth = text_of(wb.controls.truth.value)
    assert "".join(r.text for r in wb.rows) == wb.controls.text.value
    assert "on the script text (the script '<think>Rain in Oslo?</… (41 characters))" in truth, truth
    wb.controls.seed_button.click()
    assert wb.controls.text.value == SEED_TEXT and wb.state.pending == ("script",)
    wb.controls.replay_button.click()
    assert "".join(r.text for r in wb.rows) == SEED_TEXT
    assert "on the script text (the seed script)" in text_of(wb.controls.truth.value)


@pytest.mark.engine
def test_each_source_keeps_its_own_script_and_a_recording_its_own_request(engine_stepper):
    """Issue 44, item 2: the text's script, the engine's script and a recording's request are
    each their own. A recording picked (waiting for Reset) and run, then the engine picked:
    Reset runs the engine's own script (the seed's), not the text's nor the recording's, on the
    request the recording did not replace, and the truth line names that script."""
    from workbench import Workbench
    from workbench.core import recording as rec

    own_messages = [{"role": "user", "content": "Is it raining in Oslo?"}]
    wb = Workbench(source="engine", tools=WEATHER_TOOLS, messages=own_messages)
    c = wb.controls
    assert c.text.value == SEED_TEXT
    wb.step(2)
    c.source.value = "text"
    c.text.value = "<think>Rain in Oslo?</think>Let me check."  # the text's own script
    c.recording.value = TRUNCATED
    recorded = rec.load(ROOT / TRUNCATED)
    assert len(wb.rows) == 2 and wb.state.stream.applied.source == "engine"  # waits, like any pick
    assert {"source", "recording"} <= set(wb.state.pending)
    assert c.text not in c.texts.children  # a recording has no script
    c.reset_button.click()
    wb.run()
    assert "on the recording truncated_arguments.jsonl" in text_of(c.truth.value)
    assert wb.state.settings.messages == recorded.request["messages"] != own_messages
    c.source.value = "engine"
    assert c.text.value == SEED_TEXT and wb.state.settings.messages == own_messages
    assert wb.state.settings.prompt_token_ids is None and "source" in wb.state.pending
    c.reset_button.click()
    wb.run()
    assert wb.state.stream.applied.source == "engine"
    assert "".join(r.text for r in wb.rows) == SEED_TEXT  # the engine's own script, forced
    assert "on the engine (the embedded tiny model, scripted: the seed script)" in text_of(c.truth.value)
    c.source.value = "text"
    assert c.text.value == "<think>Rain in Oslo?</think>Let me check."  # the text's own, still
