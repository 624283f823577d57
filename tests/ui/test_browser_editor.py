"""The config editor and the state diagram in a real browser (JupyterLab + Debian
chromium, via tests/support/jupyterlab.py): the editor shows line numbers
and marks the line a typed typo breaks; the diagram lights the state the kernel's
engine reports as Step is clicked. Screenshots of Light and Dark go to artifacts/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.contrast import CONTRAST_JS
from tests.support.jupyterlab import IDLE, lab_page, open_notebook, set_theme, write_notebook

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
NOTEBOOK = "editor_diagram.ipynb"
TEACHING = ROOT / "parsers" / "teaching.toml"

SETUP = '''import json, os
os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
from workbench import Workbench
TEXT = ('<think>Weather is needed.</think>Sure.<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>')
TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]'''
DIAGRAM = '''wb = Workbench(TEXT, tools=TOOLS, config="parsers/teaching.toml").load()
wb.tabs.selected_index = wb.tabs.children.index(wb.diagram)
rt = wb._ctl.rt
reference = rt.session.replay(rt.deltas(wb.state.settings, rt.session)).rows  # the same stream, no widget
print("REF " + json.dumps([r.states["engine"] for r in reference]))
wb'''
EDITOR = '''ed = Workbench(TEXT, tools=TOOLS, config="parsers/teaching.toml")
ed.tabs.selected_index = ed.tabs.children.index(ed.editor)
ed'''
QWEN3 = '''qw = Workbench(TEXT, tools=TOOLS, config="parsers/qwen3.toml").load()
qw.tabs.selected_index = qw.tabs.children.index(qw.diagram)
print("QWEN3", len(qw.diagram.machines[0]["edges"]))
qw'''

def test_editor_marks_problem_lines_and_diagram_lights_the_state(lab):
    """On the run's one JupyterLab server (tests/conftest.py's ``lab``)."""
    write_notebook(lab.root / NOTEBOOK, [SETUP, DIAGRAM, EDITOR, QWEN3])
    with lab_page(lab, ARTIFACTS / "editor_diagram_failure.png") as page:
        _drive(page, lab.base, lab.token)


def _run_all(page, base: str, token: str) -> None:
    open_notebook(page, base, token, NOTEBOOK)
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
    page.locator(".jp-CodeCell").nth(3).locator(".wb-state-diagram .wb-sd-node").first.wait_for(
        state="attached", timeout=300_000)
    page.wait_for_selector(IDLE, timeout=120_000)


def _drive(page, base: str, token: str) -> None:
    from playwright.sync_api import expect

    _run_all(page, base, token)
    cells = page.locator(".jp-CodeCell")
    diagram_cell, editor_cell = cells.nth(1), cells.nth(2)
    ref = json.loads(re.search(r"REF (\[.*\])", diagram_cell.inner_text()).group(1))
    assert {"REASONING", "CONTENT", "TOOL_ARGS"} <= set(ref)

    # the diagram: drawn from the config, the kernel's state lit after each Step
    diagram = diagram_cell.locator(".wb-state-diagram")
    diagram.locator(".wb-sd-node[data-state='TOOL_ARGS']").wait_for(timeout=60_000)
    assert diagram.locator(".wb-sd-node").count() == 3 and diagram.locator(".wb-sd-edge").count() == 5
    assert diagram.locator(".wb-sd-node[data-lit='true']").count() == 0
    step = diagram_cell.locator("button.widget-button", has_text="Step").first
    upto = ref.index("TOOL_ARGS") + 1  # up to the <tool_call> delta: CONTENT -> TOOL_ARGS
    for n, state in enumerate(ref[:upto], 1):
        step.click()
        expect(diagram.locator(".wb-sd-now")).to_have_text(f"now: {state} (after step {n})", timeout=60_000)
        assert diagram.locator(".wb-sd-node[data-lit='true']").count() == 1
        assert diagram.locator(f".wb-sd-node.wb-sd-lit[data-state='{state}']").count() == 1
    taken = diagram.locator(".wb-sd-edge.wb-sd-lit")
    assert taken.count() == 1 and (taken.get_attribute("data-from"), taken.get_attribute("data-to")) == (
        ref[upto - 2], "TOOL_ARGS")
    assert diagram.locator(f".wb-sd-node.wb-sd-before[data-state='{ref[upto - 2]}']").count() == 1

    # the editor: line numbers; a typo typed into the text is marked on its line
    editor = editor_cell.locator(".wb-code-editor")
    assert editor.locator(".cm-lineNumbers .cm-gutterElement").count() > 20
    needle = 'on = "THINK_END"'
    number = next(i for i, text in enumerate(TEACHING.read_text().splitlines(), 1) if needle in text)
    line = editor.locator(".cm-line", has_text=needle)
    editor.scroll_into_view_if_needed()
    assert editor.bounding_box()["height"] < 600  # a scrolling editor, not the whole file
    for _ in range(40):  # scroll down to it: CodeMirror keeps only the lines in view in the DOM
        if line.count():
            break
        editor.locator(".cm-scroller").evaluate("(s) => { s.scrollTop += 120; }")
        page.wait_for_timeout(100)
    line.scroll_into_view_if_needed()
    line.click(position={"x": 2, "y": 4})  # the start of the line
    prompt = editor_cell.locator(".jp-InputArea-prompt").inner_text()
    page.keyboard.type("oops ")
    page.keyboard.press("Control+Enter")  # sends the text now; Lab must not re-run the cell
    mark = editor.locator(f".cm-line.wb-problem-line[data-problem-line='{number}']")
    mark.wait_for(timeout=60_000)
    assert editor.locator(".wb-problem-line").count() == 1
    assert "TOML syntax" in (mark.get_attribute("title") or "")
    assert editor_cell.locator(".cm-gutter-lint .cm-lint-marker-error").count() == 1
    assert "last good config stays active" in editor_cell.inner_text()
    page.wait_for_selector(IDLE, timeout=60_000)
    assert editor_cell.locator(".jp-InputArea-prompt").inner_text() == prompt
    assert editor.locator(".cm-line", has_text="oops").count() == 1
    _shots(page, diagram_cell, editor_cell, "light")
    set_theme(page, "JupyterLab Dark")
    _shots(page, diagram_cell, editor_cell, "dark")
    qwen3 = cells.nth(3).locator(".wb-state-diagram")
    assert qwen3.locator(".wb-sd-edge").count() == 1 + int(re.search(r"QWEN3 (\d+)", cells.nth(3).inner_text()).group(1))
    qwen3.scroll_into_view_if_needed()
    qwen3.screenshot(path=str(ARTIFACTS / "diagram_qwen3_dark.png"))


def _shots(page, diagram_cell, editor_cell, theme: str) -> None:
    roots = [diagram_cell.locator(".wb-state-diagram").element_handle(),
             editor_cell.locator(".wb-code-editor").element_handle()]
    worst = page.evaluate(CONTRAST_JS, roots)
    assert worst["ratio"] >= 4.5, (theme, worst)
    print(f"contrast {theme}: {worst['ratio']:.2f} ({worst['text']!r})")
    # the tab panels: the diagram, and the editor with its problems banner beside it
    for name, part in (("diagram", diagram_cell.locator(".wb-state-diagram")),
                       ("editor", editor_cell.locator(".wb-code-editor").locator("xpath=../.."))):
        part.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        part.screenshot(path=str(ARTIFACTS / f"{name}_{theme}.png"))
