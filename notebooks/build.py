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

TOOLS = '''TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
                   "required": ["city"]}}}]'''

TOUR = [
    ("md", """# 01 · A tour of vLLM's tool and reasoning parsers

What happens between the model's text and the OpenAI fields `reasoning`, `content` and
`tool_calls`: the parsers vLLM's server runs, one delta at a time, on a real (tiny) vLLM
engine embedded in this kernel. Every row below is what vLLM's own classes returned.

**The flags.** A server started with `--enable-auto-tool-choice --tool-call-parser hermes
--reasoning-parser qwen3` looks the two names up in two registries and composes one `Parser`
class from them. The workbench makes the same calls."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import workbench

registry = workbench.parsers()
registry.groupby(["kind", "style"]).size()"""),
    ("code", """registry[registry.name.isin(["hermes", "qwen3", "qwen3_coder", "deepseek_r1"])]"""),
    ("md", """**The composed parser.** `ParserManager.get_parser("hermes", "qwen3")` gives a
`DelegatingParser` subclass holding the Qwen3 reasoning parser and the Hermes tool parser.
The embedded engine is a random-weight Qwen3 with the real Qwen3 tokenizer; a *script* forces
the tokens it emits, so the run is exactly repeatable. Nothing runs until the first Step."""),
    ("code", TOOLS + """

wb = workbench.show(source="engine", tools=TOOLS)   # the seed's script, on the embedded engine
wb.describe()"""),
    ("md", """**The reasoning phase, one delta at a time.** Each Step is one engine step: its token,
the text vLLM's detokenizer released, the phase before and after, and what `parse_delta`
returned. Pale italic rows send no SSE chunk at all (the `<think>` marker is eaten); the
legend above the table names every colour. Above it, the *token strip* has one cell per
token, coloured by phase (pale: no chunk, a bar: the phase or state changed), and the bars
are the parser's time per delta. Click a row, a token cell or a bar, or use j/k, and the
detail beside the table shows that delta in full."""),
    ("code", """wb.step(5)
wb.frame()[["step", "tokens", "phase_before", "phase", "reasoning", "content", "sse"]]"""),
    ("md", """**The end of thinking.** `</think>` moves the parser from the reasoning phase to the
tool phase; the reasoning engine emits `REASONING_END` and no chunk is sent."""),
    ("code", """wb.step()
end = wb.select(6)   # the detail shows its token ids, events and (absent) SSE chunk
end.tokens, end.phase_before, end.phase, end.events, end.sse"""),
    ("md", """**The tool phase.** Hermes buffers the call until it knows the name, then streams the
arguments piece by piece. The last delta carries `finish_reason`: the engine said `stop`,
the serving layer reports `tool_calls` because tool calls were streamed."""),
    ("code", """wb.run()
wb.frame()[["step", "tokens", "phase", "content", "tool_calls", "sse", "finish_reason"]].tail(12)"""),
    ("code", """wb.rows[-1].finish_reason, wb.model.final.stream.tool_calls"""),
    ("md", """The *final message* tab puts the joined stream next to the non-streaming answer
(`parse` on the whole text). Here they differ only in the `"\\n\\n"` between `</think>` and
the call: streamed as content, dropped by the non-streaming parse."""),
    ("code", """[(d.field, d.equal, d.first_step) for d in wb.model.final.diffs]"""),
    ("md", """**`tool_choice: "required"` and its grammar.** Now the request forces a call. Hermes's
`adjust_request` turns off `skip_special_tokens` and adds a *structural tag*: a grammar of
its own call syntax that the engine enforces once reasoning has ended. The grammar column
shows, per step, whether the gate was open and how many tokens the mask allowed."""),
    ("code", """REQUIRED = ('<think>Weather is needed.</think><tool_call>\\n{"name": "get_weather", '
            '"arguments": {"city": "Paris"}}\\n</tool_call>')
req = workbench.show(REQUIRED, source="engine", tools=TOOLS, tool_choice="required", run=True)
req.describe()["request"]["structured_outputs"]"""),
    ("code", """req.frame().assign(grammar=[r.extra.get("grammar", {}).get("allowed") for r in req.rows])[
    ["step", "tokens", "phase", "tool_calls", "finish_reason", "grammar"]]"""),
    ("md", """The seed's own script has `"\\n\\n"` after `</think>`, which the grammar does not
allow: the engine rejects the forced token and ends the request with `finish_reason: "error"`
(the last row, in the grammar column: *emitted token not allowed*)."""),
    ("code", """seed = workbench.show(source="engine", tools=TOOLS, tool_choice="required", run=True)
seed.rows[-1].finish_reason, seed.rows[-1].extra["grammar"]"""),
    ("md", """**Your turn.** A fresh request on the same engine. Click *Step* to advance it one engine
step at a time and watch each row arrive; *Run* finishes it. Edit the script text or pick
other parsers in the controls, then *Reset*."""),
    ("code", """mine = workbench.show(source="engine", tools=TOOLS)"""),
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
        return DeltaMessage(tool_calls=[DeltaToolCall(index=0, id="call_0", type="function", function=DeltaFunctionCall(
            name=call["name"], arguments=arguments))])
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
the text into the *config editor* replays the same stream through the new format."""),
    ("code", """wb = workbench.show(TEXT, tools=TOOLS, run=True)
wb.reload_config(MY_FORMAT)          # [] means: it is now the active parser
wb.model.final.stream"""),
    ("md", """**A mistake is reported, not applied.** A typo in a state name comes back as a problem
with its line; the editor's banner shows it and the last good config stays active."""),
    ("code", """problems = wb.reload_config(MY_FORMAT.replace('to = "CONTENT",   emit = ["REASONING_END"]',
                                              'to = "CONTNT",    emit = ["REASONING_END"]'))
[str(p) for p in problems]"""),
    ("md", """**Break one transition.** Let `</think>` keep the machine in `REASONING`: every row from
there on changes (marked in the table), and the tool call disappears into the reasoning."""),
    ("code", """wb.reload_config(MY_FORMAT.replace('to = "CONTENT",   emit = ["REASONING_END"]',
                                  'to = "REASONING", emit = []'))
wb.changed[:5], wb.model.final.stream.tool_calls"""),
    ("code", """wb.reload_config(MY_FORMAT)   # and back
wb.model.final.stream.tool_calls"""),
    ("md", """**Watch the machine.** The *state machine* tab draws the active format: its states, and
each transition labelled with its terminal and the events it emits. The state after the
selected row is lit (the one before it dashed, the transition taken in bold). Select the
`<tool_call>` row, or click any row in the table. The *config editor* tab shows the text
with line numbers and marks each problem on its line."""),
    ("code", """wb.select(next(r.step for r in wb.rows if "<tool_call>" in r.text))
wb.diagram"""),
    ("md", """**Compare with the built-in parser.** A/B runs two parser specs on the same stream,
side by side, and names the first step whose client-visible output differs."""),
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
by `vllm serve --tool-parser-plugin FILE`. `LivePlugin` takes that code as text (an editor's,
a cell's), loads it as vLLM loads a plugin, under a fresh module name each time, and replays
the same stream through the parser it registers (here the tool role; `qwen3` keeps the
reasoning). The calls are the format above: `<tool_call>{json}</tool_call>`."""),
    ("code", PYTHON_PARSER),
    ("code", """from workbench.core.live_plugin import LivePlugin
from workbench.core.parsers import ParserSpec
from workbench.core.request import RequestSpec
from workbench.core.session import Setup

live = LivePlugin(Setup(parser=ParserSpec("hermes", "qwen3"), request=RequestSpec(tools=TOOLS)), text=TEXT)
live.reload(MY_PARSER)        # None: it is now the tool parser
live.parser, live.result.stream_final.tool_calls"""),
    ("md", """**A mistake is one line, and the last good parser stays.** A syntax error, or an exception
while the module imports, comes back with its line; nothing else changes."""),
    ("code", """live.reload(MY_PARSER.replace("        if not rest:", "        if not rest")), live.parser.tool_parser"""),
    ("md", """From the terminal the same loop is `workbench watch my_parser.py out.txt --tool-parser
my_parser --tools tools.json` (check again on every save); `workbench doctor` names your file
and line, and `workbench export` writes a test beside a copy of it (docs: *Authoring a parser:
the loop*)."""),
]

BUG = [
    ("md", """# 03 · Reproduce a bug from a recording

`parsers/recordings/hermes/truncated_arguments.jsonl` was recorded with
`workbench replay --save`: a Hermes tool call cut off inside its arguments. Replay it,
find where streaming and non-streaming part ways, shrink it, and export a pytest file
that fails while the bug is there."""),
    ("code", """import tempfile
from pathlib import Path

import workbench

wb = workbench.show(recording="parsers/recordings/hermes/truncated_arguments.jsonl", run=True)
wb.describe()["parser"]["tool"], len(wb.rows)"""),
    ("md", """**The divergence.** The final-message tab highlights the differing fields; the first
divergent step is the first delta after which the joined stream can no longer become the
non-streaming answer."""),
    ("code", """[(d.field, d.equal, d.first_step) for d in wb.model.final.diffs]"""),
    ("code", """row = wb.goto_divergence()      # selects it in the table and shows its detail
row.step, row.tokens, row.delta, row.chunk"""),
    ("md", """**Check and shrink.** The checker confirms the finding and shrinks the text to the
fewest tokens that still show it."""),
    ("code", """report = wb.check(fuzz=20)
[f.headline() for f in report.findings]"""),
    ("code", """wb.minimal_text()"""),
    ("code", """small = wb.minimal_workbench()   # the shrunk case, in a widget of its own
display(small)
[(d.field, d.equal, d.first_step) for d in small.model.final.diffs]"""),
    ("md", """**Export the shrunk case.** A standalone pytest file with the tokens, the request and the
groupings (the findings are re-checked for this stream); it imports only vLLM and fails now,
as it should until the parser is fixed."""),
    ("code", """out = Path(tempfile.mkdtemp()) / "test_hermes_truncated.py"
small.export(str(out))
print(out.read_text()[:1200])"""),
]

GPU = [
    ("md", """# 04 · The same with a real model on a GPU

The tour's steps with a real model instead of the embedded tiny one. Needs a CUDA GPU, a
GPU build of vLLM, and a local model folder in `WORKBENCH_MODEL` (e.g. a Qwen3 checkpoint;
its own tokenizer is used). Without a GPU the next cell says so and the notebook stops."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import workbench

workbench.require_gpu()"""),
    ("code", """MODEL = os.environ.get("WORKBENCH_MODEL", "")   # a local folder with config.json and weights
""" + TOOLS),
    ("md", """**Free generation** (`text=""`): the model writes; each Step is one engine step."""),
    ("code", """wb = workbench.show("", source="engine", model=MODEL, tokenizer=MODEL, tools=TOOLS,
                    reasoning_parser="qwen3", tool_parser="hermes")
wb.step(8)
wb.frame()[["step", "tokens", "phase", "reasoning", "content", "sse"]]"""),
    ("code", """wb.run()
[(d.field, d.equal, d.first_step) for d in wb.model.final.diffs]"""),
    ("md", """**`tool_choice: "required"`**: the grammar constrains the real model's output."""),
    ("code", """req = workbench.show("", source="engine", model=MODEL, tokenizer=MODEL, tools=TOOLS,
                     tool_choice="required", run=True)
req.describe()["request"]["structured_outputs"], req.model.final.stream.tool_calls"""),
    ("code", """report = wb.check(fuzz=20)
[f.headline() for f in report.findings]"""),
]

NOTEBOOKS = {"01_tour.ipynb": TOUR, "02_author_a_parser.ipynb": AUTHOR,
             "03_reproduce_a_bug.ipynb": BUG, "04_gpu_real_model.ipynb": GPU,
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
