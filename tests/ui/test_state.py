"""The widget holds one truth (issue 31): random sequences of the widget's own actions, clicked
and picked as a user does (Step, Run, Run then Stop, Reset, Replay, each picker and source,
the script and tools boxes, the config editor, A/B, Check, a row), on the text, recording
and engine sources; after each, what the screen says is checked against this test's own
record of what was applied and against vLLM called directly:

- the status line names the parser, vLLM, API and stream that made the rows on screen, and
  those rows are what vLLM's own classes give for those settings (a direct Session);
- the pending list is exactly the settings that differ from the applied ones;
- the detail shows the selected row of the current stream;
- counts agree across the status line, the table, the detail, the final tab and the check tab.

The record of what is applied follows the widget's rules as its user page states them
(docs/widget-guide.md): a stream starts from the settings as they are; a change waits until Replay
or Reset applies it (with no stream on screen it applies at once); a recording picked brings
its own settings, which wait the same way (the script stays); the editor's config applies when it reloads without problems.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ["parsers/recordings/hermes/truncated_arguments.jsonl", "parsers/recordings/hermes/seed_weather.jsonl"]
SCRIPTS = [SEED_TEXT, SEED_TEXT.replace("</think>\n\n", "</think>"),
           "<think>Rain in Oslo?</think>Let me check.<tool_call>{\"name\": \"get_weather\", \"arguments\": "
           "{\"city\": \"Oslo\"}}</tool_call>", "Hello  there.\tok"]
TEACHING = (ROOT / "parsers" / "teaching.toml").read_text()
CONFIGS = [TEACHING, TEACHING.replace('to = "CONTENT",   emit = ["REASONING_END"]', 'to = "REASONING", emit = []'),
           TEACHING.replace('"CONTENT"', '"CONTNT"', 1)]  # the last has a problem: nothing changes
# the controls, as the pending list names them
NAMES = {"tokenizer": "tokenizer", "tool_parser": "tool parser", "reasoning_parser": "reasoning", "config": "config",
         "tool_choice": "tool_choice", "messages": "messages", "tools": "tools", "text": "script",
         "recording": "recording", "source": "source", "chunking": "chunking", "api": "API",
         "config_text": "the config editor"}


def text_of(value: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", value))


def controls(wb) -> dict:
    """What the controls show, as settings (a box whose text is not JSON: a draft, marked)."""
    c = wb.controls
    out = {"tokenizer": c.tokenizer.value, "tool_parser": c.tool_parser.value or None,
           "reasoning_parser": c.reasoning_parser.value or None, "config": c.config.value or None,
           "tool_choice": c.tool_choice.value.strip() or None, "text": c.text.value,
           "recording": c.recording.value or None, "source": c.source.value,
           "chunking": c.chunking.value.strip() or "token", "api": c.api.value}
    for name in ("messages", "tools"):
        box = getattr(c, name).value
        try:
            out[name] = json.loads(box) if box.strip() else None
        except ValueError:
            out[name] = ("draft", box)
    return out


class Screen:
    """The widget's own lines, as text."""

    def __init__(self, wb) -> None:
        self.truth = text_of(wb.controls.truth.value)
        self.status = text_of(wb.controls.status.value)
        self.banner = text_of(wb.banner.value)
        self.error = "wb-error" in wb.banner.value
        self.title = wb.controls.settings.get_title(0)
        m = re.search(r"changed, not applied yet: (.*) \(Replay or Reset applies them\)", self.truth)
        self.pending = set(m.group(1).split(", ")) if m else set()


def parser_label(a: dict) -> str:
    from workbench.core.parsers import ParserSpec

    if a["config_text"] is not None:
        return "editor config"
    if a["config"]:
        return ParserSpec(config=a["config"]).label()
    return ParserSpec(a["tool_parser"], a["reasoning_parser"]).label()


def direct(a: dict, rows) -> list:
    """The rows vLLM's own classes give for the applied settings ``a`` (as many as on screen)."""
    import tempfile

    from workbench.core import recording
    from workbench.core.deltas import Delta
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec, tool_choice_arg
    from workbench.core.session import Session, Setup

    if a["config_text"] is not None:
        path = Path(tempfile.mkdtemp()) / "editor.toml"
        path.write_text(a["config_text"])
        spec = ParserSpec(config=str(path))
    elif a["config"]:
        spec = ParserSpec(config=str(ROOT / a["config"]))
    else:
        spec = ParserSpec(a["tool_parser"], a["reasoning_parser"])
    request = RequestSpec(messages=a["messages"], tools=a["tools"], tool_choice=tool_choice_arg(a["tool_choice"]))
    live = a["source"] == "engine"
    rec = recording.load(ROOT / a["recording"]) if a["source"] == "recording" else None
    session = Session(Setup(tokenizer=a["tokenizer"], parser=spec, request=request, chunking=a["chunking"],
                            api="chat" if live else a["api"]), prompt_token_ids=(rec.prompt_token_ids or None) if rec else None)
    if live:  # the engine's deltas, as recorded: the script's tokens, one engine step each
        script = [t for d in session.deltas_from_text(a["text"]) for t in d.token_ids]
        assert [t for r in rows for t in r.token_ids] == script[:sum(len(r.token_ids) for r in rows)]
        done = len(rows) and rows[-1].finish_reason is not None
        deltas = [Delta(tuple(r.token_ids), r.text, "stop" if done and i == len(rows) - 1 else None)
                  for i, r in enumerate(rows)]
    elif rec is not None:
        deltas = session.regroup(rec.deltas, a["chunking"]) if a["chunking"] != "token" else rec.deltas
    else:
        deltas = session.deltas_from_text(a["text"], a["chunking"])
    return session.replay(list(deltas)).rows[:len(rows)]


def seen(r) -> tuple:
    calls = tuple((c.index, c.name, c.arguments) for c in r.tool_calls)
    return (tuple(r.token_ids), r.text, str(r.phase_before), str(r.phase), r.reasoning, r.content, calls, r.sse,
            r.finish_reason, r.error)


class WidgetActions(RuleBasedStateMachine):
    """One Workbench per sequence; ``applied``: this test's record of what is applied."""

    engine = False  # whether the engine source is among the picks (it needs the run's engine)
    in_hypothesis = True  # False: a fixed sequence (replay_steps)
    first = "text"  # the source a sequence starts on

    def __init__(self) -> None:
        super().__init__()
        from workbench import Workbench

        if self.first == "recording":
            self.wb = Workbench(recording=RECORDINGS[0])
        else:
            self.wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, source=self.first)
        self.applied = self.settings()
        self.started = False
        self.expect_error = False
        self.acted = False  # whether the last rule did something (a picker set to its value does not)
        self.error_shown = False

    # -- the record ----------------------------------------------------------------
    def settings(self) -> dict:
        out = controls(self.wb)
        out["config_text"] = getattr(self, "config_text", None)
        return out

    @property
    def drafts(self) -> bool:
        return any(isinstance(v, tuple) for v in self.settings().values())

    def follow(self) -> None:
        """With no stream on screen the settings apply at once (a box that holds no JSON yet
        keeps its last value, and waits)."""
        if not self.started:
            self.applied = {k: self.applied[k] if isinstance(v, tuple) else v for k, v in self.settings().items()}

    @property
    def refused_by_vllm(self) -> bool:
        """vLLM's own check of the request (ChatCompletionRequest): a tool_choice other than
        "none" needs tools. A stream made from such settings fails with vLLM's line."""
        now = self.settings()
        return now["tool_choice"] not in (None, "none") and now["tools"] is None

    def apply(self, started: bool = True) -> None:
        """An action that applies the settings (Reset, Replay, a first Step): refused while a
        box holds no JSON, and (but Reset, which makes no stream) when vLLM refuses the request."""
        if self.drafts or (started and self.refused_by_vllm):
            self.expect_error = True
            return
        self.applied, self.started = self.settings(), started

    # -- the widget's own actions ---------------------------------------------------------
    @rule(n=st.integers(1, 4))
    def step(self, n):
        self.acted = True
        if not self.started:
            self.apply()
        for _ in range(n):
            self.wb.controls.step_button.click()

    @rule()
    def run(self):
        self.acted = True
        if not self.started:
            self.apply()
        self.wb.controls.run_button.click()  # no event loop: to the end

    @rule()
    def run_then_stop(self):
        self.acted = True
        if not self.started:
            self.apply()
        wb = self.wb
        wb.run_slice_s = 0.001

        async def scenario():
            wb.controls.run_button.click()
            await asyncio.sleep(0.005)
            wb.controls.stop_button.click()
            while wb.running:
                await asyncio.sleep(0.001)

        asyncio.run(scenario())

    @rule()
    def reset(self):
        self.acted = True
        self.apply(started=False)
        self.wb.controls.reset_button.click()

    @rule()
    def replay(self):
        self.acted = True
        self.apply()
        self.wb.controls.replay_button.click()

    def set(self, widget, value) -> None:
        self.acted = widget.value != value
        widget.value = value

    def pick(self, picker, name) -> bool:
        """A name the picker lists (it lists every registered one once vLLM is loaded)."""
        if name not in [v for _, v in picker.options]:
            return False
        self.acted = picker.value != name
        if picker.value != name:
            self.config_text = None  # a picked parser takes over from the editor
        picker.value = name
        self.follow()
        return True

    @rule(name=st.sampled_from(["hermes", "", "qwen3_coder"]))
    def tool_parser(self, name):
        self.pick(self.wb.controls.tool_parser, name)

    @rule(name=st.sampled_from(["qwen3", "", "deepseek_r1"]))
    def reasoning_parser(self, name):
        self.pick(self.wb.controls.reasoning_parser, name)

    @rule(path=st.sampled_from(["", "parsers/teaching.toml", "parsers/qwen3.toml"]))
    def config(self, path):
        self.pick(self.wb.controls.config, path)

    @rule(api=st.sampled_from(["chat", "responses", "messages"]))
    def api(self, api):
        self.set(self.wb.controls.api, api)
        self.follow()

    @rule(choice=st.sampled_from(["", "auto", "none"]))
    def tool_choice(self, choice):
        self.set(self.wb.controls.tool_choice, choice)
        self.follow()

    @rule(chunking=st.sampled_from(["token", "k:3", "random:7"]))
    def chunking(self, chunking):
        self.set(self.wb.controls.chunking, chunking)
        self.follow()

    @rule(text=st.sampled_from(SCRIPTS))
    def script(self, text):
        self.set(self.wb.controls.text, text)
        self.follow()

    @rule(tools=st.sampled_from([json.dumps(WEATHER_TOOLS), "", "[{\"type\": "]))
    def tools(self, tools):
        self.set(self.wb.controls.tools, tools)
        self.follow()

    @rule(source=st.sampled_from(["text", "recording", "engine"]), path=st.sampled_from(RECORDINGS))
    def source(self, source, path):
        if source == "engine" and not self.engine:
            source = "text"
        self.set(self.wb.controls.source, source)
        self.follow()
        if source == "recording" and self.wb.controls.recording.value != path:
            script = self.wb.controls.text.value
            self.set(self.wb.controls.recording, path)  # its settings, waiting like any pick; the rows stay
            assert self.wb.controls.text.value == script  # the script is the text's and the engine's
            if "wb-error" not in self.wb.banner.value:  # a failed load leaves the settings
                self.config_text = None
                self.follow()

    @rule(text=st.sampled_from(CONFIGS))
    def editor(self, text):
        self.acted = True
        wb = self.wb
        wb.editor.auto.value = False
        wb.editor.text.value = text
        wb.editor.reload_button.click()
        if self.drafts:
            self.expect_error = True
            return
        if "CONTNT" in text:  # its problems show beside the editor; nothing else changes
            return
        if not self.started and self.settings()["source"] == "engine":
            self.config_text = text
            self.follow()  # no stream to replay yet: the next Step starts with it
        elif self.refused_by_vllm:  # it replays the stream: refused as a whole
            self.expect_error = True
        else:
            self.config_text = text
            self.apply()

    @precondition(lambda self: getattr(self, "config_text", None) is not None)
    @rule()
    def editor_off(self):
        self.acted = True
        self.wb.editor.use.value = False
        if self.started and (self.drafts or self.refused_by_vllm):  # it replays: refused whole, the editor stays on
            self.expect_error = True
            return
        self.config_text = None
        if self.started:
            self.apply()
        else:
            self.follow()

    @rule(api_b=st.sampled_from(["chat", "messages"]))
    def ab(self, api_b):
        self.acted = True
        if not self.started:
            self.apply()
        wb = self.wb
        wb.ab.spec_a.value, wb.ab.spec_b.value, wb.ab.api_b.value = "hermes+qwen3", "+qwen3", api_b
        wb.ab.compare_button.click()
        if not self.expect_error and wb.ab.left is not None:  # the stream on screen: every delta it has
            m = re.search(r"(\d+)(?:/(\d+))? deltas", Screen(wb).status)
            assert len(wb.ab.left.records) == int(m.group(2) or m.group(1)), Screen(wb).status

    @rule()
    def check(self):
        self.acted = True
        if not self.started:
            self.apply()
        self.wb.checks.fuzz.value = 2
        self.wb.checks.check_button.click()

    @rule(at=st.floats(0, 1))
    def select(self, at):
        rows = self.wb.table.records
        if rows:
            step = rows[int(at * (len(rows) - 1))]["step"]
            self.acted = self.wb.table.selected != step
            self.wb.table.selected = step

    # -- what the screen says -----------------------------------------------------------
    @invariant()
    def the_screen_tells_the_truth(self):
        wb, a = self.wb, self.applied
        s = Screen(wb)
        if self.expect_error:
            assert s.error, (s.banner, s.status)  # refused with a line, nothing else changed
        elif self.acted:
            assert not s.error, s.banner
        else:  # nothing happened: the last line stays
            assert s.error == self.error_shown, s.banner
        self.error_shown, self.expect_error, self.acted = s.error, False, False
        rows = wb.rows
        if self.in_hypothesis:
            event(f"rows on screen from the {a['source']} source" if rows else "no rows on screen")
        started = self.started or bool(rows)
        # what made the rows: the parser, the vLLM, the API, the stream
        assert s.truth.startswith("runs: " if started else "will run: "), s.truth
        assert s.truth.split(": ", 1)[1].startswith(parser_label(a)), (s.truth, parser_label(a))
        assert " · vLLM 0.32.0 (installed) · " in s.truth and f" · API {a['api']}" in s.truth, s.truth
        where = {"text": "the script text", "engine": "the engine (",
                 "recording": f"the recording {Path(a['recording'] or '(none)').name}"}[a["source"]]
        assert f" · on {where}" in s.truth, (s.truth, where)
        if started:
            assert s.title.startswith(f"settings: {parser_label(a)} on {a['tokenizer']} ·"), s.title
            assert s.title.endswith(f"· API {a['api']} · {a['source']}"), s.title
        # the pending list: exactly the settings that differ from the applied ones
        now = self.settings()
        differ = {NAMES[k] for k in NAMES if now.get(k) != a.get(k)}  # a box with no JSON yet: always
        assert s.pending == differ, (s.pending, differ)
        # the rows on screen are vLLM's for those settings
        assert [r["step"] for r in wb.table.records] == [r.step for r in rows] == list(range(1, len(rows) + 1))
        if rows:
            assert [seen(r) for r in rows] == [seen(r) for r in direct(a, rows)]
            joined = "".join(r.get("text", "") for r in wb.table.records)
            assert joined == "".join(r.text for r in rows)
        # the detail shows the selected row of this stream
        sel = wb.table.selected or None
        if sel is not None:
            assert 1 <= sel <= len(rows) and wb.table.selected == sel and wb.detail.step.value == sel
            tokens = [t["id"] for t in wb.detail.tables["tokens"].records] if "tokens" in wb.detail.tables else []
            assert tokens == rows[sel - 1].token_ids
        else:
            assert wb.detail.step.value == 0 and "no row selected" in wb.detail.html.value
        # counts agree: the status line, the table, the detail, the final and check tabs
        if rows:
            counted = rf"(^|: | · ){len(rows)}(/\d+)? deltas" if not s.error else rf"failed; {len(rows)} rows kept"
            assert re.search(counted, s.status), s.status
        assert wb.detail.step.max == len(rows)
        final = "finished" in s.status or None
        verdict = wb.final.goto.description
        if s.error:  # a failed action's line is the status; the final tab keeps the rows' verdict
            assert (verdict == "verdict: when the stream ends") == (wb.state.stream.final is None), verdict
        elif final is None:
            assert "finished" not in s.status and verdict == "verdict: when the stream ends"
        else:
            said = re.search(r"finished: (streaming [=≈≠][^·]*)", s.status).group(1).strip()
            assert verdict.startswith(f"verdict: {said}"), (verdict, said)
            fields = {r["field"]: r["verdict"] for r in wb.final.fields.records}
            if said.startswith("streaming = "):
                assert set(fields.values()) == {"✓ equal"}, fields
            elif said.startswith("streaming ≈ "):
                assert not any(v.startswith("✗") for v in fields.values()), fields
        counted = re.search(r"check: ((?:INCONSISTENT|consistent): [^·;]*)", s.status)
        if counted:  # a check of these rows: the same counts in the check tab and the final tab
            line = counted.group(1).strip()
            assert text_of(wb.checks.findings.value).startswith(line), (line, wb.checks.findings.value)
            if final is not None:
                assert text_of(wb.final.findings.value).startswith(f"check: {line}")


class WithEngine(WidgetActions):
    engine = True


class OnText(WithEngine):
    first = "text"


class OnRecording(WithEngine):
    first = "recording"


class OnEngine(WithEngine):
    first = "engine"


RUN = settings(max_examples=10, stateful_step_count=8, deadline=None, derandomize=True,
               suppress_health_check=list(HealthCheck))


@pytest.mark.engine
@pytest.mark.parametrize("machine", [OnText, OnRecording, OnEngine], ids=["text", "recording", "engine"])
def test_random_actions_keep_the_screen_true(engine_stepper, machine):
    """10 sequences of up to 8 actions from each source in `make test` (the same ones each run)."""
    run_state_machine_as_test(machine, settings=RUN)


@pytest.mark.slow(reason="500 random sequences: minutes; make test runs 30 of them")
@pytest.mark.engine
@pytest.mark.parametrize("machine", [OnText, OnRecording, OnEngine], ids=["text", "recording", "engine"])
def test_many_random_actions_keep_the_screen_true(engine_stepper, machine):
    """170 random sequences of up to 12 actions from each source (510 in all)."""
    run_state_machine_as_test(machine, settings=settings(RUN, max_examples=170, stateful_step_count=12,
                                                         derandomize=False))


def replay_steps(machine, steps) -> None:
    """One sequence, the invariants checked after each action (as the random ones are)."""
    m = machine()
    m.in_hypothesis = False
    m.the_screen_tells_the_truth()
    for name, *args in steps:
        getattr(m, name)(*args)
        m.the_screen_tells_the_truth()
    m.teardown()


SEED = RECORDINGS[1]


def test_text_then_back_to_the_recording_replays_the_recording():
    """Issue 31, item 2: pasted text, the source back to the recording, Replay: the rows are
    the recording's, and the status line says so."""
    replay_steps(OnRecording, [("run",), ("script", SCRIPTS[3]), ("source", "text", SEED), ("replay",),
                               ("source", "recording", SEED), ("replay",)])


def test_a_new_script_replayed_shows_its_own_row_in_the_detail():
    """Issue 31, item 2: after replaying a new script, the detail shows the new stream's row."""
    replay_steps(OnText, [("run",), ("select", 1.0), ("script", SCRIPTS[2]), ("replay",), ("select", 0.5)])


def test_the_settings_title_names_the_editors_config():
    """Issue 31, item 2: the settings' title says what runs when the editor's config does."""
    replay_steps(OnText, [("run",), ("editor", CONFIGS[0]), ("step", 1)])


@pytest.mark.engine
def test_the_api_picked_on_an_engine_source_applies_on_replay(engine_stepper):
    """Issue 31, item 3: messages picked on an engine source applies on Replay (its events are a
    replay of the chat stream), the status line says so, and the pending note clears."""
    replay_steps(OnEngine, [("run",), ("api", "messages"), ("replay",), ("reset",), ("run",), ("select", 0.4)])


def test_a_replay_refused_by_a_draft_keeps_the_finished_rows_verdict():
    """Found by make test-slow: a finished stream, the tools box not JSON yet, Replay: refused
    with its line, and the final tab still gives the verdict of the rows on screen."""
    replay_steps(OnText, [("run",), ("tools", '[{"type": '), ("replay",)])


def test_a_recording_picked_replaces_a_draft_in_the_tools_box():
    """Found by make test-slow: the tools box not JSON yet, then a recording picked: it loads
    with its own tools (its request), not refused by the draft it replaces."""
    replay_steps(OnText, [("run",), ("tools", '[{"type": '), ("source", "recording", SEED)])


@pytest.mark.engine
def test_a_tool_choice_picked_on_an_engine_source_applies_on_replay(engine_stepper):
    """Found by make test-slow: another tool choice makes another engine request, which the
    Replay started on the widget's stepper and then aborted as the old stream's ('no request')."""
    replay_steps(OnEngine, [("run",), ("tool_choice", "none"), ("replay",), ("step", 2)])


def test_the_editor_switched_off_with_a_draft_is_refused_and_stays_on():
    """Found by make test-slow: switching the editor off replays the stream, which a draft in
    the tools box refuses; the editor's config keeps running and the screen says so."""
    replay_steps(OnText, [("run",), ("editor", CONFIGS[1]), ("tools", '[{"type": '), ("editor_off",)])


@pytest.mark.engine
@pytest.mark.parametrize("machine", [OnText, OnEngine], ids=["text", "engine"])
def test_a_tool_choice_without_tools_is_vllms_one_line(engine_stepper, machine):
    """Found by make test-slow: tools emptied, tool_choice auto, Replay: vLLM's own request
    check refuses it ('When using `tool_choice`, `tools` must be set.') in one line, and
    the rows on screen stay; Reset applies the settings, the next Run is refused the same way."""
    replay_steps(machine, [("run",), ("tools", ""), ("tool_choice", "auto"), ("replay",), ("reset",), ("run",)])


def test_check_counts_agree_everywhere():
    """Issue 31, item 5: the status line, the check tab and the final tab count alike."""
    replay_steps(OnText, [("run",), ("check",)])


# -- clicks while a Run runs (issue 44, item 1) ------------------------------------------------
# JupyterLab sends a widget's clicks over a kernel subshell: a Run started there slices on that
# thread while a click is handled on the main one (tests/support/kernel_threads.py). Each
# sequence below starts a Run on the subshell, holds one of its slices in flight and clicks
# during it, on either thread; the screen must then be as true as after one action at a time.
CLICKS = [("reset",), ("stop",), ("run",), ("row",), ("tool_parser", ""), ("tool_parser", "hermes"),
          ("api", "messages"), ("api", "chat")]


class Interleaved(WidgetActions):
    def teardown(self) -> None:
        if getattr(self, "kernel", None) is not None:
            self.kernel.close()
            self.patch.undo()
        wb = getattr(self, "wb", None)
        if wb is not None and wb._ctl.rt.stepper is not None:
            # a Run the sequence left going holds a request on the run's one engine, which the
            # engine tests after this one count
            wb._ctl.rt.stepper.reset()
        super().teardown()

    def threads(self):
        from tests.support.kernel_threads import Kernel, Slices

        if getattr(self, "kernel", None) is None:
            self.patch = pytest.MonkeyPatch()
            self.kernel, self.slices = Kernel(), Slices(self.patch)
        return self.kernel, self.slices

    def click(self, click: tuple):
        """The click as a user makes it, and whether a Run was going when it was handled."""
        wb = self.wb
        name, *value = click
        buttons = {"reset": wb.controls.reset_button, "stop": wb.controls.stop_button, "run": wb.controls.run_button}
        if name in buttons:
            return lambda: (wb.running, buttons[name].click())[0]
        if name == "row":
            return lambda: (wb.running, setattr(wb.table, "selected", 1))[0]
        return lambda: (wb.running, setattr(getattr(wb.controls, name), "value", value[0]))[0]

    @precondition(lambda self: not self.drafts and not self.refused_by_vllm)
    @rule(clicks=st.lists(st.tuples(st.sampled_from(CLICKS), st.sampled_from(["main", "subshell"])),
                          min_size=1, max_size=4),
          at=st.integers(1, 3), when=st.sampled_from(["before", "after"]))
    def run_with_clicks(self, clicks, at, when):
        """Run on the subshell, slice ``at`` held; the main thread's clicks are handled during
        it, the subshell's wait on their thread for the slice to end (so they come after)."""
        self.acted = True
        k, slices = self.threads()
        wb = self.wb
        wb.run_slice_s = 0.001
        if not self.started:
            self.apply()
        now = self.settings()  # what the controls say before the clicks
        slices.hold(at, when)
        k.call("subshell", wb.controls.run_button.click)
        while wb.running and not slices.inflight.wait(0.05):
            pass
        ordered = [c for c, on in clicks if on == "main"] + [c for c, on in clicks if on == "subshell"]
        running = [k.call("main", self.click(c)) for c, on in clicks if on == "main"]
        later = [k.post("subshell", self.click(c)) for c, on in clicks if on == "subshell"]
        slices.release()
        running += [f.result(60) for f in later]
        k.settle(wb)
        picked = {name: value[0] for name, *value in ordered if name in ("tool_parser", "api")}
        for name, value in picked.items():  # each pick stays picked (none snaps back)
            assert getattr(wb.controls, name).value == value, (name, value, wb.state.settings)
        # this test's record, in the order the clicks were applied
        for (name, *value), was_running in zip(ordered, running):
            if name == "reset":
                self.applied, self.started = dict(now), False
            elif name == "run" and not was_running and not self.started:
                self.applied, self.started = dict(now), True
            elif name in ("tool_parser", "api") and now[name] != (v := value[0] or None):
                now[name] = v
                if name == "tool_parser":
                    now["config_text"] = self.config_text = None
                if not self.started:
                    self.applied = dict(now)


class InterleavedText(Interleaved):
    engine, first = True, "text"


class InterleavedEngine(Interleaved):
    engine, first = True, "engine"


def test_reset_and_a_pick_while_a_slice_runs_keep_the_screen_true():
    """Issue 44: Reset on the main thread while a Run's slice runs on the subshell, then the
    tool parser picked: the stream is reset and the pick applies to the next Run."""
    replay_steps(InterleavedText, [("run_with_clicks", [(("reset",), "main"), (("tool_parser", ""), "subshell")],
                                    2, "after"), ("run",)])


def test_a_pick_then_a_second_run_and_stop_while_a_slice_runs_keep_the_screen_true():
    """A pick on the main thread mid-slice stays picked and waits; Run clicked again is the same
    Run; Stop stops it; Replay applies the pick."""
    replay_steps(InterleavedText, [("run_with_clicks", [(("tool_parser", ""), "main"), (("run",), "main"),
                                                        (("stop",), "subshell")], 1, "before"), ("replay",)])


@pytest.mark.engine
def test_reset_during_an_engine_run_keeps_the_screen_true(engine_stepper):
    """The engine's request is aborted by the Reset (not by the slice in flight) and the next
    Run starts a new one."""
    replay_steps(InterleavedEngine, [("run_with_clicks", [(("reset",), "main"), (("run",), "subshell")], 2, "after"),
                                     ("select", 0.5)])


@pytest.mark.slow(reason="120 random sequences with clicks during a Run on two threads: minutes")
@pytest.mark.engine
@pytest.mark.parametrize("machine", [InterleavedText, InterleavedEngine], ids=["text", "engine"])
def test_many_clicks_during_a_run_keep_the_screen_true(engine_stepper, machine):
    """60 random sequences of up to 8 actions from each source, Runs with clicks on either
    thread during a slice among them."""
    run_state_machine_as_test(machine, settings=settings(RUN, max_examples=60, stateful_step_count=8,
                                                         derandomize=False))
