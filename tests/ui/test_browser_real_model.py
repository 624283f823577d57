"""A real model in the widget, in a real page (issue 39): JupyterLab + Debian chromium through
Playwright. SmolLM2 (``model="smollm2"``) samples; its sampling boxes, typed into as a user
would, change the run; a row's detail draws what the model wanted beside what the grammar
allowed; Stop ends a Run. One kernel, one engine start, short runs (a few tokens each).

The detail pane's chart is written to artifacts/ in JupyterLab Light and Dark.
"""

from __future__ import annotations

import pytest

from tests.support.jupyterlab import lab_page, set_theme
from tests.ui.test_browser_state import ARTIFACTS, ROWS_TEXT_JS, Page, opened, settle

pytestmark = [pytest.mark.browser, pytest.mark.engine]

STRICT = '''TOOLS = [{"type": "function", "function": {"name": "get_weather", "strict": True, "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"],
    "additionalProperties": False}}}]'''
TABLE = ".wb-dt:has(canvas.wb-strip)"
# the candidates chart of the detail pane: its columns' titles, its bars, the chosen and the masked
CHART_JS = """(wb) => { const c = wb.querySelector('.wb-row-detail .wb-candidates');
  if (!c) return null;
  return {titles: [...c.querySelectorAll('.wb-cands-col > div:first-child b')].map((b) => b.textContent),
          bars: c.querySelectorAll('.wb-cand').length, chosen: c.querySelectorAll('.wb-cand-chosen').length,
          masked: c.querySelectorAll('.wb-cand-masked').length, width: c.getBoundingClientRect().width}; }"""


@pytest.fixture
def page(lab):
    ARTIFACTS.mkdir(exist_ok=True)
    with lab_page(lab, ARTIFACTS / "real_model_failure.png") as page:
        yield page


class RealPage(Page):
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
    (wb,) = opened(lab, page, "real_model.ipynb", [STRICT + "\n" + cell])
    p = RealPage(page, wb)
    truth = wb.locator(".wb-truth")
    assert "smollm2, free generation, temperature 1.5, max_tokens 5, seed 0" in truth.inner_text()

    first = p.run()
    assert len(first) == 5  # max_tokens 5: five sampled tokens, five rows
    assert p.run() == first  # the same seed: the same rows
    p.box("seed", "1")
    assert "seed 1" in truth.inner_text()
    other = p.run()
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
    p.box("max_tokens", "60")
    p.box("tool_choice", "required")
    p.click("Reset")
    wb.locator("button.widget-button", has_text="Run").first.click()
    page.wait_for_selector(f".wb-workbench {TABLE} .wb-row[data-step='3']", timeout=240_000)
    wb.locator("button.widget-button", has_text="Stop").first.click()
    settle(page, wb)
    stopped = p.rows()
    assert 3 <= len(stopped) < 60
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
