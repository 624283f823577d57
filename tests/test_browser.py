"""Real-browser tests: JupyterLab + Debian chromium driven by Playwright, at 1280×900.

- the tour (notebooks/01_tour.ipynb) runs top to bottom; Step on its last workbench
  adds a row, and the token strip and cost chart are drawn;
- two engine workbenches in one notebook, stepped in turn, each show only their
  own tokens; a click on a row (and j, and the token strip) selects it and its
  detail shows beside the table; the table and the detail fit one screen;
- in Light and in Dark the table's text has a computed contrast >= 4.5:1 against
  its background; screenshots of both go to artifacts/;
- the A/B tab draws the same table twice, the differing steps marked on both, a pick on
  one side picks the step on the other; contrast and screenshots in Light and Dark.
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

from tests.jupyterlab import IDLE, VIEWPORT, chromium_page, lab_server, open_notebook, require_chromium, \
    run_all, set_theme, write_notebook

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
TOUR = ROOT / "notebooks" / "01_tour.ipynb"

pytestmark = pytest.mark.browser

TOOLS = '''TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]'''
SCRIPT_A = '<think>Weather is needed.</think><tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
SCRIPT_B = '<think>Rain in Oslo?</think><tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>'
SEPARATE = [
    "import workbench\n" + TOOLS,
    f"a = workbench.show({SCRIPT_A!r}, source='engine', tools=TOOLS)",
    f"b = workbench.show({SCRIPT_B!r}, source='engine', tools=TOOLS)",
]
LOOK = [
    "import workbench\n" + TOOLS,
    f"a = workbench.show({SCRIPT_A!r}, tools=TOOLS)",
    # every kind of row for the contrast test: reasoning, content, tool, no chunk
    "c = workbench.show('<think>a b</think>Hello  there.\\tok', tool_parser=None, run=True)",
]
AB = [
    "import workbench\n" + TOOLS,
    f"ab = workbench.show({SCRIPT_A!r}, tools=TOOLS, run=True)\n"
    "res = ab.compare('hermes+qwen3', '+qwen3')\nab.tabs.selected_index = 4",
]

# The worst contrast of table text (cells, header, legend) against the background it is
# drawn on: backgrounds composited up the tree on a canvas, text colour composited on top.
CONTRAST_JS = """(root) => {
  const cv = document.createElement('canvas'); cv.width = cv.height = 1;
  const ctx = cv.getContext('2d', {willReadFrequently: true});
  const paint = (colours) => { ctx.clearRect(0, 0, 1, 1);
    for (const c of colours) { ctx.fillStyle = '#000000'; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1); }
    return Array.from(ctx.getImageData(0, 0, 1, 1).data); };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const worst = {ratio: 99, text: '', fg: null, bg: null};
  for (const el of root.querySelectorAll('.wb-row .wb-cell, .wb-head .wb-cell, .wb-key, .wb-caption')) {
    if (!el.textContent.trim()) continue;
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const bg = getComputedStyle(n).backgroundColor;
      layers.unshift(bg);
      if (paint([bg])[3] === 255) break;
    }
    const bg = paint(layers);
    const fg = paint([...layers, getComputedStyle(el).color]);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < worst.ratio) Object.assign(worst, {ratio, text: el.textContent.slice(0, 40), fg, bg});
  }
  return worst;
}"""

CELLS_CONTRAST_JS = CONTRAST_JS.replace(".wb-row .wb-cell, .wb-head .wb-cell, .wb-key, .wb-caption", "td, th")


@pytest.fixture
def lab(tmp_path):
    require_chromium()
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(TOUR, root / TOUR.name)
    write_notebook(root / "separate.ipynb", SEPARATE)
    write_notebook(root / "look.ipynb", LOOK)
    write_notebook(root / "ab.ipynb", AB)
    with lab_server(tmp_path, root) as server:
        yield server


@pytest.fixture
def page(lab):
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium_page(VIEWPORT) as (page, errors):
        yield page
        assert errors == [], errors  # the table's module raised in the browser


@contextlib.contextmanager
def failure_screenshot(page):
    try:
        yield
    except BaseException:
        page.screenshot(path=str(ARTIFACTS / "browser_failure.png"), full_page=True)
        raise


def _no_error_outputs(page) -> None:
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert page.locator(".jp-OutputArea-output .ansi-red-fg, .jp-RenderedText[data-mime-type="
                        "'application/vnd.jupyter.error']").count() == 0, errors.all_inner_texts()


def _step(wb, step_no: int) -> None:
    wb.locator("button.widget-button", has_text="Step").first.click()
    wb.locator(f".wb-row[data-step='{step_no}']").wait_for(timeout=180_000)


def _tokens(wb, step_no: int) -> str:
    return wb.locator(f".wb-row[data-step='{step_no}'] .wb-c-tokens").inner_text()


def test_tour_runs_and_step_adds_a_row_and_pictures(lab, page):
    base, token = lab
    with failure_screenshot(page):
        open_notebook(page, base, token, TOUR.name)
        run_all(page, timeout_ms=400_000)
        _no_error_outputs(page)
        last = page.locator(".jp-CodeCell").last
        last.scroll_into_view_if_needed()
        assert last.locator(".wb-row[data-step]").count() == 0
        _step(last, 1)
        _step(last, 2)
        assert "2 deltas" in last.locator(".wb-status").first.inner_text()
        assert _tokens(last, 1) == "<think>"
        assert last.locator("canvas.wb-strip").bounding_box()["height"] >= 10
        assert last.locator("canvas.wb-cost").bounding_box()["height"] >= 10
        first = page.locator(".wb-dt").first  # the tour's first workbench ran to its end
        assert first.locator(".wb-caption").inner_text().startswith("26 rows")
        last.locator(".jp-OutputArea-output").first.screenshot(path=str(ARTIFACTS / "browser_step.png"))


def test_two_engine_workbenches_stay_separate(lab, page):
    base, token = lab
    with failure_screenshot(page):
        open_notebook(page, base, token, "separate.ipynb")
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        a, b = (page.locator(".jp-CodeCell").nth(i) for i in (1, 2))
        a.scroll_into_view_if_needed()
        for wb, n in ((a, 1), (b, 1), (a, 2), (b, 2), (a, 3)):
            _step(wb, n)
        page.wait_for_selector(IDLE)
        assert a.locator(".wb-row[data-step]").count() == 3 and b.locator(".wb-row[data-step]").count() == 2
        # each table holds the start of its own script, token by token (decoded, spaces as ␣)
        for wb, script, n in ((a, SCRIPT_A, 3), (b, SCRIPT_B, 2)):
            shown = "".join(_tokens(wb, i) for i in range(1, n + 1)).replace("␣", " ")
            assert _tokens(wb, 1) == "<think>" and script.startswith(shown) and len(shown) > len("<think>")


def test_click_select_detail_fits_the_screen_and_theme_contrast(lab, page):
    base, token = lab
    with failure_screenshot(page):
        open_notebook(page, base, token, "look.ipynb")
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        a, c = (page.locator(".jp-CodeCell").nth(i) for i in (1, 2))
        a.scroll_into_view_if_needed()
        for n in (1, 2, 3):
            _step(a, n)
        a.locator(".wb-row[data-step='2']").click()
        selected = a.locator(".wb-row[aria-selected='true']")
        detail = a.locator(".wb-row-detail")
        selected.wait_for()
        assert selected.get_attribute("data-step") == "2"
        page.wait_for_function("(el) => el.innerText.includes('SSE chunk')", arg=detail.element_handle())
        assert _tokens(a, 2) in detail.inner_text()
        assert c.locator(".wb-row[aria-selected='true']").count() == 0  # the other one is untouched
        page.keyboard.press("j")
        a.locator(".wb-row[data-step='3'][aria-selected='true']").wait_for()
        page.wait_for_function("(el) => el.innerText.includes('Ġis')", arg=detail.element_handle())
        a.locator("canvas.wb-strip").click(position={"x": 3, "y": 5})  # the first token's cell
        a.locator(".wb-row[data-step='1'][aria-selected='true']").wait_for()
        page.keyboard.press("ArrowDown")  # the keys go on from a picked cell
        a.locator(".wb-row[data-step='2'][aria-selected='true']").wait_for()
        a.locator("canvas.wb-cost").click(position={"x": 1, "y": 30})  # the first delta's bar
        a.locator(".wb-row[data-step='1'][aria-selected='true']").wait_for()

        # one 1280×900 screen holds the table and its detail, side by side
        a.locator(".wb-dt").scroll_into_view_if_needed()
        table, side = a.locator(".wb-scroll").bounding_box(), detail.bounding_box()
        for box in (table, side):
            assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
            assert box["y"] >= 0 and box["y"] + min(box["height"], 300) <= VIEWPORT["height"]
        assert side["x"] >= table["x"] + table["width"] - 1  # beside, not below
        # the whole workbench fits under Lab's menu, tab bar, toolbar and status bar (~120 px)
        whole = a.locator(".jp-OutputArea-output").first.bounding_box()
        assert whole["height"] <= VIEWPORT["height"] - 120, whole

        c.locator(".wb-row[data-step='4']").click()  # the screenshots show a detail too
        page.wait_for_function("(el) => el.innerText.includes('SSE chunk')",
                               arg=c.locator(".wb-row-detail").element_handle())
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            if theme != "JupyterLab Light":
                set_theme(page, theme)
            for wb in (a, c):
                worst = wb.locator(".wb-dt").evaluate(CONTRAST_JS)
                assert worst["ratio"] >= 4.5, (theme, worst)
            c.locator(".wb-dt").evaluate("(el) => el.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(ARTIFACTS / f"theme_{theme.split()[-1].lower()}.png"))


def test_ab_tab_is_two_tables_with_the_differing_steps_marked(lab, page):
    base, token = lab
    with failure_screenshot(page):
        open_notebook(page, base, token, "ab.ipynb")
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        panel = page.locator(".wb-ab").first
        panel.scroll_into_view_if_needed()
        a, b = panel.locator(".wb-dt").nth(0), panel.locator(".wb-dt").nth(1)
        for side in (a, b):  # step 7 is <tool_call>: a call for A (held back), content for B
            side.locator(".wb-row[data-step='7']").wait_for(timeout=60_000)
            assert "changed" in side.locator(".wb-row[data-step='7']").get_attribute("class")
            assert "differs from the other side" in side.locator(".wb-legend").inner_text()
            assert side.locator("canvas.wb-strip").bounding_box()["height"] >= 10
        assert b.locator(".wb-row[data-step='7'] .wb-c-content").inner_text() == "<tool_call>"
        assert a.locator(".wb-row[data-step='7'] .wb-c-content").inner_text() == ""
        assert "changed" not in a.locator(".wb-row[data-step='1']").get_attribute("class")
        a.locator(".wb-row[data-step='9']").click()  # picked on A: picked on B too
        b.locator(".wb-row[data-step='9'][aria-selected='true']").wait_for()
        head = [h.get_attribute("title") for h in a.locator(".wb-head .wb-cell").all()]
        assert all(head) and len(head) >= 9  # the schema's descriptions as tooltips
        for theme in ("JupyterLab Light", "JupyterLab Dark"):
            if theme != "JupyterLab Light":
                set_theme(page, theme)
            for side in (a, b):
                worst = side.evaluate(CONTRAST_JS)
                assert worst["ratio"] >= 4.5, (theme, worst)
            worst = panel.locator("table").first.evaluate(CELLS_CONTRAST_JS)  # the final messages
            assert worst["ratio"] >= 4.5, (theme, worst)
            panel.evaluate("(el) => el.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(ARTIFACTS / f"ab_{theme.split()[-1].lower()}.png"))
