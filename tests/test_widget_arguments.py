"""``Workbench(...)`` / ``workbench.show(...)`` with bad arguments: one line naming the
argument (a WorkbenchError, which a notebook cell shows as that line), never a trait or
TypeError traceback from deep inside the controls."""

from __future__ import annotations

import pytest

from workbench.errors import WorkbenchError


@pytest.mark.parametrize("args, kwargs, message", [
    ((5,), {}, "Workbench(text=...) must be str, got int"),
    (("hi",), {"tokenizer": 5}, "Workbench(tokenizer=...) must be str, got int"),
    (("hi",), {"tool_parser": ["hermes"]}, "Workbench(tool_parser=...) must be str | None, got list"),
    (("hi",), {"messages": "hi"}, "Workbench(messages=...) must be list[dict], got str"),
    (("hi",), {"source": "bogus"}, "Workbench(source='bogus'): give one of text, recording, engine, server"),
    (("hi",), {"api": "grpc"}, "Workbench(api='grpc'): give one of chat, responses, messages"),
    (("hi",), {"height": "x"}, "Workbench(height='x') must be a whole number of pixels from 100 to 5000"),
    (("hi",), {"height": None}, "Workbench(height=None) must be a whole number of pixels from 100 to 5000"),
    (("hi",), {"height": 2.5}, "Workbench(height=2.5) must be a whole number of pixels from 100 to 5000"),
    (("hi",), {"height": -5}, "Workbench(height=-5) must be a whole number of pixels from 100 to 5000"),
    (("hi",), {"recording": 5}, "Workbench(recording=...) must be a path (str), got int"),
    (("hi",), {"prompt_token_ids": ["a"]}, "Workbench(prompt_token_ids=...): entry 0 must be a token id (an int >= 0), got 'a'"),
    (("hi",), {"prompt_token_ids": [1, -1]}, "Workbench(prompt_token_ids=...): entry 1 must be a token id (an int >= 0), got -1"),
    (("hi",), {"messages": [{"role": "user", "content": "x"}, 5]}, "Workbench(messages=...): entry 1 must be an object, got 5"),
    (("hi",), {"tools": ["x"]}, "Workbench(tools=...): entry 0 must be an object, got 'x'"),
    (("caf\udce9",), {}, "Workbench(text=...): holds a lone surrogate at character 4 ('\\udce9'), not text"),
    (("hi",), {"messages": [{"role": "user", "content": "\ud800"}]},
     "Workbench(messages=...): holds a lone surrogate at character 1 ('\\ud800'), not text"),
    (("hi",), {"tool_parsr": "hermes"}, "Workbench() has no option 'tool_parsr' (did you mean: tool_parser, tools, reasoning_parser?)"),
])
def test_bad_arguments_are_one_line(args, kwargs, message):
    from workbench.ui.widget import Workbench

    with pytest.raises(WorkbenchError) as e:
        Workbench(*args, **kwargs)
    assert str(e.value) == message


def test_good_arguments_still_build():
    from workbench.ui.widget import Workbench

    wb = Workbench("hi", tool_parser=None, tools=None, source="text", api="responses")
    assert wb.model.inputs.api == "responses" and wb.model.inputs.tool_parser is None


def test_a_recording_may_be_a_pathlib_path():
    from pathlib import Path

    from workbench.ui.inputs import check_recording

    rec = Path("parsers/recordings/hermes/seed_weather.jsonl")
    assert check_recording(rec) == str(rec) and check_recording(str(rec)) == str(rec)
    assert check_recording(None) is None


def test_a_notebook_cell_shows_a_workbench_error_as_one_line():
    """IPython prints ``_render_traceback_()`` instead of the traceback (wb.step() from a cell)."""
    assert WorkbenchError("bad --chunking 'k:0'")._render_traceback_() == ["WorkbenchError: bad --chunking 'k:0'"]
