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
