"""The author's second-round formats (issue 40): a TOML config whose converter module sits
beside it (calls written ``<invoke name="NAME">{json}</invoke>``), and a ``ToolParser`` plugin
for calls written ``@@call NAME key=value ...@@``, each with a bug to plant."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}]

# reasoning in <reflect>…</reflect>, calls as <invoke name="NAME">{json}</invoke>
TEXT = '<reflect>Weather needed.</reflect>Checking.<invoke name="get_weather">{"city": "Paris"}</invoke>'
CONFIG = textwrap.dedent('''\
    name = "invoke"
    initial_state = "CONTENT"
    arg_converter = "invoke_conv:arguments"

    transitions = [
      { from = "CONTENT",   on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] },
      { from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] },
      { from = "CONTENT",   on = "CALL_START",  to = "TOOL_NAME", emit = ["TOOL_CALL_START"] },
      { from = "TOOL_NAME", on = "NAME_END",    to = "TOOL_ARGS", emit = [] },
      { from = "TOOL_ARGS", on = "CALL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] },
    ]

    [terminals]
    THINK_START = "<reflect>"
    THINK_END = "</reflect>"
    CALL_START = "<invoke name=\\""
    NAME_END = "\\">"
    CALL_END = "</invoke>"

    [content_events]
    CONTENT = "TEXT_CHUNK"
    REASONING = "REASONING_CHUNK"
    TOOL_NAME = "TOOL_NAME"
    TOOL_ARGS = "ARG_VALUE_CHUNK"
    ''')
CONVERTER = textwrap.dedent('''\
    def arguments(raw, partial):
        """The <invoke> body, raw JSON, as the call's arguments (partial=True while it streams)."""
        if partial:
            return raw
        return raw.strip()
    ''')
# (right, planted): the final text loses its closing brace, so it is no longer the streamed prefix's end
CONVERTER_BUG = ("return raw.strip()", "return raw.strip()[:-1]")



AT_TEXT = "Sure.@@call get_weather city=Paris@@"
AT_PLUGIN = textwrap.dedent('''\
    """calls written @@call NAME key=value ...@@, as a legacy ToolParser."""
    import json

    from vllm.entrypoints.generate.base.protocol import (
        DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation, FunctionCall, ToolCall)
    from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

    START, END = "@@call ", "@@"


    def calls_in(text):
        """(content before the first call, [(name, arguments JSON)] of the complete calls)."""
        content, _, rest = text.partition(START)
        out = []
        for body in rest.split(START) if rest else []:
            if END in body:
                name, *pairs = body.split(END)[0].split()
                out.append((name, json.dumps(dict(p.split("=", 1) for p in pairs))))
        return content, out


    @ToolParserManager.register_module("atcall")
    class AtCallToolParser(ToolParser):
        def extract_tool_calls(self, model_output, request):
            content, calls = calls_in(model_output)
            return ExtractedToolCallInformation(tools_called=bool(calls), content=content or None, tool_calls=[
                ToolCall(function=FunctionCall(name=n, arguments=a)) for n, a in calls])

        def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *ids_and_request):
            if "@@" not in current_text:
                return DeltaMessage(content=delta_text) if delta_text else None
            _, calls = calls_in(current_text)
            out = []
            for i in range(len(self.prev_tool_call_arr), len(calls)):
                name, arguments = calls[i]
                self.prev_tool_call_arr.append({"name": name, "arguments": arguments})
                out.append(DeltaToolCall(index=i, id=f"call_{i}", type="function",
                                         function=DeltaFunctionCall(name=name, arguments=arguments)))
            return DeltaMessage(tool_calls=out) if out else None
    ''')
# A plugin whose streaming raises once a call begins (its non-streaming parse is fine): the
# server's generator catches that, streams vLLM's error chunk with the message, then [DONE].
AT_RAISING = AT_PLUGIN.replace("        _, calls = calls_in(current_text)\n",
                               "        raise RuntimeError('atcall cannot stream a call yet')\n", 1)
# (right, planted): the streamed call's arguments lose their last character
AT_TRUNCATION = ("            name, arguments = calls[i]\n", "            name, arguments = calls[i][0], calls[i][1][:-1]\n")


def plain_pytest_from(cwd, folder):
    """pytest on exported files alone, from ``cwd``: a fresh process, no workbench on its path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "--tb=line", "-p", "no:cacheprovider",
                           str(folder)], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout
