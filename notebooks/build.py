"""Write notebooks/01-07 from the cells below and in cells_05_harmony.py, cells_06_apis.py,
cells_07_rust.py (outputs stripped).

    .venv/bin/python notebooks/build.py          # rewrite the notebooks
    .venv/bin/python notebooks/build.py --check  # exit 1 if a notebook differs from this file

Notebooks call only the public API (``import workbench``); the teaching text is here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from cells_05_harmony import HARMONY  # noqa: E402
from cells_06_apis import APIS  # noqa: E402
from cells_07_rust import RUST  # noqa: E402
from cells_check import CHECK_MD, CHECK_TAIL  # noqa: E402

TOOLS = '''TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object",
                   "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                   "required": ["city"]}}}]'''

TOUR = [
    ("md", """# 01 · A tour of vLLM's tool and reasoning parsers

What happens between the model's text and the OpenAI fields `reasoning`, `content` and
`tool_calls`: the parsers vLLM's server runs, one delta at a time, on a real (tiny) vLLM
engine embedded in this kernel. Every row below is what vLLM's own classes returned.

**The pipeline.** Each row of the widget's table is one trip through this pipe, left to right:

```mermaid
flowchart LR
  E["engine step<br/>token ids"] --> D["detokenizer<br/>delta_text"]
  D --> R["reasoning parser<br/>qwen3: a ParserEngine config"]
  R --> T["tool parser<br/>hermes: a hand-written class"]
  T --> M["DeltaMessage<br/>reasoning · content · tool_calls"]
  M --> S["serving layer<br/>one SSE chunk, or none"]
  S --> C["client<br/>joins the chunks"]
```

The table's columns follow it: `tokens` (the engine step), `text` (what vLLM's
`IncrementalDetokenizer` released), `phase` (where the parser was), `reasoning` /
`content` / `tool_calls` (the `DeltaMessage` that `parse_delta` returned), `SSE` (whether
the serving layer sends a chunk) and `finish` (the `finish_reason` on that chunk). The
reasoning parser reads first; once it says the thinking ended, the text goes to the tool
parser."""),
    ("md", """**Words this tour uses.**

- **delta** (`delta_text`): the text one engine step adds to the output. vLLM's
  `IncrementalDetokenizer` (`vllm/v1/engine/detokenizer.py`) releases it; the serving layer
  hands each one to the parser. One delta is one row of the table.
- **`DeltaMessage`** (`vllm/entrypoints/generate/base/protocol.py`): what the composed
  parser's `parse_delta` (`vllm/parser/abstract_parser.py`) returns for one delta: a piece of
  `reasoning`, of `content`, and/or `tool_calls` (a list of `DeltaToolCall`: the call's
  `index`, on its first piece its `id` and function `name`, then pieces of its `arguments`).
  `None` means: nothing to send for this delta.
- **SSE chunk**: one `data: {…}` event of the HTTP stream (Server-Sent Events), a
  `chat.completion.chunk` whose `choices[0].delta` is the `DeltaMessage`.
  `OpenAIServingChat.chat_completion_stream_generator`
  (`vllm/entrypoints/openai/chat_completion/serving.py`) builds them; when `parse_delta`
  returns `None` and the request is not finished, it `continue`s: no chunk for that delta.
- **finish_reason, the engine's and the API's**: the engine ends a request with `stop` (it
  met a stop token, here `<|im_end|>`), `length` (`max_tokens`) or `error`. The same serving
  function turns the engine's `stop` into the API's `tool_calls` when a tool call was streamed
  (`tools_streamed`), so the last row's *finish* says `tool_calls` although the engine said `stop`.

**How a client joins the chunks.** The client (the `openai` SDK, or your own loop) starts
from an empty message and folds each chunk's `delta` into it: a string field is appended to,
a tool call is found by its `index`: the piece that brings an `id` and a `name` opens the call,
later pieces with the same `index` append to its `arguments`. The seed's chunks, as vLLM sends
them (`id` shortened):

```text
step   the chunk's delta (choices[0].delta)
         → what the client's message is after it
-----  --------------------------------------------------------------------
 (1)   {"role": "assistant", "content": ""}
         → content ""  (the role chunk)
  2    {"reasoning": "Weather"}
         → reasoning "Weather"
  3    {"reasoning": " is"}
         → append: reasoning "Weather is"
 4-5   {"reasoning": " needed"}, {"reasoning": "."}
         → append: reasoning "Weather is needed."
  7    {"content": "\\n\\n"}
         → append: content "\\n\\n"
 15    {"tool_calls": [{"index": 0, "id": "chatcmpl-tool-…",
         "type": "function", "function": {"name": "get_weather"}}]}
         → open #0: tool_calls[0] get_weather, arguments ""
 19    {"tool_calls": [{"index": 0, "function": {"arguments": "{\\""}}]}
         → append to #0: arguments '{"'
20-23  the same: "city", "\\":", " \\"", "Paris"
         → append to #0: arguments '{"city": "Paris'
 24    {"tool_calls": [{"index": 0, "function": {"arguments": "\\"}"}}]}
         → append to #0: arguments '{"city": "Paris"}'
 26    {}, with "finish_reason": "tool_calls"
         → finish_reason "tool_calls"
```

Rows with no chunk (1's own delta, 6, 8-14, 16-18, 25) change nothing on the client. The
*final message* tab shows what the client ends with."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import workbench

registry = workbench.parsers()
registry.groupby(["kind", "style"]).size()"""),
    ("md", """**Two kinds of parser.** vLLM registers each parser by name. A *legacy* parser is a
hand-written Python class (`Hermes2ProToolParser` keeps its own buffers and string
searches in `extract_tool_calls_streaming`). An *engine* parser is a declarative
`ParserEngineConfig` (states, terminals, transitions) run by vLLM's `vllm.parser.engine`;
the *state machine* tab draws it. The flags `--tool-call-parser hermes --reasoning-parser
qwen3` pick one of each."""),
    ("code", """workbench.table(registry[registry.name.isin(["hermes", "qwen3", "qwen3_coder", "deepseek_r1"])])"""),
    ("md", """**The composed parser, in your hands.** `ParserManager.get_parser("hermes", "qwen3")` gives
a `DelegatingParser` subclass holding both. The embedded engine is a random-weight Qwen3
with the real Qwen3 tokenizer; a *script* forces the tokens it emits, so every run is the
same. The widget below has stepped its first three rows; the rest is yours: click **Step**
and check each new row against the table after it. The first line under the buttons says
what made the rows on screen (which classes, which vLLM, which API, which stream)."""),
    ("code", TOOLS + """

wb = workbench.show(source="engine", tools=TOOLS, steps=3)   # the seed's script, three engine steps
wb.describe()["parser"]"""),
    ("md", """**What to expect as you step** (check it in the table and in the detail: click a row, or j/k).
Every step of the seed's 26, what `parse_delta` returns for it, and where in vLLM that is decided
(paths under `vllm/`):

| step | tokens | phase | what `parse_delta` returns | SSE chunk | where in vLLM |
|---|---|---|---|---|---|
| 1 | `<think>` | reasoning | nothing: the marker is eaten | none (pale italic row); the role chunk `{"role": "assistant", "content": ""}` goes first | the qwen3 config (`qwen3_config`, `parser/qwen3.py`), run by `parser/engine/` |
| 2-5 | `Weather`, `␣is`, `␣needed`, `.` | reasoning | `reasoning` = the same text | yes | the same |
| 6 | `</think>` | reasoning → tool | nothing; the qwen3 engine emits `REASONING_END` (detail: *events*) | none | `DelegatingParser.parse_delta` (`parser/abstract_parser.py`) switches to the tool phase |
| 7 | `\\n\\n` | tool | `content` = `"\\n\\n"`: the text before `<tool_call>` | yes | `Hermes2ProToolParser._extract_content` (`tool_parsers/hermes_tool_parser.py`) |
| 8-14 | `<tool_call>`, `{"`, `name`, `":`, `␣"`, `get`, `_weather` | tool | nothing: no closing quote after the name yet | none | `_extract_tool_name` there: the regex needs `"name": "…"` whole |
| 15 | `",` | tool | `tool_calls`: `#0 id=chatcmpl-tool-… name=get_weather` | yes | the same: the name is whole |
| 16-18 | `␣"`, `arguments`, `":` | tool | nothing: no argument text yet | none | `_extract_tool_args`: after `"arguments":` there is nothing to send |
| 19-23 | `␣{"`, `city`, `":`, `␣"`, `Paris` | tool | `tool_calls`: `#0 args+=…`, each new piece of the arguments | yes | `_compute_args_diff`: what was not sent yet |
| 24 | `"}}` | tool | `tool_calls`: `#0 args+='"}'`: the call's JSON is whole, so its last `}` (the outer object's) is cut | yes | `_extract_tool_args` with `is_complete` |
| 25 | `</tool_call>` | tool | nothing: no new argument text | none | the same |
| 26 | `<\\|im_end\\|>` | tool | an empty delta, and `finish_reason` `tool_calls` | yes: the last chunk is sent even when empty | `OpenAIServingChat.chat_completion_stream_generator` (`entrypoints/openai/chat_completion/serving.py`) |

The tokens show as text, a space as `␣` and a newline as a marked `\\n`; vLLM's tokenizer spells them
byte-level (`Ġis`, `ĊĊ`), which the detail's *tokens* table shows beside them. Step 7's
`"\\n\\n"` is the point of this tour: keep an eye on it. The *Check yourself* cell at the end
checks this table's *SSE chunk* column against the rows."""),
    ("md", """**Which parser made which row.** The same script on the *text* source (the same tokens,
no engine) run to its end, as a DataFrame: `wb.frame()` has the widget's columns, its
tokens decoded as the table shows them. Until `</think>` the qwen3 reasoning engine
decides; after it, every row is hermes's."""),
    ("code", """whole = workbench.Workbench(tools=TOOLS)   # not shown: its stream, to the end
whole.run()


def made_by(row):
    if str(row.phase_before) == "reasoning":
        return "qwen3 (engine config)"
    return "hermes (hand-written class)"


shown = whole.frame()[["step", "tokens", "phase", "reasoning", "content", "tool_calls", "sse"]]
workbench.table(shown.assign(made_by=[made_by(r) for r in whole.rows]))"""),
    ("md", """**One token, three spellings.** The id, the text it decodes to (what the table and
`frame()` show), and vLLM's byte-level token (`row.tokens`, the detail's third column).
Expected: `[271]`, `['\\n\\n']`, `['ĊĊ']`."""),
    ("code", """row = whole.rows[6]
row.token_ids, whole.frame()["tokens"][6], row.tokens"""),
    ("md", """**The end of thinking.** Step 6 moves the parser from the reasoning phase to the tool
phase; the qwen3 engine emits `REASONING_END` and no chunk is sent. Expected:
`('</think>', 'reasoning', 'tool', ['REASONING_END'], False)`."""),
    ("code", """end = whole.rows[5]
end.text, str(end.phase_before), str(end.phase), [e.type for e in end.events], end.sse"""),
    ("md", """**The final message.** The *final message* tab puts the joined stream next to the
non-streaming answer (`parse` on the whole text), field by field. They differ only in the
`"\\n\\n"` between `</think>` and the call: streamed as content, dropped by the non-streaming
parse. Where each happens, in vLLM's source:

- streaming: `Hermes2ProToolParser.extract_tool_calls_streaming` sends the text before
  `<tool_call>` as content (`_extract_content`, `vllm/tool_parsers/hermes_tool_parser.py`);
- non-streaming: Hermes's own `extract_tool_calls` returns that text too (`content="\\n\\n"`);
  it is the composed parser that drops it: `DelegatingParser._extract_tool_calls`
  (`vllm/parser/abstract_parser.py`), called by `parse`, sets a whitespace-only content to
  `None` once a tool call was found.

`workbench check` calls a whitespace-only difference *cosmetic* (no finding), and so
does every line of the widget: `≈ whitespace only`. Expected: only `content` differs, cosmetic,
from step 7."""),
    ("code", """[(d.field, d.equal, d.severity, d.first_step) for d in whole.state.final.diffs]"""),
    ("md", """**`tool_choice: "required"` and its grammar.** Now the request forces a call. Hermes's
`adjust_request` turns off `skip_special_tokens` and adds a *structural tag*: a grammar of
its own call syntax that the engine enforces once reasoning has ended. The grammar column
shows, per step, whether the gate was open and how many tokens the mask allowed."""),
    ("code", """REQUIRED = ('<think>Weather is needed.</think><tool_call>\\n{"name": "get_weather", '
            '"arguments": {"city": "Paris"}}\\n</tool_call>')
req = workbench.show(REQUIRED, source="engine", tools=TOOLS, tool_choice="required", run=True)
req.describe()["request"]["structured_outputs"]"""),
    ("code", """workbench.table(req.frame().assign(grammar=[r.extra.get("grammar", {}).get("allowed") for r in req.rows])[
    ["step", "tokens", "phase", "tool_calls", "finish_reason", "grammar"]])"""),
    ("md", """**When the grammar says no.** The seed's own script has `"\\n\\n"` after `</think>`,
which the grammar does not allow: the engine rejects the forced token and ends the request with
`finish_reason: "error"` at step 7, the last row (its grammar column says *✗ emitted token not
allowed*; the rows' logs hold the engine's `grammar rejected tokens [271]`). That is vLLM doing
its job, and a Chat Completions client sees it as it is: the *final message* tab's table of
every API says `✓ the client holds the body` for chat. The two other APIs' lines there say
`✗ differ: error`, and both are vLLM's own error path:

- `responses`: `✗ differ: error · step 7: finish "error": vLLM's responses_stream_generator
  fails to build its error event (pydantic ValidationError) …`. vLLM 0.32's Responses stream,
  on a request that ended in error, fails while building its own error event, so the openai
  SDK's stream never sees `response.completed`.
- `messages`: `✗ differ: error · the server logs: ERROR entrypoints.anthropic.serving: Error
  in message stream converter. …`. The Anthropic Messages converter
  (`AnthropicServingMessages.message_stream_converter`,
  `vllm/entrypoints/anthropic/serving.py`) fails on the same error chunk, logs it, and the
  anthropic SDK gets an error event.

Both are bugs of vLLM's serving layer on a request that ended in error, shown as they
happen; the parsers are not involved."""),
    ("code", """seed = workbench.show(source="engine", tools=TOOLS, tool_choice="required", run=True)
seed.rows[-1].finish_reason, seed.rows[-1].extra["grammar"]"""),
    ("md", """**Your turn.** Back in the first widget: Step to its end (or **Run**) and open the
*final message* tab. Then open *settings* and set the *reasoning* picker to `(none)`: the first
status line lists it as *changed, not applied yet*. **Replay** runs the same engine stream
through hermes alone and marks the rows that changed. Before you click it, predict:

1. Which steps change?
2. What does the client's `content` end up holding, and is there still a tool call?

Then try `deepseek_r1` instead of `(none)` and Replay again: how many rows change, and why?
**Reset** starts a new request with the settings on screen. The answers are in the *Check
yourself* cell at the end, computed on the hidden copy of the stream (`whole`). The *Help*
button shows the widget's page (docs/widget-guide.md)."""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. Which steps send no SSE chunk? (the expectation table's "none")
# 2. At which step does the client learn the function's name?
# 3. With the reasoning picker on (none), which steps change, and what is the client's content?
# 4. And with deepseek_r1?
# 5. With tool_choice "required", at which step does the seed's script end, and how?
no_chunk = [r.step for r in whole.rows if not r.sse]
first_call = next(r for r in whole.rows if r.delta is not None and r.delta.tool_calls)


def picked(reasoning_parser):
    \"\"\"The exercise on the hidden copy: the changed steps, and what the client then holds.\"\"\"
    whole.controls.reasoning_parser.value = reasoning_parser
    changed = sorted(whole.replay())
    final = whole.state.final.stream
    whole.controls.reasoning_parser.value = "qwen3"   # and back, so `whole` stays the tour's stream
    whole.replay()
    return changed, final.content, len(final.tool_calls)


ANSWERS = {
    "1. steps with no SSE chunk": (no_chunk, [1, 6, 8, 9, 10, 11, 12, 13, 14, 16, 17, 18, 25]),
    "2. the name arrives at": (
        (first_call.step, first_call.delta.tool_calls[0].name), (15, "get_weather")),
    "3. reasoning (none): changed steps, content, tool calls": (
        picked(""), ([1, 2, 3, 4, 5, 6], "<think>Weather is needed.</think>\\n\\n", 1)),
    "4. deepseek_r1 (the same <think> markup): changed steps": (picked("deepseek_r1")[0], []),
    "5. required: the last step and its finish_reason": (
        (seed.rows[-1].step, seed.rows[-1].finish_reason), (7, "error")),
}""" + CHECK_TAIL),
]

# A ToolParser for the format above, as a cell's text (an editor's, in the widget).
PYTHON_PARSER = '''MY_PARSER = """
import json

from vllm.entrypoints.generate.base.protocol import (
    DeltaFunctionCall, DeltaMessage, DeltaToolCall, ExtractedToolCallInformation, FunctionCall, ToolCall)
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager

START, END = "<tool_call>", "</tool_call>"


@ToolParserManager.register_module("my_parser")
class MyToolParser(ToolParser):
    def extract_tool_calls(self, model_output, request):
        content, _, rest = model_output.partition(START)
        if not rest:
            return ExtractedToolCallInformation(tools_called=False, tool_calls=[], content=model_output)
        call = json.loads(rest.split(END)[0])
        return ExtractedToolCallInformation(tools_called=True, content=content or None, tool_calls=[
            ToolCall(function=FunctionCall(name=call["name"], arguments=json.dumps(call["arguments"])))])

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text, *ids_and_request):
        if START not in current_text:  # plain content (a real parser holds back a partial START)
            return DeltaMessage(content=delta_text) if delta_text else None
        if END not in current_text or END in previous_text:
            return None  # inside the call, or after it
        call = json.loads(current_text.partition(START)[2].split(END)[0])
        arguments = json.dumps(call["arguments"])
        self.prev_tool_call_arr.append(call)  # what the serving layer compares at the end
        self.streamed_args_for_tool.append(arguments)
        return DeltaMessage(tool_calls=[DeltaToolCall(
            index=0, id="call_0", type="function",
            function=DeltaFunctionCall(name=call["name"], arguments=arguments))])
"""'''

AUTHOR = [
    ("md", """# 02 · Author a parser: as a TOML file, and as Python

A parser format can be data: vLLM's `ParserEngine` runs a state machine from a
`ParserEngineConfig`, and `parsers/*.toml` write one field per key, one transition per line.
Here we write a small format, replay a stream through it, break one transition and watch the
table change, compare it with vLLM's built-in parsers, then check and fuzz it; then write the
same format as a Python `ToolParser` subclass, the way most of vLLM's parsers are written."""),
    ("code", """import workbench

""" + TOOLS + """

TEXT = ('<think>Weather is needed.</think>Sure.<tool_call>{"name": "get_weather", '
        '"arguments": {"city": "Paris"}}</tool_call>')"""),
    ("md", """**Write the format.** Four terminals, four transitions: `<think>` opens reasoning,
`</think>` closes it, `<tool_call>` opens the arguments, `</tool_call>` closes them."""),
    # The format is written out whole, not imported from tests/support/invented_formats.py: the
    # notebook is the reader's to run and edit, and this cell is the text being taught.
    ("code", '''MY_FORMAT = """
name = "my_format"
initial_state = "CONTENT"
arg_converter = "vllm.parser.granite:_granite_arg_converter"  # carves "arguments" out of the JSON
tool_args_json = true

transitions = [
  { from = "CONTENT",   on = "THINK_START", to = "REASONING", emit = ["REASONING_START"] },
  { from = "REASONING", on = "THINK_END",   to = "CONTENT",   emit = ["REASONING_END"] },
  { from = "CONTENT",   on = "TOOL_START",  to = "TOOL_ARGS", emit = ["TOOL_CALL_START"] },
  { from = "TOOL_ARGS", on = "TOOL_END",    to = "CONTENT",   emit = ["TOOL_CALL_END"] },
]

[terminals]
THINK_START = "<think>"
THINK_END = "</think>"
TOOL_START = "<tool_call>"
TOOL_END = "</tool_call>"

[token_id_terminals]
THINK_START = "<think>"
THINK_END = "</think>"
TOOL_START = "<tool_call>"
TOOL_END = "</tool_call>"

[content_events]
CONTENT = "TEXT_CHUNK"
REASONING = "REASONING_CHUNK"
TOOL_ARGS = "ARG_VALUE_CHUNK"
"""'''),
    ("md", """**Replay through it.** The widget starts with the built-in `hermes` + `qwen3`; loading
the text into the *parser editor* replays the same stream through the new format."""),
    ("code", """wb = workbench.show(TEXT, tools=TOOLS, run=True)
wb.reload_config(MY_FORMAT)          # [] means: it is now the active parser
wb.state.final.stream"""),
    ("md", """**A mistake is reported, not applied.** A typo in a state name comes back as a problem
with its line; the editor's banner shows it and the last good config stays active."""),
    ("code", """problems = wb.reload_config(MY_FORMAT.replace('to = "CONTENT",   emit = ["REASONING_END"]',
                                              'to = "CONTNT",    emit = ["REASONING_END"]'))
[str(p) for p in problems]"""),
    ("md", """**Break one transition.** Let `</think>` keep the machine in `REASONING`: every row from
there on changes (marked in the table), and the tool call disappears into the reasoning."""),
    ("code", """wb.reload_config(MY_FORMAT.replace('to = "CONTENT",   emit = ["REASONING_END"]',
                                  'to = "REASONING", emit = []'))
broken = wb.changed          # the steps this one change moved (the table marks them)
broken[:5], wb.state.final.stream.tool_calls"""),
    ("code", """wb.reload_config(MY_FORMAT)   # and back
wb.state.final.stream.tool_calls"""),
    ("md", """**Watch the machine.** The *state machine* tab draws the active format: its states, and
each transition labelled with its terminal and the events it emits. The state after the
selected row is lit (the one before it dashed, the transition taken in bold). Select the
`<tool_call>` row, or click any row in the table. The *parser editor* tab shows the text
with line numbers and marks each problem on its line."""),
    ("code", """wb.select(next(r.step for r in wb.rows if "<tool_call>" in r.text))
wb.diagram"""),
    ("md", """**Compare with the built-in parser.** A/B runs two parser specs on the same stream,
side by side, and names the first step whose client-visible output differs. Both end with the
same message; they differ in when the arguments start: hermes sends each new piece as it comes,
`my_format` (through the granite argument converter) waits until a key is whole."""),
    ("code", """ab = wb.compare("hermes+qwen3", "editor")
ab.first_step, {d.field: d.same for d in ab.final["stream"]}"""),
    ("md", """**Check and fuzz it.** `check` compares the stream with the non-streaming answer, replays
the same tokens in other groupings (whole, k-token batches, random, every two-chunk split,
detokenizer holdback) against one-token deltas, checks the client contract, and shrinks
whatever fails."""),
    ("code", """report = wb.check(fuzz=20)
report.consistent, [f.headline() for f in report.findings]"""),
    ("md", """## The same format as Python

Most of vLLM's tool parsers are code: a `ToolParser` subclass registered under a name, loaded
by `vllm serve --tool-parser-plugin FILE`. The widget's *parser editor* takes that code too:
pick **Python plugin** in its toolbar, or hand it the text from a cell with
`wb.reload_plugin(text)`. The text is loaded as vLLM loads a plugin (a fresh module each time,
so nothing of the last version lingers) and the same stream replays through the parser it
registers: here the tool role, while `qwen3` keeps the reasoning. The calls are the format
above: `<tool_call>{json}</tool_call>`.

This part gets a widget of its own (`py`), so the first one keeps the TOML format and its
state machine above."""),
    ("code", PYTHON_PARSER),
    ("code", """py = workbench.show(TEXT, tools=TOOLS, run=True)
py.reload_plugin(MY_PARSER)   # None: its parser runs now; the editor shows it, in Python
py.tabs.selected_index = py.tabs.children.index(py.editor)
py.describe()["parser"]["tool"], py.state.final.stream.tool_calls"""),
    ("md", """The first status line now says *runs: editor plugin = …(MyToolParser, …), from the Python
editor*, with the file the text was loaded as and the name it registers.

**A mistake is one line, and the last good parser stays.** A syntax error, an exception
while the module imports or builds its parser, or a text that registers nothing comes back
as one line with its line number; the editor marks that line and the rows stay those of the
last good parser."""),
    ("code", """mistake = py.reload_plugin(MY_PARSER.replace("        if not rest:", "        if not rest"))
mistake"""),
    ("code", """py.state.settings.plugin_text == MY_PARSER, py.state.final.stream.tool_calls  # still the good one"""),
    ("md", """The editor now holds the broken text, marked on line 15. Hand it the good one again, so
the next exercise starts from a parser that runs:"""),
    ("code", """py.reload_plugin(MY_PARSER), py.state.editor.text == MY_PARSER"""),
    ("md", """**Now edit it in the editor.** Click into the *parser editor* tab of `py` above and change the
parser, say the `"call_0"` id: after a pause in typing (or Ctrl-Enter) the stream replays and
the rows that changed are marked. Delete the `:` at the end of a `def` line and the error
appears beside the editor, on its line, while the table keeps the last good rows. *TOML config*
in the toolbar shows the config again; the switch (*editor plugin: on*) hands the parser back to
the pickers. A plugin you import in a cell (`import my_parser_module`) registers its names in
this kernel: they appear in the *tool parser* and *reasoning* pickers.

Without a widget, `workbench.core.live_plugin.LivePlugin` does the same on a `Setup` and a
stream, and returns the same one line."""),
    ("code", """from workbench.core.live_plugin import LivePlugin
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Setup

setup = Setup(parser=ParserSpec("hermes", "qwen3"), request=RequestSpec(tools=TOOLS))
live = LivePlugin(setup, text=TEXT)
live.reload(MY_PARSER), live.parser"""),
    ("md", """From the terminal the same loop is `workbench watch my_parser.py out.txt --tool-parser
my_parser --tools tools.json` (check again on every save); `workbench doctor` names your file
and line, and `workbench export` writes a test beside a copy of it (docs: *Authoring a parser:
the loop*)."""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. Which line does the typo CONTNT get reported on?
# 2. With </think> kept in REASONING, which is the first step that changes?
# 3. Where does A/B first see hermes and my_format differ, and what does my_format send there?
# 4. After the broken plugin, which parser runs in py, and which id does its call carry?
# 5. On which line is the missing ":" reported?
# 6. Which machine does wb's state machine tab draw now, and does py's editor hold the good plugin?
format_row = {r.step: r for r in wb.rows}[ab.first_step]
ANSWERS = {
    "1. the typo's line": (str(problems[0]).split(":")[0], "<editor> line 9"),
    "2. the first step the broken transition changes": (broken[0], 6),
    "3. A/B's first step, and my_format's delta there": ((ab.first_step, format_row.delta), (20, None)),
    "4. the tool parser in py, and its call's id": (
        (py.describe()["parser"]["tool"].rsplit(".", 1)[1], py.state.final.stream.tool_calls[0].id),
        ("MyToolParser", "call_0")),
    "5. the broken plugin's one line": (mistake, "line 15: SyntaxError: expected ':'"),
    "6. wb's drawn machine, py's editor text is MY_PARSER": (
        ([m["name"] for m in wb.diagram.machines], py.state.editor.text == MY_PARSER),
        (["my_format"], True)),
}""" + CHECK_TAIL),
]

BUG = [
    ("md", """# 03 · Reproduce a bug: paste it, diagnose it, report it

A user reports that their client got a broken tool call. Paste what they sent into the next
cell: the model's output (from a log, or the server's non-streaming answer), the server's
flags and the tools of the request. The example is a Hermes call cut off inside its
arguments (the same stream as `parsers/recordings/hermes/truncated_arguments.jsonl`)."""),
    ("code", """MODEL_OUTPUT = ('<think>Paris, in Celsius.</think>\\n\\n<tool_call>\\n'
                '{"name": "get_weather", "arguments": {"city": "Paris", "unit": "cel')
FLAGS = ("vllm serve Qwen/Qwen3-8B --enable-auto-tool-choice --tool-call-parser hermes "
         "--reasoning-parser qwen3")
""" + TOOLS),
    ("md", """**Replay it.** `workbench.flags(FLAGS)` reads the parser names from the flags; the widget
streams the text token by token through the same parsers the server composed."""),
    ("code", """import tempfile
from pathlib import Path

import workbench

wb = workbench.show(MODEL_OUTPUT, tools=TOOLS, **workbench.flags(FLAGS), run=True)
[(d.field, d.equal, d.first_step) for d in wb.state.final.diffs]"""),
    ("md", """**Diagnose it.** The *diagnose* tab runs `workbench doctor` on the stream on screen: which
field goes wrong from which step, the causes most likely first, where in vLLM each parser
cause lives (file, class and method), and whether another vLLM version still shows it.
`wb.diagnose()` returns the same report the tab shows (and `workbench.doctor(...)` gives it
without a widget)."""),
    ("code", """report = wb.diagnose()
wb.tabs.selected_index = 3   # the diagnose tab
[(c.cls, c.summary) for c in report.causes]"""),
    ("code", """[(c.cls, c.where and f"{c.where['file']} {c.where['class']}.{c.where.get('method')}",
  c.versions and c.versions["verdict"]) for c in report.causes if c.where]"""),
    ("md", """The model stopped inside the call (`model_output`), and Hermes's two paths disagree about
what is left: the non-streaming `extract_tool_calls` returns the cut markup as content, the
streaming path drops it. The same report from the shipped recording, with no widget:"""),
    ("code", """same = workbench.doctor(recording="parsers/recordings/hermes/truncated_arguments.jsonl", versions=False)
[c.cls for c in same.causes]"""),
    ("md", """**The divergence.** The final-message tab highlights the differing fields; the first
divergent step is the first delta after which the joined stream can no longer become the
non-streaming answer."""),
    ("code", """row = wb.goto_divergence()      # selects it in the table and shows its detail
row.step, row.tokens, row.delta, row.chunk"""),
    ("md", """**Shrink it.** The checker confirms the finding and shrinks the text to the fewest tokens
that still show it; the shrunk case streams in a widget of its own."""),
    ("code", """check = wb.check(fuzz=20)
workbench.table([{"finding": f.headline()} for f in check.findings])"""),
    ("code", """small = wb.minimal_workbench()
display(small)
wb.minimal_text(), [(d.field, d.equal, d.first_step) for d in small.state.final.diffs]"""),
    ("md", """**The report.** `wb.doctor_report(PATH)` writes what *Download report* and *Download
test* give in the browser: the `--report` markdown (versions and flags, the cause and where
it lives, the minimal text, expected vs actual, the rows where it goes wrong) and the pytest
file beside it, which fails while the bug is there. Paste the markdown into the issue."""),
    ("code", """out = Path(tempfile.mkdtemp())
written = wb.doctor_report(str(out / "hermes_cut_call.md"))
from IPython.display import Markdown

Markdown(Path(written[0]).read_text())  # drawn as the issue will show it"""),
    ("code", """import pytest

# (-W: pytest in a kernel that imported its plugins already warns it cannot rewrite them: noise here)
outcome = pytest.main(["-q", "--tb=no", "--color=no", "-p", "no:cacheprovider",
                       "-W", "ignore::pytest.PytestAssertRewriteWarning", written[1]])
outcome   # TESTS_FAILED, as it should: the bug is there"""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. At which step does the stream first diverge, and on which token?
# 2. Which cause does the doctor put first?
# 3. In which Hermes method does the non-streaming cause live?
# 4. Does the shipped recording give the same causes as the pasted text?
# 5. What does the exported test do while the bug is there?
nonstreaming = next(c for c in report.causes if c.cls == "parser_nonstreaming")
ANSWERS = {
    "1. the first divergent step and its token": ((row.step, row.tokens), (17, ['",'])),
    "2. the first cause": (report.causes[0].cls, "model_output"),
    "3. the non-streaming cause's method": (
        f"{nonstreaming.where['class']}.{nonstreaming.where['method']}",
        "Hermes2ProToolParser.extract_tool_calls"),
    "4. the recording's causes = the pasted text's": (
        [c.cls for c in same.causes] == [c.cls for c in report.causes], True),
    "5. the exported test": (outcome, pytest.ExitCode.TESTS_FAILED),
}""" + CHECK_TAIL),
]

REAL = [
    ("md", """# 04 · A real model: what it wanted, and what the grammar allowed

The tour's engine forces a tiny random model through a script. Here a real chat model chooses
its own tokens (free generation: no script), and vLLM's structured outputs decide what it may
choose: for `tool_choice="required"` the engine builds a grammar from the tools and masks every
token the grammar does not allow before the sampler sees the logits.

Each row keeps the model's top candidates at that step twice: **before** the grammar's mask
(what the model wanted) and **after** it (what the grammar allowed, renormalised). Click a row:
the detail pane draws both as bars, the chosen token outlined, a masked one struck through.

On a CPU this is SmolLM2-135M-Instruct (`model="smollm2"`, installed by `make setup`: about 10 s
to start, a few tokens a second). On a GPU it is the model folder in `WORKBENCH_MODEL`, with
`WORKBENCH_TP` / `WORKBENCH_PP` as its tensor and pipeline parallel sizes when set. `max_tokens`
is kept small and `seed` fixed: the same seed gives the same rows again."""),
    ("code", """import os

# vLLM's start-up log stays out of the cells, and so do the lines its tool parser logs when its
# non-streaming parse of a sampled call fails (the final tab shows that; the rows keep the log)
os.environ["VLLM_LOGGING_LEVEL"] = "CRITICAL"
import pandas as pd
import torch
import workbench

if torch.cuda.is_available():
    MODEL = os.environ["WORKBENCH_MODEL"]   # a local folder with config.json and weights
    SIZES = (("tensor_parallel_size", "WORKBENCH_TP"), ("pipeline_parallel_size", "WORKBENCH_PP"))
    ENGINE = {k: int(os.environ[v]) for k, v in SIZES if os.environ.get(v)}
else:
    MODEL, ENGINE = "smollm2", {}
REAL = dict(model=MODEL, engine=ENGINE, tool_parser="hermes", reasoning_parser=None, seed=0)
MODEL, ENGINE"""),
    ("code", """WEATHER = {"name": "get_weather", "description": "Current weather for a city",
           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                          "required": ["city"], "additionalProperties": False}}
STRICT = [{"type": "function", "function": {**WEATHER, "strict": True}}]
LOOSE = [{"type": "function", "function": WEATHER}]


def candidates(wb):
    \"\"\"Each sampled token: the model's favourite and the chosen token's rank and probability,
    before the grammar (wanted) and after it (allowed).\"\"\"
    out = []
    for row in wb.rows:
        for c in row.extra.get("candidates", []):
            listed = c["after"] + c["before"]
            chosen = next((i["token"] for i in listed if i["id"] == c["token"]), c["token"])
            out.append({"step": row.step, "chosen": repr(chosen),
                        "favourite": repr(c["before"][0]["token"]),
                        "favourite masked": c["before"][0].get("masked", False),
                        "rank wanted": c["rank_before"], "p wanted": c["p_before"],
                        "rank allowed": c["rank_after"], "p allowed": c["p_after"],
                        "tokens allowed": c.get("allowed")})
    return pd.DataFrame(out)"""),
    ("md", """**`tool_choice="auto"`**: no grammar. The model writes what it likes (prose, for this
question): "wanted" and "allowed" are the same bars."""),
    ("code", """auto = workbench.show(tools=STRICT, max_tokens=6, run=True, **REAL)
candidates(auto)"""),
    ("md", """**`tool_choice="required"` with a `"strict": true` tool**: the grammar pins the call's
shape *and* its arguments to the tool's schema. Look for rows where the model's favourite was
masked: the grammar overruled it, and the model's second (or tenth) choice was taken. Even this
small model writes a valid call."""),
    ("code", """strict = workbench.show(tools=STRICT, tool_choice="required", max_tokens=64, run=True, **REAL)
print(strict.state.final.stream.tool_calls)
candidates(strict)[lambda f: f["favourite masked"]]"""),
    ("md", """**The same without `strict`**: the grammar pins only the call's shape (a call to one
of the tools); its arguments are free JSON the model writes, so they need not follow the schema.
vLLM does the same, and the notes say so."""),
    ("code", """loose = workbench.show(tools=LOOSE, tool_choice="required", max_tokens=12, run=True, **REAL)
print(loose.state.final.stream.tool_calls)   # cut at max_tokens here: the point is the note
[n for n in loose.state.final.notes if "strict" in n]"""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. With tool_choice="auto" (no grammar), do "wanted" and "allowed" ever differ?
# 2. With the strict tool, which call does the model end with, and which argument keys?
# 3. Was every token the strict run chose one the grammar allowed?
# 4. Without strict, does the final tab say why the arguments may break the schema?
import json

free, forced = candidates(auto), candidates(strict)
call = strict.state.final.stream.tool_calls[0]
ANSWERS = {
    "1. auto: wanted and allowed differ somewhere": (
        bool(((free["rank wanted"] != free["rank allowed"])
              | (free["p wanted"] != free["p allowed"])).any()), False),
    "2. strict: the call and its argument keys": (
        (call.name, sorted(json.loads(call.arguments))), ("get_weather", ["city"])),
    "3. strict: every chosen token allowed": (bool(forced["rank allowed"].notna().all()), True),
    "4. loose: a note about strict": (any("strict" in n for n in loose.state.final.notes), True),
}""" + CHECK_TAIL),
]

NOTEBOOKS = {"01_tour.ipynb": TOUR, "02_author_a_parser.ipynb": AUTHOR,
             "03_reproduce_a_bug.ipynb": BUG, "04_real_model.ipynb": REAL,
             "05_harmony.ipynb": HARMONY, "06_one_stream_three_apis.ipynb": APIS,
             "07_python_and_rust.ipynb": RUST}


def build(cells) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3 (ipykernel)",
                                  "language": "python"},
                   "language_info": {"name": "python"}}
    for n, (kind, src) in enumerate(cells):
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(src.strip())
        cell["id"] = f"c{n:02d}"
        nb.cells.append(cell)
    return nb


def main(argv: list[str]) -> int:
    stale = []
    for name, cells in NOTEBOOKS.items():
        text = nbformat.writes(build(cells)) + "\n"
        path = HERE / name
        if "--check" in argv:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(name)
        else:
            path.write_text(text, encoding="utf-8")
    if stale:
        print("out of date (run notebooks/build.py):", ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
