"""A legacy vLLM ToolParser plugin: the shape of ``--tool-parser-plugin`` files.

Wire format (plain-text markers, one JSON object per call)::

    Let me check.<call>{"name": "get_weather", "arguments": {"city": "Paris"}}</call>

Load it as vLLM does, then name it::

    workbench replay --plugin parsers/plugins/example_tool_parser.py \\
        --tool-parser example_json --tools tools.json --text '...'
    vllm serve ... --tool-parser-plugin parsers/plugins/example_tool_parser.py \\
        --tool-call-parser example_json --enable-auto-tool-choice

Streaming re-scans the text so far on every delta (simple, not fast): content
outside ``<call>...</call>`` streams as it arrives, holding back a tail that
could still become ``<call>``; each call is sent whole (name and arguments in
one delta) once its ``</call>`` arrives. A block that is not valid JSON is
content. ``prev_tool_call_arr`` / ``streamed_args_for_tool`` are kept as the
serving layer expects, so it has nothing left to append at the end.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall,
    DeltaMessage,
    DeltaToolCall,
    ExtractedToolCallInformation,
    FunctionCall,
    ToolCall,
)
from vllm.renderers.chat_utils import make_tool_call_id
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

START, END = "<call>", "</call>"


def split(text: str, final: bool) -> tuple[str, list[dict]]:
    """(content, calls) of ``text``; unless ``final``, an open block or a tail that
    may grow into ``<call>`` is left out of both."""
    content, calls, pos = [], [], 0
    while True:
        start = text.find(START, pos)
        if start < 0:
            tail = text[pos:]
            if not final:
                tail = tail[: len(tail) - _partial_marker(tail)]
            content.append(tail)
            break
        content.append(text[pos:start])
        end = text.find(END, start + len(START))
        if end < 0:
            if final:
                content.append(text[start:])
            break
        call = _parse_call(text[start + len(START):end])
        if call is None:
            content.append(text[start:end + len(END)])
        else:
            calls.append(call)
        pos = end + len(END)
    return "".join(content), calls


def _partial_marker(text: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of START."""
    return next((n for n in range(min(len(START) - 1, len(text)), 0, -1) if text.endswith(START[:n])), 0)


def _parse_call(body: str) -> dict | None:
    try:
        obj = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str):
        return None
    args = obj.get("arguments", {})
    return {"name": obj["name"], "arguments": args if isinstance(args, dict) else {}}


@ToolParserManager.register_module("example_json")
class ExampleJsonToolParser(ToolParser):
    def __init__(self, tokenizer, tools=None) -> None:
        super().__init__(tokenizer, tools)
        self._content_sent = 0

    def extract_tool_calls(self, model_output: str, request) -> ExtractedToolCallInformation:
        content, calls = split(model_output, final=True)
        tool_calls = [ToolCall(function=FunctionCall(name=c["name"], arguments=_args(c)))
                      for c in calls]
        return ExtractedToolCallInformation(tools_called=bool(tool_calls), tool_calls=tool_calls,
                                            content=content or None)

    def extract_tool_calls_streaming(
        self,
        previous_text: str,
        current_text: str,
        delta_text: str,
        previous_token_ids: Sequence[int],
        current_token_ids: Sequence[int],
        delta_token_ids: Sequence[int],
        request,
    ) -> DeltaMessage | None:
        content, calls = split(current_text, final=False)
        new_content = content[self._content_sent:]
        self._content_sent = len(content)
        deltas = []
        for index in range(len(self.prev_tool_call_arr), len(calls)):
            call, args = calls[index], _args(calls[index])
            self.current_tool_id = index
            self.prev_tool_call_arr.append(call)
            self.streamed_args_for_tool.append(args)
            deltas.append(DeltaToolCall(index=index, id=make_tool_call_id(), type="function",
                                        function=DeltaFunctionCall(name=call["name"], arguments=args)))
        if not new_content and not deltas:
            return None
        return DeltaMessage(content=new_content or None, tool_calls=deltas)


def _args(call: dict) -> str:
    return json.dumps(call["arguments"], ensure_ascii=False)
