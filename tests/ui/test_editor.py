"""The CodeMirror config editor's widget model, headless: each problem of the
edited text is marked on the line it is written on; the last good config stays."""

from __future__ import annotations

from tests.support.seed import SEED_TEXT, WEATHER_TOOLS


def _line_of(text: str, needle: str) -> int:
    [n] = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return n


def test_problems_are_marked_on_their_lines():
    from workbench import Workbench

    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, config="parsers/teaching.toml")
    wb.run()
    assert wb.editor.text.problems == []
    good = wb.editor.text.value
    typo = good.replace('"CONTENT",   emit = ["REASONING_END"]', '"CONTNT",   emit = ["REASONING_END"]')
    typo = typo.replace('TOOL_END = "</tool_call>"', 'TOOL_END = 7', 1)
    problems = wb.reload_config(typo)
    marks = sorted(wb.editor.text.problems, key=lambda p: p["line"])
    assert [p["line"] for p in marks] == sorted(p.line for p in problems)
    assert marks[0] == {"line": _line_of(typo, "CONTNT"),
                        "message": "transitions[1].to: " + problems[0].message}
    assert "CONTNT" in marks[0]["message"] and marks[1]["line"] == _line_of(typo, "TOOL_END = 7")
    assert wb.state.settings.config_text is None  # the picked file is still the parser
    wb.reload_config(good.replace("[terminals]", "[terminals"))  # a TOML syntax error
    [mark] = wb.editor.text.problems
    assert mark["line"] == _line_of(good, "[terminals]") and "TOML syntax" in mark["message"]
    assert wb.reload_config(good) == [] and wb.editor.text.problems == []
    assert wb.state.settings.config_text == good


def test_problems_in_an_extended_file_are_not_marked_in_this_text(tmp_path):
    from workbench import Workbench

    base = tmp_path / "base.toml"
    base.write_text('name = "base"\ninitial_state = "NOWHERE"\n')
    wb = Workbench(SEED_TEXT, tools=WEATHER_TOOLS, config="parsers/teaching.toml")
    problems = wb.reload_config(f'extends = "{base}"\nname = "child"\n')
    assert problems and all(p.file == str(base.resolve()) for p in problems)
    assert wb.editor.text.problems == []
    assert "NOWHERE" in wb.editor.problems.value  # still listed beside the editor


def test_the_python_editor_shows_its_language_the_plugin_and_its_one_line_error():
    from tests.support.owl_plugin import BROKEN_LINE, PLUGIN, TEXT

    from workbench import Workbench

    wb = Workbench(TEXT, tools=WEATHER_TOOLS)
    wb.run()
    assert (wb.editor.language.value, wb.editor.text.language) == ("toml", "toml")
    wb.editor.language.value = "python"  # the toolbar's language: the Python start text, nothing runs yet
    assert wb.state.editor.language == "python" and wb.editor.text.language == "python"
    assert "register_module" in wb.editor.text.value and wb.editor.use.description == "editor plugin: off"
    wb.editor.auto.value = False
    wb.editor.text.value = PLUGIN  # as the browser sends an edit; Reload applies it
    assert wb.state.settings.plugin_text is None
    wb.editor.reload_button.click()
    assert wb.state.settings.plugin_text == PLUGIN and wb.editor.use.value is True
    assert wb.editor.use.description == "editor plugin: on" and "OwlToolParser" in wb.editor.active.value
    assert "OwlToolParser" in wb.controls.settings.get_title(0) and "from the Python editor" in wb.controls.truth.value
    error = wb.reload_plugin(PLUGIN.replace(BROKEN_LINE, BROKEN_LINE[:-1]))
    n = _line_of(PLUGIN, BROKEN_LINE)
    assert error == f"line {n}: SyntaxError: expected ':'"
    assert wb.editor.text.problems == [{"line": n, "message": "SyntaxError: expected ':'"}]
    assert "the last good parser stays active" in wb.editor.problems.value and f"line {n}" in wb.controls.status.value
    assert wb.state.settings.plugin_text == PLUGIN and wb.state.final.stream.tool_calls
    wb.editor.language.value = "toml"  # the config's text again; the plugin still runs
    assert wb.editor.text.language == "toml" and wb.editor.use.description == "editor plugin: on"
    assert wb.editor.text.problems == [] and wb.state.settings.plugin_text == PLUGIN
    wb.editor.use.value = False
    assert wb.state.settings.plugin_text is None and not wb.state.final.stream.tool_calls
