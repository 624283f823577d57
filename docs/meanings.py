"""What each state, event and key of vLLM's ParserEngineConfig does, with an example: written
here where vLLM's source says nothing (its enums carry no comments, most fields none), read
from vLLM's ``vllm/parser/engine`` (0.32 to 0.34). docs/gen_reference.py puts them in the
config reference beside vLLM's own comment; tests/docs/test_gen_reference.py fails when a
state, event or key of any version here has no meaning or no example."""

STATES = {
    "CONTENT": ("The answer's text. The usual `initial_state`; text read here becomes its "
                "`[content_events]` event (`TEXT_CHUNK`), what the client sees as `content`.",
                'CONTENT = "TEXT_CHUNK"'),
    "REASONING": ("Thinking. Text read here becomes `REASONING_CHUNK` (the client's `reasoning`). A config "
                  "whose `initial_state` is REASONING assumes the prompt opened thinking (see "
                  "`wait_for_reasoning`).",
                  '{ from = "CONTENT", on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] }'),
    "MESSAGE_HEADER": ("A header the engine buffers instead of emitting (a channel or role line). When the "
                       "machine leaves it, a `TEXT_CHUNK` on that transition carries the buffered header, not "
                       "the terminal; at the end of the stream a buffered header is flushed as text.",
                       '{ from = "CONTENT", on = "HEADER_START", to = "MESSAGE_HEADER" }'),
    "TOOL_PREAMBLE": ("A tool region before the first call (a section opener such as `<tool_calls>`): no "
                      "call is open yet. A tool state: the end of the stream closes an open call from it.",
                      '{ from = "CONTENT", on = "SECTION_START", to = "TOOL_PREAMBLE" }'),
    "TOOL_NAME": ("The call's name is being read: text here becomes `TOOL_NAME` (the call's "
                  "`function.name`).",
                  '{ from = "CONTENT", on = "CALL_START", to = "TOOL_NAME", emit = ["TOOL_CALL_START"] }'),
    "TOOL_ARGS": ("The call's arguments are being read: text here becomes `ARG_VALUE_CHUNK`, through "
                  "`arg_converter` when one is set; with `tool_args_json` the engine follows JSON braces and "
                  "strings here.",
                  '{ from = "TOOL_NAME", on = "NAME_END", to = "TOOL_ARGS" }'),
    "TOOL_BETWEEN": ("Between two calls of one tool region (after a call closed, before the next opens or "
                     "the region ends). A tool state.",
                     '{ from = "TOOL_ARGS", on = "CALL_END", to = "TOOL_BETWEEN", emit = ["TOOL_CALL_END"] }'),
}

EVENTS = {
    "TEXT_CHUNK": ("Content text. As a state's content event, the text read there; emitted on a "
                   "transition, it carries the terminal's own text (the marker shows as content).",
                   'CONTENT = "TEXT_CHUNK"'),
    "REASONING_START": ("Thinking opens: the parser's reasoning phase starts (no text of its own).",
                        'emit = ["REASONING_START"]'),
    "REASONING_CHUNK": ("Reasoning text: the state's text, or on a transition the terminal's own text.",
                        'REASONING = "REASONING_CHUNK"'),
    "REASONING_END": ("Thinking closes: what follows is the answer. The end of the stream emits it for a "
                      "machine still in REASONING.",
                      'emit = ["REASONING_END"]'),
    "TOOL_CALL_START": ("A new call opens: the call index goes up by one. Put it on the transition into the "
                        "call's name or arguments.",
                        'emit = ["TOOL_CALL_START"]'),
    "TOOL_NAME": ("The call's name (or part of it): TOOL_NAME state's text.",
                  'TOOL_NAME = "TOOL_NAME"'),
    "ARG_VALUE_CHUNK": ("Argument text for the open call, fed to `arg_converter` when one is set. On a "
                        "transition it carries the marker's own text into the arguments.",
                        'TOOL_ARGS = "ARG_VALUE_CHUNK"'),
    "TOOL_CALL_END": ("The open call closes: a converter's final answer (`partial=False`) is sent. The end "
                      "of the stream emits it for a call still open.",
                      'emit = ["TOOL_CALL_END"]'),
}

KEYS = {
    "name": ("The config's name: the parser's name in the workbench, and what `export-config --python` "
             "registers by default.", 'name = "invoke"'),
    "terminals": ("The literals the engine lexes the text into, by name. A terminal matches its text "
                  "wherever it appears, even inside a JSON string; text that could still become a terminal "
                  "is held back until it cannot. An array gives several spellings, the first canonical.",
                  '[terminals]\nCALL_START = "<invoke name=\\""'),
    "token_id_terminals": ("Terminals matched by special-token id. Once the stream carries token ids, a "
                           "terminal listed here fires only as that token: its text spelled out is content.",
                           '[token_id_terminals]\nTHINK_START = "<think>"'),
    "transitions": ("The state machine: in state `from`, terminal `on` moves to `to` and emits `emit` "
                    "(events carry the terminal's text). A terminal with no transition from the current "
                    "state is that state's text.",
                    '{ from = "TOOL_ARGS", on = "CALL_END", to = "CONTENT", emit = ["TOOL_CALL_END"] }'),
    "content_events": ("What text read in each state becomes. A state with no entry drops its text.",
                       '[content_events]\nTOOL_ARGS = "ARG_VALUE_CHUNK"'),
    "initial_state": ("Where the machine starts. REASONING for a model whose prompt opens thinking.",
                      'initial_state = "CONTENT"'),
    "wait_for_reasoning": ("Whether the serving layer waits for thinking to close before the request's "
                           "grammar applies (`is_reasoning_end`, `extract_content_ids`). Unset: true exactly "
                           "when `initial_state` is REASONING.",
                           "wait_for_reasoning = true"),
    "arg_converter": ("`(raw argument text, partial) -> JSON text`, called while the call streams "
                      "(`partial=True`) and once when it ends (`partial=False`). Each partial answer must be a "
                      "prefix of the final one (prefix-stable). A module beside the config is found; name it "
                      "with `--allow-callable`.",
                      'arg_converter = "invoke_args:arguments"'),
    "complete_tool_call_validator": ("A callable that checks a complete call before it is emitted (0.34).",
                                     'complete_tool_call_validator = "vllm.parser.llama_json:'
                                     '_validate_complete_tool_output"'),
    "stream_arg_deltas": ("With a converter: stream its partial answers (true), or send its final answer "
                          "once when the call ends (false: a converter need not be prefix-stable).",
                          "stream_arg_deltas = false"),
    "tool_args_json": ("In TOOL_ARGS, follow JSON braces and strings (a `}` inside a string does not end "
                       "the value); false: the text is passed on as it is.",
                       "tool_args_json = true"),
    "tool_call_body_array": ("The tool region is one JSON array of `{name, arguments}` objects, one call per "
                             "element, no closing terminal (0.32, 0.33; 0.34's `tool_call_body_collection`).",
                             "tool_call_body_array = true"),
    "tool_call_body_collection": ("How several top-level JSON objects in one tool region are framed: "
                                  "JSON_ARRAY (Granite) or SEMICOLON_SEQUENCE (Llama's `{...}; {...}`) (0.34).",
                                  'tool_call_body_collection = "JSON_ARRAY"'),
    "arg_structural_chars": ("With a converter: run it only on argument deltas holding one of these "
                             "characters (the rest wait for the next one).",
                             'arg_structural_chars = [">", "\\n"]'),
    "arg_value_extender": ("Streams a long open value as it arrives, in place of the converter, while the "
                           "value stays open (0.33, 0.34).",
                           'arg_value_extender = "vllm.parser.qwen3:_qwen3_arg_value_extender"'),
    "preserve_tokens": ("Special tokens kept in the text (not dropped) that are not terminals.",
                        'preserve_tokens = ["<|im_start|>"]'),
    "turn_boundary_tokens": ("Special tokens that start a turn in the prompt: only reasoning markers after "
                             "the last one count when the prompt is read.",
                             'turn_boundary_tokens = ["<|im_start|>"]'),
    "strip_trailing_reasoning_whitespace": ("Strip whitespace at the end of the reasoning.",
                                            "strip_trailing_reasoning_whitespace = true"),
    "drop_whitespace_only_content_before_tools": ("Drop content that is only whitespace before a call.",
                                                  "drop_whitespace_only_content_before_tools = true"),
    "strip_content_whitespace_with_tools": ("Strip the content when the answer has calls.",
                                            "strip_content_whitespace_with_tools = true"),
    "validate_tool_names": ("Drop calls whose name is not one of the request's tools.",
                            "validate_tool_names = true"),
}
