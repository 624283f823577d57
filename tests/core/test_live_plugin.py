"""core/live_plugin.py: the editor's Python text becomes the parser (a fresh module each time,
loaded as vLLM loads a plugin) and the same stream replays through it; a broken text is one
line with its line number and the last good parser stays."""

from __future__ import annotations

import textwrap

import pytest

from tests.support.seed import WEATHER_TOOLS

SOURCE = textwrap.dedent('''\
    import json

    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation, FunctionCall, ToolCall)
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

    START, END = "<<call>>", "<</call>>"


    @ToolParserManager.register_module("owl_live")
    class OwlToolParser(ToolParser):
        def extract_tool_calls(self, model_output, request):
            content, _, rest = model_output.partition(START)
            if not rest:
                return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
            call = json.loads(rest.split(END)[0])
            return ExtractedToolCallInformation(tools_called=True, content=content or None, tool_calls=[
                ToolCall(function=FunctionCall(name=call["name"], arguments=json.dumps(call["arguments"])))])

        def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *args):
            if START not in current_text:
                return DeltaMessage(content=delta_text) if delta_text else None
            if END in current_text and END not in previous_text:
                call = json.loads(current_text.partition(START)[2].split(END)[0])
                self.prev_tool_call_arr.append(call)
                self.streamed_args_for_tool.append(json.dumps(call["arguments"]))
                return DeltaMessage(tool_calls=[DeltaToolCall(index=0, id="call_0", type="function",
                    function=DeltaFunctionCall(name=call["name"], arguments=json.dumps(call["arguments"])))])
            return None
    ''')
TEXT = '<think>Weather.</think>Sure.<<call>>{"name": "get_weather", "arguments": {"city": "Paris"}}<</call>>'


@pytest.fixture
def live():
    from workbench.core.live_plugin import LivePlugin
    from workbench.core.parsers import ParserSpec
    from workbench.core.request import RequestSpec
    from workbench.core.session import Setup

    return LivePlugin(Setup(parser=ParserSpec("hermes", "qwen3"), request=RequestSpec(tools=WEATHER_TOOLS)), text=TEXT)


def test_editing_a_python_parser_replays_the_stream_and_a_broken_edit_keeps_the_last_good(live):
    assert not live.result.stream_final.tool_calls  # hermes does not read this format
    assert live.reload(SOURCE) is None
    assert live.parser.tool_parser == "owl_live" and live.parser.reasoning_parser == "qwen3"  # the role it fills
    calls = live.result.stream_final.tool_calls
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", '{"city": "Paris"}')]
    good = (live.session.parser_cls, live.result)

    lines = SOURCE.splitlines()
    broken = SOURCE.replace("        if not rest:", "        if not rest")  # a syntax error
    error = live.reload(broken)
    assert error.startswith(f"line {1 + lines.index('        if not rest:')}: SyntaxError") and "\n" not in error
    assert (live.session.parser_cls, live.result) == good and live.error == error

    error = live.reload(SOURCE.replace('START, END = "<<call>>", "<</call>>"', 'START, END = CALL, "<</call>>"'))
    start_line = 1 + next(i for i, ln in enumerate(lines) if ln.startswith("START, END"))
    assert error == f"line {start_line}: NameError: name 'CALL' is not defined"
    assert "registers no parser" in live.reload("X = 1\n")
    assert live.session.parser_cls is good[0]

    # fixed, and changed: the new code runs (not a class cached from an earlier version)
    assert live.reload(SOURCE.replace('json.dumps(call["arguments"])))])', 'json.dumps({"edited": 1})))])')) is None
    assert [c.arguments for c in live.result.stream_final.tool_calls] == ['{"edited": 1}']
    assert live.error is None


def test_a_parser_whose_init_or_adjust_request_raises_is_one_line_and_the_last_good_stays(live):
    assert live.reload(SOURCE) is None
    good = (live.session.parser_cls, live.session.setup, live.result)
    assert live.session.setup.plugins == (live.plugin.file,)  # as --plugin FILE gives it: export, doctor, Save
    init = "    def __init__(self, tokenizer, tools=None):\n        super().__init__(tokenizer, tools)\n        self.x = X\n\n"
    broken = SOURCE.replace("    def extract_tool_calls(self,", init + "    def extract_tool_calls(self,", 1)
    error = live.reload(broken)
    line = 1 + broken.splitlines().index("        self.x = X")
    # vLLM's start-up validation builds the parser on the tokenizer: its message, our line
    assert error.startswith(f"line {line}: ") and error.endswith("name 'X' is not defined") and "\n" not in error
    assert (live.session.parser_cls, live.session.setup, live.result) == good
    adjust = "    def adjust_request(self, request):\n        return request.nothing\n\n"  # vLLM's validation never calls it
    broken = SOURCE.replace("    def extract_tool_calls(self,", adjust + "    def extract_tool_calls(self,", 1)
    error = live.reload(broken)
    line = 1 + broken.splitlines().index("        return request.nothing")
    assert error.startswith(f"line {line}: adjust_request failed: AttributeError") and "\n" not in error
    assert (live.session.parser_cls, live.session.setup, live.result) == good
    assert live.session.request is not None and live.reload(SOURCE) is None


def test_a_syntax_error_says_its_line_once():
    from workbench.core.live_plugin import line_of, load_text
    from workbench.errors import WorkbenchError

    with pytest.raises(WorkbenchError) as e:
        load_text("import json\ndef f(:\n    pass\n")
    assert line_of(str(e.value)) == 2 and str(e.value).count("line") == 1 and "workbench_live_plugin" not in str(e.value)


def test_memory_is_flat_over_50_reloads_of_a_large_plugin(live):
    """Each reload used to keep the last version's module (sys.modules, the plugin cache, a
    class-keyed cache) and all it held: 20 MB more per edit here."""
    import tracemalloc

    big = SOURCE + '\nBIG = b"x" * 20_000_000\n'
    assert live.reload(big + "#0\n") is None
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        for i in range(1, 51):
            assert live.reload(big + f"#{i}\n") is None
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown < 30_000_000, f"{grown / 1e6:.0f} MB more after 50 reloads"  # the one live version, no more
    assert live.result.stream_final.tool_calls
