"""bench/results/<bench>.jsonl (every recorded run of a benchmark, one JSON object a line,
oldest first) and docs/benchmarks.md, whose table docs/gen_bench.py writes from their last lines."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("docs_gen_bench", ROOT / "docs" / "gen_bench.py")
gen_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_bench)

HISTORIES = sorted((ROOT / "bench" / "results").glob("*.jsonl"))


def test_the_benchmarks_page_is_current():
    current = gen_bench.PAGE.read_text(encoding="utf-8")
    assert gen_bench.page(current) == current, "docs/benchmarks.md is stale: run .venv/bin/python docs/gen_bench.py"


def test_there_is_a_history():
    assert len(HISTORIES) >= 17


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.stem)
def test_each_run_is_one_json_line_of_a_known_shape(path):
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines and all(lines)
    for n, line in enumerate(lines, 1):
        run = json.loads(line)
        assert isinstance(run, dict), f"{path.name}:{n}"
        assert run["date"] is None or (isinstance(run["date"], str) and len(run["date"]) == 10), f"{path.name}:{n}"
        assert run["conditions"] in ("quiet", "loaded"), f"{path.name}:{n}"
        assert isinstance(run["figures"], dict) and run["figures"], f"{path.name}:{n}"
    script = (json.loads(lines[-1]).get("command") or f"bench/{path.stem}.py").split()[0]
    assert (ROOT / script).is_file(), f"{path.name} names no benchmark script ({script})"


def test_the_table_shows_each_benchmarks_last_run(tmp_path, monkeypatch):
    results = tmp_path / "results"
    results.mkdir()
    runs = [{"date": "2026-01-01", "conditions": "quiet", "load": "0.5", "figures": {"ratio": 1.5}},
            {"date": "2026-02-01", "conditions": "loaded", "load": "7", "figures": {"ratio": 1.25}}]
    (results / "x.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    monkeypatch.setattr(gen_bench, "RESULTS", results)
    table = gen_bench.table()
    assert "2026-02-01, loaded, load 7" in table and "ratio 1.25" in table
    assert "1.5" not in table and "| 2 (" in table


HOSTILE = ['<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '[x](javascript:alert(1))', '&lt;b&gt;',
           '<a href="http://evil">x</a>', 'a | b', '`<b>`', '\\<i>']


def test_html_in_a_result_stays_text_on_the_site(tmp_path, monkeypatch):
    """The site renders with Python-Markdown (raw HTML passes, ``\\<`` is no escape); a
    CommonMark viewer shows the same page: neither makes a tag or a link of a value."""
    import markdown
    from markdown_it import MarkdownIt

    results = tmp_path / "results"
    results.mkdir()
    for n, bad in enumerate(HOSTILE):
        run = {"date": "2026-01-01", "conditions": bad, "load": bad, "session": bad, "figures": {bad: bad},
               "goal": bad, "note": bad, "command": f"bench/x.py {bad}"}
        (results / f"x{n}.jsonl").write_text(json.dumps(run) + "\n", encoding="utf-8")
    monkeypatch.setattr(gen_bench, "RESULTS", results)
    table = gen_bench.table()
    for html in (markdown.markdown(table, extensions=["tables", "attr_list"]),
                 MarkdownIt("commonmark").enable("table").render(table)):
        assert "<img" not in html and "<script" not in html and "<a " not in html and "<b>" not in html, html
        assert "<i>" not in html and html.count("<tr>") == len(HOSTILE) + 1, html
        assert "onerror=alert(1)" in html  # shown, as text
