"""A real model in the widget, in a real page (issue 39): JupyterLab + Debian chromium through
Playwright. SmolLM2 (``model="smollm2"``) samples; its sampling boxes, typed into as a user
would, change the run; a row's detail draws what the model wanted beside what the grammar
allowed; Stop ends a Run. One kernel, one engine start, short runs (a few tokens each).

The detail pane's chart is written to artifacts/ in JupyterLab Light and Dark.
"""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.support.jupyterlab import IDLE, kernel_round_trip, lab_page, open_notebook, run_all, set_theme, write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.engine]

# The strict tool's one allowed city is long, so a Run under `required` lasts about 140 tokens
# (the grammar forces each of them): Stop always lands while it runs, even on a quiet machine.
CITY = "Paris, " + ", ".join(["the city of light on the river Seine"] * 8)
STRICT = f'''TOOLS = [{{"type": "function", "function": {{"name": "get_weather", "strict": True, "parameters": {{
    "type": "object", "properties": {{"city": {{"type": "string", "enum": ["{CITY}"]}}}}, "required": ["city"],
    "additionalProperties": False}}}}}}]'''
TABLE = ".wb-dt:has(canvas.wb-strip)"
# the candidates chart of the detail pane: its columns' titles, its bars, the chosen and the masked
CHART_JS = """(wb) => { const c = wb.querySelector('.wb-row-detail .wb-candidates');
  if (!c) return null;
  return {titles: [...c.querySelectorAll('.wb-cands-col > div:first-child b')].map((b) => b.textContent),
          bars: c.querySelectorAll('.wb-cand').length, chosen: c.querySelectorAll('.wb-cand-chosen').length,
          masked: c.querySelectorAll('.wb-cand-masked').length, width: c.getBoundingClientRect().width}; }"""


ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
# the rows the table has drawn: (step, text) each
ROWS_TEXT_JS = """(t) => [...t.querySelectorAll('.wb-row[data-step]')].map((r) => {
  const c = r.querySelector('.wb-c-text');
  return [Number(r.dataset.step), !c || c.querySelector('.wb-empty') ? '' : c.textContent]; })"""
# the table's scroll put ``step`` in view (the table draws only the rows in view: virtualised)
SCROLL_TO_JS = """(t, step) => { const s = t.querySelector('.wb-scroll'), r = t.querySelector('.wb-row[data-step]');
  s.scrollTop = Math.max(0, (step - 1) * (r ? r.offsetHeight : 22) - s.clientHeight / 2); }"""
DETAIL_AT = """([wb, step]) => { const box = wb.querySelector('.wb-row-detail input');
  return !!box && box.value === step && box.getClientRects().length > 0; }"""


@pytest.fixture
def page(lab):
    ARTIFACTS.mkdir(exist_ok=True)
    with lab_page(lab, ARTIFACTS / "real_model_failure.png") as page:
        yield page


def settle(page, wb) -> None:
    """The kernel has handled every click so far, no Run is going, the kernel is idle."""
    kernel_round_trip(page)
    stop = wb.locator("button.widget-button", has_text="Stop").first.element_handle()
    page.wait_for_function("(b) => b.disabled", arg=stop, timeout=300_000)
    page.wait_for_selector(IDLE, timeout=300_000)
    page.wait_for_timeout(300)


class RealPage:
    def __init__(self, page, wb) -> None:
        self.page, self.wb = page, wb

    def act(self, do) -> None:
        do()
        settle(self.page, self.wb)

    def click(self, name: str) -> None:
        self.act(lambda: self.wb.locator("button.widget-button", has_text=name).first.click())

    def settings(self) -> None:
        """Unfold the settings (the first Step folds them)."""
        picker = self.wb.locator(".widget-toggle-buttons").first
        if not picker.is_visible():
            self.wb.locator(".jupyter-widget-Collapse-header").first.click()
            picker.wait_for()

    def row(self, step: int) -> None:
        """Click a row as a user does: scrolled into the table's view first (the table draws
        only the rows in view, and after a Run it follows the end), then clicked once drawn."""
        table = self.wb.locator(TABLE)
        table.evaluate(SCROLL_TO_JS, step)
        row = table.locator(f".wb-row[data-step='{step}']")
        row.wait_for(state="visible", timeout=60_000)
        self.act(lambda: row.click())
        self.page.wait_for_function(DETAIL_AT, arg=[self.wb.element_handle(), str(step)], timeout=180_000)

    def box(self, name: str, value: str) -> None:
        """Type into a sampling box (or the tool_choice box) as a user does, then leave it."""
        self.settings()
        box = self.wb.locator(".widget-text", has=self.page.locator(f"label:text-is('{name}')")).locator("input")
        self.act(lambda: (box.fill(value), box.blur()))

    def rows(self) -> list:
        return self.page.evaluate(ROWS_TEXT_JS, self.wb.locator(TABLE).element_handle())

    def run(self) -> list:
        self.click("Reset")
        self.click("Run")
        return self.rows()


def test_a_real_model_samples_by_its_controls_shows_its_candidates_and_stops(lab, page):
    cell = ("wb = workbench.show(model='smollm2', tools=TOOLS, tool_parser='hermes', reasoning_parser=None, "
            "temperature=1.5, seed=0, max_tokens=5)")
    write_notebook(lab.root / "real_model.ipynb", ["import workbench\n" + STRICT + "\n" + cell])
    open_notebook(page, lab.base, lab.token, "real_model.ipynb")
    run_all(page, timeout_ms=300_000)
    wb = page.locator(".jp-CodeCell").first.locator(".wb-workbench")
    wb.wait_for(timeout=120_000)
    p = RealPage(page, wb)
    truth = wb.locator(".wb-truth")
    assert "smollm2, free generation, temperature 1.5, max_tokens 5, seed 0" in truth.inner_text()

    first = p.run()
    assert len(first) == 5  # max_tokens 5: five sampled tokens, five rows
    assert p.run() == first  # the same seed: the same rows
    p.box("seed", "1")
    other = p.run()
    assert "seed 1" in truth.inner_text()
    assert len(other) == 5 and other != first  # another seed: other rows
    p.box("temperature", "0")
    greedy = p.run()
    assert greedy != other and p.run() == greedy  # temperature 0: the likeliest token, every time
    p.box("max_tokens", "3")
    assert len(p.run()) == 3

    p.box("max_tokens", "-1")  # a bad value: one line, when it would apply
    p.click("Reset")
    banner = wb.locator(".wb-banner").inner_text().strip()
    assert "request.max_tokens must be an integer >= 1 or null, got -1" in banner and "\n" not in banner

    # required with a strict tool: the grammar decides; Stop ends the Run after its row
    p.box("max_tokens", "200")
    p.box("tool_choice", "required")
    p.click("Reset")
    assert p.rows() == []
    stop = wb.locator("button.widget-button", has_text="Stop").first
    wb.locator("button.widget-button", has_text="Run").first.click()
    page.wait_for_function("(b) => !b.disabled", arg=stop.element_handle(), timeout=120_000)  # running
    page.wait_for_selector(f".wb-workbench {TABLE} .wb-row[data-step='3']", timeout=240_000)
    stop.click()
    settle(page, wb)
    stopped = p.rows()
    assert 3 <= len(stopped) < 100  # the forced call is about 140 tokens
    page.wait_for_timeout(3_000)
    assert p.rows() == stopped, "rows came after Stop"

    p.row(2)
    chart = page.evaluate(CHART_JS, wb.element_handle())
    assert chart is not None, "no candidates chart in the detail"
    assert chart["titles"] == ["the model wanted", "the grammar allowed"]
    assert chart["bars"] >= 2 and chart["masked"] >= 1  # the grammar struck out what the model wanted
    assert chart["chosen"] >= 1  # the chosen token is outlined in the "allowed" column at least
    detail = wb.locator(".wb-row-detail")
    assert not any('"candidates"' in t for t in detail.locator("pre").all_inner_texts())  # not in the raw JSON
    for theme, name in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        set_theme(page, theme)
        wb.locator(".wb-candidates").scroll_into_view_if_needed()
        detail.screenshot(path=str(ARTIFACTS / f"real_model_candidates_{name}.png"))
    set_theme(page, "JupyterLab Light")
