"""serve_check's parts that need no server: the first differing field of two chunk lists, the
script and request a case becomes, and the flags a parser becomes (the whole command against a
real server: tests/cli/test_serve_check_cmd.py)."""

from __future__ import annotations

import pytest

from tests.support.invoke import CONFIG, CONVERTER, TEXT, TOOLS
from workbench.capture import serve_check
from workbench.core.prepare import RunSpec, prepare
from workbench.core.parsers import ParserSpec
from workbench.errors import WorkbenchError


def test_first_field_names_the_path_and_both_values():
    server = [{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{"}}]}}]}]
    here = [{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}}]}]
    assert serve_check.first_field(server, here) == (
        "chunk 1.choices[0].delta.tool_calls[0].function.arguments", "{", "{}")
    assert serve_check.first_field([{"a": 1}], [{"a": 1, "b": 2}]) == ("chunk 1.b", "(absent)", 2)
    assert serve_check.first_field([{"a": 1}], [{"a": 1}, {"usage": {}}]) == ("", [{"a": 1}], [{"a": 1}, {"usage": {}}])


def test_a_text_is_forced_with_eos_and_sent_as_the_workbench_ran_it():
    from workbench.core.tokenizers import load_tokenizer

    prepared = prepare(RunSpec(text="Hi <tool_call>", parser=ParserSpec("hermes", "qwen3"),
                               request={"tools": TOOLS, "tool_choice": "auto"}))
    script, max_tokens = serve_check.script_of(prepared)
    tok = load_tokenizer("qwen3")
    assert script == tok.encode("Hi <tool_call>", add_special_tokens=False) + [tok.eos_token_id]
    assert max_tokens is None  # EOS ends it
    body = serve_check.request_body(prepared, script, max_tokens)
    assert body["vllm_xargs"] == {"workbench_script": script}
    assert (body["tools"], body["tool_choice"], body["messages"]) == (TOOLS, "auto", prepared.setup.request.messages)
    assert "max_tokens" not in body and None not in body.values()

    cut = prepare(RunSpec(text="Hi there", parser=ParserSpec("hermes", "qwen3"), finish_reason="length"))
    script, max_tokens = serve_check.script_of(cut)
    assert script == tok.encode("Hi there", add_special_tokens=False) and max_tokens == len(script)
    assert serve_check.request_body(cut, script, max_tokens)["max_tokens"] == len(script)


def test_a_config_becomes_the_exported_plugin_with_its_converter_beside_it(tmp_path, monkeypatch):
    import sys

    author = tmp_path / "author"
    author.mkdir()
    (author / "invoke.toml").write_text(CONFIG)
    (author / "invoke_conv.py").write_text(CONVERTER)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "invoke_conv", raising=False)
    prepared = prepare(RunSpec(text=TEXT, parser=ParserSpec(config="author/invoke.toml"), request={"tools": TOOLS},
                               allow_callables=("invoke_conv:arguments",)))
    out = tmp_path / "served"
    out.mkdir()
    served = serve_check.parser_flags(prepared, out)
    plugin = str(out / "invoke_parser.py")
    assert served.flags == ["--tool-parser-plugin", plugin, "--reasoning-parser-plugin", plugin]
    assert (served.tool_parser, served.reasoning_parser) == ("invoke", "invoke")
    assert sorted(p.name for p in out.iterdir()) == ["invoke_conv.py", "invoke_parser.py"]
    assert (out / "invoke_conv.py").read_text() == CONVERTER
    sys.modules.pop("invoke_conv", None)


@pytest.mark.parametrize("spec, says", [
    (ParserSpec(None, None), "needs a parser"),
    (ParserSpec("hermes", None), None),
])
def test_a_parser_is_required(spec, says):
    prepared = prepare(RunSpec(text="hi", parser=spec))
    if says is None:
        assert serve_check.require_parser(prepared.setup) is prepared.setup
        assert serve_check.parser_flags(prepared, None).flags == []  # a built-in: by name alone
    else:
        with pytest.raises(WorkbenchError, match=says):
            serve_check.require_parser(prepared.setup)


def test_a_busy_port_is_refused():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        with pytest.raises(WorkbenchError, match="is busy"):
            serve_check.check_port(s.getsockname()[1])
    assert serve_check.check_port(None) is None
    with pytest.raises(WorkbenchError, match="1..65535"):
        serve_check.check_port(0)


@pytest.mark.parametrize("raised", [KeyboardInterrupt, WorkbenchError])
def test_the_server_is_stopped_however_the_check_ends(monkeypatch, raised):
    from workbench.capture import serve

    stopped = []

    class Server:
        url = "http://127.0.0.1:9/v1"

        def stop(self):
            stopped.append(True)

    def capture(*_):
        raise raised("the request failed")

    monkeypatch.setattr(serve, "start", lambda *a, **k: Server())
    monkeypatch.setattr(serve_check, "_capture", capture)
    prepared = prepare(RunSpec(text="hi", parser=ParserSpec("hermes", "qwen3")))
    with pytest.raises(raised):
        serve_check.run(prepared)
    assert stopped == [True]
