"""The front-end table's Python side, without a kernel: what goes over the comm.

(tests/test_widget.py drives it inside a Workbench; tests/test_browser.py in chromium.)
"""

from __future__ import annotations

import fnmatch
import json
import tomllib
from pathlib import Path

import pytest

from workbench.core.rows import Row
from workbench.ui import table

ROOT = Path(__file__).resolve().parents[1]


def rows(n: int, start: int = 1) -> list[Row]:
    return [Row(i, [100 + i], [f"Ġw{i}"], f" w{i}", "reasoning", "reasoning", {"reasoning": f" w{i}"},
                True, parser_us=12.5) for i in range(start, start + n)]


@pytest.fixture
def sent(monkeypatch):
    out: list[dict] = []
    monkeypatch.setattr(table.DeltaTable, "send", lambda self, content, buffers=None: out.append(
        json.loads(json.dumps(content))))
    return out


def test_the_module_and_css_ship_as_package_data():
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["workbench"]
    shipped = sorted(table.STATIC.glob("table.*"))
    assert [p.suffix for p in shipped] == [".css", ".js"]
    for path in shipped:
        rel = str(path.relative_to(ROOT / "workbench"))
        assert any(fnmatch.fnmatch(rel, pat) for pat in patterns), rel
    t = table.DeltaTable()
    assert "export default" in t._esm and "--jp-layout-color0" in t._css  # inlined, no CDN
    assert "http" not in t._esm


def test_appends_send_only_the_new_rows_and_big_batches_in_chunks(sent):
    t = table.DeltaTable()
    t.append(rows(3))
    t.append(rows(1, start=4))
    assert [(m["kind"], m["start"], [r["step"] for r in m["rows"]]) for m in sent] == \
        [("rows", 0, [1, 2, 3]), ("rows", 3, [4])]
    sent.clear()
    n = table.RESET_CHUNK * 2 + 5
    t.set_rows(rows(n))
    assert [(m["kind"], m.get("start"), len(m["rows"])) for m in sent] == \
        [("reset", None, table.RESET_CHUNK), ("rows", table.RESET_CHUNK, table.RESET_CHUNK),
         ("rows", 2 * table.RESET_CHUNK, 5)]
    assert sum(len(m["rows"]) for m in sent) == n == len(t.records)


def test_record_keeps_none_out_and_marks_changes():
    r = Row(2, [5], ["ĊĊ"], "\n\n", "reasoning", "content", {"reasoning": None, "content": ""}, True)
    rec = table.record(r, changed=True)
    assert rec["content"] == "" and "reasoning" not in rec  # "" is a value, None is left out
    assert rec["changed"] is True and rec["state_change"] is True
    assert rec["tokens"] == ["ĊĊ"]  # no tokenizer: the raw form


def test_columns_grow_for_errors_and_shrink_on_a_new_stream(sent):
    t = table.DeltaTable()
    bad = rows(1)[0]
    bad.error = "ValueError: boom"
    t.append([bad])
    assert t.columns[-1] == "error"
    t.set_rows(rows(2))
    assert t.columns == table.BASE_COLUMNS
