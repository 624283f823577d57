"""A plugin tool parser that raises on any delta containing 'boom' (test fixture)."""

from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
from vllm.tool_parsers import ToolParser, ToolParserManager


@ToolParserManager.register_module("test_raising")
class RaisingToolParser(ToolParser):
    def extract_tool_calls(self, model_output, request):
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text,
                                     previous_token_ids, current_token_ids, delta_token_ids, request):
        if "boom" in delta_text:
            raise ValueError("the test parser exploded")
        return DeltaMessage(content=delta_text)
