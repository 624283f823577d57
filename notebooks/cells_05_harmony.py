"""The cells of notebooks/05_harmony.ipynb (written by notebooks/build.py)."""

from cells_check import CHECK_MD, CHECK_TAIL

HARMONY = [
    ("md", """# 05 · Harmony, channel by channel

gpt-oss does not write `<think>…</think>` and tool-call markup into one text. It writes
*messages*, each with a header and a body, in the Harmony format:

    <|channel|>analysis<|message|>Need the weather.<|end|>
    <|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>

The header names the **channel** (`analysis` = reasoning, `commentary` = tool calls and
preambles, `final` = the answer) and, for a tool call, the **recipient** (` to=functions.NAME`).
When the model's `config.json` says `model_type: gpt_oss`, vLLM's server always composes
`HarmonyParser`, whatever parser names it was given (`openai` and `openai_gptoss` only say
*whether* tools and reasoning are on). It reads the **token ids** with `openai_harmony`'s
`StreamableParser`, not the text. The `gpt_oss` tokenizer here is the real o200k_harmony
vocabulary, offline."""),
    ("code", """import os

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # keep vLLM's start-up log out of the cells
import workbench

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
SEED = ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant'
        '<|channel|>commentary to=functions.get_weather <|constrain|>json'
        '<|message|>{"city": "Paris"}<|call|>')
HARMONY = dict(tokenizer="gpt_oss", tool_parser="openai", reasoning_parser="openai_gptoss", tools=TOOLS)

wb = workbench.show(SEED, **HARMONY)
wb.describe()["parser"]["kind"], wb.describe()["parser"]["class"]"""),
    ("md", """**The header.** The prompt ends in `<|start|>assistant`, so the model's first tokens are
the rest of a header: `<|channel|>`, `analysis`, `<|message|>`. The *phase* column shows the
parser's current channel and recipient after each delta; it is `header` until `<|message|>`
closes the header, and nothing is sent for these tokens."""),
    ("code", """wb.step(3)
workbench.table(wb.frame()[["step", "token_ids", "tokens", "phase_before", "phase", "reasoning", "sse"]])"""),
    ("md", """**analysis → reasoning.** Text in the `analysis` channel streams as `delta.reasoning`."""),
    ("code", """wb.step(5)
workbench.table(wb.frame()[["step", "tokens", "phase", "reasoning", "content", "sse"]].tail(5))"""),
    ("md", """**commentary to=functions.get_weather → a tool call.** `<|end|>` closes the message and
`<|start|>assistant` opens the next. Its header holds the recipient; at its `<|message|>`
the parser knows the function, so that delta opens tool call #0 with the name, and the
JSON body streams as its arguments. `<|call|>` ends the message and, being a gpt-oss stop
token, the generation: the last delta carries `finish_reason` `tool_calls`."""),
    ("code", """wb.run()
workbench.table(wb.frame()[["step", "tokens", "phase", "tool_calls", "sse", "finish_reason"]].tail(10))"""),
    ("code", """final = wb.state.final
final.stream.reasoning, final.stream.tool_calls, final.nonstream.tool_calls"""),
    ("md", """**final → content.** A message in the `final` channel is the answer, streamed as
`delta.content`; `<|return|>` ends it."""),
    ("code", """FINAL = ('<|channel|>analysis<|message|>Sunny, say so.<|end|><|start|>assistant'
         '<|channel|>final<|message|>It is sunny in Paris.<|return|>')
answer = workbench.show(FINAL, run=True, **HARMONY)
workbench.table(answer.frame()[["step", "tokens", "phase", "reasoning", "content"]].tail(8))"""),
    ("md", """**A channel vLLM does not know.** The parser still reads the header, so the rows name
the channel, but `HarmonyParser` maps only `analysis`, `commentary` and `final`: the body of
any other channel is dropped, in the stream and in the non-streaming answer alike. That is the
Chat Completions path. The Responses API's is stricter: its `_parse_message_no_recipient`
(`vllm/entrypoints/openai/responses/harmony.py`) raises `ValueError: Unknown channel: thoughts`
at the last step, so its stream ends without `response.completed`: the final tab's *Every API's
client* table shows it."""),
    ("code", """ODD = ('<|channel|>thoughts<|message|>hidden?<|end|><|start|>assistant'
       '<|channel|>final<|message|>ok<|return|>')
odd = workbench.show(ODD, run=True, **HARMONY)
[(r.step, r.phase, r.delta) for r in odd.rows if r.phase == "thoughts"], odd.state.final.stream.content"""),
    ("md", """**Check it.** The same checks as for any parser: stream vs non-stream, other groupings
of the same tokens (HarmonyParser is fed ids, so regrouping cannot change what it sees
unless it keeps state wrongly), and the client contract."""),
    ("code", """report = wb.check(fuzz=10)
report.consistent, [f.headline() for f in report.findings]"""),
    CHECK_MD,
    ("code", """# Check yourself
# 1. Which delta opens tool call #0, and with which name?
# 2. How does the seed's last delta end the generation?
# 3. What reaches the client of the unknown channel "thoughts"?
# 4. Is the Harmony stream consistent under every regrouping the check tried?
opening = next(r for r in wb.rows if r.delta is not None and r.delta.tool_calls)
ANSWERS = {
    "1. the delta that opens the call: step, token, name": (
        (opening.step, wb.frame().tokens[opening.step - 1], opening.delta.tool_calls[0].name),
        (22, ["<|message|>"], "get_weather")),
    "2. the last delta's finish_reason": (wb.rows[-1].finish_reason, "tool_calls"),
    "3. thoughts: its deltas, and the final content": (
        ([r.delta for r in odd.rows if r.phase == "thoughts"], odd.state.final.stream.content),
        ([None, None, None], "ok")),
    "4. consistent": ((report.consistent, len(report.findings)), (True, 0)),
}""" + CHECK_TAIL),
]
