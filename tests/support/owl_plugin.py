"""A Python parser as an author types it into the widget's editor: a new family whose calls
are written ``[[call NAME {json}]]`` (issue 30's), a ``ToolParser`` registered as ``owl``."""

PLUGIN = '''import json

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation, FunctionCall, ToolCall)
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

START, END = "[[call ", "]]"


def split(text):
    """(content, name, arguments) of a text with one whole call, else (text, None, None)."""
    content, _, rest = text.partition(START)
    if END not in rest:
        return text, None, None
    name, _, arguments = rest.split(END)[0].partition(" ")
    return content, name, json.loads(arguments)


@ToolParserManager.register_module("owl")
class OwlToolParser(ToolParser):
    def extract_tool_calls(self, model_output, request):
        content, name, arguments = split(model_output)
        if name is None:
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        return ExtractedToolCallInformation(tools_called=True, content=content or None, tool_calls=[
            ToolCall(function=FunctionCall(name=name, arguments=json.dumps(arguments)))])

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *ids_and_request):
        if "[[" not in current_text:
            return DeltaMessage(content=delta_text) if delta_text else None
        content, name, arguments = split(current_text)
        if name is None or split(previous_text)[1] is not None:
            return None  # inside the call, or after it
        self.prev_tool_call_arr.append({"name": name, "arguments": arguments})
        self.streamed_args_for_tool.append(json.dumps(arguments))
        return DeltaMessage(tool_calls=[DeltaToolCall(index=0, id="call_0", type="function", function=(
            DeltaFunctionCall(name=name, arguments=json.dumps(arguments))))])
'''
TEXT = '<think>Weather is needed.</think>Sure.[[call get_weather {"city": "Paris"}]]'
BROKEN_LINE = "    def extract_tool_calls(self, model_output, request):"  # a ":" typed away: a SyntaxError


def line_of(text: str, needle: str) -> int:
    [n] = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return n
