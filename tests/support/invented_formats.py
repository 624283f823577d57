"""Parser formats made up for the tests (no model writes them), each a config text and a stream
written in it. ``OWL``: reasoning between plain-text markers, calls as one JSON body each,
``<<call>>{"name": ..., "arguments": {...}}<</call>>``. ``FERRET``: the same reasoning, a
call's name, then its JSON arguments, ``<<call NAME>>{...}<<end>>``. bench/author_loop.py
times the author's loop on ``OWL`` too."""

from __future__ import annotations

import textwrap

OWL = textwrap.dedent('''\
    name = "owl"
    arg_converter = "vllm.parser.granite:_granite_arg_converter"
    tool_args_json = true
    transitions = [
      { from = "CONTENT",   on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] },
      { from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] },
      { from = "CONTENT",   on = "CALL_START",  to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] },
      { from = "TOOL_ARGS", on = "CALL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] },
    ]
    [terminals]
    THINK_START = "::reason::"
    THINK_END = "::/reason::"
    CALL_START = "<<call>>"
    CALL_END = "<</call>>"
    [content_events]
    CONTENT = "TEXT_CHUNK"
    REASONING = "REASONING_CHUNK"
    TOOL_ARGS = "ARG_VALUE_CHUNK"
    ''')
OWL_TEXT = ('::reason::The user wants the weather.::/reason::Let me check.'
            '<<call>>{"name": "get_weather", "arguments": {"city": "Paris"}}<</call>>')

FERRET = textwrap.dedent('''\
    name = "ferret"
    tool_args_json = true
    transitions = [
      { from = "CONTENT",   on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] },
      { from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] },
      { from = "CONTENT",   on = "CALL_START",  to = "TOOL_NAME", emit = ["TOOL_CALL_START"] },
      { from = "TOOL_NAME", on = "NAME_END",    to = "TOOL_ARGS", emit = [] },
      { from = "TOOL_ARGS", on = "CALL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] },
    ]
    [terminals]
    THINK_START = "::reason::"
    THINK_END = "::/reason::"
    CALL_START = "<<call "
    NAME_END = ">>"
    CALL_END = "<<end>>"
    [content_events]
    CONTENT = "TEXT_CHUNK"
    REASONING = "REASONING_CHUNK"
    TOOL_NAME = "TOOL_NAME"
    TOOL_ARGS = "ARG_VALUE_CHUNK"
    ''')
FERRET_TEXT = '::reason::The user wants weather.::/reason::Let me check.<<call get_weather>>{"city": "Paris"}<<end>>'
