"""The parser editor's Python side in a real browser (JupyterLab + Debian chromium, via
tests/support/jupyterlab.py): pick *Python plugin*, paste a ToolParser into the editor and
the rows change; type a syntax error and the error is one line with its line number, marked
on that line, while the last good parser's rows stay; fix it and it runs again. A plugin a
cell imports appears in the tool parser picker. Screenshots of the editor in Python, Light
and Dark, go to artifacts/ (``WORKBENCH_SHOTS``: another folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.contrast import CONTRAST_JS
from tests.support.jupyterlab import IDLE, lab_page, open_notebook, run_all, set_theme, write_notebook
from tests.support.owl_plugin import BROKEN_LINE, PLUGIN, TEXT, line_of

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("WORKBENCH_SHOTS") or ROOT / "artifacts")
NOTEBOOK = "python_editor.ipynb"

SETUP = f'''import os
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
from workbench import Workbench
TEXT = {TEXT!r}
TOOLS = [{{"type": "function", "function": {{"name": "get_weather", "parameters": {{
    "type": "object", "properties": {{"city": {{"type": "string"}}}}, "required": ["city"]}}}}}}]'''
WIDGET = '''ed = Workbench(TEXT, tools=TOOLS, height=220)
ed.run()
ed.tabs.selected_index = ed.tabs.children.index(ed.editor)
ed'''
KERNEL_PLUGIN = "import owl_kernel_plugin  # registers the tool parser owl_kernel in this kernel"


def test_edit_break_and_fix_a_python_parser_in_the_widget(lab):
    (lab.root / "owl_kernel_plugin.py").write_text(PLUGIN.replace('register_module("owl")',
                                                                  'register_module("owl_kernel")'))
    write_notebook(lab.root / NOTEBOOK, [SETUP, WIDGET, KERNEL_PLUGIN])
    with lab_page(lab, SHOTS / "python_editor_failure.png") as page:
        _drive(page, lab.base, lab.token)


def _drive(page, base: str, token: str) -> None:
    from playwright.sync_api import expect

    open_notebook(page, base, token, NOTEBOOK)
    run_all(page)
    cell = page.locator(".jp-CodeCell").nth(1)
    table, truth = cell.locator(".wb-dt").first, cell.locator(".wb-truth")
    expect(truth).to_contain_text("runs: hermes+qwen3", timeout=120_000)
    calls = table.locator(".wb-row .wb-c-tool_calls")
    assert calls.count() > 10 and calls.filter(has_text="get_weather").count() == 0  # hermes does not read it

    # the cell's import registered owl_kernel: the picker lists it (refreshed after the cell)
    picker = cell.locator(".widget-dropdown", has_text="tool parser").locator("select")
    expect(picker.locator("option", has_text="owl_kernel")).to_have_count(1, timeout=30_000)

    # Python plugin: the editor's language, shown in its toolbar and in CodeMirror's mode
    cell.locator(".wb-editor-language button", has_text="Python plugin").click()
    editor = cell.locator(".wb-code-editor")
    expect(editor).to_have_attribute("data-language", "python", timeout=30_000)
    expect(editor.locator(".cm-line", has_text="register_module")).to_have_count(1)
    expect(cell.locator(".widget-toggle-button", has_text="editor plugin: off")).to_have_count(1)

    # paste a parser: after a pause in typing the stream replays through it; the rows change
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(PLUGIN)
    expect(truth).to_contain_text("OwlToolParser", timeout=60_000)
    expect(truth).to_contain_text("from the Python editor (workbench_live_plugin_")
    expect(calls.filter(has_text="get_weather")).to_have_count(1)
    assert table.locator(".wb-row.changed").count() > 0
    expect(cell).to_contain_text("settings: editor plugin OwlToolParser (workbench_live_plugin_")  # the title
    expect(cell.locator(".widget-toggle-button", has_text="editor plugin: on")).to_have_count(1)
    rows = table.locator(".wb-body").inner_text()

    # break it: a ":" typed away is one line with its line number, marked on its line
    n = line_of(PLUGIN, BROKEN_LINE)
    line = _scroll_to(page, editor, BROKEN_LINE.strip())
    line.click()
    page.keyboard.press("End")
    page.keyboard.press("Backspace")
    page.keyboard.press("Control+Enter")  # sends the text now; Lab must not run the cell
    mark = editor.locator(f".cm-line.wb-problem-line[data-problem-line='{n}']")
    mark.wait_for(timeout=60_000)
    assert "SyntaxError" in (mark.get_attribute("title") or "")
    assert cell.locator(".cm-gutter-lint .cm-lint-marker-error").count() == 1
    banner = cell.locator(".wb-banner.wb-error")
    expect(banner).to_contain_text("1 problem(s); the last good parser stays active")
    expect(banner).to_contain_text(f"line {n}: SyntaxError: expected ':'")
    expect(cell.locator(".wb-status")).to_contain_text(f"plugin: line {n}: SyntaxError")
    page.wait_for_selector(IDLE, timeout=60_000)
    assert table.locator(".wb-body").inner_text() == rows and "OwlToolParser" in truth.inner_text()  # kept
    _shots(page, cell, "broken")

    # fix it: the parser runs again, the error goes
    page.keyboard.type(":")
    page.keyboard.press("Control+Enter")
    expect(cell.locator(".wb-status")).to_contain_text("reloaded the editor's plugin (tool parser owl)",
                                                       timeout=60_000)
    expect(editor.locator(".wb-problem-line")).to_have_count(0)
    expect(banner).to_have_count(0)
    assert table.locator(".wb-body").inner_text() == rows
    _shots(page, cell, "good")
    page.wait_for_selector(IDLE, timeout=60_000)


def _scroll_to(page, editor, needle: str):
    """The editor's line holding ``needle`` (CodeMirror keeps only the lines in view in the DOM)."""
    line = editor.locator(".cm-line", has_text=needle)
    editor.locator(".cm-scroller").evaluate("(s) => { s.scrollTop = 0; }")
    for _ in range(40):
        if line.count():
            break
        editor.locator(".cm-scroller").evaluate("(s) => { s.scrollTop += 120; }")
        page.wait_for_timeout(100)
    line.scroll_into_view_if_needed()
    return line


def _shots(page, cell, what: str) -> None:
    """The editor tab in Python, in Light and Dark, and its text's worst contrast."""
    panel = cell.locator(".wb-code-editor").locator("xpath=../../..")
    for theme in ("JupyterLab Light", "JupyterLab Dark"):
        set_theme(page, theme)
        worst = page.evaluate(CONTRAST_JS, [cell.locator(".wb-code-editor").element_handle()])
        print(f"contrast {what} {theme}: {worst['ratio']:.2f} ({worst['text']!r})")
        assert worst["ratio"] >= 4.5, (what, theme, worst)
        panel.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        panel.screenshot(path=str(SHOTS / f"python_editor_{what}_{theme.split()[-1].lower()}.png"))
    set_theme(page, "JupyterLab Light")
