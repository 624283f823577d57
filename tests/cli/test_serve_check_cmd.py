"""`workbench serve-check` (issue 40, item 7): the author's parser in vLLM's real OpenAI server,
forced to the case's text, against the workbench's rows.

The acceptance case (make test): a TOML config with its converter module beside it, run from a
folder that is not the project's with relative paths only, is exported as a plugin, served, and
reports "same chunks"; the server's stream is checked against a direct parse by vLLM too. Behind
``slow``: the shipped example plugin reports "same chunks", and a plugin that behaves otherwise
inside the server reports the first difference (step, field, both values) with exit 1. Bad
input is one line and exit 2 before any server starts.
"""

from __future__ import annotations

import json
import socket
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.invoke import AT_PLUGIN, AT_RAISING, AT_TEXT, CONFIG, CONVERTER, TEXT, TOOLS

ROOT = Path(__file__).resolve().parents[2]
ARGS = ("--config", "author/invoke.toml", "--tools", "author/tools.json", "--text-file", "author/out.txt",
        "--allow-callable", "invoke_conv:arguments")


@pytest.fixture
def trial(tmp_path, monkeypatch):
    """cwd: a folder holding the author's folder (config, converter, tools, text) and nothing else."""
    author = tmp_path / "author"
    author.mkdir()
    (author / "invoke.toml").write_text(CONFIG)
    (author / "invoke_conv.py").write_text(CONVERTER)
    (author / "tools.json").write_text(json.dumps(TOOLS))
    (author / "out.txt").write_text(TEXT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "invoke_conv", raising=False)
    yield tmp_path
    sys.modules.pop("invoke_conv", None)


def _joined(steps: list[dict], side: str) -> dict:
    """What a client joins from one side's chunks: content, reasoning, each call's name and arguments."""
    out: dict = {"content": "", "reasoning": "", "calls": {}}
    for step in steps:
        for raw in step[side]:
            for choice in json.loads(raw).get("choices") or []:
                delta = choice.get("delta") or {}
                out["content"] += delta.get("content") or ""
                out["reasoning"] += delta.get("reasoning") or ""
                for tc in delta.get("tool_calls") or []:
                    call = out["calls"].setdefault(tc["index"], ["", ""])
                    call[0] += (tc.get("function") or {}).get("name") or ""
                    call[1] += (tc.get("function") or {}).get("arguments") or ""
    return out


def _direct_parse(text: str) -> tuple:
    """vLLM's own non-streaming parse of ``text`` with the config's parser, in this process."""
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Session, Setup

    session = Session(Setup("qwen3", ParserSpec(config="author/invoke.toml"), RequestSpec(tools=TOOLS),
                            allow_callables=("invoke_conv:arguments",)))
    reasoning, content, calls = session.parser_cls(session.tokenizer, session.request.tools).parse(
        text, session.request, enable_auto_tools=True)
    return reasoning, content, [(c.name, c.arguments) for c in calls or []]


def test_an_exported_config_with_its_converter_serves_the_same_chunks(run_cli, trial):
    code, out, err = run_cli("serve-check", *ARGS, "--json")
    assert code == 0, (out[-3000:], err[-3000:])
    got = json.loads(out)
    assert got["same"] is True and got["first_difference"] is None and got["field"] is None
    assert got["server_vllm_version"] and len(got["steps"]) > 5 and all(s["same"] for s in got["steps"])
    server = _joined(got["steps"], "server")
    assert server == _joined(got["steps"], "here")
    reasoning, content, calls = _direct_parse(TEXT)
    assert (server["reasoning"], server["content"]) == (reasoning, content)
    assert [tuple(c) for c in server["calls"].values()] == calls == [("get_weather", '{"city": "Paris"}')]
    assert sorted(p.name for p in trial.iterdir()) == ["author"]  # the plugin was written elsewhere


# a plugin whose streamed arguments lose their last character, only inside vLLM's API server
PLANTED = AT_PLUGIN.replace("import json\n", "import json\nimport sys\n", 1).replace(
    "            name, arguments = calls[i]\n",
    "            name, arguments = calls[i]\n"
    "            if 'api_server' in sys.argv[0]:\n"
    "                arguments = arguments[:-1]\n")


@pytest.mark.slow(reason="one more server (~1-2 min under load); the config case is the acceptance")
def test_the_example_plugin_serves_the_same_chunks(run_cli, tmp_path, monkeypatch):
    import shutil

    monkeypatch.chdir(tmp_path)
    shutil.copy(ROOT / "parsers" / "plugins" / "example_tool_parser.py", tmp_path / "example_tool_parser.py")
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    text = 'Let me check.<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call>'
    code, out, err = run_cli("serve-check", "--plugin", "example_tool_parser.py", "--tool-parser", "example_json",
                             "--tools", "tools.json", "--text", text)
    assert code == 0 and out.startswith("same chunks: "), (out, err[-3000:])


@pytest.mark.slow(reason="one more server (~1-2 min under load)")
def test_a_planted_difference_is_named_with_exit_1(run_cli, tmp_path, monkeypatch):
    from workbench.core.deltas import encode_text
    from workbench.core.tokenizers import load_tokenizer

    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    assert PLANTED.count("arguments[:-1]") == 1 and "\nimport sys\n" in PLANTED
    (tmp_path / "atcall.py").write_text(PLANTED)
    code, out, err = run_cli("serve-check", "--plugin", "atcall.py", "--tool-parser", "atcall",
                             "--tools", "tools.json", "--text", AT_TEXT)
    assert code == 1, (out, err[-3000:])
    first, cause = out.strip().splitlines()
    step, said = first.removeprefix("first difference at step ").split(", ", 1)
    assert said == ("chunk 1.choices[0].delta.tool_calls[0].function.arguments: "
                    "server '{\"city\": \"Paris\"' | workbench '{\"city\": \"Paris\"}'"), out
    # the call arrives whole with the token that closes it: that token's step, or an earlier one
    # where the server merged outputs into one chunk
    tok = load_tokenizer("qwen3")
    tokens = encode_text(tok, AT_TEXT)
    closing = next(i for i in range(1, len(tokens) + 1) if tok.decode(tokens[:i]).count("@@") == 2)
    assert 1 <= int(step) <= closing, out
    assert cause.startswith("likely cause: parser difference at step"), out


@pytest.mark.slow(reason="one more server (~1-2 min under load)")
def test_a_plugin_that_raises_mid_stream_serves_the_error_chunk_predicted(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "atcall.py").write_text(AT_RAISING)
    code, out, err = run_cli("serve-check", "--plugin", "atcall.py", "--tool-parser", "atcall",
                             "--tools", "tools.json", "--text", AT_TEXT + " More words.")
    assert code == 0 and out.startswith("same chunks: "), (out, err[-3000:])


def test_bad_input_is_one_line_and_exit_2(run_cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    (tmp_path / "a.py").write_text(textwrap.dedent(AT_PLUGIN))
    (tmp_path / "b.py").write_text(textwrap.dedent(AT_PLUGIN))
    cases = {
        "missing file": (("--text-file", "nope.txt", "--tool-parser", "hermes"), "nope.txt"),
        "no parser": (("--text", "hi"), "needs a parser"),
        "two plugins": (("--text", "hi", "--plugin", "a.py", "--plugin", "b.py", "--tool-parser", "atcall"),
                        "one --tool-parser-plugin"),
        "another API": (("--text", "hi", "--tool-parser", "hermes", "--api", "responses"), "compares chat chunks"),
        "no source": (("--tool-parser", "hermes",), "nothing to serve"),
    }
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        cases["port busy"] = (("--text", "hi", "--tool-parser", "hermes", "--port", busy.getsockname()[1]), "is busy")
        for name, (argv, says) in cases.items():
            code, out, err = run_cli("serve-check", *argv)
            assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (name, out, err)


def test_sigterm_reads_as_ctrl_c_while_the_server_runs():
    import os
    import signal
    import time

    from workbench.cli.serve_check_cmd import _stopping_on_sigterm

    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt):
        _stopping_on_sigterm(lambda: os.kill(os.getpid(), signal.SIGTERM) or time.sleep(5))
    assert signal.getsignal(signal.SIGTERM) is before
