"""The front-end table's Python side, without a kernel: what goes over the comm.

(tests/ui/test_widget.py drives it inside a Workbench; tests/ui/test_browser.py in chromium.)
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

ROOT = Path(__file__).resolve().parents[2]
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
    table.DeltaTable()
    module = table.TABLE.module  # the code a table's stub waits for, sent once
    assert "export default" in module.code and "--jp-layout-color0" in module.css  # inlined, no CDN
    assert "http" not in module.code


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
    assert t.columns == [c.spec() for c in table.ROW_COLUMNS]  # the front end keeps no column list of its own
    # the schema's columns, each value drawn whole up to its fit (table.js never cuts less)
    assert [(c.name, c.title, c.value) for c in table.ROW_COLUMNS] == [(c.name, c.title, c.value) for c in schema.COLUMNS]
    assert {c.name: c.fit for c in table.ROW_COLUMNS if c.fit}["tool_calls"] >= 150
    assert all(set(spec) == {"name", "title", "description", "kind", "width", "grow", "shown", "fit", "field"}
               for spec in t.columns)
    assert {c["name"]: c["field"] for c in t.columns if c["field"]} == \
        {"reasoning": "reasoning", "content": "content", "tool_calls": "tool"}  # coloured by field
    r = Row(2, [5], ["ĊĊ"], "\n\n", REASONING, CONTENT, MessageDelta(reasoning=None, content=""), True)
    t.changed = {2}
    rec = t.record(r)
    assert set(rec) - {"_c", "_k", "_sse", "_sc", "_us"} <= {c.name for c in schema.COLUMNS}
    assert rec["content"] == "" and "reasoning" not in rec  # "" is a value, None is left out
    assert rec["phase"] == "reasoning→content" and rec["sse"] == "chunk" and rec["_sc"] is True
    assert rec["_c"].split() == ["k-content", "sc", "changed"] and rec["_k"] == "content"
    assert rec["tokens"] == ["ĊĊ"]  # no tokenizer: the raw form


def test_the_strip_colours_by_the_field_a_row_fills_not_by_the_phase():
    """The seed's "\n\n" row: the parser is in the tool phase, but the text went to content."""
    from workbench.core.machine import Phase as P
    from workbench.core.messages import ToolCallDelta

    tool = P.of("tool")
    blank = Row(7, [271], ["ĊĊ"], "\n\n", REASONING, tool, MessageDelta(content="\n\n"), True)
    call = Row(8, [9], ["x"], "x", tool, tool, MessageDelta(tool_calls=(ToolCallDelta(0, "id", "function", "f"),)), True)
    held = Row(9, [9], ["x"], "x", tool, tool, None, False)
    assert [table.strip_kind(r) for r in (blank, call, held)] == ["content", "tool", "tool"]
    t = table.DeltaTable()
    assert "id=" not in t.record(call)["tool_calls"] and "name=f" in t.record(call)["tool_calls"]


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
    assert "err" in t.records[0]["_c"].split() and t.records[0]["_k"] == "error"
    t.set_rows(rows(2))
    assert t.shown() == [c.name for c in schema.COLUMNS if c.shown is True]


def test_ctrl_c_gets_the_selected_rows_as_json(sent):
    t = table.DeltaTable()
    t.append(rows(3))
    sent.clear()
    t._on_msg(t, {"kind": "copy", "keys": [1, 3]}, [])
    (answer,) = sent
    assert answer["kind"] == "clipboard" and answer["n"] == 2
    assert [json.loads(line)["step"] for line in answer["text"].splitlines()] == [1, 3]
    assert json.loads(answer["text"].splitlines()[0]) == json.loads(json.dumps(t.rows[0].to_dict(), default=str))
    t.selection = [2, 3]
    assert [r.step for r in t.selected_rows()] == [2, 3]


def test_a_page_without_a_kernel_draws_the_same_component():
    """pages/page_table: table.js and table.css inlined (no CDN), the records as the widget's
    table gets them (None left out), the schema's specs; a "</script>" in a value stays
    text (the browser side: tests/corpus/test_corpus.py's report in chromium)."""
    from workbench.pages import page_table

    cols = [schema.Column("name", "name", "a name", lambda d: d["name"], schema.LABEL),
            schema.Column("n", "n", "a number", lambda d: d.get("n"), schema.NUMBER)]
    recs = page_table.records([{"name": "a</script>", "n": 1}, {"name": "b"}], cols, copy=cols[0])
    assert recs == [{"row": 1, "name": "a</script>", "n": 1, "_copy": "a</script>"},
                    {"row": 2, "name": "b", "_copy": "b"}]
    element = page_table.element("t", cols, recs, hint="click")
    assert "</script>" not in element.split('<script type="application/json">', 1)[1][:-len("</script></div>")]
    spec = json.loads(element.split('<script type="application/json">', 1)[1].rsplit("</script>", 1)[0]
                      .replace("<\\/", "</"))
    assert spec["rows"] == recs and spec["model"]["columns"] == [c.spec() for c in cols]
    assets = page_table.assets()
    module = assets.split('<script type="module">', 1)[1]
    assert "export default" not in module and "table.render({ model, el })" in module
    assert "function render({ model, el })" in module and "--jp-layout-color0" in assets
    assert "http" not in assets and "<script src" not in assets


def test_prose_columns_are_labels_so_their_spaces_read_as_spaces():
    """Issue 44: an exception's text in the error column, like the grammar's view and vLLM's log
    lines, is prose: drawn as written (a "text" column shows each space as ␣)."""
    from workbench.ui.ab_apis import API_COLUMNS

    for columns in (table.ROW_COLUMNS, API_COLUMNS):  # the rows' table, an A/B side over two APIs
        kinds = {c.name: c.kind for c in columns}
        assert kinds["error"] == kinds["logs"] == kinds["grammar"] == schema.LABEL
        assert kinds["text"] == kinds["content"] == "text" != schema.LABEL
