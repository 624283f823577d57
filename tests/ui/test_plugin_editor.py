"""The parser editor's Python side without a widget (ui/plugin_editor.py): a plugin's text
typed in the editor becomes the parser and the stream replays through it; a broken text is
one line with its line number, and the rows of the last good parser stay; fixed, it runs
again. What runs is the settings' (``plugin_text``), said with the plugin's class and file."""

from __future__ import annotations

import pytest

from tests.support.owl_plugin import BROKEN_LINE, PLUGIN, TEXT, line_of
from tests.support.seed import WEATHER_TOOLS
from workbench.ui import plugin_editor as P, settings as S, transitions as T, views, what_runs
from workbench.ui.controller import Controller
from workbench.ui.inputs import Inputs
from workbench.ui.state import start


@pytest.fixture
def ctl():
    return Controller(start(Inputs(text=TEXT, tools=WEATHER_TOOLS)))


def typed(ctl, text):
    """As the editor sends an edit: the text, then the reload its language runs."""
    ctl.do("editor", lambda s, rt: S.editor_text(s, text))
    return ctl.do("editor", P.reload, raise_errors=True)


def calls(s):
    return [(c.name, c.arguments) for c in s.final.stream.tool_calls]


def test_edit_break_and_fix_a_python_parser(ctl):
    s = ctl.run(raise_errors=True)
    assert calls(s) == [] and "[[call get_weather" in s.final.stream.content  # hermes does not read it
    s = ctl.do("editor", P.set_language, "python", raise_errors=True)
    assert s.editor.language == "python" and "register_module" in s.editor.text and s.settings.plugin_text is None

    s = typed(ctl, PLUGIN)
    assert s.outcome.kind == "ok" and s.settings.plugin_text == PLUGIN == s.applied.plugin_text
    assert calls(s) == [("get_weather", '{"city": "Paris"}')] and s.stream.changed and s.editor.problems == ()
    running = what_runs.running(s)
    assert "runs: editor plugin = " in running and "OwlToolParser" in running
    file = s.stream.parser["plugins"][0]["file"]
    assert f"from the Python editor ({file.rsplit('/', 1)[1]} registers tool parser owl)" in running
    assert views.settings_title(s).startswith(f"settings: editor plugin OwlToolParser ({file.rsplit('/', 1)[1]})")
    good = s.stream

    broken = PLUGIN.replace(BROKEN_LINE, BROKEN_LINE[:-1])
    s = typed(ctl, broken)
    n = line_of(PLUGIN, BROKEN_LINE)
    assert s.outcome.kind == "warning" and s.outcome.message == (
        f"plugin: line {n}: SyntaxError: expected ':'; the last good parser stays active")
    [problem] = s.editor.problems
    assert (problem.line, str(problem)) == (n, f"line {n}: SyntaxError: expected ':'")
    assert s.stream is good and s.settings.plugin_text == PLUGIN and s.editor.text == broken
    assert "line" in views.status_line(s)[0] and "OwlToolParser" in what_runs.running(s)

    fixed = PLUGIN.replace("DeltaFunctionCall(name=name,", "DeltaFunctionCall(name=name.upper(),")  # and changed
    s = typed(ctl, fixed)
    assert s.outcome.kind == "ok" and s.editor.problems == () and s.settings.plugin_text == fixed
    assert calls(s) == [("GET_WEATHER", '{"city": "Paris"}')] and len(s.stream.changed) == 1


def test_a_new_stream_from_the_settings_runs_the_editors_plugin(ctl):
    ctl.run(raise_errors=True)
    ctl.do("editor", P.reload_plugin, PLUGIN, raise_errors=True)
    s = ctl.do("chunking", lambda st, rt: S.set_setting(st, "chunking", "k:3"))
    assert s.pending == ("chunking",) and s.stream_changed()
    s = ctl.do("Replay", T.replay, raise_errors=True)  # a new session, built from the settings
    assert len(s.rows) < 10 and calls(s) == [("get_weather", '{"city": "Paris"}')]
    assert "OwlToolParser" in what_runs.running(s) and ctl.rt.stream_session.setup.plugins


def test_a_picker_or_the_switch_turns_the_plugin_off_and_each_language_keeps_its_text(ctl):
    ctl.run(raise_errors=True)
    toml = ctl.state.editor.text
    s = ctl.do("editor", P.reload_plugin, PLUGIN, raise_errors=True)
    assert s.editor.language == "python" and s.editor.kept["toml"] == (toml, None)
    s = ctl.do("editor", P.set_language, "toml")
    assert s.editor.text == toml and s.settings.plugin_text == PLUGIN  # showing TOML changes nothing that runs
    s = ctl.do("editor", P.set_language, "python")
    assert s.editor.text == PLUGIN
    s = ctl.do("reasoning", lambda st, rt: S.set_setting(st, "reasoning_parser", "deepseek_r1"))
    assert s.settings.plugin_text is None and s.pending == ("reasoning", "the Python editor")
    s = ctl.do("editor", P.reload, raise_errors=True)  # the plugin's tool role, the pickers' reasoning
    assert ctl.rt.stream_session.setup.parser.reasoning_parser == "deepseek_r1" and calls(s)
    s = ctl.do("editor", S.editor_off, raise_errors=True)
    assert s.settings.plugin_text is None and calls(s) == [] and "from the pickers" in what_runs.running(s)


def test_a_text_that_registers_nothing_or_fails_to_build_keeps_the_pickers_parser(ctl):
    s = ctl.run(raise_errors=True)
    rows = s.stream
    ctl.do("editor", P.set_language, "python")
    s = typed(ctl, "X = 1\n")
    assert s.stream is rows and "registers no parser" in s.outcome.message and s.settings.plugin_text is None
    failing = PLUGIN.replace("    def extract_tool_calls(self, model_output, request):",
                             "    def __init__(self, tokenizer, tools=None):\n        raise RuntimeError(\"no\")\n\n"
                             "    def extract_tool_calls(self, model_output, request):")
    s = typed(ctl, failing)
    [problem] = s.editor.problems
    assert problem.line == line_of(failing, 'raise RuntimeError("no")') and "no" in problem.message
    assert s.stream is rows and "from the pickers" in what_runs.running(s)


def test_the_editors_plugin_goes_to_diagnose_ab_and_export(ctl, tmp_path):
    ctl.run(raise_errors=True)
    ctl.do("editor", P.reload_plugin, PLUGIN, raise_errors=True)
    from workbench.ui import diagnose as D, tools
    from workbench.ui.state import ABSpecs

    s = ctl.do("Diagnose", D.diagnose, False, raise_errors=True)
    session = s.doctor.value.context[0]
    assert session.parser_info["tool"].endswith("OwlToolParser") and session.setup.plugins
    command = s.doctor.extra["markdown"].replace(" \\\n  ", " ")  # as a shell reads its continuations
    assert "--plugin workbench_bug.editor_parser.py --tool-parser owl" in command
    assert s.doctor.extra["inputs"]["workbench_bug.editor_parser.py"] == PLUGIN  # what doctor_report writes beside
    s = ctl.do("A/B", tools.compare, ABSpecs("editor", "hermes+qwen3"), raise_errors=True)
    assert s.ab.value.label_a == "editor plugin" and s.ab.value.first_step is not None
    s, written, failures = tools.export(s, ctl.rt, str(tmp_path / "test_owl.py"))
    copy = tmp_path / ctl.rt.stream_session.setup.plugins[0].rsplit("/", 1)[1]
    assert copy.read_text() == PLUGIN and failures  # the test loads the copy and fails on the plugin's bug


def test_before_a_live_stream_the_plugin_is_the_parser_of_the_next_step():
    ctl = Controller(start(Inputs(text=TEXT, tools=WEATHER_TOOLS, source="engine")))
    s = ctl.do("editor", P.reload_plugin, PLUGIN.replace(BROKEN_LINE, BROKEN_LINE[:-1]), raise_errors=True)
    assert s.settings.plugin_text is None and s.editor.problems[0].line == line_of(PLUGIN, BROKEN_LINE)
    s = ctl.do("editor", P.reload_plugin, PLUGIN, raise_errors=True)
    assert not s.stream.started and s.applied.plugin_text == PLUGIN  # nothing to replay: the next Step's parser
    assert s.outcome.message == "the editor's plugin (tool parser owl) is the parser: Step or Run streams through it"
    session = ctl.rt.session_for(s.applied)  # what that Step composes
    assert session.parser_info["tool"].endswith(".OwlToolParser") and session.setup.parser.tool_parser == "owl"
