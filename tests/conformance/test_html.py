"""The matrix page in Debian chromium: it opens offline, its filters narrow the cells, and a
click on a failing cell opens its first divergent step and the replay command."""

from __future__ import annotations

import json

import pytest

from workbench.lanes import versions
from workbench.conformance import cells as cells_mod, html, run as run_mod
from workbench.conformance.cases import load_cases

CASES = ["parsers/cases/hermes/reasoning-then-call.toml", "parsers/cases/hermes/no-call.toml",
         "parsers/cases/gemma4/content-after-call.toml"]


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("matrix-page")
    opt = run_mod.Options(groupings=["whole", "token"], apis=["chat", "responses"], workers=1,
                          recordings=str(folder / "cases"))
    got = run_mod.run(load_cases(CASES), opt)
    path = folder / "page.html"
    path.write_text(html.page(got.cells, title="matrix test"), encoding="utf-8")
    return path, got.cells


def test_the_page_holds_every_cell_and_the_summary(page_file):
    path, cells = page_file
    text = path.read_text()
    data = json.loads(text.split('id="matrix-data">', 1)[1].split("</script>", 1)[0])
    assert [c["name"] for c in data["cells"]] == [cells_mod.name_of(c) for c in cells]
    assert "<script src" not in text and "<link" not in text
    for per in cells_mod.summary(cells).values():
        for counts in per.values():
            for verdict, n in counts.items():
                assert f'title="{verdict}">{n:d}</span>' in text
    assert f"{versions.installed()}/python/chat" in text


def test_filters_and_a_cells_first_divergent_step_in_chromium(page_file):
    from tests.support.jupyterlab import chromium_page, require_chromium

    require_chromium()
    path, cells = page_file
    failing = [c for c in cells if c["verdict"] in cells_mod.FAILING and c.get("first")]
    with chromium_page() as (page, errors):
        page.goto(path.as_uri())
        rows = page.locator("#cells tbody tr")
        assert rows.count() == len(cells)
        page.select_option("#filter-api", "responses")
        assert rows.count() == sum(1 for c in cells if c["api"] == "responses")
        page.select_option("#filter-grouping", "token")
        shown = [c for c in cells if c["api"] == "responses" and c["grouping"] == "token"]
        assert rows.count() == len(shown)
        assert page.locator("#shown").inner_text() == f"{len(shown)} of {len(cells)} cells"
        page.select_option("#filter-api", "")
        page.select_option("#filter-grouping", "")
        assert failing  # a case no version passes ([known] no_version_passes)
        if failing:
            target = failing[0]
            page.select_option("#filter-verdict", target["verdict"])
            assert all(v == target["verdict"] for v in rows.evaluate_all("rs => rs.map(r => r.dataset.verdict)"))
            i = [c for c in cells if c["verdict"] == target["verdict"]].index(target)
            rows.nth(i).click()
            detail = page.locator("#detail")
            assert detail.is_visible()
            step = detail.locator(".first-step")
            assert f"first divergent step {target['first']['step']}" in step.inner_text()
            assert json.dumps(target["first"]["text"]) in step.inner_text()
            assert detail.locator(".replay pre").inner_text() == target["replay"]
        assert not errors
