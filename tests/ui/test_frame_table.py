"""workbench.table(frame): a DataFrame or records in the widget's own table (ui/frame_table.py),
each column drawn by what it holds, every value whole (a flowing table: wrapped, never cut)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import workbench
from workbench.core.rows import LABEL, NUMBER, TEXT
from workbench.errors import WorkbenchError
from workbench.ui import frame_table

VERDICT = '✗ differ: the Python stream holds content "\n\n", the Rust one drops it'


def frame() -> pd.DataFrame:
    return pd.DataFrame([
        {"pair": "hermes + qwen3", "first step": 7, "python": {"content": "\n\n", "tool_calls": []},
         "rust_sse": ['data: {"id": "chatcmpl-1"}\n\n'], "delta": "\n\n", "verdict": VERDICT, "same": False},
        {"pair": "kimi_k2", "first step": np.int64(3), "python": None, "rust_sse": [],
         "delta": " is", "verdict": "✓ equal", "same": True},
    ])


def test_each_column_is_drawn_by_what_it_holds():
    t = workbench.table(frame())
    assert workbench.table is frame_table.table
    spec = {c.name: c for c in t.schema}
    assert [c.title for c in t.schema] == list(frame().columns)
    assert spec["first_step"].kind == NUMBER  # a name as one word: the front end's CSS class
    assert spec["python"].kind == spec["rust_sse"].kind == LABEL and spec["python"].grow > 0  # JSON wraps
    assert spec["delta"].kind == TEXT  # "\n\n", " is": the whitespace is the point
    assert spec["verdict"].kind == LABEL and spec["verdict"].grow > 0  # prose: no ␣, wrapped
    assert spec["pair"].kind == LABEL
    assert t.flow and not t.follow  # every row drawn, as tall as its wrapped values


def test_records_hold_json_and_leave_missing_values_out():
    t = workbench.table(frame())
    first, second = t.records
    assert first["_n"] == 1 and second["_n"] == 2
    assert json.loads(first["python"]) == {"content": "\n\n", "tool_calls": []}
    assert ", " in first["python"]  # JSON with spaces between items: it wraps between them
    assert json.loads(first["rust_sse"]) == ['data: {"id": "chatcmpl-1"}\n\n']
    assert second["first_step"] == 3 and type(second["first_step"]) is int  # numpy's int as JSON's
    assert "python" not in second  # None: blank, not "None"
    assert first["same"] == "False" and first["verdict"] == VERDICT


def test_ctrl_c_copies_the_rows_json_under_the_frames_own_names():
    t = workbench.table(frame())
    lines = [json.loads(line) for line in t.copy_text([2, 1]).splitlines()]
    assert [line["pair"] for line in lines] == ["kimi_k2", "hermes + qwen3"]
    assert lines[1]["first step"] == 7 and lines[1]["python"] == {"content": "\n\n", "tool_calls": []}
    assert lines[0]["python"] is None


def test_an_index_that_names_rows_is_a_column_and_records_work_too():
    t = workbench.table(frame().set_index("pair"))
    assert t.schema[0].title == "pair" and t.records[0]["pair"] == "hermes + qwen3"
    assert [c.title for c in workbench.table(frame()).schema][0] == "pair"  # 0, 1, ...: no index column
    t = workbench.table([{"a": 1}, {"b": [1, 2]}])
    assert [c.name for c in t.schema] == ["a", "b"] and t.records[1]["b"] == "[1, 2]"


@pytest.mark.parametrize("bad", ["text", {"a": 1}, [1, 2], 3])
def test_anything_else_is_refused_in_one_line(bad):
    with pytest.raises(WorkbenchError) as e:
        workbench.table(bad)
    assert "\n" not in str(e.value) and str(e.value).startswith("workbench.table:")
