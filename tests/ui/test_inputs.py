"""``Workbench(...)`` / ``workbench.show(...)`` with bad arguments: one line naming the
argument (a WorkbenchError, which a notebook cell shows as that line), never a trait or
TypeError traceback from deep inside the controls."""

from __future__ import annotations

import os

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
    (("hi",), {"messages": []}, "Workbench(...): request.messages must be a non-empty list of message objects, got []"),
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
    assert wb.state.settings.api == "responses" and wb.state.settings.tool_parser is None


def test_a_recording_may_be_a_pathlib_path():
    from pathlib import Path

    from workbench.ui.inputs import check_recording

    rec = Path("parsers/recordings/hermes/seed_weather.jsonl")
    assert check_recording(rec) == str(rec) and check_recording(str(rec)) == str(rec)
    assert check_recording(None) is None


def test_a_notebook_cell_shows_a_workbench_error_as_one_line():
    """IPython prints ``_render_traceback_()`` instead of the traceback (wb.step() from a cell)."""
    assert WorkbenchError("bad --chunking 'k:0'")._render_traceback_() == ["WorkbenchError: bad --chunking 'k:0'"]


def _deep(n: int) -> list:
    top = inner = []
    for _ in range(n):
        inner.append([])
        inner = inner[0]
    return top


def _holding_itself():
    messages = [{"role": "user", "content": "hi"}]
    messages.append(messages)
    return messages


def _dict_holding_itself():
    tool = {"type": "function", "function": {"name": "f"}}
    tool["function"]["parameters"] = tool
    return [tool]


@pytest.mark.parametrize("kwargs, message", [
    ({"messages": _holding_itself()}, "Workbench(messages=...): holds itself (a list inside itself at depth 1)"),
    ({"tools": _dict_holding_itself()}, "Workbench(tools=...): holds itself (a dict inside itself at depth 3)"),
    ({"messages": [{"role": "user", "content": _deep(100_000)}]}, "Workbench(messages=...): nested more than 64 deep"),
    ({"server_request": {"x": {1, 2}}}, "Workbench(server_request=...): holds a set at depth 1, which is not JSON"),
    ({"tools": [{1: "x"}]}, "Workbench(tools=...): a key 1 at depth 1 is not a string"),
])
def test_structured_arguments_are_checked_before_anything_walks_them(kwargs, message):
    """A list that holds itself never returned (and grew past 1.7 GB); a 100,000-deep one was
    a RecursionError: both are one line, at once."""
    import time

    from workbench.ui.widget import Workbench

    t0 = time.perf_counter()
    with pytest.raises(WorkbenchError) as e:
        Workbench("hi", **kwargs)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)
    assert time.perf_counter() - t0 < 5


def test_a_value_with_too_many_entries_is_one_line(monkeypatch):
    from workbench.core import limits
    from workbench.core.door_value import check_value

    monkeypatch.setattr(limits, "MAX_VALUE_ITEMS", 1000)
    check_value([[0] * 499, [0] * 499], "v")  # 2 + 998 entries
    with pytest.raises(WorkbenchError, match="^v: more than 1,000 entries in all$"):
        check_value([[0] * 500, [0] * 499], "v")
    shared = {"a": 1}
    check_value([shared, shared], "v")  # the same object twice is no cycle


@pytest.mark.parametrize("path", [None, 5, "", b"x.jsonl"])
def test_save_recording_of_a_non_path_is_one_line(tmp_path, path):
    from workbench.ui.widget import Workbench

    wb = Workbench("hi", tool_parser="hermes", reasoning_parser="qwen3")
    with pytest.raises(WorkbenchError, match=r"^save_recording\(path\) must be a path \(str\), got "):
        wb.save_recording(path)


def test_show_keeps_the_recordings_own_error_on_screen(monkeypatch, tmp_path):
    """``show(recording=<missing>, run=True)`` replaced the real error with "the script text is empty"."""
    import IPython.display

    from workbench.ui.api import show

    monkeypatch.setattr(IPython.display, "display", lambda *a, **k: None)
    missing = tmp_path / "missing.jsonl"
    wb = show(recording=str(missing), run=True)
    assert wb.banner.kind == "error" and "No such file" in wb.banner.value and "empty" not in wb.banner.value


def test_the_pickers_become_a_run_spec_and_prepare_makes_its_setup():
    """Issue 32: the widget translates its settings into a RunSpec (what the CLI, the corpus
    and the lanes make too); the Setup and a script's deltas are core.prepare's."""
    from workbench.core.run_spec import RunSpec
    from workbench.ui.inputs import Inputs, resolve

    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    i = Inputs(text="hi", tools=tools, tool_choice="get_weather", api="responses", chunking="chars:3",
               config="parsers/qwen3.toml", vllm="0.33.0")
    spec = i.spec()
    assert spec.source == "text" and spec.text == "hi" and RunSpec.from_dict(spec.to_dict()) == spec
    assert spec.request["tool_choice"] == {"type": "function", "function": {"name": "get_weather"}}
    assert (spec.api, spec.chunking, spec.vllm, spec.parser.config) == ("responses", "chars:3", "0.33.0",
                                                                       resolve("parsers/qwen3.toml"))
    setup = i.setup()
    assert setup.request.tools == tools and setup.request.tool_choice == spec.request["tool_choice"]
    assert (setup.api, setup.chunking, setup.parser) == ("responses", "chars:3", spec.parser)
    rec = Inputs(source="recording", recording="parsers/recordings/hermes/seed_weather.jsonl").spec()
    assert rec.source == "recording" and rec.text is None and rec.recording == resolve(
        "parsers/recordings/hermes/seed_weather.jsonl")
    assert Inputs(source="engine", text="hi").spec().source == ""  # the engine makes its deltas as it runs


@pytest.mark.parametrize("box, text", [("messages", "[]"), ("messages", "[1]"), ("tools", "[1]")])
def test_a_box_the_request_would_refuse_stays_a_draft(box, text):
    """A messages or tools box vLLM's request would refuse is a draft with the request's
    own line, not settings that fail at the next Step."""
    from workbench.ui.inputs import Inputs
    from workbench.ui.settings import set_json
    from workbench.ui.state import start

    s = set_json(start(Inputs(text="hi")), box, text)
    assert box in s.drafts and s.drafts[box][1].startswith(f"request.{box} must be")
    assert getattr(s.settings, box) == getattr(Inputs(text="hi"), box)


def test_a_notebooks_relative_config_is_the_notebooks_never_the_repositorys(tmp_path, monkeypatch):
    """Issue 40: ``show(config="./x.toml")`` names the file beside the notebook (the kernel's
    working folder); the repository's file of that name is never read or run in its place, by
    the run or by the editor."""
    from workbench.ui.inputs import REPO, Inputs, resolve
    from workbench.ui.settings import config_text_of

    shipped = REPO / "parsers" / "teaching.toml"
    (tmp_path / "parsers").mkdir()
    mine = shipped.read_text(encoding="utf-8").replace('name = "teaching"', 'name = "mine"')
    (tmp_path / "parsers" / "teaching.toml").write_text(mine, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    here = str(tmp_path / "parsers" / "teaching.toml")
    for given in ("parsers/teaching.toml", "./parsers/teaching.toml"):
        assert os.path.abspath(resolve(given)) == here
        assert os.path.abspath(Inputs(text="hi", config=given).spec().parser.config) == here
        assert config_text_of(given) == mine
    (tmp_path / "parsers" / "teaching.toml").unlink()
    assert os.path.abspath(resolve("./parsers/teaching.toml")) == here  # missing here: never the repo's
    assert resolve("parsers/teaching.toml") == str(shipped)  # a picker's repo-relative path


def test_the_sampling_options_reach_the_request_and_the_run_spec():
    from workbench.core.request import build_request
    from workbench.ui.inputs import Inputs

    i = Inputs(source="engine", temperature=0.7, top_p=0.9, top_k=20, max_tokens=12, seed=5)
    sampling = {"temperature": 0.7, "top_p": 0.9, "top_k": 20, "max_tokens": 12, "seed": 5}
    assert {k: getattr(i.request(), k) for k in sampling} == sampling
    assert {k: i.spec().request[k] for k in sampling} == sampling
    built = build_request(i.setup().request)  # vLLM's own request takes them as given
    assert (built.temperature, built.top_p, built.top_k, built.max_tokens, built.seed) == (0.7, 0.9, 20, 12, 5)
    assert "temperature" not in Inputs(source="engine").spec().request  # unset: the model's defaults


@pytest.mark.parametrize("kwargs, message", [
    ({"temperature": -0.5}, "Workbench(temperature=...) must be a number from 0 to 100 or null, got -0.5"),
    ({"max_tokens": 0}, "Workbench(max_tokens=...) must be an integer >= 1 or null, got 0"),
    ({"top_p": 0}, "Workbench(top_p=...) must be a number in (0, 1] or null, got 0"),
    ({"seed": "x"}, "Workbench(seed=...) must be an integer or null, got 'x'"),
])
def test_a_bad_sampling_option_is_one_line_naming_it(kwargs, message):
    from workbench.ui.widget import Workbench

    with pytest.raises(WorkbenchError) as e:
        Workbench(source="engine", **kwargs)
    assert str(e.value) == message


def test_a_real_model_brings_its_tokenizer_free_generation_and_a_short_max_tokens():
    from workbench.engine import instance
    from workbench.ui import views
    from workbench.ui.inputs import MODEL_MAX_TOKENS
    from workbench.ui.widget import Workbench

    i = Workbench(model="smollm2", seed=3).state.settings
    assert (i.source, i.tokenizer, i.text, i.max_tokens, i.seed) == (
        "engine", instance.model_tokenizer("smollm2", None), "", MODEL_MAX_TOKENS, 3)
    named = Workbench(model="smollm2", tokenizer="qwen3", max_tokens=9).state.settings
    assert (named.tokenizer, named.max_tokens) == ("qwen3", 9)  # what is named wins
    truth = views.pending_html(Workbench(model="smollm2", temperature=0.2, seed=3).state)
    assert "the engine (smollm2, free generation, temperature 0.2, max_tokens 64, seed 3)" in truth


@pytest.mark.parametrize("box, text, value, draft", [
    ("temperature", "0.25", 0.25, None),
    ("seed", " 7 ", 7, None),
    ("max_tokens", "", None, None),
    ("temperature", "hot", None, "temperature: expected a number, got 'hot'"),
    ("max_tokens", "2.5", None, "max_tokens: expected a whole number, got '2.5'"),
    ("max_tokens", "0", None, "request.max_tokens must be an integer >= 1 or null, got 0"),
    ("top_p", "1.5", None, "request.top_p must be a number in (0, 1] or null, got 1.5"),
])
def test_a_sampling_box_is_its_number_or_a_draft_saying_what_is_wrong(box, text, value, draft):
    from workbench.ui import transitions as T
    from workbench.ui.inputs import Inputs
    from workbench.ui.settings import set_setting
    from workbench.ui.state import start

    s = set_setting(start(Inputs(source="engine")), box, text)
    assert getattr(s.settings, box) == value
    if draft is None:
        assert box not in s.drafts
    else:
        assert s.drafts[box] == (text, draft)
        with pytest.raises(WorkbenchError, match=draft.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
            T.ready(s)  # Step, Replay and Reset say it in one line


def test_a_model_typed_in_the_box_brings_its_tokenizer_once_it_names_one():
    from workbench.engine import instance
    from workbench.ui.inputs import Inputs
    from workbench.ui.settings import set_setting
    from workbench.ui.state import start

    s = start(Inputs(source="engine"))
    assert set_setting(s, "model", "smol").settings.tokenizer == "qwen3"  # half typed: nothing yet
    assert set_setting(s, "model", "smollm2").settings.tokenizer == instance.model_tokenizer("smollm2", None)


def test_engine_passes_enginespec_fields_and_names_an_unknown_one():
    from workbench.engine import EngineSpec
    from workbench.ui.engine_adapter import engine_spec
    from workbench.ui.inputs import Inputs

    spec = engine_spec(Inputs(model="smollm2", engine={"tensor_parallel_size": 2, "max_model_len": 1024}))
    assert spec == EngineSpec(model="smollm2", tensor_parallel_size=2, max_model_len=1024)
    with pytest.raises(WorkbenchError, match=r"EngineSpec has no field 'tensor_paralel_size' \(did you mean: "
                                             r"tensor_parallel_size"):
        engine_spec(Inputs(model="smollm2", engine={"tensor_paralel_size": 2}))
