"""workbench.matrix(...) in a notebook: a DataFrame of the cells back, the summary drawn as one
button per cell in its verdict's colour; a click opens that cell's stream in a Workbench."""

from __future__ import annotations

import pytest

import workbench
from workbench.conformance import html
from workbench.ui import matrix_view as notebook


def test_the_call_returns_the_cells_and_draws_buttons(monkeypatch, tmp_path):
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda w: shown.append(w))
    df = workbench.matrix("parsers/cases/hermes/no-call.toml", chunking="whole,token", workers=1,
                          recordings=str(tmp_path))
    assert list(df["grouping"]) == ["whole", "token"] and set(df["case"]) == {"hermes/no-call"}
    assert list(df.columns) == list(notebook.FRAME_COLUMNS)
    [grid] = shown
    buttons = [b for row in grid.children if hasattr(row, "children") for b in row.children
               if b.__class__.__name__ == "Button"]
    assert [b.description for b in buttons] == list(df["verdict"])
    assert [b.style.button_color for b in buttons] == [html.COLOURS[v] for v in df["verdict"]]
    opened = []
    monkeypatch.setattr("workbench.ui.show", lambda **kw: opened.append(kw))
    buttons[1].click()
    assert opened == [{"recording": str(tmp_path / "hermes" / "no-call.jsonl"), "chunking": "token", "api": "chat"}]


def test_bad_options_are_one_line():
    with pytest.raises(notebook.MatrixError) as e:
        workbench.matrix("parsers/cases/hermes/no-call.toml", fuzz=3)
    assert "unknown option(s) fuzz" in str(e.value)
