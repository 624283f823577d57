"""The front-end table's Python side, without a kernel: what goes over the comm.

(tests/test_widget.py drives it inside a Workbench; tests/test_browser.py in chromium.)
"""

from __future__ import annotations

import fnmatch
import json
import tomllib
from pathlib import Path

import pytest

from workbench.core import rows as schema
from workbench.core.machine import Phase
from workbench.core.messages import MessageDelta
from workbench.core.rows import Row
from workbench.ui import table

ROOT = Path(__file__).resolve().parents[1]
REASONING, CONTENT = Phase.of("reasoning"), Phase.of("content")


def rows(n: int, start: int = 1) -> list[Row]:
    return [Row(i, [100 + i], [f"Ġw{i}"], f" w{i}", REASONING, REASONING, MessageDelta(reasoning=f" w{i}"),
                True, parser_us=12.5) for i in range(start, start + n)]


@pytest.fixture
def sent(monkeypatch):
    out: list[dict] = []
    monkeypatch.setattr(table.RecordTable, "send", lambda self, content, buffers=None: out.append(
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


def test_the_schema_goes_over_the_comm_and_records_follow_it():
    t = table.DeltaTable()
    shown = [c for c in schema.COLUMNS if c.shown is True]
    assert t.columns == [c.spec() for c in shown]  # the front end keeps no column list of its own
    assert all(set(spec) == {"name", "title", "description", "kind", "width", "grow"} for spec in t.columns)
    r = Row(2, [5], ["ĊĊ"], "\n\n", REASONING, CONTENT, MessageDelta(reasoning=None, content=""), True)
    t.changed = {2}
    rec = t.record(r)
    assert set(rec) - {"_c", "_k", "_sse", "_sc", "_us"} <= {c.name for c in shown}
    assert rec["content"] == "" and "reasoning" not in rec  # "" is a value, None is left out
    assert rec["phase"] == "reasoning→content" and rec["sse"] == "chunk" and rec["_sc"] is True
    assert rec["_c"].split() == ["ph-content", "sc", "changed"] and rec["_k"] == "content"
    assert rec["tokens"] == ["ĊĊ"]  # no tokenizer: the raw form


def test_a_generic_table_of_other_records():
    cols = (schema.Column("step", "n", "the event's number", lambda e: e["n"], schema.NUMBER, grow=0),
            schema.Column("type", "type", "the event type", lambda e: e["type"], schema.LABEL))
    t = table.RecordTable(cols, features=[])
    t.append_records([t.cells({"n": 1, "type": "response.created"})])
    assert t.records == [{"step": 1, "type": "response.created"}] and t.features == []
    assert [c["title"] for c in t.columns] == ["n", "type"]


def test_columns_grow_for_errors_and_shrink_on_a_new_stream(sent):
    t = table.DeltaTable()
    bad = rows(1)[0]
    bad.error = "ValueError: boom"
    t.append([bad])
    assert t.shown()[-1] == "error" and t.records[0]["error"] == "ValueError: boom"
    t.set_rows(rows(2))
    assert t.shown() == [c.name for c in schema.COLUMNS if c.shown is True]
