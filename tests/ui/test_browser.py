"""Real-browser tests: JupyterLab + Debian chromium driven by Playwright, at 1280×900,
on the run's one JupyterLab server (the ``lab`` fixture of tests/conftest.py).

- the tour (notebooks/01_tour.ipynb) runs top to bottom; Step on its last workbench
  adds a row, and the token strip and cost chart are drawn (make test-slow: make test-e2e runs
  the tour once, in tests/notebooks/test_notebooks.py, and drives each of these paths in the tests below);
- two engine workbenches in one notebook, stepped in turn, each show only their
  own tokens, their own delta count and which parsers run, and draw the strip and chart;
- a click on a row (and j, and the token strip) selects it and its detail shows beside
  the table; the table and the detail fit one screen; a fresh widget with its settings
  open is short; shift-click selects more and Ctrl+C puts their JSON on the clipboard;
  a column resized by its header's edge keeps its width after the page reloads;
- in Light and in Dark, every text of every tab (the table, its detail, the final
  messages with every API, the state machine, check, the config editor, A/B) has a
  computed contrast >= 4.5:1 against what it is drawn on, no header is cut and no word
  breaks inside itself; screenshots of every tab in both themes go to artifacts/;
- the A/B tab draws the same table twice, scrolled together, the differing steps marked
  on both, opened at the first differing step (no step differs: at the top); over two APIs
  each side shows its own events;
- at 1280 px every default column of the main table is in view beside the detail (no
  horizontal scroll).
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest

from tests.support.browser_notebooks import AB, LOOK, SCRIPT_A, SCRIPT_B, SEPARATE
from tests.support.jupyterlab import IDLE, VIEWPORT, lab_page, open_notebook, run_all, set_theme, write_notebook

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
TOUR = ROOT / "notebooks" / "01_tour.ipynb"
THEMES = ("JupyterLab Light", "JupyterLab Dark")

pytestmark = pytest.mark.browser

# The worst contrast of any text in ``root`` against what it is drawn on: backgrounds
# composited up the tree on a canvas, the text colour composited on top. Every element
# with a text of its own counts, once, if it is displayed (SVG text: test_browser_editor).
CONTRAST_JS = """(root) => {
  const cv = document.createElement('canvas'); cv.width = cv.height = 1;
  const ctx = cv.getContext('2d', {willReadFrequently: true});
  const paint = (colours) => { ctx.clearRect(0, 0, 1, 1);
    for (const c of colours) { ctx.fillStyle = '#000000'; ctx.fillStyle = c; ctx.fillRect(0, 0, 1, 1); }
    return Array.from(ctx.getImageData(0, 0, 1, 1).data); };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const worst = {ratio: 99, text: '', fg: null, bg: null, count: 0};
  const seen = new Set();
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el || seen.has(el)) continue;
    seen.add(el);
    if (el.closest('svg, canvas, [hidden], :disabled') || !el.getClientRects().length) continue;
    if (getComputedStyle(el).visibility === 'hidden') continue;
    const layers = [];
    for (let p = el; p; p = p.parentElement) {
      const bg = getComputedStyle(p).backgroundColor;
      layers.unshift(bg);
      if (paint([bg])[3] === 255) break;
    }
    const bg = paint(layers);
    const fg = paint([...layers, getComputedStyle(el).color]);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    worst.count++;
    if (ratio < worst.ratio) Object.assign(worst, {ratio, text: n.data.trim().slice(0, 40), fg, bg});
  }
  return worst;
}"""

# Headers cut short, and words broken across lines ("st/ep", "chat.completion.chun/k"):
# every word of every displayed text in ``root`` must lie on one line.
BREAKS_JS = """(root) => {
  const bad = [];
  for (const h of root.querySelectorAll('.wb-head .wb-cell')) {
    if (h.getClientRects().length && h.scrollWidth > h.clientWidth + 1) bad.push(['cut header', h.textContent]);
  }
  const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('svg, canvas, .cm-editor') || !el.getClientRects().length) continue;
    const re = /\\S+/g;
    for (let m = re.exec(n.data); m; m = re.exec(n.data)) {
      if (m[0].length < 2) continue;
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter((x) => x.width > 1).map((x) => Math.round(x.top)));
      if (tops.size > 1) bad.push(['broken word', m[0].slice(0, 40)]);
    }
  }
  return bad.slice(0, 10);
}"""


# the cells of a column whose text does not fit
CUT_JS = """(el, name) => [...el.querySelectorAll(`.wb-row .wb-c-${name}`)]
  .filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.textContent)"""


# row ``step`` of a table is drawn inside its scroll box (below the header)
IN_VIEW_JS = """([el, step]) => { const s = el.querySelector('.wb-scroll'), r = s.querySelector(`[data-step="${step}"]`);
  if (!r) return false; const a = r.getBoundingClientRect(), b = s.getBoundingClientRect();
  return a.top >= b.top + 20 && a.bottom <= b.bottom + 1; }"""

# a table's rows' cells whose text does not fit (flowing tables wrap theirs) and its tallest row
WRAPPED_JS = """(el) => ({cut: [...el.querySelectorAll('.wb-row .wb-cell')].filter((c) => c.scrollWidth > c.clientWidth + 1
  || c.scrollHeight > c.clientHeight + 1).map((c) => c.textContent.slice(0, 60)),
  tallest: Math.max(...[...el.querySelectorAll('.wb-row')].map((r) => r.getBoundingClientRect().height)),
  scroll: el.querySelector('.wb-scroll').scrollWidth, client: el.querySelector('.wb-scroll').clientWidth})"""

SIDES = ".wb-dt:has(canvas.wb-strip)"  # an A/B side's table (the final answers' has no strip)

# the main table's widths against its box, the detail beside it
OVERFLOW_JS = """(el) => { const s = el.querySelector('.wb-scroll'), d = el.querySelector('.wb-row-detail');
  const heads = [...s.querySelectorAll('.wb-head .wb-cell')];
  return {scroll: s.scrollWidth, client: s.clientWidth, columns: heads.map((h) => h.textContent),
          detail: !!d && d.getBoundingClientRect().width > 250 && d.getBoundingClientRect().left >= s.getBoundingClientRect().right - 1}; }"""


@pytest.fixture
def page(lab):
    ARTIFACTS.mkdir(exist_ok=True)
    with lab_page(lab, clipboard=True) as page:
        yield page


def notebook(lab, name: str, cells: list[str]) -> str:
    write_notebook(lab.root / name, cells)
    return name


@contextlib.contextmanager
def failure_screenshot(page, name: str):
    try:
        yield
    except BaseException:
        page.screenshot(path=str(ARTIFACTS / f"browser_failure_{name}.png"), full_page=True)
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


def look_at_every_tab(page, wb, name: str) -> None:
    """Each tab of a workbench, in each theme: contrast, no cut header or broken word, and
    a screenshot of the screen (the widget's top, then the tab) in artifacts/."""
    tabs = wb.locator(".lm-TabBar-tab")
    for theme in THEMES:
        set_theme(page, theme)
        short = theme.split()[-1].lower()
        for i in range(tabs.count()):
            tabs.nth(i).click()
            page.wait_for_timeout(400)
            title = tabs.nth(i).inner_text().strip().replace(" ", "_").replace("/", "")
            worst = wb.evaluate(CONTRAST_JS)
            with (ARTIFACTS / "contrast.txt").open("a", encoding="utf-8") as out:  # the figures, to read back
                out.write(f"{name} {short} {title}: worst {worst['ratio']:.2f}:1 of {worst['count']} texts "
                          f"({worst['text']!r})\n")
            assert worst["ratio"] >= 4.5 and worst["count"] > 20, (name, theme, title, worst)
            assert wb.evaluate(BREAKS_JS) == [], (name, theme, title)
            tabs.nth(i).evaluate("(el) => el.scrollIntoView({block: 'start'})")
            page.screenshot(path=str(ARTIFACTS / f"{name}_{title}_{short}.png"))
        wb.evaluate("(el) => el.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(ARTIFACTS / f"{name}_top_{short}.png"))
        tabs.nth(0).click()
    set_theme(page, "JupyterLab Light")


@pytest.mark.slow(reason="the tour runs once in make test-e2e (test_notebooks, nbclient: no error, stderr or progress "
                        "bar); its browser paths are the other tests': Step on an engine workbench, its status and "
                        "truth lines (two_engine_workbenches), the strip and cost chart drawn and clicked (select_copy)")
def test_tour_runs_and_step_adds_a_row_and_pictures(lab, page):
    shutil.copy(TOUR, lab.root / TOUR.name)
    with failure_screenshot(page, "tour"):
        open_notebook(page, lab.base, lab.token, TOUR.name)
        run_all(page, timeout_ms=400_000)
        _no_error_outputs(page)
        text = page.locator(".jp-Notebook").inner_text()
        for bar in ("checkpoint shards", "it/s]"):  # no progress bar in a cell
            at = text.find(bar)
            assert at < 0, f"a progress bar in a cell: ...{text[max(0, at - 600):at + 100]}..."
        # the tour's first workbench stops after three rows: the rest is the reader's
        first = page.locator(".jp-CodeCell").filter(has=page.locator(".wb-workbench")).first
        first.scroll_into_view_if_needed()
        assert first.locator(".wb-dt").first.locator(".wb-caption").inner_text().startswith("3 rows")
        _step(first, 4)
        _step(first, 5)
        assert first.locator(".wb-status").first.inner_text().startswith("5 deltas · phase reasoning")  # an engine: no total
        assert "runs: hermes+qwen3" in first.locator(".wb-truth").inner_text()
        assert _tokens(first, 1) == "<think>" and _tokens(first, 5) == "."
        assert first.locator("canvas.wb-strip").bounding_box()["height"] >= 10
        assert first.locator("canvas.wb-cost").bounding_box()["height"] >= 10
        assert page.locator(".jp-RenderedMermaid").count() >= 1  # the pipeline's picture (mermaid)
        first.locator(".jp-OutputArea-output").first.screenshot(path=str(ARTIFACTS / "browser_step.png"))


def test_two_engine_workbenches_stay_separate(lab, page):
    name = notebook(lab, "separate.ipynb", SEPARATE)
    with failure_screenshot(page, "separate"):
        open_notebook(page, lab.base, lab.token, name)
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        a, b = (page.locator(".jp-CodeCell").nth(i) for i in (1, 2))
        a.scroll_into_view_if_needed()
        for wb, n in ((a, 1), (b, 1), (a, 2), (b, 2), (a, 3)):
            _step(wb, n)
        page.wait_for_selector(IDLE)
        assert a.locator(".wb-row[data-step]").count() == 3 and b.locator(".wb-row[data-step]").count() == 2
        assert "3 deltas" in a.locator(".wb-status").first.inner_text()
        assert "2 deltas" in b.locator(".wb-status").first.inner_text()
        assert "runs: hermes+qwen3" in a.locator(".wb-truth").inner_text()
        for chart in ("canvas.wb-strip", "canvas.wb-cost"):  # drawn, on an engine workbench too
            assert a.locator(chart).bounding_box()["height"] >= 10
        # each table holds the start of its own script, token by token (decoded, spaces as ␣)
        for wb, script, n in ((a, SCRIPT_A, 3), (b, SCRIPT_B, 2)):
            shown = "".join(_tokens(wb, i) for i in range(1, n + 1)).replace("␣", " ")
            assert _tokens(wb, 1) == "<think>" and script.startswith(shown) and len(shown) > len("<think>")


def test_select_copy_resize_and_every_tab_readable_in_both_themes(lab, page):
    name = notebook(lab, "look.ipynb", LOOK)
    with failure_screenshot(page, "look"):
        open_notebook(page, lab.base, lab.token, name)
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        a, c, s = (page.locator(".jp-CodeCell").nth(i) for i in (1, 2, 3))
        a.scroll_into_view_if_needed()
        fresh = a.locator(".jp-OutputArea-output").first.bounding_box()
        assert fresh["height"] <= 700, fresh  # a fresh widget, its settings open
        for n in (1, 2, 3):
            _step(a, n)
        a.locator(".wb-dt").first.locator(".wb-row[data-step='2']").click()
        selected = a.locator(".wb-dt").first.locator(".wb-row[aria-selected='true']")
        detail = a.locator(".wb-row-detail")
        selected.wait_for()
        assert selected.get_attribute("data-step") == "2"
        page.wait_for_function("(el) => el.innerText.includes('SSE chunk')", arg=detail.element_handle())
        assert _tokens(a, 2) in detail.inner_text()
        assert c.locator(".wb-row[aria-selected='true']").count() == 0  # the other one is untouched
        page.keyboard.press("j")
        a.locator(".wb-row[data-step='3'][aria-selected='true']").wait_for()
        page.wait_for_function("(el) => el.innerText.includes('Ġis')", arg=detail.element_handle())
        # the detail's tokens are the table component: id, the decoded text, the byte-level token
        tokens = detail.locator(".wb-dt").first
        assert [h.inner_text() for h in tokens.locator(".wb-head .wb-cell").all()] == ["id", "text", "byte-level token"]
        assert tokens.locator(".wb-row .wb-c-token").first.inner_text() == "Ġis"
        assert tokens.locator(".wb-row .wb-c-text").first.inner_text() == "␣is"
        a.locator("canvas.wb-strip").click(position={"x": 3, "y": 5})  # the first token's cell
        a.locator(".wb-row[data-step='1'].wb-focus").wait_for()
        page.keyboard.press("ArrowDown")  # the keys go on from a picked cell
        a.locator(".wb-row[data-step='2'].wb-focus").wait_for()
        a.locator("canvas.wb-cost").click(position={"x": 1, "y": 30})  # the first delta's bar
        a.locator(".wb-row[data-step='1'].wb-focus").wait_for()

        # shift-click: a range; Ctrl+C: its rows' JSON, as --json writes them
        a.locator(".wb-row[data-step='3']").click(modifiers=["Shift"])
        assert a.locator(".wb-row[aria-selected='true']").count() == 3
        page.keyboard.press("Control+c")
        page.wait_for_function("(el) => el.innerText.includes('copied 3 rows')",
                               arg=a.locator(".wb-caption").first.element_handle(), timeout=30_000)
        copied = page.evaluate("navigator.clipboard.readText()")
        assert [json.loads(line)["step"] for line in copied.splitlines()] == [1, 2, 3]

        # one 1280×900 screen holds the table and its detail, side by side
        a.locator(".wb-dt").first.scroll_into_view_if_needed()  # the rows' table (the final tab has one too)
        table, side = a.locator(".wb-scroll").first.bounding_box(), detail.bounding_box()
        for box in (table, side):
            assert box["x"] >= 0 and box["x"] + box["width"] <= VIEWPORT["width"]
            assert box["y"] >= 0 and box["y"] + min(box["height"], 300) <= VIEWPORT["height"]
        assert side["x"] >= table["x"] + table["width"] - 1  # beside, not below
        # every default column in view beside the detail: no horizontal scroll, in any of them
        for wb in (a, c, s):
            wide = wb.evaluate(OVERFLOW_JS)
            assert wide["scroll"] <= wide["client"] + 1 and wide["detail"], wide
        # Harmony's columns cannot fit beside the detail (the phase, uncut, is 330 px): the
        # detail goes below the table, which keeps every column in view
        h = page.locator(".jp-CodeCell").nth(4)
        h.locator(".wb-row[data-step='12']").wait_for(timeout=60_000)
        wide = h.evaluate(OVERFLOW_JS)
        assert wide["scroll"] <= wide["client"] + 1 and len(wide["columns"]) == 9, wide
        assert h.evaluate(CUT_JS, "phase") == []
        heads = {h.inner_text(): h.bounding_box()["width"]
                 for h in a.locator(".wb-dt").first.locator(".wb-head .wb-cell").all()}
        # three rows, no call yet: tool_calls gives its width to the others; the phase fits its longest
        assert heads["tool_calls"] < 100 and heads["text"] > heads["tool_calls"]
        assert a.evaluate(CUT_JS, "phase") == [] and c.evaluate(CUT_JS, "phase") == []

        # a column resized by its header's edge keeps its width, also after a reload
        grip = a.locator(".wb-dt").first.locator(".wb-head .wb-c-text .wb-grip")
        box = grip.bounding_box()
        page.mouse.move(box["x"] + 4, box["y"] + 8)
        page.mouse.down()
        page.mouse.move(box["x"] + 84, box["y"] + 8, steps=4)
        page.mouse.up()
        wide = a.locator(".wb-dt").first.locator(".wb-head .wb-c-text").bounding_box()["width"]
        assert wide >= heads["text"] + 60
        # saved, so the reloaded page draws the kernel's live widgets again from their outputs
        page.evaluate("window.jupyterapp.commands.execute('docmanager:save')")
        page.wait_for_function("!document.querySelector('.lm-TabBar-tab.jp-mod-dirty')", timeout=30_000)
        page.reload()
        # the rows' table's own header (the detail's tokens table has a text column too; the
        # page draws its outputs in any order)
        again = page.locator(".jp-CodeCell").nth(1).locator(".wb-dt:has(canvas.wb-strip) .wb-head .wb-c-text")
        again.wait_for(timeout=120_000)
        # evaluate, not bounding_box: a reloaded output may be drawn again right after it
        # appears, and bounding_box of the element it replaced is None
        again = again.evaluate("e => e.getBoundingClientRect().width")
        assert abs(again - wide) <= 2

        a, c, s = (page.locator(".jp-CodeCell").nth(i) for i in (1, 2, 3))
        s.scroll_into_view_if_needed()
        assert "text_delta" in s.locator(".wb-row-detail").inner_text()  # the row's events on its API
        final = s.locator(".wb-workbench").locator(".wb-apis")
        assert "only whitespace" in final.inner_text() and "tool_use" in final.inner_text()
        s.locator(".lm-TabBar-tab", has_text="final").first.click()
        # the field-by-field table: JSON values in their own cells, the differing field marked
        fields = s.locator(".wb-fields")
        content = fields.locator(".wb-row", has=page.locator(".wb-c-field", has_text="content"))
        assert "changed" in content.get_attribute("class")
        assert content.locator(".wb-c-stream").inner_text() == '"\\n\\n"'
        assert content.locator(".wb-c-nonstream").inner_text() == "null"
        assert content.locator(".wb-c-verdict").inner_text() == "≈ whitespace only (cosmetic)"  # as check says
        reasoning = fields.locator(".wb-row", has=page.locator(".wb-c-field", has_text="reasoning"))
        assert "changed" not in reasoning.get_attribute("class") and "✓ equal" in reasoning.inner_text()
        # every value readable at 1280 px: "as the API has it" (and every cell) wraps, nothing cut
        for table in (fields, final):
            got = table.evaluate(WRAPPED_JS)
            assert got["cut"] == [] and got["scroll"] <= got["client"] + 1, got
        assert final.evaluate(WRAPPED_JS)["tallest"] > 30  # a block list wraps onto lines of its own
        look_at_every_tab(page, c.locator(".wb-workbench"), "browser_rows")
        look_at_every_tab(page, s.locator(".wb-workbench"), "browser_seed_messages")


def test_ab_tab_is_two_tables_scrolled_together_with_the_differing_steps_marked(lab, page):
    name = notebook(lab, "ab.ipynb", AB)
    with failure_screenshot(page, "ab"):
        open_notebook(page, lab.base, lab.token, name)
        run_all(page, timeout_ms=300_000)
        _no_error_outputs(page)
        panel = page.locator(".wb-ab").first
        panel.scroll_into_view_if_needed()
        a, b = panel.locator(SIDES).nth(0), panel.locator(SIDES).nth(1)
        for side in (a, b):  # step 7 is <tool_call>: a call for A (held back), content for B
            side.locator(".wb-row[data-step='7']").wait_for(timeout=60_000)
            # both open scrolled to the first differing step (picked), not to their end
            page.wait_for_function(IN_VIEW_JS, arg=[side.element_handle(), 7], timeout=30_000)
            assert "changed" in side.locator(".wb-row[data-step='7']").get_attribute("class")
            assert "differs from the other side" in side.locator(".wb-legend").inner_text()
            assert side.locator("canvas.wb-strip").bounding_box()["height"] >= 10
        assert b.locator(".wb-row[data-step='7'] .wb-c-content").inner_text() == "<tool_call>"
        assert a.locator(".wb-row[data-step='7'] .wb-c-content").inner_text() == ""
        assert "changed" not in a.locator(".wb-row[data-step='1']").get_attribute("class")
        a.locator(".wb-row[data-step='9']").click()  # picked on A: picked on B too
        b.locator(".wb-row[data-step='9'][aria-selected='true']").wait_for()
        head = [h.get_attribute("title") for h in a.locator(".wb-head .wb-cell").all()]
        assert all(head) and len(head) >= 8  # the schema's descriptions as tooltips
        # half the width each, yet every default column in view (SSE and finish too): no
        # horizontal scroll; the tokens are the strip's (columns ▾ shows them again)
        for side in (a, b):
            names = [h.inner_text() for h in side.locator(".wb-head .wb-cell").all()]
            assert names[-2:] == ["SSE", "finish"] and "tokens" not in names, names
            wide = side.evaluate(WRAPPED_JS)
            assert wide["scroll"] <= wide["client"] + 1, wide
        a.locator(".wb-colbtn").click()
        a.locator(".wb-colmenu input[data-col='tokens']").check()
        a.locator(".wb-head .wb-c-tokens").wait_for()
        a.locator(".wb-colbtn").click()
        # the final answers: the table component, each field of each answer, the differing marked
        final = panel.locator(".wb-ab-final")
        assert [h.inner_text() for h in final.locator(".wb-head .wb-cell").all()] == [
            "answer", "field", "A: hermes+qwen3", "B: +qwen3", "verdict"]
        finish = final.locator(".wb-row", has=page.locator(".wb-c-field", has_text="finish_reason")).first
        assert "changed" in finish.get_attribute("class") and finish.locator(".wb-c-b").inner_text() == '"stop"'
        calls = final.locator(".wb-row", has=page.locator(".wb-c-field", has_text="tool_calls")).first
        assert calls.locator(".wb-c-b").inner_text() == "[]"
        same = final.locator(".wb-row", has=page.locator(".wb-c-field", has_text="reasoning")).first
        assert "changed" not in same.get_attribute("class")
        assert final.evaluate(WRAPPED_JS)["cut"] == []
        a.locator(".wb-scroll").evaluate("(s) => { s.scrollTop = 120; }")  # scrolled together
        page.wait_for_function("(s) => Math.abs(s.scrollTop - 120) < 2", arg=b.locator(".wb-scroll").element_handle())

        apis = page.locator(".wb-ab").nth(1)  # chat vs messages: each side its own events
        apis.scroll_into_view_if_needed()
        right = apis.locator(SIDES).nth(1)
        right.locator(".wb-row[data-step='7']").wait_for(timeout=60_000)
        assert "A and B agree" in apis.inner_text()
        for side in apis.locator(SIDES).all():  # no step differs: both open at their top
            page.wait_for_function(IN_VIEW_JS, arg=[side.element_handle(), 1], timeout=30_000)
            assert side.locator(".wb-scroll").evaluate("(s) => s.scrollTop") == 0
            assert side.locator(".wb-row[aria-selected='true']").count() == 0
        assert "text_delta" in right.locator(".wb-row[data-step='7'] .wb-c-events").inner_text()
        look_at_every_tab(page, page.locator(".jp-CodeCell").nth(1).locator(".wb-workbench"), "browser_ab")
        look_at_every_tab(page, page.locator(".jp-CodeCell").nth(2).locator(".wb-workbench"), "browser_ab_apis")
